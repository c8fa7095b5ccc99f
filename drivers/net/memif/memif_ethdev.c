/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_memif as a port: devargs (DPDK's names and defaults), probe and
 * remove, and the lib/port ops. The connection itself is an interface
 * (memif_if.c); this file maps it onto a port: the client connects (and
 * the server accepts) from start to stop, link events follow the
 * connection, and stats are the queues' counters.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <dvp_bus.h>
#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_port_counters.h>
#include <dvp_malloc.h>
#include <dvp_port_driver.h>

#include "dvp_net_memif.h"
#include "memif_log.h"
#include "memif_rxtx.h"
#include "memif_if.h"
#include "memif_zc.h"

#define MEMIF_DRIVER_NAME "net_memif"
#define MEMIF_DEFAULT_SOCKET "/run/memif.sock"
#define MEMIF_DEFAULT_BSIZE 2048
#define MEMIF_MIN_BSIZE 64
#define MEMIF_DEFAULT_RSIZE 10
#define MEMIF_MAX_PORT_QUEUES DVP_MIN(DVP_MAX_QUEUES_PER_PORT, MEMIF_MAX_QUEUES)

static const struct dvp_devargs_key memif_keys[] = {
	{ "role", "server or client: the server listens, the client connects and creates the "
		  "shared memory (default client)" },
	{ "id", "interface id, 0 to 4294967295: a client is bound to the server interface with "
		"its id on the socket (default 0)" },
	{ "socket", "control socket name, up to 107 bytes (default " MEMIF_DEFAULT_SOCKET ")" },
	{ "socket-abstract", "yes: the socket name is in the abstract namespace; no: a file "
			     "path (default yes)" },
	{ "secret", "up to 24 bytes the client must present to the server (default none)" },
	{ "bsize", "bytes of each packet buffer in shared memory, 64 to 65535 (default 2048; "
		   "used by the client)" },
	{ "rsize", "log2 of the ring size, 1 to 14 (default 10: 1024 descriptors; used by the "
		   "client)" },
	{ "nb_rx_queues", "most rx queues the port can be configured with, 1 to 128 (default "
			  "128)" },
	{ "nb_tx_queues", "most tx queues the port can be configured with, 1 to 128 (default "
			  "128)" },
	{ "handshake-timeout", "milliseconds a handshake may take, from the connect (or accept) "
			       "to CONNECTED, 1 to 3600000: a peer silent that long is "
			       "disconnected (default 5000)" },
	{ "mac", "the port's MAC address, xx:xx:xx:xx:xx:xx (default: random, locally "
		 "administered)" },
	{ "zero-copy", "yes|no: yes makes the client share its EAL memory with the server, whose "
		       "rings then point straight into mbufs (no copy either way; bsize is not "
		       "used); the server must be trusted with all of it. Mempools must exist "
		       "before start; a frame in other memory is dropped and counted (default no; "
		       "a server ignores it)" },
	{ NULL, NULL },
};

struct memif_port {
	struct dvp_port *port;
	struct memif_if *ifc;
	struct memif_if_params p;
	uint16_t max_rxq;
	uint16_t max_txq;
	struct memif_if_stats if_base; /* xstats reset */
};

/* The interface's own xstats (struct memif_if_stats), after the queues'. */
static const char *const memif_xstat_names[] = {
	"connects",
	"disconnects",
	"connect_attempts",
	"handshakes_refused",
};

/* The per-queue ones (struct memif_qstats): rx_q<N>_<name>, tx_q<N>_<name>. */
static const char *const rxq_names[] = {
	NULL, NULL, NULL, NULL, "bad_descriptors", "peer_index_errors", NULL, NULL, "zc_unexported",
	NULL
};
static const char *const txq_names[] = { NULL,		NULL,	      NULL,
					 NULL,		NULL,	      "peer_errors",
					 "ring_full",	"intr_kicks", "zc_unexported",
					 "lost_on_ring" };
DVP_PORT_QCTRS_DEFINE(rxq_ctrs, struct memif_queue, st, base, rxq_names);
DVP_PORT_QCTRS_DEFINE(txq_ctrs, struct memif_queue, st, base, txq_names);

/* ------------------------------------------------------------------------
 * Link
 */

static void memif_link_report(struct dvp_port *port, bool up)
{
	struct dvp_link link = {
		.link_speed = up ? DVP_LINK_SPEED_100G : DVP_LINK_SPEED_NONE,
		.link_duplex = DVP_LINK_FULL_DUPLEX,
		.link_autoneg = DVP_LINK_FIXED,
		.link_status = up ? DVP_LINK_UP : DVP_LINK_DOWN,
	};

	dvp_port_link_set(port, &link, DVP_PORT_CAUSE_NONE);
}

/* On the EAL interrupt thread, when the connection goes up or down. */
static void memif_on_link(void *arg, bool up)
{
	memif_link_report(arg, up);
}

static int memif_link_update(struct dvp_port *port, bool wait)
{
	struct memif_port *mp = port->priv;

	/* Connecting takes a peer: nothing to wait for, as with DPDK's memif. */
	(void)wait;
	memif_link_report(port, port->started && memif_if_connected(mp->ifc));
	return 0;
}

/* ------------------------------------------------------------------------
 * Ops
 */

static int memif_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	struct memif_port *mp = port->priv;

	info->max_rx_queues = mp->max_rxq;
	info->max_tx_queues = mp->max_txq;
	/* The ring size is rsize, negotiated at connect: a descriptor count is not used. */
	info->rx_desc_lim =
		(struct dvp_desc_lim){ .nb_max = UINT16_MAX, .nb_min = 0, .nb_align = 1 };
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxq_size = (uint16_t)(1u << mp->p.log2_ring_size);
	info->default_txq_size = info->default_rxq_size;
	info->rx_offload_capa = DVP_RX_OFFLOAD_SCATTER;
	info->tx_offload_capa = DVP_TX_OFFLOAD_MULTI_SEGS;
	info->min_mtu = 68;
	info->max_rx_pktlen = MEMIF_MAX_PKT_LEN;
	info->max_mtu = MEMIF_MAX_PKT_LEN - 18; /* Ethernet header and CRC */
	info->intr_capa = DVP_PORT_INTR_RXQ | DVP_PORT_INTR_LSC;
	info->speed_capa_mbps = DVP_LINK_SPEED_100G;
	return 0;
}

static int memif_configure(struct dvp_port *port)
{
	/* Ring counts follow the queue counts at start: nothing to program. */
	(void)port;
	return 0;
}

static enum memif_qrole memif_qrole_of(const struct memif_port *mp, bool rx)
{
	if (mp->p.role == MEMIF_ROLE_CLIENT)
		return rx ? MEMIF_Q_CLIENT_RX : MEMIF_Q_CLIENT_TX;
	return rx ? MEMIF_Q_SERVER_RX : MEMIF_Q_SERVER_TX;
}

static struct memif_queue *memif_queue_new(struct memif_port *mp, bool rx, uint16_t q,
					   int socket_id)
{
	struct memif_queue *mq =
		dvp_zmalloc_socket("memif queue", sizeof(*mq), DVP_CACHE_LINE_SIZE, socket_id);

	if (mq != NULL)
		memif_queue_init(mq, memif_qrole_of(mp, rx), q, mp->port->port_id);
	return mq;
}

static int memif_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			   const struct dvp_rxq_conf *conf, struct dvp_mempool *pool)
{
	struct memif_port *mp = port->priv;
	struct memif_queue *mq;
	int ret;

	(void)nb_desc; /* the ring size is rsize */
	(void)conf;
	mq = memif_queue_new(mp, true, q, socket_id);
	if (mq == NULL)
		return -dvp_errno;
	mq->mp = pool;
	if (mp->p.zc) {
		ret = memif_zc_queue_init(mq, 1u << mp->p.log2_ring_size, socket_id);
		if (ret < 0)
			goto fail;
	}
	if (port->conf.intr_conf.rxq) {
		struct dvp_rxwait_queue_conf ic;

		ret = memif_queue_intr_init(mq);
		if (ret < 0)
			goto fail;
		ic = dvp_port_rxq_intr_conf(port, q, mq->epfd);
		ret = dvp_port_rxq_intr_init(port, q, &mq->iq, &memif_intr_ops, mq, &ic);
		if (ret < 0) {
			memif_queue_intr_fini(mq);
			goto fail;
		}
	}
	port->rxqs[q] = mq;
	return 0;
fail:
	memif_zc_queue_fini(mq);
	dvp_free(mq);
	return ret;
}

static void memif_rxq_release(struct dvp_port *port, uint16_t q)
{
	struct memif_queue *mq = port->rxqs[q];

	/* Out of its wait set first; an eventfd needs no acks. */
	dvp_rxwait_queue_fini(&mq->iq);
	memif_queue_intr_fini(mq);
	memif_zc_queue_fini(mq);
	port->rxqs[q] = NULL;
	port->rxq_intr[q] = NULL;
	dvp_free(mq);
}

static int memif_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			   const struct dvp_txq_conf *conf)
{
	struct memif_port *mp = port->priv;
	struct memif_queue *mq;
	int ret;

	(void)nb_desc;
	(void)conf;
	mq = memif_queue_new(mp, false, q, socket_id);
	if (mq == NULL)
		return -dvp_errno;
	if (mp->p.zc) {
		ret = memif_zc_queue_init(mq, 1u << mp->p.log2_ring_size, socket_id);
		if (ret < 0) {
			dvp_free(mq);
			return ret;
		}
	}
	port->txqs[q] = mq;
	return 0;
}

static void memif_txq_release(struct dvp_port *port, uint16_t q)
{
	memif_zc_queue_fini(port->txqs[q]);
	dvp_free(port->txqs[q]);
	port->txqs[q] = NULL;
}

static int memif_start(struct dvp_port *port)
{
	struct memif_port *mp = port->priv;
	bool client = mp->p.role == MEMIF_ROLE_CLIENT;
	struct memif_queue *rxq[MEMIF_MAX_PORT_QUEUES], *txq[MEMIF_MAX_PORT_QUEUES];
	uint16_t q;
	int ret;

	for (q = 0; q < port->nb_rx_queues; q++)
		rxq[q] = port->rxqs[q];
	for (q = 0; q < port->nb_tx_queues; q++)
		txq[q] = port->txqs[q];
	ret = memif_if_start(mp->ifc, rxq, port->nb_rx_queues, txq, port->nb_tx_queues);
	if (ret < 0)
		return ret;
	if (client && mp->p.zc) {
		port->rx_pkt_burst = memif_rx_client_zc;
		port->tx_pkt_burst = memif_tx_client_zc;
	} else {
		port->rx_pkt_burst = client ? memif_rx_client : memif_rx_server;
		port->tx_pkt_burst = client ? memif_tx_client : memif_tx_server;
	}
	return 0;
}

/*
 * Before a stop disconnects, the peer may take what is still on our tx
 * rings, for as long as it keeps taking: a peer that polls empties a ring
 * in microseconds, one that stopped reading takes nothing. What it leaves
 * is counted as the queues go down (memif_queue_down()).
 */
#define MEMIF_STOP_DRAIN_IDLE_MS 50 /* nothing taken this long: give up */
#define MEMIF_STOP_DRAIN_MAX_MS 1000

static void memif_tx_drain(struct dvp_port *port)
{
	struct memif_port *mp = port->priv;
	unsigned int ms, idle = 0, q;
	uint32_t left, last = UINT32_MAX;

	for (ms = 0; ms < MEMIF_STOP_DRAIN_MAX_MS && memif_if_connected(mp->ifc); ms++) {
		left = 0;
		/* Stopping: no burst runs, so the stopping thread is the queues' one user. */
		for (q = 0; q < port->nb_tx_queues; q++)
			left += memif_tx_pending(port->txqs[q]);
		if (left == 0)
			return;
		idle = left < last ? 0 : idle + 1;
		if (idle >= MEMIF_STOP_DRAIN_IDLE_MS)
			return;
		last = left;
		usleep(1000);
	}
}

static int memif_stop(struct dvp_port *port)
{
	struct memif_port *mp = port->priv;

	memif_tx_drain(port);
	/* DISCONNECT to the peer, queues down (waiting for bursts), memory unmapped. */
	memif_if_stop(mp->ifc);
	memif_link_report(port, false);
	return 0;
}

static unsigned int memif_mbufs_held(struct dvp_port *port)
{
	unsigned int held = 0;
	uint16_t q;

	/* Copy mode: packets are copied in and out; only zero-copy rings hold mbufs. */
	for (q = 0; q < port->nb_rx_queues; q++)
		if (port->rxqs[q] != NULL)
			held += __atomic_load_n(&((struct memif_queue *)port->rxqs[q])->held,
						__ATOMIC_RELAXED);
	for (q = 0; q < port->nb_tx_queues; q++)
		if (port->txqs[q] != NULL)
			held += __atomic_load_n(&((struct memif_queue *)port->txqs[q])->held,
						__ATOMIC_RELAXED);
	return held;
}

static int memif_close(struct dvp_port *port)
{
	struct memif_port *mp = port->priv;

	memif_if_destroy(mp->ifc);
	mp->ifc = NULL;
	return 0;
}

static int memif_stats_get(struct dvp_port *port, struct dvp_port_stats *stats)
{
	dvp_port_qctrs_stats_get(port, &rxq_ctrs, &txq_ctrs, stats);
	return 0;
}

static int memif_stats_reset(struct dvp_port *port)
{
	dvp_port_qctrs_reset(port, &rxq_ctrs, &txq_ctrs);
	return 0;
}

_Static_assert(sizeof(struct memif_if_stats) == DVP_DIM(memif_xstat_names) * sizeof(uint64_t),
	       "a name for every counter of struct memif_if_stats");

static int memif_xstats(struct dvp_port *port, struct dvp_xstats_out *o)
{
	struct memif_port *mp = port->priv;
	uint64_t v[DVP_DIM(memif_xstat_names)];
	struct memif_if_stats ist;

	dvp_xstats_out_queues(o, port, &rxq_ctrs, &txq_ctrs);
	memif_if_stats_get(mp->ifc, &ist);
	dvp_counters_read((const uint64_t *)&ist, (const uint64_t *)&mp->if_base, v, DVP_DIM(v));
	dvp_xstats_out_table(o, memif_xstat_names, v, DVP_DIM(v));
	return 0;
}

static int memif_xstats_reset(struct dvp_port *port)
{
	struct memif_port *mp = port->priv;
	struct memif_if_stats ist;

	/* The queues' counters were reset by stats_reset (lib/port calls it first). */
	memif_if_stats_get(mp->ifc, &ist);
	dvp_counters_reset((const uint64_t *)&ist, (uint64_t *)&mp->if_base,
			   DVP_DIM(memif_xstat_names));
	return 0;
}

static const struct dvp_port_ops memif_port_ops = {
	.info_get = memif_info_get,
	.configure = memif_configure,
	.rxq_setup = memif_rxq_setup,
	.rxq_release = memif_rxq_release,
	.txq_setup = memif_txq_setup,
	.txq_release = memif_txq_release,
	.start = memif_start,
	.stop = memif_stop,
	.close = memif_close,
	.link_update = memif_link_update,
	/* A point-to-point link filters nothing; frames longer than bsize are chained. */
	.promiscuous_enable = dvp_port_op_promisc_nop,
	.promiscuous_disable = dvp_port_op_promisc_nop,
	.mac_addr_set = dvp_port_op_mac_addr_set_nop,
	.mtu_set = dvp_port_op_mtu_set_nop,
	.stats_get = memif_stats_get,
	.stats_reset = memif_stats_reset,
	.xstats = memif_xstats,
	.xstats_reset = memif_xstats_reset,
	.mbufs_held = memif_mbufs_held,
};

/* ------------------------------------------------------------------------
 * Probe
 */

/* As DPDK's default: random, unicast, locally administered. */
static void random_mac(struct dvp_ether_addr *mac)
{
	if (getrandom(mac->addr_bytes, sizeof(mac->addr_bytes), 0) != sizeof(mac->addr_bytes)) {
		uint64_t t = dvp_rdtsc();

		memcpy(mac->addr_bytes, &t, sizeof(mac->addr_bytes));
	}
	mac->addr_bytes[0] = (uint8_t)((mac->addr_bytes[0] & 0xfe) | 0x02);
}

static int parse_params(const struct dvp_device *dev, struct memif_if_params *p, uint64_t *maxq,
			struct dvp_ether_addr *mac)
{
	static const char *const roles[] = { "client", "server", NULL };
	const struct dvp_devargs *da = dev->devargs;
	uint64_t id, bsize, rsize, hs_ms;
	unsigned int role;
	const char *s;
	bool zc;
	int ret;

	memset(p, 0, sizeof(*p));
	ret = dvp_devargs_get_choice(da, "role", roles, 0, &role);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "id", 0, UINT32_MAX, 0, &id);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "bsize", MEMIF_MIN_BSIZE, UINT16_MAX,
					  MEMIF_DEFAULT_BSIZE, &bsize);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "rsize", 1, MEMIF_MAX_LOG2_RING_SIZE,
					  MEMIF_DEFAULT_RSIZE, &rsize);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "nb_rx_queues", 1, MEMIF_MAX_PORT_QUEUES,
					  MEMIF_MAX_PORT_QUEUES, &maxq[0]);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "nb_tx_queues", 1, MEMIF_MAX_PORT_QUEUES,
					  MEMIF_MAX_PORT_QUEUES, &maxq[1]);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "socket-abstract", true, &p->abstract);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "zero-copy", false, &zc);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "handshake-timeout", 1,
					  MEMIF_HANDSHAKE_TIMEOUT_MS_MAX,
					  MEMIF_HANDSHAKE_TIMEOUT_MS_DEFAULT, &hs_ms);
	if (ret < 0)
		return ret;
	p->handshake_ms = (uint32_t)hs_ms;
	p->role = role == 1 ? MEMIF_ROLE_SERVER : MEMIF_ROLE_CLIENT;
	p->id = (uint32_t)id;
	p->bsize = (uint16_t)bsize;
	p->log2_ring_size = (uint8_t)rsize;

	s = dvp_devargs_get(da, "socket");
	if (s == NULL)
		s = MEMIF_DEFAULT_SOCKET;
	if (strlen(s) > MEMIF_SOCKET_NAME_MAX || s[0] == '\0') {
		MEMIF_LOG(ERR, "%s: socket=%s: a socket name has 1 to %zu bytes", dev->name, s,
			  MEMIF_SOCKET_NAME_MAX);
		return dvp_err(EINVAL);
	}
	snprintf(p->socket, sizeof(p->socket), "%s", s);

	s = dvp_devargs_get(da, "secret");
	if (s != NULL && strlen(s) > MEMIF_SECRET_SZ) {
		MEMIF_LOG(ERR, "%s: secret of %zu bytes: a secret has at most %d", dev->name,
			  strlen(s), MEMIF_SECRET_SZ);
		return dvp_err(EINVAL);
	}
	snprintf(p->secret, sizeof(p->secret), "%s", s != NULL ? s : "");

	/* A server takes whatever regions its client sends: zero-copy is the client's. */
	p->zc = zc && p->role == MEMIF_ROLE_CLIENT;

	s = dvp_devargs_get(da, "mac");
	if (s != NULL) {
		ret = dvp_port_devarg_mac(dev->name, "mac", s, mac);
		if (ret < 0)
			return ret;
	} else {
		random_mac(mac);
	}
	snprintf(p->if_name, sizeof(p->if_name), "%.*s", (int)sizeof(p->if_name) - 1, dev->name);
	snprintf(p->app_name, sizeof(p->app_name), "%s", dvp_version());
	return 0;
}

static int memif_probe(struct dvp_device *dev)
{
	struct memif_if_params p;
	struct dvp_ether_addr mac;
	struct memif_port *mp;
	struct dvp_port *port;
	uint64_t maxq[2];
	int ret;

	ret = parse_params(dev, &p, maxq, &mac);
	if (ret < 0)
		return ret;
	port = dvp_port_allocate(dev->name, MEMIF_DRIVER_NAME, &memif_port_ops, dev, sizeof(*mp));
	if (port == NULL)
		return -dvp_errno;
	mp = port->priv;
	mp->port = port;
	mp->p = p;
	mp->max_rxq = (uint16_t)maxq[0];
	mp->max_txq = (uint16_t)maxq[1];
	port->mac = mac;
	port->numa_node = dev->numa_node;
	/* A server listens from now on, as DPDK's does: its socket is taken at probe. */
	mp->ifc = memif_if_create(&p, memif_on_link, port);
	if (mp->ifc == NULL) {
		ret = -dvp_errno;
		/*
		 * An id taken on that socket, a socket path in no directory:
		 * the devargs' values are bad (the line said which), as a bad
		 * key would be. A socket a live process serves is not.
		 */
		if (ret == -EEXIST || ret == -ENOENT || ret == -ENOTDIR)
			ret = dvp_err(EINVAL);
		dvp_port_release(port);
		return ret;
	}
	ret = dvp_port_probing_finish(port);
	if (ret < 0) {
		memif_if_destroy(mp->ifc);
		dvp_port_release(port);
		return ret;
	}
	memif_link_report(port, false);
	dev->driver_data = port;
	MEMIF_LOG(INFO, "%s: %s, id %u, socket %s%s, ring 2^%u of %s", dev->name,
		  p.role == MEMIF_ROLE_CLIENT ? "client" : "server", p.id, p.abstract ? "@" : "",
		  p.socket, p.log2_ring_size, p.zc ? "mbufs (zero-copy)" : "buffers (copy)");
	return 0;
}

static struct dvp_driver memif_driver = {
	.name = MEMIF_DRIVER_NAME,
	.bus = DVP_BUS_VDEV,
	.keys = memif_keys,
	.probe = memif_probe,
	.remove = dvp_port_vdev_remove,
};

DVP_DRIVER_REGISTER(net_memif, memif_driver);

/* ------------------------------------------------------------------------
 * The driver's API (dvp_net_memif.h)
 */

int dvp_net_memif_tx_pending(uint16_t port_id, uint16_t queue_id)
{
	struct dvp_port *port = dvp_port_get(port_id);

	if (port == NULL || port->ops != &memif_port_ops || !port->started) {
		MEMIF_LOG(ERR, "tx pending: port %u is not a started net_memif port", port_id);
		return dvp_err(EINVAL);
	}
	if (queue_id >= port->nb_tx_queues) {
		MEMIF_LOG(ERR, "tx pending: port %u has %u tx queues; no queue %u", port_id,
			  port->nb_tx_queues, queue_id);
		return dvp_err(EINVAL);
	}
	return memif_tx_pending(port->txqs[queue_id]);
}
