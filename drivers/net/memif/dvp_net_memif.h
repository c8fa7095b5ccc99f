/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * net_memif: the shared-memory packet interface of DPDK's net_memif and
 * VPP's libmemif (memif 2.0), as a port.
 *
 *     --vdev net_memif0,role=server,socket=/run/memif.sock,id=0
 *     --vdev net_memif1,role=client,socket=/tmp/m.sock,socket-abstract=no,secret=s
 *
 * Keys, with DPDK's names and defaults: role (client), id (0), socket
 * (/run/memif.sock), socket-abstract (yes), secret (none), bsize (2048),
 * rsize (10), mac (random), zero-copy (no); and nb_rx_queues,
 * nb_tx_queues (the most queues the port may be configured with, 128).
 * doc/memif.md has the details.
 *
 * The port's link is up while it is connected to a peer. A client
 * connects at start and reconnects with back-off after a disconnect; a
 * server listens from probe and accepts its id's client while started.
 * Rx interrupts (intr_conf.rxq), which DPDK's memif lacks, unmask the
 * ring's interrupt flag when armed and sleep on the ring's eventfd.
 */

#ifndef DVP_NET_MEMIF_H
#define DVP_NET_MEMIF_H

#include <stdint.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Descriptors (one per packet, more for a chained one) sent on tx queue
 * @p queue_id of memif port @p port_id that the peer has not taken from the
 * ring yet (0 while not connected): what a sender waits for before it
 * stops, so that nothing in flight is lost. A server learns it from the
 * buffers the client posts back: exact with clients that repost all they
 * read (DPDK's and ours in copy mode), up to 31 too high with DPDK's
 * zero-copy client, which reposts in batches of 32.
 * Call it from the lcore that sends on the queue (as a burst: the queue has
 * one user at a time).
 * @return the count, or -EINVAL (not a started memif port, no such queue)
 *   after a log line.
 */
__dvp_export int dvp_net_memif_tx_pending(uint16_t port_id, uint16_t queue_id);

#ifdef __cplusplus
}
#endif

#endif /* DVP_NET_MEMIF_H */
