/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Pool events (dvp_mempool_event_callback_register()): who is told when a
 * pool is ready or about to go. A driver registers a pool's memory with
 * its device at READY and drops that registration at DESTROY, before the
 * memory is reused. Control path only.
 */

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <dvp_errno.h>

#include "mempool_private.h"

struct event_cb {
	dvp_mempool_event_cb_t *cb;
	void *arg;
};

static pthread_mutex_t cbs_lock = PTHREAD_MUTEX_INITIALIZER;
static struct event_cb cbs[DVP_MEMPOOL_EVENT_CBS_MAX];

int dvp_mempool_event_callback_register(dvp_mempool_event_cb_t *cb, void *arg)
{
	int free_slot = -1, ret = 0;

	if (cb == NULL) {
		MEMPOOL_LOG(ERR, "event callback register: the callback is NULL");
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&cbs_lock);
	for (int i = 0; i < DVP_MEMPOOL_EVENT_CBS_MAX; i++) {
		if (cbs[i].cb == cb && cbs[i].arg == arg) {
			ret = -EEXIST;
			break;
		}
		if (cbs[i].cb == NULL && free_slot < 0)
			free_slot = i;
	}
	if (ret == 0 && free_slot < 0)
		ret = -ENOSPC;
	if (ret == 0)
		cbs[free_slot] = (struct event_cb){ cb, arg };
	pthread_mutex_unlock(&cbs_lock);
	if (ret == -ENOSPC)
		MEMPOOL_LOG(ERR, "event callback register: %d callbacks are registered already",
			    DVP_MEMPOOL_EVENT_CBS_MAX);
	return ret < 0 ? dvp_err(-ret) : 0;
}

int dvp_mempool_event_callback_unregister(dvp_mempool_event_cb_t *cb, void *arg)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&cbs_lock);
	for (int i = 0; i < DVP_MEMPOOL_EVENT_CBS_MAX; i++) {
		if (cb != NULL && cbs[i].cb == cb && cbs[i].arg == arg) {
			cbs[i] = (struct event_cb){ NULL, NULL };
			ret = 0;
			break;
		}
	}
	pthread_mutex_unlock(&cbs_lock);
	return ret < 0 ? dvp_err(-ret) : 0;
}

void mempool_event_notify(enum dvp_mempool_event event, struct dvp_mempool *mp)
{
	struct event_cb now[DVP_MEMPOOL_EVENT_CBS_MAX];

	/* A copy, called without the lock: a callback may (un)register callbacks. */
	pthread_mutex_lock(&cbs_lock);
	memcpy(now, cbs, sizeof(now));
	pthread_mutex_unlock(&cbs_lock);
	for (int i = 0; i < DVP_MEMPOOL_EVENT_CBS_MAX; i++)
		if (now[i].cb != NULL)
			now[i].cb(event, mp, now[i].arg);
}
