/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the EAL's files share with each other and nobody else (not
 * installed): the configuration the arguments produce, and the entry points
 * dvp_eal_init() and dvp_eal_cleanup() call in order.
 */

#ifndef EAL_PRIVATE_H
#define EAL_PRIVATE_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dvp_common.h"
#include "dvp_errno.h"
#include "dvp_log.h"

struct dvp_eal_host;

#define EAL_LOG(level, fmt, ...) DVP_LOG_LINE(level, dvp_logtype_eal, "EAL: ", fmt, ##__VA_ARGS__)

#define EAL_FILE_PREFIX_MAX 64
/* Anonymous memory per node with --no-huge when neither -m nor --socket-mem says. */
#define EAL_NO_HUGE_DEFAULT_MB 64

/* A list of strings given by repeated options (-a, -b, --vdev). */
struct eal_strlist {
	char **s;
	unsigned int n;
};

/* What the command line asked for; filled by eal_args_parse(). */
struct eal_cfg {
	/* lcores: lcore id -> the CPUs its thread may run on */
	bool lcore_enabled[DVP_MAX_LCORE];
	cpu_set_t lcore_cpus[DVP_MAX_LCORE];
	unsigned int main_lcore;
	bool main_lcore_given;
	bool lcores_given;

	/* memory, in MB */
	uint64_t mem_mb; /* -m; 0: not given */
	uint64_t socket_mem_mb[DVP_MAX_NUMA_NODES];
	bool socket_mem_given;
	uint64_t socket_limit_mb[DVP_MAX_NUMA_NODES]; /* 0: no limit */
	bool socket_limit_given;
	char *huge_dir; /* NULL: the default mount */
	bool no_huge;
	bool in_memory;
	bool huge_unlink;
	char file_prefix[EAL_FILE_PREFIX_MAX];

	/* devices */
	struct eal_strlist allow;
	struct eal_strlist block;
	struct eal_strlist vdev;

	bool no_pci; /* probe no ib device of the sysfs scan */

	bool no_telemetry;
	uint16_t max_simd_bitwidth; /* --force-max-simd-bitwidth; 0: the default */
	bool help_shown;

	/* dvp_eal_init_hosted(): the host lending memory, lcores, logs, interrupts */
	const struct dvp_eal_host *host;
};

/* The configuration of the current (or last) dvp_eal_init(). */
extern struct eal_cfg eal_cfg;

/* CPUs this process may run on, as found before the EAL pinned anything. */
extern cpu_set_t eal_process_cpus;

/* eal_args.c */
int eal_args_parse(int argc, char **argv, struct eal_cfg *cfg);
void eal_cfg_free(struct eal_cfg *cfg);
/* Parse a decimal number with no sign and no junk; false when it is not one. */
bool eal_parse_u64(const char *s, uint64_t *out);
/*
 * Log "OPT 'ARG': why" (or "OPT: why" with no @p arg), why from @p fmt, for
 * a bad option or devargs. @return -EINVAL, with dvp_errno set.
 */
__dvp_cold int eal_arg_error(const char *opt, const char *arg, const char *fmt, ...)
	__dvp_format_printf(3, 4);

/* eal_devargs.c: dvp_devargs_parse() with @p ctx (the option) opening its errors */
struct dvp_devargs;
int eal_devargs_parse_ctx(const char *ctx, const char *str, struct dvp_devargs *da);

/* eal_lcore_parse.c: -c, -l, --lcores, the default map, and their checks */
int eal_parse_coremask(const char *opt, const char *arg, struct eal_cfg *cfg);
int eal_parse_corelist(const char *opt, const char *arg, struct eal_cfg *cfg);
int eal_parse_lcores(const char *opt, const char *arg, struct eal_cfg *cfg);
int eal_lcore_map_finish(struct eal_cfg *cfg);
/* "0-3,5": @p set as a CPU list, into @p buf. */
void eal_format_cpuset(const cpu_set_t *set, char *buf, size_t len);
/* The NUMA node of lcore @p lcore's first CPU in @p cfg. */
int eal_cfg_lcore_socket(const struct eal_cfg *cfg, unsigned int lcore);
/* The NUMA node of @p cpu, 0 without NUMA. */
int eal_cpu_socket(unsigned int cpu);
/* Highest NUMA node id + 1 (1 without NUMA), capped to DVP_MAX_NUMA_NODES. */
unsigned int eal_numa_nodes(void);

/* eal_lcore.c */
int eal_lcore_init(const struct eal_cfg *cfg);
void eal_lcore_cleanup(void);
/* CPUs that no lcore runs on, or every CPU of the process when all are taken. */
void eal_control_cpus(cpu_set_t *set);

/* eal_memory.c: segments of memory bound to a node */
struct eal_memseg {
	struct eal_memseg *next;
	void *addr;
	size_t len;
	size_t page_sz;
	int socket;
	int fd; /* hugepage file, or memfd (hugetlb with --in-memory, ordinary pages with --no-huge) */
	char *path; /* hugepage file, NULL when none is left on disk */
	void *host_cookie; /* hosted: the host's handle for the block it lent */
};
int eal_memory_init(const struct eal_cfg *cfg);
void eal_memory_cleanup(void);
/*
 * Map @p len bytes (rounded up to pages) bound to @p socket. On failure,
 * NULL with the reason in @p why (the caller logs one line with it).
 */
struct eal_memseg *eal_memseg_map(int socket, size_t len, char *why, size_t wlen);
void eal_memseg_unmap(struct eal_memseg *seg);
/* Bind [addr, addr+len) to @p socket before it is touched; false with @p why. */
bool eal_mem_bind(void *addr, size_t len, int socket, char *why, size_t wlen);
/* Page size of EAL memory: 4 KiB with --no-huge. */
size_t eal_memory_page_size(void);
bool eal_memory_has_hugepages(void);
/* Whether @p socket is a node this system has. */
bool eal_socket_valid(int socket);

/* eal_hugepages.c */
int eal_huge_init(const struct eal_cfg *cfg, size_t *page_sz);
void eal_huge_cleanup(void);
struct eal_memseg *eal_huge_map(int socket, size_t len, char *why, size_t wlen);

/* eal_malloc.c */
/*
 * Why a heap cannot give @p size bytes aligned to @p align (0: a cache
 * line), with *err the errno to report; NULL when it can. A size of 0 is
 * the caller's to refuse, in its own words.
 */
const char *eal_heap_request_check(size_t size, unsigned int align, int *err);
/* MB to map at start on each node, from -m, --socket-mem or the --no-huge default. */
void eal_heap_start_amounts(const struct eal_cfg *cfg, uint64_t *mb);
int eal_heap_init(const struct eal_cfg *cfg);
void eal_heap_cleanup(void);

/* eal_memzone.c */
int eal_memzone_init(void);
void eal_memzone_cleanup(void);

/* eal_interrupts.c: the EAL interrupt thread, ours or (hosted) the host's */
int eal_intr_init(const struct eal_cfg *cfg);
void eal_intr_cleanup(void);

/* eal_log.c: lines go to the host's log instead of a stream (NULL: back to the stream) */
void eal_log_set_host(const struct dvp_eal_host *host);
/*
 * Between eal_log_hold() and eal_log_release(), error lines the log level
 * hides are kept (on the calling thread, the first 2 KB); release writes
 * them out when @show, so that an init that fails names what it refused
 * whatever --log-level said.
 */
void eal_log_hold(void);
void eal_log_release(bool show);

/* eal_cycles.c */
void eal_cycles_init(void);

/* eal_bus.c: for -a and -b, the name a registered bus knows @p arg's device by (struct dvp_bus) */
int eal_bus_resolve_arg(const char *opt, const char *arg, char **resolved);

/* eal_plugin.c: -d, a driver's shared object or a directory of them */
int eal_plugin_load(const char *opt, const char *path);
/* What a plugin's constructors registered, while it loads. */
struct eal_plugin {
	const char *path;
	char drivers[256]; /* the drivers it registered, ", " between */
	unsigned int nb_drivers;
	char dups[256]; /* those of a name registered already (not used) */
	unsigned int nb_dups;
};
/* The plugin being loaded, while its constructors run; NULL otherwise. */
extern struct eal_plugin *eal_plugin_loading;
/* Append @p name to the list @p buf (of @p len bytes) holding *@p n names. */
void eal_plugin_name_add(char *buf, size_t len, unsigned int *n, const char *name);

/* eal_bus.c, eal_bus_vdev.c */
int eal_bus_init(const struct eal_cfg *cfg);
void eal_bus_cleanup(void);

/*
 * eal_telemetry.c: the telemetry socket in the runtime directory of the
 * file prefix (nothing with --no-telemetry or hosted; a warning if it
 * cannot be made), and the arguments /eal/params reports.
 */
void eal_telemetry_init(const struct eal_cfg *cfg, int argc, char **argv);
void eal_telemetry_cleanup(void);

/*
 * eal.c: the one check of the calls that take down a thread the runtime
 * owns (dvp_eal_cleanup(), dvp_telemetry_stop()): refused from a worker
 * lcore, the interrupt thread and the telemetry thread, which they would
 * join or free under themselves. 0, or -EDEADLK after one line naming
 * @who and the thread.
 */
int eal_thread_may_teardown(const char *who);

/* Whether dvp_eal_init() has finished (memory, threads and buses are up). */
bool eal_is_initialised(void);

#endif /* EAL_PRIVATE_H */
