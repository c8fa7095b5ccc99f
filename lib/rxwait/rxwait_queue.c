/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * One rx queue's completion events: arm once per event, read until EAGAIN,
 * ack in batches, flush before the CQ goes. The thread that polls the queue
 * owns this state (arm, consume and the counters); fini runs on the control
 * thread once nobody polls the queue any more.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_json.h>

#include "rxwait_private.h"

DVP_LOG_REGISTER(dvp_logtype_rxwait, "rxwait", NOTICE);

const char *const dvp_rxwait_queue_stats_names[] = {
	"polls",     "empty_polls", "arms",    "events",   "acks",
	"ack_calls", "sleeps",	    "wakeups", "spurious", "asleep_ns",
};
_Static_assert(DVP_DIM(dvp_rxwait_queue_stats_names) == DVP_RXWAIT_QUEUE_STATS_N,
	       "a name for every counter of struct dvp_rxwait_queue_stats");

/* An event fd must be open and non-blocking: a read could hang the lcore. */
static int check_fd(const struct dvp_rxwait_queue_conf *conf, int fd, const char *what)
{
	int fl = fd < 0 ? -1 : fcntl(fd, F_GETFL);

	if (fl < 0) {
		RXWAIT_LOG(ERR, "port %u rx queue %u: %s %d is not an open file descriptor",
			   conf->port_id, conf->queue_id, what, fd);
		return dvp_err(EINVAL);
	}
	if (!(fl & O_NONBLOCK)) {
		RXWAIT_LOG(
			ERR,
			"port %u rx queue %u: %s %d is blocking; it must be O_NONBLOCK so that reading events can never hang",
			conf->port_id, conf->queue_id, what, fd);
		return dvp_err(EINVAL);
	}
	return 0;
}

/*
 * dvp_rx_intr_fd() gives an application one fd per queue: with extra fds,
 * an epoll fd over them all. Wait sets do not use it (they watch each fd,
 * one epoll level); only an application's own epoll pays the nested hop.
 */
static __dvp_cold int app_epoll_fd(const struct dvp_rxwait_queue_conf *conf, const int *fds,
				   unsigned int n)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int i;
	int epfd, err;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0) {
		err = errno;
		goto fail;
	}
	for (i = 0; i < n; i++) {
		ev.data.fd = fds[i];
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, fds[i], &ev) != 0) {
			err = errno;
			close(epfd);
			goto fail;
		}
	}
	return epfd;
fail:
	RXWAIT_LOG(ERR, "port %u rx queue %u: an epoll fd over its %u event fds: %s%s",
		   conf->port_id, conf->queue_id, n, dvp_strerror(err),
		   err == EEXIST ? " (an extra fd repeats one of the queue's)" : "");
	return dvp_err(err);
}

int dvp_rxwait_queue_init(struct dvp_rxwait_queue *iq, const struct dvp_rxwait_queue_ops *ops,
			  void *ctx, const struct dvp_rxwait_queue_conf *conf)
{
	int fds[2 + DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX];
	unsigned int i, n;
	int ret, appfd, kfd, err;

	if (iq == NULL || ops == NULL || conf == NULL) {
		RXWAIT_LOG(ERR, "queue init: %s is NULL",
			   iq == NULL  ? "the queue" :
			   ops == NULL ? "ops" :
					 "conf");
		return dvp_err(EINVAL);
	}
	if (ops->arm == NULL || ops->consume == NULL || ops->has_work == NULL) {
		RXWAIT_LOG(
			ERR,
			"port %u rx queue %u: the driver gives no %s hook (arm, consume and has_work are required)",
			conf->port_id, conf->queue_id,
			ops->arm == NULL     ? "arm" :
			ops->consume == NULL ? "consume" :
					       "has_work");
		return dvp_err(EINVAL);
	}
	if (conf->nb_extra_fds > DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX) {
		RXWAIT_LOG(ERR, "port %u rx queue %u: %u extra event fds; at most %d are allowed",
			   conf->port_id, conf->queue_id, conf->nb_extra_fds,
			   DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX);
		return dvp_err(EINVAL);
	}
	ret = check_fd(conf, conf->fd, "event fd");
	if (ret < 0)
		return ret;
	fds[0] = conf->fd;
	n = 1;
	for (i = 0; i < conf->nb_extra_fds; i++) {
		ret = check_fd(conf, conf->extra_fds[i], "extra event fd");
		if (ret < 0)
			return ret;
		fds[n++] = conf->extra_fds[i];
	}
	if (conf->solicited && !(ops->flags & DVP_RXWAIT_QUEUE_F_SOLICITED)) {
		RXWAIT_LOG(ERR,
			   "port %u rx queue %u: the driver cannot arm for solicited events only",
			   conf->port_id, conf->queue_id);
		return dvp_err(ENOTSUP);
	}
	kfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (kfd < 0) {
		err = errno;
		RXWAIT_LOG(ERR, "port %u rx queue %u: its kick eventfd: %s", conf->port_id,
			   conf->queue_id, dvp_strerror(err));
		return dvp_err(err);
	}
	fds[n++] = kfd;
	appfd = app_epoll_fd(conf, fds, n);
	if (appfd < 0) {
		close(kfd);
		return appfd;
	}
	memset(iq, 0, sizeof(*iq));
	iq->ops = ops;
	iq->ctx = ctx;
	iq->fd = appfd;
	iq->own_fd = true;
	iq->kick_fd = kfd;
	memcpy(iq->fds, fds, n * sizeof(fds[0]));
	iq->nb_fds = (uint8_t)n;
	iq->ack_batch = conf->ack_batch ? conf->ack_batch : DVP_RXWAIT_ACK_BATCH_DEFAULT;
	iq->solicited = conf->solicited;
	iq->port_id = conf->port_id;
	iq->queue_id = conf->queue_id;
	iq->since_ns = dvp_clock_monotonic_ns();
	iq->initialized = true;
	return 0;
}

static unsigned int queue_ack(struct dvp_rxwait_queue *iq)
{
	unsigned int n = iq->pending_acks;

	if (n == 0)
		return 0;
	if (iq->ops->ack != NULL)
		iq->ops->ack(iq->ctx, n);
	iq->pending_acks = 0;
	dvp_counter_add(&iq->stats.acks, n);
	dvp_counter_add(&iq->stats.ack_calls, 1);
	return n;
}

unsigned int dvp_rxwait_queue_ack_flush(struct dvp_rxwait_queue *iq)
{
	if (!dvp_rxwait_queue_active(iq))
		return 0;
	return queue_ack(iq);
}

void dvp_rxwait_queue_set_ack_batch(struct dvp_rxwait_queue *iq, uint32_t ack_batch)
{
	if (iq != NULL)
		iq->ack_batch = ack_batch ? ack_batch : DVP_RXWAIT_ACK_BATCH_DEFAULT;
}

int dvp_rxwait_queue_kick(struct dvp_rxwait_queue *iq)
{
	ssize_t r;
	uint64_t one = 1;

	if (!dvp_rxwait_queue_active(iq)) {
		RXWAIT_LOG(ERR, "queue kick: the queue has no interrupt state (not set up)");
		return dvp_err(EINVAL);
	}
	/*
	 * Release: a lcore that sees the count has seen what the driver
	 * changed before the kick (the new ring). The count comes before the
	 * write, so a readable kick fd always has a count ahead of what was
	 * taken, and queue_take_kicks() reads it.
	 */
	__atomic_fetch_add(&iq->kicks_sent, 1, __ATOMIC_RELEASE);
	do {
		r = write(iq->kick_fd, &one, sizeof(one));
	} while (r < 0 && errno == EINTR);
	/* It fails only when the count would overflow: a kick is pending then. */
	return 0;
}

/* Whether a kick is waiting to be taken (the polling lcore). */
static inline bool queue_kick_pending(const struct dvp_rxwait_queue *iq)
{
	return __atomic_load_n(&iq->kicks_sent, __ATOMIC_ACQUIRE) != iq->kicks_taken;
}

/*
 * Take the kicks sent so far: read the kick fd (one read takes its whole
 * count). A kick whose write has not landed yet still counts as taken for
 * the arm; its write makes the fd readable later, and that read (a
 * wake-up with nothing behind it at worst) brings the counts level.
 */
static bool queue_take_kicks(struct dvp_rxwait_queue *iq)
{
	uint64_t v;

	if (!queue_kick_pending(iq))
		return false;
	if (read(iq->kick_fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		iq->kicks_taken += v;
	return true;
}

int dvp_rxwait_queue_arm(struct dvp_rxwait_queue *iq)
{
	int ret;

	if (!dvp_rxwait_queue_active(iq))
		return dvp_err(EINVAL);
	/*
	 * The event that woke the last wait, left in the fd, or a kick (the
	 * arm it finds may be on a ring that is gone): read them now.
	 */
	if (iq->unread || queue_kick_pending(iq)) {
		ret = dvp_rxwait_queue_consume(iq);
		if (dvp_unlikely(ret < 0))
			return ret;
	}
	/*
	 * One-shot: an armed queue whose event has not been read gets no
	 * second arm; that event is either on its way or in the fd already,
	 * and reading it is what clears the flag.
	 */
	if (iq->armed)
		return 0;
	ret = iq->ops->arm(iq->ctx, iq->solicited);
	if (dvp_unlikely(ret < 0))
		return dvp_err(-ret);
	iq->armed = true;
	dvp_counter_add(&iq->stats.arms, 1);
	return 0;
}

int dvp_rxwait_queue_consume(struct dvp_rxwait_queue *iq)
{
	bool kicked;
	int n;

	if (!dvp_rxwait_queue_active(iq))
		return dvp_err(EINVAL);
	kicked = queue_take_kicks(iq);
	n = iq->ops->consume(iq->ctx);
	if (dvp_unlikely(n < 0))
		return dvp_err(-n);
	iq->unread = false;
	/* Kicked: whatever arm lib/rxwait remembers is forgotten. */
	if (kicked)
		iq->armed = false;
	if (n == 0)
		return 0;
	/* The arm fired (or an extra event came): the next wait arms again. */
	iq->armed = false;
	dvp_counter_add(&iq->stats.events, (uint64_t)n);
	iq->pending_acks += (unsigned int)n;
	if (iq->pending_acks >= iq->ack_batch)
		queue_ack(iq);
	return n;
}

unsigned int dvp_rxwait_queue_fini(struct dvp_rxwait_queue *iq)
{
	unsigned int acked;
	int n;

	if (!dvp_rxwait_queue_active(iq))
		return 0;
	if (iq->set != NULL)
		dvp_rxwait_set_del(iq->set, iq);
	/*
	 * Events still in the fd were never got, so they need no ack; reading
	 * them anyway leaves an eventfd clean for a queue set up again.
	 */
	n = iq->ops->consume(iq->ctx);
	if (n > 0) {
		dvp_counter_add(&iq->stats.events, (uint64_t)n);
		iq->pending_acks += (unsigned int)n;
	}
	acked = queue_ack(iq);
	if (iq->own_fd)
		close(iq->fd);
	if (iq->kick_fd >= 0)
		close(iq->kick_fd);
	iq->kick_fd = -1;
	iq->fd = -1;
	iq->own_fd = false;
	iq->armed = false;
	iq->unread = false;
	iq->initialized = false;
	return acked;
}

void dvp_rxwait_queue_stats_get(const struct dvp_rxwait_queue *iq,
				struct dvp_rxwait_queue_stats *stats)
{
	dvp_counters_read((const uint64_t *)&iq->stats, (const uint64_t *)&iq->base,
			  (uint64_t *)stats, DVP_RXWAIT_QUEUE_STATS_N);
}

void dvp_rxwait_queue_stats_reset(struct dvp_rxwait_queue *iq)
{
	/* The polling lcore owns the counters: the reset rule of dvp_counter.h. */
	dvp_counters_reset((const uint64_t *)&iq->stats, (uint64_t *)&iq->base,
			   DVP_RXWAIT_QUEUE_STATS_N);
	__atomic_store_n(&iq->since_ns, dvp_clock_monotonic_ns(), __ATOMIC_RELAXED);
}

void dvp_rxwait_queue_json(const struct dvp_rxwait_queue *iq, struct dvp_json *w)
{
	struct dvp_rxwait_queue_stats st;
	uint64_t since, now;
	double pct;

	if (!dvp_rxwait_queue_active(iq)) {
		dvp_json_str(w, "mode", "poll");
		return;
	}
	dvp_rxwait_queue_stats_get(iq, &st);
	since = __atomic_load_n(&iq->since_ns, __ATOMIC_RELAXED);
	now = dvp_clock_monotonic_ns();
	pct = now > since ? (double)st.asleep_ns * 100.0 / (double)(now - since) : 0.0;
	dvp_json_str(w, "mode", "interrupt");
	dvp_json_u64(w, "sleeps", st.sleeps);
	dvp_json_u64(w, "wakeups", st.wakeups);
	dvp_json_u64(w, "spurious", st.spurious);
	dvp_json_u64(w, "events", st.events);
	dvp_json_u64(w, "arms", st.arms);
	dvp_json_u64(w, "polls", st.polls);
	dvp_json_u64(w, "empty_polls", st.empty_polls);
	dvp_json_u64(w, "asleep_ns", st.asleep_ns);
	dvp_json_fixed(w, "asleep_pct", pct > 100.0 ? 100.0 : pct, 1);
}
