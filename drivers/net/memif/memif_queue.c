/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A queue's life on the control thread: set up, brought up on a ring of a
 * connection (the zero-copy client's rx ring filled through memif_zc.c),
 * taken down with the asymmetric fence against its bursts (memif_rxtx.h).
 */

#include <errno.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_counter.h>

#include "memif_log.h"
#include "memif_rxtx.h"
#include "memif_zc.h"

/* ------------------------------------------------------------------------
 * Queues coming up and going down (see memif_rxtx.h)
 */

bool memif_fence_asymmetric;
static pthread_once_t fence_once = PTHREAD_ONCE_INIT;

/* Register for membarrier's private expedited command if the kernel has it. */
static void fence_setup(void)
{
	long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);

	if (cmds < 0 || !(cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED) ||
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) != 0) {
		MEMIF_LOG(INFO,
			  "membarrier(2) private expedited not available (%s): bursts "
			  "enter a queue with a locked exchange",
			  strerror(errno));
		return;
	}
	__atomic_store_n(&memif_fence_asymmetric, true, __ATOMIC_RELAXED);
}

/*
 * The control thread's half of the asymmetric fence: a full fence on every
 * CPU that runs a thread of ours, so a burst's store of busy that came
 * before its load of up is visible before we read busy. A thread that is
 * not running has been through a context switch, a full fence too.
 */
static void memif_fence_heavy(void)
{
	if (!__atomic_load_n(&memif_fence_asymmetric, __ATOMIC_RELAXED))
		return; /* the bursts fence themselves */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0)
		/* Registered at setup: only a kernel bug gets here. */
		MEMIF_LOG(ERR, "membarrier(2) failed after registration: %s", strerror(errno));
}

void memif_queue_init(struct memif_queue *q, enum memif_qrole role, uint16_t queue_id,
		      uint16_t port_id)
{
	/* Before any queue exists: no burst runs while the mode is chosen. */
	(void)pthread_once(&fence_once, fence_setup);
	memset(q, 0, sizeof(*q));
	q->role = role;
	q->queue_id = queue_id;
	q->port_id = port_id;
	q->efd = -1;
	q->epfd = -1;
	q->ctl_fd = -1;
}

__dvp_cold void memif_peer_violation(struct memif_queue *q, enum memif_violation kind,
				     uint16_t peer, uint16_t ours)
{
	/*
	 * Reported already: every burst sees the broken index until the
	 * control thread disconnects. One violation is one event, counted
	 * once, not once per poll.
	 */
	if (__atomic_load_n(&q->violated, __ATOMIC_RELAXED))
		return;
	dvp_counter_add(&q->st.peer_errors, 1);
	dvp_counter_add(&q->st.errors, 1);
	q->viol_kind = kind;
	q->viol_peer = peer;
	q->viol_ours = ours;
	/* Release: the control thread that sees the flag sees the fields. */
	__atomic_store_n(&q->violated, 1, __ATOMIC_RELEASE);
	if (q->ctl_fd >= 0)
		(void)eventfd_write(q->ctl_fd, 1);
}

void memif_violation_reason(const struct memif_queue *q, char *buf, size_t len)
{
	bool rx = q->role == MEMIF_Q_SERVER_RX || q->role == MEMIF_Q_CLIENT_RX;

	switch (q->viol_kind) {
	case MEMIF_VIOL_HEAD:
	case MEMIF_VIOL_TAIL:
		snprintf(buf, len,
			 "Ring protocol broken: %s queue %u: peer %s %u vs ours %u (ring %u)",
			 rx ? "rx" : "tx", q->queue_id,
			 q->viol_kind == MEMIF_VIOL_HEAD ? "head" : "tail", q->viol_peer,
			 q->viol_ours, q->ring_size);
		break;
	default:
		snprintf(
			buf, len,
			"Ring protocol broken: %s queue %u: buffer posted at slot %u is outside memory",
			rx ? "rx" : "tx", q->queue_id, q->viol_peer);
		break;
	}
}

void memif_queue_up(struct memif_queue *q, const struct memif_shm *shm,
		    const struct memif_shm_ring *sr)
{
	struct memif_ring *r = sr->ring;
	bool rx = q->role == MEMIF_Q_SERVER_RX || q->role == MEMIF_Q_CLIENT_RX;

	q->ring = r;
	q->ring_size = (uint16_t)(1u << sr->log2_ring_size);
	q->mask = (uint16_t)(q->ring_size - 1);
	q->last = 0;
	q->posted = 0;
	q->filled = 0;
	q->bsize = shm->bsize;
	q->bufs = NULL;
	q->bufs_off = 0;
	if (q->role == MEMIF_Q_CLIENT_TX || q->role == MEMIF_Q_CLIENT_RX) {
		q->bufs = (uint8_t *)shm->regions[0].addr + sr->buf_base;
		q->bufs_off = (uint32_t)sr->buf_base;
	}
	q->regions = shm->regions;
	q->nregions = shm->nregions;
	q->efd = sr->efd;
	__atomic_store_n(&q->violated, 0, __ATOMIC_RELAXED);
	/* Both sides start a connection from 0, as DPDK does at connect. */
	__atomic_store_n(&r->head, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->tail, 0, __ATOMIC_RELAXED);
	/* The receiver owns flags: poll until an rx queue is armed. */
	if (rx)
		__atomic_store_n(&r->flags, MEMIF_RING_FLAG_MASK_INT, __ATOMIC_RELAXED);
	if (q->zc) {
		/* Zero-copy client: the rx ring gets fresh mbufs (memif_zc.c). */
		memif_zc_queue_up(q);
	} else if (q->role == MEMIF_Q_CLIENT_RX) {
		/*
		 * Post every buffer now rather than at the first rx burst: a
		 * server that forwards what we send at once (testpmd's io mode)
		 * finds room for the first reply. The descriptors were laid out
		 * by memif_shm_client_create(). Release: they are visible first.
		 */
		q->posted = q->ring_size;
		__atomic_store_n(&r->head, q->posted, __ATOMIC_RELEASE);
	}
	if (q->intr && q->efd >= 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = q->efd };

		if (epoll_ctl(q->epfd, EPOLL_CTL_ADD, q->efd, &ev) < 0)
			MEMIF_LOG(WARNING, "rx queue %u: cannot watch the ring's eventfd: %s",
				  q->queue_id, strerror(errno));
	}
	/* Seq_cst: the fields above are visible to a burst that sees up (see q_enter). */
	__atomic_store_n(&q->up, 1, __ATOMIC_SEQ_CST);
	/*
	 * A new ring, masked: whatever lib/rxwait remembers arming was done on
	 * the old one (or on nothing, while down). Kick, after up is stored,
	 * so that a lcore asleep on the queue wakes, polls the new ring and
	 * arms it.
	 */
	if (q->intr && dvp_rxwait_queue_active(&q->iq))
		(void)dvp_rxwait_queue_kick(&q->iq);
}

/*
 * Frames on client tx queue @q the server has not taken: one per
 * descriptor without NEXT between its tail and our head. Exact, as the
 * server moves tail as it reads. A server cannot count its own: the client
 * reposts what it read whenever it likes (DPDK's zero-copy client in
 * batches), so a buffer not posted back may well have been read.
 */
static uint16_t client_tx_unread(const struct memif_queue *q)
{
	const struct memif_ring *r = q->ring;
	uint16_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE), s, frames = 0;

	if ((uint16_t)(q->last - tail) > q->ring_size)
		return 0; /* a broken tail: a violation, counted as such */
	for (s = tail; s != q->last; s++)
		frames += !(r->desc[s & q->mask].flags & MEMIF_DESC_FLAG_NEXT);
	return frames;
}

void memif_queue_down(struct memif_queue *q)
{
	uint16_t lost;

	if (!__atomic_load_n(&q->up, __ATOMIC_RELAXED))
		return;
	__atomic_store_n(&q->up, 0, __ATOMIC_SEQ_CST);
	memif_fence_heavy();
	/* A burst is a bounded copy loop: this wait is short. */
	while (__atomic_load_n(&q->busy, __ATOMIC_SEQ_CST))
		dvp_pause();
	/*
	 * Sent and never taken: lost with the rings, and counted as such
	 * (errors, so oerrors). The bursts are out and find the queue down
	 * until memif_queue_up(), whose seq_cst store of up orders these
	 * writes before theirs: the counters keep one writer at a time.
	 */
	if (q->role == MEMIF_Q_CLIENT_TX && (lost = client_tx_unread(q)) != 0) {
		dvp_counter_add(&q->st.lost_on_ring, lost);
		dvp_counter_add(&q->st.errors, lost);
		MEMIF_LOG(
			NOTICE,
			"port %u tx queue %u: %u frame%s the peer had not taken when the connection went down: counted in tx_q%u_lost_on_ring and oerrors",
			q->port_id, q->queue_id, lost, lost == 1 ? "" : "s", q->queue_id);
	}
	if (q->intr && q->efd >= 0)
		(void)epoll_ctl(q->epfd, EPOLL_CTL_DEL, q->efd, NULL);
	if (q->zc)
		memif_zc_queue_down(q);
	q->ring = NULL;
	q->regions = NULL;
	q->nregions = 0;
	q->bufs = NULL;
	q->efd = -1;
}
