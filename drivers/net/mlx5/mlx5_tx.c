/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The tx burst functions of the mlx5 PMD (their bodies are inline in
 * mlx5_tx.h and mlx5_tx_empw.h) and the general send path (several
 * segments, whole-frame inline, short frames). What runs when a queue goes
 * wrong is in mlx5_err.c.
 */

#include <errno.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_vect.h>

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_tx.h"
#include "mlx5_tx_empw.h"

/* SEND WQEs (mlx5_tx.h), each with a twin for queues asking for checksum offloads. */
MLX5_TX_BURST_DECL(, mlx5_tx_burst_tmpl)
/* Enhanced multi-packet send WQEs, when the device has them (mlx5_tx_empw.h). */
MLX5_TX_BURST_DECL(_empw, mlx5_tx_burst_empw_tmpl)
/* eMPW with short frames inline in the session (txq_inline_mpw). */
MLX5_TX_BURST_DECL(_empw_inl, mlx5_tx_burst_empw_inl_tmpl)

dvp_tx_burst_fn mlx5_tx_burst_inl_pick(bool cs)
{
#ifdef MLX5_TX_AVX2
	if (dvp_vect_get_max_simd_bitwidth() >= DVP_VECT_SIMD_256 && __builtin_cpu_supports("avx2"))
		return cs ? mlx5_tx_burst_empw_inl_avx2_cs : mlx5_tx_burst_empw_inl_avx2;
#endif
	return cs ? mlx5_tx_burst_empw_inl_cs : mlx5_tx_burst_empw_inl;
}

/*
 * A one-segment frame the fast path cannot take at a glance: shared (a
 * reference count above 1), from another pool than the queue's simple one,
 * or from a pool of several MRs. Make its pool the simple one when nothing
 * is outstanding, else mark it (elts index @p elt) to be freed mbuf by
 * mbuf. @return its lkey (big-endian), htobe32(MLX5_INVALID_LKEY) when no
 * registered pool holds it.
 */
uint32_t mlx5_tx_not_simple(struct mlx5_txq *txq, const struct dvp_mbuf *m, uint32_t elt)
{
	uint32_t lkey;

	if (mlx5_tx_mbuf_foreign(m))
		return htobe32(MLX5_INVALID_LKEY); /* the general path stops there */
	lkey = mlx5_mr_lkey(&txq->mr, m);
	if (lkey == htobe32(MLX5_INVALID_LKEY))
		return lkey;
	if (dvp_mbuf_refcnt_read(m) == 1 && elt == txq->elts_tail) {
		/* Nothing outstanding: its pool is the simple one from now on. */
		txq->simple_pool = m->pool;
		txq->simple_lkey = mlx5_mr_pool_lkey(txq->mr.tbl, m->pool);
		if (txq->simple_lkey != 0)
			return lkey;
	}
	txq->last_complex = elt + 1;
	return lkey;
}

__dvp_cold __dvp_noinline void mlx5_tx_mr_forget(struct mlx5_txq *txq)
{
	mlx5_mr_cache_flush(&txq->mr);
	/*
	 * No packet takes the simple pool's lkey until mlx5_tx_not_simple()
	 * has looked again, and those outstanding are freed one by one: the
	 * simple pool may be gone, and another made at its address.
	 */
	txq->simple_lkey = 0;
	txq->last_complex = txq->elts_head;
}

/* Copy @p len bytes of the packet from byte @p off on into @p dst. */
static void pkt_copy(const struct dvp_mbuf *m, uint32_t off, uint8_t *dst, uint32_t len)
{
	for (; m != NULL && len > 0; m = m->next) {
		uint32_t n;

		if (off >= m->data_len) {
			off -= m->data_len;
			continue;
		}
		n = DVP_MIN(len, (uint32_t)m->data_len - off);
		memcpy(dst, dvp_pktmbuf_mtod_offset(m, const uint8_t *, off), n);
		dst += n;
		len -= n;
		off = 0;
	}
}

static void tx_drop(struct mlx5_txq *txq, struct dvp_mbuf *m, bool mr_miss)
{
	if (mr_miss)
		dvp_counter_add(&txq->st.mr_miss, 1);
	dvp_counter_add(&txq->st.errors, 1);
	dvp_pktmbuf_free(m);
}

/* Hosted builds stop a burst before an mbuf they cannot send as it is (mlx5_tx.h). */
#define MLX5_TX_STOPS (MLX5_TX_FOREIGN_HI != 0)

/* A chain the queue was not set up for, or a foreign buffer in any segment. */
static bool tx_stops_at(const struct mlx5_txq *txq, const struct dvp_mbuf *m)
{
	if (!MLX5_TX_STOPS)
		return false;
	if (m->next != NULL && !(txq->offloads & DVP_TX_OFFLOAD_MULTI_SEGS))
		return true;
	for (; m != NULL; m = m->next)
		if (mlx5_tx_mbuf_foreign(m))
			return true;
	return false;
}

/*
 * Any frame: several segments, inlined whole, or with an inline part other
 * than the fast path's 18 bytes. The WQE is built in a local buffer and
 * copied block by block, wrapping at the end of the ring.
 * @return 0 when @p m was taken (sent or dropped, and counted), -1 when
 *   the ring has no room for it now or (hosted builds) it cannot be sent
 *   as it is: the burst stops there.
 */
int mlx5_tx_generic(struct mlx5_txq *txq, struct dvp_mbuf *m, uint8_t **last)
{
	uint8_t buf[MLX5_WQE_MAX_DS * MLX5_WSEG_SIZE] __dvp_aligned(64);
	struct mlx5_wqe_eth_seg *es = (struct mlx5_wqe_eth_seg *)(void *)(buf + MLX5_WSEG_SIZE);
	uint32_t len = m->pkt_len, inl, ds, nds = 0, bbs, off, skip;
	const struct dvp_mbuf *s;
	bool whole;

	if (tx_stops_at(txq, m))
		return -1;
	/*
	 * Shorter than the 18 bytes of Ethernet and a VLAN tag: no send WQE of
	 * the device's takes it (DPDK refuses these lengths too, as the
	 * offloads may fail on them): dropped, counted.
	 */
	if (dvp_unlikely(len < MLX5_ESEG_MIN_INLINE_SIZE || len > txq->frame_max)) {
		tx_drop(txq, m, false);
		return 0;
	}
	whole = len <= txq->inline_max;
	inl = whole ? len : DVP_MIN(txq->inline_min, len);
	for (s = m, skip = inl; s != NULL; s = s->next) {
		if (s->data_len <= skip) {
			skip -= s->data_len;
			continue;
		}
		nds++;
		skip = 0;
	}
	ds = 1 + mlx5_eseg_ds(inl) + nds;
	if (dvp_unlikely(ds > MLX5_WQE_MAX_DS)) {
		/* More segments than a WQE holds: the application must linearise it. */
		tx_drop(txq, m, false);
		return 0;
	}
	bbs = mlx5_wqe_ds_to_bbs(ds);
	if (bbs > txq->wqe_n - (txq->wqe_ci - txq->wqe_tail) ||
	    (!whole && txq->elts_head - txq->elts_tail == txq->elts_n))
		return -1;
	memset(buf, 0, (size_t)bbs * MLX5_SEND_WQE_BB);
	mlx5_wqe_ctrl_fill((struct mlx5_wqe_ctrl_seg *)(void *)buf, txq->wqe_ci, MLX5_OPCODE_SEND,
			   txq->sqn, ds, MLX5_WQE_CTRL_FIRST_ERR);
	es->cs_flags = txq->cs_tbl[(m->ol_flags >> 52) & 7];
	es->inline_hdr_sz = htobe16((uint16_t)inl);
	pkt_copy(m, 0, es->inline_hdr_start, inl);
	off = (1 + mlx5_eseg_ds(inl)) * MLX5_WSEG_SIZE;
	for (s = m, skip = inl; s != NULL; s = s->next) {
		struct mlx5_wqe_data_seg *d = (struct mlx5_wqe_data_seg *)(void *)(buf + off);
		uint32_t lkey;

		if (s->data_len <= skip) {
			skip -= s->data_len;
			continue;
		}
		lkey = mlx5_mr_lkey(&txq->mr, s);
		if (dvp_unlikely(lkey == htobe32(MLX5_INVALID_LKEY))) {
			if (MLX5_TX_STOPS)
				return -1; /* nothing written to the ring yet */
			tx_drop(txq, m, true);
			return 0;
		}
		d->byte_count = htobe32(s->data_len - skip);
		d->lkey = lkey;
		d->addr = htobe64((uintptr_t)dvp_pktmbuf_mtod_offset(s, const uint8_t *, skip));
		off += MLX5_WSEG_SIZE;
		skip = 0;
	}
	for (uint32_t b = 0; b < bbs; b++)
		memcpy(mlx5_tx_wqe(txq, txq->wqe_ci + b), buf + b * MLX5_SEND_WQE_BB,
		       MLX5_SEND_WQE_BB);
	*last = mlx5_tx_wqe(txq, txq->wqe_ci);
	txq->wqe_ci += bbs;
	dvp_counter_add(&txq->st.packets, 1);
	dvp_counter_add(&txq->st.bytes, len);
	if (whole) {
		/* Every byte is in the WQE: the mbuf is free to go now. */
		dvp_counter_add(&txq->st.inlined, 1);
		dvp_pktmbuf_free(m);
	} else {
		txq->elts[txq->elts_head & txq->elts_mask] = m;
		txq->elts_head++;
		txq->last_complex = txq->elts_head; /* freed mbuf by mbuf */
	}
	return 0;
}
