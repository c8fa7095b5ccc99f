/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The transmit fast path of the mlx5 PMD through SEND WQEs, inline: the
 * tx queue structure and tx_burst (eMPW, the other way, is in
 * mlx5_tx_empw.h). It writes the adapter's own memory (CQ doorbell
 * records, the SQ buffer, the UAR register) through the helpers of
 * mlx5_db.h, which carry the barriers of the mlx5 protocol. No system
 * call, lock, allocation or log on these paths: errors leave for
 * out-of-line functions in mlx5_tx.c.
 *
 * Counters: each queue is polled by one lcore, the only writer of its
 * counters; it stores them (relaxed) once per burst, and stats readers on
 * other threads load them relaxed: a snapshot is all a counter promises.
 */

#ifndef MLX5_TX_H
#define MLX5_TX_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#if defined(__SSE4_1__)
#include <smmintrin.h>
#endif

#include <dvp_common.h>
#include <dvp_counter.h>
#include <dvp_mbuf.h>

#include "mlx5.h"
#include "mlx5_db.h"
#include "mlx5_mr.h"
#include "mlx5_prm.h"

struct mlx5_txq_stats {
	uint64_t packets, bytes;
	uint64_t errors; /* dropped: error CQEs, bad size, unregistered memory */
	uint64_t nombuf; /* unused: tx takes no mbuf */
	uint64_t cqe_errors; /* error CQEs */
	uint64_t mr_miss; /* packets dropped: buffer in no registered pool */
	uint64_t inlined; /* packets sent whole inside their WQE */
	uint64_t restarts;
	uint64_t dropped_on_reset; /* not sent when a stop or restart gave them up (in oerrors) */
};

/* What a requested completion covers. */
struct mlx5_txq_comp {
	uint32_t elts; /* elts_head at the request */
	uint32_t wqe; /* wqe_ci (basic blocks) at the request */
};

struct mlx5_txq {
	/* Hot. */
	uint8_t *sq; /* basic blocks of 64 bytes */
	volatile __be32 *sq_db;
	void *bf_reg;
	struct mlx5_cqe64 *cqes;
	volatile __be32 *cq_db;
	struct dvp_mbuf **elts; /* packets sent and not completed */
	struct mlx5_txq_comp *comps; /* [cqe_cnt], by CQE index */
	uint32_t wqe_ci; /* basic blocks written: the device sees 16 bits */
	uint32_t wqe_tail; /* basic blocks completed */
	uint32_t wqe_mask, wqe_n;
	uint32_t elts_head, elts_tail, elts_mask, elts_n;
	uint32_t comp_wqe, comp_elts; /* wqe_ci and elts_head at the last request */
	uint32_t comp_thresh; /* packets between completion requests */
	uint32_t comp_wqe_thresh; /* basic blocks between them: at least comp_thresh */
	uint32_t cq_ci; /* next CQE to poll */
	uint32_t comp_pi; /* completions requested (CQE index of the next) */
	uint32_t cqe_cnt;
	__be32 qpn_ds_fast; /* qpn_ds of the one-block WQE: SQN, ds 4 */
	uint32_t sqn;
	uint32_t fast_lo; /* single-segment frames above this take the fast path ... */
	uint32_t frame_max; /* ... up to this */
	uint32_t empw_lo; /* eMPW: frames above this go by pointer (else inline whole) */
	uint32_t inline_min, inline_max;
	uint32_t inline_mpw; /* eMPW: frames up to this go inline in the session (0: none) */
	struct dvp_queue_fault fault; /* a restart asked for (dvp_port_fault.h) */
	bool fast_free; /* DVP_TX_OFFLOAD_MBUF_FAST_FREE */
	/*
	 * Packets sent as one segment of simple_pool with no other owner go
	 * back to it in one bulk put; those from elts index last_complex - 1
	 * down may not be such.
	 */
	const struct dvp_mempool *simple_pool;
	uint32_t simple_lkey; /* of simple_pool when it is one MR, else 0 */
	uint32_t last_complex;
	uint8_t cs_tbl[8]; /* (ol_flags >> 52) & 7 -> cs_flags */
	struct mlx5_txq_stats st;
	struct mlx5_mr_cache mr;

	/* Cold. */
	struct mlx5_owner owner __dvp_cache_aligned;
	struct mlx5_txq_stats st_base; /* the counters at the last stats reset */
	struct dvp_port *port;
	struct mlx5_priv *priv;
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct mlx5dv_cq dv_cq;
	struct mlx5dv_qp dv_qp;
	uint32_t cqe_req;
	uint32_t nb_desc;
	bool started;
	int socket;
	uint64_t offloads;
	/* For mlx5_tx_generic(): */
	uint64_t off_flags; /* MLX5_TX_OFF_FLAGS the queue's offloads act on */
	uint32_t tso_max; /* longest TSO payload (the device's) */
	bool vlan_hw; /* the device inserts VLAN tags (mlx5_caps.vlan_insert) */
};

/*
 * A tx burst function from a template, its twin for queues asking for
 * checksum offloads, and a third for queues asking for VLAN insertion or
 * TSO (as DPDK's MLX5_TXOFF_DECL): mlx5_tx_burst<suffix>, <suffix>_cs
 * and <suffix>_off. The third has the checksums too, and sends a frame
 * with DVP_MBUF_F_TX_VLAN or DVP_MBUF_F_TX_TCP_SEG through
 * mlx5_tx_generic(), the one path that builds such WQEs; the first two
 * never look at those flags, so they cost nothing there.
 */
#define MLX5_TX_BURST_DECL(suffix, tmpl)                                                    \
	uint16_t mlx5_tx_burst##suffix(void *txq, struct dvp_mbuf **pkts, uint16_t n)       \
	{                                                                                   \
		return tmpl(txq, pkts, n, false, false);                                    \
	}                                                                                   \
	uint16_t mlx5_tx_burst##suffix##_cs(void *txq, struct dvp_mbuf **pkts, uint16_t n)  \
	{                                                                                   \
		return tmpl(txq, pkts, n, true, false);                                     \
	}                                                                                   \
	uint16_t mlx5_tx_burst##suffix##_off(void *txq, struct dvp_mbuf **pkts, uint16_t n) \
	{                                                                                   \
		return tmpl(txq, pkts, n, true, true);                                      \
	}

/* The mbuf flags only mlx5_tx_generic() acts on (the _off bursts look for them). */
#define MLX5_TX_OFF_FLAGS (DVP_MBUF_F_TX_VLAN | DVP_MBUF_F_TX_TCP_SEG)

static __dvp_always_inline bool mlx5_tx_mbuf_off(const struct dvp_mbuf *m)
{
	return (m->ol_flags & MLX5_TX_OFF_FLAGS) != 0;
}

/* Out of line (mlx5_tx.c). */
uint16_t mlx5_tx_burst(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_cs(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_off(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw_cs(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw_off(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw_inl(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw_inl_cs(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw_inl_off(void *txq, struct dvp_mbuf **pkts, uint16_t n);
#if defined(__x86_64__)
#define MLX5_TX_AVX2 1
/* mlx5_tx_empw_avx2.c: call only where the CPU has AVX2. */
uint16_t mlx5_tx_burst_empw_inl_avx2(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw_inl_avx2_cs(void *txq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_tx_burst_empw_inl_avx2_off(void *txq, struct dvp_mbuf **pkts, uint16_t n);
#endif
/*
 * The inline eMPW burst for this CPU: with AVX2 moves where it has them
 * and --force-max-simd-bitwidth allows 256 bits, else SSE ones; @p cs and
 * @p off as MLX5_TX_BURST_DECL's instances.
 */
dvp_tx_burst_fn mlx5_tx_burst_inl_pick(bool cs, bool off);
__dvp_cold void mlx5_tx_slow(struct mlx5_txq *txq);
__dvp_cold void mlx5_tx_cqe_error(struct mlx5_txq *txq);
/* An MR went (mlx5_mr_cache_stale()): forget the cached lkeys and the simple pool's. */
__dvp_cold void mlx5_tx_mr_forget(struct mlx5_txq *txq);
int mlx5_tx_generic(struct mlx5_txq *txq, struct dvp_mbuf *m, uint8_t **last);
/*
 * Out of line: the bursts call it only for a frame off their common case,
 * and inlined it costs every frame registers in the burst's loop.
 */
__dvp_noinline uint32_t mlx5_tx_not_simple(struct mlx5_txq *txq, const struct dvp_mbuf *m,
					   uint32_t elt);

/* Shared with the control path (mlx5_txq.c). */
int mlx5_txq_recover(struct mlx5_txq *txq);
int mlx5_txq_restart(struct mlx5_txq *txq);
void mlx5_tx_free_elts(struct mlx5_txq *txq, uint32_t upto);

/* ------------------------------------------------------------------------
 * Transmit
 */

/*
 * In the DPDK-hosted build a DPDK application's mbuf may have an indirect
 * or external buffer, which the completion's free would give back wrongly.
 * Each tx loop sends such an mbuf the general way, and there the burst
 * stops before it, as before one from memory of no MR or a chain the queue
 * was not set up for: the burst returns the count sent so far and leaves
 * the mbuf to net_dvp, which copies it (doc/dpdk.md). The flags are in
 * ol_flags' top byte, on the line the loops read, tested with refcnt and
 * nb_segs (mlx5_tx_mbuf_plain()). Native dvpmd has no such mbufs: the mask
 * is 0 and the test compiles away.
 */
#ifdef DVP_HOST_DPDK
#define MLX5_TX_FOREIGN_HI ((DVP_MBUF_F_INDIRECT | DVP_MBUF_F_EXTERNAL) >> 56)
_Static_assert((MLX5_TX_FOREIGN_HI << 56) == (DVP_MBUF_F_INDIRECT | DVP_MBUF_F_EXTERNAL),
	       "the indirect and external flags are not in ol_flags' top byte");
#else
#define MLX5_TX_FOREIGN_HI 0
#endif
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "ol_flags' top byte is its last");

static __dvp_always_inline bool mlx5_tx_mbuf_foreign(const struct dvp_mbuf *m)
{
	return (((const uint8_t *)&m->ol_flags)[7] & MLX5_TX_FOREIGN_HI) != 0;
}

/*
 * Whether @p m is one segment held once, and (DPDK-hosted build) neither
 * indirect nor external: the tx loops' common case. Natively refcnt and
 * nb_segs are one 32-bit compare. Hosted, the flags' byte is 8 bytes
 * further: one PTEST of the aligned 16 bytes from data_off (an mbuf is
 * cache-aligned) against a mask of the bits that must be clear takes all
 * three, where two compares would. It asks refcnt and nb_segs to be at
 * most 1, which for an mbuf being sent is exactly 1: 0 is not a valid
 * count of either (DPDK's rules as dvpmd's).
 */
#if MLX5_TX_FOREIGN_HI && defined(__SSE4_1__)
_Static_assert(offsetof(struct dvp_mbuf, refcnt) == offsetof(struct dvp_mbuf, data_off) + 2 &&
		       offsetof(struct dvp_mbuf, nb_segs) ==
			       offsetof(struct dvp_mbuf, data_off) + 4 &&
		       offsetof(struct dvp_mbuf, ol_flags) ==
			       offsetof(struct dvp_mbuf, data_off) + 8 &&
		       offsetof(struct dvp_mbuf, data_off) % 16 == 0,
	       "data_off, refcnt, nb_segs and ol_flags are not in one aligned 16-byte span");

static __dvp_always_inline bool mlx5_tx_mbuf_plain(const struct dvp_mbuf *m)
{
	/* Per 16-bit lane: data_off, refcnt, nb_segs, port, then ol_flags' four. */
	const __m128i above_one = _mm_setr_epi16(0, -2, -2, 0, 0, 0, 0, MLX5_TX_FOREIGN_HI << 8);

	return _mm_testz_si128(above_one,
			       _mm_load_si128((const __m128i *)(const void *)&m->data_off));
}

/* The same, for a loop that has read refcnt and nb_segs as @p rs already. */
static __dvp_always_inline bool mlx5_tx_mbuf_plain_rs(const struct dvp_mbuf *m, uint32_t rs)
{
	(void)rs;
	return mlx5_tx_mbuf_plain(m);
}
#else
/* Natively the flag test is constant false: left out, the loops compile as before it came. */
static __dvp_always_inline bool mlx5_tx_mbuf_plain_rs(const struct dvp_mbuf *m, uint32_t rs)
{
	return rs == 0x10001u && (MLX5_TX_FOREIGN_HI == 0 || !mlx5_tx_mbuf_foreign(m));
}

static __dvp_always_inline bool mlx5_tx_mbuf_plain(const struct dvp_mbuf *m)
{
	uint32_t rs;

	/* refcnt and nb_segs both 1: one 32-bit compare. */
	memcpy(&rs, &m->refcnt, sizeof(rs));
	return mlx5_tx_mbuf_plain_rs(m, rs);
}
#endif

/*
 * The start of a burst: false when a fault asked for a restart (done
 * here, mlx5_err.c), as mlx5_rx_burst_begin(). A pool's MR gone since the
 * last burst makes the queue forget the lkeys it remembered.
 */
static __dvp_always_inline bool mlx5_tx_burst_begin(struct mlx5_txq *txq)
{
	if (dvp_unlikely(dvp_queue_fault_pending(&txq->fault))) {
		mlx5_tx_slow(txq);
		return false;
	}
	if (mlx5_mr_cache_stale(&txq->mr))
		mlx5_tx_mr_forget(txq);
	return true;
}

/*
 * Bytes 8-15 of the control segment of a WQE that asks for no completion,
 * as one little-endian word: the ONLY_FIRST_ERR completion mode in fm_ce_se
 * (byte 11), as DPDK sets it. In the ONLY_ERR mode (0) every WQE flushed
 * after an error would write a CQE and overrun the CQ, which is sized for
 * one completion every comp_thresh packets (mlx5_prm.h).
 */
#define MLX5_TX_CTRL_W1 ((uint64_t)MLX5_WQE_CTRL_FIRST_ERR << 24)
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "fm_ce_se is bits 31:24 of W1");

/* 16-byte values (GCC and Clang vector types): one move each, SSE2 on x86-64. */
typedef uint64_t mlx5_u64x2 __attribute__((vector_size(16)));
typedef uint16_t mlx5_u16x8 __attribute__((vector_size(16)));

static __dvp_always_inline uint8_t *mlx5_tx_wqe(const struct mlx5_txq *txq, uint32_t bb)
{
	return txq->sq + ((size_t)(bb & txq->wqe_mask) << 6);
}

/*
 * Poll the tx CQ: each send completion stands for the WQEs up to the one
 * that asked for it (recorded in comps[] at the request), whose packets
 * are freed in one go.
 */
static __dvp_always_inline void mlx5_tx_complete(struct mlx5_txq *txq)
{
	const uint32_t cqe_cnt = txq->cqe_cnt;
	uint32_t ci = txq->cq_ci, start = ci;
	uint8_t op_own;

	for (;;) {
		op_own = mlx5_cqe_op_own_load(mlx5_cqe_slot(txq->cqes, cqe_cnt, ci));
		if ((op_own & MLX5_OP_OWN_CHECK_MASK) != (MLX5_CQE_REQ << 4 | !!(ci & cqe_cnt)))
			break;
		ci++;
	}
	if (ci != start) {
		const struct mlx5_txq_comp *c = &txq->comps[(ci - 1) & (cqe_cnt - 1)];

		/* The device is done with the buffers before they go back to their pool. */
		dvp_dma_from_device_barrier();
		txq->cq_ci = ci;
		mlx5_cq_set_ci(txq->cq_db, ci);
		txq->wqe_tail = c->wqe;
		/* Nothing to free when the WQEs carried inline frames alone. */
		if (c->elts != txq->elts_tail)
			mlx5_tx_free_elts(txq, c->elts);
	}
	if (dvp_unlikely(mlx5_cqe_sw_owned(op_own, ci, cqe_cnt)))
		mlx5_tx_cqe_error(txq);
}

/*
 * Ask for a completion in the WQE @p last when comp_thresh packets or
 * comp_wqe_thresh blocks went out since the last request; record what it
 * will cover (the blocks up to @p wqe_ci, the packets up to @p head).
 * Frames inline in eMPW sessions take no packet slot: their completions
 * only give back blocks, so as DPDK they are asked for every eighth of
 * the SQ.
 */
static __dvp_always_inline void mlx5_tx_request_completion(struct mlx5_txq *txq, uint8_t *last,
							   uint32_t wqe_ci, uint32_t head)
{
	struct mlx5_txq_comp *c;

	if (wqe_ci - txq->comp_wqe < txq->comp_wqe_thresh &&
	    head - txq->comp_elts < txq->comp_thresh)
		return;
	c = &txq->comps[txq->comp_pi & (txq->cqe_cnt - 1)];
	((struct mlx5_wqe_ctrl_seg *)(void *)last)->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	c->elts = head;
	c->wqe = wqe_ci;
	txq->comp_pi++;
	txq->comp_wqe = wqe_ci;
	txq->comp_elts = head;
}

/*
 * The end of a tx burst that took @p taken packets and wrote WQEs up to
 * @p last (NULL: none): the queue's indexes, a completion if one is due,
 * the doorbell, the counters. @return @p taken.
 */
static __dvp_always_inline uint16_t mlx5_tx_burst_end(struct mlx5_txq *txq, uint32_t wqe_ci,
						      uint32_t head, uint8_t *last, uint32_t sent,
						      uint64_t bytes, uint32_t taken)
{
	if (last == NULL)
		return (uint16_t)taken;
	txq->wqe_ci = wqe_ci;
	txq->elts_head = head;
	mlx5_tx_request_completion(txq, last, wqe_ci, head);
	/* The WQEs above, then the record, then one 64-bit write of the last one's head. */
	mlx5_sq_db(txq->sq_db, txq->bf_reg, wqe_ci, last, true);
	dvp_counter_add(&txq->st.packets, sent);
	dvp_counter_add(&txq->st.bytes, bytes);
	return (uint16_t)taken;
}

/*
 * Hand one frame to mlx5_tx_generic() in the middle of a burst whose
 * indexes live in @p wqe_ci and @p head: synced to the queue before, taken
 * back after. @return false when there was no room for it, or (hosted
 * builds) it is not one to send as it is: the burst stops there.
 */
static __dvp_always_inline bool mlx5_tx_one_generic(struct mlx5_txq *txq, struct dvp_mbuf *m,
						    uint32_t *wqe_ci, uint32_t *head,
						    uint8_t **last)
{
	txq->wqe_ci = *wqe_ci;
	txq->elts_head = *head;
	if (mlx5_tx_generic(txq, m, last) < 0)
		return false;
	*wqe_ci = txq->wqe_ci;
	*head = txq->elts_head;
	return true;
}

/*
 * Send up to @p n packets: free what completed, write a WQE per packet,
 * ask for a completion when enough went out without one, and ring the
 * doorbell once (record, barrier, one 64-bit UAR write).
 *
 * The fast path takes single-segment frames longer than the 18 bytes it
 * inlines (and than txq_inline_max, when whole frames go inline): one
 * 64-byte block each, the control segment, the Ethernet segment with the
 * first 18 bytes, one data segment for the rest, over stretches that wrap
 * neither the SQ nor the ring of mbufs. The block's first 48 bytes are
 * three 16-byte stores: the control segment from a template whose WQE
 * index goes up by one per packet (an add to its big-endian low byte, so
 * a stretch does not cross a multiple of 256 either), the Ethernet
 * segment from a template taking the frame's first two bytes, then the
 * next sixteen. Other frames go through mlx5_tx_generic(). @p cs: the
 * queue has checksum offloads, @p off: VLAN insertion or TSO (separate
 * instances, as DPDK's tx templates).
 */
static __dvp_always_inline uint16_t mlx5_tx_burst_tmpl(struct mlx5_txq *txq, struct dvp_mbuf **pkts,
						       uint16_t n, bool cs, bool off)
{
	/* Frames of lo1 .. frame_max bytes take the fast path: len - lo1 < span. */
	const uint32_t lo1 = txq->fast_lo + 1, span = txq->frame_max - txq->fast_lo;
	const uint64_t ctrl_qpn = (uint64_t)txq->qpn_ds_fast << 32;
	/* The WQE index's low byte is byte 2 of the big-endian opmod_idx_opcode. */
	const mlx5_u64x2 idx_inc = { 1u << 16, 0 };
	/* rsvd2 0, inline_hdr_sz 18 (big-endian); the first two frame bytes go in lane 7. */
	mlx5_u16x8 eseg = { 0, 0, 0, 0, 0, 0, htobe16(MLX5_ESEG_MIN_INLINE_SIZE), 0 };
	uint32_t wqe_ci, head, i = 0, sent = 0;
	uint64_t bytes = 0;
	uint8_t *last = NULL;

	if (!mlx5_tx_burst_begin(txq))
		return 0;
	/* Completions first: an error among them resets the counters read below. */
	mlx5_tx_complete(txq);
	wqe_ci = txq->wqe_ci;
	head = txq->elts_head;
	while (i < n) {
		/* One block and one mbuf slot per fast packet, up to the end of either ring. */
		uint32_t room = DVP_MIN(txq->wqe_n - (wqe_ci - txq->wqe_tail),
					txq->elts_n - (head - txq->elts_tail));
		uint32_t run = DVP_MIN(DVP_MIN(n - i, room), txq->wqe_n - (wqe_ci & txq->wqe_mask));
		uint64_t *w = (uint64_t *)(void *)mlx5_tx_wqe(txq, wqe_ci);
		struct dvp_mbuf **e = &txq->elts[head & txq->elts_mask];
		/* The simple pool when it is one MR (else NULL, no mbuf's pool): one compare. */
		const struct dvp_mempool *spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
		uint32_t slkey = txq->simple_lkey;
		struct dvp_mbuf **p = pkts + i, **pend;
		/* opmod 0 (the top byte); the index's low byte never carries in a run. */
		mlx5_u64x2 ctrl = {
			htobe32((wqe_ci & MLX5_WQ_INDEX_MASK) << MLX5_WQE_IDX_SHIFT |
				MLX5_OPCODE_SEND) |
				ctrl_qpn,
			/* signature 0, fm_ce_se (byte 11): only the first error (below), imm 0 */
			MLX5_TX_CTRL_W1
		};
		uint32_t k;

		run = DVP_MIN(run, txq->elts_n - (head & txq->elts_mask));
		run = DVP_MIN(run, 256u - (wqe_ci & 0xffu));
		pend = p + run;
		for (; p != pend; p++, e++, w += 8) {
			struct dvp_mbuf *m = *p;
			uint32_t len = m->data_len, lkey = slkey, bc;
			mlx5_u64x2 hdr;
			uintptr_t data;
			uint16_t first2;

			if (off && dvp_unlikely(mlx5_tx_mbuf_off(m)))
				break; /* VLAN or TSO: the general path */
			if (dvp_unlikely(!mlx5_tx_mbuf_plain(m) || m->pool != spool)) {
				if (m->nb_segs != 1)
					break; /* several segments: the general path */
				lkey = mlx5_tx_not_simple(
					txq, m,
					head + (uint32_t)(e - &txq->elts[head & txq->elts_mask]));
				if (lkey == htobe32(MLX5_INVALID_LKEY))
					break; /* in no registered pool: the general path drops it */
				spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
				slkey = txq->simple_lkey;
			}
			if (dvp_unlikely(len - lo1 >= span))
				break;
			data = (uintptr_t)m->buf_addr + m->data_off;
			memcpy(&first2, (const void *)data, sizeof(first2));
			memcpy(&hdr, (const void *)(data + 2), sizeof(hdr));
			eseg[7] = first2;
			memcpy(w, &ctrl, sizeof(ctrl));
			memcpy(w + 2, &eseg, sizeof(eseg));
			if (cs)
				((uint8_t *)w)[20] = txq->cs_tbl[(m->ol_flags >> 52) & 7];
			memcpy(w + 4, &hdr, sizeof(hdr));
			bc = htobe32(len - MLX5_ESEG_MIN_INLINE_SIZE);
			memcpy(w + 6, &bc, sizeof(bc));
			memcpy((uint8_t *)(w + 6) + 4, &lkey, sizeof(lkey));
			w[7] = htobe64(data + MLX5_ESEG_MIN_INLINE_SIZE);
			ctrl += idx_inc;
			*e = m;
			bytes += len;
		}
		k = (uint32_t)(p - (pkts + i));
		if (k > 0) {
			last = (uint8_t *)(void *)(w - 8);
			wqe_ci += k;
			head += k;
			i += k;
			sent += k;
		}
		if (k == run) {
			if (run == 0)
				break; /* no room */
			continue;
		}
		/* A frame for the general path (or to drop): it counts itself. */
		if (!mlx5_tx_one_generic(txq, pkts[i], &wqe_ci, &head, &last))
			break;
		i++;
	}
	return mlx5_tx_burst_end(txq, wqe_ci, head, last, sent, bytes, i);
}

#endif /* MLX5_TX_H */
