/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Event queues behind an fd, as the kernel's uverbs event files: the
 * completion channel's fd and the context's async fd are readable while
 * events wait, reads block unless the application set O_NONBLOCK, and
 * getting an event is a syscall (a read of the eventfd), as in libibverbs.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "sim_event.h"

int sim_evq_init(struct sim_evq *q)
{
	memset(q, 0, sizeof(*q));
	q->fd = eventfd(0, EFD_SEMAPHORE | EFD_CLOEXEC);
	if (q->fd < 0)
		return -errno;
	pthread_mutex_init(&q->lock, NULL);
	return 0;
}

void sim_evq_fini(struct sim_evq *q)
{
	if (q->fd >= 0)
		close(q->fd);
	q->fd = -1;
	pthread_mutex_destroy(&q->lock);
	free(q->ring);
	q->ring = NULL;
}

static int evq_grow(struct sim_evq *q)
{
	unsigned int cap = q->cap ? q->cap * 2 : 16;
	struct sim_ev *ring = calloc(cap, sizeof(*ring));

	if (ring == NULL)
		return -ENOMEM;
	for (unsigned int i = 0; i < q->count; i++)
		ring[i] = q->ring[(q->head + i) % q->cap];
	free(q->ring);
	q->ring = ring;
	q->head = 0;
	q->cap = cap;
	return 0;
}

/* One count on the eventfd per queued event, so the fd polls readable. */
static void evq_fd_add(struct sim_evq *q)
{
	uint64_t one = 1;

	while (write(q->fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

/* Take one count back: never blocks, the count is at least the queue length. */
static void evq_fd_take(struct sim_evq *q)
{
	uint64_t v;

	while (read(q->fd, &v, sizeof(v)) < 0 && errno == EINTR)
		;
}

int sim_evq_push(struct sim_evq *q, const struct sim_ev *ev)
{
	int ret = 0;

	pthread_mutex_lock(&q->lock);
	if (q->count == q->cap)
		ret = evq_grow(q);
	if (ret == 0) {
		q->ring[(q->head + q->count) % q->cap] = *ev;
		q->count++;
		evq_fd_add(q);
	}
	pthread_mutex_unlock(&q->lock);
	return ret;
}

int sim_evq_pop(struct sim_evq *q, struct sim_ev *ev)
{
	struct pollfd pfd = { .fd = q->fd, .events = POLLIN };

	for (;;) {
		pthread_mutex_lock(&q->lock);
		if (q->count > 0) {
			*ev = q->ring[q->head];
			q->head = (q->head + 1) % q->cap;
			q->count--;
			evq_fd_take(q);
			pthread_mutex_unlock(&q->lock);
			return 0;
		}
		pthread_mutex_unlock(&q->lock);
		if (fcntl(q->fd, F_GETFL) & O_NONBLOCK) {
			errno = EAGAIN;
			return -1;
		}
		/* Blocking fd: wait as read(2) would, then take the event under the lock. */
		if (poll(&pfd, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
}

/* The verbs object an event is about: the CQ of a completion, or the element of an async event. */
static const void *ev_object(const struct sim_ev *ev)
{
	if (ev->cq != NULL)
		return ev->cq;
	switch (ev->async.event_type) {
	case IBV_EVENT_CQ_ERR:
		return ev->async.element.cq;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
		return ev->async.element.qp;
	case IBV_EVENT_WQ_FATAL:
		return ev->async.element.wq;
	default:
		return NULL;
	}
}

unsigned int sim_evq_remove(struct sim_evq *q, const void *obj)
{
	unsigned int kept = 0, removed = 0;

	pthread_mutex_lock(&q->lock);
	for (unsigned int i = 0; i < q->count; i++) {
		struct sim_ev ev = q->ring[(q->head + i) % q->cap];

		if (ev_object(&ev) == obj) {
			removed++;
			evq_fd_take(q);
			continue;
		}
		q->ring[(q->head + kept) % q->cap] = ev;
		kept++;
	}
	q->count = kept;
	pthread_mutex_unlock(&q->lock);
	return removed;
}
