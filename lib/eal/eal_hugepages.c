/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Hugepages: which sizes the kernel has and how many are free on each node
 * (sysfs), where hugetlbfs is mounted (/proc/mounts), and segments mapped
 * from files <huge-dir>/<prefix>map_<n> (or memfds with --in-memory) bound
 * to their node.
 *
 * Files are flock()ed by the process that maps them, and the prefix by a
 * lock file <huge-dir>/<prefix>map.lock held for the process's life. A
 * crashed process's locks die with it, so at start every <prefix>map_<n>
 * whose lock can be taken is stale and is removed (stale hugepage files that
 * hold pages forever are a well-known DPDK pain).
 */

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/memfd.h>

#include "eal_private.h"

#define SYS_HUGEPAGES "/sys/kernel/mm/hugepages"
#define SYS_NODE "/sys/devices/system/node"
#define HUGE_HINT "reserve them with usertools/dvp-hugepages --reserve N or use --no-huge"

static struct {
	pthread_mutex_t lock; /* the file counter */
	size_t page_sz;
	char dir[PATH_MAX]; /* the mount; "" with --in-memory */
	char prefix[EAL_FILE_PREFIX_MAX];
	bool in_memory;
	bool unlink;
	int lock_fd;
	unsigned int next_n;
} huge = { .lock = PTHREAD_MUTEX_INITIALIZER, .lock_fd = -1 };

/* snprintf for paths: a cut path fails to open, which the caller reports. */
static __dvp_format_printf(3, 4) void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

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

/* "pagesize=2M" (or 2048k, 1G) among hugetlbfs mount options; else the default. */
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

/*
 * With @p dir: whether it is a hugetlbfs mount, and its page size. Without:
 * the first mount of @p page_sz. The mount point goes to @p out ("" if none).
 */
static void find_mount(size_t page_sz, const char *dir, char *out, size_t len, size_t *dir_sz)
{
	char line[1024], mnt[512], fstype[64], opts[512];
	FILE *f = fopen("/proc/mounts", "r");

	out[0] = '\0';
	if (f == NULL)
		return;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %511s %63s %511s", mnt, fstype, opts) != 3 ||
		    strcmp(fstype, "hugetlbfs") != 0)
			continue;
		if (dir != NULL ? strcmp(mnt, dir) == 0 : mount_page_size(opts) == page_sz) {
			*dir_sz = mount_page_size(opts);
			pathf(out, len, "%s", mnt);
			break;
		}
	}
	fclose(f);
}

/* Free hugepages of @p page_sz on @p node now. */
static long free_pages(size_t page_sz, unsigned int node)
{
	char path[256];
	long v;

	pathf(path, sizeof(path), SYS_NODE "/node%u/hugepages/hugepages-%zukB/free_hugepages", node,
	      page_sz >> 10);
	v = read_long(path);
	if (v < 0 && node == 0 && eal_numa_nodes() == 1) {
		/* No per-node view (a kernel without NUMA): the global count is node 0's. */
		pathf(path, sizeof(path), SYS_HUGEPAGES "/hugepages-%zukB/free_hugepages",
		      page_sz >> 10);
		v = read_long(path);
	}
	return v < 0 ? 0 : v;
}

static bool is_map_file(const char *name, size_t plen)
{
	const char *p = name + plen + 4; /* past "<prefix>map_" */

	if (strncmp(name, huge.prefix, plen) != 0 || strncmp(name + plen, "map_", 4) != 0)
		return false;
	if (*p == '\0')
		return false;
	for (; *p; p++)
		if (*p < '0' || *p > '9')
			return false;
	return true;
}

/*
 * Take the prefix lock, then remove the files of this prefix that no live
 * process holds: each is a crashed run's, holding pages nobody will free.
 */
static int take_prefix(void)
{
	char path[PATH_MAX];
	size_t plen = strlen(huge.prefix);
	unsigned int n = 0;
	unsigned long long bytes = 0;
	struct dirent *e;
	struct stat st;
	DIR *d;
	int fd;

	pathf(path, sizeof(path), "%s/%smap.lock", huge.dir, huge.prefix);
	huge.lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (huge.lock_fd < 0) {
		EAL_LOG(ERR, "cannot create the prefix lock %s: %s", path, dvp_strerror(errno));
		return dvp_err(errno);
	}
	if (flock(huge.lock_fd, LOCK_EX | LOCK_NB) != 0) {
		EAL_LOG(ERR,
			"--file-prefix '%s' is in use by another process (it holds %s); give this process another --file-prefix, or use --in-memory",
			huge.prefix, path);
		close(huge.lock_fd);
		huge.lock_fd = -1;
		return dvp_err(EBUSY);
	}

	d = opendir(huge.dir);
	if (d == NULL) {
		EAL_LOG(ERR, "cannot read hugepage directory %s: %s", huge.dir,
			dvp_strerror(errno));
		return dvp_err(errno);
	}
	while ((e = readdir(d)) != NULL) {
		if (!is_map_file(e->d_name, plen))
			continue;
		fd = openat(dirfd(d), e->d_name, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
			/* Held, though the prefix lock is ours: a process of another build. */
			EAL_LOG(ERR,
				"hugepage file %s/%s is locked by another process; give this process another --file-prefix",
				huge.dir, e->d_name);
			close(fd);
			closedir(d);
			return dvp_err(EBUSY);
		}
		if (fstat(fd, &st) == 0)
			bytes += (unsigned long long)st.st_size;
		if (unlinkat(dirfd(d), e->d_name, 0) == 0)
			n++;
		close(fd);
	}
	closedir(d);
	if (n != 0)
		EAL_LOG(NOTICE,
			"reclaimed %u stale hugepage file%s (%llu MB) of an earlier run with --file-prefix '%s' in %s",
			n, n == 1 ? "" : "s", bytes >> 20, huge.prefix, huge.dir);
	return 0;
}

static void release_prefix(void)
{
	char path[PATH_MAX];

	if (huge.lock_fd < 0)
		return;
	/* Unlinked while still held, so no other process can take a lock on a dead name. */
	pathf(path, sizeof(path), "%s/%smap.lock", huge.dir, huge.prefix);
	unlink(path);
	close(huge.lock_fd);
	huge.lock_fd = -1;
}

int eal_huge_init(const struct eal_cfg *cfg, size_t *page_sz)
{
	uint64_t mb[DVP_MAX_NUMA_NODES];
	char need[512];
	size_t off = 0, dir_sz = 0;
	unsigned int n, nodes = eal_numa_nodes();
	bool short_of = false, any = false;
	long pages, have;
	int ret;

	huge.lock_fd = -1;
	huge.next_n = 0;
	huge.in_memory = cfg->in_memory;
	huge.unlink = cfg->huge_unlink;
	pathf(huge.prefix, sizeof(huge.prefix), "%s", cfg->file_prefix);
	huge.dir[0] = '\0';
	huge.page_sz = default_page_size();
	if (cfg->huge_dir != NULL) {
		find_mount(0, cfg->huge_dir, huge.dir, sizeof(huge.dir), &dir_sz);
		if (huge.dir[0] == '\0') {
			EAL_LOG(ERR,
				"--huge-dir '%s': not a hugetlbfs mount point (see /proc/mounts); mount one with usertools/dvp-hugepages --mount DIR",
				cfg->huge_dir);
			return dvp_err(E_DVP_BAD_ARG);
		}
		huge.page_sz = dir_sz;
	}
	if (huge.page_sz == 0) {
		EAL_LOG(ERR,
			"this kernel has no hugepages (no Hugepagesize in /proc/meminfo); use --no-huge");
		return dvp_err(E_DVP_NO_HUGEPAGES);
	}

	/* Without -m or --socket-mem, at least one page on each node of the lcores. */
	eal_heap_start_amounts(cfg, mb);
	for (n = 0; n < nodes; n++)
		any |= mb[n] != 0;
	if (!any)
		for (n = 0; n < DVP_MAX_LCORE; n++)
			if (cfg->lcore_enabled[n])
				mb[eal_cfg_lcore_socket(cfg, n)] = 1;
	for (n = 0; n < nodes && off < sizeof(need); n++) {
		if (mb[n] == 0)
			continue;
		pages = (long)(DVP_ALIGN_CEIL(mb[n] << 20, (uint64_t)huge.page_sz) / huge.page_sz);
		have = free_pages(huge.page_sz, n);
		short_of |= pages > have;
		off += (size_t)snprintf(need + off, sizeof(need) - off,
					"%snode %u needed %ld found %ld", off ? ", " : "", n, pages,
					have);
	}
	if (short_of) {
		EAL_LOG(ERR, "not enough free %zu KB hugepages: %s; " HUGE_HINT, huge.page_sz >> 10,
			need);
		return dvp_err(E_DVP_NO_HUGEPAGES);
	}

	if (!huge.in_memory) {
		if (huge.dir[0] == '\0')
			find_mount(huge.page_sz, NULL, huge.dir, sizeof(huge.dir), &dir_sz);
		if (huge.dir[0] == '\0') {
			EAL_LOG(ERR,
				"no hugetlbfs mount for %zu KB pages in /proc/mounts; mount one with usertools/dvp-hugepages --mount DIR, or use --in-memory or --no-huge",
				huge.page_sz >> 10);
			return dvp_err(E_DVP_NO_HUGEPAGES);
		}
		ret = take_prefix();
		if (ret < 0) {
			release_prefix();
			return ret;
		}
	}
	*page_sz = huge.page_sz;
	return 0;
}

static int open_backing(unsigned int n, char *path, size_t plen, char *why, size_t wlen)
{
	char name[64];
	int fd;

	if (huge.in_memory) {
		snprintf(name, sizeof(name), "dvp_map_%u", n);
		fd = memfd_create(name, MFD_CLOEXEC | MFD_HUGETLB |
						((unsigned int)__builtin_ctzll(huge.page_sz)
						 << MFD_HUGE_SHIFT));
		if (fd < 0)
			snprintf(why, wlen, "memfd_create for %zu KB hugepages: %s",
				 huge.page_sz >> 10, dvp_strerror(errno));
		path[0] = '\0';
		return fd;
	}
	pathf(path, plen, "%s/%smap_%u", huge.dir, huge.prefix, n);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		snprintf(why, wlen, "cannot create %s: %s", path, dvp_strerror(errno));
		return -1;
	}
	/* Ours until we exit or crash: the next run's reclaim tells the two apart. */
	flock(fd, LOCK_EX);
	return fd;
}

struct eal_memseg *eal_huge_map(int socket, size_t len, char *why, size_t wlen)
{
	char path[PATH_MAX];
	struct eal_memseg *seg;
	long pages = (long)(len / huge.page_sz), have;
	unsigned int n;
	void *addr = MAP_FAILED;
	int fd, err;

	seg = calloc(1, sizeof(*seg));
	if (seg == NULL) {
		snprintf(why, wlen, "out of process memory");
		return NULL;
	}
	pthread_mutex_lock(&huge.lock);
	n = huge.next_n++;
	pthread_mutex_unlock(&huge.lock);
	fd = open_backing(n, path, sizeof(path), why, wlen);
	if (fd < 0)
		goto fail;
	if (ftruncate(fd, (off_t)len) != 0) {
		snprintf(why, wlen, "cannot size hugepage file to %zu MB: %s", len >> 20,
			 dvp_strerror(errno));
		goto fail;
	}
	addr = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (addr == MAP_FAILED)
		goto no_pages;
	if (!eal_mem_bind(addr, len, socket, why, wlen))
		goto fail;
	/* Fault every page in now, on its node: a shortage is an error here, not a SIGBUS later. */
	if (madvise(addr, len, MADV_POPULATE_WRITE) != 0)
		goto no_pages;
	if (huge.unlink && path[0] != '\0') {
		unlink(path);
		path[0] = '\0';
	}
	seg->addr = addr;
	seg->len = len;
	seg->page_sz = huge.page_sz;
	seg->socket = socket;
	seg->fd = fd;
	if (path[0] != '\0' && (seg->path = strdup(path)) == NULL) {
		snprintf(why, wlen, "out of process memory");
		goto fail;
	}
	return seg;

no_pages:
	err = errno;
	have = free_pages(huge.page_sz, (unsigned int)socket);
	snprintf(why, wlen,
		 "node %d needed %ld more %zu KB hugepages found %ld free (%s); " HUGE_HINT, socket,
		 pages, huge.page_sz >> 10, have, dvp_strerror(err));
fail:
	if (addr != MAP_FAILED)
		munmap(addr, len);
	if (fd >= 0)
		close(fd);
	if (!huge.in_memory && path[0] != '\0' && fd >= 0)
		unlink(path);
	free(seg);
	return NULL;
}

void eal_huge_cleanup(void)
{
	release_prefix();
	huge.dir[0] = '\0';
	huge.next_n = 0;
}
