/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The net_verbs device: one per verbs context, shared by the ports on it
 * (verbs_dev.c): the PD, the memory registered with it and the lkey caches
 * of the queues, and the async-event source.
 */

#ifndef VERBS_DEV_H
#define VERBS_DEV_H

#include <pthread.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#include <dvp_mbuf.h>
#include <ib_async.h>

#define VERBS_MRC_SIZE 8 /* a queue's own lkey cache */

struct verbs_mr {
	uintptr_t start;
	uintptr_t end;
	struct ibv_mr *mr;
};

struct verbs_dev {
	struct verbs_dev *next; /* verbs_devs, under verbs_devs_lock */
	unsigned int refs;
	char name[64];
	struct ibv_context *ctx; /* librdmacm's: its cm_ids use this context */
	struct ibv_pd *pd;
	struct ibv_device_attr attr;
	struct ib_async *async; /* ctx->async_fd on the interrupt thread */

	/* Memory registered with pd: one region per mempool chunk. */
	pthread_mutex_t mr_lock;
	struct verbs_mr *mrs;
	unsigned int nb_mrs;
	unsigned int mrs_cap;
};

/* Find or open the device named @name. @return it (a reference taken) or NULL, dvp_errno set. */
struct verbs_dev *verbs_dev_get(const char *name, const char *port_name);
void verbs_dev_put(struct verbs_dev *dev);

/* Check what registering memory needs (RLIMIT_MEMLOCK) at probe. @return 0 or -EPERM. */
int verbs_memlock_check(const char *port_name);

/*
 * Register every memory chunk of @mp with the device's PD (once: chunks
 * registered already are skipped). @return 0 or a negative errno after a
 * log line (which says what to change when the memlock limit is the cause).
 */
int verbs_mr_register_mempool(struct verbs_dev *dev, struct dvp_mempool *mp, const char *port_name);

/* The lkey covering [@addr, @addr + @len), or UINT32_MAX. Takes mr_lock. */
uint32_t verbs_mr_lookup(struct verbs_dev *dev, uintptr_t addr, size_t len, uintptr_t *start,
			 uintptr_t *end);

/* A queue's own lkey cache, in front of verbs_mr_lookup (no lock). */
struct verbs_mrc {
	uintptr_t start[VERBS_MRC_SIZE];
	uintptr_t end[VERBS_MRC_SIZE];
	uint32_t lkey[VERBS_MRC_SIZE];
	uint32_t n;
	uint32_t next; /* slot replaced next */
};

/* Miss path: the device's table (registering @m's pool if needed), then the cache. */
uint32_t verbs_mrc_miss(struct verbs_mrc *c, struct verbs_dev *dev, struct dvp_mbuf *m,
			uintptr_t addr, uint32_t len, const char *port_name);

static __dvp_always_inline uint32_t verbs_mrc_lkey(struct verbs_mrc *c, uintptr_t addr,
						   uint32_t len)
{
	uint32_t i;

	for (i = 0; i < c->n; i++)
		if (addr >= c->start[i] && addr + len <= c->end[i])
			return c->lkey[i];
	return UINT32_MAX;
}

/* The async-event hooks. */
extern const struct ib_async_ops verbs_async_ops;

#endif /* VERBS_DEV_H */
