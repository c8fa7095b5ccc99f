/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A small mlx5 consumer for the simulator's tests, written from rdma-core's
 * rules (providers/mlx5/cq.c, qp.c) rather than from drivers/common/mlx5:
 * the owner bit of the current pass, the read barrier after it, the 24-bit
 * consumer index behind a write barrier, the arm doorbell word and its
 * order, send WQEs and the send doorbell. Being separate from mlx5_db.h, it
 * checks the simulator and the shared helpers independently.
 *
 * Every call asserts its own success (cmocka), so tests read as scenarios.
 */

#ifndef SIM_CONSUMER_H
#define SIM_CONSUMER_H

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <dvp_sim_mlx5.h>

#include "mlx5_glue.h"

struct sc {
	struct sim_mlx5_dev *sim;
	const struct mlx5_glue *g;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_comp_channel *ch;
	uint8_t *mem; /* registered with mr; carved by sc_alloc */
	size_t mem_size, mem_used;
	struct ibv_mr *mr;
};

struct sc_cq {
	struct ibv_cq *cq;
	struct mlx5dv_cq dv;
	uint32_t ci; /* next CQE to poll: 32-bit counter, 24 bits reach the device */
	uint32_t sn; /* arm sequence number: advanced once per event got */
};

struct sc_rxq {
	struct sc_cq cq;
	struct ibv_wq *wq;
	struct mlx5dv_rwq dv;
	uint32_t pi; /* WQEs posted */
	uint8_t *bufs;
	uint32_t buf_size;
};

struct sc_rss {
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *qp;
	struct ibv_flow *flow;
};

struct sc_txq {
	struct sc_cq cq;
	struct ibv_qp *qp;
	struct mlx5dv_qp dv;
	uint32_t sqn;
	uint32_t pi; /* basic blocks written */
	uint8_t *bufs;
	uint32_t nbufs, buf_size, next_buf;
	const uint8_t *last_wqe;
};

/* Create a sim device from @p args and open it through the glue table. */
void sc_open(struct sc *s, const char *args);
/* Close and destroy: asserts nothing leaked (the sim refuses otherwise). */
void sc_close(struct sc *s);
void *sc_alloc(struct sc *s, size_t size);

void sc_cq_init(struct sc *s, struct sc_cq *c, int entries, bool channel);
/* sc_cq_init with CQE compression of @p fmt (MLX5DV_CQE_RES_FORMAT_*; 0: without), by dv_create_cq. */
void sc_cq_init_comp(struct sc *s, struct sc_cq *c, int entries, bool channel, uint8_t fmt);
void sc_cq_fini(struct sc *s, struct sc_cq *c);
/* The CQE at ci if software owns it (after the read barrier), else NULL. */
struct mlx5_cqe64 *sc_cq_peek(struct sc_cq *c);
/* Consume @p n CQEs and tell the device (SET_CI). */
void sc_cq_consume(struct sc_cq *c, uint32_t n);
/* Arm at the current ci with the current sn. */
void sc_cq_arm(struct sc_cq *c, bool solicited);
/* Write the arm word with explicit fields (for the stale-sn and order tests). */
void sc_cq_arm_raw(struct sc_cq *c, uint32_t sn, uint32_t ci, bool solicited, bool record);
/* Get completion events (non-blocking), ack them, advance sn. @return how many. */
int sc_cq_events(struct sc *s, struct sc_cq *c);
/* Count the CQEs ready and consume them. */
uint32_t sc_cq_drain(struct sc_cq *c);

void sc_rxq_init(struct sc *s, struct sc_rxq *q, uint32_t nwqe, uint32_t buf_size, int cq_entries,
		 bool channel);
/* sc_rxq_init on a CQ compressing in @p fmt (sc_cq_init_comp). */
void sc_rxq_init_comp(struct sc *s, struct sc_rxq *q, uint32_t nwqe, uint32_t buf_size,
		      int cq_entries, bool channel, uint8_t fmt);
void sc_rxq_fini(struct sc *s, struct sc_rxq *q);
/* Post @p n receive WQEs (one data segment each) and write the doorbell record. */
void sc_rxq_post(struct sc *s, struct sc_rxq *q, uint32_t n);
uint8_t *sc_rxq_buf(struct sc_rxq *q, uint32_t counter);

/* RSS over @p n queues (a power of two), steering @p mac (NULL: all traffic) of @p port (1-based). */
void sc_rss_init(struct sc *s, struct sc_rss *r, struct sc_rxq **qs, unsigned int n,
		 uint64_t fields, const uint8_t *key, uint8_t port, const uint8_t *mac,
		 uint32_t tag);
void sc_rss_fini(struct sc *s, struct sc_rss *r);

void sc_txq_init(struct sc *s, struct sc_txq *q, uint32_t nwqe, uint8_t port, int cq_entries,
		 bool channel);
void sc_txq_fini(struct sc *s, struct sc_txq *q);
/*
 * Write one SEND WQE for @p frame (copied to a registered buffer): control,
 * Ethernet segment inlining the first 18 bytes, a data segment for the rest.
 * @return the WQE's index. Does not ring.
 */
uint32_t sc_tx_wqe(struct sc *s, struct sc_txq *q, const void *frame, uint32_t len,
		   uint8_t fm_ce_se, uint8_t cs_flags);
/*
 * Write one enhanced multi-packet send WQE (opcode 0x29, opmod 0) for the
 * @p n frames @p frames / @p lens: the title (control segment, Ethernet
 * segment with @p cs_flags and no inline headers), then per frame a
 * pointer data segment to a registered copy, or, where bit i of @p inl is
 * set, the frame inline (byte count | MLX5_INLINE_SEG, padded to 16). The
 * WQE wraps at the end of the ring. @return its index. Does not ring.
 */
uint32_t sc_tx_empw(struct sc *s, struct sc_txq *q, const uint8_t *const *frames,
		    const uint32_t *lens, unsigned int n, uint64_t inl, uint8_t fm_ce_se,
		    uint8_t cs_flags);
/* The ds count of the WQE at @p idx (to check or change it in tests). */
unsigned int sc_tx_wqe_ds(struct sc_txq *q, uint32_t idx);
/* The 16-byte unit @p u of the WQE at @p idx, following the ring's wrap. */
uint8_t *sc_tx_wqe_unit(struct sc_txq *q, uint32_t idx, unsigned int u);
/* Doorbell record, write barrier, 64-bit UAR write of the last WQE's first 8 bytes. */
void sc_tx_ring(struct sc_txq *q);
/* The WQE at basic block counter @p bb (to corrupt it in tests). */
uint8_t *sc_tx_wqe_at(struct sc_txq *q, uint32_t bb);

/* Build a UDP/IPv4 frame with ports @p sport, @p dport into @p buf; @return its length. */
uint32_t sc_udp_frame(uint8_t *buf, uint32_t len, const uint8_t dst[6], uint32_t src_ip,
		      uint32_t dst_ip, uint16_t sport, uint16_t dport);

#endif /* SIM_CONSUMER_H */
