/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs' port: the vdev (probe, remove), the port ops, the link state
 * and the counters. The connections are in verbs_cm*.c, the queues in
 * verbs_queue.c, the datapath in verbs_rxtx.c.
 */

#include <endian.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <dvp_interrupts.h>
#include <dvp_port_counters.h>

#include "verbs_private.h"

/* ------------------------------------------------------------------------
 * Link
 */

/* Whether the netdev is up and has carrier: PORT_ACTIVE alone says less (DPDK learned it). */
bool verbs_netdev_running(const char *ifname)
{
	struct ifreq ifr;
	bool yes = true;
	int fd;

	if (ifname[0] == '\0')
		return true; /* InfiniBand: the port state is all there is */
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return true;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr) == 0)
		yes = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	close(fd);
	return yes;
}

/*
 * Mb/s of an IB port: lane speed times lanes. Each attribute is a single
 * bit (IB_SPEED_*, IB_WIDTH_*); the tables are indexed by which.
 */
static uint32_t port_speed(const struct ibv_port_attr *pa)
{
	/* SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR */
	static const uint32_t lane_mbps[] = {
		2500, 5000, 10000, 10000, 14000, 25000, 50000, 100000
	};
	/* 1x, 4x, 8x, 12x, 2x */
	static const uint32_t lanes[] = { 1, 4, 8, 12, 2 };
	unsigned int s = pa->active_speed, w = pa->active_width;

	if (!dvp_is_power_of_2(s) || !dvp_is_power_of_2(w))
		return DVP_LINK_SPEED_UNKNOWN;
	s = (unsigned int)__builtin_ctz(s);
	w = (unsigned int)__builtin_ctz(w);
	if (s >= DVP_DIM(lane_mbps) || w >= DVP_DIM(lanes))
		return DVP_LINK_SPEED_UNKNOWN;
	return lane_mbps[s] * lanes[w];
}

struct link_reading {
	struct verbs_port *vp;
	bool queues_up; /* started, and every queue connected */
	bool usable; /* the device port ACTIVE and its netdev running */
};

static int link_read(struct dvp_port *port, struct dvp_link *link, enum dvp_port_event_cause *cause,
		     void *arg)
{
	struct link_reading *r = arg;
	struct ibv_port_attr pa;
	bool up;

	(void)port;
	(void)cause;
	if (ibv_query_port(r->vp->dev->ctx, r->vp->ib_port, &pa) != 0)
		pa.state = IBV_PORT_DOWN;
	r->usable = pa.state == IBV_PORT_ACTIVE && verbs_netdev_running(r->vp->netdev);
	up = r->queues_up && r->usable;
	link->link_status = up ? DVP_LINK_UP : DVP_LINK_DOWN;
	link->link_speed = up ? port_speed(&pa) : DVP_LINK_SPEED_NONE;
	link->link_duplex = DVP_LINK_FULL_DUPLEX;
	link->link_autoneg = DVP_LINK_AUTONEG;
	return 0;
}

/* Up when started, every queue connected, the device port ACTIVE and its netdev running. */
void verbs_link_report(struct verbs_port *vp, enum dvp_port_event_cause cause)
{
	struct link_reading r = { .vp = vp };
	bool up;
	int changed;
	uint16_t q;

	pthread_mutex_lock(&vp->lock);
	up = vp->started;
	for (q = 0; up && q < vp->port->nb_rx_queues; q++)
		up = __atomic_load_n(&((struct verbs_rxq *)vp->port->rxqs[q])->state,
				     __ATOMIC_RELAXED) == VERBS_Q_LIVE;
	for (q = 0; up && q < vp->port->nb_tx_queues; q++)
		up = __atomic_load_n(&((struct verbs_txq *)vp->port->txqs[q])->state,
				     __ATOMIC_RELAXED) == VERBS_Q_LIVE;
	r.queues_up = up;
	changed = dvp_port_link_report(vp->port, link_read, &r, cause);
	/* The port came back: connections and disconnections held back can go now. */
	if (r.usable && !__atomic_exchange_n(&vp->cm_usable, true, __ATOMIC_RELAXED) &&
	    vp->wake_fd >= 0)
		(void)eventfd_write(vp->wake_fd, 1);
	pthread_mutex_unlock(&vp->lock);
	if (changed > 0)
		VERBS_LOG(INFO, "%s: link %s", vp->name, up && r.usable ? "up" : "down");
}

static int verbs_link_update_op(struct dvp_port *port, bool wait)
{
	struct verbs_port *vp = port->priv;
	uint64_t deadline = dvp_clock_monotonic_ns() + (uint64_t)VERBS_LINK_WAIT_MS * 1000000u;
	struct dvp_link link;

	for (;;) {
		verbs_link_update(vp);
		__atomic_load(&port->link, &link, __ATOMIC_RELAXED);
		if (!wait || link.link_status || !__atomic_load_n(&vp->started, __ATOMIC_RELAXED) ||
		    dvp_clock_monotonic_ns() >= deadline)
			return 0;
		/* The connections come up on the interrupt thread. */
		usleep(20000);
	}
}

/* ------------------------------------------------------------------------
 * Ops
 */

static int verbs_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	struct verbs_port *vp = port->priv;
	const struct ibv_device_attr *a = &vp->dev->attr;
	struct ibv_port_attr pa;
	uint32_t dmax =
		DVP_MIN((uint32_t)VERBS_DESC_MAX, (uint32_t)DVP_MIN(a->max_qp_wr, a->max_cqe));

	info->max_rx_queues = VERBS_MAX_QUEUES;
	info->max_tx_queues = VERBS_MAX_QUEUES;
	info->rx_desc_lim = (struct dvp_desc_lim){ .nb_max = (uint16_t)dmax,
						   .nb_min = VERBS_DESC_MIN,
						   .nb_align = 1 };
	info->tx_desc_lim = info->rx_desc_lim;
	/* A tx queue's QP and CQ take one entry more: the drain's marker. */
	info->tx_desc_lim.nb_max =
		(uint16_t)DVP_MIN(dmax, (uint32_t)DVP_MIN(a->max_qp_wr, a->max_cqe) - 1);
	info->default_rxq_size = (uint16_t)DVP_MIN((uint32_t)VERBS_DESC_DEFAULT, dmax);
	info->default_txq_size = info->default_rxq_size;
	info->rx_offload_capa = 0;
	info->tx_offload_capa = DVP_TX_OFFLOAD_MULTI_SEGS;
	info->min_mtu = 68;
	/* RC: a SEND of any size (the mbuf bounds it); UD: one path MTU. */
	info->max_mtu = vp->cfg.mode == VERBS_MODE_UD ? (uint16_t)(vp->path_mtu - 14) : 9000;
	info->max_rx_pktlen = info->max_mtu + 14u;
	info->intr_capa = DVP_PORT_INTR_RXQ | DVP_PORT_INTR_RXQ_SOLICITED | DVP_PORT_INTR_LSC |
			  DVP_PORT_INTR_RMV | DVP_PORT_INTR_QUEUE_ERROR;
	info->speed_capa_mbps = ibv_query_port(vp->dev->ctx, vp->ib_port, &pa) == 0 ?
					port_speed(&pa) :
					DVP_LINK_SPEED_UNKNOWN;
	return 0;
}

static int verbs_configure(struct dvp_port *port)
{
	/* Nothing to program: each queue is a connection of its own, made at start. */
	(void)port;
	return 0;
}

static int verbs_start(struct dvp_port *port)
{
	struct verbs_port *vp = port->priv;

	port->rx_pkt_burst = verbs_rx_burst;
	port->tx_pkt_burst = verbs_tx_burst;
	/* The link comes up (LINK_STATUS_CHANGE) once every queue is connected. */
	return verbs_cm_start(vp);
}

static int verbs_stop(struct dvp_port *port)
{
	struct verbs_port *vp = port->priv;

	verbs_cm_stop(vp);
	verbs_link_update(vp);
	return 0;
}

static int verbs_close(struct dvp_port *port)
{
	struct verbs_port *vp = port->priv;

	verbs_cm_fini(vp);
	ib_async_del_port(vp->dev->async, port->port_id);
	verbs_dev_put(vp->dev);
	vp->dev = NULL;
	pthread_mutex_destroy(&vp->lock);
	return 0;
}

static unsigned int verbs_mbufs_held(struct dvp_port *port)
{
	unsigned int n = 0;
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++)
		if (port->rxqs[q] != NULL)
			n += verbs_rxq_held(port->rxqs[q]);
	for (q = 0; q < port->nb_tx_queues; q++)
		if (port->txqs[q] != NULL)
			n += verbs_txq_held(port->txqs[q]);
	return n;
}

/* ------------------------------------------------------------------------
 * Counters
 */

/*
 * The queues' counter blocks (dvp_port_counters.h). Their xstats are
 * port-wide sums under the names below (the rxe tests read them), so the
 * tables name no per-queue xstat.
 */
static const char *const no_names[VERBS_QSTATS_N];
DVP_PORT_QCTRS_DEFINE(rxq_ctrs, struct verbs_rxq, st, base, no_names);
DVP_PORT_QCTRS_DEFINE(txq_ctrs, struct verbs_txq, st, base, no_names);

/* Add queue @p q's counters since the baseline to @p sum. */
static void qstats_sum(const struct dvp_port *port, bool tx, uint16_t q, struct verbs_qstats *sum)
{
	uint64_t s[VERBS_QSTATS_N], *o = (uint64_t *)sum;
	size_t k;

	dvp_port_qctrs_read(port, tx ? &txq_ctrs : &rxq_ctrs, tx, q, s);
	for (k = 0; k < VERBS_QSTATS_N; k++)
		o[k] += s[k];
}

static int verbs_stats_get(struct dvp_port *port, struct dvp_port_stats *stats)
{
	dvp_port_qctrs_stats_get(port, &rxq_ctrs, &txq_ctrs, stats);
	return 0;
}

static int verbs_stats_reset(struct dvp_port *port)
{
	dvp_port_qctrs_reset(port, &rxq_ctrs, &txq_ctrs);
	return 0;
}

/* The driver's own xstats, after lib/port's: fixed ones, then per-status counters. */
enum {
	XS_RX_DROPPED_ON_RESET,
	XS_TX_DROPPED_ON_RESET,
	XS_TX_TOO_LONG,
	XS_TX_BAD_SEGS,
	XS_TX_NO_MR,
	XS_TX_MR_CACHE_MISSES,
	XS_RX_QUEUE_RESTARTS,
	XS_TX_QUEUE_RESTARTS,
	XS_TX_TIMEOUTS,
	XS_RX_KICKS,
	XS_RX_POSTED,
	XS_TX_IN_FLIGHT,
	XS_CM_ESTABLISHED,
	XS_CM_DISCONNECTS,
	XS_CM_REJECTS_SENT,
	XS_CM_REJECTS_RECEIVED,
	XS_CM_ERRORS,
	XS_ASYNC_QUEUE_ERRORS,
	XS_ASYNC_LINK_EVENTS,
	XS_CM_SESSIONS_RENEWED,
	XS_FIXED_N,
};

static const char *const xs_names[XS_FIXED_N] = {
	[XS_RX_DROPPED_ON_RESET] = "rx_dropped_on_reset",
	[XS_TX_DROPPED_ON_RESET] = "tx_dropped_on_reset",
	[XS_TX_TOO_LONG] = "tx_too_long",
	[XS_TX_BAD_SEGS] = "tx_bad_segs",
	[XS_TX_NO_MR] = "tx_no_mr",
	[XS_TX_MR_CACHE_MISSES] = "tx_mr_cache_misses",
	[XS_RX_QUEUE_RESTARTS] = "rx_queue_restarts",
	[XS_TX_QUEUE_RESTARTS] = "tx_queue_restarts",
	[XS_TX_TIMEOUTS] = "tx_timeouts",
	[XS_RX_KICKS] = "rx_kicks",
	[XS_RX_POSTED] = "rx_posted",
	[XS_TX_IN_FLIGHT] = "tx_in_flight",
	[XS_CM_ESTABLISHED] = "cm_established",
	[XS_CM_DISCONNECTS] = "cm_disconnects",
	[XS_CM_REJECTS_SENT] = "cm_rejects_sent",
	[XS_CM_REJECTS_RECEIVED] = "cm_rejects_received",
	[XS_CM_ERRORS] = "cm_errors",
	[XS_ASYNC_QUEUE_ERRORS] = "async_queue_errors",
	[XS_ASYNC_LINK_EVENTS] = "async_link_events",
	[XS_CM_SESSIONS_RENEWED] = "cm_sessions_renewed",
};

#define VERBS_PSTATS_N (sizeof(struct verbs_pstats) / sizeof(uint64_t))
_Static_assert(XS_FIXED_N - XS_CM_ESTABLISHED == VERBS_PSTATS_N,
	       "the xstats from XS_CM_ESTABLISHED on are struct verbs_pstats, in its order");

/* "rx_wc_<status>" and "tx_wc_<status>": filled once, as the names of this build's statuses. */
static char wc_names[2][VERBS_WC_STATUS_N][DVP_XSTATS_NAMESIZE];
static const char *wc_name_ptrs[2 * VERBS_WC_STATUS_N];

static void wc_names_init(void)
{
	unsigned int i, d;

	for (d = 0; d < 2; d++)
		for (i = 0; i < VERBS_WC_STATUS_N; i++) {
			snprintf(wc_names[d][i], sizeof(wc_names[d][i]), "%s_wc_%s",
				 d ? "tx" : "rx", verbs_wc_status_name(i));
			wc_name_ptrs[d * VERBS_WC_STATUS_N + i] = wc_names[d][i];
		}
}

static int verbs_xstats(struct dvp_port *port, struct dvp_xstats_out *o)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	struct verbs_port *vp = port->priv;
	struct verbs_qstats rx = { 0 }, tx = { 0 };
	uint64_t v[XS_FIXED_N] = { 0 }, wc[2 * VERBS_WC_STATUS_N];
	unsigned int i;
	uint16_t q;

	pthread_once(&once, wc_names_init);
	for (q = 0; q < port->nb_rx_queues; q++) {
		struct verbs_rxq *rxq = port->rxqs[q];

		if (rxq == NULL)
			continue;
		qstats_sum(port, false, q, &rx);
		v[XS_RX_POSTED] += verbs_rxq_held(rxq);
	}
	for (q = 0; q < port->nb_tx_queues; q++) {
		struct verbs_txq *txq = port->txqs[q];

		if (txq == NULL)
			continue;
		qstats_sum(port, true, q, &tx);
		v[XS_TX_IN_FLIGHT] += verbs_idx_get(&txq->tail) - verbs_idx_get(&txq->head);
	}
	v[XS_RX_DROPPED_ON_RESET] = rx.dropped_on_reset;
	v[XS_TX_DROPPED_ON_RESET] = tx.dropped_on_reset;
	v[XS_TX_TOO_LONG] = tx.too_long;
	v[XS_TX_BAD_SEGS] = tx.bad_segs;
	v[XS_TX_NO_MR] = tx.no_mr;
	v[XS_TX_MR_CACHE_MISSES] = tx.mr_misses;
	v[XS_RX_QUEUE_RESTARTS] = rx.restarts;
	v[XS_TX_QUEUE_RESTARTS] = tx.restarts;
	v[XS_TX_TIMEOUTS] = tx.timeouts;
	v[XS_RX_KICKS] = rx.kicks;
	/* The port-wide counters, in the order of struct verbs_pstats from XS_CM_ESTABLISHED. */
	dvp_counters_read((const uint64_t *)&vp->ps, (const uint64_t *)&vp->ps_base,
			  &v[XS_CM_ESTABLISHED], VERBS_PSTATS_N);
	dvp_xstats_out_table(o, xs_names, v, XS_FIXED_N);
	for (i = 0; i < VERBS_WC_STATUS_N; i++) {
		wc[i] = rx.wc_err[i];
		wc[VERBS_WC_STATUS_N + i] = tx.wc_err[i];
	}
	dvp_xstats_out_table(o, wc_name_ptrs, wc, DVP_DIM(wc));
	return 0;
}

static int verbs_xstats_reset(struct dvp_port *port)
{
	struct verbs_port *vp = port->priv;

	/* The queues' counters were reset by stats_reset (lib/port calls it first). */
	dvp_counters_reset((const uint64_t *)&vp->ps, (uint64_t *)&vp->ps_base, VERBS_PSTATS_N);
	return 0;
}

/*
 * An async event broke a queue (CQ_ERR, QP_FATAL, QP_REQ_ERR,
 * QP_ACCESS_ERR): close its connection; its owner tears it down and
 * reports QUEUE_ERROR, and the connection is made again.
 */
void verbs_queue_error(struct dvp_port *port, uint16_t q, bool tx, enum dvp_port_event_cause cause)
{
	struct verbs_port *vp = port->priv;
	bool broke;

	__atomic_fetch_add(&vp->ps.async_queue_errors, 1, __ATOMIC_RELAXED);
	/*
	 * An overrun CQ reports CQ_ERR again for each completion it cannot
	 * take until it is replaced: the first one is acted on (and logged),
	 * the others only counted.
	 */
	if (cause == DVP_PORT_CAUSE_CQ_ERROR &&
	    __atomic_exchange_n(tx ? &((struct verbs_txq *)port->txqs[q])->cq_dead :
				     &((struct verbs_rxq *)port->rxqs[q])->cq_dead,
				1, __ATOMIC_RELAXED) != 0) {
		VERBS_LOG(DEBUG, "%s %s queue %u: CQ_ERR again before the CQ was replaced",
			  vp->name, tx ? "tx" : "rx", q);
		return;
	}
	pthread_mutex_lock(&vp->lock);
	if (!vp->started) {
		pthread_mutex_unlock(&vp->lock);
		dvp_port_queue_error_report(port, q, tx, cause,
					    "the port is stopped: the queue is rebuilt at start");
		return;
	}
	broke = tx ? verbs_txq_break(port->txqs[q], cause) : verbs_rxq_break(port->rxqs[q], cause);
	if (broke)
		verbs_cm_queue_broken_locked(vp, tx, q);
	else if (!tx)
		verbs_rxq_kick(port->rxqs[q]); /* its lcore replaces an overrun CQ */
	pthread_mutex_unlock(&vp->lock);
	if (!broke)
		VERBS_LOG(INFO, "%s %s queue %u: %s while the queue was %s", vp->name,
			  tx ? "tx" : "rx", q, dvp_port_event_cause_name(cause), "not connected");
	verbs_link_report(vp, cause);
}

const struct dvp_port_ops verbs_port_ops = {
	.info_get = verbs_info_get,
	.configure = verbs_configure,
	.rxq_setup = verbs_rxq_setup,
	.rxq_release = verbs_rxq_release,
	.txq_setup = verbs_txq_setup,
	.txq_release = verbs_txq_release,
	.start = verbs_start,
	.stop = verbs_stop,
	.close = verbs_close,
	.link_update = verbs_link_update_op,
	/*
	 * Every frame on the connection is for this port, the MAC is a label,
	 * and the transport carries any MTU up to max_mtu.
	 */
	.promiscuous_enable = dvp_port_op_promisc_nop,
	.promiscuous_disable = dvp_port_op_promisc_nop,
	.mac_addr_set = dvp_port_op_mac_addr_set_nop,
	.mtu_set = dvp_port_op_mtu_set_nop,
	.stats_get = verbs_stats_get,
	.stats_reset = verbs_stats_reset,
	.xstats = verbs_xstats,
	.xstats_reset = verbs_xstats_reset,
	.mbufs_held = verbs_mbufs_held,
};

/* ------------------------------------------------------------------------
 * The vdev
 */

/* The device's NUMA node, as the ib bus found it; -1 when unknown. */
static int find_numa(const char *dev)
{
	const struct dvp_ib_device *ib = dvp_ib_device_find(dev);

	return ib != NULL ? ib->numa_node : -1;
}

static int verbs_probe(struct dvp_device *ddev)
{
	struct verbs_cfg cfg;
	struct dvp_port *port;
	struct verbs_port *vp;
	struct verbs_dev *dev;
	uint64_t guid;
	int ret;

	ret = verbs_cfg_parse(ddev->name, ddev->devargs, &cfg);
	if (ret < 0)
		return ret;
	ret = verbs_memlock_check(ddev->name);
	if (ret < 0)
		return ret;
	dev = verbs_dev_get(cfg.dev, ddev->name);
	if (dev == NULL)
		return -dvp_errno;
	port = dvp_port_allocate(ddev->name, VERBS_DRIVER_NAME, &verbs_port_ops, ddev, sizeof(*vp));
	if (port == NULL) {
		ret = -dvp_errno;
		verbs_dev_put(dev);
		return ret;
	}
	vp = port->priv;
	vp->port = port;
	vp->dev = dev;
	vp->cfg = cfg;
	vp->timer_fd = vp->wake_fd = -1;
	snprintf(vp->name, sizeof(vp->name), "%s", ddev->name);
	pthread_mutex_init(&vp->lock, NULL);
	port->numa_node = find_numa(cfg.dev);
	port->mtu = 1500;
	if (cfg.mac_set) {
		port->mac = cfg.mac;
	} else {
		/* Locally administered, from the device GUID, told apart by the port id. */
		guid = be64toh(ibv_get_device_guid(dev->ctx->device));
		port->mac = (struct dvp_ether_addr){ { 0x02, (uint8_t)(guid >> 24),
						       (uint8_t)(guid >> 16), (uint8_t)(guid >> 8),
						       (uint8_t)guid, (uint8_t)port->port_id } };
	}
	ret = verbs_cm_init(vp);
	if (ret < 0)
		goto fail;
	if (vp->cfg.mode == VERBS_MODE_UD && vp->path_mtu < 256) {
		VERBS_LOG(ERR, "%s: mode=ud: the path MTU is %u bytes, too small for frames",
			  vp->name, vp->path_mtu);
		ret = dvp_err(EINVAL);
		goto fail_cm;
	}
	ret = ib_async_add_port(dev->async, port->port_id);
	if (ret < 0)
		goto fail_cm;
	ret = dvp_port_probing_finish(port);
	if (ret < 0)
		goto fail_async;
	ddev->driver_data = vp;
	VERBS_LOG(INFO, "%s: %s on %s port %u (%s), mode=%s, %s %s", vp->name,
		  cfg.role == VERBS_ROLE_LISTEN ? "listening" : "to connect", cfg.dev, vp->ib_port,
		  vp->netdev[0] ? vp->netdev : "no netdev", cfg.mode == VERBS_MODE_UD ? "ud" : "rc",
		  cfg.role == VERBS_ROLE_LISTEN ? "at" : "to", cfg.addr_str);
	verbs_link_update(vp);
	return 0;

fail_async:
	ib_async_del_port(dev->async, port->port_id);
fail_cm:
	verbs_cm_fini(vp);
fail:
	pthread_mutex_destroy(&vp->lock);
	dvp_port_release(port);
	verbs_dev_put(dev);
	return ret;
}

static struct dvp_driver verbs_driver = {
	.name = VERBS_DRIVER_NAME,
	.bus = DVP_BUS_VDEV,
	.keys = verbs_devargs_keys,
	.probe = verbs_probe,
	.remove = dvp_port_vdev_remove,
};

DVP_DRIVER_REGISTER(net_verbs, verbs_driver);
