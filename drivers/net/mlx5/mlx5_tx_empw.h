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

static __dvp_always_inline uint16_t mlx5_tx_burst_empw_tmpl(struct mlx5_txq *txq,
							    struct dvp_mbuf **pkts, uint16_t n,
							    bool cs)
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

	if (dvp_unlikely(__atomic_load_n(&txq->restart, __ATOMIC_RELAXED) != 0)) {
		mlx5_tx_slow(txq);
		return 0;
	}
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
				uint32_t len = m->data_len, rs;

				/* refcnt and nb_segs both 1: one 32-bit compare. */
				memcpy(&rs, &m->refcnt, sizeof(rs));
				if (dvp_unlikely(rs != 0x10001u || m->pool != spool ||
						 mlx5_tx_mbuf_foreign(m))) {
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
			w[0] = htobe32((wqe_ci & MLX5_WQ_INDEX_MASK) << MLX5_WQE_IDX_SHIFT |
				       MLX5_OPCODE_ENHANCED_MPSW) |
			       qpn | (uint64_t)htobe32(ds) << 32;
			w[1] = 0; /* signature, fm_ce_se (a completion is asked below), imm */
			w[2] = (uint64_t)ecs << 32; /* cs_flags */
			w[3] = 0; /* no inline header: eMPW takes none */
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
 * Copy a frame of @p len bytes (14 and more) into an inline segment's data
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
 * The eMPW path with packets inline in the session (txq_inline_mpw, when
 * the port has txqs_min_inline tx queues, as DPDK's
 * mlx5_tx_burst_empw_inline): a frame of up to inline_mpw bytes goes as an
 * inline data segment (byte count | MLX5_INLINE_SEG, the bytes, padding
 * to 16), a longer one by pointer as above; the two kinds mix in one
 * session of at most MLX5_EMPW_INL_MAX_DS units. The device then reads no
 * data behind short frames, only the WQE. Inline frames stay in the ring
 * of mbufs until their completion, as pointer ones (DPDK does the same):
 * freed in bulk, not one by one here.
 */
static __dvp_always_inline uint16_t mlx5_tx_burst_empw_inl_tmpl(struct mlx5_txq *txq,
								struct dvp_mbuf **pkts, uint16_t n,
								bool cs)
{
	const uint32_t inl_span = txq->inline_mpw - 13u, span = txq->frame_max - 13u;
	const uint64_t qpn = (uint64_t)htobe32(txq->sqn << MLX5_WQE_QPN_SHIFT) << 32;
	uint8_t *const sq_end = txq->sq + ((size_t)txq->wqe_n << 6);
	const struct dvp_mempool *spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
	uint32_t slkey = txq->simple_lkey;
	uint32_t wqe_ci, head, i = 0, sent = 0, bytes = 0, nptr = 0;
	uint8_t *last = NULL;

	if (dvp_unlikely(__atomic_load_n(&txq->restart, __ATOMIC_RELAXED) != 0)) {
		mlx5_tx_slow(txq);
		return 0;
	}
	/* Completions first: an error among them resets the counters read below. */
	mlx5_tx_complete(txq);
	wqe_ci = txq->wqe_ci;
	head = txq->elts_head;
	while (i < n) {
		uint32_t wqe_free = txq->wqe_n - (wqe_ci - txq->wqe_tail);
		uint32_t max = DVP_MIN(n - i, txq->elts_n - (head - txq->elts_tail));
		uint64_t *w = (uint64_t *)(void *)mlx5_tx_wqe(txq, wqe_ci);
		uint8_t *d = (uint8_t *)(w + 4);
		uint8_t ecs = cs ? txq->cs_tbl[(pkts[i]->ol_flags >> 52) & 7] : 0;
		uint32_t k = 0, units, ds, eidx;
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
			struct dvp_mbuf *m, **pk = pkts + i;
			/* The fast loop's bound: the session's end, short of the SQ's end. */
			uint8_t *lim = dend < sq_end ? dend : sq_end - 1;
			/* Indexes from -(max - k) up to 0: one register and no bound to compare. */
			struct dvp_mbuf **pe = pk + max, **ee = e + max;
			intptr_t j = (intptr_t)k - (intptr_t)max;
			uint32_t lkey = slkey, len, rs;

			/*
			 * Inline frames of the simple pool with the session's
			 * checksum flags, that fit: the common case, with as few
			 * live values as may be. Any other goes below, alone.
			 */
			for (; j != 0; j++) {
				uint32_t seg, bc;

				m = pe[j];
				len = m->data_len;
				memcpy(&rs, &m->refcnt, sizeof(rs));
				if (dvp_unlikely(rs != 0x10001u || m->pool != spool ||
						 len - 14u >= inl_span || mlx5_tx_mbuf_foreign(m)))
					break;
				if (cs && dvp_unlikely(txq->cs_tbl[(m->ol_flags >> 52) & 7] != ecs))
					break;
				seg = (len + 4 + MLX5_WSEG_SIZE - 1) & ~(MLX5_WSEG_SIZE - 1);
				if (dvp_unlikely(d + seg > lim))
					break;
				bc = htobe32(len | MLX5_INLINE_SEG);
				memcpy(d, &bc, sizeof(bc));
				mlx5_empw_copy(d + 4, dvp_pktmbuf_mtod(m, const uint8_t *), len);
				d += seg;
				ee[j] = m;
				bytes += len;
			}
			k = (uint32_t)((intptr_t)max + j);
			if (k == max)
				break;
			m = pk[k];
			len = m->data_len;

			memcpy(&rs, &m->refcnt, sizeof(rs));
			if (dvp_unlikely(rs != 0x10001u || m->pool != spool ||
					 mlx5_tx_mbuf_foreign(m))) {
				if (m->nb_segs != 1)
					break;
				lkey = mlx5_tx_not_simple(txq, m, head + k);
				if (lkey == htobe32(MLX5_INVALID_LKEY))
					break;
				spool = txq->simple_lkey != 0 ? txq->simple_pool : NULL;
				slkey = txq->simple_lkey;
			}
			if (cs && dvp_unlikely(txq->cs_tbl[(m->ol_flags >> 52) & 7] != ecs)) {
				ended = true;
				break;
			}
			/* 14 .. inline_mpw bytes (inline_mpw <= frame_max): one compare. */
			if (dvp_likely(len - 14u < inl_span)) {
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
			} else {
				struct mlx5_wqe_data_seg *p = (struct mlx5_wqe_data_seg *)(void *)d;

				if (dvp_unlikely(len - 14u >= span))
					break;
				if (d == dend) {
					ended = true; /* k > 0: a unit is left for the first */
					break;
				}
				nptr++;
				p->byte_count = htobe32(len);
				p->lkey = lkey;
				p->addr = htobe64((uintptr_t)m->buf_addr + m->data_off);
				d += MLX5_WSEG_SIZE;
				if (d == sq_end) {
					d = txq->sq;
					dend -= sq_end - txq->sq;
				}
			}
			e[k] = m;
			bytes += len;
		}
		ds = MLX5_EMPW_TITLE_DS + units - (uint32_t)(dend - d) / MLX5_WSEG_SIZE;
		if (k > 0) {
			w[0] = htobe32((wqe_ci & MLX5_WQ_INDEX_MASK) << MLX5_WQE_IDX_SHIFT |
				       MLX5_OPCODE_ENHANCED_MPSW) |
			       qpn | (uint64_t)htobe32(ds) << 32;
			w[1] = 0;
			w[2] = (uint64_t)ecs << 32;
			w[3] = 0;
			last = (uint8_t *)w;
			wqe_ci += mlx5_wqe_ds_to_bbs(ds);
			head += k;
			i += k;
			sent += k;
		}
		if (k == max || ended)
			continue;
		/* Not for a session (or no room for one): a SEND WQE, if it fits. */
		if (!mlx5_tx_one_generic(txq, pkts[i], &wqe_ci, &head, &last))
			break;
		i++;
	}
	if (sent != nptr)
		dvp_counter_add(&txq->st.inlined, sent - nptr);
	return mlx5_tx_burst_end(txq, wqe_ci, head, last, sent, bytes, i);
}

#endif /* MLX5_TX_EMPW_H */
