/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_ring's datapath and its interrupt hooks.
 *
 * Waking a sleeping consumer is a store/load race on two variables, as in
 * Dekker's algorithm: the consumer stores armed = 1 and then looks at the
 * ring (lib/rxwait's final poll); a producer publishes into the ring and
 * then looks at armed. Both sides make their store and their load seq_cst
 * on the same two variables -- armed, and the inbox's producers counter,
 * which every producer updates with a seq_cst read-modify-write after its
 * enqueue -- so at least one side sees the other: either the consumer's
 * load of producers reads a producer's update (and with it, by release
 * sequence, the frames published before it), or that producer's load of
 * armed reads 1 and it writes the eventfd. (C11 fences would say the same
 * more briefly, but TSan cannot check them.) The producer takes armed with
 * an exchange so that one arm gives one event, as with a CQ.
 *
 * The eventfd write is this emulated device's interrupt, the only system
 * call on the datapath, made only when the consumer asked for it.
 */

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "net_ring_private.h"

/* The producer's half, after its seq_cst update of in->producers. */
static inline void inbox_wake_if_armed(struct ring_inbox *in)
{
	if (__atomic_load_n(&in->armed, __ATOMIC_SEQ_CST) &&
	    __atomic_exchange_n(&in->armed, 0, __ATOMIC_RELAXED)) {
		/* Relaxed: a statistic; the kernel orders the write before the reader's read. */
		__atomic_fetch_add(&in->events_written, 1, __ATOMIC_RELAXED);
		(void)eventfd_write(in->efd, 1);
	}
}

void ring_inbox_notify(struct ring_inbox *in)
{
	/* A producer outside the burst path: the same seq_cst update, of nothing. */
	__atomic_fetch_add(&in->producers, 0, __ATOMIC_SEQ_CST);
	inbox_wake_if_armed(in);
}

uint16_t ring_rx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct ring_rxq *rxq = q;
	uint64_t bytes = 0;
	unsigned int n, i;

	if (dvp_unlikely(dvp_queue_fault_take(&rxq->fault) != DVP_PORT_CAUSE_NONE)) {
		ring_rxq_restart(rxq);
		return 0;
	}
	n = dvp_ring_sc_dequeue_burst(rxq->in->ring, (void **)pkts, nb, NULL);
	for (i = 0; i < n; i++) {
		pkts[i]->port = rxq->port_id;
		bytes += pkts[i]->pkt_len;
	}
	if (n > 0) {
		dvp_counter_add(&rxq->st.packets, n);
		dvp_counter_add(&rxq->st.bytes, bytes);
	}
	return (uint16_t)n;
}

/* The peer is stopped: the frames leave and are lost, as on a wire. */
static __dvp_cold uint16_t tx_drop(struct ring_txq *txq, struct dvp_mbuf **pkts, uint16_t nb)
{
	dvp_pktmbuf_free_bulk(pkts, nb);
	dvp_counter_add(&txq->st.peer_stopped_drops, nb);
	dvp_counter_add(&txq->st.errors, nb);
	return nb;
}

uint16_t ring_tx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct ring_txq *txq = q;
	struct ring_inbox *out = txq->out;
	uint64_t bytes = 0, unsent = 0;
	unsigned int n, i;

	if (dvp_unlikely(dvp_queue_fault_take(&txq->fault) != DVP_PORT_CAUSE_NONE))
		ring_txq_restart(txq);
	if (dvp_unlikely(nb == 0))
		return 0;
	/* Count before the enqueue: after it the consumer may free them. */
	for (i = 0; i < nb; i++)
		bytes += pkts[i]->pkt_len;
	/*
	 * Seq_cst increment, then the gate: pairs with ring_inbox_close(), which
	 * shuts the gate then waits for producers to be 0. Either we see it
	 * shut, or it waits for our enqueue to finish before draining.
	 */
	__atomic_fetch_add(&out->producers, 1, __ATOMIC_SEQ_CST);
	if (dvp_unlikely(!__atomic_load_n(&out->open, __ATOMIC_SEQ_CST))) {
		/* Release: our loads of the frames are done before the closer drains. */
		__atomic_fetch_sub(&out->producers, 1, __ATOMIC_RELEASE);
		return tx_drop(txq, pkts, nb);
	}
	n = dvp_ring_mp_enqueue_burst(out->ring, (void **)pkts, nb, NULL);
	/*
	 * Seq_cst: releases the enqueue to the closer's drain and to the
	 * consumer's arm (see the top of this file), and orders the load of
	 * armed after it.
	 */
	__atomic_fetch_sub(&out->producers, 1, __ATOMIC_SEQ_CST);
	if (dvp_likely(n > 0))
		inbox_wake_if_armed(out);
	for (i = n; i < nb; i++)
		unsent += pkts[i]->pkt_len;
	dvp_counter_add(&txq->st.packets, n);
	dvp_counter_add(&txq->st.bytes, bytes - unsent);
	if (n < nb)
		dvp_counter_add(&txq->st.errors, nb - n);
	return (uint16_t)n;
}

unsigned int ring_inbox_drain(struct ring_inbox *in)
{
	void *objs[64];
	unsigned int n, total = 0;

	while ((n = dvp_ring_sc_dequeue_burst(in->ring, objs, DVP_DIM(objs), NULL)) > 0) {
		dvp_pktmbuf_free_bulk((struct dvp_mbuf **)objs, n);
		total += n;
	}
	return total;
}

void ring_inbox_close(struct ring_inbox *in)
{
	/*
	 * Seq_cst store and loads: the same store/load pairing as the wake-up,
	 * against the producers' increment and their load of open (see
	 * ring_tx_burst()). Reading 0 also acquires every finished enqueue.
	 */
	__atomic_store_n(&in->open, 0, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&in->producers, __ATOMIC_SEQ_CST) != 0)
		dvp_pause();
}

/* ------------------------------------------------------------------------
 * Error recovery: on the lcore that polls the queue (or on the control
 * thread when the port is stopped), as a hardware driver resets a queue.
 * lib/port reported the fault when it was raised.
 */

void ring_rxq_restart(struct ring_rxq *rxq)
{
	unsigned int dropped = ring_inbox_drain(rxq->in);

	dvp_counter_add(&rxq->st.errors, dropped);
	__atomic_fetch_add(&rxq->np->ps.queue_restarts, 1, __ATOMIC_RELAXED);
	RING_LOG(NOTICE, "%s: rx queue %u restarted, %u frames in its ring dropped",
		 rxq->np->port->name, rxq->queue_id, dropped);
}

void ring_txq_restart(struct ring_txq *txq)
{
	__atomic_fetch_add(&txq->np->ps.queue_restarts, 1, __ATOMIC_RELAXED);
	RING_LOG(NOTICE, "%s: tx queue %u restarted", txq->np->port->name, txq->queue_id);
}

/* ------------------------------------------------------------------------
 * lib/rxwait hooks
 */

static int ring_intr_arm(void *ctx, bool solicited)
{
	struct ring_rxq *rxq = ctx;

	(void)solicited; /* net_ring does not offer it: lib/rxwait refuses it before */
	/* The consumer's half of the pairing at the top of this file. */
	__atomic_store_n(&rxq->in->armed, 1, __ATOMIC_SEQ_CST);
	(void)__atomic_load_n(&rxq->in->producers, __ATOMIC_SEQ_CST);
	if (dvp_unlikely(rxq->in->arm_hook != NULL))
		rxq->in->arm_hook(rxq->in->arm_hook_arg);
	return 0;
}

static int ring_intr_consume(void *ctx)
{
	struct ring_rxq *rxq = ctx;
	uint64_t v;

	/*
	 * "Until EAGAIN" in one call: an eventfd read takes the whole count
	 * and leaves it at 0, so a second read could only return EAGAIN (or a
	 * write made since, which the level-triggered epoll reports anyway).
	 * Saves a system call on every wake-up.
	 */
	if (read(rxq->in->efd, &v, sizeof(v)) != (ssize_t)sizeof(v))
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	dvp_counter_add(&rxq->events_got, v);
	return v > INT32_MAX ? INT32_MAX : (int)v;
}

static void ring_intr_ack(void *ctx, unsigned int n)
{
	struct ring_rxq *rxq = ctx;

	dvp_counter_add(&rxq->events_acked, n);
}

static bool ring_intr_has_work(void *ctx)
{
	struct ring_rxq *rxq = ctx;

	/* An error to recover is work too: the lcore must poll to restart the queue. */
	return !dvp_ring_empty(rxq->in->ring) || dvp_queue_fault_pending(&rxq->fault);
}

/*
 * One-shot, as a CQ: the producer that finds the queue armed takes the arm
 * (an exchange) and writes the eventfd once, and nothing writes it again
 * until the next arm. So a wake-up with frames behind it leaves the event
 * in the fd and the next arm reads it, after the lcore has taken the
 * frames: one system call off the wake-up's path. No solicited events.
 */
const struct dvp_rxwait_queue_ops ring_intr_ops = {
	.flags = DVP_RXWAIT_QUEUE_F_ONESHOT,
	.arm = ring_intr_arm,
	.consume = ring_intr_consume,
	.ack = ring_intr_ack,
	.has_work = ring_intr_has_work,
};
