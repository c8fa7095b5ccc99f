/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The memif 2.0 wire format: control messages on the AF_UNIX SOCK_SEQPACKET
 * channel and the ring layout in shared memory, as DPDK's and VPP's memif
 * (libmemif) define them. Every field here is fixed by the protocol: a peer
 * built from another code base reads the same bytes, so nothing may move.
 *
 * Directions are named from the client: c2s rings carry packets client ->
 * server, s2c rings server -> client. The client creates all shared memory.
 */

#ifndef MEMIF_PROTO_H
#define MEMIF_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define MEMIF_COOKIE 0x3E31F20u
#define MEMIF_VERSION_MAJOR 2
#define MEMIF_VERSION_MINOR 0
#define MEMIF_VERSION ((MEMIF_VERSION_MAJOR << 8) | MEMIF_VERSION_MINOR)

#define MEMIF_NAME_SZ 32
#define MEMIF_SECRET_SZ 24
#define MEMIF_DISC_STRING_SZ 96
#define MEMIF_MSG_SZ 128

/* What our side offers in HELLO (DPDK's limits, so its clients fit). */
#define MEMIF_MAX_QUEUES 255
#define MEMIF_MAX_LOG2_RING_SIZE 14
#define MEMIF_MAX_REGIONS 256

enum memif_msg_type {
	MEMIF_MSG_TYPE_NONE = 0,
	MEMIF_MSG_TYPE_ACK = 1,
	MEMIF_MSG_TYPE_HELLO = 2,
	MEMIF_MSG_TYPE_INIT = 3,
	MEMIF_MSG_TYPE_ADD_REGION = 4,
	MEMIF_MSG_TYPE_ADD_RING = 5,
	MEMIF_MSG_TYPE_CONNECT = 6,
	MEMIF_MSG_TYPE_CONNECTED = 7,
	MEMIF_MSG_TYPE_DISCONNECT = 8,
	MEMIF_MSG_TYPE_MAX = 8,
};

/* Ring types: their order is the order of rings in region 0. */
enum memif_ring_type {
	MEMIF_RING_C2S = 0,
	MEMIF_RING_S2C = 1,
};

enum memif_interface_mode {
	MEMIF_INTERFACE_MODE_ETHERNET = 0,
	MEMIF_INTERFACE_MODE_IP = 1,
	MEMIF_INTERFACE_MODE_PUNT_INJECT = 2,
};

/* Server -> client, first message: what the server accepts. */
struct memif_msg_hello {
	uint8_t name[MEMIF_NAME_SZ];
	uint16_t min_version;
	uint16_t max_version;
	uint16_t max_region; /* highest region index */
	uint16_t max_c2s_ring; /* highest c2s ring index */
	uint16_t max_s2c_ring;
	uint8_t max_log2_ring_size;
} __attribute__((packed));

/* Client -> server: which interface (id) and who asks. */
struct memif_msg_init {
	uint16_t version;
	uint32_t id;
	uint8_t mode;
	uint8_t secret[MEMIF_SECRET_SZ];
	uint8_t name[MEMIF_NAME_SZ];
} __attribute__((packed));

/* Client -> server, with the region's fd (SCM_RIGHTS). */
struct memif_msg_add_region {
	uint16_t index;
	uint64_t size;
} __attribute__((packed));

#define MEMIF_MSG_ADD_RING_FLAG_C2S 1

/* Client -> server, with the ring's eventfd (SCM_RIGHTS). */
struct memif_msg_add_ring {
	uint16_t flags;
	uint16_t index;
	uint16_t region;
	uint32_t offset;
	uint8_t log2_ring_size;
	uint16_t private_hdr_size;
} __attribute__((packed));

struct memif_msg_connect {
	uint8_t if_name[MEMIF_NAME_SZ];
} __attribute__((packed));

struct memif_msg_connected {
	uint8_t if_name[MEMIF_NAME_SZ];
} __attribute__((packed));

struct memif_msg_disconnect {
	uint32_t code;
	uint8_t string[MEMIF_DISC_STRING_SZ];
} __attribute__((packed));

/* One control message: u16 type, then the packed union, 128 bytes in all. */
struct memif_msg {
	uint16_t type;
	union {
		struct memif_msg_hello hello;
		struct memif_msg_init init;
		struct memif_msg_add_region add_region;
		struct memif_msg_add_ring add_ring;
		struct memif_msg_connect connect;
		struct memif_msg_connected connected;
		struct memif_msg_disconnect disconnect;
	} __attribute__((packed));
	uint8_t pad_[MEMIF_MSG_SZ - 2 - sizeof(struct memif_msg_disconnect)];
} __attribute__((packed));

_Static_assert(sizeof(struct memif_msg) == MEMIF_MSG_SZ, "memif messages are 128 bytes");
_Static_assert(sizeof(struct memif_msg_hello) == 43, "hello layout");
_Static_assert(sizeof(struct memif_msg_init) == 63, "init layout");
_Static_assert(sizeof(struct memif_msg_add_region) == 10, "add_region layout");
_Static_assert(sizeof(struct memif_msg_add_ring) == 13, "add_ring layout");
_Static_assert(offsetof(struct memif_msg, hello) == 2, "union right after the type");

#define MEMIF_DESC_FLAG_NEXT 1

/* A buffer descriptor: 16 bytes. */
struct memif_desc {
	uint16_t flags;
	uint16_t region;
	uint32_t length;
	uint32_t offset;
	uint32_t metadata;
} __attribute__((packed));

_Static_assert(sizeof(struct memif_desc) == 16, "descriptor layout");

#define MEMIF_RING_FLAG_MASK_INT 1

/*
 * A ring: the producer's index and the consumer's index on cache lines of
 * their own (64 bytes on every peer we talk to), descriptors from byte 128.
 * head and tail are free-running u16 counters masked by ring_size - 1.
 * flags belongs to the ring's receiver: MASK_INT set means "do not signal".
 */
struct memif_ring {
	uint32_t cookie;
	uint16_t flags;
	uint16_t head;
	uint8_t pad0_[64 - 8];
	uint16_t tail;
	uint8_t pad1_[64 - 2];
	struct memif_desc desc[];
};

#define MEMIF_RING_HDR_SZ 128u

_Static_assert(offsetof(struct memif_ring, tail) == 64, "tail on cache line 1");
_Static_assert(offsetof(struct memif_ring, desc) == MEMIF_RING_HDR_SZ, "descriptors at 128");

/* Bytes of a ring of 2^log2 descriptors. */
static inline uint64_t memif_ring_bytes(unsigned int log2_ring_size)
{
	return MEMIF_RING_HDR_SZ + ((uint64_t)sizeof(struct memif_desc) << log2_ring_size);
}

/* Printable name of a message type, for logs. */
static inline const char *memif_msg_type_name(unsigned int type)
{
	static const char *const names[] = { "NONE",	"ACK",	      "HELLO",
					     "INIT",	"ADD_REGION", "ADD_RING",
					     "CONNECT", "CONNECTED",  "DISCONNECT" };

	return type <= MEMIF_MSG_TYPE_MAX ? names[type] : "UNKNOWN";
}

#endif /* MEMIF_PROTO_H */
