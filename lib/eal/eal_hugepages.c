/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Hugepages: which sizes the kernel has and how many are free on each
 * node (sysfs), and where hugetlbfs is mounted (/proc/mounts).
 */

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "eal_private.h"

#define SYS_HUGEPAGES "/sys/kernel/mm/hugepages"
#define SYS_NODE "/sys/devices/system/node"

struct huge_size {
	size_t page_sz;
	long free_per_node[DVP_MAX_NUMA_NODES];
	char mount[512]; /* "" when none */
};

static struct {
	struct huge_size hs; /* the size in use */
	char prefix[EAL_FILE_PREFIX_MAX];
} huge;

static long read_long(const char *path)
{
	char buf[32];
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f == NULL)
		return -1;
	if (fgets(buf, sizeof(buf), f) != NULL)
		v = strtol(buf, NULL, 10);
	fclose(f);
	return v;
}

/* The kernel's default hugepage size, from /proc/meminfo. */
static size_t default_page_size(void)
{
	char line[128];
	unsigned long kb = 0;
	FILE *f = fopen("/proc/meminfo", "r");

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Hugepagesize: %lu kB", &kb) == 1)
			break;
	fclose(f);
	return (size_t)kb << 10;
}

/* Parse "pagesize=2M" (or 2048k, 1G) from hugetlbfs mount options. */
static size_t mount_page_size(const char *opts)
{
	const char *p = strstr(opts, "pagesize=");
	unsigned long long v;
	char *end;

	if (p == NULL)
		return default_page_size();
	v = strtoull(p + 9, &end, 10);
	switch (*end) {
	case 'k':
	case 'K':
		return (size_t)v << 10;
	case 'm':
	case 'M':
		return (size_t)v << 20;
	case 'g':
	case 'G':
		return (size_t)v << 30;
	default:
		return (size_t)v;
	}
}

/* First hugetlbfs mount for @p page_sz, or @p dir itself when it is one. */
static int find_mount(size_t page_sz, const char *dir, char *out, size_t len, size_t *dir_page_sz)
{
	char line[1024], mnt[512], fstype[64], opts[512];
	FILE *f = fopen("/proc/mounts", "r");

	out[0] = '\0';
	if (f == NULL)
		return -errno;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %511s %63s %511s", mnt, fstype, opts) != 3 ||
		    strcmp(fstype, "hugetlbfs") != 0)
			continue;
		if (dir != NULL) {
			if (strcmp(mnt, dir) == 0) {
				*dir_page_sz = mount_page_size(opts);
				snprintf(out, len, "%s", mnt);
				break;
			}
		} else if (mount_page_size(opts) == page_sz) {
			snprintf(out, len, "%s", mnt);
			break;
		}
	}
	fclose(f);
	return 0;
}

static void read_free_pages(struct huge_size *hs)
{
	char path[256];
	unsigned int n, nodes = eal_numa_nodes();
	long v;

	for (n = 0; n < DVP_MAX_NUMA_NODES; n++)
		hs->free_per_node[n] = 0;
	for (n = 0; n < nodes; n++) {
		snprintf(path, sizeof(path),
			 SYS_NODE "/node%u/hugepages/hugepages-%zukB/free_hugepages", n,
			 hs->page_sz >> 10);
		v = read_long(path);
		if (v < 0 && n == 0 && nodes == 1) {
			/* No per-node view (a kernel without NUMA): the global count is node 0's. */
			snprintf(path, sizeof(path),
				 SYS_HUGEPAGES "/hugepages-%zukB/free_hugepages",
				 hs->page_sz >> 10);
			v = read_long(path);
		}
		hs->free_per_node[n] = v < 0 ? 0 : v;
	}
}

int eal_huge_init(const struct eal_cfg *cfg, size_t *page_sz)
{
	uint64_t mb[DVP_MAX_NUMA_NODES];
	char need[512];
	size_t off = 0, dir_sz = 0;
	unsigned int n, nodes = eal_numa_nodes();
	bool short_of = false, any_needed = false;
	long pages;

	memset(&huge, 0, sizeof(huge));
	snprintf(huge.prefix, sizeof(huge.prefix), "%s", cfg->file_prefix);
	huge.hs.page_sz = default_page_size();
	if (cfg->huge_dir != NULL) {
		find_mount(0, cfg->huge_dir, huge.hs.mount, sizeof(huge.hs.mount), &dir_sz);
		if (huge.hs.mount[0] == '\0') {
			EAL_LOG(ERR,
				"--huge-dir '%s': not a hugetlbfs mount point (see /proc/mounts); mount one with usertools/dvp-hugepages --mount DIR",
				cfg->huge_dir);
			return dvp_err(EINVAL);
		}
		huge.hs.page_sz = dir_sz;
	}
	if (huge.hs.page_sz == 0) {
		EAL_LOG(ERR,
			"this kernel has no hugepages (no Hugepagesize in /proc/meminfo); use --no-huge");
		return dvp_err(E_DVP_NO_HUGEPAGES);
	}
	read_free_pages(&huge.hs);

	/* Without -m or --socket-mem, at least one page on each node of the lcores. */
	eal_heap_start_amounts(cfg, mb);
	for (n = 0; n < nodes; n++)
		any_needed |= mb[n] != 0;
	if (!any_needed)
		for (n = 0; n < DVP_MAX_LCORE; n++)
			if (cfg->lcore_enabled[n])
				mb[eal_cfg_lcore_socket(cfg, n)] = 1;
	for (n = 0; n < nodes && off < sizeof(need); n++) {
		pages = (long)DVP_ALIGN_CEIL(mb[n] << 20, (uint64_t)huge.hs.page_sz) /
			(long)huge.hs.page_sz;
		if (mb[n] == 0)
			continue;
		short_of |= pages > huge.hs.free_per_node[n];
		off += (size_t)snprintf(need + off, sizeof(need) - off,
					"%snode %u needed %ld found %ld", off ? ", " : "", n, pages,
					huge.hs.free_per_node[n]);
	}
	if (short_of) {
		EAL_LOG(ERR,
			"not enough free %zu KB hugepages: %s; reserve them with usertools/dvp-hugepages --reserve N or use --no-huge",
			huge.hs.page_sz >> 10, need);
		return dvp_err(E_DVP_NO_HUGEPAGES);
	}
	if (!cfg->in_memory && huge.hs.mount[0] == '\0') {
		find_mount(huge.hs.page_sz, NULL, huge.hs.mount, sizeof(huge.hs.mount), &dir_sz);
		if (huge.hs.mount[0] == '\0') {
			EAL_LOG(ERR,
				"no hugetlbfs mount for %zu KB pages in /proc/mounts; mount one with usertools/dvp-hugepages --mount DIR, or use --in-memory or --no-huge",
				huge.hs.page_sz >> 10);
			return dvp_err(E_DVP_NO_HUGEPAGES);
		}
	}
	*page_sz = huge.hs.page_sz;
	EAL_LOG(ERR, "hugepage mapping is not implemented yet in this build; use --no-huge");
	return dvp_err(ENOTSUP);
}

struct eal_memseg *eal_huge_map(int socket, size_t len, char *why, size_t wlen)
{
	(void)socket;
	(void)len;
	snprintf(why, wlen, "hugepage mapping is not implemented yet in this build");
	return NULL;
}

void eal_huge_cleanup(void)
{
	memset(&huge, 0, sizeof(huge));
}
