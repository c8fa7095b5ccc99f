/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Port operations of the mlx5 PMD (struct dvp_port_ops): capabilities,
 * configure, start and stop, link, promiscuous mode and MAC, statistics.
 * Queues are in mlx5_rxq.c and mlx5_txq.c, steering in mlx5_flow.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <dvp_errno.h>
#include <dvp_port_counters.h>

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_vec.h"
#include "mlx5_tx.h"

static int mlx5_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	info->max_rx_queues = DVP_MAX_QUEUES_PER_PORT;
	info->max_tx_queues = DVP_MAX_QUEUES_PER_PORT;
	info->rx_desc_lim = (struct dvp_desc_lim){ MLX5_RXQ_DESC_MAX, MLX5_RXQ_DESC_MIN, 1 };
	info->tx_desc_lim = (struct dvp_desc_lim){ MLX5_TXQ_DESC_MAX, MLX5_TXQ_DESC_MIN, 1 };
	info->default_rxq_size = MLX5_RXQ_DESC_DEFAULT;
	info->default_txq_size = MLX5_TXQ_DESC_DEFAULT;
	info->rx_offload_capa =
		DVP_RX_OFFLOAD_CHECKSUM | DVP_RX_OFFLOAD_RSS_HASH | DVP_RX_OFFLOAD_SCATTER;
	/* The WQ strips C-VLAN tags where the device says so; timestamps where it has a clock. */
	if (priv->dev->attr.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING)
		info->rx_offload_capa |= DVP_RX_OFFLOAD_VLAN_STRIP;
	if (priv->dev->attr.hca_core_clock != 0 && priv->dev->glue->query_rt_values_ex != NULL)
		info->rx_offload_capa |= DVP_RX_OFFLOAD_TIMESTAMP;
	/* Flow rules matching the VLAN id: every device the PMD drives has them. */
	info->rx_offload_capa |= DVP_RX_OFFLOAD_VLAN_FILTER;
	/* VLAN insertion everywhere: by the driver where the device has none (as DPDK). */
	info->tx_offload_capa = DVP_TX_OFFLOAD_IPV4_CKSUM | DVP_TX_OFFLOAD_UDP_CKSUM |
				DVP_TX_OFFLOAD_TCP_CKSUM | DVP_TX_OFFLOAD_MULTI_SEGS |
				DVP_TX_OFFLOAD_MBUF_FAST_FREE | DVP_TX_OFFLOAD_VLAN_INSERT |
				(priv->dev->caps.tso_max != 0 ? DVP_TX_OFFLOAD_TCP_TSO : 0);
	info->rss_hf_capa = mlx5_rss_hf_capa();
	info->hash_key_size = MLX5_RSS_HASH_KEY_LEN;
	info->reta_size = (uint16_t)mlx5_rss_reta_size(priv->dev);
	info->min_mtu = 68;
	/* What the netdev takes (its maxmtu); where it does not say, what it has. */
	info->max_mtu = (uint16_t)DVP_MAX(priv->net.max_mtu, priv->net.mtu);
	info->max_rx_pktlen = info->max_mtu + 18u;
	info->intr_capa = DVP_PORT_INTR_RXQ | DVP_PORT_INTR_RXQ_SOLICITED | DVP_PORT_INTR_LSC |
			  DVP_PORT_INTR_RMV | DVP_PORT_INTR_QUEUE_ERROR;
	info->speed_capa_mbps = priv->net.speed_mbps ? priv->net.speed_mbps : DVP_LINK_SPEED_100G;
	/* Memory the device has not registered: dropped natively, a stop where a host may copy. */
	info->dev_capa = DVP_PORT_DEV_CAPA_MEM_REG |
			 (MLX5_TX_FOREIGN_HI != 0 ? DVP_PORT_DEV_CAPA_TX_STOPS : 0);
	return 0;
}

/*
 * The free-running counter CQE timestamps hold (ticks of hca_core_clock),
 * as DPDK's mlx5_read_clock reads it: libmlx5 gives it in tv_nsec.
 */
static int mlx5_read_clock(struct dvp_port *port, uint64_t *clock)
{
	struct mlx5_dev *dev = mlx5_priv(port)->dev;
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };
	int ret;

	if (dev->glue->query_rt_values_ex == NULL || dev->attr.hca_core_clock == 0)
		return dvp_err(ENOTSUP);
	ret = dev->glue->query_rt_values_ex(dev->ctx, &v);
	if (ret != 0) {
		MLX5_PLOG(ERR, port, "read clock: query_rt_values_ex: %s", dvp_strerror(ret));
		return dvp_err(ret);
	}
	*clock = (uint64_t)v.raw_clock.tv_nsec;
	return 0;
}

static bool mlx5_mempool_sendable(struct dvp_port *port, const struct dvp_mempool *mp)
{
	return mlx5_mr_pool_registered(&mlx5_priv(port)->dev->mr, mp);
}

/*
 * The port's MTU is its netdev's (as DPDK's mlx5 sets it): frames longer
 * are dropped by the device on arrival and counted (rx_length_errors, in
 * ierrors), never delivered into buffers too short for them.
 */
static int port_mtu_apply(struct dvp_port *port, uint32_t mtu)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	const struct mlx5_glue *g = priv->dev->glue;
	int ret;

	if (mtu == priv->net.mtu)
		return 0;
	if (g->set_port_mtu == NULL)
		return dvp_err(ENOTSUP);
	ret = g->set_port_mtu(priv->dev->ctx, priv->port_num, mtu);
	if (ret != 0) {
		MLX5_PLOG(ERR, port, "cannot set the device's MTU to %u: %s", mtu,
			  dvp_strerror(ret));
		return dvp_err(ret);
	}
	MLX5_PLOG(INFO, port, "MTU %u (was %u)", mtu, priv->net.mtu);
	priv->net.mtu = mtu;
	return 0;
}

static int mlx5_configure(struct dvp_port *port)
{
	const struct dvp_port_rss_conf *rss = &port->conf.rss_conf;

	if (port->nb_rx_queues > 1 && rss->rss_hf == 0)
		MLX5_PLOG(NOTICE, port,
			  "%u rx queues without RSS fields: all traffic goes to queue 0",
			  port->nb_rx_queues);
	mlx5_rss_configure(mlx5_priv(port));
	return port_mtu_apply(port, port->conf.rxmode.mtu);
}

/*
 * A new MTU on a stopped port: every rx queue set up must still take its
 * frames (queues were sized for the MTU of their setup); tx queues take it
 * at start (mlx5_txq_start()).
 */
static int mlx5_mtu_set(struct dvp_port *port, uint16_t mtu)
{
	uint32_t need = mtu + 18u;

	if (port->started) {
		MLX5_PLOG(ERR, port, "MTU %u: stop the port first (its queues are sized by it)",
			  mtu);
		return dvp_err(EBUSY);
	}
	for (uint16_t q = 0; q < port->nb_rx_queues; q++) {
		const struct mlx5_rxq *rxq = port->rxqs[q];

		if (rxq != NULL && mlx5_rxq_frame_max(rxq) < need) {
			MLX5_PLOG(ERR, port,
				  "MTU %u: rx queue %u takes frames of up to %u bytes, not %u: set "
				  "it up again (larger buffers, or rx scatter)",
				  mtu, q, mlx5_rxq_frame_max(rxq), need);
			return dvp_err(EINVAL);
		}
	}
	return port_mtu_apply(port, mtu);
}

/*
 * The tx burst instance: eMPW (with frames inline in its sessions when the
 * queues inline, txq_inline_mpw) or SEND WQEs, each with or without
 * checksum offloads, or with VLAN insertion and TSO (whose frames go
 * through mlx5_tx_generic()). The inline limit is the same on every queue.
 */
static dvp_tx_burst_fn tx_burst_pick(struct dvp_port *port, bool empw)
{
	bool cs = false, inl = false, off = false;

	for (uint16_t q = 0; q < port->nb_tx_queues; q++) {
		const struct mlx5_txq *txq = port->txqs[q];

		cs |= (txq->offloads & (DVP_TX_OFFLOAD_IPV4_CKSUM | DVP_TX_OFFLOAD_UDP_CKSUM |
					DVP_TX_OFFLOAD_TCP_CKSUM)) != 0;
		off |= (txq->offloads & (DVP_TX_OFFLOAD_VLAN_INSERT | DVP_TX_OFFLOAD_TCP_TSO)) != 0;
		inl |= txq->inline_mpw != 0;
	}
	if (!empw)
		return off ? mlx5_tx_burst_off : cs ? mlx5_tx_burst_cs : mlx5_tx_burst;
	if (inl)
		return mlx5_tx_burst_inl_pick(cs, off);
	return off ? mlx5_tx_burst_empw_off : cs ? mlx5_tx_burst_empw_cs : mlx5_tx_burst_empw;
}

static int mlx5_start(struct dvp_port *port)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	uint16_t q, rq = 0, tq = 0;
	int ret;

	for (rq = 0; rq < port->nb_rx_queues; rq++) {
		ret = mlx5_rxq_start(port, rq);
		if (ret < 0)
			goto err;
	}
	for (tq = 0; tq < port->nb_tx_queues; tq++) {
		ret = mlx5_txq_start(port, tq);
		if (ret < 0)
			goto err;
	}
	pthread_mutex_lock(&priv->steer_lock);
	ret = mlx5_steering_create(priv);
	pthread_mutex_unlock(&priv->steer_lock);
	if (ret < 0)
		goto err;
	port->rx_pkt_burst = mlx5_rx_burst_select(port);
	port->tx_pkt_burst = tx_burst_pick(port, priv->dev->empw);
	mlx5_link_update(port, false, DVP_PORT_CAUSE_NONE);
	return 0;
err:
	for (q = 0; q < tq; q++)
		mlx5_txq_stop(port, q);
	for (q = 0; q < rq; q++)
		mlx5_rxq_stop(port, q);
	return ret;
}

static int mlx5_stop(struct dvp_port *port)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	uint16_t q;

	pthread_mutex_lock(&priv->steer_lock);
	mlx5_steering_destroy(priv);
	pthread_mutex_unlock(&priv->steer_lock);
	for (q = 0; q < port->nb_rx_queues; q++)
		mlx5_rxq_stop(port, q);
	for (q = 0; q < port->nb_tx_queues; q++)
		mlx5_txq_stop(port, q);
	return 0;
}

static int mlx5_close(struct dvp_port *port)
{
	struct mlx5_priv *priv = mlx5_priv(port);

	if (priv->dev->async != NULL)
		ib_async_del_port(priv->dev->async, port->port_id);
	pthread_mutex_destroy(&priv->steer_lock);
	mlx5_dev_port_closed(priv->dev, port);
	return 0;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

void mlx5_queue_destroyed(struct dvp_port *port, bool tx, uint16_t q, const char *what, int ret)
{
	if (ret != 0)
		MLX5_PLOG(ERR, port, "%s queue %u: %s: %s", tx ? "tx" : "rx", q, what,
			  dvp_strerror(ret));
}

/* The link as the device's netdev reports it (dvp_port_link_read_t). */
static int mlx5_link_read(struct dvp_port *port, struct dvp_link *link,
			  enum dvp_port_event_cause *cause, void *arg)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	struct mlx5_glue_port_net net;
	int ret;

	(void)cause;
	(void)arg;
	ret = priv->dev->glue->get_port_net(priv->dev->ctx, priv->port_num, &net);
	if (ret != 0)
		return -ret;
	link->link_status = net.link_up ? DVP_LINK_UP : DVP_LINK_DOWN;
	link->link_duplex = DVP_LINK_FULL_DUPLEX;
	link->link_autoneg = DVP_LINK_AUTONEG;
	link->link_speed = !net.link_up	       ? DVP_LINK_SPEED_NONE :
			   net.speed_mbps != 0 ? net.speed_mbps :
						 DVP_LINK_SPEED_UNKNOWN;
	return 0;
}

int mlx5_link_update(struct dvp_port *port, bool wait, enum dvp_port_event_cause cause)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	const struct mlx5_glue *g = priv->dev->glue;
	struct mlx5_glue_port_net net;
	unsigned int waited = 0;
	int ret;

	/* Wait only for a port on its way up (INIT, ARMED), as a NIC training its link. */
	while (wait && waited < 9000) {
		struct ibv_port_attr pa;

		if (g->get_port_net(priv->dev->ctx, priv->port_num, &net) != 0 || net.link_up ||
		    g->query_port(priv->dev->ctx, priv->port_num, &pa) != 0 ||
		    (pa.state != IBV_PORT_INIT && pa.state != IBV_PORT_ARMED))
			break;
		sleep_ms(100);
		waited += 100;
	}
	/*
	 * Read again under the port's link lock: the interrupt thread (port
	 * events) reports too, and the wait's last reading may be older
	 * than its.
	 */
	ret = dvp_port_link_report(port, mlx5_link_read, NULL, cause);
	if (ret < 0) {
		MLX5_PLOG(ERR, port, "cannot read the link state: %s", dvp_strerror(-ret));
		return dvp_err(-ret);
	}
	return 0;
}

static int mlx5_link_update_op(struct dvp_port *port, bool wait)
{
	return mlx5_link_update(port, wait, DVP_PORT_CAUSE_NONE);
}

int mlx5_steering_refresh(struct dvp_port *port)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	int ret = 0;

	if (!port->started)
		return 0;
	pthread_mutex_lock(&priv->steer_lock);
	ret = mlx5_steering_rebuild(priv);
	pthread_mutex_unlock(&priv->steer_lock);
	return ret;
}

static int promiscuous_apply(struct dvp_port *port, bool on)
{
	bool was = port->promiscuous;
	int ret;

	/* lib/port records the mode after the op; the flows read it now. */
	port->promiscuous = on;
	ret = mlx5_steering_refresh(port);
	port->promiscuous = was;
	return ret;
}

static int mlx5_promiscuous_enable(struct dvp_port *port)
{
	return promiscuous_apply(port, true);
}

static int mlx5_promiscuous_disable(struct dvp_port *port)
{
	return promiscuous_apply(port, false);
}

static int mlx5_mac_addr_set(struct dvp_port *port, const struct dvp_ether_addr *mac)
{
	struct dvp_ether_addr was = port->mac;
	int ret;

	/* The device keeps its address; the unicast rule steers the new one. */
	port->mac = *mac;
	ret = mlx5_steering_refresh(port);
	port->mac = was;
	return ret;
}

/* The device's out_of_buffer count for this port, or the base when it cannot say. */
static uint64_t port_out_of_buffer(const struct mlx5_priv *priv)
{
	const struct mlx5_glue *g = priv->dev->glue;
	uint64_t base = __atomic_load_n(&priv->oob_base, __ATOMIC_RELAXED), n;

	if (g->port_out_of_buffer == NULL ||
	    g->port_out_of_buffer(priv->dev->ctx, priv->port_num, &n) != 0 || n < base)
		return base;
	return n;
}

/* The device's count of frames longer than the MTU allows, or the base when it cannot say. */
static uint64_t port_length_errors(const struct mlx5_priv *priv)
{
	const struct mlx5_glue *g = priv->dev->glue;
	uint64_t base = __atomic_load_n(&priv->len_err_base, __ATOMIC_RELAXED), n;

	if (g->port_rx_length_errors == NULL ||
	    g->port_rx_length_errors(priv->dev->ctx, priv->port_num, &n) != 0 || n < base)
		return base;
	return n;
}

/* The per-queue counters (dvp_port_counters.h): rx_q<N>_<name>, tx_q<N>_<name>. */
static const char *const rxq_names[] = {
	NULL, NULL, NULL, "nombuf", "cqe_errors", "restarts", "dropped_on_reset"
};
static const char *const txq_names[] = { NULL,	    NULL,	  NULL,
					 NULL,	    "cqe_errors", "mr_miss",
					 "inlined", "restarts",	  "dropped_on_reset" };
DVP_PORT_QCTRS_DEFINE(rxq_ctrs, struct mlx5_rxq, st, st_base, rxq_names);
DVP_PORT_QCTRS_DEFINE(txq_ctrs, struct mlx5_txq, st, st_base, txq_names);

static int mlx5_stats_get(struct dvp_port *port, struct dvp_port_stats *st)
{
	struct mlx5_priv *priv = mlx5_priv(port);

	/* Frames the device dropped for want of a posted WQE: rx ran dry. */
	uint64_t base = __atomic_load_n(&priv->oob_base, __ATOMIC_RELAXED);

	st->imissed += port_out_of_buffer(priv) - base;
	/* Frames the device dropped on arrival, longer than the MTU: errors, as DPDK's mlx5. */
	st->ierrors +=
		port_length_errors(priv) - __atomic_load_n(&priv->len_err_base, __ATOMIC_RELAXED);
	dvp_port_qctrs_stats_get(port, &rxq_ctrs, &txq_ctrs, st);
	return 0;
}

/*
 * The device's own counters (glue port_counters), up to
 * MLX5_DEV_COUNTERS_MAX: names into @p names, values into @p v.
 * @return how many.
 */
static unsigned int dev_counters(const struct mlx5_priv *priv, const char **names, uint64_t *v)
{
	const struct mlx5_glue *g = priv->dev->glue;
	unsigned int n;

	if (g->port_counters == NULL)
		return 0;
	n = g->port_counters(priv->dev->ctx, priv->port_num, names, v, MLX5_DEV_COUNTERS_MAX);
	return DVP_MIN(n, MLX5_DEV_COUNTERS_MAX);
}

/* The baseline rule of dvp_port_counters.h: safe while the queues' lcores burst. */
static int mlx5_stats_reset(struct dvp_port *port)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	uint64_t dev[MLX5_DEV_COUNTERS_MAX];
	unsigned int i, n;
	uint16_t q;

	__atomic_store_n(&priv->oob_base, port_out_of_buffer(priv), __ATOMIC_RELAXED);
	__atomic_store_n(&priv->len_err_base, port_length_errors(priv), __ATOMIC_RELAXED);
	n = dev_counters(priv, NULL, dev);
	for (i = 0; i < n; i++)
		__atomic_store_n(&priv->dev_ctr_base[i], dev[i], __ATOMIC_RELAXED);
	dvp_port_qctrs_reset(port, &rxq_ctrs, &txq_ctrs);
	for (q = 0; q < port->nb_rx_queues; q++) {
		struct mlx5_rxq *rxq = port->rxqs[q];

		if (rxq != NULL)
			dvp_counters_reset(&rxq->mr.misses, &rxq->mr_misses_base, 1);
	}
	return 0;
}

/*
 * The per-queue counters, each rx queue's memory-registration cache
 * misses, then the device's own counters (the sim's sim_*), from their
 * baseline as every other.
 */
static int mlx5_xstats(struct dvp_port *port, struct dvp_xstats_out *o)
{
	const struct mlx5_priv *priv = mlx5_priv(port);
	const char *dev_names[MLX5_DEV_COUNTERS_MAX];
	uint64_t dev[MLX5_DEV_COUNTERS_MAX];
	char name[DVP_XSTATS_NAMESIZE];
	unsigned int i, n;
	uint16_t q;

	dvp_xstats_out_queues(o, port, &rxq_ctrs, &txq_ctrs);
	for (q = 0; q < port->nb_rx_queues; q++) {
		const struct mlx5_rxq *rxq = port->rxqs[q];
		uint64_t v = 0;

		if (rxq != NULL)
			dvp_counters_read(&rxq->mr.misses, &rxq->mr_misses_base, &v, 1);
		snprintf(name, sizeof(name), "rx_q%u_mr_misses", q);
		dvp_xstats_out_put(o, name, v);
	}
	dvp_xstats_out_put(o, "rx_length_errors",
			   port_length_errors(priv) -
				   __atomic_load_n(&priv->len_err_base, __ATOMIC_RELAXED));
	n = dev_counters(priv, dev_names, dev);
	for (i = 0; i < n; i++) {
		uint64_t base = __atomic_load_n(&priv->dev_ctr_base[i], __ATOMIC_RELAXED);

		dvp_xstats_out_put(o, dev_names[i], dev[i] >= base ? dev[i] - base : 0);
	}
	return 0;
}

static unsigned int mlx5_mbufs_held(struct dvp_port *port)
{
	unsigned int n = 0;
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++) {
		const struct mlx5_rxq *rxq = port->rxqs[q];

		if (rxq != NULL)
			n += rxq->rq_pi - rxq->rq_ci;
	}
	for (q = 0; q < port->nb_tx_queues; q++) {
		const struct mlx5_txq *txq = port->txqs[q];

		if (txq != NULL)
			n += txq->elts_head - txq->elts_tail;
	}
	return n;
}

const struct dvp_port_ops mlx5_port_ops = {
	.info_get = mlx5_info_get,
	.configure = mlx5_configure,
	.rxq_setup = mlx5_rxq_setup,
	.rxq_release = mlx5_rxq_release,
	.txq_setup = mlx5_txq_setup,
	.txq_release = mlx5_txq_release,
	.start = mlx5_start,
	.stop = mlx5_stop,
	.close = mlx5_close,
	.queue_restart = mlx5_queue_restart,
	.link_update = mlx5_link_update_op,
	.promiscuous_enable = mlx5_promiscuous_enable,
	.promiscuous_disable = mlx5_promiscuous_disable,
	.mac_addr_set = mlx5_mac_addr_set,
	.rss_hash_update = mlx5_rss_hash_update,
	.rss_hash_conf_get = mlx5_rss_hash_conf_get,
	.reta_update = mlx5_rss_reta_update,
	.reta_query = mlx5_rss_reta_query,
	.stats_get = mlx5_stats_get,
	.stats_reset = mlx5_stats_reset,
	.xstats = mlx5_xstats,
	.xstats_reset = mlx5_stats_reset,
	.mtu_set = mlx5_mtu_set,
	.mempool_sendable = mlx5_mempool_sendable,
	.get_monitor_addr = mlx5_rxq_monitor_addr,
	.flow_validate = mlx5_flow_validate,
	.flow_create = mlx5_flow_create,
	.flow_destroy = mlx5_flow_destroy,
	.flow_query = mlx5_flow_query,
	.flow_isolate = mlx5_flow_isolate,
	.rxq_vlan_strip_set = mlx5_rxq_vlan_strip_set,
	.vlan_filter_set = mlx5_vlan_filter_set,
	.vlan_filter_offload_set = mlx5_vlan_filter_offload_set,
	.read_clock = mlx5_read_clock,
	.mbufs_held = mlx5_mbufs_held,
};
