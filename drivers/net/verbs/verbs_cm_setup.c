/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A port's connection machinery set up and torn down: the cm event
 * channel, the retry timer and the wake-up eventfd on the EAL interrupt
 * thread, the listener, and what start and stop do to the connections
 * (verbs_cm.c, verbs_cm_connect.c and verbs_cm_accept.c make them).
 */

#include <errno.h>
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/random.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <dvp_fd.h>
#include <dvp_interrupts.h>

#include "verbs_private.h"

/* The netdev behind the port's GIDs (RoCE), as the ib bus found it; none on InfiniBand. */
static void find_netdev(struct verbs_port *vp)
{
	const struct dvp_ib_device *ib = dvp_ib_device_find(vp->cfg.dev);
	unsigned int i;

	for (i = 0; ib != NULL && i < ib->nports; i++) {
		if (ib->ports[i].port_num == vp->ib_port) {
			memcpy(vp->netdev, ib->ports[i].netdev, sizeof(vp->netdev) - 1);
			return;
		}
	}
	VERBS_LOG(DEBUG, "%s: %s port %u is not on the ib bus: no netdev to watch", vp->name,
		  vp->cfg.dev, vp->ib_port);
}

/* Whether @ss is the wildcard address, or one of this host's interfaces has it. */
static bool addr_any_or_local(const struct sockaddr_storage *ss)
{
	const struct sockaddr_in *a4 = (const struct sockaddr_in *)ss;
	const struct sockaddr_in6 *a6 = (const struct sockaddr_in6 *)ss;
	struct sockaddr_storage cur;
	struct ifaddrs *ifs, *i;
	bool found = false;

	if (ss->ss_family == AF_INET ? a4->sin_addr.s_addr == htonl(INADDR_ANY) :
				       IN6_IS_ADDR_UNSPECIFIED(&a6->sin6_addr))
		return true;
	if (getifaddrs(&ifs) != 0)
		return false;
	for (i = ifs; i != NULL && !found; i = i->ifa_next) {
		if (i->ifa_addr == NULL || i->ifa_addr->sa_family != ss->ss_family)
			continue;
		/* Copied out: ifa_addr is a plain struct sockaddr *. */
		memcpy(&cur, i->ifa_addr, ss->ss_family == AF_INET ? sizeof(*a4) : sizeof(*a6));
		if (ss->ss_family == AF_INET)
			found = ((const struct sockaddr_in *)&cur)->sin_addr.s_addr ==
				a4->sin_addr.s_addr;
		else
			found = memcmp(&((const struct sockaddr_in6 *)&cur)->sin6_addr,
				       &a6->sin6_addr, sizeof(a6->sin6_addr)) == 0;
	}
	freeifaddrs(ifs);
	return found;
}

/*
 * Why rdma_cm refused listen= with @err, and what would work. rdma_cm
 * gives EADDRNOTAVAIL both for an address no interface has and for a port
 * another rdma_cm id holds when either is the wildcard address; ENODEV for
 * an address whose interface has no RDMA device.
 */
static __dvp_cold const char *listen_err_str(const struct verbs_port *vp, int err, char *buf,
					     size_t len)
{
	const struct sockaddr_storage *ss = &vp->cfg.addr;
	unsigned int port =
		ntohs(ss->ss_family == AF_INET ? ((const struct sockaddr_in *)ss)->sin_port :
						 ((const struct sockaddr_in6 *)ss)->sin6_port);
	bool local = (err == EADDRNOTAVAIL || err == ENODEV) && addr_any_or_local(ss);

	if (err == EADDRINUSE || (err == EADDRNOTAVAIL && local))
		snprintf(
			buf, len,
			"port %u is taken by another rdma_cm listener or connection on this host (one on the wildcard address holds the port on every address, and one on any address keeps a wildcard listener off it); give another port, or stop the other",
			port);
	else if (err == ENODEV && local)
		snprintf(
			buf, len,
			"the interface with that address has no RDMA device; give the address of one that has (rdma link shows them), e.g. of %s's netdev",
			vp->cfg.dev);
	else if (err == EADDRNOTAVAIL || err == ENODEV)
		snprintf(
			buf, len,
			"no interface of this host has that address; give one of its interfaces' addresses (of %s's netdev), or 0.0.0.0 for all",
			vp->cfg.dev);
	else
		snprintf(buf, len, "%s", dvp_strerror(err));
	return buf;
}

static int listen_setup(struct verbs_port *vp)
{
	char why[320];
	enum rdma_port_space ps = vp->cfg.mode == VERBS_MODE_UD ? RDMA_PS_UDP : RDMA_PS_TCP;
	int err;

	if (rdma_create_id(vp->cm_ch, &vp->listen_id, NULL, ps) != 0) {
		VERBS_LOG(ERR, "%s: rdma_create_id: %s", vp->name, dvp_strerror(errno));
		return dvp_err(errno);
	}
	if (rdma_bind_addr(vp->listen_id, (struct sockaddr *)&vp->cfg.addr) != 0) {
		err = errno;
		VERBS_LOG(ERR, "%s: listen=%s: %s", vp->name, vp->cfg.addr_str,
			  listen_err_str(vp, err, why, sizeof(why)));
		goto fail;
	}
	if (vp->listen_id->verbs != NULL && vp->listen_id->verbs != vp->dev->ctx) {
		VERBS_LOG(ERR, "%s: listen=%s is an address of device %s, not dev=%s", vp->name,
			  vp->cfg.addr_str, ibv_get_device_name(vp->listen_id->verbs->device),
			  vp->cfg.dev);
		err = EXDEV;
		goto fail;
	}
	if (rdma_listen(vp->listen_id, 64) != 0) {
		err = errno;
		VERBS_LOG(ERR, "%s: listen=%s: rdma_listen: %s", vp->name, vp->cfg.addr_str,
			  listen_err_str(vp, err, why, sizeof(why)));
		goto fail;
	}
	if (vp->listen_id->port_num != 0)
		vp->ib_port = vp->listen_id->port_num;
	return 0;

fail:
	verbs_cm_destroy_id(&vp->listen_id);
	return dvp_err(err);
}

int verbs_cm_init(struct verbs_port *vp)
{
	struct ibv_port_attr pa;
	unsigned int i;
	int ret;

	for (i = 0; i < VERBS_MAX_QUEUES; i++) {
		vp->rx_conn[i] = (struct verbs_conn){
			.vp = vp, .q = (uint16_t)i, .tx = false, .backoff_ms = VERBS_RETRY_MIN_MS
		};
		vp->tx_conn[i] = (struct verbs_conn){
			.vp = vp, .q = (uint16_t)i, .tx = true, .backoff_ms = VERBS_RETRY_MIN_MS
		};
	}
	vp->ib_port = 1;
	vp->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	vp->timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	vp->cm_ch = rdma_create_event_channel();
	if (vp->wake_fd < 0 || vp->timer_fd < 0 || vp->cm_ch == NULL) {
		VERBS_LOG(ERR, "%s: %s: %s", vp->name,
			  vp->cm_ch == NULL ? "rdma_create_event_channel (is rdma_ucm loaded?)" :
					      "eventfd/timerfd",
			  dvp_strerror(errno));
		ret = dvp_err(errno ? errno : ENODEV);
		goto fail;
	}
	ret = dvp_fd_set_nonblock(vp->cm_ch->fd);
	if (ret < 0) {
		ret = dvp_err(-ret);
		goto fail;
	}
	if (vp->cfg.role == VERBS_ROLE_LISTEN) {
		ret = listen_setup(vp);
		if (ret < 0)
			goto fail;
	}
	if (ibv_query_port(vp->dev->ctx, vp->ib_port, &pa) == 0)
		vp->path_mtu = 128u << pa.active_mtu;
	else
		vp->path_mtu = 1024;
	find_netdev(vp);
	ret = dvp_intr_callback_register(vp->cm_ch->fd, verbs_cm_event_cb, vp);
	if (ret == 0)
		ret = dvp_intr_callback_register(vp->timer_fd, verbs_cm_timer_cb, vp);
	if (ret == 0)
		ret = dvp_intr_callback_register(vp->wake_fd, verbs_cm_wake_cb, vp);
	if (ret < 0) {
		VERBS_LOG(ERR, "%s: the EAL interrupt thread cannot watch the connection fds: %s",
			  vp->name, dvp_strerror(-ret));
		goto fail;
	}
	vp->events_on = true;
	return 0;

fail:
	verbs_cm_fini(vp);
	return ret;
}

void verbs_cm_fini(struct verbs_port *vp)
{
	unsigned int i;

	if (vp->cm_ch != NULL) {
		/* Each returns once its callback is not running. */
		dvp_intr_callback_unregister(vp->cm_ch->fd, verbs_cm_event_cb, vp);
		dvp_intr_callback_unregister(vp->timer_fd, verbs_cm_timer_cb, vp);
		dvp_intr_callback_unregister(vp->wake_fd, verbs_cm_wake_cb, vp);
	}
	vp->events_on = false;
	pthread_mutex_lock(&vp->lock);
	for (i = 0; i < VERBS_MAX_QUEUES; i++) {
		verbs_cm_destroy_id(&vp->rx_conn[i].id);
		verbs_cm_destroy_id(&vp->rx_conn[i].pending);
		verbs_cm_destroy_id(&vp->tx_conn[i].id);
		verbs_cm_destroy_id(&vp->tx_conn[i].pending);
	}
	verbs_cm_destroy_id(&vp->listen_id);
	while (vp->nzombies > 0)
		verbs_cm_destroy_id(&vp->zombies[--vp->nzombies]);
	pthread_mutex_unlock(&vp->lock);
	if (vp->cm_ch != NULL)
		rdma_destroy_event_channel(vp->cm_ch);
	vp->cm_ch = NULL;
	if (vp->timer_fd >= 0)
		close(vp->timer_fd);
	if (vp->wake_fd >= 0)
		close(vp->wake_fd);
	vp->timer_fd = vp->wake_fd = -1;
}

/*
 * Every queue DOWN, ready for its next QP: what it held freed, its cause
 * cleared, a CQ that overran replaced. Only while no lcore bursts (before
 * start, after stop), with vp->lock held.
 */
static void queues_down_locked(struct verbs_port *vp)
{
	uint16_t q;

	for (q = 0; q < vp->port->nb_rx_queues; q++)
		if (vp->port->rxqs[q] != NULL)
			verbs_rxq_teardown(vp->port->rxqs[q], false);
	for (q = 0; q < vp->port->nb_tx_queues; q++)
		if (vp->port->txqs[q] != NULL)
			verbs_txq_teardown(vp->port->txqs[q], false);
}

void verbs_cm_session_new(struct verbs_port *vp)
{
	if (getrandom(&vp->session, sizeof(vp->session), GRND_NONBLOCK) != sizeof(vp->session))
		vp->session = dvp_clock_monotonic_ns() ^ ((uint64_t)getpid() << 32) ^ vp->session;
	vp->session |= 1; /* never 0, which means "no peer yet" */
}

int verbs_cm_start(struct verbs_port *vp)
{
	unsigned int i;

	pthread_mutex_lock(&vp->lock);
	verbs_cm_session_new(vp);
	vp->peer_session = 0;
	vp->connected_once = false;
	for (i = 0; i < VERBS_MAX_QUEUES; i++) {
		vp->rx_conn[i].st = vp->tx_conn[i].st = VERBS_CS_IDLE;
		vp->rx_conn[i].attempts = vp->tx_conn[i].attempts = 0;
		vp->rx_conn[i].warned = vp->tx_conn[i].warned = false;
		vp->rx_conn[i].backoff_ms = vp->tx_conn[i].backoff_ms = VERBS_RETRY_MIN_MS;
	}
	/* Nobody polls yet: a CQ that overran since the stop can be replaced from here. */
	queues_down_locked(vp);
	/* Atomic: link_update reads it without the lock. */
	__atomic_store_n(&vp->started, true, __ATOMIC_RELAXED);
	verbs_cm_progress_locked(vp);
	pthread_mutex_unlock(&vp->lock);
	return 0;
}

void verbs_cm_stop(struct verbs_port *vp)
{
	unsigned int i;

	pthread_mutex_lock(&vp->lock);
	__atomic_store_n(&vp->started, false, __ATOMIC_RELAXED);
	for (i = 0; i < VERBS_MAX_QUEUES; i++) {
		struct verbs_conn *cs[2] = { &vp->rx_conn[i], &vp->tx_conn[i] };
		unsigned int k;

		for (k = 0; k < 2; k++) {
			if (cs[k]->pending != NULL)
				verbs_cm_reject_id(vp, cs[k]->pending, VERBS_REJ_STOPPED);
			cs[k]->pending = NULL;
			verbs_cm_retire_id(vp, &cs[k]->id);
			cs[k]->st = VERBS_CS_IDLE;
		}
	}
	/* No lcore bursts any more (lib/port emptied the fast path): everything is ours. */
	queues_down_locked(vp);
	verbs_cm_timer_arm(vp, UINT64_MAX);
	pthread_mutex_unlock(&vp->lock);
}
