/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Device arguments, as DPDK's devargs: "name,key=value,key=[a,b],...".
 *
 * Parsing checks the syntax (empty values, keys given twice, unbalanced
 * brackets); checking against a driver's declared keys names any unknown
 * key and lists the valid ones. Typed getters name the key, the value and
 * the valid range when a value is bad.
 */

#ifndef DVP_DEVARGS_H
#define DVP_DEVARGS_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define DVP_DEV_NAME_MAX_LEN 64
#define DVP_DEVARGS_MAX_PAIRS 32

/** A key a driver accepts, with the one-line help shown in errors and --help. */
struct dvp_devargs_key {
	const char *key;
	const char *help;
};

struct dvp_devargs_pair {
	char *key;
	/** The value; for "key=[a,b]" the text inside the brackets, "a,b". */
	char *value;
};

struct dvp_devargs {
	char name[DVP_DEV_NAME_MAX_LEN]; /**< the device: "net_ring0", "mlx5_0" */
	char *args; /**< everything after the first ',' as given */
	unsigned int count;
	struct dvp_devargs_pair pairs[DVP_DEVARGS_MAX_PAIRS];
};

/**
 * Parse @p str into @p da. On error, logs one line naming the problem (the
 * token, and what was expected) and returns -EINVAL; @p da needs no freeing.
 */
int dvp_devargs_parse(const char *str, struct dvp_devargs *da);

/** Release what dvp_devargs_parse() allocated (safe on a zeroed struct). */
void dvp_devargs_free(struct dvp_devargs *da);

/**
 * Check every key of @p da against @p keys (terminated by a NULL key).
 * @return 0, or -EINVAL after a log line such as:
 *   "net_ring0: unknown devargs key 'sise'; valid keys: size, nodeaction"
 */
int dvp_devargs_check_keys(const struct dvp_devargs *da, const struct dvp_devargs_key *keys);

/** @return the value of @p key, or NULL when absent. */
const char *dvp_devargs_get(const struct dvp_devargs *da, const char *key);

/**
 * Get @p key as an unsigned number (decimal, 0x hex, with k/m/g suffixes
 * for powers of 1024) within [@p min, @p max], or @p def when absent.
 * @return 0, or -EINVAL after a log line naming the key, value and range.
 */
int dvp_devargs_get_u64(const struct dvp_devargs *da, const char *key, uint64_t min, uint64_t max,
			uint64_t def, uint64_t *out);

/**
 * dvp_devargs_get_u64() for a 32-bit setting: @p max is at most UINT32_MAX.
 * @p def may lie outside [@p min, @p max] (a driver's "not given" mark).
 */
int dvp_devargs_get_u32(const struct dvp_devargs *da, const char *key, uint32_t min, uint32_t max,
			uint32_t def, uint32_t *out);

/** Get @p key as a boolean (1/0, yes/no, true/false, on/off), or @p def. */
int dvp_devargs_get_bool(const struct dvp_devargs *da, const char *key, bool def, bool *out);

/**
 * Get @p key as one of @p choices (NULL-terminated); *out is the index.
 * An unknown value is an error that lists the choices.
 */
int dvp_devargs_get_choice(const struct dvp_devargs *da, const char *key,
			   const char *const *choices, unsigned int def, unsigned int *out);

#ifdef __cplusplus
}
#endif

#endif /* DVP_DEVARGS_H */
