/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * For drivers: the queue-fault primitive, the one handshake by which a
 * broken queue is rebuilt by the only thread that may touch its memory.
 *
 * A queue breaks where its owner cannot see it: an async event on the EAL
 * interrupt thread (a CQ overran, a QP is in error), a netdev gone, a peer
 * that misbehaved. That thread must not rebuild a queue an lcore is
 * polling; it records why in the queue's struct dvp_queue_fault and lets
 * the lcore do it at the start of its next burst:
 *
 *   any thread                          the lcore polling the queue
 *   dvp_port_queue_fault_raise()        burst: dvp_queue_fault_take()
 *     records the cause (first wins)      != NONE: the driver's restart
 *     reports QUEUE_ERROR now
 *     kicks a lcore asleep on the queue
 *
 * On a stopped port nobody polls: the raise calls the driver's
 * queue_restart op at once. The cause is the enum dvp_port_event_cause
 * itself, NONE (0) meaning no fault, so a zeroed queue has none.
 */

#ifndef DVP_PORT_FAULT_H
#define DVP_PORT_FAULT_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>
#include <dvp_port.h>

#ifdef __cplusplus
extern "C" {
#endif

/** A queue's pending fault, embedded in the driver's queue (zeroed: none). */
struct dvp_queue_fault {
	/** enum dvp_port_event_cause; DVP_PORT_CAUSE_NONE while none is pending. */
	uint32_t cause;
};

/**
 * Record @p cause (not NONE) for the queue's owner unless a fault is
 * pending already: the first cause is the one the restart reports, and one
 * restart answers them all. Any thread.
 * @return true when this call recorded it.
 */
static inline bool dvp_queue_fault_set(struct dvp_queue_fault *f, enum dvp_port_event_cause cause)
{
	uint32_t none = DVP_PORT_CAUSE_NONE;

	/*
	 * Release: whatever the raising thread wrote about the fault before
	 * raising it is visible to the owner that takes it (acquire below).
	 */
	return __atomic_compare_exchange_n(&f->cause, &none, (uint32_t)cause, false,
					   __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/** Whether a fault is pending (any thread; a hint, not a synchronisation). */
static inline bool dvp_queue_fault_pending(const struct dvp_queue_fault *f)
{
	return __atomic_load_n(&f->cause, __ATOMIC_RELAXED) != DVP_PORT_CAUSE_NONE;
}

/**
 * The owner's check at the start of a burst: the pending cause, now
 * cleared, or DVP_PORT_CAUSE_NONE. One relaxed load when nothing is
 * pending, so every burst can afford it.
 */
static __dvp_always_inline enum dvp_port_event_cause dvp_queue_fault_take(struct dvp_queue_fault *f)
{
	if (dvp_likely(!dvp_queue_fault_pending(f)))
		return DVP_PORT_CAUSE_NONE;
	/* Acquire: pairs with dvp_queue_fault_set()'s release. */
	return (enum dvp_port_event_cause)__atomic_exchange_n(&f->cause, DVP_PORT_CAUSE_NONE,
							      __ATOMIC_ACQUIRE);
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_PORT_FAULT_H */
