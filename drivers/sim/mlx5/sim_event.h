/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Events, the simulated HCA's part that raises them: the queues behind an
 * fd that completion channels and a context's async fd read
 * (sim_event.c), and the async events the device raises, with the link
 * changes that raise some (sim_async.c).
 */

#ifndef SIM_EVENT_H
#define SIM_EVENT_H

#include <pthread.h>
#include <stdbool.h>

#include <infiniband/verbs.h>

struct sim_ev {
	struct ibv_async_event async; /* async queues */
	struct ibv_cq *cq; /* completion channels: the CQ whose event it is */
};

/*
 * A queue of events behind an fd that is readable while the queue is not
 * empty: an EFD_SEMAPHORE eventfd whose count equals the queue length,
 * both changed under the queue's mutex, so a reader that finds an event
 * under the mutex can always read its count without blocking.
 */
struct sim_evq {
	int fd;
	pthread_mutex_t lock;
	struct sim_ev *ring;
	unsigned int head, count, cap;
};

/* sim_event.c */
/* 0, or -errno with errno left as eventfd() set it (the caller's errno, as libibverbs'). */
int sim_evq_init(struct sim_evq *q);
void sim_evq_fini(struct sim_evq *q);
int sim_evq_push(struct sim_evq *q, const struct sim_ev *ev);
/* Pop one event, blocking unless the fd is O_NONBLOCK: 0, or -1 with errno (libibverbs' way). */
int sim_evq_pop(struct sim_evq *q, struct sim_ev *ev);
/* Drop the queued events about verbs object @p obj (a CQ, QP or WQ). @return how many. */
unsigned int sim_evq_remove(struct sim_evq *q, const void *obj);

struct sim_ctx;
struct sim_mlx5_dev;
struct sim_port;

/* sim_async.c */
void sim_async_event(struct sim_ctx *ctx, const struct ibv_async_event *ev);
void sim_async_event_all(struct sim_mlx5_dev *dev, enum ibv_event_type type, unsigned int port);
void sim_link_change(struct sim_port *port, bool up);

#endif /* SIM_EVENT_H */
