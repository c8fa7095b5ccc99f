/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs without a device: devargs and address parsing, the handshake
 * a peer sends (every malformed one refused with a reason), the names of
 * work-completion statuses, the locked-memory check, and probes that must
 * fail with one clear line. The driver on a real device is tested in the
 * Soft-RoCE VM (test/rxe/test_rxe_verbs.c).
 */

#include "dvp_test_eal.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dvp_bus.h>
#include <dvp_devargs.h>
#include <dvp_port.h>

#include "verbs_private.h"

/* Parse "net_verbs0,<args>" into @cfg, capturing the log. */
static int parse(const char *args, struct verbs_cfg *cfg, char **log)
{
	struct dvp_log_capture cap;
	struct dvp_devargs da;
	char str[256];
	int ret;

	snprintf(str, sizeof(str), "net_verbs0%s%s", args[0] ? "," : "", args);
	assert_int_equal(dvp_devargs_parse(str, &da), 0);
	dvp_log_capture_begin(&cap);
	ret = verbs_cfg_parse("net_verbs0", &da, cfg);
	dvp_log_capture_end(&cap);
	dvp_devargs_free(&da);
	*log = cap.buf;
	return ret;
}

static void expect_error(const char *args, const char *needle)
{
	struct verbs_cfg cfg;
	char *log;

	assert_int_equal(parse(args, &cfg, &log), -EINVAL);
	assert_contains(log, needle);
	/* One line saying what is wrong. */
	assert_int_equal(dvp_test_count_lines(log), 1);
	free(log);
}

static void test_addr_good(void **state)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *in = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
	char buf[80];

	(void)state;
	assert_int_equal(verbs_addr_parse("t", "listen", "10.0.2.15:18515", &ss), 0);
	assert_int_equal(in->sin_family, AF_INET);
	assert_int_equal(ntohs(in->sin_port), 18515);
	assert_int_equal(ntohl(in->sin_addr.s_addr), 0x0a00020f);
	assert_string_equal(verbs_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)),
			    "10.0.2.15:18515");
	assert_int_equal(verbs_addr_parse("t", "connect", "[fe80::1]:1", &ss), 0);
	assert_int_equal(in6->sin6_family, AF_INET6);
	assert_int_equal(ntohs(in6->sin6_port), 1);
	assert_string_equal(verbs_addr_str((struct sockaddr *)&ss, buf, sizeof(buf)),
			    "[fe80::1]:1");
	assert_int_equal(verbs_addr_parse("t", "connect", "[::ffff:10.0.2.15]:65535", &ss), 0);
	assert_int_equal(ntohs(in6->sin6_port), 65535);
}

static void test_addr_bad(void **state)
{
	static const struct {
		const char *s;
		const char *why;
	} bad[] = {
		{ "10.0.0.1", "no port" },
		{ "10.0.0.1:0", "not a number from 1 to 65535" },
		{ "10.0.0.1:65536", "not a number from 1 to 65535" },
		{ "10.0.0.1:x", "not a number from 1 to 65535" },
		{ "10.0.0.1:-5", "not a number from 1 to 65535" },
		{ "10.0.0.1:", "not a number from 1 to 65535" },
		{ "fe80::1:5", "needs brackets" },
		{ "[fe80::1]5", "[ADDRESS]:PORT" },
		{ "[fe80::1", "[ADDRESS]:PORT" },
		{ "host.example:80", "not a numeric IPv4 or IPv6 address" },
		{ "300.1.1.1:5", "not a numeric IPv4 or IPv6 address" },
		{ ":5", "not a numeric IPv4 or IPv6 address" },
		{ "[10.0.0.1]:5", "not a numeric IPv4 or IPv6 address" },
	};
	struct sockaddr_storage ss;
	struct dvp_log_capture cap;
	unsigned int i;

	(void)state;
	for (i = 0; i < DVP_DIM(bad); i++) {
		dvp_log_capture_begin(&cap);
		assert_int_equal(verbs_addr_parse("net_verbs0", "connect", bad[i].s, &ss), -EINVAL);
		assert_int_equal(dvp_errno, EINVAL);
		dvp_log_capture_end(&cap);
		assert_contains(cap.buf, bad[i].why);
		assert_contains(cap.buf, "connect=");
		dvp_log_capture_free(&cap);
	}
}

static void test_cfg_defaults(void **state)
{
	struct verbs_cfg cfg;
	char *log;

	(void)state;
	assert_int_equal(parse("dev=rxe0,listen=10.0.2.15:18515", &cfg, &log), 0);
	free(log);
	assert_string_equal(cfg.dev, "rxe0");
	assert_int_equal(cfg.role, VERBS_ROLE_LISTEN);
	assert_string_equal(cfg.addr_str, "10.0.2.15:18515");
	assert_int_equal(cfg.mode, VERBS_MODE_RC);
	assert_false(cfg.solicited);
	assert_true(cfg.reconnect);
	assert_int_equal(cfg.tx_signal, VERBS_TX_SIGNAL_DEFAULT);
	assert_int_equal(cfg.tx_inline, VERBS_TX_INLINE_DEFAULT);
	assert_int_equal(cfg.ack_timeout, VERBS_ACK_TIMEOUT_DEFAULT);
	assert_int_equal(cfg.tx_timeout, VERBS_TX_TIMEOUT_DEFAULT);
	assert_int_equal(cfg.rx_cq_size, 0);
	assert_false(cfg.mac_set);
}

static void test_cfg_all(void **state)
{
	struct verbs_cfg cfg;
	char *log;

	(void)state;
	/* Devargs values cannot hold brackets: an IPv6 address takes its port in port=. */
	assert_int_equal(
		parse("dev=mlx5_0,connect=fe80::2,port=7,mode=ud,solicited=1,reconnect=no,"
		      "tx_signal=8,tx_inline=0,ack_timeout=20,tx_timeout=250,rx_cq_size=64,"
		      "mac=02:00:00:00:00:0a",
		      &cfg, &log),
		0);
	free(log);
	assert_string_equal(cfg.dev, "mlx5_0");
	assert_int_equal(cfg.role, VERBS_ROLE_CONNECT);
	assert_int_equal(cfg.addr.ss_family, AF_INET6);
	assert_string_equal(cfg.addr_str, "[fe80::2]:7");
	assert_int_equal(cfg.mode, VERBS_MODE_UD);
	assert_true(cfg.solicited);
	assert_false(cfg.reconnect);
	assert_int_equal(cfg.tx_signal, 8);
	assert_int_equal(cfg.tx_inline, 0);
	assert_int_equal(cfg.ack_timeout, 20);
	assert_int_equal(cfg.tx_timeout, 250);
	assert_int_equal(cfg.rx_cq_size, 64);
	assert_true(cfg.mac_set);
	assert_int_equal(cfg.mac.addr_bytes[5], 0x0a);
}

static void test_cfg_errors(void **state)
{
	(void)state;
	expect_error("listen=1.2.3.4:5", "no dev= given");
	expect_error("dev=rxe0", "neither listen= nor connect= given");
	expect_error("dev=rxe0,listen=1.2.3.4:5,connect=1.2.3.4:6", "both listen= and connect=");
	expect_error("dev=rxe0,listen=1.2.3.4", "no port");
	expect_error("dev=rxe0,listen=fe80::1", "give its port with port=N");
	expect_error("dev=rxe0,listen=1.2.3.4:5,port=6", "port=6 is for an IPv6 address");
	expect_error("dev=rxe0,listen=fe80::1,port=0", "not a number from 1 to 65535");
	expect_error("dev=rxe0,listen=fe80::zz,port=5", "not a numeric IPv4 or IPv6 address");
	expect_error("dev=rxe0,connect=1.2.3.4:5,mode=uc", "mode");
	expect_error("dev=rxe0,connect=1.2.3.4:5,solicited=maybe", "solicited");
	expect_error("dev=rxe0,connect=1.2.3.4:5,reconnect=2", "reconnect");
	expect_error("dev=rxe0,connect=1.2.3.4:5,tx_signal=0", "tx_signal");
	expect_error("dev=rxe0,connect=1.2.3.4:5,tx_signal=2000", "tx_signal");
	expect_error("dev=rxe0,connect=1.2.3.4:5,tx_inline=5000", "tx_inline");
	expect_error("dev=rxe0,connect=1.2.3.4:5,ack_timeout=0", "ack_timeout");
	expect_error("dev=rxe0,connect=1.2.3.4:5,ack_timeout=32", "ack_timeout");
	expect_error("dev=rxe0,connect=1.2.3.4:5,tx_timeout=5", "0 (never) or 10 to 600000");
	expect_error("dev=rxe0,connect=1.2.3.4:5,tx_timeout=700000", "tx_timeout");
	expect_error("dev=rxe0,connect=1.2.3.4:5,rx_cq_size=100000", "rx_cq_size");
	expect_error("dev=rxe0,connect=1.2.3.4:5,mac=02:00:00:00:00", "not a MAC address");
	expect_error("dev=rxe0,connect=1.2.3.4:5,mac=02:00:00:00:00:0g", "not a MAC address");
	expect_error("dev=rxe0,connect=1.2.3.4:5,mac=01:00:5e:00:00:01", "multicast");
	expect_error("dev=a_device_name_longer_than_sixty_three_characters_is_refused_here_x,"
		     "connect=1.2.3.4:5",
		     "at most 63 characters");
}

/* tx_timeout=0 is accepted: the watchdog is off. */
static void test_cfg_tx_timeout_off(void **state)
{
	struct verbs_cfg cfg;
	char *log;

	(void)state;
	assert_int_equal(parse("dev=rxe0,connect=1.2.3.4:5,tx_timeout=0", &cfg, &log), 0);
	free(log);
	assert_int_equal(cfg.tx_timeout, 0);
}

/* The watchdog fires only after a whole limit with no completion, and progress resets it. */
static void test_tx_watchdog(void **state)
{
	uint64_t since = 0;

	(void)state;
	/* Progress never fires, and leaves nothing armed. */
	assert_false(verbs_tx_watchdog_expired(&since, true, 1000, 100));
	assert_int_equal(since, 0);
	/* The first reap without progress only starts the clock. */
	assert_false(verbs_tx_watchdog_expired(&since, false, 1000, 100));
	assert_int_not_equal(since, 0);
	assert_false(verbs_tx_watchdog_expired(&since, false, 1050, 100));
	assert_false(verbs_tx_watchdog_expired(&since, false, 1101, 100));
	assert_true(verbs_tx_watchdog_expired(&since, false, 1102, 100));
	/* A completion in between starts it over. */
	assert_false(verbs_tx_watchdog_expired(&since, true, 1103, 100));
	assert_false(verbs_tx_watchdog_expired(&since, false, 5000, 100));
	assert_false(verbs_tx_watchdog_expired(&since, false, 5100, 100));
	assert_true(verbs_tx_watchdog_expired(&since, false, 5200, 100));
	/* A TSC of 0 still arms it. */
	since = 0;
	assert_false(verbs_tx_watchdog_expired(&since, false, 0, 100));
	assert_int_not_equal(since, 0);
	assert_true(verbs_tx_watchdog_expired(&since, false, 102, 100));
}

static void test_wc_status(void **state)
{
	bool seen[VERBS_WC_STATUS_N] = { false };
	unsigned int s, i, j;

	(void)state;
	/* Every error status has a counter of its own, named once. */
	for (s = IBV_WC_LOC_LEN_ERR; s <= IBV_WC_TM_RNDV_INCOMPLETE; s++) {
		i = verbs_wc_status_index((enum ibv_wc_status)s);
		assert_true(i < VERBS_WC_STATUS_N - 1);
		assert_false(seen[i]);
		seen[i] = true;
		assert_true(strlen(verbs_wc_status_name(i)) > 0);
	}
	assert_int_equal(verbs_wc_status_index(IBV_WC_LOC_LEN_ERR), 0);
	assert_string_equal(verbs_wc_status_name(verbs_wc_status_index(IBV_WC_WR_FLUSH_ERR)),
			    "wr_flush_err");
	assert_string_equal(verbs_wc_status_name(verbs_wc_status_index(IBV_WC_RETRY_EXC_ERR)),
			    "retry_exc_err");
	/* A status this build does not know, and success, go to "other". */
	assert_int_equal(verbs_wc_status_index((enum ibv_wc_status)999), VERBS_WC_STATUS_N - 1);
	assert_int_equal(verbs_wc_status_index(IBV_WC_SUCCESS), VERBS_WC_STATUS_N - 1);
	assert_string_equal(verbs_wc_status_name(VERBS_WC_STATUS_N - 1), "other");
	assert_string_equal(verbs_wc_status_name(1000), "other");
	for (i = 0; i < VERBS_WC_STATUS_N; i++)
		for (j = i + 1; j < VERBS_WC_STATUS_N; j++)
			assert_string_not_equal(verbs_wc_status_name(i), verbs_wc_status_name(j));
}

static void test_hello_roundtrip(void **state)
{
	struct verbs_hello h = {
		.kind = VERBS_HELLO_REQ,
		.flags = VERBS_HELLO_F_TX | VERBS_HELLO_F_SOLICITED,
		.mode = VERBS_MODE_UD,
		.queue = 3,
		.nb_rxq = 4,
		.nb_txq = 5,
		.rx_buf_len = 2048,
		.qpn = 0xabcdef,
		.qkey = 0x01234567,
		.session = 0x0123456789abcdefull,
	}, out;
	uint8_t buf[64] = { 0 };
	char why[160];

	(void)state;
	assert_int_equal(verbs_hello_encode(&h, buf), VERBS_HELLO_LEN);
	/* Big-endian on the wire. */
	assert_int_equal(buf[0], 'D');
	assert_int_equal(buf[3], 'V');
	/* The CM pads private data: longer input is fine. */
	assert_int_equal(verbs_hello_decode(buf, sizeof(buf), &out, why, sizeof(why)), 0);
	assert_memory_equal(&h, &out, sizeof(h));
}

static void test_hello_bad(void **state)
{
	struct verbs_hello h = { .kind = VERBS_HELLO_ACCEPT, .nb_rxq = 1, .nb_txq = 1 }, out;
	uint8_t buf[VERBS_HELLO_LEN], bad[VERBS_HELLO_LEN];
	char why[160];

	(void)state;
	verbs_hello_encode(&h, buf);
	assert_int_equal(verbs_hello_decode(NULL, 0, &out, why, sizeof(why)), -EPROTO);
	assert_contains(why, "0 bytes of private data");
	assert_int_equal(verbs_hello_decode(buf, VERBS_HELLO_LEN - 1, &out, why, sizeof(why)),
			 -EPROTO);
	assert_contains(why, "35 bytes");
	memcpy(bad, buf, sizeof(bad));
	bad[0] ^= 0xff;
	assert_int_equal(verbs_hello_decode(bad, sizeof(bad), &out, why, sizeof(why)), -EPROTO);
	assert_contains(why, "not a net_verbs port");
	memcpy(bad, buf, sizeof(bad));
	bad[4] = 9;
	assert_int_equal(verbs_hello_decode(bad, sizeof(bad), &out, why, sizeof(why)), -EPROTO);
	assert_contains(why, "handshake version 9");
	memcpy(bad, buf, sizeof(bad));
	bad[5] = 0;
	assert_int_equal(verbs_hello_decode(bad, sizeof(bad), &out, why, sizeof(why)), -EPROTO);
	assert_contains(why, "message kind 0");
	memcpy(bad, buf, sizeof(bad));
	bad[15] = 7;
	assert_int_equal(verbs_hello_decode(bad, sizeof(bad), &out, why, sizeof(why)), -EPROTO);
	assert_contains(why, "mode 7");
	memcpy(bad, buf, sizeof(bad));
	bad[11] = 200;
	assert_int_equal(verbs_hello_decode(bad, sizeof(bad), &out, why, sizeof(why)), -EPROTO);
	assert_contains(why, "200 rx");
	h.kind = VERBS_HELLO_REQ;
	h.queue = VERBS_MAX_QUEUES;
	verbs_hello_encode(&h, bad);
	assert_int_equal(verbs_hello_decode(bad, sizeof(bad), &out, why, sizeof(why)), -EPROTO);
	assert_contains(why, "queue 16");
}

static void test_reject_reasons(void **state)
{
	unsigned int r;

	(void)state;
	for (r = 0; r < VERBS_REJ_MAX; r++)
		assert_true(strlen(verbs_reject_reason_str(r)) > 10);
	assert_string_equal(verbs_reject_reason_str(VERBS_REJ_MAX), "an unknown reason");
	assert_contains(verbs_reject_reason_str(VERBS_REJ_QUEUES), "queue counts");
}

/* Set or clear CAP_IPC_LOCK in the effective set. @return 0 or -errno. */
static int cap_ipc_lock(bool on)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d) != 0)
		return -errno;
	if (on)
		d[0].effective |= d[0].permitted & (1u << CAP_IPC_LOCK);
	else
		d[0].effective &= ~(1u << CAP_IPC_LOCK);
	return syscall(SYS_capset, &h, d) == 0 ? 0 : -errno;
}

static void test_memlock(void **state)
{
	struct dvp_log_capture cap;
	struct rlimit old, low = { .rlim_cur = 8u << 20 };
	int ret;

	(void)state;
	assert_int_equal(getrlimit(RLIMIT_MEMLOCK, &old), 0);
	low.rlim_max = old.rlim_max;
	assert_int_equal(cap_ipc_lock(false), 0);
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &low), 0);
	dvp_log_capture_begin(&cap);
	ret = verbs_memlock_check("net_verbs0");
	dvp_log_capture_end(&cap);
	assert_int_equal(setrlimit(RLIMIT_MEMLOCK, &old), 0);
	assert_int_equal(cap_ipc_lock(true), 0);
	assert_int_equal(ret, -EPERM);
	assert_contains(cap.buf, "locked-memory limit is 8192 KiB");
	assert_contains(cap.buf, "ulimit -l unlimited");
	dvp_log_capture_free(&cap);
	/* Unlimited (or enough) passes. */
	if (old.rlim_cur == RLIM_INFINITY || old.rlim_cur >= (64u << 20))
		assert_int_equal(verbs_memlock_check("net_verbs0"), 0);
}

static void expect_probe_error(const char *devargs, const char *needle)
{
	struct dvp_log_capture cap;
	int ret;

	dvp_log_capture_begin(&cap);
	ret = dvp_vdev_create(devargs);
	dvp_log_capture_end(&cap);
	assert_true(ret < 0);
	assert_contains(cap.buf, needle);
	assert_int_equal(dvp_port_count(), 0);
	dvp_log_capture_free(&cap);
}

static void test_probe_errors(void **state)
{
	(void)state;
	expect_probe_error("net_verbs0", "no dev= given");
	expect_probe_error("net_verbs0,dev=rxe0", "neither listen= nor connect=");
	expect_probe_error("net_verbs0,dev=rxe0,listen=10.0.0.1:5,sise=2",
			   "unknown devargs key 'sise'");
	/* This host has no RDMA device of that name (or none at all). */
	expect_probe_error("net_verbs0,dev=no_such_dev9,listen=127.0.0.1:18515", "RDMA");
}

static int eal_up(void **state)
{
	(void)state;
	return dvp_test_eal_init("--no-huge", "-l", "0", "--log-level", "pmd.net.verbs:info") < 0;
}

static int eal_down(void **state)
{
	(void)state;
	dvp_eal_cleanup();
	return 0;
}

int main(void)
{
	const struct CMUnitTest pure[] = {
		cmocka_unit_test(test_addr_good),	   cmocka_unit_test(test_addr_bad),
		cmocka_unit_test(test_cfg_defaults),	   cmocka_unit_test(test_cfg_all),
		cmocka_unit_test(test_cfg_errors),	   cmocka_unit_test(test_wc_status),
		cmocka_unit_test(test_cfg_tx_timeout_off), cmocka_unit_test(test_tx_watchdog),
		cmocka_unit_test(test_hello_roundtrip),	   cmocka_unit_test(test_hello_bad),
		cmocka_unit_test(test_reject_reasons),	   cmocka_unit_test(test_memlock),
	};
	const struct CMUnitTest eal[] = {
		cmocka_unit_test(test_probe_errors),
	};
	int failed;

	failed = cmocka_run_group_tests_name("net_verbs parsing", pure, NULL, NULL);
	failed += cmocka_run_group_tests_name("net_verbs probe", eal, eal_up, eal_down);
	return failed;
}
