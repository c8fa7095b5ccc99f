/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * EAL memory: segments bound to a NUMA node, from hugepages (eal_hugepages.c)
 * or, with --no-huge, memfds of ordinary pages (so every segment has an fd).
 * Binding happens before the first touch, so every page is allocated on its node or not at all: a node that
 * runs out makes the fault fail rather than silently land elsewhere.
 */

#include <errno.h>
#include <fcntl.h>
#include <numa.h>
#include <numaif.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dvp_eal_host.h"
#include "dvp_lcore.h"
#include "eal_private.h"

static struct {
	bool up;
	bool huge;
	size_t page_sz;
	const struct dvp_eal_host *host; /* hosted: blocks come from the host */
} mem;

size_t eal_memory_page_size(void)
{
	return mem.page_sz ? mem.page_sz : (size_t)sysconf(_SC_PAGESIZE);
}

bool eal_memory_has_hugepages(void)
{
	return mem.up && mem.huge;
}

bool eal_socket_valid(int socket)
{
	if (socket < 0 || (unsigned int)socket >= eal_numa_nodes())
		return false;
	if (numa_available() < 0)
		return socket == 0;
	/* Nodes this process may allocate on (memoryless nodes are not among them). */
	return numa_bitmask_isbitset(numa_all_nodes_ptr, (unsigned int)socket);
}

bool eal_mem_bind(void *addr, size_t len, int socket, char *why, size_t wlen)
{
	unsigned long mask[(DVP_MAX_NUMA_NODES + 63) / 64 + 1] = { 0 };

	if (numa_available() < 0)
		return true;
	mask[socket / 64] |= 1ul << (socket % 64);
	if (mbind(addr, len, MPOL_BIND, mask, sizeof(mask) * 8, MPOL_MF_STRICT) != 0) {
		snprintf(why, wlen, "cannot bind memory to node %d: %s", socket,
			 dvp_strerror(errno));
		return false;
	}
	return true;
}

/*
 * --no-huge: a memfd of ordinary pages rather than anonymous memory, so that
 * the segment has an fd to share (memif zero-copy hands it to its peer:
 * dvp_memseg_walk()). memfds are made without commit accounting, as
 * MAP_NORESERVE did for the anonymous mapping, and shmem honours the node
 * binding like anonymous memory. Sealed against shrinking: a process we
 * share it with can trust its size and map it without fearing SIGBUS.
 */
static struct eal_memseg *memfd_map(int socket, size_t len, char *why, size_t wlen)
{
	struct eal_memseg *seg = calloc(1, sizeof(*seg));
	void *addr = MAP_FAILED;
	int fd = -1;

	if (seg == NULL) {
		snprintf(why, wlen, "out of process memory");
		return NULL;
	}
	fd = memfd_create("dvp_nohuge", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0) {
		snprintf(why, wlen, "cannot create a memfd for %zu KB: %s", len >> 10,
			 dvp_strerror(errno));
		goto fail;
	}
	if (ftruncate(fd, (off_t)len) != 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0) {
		snprintf(why, wlen, "cannot size a memfd to %zu KB: %s", len >> 10,
			 dvp_strerror(errno));
		goto fail;
	}
	/* Pages come on first touch, under the binding set just below. */
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
	if (addr == MAP_FAILED) {
		snprintf(why, wlen, "cannot map %zu KB of memory: %s", len >> 10,
			 dvp_strerror(errno));
		goto fail;
	}
	if (!eal_mem_bind(addr, len, socket, why, wlen))
		goto fail;
	seg->addr = addr;
	seg->len = len;
	seg->page_sz = mem.page_sz;
	seg->socket = socket;
	seg->fd = fd;
	return seg;
fail:
	if (addr != MAP_FAILED)
		munmap(addr, len);
	if (fd >= 0)
		close(fd);
	free(seg);
	return NULL;
}

/* Hosted: a block the host lends (its memory, its IOVA), with no fd to share. */
static struct eal_memseg *host_map(int socket, size_t len, char *why, size_t wlen)
{
	struct eal_memseg *seg = calloc(1, sizeof(*seg));

	if (seg == NULL) {
		snprintf(why, wlen, "out of process memory");
		return NULL;
	}
	seg->addr = mem.host->mem_map(mem.host->arg, socket, len, &seg->page_sz, &seg->host_cookie);
	if (seg->addr == NULL) {
		snprintf(why, wlen, "%s has no %zu KB to lend on node %d", mem.host->name,
			 len >> 10, socket);
		free(seg);
		return NULL;
	}
	seg->len = len;
	seg->socket = socket;
	seg->fd = -1;
	return seg;
}

struct eal_memseg *eal_memseg_map(int socket, size_t len, char *why, size_t wlen)
{
	if (!mem.up) {
		snprintf(why, wlen, "EAL memory is not initialised");
		return NULL;
	}
	if (!eal_socket_valid(socket)) {
		snprintf(why, wlen, "node %d does not exist or has no memory", socket);
		return NULL;
	}
	if (len == 0 || len > SIZE_MAX - mem.page_sz) {
		snprintf(why, wlen, "bad size %zu", len);
		return NULL;
	}
	len = DVP_ALIGN_CEIL(len, mem.page_sz);
	if (mem.host != NULL)
		return host_map(socket, len, why, wlen);
	if (mem.huge)
		return eal_huge_map(socket, len, why, wlen);
	return memfd_map(socket, len, why, wlen);
}

void eal_memseg_unmap(struct eal_memseg *seg)
{
	if (seg == NULL)
		return;
	if (seg->host_cookie != NULL) {
		mem.host->mem_unmap(mem.host->arg, seg->host_cookie);
		free(seg);
		return;
	}
	munmap(seg->addr, seg->len);
	if (seg->fd >= 0)
		close(seg->fd);
	if (seg->path != NULL && unlink(seg->path) != 0 && errno != ENOENT)
		EAL_LOG(WARNING, "cannot remove hugepage file %s: %s", seg->path,
			dvp_strerror(errno));
	free(seg->path);
	free(seg);
}

int eal_memory_init(const struct eal_cfg *cfg)
{
	int ret;

	memset(&mem, 0, sizeof(mem));
	if (cfg->host != NULL) {
		/* The host decides what backs its blocks; ours are page-sized. */
		mem.page_sz = (size_t)sysconf(_SC_PAGESIZE);
		mem.host = cfg->host;
	} else if (cfg->no_huge) {
		mem.page_sz = (size_t)sysconf(_SC_PAGESIZE);
		EAL_LOG(WARNING,
			"--no-huge: datapath memory is %zu KB pages (still bound per node); expect more TLB misses than with hugepages",
			mem.page_sz >> 10);
	} else {
		ret = eal_huge_init(cfg, &mem.page_sz);
		if (ret < 0)
			return ret;
		mem.huge = true;
	}
	mem.up = true;
	return 0;
}

void eal_memory_cleanup(void)
{
	if (mem.up && mem.huge)
		eal_huge_cleanup();
	memset(&mem, 0, sizeof(mem));
}
