/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The MR registry (mlx5_mr.h): every pool registered by ranges with the PD
 * of every mlx5 device, so that a packet received on one device and sent on
 * another (two ConnectX functions are two devices) finds its lkey on both.
 * Control path only, under reg_lock, except mlx5_mr_lookup_miss() and the
 * pool lookups, which read the published snapshot on any thread.
 */

#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <dvp_errno.h>
#include <dvp_malloc.h>
#include <dvp_mempool.h>

#include "dvp_pmd_mlx5.h"
#include "mlx5.h"

/* One MR: the pools' ranges it covers hold a reference each. */
struct mlx5_mr_reg {
	uintptr_t start;
	uintptr_t len;
	struct ibv_mr *mr;
	uint32_t lkey_be;
	uint32_t refs;
};

/* One pool and the page-rounded, merged ranges of its memory. */
struct mlx5_mr_preg {
	const struct dvp_mempool *mp;
	struct mlx5_mr_range *want; /* lkey_be: of the MR it holds a reference to */
	unsigned int nwant;
};

/*
 * The devices, under one lock (control path), and whether the pool events
 * are watched (from the first device's attach to the last one's detach).
 */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mlx5_dev *reg_devs;
static bool events_on;

/* ------------------------------------------------------------------------
 * Lcores' side: the snapshot, read without a lock
 */

static const struct mlx5_mr_snap *snap_get(const struct mlx5_mr_table *t)
{
	/* Acquire: pairs with publish()'s release, the snapshot complete. */
	return __atomic_load_n(&t->snap, __ATOMIC_ACQUIRE);
}

static const struct mlx5_mr_range *snap_find(const struct mlx5_mr_snap *s, uintptr_t a)
{
	uint32_t lo = 0, hi = s != NULL ? s->nranges : 0;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;
		const struct mlx5_mr_range *r = &s->ranges[mid];

		if (a < r->start)
			hi = mid;
		else if (a - r->start >= r->len)
			lo = mid + 1;
		else
			return r;
	}
	return NULL;
}

static const struct mlx5_mr_pool_ent *snap_pool(const struct mlx5_mr_snap *s,
						const struct dvp_mempool *mp)
{
	uint32_t lo = 0, hi = s != NULL ? s->npools : 0;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if ((uintptr_t)mp < (uintptr_t)s->pools[mid].mp)
			hi = mid;
		else if ((uintptr_t)mp > (uintptr_t)s->pools[mid].mp)
			lo = mid + 1;
		else
			return &s->pools[mid];
	}
	return NULL;
}

void mlx5_mr_cache_init(struct mlx5_mr_cache *c, const struct mlx5_mr_table *tbl)
{
	memset(c, 0, sizeof(*c));
	c->tbl = tbl;
	c->gen = __atomic_load_n(&tbl->gen, __ATOMIC_RELAXED);
}

void mlx5_mr_cache_flush(struct mlx5_mr_cache *c)
{
	memset(c->e, 0, sizeof(c->e));
	c->next = 0;
	c->gen = __atomic_load_n(&c->tbl->gen, __ATOMIC_RELAXED);
}

__dvp_noinline uint32_t mlx5_mr_lookup_miss(struct mlx5_mr_cache *c, uintptr_t addr)
{
	const struct mlx5_mr_range *hit = snap_find(snap_get(c->tbl), addr);

	dvp_counter_add(&c->misses, 1);
	if (hit == NULL)
		return htobe32(MLX5_INVALID_LKEY);
	c->e[c->next] = *hit;
	c->next = (c->next + 1) % MLX5_MR_CACHE_N;
	return hit->lkey_be;
}

uint32_t mlx5_mr_pool_lkey(const struct mlx5_mr_table *tbl, const struct dvp_mempool *mp)
{
	const struct mlx5_mr_pool_ent *p = snap_pool(snap_get(tbl), mp);

	return p != NULL ? p->lkey_be : 0;
}

bool mlx5_mr_pool_registered(const struct mlx5_mr_table *tbl, const struct dvp_mempool *mp)
{
	return snap_pool(snap_get(tbl), mp) != NULL;
}

/* ------------------------------------------------------------------------
 * A pool's memory as ranges
 */

struct range_collect {
	struct mlx5_mr_range *r;
	unsigned int n, cap;
	bool nomem;
};

static void collect_chunk(struct dvp_mempool *mp, void *opaque,
			  const struct dvp_mempool_memhdr *memhdr, unsigned int idx)
{
	struct range_collect *rc = opaque;
	uintptr_t start = (uintptr_t)memhdr->addr, end = start + memhdr->len;
	size_t pg = dvp_mem_page_size(memhdr->addr);

	(void)mp;
	(void)idx;
	if (memhdr->len == 0 || rc->nomem)
		return;
	if (rc->n == rc->cap) {
		unsigned int cap = rc->cap ? rc->cap * 2 : 16;
		struct mlx5_mr_range *r = realloc(rc->r, cap * sizeof(*r));

		if (r == NULL) {
			rc->nomem = true;
			return;
		}
		rc->r = r;
		rc->cap = cap;
	}
	/*
	 * Whole pages, as the kernel pins them anyway: the chunks of one pool
	 * then touch where they share or neighbour a page, and merge.
	 */
	if (pg == 0)
		pg = (size_t)sysconf(_SC_PAGESIZE);
	start = DVP_ALIGN_FLOOR(start, (uintptr_t)pg);
	end = DVP_ALIGN_CEIL(end, (uintptr_t)pg);
	rc->r[rc->n++] = (struct mlx5_mr_range){ .start = start, .len = end - start };
}

static int range_cmp(const void *a, const void *b)
{
	const struct mlx5_mr_range *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

/* @p mp's memory, page-rounded, sorted and merged. @return 0 or -ENOMEM. */
static int pool_ranges(const struct dvp_mempool *mp, struct mlx5_mr_range **out, unsigned int *n)
{
	struct range_collect rc = { 0 };
	unsigned int i, k = 0;

	dvp_mempool_mem_iter((struct dvp_mempool *)(uintptr_t)mp, collect_chunk, &rc);
	if (rc.nomem) {
		free(rc.r);
		return -ENOMEM;
	}
	qsort(rc.r, rc.n, sizeof(*rc.r), range_cmp);
	for (i = 0; i < rc.n; i++) {
		if (k > 0 && rc.r[i].start <= rc.r[k - 1].start + rc.r[k - 1].len) {
			uintptr_t end = DVP_MAX(rc.r[k - 1].start + rc.r[k - 1].len,
						rc.r[i].start + rc.r[i].len);

			rc.r[k - 1].len = end - rc.r[k - 1].start;
			continue;
		}
		rc.r[k++] = rc.r[i];
	}
	*out = rc.r;
	*n = k;
	return 0;
}

/* ------------------------------------------------------------------------
 * The control path: MRs, pools, snapshots
 */

/* The MR covering [start, start + len) whole, or NULL. */
static struct mlx5_mr_reg *reg_covering(struct mlx5_mr_table *t, uintptr_t start, uintptr_t len)
{
	for (unsigned int i = 0; i < t->nregs; i++)
		if (t->regs[i].start <= start && start + len <= t->regs[i].start + t->regs[i].len)
			return &t->regs[i];
	return NULL;
}

static void snap_free(struct mlx5_mr_snap *s)
{
	if (s == NULL)
		return;
	free(s->ranges);
	free(s->pools);
	free(s);
}

static int ptr_cmp(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static int pool_ent_cmp(const void *a, const void *b)
{
	const struct mlx5_mr_pool_ent *x = a, *y = b;

	return ptr_cmp(&x->mp, &y->mp);
}

/*
 * The snapshot of @p t's MRs and pools: the MRs may overlap (one was made
 * for a range before another pool needed a larger one around it), so the
 * address line is cut at every MR's ends and each piece takes the lkey of
 * an MR covering it; neighbouring pieces of one lkey join again.
 */
static struct mlx5_mr_snap *snap_build(const struct mlx5_mr_table *t)
{
	struct mlx5_mr_snap *s = calloc(1, sizeof(*s));
	uintptr_t *cut = malloc(2 * (t->nregs + 1) * sizeof(*cut));
	unsigned int ncut = 0, i, k;

	if (s == NULL || cut == NULL)
		goto nomem;
	s->ranges = calloc(2 * t->nregs + 1, sizeof(*s->ranges));
	s->pools = calloc(t->npregs + 1, sizeof(*s->pools));
	if (s->ranges == NULL || s->pools == NULL)
		goto nomem;
	for (i = 0; i < t->nregs; i++) {
		cut[ncut++] = t->regs[i].start;
		cut[ncut++] = t->regs[i].start + t->regs[i].len;
	}
	qsort(cut, ncut, sizeof(*cut), ptr_cmp);
	for (i = 0; i + 1 < ncut; i++) {
		const struct mlx5_mr_reg *r;
		struct mlx5_mr_range *last;

		if (cut[i] == cut[i + 1])
			continue;
		r = reg_covering((struct mlx5_mr_table *)(uintptr_t)t, cut[i], cut[i + 1] - cut[i]);
		if (r == NULL)
			continue;
		last = s->nranges > 0 ? &s->ranges[s->nranges - 1] : NULL;
		if (last != NULL && last->lkey_be == r->lkey_be &&
		    last->start + last->len == cut[i]) {
			last->len += cut[i + 1] - cut[i];
			continue;
		}
		s->ranges[s->nranges++] =
			(struct mlx5_mr_range){ cut[i], cut[i + 1] - cut[i], r->lkey_be };
	}
	for (i = 0; i < t->npregs; i++) {
		const struct mlx5_mr_preg *p = &t->pregs[i];
		uint32_t lkey = 0;

		for (k = 0; k < p->nwant; k++) {
			if (k > 0 && p->want[k].lkey_be != lkey) {
				lkey = 0;
				break;
			}
			lkey = p->want[k].lkey_be;
		}
		s->pools[s->npools++] = (struct mlx5_mr_pool_ent){ p->mp, lkey };
	}
	qsort(s->pools, s->npools, sizeof(*s->pools), pool_ent_cmp);
	free(cut);
	return s;
nomem:
	free(cut);
	snap_free(s);
	return NULL;
}

/* Publish what @p t holds now. @return 0 or -ENOMEM (the old snapshot stays). */
static int publish(struct mlx5_mr_table *t)
{
	struct mlx5_mr_snap *s = snap_build(t), *old = t->snap;

	if (s == NULL)
		return -ENOMEM;
	/* Release: the snapshot is complete before an lcore can find it. */
	__atomic_store_n(&t->snap, s, __ATOMIC_RELEASE);
	/* An lcore may still be reading the old one: it goes at the device's close. */
	if (old != NULL) {
		old->retired_next = t->retired;
		t->retired = old;
	}
	return 0;
}

static __dvp_cold void reg_mr_failed(struct mlx5_dev *dev, const struct dvp_mempool *mp,
				     uintptr_t len, int err)
{
	struct rlimit rl;
	char lim[32] = "unknown";

	if (getrlimit(RLIMIT_MEMLOCK, &rl) == 0) {
		if (rl.rlim_cur == RLIM_INFINITY)
			snprintf(lim, sizeof(lim), "unlimited");
		else
			snprintf(lim, sizeof(lim), "%" PRIu64 " KiB", (uint64_t)rl.rlim_cur / 1024);
	}
	MLX5_LOG(ERR,
		 "%s: cannot register %zu bytes of pool %s with the device (reg_mr: %s); "
		 "registered memory is pinned and counts against the memlock limit (now %s): "
		 "raise it (ulimit -l unlimited, LimitMEMLOCK=infinity) or grant CAP_IPC_LOCK",
		 dev->name, (size_t)len, mp->name, dvp_strerror(err), lim);
}

/* Drop one reference to the MR of @p lkey_be; deregister it at none. @return whether it went. */
static bool reg_put(struct mlx5_dev *dev, uint32_t lkey_be)
{
	struct mlx5_mr_table *t = &dev->mr;
	struct mlx5_mr_reg *r = NULL;
	int ret;

	for (unsigned int i = 0; i < t->nregs && r == NULL; i++)
		if (t->regs[i].lkey_be == lkey_be)
			r = &t->regs[i];
	if (r == NULL || --r->refs > 0)
		return false;
	ret = dev->glue->dereg_mr(r->mr);
	if (ret != 0)
		MLX5_LOG(WARNING, "%s: dereg_mr of %zu bytes at %#" PRIxPTR ": %s", dev->name,
			 (size_t)r->len, r->start, dvp_strerror(ret));
	*r = t->regs[--t->nregs];
	return true;
}

/* An MR covering @p w, made if none is: @return it, or NULL with dvp_errno set after a log line. */
static struct mlx5_mr_reg *reg_get(struct mlx5_dev *dev, const struct dvp_mempool *mp,
				   const struct mlx5_mr_range *w)
{
	struct mlx5_mr_table *t = &dev->mr;
	struct mlx5_mr_reg *r = reg_covering(t, w->start, w->len);
	struct ibv_mr *mr;

	if (r != NULL) {
		r->refs++;
		return r;
	}
	if (t->nregs == t->regs_cap) {
		unsigned int cap = t->regs_cap ? t->regs_cap * 2 : 16;
		struct mlx5_mr_reg *regs = realloc(t->regs, cap * sizeof(*regs));

		if (regs == NULL) {
			dvp_errno = ENOMEM;
			return NULL;
		}
		t->regs = regs;
		t->regs_cap = cap;
	}
	errno = 0;
	mr = dev->glue->reg_mr(dev->pd, (void *)w->start, w->len, IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL) {
		dvp_errno = errno ? errno : ENOMEM;
		reg_mr_failed(dev, mp, w->len, dvp_errno);
		return NULL;
	}
	r = &t->regs[t->nregs++];
	*r = (struct mlx5_mr_reg){ w->start, w->len, mr, htobe32(mr->lkey), 1 };
	return r;
}

static struct mlx5_mr_preg *preg_find(struct mlx5_mr_table *t, const struct dvp_mempool *mp)
{
	for (unsigned int i = 0; i < t->npregs; i++)
		if (t->pregs[i].mp == mp)
			return &t->pregs[i];
	return NULL;
}

/* Forget @p p (its references dropped); the caller publishes. @return whether an MR went. */
static bool preg_drop(struct mlx5_dev *dev, struct mlx5_mr_preg *p)
{
	struct mlx5_mr_table *t = &dev->mr;
	bool gone = false;

	for (unsigned int k = 0; k < p->nwant; k++)
		gone |= reg_put(dev, p->want[k].lkey_be);
	free(p->want);
	*p = t->pregs[--t->npregs];
	return gone;
}

static bool same_ranges(const struct mlx5_mr_preg *p, const struct mlx5_mr_range *w, unsigned int n)
{
	if (p->nwant != n)
		return false;
	for (unsigned int k = 0; k < n; k++)
		if (p->want[k].start != w[k].start || p->want[k].len != w[k].len)
			return false;
	return true;
}

/* Under reg_lock. */
static void dev_del_pool(struct mlx5_dev *dev, const struct dvp_mempool *mp)
{
	struct mlx5_mr_preg *p = preg_find(&dev->mr, mp);
	bool gone;

	if (p == NULL)
		return;
	gone = preg_drop(dev, p);
	if (publish(&dev->mr) < 0)
		MLX5_LOG(ERR, "%s: no memory to publish the MRs without pool %s", dev->name,
			 mp->name);
	/*
	 * After the publication: a queue that sees the new generation and
	 * looks again finds the MR gone. Release pairs with no acquire: the
	 * generation only tells tx queues to look again.
	 */
	if (gone)
		__atomic_fetch_add(&dev->mr.gen, 1, __ATOMIC_RELEASE);
	MLX5_LOG(DEBUG, "%s: pool %s deregistered", dev->name, mp->name);
}

int mlx5_mr_dev_add_pool(struct mlx5_dev *dev, const struct dvp_mempool *mp)
{
	struct mlx5_mr_table *t = &dev->mr;
	struct mlx5_mr_range *want;
	struct mlx5_mr_preg *p;
	unsigned int n, k;
	int ret;

	ret = pool_ranges(mp, &want, &n);
	if (ret < 0)
		return dvp_err(-ret);
	if (n == 0) {
		free(want);
		MLX5_LOG(ERR, "%s: pool %s has no memory to register", dev->name, mp->name);
		return dvp_err(EINVAL);
	}
	p = preg_find(t, mp);
	if (p != NULL && same_ranges(p, want, n)) {
		free(want);
		return 0;
	}
	/* A pool freed unannounced and another made at its address: the old one goes. */
	if (p != NULL)
		dev_del_pool(dev, mp);
	if (t->npregs == t->pregs_cap) {
		unsigned int cap = t->pregs_cap ? t->pregs_cap * 2 : 16;
		struct mlx5_mr_preg *pregs = realloc(t->pregs, cap * sizeof(*pregs));

		if (pregs == NULL) {
			free(want);
			return dvp_err(ENOMEM);
		}
		t->pregs = pregs;
		t->pregs_cap = cap;
	}
	for (k = 0; k < n; k++) {
		const struct mlx5_mr_reg *r = reg_get(dev, mp, &want[k]);

		if (r == NULL) {
			ret = -dvp_errno;
			while (k-- > 0)
				reg_put(dev, want[k].lkey_be);
			free(want);
			return dvp_err(-ret);
		}
		want[k].lkey_be = r->lkey_be;
	}
	t->pregs[t->npregs++] = (struct mlx5_mr_preg){ mp, want, n };
	if (publish(t) < 0) {
		preg_drop(dev, &t->pregs[t->npregs - 1]);
		return dvp_err(ENOMEM);
	}
	MLX5_LOG(DEBUG,
		 "%s: pool %s registered: %u chunk(s) in %u range(s), %u MR(s) on the device",
		 dev->name, mp->name, mp->nb_mem_chunks, n, t->nregs);
	return 0;
}

/* ------------------------------------------------------------------------
 * The devices, and the pools' events
 */

static bool pool_wanted(const struct dvp_mempool *mp)
{
	return !dvp_mempool_is_non_io(mp) && mp->nb_mem_chunks > 0;
}

/* Under reg_lock. */
static void register_with_all(const struct dvp_mempool *mp)
{
	for (struct mlx5_dev *dev = reg_devs; dev != NULL; dev = dev->next)
		if (mlx5_mr_dev_add_pool(dev, mp) < 0)
			MLX5_LOG(
				NOTICE,
				"%s: pool %s is not registered: its mbufs are not sent as they are",
				dev->name, mp->name);
}

static void pool_event(enum dvp_mempool_event event, struct dvp_mempool *mp, void *arg)
{
	(void)arg;
	pthread_mutex_lock(&reg_lock);
	if (event == DVP_MEMPOOL_EVENT_READY && pool_wanted(mp))
		register_with_all(mp);
	else if (event == DVP_MEMPOOL_EVENT_DESTROY)
		for (struct mlx5_dev *dev = reg_devs; dev != NULL; dev = dev->next)
			dev_del_pool(dev, mp);
	pthread_mutex_unlock(&reg_lock);
}

/* dvp_mempool_walk()'s callback at a device's attach (reg_lock held). */
static void attach_pool(struct dvp_mempool *mp, void *arg)
{
	struct mlx5_dev *dev = arg;

	if (pool_wanted(mp) && mlx5_mr_dev_add_pool(dev, mp) < 0)
		MLX5_LOG(NOTICE,
			 "%s: pool %s is not registered: its mbufs are not sent as they are",
			 dev->name, mp->name);
}

void mlx5_mr_dev_attach(struct mlx5_dev *dev)
{
	pthread_mutex_lock(&reg_lock);
	dev->next = reg_devs;
	reg_devs = dev;
	/* As DPDK's mlx5: every pool as it becomes ready, those there now at once. */
	if (!events_on && dvp_mempool_event_callback_register(pool_event, NULL) == 0)
		events_on = true;
	dvp_mempool_walk(attach_pool, dev);
	pthread_mutex_unlock(&reg_lock);
}

void mlx5_mr_dev_detach(struct mlx5_dev *dev)
{
	struct mlx5_mr_table *t = &dev->mr;
	struct mlx5_dev **pp;
	struct mlx5_mr_snap *s;

	pthread_mutex_lock(&reg_lock);
	for (pp = &reg_devs; *pp != NULL; pp = &(*pp)->next) {
		if (*pp == dev) {
			*pp = dev->next;
			break;
		}
	}
	if (reg_devs == NULL && events_on) {
		dvp_mempool_event_callback_unregister(pool_event, NULL);
		events_on = false;
	}
	while (t->npregs > 0)
		preg_drop(dev, &t->pregs[t->npregs - 1]);
	pthread_mutex_unlock(&reg_lock);
	free(t->regs);
	free(t->pregs);
	snap_free(t->snap);
	while ((s = t->retired) != NULL) {
		t->retired = s->retired_next;
		snap_free(s);
	}
	memset(t, 0, sizeof(*t));
}

int mlx5_mr_register_pool(const struct dvp_mempool *mp)
{
	struct mlx5_dev *dev;
	int ret = 0;

	pthread_mutex_lock(&reg_lock);
	for (dev = reg_devs; dev != NULL && ret == 0; dev = dev->next)
		ret = mlx5_mr_dev_add_pool(dev, mp);
	pthread_mutex_unlock(&reg_lock);
	return ret;
}

int dvp_pmd_mlx5_mempool_register(struct dvp_mempool *mp)
{
	if (mp == NULL) {
		MLX5_LOG(ERR, "mempool_register: NULL pool");
		return dvp_err(EINVAL);
	}
	return mlx5_mr_register_pool(mp);
}

bool dvp_pmd_mlx5_mempool_registered(uint16_t port_id, const struct dvp_mempool *mp)
{
	struct dvp_port *port = dvp_port_get(port_id);

	if (port == NULL || mp == NULL || port->driver_name == NULL ||
	    strcmp(port->driver_name, MLX5_DRIVER_NAME) != 0)
		return false;
	return mlx5_mr_pool_registered(&mlx5_priv(port)->dev->mr, mp);
}
