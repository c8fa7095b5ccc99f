/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The EAL's argument table: DPDK's option names and meanings, parsed by
 * hand rather than getopt so that every error names the option, the token
 * and what would be valid, and so that nothing global is left behind.
 */

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvp_bus.h"
#include "dvp_devargs.h"
#include "dvp_eal.h"
#include "dvp_parse.h"
#include "dvp_vect.h"
#include "eal_private.h"

enum opt_id {
	OPT_COREMASK,
	OPT_CORELIST,
	OPT_LCORES,
	OPT_MAIN_LCORE,
	OPT_MEM,
	OPT_SOCKET_MEM,
	OPT_SOCKET_LIMIT,
	OPT_HUGE_DIR,
	OPT_NO_HUGE,
	OPT_IN_MEMORY,
	OPT_FILE_PREFIX,
	OPT_HUGE_UNLINK,
	OPT_MEM_CHANNELS,
	OPT_SINGLE_FILE_SEGMENTS,
	OPT_NO_SHCONF,
	OPT_IOVA_MODE,
	OPT_PROC_TYPE,
	OPT_ALLOW,
	OPT_BLOCK,
	OPT_VDEV,
	OPT_NO_PCI,
	OPT_DRIVER,
	OPT_LOG_LEVEL,
	OPT_NO_TELEMETRY,
	OPT_FORCE_MAX_SIMD_BITWIDTH,
	OPT_HELP,
	OPT_VERSION,
};

struct eal_opt {
	const char *lng; /* without "--" */
	char shrt; /* 0: none */
	enum opt_id id;
	const char *arg; /* value's name in the usage text; NULL: a flag */
	const char *help;
};

static const struct eal_opt opts[] = {
	{ "", 'c', OPT_COREMASK, "COREMASK",
	  "Run lcores on the CPUs of a hexadecimal mask, lcore id = CPU id: 0xf is 0-3.\n"
	  "One of -c, -l and --lcores." },
	{ "", 'l', OPT_CORELIST, "CORELIST",
	  "Run lcores on these CPUs, lcore id = CPU id: numbers and ranges, as 0-3,5.\n"
	  "Default: every CPU in the process's affinity mask." },
	{ "lcores", 0, OPT_LCORES, "MAP",
	  "Map lcore ids to CPU sets: LCORES[@CPUS],... where each side is a number, a\n"
	  "range or a group in brackets: 0@1,1@(2-3) runs lcore 0 on CPU 1 and lcore 1\n"
	  "on CPUs 2-3; (0-3)@0 runs four lcores on CPU 0; 4-5 runs lcores 4 and 5 on\n"
	  "CPUs 4 and 5." },
	{ "main-lcore", 0, OPT_MAIN_LCORE, "ID",
	  "The lcore of the thread that called dvp_eal_init(). Default: the lowest." },
	{ "", 'm', OPT_MEM, "MB",
	  "Memory to reserve at start, in MB, shared evenly by the NUMA nodes of the\n"
	  "lcores. The heap grows beyond it on demand (see --socket-limit)." },
	{ "socket-mem", 0, OPT_SOCKET_MEM, "MB,MB,...",
	  "Memory to reserve at start on each NUMA node, in MB, node 0 first." },
	{ "socket-limit", 0, OPT_SOCKET_LIMIT, "MB,MB,...",
	  "Most memory the heap may hold on each NUMA node, in MB (0: no limit)." },
	{ "huge-dir", 0, OPT_HUGE_DIR, "DIR",
	  "The hugetlbfs mount to use. Default: the first mount of the default page size." },
	{ "no-huge", 0, OPT_NO_HUGE, NULL,
	  "Use ordinary pages (a memfd per segment) instead of hugepages (still bound to each node).\n"
	  "Default amount: " DVP_STR(EAL_NO_HUGE_DEFAULT_MB) " MB on each node of the lcores." },
	{ "in-memory", 0, OPT_IN_MEMORY, NULL,
	  "Create no files: hugepages come from memfd, and no prefix lock is taken." },
	{ "file-prefix", 0, OPT_FILE_PREFIX, "NAME",
	  "Prefix of hugepage files (NAMEmap_N) and of the process lock. Default: " DVP_DEFAULT_FILE_PREFIX
	  ".\nTwo processes need different prefixes." },
	{ "huge-unlink", 0, OPT_HUGE_UNLINK, NULL,
	  "Remove each hugepage file right after mapping it, so none is left behind." },
	{ "", 'n', OPT_MEM_CHANNELS, "N",
	  "Memory channels: accepted for DPDK command lines, no effect." },
	{ "single-file-segments", 0, OPT_SINGLE_FILE_SEGMENTS, NULL,
	  "Accepted for DPDK command lines: each memory segment is one file already." },
	{ "no-shconf", 0, OPT_NO_SHCONF, NULL,
	  "Accepted with a warning: there is no shared configuration file to leave out." },
	{ "iova-mode", 0, OPT_IOVA_MODE, "va|pa",
	  "IO addresses: va, what RDMA devices use (memory registrations are by virtual\n"
	  "address); pa is accepted with a warning and has no effect." },
	{ "proc-type", 0, OPT_PROC_TYPE, "primary|auto",
	  "primary and auto run as the one primary process; secondary is not supported." },
	{ "allow", 'a', OPT_ALLOW, "DEVARGS",
	  "Probe only the listed ib devices, with their devargs: -a mlx5_0,key=value.\n"
	  "A PCI address names the ib device of that function: -a 0000:3b:00.0.\n"
	  "May be repeated; cannot be combined with -b." },
	{ "block", 'b', OPT_BLOCK, "NAME",
	  "Never probe this ib device (a name or a PCI address). May be repeated;\n"
	  "cannot be combined with -a." },
	{ "vdev", 0, OPT_VDEV, "DEVARGS",
	  "Create a virtual device: --vdev net_ring0 or --vdev sim_mlx5,ports=2.\n"
	  "May be repeated." },
	{ "no-pci", 0, OPT_NO_PCI, NULL,
	  "Probe no ib device of the sysfs scan (PCI functions; rxe too); virtual\n"
	  "devices and the ib devices they add are probed." },
	{ "", 'd', OPT_DRIVER, "PATH",
	  "Load a driver's shared object, or each *.so of a directory. A program with\n"
	  "dvpmd linked in statically has its drivers built in: a warning, no load." },
	{ "log-level", 0, OPT_LOG_LEVEL, "LEVEL",
	  "Log level: LEVEL for every type, GLOB:LEVEL (pmd.net.*:debug) or\n"
	  "REGEX,LEVEL; LEVEL is 1-8 or emergency..debug. May be repeated." },
	{ "no-telemetry", 0, OPT_NO_TELEMETRY, NULL,
	  "Do not start the telemetry socket (dpdk_telemetry.v2 in the runtime\n"
	  "directory of the file prefix, for dpdk-telemetry.py -f PREFIX)." },
	{ "force-max-simd-bitwidth", 0, OPT_FORCE_MAX_SIMD_BITWIDTH, "BITS",
	  "The widest SIMD the drivers' bursts may use: 64 (scalar bursts only), 128\n"
	  "(SSE4.2), 256 (AVX2, the default), 512; 0 is no limit of its own. A burst\n"
	  "also needs the CPU to have its instructions." },
	{ "help", 'h', OPT_HELP, NULL, "Print this help and return." },
	{ "version", 'v', OPT_VERSION, NULL, "Print the version and return." },
};

struct eal_cfg eal_cfg;

int eal_arg_error(const char *opt, const char *arg, const char *fmt, ...)
{
	char why[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (arg != NULL)
		EAL_LOG(ERR, "%s '%s': %s", opt, arg, why);
	else
		EAL_LOG(ERR, "%s: %s", opt, why);
	return dvp_err(EINVAL);
}

bool eal_parse_u64(const char *s, uint64_t *out)
{
	return dvp_parse_u64(s, 0, UINT64_MAX, out) == 0;
}

static void opt_name(const struct eal_opt *o, char *buf, size_t len)
{
	if (o->lng[0] != '\0')
		snprintf(buf, len, "--%s", o->lng);
	else
		snprintf(buf, len, "-%c", o->shrt);
}

static void usage_driver(const struct dvp_driver *drv, void *arg)
{
	const struct dvp_devargs_key *k;
	FILE *f = arg;

	fprintf(f, "  %s (%s bus)%s\n", drv->name, drv->bus == DVP_BUS_IB ? "ib" : "vdev",
		drv->keys == NULL || drv->keys[0].key == NULL ? ": no keys" : "");
	for (k = drv->keys; k != NULL && k->key != NULL; k++)
		fprintf(f, "        %-20s %s\n", k->key, k->help ? k->help : "");
}

static void count_driver(const struct dvp_driver *drv, void *arg)
{
	(void)drv;
	(*(unsigned int *)arg)++;
}

void dvp_eal_usage(FILE *f, const char *prgname)
{
	unsigned int ndrv = 0;
	char left[64], name[32];
	const char *h, *nl;
	size_t i;

	fprintf(f, "Usage: %s [EAL options] [-- application options]\n\nEAL options:\n",
		prgname ? prgname : "app");
	for (i = 0; i < DVP_DIM(opts); i++) {
		const struct eal_opt *o = &opts[i];

		if (o->shrt && o->lng[0])
			snprintf(name, sizeof(name), "-%c, --%s", o->shrt, o->lng);
		else
			opt_name(o, name, sizeof(name));
		snprintf(left, sizeof(left), "%s%s%s", name, o->arg ? " " : "",
			 o->arg ? o->arg : "");
		fprintf(f, "  %s\n", left);
		for (h = o->help; *h; h = nl + 1) {
			nl = strchr(h, '\n');
			if (nl == NULL) {
				fprintf(f, "        %s\n", h);
				break;
			}
			fprintf(f, "        %.*s\n", (int)(nl - h), h);
		}
	}
	fprintf(f, "\nDrivers linked in, with the devargs keys each takes (-a, --vdev):\n");
	dvp_driver_foreach(count_driver, &ndrv);
	if (ndrv == 0)
		fprintf(f, "  none\n");
	dvp_driver_foreach(usage_driver, f);
	fprintf(f, "\nSee doc/eal.md for the errors each option can give.\n");
}

static int strlist_add(struct eal_strlist *l, const char *s)
{
	char **n = realloc(l->s, (l->n + 1) * sizeof(*n));

	if (n == NULL)
		return dvp_err(ENOMEM);
	l->s = n;
	l->s[l->n] = strdup(s);
	if (l->s[l->n] == NULL)
		return dvp_err(ENOMEM);
	l->n++;
	return 0;
}

static void strlist_free(struct eal_strlist *l)
{
	unsigned int i;

	for (i = 0; i < l->n; i++)
		free(l->s[i]);
	free(l->s);
	l->s = NULL;
	l->n = 0;
}

void eal_cfg_free(struct eal_cfg *cfg)
{
	free(cfg->huge_dir);
	strlist_free(&cfg->allow);
	strlist_free(&cfg->block);
	strlist_free(&cfg->vdev);
	memset(cfg, 0, sizeof(*cfg));
}

/* "64,0,64": one MB amount per node. */
static int parse_socket_list(const char *opt, const char *arg, uint64_t *mb, bool *given)
{
	unsigned int nodes = eal_numa_nodes(), n = 0;
	const char *p = arg;
	char tok[32];
	size_t len;

	if (*given)
		return eal_arg_error(opt, arg, "given twice");
	memset(mb, 0, sizeof(uint64_t) * DVP_MAX_NUMA_NODES);
	for (;;) {
		len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(tok))
			return eal_arg_error(
				opt, arg,
				"'%.*s' is not a size in MB; expected one MB value per NUMA node, node 0 first, as 1024,1024",
				(int)len, p);
		memcpy(tok, p, len);
		tok[len] = '\0';
		if (n >= nodes)
			return eal_arg_error(
				opt, arg,
				"'%s' is for node %u, but this system has %u NUMA node%s (0-%u)",
				tok, n, nodes, nodes > 1 ? "s" : "", nodes - 1);
		if (!eal_parse_u64(tok, &mb[n]) || mb[n] > (1ull << 30))
			return eal_arg_error(
				opt, arg,
				"'%s' is not a size in MB; expected a number from 0 to %llu per node",
				tok, 1ull << 30);
		n++;
		p += len;
		if (*p == '\0')
			break;
		p++;
	}
	*given = true;
	return 0;
}

/*
 * A prefix is a name, never a path: it names the runtime directory
 * (<run>/dpdk/<prefix>) and starts the hugepage files' names. '.' and '..'
 * would put the telemetry socket in <run>/dpdk or <run>, and a leading dot
 * hides the hugepage files from ls and from dvp-hugepages' globs.
 */
static int check_prefix(const char *opt, const char *arg)
{
	const char *c;

	if (*arg == '\0' || strlen(arg) >= EAL_FILE_PREFIX_MAX)
		return eal_arg_error(opt, arg, "expected 1 to %d characters",
				     EAL_FILE_PREFIX_MAX - 1);
	if (*arg == '.')
		return eal_arg_error(opt, arg,
				     "a prefix is a name, not a path: it may not start with '.'");
	for (c = arg; *c; c++) {
		if (*c == '/')
			return eal_arg_error(opt, arg,
					     "a prefix is a name, not a path: no '/'; use letters, "
					     "digits, '_', '.' and '-'");
		if (!isalnum((unsigned char)*c) && !strchr("_.-", *c))
			return eal_arg_error(
				opt, arg,
				"bad character '%c'; use letters, digits, '_', '.' and '-'", *c);
	}
	return 0;
}

/* -a or -b: devargs whose name a bus may know otherwise (a PCI address, for its ib device's). */
static int add_ib_entry(struct eal_strlist *l, bool block, const char *opt, const char *v)
{
	struct dvp_devargs da;
	char *resolved;
	unsigned int n;
	int ret;

	ret = eal_devargs_parse_ctx(opt, v, &da);
	if (ret < 0)
		return ret;
	n = da.count;
	dvp_devargs_free(&da);
	if (n != 0 && block)
		return eal_arg_error(opt, v, "expected a device name alone: devargs go with -a");
	ret = eal_bus_resolve_arg(opt, v, &resolved);
	if (ret < 0)
		return ret;
	ret = strlist_add(l, resolved ? resolved : v);
	free(resolved);
	return ret;
}

static int apply(const struct eal_opt *o, const char *opt, const char *v, struct eal_cfg *cfg)
{
	struct dvp_devargs da;
	uint64_t n;
	int ret;

	switch (o->id) {
	case OPT_COREMASK:
		return eal_parse_coremask(opt, v, cfg);
	case OPT_CORELIST:
		return eal_parse_corelist(opt, v, cfg);
	case OPT_LCORES:
		return eal_parse_lcores(opt, v, cfg);
	case OPT_MAIN_LCORE:
		if (!eal_parse_u64(v, &n) || n >= DVP_MAX_LCORE)
			return eal_arg_error(opt, v, "expected an lcore id from 0 to %d",
					     DVP_MAX_LCORE - 1);
		cfg->main_lcore = (unsigned int)n;
		cfg->main_lcore_given = true;
		return 0;
	case OPT_MEM:
		if (!eal_parse_u64(v, &n) || n == 0 || n > (1ull << 30))
			return eal_arg_error(opt, v, "expected a size in MB from 1 to %llu",
					     1ull << 30);
		cfg->mem_mb = n;
		return 0;
	case OPT_SOCKET_MEM:
		return parse_socket_list(opt, v, cfg->socket_mem_mb, &cfg->socket_mem_given);
	case OPT_SOCKET_LIMIT:
		return parse_socket_list(opt, v, cfg->socket_limit_mb, &cfg->socket_limit_given);
	case OPT_HUGE_DIR:
		if (*v == '\0')
			return eal_arg_error(opt, v, "expected the path of a hugetlbfs mount");
		free(cfg->huge_dir);
		cfg->huge_dir = strdup(v);
		return cfg->huge_dir ? 0 : dvp_err(ENOMEM);
	case OPT_NO_HUGE:
		cfg->no_huge = true;
		return 0;
	case OPT_IN_MEMORY:
		cfg->in_memory = true;
		return 0;
	case OPT_FILE_PREFIX:
		ret = check_prefix(opt, v);
		if (ret == 0)
			snprintf(cfg->file_prefix, sizeof(cfg->file_prefix), "%s", v);
		return ret;
	case OPT_HUGE_UNLINK:
		cfg->huge_unlink = true;
		return 0;
	case OPT_MEM_CHANNELS:
		if (!eal_parse_u64(v, &n) || n == 0 || n > 32)
			return eal_arg_error(opt, v,
					     "expected a number of memory channels from 1 to 32");
		return 0;
	case OPT_SINGLE_FILE_SEGMENTS:
		return 0;
	case OPT_NO_SHCONF:
		EAL_LOG(WARNING,
			"%s: no effect: dvpmd keeps no shared configuration (there are no secondary processes); --in-memory creates no files at all",
			opt);
		return 0;
	case OPT_IOVA_MODE:
		if (strcmp(v, "pa") == 0)
			EAL_LOG(WARNING,
				"%s pa: no effect: RDMA devices address memory by virtual address (memory registrations), so IO addresses are virtual",
				opt);
		else if (strcmp(v, "va") != 0)
			return eal_arg_error(opt, v, "expected va or pa");
		return 0;
	case OPT_PROC_TYPE:
		if (strcmp(v, "secondary") == 0)
			return eal_arg_error(
				opt, v,
				"secondary processes are not supported: there is no shared configuration to attach to; run a primary process (primary or auto)");
		if (strcmp(v, "primary") != 0 && strcmp(v, "auto") != 0)
			return eal_arg_error(opt, v, "expected primary or auto");
		return 0;
	case OPT_ALLOW:
	case OPT_BLOCK:
		return add_ib_entry(o->id == OPT_ALLOW ? &cfg->allow : &cfg->block,
				    o->id == OPT_BLOCK, opt, v);
	case OPT_VDEV:
		ret = eal_devargs_parse_ctx(opt, v, &da);
		if (ret < 0)
			return ret;
		dvp_devargs_free(&da);
		return strlist_add(&cfg->vdev, v);
	case OPT_NO_PCI:
		cfg->no_pci = true;
		return 0;
	case OPT_DRIVER:
		return eal_plugin_load(opt, v);
	case OPT_LOG_LEVEL:
		return dvp_log_apply_arg(v) < 0 ? dvp_err(EINVAL) : 0;
	case OPT_NO_TELEMETRY:
		cfg->no_telemetry = true;
		return 0;
	case OPT_FORCE_MAX_SIMD_BITWIDTH:
		if (!eal_parse_u64(v, &n) ||
		    (n != 0 && (n < 64 || n > DVP_VECT_SIMD_MAX || (n & (n - 1)) != 0)))
			return eal_arg_error(
				opt, v,
				"expected a power of two from 64 to %d bits, or 0 for no limit",
				DVP_VECT_SIMD_MAX);
		cfg->max_simd_bitwidth = n != 0 ? (uint16_t)n : DVP_VECT_SIMD_MAX;
		return 0;
	case OPT_HELP:
	case OPT_VERSION:
		break;
	}
	return 0;
}

static const struct eal_opt *find_opt(const char *a, const char **inline_val)
{
	size_t i, len;

	*inline_val = NULL;
	if (a[1] == '-') {
		len = strcspn(a + 2, "=");
		if (a[2 + len] == '=')
			*inline_val = a + 3 + len;
		for (i = 0; i < DVP_DIM(opts); i++)
			if (opts[i].lng[0] && strlen(opts[i].lng) == len &&
			    strncmp(opts[i].lng, a + 2, len) == 0)
				return &opts[i];
		return NULL;
	}
	for (i = 0; i < DVP_DIM(opts); i++) {
		if (opts[i].shrt != a[1])
			continue;
		if (a[2] != '\0')
			*inline_val = a + 2;
		return &opts[i];
	}
	return NULL;
}

/* Options that make no sense together, and the lcore map. */
static int check_combination(struct eal_cfg *cfg)
{
	if (cfg->allow.n && cfg->block.n)
		return eal_arg_error(
			"-a/-b", NULL,
			"an allow list and a block list cannot be combined; use one of them");
	if (cfg->mem_mb && cfg->socket_mem_given)
		return eal_arg_error(
			"-m/--socket-mem", NULL,
			"give the memory either in total (-m) or per node (--socket-mem), not both");
	if (cfg->no_huge && cfg->huge_dir)
		return eal_arg_error("--huge-dir", cfg->huge_dir,
				     "hugepages are off (--no-huge); drop one of the two");
	if (cfg->no_huge && cfg->huge_unlink)
		return eal_arg_error("--huge-unlink", NULL,
				     "hugepages are off (--no-huge): there are no files to unlink");
	return eal_lcore_map_finish(cfg);
}

int eal_args_parse(int argc, char **argv, struct eal_cfg *cfg)
{
	const struct eal_opt *o;
	const char *a, *v;
	char name[32];
	int i, ret;

	eal_cfg_free(cfg);
	snprintf(cfg->file_prefix, sizeof(cfg->file_prefix), "%s", DVP_DEFAULT_FILE_PREFIX);
	if (sched_getaffinity(0, sizeof(eal_process_cpus), &eal_process_cpus) != 0) {
		EAL_LOG(ERR, "cannot read this process's CPU affinity: %s", dvp_strerror(errno));
		return dvp_err(errno);
	}

	for (i = 1; i < argc; i++) {
		a = argv[i];
		if (strcmp(a, "--") == 0) {
			i++;
			break;
		}
		if (a[0] != '-' || a[1] == '\0')
			break;
		o = find_opt(a, &v);
		if (o == NULL)
			return eal_arg_error(
				a, NULL,
				"unknown EAL option; see -h for the EAL options (application options go after '--')");
		/* Errors name the option as the user spelled it. */
		snprintf(name, sizeof(name), "%.*s", (int)strcspn(a, a[1] == '-' ? "=" : ""), a);
		if (a[1] != '-')
			name[2] = '\0';
		if (o->id == OPT_HELP || o->id == OPT_VERSION) {
			if (o->id == OPT_HELP)
				dvp_eal_usage(stdout, argv[0]);
			else
				printf("%s\n", dvp_version());
			fflush(stdout);
			cfg->help_shown = true;
			return i + 1;
		}
		if (o->arg == NULL) {
			if (v != NULL)
				return eal_arg_error(name, v, "this option takes no value");
		} else if (v == NULL) {
			if (i + 1 >= argc)
				return eal_arg_error(name, NULL, "needs a value: %s %s", name,
						     o->arg);
			v = argv[++i];
		}
		ret = apply(o, name, v, cfg);
		if (ret < 0)
			return ret;
	}
	ret = check_combination(cfg);
	return ret < 0 ? ret : i;
}
