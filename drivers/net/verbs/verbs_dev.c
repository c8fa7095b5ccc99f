/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The verbs device behind net_verbs ports: librdmacm's context for it (the
 * cm_ids of the ports' connections live on that context, so their QPs must
 * too), one protection domain, the memory registered with it, and the
 * async-event source read on the EAL interrupt thread. Ports on the same
 * device share all of it.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <dvp_fd.h>
#include <dvp_mempool.h>

#include "verbs_private.h"

DVP_LOG_REGISTER(verbs_logtype, "pmd.net.verbs", NOTICE);

static pthread_mutex_t verbs_devs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct verbs_dev *verbs_devs;

/* Registering memory pins it: below this, the first mempool may not fit. */
#define VERBS_MEMLOCK_MIN (64ull << 20)

/* ------------------------------------------------------------------------
 * Async events: read on the interrupt thread, each resolved to its port
 * and queue before drivers/common/ib acks it (a CQ or QP cannot be destroyed before
 * the ack, so the queue behind cq_context / qp_context is still there).
 */

static void resolve_queue(struct ib_async_event *ev, const struct verbs_qctx *qc)
{
	if (qc == NULL || qc->vp == NULL)
		return;
	ev->port_id = qc->vp->port->port_id;
	ev->queue_id = qc->queue_id;
	ev->tx = qc->tx;
	ev->queue_known = true;
}

static int verbs_async_get(void *arg, struct ib_async_event *ev)
{
	struct verbs_dev *dev = arg;
	unsigned int port_num;

	if (ibv_get_async_event(dev->ctx, &ev->ibv) != 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? -EAGAIN : -errno;
	/* Port and device events concern every port on the device (port_id as given). */
	resolve_queue(ev, ib_async_element(&ev->ibv, &port_num));
	VERBS_LOG(DEBUG, "%s: async event %s", dev->name, ibv_event_type_str(ev->ibv.event_type));
	return 0;
}

static void verbs_async_ack(void *arg, struct ib_async_event *ev)
{
	(void)arg;
	ibv_ack_async_event(&ev->ibv);
}

static void verbs_async_link(void *arg, struct dvp_port *port, enum dvp_port_event_cause cause)
{
	struct verbs_port *vp = port->priv;

	(void)arg;
	__atomic_fetch_add(&vp->ps.async_link_events, 1, __ATOMIC_RELAXED);
	verbs_link_report(vp, cause);
}

static void verbs_async_queue_error(void *arg, struct dvp_port *port, uint16_t q, bool tx,
				    enum dvp_port_event_cause cause)
{
	(void)arg;
	verbs_queue_error(port, q, tx, cause);
}

const struct ib_async_ops verbs_async_ops = {
	.get = verbs_async_get,
	.ack = verbs_async_ack,
	.link = verbs_async_link,
	.queue_error = verbs_async_queue_error,
};

/* ------------------------------------------------------------------------
 * Devices
 */

static __dvp_cold void list_devices(struct ibv_context **ctxs, char *buf, size_t len)
{
	size_t off = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; ctxs != NULL && ctxs[i] != NULL; i++)
		off += (size_t)snprintf(buf + off, off < len ? len - off : 0, "%s%s", i ? ", " : "",
					ibv_get_device_name(ctxs[i]->device));
	if (buf[0] == '\0')
		snprintf(buf, len, "none");
}

static struct verbs_dev *dev_open(const char *name, const char *port_name)
{
	struct ibv_context **ctxs, *ctx = NULL;
	struct verbs_dev *dev;
	char names[256];
	int i, n, ret;

	ctxs = rdma_get_devices(&n);
	if (ctxs == NULL || n == 0) {
		VERBS_LOG(
			ERR,
			"%s: librdmacm finds no RDMA device (%s); load the device's driver and ib_uverbs, rdma_ucm (for Soft-RoCE: rdma link add rxe0 type rxe netdev eth0)",
			port_name, ctxs == NULL ? dvp_strerror(errno) : "an empty list");
		if (ctxs != NULL)
			rdma_free_devices(ctxs);
		dvp_errno = ENODEV;
		return NULL;
	}
	for (i = 0; ctxs[i] != NULL; i++)
		if (strcmp(ibv_get_device_name(ctxs[i]->device), name) == 0)
			ctx = ctxs[i];
	if (ctx == NULL) {
		list_devices(ctxs, names, sizeof(names));
		VERBS_LOG(ERR, "%s: dev=%s: no such verbs device; these exist: %s", port_name, name,
			  names);
		rdma_free_devices(ctxs);
		dvp_errno = ENODEV;
		return NULL;
	}
	rdma_free_devices(ctxs);

	dev = calloc(1, sizeof(*dev));
	if (dev == NULL) {
		dvp_errno = ENOMEM;
		return NULL;
	}
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	dev->ctx = ctx;
	dev->refs = 1;
	pthread_mutex_init(&dev->mr_lock, NULL);
	ret = ibv_query_device(ctx, &dev->attr);
	if (ret != 0) {
		VERBS_LOG(ERR, "%s: ibv_query_device(%s): %s", port_name, name, dvp_strerror(ret));
		dvp_errno = ret;
		goto fail;
	}
	dev->pd = ibv_alloc_pd(ctx);
	if (dev->pd == NULL) {
		VERBS_LOG(ERR, "%s: ibv_alloc_pd(%s): %s", port_name, name, dvp_strerror(errno));
		dvp_errno = errno ? errno : ENOMEM;
		goto fail;
	}
	/* Async events are read until EAGAIN on the interrupt thread: never block it. */
	if (dvp_fd_set_nonblock(ctx->async_fd) < 0) {
		VERBS_LOG(ERR, "%s: O_NONBLOCK on %s's async event fd: %s", port_name, name,
			  dvp_strerror(errno));
		dvp_errno = errno;
		goto fail_pd;
	}
	snprintf(names, sizeof(names), "%s async events", name);
	dev->async = ib_async_create(names, ctx->async_fd, &verbs_async_ops, dev);
	if (dev->async == NULL)
		goto fail_pd;
	ret = ib_async_start(dev->async);
	if (ret < 0) {
		ib_async_destroy(dev->async);
		goto fail_pd;
	}
	VERBS_LOG(INFO, "%s: device %s: max_qp_wr %d, max_cqe %d, max_sge %d", port_name, name,
		  dev->attr.max_qp_wr, dev->attr.max_cqe, dev->attr.max_sge);
	return dev;

fail_pd:
	ibv_dealloc_pd(dev->pd);
fail:
	pthread_mutex_destroy(&dev->mr_lock);
	free(dev);
	return NULL;
}

struct verbs_dev *verbs_dev_get(const char *name, const char *port_name)
{
	struct verbs_dev *dev;

	pthread_mutex_lock(&verbs_devs_lock);
	for (dev = verbs_devs; dev != NULL; dev = dev->next) {
		if (strcmp(dev->name, name) == 0) {
			dev->refs++;
			pthread_mutex_unlock(&verbs_devs_lock);
			return dev;
		}
	}
	dev = dev_open(name, port_name);
	if (dev != NULL) {
		dev->next = verbs_devs;
		verbs_devs = dev;
	}
	pthread_mutex_unlock(&verbs_devs_lock);
	return dev;
}

void verbs_dev_put(struct verbs_dev *dev)
{
	struct verbs_dev **l;
	unsigned int i;
	int ret;

	if (dev == NULL)
		return;
	pthread_mutex_lock(&verbs_devs_lock);
	if (--dev->refs > 0) {
		pthread_mutex_unlock(&verbs_devs_lock);
		return;
	}
	for (l = &verbs_devs; *l != dev; l = &(*l)->next)
		;
	*l = dev->next;
	pthread_mutex_unlock(&verbs_devs_lock);

	/* Returns once the interrupt thread is not reading it. */
	ib_async_destroy(dev->async);
	for (i = 0; i < dev->nb_mrs; i++) {
		ret = ibv_dereg_mr(dev->mrs[i].mr);
		if (ret != 0)
			VERBS_LOG(WARNING, "%s: ibv_dereg_mr: %s", dev->name, dvp_strerror(ret));
	}
	free(dev->mrs);
	ret = ibv_dealloc_pd(dev->pd);
	if (ret != 0)
		VERBS_LOG(WARNING, "%s: ibv_dealloc_pd: %s (something still uses it)", dev->name,
			  dvp_strerror(ret));
	/* The context is librdmacm's: it stays open. */
	pthread_mutex_destroy(&dev->mr_lock);
	free(dev);
}

/* ------------------------------------------------------------------------
 * Memory registration
 */

static bool has_cap_ipc_lock(void)
{
	char line[256];
	unsigned long long caps;
	bool yes = false;
	FILE *f = fopen("/proc/self/status", "r");

	if (f == NULL)
		return false;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "CapEff: %llx", &caps) == 1) {
			yes = (caps >> 14) & 1; /* CAP_IPC_LOCK */
			break;
		}
	}
	fclose(f);
	return yes;
}

int verbs_memlock_check(const char *port_name)
{
	struct rlimit rl;

	if (has_cap_ipc_lock())
		return 0;
	if (getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY ||
	    rl.rlim_cur >= VERBS_MEMLOCK_MIN)
		return 0;
	VERBS_LOG(
		ERR,
		"%s: the locked-memory limit is %llu KiB and the process lacks CAP_IPC_LOCK: registering mempools with the device pins their memory and needs more; raise it to at least %llu KiB or unlimited (ulimit -l unlimited; LimitMEMLOCK=infinity in a systemd unit; a memlock line in /etc/security/limits.conf)",
		port_name, (unsigned long long)rl.rlim_cur >> 10,
		(unsigned long long)VERBS_MEMLOCK_MIN >> 10);
	return dvp_err(EPERM);
}

struct reg_ctx {
	struct verbs_dev *dev;
	const char *port_name;
	int err;
};

static bool covered_locked(struct verbs_dev *dev, uintptr_t start, uintptr_t end)
{
	unsigned int i;

	for (i = 0; i < dev->nb_mrs; i++)
		if (start >= dev->mrs[i].start && end <= dev->mrs[i].end)
			return true;
	return false;
}

static void reg_chunk(struct dvp_mempool *mp, void *opaque, const struct dvp_mempool_memhdr *mh,
		      unsigned int idx)
{
	struct reg_ctx *rc = opaque;
	struct verbs_dev *dev = rc->dev;
	uintptr_t start = (uintptr_t)mh->addr;
	struct ibv_mr *mr;
	struct verbs_mr *mrs;

	(void)idx;
	if (rc->err != 0 || covered_locked(dev, start, start + mh->len))
		return;
	if (dev->nb_mrs == dev->mrs_cap) {
		unsigned int cap = dev->mrs_cap ? dev->mrs_cap * 2 : 8;

		mrs = realloc(dev->mrs, cap * sizeof(*mrs));
		if (mrs == NULL) {
			rc->err = ENOMEM;
			return;
		}
		dev->mrs = mrs;
		dev->mrs_cap = cap;
	}
	mr = ibv_reg_mr(dev->pd, mh->addr, mh->len, IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL) {
		rc->err = errno ? errno : ENOMEM;
		if (rc->err == ENOMEM || rc->err == EPERM || rc->err == EAGAIN)
			VERBS_LOG(
				ERR,
				"%s: registering mempool %s (%zu KiB at %p) with %s: %s; the locked-memory limit is the usual cause: raise it (ulimit -l unlimited) or run with CAP_IPC_LOCK",
				rc->port_name, mp->name, mh->len >> 10, mh->addr, dev->name,
				dvp_strerror(rc->err));
		else
			VERBS_LOG(ERR, "%s: ibv_reg_mr of mempool %s (%zu KiB at %p) on %s: %s",
				  rc->port_name, mp->name, mh->len >> 10, mh->addr, dev->name,
				  dvp_strerror(rc->err));
		return;
	}
	dev->mrs[dev->nb_mrs++] =
		(struct verbs_mr){ .start = start, .end = start + mh->len, .mr = mr };
	VERBS_LOG(DEBUG, "%s: mempool %s: %zu KiB at %p registered, lkey 0x%x", rc->port_name,
		  mp->name, mh->len >> 10, mh->addr, mr->lkey);
}

int verbs_mr_register_mempool(struct verbs_dev *dev, struct dvp_mempool *mp, const char *port_name)
{
	struct reg_ctx rc = { .dev = dev, .port_name = port_name };

	pthread_mutex_lock(&dev->mr_lock);
	dvp_mempool_mem_iter(mp, reg_chunk, &rc);
	pthread_mutex_unlock(&dev->mr_lock);
	return rc.err ? dvp_err(rc.err) : 0;
}

uint32_t verbs_mr_lookup(struct verbs_dev *dev, uintptr_t addr, size_t len, uintptr_t *start,
			 uintptr_t *end)
{
	uint32_t lkey = UINT32_MAX;
	unsigned int i;

	pthread_mutex_lock(&dev->mr_lock);
	for (i = 0; i < dev->nb_mrs; i++) {
		if (addr >= dev->mrs[i].start && addr + len <= dev->mrs[i].end) {
			lkey = dev->mrs[i].mr->lkey;
			*start = dev->mrs[i].start;
			*end = dev->mrs[i].end;
			break;
		}
	}
	pthread_mutex_unlock(&dev->mr_lock);
	return lkey;
}

uint32_t verbs_mrc_miss(struct verbs_mrc *c, struct verbs_dev *dev, struct dvp_mbuf *m,
			uintptr_t addr, uint32_t len, const char *port_name)
{
	uintptr_t start, end;
	uint32_t lkey;
	unsigned int slot;

	/*
	 * A pool this queue has not seen: the device's table (one lock), and
	 * the first time a pool is seen at all, its registration. Once per
	 * pool and queue, so not the fast path that the rules speak of.
	 */
	lkey = verbs_mr_lookup(dev, addr, len, &start, &end);
	if (lkey == UINT32_MAX) {
		if (m->pool == NULL || !dvp_mempool_contains(m->pool, (void *)addr) ||
		    verbs_mr_register_mempool(dev, m->pool, port_name) < 0)
			return UINT32_MAX;
		lkey = verbs_mr_lookup(dev, addr, len, &start, &end);
		if (lkey == UINT32_MAX)
			return UINT32_MAX;
	}
	slot = c->n < VERBS_MRC_SIZE ? c->n++ : c->next++ % VERBS_MRC_SIZE;
	c->start[slot] = start;
	c->end[slot] = end;
	c->lkey[slot] = lkey;
	return lkey;
}
