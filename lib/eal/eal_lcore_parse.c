/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The lcore map from -l and --lcores (DPDK's grammars), the default map,
 * and the checks that every CPU named exists and is ours to run on.
 */

#include <ctype.h>
#include <errno.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "dvp_parse.h"
#include "eal_private.h"

#define COREMASK_SYNTAX "expected a hexadecimal CPU mask such as 0xf or 3c"
#define CORELIST_SYNTAX "expected CPU numbers and ranges such as 0-3,5"
#define LCORES_SYNTAX "expected LCORES[@CPUS],... such as 0@1,1@(2-3) or (0-3)@0"

cpu_set_t eal_process_cpus;

void eal_format_cpuset(const cpu_set_t *set, char *buf, size_t len)
{
	size_t off = 0;
	int i, first = -1;

	buf[0] = '\0';
	for (i = 0; i <= CPU_SETSIZE && off < len; i++) {
		bool in = i < CPU_SETSIZE && CPU_ISSET(i, set);

		if (in && first < 0)
			first = i;
		if (in || first < 0)
			continue;
		if (first == i - 1)
			off += (size_t)snprintf(buf + off, len - off, "%s%d", off ? "," : "",
						first);
		else
			off += (size_t)snprintf(buf + off, len - off, "%s%d-%d", off ? "," : "",
						first, i - 1);
		first = -1;
	}
	if (buf[0] == '\0')
		snprintf(buf, len, "none");
}

unsigned int eal_numa_nodes(void)
{
	int max;

	if (numa_available() < 0)
		return 1;
	max = numa_max_node();
	if (max < 0)
		return 1;
	return DVP_MIN((unsigned int)max + 1, (unsigned int)DVP_MAX_NUMA_NODES);
}

int eal_cpu_socket(unsigned int cpu)
{
	int node;

	if (numa_available() < 0)
		return 0;
	node = numa_node_of_cpu((int)cpu);
	return node < 0 ? 0 : node;
}

int eal_cfg_lcore_socket(const struct eal_cfg *cfg, unsigned int lcore)
{
	int i;

	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &cfg->lcore_cpus[lcore]))
			return DVP_MIN(eal_cpu_socket((unsigned int)i), DVP_MAX_NUMA_NODES - 1);
	return 0;
}

/* A CPU named on the command line must exist and be in our affinity mask. */
static int check_cpu(const char *opt, const char *arg, unsigned long cpu)
{
	char usable[256];
	int ncpus = get_nprocs_conf();

	eal_format_cpuset(&eal_process_cpus, usable, sizeof(usable));
	if (cpu >= (unsigned long)ncpus || cpu >= CPU_SETSIZE)
		return eal_arg_error(
			opt, arg,
			"CPU %lu does not exist: this system has CPUs 0-%d; usable CPUs: %s", cpu,
			ncpus - 1, usable);
	if (!CPU_ISSET(cpu, &eal_process_cpus))
		return eal_arg_error(
			opt, arg, "CPU %lu is not in this process's CPU affinity; usable CPUs: %s",
			cpu, usable);
	return 0;
}

static int check_lcore(const char *opt, const char *arg, unsigned long lcore)
{
	if (lcore >= DVP_MAX_LCORE)
		return eal_arg_error(
			opt, arg,
			"lcore id %lu is out of range: lcore ids go from 0 to %d (build option max_lcores)",
			lcore, DVP_MAX_LCORE - 1);
	return 0;
}

/* A number at *p; advances *p past it. */
static bool parse_num(const char **p, unsigned long *out)
{
	char *end;

	if (!isdigit((unsigned char)**p))
		return false;
	errno = 0;
	*out = strtoul(*p, &end, 10);
	if (errno != 0 || *out > INT32_MAX)
		return false;
	*p = end;
	return true;
}

/* "N" or "N-M" at *p; advances past it. */
static int parse_range(const char *opt, const char *arg, const char *syntax, const char **p,
		       unsigned long *lo, unsigned long *hi)
{
	const char *start = *p;

	if (!parse_num(p, lo))
		return eal_arg_error(opt, arg, "'%s' is not a number or range; %s", start, syntax);
	*hi = *lo;
	if (**p == '-') {
		(*p)++;
		if (!parse_num(p, hi))
			return eal_arg_error(opt, arg, "range at '%s' has no end; %s", start,
					     syntax);
		if (*hi < *lo)
			return eal_arg_error(opt, arg, "range '%.*s' goes backwards; %s",
					     (int)(*p - start), start, syntax);
	}
	return 0;
}

/* -c, -l and --lcores each give the whole map, once. */
static int map_start(const char *opt, const char *arg, struct eal_cfg *cfg)
{
	if (cfg->lcores_given)
		return eal_arg_error(
			opt, arg,
			"the lcore map is already given; use one of -c, -l and --lcores, once");
	memset(cfg->lcore_enabled, 0, sizeof(cfg->lcore_enabled));
	memset(cfg->lcore_cpus, 0, sizeof(cfg->lcore_cpus));
	return 0;
}

/*
 * After one item of a list option: 1 at the end of @p arg, 0 past the
 * comma before the next item, or an error naming what stands there.
 */
static int list_next(const char *opt, const char *arg, const char *syntax, const char **p)
{
	if (**p == '\0')
		return 1;
	if (**p != ',' || (*p)[1] == '\0')
		return eal_arg_error(opt, arg, "unexpected '%s'; %s", *p, syntax);
	(*p)++;
	return 0;
}

/* One item of a list option at *p: its lcores mapped, *p left past it. */
typedef int list_item_fn(const char *opt, const char *arg, struct eal_cfg *cfg, const char **p);

/*
 * A list option: a new lcore map from @p item of each comma-separated item
 * of @p arg, which must have one at least; @p syntax goes into the errors.
 */
static int list_parse(const char *opt, const char *arg, struct eal_cfg *cfg, const char *syntax,
		      list_item_fn *item)
{
	const char *p = arg;
	int ret = map_start(opt, arg, cfg);

	if (ret == 0 && *arg == '\0')
		ret = eal_arg_error(opt, arg, "empty list; %s", syntax);
	while (ret == 0) {
		ret = item(opt, arg, cfg, &p);
		if (ret == 0)
			ret = list_next(opt, arg, syntax, &p);
	}
	if (ret < 0)
		return ret;
	cfg->lcores_given = true;
	return 0;
}

static int map_set(const char *opt, const char *arg, struct eal_cfg *cfg, unsigned long lcore,
		   const cpu_set_t *cpus)
{
	int ret = check_lcore(opt, arg, lcore);

	if (ret < 0)
		return ret;
	if (cfg->lcore_enabled[lcore])
		return eal_arg_error(opt, arg, "lcore %lu is given twice", lcore);
	cfg->lcore_enabled[lcore] = true;
	cfg->lcore_cpus[lcore] = *cpus;
	return 0;
}

/* One lcore per CPU of @p cpu: lcore id = CPU id, as -l. */
static int map_one_cpu(const char *opt, const char *arg, struct eal_cfg *cfg, unsigned long cpu)
{
	cpu_set_t one;
	int ret = check_cpu(opt, arg, cpu);

	if (ret == 0)
		ret = check_lcore(opt, arg, cpu);
	if (ret < 0)
		return ret;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	return map_set(opt, arg, cfg, cpu, &one);
}

/* DPDK's -c: bit N of a hexadecimal mask is lcore N on CPU N. */
int eal_parse_coremask(const char *opt, const char *arg, struct eal_cfg *cfg)
{
	const char *p = arg, *end;
	unsigned long cpu = 0;
	int d, bit, ret;
	bool any = false;

	ret = map_start(opt, arg, cfg);
	if (ret < 0)
		return ret;
	/* As DPDK: blanks around the mask and a 0x prefix are allowed. */
	while (isblank((unsigned char)*p))
		p++;
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	for (end = p + strlen(p); end > p && isblank((unsigned char)end[-1]); end--)
		;
	if (end == p)
		return eal_arg_error(opt, arg, "no hexadecimal digit; %s", COREMASK_SYNTAX);
	/* The last digit holds CPUs 0-3. */
	for (; end > p; end--) {
		d = dvp_parse_hex_digit(end[-1]);
		if (d < 0)
			return eal_arg_error(opt, arg, "'%c' is not a hexadecimal digit; %s",
					     end[-1], COREMASK_SYNTAX);
		for (bit = 0; bit < 4; bit++, cpu++) {
			if (!(d & (1 << bit)))
				continue;
			ret = map_one_cpu(opt, arg, cfg, cpu);
			if (ret < 0)
				return ret;
			any = true;
		}
	}
	if (!any)
		return eal_arg_error(opt, arg, "the mask has no CPU in it; %s", COREMASK_SYNTAX);
	cfg->lcores_given = true;
	return 0;
}

/* A -l item, "N" or "N-M": lcore N on CPU N for each. */
static int corelist_item(const char *opt, const char *arg, struct eal_cfg *cfg, const char **p)
{
	unsigned long lo = 0, hi = 0, i;
	int ret = parse_range(opt, arg, CORELIST_SYNTAX, p, &lo, &hi);

	for (i = lo; ret == 0 && i <= hi; i++)
		ret = map_one_cpu(opt, arg, cfg, i);
	return ret;
}

int eal_parse_corelist(const char *opt, const char *arg, struct eal_cfg *cfg)
{
	return list_parse(opt, arg, cfg, CORELIST_SYNTAX, corelist_item);
}

/* Check one lcore id, or one CPU, of a set. */
static int check_member(const char *opt, const char *arg, bool is_cpu, unsigned long v)
{
	return is_cpu ? check_cpu(opt, arg, v) : check_lcore(opt, arg, v);
}

/* "(a,b-c)" or "N" or "N-M" at *p into @p set; *grouped says whether in brackets. */
static int parse_set(const char *opt, const char *arg, bool is_cpu, const char **p, cpu_set_t *set,
		     bool *grouped)
{
	unsigned long lo, hi, i;
	int ret;

	CPU_ZERO(set);
	*grouped = **p == '(';
	if (*grouped)
		(*p)++;
	for (;;) {
		ret = parse_range(opt, arg, LCORES_SYNTAX, p, &lo, &hi);
		if (ret < 0)
			return ret;
		for (i = lo; i <= hi; i++) {
			ret = check_member(opt, arg, is_cpu, i);
			if (ret < 0)
				return ret;
			CPU_SET(i, set);
		}
		if (!*grouped || **p == ')')
			break;
		if (**p != ',')
			return eal_arg_error(opt, arg, "'(' is not closed at '%s'; %s", *p,
					     LCORES_SYNTAX);
		(*p)++;
	}
	if (*grouped)
		(*p)++;
	return 0;
}

/* A --lcores item: "LCORES" or "LCORES@CPUS", each a set (see LCORES_SYNTAX). */
static int lcores_item(const char *opt, const char *arg, struct eal_cfg *cfg, const char **p)
{
	cpu_set_t lcores, cpus, one;
	bool grouped, cpus_grouped, has_at;
	unsigned long i;
	int ret;

	ret = parse_set(opt, arg, false, p, &lcores, &grouped);
	if (ret < 0)
		return ret;
	has_at = **p == '@';
	if (has_at) {
		(*p)++;
		ret = parse_set(opt, arg, true, p, &cpus, &cpus_grouped);
		if (ret < 0)
			return ret;
	} else {
		/* "(0-3)": the group floats on its own CPUs; "0-3": each on its own. */
		cpus = lcores;
	}
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &cpus))
			continue;
		ret = check_cpu(opt, arg, i);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, &lcores))
			continue;
		if (!grouped && !has_at) {
			CPU_ZERO(&one);
			CPU_SET(i, &one);
			ret = map_set(opt, arg, cfg, i, &one);
		} else {
			ret = map_set(opt, arg, cfg, i, &cpus);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

int eal_parse_lcores(const char *opt, const char *arg, struct eal_cfg *cfg)
{
	return list_parse(opt, arg, cfg, LCORES_SYNTAX, lcores_item);
}

int eal_lcore_map_finish(struct eal_cfg *cfg)
{
	char list[256];
	cpu_set_t enabled;
	unsigned int i, n = 0;

	if (!cfg->lcores_given) {
		/* Default: one lcore per CPU we may run on, lcore id = CPU id. */
		for (i = 0; i < DVP_MAX_LCORE; i++) {
			if (!CPU_ISSET(i, &eal_process_cpus))
				continue;
			cfg->lcore_enabled[i] = true;
			CPU_ZERO(&cfg->lcore_cpus[i]);
			CPU_SET(i, &cfg->lcore_cpus[i]);
		}
	}
	CPU_ZERO(&enabled);
	for (i = 0; i < DVP_MAX_LCORE; i++) {
		if (cfg->lcore_enabled[i]) {
			CPU_SET(i, &enabled);
			n++;
		}
	}
	if (n == 0) {
		eal_format_cpuset(&eal_process_cpus, list, sizeof(list));
		EAL_LOG(ERR,
			"no lcore: none of this process's CPUs (%s) is below max_lcores %d; give -l or --lcores",
			list, DVP_MAX_LCORE);
		return dvp_err(EINVAL);
	}
	if (!cfg->main_lcore_given) {
		for (i = 0; !cfg->lcore_enabled[i]; i++)
			;
		cfg->main_lcore = i;
	} else if (cfg->main_lcore >= DVP_MAX_LCORE || !cfg->lcore_enabled[cfg->main_lcore]) {
		eal_format_cpuset(&enabled, list, sizeof(list));
		EAL_LOG(ERR, "--main-lcore '%u': lcore %u is not enabled; enabled lcores: %s",
			cfg->main_lcore, cfg->main_lcore, list);
		return dvp_err(EINVAL);
	}
	return 0;
}
