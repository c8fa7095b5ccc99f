/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The control path of a port: configure, queue setup, start, stop, close,
 * reset, MAC, promiscuous mode, MTU. Every argument is checked here, against
 * what the driver's info_get reports, before an op is called; so drivers see
 * only valid requests, and a user sees one line naming what was wrong.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dvp_parse.h"
#include "port_private.h"

int dvp_port_info_get(uint16_t port_id, struct dvp_port_info *info)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "port info get", info, "no info structure given");
	int ret;

	if (port == NULL)
		return -EINVAL;
	memset(info, 0, sizeof(*info));
	info->min_mtu = 68;
	info->max_mtu = 1500;
	ret = port->ops->info_get(port, info);
	if (ret < 0) {
		PORT_LOG(ERR, "port info get: port %u (%s): the driver failed: %s", port_id,
			 port->name, dvp_strerror(-ret));
		return dvp_err(-ret);
	}
	info->driver_name = port->driver_name;
	snprintf(info->device_name, sizeof(info->device_name), "%s",
		 port->device != NULL ? port->device->name : port->name);
	info->numa_node = port->numa_node;
	info->nb_rx_queues = port->nb_rx_queues;
	info->nb_tx_queues = port->nb_tx_queues;
	info->max_rx_queues = DVP_MIN(info->max_rx_queues, DVP_MAX_QUEUES_PER_PORT);
	info->max_tx_queues = DVP_MIN(info->max_tx_queues, DVP_MAX_QUEUES_PER_PORT);
	return 0;
}

int dvp_port_mempool_sendable(uint16_t port_id, const struct dvp_mempool *mp)
{
	struct dvp_port *port = port_get_checked(port_id, "mempool sendable");

	if (port == NULL)
		return -EINVAL;
	if (mp == NULL) {
		PORT_LOG(ERR, "mempool sendable: port %u: no pool given", port_id);
		return dvp_err(EINVAL);
	}
	return port->ops->mempool_sendable == NULL || port->ops->mempool_sendable(port, mp);
}

int port_refuse(uint16_t port_id, int err, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	PORT_LOG(ERR, "port %u: %s", port_id, msg);
	return dvp_err(err);
}

/* Release queue @p q of one direction, if it is set up (under qlock). */
static void release_queue_locked(struct dvp_port *port, uint16_t q, bool tx)
{
	if (tx) {
		if (port->txqs[q] != NULL)
			port->ops->txq_release(port, q);
		port->txqs[q] = NULL;
		port->txq_fault[q] = NULL;
		return;
	}
	if (port->rxqs[q] != NULL)
		port->ops->rxq_release(port, q);
	port->rxqs[q] = NULL;
	port->rxq_intr[q] = NULL;
	port->rxq_fault[q] = NULL;
}

static void release_queues_locked(struct dvp_port *port)
{
	uint16_t q;

	for (q = 0; q < DVP_MAX_QUEUES_PER_PORT; q++) {
		release_queue_locked(port, q, false);
		release_queue_locked(port, q, true);
	}
}

/* A queue setup's answer: 0, or an error naming the driver and why (@p eio for -EIO). */
static int setup_result(const struct dvp_port *port, const char *dir, uint16_t q, int ret,
			const char *eio)
{
	if (ret >= 0)
		return 0;
	return port_refuse(port->port_id, -ret, "%s queue %u setup: %s failed: %s", dir, q,
			   port->driver_name, ret == -EIO ? eio : dvp_strerror(-ret));
}

void port_release_queues(struct dvp_port *port)
{
	struct port_slot *s = port_slot_of(port);

	pthread_mutex_lock(&s->qlock);
	release_queues_locked(port);
	pthread_mutex_unlock(&s->qlock);
}

/*
 * configure's check of the @p what bits @p asked against the driver's
 * @p capa: 0, or an error naming the bits it lacks and what it @p has.
 */
static int capa_check(const struct dvp_port *port, const char *what, uint64_t asked,
		      const char *has, uint64_t capa)
{
	uint64_t bad = asked & ~capa;

	if (bad == 0)
		return 0;
	return port_refuse(port->port_id, EINVAL,
			   "configure: %s 0x%" PRIx64 " not supported; %s %s 0x%" PRIx64, what, bad,
			   port->driver_name, has, capa);
}

int dvp_port_configure(uint16_t port_id, uint16_t nb_rxq, uint16_t nb_txq,
		       const struct dvp_port_conf *conf_in)
{
	struct dvp_port *port = port_get_checked(port_id, "port configure");
	const struct dvp_port_intr_conf *ic;
	struct dvp_port_conf conf = { 0 };
	struct dvp_port_info info;
	struct port_slot *s;
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (port->started)
		return port_refuse(port_id, EBUSY, "configure: the port is started; stop it first");
	if (conf_in != NULL)
		conf = *conf_in;
	ret = dvp_port_info_get(port_id, &info);
	if (ret < 0)
		return ret;
	if (nb_rxq == 0 && nb_txq == 0)
		return port_refuse(port_id, EINVAL,
				   "configure: 0 rx and 0 tx queues; a port needs at least one");
	if (nb_rxq > info.max_rx_queues)
		return port_refuse(port_id, EINVAL,
				   "configure: %u rx queues asked; %s offers 1 to %u", nb_rxq,
				   port->driver_name, info.max_rx_queues);
	if (nb_txq > info.max_tx_queues)
		return port_refuse(port_id, EINVAL,
				   "configure: %u tx queues asked; %s offers 1 to %u", nb_txq,
				   port->driver_name, info.max_tx_queues);
	ret = capa_check(port, "rx offloads", conf.rxmode.offloads, "offers", info.rx_offload_capa);
	if (ret == 0)
		ret = capa_check(port, "tx offloads", conf.txmode.offloads, "offers",
				 info.tx_offload_capa);
	if (ret == 0)
		ret = capa_check(port, "RSS hash fields", conf.rss_conf.rss_hf, "hashes on",
				 info.rss_hf_capa);
	if (ret < 0)
		return ret;
	if (conf.rss_conf.rss_key != NULL && (conf.rss_conf.rss_key_len != info.hash_key_size ||
					      conf.rss_conf.rss_key_len > DVP_RSS_KEY_MAX_LEN))
		return port_refuse(
			port_id, EINVAL, "configure: an RSS key of %u bytes; %s takes %u",
			conf.rss_conf.rss_key_len, port->driver_name, info.hash_key_size);
	if (conf.rxmode.mtu != 0 &&
	    (conf.rxmode.mtu < info.min_mtu || conf.rxmode.mtu > info.max_mtu))
		return port_refuse(port_id, EINVAL, "configure: MTU %u out of range [%u, %u]",
				   conf.rxmode.mtu, info.min_mtu, info.max_mtu);
	ic = &conf.intr_conf;
	if (ic->lsc && !(info.intr_capa & DVP_PORT_INTR_LSC))
		return port_refuse(port_id, EINVAL,
				   "configure: intr_conf.lsc: %s raises no link events",
				   port->driver_name);
	if (ic->rmv && !(info.intr_capa & DVP_PORT_INTR_RMV))
		return port_refuse(port_id, EINVAL,
				   "configure: intr_conf.rmv: %s raises no removal events",
				   port->driver_name);
	if (ic->rxq && !(info.intr_capa & DVP_PORT_INTR_RXQ))
		return port_refuse(port_id, EINVAL,
				   "configure: intr_conf.rxq: %s has no rx interrupts",
				   port->driver_name);
	if (ic->rxq_solicited && (!ic->rxq || !(info.intr_capa & DVP_PORT_INTR_RXQ_SOLICITED)))
		return port_refuse(port_id, EINVAL, "configure: intr_conf.rxq_solicited %s",
				   !ic->rxq ? "needs intr_conf.rxq" :
					      "is not supported by this driver");

	/* Queues were set up for the old configuration: set them up again. */
	s = port_slot_of(port);
	pthread_mutex_lock(&s->qlock);
	release_queues_locked(port);
	port->configured = false;
	__atomic_store_n(&port->event_flags, 0, __ATOMIC_RELAXED);
	port->nb_rx_queues = nb_rxq;
	port->nb_tx_queues = nb_txq;
	if (conf.rss_conf.rss_key != NULL) {
		memcpy(port->rss_key, conf.rss_conf.rss_key, conf.rss_conf.rss_key_len);
		conf.rss_conf.rss_key = port->rss_key;
	}
	if (conf.rxmode.mtu == 0)
		conf.rxmode.mtu = port->mtu;
	port->conf = conf;
	ret = port->ops->configure(port);
	if (ret < 0) {
		port->nb_rx_queues = 0;
		port->nb_tx_queues = 0;
		pthread_mutex_unlock(&s->qlock);
		return port_refuse(port_id, -ret, "configure: %s refused: %s", port->driver_name,
				   dvp_strerror(-ret));
	}
	port->mtu = (uint16_t)conf.rxmode.mtu;
	port->configured = true;
	__atomic_store_n(&port->event_flags,
			 (ic->lsc ? DVP_PORT_INTR_LSC : 0u) | (ic->rmv ? DVP_PORT_INTR_RMV : 0u),
			 __ATOMIC_RELAXED);
	pthread_mutex_unlock(&s->qlock);
	return 0;
}

static int desc_check(uint16_t port_id, const char *dir, uint16_t *nb_desc,
		      const struct dvp_desc_lim *lim, uint16_t def)
{
	if (*nb_desc == 0)
		*nb_desc = def ? def : lim->nb_max;
	if (*nb_desc < lim->nb_min || *nb_desc > lim->nb_max ||
	    (lim->nb_align > 1 && *nb_desc % lim->nb_align != 0))
		return port_refuse(
			port_id, EINVAL,
			"%s queue setup: %u descriptors; valid: %u to %u, a multiple of %u", dir,
			*nb_desc, lim->nb_min, lim->nb_max, lim->nb_align ? lim->nb_align : 1);
	return 0;
}

/* What both setups check. @return the port or NULL (dvp_errno set). */
static struct dvp_port *setup_check(uint16_t port_id, uint16_t q, bool tx, const char *func)
{
	struct dvp_port *port = port_get_checked(port_id, func);
	uint16_t nb;

	if (port == NULL)
		return NULL;
	nb = tx ? port->nb_tx_queues : port->nb_rx_queues;
	if (port->started) {
		port_refuse(port_id, EBUSY, "%s: the port is started; stop it first", func);
		return NULL;
	}
	if (!port->configured) {
		port_refuse(port_id, EINVAL,
			    "%s: the port is not configured; call dvp_port_configure() first",
			    func);
		return NULL;
	}
	if (q >= nb) {
		port_refuse(port_id, EINVAL,
			    "%s: %s queue %u does not exist; the port has %u (0 to %d)", func,
			    tx ? "tx" : "rx", q, nb, (int)nb - 1);
		return NULL;
	}
	return port;
}

/*
 * What rx and tx queue setup check alike: the offloads against the
 * driver's capabilities, the descriptor count against its limits (0 takes
 * its default), and the socket (DVP_SOCKET_ANY takes the port's node).
 */
static int queue_conf_check(struct dvp_port *port, uint16_t port_id, uint16_t q, bool tx,
			    uint64_t offloads, uint16_t *nb_desc, int *socket_id)
{
	const char *dir = tx ? "tx" : "rx";
	struct dvp_port_info info;
	uint64_t capa, bad;
	int ret;

	ret = dvp_port_info_get(port_id, &info);
	if (ret < 0)
		return ret;
	capa = tx ? info.tx_offload_capa : info.rx_offload_capa;
	bad = offloads & ~capa;
	if (bad)
		return port_refuse(port_id, EINVAL,
				   "%s queue %u setup: offloads 0x%" PRIx64
				   " not supported; %s offers 0x%" PRIx64,
				   dir, q, bad, port->driver_name, capa);
	ret = desc_check(port_id, dir, nb_desc, tx ? &info.tx_desc_lim : &info.rx_desc_lim,
			 tx ? info.default_txq_size : info.default_rxq_size);
	if (ret < 0)
		return ret;
	if (*socket_id == DVP_SOCKET_ANY)
		*socket_id = port->numa_node;
	return 0;
}

/*
 * Queue setup once the port and the queue id are checked: the checks rx and
 * tx share, then, under the queue lock, the driver's op replaces what stood
 * at @p q. @p rxc or @p txc (NULL: the defaults) and @p mp as
 * dvp_rxq_setup() and dvp_txq_setup() take them.
 */
static int queue_setup(struct dvp_port *port, uint16_t q, bool tx, uint16_t nb_desc, int socket_id,
		       const struct dvp_rxq_conf *rxc, const struct dvp_txq_conf *txc,
		       struct dvp_mempool *mp)
{
	struct port_slot *s = port_slot_of(port);
	struct dvp_rxq_conf rc = { 0 };
	struct dvp_txq_conf tc = { 0 };
	int ret;

	if (rxc != NULL)
		rc = *rxc;
	if (txc != NULL)
		tc = *txc;
	ret = queue_conf_check(port, port->port_id, q, tx, tx ? tc.offloads : rc.offloads, &nb_desc,
			       &socket_id);
	if (ret < 0)
		return ret;
	pthread_mutex_lock(&s->qlock);
	release_queue_locked(port, q, tx);
	if (tx)
		ret = port->ops->txq_setup(port, q, nb_desc, socket_id, &tc);
	else
		ret = port->ops->rxq_setup(port, q, nb_desc, socket_id, &rc, mp);
	if (ret == 0 && (tx ? port->txqs[q] : port->rxqs[q]) == NULL)
		ret = -EIO;
	if (ret == 0 && !tx && port->conf.intr_conf.rxq &&
	    !dvp_rxwait_queue_active(port->rxq_intr[q]))
		ret = -EIO;
	pthread_mutex_unlock(&s->qlock);
	return setup_result(port, tx ? "tx" : "rx", q, ret,
			    tx ? "the driver set up no queue" :
				 "the driver set up no queue (or no interrupt state)");
}

int dvp_rxq_setup(uint16_t port_id, uint16_t q, uint16_t nb_desc, int socket_id,
		  const struct dvp_rxq_conf *conf, struct dvp_mempool *mp)
{
	struct dvp_port *port = setup_check(port_id, q, false, "rx queue setup");

	if (port == NULL)
		return -dvp_errno;
	if (mp == NULL)
		return port_refuse(port_id, EINVAL, "rx queue %u setup: no mempool given", q);
	return queue_setup(port, q, false, nb_desc, socket_id, conf, NULL, mp);
}

int dvp_txq_setup(uint16_t port_id, uint16_t q, uint16_t nb_desc, int socket_id,
		  const struct dvp_txq_conf *conf)
{
	struct dvp_port *port = setup_check(port_id, q, true, "tx queue setup");

	if (port == NULL)
		return -dvp_errno;
	return queue_setup(port, q, true, nb_desc, socket_id, NULL, conf, NULL);
}

int dvp_port_start(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "port start");
	struct port_slot *s;
	uint16_t q;
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (port->started)
		return 0;
	if (!port->configured)
		return port_refuse(port_id, EINVAL, "start: the port is not configured");
	if (__atomic_load_n(&port->removed, __ATOMIC_ACQUIRE))
		return port_refuse(port_id, EIO,
				   "start: the device was removed; close or reset the port");
	for (q = 0; q < port->nb_rx_queues; q++)
		if (port->rxqs[q] == NULL)
			return port_refuse(port_id, EINVAL, "start: rx queue %u is not set up", q);
	for (q = 0; q < port->nb_tx_queues; q++)
		if (port->txqs[q] == NULL)
			return port_refuse(port_id, EINVAL, "start: tx queue %u is not set up", q);
	s = port_slot_of(port);
	pthread_mutex_lock(&s->qlock);
	ret = port->ops->start(port);
	if (ret == 0 && (port->rx_pkt_burst == NULL || port->tx_pkt_burst == NULL)) {
		port->ops->stop(port);
		ret = -EIO;
	}
	if (ret == 0 && port_flow_start(port) < 0) {
		port->ops->stop(port);
		pthread_mutex_unlock(&s->qlock);
		return -dvp_errno;
	}
	if (ret == 0) {
		__atomic_store_n(&port->started, true, __ATOMIC_RELAXED);
		port_fp_publish(port);
	}
	pthread_mutex_unlock(&s->qlock);
	if (ret < 0)
		return port_refuse(port_id, -ret, "start: %s failed: %s", port->driver_name,
				   ret == -EIO ? "the driver gave no burst functions" :
						 dvp_strerror(-ret));
	if (port->ops->link_update != NULL)
		port->ops->link_update(port, false);
	return 0;
}

int dvp_port_stop(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "port stop");
	struct port_slot *s;
	unsigned int held;
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (!port->started)
		return 0;
	s = port_slot_of(port);
	pthread_mutex_lock(&s->qlock);
	port_fp_unpublish(port);
	port_flow_stop(port);
	ret = port->ops->stop(port);
	__atomic_store_n(&port->started, false, __ATOMIC_RELAXED);
	held = port->ops->mbufs_held(port);
	pthread_mutex_unlock(&s->qlock);
	if (ret < 0)
		PORT_LOG(WARNING, "port %u: %s stop reported: %s; the port is stopped anyway",
			 port_id, port->driver_name, dvp_strerror(-ret));
	if (held > 0) {
		__atomic_fetch_add(&port->dbg.mbufs_leaked, held, __ATOMIC_RELAXED);
		return port_refuse(
			port_id, EIO,
			"stop: %s still holds %u mbufs; they will not return to their pool (a driver bug)",
			port->driver_name, held);
	}
	return 0;
}

int dvp_port_is_started(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "port is started");

	return port == NULL ? -EINVAL : port->started;
}

int dvp_port_mbufs_held(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "port mbufs held");

	return port == NULL ? -EINVAL : (int)port->ops->mbufs_held(port);
}

int dvp_port_close(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "port close");
	struct dvp_port_event_info info = { .event = DVP_PORT_EVENT_DESTROY,
					    .port_id = port_id,
					    .cause = DVP_PORT_CAUSE_NONE };
	int ret = 0;

	if (port == NULL)
		return -EINVAL;
	pthread_rwlock_wrlock(&port_close_lock);
	if (port->started)
		ret = dvp_port_stop(port_id);
	port_flow_release(port);
	port_release_queues(port);
	if (port->ops->close != NULL) {
		int r = port->ops->close(port);

		if (r < 0) {
			PORT_LOG(WARNING,
				 "port %u: %s close reported: %s; the port is closed anyway",
				 port_id, port->driver_name, dvp_strerror(-r));
		}
	}
	PORT_LOG(INFO, "port %u: %s closed", port_id, port->name);
	port_free(port);
	pthread_rwlock_unlock(&port_close_lock);
	dvp_port_event_raise(port_id, &info);
	return ret;
}

int dvp_port_reset(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "port reset");
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (port->ops->reset == NULL)
		return port_refuse(port_id, ENOTSUP, "reset: %s cannot reset a device",
				   port->driver_name);
	if (port->started)
		dvp_port_stop(port_id);
	pthread_mutex_lock(&port_slot_of(port)->qlock);
	port_flow_release(port);
	release_queues_locked(port);
	port->configured = false;
	port->flow_isolated = false;
	port->nb_rx_queues = 0;
	port->nb_tx_queues = 0;
	__atomic_store_n(&port->event_flags, 0, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&port_slot_of(port)->qlock);
	ret = port->ops->reset(port);
	if (ret < 0)
		return port_refuse(port_id, -ret, "reset: %s failed: %s", port->driver_name,
				   dvp_strerror(-ret));
	__atomic_store_n(&port->removed, false, __ATOMIC_RELEASE);
	return 0;
}

/* ------------------------------------------------------------------------
 * MAC address, promiscuous mode, MTU
 */

void dvp_ether_format_addr(char *buf, size_t len, const struct dvp_ether_addr *mac)
{
	const uint8_t *b;

	if (buf == NULL || len == 0)
		return;
	if (mac == NULL) {
		snprintf(buf, len, "(no address)");
		return;
	}
	b = mac->addr_bytes;
	snprintf(buf, len, "%02x:%02x:%02x:%02x:%02x:%02x", b[0], b[1], b[2], b[3], b[4], b[5]);
}

int dvp_ether_unformat_addr(const char *s, struct dvp_ether_addr *mac)
{
	struct dvp_ether_addr m;
	int i, hi, lo;

	/* Parsed by hand: sscanf's %x would also take "0x", signs and spaces. */
	if (s == NULL || mac == NULL || strlen(s) != 17)
		return dvp_err(EINVAL);
	for (i = 0; i < 6; i++) {
		hi = dvp_parse_hex_digit(s[3 * i]);
		lo = dvp_parse_hex_digit(s[3 * i + 1]);
		if (hi < 0 || lo < 0 || (i < 5 && s[3 * i + 2] != ':'))
			return dvp_err(EINVAL);
		m.addr_bytes[i] = (uint8_t)(hi << 4 | lo);
	}
	*mac = m;
	return 0;
}

static bool ether_addr_is_zero(const struct dvp_ether_addr *mac)
{
	static const struct dvp_ether_addr zero;

	return memcmp(mac, &zero, sizeof(zero)) == 0;
}

int dvp_port_devarg_mac(const char *dev, const char *key, const char *value,
			struct dvp_ether_addr *mac)
{
	struct dvp_ether_addr m;

	if (dvp_ether_unformat_addr(value, &m) < 0) {
		PORT_LOG(ERR, "%s: %s=%s is not a MAC address; write it as xx:xx:xx:xx:xx:xx", dev,
			 key, value ? value : "");
		return dvp_err(EINVAL);
	}
	if ((m.addr_bytes[0] & 1) || ether_addr_is_zero(&m)) {
		PORT_LOG(ERR, "%s: %s=%s is %s; a port needs a non-zero unicast address", dev, key,
			 value, (m.addr_bytes[0] & 1) ? "a multicast address" : "zero");
		return dvp_err(EINVAL);
	}
	*mac = m;
	return 0;
}

int dvp_macaddr_get(uint16_t port_id, struct dvp_ether_addr *mac)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "MAC address get", mac, "nowhere to put it");

	if (port == NULL)
		return -EINVAL;
	*mac = port->mac;
	return 0;
}

int dvp_macaddr_set(uint16_t port_id, const struct dvp_ether_addr *mac)
{
	struct dvp_port *port = port_get_checked(port_id, "MAC address set");
	char buf[18];
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (mac == NULL)
		return port_refuse(port_id, EINVAL, "MAC address set: no address given");
	dvp_ether_format_addr(buf, sizeof(buf), mac);
	if ((mac->addr_bytes[0] & 1) || ether_addr_is_zero(mac))
		return port_refuse(
			port_id, EINVAL,
			"MAC address set: %s is %s; a port address must be a non-zero unicast address",
			buf, (mac->addr_bytes[0] & 1) ? "a multicast address" : "zero");
	if (port->ops->mac_addr_set == NULL)
		return port_refuse(port_id, ENOTSUP, "MAC address set: %s cannot change it",
				   port->driver_name);
	ret = port->ops->mac_addr_set(port, mac);
	if (ret < 0)
		return port_refuse(port_id, -ret, "MAC address set %s: %s", buf,
				   dvp_strerror(-ret));
	port->mac = *mac;
	return 0;
}

static int promisc_set(uint16_t port_id, bool on)
{
	struct dvp_port *port = port_get_checked(port_id, "promiscuous mode");
	int (*op)(struct dvp_port *);
	int ret;

	if (port == NULL)
		return -EINVAL;
	op = on ? port->ops->promiscuous_enable : port->ops->promiscuous_disable;
	if (op == NULL)
		return port_refuse(port_id, ENOTSUP, "promiscuous mode: %s cannot turn it %s",
				   port->driver_name, on ? "on" : "off");
	ret = op(port);
	if (ret < 0)
		return port_refuse(port_id, -ret, "promiscuous mode %s: %s", on ? "on" : "off",
				   dvp_strerror(-ret));
	port->promiscuous = on;
	return 0;
}

int dvp_promiscuous_enable(uint16_t port_id)
{
	return promisc_set(port_id, true);
}

int dvp_promiscuous_disable(uint16_t port_id)
{
	return promisc_set(port_id, false);
}

int dvp_promiscuous_get(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "promiscuous get");

	return port == NULL ? -EINVAL : port->promiscuous;
}

int dvp_port_mtu_set(uint16_t port_id, uint16_t mtu)
{
	struct dvp_port *port = port_get_checked(port_id, "MTU set");
	struct dvp_port_info info;
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = dvp_port_info_get(port_id, &info);
	if (ret < 0)
		return ret;
	if (mtu < info.min_mtu || mtu > info.max_mtu)
		return port_refuse(port_id, EINVAL, "MTU set: %u out of range [%u, %u]", mtu,
				   info.min_mtu, info.max_mtu);
	if (port->ops->mtu_set == NULL)
		return port_refuse(port_id, ENOTSUP, "MTU set: %s cannot change it",
				   port->driver_name);
	ret = port->ops->mtu_set(port, mtu);
	if (ret < 0)
		return port_refuse(port_id, -ret, "MTU set %u: %s", mtu, dvp_strerror(-ret));
	port->mtu = mtu;
	port->conf.rxmode.mtu = mtu;
	return 0;
}

int dvp_port_mtu_get(uint16_t port_id, uint16_t *mtu)
{
	struct dvp_port *port = port_get_checked_out(port_id, "MTU get", mtu, "nowhere to put it");

	if (port == NULL)
		return -EINVAL;
	*mtu = port->mtu;
	return 0;
}
