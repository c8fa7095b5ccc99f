/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The vector rx burst of the mlx5 PMD for x86-64 (SSE4.2, chosen at run
 * time by mlx5_rx_burst_select()). Eight CQEs a step: their op_own bytes
 * are checked at once, then one read barrier; their header types and
 * checksum verdicts are most often those of the CQE before, whose table
 * entry then serves all eight, else they become eight table offsets in
 * one multiply (the table of mlx5_rx_vec_ent gives rearm_data, ol_flags
 * and packet_type, as cqe_flags and cqe_ptype do for the scalar burst);
 * each CQE's byte count is byte-swapped by a shuffle into the mbuf's
 * pkt_len and data_len. An mbuf takes two 16-byte stores.
 *
 * A step whose eight CQEs are not all plain receives of the current pass
 * goes to the scalar mlx5_rx_run() with the rest of the stretch, as do
 * the last CQEs of a stretch (fewer than eight): that code stops where the
 * scalar burst stops and says whether the slow path must look.
 */

#pragma GCC target("sse4.2")

#include <immintrin.h>
#include <stddef.h>
#include <string.h>

#include "mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_comp.h"
#include "mlx5_rx_vec.h"

/* The two stores of an mbuf: rearm_data + ol_flags, packet_type .. hash.rss. */
_Static_assert(offsetof(struct dvp_mbuf, ol_flags) == offsetof(struct dvp_mbuf, rearm_data) + 8,
	       "ol_flags follows rearm_data");
_Static_assert(offsetof(struct dvp_mbuf, packet_type) == offsetof(struct dvp_mbuf, rearm_data) + 16,
	       "packet_type follows ol_flags");
_Static_assert(offsetof(struct dvp_mbuf, pkt_len) == offsetof(struct dvp_mbuf, packet_type) + 4 &&
		       offsetof(struct dvp_mbuf, data_len) ==
			       offsetof(struct dvp_mbuf, packet_type) + 8 &&
		       offsetof(struct dvp_mbuf, hash) ==
			       offsetof(struct dvp_mbuf, packet_type) + 12,
	       "packet_type, pkt_len, data_len, vlan_tci, hash.rss in 16 bytes");
_Static_assert(offsetof(struct mlx5_cqe64, byte_cnt) == 44, "byte_cnt at 44");
_Static_assert(sizeof(struct mlx5_rx_vec_ent) == 32, "32-byte table entries");

static __dvp_always_inline uint16_t rx_vec_le16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The op_own bytes of eight CQEs (each in the high byte of a word, in no
 * particular order). Not atomic loads, so that they fold into movd and
 * pinsrw: x86 keeps loads in order, and the read barrier after the check
 * (a compiler barrier too) separates them from the CQEs' other fields and
 * from the next step. ThreadSanitizer needs to see the atomic loads.
 */
static __dvp_always_inline __m128i rx_vec_own8(const struct mlx5_cqe64 *cqe)
{
#ifdef __SANITIZE_THREAD__
	/* Lane numbers are immediates: spelled out, so that -O0 builds too. */
#define RX_VEC_OWN(j) ((int)mlx5_cqe_op_own_load(&cqe[j]) << 8)
	__m128i v = _mm_cvtsi32_si128(RX_VEC_OWN(0));

	v = _mm_insert_epi16(v, RX_VEC_OWN(1), 1);
	v = _mm_insert_epi16(v, RX_VEC_OWN(2), 2);
	v = _mm_insert_epi16(v, RX_VEC_OWN(3), 3);
	v = _mm_insert_epi16(v, RX_VEC_OWN(4), 4);
	v = _mm_insert_epi16(v, RX_VEC_OWN(5), 5);
	v = _mm_insert_epi16(v, RX_VEC_OWN(6), 6);
	v = _mm_insert_epi16(v, RX_VEC_OWN(7), 7);
#undef RX_VEC_OWN
	return v;
#else
	uint32_t w;
	__m128i v;

	/* wqe_counter, signature, op_own of the first: op_own in word 1. */
	memcpy(&w, &cqe[0].wqe_counter, sizeof(w));
	v = _mm_cvtsi32_si128((int)w);
	/* Lane numbers are immediates: spelled out, so that -O0 builds too. */
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[1].signature), 0);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[2].signature), 2);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[3].signature), 3);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[4].signature), 4);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[5].signature), 5);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[6].signature), 6);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[7].signature), 7);
	return v;
#endif
}

/* hds_ip_ext | l4_hdr_type_etc << 8 of eight CQEs, in their order. */
static __dvp_always_inline __m128i rx_vec_hdr8(const struct mlx5_cqe64 *cqe)
{
	uint32_t w;
	__m128i v;

	/* hds_ip_ext, l4_hdr_type_etc, vlan_info of the first: word 1 is overwritten. */
	memcpy(&w, &cqe[0].hds_ip_ext, sizeof(w));
	v = _mm_cvtsi32_si128((int)w);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[1].hds_ip_ext), 1);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[2].hds_ip_ext), 2);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[3].hds_ip_ext), 3);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[4].hds_ip_ext), 4);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[5].hds_ip_ext), 5);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[6].hds_ip_ext), 6);
	v = _mm_insert_epi16(v, rx_vec_le16(&cqe[7].hds_ip_ext), 7);
	return v;
}

/*
 * Fill @p m from CQE @p c with @p rf (rearm_data, ol_flags) and *@p pt
 * (packet_type, zeros) of its table entry; add its length to @p sum. pt
 * is read where it is used: an operand of por, not a register to copy.
 */
static __dvp_always_inline void rx_vec_mbuf(struct dvp_mbuf *m, const struct mlx5_cqe64 *c,
					    __m128i rf, const __m128i *pt, __m128i *sum, bool hash)
{
	/* byte_cnt (bytes 12..15 of the CQE's third 16) -> pkt_len, data_len. */
	const __m128i len_shuf =
		_mm_setr_epi8(-1, -1, -1, -1, 15, 14, 13, 12, 15, 14, -1, -1, -1, -1, -1, -1);
	/* The RSS hash result (bytes 12..15 of the first 16) -> hash.rss. */
	const __m128i rss_shuf =
		_mm_setr_epi8(-1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 15, 14, 13, 12);
	const uint8_t *b = (const uint8_t *)c;
	__m128i d = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)(b + 32)),
				     len_shuf);

	if (hash)
		d = _mm_or_si128(d,
				 _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(const void *)b),
						  rss_shuf));
	d = _mm_or_si128(d, _mm_load_si128(pt));
	_mm_storeu_si128((__m128i *)(void *)&m->rearm_data, rf);
	_mm_storeu_si128((__m128i *)(void *)&m->packet_type, d);
	/* Lane 1 is pkt_len (the table's lane 1 is zero). */
	*sum = _mm_add_epi32(*sum, d);
}

/* What the steps of one run share. */
struct rx_vec {
	const uint64_t *tbl; /* rxq->vec_tbl in 8-byte units: an entry is at idx * 4 */
	__m128i own; /* op_own of a plain receive of this pass in each word's high byte */
	__m128i last; /* the masked header word of the CQE before, in each word */
	__m128i rf; /* its entry's rearm_data and ol_flags */
	const __m128i *pt; /* its entry's packet_type and zeros */
	__m128i sum; /* lane 1: the bytes of the mbufs filled */
	const __m128i *ent; /* its entry */
};

/*
 * One step: eight CQEs from @p cqe into the mbufs @p e, listed in @p o.
 * @return false, having touched nothing, when they are not all plain
 * receives of this pass.
 */
static __dvp_always_inline bool rx_vec_step(struct rx_vec *v, const struct mlx5_cqe64 *cqe,
					    struct dvp_mbuf *const *e, struct dvp_mbuf **o,
					    bool hash)
{
	const __m128i own_mask = _mm_set1_epi16((short)(MLX5_OP_OWN_CHECK_MASK << 8));
	const __m128i hdr_mask = _mm_set1_epi16((short)0xfc06);
	const __m128i hdr_mul = _mm_set1_epi16(8 << 8 | 4);
	uint16_t offs[8];
	__m128i hdr, off;

	if (!_mm_testz_si128(_mm_xor_si128(rx_vec_own8(cqe), v->own), own_mask))
		return false;
	/* The rest of the CQEs after their ownership (udma_from_device_barrier). */
	dvp_dma_from_device_barrier();
	hdr = rx_vec_hdr8(cqe);
	/* In place (gcc would xor into a copy of last): hdr is not needed after. */
	__asm__("pxor %1, %0" : "+x"(hdr) : "x"(v->last));
	if (dvp_likely(_mm_testz_si128(hdr, hdr_mask))) {
#pragma GCC unroll 8
		for (int j = 0; j < 8; j++) {
			struct dvp_mbuf *m = e[j];

			/* Before the mbuf's stores, which could alias e[]. */
			o[j] = m;
			rx_vec_mbuf(m, &cqe[j], v->rf, v->pt, &v->sum, hash);
		}
		return true;
	}
	/* Read again rather than kept: the usual step above needs only the verdict. */
	off = _mm_and_si128(rx_vec_hdr8(cqe), hdr_mask);
	hdr = off;
	off = _mm_maddubs_epi16(off, hdr_mul);
	/* Through memory: a lane number must be an immediate, which -O0 does not unroll to. */
	_mm_storeu_si128((__m128i *)(void *)offs, off);
#pragma GCC unroll 8
	for (int j = 0; j < 8; j++) {
		const __m128i *ent = (const __m128i *)(const void *)(v->tbl + offs[j]);
		struct dvp_mbuf *m = e[j];

		o[j] = m;
		rx_vec_mbuf(m, &cqe[j], _mm_load_si128(ent), ent + 1, &v->sum, hash);
	}
	/* The last CQE's word and entry are kept. */
	v->last = _mm_shuffle_epi32(_mm_shufflehi_epi16(hdr, 0xff), 0xff);
	v->ent = (const __m128i *)(const void *)(v->tbl + offs[7]);
	v->rf = _mm_load_si128(v->ent);
	v->pt = v->ent + 1;
	return true;
}

/*
 * The CQEs a stretch's steps leave (fewer than eight, or from a step that
 * is not eight plain receives): the scalar loop, out of line for the
 * burst's second stretch (after the ring's or the CQ's end), which is
 * seldom, so that the burst keeps its registers for the first; inline
 * elsewhere (@p tail_apart of rx_vec_run()).
 */
static __dvp_noinline uint32_t rx_vec_tail(const struct mlx5_rxq *rxq, uint32_t ci, uint32_t rq_ci,
					   struct dvp_mbuf **out, uint32_t run, uint32_t *bytes,
					   bool *slow)
{
	return mlx5_rx_run(rxq, ci, rq_ci, out, run, bytes, slow, false);
}

static __dvp_noinline uint32_t rx_vec_tail_hash(const struct mlx5_rxq *rxq, uint32_t ci,
						uint32_t rq_ci, struct dvp_mbuf **out, uint32_t run,
						uint32_t *bytes, bool *slow)
{
	return mlx5_rx_run(rxq, ci, rq_ci, out, run, bytes, slow, true);
}

/*
 * Up to @p run CQEs from @p ci (a stretch that wraps neither the CQ nor
 * the ring), as mlx5_rx_run() with the same arguments: steps of eight,
 * then the scalar code for the rest. A step checks the
 * op_own bytes of its CQEs at once, then issues one read barrier. Their
 * header types and checksum verdicts (hds_ip_ext | l4_hdr_type_etc << 8,
 * masked) are most often those of the CQE before: then the table entry
 * kept for that one (rxq->vec_last, rxq->vec_ent) serves them all. Otherwise each finds
 * its own (the index of the scalar burst, (l4_hdr_type_etc & 0xfc) << 1 |
 * (hds_ip_ext & 6), times 4 by one multiply: hds_ip_ext * 4 +
 * l4_hdr_type_etc * 8), and the last one's is kept.
 */
static __dvp_always_inline uint32_t rx_vec_run(struct mlx5_rxq *rxq, uint32_t ci, uint32_t rq_ci,
					       struct dvp_mbuf **out, uint32_t run, uint32_t *bytes,
					       bool *slow, bool hash, bool tail_apart)
{
	const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, ci);
	struct dvp_mbuf *const *e = &rxq->elts[rq_ci & rxq->wqe_mask];
	struct dvp_mbuf **o = out;
	struct rx_vec v;
	uint32_t k;

	v.tbl = (const uint64_t *)(const void *)rxq->vec_tbl;
	v.own = _mm_load_si128((const __m128i *)(const void *)rxq->vec_own[!!(ci & rxq->cqe_cnt)]);
	v.last = _mm_load_si128((const __m128i *)(const void *)rxq->vec_last);
	v.ent = (const __m128i *)(const void *)rxq->vec_ent;
	v.rf = _mm_load_si128(v.ent);
	v.pt = v.ent + 1;
	v.sum = _mm_setzero_si128();
	for (const struct mlx5_cqe64 *end = cqe + (run & ~7u); cqe != end; cqe += 8, e += 8, o += 8)
		if (!rx_vec_step(&v, cqe, e, o, hash))
			break;
	k = (uint32_t)(o - out);
	_mm_store_si128((__m128i *)(void *)rxq->vec_last, v.last);
	rxq->vec_ent = (const struct mlx5_rx_vec_ent *)(const void *)v.ent;
	/* Lane 1: the pkt_len of every mbuf. */
	*bytes += (uint32_t)_mm_extract_epi32(v.sum, 1);
	/* The steps' CQEs; mlx5_rx_run() does the tail's. */
	if (dvp_unlikely(mlx5_rx_ofl(rxq) != 0) && k > 0)
		mlx5_rx_ofl_run(rxq, mlx5_rx_ofl(rxq), ci, out, k);
	if (k < run && tail_apart)
		k += (hash ? rx_vec_tail_hash : rx_vec_tail)(rxq, ci + k, rq_ci + k, out + k,
							     run - k, bytes, slow);
	else if (k < run)
		k += mlx5_rx_run(rxq, ci + k, rq_ci + k, out + k, run - k, bytes, slow, hash);
	return k;
}

/*
 * mlx5_rx_zip_take() by shuffles: a mini-CQE's byte count (and, in the
 * hash format, its hash) byte-swapped into pkt_len and data_len
 * (hash.rss), or'd into the title's packet_type (and hash), and the
 * title's rearm_data and ol_flags: two 16-byte stores an mbuf, as
 * rx_vec_mbuf() gives a plain CQE's. A whole array whose WQEs do not wrap
 * the ring takes four 16-byte loads of two minis; the rest one at a time.
 */
static uint32_t rx_vec_zip_take(struct mlx5_rxq *rxq, uint32_t *ci, uint32_t *rq_ci,
				struct dvp_mbuf **out, uint32_t max, uint32_t *bytes, bool hash)
{
	const struct mlx5_rxq_zip *z = &rxq->zip;
	const uint32_t t = *ci, ai = z->ai, k = DVP_MIN(max, z->n - ai), mask = rxq->wqe_mask;
	const uint32_t rq = *rq_ci;
	const bool mini_hash = hash && rxq->comp_fmt == MLX5_MINI_CQE_HASH;
	/* Kept here: the mbuf stores could alias rxq->elts. */
	struct dvp_mbuf *const *const elts = rxq->elts;
	/*
	 * byte_cnt (bytes 4..7 of a mini) -> pkt_len, data_len; rx_hash_result
	 * (0..3) -> hash.rss: of the low mini of 16 bytes, and of the high one.
	 */
	const __m128i shuf_lo =
		mini_hash ? _mm_setr_epi8(-1, -1, -1, -1, 7, 6, 5, 4, 7, 6, -1, -1, 3, 2, 1, 0) :
			    _mm_setr_epi8(-1, -1, -1, -1, 7, 6, 5, 4, 7, 6, -1, -1, -1, -1, -1, -1);
	const __m128i shuf_hi = mini_hash ? _mm_setr_epi8(-1, -1, -1, -1, 15, 14, 13, 12, 15, 14,
							  -1, -1, 11, 10, 9, 8) :
					    _mm_setr_epi8(-1, -1, -1, -1, 15, 14, 13, 12, 15, 14,
							  -1, -1, -1, -1, -1, -1);
	const __m128i rf = _mm_set_epi64x((long long)z->ol_flags, (long long)rxq->mbuf_rearm);
	const __m128i pt =
		_mm_setr_epi32((int)z->ptype, 0, 0, hash && !mini_hash ? (int)z->hash : 0);
	__m128i sum = _mm_setzero_si128();

	for (uint32_t i = 0; i < k;) {
		const struct mlx5_mini_cqe8 *mc = mlx5_rx_zip_mini(rxq, t, ai + i);
		const uint32_t idx = (rq + i) & mask;
		uint32_t end;

		if (((ai + i) & 7u) == 0 && k - i >= MLX5_MINI_CQE_PER_CQE &&
		    idx + MLX5_MINI_CQE_PER_CQE <= mask + 1) {
			struct dvp_mbuf *const *e = &elts[idx];
			struct dvp_mbuf **o = out + i;

#pragma GCC unroll 4
			for (uint32_t j = 0; j < MLX5_MINI_CQE_PER_CQE; j += 2) {
				const __m128i q =
					_mm_loadu_si128((const __m128i *)(const void *)(mc + j));
				const __m128i d0 = _mm_or_si128(_mm_shuffle_epi8(q, shuf_lo), pt);
				const __m128i d1 = _mm_or_si128(_mm_shuffle_epi8(q, shuf_hi), pt);
				struct dvp_mbuf *m0 = e[j], *m1 = e[j + 1];

				/* Before the mbufs' stores, which could alias out[]. */
				o[j] = m0;
				o[j + 1] = m1;
				_mm_storeu_si128((__m128i *)(void *)&m0->rearm_data, rf);
				_mm_storeu_si128((__m128i *)(void *)&m0->packet_type, d0);
				_mm_storeu_si128((__m128i *)(void *)&m1->rearm_data, rf);
				_mm_storeu_si128((__m128i *)(void *)&m1->packet_type, d1);
				sum = _mm_add_epi32(sum, _mm_add_epi32(d0, d1));
			}
			i += MLX5_MINI_CQE_PER_CQE;
			continue;
		}
		/* Part of an array, or its WQEs wrap the ring. */
		end = i + DVP_MIN(k - i, MLX5_MINI_CQE_PER_CQE - ((ai + i) & 7u));
		for (; i < end; i++, mc++) {
			struct dvp_mbuf *m = elts[(rq + i) & mask];
			__m128i d = _mm_shuffle_epi8(
				_mm_loadl_epi64((const __m128i *)(const void *)mc), shuf_lo);

			d = _mm_or_si128(d, pt);
			out[i] = m;
			_mm_storeu_si128((__m128i *)(void *)&m->rearm_data, rf);
			_mm_storeu_si128((__m128i *)(void *)&m->packet_type, d);
			sum = _mm_add_epi32(sum, d);
		}
	}
	/* Lane 1: the pkt_len of every mbuf. */
	*bytes += (uint32_t)_mm_extract_epi32(sum, 1);
	mlx5_rx_zip_taken(rxq, ci, rq_ci, k);
	return k;
}

/*
 * mlx5_rx_replenish() with the pointers read where they lie in the
 * mempool's cache, written to the ring and, as addresses, to the WQEs in
 * one pass: two at a time, byte-swapped by a shuffle. For the usual case:
 * one stretch of the ring, one MR with every buffer at a fixed offset from
 * its mbuf, and a cache that has them; anything else the scalar way.
 */
static __dvp_always_inline void rx_vec_replenish(struct mlx5_rxq *rxq)
{
	const uint32_t pi = rxq->rq_pi, n = rxq->wqe_n - (pi - rxq->rq_ci);
	const uint32_t idx = pi & rxq->wqe_mask;
	void **objs;

	if (n < rxq->replenish_thresh)
		return;
	if (dvp_likely(n <= rxq->wqe_n - idx && rxq->buf_delta != 0) &&
	    (objs = dvp_mempool_cache_zc_get_bulk(rxq->mp, n)) != NULL) {
		const __m128i delta = _mm_set1_epi64x((long long)rxq->buf_delta);
		const __m128i bswap64 =
			_mm_setr_epi8(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8);
		struct dvp_mbuf **e = &rxq->elts[idx];
		struct mlx5_wqe_data_seg *w = mlx5_rx_wqe(rxq, idx);
		void **const end8 = objs + (n & ~7u), **const end = objs + n;

		for (; objs != end8; objs += 8, e += 8, w += 8) {
#pragma GCC unroll 4
			for (int j = 0; j < 8; j += 2) {
				__m128i p =
					_mm_loadu_si128((const __m128i *)(const void *)(objs + j));

				_mm_storeu_si128((__m128i *)(void *)(e + j), p);
				p = _mm_shuffle_epi8(_mm_add_epi64(p, delta), bswap64);
				_mm_storel_epi64((__m128i *)(void *)&w[j].addr, p);
				_mm_storeh_pd((double *)(void *)&w[j + 1].addr,
					      _mm_castsi128_pd(p));
			}
		}
		for (; objs != end; objs++, e++, w++) {
			*e = *objs;
			w->addr = htobe64((uintptr_t)*objs + rxq->buf_delta);
		}
		rxq->rq_pi = pi + n;
		/* The data segments above are written before the device sees the counter. */
		mlx5_rq_db(rxq->rq_db, pi + n);
		return;
	}
	mlx5_rx_replenish(rxq);
}

/* The vector path's parts of the compressed loop (mlx5_rx_comp_loop()). */
static uint32_t rx_vec_comp_run(struct mlx5_rxq *rxq, uint32_t ci, uint32_t rq_ci,
				struct dvp_mbuf **out, uint32_t run, uint32_t *bytes, bool *slow,
				bool hash)
{
	return rx_vec_run(rxq, ci, rq_ci, out, run, bytes, slow, hash, false);
}

static void rx_vec_comp_replenish(struct mlx5_rxq *rxq)
{
	rx_vec_replenish(rxq);
}

static const struct mlx5_rx_comp_ops rx_vec_comp_ops = {
	.take = rx_vec_zip_take,
	.run = rx_vec_comp_run,
	.replenish = rx_vec_comp_replenish,
};

static __dvp_noinline uint16_t rx_vec_comp_more(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
						uint32_t n, uint32_t k, uint32_t bytes, uint32_t ci,
						uint32_t rq_ci, bool slow)
{
	return mlx5_rx_comp_loop(rxq, pkts, n, k, bytes, ci, rq_ci, slow, false, &rx_vec_comp_ops);
}

static __dvp_noinline uint16_t rx_vec_comp_more_hash(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
						     uint32_t n, uint32_t k, uint32_t bytes,
						     uint32_t ci, uint32_t rq_ci, bool slow)
{
	return mlx5_rx_comp_loop(rxq, pkts, n, k, bytes, ci, rq_ci, slow, true, &rx_vec_comp_ops);
}

static __dvp_always_inline uint16_t rx_burst_vec(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
						 uint16_t n, bool hash)
{
	uint32_t ci = rxq->cq_ci, rq_ci = rxq->rq_ci, bytes = 0, run, k;
	bool slow = false;

	/* The vector steps do not read flow tags: while MARK rules live, the scalar burst. */
	if (dvp_unlikely(mlx5_rx_marking(rxq)))
		return mlx5_rx_burst_marked(rxq, pkts, n, hash);
	if (!mlx5_rx_burst_begin(rxq))
		return 0;
	run = mlx5_rx_stretch(rxq, ci, rq_ci, n);
	k = rx_vec_run(rxq, ci, rq_ci, pkts, run, &bytes, &slow, hash, false);
	if (dvp_unlikely(slow || (k == run && run < n))) {
		/*
		 * A queue whose CQ compresses: a stop at something ours (a title,
		 * an error) or at a wrap goes on in the compressed loop
		 * (mlx5_rx_comp.h) with the vector parts. An open session's title
		 * stays at cq_ci, so the steps stop on it at once (k is 0): the
		 * loop takes that session on, rather than opening it again. Checked
		 * here, not first thing, to keep a load and a branch off every burst.
		 */
		if (rxq->comp_fmt != MLX5_RX_COMP_OFF) {
			slow = slow && rxq->zip.n == 0;
			return hash ? rx_vec_comp_more_hash(rxq, pkts, n, k, bytes, ci + k,
							    rq_ci + k, slow) :
				      rx_vec_comp_more(rxq, pkts, n, k, bytes, ci + k, rq_ci + k,
						       slow);
		}
		if (k == run && run < n)
			k += rx_vec_run(rxq, ci + k, rq_ci + k, pkts + k, n - k, &bytes, &slow,
					hash, true);
	}
	mlx5_rx_done(rxq, ci, rq_ci, k, bytes);
	rx_vec_replenish(rxq);
	if (dvp_unlikely(slow))
		mlx5_rx_slow(rxq);
	return (uint16_t)k;
}

uint16_t mlx5_rx_burst_vec(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return rx_burst_vec(rxq, pkts, n, false);
}

uint16_t mlx5_rx_burst_vec_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n)
{
	return rx_burst_vec(rxq, pkts, n, true);
}
