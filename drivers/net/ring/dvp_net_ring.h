/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * net_ring: ports over dvp rings (as DPDK's net_ring), the reference driver.
 *
 * As a vdev:
 *
 *     --vdev net_ring0                   one port, each tx queue looped to
 *                                        the rx queue of the same number
 *     --vdev net_ring0 --vdev net_ring1,peer=net_ring0
 *                                        two ports cabled back to back
 *
 * with the keys queues=N (queues per direction, default 1, up to 16),
 * size=N (ring entries, a power of two, default 1024) and mac=xx:xx:..
 * (default 02:70:63:61:70:NN with NN the port id).
 *
 * Or from rings the application made, with dvp_net_ring_create(): two
 * ports made from the same pair of rings crossed are cabled back to back.
 *
 * Rx interrupts follow lib/rxwait's rules: each rx ring has an eventfd that
 * the producer writes when, and only when, the consumer armed it (one
 * event per arm); the consumer may find the ring empty after an event.
 * Producers outside the driver (an application writing a ring it gave to
 * dvp_net_ring_create()) call dvp_net_ring_rx_notify() after enqueueing.
 */

#ifndef DVP_NET_RING_H
#define DVP_NET_RING_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>
#include <dvp_port.h>
#include <dvp_ring.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Most queues per direction of a net_ring port. */
#define DVP_NET_RING_MAX_QUEUES 16

/**
 * Create a port named @p name whose rx queue i dequeues from @p rx_rings[i]
 * and tx queue i enqueues into @p tx_rings[i] (the rings must outlive the
 * port; a ring may be the rx ring of one port only).
 * @p numa_node is a node of this machine (0 to dvp_socket_count() - 1) or
 * DVP_SOCKET_ANY.
 * @return the port id, or a negative errno after a log line: -EINVAL (bad
 *   name, counts or node), -EEXIST (name taken), -EBUSY (an rx ring is
 *   another port's already), -ENOSPC, -ENOMEM.
 */
__dvp_export int dvp_net_ring_create(const char *name, struct dvp_ring *const rx_rings[],
				     unsigned int nb_rx, struct dvp_ring *const tx_rings[],
				     unsigned int nb_tx, int numa_node);

/**
 * After enqueueing into a ring that is a net_ring rx ring from outside the
 * driver: wake its consumer if it is armed. Cheap when it is not (no
 * system call). @return 0, or -EINVAL (not a net_ring port, bad queue).
 */
__dvp_export int dvp_net_ring_rx_notify(uint16_t port_id, uint16_t queue_id);

/**
 * Pull or plug the cable of @p port_id: the carrier changes and a
 * LINK_DOWN / LINK_UP device event is raised, handled on the EAL interrupt
 * thread as a hardware driver's would be.
 */
__dvp_export int dvp_net_ring_set_link(uint16_t port_id, bool up);

/**
 * Raise a device event with @p cause on @p port_id as a device would (for
 * tests of the async path): a queue error (CQ_ERROR, QP_FATAL, ...)
 * concerns rx or tx queue @p queue_id, which must exist (below the port's
 * rx or tx ring count); DEVICE_FATAL concerns the port.
 * @return 0, or -EINVAL (not a net_ring port, not a cause, no such queue)
 *   after a log line.
 */
__dvp_export int dvp_net_ring_inject_async(uint16_t port_id, enum dvp_port_event_cause cause,
					   uint16_t queue_id, bool tx);

/**
 * Call @p fn(@p arg) right after rx queue @p queue_id is armed, before
 * lib/rxwait's final poll (for tests of the arm/poll race). NULL removes it.
 */
__dvp_export int dvp_net_ring_set_arm_hook(uint16_t port_id, uint16_t queue_id,
					   void (*fn)(void *arg), void *arg);

#ifdef __cplusplus
}
#endif

#endif /* DVP_NET_RING_H */
