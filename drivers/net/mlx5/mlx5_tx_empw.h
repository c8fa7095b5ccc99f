/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The enhanced multi-packet send path (eMPW, ConnectX-5 and later, as
 * mlx5dv_query_device() reports it): one WQE, a "session", carries up to
 * MLX5_EMPW_MAX_PKTS packets. Its title is a control segment (opcode
 * ENHANCED_MPSW, opmod 0) and an Ethernet segment of one unit without
 * inline headers whose checksum flags hold for every packet; then one
 * 16-byte pointer segment per packet. A packet costs two 8-byte stores
 * instead of the SEND path's 64-byte block.
 *
 * A session takes single-segment frames longer than the whole-frame
 * inline limit, with the checksum flags of its first packet; it ends at
 * MLX5_EMPW_MAX_PKTS packets, at the end of the burst or of either ring's
 * room, at a frame with other checksum flags (which opens the next
 * session), and at a frame it cannot take (several segments, inline whole,
 * wrong size, unregistered memory), which goes through mlx5_tx_generic()
 * as a SEND WQE of its own. Its segments may wrap the end of the SQ ring,
 * as the device allows. With txq_inline_mpw (below) short frames go
 * inline in the session instead. Facts and sources: doc/sim.md, "Enhanced
 * multi-packet send"; doc/mlx5.md, "Tx paths".
 */

#ifndef MLX5_TX_EMPW_H
#define MLX5_TX_EMPW_H

#include "mlx5_tx.h"

/*
 * Packets per session: DPDK's choice (MLX5_EMPW_MAX_PACKETS), the
 * completion threshold, so that one WQE never holds more packets than a
 * completion frees; the device would take MLX5_EMPW_MAX_PTR_PKTS.
 */
#define MLX5_EMPW_MAX_PKTS 32u

/*
 * The title of a session at @p w: WQE index @p ci, @p ds units, checksum
 * flags @p ecs; @p qpn is htobe32(SQN << 8) in the upper half, where ds
 * (below 64) takes the last byte.
 */
static __dvp_always_inline void mlx5_empw_title(uint64_t *w, uint32_t ci, uint64_t qpn, uint32_t ds,
						uint8_t ecs)
{
	w[0] = htobe32((ci & MLX5_WQ_INDEX_MASK) << MLX5_WQE_IDX_SHIFT |
		       MLX5_OPCODE_ENHANCED_MPSW) |
	       qpn | (uint64_t)ds << 56;
	/* signature, fm_ce_se (only the first error: a completion is asked at the burst's end), imm */
	w[1] = MLX5_TX_CTRL_W1;
	w[2] = (uint64_t)ecs << 32; /* cs_flags */
	w[3] = 0; /* no inline header: eMPW takes none */
}

static __dvp_always_inline uint16_t mlx5_tx_burst_empw_tmpl(struct mlx5_txq *txq,
							    struct dvp_mbuf **pkts, uint16_t n,
							    bool cs, bool off)
{
	/* Frames of lo1 .. frame_max bytes go by pointer: len - lo1 < span. */
	const uint32_t lo1 = txq->empw_lo + 1, span = txq->frame_max - txq->empw_lo;
	const uint64_t qpn = (uint64_t)htobe32(txq->sqn << MLX5_WQE_QPN_SHIFT) << 32;
	struct mlx5_wqe_data_seg *const sq_end =
		(struct mlx5_wqe_data_seg *)(void *)(txq->sq + ((size_t)txq->wqe_n << 6));
	/*
	 * The queue's simple pool when it is one MR (NULL, which no mbuf's
	 * pool is, when not): one compare per packet gives its lkey.
	 */
	const struct dvp_mempool *spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
	uint32_t slkey = txq->simple_lkey;
	uint32_t wqe_ci, head, i = 0, sent = 0, bytes = 0; /* bytes: n frames of < 64 KiB */
	uint8_t *last = NULL;

	if (!mlx5_tx_burst_begin(txq))
		return 0;
	/* Completions first: an error among them resets the counters read below. */
	mlx5_tx_complete(txq);
	wqe_ci = txq->wqe_ci;
	head = txq->elts_head;
	while (i < n) {
		uint32_t wqe_free = txq->wqe_n - (wqe_ci - txq->wqe_tail);
		uint32_t max = DVP_MIN(n - i, txq->elts_n - (head - txq->elts_tail));
		uint64_t *w = (uint64_t *)(void *)mlx5_tx_wqe(txq, wqe_ci);
		struct mlx5_wqe_data_seg *d = (struct mlx5_wqe_data_seg *)(void *)(w + 4);
		uint8_t ecs = cs ? txq->cs_tbl[(pkts[i]->ol_flags >> 52) & 7] : 0;
		uint32_t k = 0, ds;
		bool other_cs = false;

		/* The title's block and a unit per packet: 4 per block less the title's 2. */
		if (wqe_free == 0 || max == 0)
			break;
		max = DVP_MIN(max, DVP_MIN(MLX5_EMPW_MAX_PKTS, wqe_free * 4 - 2));
		/* Stretches that wrap neither the SQ nor the ring of mbufs. */
		while (k < max) {
			uint32_t eidx = (head + k) & txq->elts_mask, j;
			uint32_t run = DVP_MIN(max - k, (uint32_t)(sq_end - d));
			struct dvp_mbuf **p = pkts + i + k, **e = &txq->elts[eidx];

			run = DVP_MIN(run, txq->elts_n - eidx);
			for (j = 0; j != run; j++, d++) {
				struct dvp_mbuf *m = p[j];
				uint32_t lkey = slkey;
				uint32_t len = m->data_len;

				if (off && dvp_unlikely(mlx5_tx_mbuf_off(m)))
					break; /* VLAN or TSO: a SEND of its own */
				if (dvp_unlikely(!mlx5_tx_mbuf_plain(m) || m->pool != spool)) {
					if (m->nb_segs != 1)
						break; /* several segments: a SEND of its own */
					lkey = mlx5_tx_not_simple(txq, m, head + k + j);
					if (lkey == htobe32(MLX5_INVALID_LKEY))
						break; /* the general path drops it */
					spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
					slkey = txq->simple_lkey;
				}
				if (dvp_unlikely(len - lo1 >= span))
					break;
				if (cs &&
				    dvp_unlikely(txq->cs_tbl[(m->ol_flags >> 52) & 7] != ecs)) {
					other_cs = true;
					break;
				}
				d->byte_count = htobe32(len);
				d->lkey = lkey;
				d->addr = htobe64((uintptr_t)m->buf_addr + m->data_off);
				e[j] = m;
				bytes += len;
			}
			k += j;
			if (j != run)
				break;
			if (d == sq_end)
				d = (struct mlx5_wqe_data_seg *)(void *)txq->sq;
		}
		if (k > 0) {
			ds = MLX5_EMPW_TITLE_DS + k;
			mlx5_empw_title(w, wqe_ci, qpn, ds, ecs);
			last = (uint8_t *)w;
			wqe_ci += mlx5_wqe_ds_to_bbs(ds);
			head += k;
			i += k;
			sent += k;
		}
		if (k == max || other_cs)
			continue; /* the next session, or out of room (the loop's head says) */
		/* A frame for the general path (or to drop): it counts itself. */
		if (!mlx5_tx_one_generic(txq, pkts[i], &wqe_ci, &head, &last))
			break;
		i++;
	}
	return mlx5_tx_burst_end(txq, wqe_ci, head, last, sent, bytes, i);
}

/*
 * Units (16 bytes) of a session with inline packets: DPDK's limit for an
 * eMPW WQE (MLX5_WQE_SIZE_MAX, 15 basic blocks), below the 63 ds allows.
 */
#define MLX5_EMPW_INL_MAX_DS 60u

/*
 * Copy a frame of @p len bytes (18 and more) into an inline segment's data
 * at @p dst: 16- or 32-byte moves, the last overlapping the one before, so
 * that no byte outside the frame is read and none past it written.
 */
static __dvp_noinline void mlx5_empw_copy_any(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (len >= 32) {
		memcpy(dst, src, 32);
		for (uint32_t i = 32; i + 32 < len; i += 32)
			memcpy(dst + i, src + i, 32);
		memcpy(dst + len - 32, src + len - 32, 32);
	} else if (len >= 16) {
		memcpy(dst, src, 16);
		memcpy(dst + len - 16, src + len - 16, 16);
	} else {
		memcpy(dst, src, len);
	}
}

/*
 * The same, with frames of 49 to 64 bytes (minimum-size ones among them)
 * in four fixed 16-byte moves inline; others out of line, so that the
 * packet loop keeps no value for them.
 */
static __dvp_always_inline void mlx5_empw_copy(uint8_t *dst, const uint8_t *src, uint32_t len)
{
	if (dvp_likely(len - 49u < 16u)) {
		memcpy(dst, src, 16);
		memcpy(dst + 16, src + 16, 16);
		memcpy(dst + 32, src + 32, 16);
		memcpy(dst + len - 16, src + len - 16, 16);
	} else {
		mlx5_empw_copy_any(dst, src, len);
	}
}

/*
 * An inline segment of @p seg bytes that reaches the end of the SQ ring
 * from @p d: built aside, copied in two parts (the second maybe empty) of
 * whole units, as d and the ring's end are 16-byte aligned: 16-byte moves,
 * not a byte copy of variable length. @return where the next segment
 * starts.
 */
static __dvp_cold __dvp_noinline uint8_t *
mlx5_empw_inline_wrap(struct mlx5_txq *txq, uint8_t *d, const struct dvp_mbuf *m, uint32_t seg)
{
	uint8_t buf[MLX5_EMPW_INL_MAX_DS * MLX5_WSEG_SIZE];
	uint8_t *end = txq->sq + ((size_t)txq->wqe_n << 6);
	uint32_t bc = htobe32(m->data_len | MLX5_INLINE_SEG), first = (uint32_t)(end - d), off;

	memcpy(buf, &bc, sizeof(bc));
	mlx5_empw_copy(buf + 4, dvp_pktmbuf_mtod(m, const uint8_t *), m->data_len);
	for (off = 0; off != first; off += MLX5_WSEG_SIZE)
		memcpy(d + off, buf + off, MLX5_WSEG_SIZE);
	for (; off != seg; off += MLX5_WSEG_SIZE)
		memcpy(txq->sq + (off - first), buf + off, MLX5_WSEG_SIZE);
	return txq->sq + (seg - first);
}

/*
 * Frames the inline fast loop takes: 33 to 64 bytes, minimum-size frames
 * among them. Each is copied as two 32-byte moves, the second ending at
 * the frame's last byte (one move each where the burst is built for AVX2,
 * two SSE moves otherwise), so that nothing past the frame is read and
 * nothing past its segment written. A segment of such a frame is at most
 * MLX5_EMPW_FAST_SEG bytes (the 4-byte header, 64 bytes, padding to 16).
 */
#define MLX5_EMPW_FAST_MIN 33u
#define MLX5_EMPW_FAST_MAX 64u
#define MLX5_EMPW_FAST_SEG 80u
/* Basic blocks of a full inline session, and fast frames it holds at least. */
#define MLX5_EMPW_INL_MAX_BBS ((MLX5_EMPW_INL_MAX_DS + 3) / 4)
#define MLX5_EMPW_FAST_PER_SESSION \
	((MLX5_EMPW_INL_MAX_DS - MLX5_EMPW_TITLE_DS) * MLX5_WSEG_SIZE / MLX5_EMPW_FAST_SEG)

/*
 * Close the fast session at @p w, whose title's block is zero (its opmod,
 * signature, imm and inline header stay so): the WQE index @p ci
 * big-endian in bytes 1-2, the opcode in byte 3, then qpn_ds from @p qpn
 * (htobe32(SQN << 8)) with @p ds in its last byte, fm_ce_se (only the
 * first error; a completion is asked at the burst's end), and the
 * checksum flags @p ecs.
 */
static __dvp_always_inline void mlx5_empw_inl_close(uint64_t *w, uint32_t ci, uint32_t qpn,
						    uint32_t ds, uint8_t ecs, bool cs)
{
	uint16_t idx = htobe16((uint16_t)ci);
	uint32_t qpn_ds = qpn | ds << 24;

	memcpy((uint8_t *)w + 1, &idx, sizeof(idx));
	((uint8_t *)w)[3] = MLX5_OPCODE_ENHANCED_MPSW;
	memcpy((uint8_t *)w + 4, &qpn_ds, sizeof(qpn_ds));
	((uint8_t *)w)[11] = MLX5_WQE_CTRL_FIRST_ERR;
	if (cs)
		((uint8_t *)w)[20] = ecs;
}

/*
 * 32 bytes from @p src to @p dst, neither aligned: one move each way where
 * the burst is built for AVX2 (mlx5_tx_empw_avx2.c), else two 16-byte
 * ones (a 32-byte vector type there would go through the stack).
 */
#ifdef __AVX2__
typedef uint8_t mlx5_u8x32 __attribute__((vector_size(32), aligned(1), may_alias));
typedef uint64_t mlx5_u64x4 __attribute__((vector_size(32)));
#endif

static __dvp_always_inline void mlx5_empw_copy32(uint8_t *dst, const uint8_t *src)
{
#ifdef __AVX2__
	*(mlx5_u8x32 *)(void *)dst = *(const mlx5_u8x32 *)(const void *)src;
#else
	memcpy(dst, src, 32);
#endif
}

/* 32 zero bytes at @p dst (32-byte aligned): one store with AVX2. */
static __dvp_always_inline void mlx5_empw_zero32(uint64_t *dst)
{
#ifdef __AVX2__
	*(mlx5_u64x4 *)(void *)dst = (mlx5_u64x4){ 0, 0, 0, 0 };
#else
	memset(dst, 0, 32);
#endif
}

/*
 * Mbufs whose frames went inline whole: back to their pool at the end of
 * the burst, in one bulk put, since the device reads only the WQE. The
 * stretches of a burst usually follow one another in the caller's array,
 * so they make one run; another pool or a gap starts the next.
 */
struct mlx5_empw_done {
	struct dvp_mbuf **pkts;
	struct dvp_mempool *pool;
	uint32_t n;
};

static __dvp_always_inline void mlx5_empw_done_add(struct mlx5_empw_done *done,
						   struct dvp_mbuf **pkts, uint32_t n)
{
	if (dvp_unlikely(pkts != done->pkts + done->n || pkts[0]->pool != done->pool)) {
		if (done->n != 0)
			dvp_mempool_put_bulk(done->pool, (void *const *)done->pkts, done->n);
		done->pkts = pkts;
		done->pool = pkts[0]->pool;
		done->n = 0;
	}
	done->n += n;
}

/*
 * Where an inline burst stands: its indexes, the last WQE written, the
 * counts for its end, and the mbufs to put back (mlx5_empw_done).
 */
struct mlx5_empw_burst {
	uint32_t wqe_ci, head;
	uint32_t sent, bytes, nptr; /* nptr: frames sent by pointer */
	uint8_t *last;
	struct mlx5_empw_done done;
};

/*
 * Sessions of fast frames only, from basic block *@p wqe_ci on, while
 * frames qualify: what an inline burst tries first, for at most @p n
 * frames, where inline_mpw takes every fast frame and the SQ has room for
 * them at their largest (mlx5_empw_inl_fast_fits()). A session takes
 * frames while they fit its MLX5_EMPW_INL_MAX_DS units (at least
 * MLX5_EMPW_FAST_PER_SESSION, never more than MLX5_EMPW_MAX_PKTS) and
 * stops short of the SQ's end, so that none wraps: the next starts at the
 * ring's start. Per frame: three compares, the room left, the header, two
 * moves; the title's block is zeroed at a session's start (one store) and
 * the rest written at its close. None takes a slot in the ring of mbufs.
 * @return the frames taken; *wqe_ci, *last and *bytes moved on past them.
 */
static __dvp_always_inline uint32_t mlx5_empw_inl_fast(struct mlx5_txq *txq, struct dvp_mbuf **pkts,
						       uint32_t n, const struct dvp_mempool *spool,
						       uint32_t *wqe_ci, uint8_t **last,
						       uint32_t *bytes, bool cs, bool off)
{
	const uint32_t room_max = (MLX5_EMPW_INL_MAX_DS - MLX5_EMPW_TITLE_DS) * MLX5_WSEG_SIZE;
	/* The title's qpn_ds but ds, which takes its last byte (mlx5_empw_inl_close()). */
	const uint32_t qpn = htobe32(txq->sqn << MLX5_WQE_QPN_SHIFT);
	uint8_t *const sq_end = txq->sq + ((size_t)txq->wqe_n << 6);
	uint64_t *w = (uint64_t *)(void *)mlx5_tx_wqe(txq, *wqe_ci);
	uint8_t *d = (uint8_t *)(w + 4);
	uint8_t ecs = cs ? txq->cs_tbl[(pkts[0]->ol_flags >> 52) & 7] : 0;
	uint32_t ci = *wqe_ci, ds, bbs;
	size_t sum = 0; /* as wide as len: no extension per frame */
	/* Room in the session: up to room_max, short of the SQ's end. */
	intptr_t room = (intptr_t)DVP_MIN((size_t)room_max, (size_t)(sq_end - d));
	struct dvp_mbuf **pend = pkts + n;
	/* Indexes from -n up to 0: one register and no bound to compare. */
	intptr_t j = -(intptr_t)n;

	/* The title's 32 bytes zero: opmod, signature, imm, no inline header. */
	mlx5_empw_zero32(w);
	for (; j != 0; j++) {
		struct dvp_mbuf *m = pend[j];
		/* One register for the compares and the addresses. */
		size_t len = m->data_len, seg;
		uint32_t rs, bc;
		const uint8_t *src;

		memcpy(&rs, &m->refcnt, sizeof(rs));
		if (dvp_unlikely(!mlx5_tx_mbuf_plain_rs(m, rs) || m->pool != spool ||
				 len - MLX5_EMPW_FAST_MIN >
					 MLX5_EMPW_FAST_MAX - MLX5_EMPW_FAST_MIN))
			break;
		if (cs && dvp_unlikely(txq->cs_tbl[(m->ol_flags >> 52) & 7] != ecs))
			break;
		if (off && dvp_unlikely(mlx5_tx_mbuf_off(m)))
			break;
		seg = (len + 4 + MLX5_WSEG_SIZE - 1) & ~(size_t)(MLX5_WSEG_SIZE - 1);
		room -= (intptr_t)seg;
		if (dvp_unlikely(room < 0)) {
			uint8_t *start = (uint8_t *)(w + 4);

			/* A session that takes none: the SQ's last block, for another path. */
			if (d == start)
				break;
			/* The session is full: its title, then the next one right after it. */
			ds = MLX5_EMPW_TITLE_DS + (uint32_t)(d - start) / MLX5_WSEG_SIZE;
			mlx5_empw_inl_close(w, ci, qpn, ds, ecs, cs);
			bbs = mlx5_wqe_ds_to_bbs(ds);
			ci += bbs;
			w += (size_t)bbs * (MLX5_SEND_WQE_BB / sizeof(*w));
			if ((uint8_t *)w == sq_end)
				w = (uint64_t *)(void *)txq->sq;
			mlx5_empw_zero32(w);
			d = (uint8_t *)(w + 4);
			room = (intptr_t)DVP_MIN((size_t)room_max, (size_t)(sq_end - d)) -
			       (intptr_t)seg;
			if (dvp_unlikely(room < 0))
				break;
		}
		/* len | MLX5_INLINE_SEG as an add (len < 64 KiB). */
		bc = htobe32((uint32_t)len + MLX5_INLINE_SEG);
		memcpy(d, &bc, sizeof(bc));
		src = dvp_pktmbuf_mtod(m, const uint8_t *);
		mlx5_empw_copy32(d + 4, src);
		mlx5_empw_copy32(d + 4 + len - 32, src + len - 32);
		d += seg;
		sum += len;
	}
	if (d != (uint8_t *)(w + 4)) {
		ds = MLX5_EMPW_TITLE_DS + (uint32_t)(d - (uint8_t *)(w + 4)) / MLX5_WSEG_SIZE;
		mlx5_empw_inl_close(w, ci, qpn, ds, ecs, cs);
		ci += mlx5_wqe_ds_to_bbs(ds);
		*last = (uint8_t *)w;
	}
	*wqe_ci = ci;
	*bytes += (uint32_t)sum;
	return n + (uint32_t)j;
}

/*
 * Whether the SQ has room from basic block @p wqe_ci for @p n fast frames
 * at their largest: MLX5_EMPW_FAST_PER_SESSION in each session of
 * MLX5_EMPW_INL_MAX_BBS blocks, and one session cut short by the SQ's end.
 */
static __dvp_always_inline bool mlx5_empw_inl_fast_fits(const struct mlx5_txq *txq, uint32_t wqe_ci,
							uint32_t n)
{
	/* n / 8 + 2 sessions: more than the ceiling of n / 11 and one cut short. */
	return txq->wqe_n - (wqe_ci - txq->wqe_tail) >= (n / 8 + 2) * MLX5_EMPW_INL_MAX_BBS;
}

/*
 * The rest of an inline burst, from pkts[@p i] on, frame by frame where
 * need be: a frame of up to inline_mpw bytes goes as an inline data
 * segment, a longer one by pointer; the two kinds mix in one session of
 * at most MLX5_EMPW_INL_MAX_DS units, which may wrap the SQ. Called for a
 * session's worth at a time, where the fast sessions stopped: a frame of
 * another kind, or the SQ's end. A lone unshared segment sent inline goes
 * to b->done; any other frame sent stays in the ring of mbufs until its
 * completion. @return the frames taken, up to @p n.
 */
static __dvp_always_inline uint32_t mlx5_empw_inl_general(struct mlx5_txq *txq,
							  struct dvp_mbuf **pkts, uint32_t i,
							  uint32_t n, struct mlx5_empw_burst *b,
							  bool cs, bool off)
{
	/* Frames of 18 (MLX5_ESEG_MIN_INLINE_SIZE) .. inline_mpw bytes go inline, up to frame_max by pointer. */
	const uint32_t inl_span = txq->inline_mpw - (MLX5_ESEG_MIN_INLINE_SIZE - 1u);
	const uint32_t span = txq->frame_max - (MLX5_ESEG_MIN_INLINE_SIZE - 1u);
	const uint64_t qpn = (uint64_t)htobe32(txq->sqn << MLX5_WQE_QPN_SHIFT) << 32;
	uint8_t *const sq_end = txq->sq + ((size_t)txq->wqe_n << 6);
	const struct dvp_mempool *spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
	uint32_t slkey = txq->simple_lkey, wqe_ci = b->wqe_ci, head = b->head;

	while (i < n) {
		uint32_t wqe_free = txq->wqe_n - (wqe_ci - txq->wqe_tail);
		uint32_t max = DVP_MIN(n - i, txq->elts_n - (head - txq->elts_tail));
		uint64_t *w = (uint64_t *)(void *)mlx5_tx_wqe(txq, wqe_ci);
		uint8_t *d = (uint8_t *)(w + 4);
		uint8_t ecs = cs ? txq->cs_tbl[(pkts[i]->ol_flags >> 52) & 7] : 0;
		uint32_t k = 0, ne = 0, units, ds, eidx;
		struct dvp_mbuf **e;
		uint8_t *dend; /* the session's end: d + its room (past sq_end when it wraps) */
		bool ended = false;

		if (wqe_free == 0 || max == 0)
			break;
		/* Not past the end of the ring of mbufs: one pointer walks it. */
		eidx = head & txq->elts_mask;
		max = DVP_MIN(max, DVP_MIN(MLX5_EMPW_MAX_PKTS, txq->elts_n - eidx));
		e = &txq->elts[eidx];
		units = DVP_MIN(MLX5_EMPW_INL_MAX_DS, wqe_free * 4) - MLX5_EMPW_TITLE_DS;
		dend = d + (size_t)units * MLX5_WSEG_SIZE;
		for (; k < max; k++) {
			struct dvp_mbuf *m = pkts[i + k];
			uint32_t lkey = slkey, len = m->data_len, rs;

			if (off && dvp_unlikely(mlx5_tx_mbuf_off(m)))
				break; /* VLAN or TSO: a SEND WQE of its own */
			memcpy(&rs, &m->refcnt, sizeof(rs));
			if (dvp_unlikely(!mlx5_tx_mbuf_plain_rs(m, rs) || m->pool != spool)) {
				if (m->nb_segs != 1)
					break;
				lkey = mlx5_tx_not_simple(txq, m, head + ne);
				if (lkey == htobe32(MLX5_INVALID_LKEY))
					break;
				spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
				slkey = txq->simple_lkey;
			}
			if (cs && dvp_unlikely(txq->cs_tbl[(m->ol_flags >> 52) & 7] != ecs)) {
				ended = true;
				break;
			}
			/* 18 .. inline_mpw bytes (inline_mpw <= frame_max): one compare. */
			if (dvp_likely(len - MLX5_ESEG_MIN_INLINE_SIZE < inl_span)) {
				/* Units of the 4-byte header, the bytes, padding to 16. */
				uint32_t u = (len + 4 + MLX5_WSEG_SIZE - 1) / MLX5_WSEG_SIZE;
				uint32_t bc = htobe32(len | MLX5_INLINE_SEG);

				if (d + u * MLX5_WSEG_SIZE > dend) {
					ended = k > 0;
					break;
				}
				if (dvp_likely(d + u * MLX5_WSEG_SIZE < sq_end)) {
					memcpy(d, &bc, sizeof(bc));
					mlx5_empw_copy(d + 4, dvp_pktmbuf_mtod(m, const uint8_t *),
						       len);
					d += u * MLX5_WSEG_SIZE;
				} else {
					d = mlx5_empw_inline_wrap(txq, d, m, u * MLX5_WSEG_SIZE);
					dend -= sq_end - txq->sq;
				}
				/* A lone unshared segment is done with: back to its pool. */
				if (rs == 0x10001u)
					mlx5_empw_done_add(&b->done, pkts + i + k, 1);
				else
					e[ne++] = m;
			} else {
				struct mlx5_wqe_data_seg *p = (struct mlx5_wqe_data_seg *)(void *)d;

				/* Shorter than 18 or longer than frame_max: the general path. */
				if (dvp_unlikely(len - MLX5_ESEG_MIN_INLINE_SIZE >= span))
					break;
				if (d == dend) {
					ended = true; /* k > 0: a unit is left for the first */
					break;
				}
				b->nptr++;
				p->byte_count = htobe32(len);
				p->lkey = lkey;
				p->addr = htobe64((uintptr_t)m->buf_addr + m->data_off);
				d += MLX5_WSEG_SIZE;
				if (d == sq_end) {
					d = txq->sq;
					dend -= sq_end - txq->sq;
				}
				e[ne++] = m;
			}
			b->bytes += len;
		}
		ds = MLX5_EMPW_TITLE_DS + units - (uint32_t)(dend - d) / MLX5_WSEG_SIZE;
		if (k > 0) {
			mlx5_empw_title(w, wqe_ci, qpn, ds, ecs);
			b->last = (uint8_t *)w;
			wqe_ci += mlx5_wqe_ds_to_bbs(ds);
			head += ne;
			i += k;
			b->sent += k;
		}
		if (k == max || ended)
			continue;
		/* Not for a session (or no room for one): a SEND WQE, if it fits. */
		if (!mlx5_tx_one_generic(txq, pkts[i], &wqe_ci, &head, &b->last))
			break;
		i++;
	}
	b->wqe_ci = wqe_ci;
	b->head = head;
	return i;
}

/*
 * An inline burst that is not all fast frames, or meets the SQ's end,
 * from pkts[@p i] on (the first @p i went in fast sessions, up to
 * @p wqe_ci and @p last, with @p bytes): fast sessions where they can go,
 * else a session's worth frame by frame (across the SQ's end if it is
 * there), until all are sent or the queue is full. @return the frames
 * taken.
 */
static __dvp_always_inline uint16_t mlx5_empw_inl_rest(struct mlx5_txq *txq, struct dvp_mbuf **pkts,
						       uint32_t n, uint32_t i, uint32_t wqe_ci,
						       uint8_t *last, uint32_t bytes, bool cs,
						       bool off)
{
	struct mlx5_empw_burst b = { .wqe_ci = wqe_ci,
				     .head = txq->elts_head,
				     .sent = i,
				     .bytes = bytes,
				     .last = last,
				     .done = { pkts, NULL, 0 } };
	uint16_t taken;

	if (i != 0)
		b.done = (struct mlx5_empw_done){ pkts, pkts[0]->pool, i };
	while (i < n) {
		uint32_t from = i, k = 0;
		const struct dvp_mempool *spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;

		if (txq->inline_mpw >= MLX5_EMPW_FAST_MAX &&
		    mlx5_empw_inl_fast_fits(txq, b.wqe_ci, n - i))
			k = mlx5_empw_inl_fast(txq, pkts + i, n - i, spool, &b.wqe_ci, &b.last,
					       &b.bytes, cs, off);
		if (k != 0) {
			mlx5_empw_done_add(&b.done, pkts + i, k);
			b.sent += k;
			i += k;
			continue;
		}
		i = mlx5_empw_inl_general(txq, pkts, i, DVP_MIN(n, i + MLX5_EMPW_FAST_PER_SESSION),
					  &b, cs, off);
		if (i == from)
			break; /* the queue is full */
	}
	if (b.sent != b.nptr)
		dvp_counter_add(&txq->st.inlined, b.sent - b.nptr);
	taken = mlx5_tx_burst_end(txq, b.wqe_ci, b.head, b.last, b.sent, b.bytes, i);
	if (b.done.n != 0)
		dvp_mempool_put_bulk(b.done.pool, (void *const *)b.done.pkts, b.done.n);
	return taken;
}

static __dvp_noinline uint16_t mlx5_empw_inl_rest_plain(struct mlx5_txq *txq,
							struct dvp_mbuf **pkts, uint32_t n,
							uint32_t i, uint32_t wqe_ci, uint8_t *last,
							uint32_t bytes)
{
	return mlx5_empw_inl_rest(txq, pkts, n, i, wqe_ci, last, bytes, false, false);
}

static __dvp_noinline uint16_t mlx5_empw_inl_rest_cs(struct mlx5_txq *txq, struct dvp_mbuf **pkts,
						     uint32_t n, uint32_t i, uint32_t wqe_ci,
						     uint8_t *last, uint32_t bytes)
{
	return mlx5_empw_inl_rest(txq, pkts, n, i, wqe_ci, last, bytes, true, false);
}

static __dvp_noinline uint16_t mlx5_empw_inl_rest_off(struct mlx5_txq *txq, struct dvp_mbuf **pkts,
						      uint32_t n, uint32_t i, uint32_t wqe_ci,
						      uint8_t *last, uint32_t bytes)
{
	return mlx5_empw_inl_rest(txq, pkts, n, i, wqe_ci, last, bytes, true, true);
}

/*
 * The eMPW path with packets inline in the session (txq_inline_mpw, when
 * the port has txqs_min_inline tx queues, as DPDK's
 * mlx5_tx_burst_empw_inline): a frame of up to inline_mpw bytes goes as an
 * inline data segment (byte count | MLX5_INLINE_SEG, the bytes, padding
 * to 16), a longer one by pointer as above. The device then reads no data
 * behind short frames, only the WQE.
 *
 * A burst of short frames (MLX5_EMPW_FAST_MIN to MLX5_EMPW_FAST_MAX
 * bytes, lone unshared segments of the queue's simple pool, with the
 * same checksum flags) goes in fast sessions alone (mlx5_empw_inl_fast());
 * whatever else, out of line (mlx5_empw_inl_rest()). Fast frames take no
 * slot in the ring of mbufs: their mbufs go back to their pool at the
 * burst's end, in one bulk put, as the device reads only the WQE.
 */
static __dvp_always_inline uint16_t mlx5_tx_burst_empw_inl_tmpl(struct mlx5_txq *txq,
								struct dvp_mbuf **pkts, uint16_t n,
								bool cs, bool off)
{
	uint32_t wqe_ci, bytes = 0, i = 0;
	uint8_t *last = NULL;

	if (!mlx5_tx_burst_begin(txq))
		return 0;
	/*
	 * Completions first (an error among them resets the counters read
	 * below), when they would give something back: mbufs, or blocks for
	 * an SQ more than half full; and for a burst of none, the way an
	 * application asks for them.
	 */
	if (txq->elts_head != txq->elts_tail || n == 0 ||
	    txq->wqe_ci - txq->wqe_tail > txq->wqe_n / 2)
		mlx5_tx_complete(txq);
	wqe_ci = txq->wqe_ci;
	if (dvp_likely(txq->inline_mpw >= MLX5_EMPW_FAST_MAX && n != 0)) {
		const struct dvp_mempool *spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;

		if (dvp_likely(mlx5_empw_inl_fast_fits(txq, wqe_ci, n))) {
			i = mlx5_empw_inl_fast(txq, pkts, n, spool, &wqe_ci, &last, &bytes, cs,
					       off);
			if (dvp_likely(i == n)) {
				dvp_counter_add(&txq->st.inlined, n);
				mlx5_tx_burst_end(txq, wqe_ci, txq->elts_head, last, n, bytes, n);
				dvp_mempool_put_bulk(pkts[0]->pool, (void *const *)pkts, n);
				return n;
			}
		}
	}
	return (off ? mlx5_empw_inl_rest_off :
		cs  ? mlx5_empw_inl_rest_cs :
		      mlx5_empw_inl_rest_plain)(txq, pkts, n, i, wqe_ci, last, bytes);
}

#endif /* MLX5_TX_EMPW_H */
