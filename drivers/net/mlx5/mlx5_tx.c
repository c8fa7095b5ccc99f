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

/* SEND WQEs (mlx5_tx.h), each with twins for queues asking for offloads. */
MLX5_TX_BURST_DECL(, mlx5_tx_burst_tmpl)
/* Enhanced multi-packet send WQEs, when the device has them (mlx5_tx_empw.h). */
MLX5_TX_BURST_DECL(_empw, mlx5_tx_burst_empw_tmpl)
/* eMPW with short frames inline in the session (txq_inline_mpw). */
MLX5_TX_BURST_DECL(_empw_inl, mlx5_tx_burst_empw_inl_tmpl)

dvp_tx_burst_fn mlx5_tx_burst_inl_pick(bool cs, bool off)
{
#ifdef MLX5_TX_AVX2
	if (dvp_vect_get_max_simd_bitwidth() >= DVP_VECT_SIMD_256 && __builtin_cpu_supports("avx2"))
		return off ? mlx5_tx_burst_empw_inl_avx2_off :
		       cs  ? mlx5_tx_burst_empw_inl_avx2_cs :
			     mlx5_tx_burst_empw_inl_avx2;
#endif
	return off ? mlx5_tx_burst_empw_inl_off :
	       cs  ? mlx5_tx_burst_empw_inl_cs :
		     mlx5_tx_burst_empw_inl;
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
 * The headers of a TSO frame (l2_len + l3_len + l4_len), all inlined in
 * its WQE: at most this many bytes, as DPDK's MLX5_MAX_TSO_HEADER.
 */
#define MLX5_TSO_HDR_MAX 192u

/* Bytes of 802.1Q tag the driver writes into the inline headers. */
#define MLX5_VLAN_TAG_LEN 4u

/*
 * Whether the TSO request of @p m (@p vlan: with a tag to insert) is one
 * the device takes: a segment size, headers of plausible lengths that fit
 * the WQE, a payload after them of at most tso_max bytes, and segments of
 * at most frame_max bytes.
 */
static bool tso_ok(const struct mlx5_txq *txq, const struct dvp_mbuf *m, bool vlan)
{
	uint32_t hdr = m->tx.l2_len + m->tx.l3_len + m->tx.l4_len;

	return m->tx.tso_segsz != 0 && m->tx.l2_len >= 14 && m->tx.l3_len >= 20 &&
	       m->tx.l4_len >= 20 && hdr <= MLX5_TSO_HDR_MAX && hdr < m->pkt_len &&
	       m->pkt_len - hdr <= txq->tso_max &&
	       hdr + (vlan ? MLX5_VLAN_TAG_LEN : 0) + m->tx.tso_segsz <= txq->frame_max;
}

/*
 * The @p hdr first bytes of @p m into @p dst, with the tag of @p vlan_tci
 * after the MAC addresses when @p vlan (@p hdr at least 12).
 */
static void inline_headers(const struct dvp_mbuf *m, uint8_t *dst, uint32_t hdr, bool vlan)
{
	uint16_t tag[2] = { htobe16(0x8100), htobe16(m->vlan_tci) };

	if (!vlan) {
		pkt_copy(m, 0, dst, hdr);
		return;
	}
	pkt_copy(m, 0, dst, 12);
	memcpy(dst + 12, tag, sizeof(tag));
	pkt_copy(m, 12, dst + 12 + MLX5_VLAN_TAG_LEN, hdr - 12);
}

/*
 * Any frame: several segments, inlined whole, with an inline part other
 * than the fast path's 18 bytes, a VLAN tag to insert or TSO (on queues
 * with those offloads). The WQE is built in a local buffer and copied
 * block by block, wrapping at the end of the ring.
 *
 * The tag goes in the Ethernet segment where the device inserts it and
 * the WQE inlines no header; else into the inlined headers (at least 18
 * bytes then), as DPDK. A TSO frame is an LSO WQE: every header inlined
 * (with the tag), mss the segment size, the IPv4 and TCP checksums asked.
 * A TSO request the device would refuse is dropped and counted.
 * @return 0 when @p m was taken (sent or dropped, and counted), -1 when
 *   the ring has no room for it now or (hosted builds) it cannot be sent
 *   as it is: the burst stops there.
 */
int mlx5_tx_generic(struct mlx5_txq *txq, struct dvp_mbuf *m, uint8_t **last)
{
	uint8_t buf[MLX5_WQE_MAX_DS * MLX5_WSEG_SIZE] __dvp_aligned(64);
	struct mlx5_wqe_eth_seg *es = (struct mlx5_wqe_eth_seg *)(void *)(buf + MLX5_WSEG_SIZE);
	uint32_t len = m->pkt_len, hdr, inl, ds, nds = 0, bbs, off, skip, wire;
	uint64_t fl = m->ol_flags & txq->off_flags;
	bool vlan = (fl & DVP_MBUF_F_TX_VLAN) != 0, tso = (fl & DVP_MBUF_F_TX_TCP_SEG) != 0;
	bool whole, vlan_hw;
	const struct dvp_mbuf *s;
	uint8_t cs = txq->cs_tbl[(m->ol_flags >> 52) & 7];

	if (tx_stops_at(txq, m))
		return -1;
	wire = len + (vlan ? MLX5_VLAN_TAG_LEN : 0);
	if (tso) {
		if (dvp_unlikely(!tso_ok(txq, m, vlan))) {
			tx_drop(txq, m, false);
			return 0;
		}
		whole = false;
		hdr = m->tx.l2_len + m->tx.l3_len + m->tx.l4_len;
		cs |= MLX5_ETH_WQE_L4_CSUM |
		      ((m->ol_flags & (DVP_MBUF_F_TX_IPV4 | DVP_MBUF_F_TX_IP_CKSUM)) != 0 ?
			       MLX5_ETH_WQE_L3_CSUM :
			       0);
	} else {
		/*
		 * Shorter than the 18 bytes of Ethernet and a VLAN tag: no send
		 * WQE of the device's takes it (DPDK refuses these lengths too,
		 * as the offloads may fail on them): dropped, counted.
		 */
		if (dvp_unlikely(len < MLX5_ESEG_MIN_INLINE_SIZE || wire > txq->frame_max)) {
			tx_drop(txq, m, false);
			return 0;
		}
		whole = wire <= txq->inline_max;
		hdr = whole ? len : DVP_MIN(txq->inline_min, len);
	}
	vlan_hw = vlan && hdr == 0 && txq->vlan_hw;
	if (vlan && !vlan_hw) {
		hdr = DVP_MAX(hdr, MLX5_ESEG_MIN_INLINE_SIZE);
		inl = hdr + MLX5_VLAN_TAG_LEN;
	} else {
		inl = hdr;
	}
	for (s = m, skip = hdr; s != NULL; s = s->next) {
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
	mlx5_wqe_ctrl_fill((struct mlx5_wqe_ctrl_seg *)(void *)buf, txq->wqe_ci,
			   tso ? MLX5_OPCODE_TSO : MLX5_OPCODE_SEND, txq->sqn, ds,
			   MLX5_WQE_CTRL_FIRST_ERR);
	es->cs_flags = cs;
	if (tso)
		es->mss = htobe16(m->tx.tso_segsz);
	if (vlan_hw) {
		uint32_t w = htobe32(MLX5_ETH_WQE_VLAN_INSERT | m->vlan_tci);

		memcpy(&es->inline_hdr_sz, &w, sizeof(w));
	} else {
		es->inline_hdr_sz = htobe16((uint16_t)inl);
		inline_headers(m, es->inline_hdr_start, hdr, vlan);
	}
	off = (1 + mlx5_eseg_ds(inl)) * MLX5_WSEG_SIZE;
	for (s = m, skip = hdr; s != NULL; s = s->next) {
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
	dvp_counter_add(&txq->st.bytes, wire);
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
