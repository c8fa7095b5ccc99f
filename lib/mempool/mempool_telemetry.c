/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp_mempool_walk() and the pools' telemetry commands, with DPDK's names
 * and shapes: /mempool/list and /mempool/info,<name>.
 */

#include <string.h>

#include <dvp_memzone.h>
#include <dvp_telemetry.h>

#include "mempool_private.h"

struct walk {
	void (*fn)(struct dvp_mempool *mp, void *arg);
	void *arg;
};

/*
 * Under the memzone lock: a pool marked created cannot lose its ring or its
 * memory until the walk ends (dvp_mempool_free() takes the mark away first,
 * and frees them through memzones).
 */
static void walk_zone(const struct dvp_memzone *mz, void *arg)
{
	struct walk *wk = arg;
	struct dvp_mempool *mp = mz->addr;
	size_t plen = strlen(DVP_MEMPOOL_MZ_PREFIX);

	if (strncmp(mz->name, DVP_MEMPOOL_MZ_PREFIX, plen) != 0 || mz->len < sizeof(*mp))
		return;
	if (!(__atomic_load_n(&mp->flags, __ATOMIC_ACQUIRE) & MEMPOOL_F_CREATED) || mp->mz != mz)
		return;
	wk->fn(mp, wk->arg);
}

void dvp_mempool_walk(void (*fn)(struct dvp_mempool *mp, void *arg), void *arg)
{
	struct walk wk = { fn, arg };

	if (fn != NULL)
		dvp_memzone_walk(walk_zone, &wk);
}

static void list_one(struct dvp_mempool *mp, void *arg)
{
	dvp_json_str(arg, NULL, mp->name);
}

static int cmd_list(const char *cmd, const char *params, struct dvp_json *w)
{
	(void)cmd;
	(void)params;
	dvp_json_arr_open(w, NULL);
	dvp_mempool_walk(list_one, w);
	dvp_json_arr_close(w);
	return 0;
}

struct info_arg {
	const char *name;
	struct dvp_json *w;
};

/* DPDK's keys for the pool's sizes: the struct's own names. */
#define MP(m) DVP_JSON_FIELD(struct dvp_mempool, m)
static const struct dvp_json_field size_fields[] = {
	MP(size),	 MP(cache_size),   MP(elt_size),
	MP(header_size), MP(trailer_size), MP(private_data_size),
};
#undef MP

static void info_one(struct dvp_mempool *mp, void *arg)
{
	struct info_arg *ia = arg;
	struct dvp_json *w = ia->w;
	const struct dvp_memzone *mz = mp->mz;

	if (strncmp(mp->name, ia->name, DVP_MEMPOOL_NAMESIZE) != 0)
		return;
	dvp_json_str(w, "name", mp->name);
	/* DPDK's pool_id and ops_index: dvpmd's pools have one kind, ring-backed. */
	dvp_json_u64(w, "pool_id", 0);
	dvp_json_u64(w, "flags", mp->flags & ~MEMPOOL_F_CREATED);
	dvp_json_i64(w, "socket_id", mp->socket_id);
	dvp_json_fields(w, NULL, mp, size_fields, DVP_DIM(size_fields));
	dvp_json_i64(w, "ops_index", 0);
	dvp_json_u64(w, "populated_size", mp->size);
	dvp_json_str(w, "mz_name", mz->name);
	dvp_json_u64(w, "mz_len", mz->len);
	dvp_json_u64(w, "mz_hugepage_sz", mz->hugepage_sz);
	dvp_json_i64(w, "mz_socket_id", mz->socket_id);
	dvp_json_u64(w, "mz_flags", mz->flags);
	/* dvpmd's own, after DPDK's. */
	dvp_json_u64(w, "avail_count", dvp_mempool_avail_count(mp));
	dvp_json_u64(w, "in_use_count", dvp_mempool_in_use_count(mp));
}

/* As DPDK: an unknown name gives an empty object, no name gives null. */
static int cmd_info(const char *cmd, const char *params, struct dvp_json *w)
{
	struct info_arg ia = { params, w };

	(void)cmd;
	if (params == NULL || params[0] == '\0')
		return -1;
	dvp_json_obj_open(w, NULL);
	dvp_mempool_walk(info_one, &ia);
	dvp_json_obj_close(w);
	return 0;
}

void mempool_telemetry_register(void)
{
	dvp_telemetry_register_cmd("/mempool/list", cmd_list,
				   "Returns list of available mempool. Takes no parameters");
	dvp_telemetry_register_cmd("/mempool/info", cmd_info,
				   "Returns mempool info. Parameters: pool_name");
}
