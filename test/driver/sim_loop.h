/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The send-side engine tests' fixture: one simulated device in step mode
 * with a send queue on port 0 and a receive queue (behind a one-queue RSS
 * table) that the device's cable delivers port 0's frames to. Built on the
 * consumer of sim_consumer.h; every call asserts its own success.
 */

#ifndef SIM_LOOP_H
#define SIM_LOOP_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_consumer.h"

struct sc_loop {
	struct sc s;
	struct sc_txq tx;
	struct sc_rxq rx;
	struct sc_rss rss;
	uint32_t rx_next; /* counter of the next receive WQE to complete */
};

/*
 * Open the device with @args (e.g. "mode=step,ports=2,cable=loop"), a send
 * queue of @tx_wqe blocks and a receive queue with @rx_post WQEs posted.
 */
void sc_loop_open(struct sc_loop *l, const char *args, uint32_t tx_wqe, uint32_t rx_post);
/* Close it; @expect_clean: the device counted no invalid use of any kind. */
void sc_loop_close(struct sc_loop *l, bool expect_clean);

/* Let the device's engines run until they have nothing left to do. */
void sc_loop_run(struct sc_loop *l);
/* How many times the device counted invalid use of @kind. */
uint64_t sc_loop_invalid(struct sc_loop *l, enum sim_mlx5_invalid kind);
/* The next send completion, consumed (it must be there). */
struct mlx5_cqe64 *sc_loop_tx_cqe(struct sc_loop *l);
/*
 * Ring the send doorbell for the WQE at @idx, which breaks a rule of kind
 * @kind: the device counts it once, completes it with a local QP operation
 * error, moves the QP to the error state and sends nothing.
 */
void sc_loop_expect_invalid(struct sc_loop *l, uint32_t idx, enum sim_mlx5_invalid kind);

#endif /* SIM_LOOP_H */
