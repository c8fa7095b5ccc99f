/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs' devargs: what each key means (doc/verbs.md has the long
 * version), their parsing, and the address syntax of listen= and connect=.
 * Every bad value is one log line naming the key, the value and what would
 * be valid.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_parse.h>

#include "verbs_private.h"

const struct dvp_devargs_key verbs_devargs_keys[] = {
	{ "dev", "the verbs device, as ibv_devices names it: rxe0, mlx5_0, ... (required)" },
	{ "listen",
	  "IPV4:PORT to accept the peer port's connection on; or an IPv6 address with port=" },
	{ "connect",
	  "IPV4:PORT of the peer port, which listens there (one of listen and connect); or an IPv6 address with port=" },
	{ "port", "the TCP-style port for an IPv6 address in listen= or connect=, 1 to 65535" },
	{ "mode", "rc (reliable connection, default) or ud (datagrams through address handles)" },
	{ "solicited",
	  "1: rx queues sleep until a solicited completion (the sender marks the last frame of each burst); default 0" },
	{ "reconnect",
	  "1 (default): connect again when the peer comes back after a disconnect; 0: stay down" },
	{ "tx_signal", "ask for a send completion every N frames, 1 to 1024 (default 32)" },
	{ "tx_inline",
	  "send frames up to this many bytes inline, 0 to 1024 (default 64, capped by the device)" },
	{ "ack_timeout",
	  "RC: retransmit after 4.096 us x 2^N without an ack, 1 to 31 (default 14: 67 ms; 6 retries, then the queue is rebuilt)" },
	{ "tx_timeout",
	  "ms a tx queue may have sends in flight with none completing before it is rebuilt (QUEUE_ERROR), 0 (never) or 10 to 600000 (default 1000)" },
	{ "rx_cq_size",
	  "receive CQ entries, 0 (default) for the ring's size; smaller only to test CQ overruns" },
	{ "mac",
	  "the port's MAC address, xx:xx:xx:xx:xx:xx (default: 02, then the device GUID's last 4 bytes, then the port id)" },
	{ NULL, NULL },
};

const char *verbs_addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char ip[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)(const void *)sa;

		inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
		snprintf(buf, len, "%s:%u", ip, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)(const void *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, ip, sizeof(ip));
		snprintf(buf, len, "[%s]:%u", ip, ntohs(in6->sin6_port));
	} else {
		snprintf(buf, len, "(address family %d)", sa->sa_family);
	}
	return buf;
}

int verbs_addr_parse(const char *name, const char *key, const char *s, struct sockaddr_storage *ss)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon, *port_s;
	uint64_t port;
	size_t hlen;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *close = strchr(s, ']');

		if (close == NULL || close[1] != ':') {
			VERBS_LOG(ERR, "%s: %s=%s: an IPv6 address is written [ADDRESS]:PORT", name,
				  key, s);
			return dvp_err(EINVAL);
		}
		hlen = (size_t)(close - s - 1);
		port_s = close + 2;
		if (hlen >= sizeof(host))
			goto bad_host;
		memcpy(host, s + 1, hlen);
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL) {
			VERBS_LOG(
				ERR,
				"%s: %s=%s: no port; write IP:PORT (10.0.0.1:18515, [fe80::1]:18515)",
				name, key, s);
			return dvp_err(EINVAL);
		}
		if (strchr(s, ':') != colon) {
			VERBS_LOG(
				ERR,
				"%s: %s=%s: an IPv6 address needs brackets: [ADDRESS]:PORT, written %s=[[ADDRESS]:PORT] in devargs",
				name, key, s, key);
			return dvp_err(EINVAL);
		}
		hlen = (size_t)(colon - s);
		port_s = colon + 1;
		if (hlen >= sizeof(host))
			goto bad_host;
		memcpy(host, s, hlen);
	}
	host[hlen] = '\0';
	if (dvp_parse_u64(port_s, 1, 65535, &port) < 0) {
		VERBS_LOG(ERR, "%s: %s=%s: port '%s' is not a number from 1 to 65535", name, key, s,
			  port_s);
		return dvp_err(EINVAL);
	}
	if (s[0] == '[') {
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		if (inet_pton(AF_INET6, host, &in6->sin6_addr) != 1)
			goto bad_host;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons((uint16_t)port);
	} else {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		if (inet_pton(AF_INET, host, &in->sin_addr) != 1)
			goto bad_host;
		in->sin_family = AF_INET;
		in->sin_port = htons((uint16_t)port);
	}
	return 0;

bad_host:
	VERBS_LOG(
		ERR,
		"%s: %s=%s: '%.*s' is not a numeric IPv4 or IPv6 address (host names are not looked up)",
		name, key, s, (int)DVP_MIN(hlen, (size_t)64), s[0] == '[' ? s + 1 : s);
	return dvp_err(EINVAL);
}

/*
 * listen= / connect=: "IPV4:PORT", "[IPV6]:PORT", or (devargs cannot hold
 * brackets in a value) an IPv6 address with its port in port=.
 */
static int addr_arg(const char *name, const char *key, const char *v, const char *port,
		    struct verbs_cfg *cfg)
{
	const char *c = strchr(v, ':');
	char buf[sizeof(cfg->addr_str)];

	if (c != NULL && strchr(c + 1, ':') != NULL && v[0] != '[') {
		/* Two colons or more: an IPv6 address. */
		if (port == NULL) {
			VERBS_LOG(
				ERR,
				"%s: %s=%s is an IPv6 address: give its port with port=N (%s=fe80::1,port=18515)",
				name, key, v, key);
			return dvp_err(EINVAL);
		}
		snprintf(buf, sizeof(buf), "[%s]:%s", v, port);
	} else {
		if (port != NULL) {
			VERBS_LOG(
				ERR,
				"%s: port=%s is for an IPv6 address; an IPv4 one takes its port in %s=IP:PORT",
				name, port, key);
			return dvp_err(EINVAL);
		}
		snprintf(buf, sizeof(buf), "%s", v);
	}
	snprintf(cfg->addr_str, sizeof(cfg->addr_str), "%s", buf);
	return verbs_addr_parse(name, key, buf, &cfg->addr);
}

/* Test hooks from the environment (test/rxe), read once at probe. */
static int test_env(const char *name, struct verbs_cfg *cfg)
{
	const char *s = getenv("DVP_VERBS_TEST_HOLD_ACCEPT_MS");
	uint64_t v;

	if (s == NULL)
		return 0;
	if (dvp_parse_u64(s, 0, 600000, &v) < 0) {
		VERBS_LOG(ERR, "%s: DVP_VERBS_TEST_HOLD_ACCEPT_MS=%s: 0 to 600000 (ms)", name, s);
		return dvp_err(EINVAL);
	}
	cfg->test_hold_accept_ms = (uint32_t)v;
	return 0;
}

int verbs_cfg_parse(const char *name, const struct dvp_devargs *da, struct verbs_cfg *cfg)
{
	static const char *const modes[] = { "rc", "ud", NULL };
	const char *dev, *listen, *conn, *mac;
	unsigned int mode;
	uint64_t v;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	dev = dvp_devargs_get(da, "dev");
	if (dev == NULL || dev[0] == '\0') {
		VERBS_LOG(
			ERR,
			"%s: no dev= given; name the verbs device to use (ibv_devices lists them), e.g. --vdev %s,dev=rxe0,listen=10.0.0.1:18515",
			name, name);
		return dvp_err(EINVAL);
	}
	if (strlen(dev) >= sizeof(cfg->dev)) {
		VERBS_LOG(ERR, "%s: dev=%s: a device name has at most %zu characters", name, dev,
			  sizeof(cfg->dev) - 1);
		return dvp_err(EINVAL);
	}
	snprintf(cfg->dev, sizeof(cfg->dev), "%s", dev);

	listen = dvp_devargs_get(da, "listen");
	conn = dvp_devargs_get(da, "connect");
	if ((listen == NULL) == (conn == NULL)) {
		VERBS_LOG(
			ERR,
			"%s: %s; give exactly one: listen=IP:PORT (this port waits for its peer) or connect=IP:PORT (it connects to a listening peer)",
			name,
			listen == NULL ? "neither listen= nor connect= given" :
					 "both listen= and connect= given");
		return dvp_err(EINVAL);
	}
	cfg->role = listen != NULL ? VERBS_ROLE_LISTEN : VERBS_ROLE_CONNECT;
	ret = addr_arg(name, listen != NULL ? "listen" : "connect", listen != NULL ? listen : conn,
		       dvp_devargs_get(da, "port"), cfg);
	if (ret < 0)
		return ret;

	ret = dvp_devargs_get_choice(da, "mode", modes, VERBS_MODE_RC, &mode);
	if (ret < 0)
		return ret;
	cfg->mode = (enum verbs_mode)mode;
	ret = dvp_devargs_get_bool(da, "solicited", false, &cfg->solicited);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "reconnect", true, &cfg->reconnect);
	if (ret < 0)
		return ret;
	ret = dvp_devargs_get_u32(da, "tx_signal", 1, 1024, VERBS_TX_SIGNAL_DEFAULT,
				  &cfg->tx_signal);
	if (ret < 0)
		return ret;
	ret = dvp_devargs_get_u32(da, "tx_inline", 0, 1024, VERBS_TX_INLINE_DEFAULT,
				  &cfg->tx_inline);
	if (ret < 0)
		return ret;
	ret = dvp_devargs_get_u64(da, "ack_timeout", 1, 31, VERBS_ACK_TIMEOUT_DEFAULT, &v);
	if (ret < 0)
		return ret;
	cfg->ack_timeout = (uint8_t)v;
	ret = dvp_devargs_get_u32(da, "tx_timeout", 0, 600000, VERBS_TX_TIMEOUT_DEFAULT,
				  &cfg->tx_timeout);
	if (ret < 0)
		return ret;
	if (cfg->tx_timeout > 0 && cfg->tx_timeout < 10) {
		VERBS_LOG(ERR, "%s: tx_timeout=%" PRIu32 ": 0 (never) or 10 to 600000 ms", name,
			  cfg->tx_timeout);
		return dvp_err(EINVAL);
	}
	ret = dvp_devargs_get_u32(da, "rx_cq_size", 0, 65536, 0, &cfg->rx_cq_size);
	if (ret < 0)
		return ret;
	mac = dvp_devargs_get(da, "mac");
	if (mac != NULL) {
		ret = dvp_port_devarg_mac(name, "mac", mac, &cfg->mac);
		if (ret < 0)
			return ret;
		cfg->mac_set = true;
	}
	return test_env(name, cfg);
}
