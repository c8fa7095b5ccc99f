/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What is at the far end of a port of the simulated HCA: its cable to a
 * peer port, with the FIFO the peer's frames cross and flow control
 * (sim_cable.c), or its traffic source and sink, and the capture of what
 * the port sends (sim_traffic.c). The port's state for all of them is in
 * struct sim_port (sim_dev.h).
 */

#ifndef SIM_TRAFFIC_H
#define SIM_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#include "sim_dev.h"

/* Frames a cable holds on the way to a port. */
#define SIM_FIFO_DEPTH 256u

/* sim_traffic.c */
int sim_traffic_init(struct sim_port *port);
void sim_traffic_fini(struct sim_port *port);
int sim_source_poll(struct sim_port *port, uint64_t now);
void sim_sink_frame(struct sim_port *port, const uint8_t *frame, uint32_t len);
/*
 * The port's source and sink counters since the device was made, every run
 * and reset included: what the port shows as device counters, which never
 * go back (sim_mlx5_source_stats() and _sink_stats() give the current run's).
 */
void sim_traffic_totals(struct sim_port *port, struct sim_mlx5_source_stats *src,
			struct sim_mlx5_sink_stats *sink);
void sim_capture_frame(struct sim_port *port, const uint8_t *frame, uint32_t len);
void sim_capture_fini(struct sim_port *port);

/* sim_cable.c */
int sim_fifo_init(struct sim_fifo *f, uint32_t depth, uint32_t frame_max);
void sim_fifo_fini(struct sim_fifo *f);
/* Unplug @p port from whatever it is cabled to (its peer too), locking what that takes. */
void sim_cable_unplug(struct sim_port *port);
/* The port's cable cannot take a frame now (flow control holds the SQ). */
bool sim_cable_holds(const struct sim_port *port);
void sim_cable_send(struct sim_port *port, uint8_t *frame, uint32_t len);
/* Frames waiting on the port's cable, received. @return how many were taken. */
int sim_cable_poll(struct sim_port *port);

#endif /* SIM_TRAFFIC_H */
