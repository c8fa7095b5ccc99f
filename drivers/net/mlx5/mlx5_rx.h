/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The receive fast path of the mlx5 PMD, inline: the rx queue structure
 * and rx_burst. It reads the adapter's own memory (CQ buffers, doorbell
 * records, the RQ's data segments) through the helpers of mlx5_db.h,
 * which carry the barriers of the mlx5 protocol. No system call, lock,
 * allocation or log on these paths: errors leave for out-of-line
 * functions in mlx5_rx.c.
 *
 * Counters: each queue is polled by one lcore, the only writer of its
 * counters (dvp_counter_add(), dvp_counter.h): a stats reset keeps a
 * baseline (dvp_port_counters.h) and never writes them.
 */

#ifndef MLX5_RX_H
#define MLX5_RX_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include <dvp_common.h>
#include <dvp_counter.h>
#include <dvp_rxwait_driver.h>
#include <dvp_mbuf.h>

#include "mlx5.h"
#include "mlx5_db.h"
#include "mlx5_mr.h"
#include "mlx5_prm.h"

/* A queue's counters (dvp_port_counters.h); the names are in mlx5_ethdev.c. */
struct mlx5_rxq_stats {
	uint64_t packets, bytes;
	uint64_t errors; /* cqe_errors + dropped_on_reset */
	uint64_t nombuf; /* mbufs the pool could not give */
	uint64_t cqe_errors; /* error CQEs */
	uint64_t restarts; /* queue recoveries */
	uint64_t dropped_on_reset; /* received, not taken, dropped by a stop or recovery */
};

struct mlx5_mprq;

/*
 * The compressed CQE session a queue is taking (legacy layout, doc/mlx5.md
 * "CQE compression"; mlx5_rx_comp.h). Its title stays at cq_ci, and the
 * device's consumer index with it, until all n packets are delivered;
 * packet ai's mini-CQE is in the slot cq_ci + 1 (ai < 8) or
 * cq_ci + (ai & ~7), entry ai & 7, and completed WQE counter rq_ci (packets
 * complete in WQE order). What the minis lack comes from the title, read
 * once when the session is opened. Any rx path may take a session another
 * left open: these fields are all there is to it.
 */
struct mlx5_rxq_zip {
	uint32_t n; /* packets in the open session (the title's byte_cnt); 0: none open */
	uint32_t ai; /* packets of it delivered */
	uint64_t ol_flags; /* from the title's header types and checksum verdicts */
	uint32_t ptype;
	uint32_t hash; /* the title's RSS hash: the packets' in the checksum format */
};

/*
 * A received mbuf from rearm_data on (rearm_data, ol_flags) and from
 * packet_type on (packet_type, then zeros for the lengths the CQE gives).
 */
struct mlx5_rx_vec_ent {
	uint64_t rearm;
	uint64_t ol_flags;
	uint32_t packet_type;
	uint32_t zero[3];
} __dvp_aligned(32);

/* mlx5_rxq.comp_fmt of a queue whose CQ does not compress. */
#define MLX5_RX_COMP_OFF 0xffu

struct mlx5_rxq {
	/* Hot: every burst. */
	struct mlx5_cqe64 *cqes;
	volatile __be32 *cq_db;
	volatile __be32 *rq_db;
	/*
	 * Data segments, 2^sges_log per WQE (16 bytes each): the ring below
	 * counts segments, so segment i of the ring is at wqes + 16 i and its
	 * mbuf at elts[i & wqe_mask], and a WQE is 2^sges_log of them.
	 */
	uint8_t *wqes;
	struct dvp_mbuf **elts;
	struct dvp_mempool *mp;
	struct mlx5_mprq *mprq; /* a multi-packet RQ's (mlx5_rx_mprq.h), else NULL */
	uint64_t mbuf_rearm; /* rearm_data of a received mbuf: data_off, refcnt 1, 1 seg, port */
	uint32_t cq_ci; /* next CQE to poll: 32-bit, the device sees 24 bits */
	uint32_t cqe_cnt;
	uint32_t rq_ci; /* segment of the WQE the next CQE completes */
	uint32_t rq_pi; /* segments posted: [rq_ci, rq_pi) hold mbufs */
	uint32_t wqe_mask; /* of the segment ring */
	uint32_t wqe_n; /* segments in the ring (WQEs << sges_log) */
	/* log2 of the data segments of a WQE: 0 but for rx scatter (mlx5_rx_sg.c). */
	uint8_t sges_log;
	uint32_t replenish_thresh; /* post fresh mbufs once this many slots are empty */
	uint32_t lkey_be; /* of every buffer when the pool is one MR, else 0 */
	/* With lkey_be: buffer address - mbuf address (header, private area, headroom), else 0. */
	uintptr_t buf_delta;
	uint16_t data_off;
	struct dvp_queue_fault fault; /* a restart asked for (dvp_port_fault.h) */
	struct mlx5_rxq_stats st;
	struct mlx5_rxq_zip zip;
	uint8_t comp_fmt; /* CQE compression: MLX5_MINI_CQE_HASH or _CSUM; MLX5_RX_COMP_OFF */
	/* A MARK or FLAG rule lives: deliver the flow tags (atomic, mlx5_flow_rules.c). */
	bool mark;
	/*
	 * MLX5_RXQ_OFL_*: CQE fields the bursts copy into the mbufs in a pass
	 * of their own (mlx5_rx_ofl_run()), tested once a run: 0 costs a
	 * queue without them nothing per packet. Written by the control path
	 * while bursts run (VLAN stripping at run time): a byte, read once a
	 * run, either value is a consistent queue.
	 */
	uint8_t ofl;
	/* Vector burst: the masked header word of the last CQE, 8 times, and its entry. */
	uint8_t vec_last[16] __dvp_aligned(16);
	const struct mlx5_rx_vec_ent *vec_ent;
	/* ... and op_own of a plain receive in each word's high byte, for each pass parity. */
	uint8_t vec_own[2][16] __dvp_aligned(16);
	struct mlx5_mr_cache mr;
	/*
	 * CQE header types and checksum verdicts -> ol_flags, packet_type, by
	 * (l4_hdr_type_etc & 0xfc) << 1 | (hds_ip_ext & (L3_OK | L4_OK)).
	 */
	uint64_t cqe_flags[512] __dvp_cache_aligned;
	uint32_t cqe_ptype[512];

	/* Cold: control path and error handling. */
	struct mlx5_owner owner __dvp_cache_aligned;
	struct mlx5_rxq_stats st_base; /* the counters at the last stats reset */
	uint64_t mr_misses_base;
	struct dvp_port *port;
	struct mlx5_priv *priv;
	struct ibv_comp_channel *channel; /* with interrupts */
	struct ibv_cq *cq;
	struct ibv_wq *wq;
	struct mlx5dv_cq dv_cq;
	struct mlx5dv_rwq dv_wq;
	uint32_t cqe_req; /* entries asked of create_cq */
	uint32_t wqe_stride;
	uint32_t buf_len; /* bytes of each receive buffer */
	uint32_t arm_sn; /* events received on this CQ: the arm doorbell's sn */
	bool started;
	bool hash; /* the RSS hash goes into the mbufs */
	int ts_off; /* with MLX5_RXQ_OFL_TS: the timestamp's offset in an mbuf ... */
	uint64_t ts_flag; /* ... and its ol_flags bit (dvp_mbuf_rx_timestamp_slot()) */
	int socket;
	uint64_t offloads;
	struct dvp_mbuf **tmp; /* wqe_n entries, for recovery */
	struct dvp_rxwait_queue iq;
	/*
	 * The vector burst's view of cqe_flags and cqe_ptype: per index, the
	 * first 32 bytes of a received mbuf's rx fields (mlx5_rx_vec.h).
	 */
	struct mlx5_rx_vec_ent vec_tbl[512] __dvp_cache_aligned;
};

/* mlx5_rxq.ofl: the WQ strips C-VLAN tags; rx timestamps go into the mbufs. */
#define MLX5_RXQ_OFL_VLAN 0x1u
#define MLX5_RXQ_OFL_TS 0x2u

/* The most data segments an rx WQE takes (rx scatter): DPDK's limit too. */
#define MLX5_RX_SGE_MAX 32u

/* Out of line (mlx5_rx.c). */
uint16_t mlx5_rx_burst(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_rx_burst_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
/*
 * Queues whose frames may take several buffers (rx scatter, mlx5_rx_sg.c),
 * compressing or not.
 */
uint16_t mlx5_rx_burst_sg(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_rx_burst_sg_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
/* Queues whose CQ compresses (mlx5_rx_comp.c). */
uint16_t mlx5_rx_burst_comp(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
uint16_t mlx5_rx_burst_comp_hash(void *rxq, struct dvp_mbuf **pkts, uint16_t n);
/* cq_drain's step over a compressed session at cq_ci (@p cqe): @return its slots; *frames += untaken. */
uint32_t mlx5_rx_zip_drop(struct mlx5_rxq *rxq, const struct mlx5_cqe64 *cqe, uint32_t *frames);
__dvp_cold void mlx5_rx_slow(struct mlx5_rxq *rxq);
/*
 * The flow tags of the @p k plain CQEs from @p ci on into their mbufs
 * @p out[] (DVP_MBUF_F_RX_FDIR, with a MARK's id in hash.fdir.hi); for a
 * compressed session, whose packets all have its title's @p sop_drop_qpn.
 * Called once per burst (or run), outside the per-packet loops, only
 * while mlx5_rx_marking(): nothing costs more without MARK rules.
 */
void mlx5_rx_mark(const struct mlx5_rxq *rxq, uint32_t ci, struct dvp_mbuf **out, uint32_t k);
void mlx5_rx_mark_same(struct dvp_mbuf **out, uint32_t k, __be32 sop_drop_qpn);
/* A queue that delivers flow tags, whatever its burst: the scalar one (compressed or not). */
uint16_t mlx5_rx_burst_marked(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts, uint16_t n, bool hash);

/* Whether the queue delivers flow tags (mlx5_flow_rules.c sets it). */
static __dvp_always_inline bool mlx5_rx_marking(const struct mlx5_rxq *rxq)
{
	return __atomic_load_n(&rxq->mark, __ATOMIC_RELAXED);
}
/* The MLX5_RXQ_OFL_* fields of the @p k mbufs @p out from the CQEs at @p ci on, one each. */
void mlx5_rx_ofl_run(const struct mlx5_rxq *rxq, uint8_t ofl, uint32_t ci,
		     struct dvp_mbuf *const *out, uint32_t k);

/* The queue's MLX5_RXQ_OFL_*: relaxed, a byte the control path may change between runs. */
static __dvp_always_inline uint8_t mlx5_rx_ofl(const struct mlx5_rxq *rxq)
{
	return __atomic_load_n(&rxq->ofl, __ATOMIC_RELAXED);
}
void mlx5_rx_replenish_multi(struct mlx5_rxq *rxq, uint32_t idx, uint32_t n);

/* Shared with the control path (mlx5_rxq.c). */
/* The longest frame the queue takes whole (its buffers, scatter, strides). */
uint32_t mlx5_rxq_frame_max(const struct mlx5_rxq *rxq);
int mlx5_rxq_recover(struct mlx5_rxq *rxq);
int mlx5_rxq_restart(struct mlx5_rxq *rxq);
void mlx5_rxq_fill_wqe(struct mlx5_rxq *rxq, uint32_t counter, struct dvp_mbuf *m);

/* ------------------------------------------------------------------------
 * Receive
 */

static __dvp_always_inline struct mlx5_wqe_data_seg *mlx5_rx_wqe(const struct mlx5_rxq *rxq,
								 uint32_t counter)
{
	return (struct mlx5_wqe_data_seg *)(void *)(rxq->wqes +
						    ((size_t)(counter & rxq->wqe_mask) << 4));
}

/*
 * The fields of a received mbuf of @p len bytes from its CQE: the rearm
 * word, and flags and packet type from the queue's tables by the header
 * types (l4_hdr_type_etc 7:2) and the L3_OK / L4_OK verdicts (2:1);
 * with @p hash, the RSS hash.
 */
static __dvp_always_inline void mlx5_rx_mbuf_fill(struct dvp_mbuf *m, const struct mlx5_cqe64 *cqe,
						  uint32_t len, uint64_t rearm,
						  const uint64_t *tflags, const uint32_t *tptype,
						  bool hash)
{
	unsigned int idx = ((unsigned int)cqe->l4_hdr_type_etc & 0xfcu) << 1 |
			   ((unsigned int)cqe->hds_ip_ext & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK));

	m->rearm_data = rearm;
	m->ol_flags = tflags[idx];
	m->packet_type = tptype[idx];
	m->pkt_len = len;
	m->data_len = (uint16_t)len;
	if (hash)
		m->hash.rss = mlx5_cqe_rx_hash(cqe);
}

/* A flow tag into @p m: 0 is no rule, 0xffffff FLAG, else a MARK id + 1 (mlx5_flow_rules.c). */
static __dvp_always_inline void mlx5_rx_mark_one(struct dvp_mbuf *m, uint32_t tag)
{
	if (tag == 0)
		return;
	if (tag == MLX5_CQE_FLOW_TAG_MASK) {
		m->ol_flags |= DVP_MBUF_F_RX_FDIR;
		return;
	}
	m->ol_flags |= DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID;
	m->hash.fdir.hi = tag - 1;
}

/*
 * The queue's MLX5_RXQ_OFL_* fields of @p m from its CQE: a stripped tag's
 * TCI (vlan_info, with the CVLAN-stripped bit) and the timestamp (the
 * device's free-running counter) into the mbuf's slot for it.
 */
static __dvp_always_inline void mlx5_rx_ofl_one(const struct mlx5_rxq *rxq, uint8_t ofl,
						struct dvp_mbuf *m, const struct mlx5_cqe64 *cqe)
{
	if ((ofl & MLX5_RXQ_OFL_VLAN) && (cqe->l4_hdr_type_etc & MLX5_CQE_VLAN_STRIPPED)) {
		m->ol_flags |= DVP_MBUF_F_RX_VLAN | DVP_MBUF_F_RX_VLAN_STRIPPED;
		m->vlan_tci = be16toh(cqe->vlan_info);
	}
	if (ofl & MLX5_RXQ_OFL_TS) {
		const uint64_t ts = be64toh(cqe->timestamp);

		memcpy((uint8_t *)m + rxq->ts_off, &ts, sizeof(ts));
		m->ol_flags |= rxq->ts_flag;
	}
}

/*
 * Post fresh mbufs into the empty slots [rq_pi, rq_ci + wqe_n): in bulk
 * from the pool, straight into the ring. When the pool cannot give them,
 * count rx_nombuf and leave the slots empty for the next burst: no slot
 * and no received packet is lost, the device only runs short of buffers.
 */
static __dvp_always_inline void mlx5_rx_replenish(struct mlx5_rxq *rxq)
{
	uint32_t pi = rxq->rq_pi, empty = rxq->wqe_n - (pi - rxq->rq_ci), posted = 0;

	if (empty < rxq->replenish_thresh)
		return;
	while (empty > 0) {
		uint32_t idx = pi & rxq->wqe_mask, n = DVP_MIN(empty, rxq->wqe_n - idx);
		struct dvp_mbuf **e = &rxq->elts[idx];

		if (dvp_unlikely(dvp_mempool_get_bulk(rxq->mp, (void **)e, n) < 0)) {
			dvp_counter_add(&rxq->st.nombuf, n);
			break;
		}
		if (dvp_likely(rxq->buf_delta != 0)) {
			/*
			 * One MR, and every buffer at a fixed offset from its mbuf: only
			 * the address changes, computed without touching the mbuf.
			 */
			struct mlx5_wqe_data_seg *w = mlx5_rx_wqe(rxq, idx);
			const uintptr_t delta = rxq->buf_delta;

#pragma GCC unroll 4
			for (uint32_t i = 0; i < n; i++)
				w[i].addr = htobe64((uintptr_t)e[i] + delta);
		} else {
			mlx5_rx_replenish_multi(rxq, idx, n);
		}
		pi += n;
		posted += n;
		empty -= n;
	}
	if (posted == 0)
		return;
	rxq->rq_pi = pi;
	/* The data segments above are written before the device sees the WQE counter. */
	mlx5_rq_db(rxq->rq_db, pi >> rxq->sges_log);
}

/*
 * Take up to @p run CQEs from @p ci on, a stretch that wraps neither the
 * CQ nor the ring of mbufs (so it walks pointers). The CQE belongs to
 * software when its owner bit is the parity of the current pass and its
 * opcode valid: one compare against RESP_SEND covers both for the usual
 * CQE. Then the read barrier, then its fields. @return the CQEs taken;
 * *@p slow is set when the next one is ours but not a plain receive.
 */
static __dvp_always_inline uint32_t mlx5_rx_run(const struct mlx5_rxq *rxq, uint32_t ci,
						uint32_t rq_ci, struct dvp_mbuf **out, uint32_t run,
						uint32_t *bytes, bool *slow, bool hash)
{
	const uint32_t cqe_cnt = rxq->cqe_cnt;
	const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(rxq->cqes, cqe_cnt, ci);
	struct dvp_mbuf *const *e = &rxq->elts[rq_ci & rxq->wqe_mask];
	const uint8_t own = MLX5_CQE_RESP_SEND << 4 | !!(ci & cqe_cnt);
	const uint64_t rearm = rxq->mbuf_rearm;
	const uint64_t *const tflags = rxq->cqe_flags;
	const uint32_t *const tptype = rxq->cqe_ptype;
	uint32_t k, sum = 0;
	uint8_t op_own = 0, ofl;

	for (k = 0; k < run; k++, cqe++) {
		struct dvp_mbuf *m;
		uint32_t len;

		/* The SE bit (1) aside, op_own must be exactly the expected byte. */
		op_own = mlx5_cqe_op_own_load(cqe);
		if (dvp_unlikely((op_own ^ own) & MLX5_OP_OWN_CHECK_MASK))
			break;
		/* The rest of the CQE after its ownership (udma_from_device_barrier). */
		dvp_dma_from_device_barrier();
		m = e[k];
		len = be32toh(cqe->byte_cnt);
		mlx5_rx_mbuf_fill(m, cqe, len, rearm, tflags, tptype, hash);
		out[k] = m;
		sum += len;
	}
	/*
	 * Stopped early: not ours yet, or ours but not a plain receive (an
	 * error). Judged on the byte the loop saw: the device may have written
	 * a plain CQE there since, which the next burst takes. The owner bit
	 * is own's (a stretch stays on one pass over the CQ). Both tests
	 * without a branch between them: a burst that finds nothing runs the
	 * same instructions whether the slot holds an old CQE or an invalid
	 * one, so an empty poll has one cost (what doc/perf.md's benchmarks
	 * subtract per poll rests on it).
	 */
	if (k < run)
		*slow = ((op_own >> 4) != MLX5_CQE_INVALID) &
			!((op_own ^ own) & MLX5_CQE_OWNER_MASK);
	*bytes += sum;
	/* Once a run, not a packet: a queue without these pays a load and a branch. */
	ofl = mlx5_rx_ofl(rxq);
	if (dvp_unlikely(ofl != 0) && k > 0)
		mlx5_rx_ofl_run(rxq, ofl, ci, out, k);
	return k;
}

/* The CQEs a run from @p ci, @p rq_ci may take: up to the CQ's or the mbuf ring's end, at most @p n. */
static __dvp_always_inline uint32_t mlx5_rx_stretch(const struct mlx5_rxq *rxq, uint32_t ci,
						    uint32_t rq_ci, uint32_t n)
{
	uint32_t run = DVP_MIN(rxq->cqe_cnt - (ci & (rxq->cqe_cnt - 1)),
			       rxq->wqe_n - (rq_ci & rxq->wqe_mask));

	return DVP_MIN(run, n);
}

/*
 * @p k packets (@p bytes) taken from @p ci, @p rq_ci, one CQE each: to the
 * device, counted. The consumer index goes back (24 bits, after a write
 * barrier) before the RQ doorbell record of the replenish that follows,
 * the order rdma-core and DPDK keep.
 */
static __dvp_always_inline void mlx5_rx_done(struct mlx5_rxq *rxq, uint32_t ci, uint32_t rq_ci,
					     uint32_t k, uint32_t bytes)
{
	if (k == 0)
		return;
	rxq->cq_ci = ci + k;
	rxq->rq_ci = rq_ci + k;
	/* Every field of the CQEs above is read before the device may reuse them. */
	mlx5_cq_set_ci(rxq->cq_db, ci + k);
	dvp_counter_add(&rxq->st.packets, k);
	dvp_counter_add(&rxq->st.bytes, bytes);
}

/*
 * The start of a burst: false when a fault asked for a restart (done
 * here, mlx5_err.c).
 */
static __dvp_always_inline bool mlx5_rx_burst_begin(struct mlx5_rxq *rxq)
{
	if (dvp_unlikely(dvp_queue_fault_pending(&rxq->fault))) {
		mlx5_rx_slow(rxq);
		return false;
	}
	return true;
}

/*
 * Receive up to @p n packets (mlx5_rx_run(), twice when a ring wraps
 * inside the burst). @p hash: the port hashes (RSS over several queues,
 * or DVP_RX_OFFLOAD_RSS_HASH), so hash.rss is filled: a separate
 * instance, as DPDK's rss_hash.
 */
static __dvp_always_inline uint16_t mlx5_rx_burst_tmpl(struct mlx5_rxq *rxq, struct dvp_mbuf **pkts,
						       uint16_t n, bool hash)
{
	uint32_t ci = rxq->cq_ci, rq_ci = rxq->rq_ci, bytes = 0, run, k;
	bool slow = false;

	if (!mlx5_rx_burst_begin(rxq))
		return 0;
	run = mlx5_rx_stretch(rxq, ci, rq_ci, n);
	k = mlx5_rx_run(rxq, ci, rq_ci, pkts, run, &bytes, &slow, hash);
	if (dvp_unlikely(k == run && run < n))
		k += mlx5_rx_run(rxq, ci + k, rq_ci + k, pkts + k, n - k, &bytes, &slow, hash);
	if (dvp_unlikely(mlx5_rx_marking(rxq)) && k != 0)
		mlx5_rx_mark(rxq, ci, pkts, k);
	mlx5_rx_done(rxq, ci, rq_ci, k, bytes);
	mlx5_rx_replenish(rxq);
	if (dvp_unlikely(slow))
		mlx5_rx_slow(rxq);
	return (uint16_t)k;
}

/*
 * Whether a CQE software owns (@p op_own) is a receive: any opcode but the
 * two error ones, as DPDK's check_cqe reads them.
 */
static inline bool mlx5_cqe_is_rx(uint8_t op_own)
{
	return (op_own >> 4) != MLX5_CQE_RESP_ERR && (op_own >> 4) != MLX5_CQE_REQ_ERR;
}

/* Whether a CQE waits at the consumer index (lib/rxwait's has_work). */
static inline bool mlx5_rxq_has_cqe(const struct mlx5_rxq *rxq)
{
	const struct mlx5_cqe64 *cqe = mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, rxq->cq_ci);

	return mlx5_cqe_sw_owned(mlx5_cqe_op_own_load(cqe), rxq->cq_ci, rxq->cqe_cnt);
}

#endif /* MLX5_RX_H */
