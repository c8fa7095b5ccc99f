/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Interfaces: what a connection does to a port's queues and link, and how
 * an interface comes and goes. The state machine (memif_cc.c) calls this
 * file's environment when it looks an interface up, when a connection is
 * made (queues up on the rings, the link callback) and when it ends
 * (queues down, the reason kept); a client's reconnect timer and a queue's
 * report of a peer breaking the ring protocol are handled here, on the
 * EAL interrupt thread, under memif_lock. memif_socket.c moves the
 * messages.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_interrupts.h>

#include "memif_log.h"
#include "memif_socket.h"
#include "memif_zc.h"

/* ------------------------------------------------------------------------
 * The state machine's environment
 */

static const struct memif_if_cfg *env_lookup(void *ctx, uint32_t id, char *why)
{
	struct memif_chan *ch = ctx;
	struct memif_if *ifc;

	for (ifc = ch->sock->ifs; ifc != NULL; ifc = ifc->next) {
		if (ifc->cfg.id != id || !ifc->started)
			continue;
		if (ifc->chan != NULL) {
			snprintf(why, MEMIF_WHY_SZ, "Already connected");
			return NULL;
		}
		return &ifc->cfg;
	}
	snprintf(why, MEMIF_WHY_SZ, "ID not found");
	return NULL;
}

static int env_check_region(void *ctx, int fd, uint64_t size, char *why)
{
	(void)ctx;
	return memif_region_check_fd(fd, size, why);
}

static int env_check_ring_fd(void *ctx, int fd, char *why)
{
	(void)ctx;
	return memif_check_eventfd(fd, why);
}

static int env_prepare(void *ctx, struct memif_conn_desc *c, char *why)
{
	struct memif_chan *ch = ctx;

	if (ch->ifc->p.zc)
		return memif_zc_shm_create(&ch->ifc->shm, c, why);
	return memif_shm_client_create(&ch->ifc->shm, c, why);
}

static void queues_down(struct memif_if *ifc)
{
	unsigned int i;

	for (i = 0; i < ifc->nb_rxq; i++)
		memif_queue_down(ifc->rxq[i]);
	for (i = 0; i < ifc->nb_txq; i++)
		memif_queue_down(ifc->txq[i]);
}

/* Bring @q up on ring @i of direction @c2s (else s2c), if the connection has that ring. */
static void queue_up_on(struct memif_queue *q, const struct memif_shm *shm, bool c2s,
			unsigned int i)
{
	const struct memif_shm_ring *sr = NULL;

	if (c2s && i < shm->nb_c2s)
		sr = &shm->c2s[i];
	else if (!c2s && i < shm->nb_s2c)
		sr = &shm->s2c[i];
	if (sr != NULL && sr->ring != NULL)
		memif_queue_up(q, shm, sr);
}

static int env_connected(void *ctx, struct memif_conn_desc *c, char *why)
{
	struct memif_chan *ch = ctx;
	struct memif_if *ifc = ch->ifc;
	bool client = ifc->p.role == MEMIF_ROLE_CLIENT;
	unsigned int i;
	int ret;

	if (!client) {
		ret = memif_shm_server_map(&ifc->shm, c, why);
		if (ret < 0)
			return ret;
	}
	/* Client: tx on c2s, rx on s2c. Server: the other way round. */
	for (i = 0; i < ifc->nb_txq; i++)
		queue_up_on(ifc->txq[i], &ifc->shm, client, i);
	for (i = 0; i < ifc->nb_rxq; i++)
		queue_up_on(ifc->rxq[i], &ifc->shm, !client, i);
	/* The handshake is done: its deadline no longer applies. */
	if (ch->hfd >= 0) {
		struct itimerspec off = { 0 };

		(void)timerfd_settime(ch->hfd, 0, &off, NULL);
	}
	/* Relaxed: read without the lock by memif_if_connected(), a state only. */
	__atomic_store_n(&ifc->connected, true, __ATOMIC_RELAXED);
	ifc->st.connects++;
	ifc->backoff_ms = MEMIF_RECONNECT_MIN_MS;
	ifc->last_reason[0] = '\0';
	snprintf(ifc->remote_app, sizeof(ifc->remote_app), "%s", c->remote_name);
	snprintf(ifc->remote_if, sizeof(ifc->remote_if), "%s", c->remote_if_name);
	MEMIF_LOG(NOTICE, "%s: connected to %s (%s): %u c2s and %u s2c rings", ifc->p.if_name,
		  c->remote_if_name, c->remote_name, ifc->shm.nb_c2s, ifc->shm.nb_s2c);
	if (ifc->link_cb != NULL)
		ifc->link_cb(ifc->link_arg, true);
	return 0;
}

static void arm_reconnect(struct memif_if *ifc)
{
	struct itimerspec its = { 0 };

	if (ifc->tfd < 0 || !ifc->started)
		return;
	its.it_value.tv_sec = ifc->backoff_ms / 1000;
	its.it_value.tv_nsec = (long)(ifc->backoff_ms % 1000) * 1000000L;
	(void)timerfd_settime(ifc->tfd, 0, &its, NULL);
	ifc->backoff_ms = DVP_MIN(ifc->backoff_ms * 2, MEMIF_RECONNECT_MAX_MS);
}

static void env_disconnected(void *ctx, bool by_peer, const char *reason)
{
	struct memif_chan *ch = ctx;
	struct memif_if *ifc = ch->ifc;
	bool was_up;

	/* A server refusing INIT for an interface it found: count it there. */
	if (ifc == NULL && ch->cc.cfg != NULL)
		ifc = dvp_container_of(ch->cc.cfg, struct memif_if, cfg);
	if (ifc == NULL)
		return;
	was_up = ifc->connected;
	queues_down(ifc);
	memif_shm_release(&ifc->shm);
	__atomic_store_n(&ifc->connected, false, __ATOMIC_RELAXED);
	ifc->remote_app[0] = ifc->remote_if[0] = '\0';
	snprintf(ifc->last_reason, sizeof(ifc->last_reason), "%s", reason);
	if (was_up)
		ifc->st.disconnects++;
	else
		ifc->st.rejects++;
	if (was_up && ifc->disc_error)
		MEMIF_LOG(ERR, "%s: disconnecting: %s", ifc->p.if_name, reason);
	else if (was_up)
		MEMIF_LOG(NOTICE, "%s: disconnected: %s", ifc->p.if_name, reason);
	else
		MEMIF_LOG(ERR, "%s: connection refused: %s%s", ifc->p.if_name, reason,
			  by_peer ? " (said the peer)" : "");
	ifc->disc_error = false;
	if (was_up && ifc->link_cb != NULL)
		ifc->link_cb(ifc->link_arg, false);
}

const struct memif_cc_ops memif_if_cc_ops = {
	.lookup = env_lookup,
	.check_region = env_check_region,
	.check_ring_fd = env_check_ring_fd,
	.prepare = env_prepare,
	.connected = env_connected,
	.disconnected = env_disconnected,
};

void memif_if_chan_bind(struct memif_chan *ch)
{
	ch->ifc = dvp_container_of(ch->cc.cfg, struct memif_if, cfg);
	ch->ifc->chan = ch;
	snprintf(ch->log_name, sizeof(ch->log_name), "%s", ch->ifc->p.if_name);
}

void memif_if_chan_closed(struct memif_if *ifc, const struct memif_chan *ch)
{
	if (ifc->chan != ch)
		return;
	ifc->chan = NULL;
	if (ifc->p.role == MEMIF_ROLE_CLIENT)
		arm_reconnect(ifc);
}

/* ------------------------------------------------------------------------
 * The client's connection attempts, the peer's protocol violations
 */

static void client_try(struct memif_if *ifc)
{
	int fd;

	ifc->st.connect_attempts++;
	fd = memif_sock_connect(ifc->p.socket, ifc->p.abstract);
	if (fd < 0) {
		if (!ifc->warned)
			MEMIF_LOG(NOTICE, "%s: no server on %s%s (%s%s): retrying", ifc->p.if_name,
				  ifc->p.abstract ? "@" : "", ifc->p.socket, strerror(-fd),
				  fd == -EAGAIN ? ": its backlog is full" : "");
		ifc->warned = true;
		arm_reconnect(ifc);
		return;
	}
	ifc->warned = false;
	ifc->chan = memif_chan_new(fd, NULL, ifc);
	if (ifc->chan == NULL)
		arm_reconnect(ifc);
}

static void timer_cb(int fd, void *arg)
{
	struct memif_if *ifc = arg;
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == sizeof(v))
		;
	pthread_mutex_lock(&memif_lock);
	if (ifc->started && ifc->chan == NULL)
		client_try(ifc);
	pthread_mutex_unlock(&memif_lock);
}

/*
 * A queue found its peer breaking the ring protocol: disconnect with the
 * reason (one line, from env_disconnected), so that the peer is told why
 * and a client starts afresh on new rings.
 */
static void violation_cb(int fd, void *arg)
{
	struct memif_if *ifc = arg;
	char reason[MEMIF_DISC_STRING_SZ] = "";
	struct memif_queue *q = NULL;
	struct memif_cc_out out;
	struct memif_chan *ch;
	unsigned int i;
	eventfd_t v;

	(void)eventfd_read(fd, &v);
	pthread_mutex_lock(&memif_lock);
	ch = ifc->chan;
	for (i = 0; q == NULL && i < ifc->nb_rxq; i++)
		if (__atomic_load_n(&ifc->rxq[i]->violated, __ATOMIC_ACQUIRE))
			q = ifc->rxq[i];
	for (i = 0; q == NULL && i < ifc->nb_txq; i++)
		if (__atomic_load_n(&ifc->txq[i]->violated, __ATOMIC_ACQUIRE))
			q = ifc->txq[i];
	/* Down already (the peer left, the port stopped): nothing to do. */
	if (q != NULL && ch != NULL && ifc->connected) {
		memif_violation_reason(q, reason, sizeof(reason));
		ifc->disc_error = true;
		memif_cc_close(&ch->cc, reason, &out);
		memif_chan_send(ch, &out);
		memif_chan_close(ch);
	}
	pthread_mutex_unlock(&memif_lock);
}

/* ------------------------------------------------------------------------
 * Interfaces
 */

/* Set dvp_errno and return NULL: the failure convention of constructors. */
static __dvp_cold void *null_err(int err)
{
	dvp_errno = err;
	return NULL;
}

struct memif_if *memif_if_create(const struct memif_if_params *p, memif_link_cb cb, void *cb_arg)
{
	bool client = p->role == MEMIF_ROLE_CLIENT;
	struct memif_if *ifc;
	int ret;

	ifc = calloc(1, sizeof(*ifc));
	if (ifc == NULL) {
		dvp_errno = ENOMEM;
		return NULL;
	}
	ifc->p = *p;
	ifc->link_cb = cb;
	ifc->link_arg = cb_arg;
	ifc->tfd = -1;
	ifc->vfd = -1;
	ifc->backoff_ms = MEMIF_RECONNECT_MIN_MS;
	memif_shm_reset(&ifc->shm);
	ifc->cfg.role = p->role;
	ifc->cfg.id = p->id;
	memcpy(ifc->cfg.secret, p->secret, sizeof(ifc->cfg.secret));
	snprintf(ifc->cfg.app_name, sizeof(ifc->cfg.app_name), "%s", p->app_name);
	snprintf(ifc->cfg.if_name, sizeof(ifc->cfg.if_name), "%s", p->if_name);
	ifc->cfg.log2_ring_size = p->log2_ring_size;
	ifc->cfg.bsize = p->bsize;

	ret = memif_sock_join(ifc);
	if (ret < 0) {
		free(ifc);
		return null_err(-ret);
	}

	ifc->vfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ifc->vfd < 0 || dvp_intr_callback_register(ifc->vfd, violation_cb, ifc) < 0) {
		int err = ifc->vfd < 0 ? errno : ENOMEM;

		MEMIF_LOG(ERR, "%s: protocol-violation eventfd: %s", p->if_name, strerror(err));
		if (ifc->vfd >= 0)
			close(ifc->vfd);
		ifc->vfd = -1;
		memif_if_destroy(ifc);
		return null_err(err);
	}
	if (client) {
		ifc->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
		if (ifc->tfd < 0 || dvp_intr_callback_register(ifc->tfd, timer_cb, ifc) < 0) {
			int err = ifc->tfd < 0 ? errno : ENOMEM;

			MEMIF_LOG(ERR, "%s: reconnect timer: %s", p->if_name, strerror(err));
			memif_if_destroy(ifc);
			return null_err(err);
		}
	}
	return ifc;
}

int memif_if_start(struct memif_if *ifc, struct memif_queue *const *rxq, uint16_t nb_rxq,
		   struct memif_queue *const *txq, uint16_t nb_txq)
{
	bool client = ifc->p.role == MEMIF_ROLE_CLIENT;
	unsigned int i;

	if (nb_rxq > MEMIF_MAX_QUEUES || nb_txq > MEMIF_MAX_QUEUES || nb_rxq + nb_txq == 0) {
		MEMIF_LOG(ERR, "%s: %u rx and %u tx queues: memif has 0 to %d each, not both 0",
			  ifc->p.if_name, nb_rxq, nb_txq, MEMIF_MAX_QUEUES);
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&memif_lock);
	memcpy(ifc->rxq, rxq, nb_rxq * sizeof(*rxq));
	memcpy(ifc->txq, txq, nb_txq * sizeof(*txq));
	ifc->nb_rxq = nb_rxq;
	ifc->nb_txq = nb_txq;
	for (i = 0; i < nb_rxq; i++)
		rxq[i]->ctl_fd = ifc->vfd;
	for (i = 0; i < nb_txq; i++)
		txq[i]->ctl_fd = ifc->vfd;
	ifc->cfg.nb_c2s = client ? nb_txq : nb_rxq;
	ifc->cfg.nb_s2c = client ? nb_rxq : nb_txq;
	ifc->started = true;
	ifc->backoff_ms = MEMIF_RECONNECT_MIN_MS;
	if (ifc->p.role == MEMIF_ROLE_CLIENT && ifc->chan == NULL)
		client_try(ifc);
	pthread_mutex_unlock(&memif_lock);
	return 0;
}

void memif_if_stop(struct memif_if *ifc)
{
	struct memif_cc_out out;
	struct memif_chan *ch;
	struct itimerspec off = { 0 };

	pthread_mutex_lock(&memif_lock);
	ifc->started = false;
	if (ifc->tfd >= 0)
		(void)timerfd_settime(ifc->tfd, 0, &off, NULL);
	ch = ifc->chan;
	ifc->chan = NULL;
	if (ch != NULL) {
		ch->dead = true;
		memif_cc_close(&ch->cc, "Interface stopped", &out);
		memif_chan_send(ch, &out);
	}
	queues_down(ifc);
	memif_shm_release(&ifc->shm);
	pthread_mutex_unlock(&memif_lock);
	/* Without the lock: a running channel callback may be waiting for it. */
	if (ch != NULL)
		memif_chan_release(ch);
}

void memif_if_destroy(struct memif_if *ifc)
{
	if (ifc == NULL)
		return;
	memif_if_stop(ifc);
	if (ifc->tfd >= 0) {
		dvp_intr_callback_unregister(ifc->tfd, timer_cb, ifc);
		close(ifc->tfd);
	}
	if (ifc->vfd >= 0) {
		dvp_intr_callback_unregister(ifc->vfd, violation_cb, ifc);
		close(ifc->vfd);
	}
	memif_sock_leave(ifc);
	free(ifc);
}

bool memif_if_connected(const struct memif_if *ifc)
{
	return __atomic_load_n(&ifc->connected, __ATOMIC_RELAXED);
}

void memif_if_stats_get(const struct memif_if *ifc, struct memif_if_stats *st)
{
	pthread_mutex_lock(&memif_lock);
	*st = ifc->st;
	pthread_mutex_unlock(&memif_lock);
}

void memif_if_last_reason(const struct memif_if *ifc, char *buf, size_t len)
{
	pthread_mutex_lock(&memif_lock);
	snprintf(buf, len, "%s", ifc->last_reason);
	pthread_mutex_unlock(&memif_lock);
}

void memif_if_remote(const struct memif_if *ifc, char *app, char *if_name)
{
	pthread_mutex_lock(&memif_lock);
	memcpy(app, ifc->remote_app, MEMIF_NAME_SZ);
	memcpy(if_name, ifc->remote_if, MEMIF_NAME_SZ);
	pthread_mutex_unlock(&memif_lock);
}
