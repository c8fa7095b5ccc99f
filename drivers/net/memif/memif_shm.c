/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Regions and rings in shared memory: created by the client, mapped by the server. */

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_fd.h>

#include "memif_log.h"
#include "memif_shm.h"

static void __dvp_format_printf(2, 3) why_set(char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, MEMIF_WHY_SZ, fmt, ap);
	va_end(ap);
}

int memif_layout_copy(unsigned int nb_c2s, unsigned int nb_s2c, unsigned int log2_ring_size,
		      unsigned int bsize, struct memif_layout *l, char *why)
{
	uint64_t nrings = (uint64_t)nb_c2s + nb_s2c;

	if (nrings == 0 || log2_ring_size < 1 || log2_ring_size > MEMIF_MAX_LOG2_RING_SIZE ||
	    bsize == 0) {
		why_set(why, "Invalid layout: %u+%u rings of 2^%u buffers of %u bytes", nb_c2s,
			nb_s2c, log2_ring_size, bsize);
		return -EINVAL;
	}
	l->ring_bytes = memif_ring_bytes(log2_ring_size);
	l->buffers_off = nrings * l->ring_bytes;
	l->size = l->buffers_off + (nrings << log2_ring_size) * bsize;
	if (l->size > UINT32_MAX) {
		why_set(why,
			"Shared memory of %llu bytes exceeds 4 GiB (32-bit offsets): lower bsize, "
			"rsize or the queue count",
			(unsigned long long)l->size);
		return -EINVAL;
	}
	return 0;
}

void memif_shm_reset(struct memif_shm *shm)
{
	unsigned int i;

	memset(shm, 0, sizeof(*shm));
	for (i = 0; i < MEMIF_MAX_REGIONS; i++)
		shm->regions[i].fd = -1;
	for (i = 0; i < MEMIF_MAX_QUEUES; i++) {
		shm->c2s[i].efd = -1;
		shm->s2c[i].efd = -1;
	}
}

void memif_shm_release(struct memif_shm *shm)
{
	unsigned int i;

	for (i = 0; i < MEMIF_MAX_QUEUES; i++) {
		if (shm->c2s[i].efd >= 0)
			close(shm->c2s[i].efd);
		if (shm->s2c[i].efd >= 0)
			close(shm->s2c[i].efd);
	}
	for (i = 0; i < shm->nregions; i++) {
		if (shm->regions[i].guarded) {
			unsigned int faults = memif_guard_del(shm->regions[i].addr);

			if (faults > 0)
				MEMIF_LOG(
					WARNING,
					"region %u was truncated by the peer while mapped: it read "
					"as zeros from then on (%u faults)",
					i, faults);
		}
		if (shm->regions[i].borrowed)
			continue;
		if (shm->regions[i].addr != NULL)
			munmap(shm->regions[i].addr, shm->regions[i].size);
		if (shm->regions[i].fd >= 0)
			close(shm->regions[i].fd);
	}
	memif_shm_reset(shm);
}

static void ring_init_copy(struct memif_ring *r, unsigned int log2_ring_size, uint64_t buf_base,
			   unsigned int bsize)
{
	uint32_t i, n = 1u << log2_ring_size;

	r->cookie = MEMIF_COOKIE;
	r->flags = 0;
	r->head = 0;
	r->tail = 0;
	for (i = 0; i < n; i++) {
		r->desc[i].flags = 0;
		r->desc[i].region = 0;
		r->desc[i].length = bsize;
		r->desc[i].offset = (uint32_t)(buf_base + (uint64_t)i * bsize);
		r->desc[i].metadata = 0;
	}
}

/*
 * Region 0, a memfd of @size bytes sealed against shrinking and mapped
 * shared (shm->nregions becomes 1). On error the caller releases @shm.
 */
static int region0_create(struct memif_shm *shm, uint64_t size, char *why)
{
	struct memif_region *reg = &shm->regions[0];
	int ret;

	reg->fd = memfd_create("memif_region_0", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (reg->fd < 0) {
		ret = -errno;
		why_set(why, "Failed to create shared memory: memfd_create: %s", strerror(errno));
		return ret;
	}
	shm->nregions = 1;
	/* Sealed before it grows: the server may then trust its size. */
	if (fcntl(reg->fd, F_ADD_SEALS, F_SEAL_SHRINK) < 0 || ftruncate(reg->fd, (off_t)size)) {
		ret = -errno;
		why_set(why, "Failed to size shared memory of %llu bytes: %s",
			(unsigned long long)size, strerror(errno));
		return ret;
	}
	reg->size = size;
	reg->addr = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, reg->fd, 0);
	if (reg->addr == MAP_FAILED) {
		ret = -errno;
		reg->addr = NULL;
		why_set(why, "Failed to map shared memory of %llu bytes: %s",
			(unsigned long long)size, strerror(errno));
		return ret;
	}
	return 0;
}

/*
 * Ring @sr's eventfd, and @d, the ring's entry in the connection's
 * description (region 0 at @off, 2^@log2_ring_size slots).
 */
static int ring_announce(struct memif_shm_ring *sr, struct memif_ring_desc *d, uint64_t off,
			 uint8_t log2_ring_size, char *why)
{
	int ret;

	sr->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sr->efd < 0) {
		ret = -errno;
		why_set(why, "Failed to create a ring eventfd: %s", strerror(errno));
		return ret;
	}
	d->present = true;
	d->fd = sr->efd;
	d->region = 0;
	d->offset = (uint32_t)off;
	d->log2_ring_size = log2_ring_size;
	return 0;
}

int memif_shm_create(struct memif_shm *shm, struct memif_conn_desc *c, const struct memif_layout *l,
		     int (*add_regions)(struct memif_shm *shm, char *why), char *why)
{
	unsigned int nrings = (unsigned int)c->nb_c2s + c->nb_s2c;
	bool copy = add_regions == NULL;
	struct memif_region *reg = &shm->regions[0];
	unsigned int i;
	int ret;

	ret = region0_create(shm, l->size, why);
	if (ret == 0 && !copy)
		ret = add_regions(shm, why);
	if (ret < 0)
		goto fail;
	shm->nb_c2s = c->nb_c2s;
	shm->nb_s2c = c->nb_s2c;
	shm->bsize = copy ? c->bsize : 0;
	c->nregions = shm->nregions;
	for (i = 0; i < shm->nregions; i++) {
		c->regions[i].fd = shm->regions[i].fd;
		c->regions[i].size = shm->regions[i].size;
	}
	for (i = 0; i < nrings; i++) {
		bool c2s = i < c->nb_c2s;
		unsigned int q = c2s ? i : i - c->nb_c2s;
		struct memif_shm_ring *sr = c2s ? &shm->c2s[q] : &shm->s2c[q];
		struct memif_ring_desc *d = c2s ? &c->c2s[q] : &c->s2c[q];
		uint64_t off = i * l->ring_bytes;

		sr->ring = (struct memif_ring *)(void *)((char *)reg->addr + off);
		sr->log2_ring_size = c->log2_ring_size;
		if (copy) {
			sr->buf_base =
				l->buffers_off + ((uint64_t)i << c->log2_ring_size) * c->bsize;
			ring_init_copy(sr->ring, c->log2_ring_size, sr->buf_base, c->bsize);
		} else {
			/* The memfd reads as zeros: descriptors are filled when a queue comes up. */
			sr->ring->cookie = MEMIF_COOKIE;
			sr->buf_base = 0;
		}
		ret = ring_announce(sr, d, off, c->log2_ring_size, why);
		if (ret < 0)
			goto fail;
	}
	return 0;

fail:
	memif_shm_release(shm);
	c->nregions = 0;
	return ret;
}

int memif_shm_client_create(struct memif_shm *shm, struct memif_conn_desc *c, char *why)
{
	struct memif_layout l;
	int ret;

	memif_shm_reset(shm);
	ret = memif_layout_copy(c->nb_c2s, c->nb_s2c, c->log2_ring_size, c->bsize, &l, why);
	if (ret < 0)
		return ret;
	return memif_shm_create(shm, c, &l, NULL, why);
}

bool memif_region_sealed(int fd)
{
	int seals = fcntl(fd, F_GET_SEALS);

	return seals >= 0 && (seals & F_SEAL_SHRINK);
}

int memif_region_check_fd(int fd, uint64_t size, char *why)
{
	struct stat st;
	int seals;

	/*
	 * A file the client could still shrink would turn our accesses past
	 * its new end into SIGBUS. Seal it ourselves when it allows that (a
	 * memfd made with MFD_ALLOW_SEALING and not sealed against sealing),
	 * before its size is checked; one that cannot be sealed is mapped
	 * under the guard (memif_shm_server_map()).
	 */
	seals = fcntl(fd, F_GET_SEALS);
	if (seals >= 0 && !(seals & (F_SEAL_SHRINK | F_SEAL_SEAL)))
		(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
	if (fstat(fd, &st) < 0) {
		why_set(why, "Region fd unusable: %s", strerror(errno));
		return -EBADF;
	}
	if (!S_ISREG(st.st_mode)) {
		why_set(why, "Region fd is not a memory file (mode 0%o)", st.st_mode & S_IFMT);
		return -EPROTO;
	}
	if ((uint64_t)st.st_size < size) {
		why_set(why, "Region of %llu bytes announced, but its file has %llu",
			(unsigned long long)size, (unsigned long long)st.st_size);
		return -EPROTO;
	}
	return 0;
}

int memif_check_eventfd(int fd, char *why)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0) {
		why_set(why, "Ring interrupt fd unusable: %s", strerror(errno));
		return -EBADF;
	}
	target[n] = '\0';
	if (strcmp(target, "anon_inode:[eventfd]") != 0) {
		why_set(why, "Ring interrupt fd is not an eventfd");
		return -EPROTO;
	}
	/* Never block the data path on a write: the peer may have left it blocking. */
	(void)dvp_fd_set_nonblock(fd);
	return 0;
}

static int map_ring(struct memif_shm *shm, struct memif_shm_ring *sr,
		    const struct memif_ring_desc *d, const char *dir, unsigned int q, char *why)
{
	const struct memif_region *reg;
	struct memif_ring *r;

	if (d->region >= shm->nregions) {
		why_set(why, "Ring %s %u in region %u of %u", dir, q, d->region, shm->nregions);
		return -EPROTO;
	}
	reg = &shm->regions[d->region];
	if ((uint64_t)d->offset + memif_ring_bytes(d->log2_ring_size) > reg->size) {
		why_set(why, "Ring %s %u outside its region", dir, q);
		return -EPROTO;
	}
	r = (struct memif_ring *)(void *)((char *)reg->addr + d->offset);
	if (__atomic_load_n(&r->cookie, __ATOMIC_RELAXED) != MEMIF_COOKIE) {
		why_set(why, "Wrong ring: %s %u has cookie 0x%x, expected 0x%x", dir, q, r->cookie,
			MEMIF_COOKIE);
		return -EPROTO;
	}
	sr->ring = r;
	sr->log2_ring_size = d->log2_ring_size;
	return 0;
}

int memif_shm_server_map(struct memif_shm *shm, const struct memif_conn_desc *c, char *why)
{
	unsigned int i;
	int ret;

	memif_shm_reset(shm);
	for (i = 0; i < c->nregions; i++) {
		struct memif_region *reg = &shm->regions[i];
		void *addr;

		addr = mmap(NULL, c->regions[i].size, PROT_READ | PROT_WRITE, MAP_SHARED,
			    c->regions[i].fd, 0);
		if (addr == MAP_FAILED) {
			ret = -errno;
			why_set(why, "Failed to map region %u of %llu bytes: %s", i,
				(unsigned long long)c->regions[i].size, strerror(errno));
			goto fail;
		}
		reg->addr = addr;
		reg->size = c->regions[i].size;
		shm->nregions = (uint16_t)(i + 1);
		if (!memif_region_sealed(c->regions[i].fd)) {
			ret = memif_guard_add(addr, reg->size, why);
			if (ret < 0)
				goto fail;
			reg->guarded = true;
		}
	}
	for (i = 0; i < c->nb_c2s; i++) {
		ret = map_ring(shm, &shm->c2s[i], &c->c2s[i], "c2s", i, why);
		if (ret < 0)
			goto fail;
	}
	for (i = 0; i < c->nb_s2c; i++) {
		ret = map_ring(shm, &shm->s2c[i], &c->s2c[i], "s2c", i, why);
		if (ret < 0)
			goto fail;
	}
	/* Everything checked: take the fds. */
	shm->nb_c2s = c->nb_c2s;
	shm->nb_s2c = c->nb_s2c;
	for (i = 0; i < c->nregions; i++)
		shm->regions[i].fd = c->regions[i].fd;
	for (i = 0; i < c->nb_c2s; i++)
		shm->c2s[i].efd = c->c2s[i].fd;
	for (i = 0; i < c->nb_s2c; i++)
		shm->s2c[i].efd = c->s2c[i].fd;
	return 0;

fail:
	/* fds stay with the caller: unmap only. */
	for (i = 0; i < shm->nregions; i++) {
		if (shm->regions[i].guarded)
			(void)memif_guard_del(shm->regions[i].addr);
		munmap(shm->regions[i].addr, shm->regions[i].size);
	}
	memif_shm_reset(shm);
	return ret;
}
