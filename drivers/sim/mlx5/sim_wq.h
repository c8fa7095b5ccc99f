/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * WQs and QPs of the simulated HCA, and the engines that run them: receive
 * WQs and their indirection tables (sim_wq.c), hashing and send QPs
 * (sim_qp.c); the receive engine (sim_engine_rx.c, with striding RQs in
 * sim_mprq.c) and the send engine (sim_engine_tx.c, with SEND WQEs in
 * sim_engine_send.c and eMPW WQEs in sim_engine_empw.c). The engines share
 * sim_engine.h among themselves.
 */

#ifndef SIM_WQ_H
#define SIM_WQ_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "mlx5_prm.h"
#include "sim_dev.h"
#include "sim_obj.h"

struct sim_cq;
struct sim_uar;

struct sim_wq {
	struct ibv_wq ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_pd *pd;
	struct sim_cq *cq;
	uint32_t wqe_cnt, stride, max_sge;
	uint8_t *buf;
	__be32 *dbrec;
	struct sim_mem buf_mem, db_mem;
	uint32_t ci; /* 16-bit counter of the next WQE the device consumes */
	uint32_t bad_pi; /* last invalid producer index reported */
	uint32_t last_pi; /* the record's producer counter last read (bus_dbrec_updates) */
	unsigned int ind_refs;
	uint32_t async_got; /* acks: ibv.events_completed */
	/* Striding RQ (sim_mprq.c): log2 stride bytes and strides per WQE, 0 for a plain RQ. */
	uint32_t log_stride_sz, log_stride_num;
	/* IBV_WQ_FLAGS_CVLAN_STRIPPING: a C-VLAN tag leaves the frame for the CQE's vlan_info. */
	bool cvlan_strip;
	uint32_t strd_ci; /* next free stride of the WQE at ci */
	bool wqe_fetched; /* the WQE at ci is read (counted in bus_wqe_bytes) */
	uint8_t *wqe_addr; /* its buffer, checked against the MRs when fetched */
};

struct sim_ind {
	struct ibv_rwq_ind_table ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	uint32_t size;
	struct sim_wq **wqs;
	unsigned int users;
};

struct sim_qp {
	struct ibv_qp ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_pd *pd;
	bool hash; /* an RSS QP (TIR) rather than a send queue */
	/* Send queue. */
	struct sim_cq *cq;
	unsigned int port; /* 0-based, set by the move to INIT */
	uint8_t *sq_buf;
	uint32_t wqe_cnt; /* basic blocks */
	uint32_t max_inline;
	__be32 *dbrec;
	struct sim_mem buf_mem, db_mem;
	struct sim_uar *uar;
	uint32_t sq_ci; /* 16-bit counter of the next basic block the device reads */
	uint32_t empw_sent; /* packets (eMPW) or frames (LSO) of the WQE at sq_ci on the wire */
	bool wqe_fetched; /* the WQE at sq_ci is counted in bus_wqe_bytes (held, resumed) */
	bool empw_bad_lkey; /* the bad-lkey fault waits for that WQE's first pointer */
	bool rung; /* a doorbell was seen and WQEs may be waiting */
	uint32_t bad_pi; /* last invalid producer index reported */
	uint32_t last_pi; /* the record's producer counter last read (bus_dbrec_updates) */
	TAILQ_ENTRY(sim_qp) sq_next;
	/* RSS. */
	struct sim_ind *ind;
	uint8_t key[MLX5_RSS_HASH_KEY_LEN];
	uint32_t key_len;
	uint64_t fields;
	unsigned int flows;
	uint32_t async_got; /* acks: ibv.events_completed */
};

/* sim_wq.c */
struct sim_wq *sim_wq_of(struct ibv_wq *wq, const char *fn);
struct sim_ind *sim_ind_of(struct ibv_rwq_ind_table *t, const char *fn);
struct ibv_wq *sim_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr);
struct ibv_wq *sim_dv_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr,
				struct mlx5dv_wq_init_attr *dv_attr);
int sim_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr);
int sim_destroy_wq(struct ibv_wq *wq);
struct ibv_rwq_ind_table *sim_create_rwq_ind_table(struct ibv_context *context,
						   struct ibv_rwq_ind_table_init_attr *attr);
int sim_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table);
/*
 * A posted WQE and a free CQE slot for the next frame of @p wq:
 * SIM_MLX5_RX_DELIVERED, else what became of the frame (counted).
 */
int sim_wq_room(struct sim_port *port, struct sim_wq *wq, bool hold_ok);
/*
 * @p wq is in error: flush every WQE posted, in order, each with a CQE
 * (RESP_ERR, WR_FLUSH_ERR, its counter), as a receive WQE always
 * completes; @p port (NULL: none) counts the CQEs' bus bytes.
 */
void sim_wq_flush(struct sim_port *port, struct sim_wq *wq);

/* sim_qp.c */
struct sim_qp *sim_qp_of(struct ibv_qp *qp, const char *fn);
struct ibv_qp *sim_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr);
int sim_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int sim_destroy_qp(struct ibv_qp *qp);

/* sim_engine_rx.c */
int sim_rx_frame(struct sim_port *port, const uint8_t *frame, uint32_t len, bool hold_ok);
/* Sentinel for sim_rx_frame: the frame must wait (flow control), nothing was done. */
#define SIM_RX_HOLD (-1000)

/* sim_engine_tx.c */
int sim_tx_poll(struct sim_qp *qp);
/* Flush the WQEs posted to @p qp, in error (a CQE each as its completion mode says). */
void sim_tx_flush(struct sim_qp *qp);

#endif /* SIM_WQ_H */
