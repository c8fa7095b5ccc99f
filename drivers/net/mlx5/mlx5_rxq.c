/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Receive queues of the mlx5 PMD: per queue a CQ (on its own completion
 * channel when rx interrupts are configured) and a raw packet receive WQ
 * of one data segment per WQE (2^sges_log with rx scatter, when a frame of
 * the port's MTU needs several mbufs), both reached through mlx5dv_init_obj.
 *
 * Life: setup creates the objects and the mbuf ring; start fills the ring
 * and moves the WQ to ready; stop moves it back to reset and frees every
 * mbuf; release destroys the objects (after lib/rxwait has acked every
 * completion event). Recovery after an error CQE resets the WQ and posts
 * the same mbufs again; a restart (a CQ overrun, an async queue error)
 * builds CQ and WQ anew, and with them the port's steering. Stop,
 * recovery and restart count the frames received and not taken that they
 * drop (cq_drain()).
 */

#include <errno.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_fd.h>
#include <dvp_malloc.h>

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_mprq.h"
#include "mlx5_rx_vec.h"

static void cqe_tbl_build(struct mlx5_rxq *rxq, bool csum, bool rss)
{
	for (unsigned int idx = 0; idx < 512; idx++) {
		/* ok: bit 0 L3_OK, bit 1 L4_OK (the index holds them in bits 1 and 2). */
		unsigned int hdr = (idx >> 1) & 0xfc, ok = (idx >> 1) & 3;
		unsigned int l3 = (hdr >> MLX5_CQE_L3_HDR_TYPE_SHIFT) & MLX5_CQE_L3_HDR_TYPE_MASK;
		unsigned int l4 = (hdr >> MLX5_CQE_L4_HDR_TYPE_SHIFT) & MLX5_CQE_L4_HDR_TYPE_MASK;
		bool frag = hdr & MLX5_CQE_IP_FRAG, tcp, udp;
		uint32_t ptype = DVP_PTYPE_L2_ETHER;
		uint64_t flags = rss ? DVP_MBUF_F_RX_RSS_HASH : 0;

		tcp = l4 == MLX5_CQE_L4_HDR_TYPE_TCP || l4 == MLX5_CQE_L4_HDR_TYPE_TCP_EMP_ACK ||
		      l4 == MLX5_CQE_L4_HDR_TYPE_TCP_ACK;
		udp = l4 == MLX5_CQE_L4_HDR_TYPE_UDP;
		if (l3 == MLX5_CQE_L3_HDR_TYPE_IPV4)
			ptype |= DVP_PTYPE_L3_IPV4_EXT_UNKNOWN;
		else if (l3 == MLX5_CQE_L3_HDR_TYPE_IPV6)
			ptype |= DVP_PTYPE_L3_IPV6_EXT_UNKNOWN;
		if (l3 != MLX5_CQE_L3_HDR_TYPE_NONE)
			ptype |= frag ? DVP_PTYPE_L4_FRAG :
				 tcp  ? DVP_PTYPE_L4_TCP :
				 udp  ? DVP_PTYPE_L4_UDP :
					DVP_PTYPE_L4_NONFRAG;
		/*
		 * A set L3_OK / L4_OK is GOOD; a clear one is UNKNOWN, not BAD:
		 * the device leaves it clear for what it did not check as well as
		 * for what failed, and DPDK (rxq_cq_to_ol_flags) and mlx5e
		 * (CHECKSUM_NONE) read it so. Software checks those frames.
		 */
		if (csum && l3 != MLX5_CQE_L3_HDR_TYPE_NONE && (ok & 1))
			flags |= DVP_MBUF_F_RX_IP_CKSUM_GOOD;
		if (csum && l3 != MLX5_CQE_L3_HDR_TYPE_NONE && !frag && (tcp || udp) && (ok & 2))
			flags |= DVP_MBUF_F_RX_L4_CKSUM_GOOD;
		rxq->cqe_flags[idx] = flags;
		rxq->cqe_ptype[idx] = ptype;
	}
}

static uint64_t rearm_template(uint16_t data_off, uint16_t port_id)
{
	struct dvp_mbuf t;

	memset(&t, 0, sizeof(t));
	t.data_off = data_off;
	t.refcnt = 1;
	t.nb_segs = 1;
	t.port = port_id;
	return t.rearm_data;
}

void mlx5_rxq_fill_wqe(struct mlx5_rxq *rxq, uint32_t counter, struct dvp_mbuf *m)
{
	struct mlx5_wqe_data_seg *w = mlx5_rx_wqe(rxq, counter);

	rxq->elts[counter & rxq->wqe_mask] = m;
	w->byte_count = htobe32(rxq->buf_len);
	w->lkey = rxq->lkey_be != 0 ? rxq->lkey_be : mlx5_mr_lkey(&rxq->mr, m);
	w->addr = htobe64((uintptr_t)m->buf_addr + rxq->data_off);
}

/*
 * Consume (and drop) every CQE software owns: flushes after an error,
 * leftovers at stop. A frame received and not taken by rx_burst is lost
 * here: counted in ierrors and dropped_on_reset (a compressed session's
 * packets not yet taken included). @return the CQEs consumed.
 */
static uint32_t cq_drain(struct mlx5_rxq *rxq)
{
	uint32_t n = 0, frames = 0;

	while (mlx5_rxq_has_cqe(rxq)) {
		const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, rxq->cq_ci);

		uint8_t op_own = mlx5_cqe_op_own_load(cqe);
		uint32_t slots = 1;

		dvp_dma_from_device_barrier();
		if (mlx5_cqe_format(op_own) == MLX5_CQE_FORMAT_COMPRESSED)
			slots = mlx5_rx_zip_drop(rxq, cqe, &frames);
		else
			frames += mlx5_cqe_is_rx(op_own) &&
				  !(rxq->mprq != NULL && mlx5_mprq_cqe_filler(cqe));
		rxq->cq_ci += slots;
		n += slots;
	}
	if (n > 0)
		mlx5_cq_set_ci(rxq->cq_db, rxq->cq_ci);
	dvp_counter_add(&rxq->st.dropped_on_reset, frames);
	dvp_counter_add(&rxq->st.errors, frames);
	return n;
}

static int wq_modify(struct mlx5_rxq *rxq, enum ibv_wq_state state)
{
	struct ibv_wq_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.attr_mask = IBV_WQ_ATTR_STATE;
	a.wq_state = state;
	ret = rxq->priv->dev->glue->modify_wq(rxq->wq, &a);
	if (ret != 0) {
		MLX5_PLOG(ERR, rxq->port, "rx queue %u: modify_wq to %s: %s", rxq->owner.queue_id,
			  state == IBV_WQS_RDY	 ? "RDY" :
			  state == IBV_WQS_RESET ? "RESET" :
						   "ERR",
			  dvp_strerror(ret));
		return dvp_err(ret);
	}
	return 0;
}

/* Create the CQ and WQ (RESET) and read their mlx5 layouts. */
static int objs_create(struct mlx5_rxq *rxq)
{
	const struct mlx5_glue *g = rxq->priv->dev->glue;
	struct ibv_context *ctx = rxq->priv->dev->ctx;
	struct ibv_wq_init_attr wa;
	struct mlx5dv_obj obj;
	int ret;

	/* The rings of this queue's objects on its node (mlx5_probe.c's allocator). */
	rxq->priv->dev->alloc_socket = rxq->socket;
	errno = 0;
	if (rxq->priv->dev->cqe_comp != 0 && rxq->mprq == NULL && rxq->ofl != 0)
		/*
		 * A mini-CQE has no timestamp, and CQEs compress only with the
		 * title's vlan_info: as DPDK's mlx5 with rx timestamps, such a
		 * queue's CQ does not compress, so that every packet has its CQE.
		 */
		MLX5_PLOG(INFO, rxq->port,
			  "rx queue %u: CQE compression off (VLAN stripping or rx timestamps)",
			  rxq->owner.queue_id);
	if (rxq->priv->dev->cqe_comp != 0 && rxq->mprq == NULL && rxq->ofl == 0) {
		/*
		 * Compressed sessions of the format chosen at probe (mlx5_rx_comp.c);
		 * not on a multi-packet RQ, whose burst takes only full CQEs.
		 */
		struct ibv_cq_init_attr_ex ca = { .cqe = rxq->cqe_req,
						  .cq_context = &rxq->owner,
						  .channel = rxq->channel };
		struct mlx5dv_cq_init_attr da = {
			.comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE,
			.cqe_comp_res_format = rxq->priv->dev->cqe_comp,
		};
		struct ibv_cq_ex *cx = g->dv_create_cq(ctx, &ca, &da);

		rxq->cq = cx != NULL ? ibv_cq_ex_to_cq(cx) : NULL;
		rxq->comp_fmt = rxq->priv->dev->cqe_comp_mini;
	} else {
		rxq->cq = g->create_cq(ctx, (int)rxq->cqe_req, &rxq->owner, rxq->channel, 0);
		rxq->comp_fmt = MLX5_RX_COMP_OFF;
	}
	memset(&rxq->zip, 0, sizeof(rxq->zip));
	if (rxq->cq == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_PLOG(ERR, rxq->port, "rx queue %u: create_cq of %u entries: %s",
			  rxq->owner.queue_id, rxq->cqe_req, dvp_strerror(ret));
		return dvp_err(ret);
	}
	memset(&wa, 0, sizeof(wa));
	wa.wq_context = &rxq->owner;
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = rxq->wqe_n >> rxq->sges_log;
	wa.max_sge = 1u << rxq->sges_log;
	wa.pd = rxq->priv->dev->pd;
	wa.cq = rxq->cq;
	if (rxq->ofl & MLX5_RXQ_OFL_VLAN) {
		wa.comp_mask |= IBV_WQ_INIT_ATTR_FLAGS;
		wa.create_flags = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	}
	rxq->wq = rxq->mprq != NULL ? mlx5_mprq_wq_create(rxq, &wa) : g->create_wq(ctx, &wa);
	if (rxq->wq == NULL) {
		ret = errno ? errno : ENOMEM;
		MLX5_PLOG(ERR, rxq->port, "rx queue %u: create_wq of %u WQEs: %s",
			  rxq->owner.queue_id, rxq->wqe_n, dvp_strerror(ret));
		goto err_cq;
	}
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = rxq->cq;
	obj.cq.out = &rxq->dv_cq;
	obj.rwq.in = rxq->wq;
	obj.rwq.out = &rxq->dv_wq;
	ret = g->dv_init_obj(&obj, MLX5DV_OBJ_CQ | MLX5DV_OBJ_RWQ);
	if (ret != 0) {
		MLX5_PLOG(ERR, rxq->port, "rx queue %u: mlx5dv_init_obj: %s", rxq->owner.queue_id,
			  dvp_strerror(ret));
		goto err_wq;
	}
	if (rxq->dv_cq.cqe_size != MLX5_CQE_SIZE || rxq->dv_wq.stride != rxq->wqe_stride ||
	    rxq->dv_wq.wqe_cnt != rxq->wqe_n >> rxq->sges_log) {
		MLX5_PLOG(ERR, rxq->port,
			  "rx queue %u: the device gave %u-byte CQEs and %u WQEs of %u bytes; the "
			  "datapath takes 64-byte CQEs and %u WQEs of %u bytes",
			  rxq->owner.queue_id, rxq->dv_cq.cqe_size, rxq->dv_wq.wqe_cnt,
			  rxq->dv_wq.stride, rxq->wqe_n >> rxq->sges_log, rxq->wqe_stride);
		ret = ENOTSUP;
		goto err_wq;
	}
	rxq->cqes = rxq->dv_cq.buf;
	rxq->cq_db = rxq->dv_cq.dbrec;
	rxq->cqe_cnt = rxq->dv_cq.cqe_cnt;
	rxq->rq_db = rxq->dv_wq.dbrec;
	rxq->wqes = rxq->dv_wq.buf;
	/* The record holds the first consumer index: 0 on hardware. */
	rxq->cq_ci = be32toh(rxq->cq_db[MLX5_CQ_SET_CI]) & MLX5_CQ_INDEX_MASK;
	rxq->arm_sn = 0;
	if (rxq->mprq != NULL) {
		mlx5_mprq_wqes_init(rxq);
		return 0;
	}
	for (uint32_t i = 0; i < rxq->wqe_n; i++) {
		struct mlx5_wqe_data_seg *w = mlx5_rx_wqe(rxq, i);

		w->byte_count = htobe32(rxq->buf_len);
		w->lkey = rxq->lkey_be != 0 ? rxq->lkey_be : htobe32(MLX5_INVALID_LKEY);
	}
	return 0;
err_wq:
	g->destroy_wq(rxq->wq);
	rxq->wq = NULL;
err_cq:
	g->destroy_cq(rxq->cq);
	rxq->cq = NULL;
	return dvp_err(ret);
}

static void objs_destroy(struct mlx5_rxq *rxq)
{
	const struct mlx5_glue *g = rxq->priv->dev->glue;
	uint16_t q = rxq->owner.queue_id;

	if (rxq->wq != NULL) {
		mlx5_queue_destroyed(rxq->port, false, q, "destroy_wq", g->destroy_wq(rxq->wq));
		rxq->wq = NULL;
	}
	if (rxq->cq != NULL) {
		/* Every completion event got must be acked first, or destroy waits forever. */
		if (dvp_rxwait_queue_active(&rxq->iq)) {
			dvp_rxwait_queue_consume(&rxq->iq);
			dvp_rxwait_queue_ack_flush(&rxq->iq);
		}
		mlx5_queue_destroyed(rxq->port, false, q, "destroy_cq", g->destroy_cq(rxq->cq));
		rxq->cq = NULL;
	}
}

/*
 * Post the mbufs the queue holds ([rq_ci, rq_pi)) again from counter
 * @p base (the WQ's record after a move to ready), then fill the rest.
 */
static void repost(struct mlx5_rxq *rxq, uint32_t base)
{
	uint32_t k = rxq->rq_pi - rxq->rq_ci;

	if (rxq->mprq != NULL) {
		mlx5_mprq_post_all(rxq, base);
		return;
	}
	for (uint32_t t = 0; t < k; t++)
		rxq->tmp[t] = rxq->elts[(rxq->rq_ci + t) & rxq->wqe_mask];
	rxq->rq_ci = base;
	for (uint32_t t = 0; t < k; t++)
		mlx5_rxq_fill_wqe(rxq, base + t, rxq->tmp[t]);
	rxq->rq_pi = base + k;
	mlx5_rq_db(rxq->rq_db, rxq->rq_pi >> rxq->sges_log);
	mlx5_rx_replenish(rxq);
}

/* The WQ's record after a move to ready, as the ring's segment position. */
static uint32_t wq_base(const struct mlx5_rxq *rxq)
{
	return (be32toh(__atomic_load_n(&rxq->rq_db[MLX5_RCV_DBR], __ATOMIC_ACQUIRE)) &
		MLX5_WQ_INDEX_MASK)
	       << rxq->sges_log;
}

/*
 * After an error CQE the WQ is in error: reset it, drop what the device
 * flushed, make it ready and post the same mbufs again.
 */
int mlx5_rxq_recover(struct mlx5_rxq *rxq)
{
	int ret;

	ret = wq_modify(rxq, IBV_WQS_RESET);
	if (ret == 0) {
		cq_drain(rxq);
		ret = wq_modify(rxq, IBV_WQS_RDY);
	}
	if (ret < 0)
		return ret;
	repost(rxq, wq_base(rxq));
	dvp_counter_add(&rxq->st.restarts, 1);
	return 0;
}

/*
 * Build the CQ and WQ anew (the CQ overran or an async event broke the
 * queue), with the port's steering around them, keeping every mbuf.
 */
int mlx5_rxq_restart(struct mlx5_rxq *rxq)
{
	struct mlx5_priv *priv = rxq->priv;
	bool steering, armed;
	int ret;

	pthread_mutex_lock(&priv->steer_lock);
	steering = priv->steering;
	if (steering)
		mlx5_steering_destroy(priv);
	/* lib/rxwait's view: armed and its event not read; the new CQ needs the arm again. */
	armed = dvp_rxwait_queue_active(&rxq->iq) && rxq->iq.armed;
	/* The frames whose CQEs came before the CQ broke go with it: counted. */
	if (rxq->cq != NULL)
		cq_drain(rxq);
	objs_destroy(rxq);
	ret = objs_create(rxq);
	if (ret == 0 && rxq->started) {
		ret = wq_modify(rxq, IBV_WQS_RDY);
		if (ret == 0)
			repost(rxq, wq_base(rxq));
	}
	if (ret == 0 && steering)
		ret = mlx5_steering_create(priv);
	pthread_mutex_unlock(&priv->steer_lock);
	if (ret == 0 && armed)
		mlx5_rxq_intr_ops.arm(rxq, rxq->iq.solicited);
	dvp_counter_add(&rxq->st.restarts, 1);
	return ret;
}

/* The CQE fields the queue's offloads copy into the mbufs (mlx5_rx_ofl_run()). */
static int rxq_ofl_init(struct mlx5_rxq *rxq)
{
	rxq->ofl = 0;
	if (rxq->offloads & DVP_RX_OFFLOAD_VLAN_STRIP)
		rxq->ofl |= MLX5_RXQ_OFL_VLAN;
	if (rxq->offloads & DVP_RX_OFFLOAD_TIMESTAMP) {
		if (dvp_mbuf_rx_timestamp_slot(&rxq->ts_off, &rxq->ts_flag) < 0 ||
		    rxq->ts_off < 0 || (size_t)rxq->ts_off + 8 > sizeof(struct dvp_mbuf)) {
			MLX5_PLOG(ERR, rxq->port,
				  "rx queue %u: rx timestamps: the host gave no mbuf field for "
				  "them",
				  rxq->owner.queue_id);
			return dvp_err(ENOTSUP);
		}
		rxq->ofl |= MLX5_RXQ_OFL_TS;
	}
	return 0;
}

int mlx5_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		   const struct dvp_rxq_conf *conf, struct dvp_mempool *mp)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	uint32_t room = dvp_pktmbuf_data_room_size(mp), need = port->mtu + 18u, n;
	uint16_t data_off = (uint16_t)DVP_MIN((uint32_t)DVP_PKTMBUF_HEADROOM, room);
	uint64_t offloads = port->conf.rxmode.offloads | (conf != NULL ? conf->offloads : 0);
	uint32_t segs = 1, sges_log = 0;
	struct mlx5_rxq *rxq;
	int ret;

	if (room - data_off < need) {
		if (!(offloads & DVP_RX_OFFLOAD_SCATTER)) {
			MLX5_PLOG(ERR, port,
				  "rx queue %u: pool %s has %u-byte buffers (%u after the "
				  "headroom), too small for frames of MTU %u (%u bytes): use a "
				  "data room of at least %u, or rx scatter",
				  q, mp->name, room, room - data_off, port->mtu, need,
				  need + data_off);
			return dvp_err(EINVAL);
		}
		/* Rx scatter: as many buffers per WQE as a frame needs, a power of two. */
		segs = (need + (room - data_off) - 1) / (room - data_off);
		while ((1u << sges_log) < segs)
			sges_log++;
		if ((1u << sges_log) > MLX5_RX_SGE_MAX) {
			MLX5_PLOG(
				ERR, port,
				"rx queue %u: frames of MTU %u (%u bytes) take %u buffers of %u "
				"bytes of pool %s; a WQE holds at most %u: use a larger data room",
				q, port->mtu, need, segs, room - data_off, mp->name,
				MLX5_RX_SGE_MAX);
			return dvp_err(EINVAL);
		}
	}
	if (socket_id == DVP_SOCKET_ANY)
		socket_id = port->numa_node;
	/* The ring counts buffers; each WQE takes 2^sges_log of them. */
	n = dvp_align32pow2(DVP_MAX((uint32_t)nb_desc, 1u << sges_log));
	if (n != nb_desc)
		MLX5_PLOG(NOTICE, port, "rx queue %u: %u descriptors rounded up to %u", q, nb_desc,
			  n);
	if (sges_log != 0)
		MLX5_PLOG(INFO, port,
			  "rx queue %u: rx scatter, %u buffers of %u bytes a WQE for frames of "
			  "MTU %u",
			  q, 1u << sges_log, room - data_off, port->mtu);
	ret = mlx5_mr_register_pool(mp);
	if (ret < 0)
		return ret;
	rxq = dvp_zmalloc_socket("mlx5_rxq", sizeof(*rxq), DVP_CACHE_LINE_SIZE, socket_id);
	if (rxq == NULL)
		return dvp_err(ENOMEM);
	rxq->owner = (struct mlx5_owner){ port->port_id, q, false };
	rxq->port = port;
	rxq->priv = priv;
	rxq->mp = mp;
	rxq->socket = socket_id;
	rxq->wqe_n = n;
	rxq->wqe_mask = n - 1;
	rxq->sges_log = (uint8_t)sges_log;
	/*
	 * An eighth of the ring (16..128): the fixed cost of a bulk get and a
	 * doorbell is shared by several bursts, and the device keeps at least
	 * seven eighths of its buffers.
	 */
	rxq->replenish_thresh = DVP_MIN(DVP_MAX(n / 8, MLX5_RX_REPLENISH_THRESH), 128u);
	rxq->cqe_req = n;
	rxq->wqe_stride = 16u << sges_log;
	rxq->data_off = data_off;
	rxq->buf_len = room - data_off;
	rxq->offloads = offloads;
	ret = rxq_ofl_init(rxq);
	if (ret < 0) {
		dvp_free(rxq);
		return ret;
	}
	rxq->mbuf_rearm = rearm_template(data_off, port->port_id);
	mlx5_mr_cache_init(&rxq->mr, &priv->dev->mr);
	/* With several queues whatever rss_hf is: it may change while the port runs. */
	rxq->hash = (rxq->offloads & DVP_RX_OFFLOAD_RSS_HASH) || port->nb_rx_queues > 1;
	cqe_tbl_build(rxq, rxq->offloads & DVP_RX_OFFLOAD_CHECKSUM, rxq->hash);
	mlx5_rxq_vec_init(rxq);
	rxq->lkey_be = mlx5_mr_pool_lkey(&priv->dev->mr, mp);
	rxq->elts = dvp_calloc_socket("mlx5_rxq", n, sizeof(*rxq->elts), 0, socket_id);
	rxq->tmp = dvp_calloc_socket("mlx5_rxq", n, sizeof(*rxq->tmp), 0, socket_id);
	if (rxq->elts == NULL || rxq->tmp == NULL) {
		ret = dvp_err(ENOMEM);
		goto err_mem;
	}
	ret = mlx5_mprq_setup(rxq, n);
	if (ret < 0)
		goto err_mem;
	if (port->conf.intr_conf.rxq) {
		rxq->channel = priv->dev->glue->create_comp_channel(priv->dev->ctx);
		if (rxq->channel == NULL || dvp_fd_set_nonblock(rxq->channel->fd) < 0) {
			ret = -(errno ? errno : ENOMEM);
			MLX5_PLOG(ERR, port, "rx queue %u: completion channel: %s", q,
				  dvp_strerror(-ret));
			goto err_chan;
		}
	}
	ret = objs_create(rxq);
	if (ret < 0)
		goto err_chan;
	if (port->conf.intr_conf.rxq) {
		struct dvp_rxwait_queue_conf ic = dvp_port_rxq_intr_conf(port, q, rxq->channel->fd);

		ret = dvp_port_rxq_intr_init(port, q, &rxq->iq, &mlx5_rxq_intr_ops, rxq, &ic);
		if (ret < 0)
			goto err_objs;
	}
	port->rxqs[q] = rxq;
	dvp_port_queue_fault_attach(port, q, false, &rxq->fault);
	return 0;
err_objs:
	objs_destroy(rxq);
err_chan:
	if (rxq->channel != NULL)
		priv->dev->glue->destroy_comp_channel(rxq->channel);
err_mem:
	mlx5_mprq_free(rxq);
	dvp_free(rxq->tmp);
	dvp_free(rxq->elts);
	dvp_free(rxq);
	return ret;
}

uint32_t mlx5_rxq_frame_max(const struct mlx5_rxq *rxq)
{
	uint32_t mbufs = rxq->buf_len << rxq->sges_log;

	if (rxq->mprq == NULL)
		return mbufs;
	/* A stride run holds it, and its copy fits the mbufs (chained with rx scatter). */
	if (rxq->offloads & DVP_RX_OFFLOAD_SCATTER)
		mbufs = rxq->buf_len * (MLX5_RX_SGE_MAX + 1);
	return DVP_MIN(mbufs, (1u << rxq->mprq->log_wqe_sz) - DVP_PKTMBUF_HEADROOM);
}

static void free_held(struct mlx5_rxq *rxq)
{
	for (uint32_t c = rxq->rq_ci; c != rxq->rq_pi; c++)
		dvp_pktmbuf_free_seg(rxq->elts[c & rxq->wqe_mask]);
	rxq->rq_ci = rxq->rq_pi;
}

/*
 * The fast replenish computes a buffer's address from its mbuf's: valid
 * when the pool is one MR and its mbufs are laid out as dvp_pktmbuf_init()
 * does (checked on the ring's worth of mbufs taken at start).
 */
static void buf_delta_check(struct mlx5_rxq *rxq)
{
	uintptr_t delta = sizeof(struct dvp_mbuf) + dvp_pktmbuf_priv_size(rxq->mp) + rxq->data_off;

	rxq->buf_delta = 0;
	if (rxq->lkey_be == 0)
		return;
	for (uint32_t t = 0; t < rxq->wqe_n; t++)
		if ((uintptr_t)rxq->tmp[t]->buf_addr + rxq->data_off !=
		    (uintptr_t)rxq->tmp[t] + delta)
			return;
	rxq->buf_delta = delta;
}

int mlx5_rxq_start(struct dvp_port *port, uint16_t q)
{
	struct mlx5_rxq *rxq = port->rxqs[q];
	uint32_t base;
	int ret;

	if (dvp_queue_fault_take(&rxq->fault) != DVP_PORT_CAUSE_NONE) {
		ret = mlx5_rxq_restart(rxq);
		if (ret < 0)
			return ret;
	}
	ret = wq_modify(rxq, IBV_WQS_RDY);
	if (ret < 0)
		return ret;
	base = wq_base(rxq);
	rxq->rq_ci = rxq->rq_pi = base;
	if (rxq->mprq != NULL) {
		mlx5_mprq_post_all(rxq, base);
		rxq->started = true;
		return 0;
	}
	if (dvp_mempool_get_bulk(rxq->mp, (void **)rxq->tmp, rxq->wqe_n) < 0) {
		MLX5_PLOG(ERR, port, "rx queue %u: pool %s has %u free mbufs; the queue needs %u",
			  q, rxq->mp->name, dvp_mempool_avail_count(rxq->mp), rxq->wqe_n);
		wq_modify(rxq, IBV_WQS_RESET);
		return dvp_err(ENOMEM);
	}
	buf_delta_check(rxq);
	for (uint32_t t = 0; t < rxq->wqe_n; t++)
		mlx5_rxq_fill_wqe(rxq, base + t, rxq->tmp[t]);
	rxq->rq_pi = base + rxq->wqe_n;
	mlx5_rq_db(rxq->rq_db, rxq->rq_pi >> rxq->sges_log);
	rxq->started = true;
	return 0;
}

void mlx5_rxq_stop(struct dvp_port *port, uint16_t q)
{
	struct mlx5_rxq *rxq = port->rxqs[q];

	if (rxq == NULL)
		return;
	/* After a device fatal error this fails; the mbufs come back all the same. */
	if (rxq->wq != NULL)
		wq_modify(rxq, IBV_WQS_RESET);
	if (rxq->cq != NULL)
		cq_drain(rxq);
	free_held(rxq);
	rxq->started = false;
}

void mlx5_rxq_release(struct dvp_port *port, uint16_t q)
{
	struct mlx5_rxq *rxq = port->rxqs[q];

	if (rxq == NULL)
		return;
	free_held(rxq);
	dvp_rxwait_queue_fini(&rxq->iq);
	port->rxq_intr[q] = NULL;
	objs_destroy(rxq);
	mlx5_mprq_free(rxq);
	if (rxq->channel != NULL)
		mlx5_queue_destroyed(port, false, q, "destroy_comp_channel",
				     rxq->priv->dev->glue->destroy_comp_channel(rxq->channel));
	dvp_free(rxq->tmp);
	dvp_free(rxq->elts);
	dvp_free(rxq);
	port->rxqs[q] = NULL;
}

/*
 * A stopped queue whose CQ compresses takes VLAN stripping with a CQ and
 * WQ built anew (objs_create() leaves compression off for it), the port's
 * steering around them as mlx5_rxq_restart() does; no mbuf is posted.
 */
static int strip_rebuild(struct mlx5_rxq *rxq)
{
	struct mlx5_priv *priv = rxq->priv;
	uint8_t ofl = rxq->ofl;
	bool steering;
	int ret;

	pthread_mutex_lock(&priv->steer_lock);
	steering = priv->steering;
	if (steering)
		mlx5_steering_destroy(priv);
	objs_destroy(rxq);
	rxq->ofl = ofl | MLX5_RXQ_OFL_VLAN;
	rxq->offloads |= DVP_RX_OFFLOAD_VLAN_STRIP;
	ret = objs_create(rxq);
	if (ret == 0 && steering)
		ret = mlx5_steering_create(priv);
	pthread_mutex_unlock(&priv->steer_lock);
	return ret;
}

int mlx5_rxq_vlan_strip_set(struct dvp_port *port, uint16_t q, bool on)
{
	struct mlx5_rxq *rxq = port->rxqs[q];
	struct ibv_wq_attr a;
	int ret;

	if (!(mlx5_priv(port)->dev->attr.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING)) {
		MLX5_PLOG(ERR, port,
			  "rx queue %u: vlan strip: the device cannot strip VLAN tags "
			  "(no CVLAN_STRIPPING in raw_packet_caps)",
			  q);
		return dvp_err(ENOTSUP);
	}
	if (on && rxq->comp_fmt != MLX5_RX_COMP_OFF && rxq->started) {
		MLX5_PLOG(ERR, port,
			  "rx queue %u: vlan strip: its CQ compresses, and mini-CQEs carry no "
			  "VLAN tag: stop the port first, set DVP_RX_OFFLOAD_VLAN_STRIP before "
			  "the queue's setup, or give rxq_cqe_comp_en=0",
			  q);
		return dvp_err(ENOTSUP);
	}
	if (on && rxq->comp_fmt != MLX5_RX_COMP_OFF)
		return strip_rebuild(rxq);
	memset(&a, 0, sizeof(a));
	a.attr_mask = IBV_WQ_ATTR_FLAGS;
	a.flags = on ? IBV_WQ_FLAGS_CVLAN_STRIPPING : 0;
	a.flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	ret = rxq->priv->dev->glue->modify_wq(rxq->wq, &a);
	if (ret != 0) {
		MLX5_PLOG(ERR, port, "rx queue %u: vlan strip %s: modify_wq: %s", q,
			  on ? "on" : "off", dvp_strerror(ret));
		return dvp_err(ret);
	}
	/*
	 * The burst reads ofl once a run: a run either side of this store
	 * sees a consistent queue (frames the device stripped before the
	 * change and taken after it keep their tag in vlan_tci, unflagged).
	 */
	if (on) {
		rxq->offloads |= DVP_RX_OFFLOAD_VLAN_STRIP;
		__atomic_store_n(&rxq->ofl, (uint8_t)(rxq->ofl | MLX5_RXQ_OFL_VLAN),
				 __ATOMIC_RELAXED);
	} else {
		rxq->offloads &= ~DVP_RX_OFFLOAD_VLAN_STRIP;
		__atomic_store_n(&rxq->ofl, (uint8_t)(rxq->ofl & ~MLX5_RXQ_OFL_VLAN),
				 __ATOMIC_RELAXED);
	}
	return 0;
}
