/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif interfaces (memif_if.c), the driver's view of a connection: a port
 * creates one from its devargs, starts it with its queues and hears of the
 * link through a callback; everything else happens on the EAL interrupt
 * thread (memif_socket.c carries the control messages). Several server
 * interfaces (ids) may share one socket. Unlike DPDK's memif, a process may
 * have a server and a client on the same socket (each role keeps its own
 * list), so that both ends can run in one process.
 */

#ifndef MEMIF_IF_H
#define MEMIF_IF_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/un.h>

#include "memif_cc.h"
#include "memif_rxtx.h"

/* Longest socket name: sun_path less the abstract namespace's leading NUL. */
#define MEMIF_SOCKET_NAME_MAX (sizeof(((struct sockaddr_un *)0)->sun_path) - 1)

/* Client reconnect back-off: from 50 ms, doubling, up to 2 s. */
#define MEMIF_RECONNECT_MIN_MS 50
#define MEMIF_RECONNECT_MAX_MS 2000

/* A handshake not done in this long is given up (devarg handshake-timeout). */
#define MEMIF_HANDSHAKE_TIMEOUT_MS_DEFAULT 5000
#define MEMIF_HANDSHAKE_TIMEOUT_MS_MAX 3600000

struct memif_if_params {
	enum memif_role role;
	uint32_t id;
	char secret[MEMIF_SECRET_SZ + 1];
	char socket[MEMIF_SOCKET_NAME_MAX + 1];
	bool abstract;
	uint16_t bsize;
	uint8_t log2_ring_size;
	bool zc; /* client: zero-copy (memif_zc.c) */
	uint32_t handshake_ms; /* from connect (accept) to CONNECTED, at most */
	char if_name[MEMIF_NAME_SZ];
	char app_name[MEMIF_NAME_SZ];
};

/* Called on the interrupt thread when the connection goes up or down. */
typedef void (*memif_link_cb)(void *arg, bool up);

struct memif_if_stats {
	uint64_t connects; /* connections made */
	uint64_t disconnects; /* connections lost, either side */
	uint64_t connect_attempts; /* client: socket connects tried */
	uint64_t rejects; /* handshakes refused (ours or the peer's) */
};

struct memif_if;

/*
 * Create an interface: a server's listener is created (or shared) now, as
 * DPDK does at probe. A file-system socket name that exists is replaced
 * only when it is a stale socket (nobody accepts on it); a live socket or
 * anything that is not a socket is left alone. @return it, or NULL with
 * dvp_errno set after a log line (EADDRINUSE names the socket and what is
 * there; EEXIST for an id taken on a socket).
 */
struct memif_if *memif_if_create(const struct memif_if_params *p, memif_link_cb cb, void *cb_arg);

/*
 * Start connecting (client) or accepting (server) with these queues (the
 * caller's, set up with memif_queue_init(); they must outlive the stop).
 * The client asks for one c2s ring per tx queue and one s2c ring per rx
 * queue; the server accepts up to as many.
 */
int memif_if_start(struct memif_if *ifc, struct memif_queue *const *rxq, uint16_t nb_rxq,
		   struct memif_queue *const *txq, uint16_t nb_txq);

/*
 * Stop: disconnect the peer (DISCONNECT "Interface stopped"), take every
 * queue down (waiting for a running burst), unmap. No callback runs for
 * this interface once it returns.
 */
void memif_if_stop(struct memif_if *ifc);

/* Stop, leave the socket (the last user removes the listener), free. */
void memif_if_destroy(struct memif_if *ifc);

bool memif_if_connected(const struct memif_if *ifc);
void memif_if_stats_get(const struct memif_if *ifc, struct memif_if_stats *st);
/* The last disconnect reason, ours or the peer's ("" if none). */
void memif_if_last_reason(const struct memif_if *ifc, char *buf, size_t len);
/* The peer's names from the handshake ("" while not connected). */
void memif_if_remote(const struct memif_if *ifc, char *app, char *if_name);

#endif /* MEMIF_IF_H */
