/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The memif control channel: a validating message parser and the client
 * and server state machines, kept apart from sockets and shared memory so
 * that unit tests and the fuzz target can drive them with any bytes.
 *
 * Every message from the peer passes memif_msg_check() (what can be checked
 * from the message alone) and then the state machine (what depends on the
 * state and our configuration) before any field is used. A message that
 * fails either is answered with DISCONNECT and its reason, and the channel
 * closes. File descriptors that arrive with a message are owned by the
 * state machine from the call on: kept when the message is accepted, closed
 * otherwise.
 */

#ifndef MEMIF_CC_H
#define MEMIF_CC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "memif_proto.h"

#define MEMIF_WHY_SZ MEMIF_DISC_STRING_SZ
/* Largest region we map (1 TiB): more is a broken or hostile peer. */
#define MEMIF_MAX_REGION_SIZE (1ull << 40)
/* Ring offsets: every peer's rings are 128 + 16 * 2^n bytes apart. */
#define MEMIF_RING_ALIGN 16

enum memif_role {
	MEMIF_ROLE_CLIENT,
	MEMIF_ROLE_SERVER,
};

/* One interface's side of the contract (from its devargs and queues). */
struct memif_if_cfg {
	enum memif_role role;
	uint32_t id;
	/* Up to 24 bytes; "" for none. Not NUL-terminated when 24 long. */
	char secret[MEMIF_SECRET_SZ + 1];
	char app_name[MEMIF_NAME_SZ]; /* HELLO / INIT name */
	char if_name[MEMIF_NAME_SZ]; /* CONNECT / CONNECTED if_name */
	/* Rings per direction: the client's wish, the server's maximum. */
	uint16_t nb_c2s;
	uint16_t nb_s2c;
	uint8_t log2_ring_size; /* client: the size it asks for */
	uint16_t bsize; /* client: bytes per buffer */
};

struct memif_region_desc {
	int fd;
	uint64_t size;
};

struct memif_ring_desc {
	bool present;
	int fd; /* the ring's eventfd */
	uint16_t region;
	uint32_t offset;
	uint8_t log2_ring_size;
};

/*
 * A connection as negotiated: filled by the client's prepare callback (its
 * own regions and rings) or from the client's messages on the server.
 */
struct memif_conn_desc {
	uint16_t nregions;
	uint16_t nb_c2s;
	uint16_t nb_s2c;
	uint8_t log2_ring_size; /* client: the negotiated ring size */
	uint16_t bsize;
	struct memif_region_desc regions[MEMIF_MAX_REGIONS];
	struct memif_ring_desc c2s[MEMIF_MAX_QUEUES];
	struct memif_ring_desc s2c[MEMIF_MAX_QUEUES];
	char remote_name[MEMIF_NAME_SZ];
	char remote_if_name[MEMIF_NAME_SZ];
};

/*
 * What the state machine asks of its environment. Each returning int gives
 * 0, or a negative errno after writing the reason (sent to the peer in the
 * DISCONNECT) into why[MEMIF_WHY_SZ].
 */
struct memif_cc_ops {
	/*
	 * Server: the interface of @id on this socket, or NULL with why set
	 * ("ID not found", "Already connected").
	 */
	const struct memif_if_cfg *(*lookup)(void *ctx, uint32_t id, char *why);
	/* Server: may this fd back a region of @size bytes? */
	int (*check_region)(void *ctx, int fd, uint64_t size, char *why);
	/* Server: may this fd be a ring's interrupt (an eventfd)? */
	int (*check_ring_fd)(void *ctx, int fd, char *why);
	/* Client: create regions and rings for the negotiated sizes in @c. */
	int (*prepare)(void *ctx, struct memif_conn_desc *c, char *why);
	/* Both: the handshake is complete; map and check (server), go up. */
	int (*connected)(void *ctx, struct memif_conn_desc *c, char *why);
	/* Both: the connection ends (peer's DISCONNECT, an error, or EOF). */
	void (*disconnected)(void *ctx, bool by_peer, const char *reason);
};

enum memif_cc_state {
	MEMIF_CC_S_WAIT_INIT, /* server: HELLO sent */
	MEMIF_CC_S_SETUP, /* server: INIT accepted, taking regions and rings */
	MEMIF_CC_C_WAIT_HELLO, /* client: socket connected */
	MEMIF_CC_C_SETUP, /* client: sending INIT, regions, rings, CONNECT */
	MEMIF_CC_C_WAIT_CONNECTED,
	MEMIF_CC_CONNECTED,
	MEMIF_CC_CLOSED,
};

struct memif_cc {
	enum memif_role role;
	enum memif_cc_state state;
	const struct memif_if_cfg *cfg; /* server: set by INIT */
	const struct memif_cc_ops *ops;
	void *ctx;
	const char *log_name; /* interface or socket, for log lines */
	unsigned int step; /* client: next message of the setup sequence */
	bool owns_fds; /* server: conn's fds are ours to close */
	struct memif_conn_desc conn;
};

/* The reply the channel must send (at most one per input). */
struct memif_cc_out {
	bool valid;
	int fd; /* -1, or an fd to pass (still owned by its creator) */
	struct memif_msg msg;
};

/*
 * Check what can be checked of a message alone: its size, its type, the
 * fd it carries or lacks, and each field's range and NUL-termination.
 * @return 0, or -EPROTO with the reason in why[MEMIF_WHY_SZ].
 */
int memif_msg_check(const void *buf, size_t len, bool has_fd, char *why);

/* Build messages (the whole 128 bytes, zeroed first). */
void memif_msg_build_hello(struct memif_msg *m, const char *name);
void memif_msg_build_disconnect(struct memif_msg *m, uint32_t code, const char *reason);

/*
 * Start a channel. @cfg is the interface (client) or NULL (server: known
 * after INIT). A server produces its HELLO in @out.
 */
void memif_cc_init(struct memif_cc *cc, enum memif_role role, const struct memif_if_cfg *cfg,
		   const struct memif_cc_ops *ops, void *ctx, const char *log_name,
		   struct memif_cc_out *out);

/*
 * Feed one received message (@len bytes as received, @fd or -1). @out gets
 * the reply to send, if any.
 * @return 0 to keep going, or a negative errno when the channel must close
 *   (after sending @out, a DISCONNECT, when valid): -EPROTO for a message
 *   we rejected, -ECONNRESET when the peer disconnected, or the errno a
 *   callback returned.
 */
int memif_cc_input(struct memif_cc *cc, const void *buf, size_t len, int fd,
		   struct memif_cc_out *out);

/*
 * Close the channel from our side (device stop, socket EOF): the
 * disconnected callback runs if the channel was not closed yet, and fds the
 * server collected and did not hand over are closed. With @reason, @out
 * gets a DISCONNECT to send.
 */
void memif_cc_close(struct memif_cc *cc, const char *reason, struct memif_cc_out *out);

/* Copy a peer string of at most @n bytes, replacing what is not printable. */
void memif_sanitize(char *dst, const uint8_t *src, size_t n);

#endif /* MEMIF_CC_H */
