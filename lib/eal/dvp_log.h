/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Logging with dynamic log types, as DPDK's rte_log.
 *
 * A log type is a dotted name ("eal", "port", "pmd.net.mlx5") with its own
 * level. A message is written when its level is at or below both the type's
 * level and the global level. Levels follow syslog: 1 (emergency) to 8 (debug).
 *
 * The fast path never logs at INFO or above; debug messages there must be
 * compiled out or guarded by dvp_log_can_log() on a cold branch.
 */

#ifndef DVP_LOG_H
#define DVP_LOG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

enum dvp_log_level {
	DVP_LOG_EMERG = 1,
	DVP_LOG_ALERT = 2,
	DVP_LOG_CRIT = 3,
	DVP_LOG_ERR = 4,
	DVP_LOG_WARNING = 5,
	DVP_LOG_NOTICE = 6,
	DVP_LOG_INFO = 7,
	DVP_LOG_DEBUG = 8,
};

#define DVP_LOG_MAX DVP_LOG_DEBUG
/** Longest log type name, terminating NUL included. */
#define DVP_LOG_TYPE_NAMESIZE 64
/** Highest number of log types a process can register. */
#define DVP_LOG_MAX_TYPES 256

/** Types every process has; registered before any constructor of a driver runs. */
extern int dvp_logtype_eal; /**< "eal" */
extern int dvp_logtype_user; /**< "user": for applications */

/**
 * Register a log type, or look up the existing one of the same name.
 * Levels saved by earlier --log-level patterns apply to the new type.
 *
 * @return the type id (>= 0), or a negative errno (-EINVAL for a bad name or
 *   level, -ENOSPC when DVP_LOG_MAX_TYPES are in use).
 */
int dvp_log_register(const char *name, uint32_t default_level);

/**
 * @return the id of the type named @p name, or of the type DPDK calls so
 *   ("lib.eal" is "eal", "lib.ethdev" is "port"), or -ENOENT.
 */
int dvp_log_lookup(const char *name);

/** @return the name of @p type, or NULL for an unknown id. */
const char *dvp_log_type_name(uint32_t type);

int dvp_log_set_level(uint32_t type, uint32_t level);
/** @return the level of @p type, or -EINVAL. */
int dvp_log_get_level(uint32_t type);

/**
 * Set the level of every type whose name matches the shell glob @p pattern
 * (fnmatch(3), as "pmd.net.*"), now and for types registered later. A type
 * matches by its own name or by DPDK's name for it: "lib.*" matches "eal",
 * "ring", "mempool", "mbuf", "port" and "rxwait" (lib.eal, lib.ring,
 * lib.mempool, lib.mbuf, lib.ethdev twice); "user" is DPDK's "user1".
 * @return the number of existing types changed, or a negative errno.
 */
int dvp_log_set_level_pattern(const char *pattern, uint32_t level);

/**
 * Same with a POSIX extended regular expression, matched anywhere in the
 * name as DPDK does (anchor it with ^...$ to match whole names).
 */
int dvp_log_set_level_regexp(const char *regex, uint32_t level);

/** Messages above this level are dropped whatever their type's level. */
void dvp_log_set_global_level(uint32_t level);
uint32_t dvp_log_get_global_level(void);

/**
 * Parse a level: a number 1..8 or a name (emergency, alert, critical,
 * error, warning, notice, info, debug) or, as DPDK, the start of one,
 * case aside: the first level in that order whose name starts so wins
 * ("warn", "err", "d"; "e" is emergency).
 * @return the level, or -EINVAL (nothing is logged: callers name the context).
 */
int dvp_log_parse_level(const char *text);

/** The name of @p level ("error"), or "unknown". */
const char *dvp_log_level_name(uint32_t level);

/**
 * Apply one --log-level argument, in any of DPDK's forms:
 *   "debug" or "8"                  every type and the global level
 *   "pmd.net.*:debug"               types matching a glob
 *   "pmd\.net\..*,8"                types matching a regular expression
 * A bad argument is logged as one line that names the offending token and
 * what would be valid.
 * @return 0, or -EINVAL with dvp_errno set.
 */
int dvp_log_apply_arg(const char *arg);

/** Send log lines to @p stream (NULL: back to stderr). */
int dvp_log_open_stream(FILE *stream);
FILE *dvp_log_get_stream(void);

/** Whether a message of @p level for @p type would be written. Cheap: two relaxed loads. */
bool dvp_log_can_log(uint32_t type, uint32_t level);

/**
 * Write a message. Lines are written whole (one write per message) so that
 * threads do not interleave within a line.
 * @return the number of characters written, 0 when filtered, or a negative errno.
 */
int dvp_log(uint32_t level, uint32_t type, const char *format, ...) __dvp_format_printf(3, 4);
int dvp_vlog(uint32_t level, uint32_t type, const char *format, va_list ap)
	__dvp_format_printf(3, 0);

/** Print every type with its level, and the global level, to @p f. */
void dvp_log_dump(FILE *f);

/**
 * The start of an object's dump function (dvp_ring_dump, ...): the stream
 * to write to, @p f or stdout when @p f is NULL; NULL, after the line
 * "<what>: (null)", when there is no object @p obj to dump.
 */
FILE *dvp_dump_stream(FILE *f, const char *what, const void *obj);

/**
 * Define and register a log type variable from a constructor:
 *   DVP_LOG_REGISTER(mlx5_logtype, "pmd.net.mlx5", NOTICE);
 */
#define DVP_LOG_REGISTER(var, name, level)                                       \
	int var;                                                                 \
	__dvp_constructor(DVP_PRIO_LOG + 1) static void dvp_log_init_##var(void) \
	{                                                                        \
		var = dvp_log_register(name, DVP_LOG_##level);                   \
		if (var < 0)                                                     \
			var = dvp_logtype_user;                                  \
	}

/**
 * One log line with a prefix naming the component; the newline is added:
 *   DVP_LOG_LINE(ERR, dvp_logtype_eal, "EAL: ", "no hugepages on node %d", n);
 */
#define DVP_LOG_LINE(level, type, prefix, fmt, ...) \
	dvp_log(DVP_LOG_##level, (uint32_t)(type), prefix fmt "\n", ##__VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* DVP_LOG_H */
