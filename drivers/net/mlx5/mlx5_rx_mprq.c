/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Multi-packet (striding) receive queues (mlx5_rx_mprq.h): the decision at
 * queue setup with DPDK's rules and warnings (mlx5_mprq_prepare), the
 * striding WQ and its buffers, and the rx burst.
 */

#include <errno.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_malloc.h>

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_mprq.h"

/* log2 of the power of two at or above @p v (v >= 1). */
static uint32_t log2above(uint32_t v)
{
	return dvp_log2_u32(dvp_align32pow2(v));
}

static uint32_t clamp(uint32_t v, uint32_t lo, uint32_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The device's striding RQ range, or false (with the reason logged) when it has none. */
static bool device_caps(struct mlx5_rxq *rxq, struct mlx5dv_striding_rq_caps *caps)
{
	struct mlx5_dev *dev = rxq->priv->dev;
	struct mlx5dv_context dv;
	int ret;

	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_STRIDING_RQ;
	ret = dev->glue->dv_query_device(dev->ctx, &dv);
	if (ret != 0 || !(dv.comp_mask & MLX5DV_CONTEXT_MASK_STRIDING_RQ) ||
	    !(dv.striding_rq_caps.supported_qpts & (1u << IBV_QPT_RAW_PACKET))) {
		MLX5_PLOG(WARNING, rxq->port,
			  "rx queue %u: mprq_en=1 but the device has no striding RQ for raw packet "
			  "queues%s%s: one mbuf per WQE",
			  rxq->owner.queue_id, ret != 0 ? ": " : "",
			  ret != 0 ? dvp_strerror(ret) : "");
		return false;
	}
	*caps = dv.striding_rq_caps;
	return true;
}

/* Devarg @p key's value @p v where the device takes it (@p min..@p max), else @p def, warned. */
static uint32_t device_takes(const struct mlx5_rxq *rxq, const char *key, uint32_t v, uint32_t min,
			     uint32_t max, uint32_t def)
{
	if (v >= min && v <= max)
		return v;
	MLX5_PLOG(WARNING, rxq->port, "rx queue %u: %s=%u is outside the device's %u..%u: using %u",
		  rxq->owner.queue_id, key, v, min, max, def);
	return def;
}

/*
 * The stride count and size, as DPDK picks them: a devarg outside the
 * device's range falls back to DPDK's default within it, with a warning;
 * an unset stride size fits the largest frame and its headroom; a stride
 * holds at least the headroom, and a WQE at least 2^14 bytes.
 * @return false when the queue cannot be a multi-packet RQ.
 */
static bool strides_pick(struct mlx5_rxq *rxq, const struct mlx5dv_striding_rq_caps *c,
			 uint32_t *log_num, uint32_t *log_sz)
{
	const struct mlx5_cfg *cfg = &rxq->priv->dev->cfg;
	uint32_t def_num =
		clamp(MLX5_MPRQ_DEFAULT_LOG_STRIDE_NUM, c->min_single_wqe_log_num_of_strides,
		      c->max_single_wqe_log_num_of_strides);
	uint32_t def_sz =
		clamp(MLX5_MPRQ_DEFAULT_LOG_STRIDE_SIZE, c->min_single_stride_log_num_of_bytes,
		      c->max_single_stride_log_num_of_bytes);
	uint32_t need = rxq->port->mtu + 18u + DVP_PKTMBUF_HEADROOM;
	uint16_t q = rxq->owner.queue_id;

	*log_num = device_takes(rxq, "mprq_log_stride_num", cfg->mprq_log_stride_num,
				c->min_single_wqe_log_num_of_strides,
				c->max_single_wqe_log_num_of_strides, def_num);
	if (cfg->mprq_log_stride_size != MLX5_MPRQ_LOG_STRIDE_SIZE_UNSET) {
		*log_sz = device_takes(rxq, "mprq_log_stride_size", cfg->mprq_log_stride_size,
				       c->min_single_stride_log_num_of_bytes,
				       c->max_single_stride_log_num_of_bytes, def_sz);
	} else if (log2above(need) <= c->max_single_stride_log_num_of_bytes) {
		*log_sz = DVP_MAX(log2above(need), c->min_single_stride_log_num_of_bytes);
	} else {
		MLX5_PLOG(WARNING, rxq->port,
			  "rx queue %u: mprq_en=1 but frames of MTU %u with the headroom (%u "
			  "bytes) exceed the device's largest stride (2^%u): one mbuf per WQE",
			  q, rxq->port->mtu, need, c->max_single_stride_log_num_of_bytes);
		return false;
	}
	if ((1u << *log_sz) < DVP_PKTMBUF_HEADROOM &&
	    log2above(DVP_PKTMBUF_HEADROOM) <= c->max_single_stride_log_num_of_bytes) {
		MLX5_PLOG(
			WARNING, rxq->port,
			"rx queue %u: %u-byte strides are smaller than the mbuf headroom: using %u",
			q, 1u << *log_sz, 1u << log2above(DVP_PKTMBUF_HEADROOM));
		*log_sz = log2above(DVP_PKTMBUF_HEADROOM);
	}
	if (*log_num + *log_sz < MLX5_MPRQ_LOG_MIN_WQE_SIZE) {
		MLX5_PLOG(WARNING, rxq->port,
			  "rx queue %u: WQEs of 2^%u strides of 2^%u bytes are below 2^%u bytes: "
			  "using 2^%u of 2^%u",
			  q, *log_num, *log_sz, MLX5_MPRQ_LOG_MIN_WQE_SIZE, def_num, def_sz);
		*log_num = def_num;
		*log_sz = def_sz;
	}
	if (need > 1u << (*log_num + *log_sz)) {
		MLX5_PLOG(WARNING, rxq->port,
			  "rx queue %u: mprq_en=1 but a WQE of %u bytes cannot hold a frame of "
			  "MTU %u with the headroom (%u bytes): one mbuf per WQE",
			  q, 1u << (*log_num + *log_sz), rxq->port->mtu, need);
		return false;
	}
	return true;
}

/* The buffers of every WQE, one MR over them. */
static int bufs_alloc(struct mlx5_rxq *rxq, struct mlx5_mprq *mq)
{
	struct mlx5_dev *dev = rxq->priv->dev;

	mq->bufs = dvp_malloc_socket("mlx5_mprq", mq->size, DVP_CACHE_LINE_SIZE, rxq->socket);
	if (mq->bufs == NULL) {
		MLX5_PLOG(ERR, rxq->port,
			  "rx queue %u: no %zu bytes of memory on node %d for its multi-packet "
			  "WQEs (mprq_en=0 needs none)",
			  rxq->owner.queue_id, mq->size, rxq->socket);
		return dvp_err(ENOMEM);
	}
	errno = 0;
	mq->mr = dev->glue->reg_mr(dev->pd, mq->bufs, mq->size, IBV_ACCESS_LOCAL_WRITE);
	if (mq->mr == NULL) {
		int ret = errno ? errno : ENOMEM;

		MLX5_PLOG(ERR, rxq->port, "rx queue %u: reg_mr of its %zu-byte WQE buffers: %s",
			  rxq->owner.queue_id, mq->size, dvp_strerror(ret));
		dvp_free(mq->bufs);
		mq->bufs = NULL;
		return dvp_err(ret);
	}
	return 0;
}

int mlx5_mprq_setup(struct mlx5_rxq *rxq, uint32_t nb_desc)
{
	const struct mlx5_cfg *cfg = &rxq->priv->dev->cfg;
	struct dvp_port *port = rxq->port;
	struct mlx5dv_striding_rq_caps caps;
	uint32_t log_num, log_sz;
	struct mlx5_mprq *mq;
	int ret;

	if (!cfg->mprq_en)
		return 0;
	if (port->nb_rx_queues < cfg->rxqs_min_mprq) {
		MLX5_PLOG(
			NOTICE, port,
			"rx queue %u: mprq_en=1 takes effect with rxqs_min_mprq=%u rx queues; the "
			"port has %u: one mbuf per WQE",
			rxq->owner.queue_id, cfg->rxqs_min_mprq, port->nb_rx_queues);
		return 0;
	}
	if (!device_caps(rxq, &caps) || !strides_pick(rxq, &caps, &log_num, &log_sz))
		return 0;
	if (nb_desc <= 1u << log_num) {
		MLX5_PLOG(WARNING, port,
			  "rx queue %u: mprq_en=1 needs more descriptors than the 2^%u strides of "
			  "a WQE; %u given: one mbuf per WQE",
			  rxq->owner.queue_id, log_num, nb_desc);
		return 0;
	}
	mq = dvp_zmalloc_socket("mlx5_mprq", sizeof(*mq), DVP_CACHE_LINE_SIZE, rxq->socket);
	if (mq == NULL)
		return dvp_err(ENOMEM);
	mq->log_strd_num = log_num;
	mq->log_strd_sz = log_sz;
	mq->log_wqe_sz = log_num + log_sz;
	mq->strd_n = 1u << log_num;
	mq->max_memcpy_len = DVP_MIN(cfg->mprq_max_memcpy_len, rxq->buf_len);
	mq->inline_copy = rxq->buf_len >= MLX5_MPRQ_INLINE_COPY ? MLX5_MPRQ_INLINE_COPY : 0;
	rxq->wqe_n = nb_desc >> log_num;
	rxq->wqe_mask = rxq->wqe_n - 1;
	rxq->wqe_stride = MLX5_MPRQ_WQE_SIZE;
	/* Copies chain mbufs themselves (mprq_chain()): the WQEs are the striding ones. */
	rxq->sges_log = 0;
	/* A CQE per stride at most. */
	rxq->cqe_req = nb_desc;
	mq->size = (size_t)rxq->wqe_n << mq->log_wqe_sz;
	ret = bufs_alloc(rxq, mq);
	if (ret < 0) {
		dvp_free(mq);
		return ret;
	}
	rxq->mprq = mq;
	MLX5_PLOG(INFO, port,
		  "rx queue %u: multi-packet RQ of %u WQEs, each 2^%u strides of %u bytes; every "
		  "packet is copied to an mbuf",
		  rxq->owner.queue_id, rxq->wqe_n, log_num, 1u << log_sz);
	return 0;
}

struct ibv_wq *mlx5_mprq_wq_create(struct mlx5_rxq *rxq, struct ibv_wq_init_attr *wa)
{
	struct mlx5_dev *dev = rxq->priv->dev;
	struct mlx5dv_wq_init_attr dv;

	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ;
	dv.striding_rq_attrs.single_stride_log_num_of_bytes = rxq->mprq->log_strd_sz;
	dv.striding_rq_attrs.single_wqe_log_num_of_strides = rxq->mprq->log_strd_num;
	dv.striding_rq_attrs.two_byte_shift_en = 0;
	return dev->glue->dv_create_wq(dev->ctx, wa, &dv);
}

void mlx5_mprq_wqes_init(struct mlx5_rxq *rxq)
{
	const struct mlx5_mprq *mq = rxq->mprq;

	for (uint32_t i = 0; i < rxq->wqe_n; i++) {
		struct mlx5_mprq_wqe *w =
			(struct mlx5_mprq_wqe *)(void *)(rxq->wqes +
							 (size_t)i * MLX5_MPRQ_WQE_SIZE);

		memset(&w->nseg, 0, sizeof(w->nseg));
		w->dseg.byte_count = htobe32(1u << mq->log_wqe_sz);
		w->dseg.lkey = htobe32(mq->mr->lkey);
		w->dseg.addr = htobe64((uintptr_t)(mq->bufs + ((size_t)i << mq->log_wqe_sz)));
	}
}

void mlx5_mprq_post_all(struct mlx5_rxq *rxq, uint32_t base)
{
	struct mlx5_mprq *mq = rxq->mprq;

	rxq->rq_ci = rxq->rq_pi = base;
	mq->wq_ci = base;
	mq->strd_ci = 0;
	mq->wq_pi = base + rxq->wqe_n;
	mlx5_rq_db(rxq->rq_db, mq->wq_pi);
}

void mlx5_mprq_free(struct mlx5_rxq *rxq)
{
	struct mlx5_mprq *mq = rxq->mprq;
	int ret;

	if (mq == NULL)
		return;
	ret = rxq->priv->dev->glue->dereg_mr(mq->mr);
	if (ret != 0)
		MLX5_PLOG(ERR, rxq->port, "rx queue %u: dereg_mr of its WQE buffers: %s",
			  rxq->owner.queue_id, dvp_strerror(ret));
	dvp_free(mq->bufs);
	dvp_free(mq);
	rxq->mprq = NULL;
}

/*
 * Copy a packet of at most MLX5_MPRQ_INLINE_COPY bytes in 32-byte units:
 * inline, without a call that would make the burst spill and reload its
 * state. The units past @p len stay inside the strides the packet took (a
 * stride is at least 64 bytes) and inside the mbuf (mlx5_mprq_setup()
 * allows this copy only when the mbuf holds MLX5_MPRQ_INLINE_COPY bytes).
 */
static __dvp_always_inline void copy_small(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	__builtin_memcpy(dst, src, 64);
	for (uint32_t o = 64; o < len; o += 32)
		__builtin_memcpy(dst + o, src + o, 32);
}

/*
 * CQEs ready from @p ci on, at most @p n: op_own is a plain receive of the
 * current pass. Walks pointers within a pass of the ring. *@p op_own: the
 * byte that stopped the count.
 */
static __dvp_always_inline uint32_t cqes_ready(struct mlx5_cqe64 *cqes, uint32_t cqe_cnt,
					       uint32_t ci, uint32_t n, uint8_t *op_own)
{
	uint32_t c = 0;

	while (c < n) {
		const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(cqes, cqe_cnt, ci + c);
		const uint8_t own = MLX5_CQE_RESP_SEND << 4 | !!((ci + c) & cqe_cnt);
		uint32_t run = DVP_MIN(n - c, cqe_cnt - ((ci + c) & (cqe_cnt - 1))), k;

		for (k = 0; k < run; k++, cqe++) {
			*op_own = mlx5_cqe_op_own_load(cqe);
			if ((*op_own ^ own) & MLX5_OP_OWN_CHECK_MASK)
				return c + k;
		}
		c += run;
	}
	return c;
}

/*
 * The pool could not give mbufs for all @p c CQEs: as many as it has, and
 * the CQEs they cover (fillers need none). @return how many CQEs to take;
 * *@p got: the mbufs in @p pkts.
 */
static __dvp_cold uint32_t mbufs_short(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts, uint32_t c,
				       uint32_t *got)
{
	uint32_t g = 0, i, need = 0;

	while (g < c && dvp_mempool_get_bulk(rxq->mp, (void **)&pkts[g], 1) == 0)
		g++;
	for (i = 0; i < c; i++) {
		const struct mlx5_cqe64 *cqe =
			mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, rxq->cq_ci + i);

		if (mlx5_mprq_cqe_filler(cqe))
			continue;
		if (need == g)
			break;
		need++;
	}
	/* The CQE that found no mbuf waits for a later burst. */
	if (i < c)
		dvp_counter_add(&rxq->st.nombuf, 1);
	*got = g;
	return i;
}

/*
 * Rx scatter: a packet longer than the mbuf's room, copied into @p m and as
 * many more mbufs as it needs, chained. @return false, with nothing more
 * taken, when the pool cannot give them: the packet is dropped (counted
 * in rx_nombuf) and @p m stays the caller's.
 */
static __dvp_cold __dvp_noinline bool mprq_chain(struct mlx5_rxq *rxq, struct dvp_mbuf *m,
						 const uint8_t *src, uint32_t len)
{
	struct dvp_mbuf *more[MLX5_RX_SGE_MAX], *prev = m;
	const uint32_t room = rxq->buf_len;
	const uint32_t n = DVP_MIN((len + room - 1) / room - 1, MLX5_RX_SGE_MAX);

	if (dvp_mempool_get_bulk(rxq->mp, (void **)more, n) < 0) {
		dvp_counter_add(&rxq->st.nombuf, 1);
		return false;
	}
	memcpy((uint8_t *)m->buf_addr + rxq->data_off, src, room);
	m->data_len = (uint16_t)room;
	m->nb_segs = (uint16_t)(n + 1);
	for (uint32_t j = 0; j < n; j++) {
		uint32_t off = (j + 1) * room, l = DVP_MIN(len - off, room);

		more[j]->rearm_data = rxq->mbuf_rearm;
		more[j]->ol_flags = 0;
		more[j]->data_len = (uint16_t)l;
		memcpy((uint8_t *)more[j]->buf_addr + rxq->data_off, src + off, l);
		prev->next = more[j];
		prev = more[j];
	}
	prev->next = NULL;
	return true;
}

/* Where a burst is in the WQEs, and what it delivered. */
struct mprq_pos {
	const uint8_t *wqe; /* buffer of the WQE at wq_ci */
	uint32_t strd_ci, wq_ci, wqes; /* wqes: WQEs finished in this burst */
	uint32_t k, bytes;
};

/*
 * Take @p cnt CQEs from @p cqe on, a stretch that does not wrap the CQ (so
 * it walks pointers): a filler only skips strides; a packet is copied from
 * its stride into the mbuf pkts[p->k]. The queue's constants are read
 * into locals once, as the copies write through uint8_t.
 */
/*
 * mprq_cqes()'s own offload bit beside the queue's MLX5_RXQ_OFL_*: the flow
 * tag of a MARK or FLAG rule, per packet in the loop, since fillers keep
 * CQEs and mbufs from pairing after it (mlx5_rx_mark() cannot be used).
 */
#define MPRQ_OFL_MARK 0x80u
_Static_assert(!(MPRQ_OFL_MARK & (MLX5_RXQ_OFL_VLAN | MLX5_RXQ_OFL_TS)),
	       "MPRQ_OFL_MARK is a queue offload bit");

static __dvp_always_inline void mprq_cqes(const struct mlx5_rxq *rxq, const struct mlx5_cqe64 *cqe,
					  uint32_t cnt, struct dvp_mbuf **pkts, struct mprq_pos *p,
					  bool hash, uint8_t ofl)
{
	const struct mlx5_mprq *mq = rxq->mprq;
	const uint8_t *const bufs = mq->bufs;
	const uint32_t log_wqe = mq->log_wqe_sz, log_strd = mq->log_strd_sz;
	const uint32_t strd_n = mq->strd_n, wqe_mask = rxq->wqe_mask;
	const uint32_t copy_max = mq->inline_copy, buf_len = rxq->buf_len;
	const uint64_t rearm = rxq->mbuf_rearm;
	const uint16_t data_off = rxq->data_off;
	const uint64_t *const tflags = rxq->cqe_flags;
	const uint32_t *const tptype = rxq->cqe_ptype;

	for (; cnt > 0; cnt--, cqe++) {
		const uint32_t bc = be32toh(cqe->byte_cnt);

		if (dvp_likely(!(bc & MLX5_MPRQ_FILLER_MASK))) {
			uint32_t len = bc & MLX5_MPRQ_LEN_MASK;
			struct dvp_mbuf *m = pkts[p->k++];
			const uint8_t *src;
			uint8_t *dst;

			src = p->wqe + ((size_t)be16toh(cqe->wqe_counter) << log_strd);
			mlx5_rx_mbuf_fill(m, cqe, len, rearm, tflags, tptype, hash);
			if (ofl != 0) {
				mlx5_rx_ofl_one(rxq, ofl, m, cqe);
				if (ofl & MPRQ_OFL_MARK)
					mlx5_rx_mark_one(m, be32toh(cqe->sop_drop_qpn) &
								    MLX5_CQE_FLOW_TAG_MASK);
			}
			dst = (uint8_t *)m->buf_addr + data_off;
			if (dvp_likely(len <= copy_max)) {
				copy_small(dst, src, len);
			} else if (dvp_likely(len <= buf_len)) {
				memcpy(dst, src, len);
			} else if (!mprq_chain((struct mlx5_rxq *)(uintptr_t)rxq, m, src, len)) {
				p->k--; /* its mbuf serves the next packet, or goes back */
				len = 0;
			}
			p->bytes += len;
		}
		p->strd_ci += (bc & MLX5_MPRQ_STRIDE_NUM_MASK) >> MLX5_MPRQ_STRIDE_NUM_SHIFT;
		if (p->strd_ci >= strd_n) {
			p->strd_ci = 0;
			p->wq_ci++;
			p->wqes++;
			p->wqe = bufs + ((size_t)(p->wq_ci & wqe_mask) << log_wqe);
		}
	}
}

/*
 * Receive up to @p n packets. The CQEs ready are counted first (one look
 * at each op_own), mbufs for all of them taken in one bulk get into
 * @p pkts, then each CQE read (mprq_cqes()). A WQE whose strides are all
 * consumed goes back to the device, counted in the doorbell record after
 * the consumer index. When the pool runs short, the CQE that found no mbuf
 * stays for a later burst (rx_nombuf counts the burst that stopped).
 */
static __dvp_always_inline uint16_t mprq_burst(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
					       uint16_t n, bool hash)
{
	struct mlx5_mprq *mq = rxq->mprq;
	struct mlx5_cqe64 *const cqes = rxq->cqes;
	const uint32_t cqe_cnt = rxq->cqe_cnt, ci = rxq->cq_ci;
	struct mprq_pos p = { .k = 0 };
	uint32_t c, run, got;
	uint8_t op_own = 0, ofl;
	bool slow = false;

	if (!mlx5_rx_burst_begin(rxq))
		return 0;
	/* A queue MPRQ did not take (mlx5_mprq_setup): its CQ may compress, its WQEs scatter. */
	if (dvp_unlikely(mq == NULL)) {
		if (rxq->sges_log != 0)
			return hash ? mlx5_rx_burst_sg_hash(rxq, pkts, n) :
				      mlx5_rx_burst_sg(rxq, pkts, n);
		return hash ? mlx5_rx_burst_comp_hash(rxq, pkts, n) :
			      mlx5_rx_burst_comp(rxq, pkts, n);
	}
	c = cqes_ready(cqes, cqe_cnt, ci, n, &op_own);
	/* Stopped at a CQE that is ours but not a plain receive: an error. */
	if (c < n)
		slow = mlx5_cqe_sw_owned(op_own, ci + c, cqe_cnt);
	if (c == 0)
		goto done;
	/* The rest of the CQEs after their ownership (udma_from_device_barrier). */
	dvp_dma_from_device_barrier();
	got = c;
	if (dvp_unlikely(dvp_mempool_get_bulk(rxq->mp, (void **)pkts, c) < 0)) {
		c = mbufs_short(rxq, pkts, c, &got);
		slow = false;
	}
	p.strd_ci = mq->strd_ci;
	p.wq_ci = mq->wq_ci;
	p.wqe = mq->bufs + ((size_t)(p.wq_ci & rxq->wqe_mask) << mq->log_wqe_sz);
	run = DVP_MIN(c, cqe_cnt - (ci & (cqe_cnt - 1)));
	/*
	 * Fillers keep CQEs and mbufs from pairing one to one after the loop:
	 * a queue with MLX5_RXQ_OFL_* takes a copy of the loop that does them,
	 * chosen here once a burst.
	 */
	ofl = mlx5_rx_ofl(rxq) | (mlx5_rx_marking(rxq) ? MPRQ_OFL_MARK : 0);
	if (dvp_unlikely(ofl != 0)) {
		mprq_cqes(rxq, mlx5_cqe_slot(cqes, cqe_cnt, ci), run, pkts, &p, hash, ofl);
		if (run < c)
			mprq_cqes(rxq, cqes, c - run, pkts, &p, hash, ofl);
	} else {
		mprq_cqes(rxq, mlx5_cqe_slot(cqes, cqe_cnt, ci), run, pkts, &p, hash, 0);
		if (dvp_unlikely(run < c))
			mprq_cqes(rxq, cqes, c - run, pkts, &p, hash, 0);
	}
	if (dvp_unlikely(p.k < got))
		dvp_mempool_put_bulk(rxq->mp, (void *const *)&pkts[p.k], got - p.k);
	if (c > 0) {
		rxq->cq_ci = ci + c;
		/* Every field and stride above is read before the device may reuse them. */
		mlx5_cq_set_ci(rxq->cq_db, ci + c);
	}
	mq->strd_ci = p.strd_ci;
	mq->wq_ci = p.wq_ci;
	if (p.wqes > 0) {
		mq->wq_pi += p.wqes;
		mlx5_rq_db(rxq->rq_db, mq->wq_pi);
	}
	if (p.k > 0) {
		dvp_counter_add(&rxq->st.packets, p.k);
		dvp_counter_add(&rxq->st.bytes, p.bytes);
	}
done:
	if (dvp_unlikely(slow))
		mlx5_rx_slow(rxq);
	return (uint16_t)p.k;
}

uint16_t mlx5_rx_burst_mprq(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mprq_burst(rxq, pkts, n, false);
}

/* For ports that hash (mlx5_rx_burst_hash's counterpart). */
uint16_t mlx5_rx_burst_mprq_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return mprq_burst(rxq, pkts, n, true);
}
