/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif shared memory: the client creates regions (memfd sealed against
 * shrinking) and lays out rings and buffers in copy mode; the server maps
 * the client's regions after checking each fd, and finds each ring inside
 * its region, cookie checked.
 */

#ifndef MEMIF_SHM_H
#define MEMIF_SHM_H

#include <stdbool.h>
#include <stdint.h>

#include "memif_cc.h"
#include "memif_proto.h"

struct memif_region {
	void *addr;
	uint64_t size;
	int fd;
	bool guarded; /* server: mapped under the SIGBUS guard (memif_guard.c) */
	bool borrowed; /* zero-copy client: EAL memory, neither unmapped nor closed here */
};

struct memif_shm_ring {
	struct memif_ring *ring; /* NULL: no ring for this queue */
	int efd; /* the ring's eventfd */
	uint8_t log2_ring_size;
	/* Client copy mode: the ring's first buffer, from the region start. */
	uint64_t buf_base;
};

/* One connection's shared memory, on either side. */
struct memif_shm {
	uint16_t nregions;
	uint16_t nb_c2s;
	uint16_t nb_s2c;
	uint16_t bsize; /* client copy mode */
	struct memif_region regions[MEMIF_MAX_REGIONS];
	struct memif_shm_ring c2s[MEMIF_MAX_QUEUES];
	struct memif_shm_ring s2c[MEMIF_MAX_QUEUES];
};

/* Copy mode, one region: c2s rings, s2c rings, then every ring's buffers. */
struct memif_layout {
	uint64_t ring_bytes; /* one ring */
	uint64_t buffers_off; /* the first buffer */
	uint64_t size; /* the region */
};

/*
 * Compute the copy-mode layout. Descriptor offsets are 32-bit, so the
 * region must stay under 4 GiB.
 * @return 0, or -EINVAL with why naming the sizes that do not fit.
 */
int memif_layout_copy(unsigned int nb_c2s, unsigned int nb_s2c, unsigned int log2_ring_size,
		      unsigned int bsize, struct memif_layout *l, char *why);

/* Empty @shm (no fds, no mappings). */
void memif_shm_reset(struct memif_shm *shm);

/*
 * Client: create region 0 of layout @l with the rings of @c in it, then
 * whatever regions @add_regions adds (zero-copy), and their eventfds, and
 * describe them all in @c for the messages. Without @add_regions (copy
 * mode) each ring is initialised on its own buffers, which follow the
 * rings in region 0 from @l->buffers_off; with it, the rings are left
 * empty (cookie set). On error @shm is released.
 */
int memif_shm_create(struct memif_shm *shm, struct memif_conn_desc *c, const struct memif_layout *l,
		     int (*add_regions)(struct memif_shm *shm, char *why), char *why);

/*
 * Client: create region 0 and every ring (initialised, cookie set, each
 * descriptor on its own buffer) and their eventfds for the negotiated
 * sizes in @c, and describe them in @c for the messages.
 */
int memif_shm_client_create(struct memif_shm *shm, struct memif_conn_desc *c, char *why);

/*
 * Server: may @fd back a region of @size bytes? A memory file at least
 * that big. It is sealed against shrinking first if it is not and still
 * can be; one that cannot be is accepted, and mapped under the guard.
 */
int memif_region_check_fd(int fd, uint64_t size, char *why);

/* Whether the file of @fd is sealed against shrinking. */
bool memif_region_sealed(int fd);

/* Server: is @fd an eventfd (the only kind of fd we write to)? */
int memif_check_eventfd(int fd, char *why);

/*
 * Server: map the regions of @c (those not sealed against shrinking under
 * the guard) and find its rings (each inside its region, cookie checked).
 * On success @shm owns every fd of @c; on failure nothing of @c is taken
 * and @shm is empty.
 */
int memif_shm_server_map(struct memif_shm *shm, const struct memif_conn_desc *c, char *why);

/* Unmap and close everything @shm holds. */
void memif_shm_release(struct memif_shm *shm);

/*
 * The SIGBUS guard (memif_guard.c): a fault inside a guarded mapping
 * replaces it with anonymous zero pages instead of killing the process.
 * add: @return 0, or a negative errno with why set. del: before unmapping;
 * @return the faults the region took.
 */
int memif_guard_add(void *addr, uint64_t len, char *why);
unsigned int memif_guard_del(void *addr);
/* Faults the guarded mapping at @addr took so far. */
unsigned int memif_guard_faults(const void *addr);

/*
 * Whether [offset, offset + len) lies inside region @region of @shm (the
 * check every descriptor of a peer passes before its buffer is touched).
 */
static inline bool memif_shm_buf_ok(const struct memif_shm *shm, uint16_t region, uint32_t offset,
				    uint32_t len)
{
	return region < shm->nregions && (uint64_t)offset + len <= shm->regions[region].size;
}

#endif /* MEMIF_SHM_H */
