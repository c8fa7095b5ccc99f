/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* The zero-copy client (zero-copy=yes): its regions, queues and bursts. */

#ifndef MEMIF_ZC_H
#define MEMIF_ZC_H

#include "memif_cc.h"
#include "memif_rxtx.h"
#include "memif_shm.h"

/*
 * Client: region 0 with every ring (cookie set, descriptors empty) and their
 * eventfds, then one region per EAL memory segment (its fd, borrowed from
 * the EAL), described in @c for the messages.
 */
int memif_zc_shm_create(struct memif_shm *shm, struct memif_conn_desc *c, char *why);

/*
 * Make @q a zero-copy queue: a slot array for rings of up to
 * @max_ring_size. @return 0 or -errno (dvp_errno set).
 */
int memif_zc_queue_init(struct memif_queue *q, unsigned int max_ring_size, int socket_id);
void memif_zc_queue_fini(struct memif_queue *q);

/* From memif_queue_up(): post a whole rx ring of fresh mbufs. */
void memif_zc_queue_up(struct memif_queue *q);
/* From memif_queue_down(), no burst running: every mbuf back to its pool. */
void memif_zc_queue_down(struct memif_queue *q);

uint16_t memif_rx_client_zc(void *rxq, struct dvp_mbuf **pkts, uint16_t nb_pkts);
uint16_t memif_tx_client_zc(void *txq, struct dvp_mbuf **pkts, uint16_t nb_pkts);

#endif /* MEMIF_ZC_H */
