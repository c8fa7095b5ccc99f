/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The simulator tests' fixture: one simulated device opened through the
 * consumer of sim_consumer.h, with what a test asks for of a send queue on
 * port 1 and receive queues behind one RSS table steering port 1's frames.
 * Every call asserts its own success, so tests read as scenarios.
 */

#ifndef SIM_FIXTURE_H
#define SIM_FIXTURE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_consumer.h"

#define SIM_FIX_RXQ_MAX 4

/* What sim_fix_open() sets up; a zero field takes the default named. */
struct sim_fix_conf {
	const char *args; /* the device's arguments, e.g. "mode=step,ports=2" */
	uint32_t tx_wqe; /* send queue's basic blocks; 0: no send queue */
	int tx_cq; /* its CQ's entries (1024) */
	bool tx_channel; /* its CQ reports events on the completion channel */
	unsigned int nrxq; /* receive queues (a power of two); 0: none */
	uint32_t rx_wqe; /* WQEs per receive queue (512) */
	uint32_t rx_buf; /* buffer size of each (2048) */
	uint32_t rx_post; /* WQEs posted at once on each (none) */
	int rx_cq; /* each one's CQ entries (twice rx_wqe) */
	bool rx_channel;
	uint64_t rss_fields; /* IBV_RX_HASH_* (none) */
	const uint8_t *rss_key; /* (the default key) */
	uint8_t rss_port; /* 1-based port the table steers (1) */
	bool rss_all; /* steer all of the port's traffic, not only its MAC */
	uint32_t rss_tag; /* flow tag written into each CQE */
	uint8_t rx_cqe_comp; /* the receive CQs compress, in this MLX5DV_CQE_RES_FORMAT_* (none) */
};

struct sim_fix {
	struct sc s;
	struct sc_txq tx;
	struct sc_rxq rx[SIM_FIX_RXQ_MAX];
	struct sc_rss rss;
	unsigned int nrxq;
	uint8_t mac[6]; /* port 1's */
	uint32_t rx_next; /* counter of the next receive WQE to complete (rx[0]) */
};

void sim_fix_open(struct sim_fix *f, const struct sim_fix_conf *conf);
/*
 * The send-side engine tests' device: @args with a cable from port 1 to
 * port 2 (e.g. "mode=step,ports=2,cable=loop"), a send queue of @tx_wqe
 * blocks on port 1 and one receive queue taking all of port 2's traffic,
 * @rx_post WQEs posted.
 */
struct sim_fix_conf sim_fix_loop_conf(const char *args, uint32_t tx_wqe, uint32_t rx_post);
/*
 * A test's own fixture struct of @p size bytes that begins with a struct
 * sim_fix, zeroed and opened with @p conf; sim_fix_free() closes and frees it.
 */
void *sim_fix_new(size_t size, const struct sim_fix_conf *conf);
void sim_fix_free(struct sim_fix *f, bool expect_clean);
/* Close it; @expect_clean: the device counted no invalid use of any kind. */
void sim_fix_close(struct sim_fix *f, bool expect_clean);

/*
 * Recover the send queue from the error state as a driver does: RTS from
 * ERR is refused, then RESET, INIT (port 1), RTR, RTS; the producer index
 * restarts where the doorbell record says.
 */
void sim_fix_sq_recover(struct sim_fix *f);
/* Let the device's engines run until they have nothing left to do. */
void sim_fix_run(struct sim_fix *f);
/* How many times the device counted invalid use of @kind. */
uint64_t sim_fix_invalid(struct sim_fix *f, enum sim_mlx5_invalid kind);
/* The device's counters. */
struct sim_mlx5_dev_stats sim_fix_stats(struct sim_fix *f);
/* The next send completion, consumed (it must be there). */
struct mlx5_cqe64 *sim_fix_tx_cqe(struct sim_fix *f);
/*
 * Ring the send doorbell for the WQE at @idx, which fails: its error CQE
 * (REQ_ERR, @p syndrome, naming @idx) is consumed and returned for more
 * checks, and the QP is in the error state.
 */
struct mlx5_err_cqe *sim_fix_tx_error(struct sim_fix *f, uint32_t idx, uint8_t syndrome);
/*
 * Ring the send doorbell for the WQE at @idx, which breaks a rule of kind
 * @kind: the device counts it once, completes it with a local QP operation
 * error, moves the QP to the error state and sends nothing.
 */
void sim_fix_expect_invalid(struct sim_fix *f, uint32_t idx, enum sim_mlx5_invalid kind);

#endif /* SIM_FIXTURE_H */
