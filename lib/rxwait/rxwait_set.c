/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Wait sets and dvp_rx_wait(): arm all, poll once more, sleep only if all
 * are empty, read and ack what fired, return what has work (a queue whose
 * source disarms itself is returned first and read at its next arm).
 *
 * A set is an epoll instance whose entries carry the struct dvp_rxwait_queue
 * pointer (the kick eventfd carries NULL); a queue with several fds has an
 * entry for each, all with its pointer, so that no wake-up goes through a
 * nested epoll fd. One thread waits at a time. A queue leaves a set from
 * any thread (a port stop does it) while the waiter may be asleep: the
 * remover raises ctl_pending, kicks, and waits on the condition variable
 * until the waiter has left dvp_rx_wait(); a waiter entering while
 * ctl_pending is raised returns 0 at once. So the waiter never sees an
 * entry freed under it, and holds no lock while it runs.
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "rxwait_private.h"

struct dvp_rxwait_set {
	int epfd;
	int kickfd;
	unsigned int max;
	unsigned int count;
	struct dvp_rxwait_queue **queues; /* [max], dense */
	/* [max * (2 + DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX) + 1]: the waiter's */
	struct epoll_event *evs;
	unsigned int nfds; /* fds of the queues in the set */
	uint64_t wake_gen; /* epoll_wait() returns so far: the waiter's */
	dvp_rxwait_clock_fn clock;
	void *clock_arg;
	bool clock_own; /* set by dvp_rxwait_set_clock(): the governor keeps it */

	pthread_mutex_t lock;
	pthread_cond_t left; /* broadcast when the waiter leaves */
	bool busy; /* a thread is inside dvp_rx_wait() */
	pthread_t waiter;
	unsigned int ctl_pending; /* threads waiting to change membership */
	struct dvp_rxwait_set *next_live; /* on live_sets */
};

/*
 * Every set created and not freed yet, so that dvp_rxwait_set_free() can tell
 * a second free (or a pointer that never was a set) from a set, as the
 * other free functions do, instead of freeing it again.
 */
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static struct dvp_rxwait_set *live_sets;

static void live_add(struct dvp_rxwait_set *set)
{
	pthread_mutex_lock(&live_lock);
	set->next_live = live_sets;
	live_sets = set;
	pthread_mutex_unlock(&live_lock);
}

/* Whether @set is live; with @take, also take it off the list. Caller holds live_lock. */
static bool live_find_locked(const struct dvp_rxwait_set *set, bool take)
{
	struct dvp_rxwait_set **pp;

	for (pp = &live_sets; *pp != NULL; pp = &(*pp)->next_live) {
		if (*pp == set) {
			if (take)
				*pp = set->next_live;
			return true;
		}
	}
	return false;
}

struct dvp_rxwait_set *dvp_rxwait_set_create(unsigned int max_queues)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	struct dvp_rxwait_set *set;
	int err;

	if (max_queues == 0 || max_queues > DVP_RXWAIT_SET_MAX_QUEUES) {
		RXWAIT_LOG(ERR, "wait set create: max_queues %u is out of range [1, %u]",
			   max_queues, DVP_RXWAIT_SET_MAX_QUEUES);
		dvp_errno = EINVAL;
		return NULL;
	}
	set = calloc(1, sizeof(*set));
	if (set == NULL)
		goto nomem;
	set->queues = calloc(max_queues, sizeof(*set->queues));
	set->evs = calloc((size_t)max_queues * (2 + DVP_RXWAIT_QUEUE_EXTRA_FDS_MAX) + 1,
			  sizeof(*set->evs));
	if (set->queues == NULL || set->evs == NULL)
		goto nomem_free;
	set->max = max_queues;
	set->clock = rxwait_clock_monotonic_ns;
	pthread_mutex_init(&set->lock, NULL);
	pthread_cond_init(&set->left, NULL);
	set->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (set->epfd < 0) {
		err = errno;
		RXWAIT_LOG(ERR, "wait set create: epoll_create1: %s", dvp_strerror(err));
		goto fail_free;
	}
	set->kickfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (set->kickfd < 0) {
		err = errno;
		RXWAIT_LOG(ERR, "wait set create: eventfd: %s", dvp_strerror(err));
		goto fail_epfd;
	}
	if (epoll_ctl(set->epfd, EPOLL_CTL_ADD, set->kickfd, &ev) != 0) {
		err = errno;
		RXWAIT_LOG(ERR, "wait set create: epoll_ctl: %s", dvp_strerror(err));
		goto fail_kick;
	}
	live_add(set);
	return set;

fail_kick:
	close(set->kickfd);
fail_epfd:
	close(set->epfd);
fail_free:
	pthread_cond_destroy(&set->left);
	pthread_mutex_destroy(&set->lock);
	free(set->evs);
	free(set->queues);
	free(set);
	dvp_errno = err;
	return NULL;
nomem_free:
	free(set->evs);
	free(set->queues);
	free(set);
nomem:
	RXWAIT_LOG(ERR, "wait set create: out of memory for %u queues", max_queues);
	dvp_errno = ENOMEM;
	return NULL;
}

int dvp_rxwait_set_free(struct dvp_rxwait_set *set)
{
	unsigned int i;

	if (set == NULL)
		return 0;
	pthread_mutex_lock(&live_lock);
	if (!live_find_locked(set, false)) {
		pthread_mutex_unlock(&live_lock);
		RXWAIT_LOG(ERR, "wait set free: %p is not a live wait set (freed already?)",
			   (void *)set);
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&set->lock);
	if (set->busy) {
		pthread_mutex_unlock(&set->lock);
		pthread_mutex_unlock(&live_lock);
		RXWAIT_LOG(
			ERR,
			"wait set free: a thread is waiting on it; kick it and let it return first");
		return dvp_err(EBUSY);
	}
	(void)live_find_locked(set, true);
	for (i = 0; i < set->count; i++)
		set->queues[i]->set = NULL;
	pthread_mutex_unlock(&set->lock);
	pthread_mutex_unlock(&live_lock);
	close(set->kickfd);
	close(set->epfd);
	pthread_cond_destroy(&set->left);
	pthread_mutex_destroy(&set->lock);
	free(set->evs);
	free(set->queues);
	free(set);
	return 0;
}

unsigned int dvp_rxwait_set_count(const struct dvp_rxwait_set *set)
{
	return set == NULL ? 0 : __atomic_load_n(&set->count, __ATOMIC_RELAXED);
}

unsigned int rxwait_set_max_queues(const struct dvp_rxwait_set *set)
{
	return set->max;
}

uint64_t rxwait_clock_monotonic_ns(void *arg)
{
	(void)arg;
	return dvp_clock_monotonic_ns();
}

void dvp_rxwait_set_clock(struct dvp_rxwait_set *set, dvp_rxwait_clock_fn clock, void *arg)
{
	if (set == NULL)
		return;
	set->clock = clock != NULL ? clock : rxwait_clock_monotonic_ns;
	set->clock_arg = clock != NULL ? arg : NULL;
	set->clock_own = clock != NULL;
}

void rxwait_set_clock_default(struct dvp_rxwait_set *set, dvp_rxwait_clock_fn clock, void *arg)
{
	if (!set->clock_own && clock != NULL) {
		set->clock = clock;
		set->clock_arg = arg;
	}
}

uint64_t rxwait_set_now(const struct dvp_rxwait_set *set)
{
	return set->clock(set->clock_arg);
}

int dvp_rx_wait_kick(struct dvp_rxwait_set *set)
{
	uint64_t one = 1;
	ssize_t r;

	if (set == NULL)
		return dvp_err(EINVAL);
	/*
	 * The eventfd stays readable until the waiter drains it, so a kick
	 * before the waiter sleeps makes its epoll_wait() return at once. The
	 * write fails only when the counter would overflow, and then a kick
	 * is pending anyway.
	 */
	do {
		r = write(set->kickfd, &one, sizeof(one));
	} while (r < 0 && errno == EINTR);
	return 0;
}

/* Enter membership change: wait until no thread is inside dvp_rx_wait(). */
static int set_ctl_begin(struct dvp_rxwait_set *set, const char *what)
{
	pthread_mutex_lock(&set->lock);
	if (set->busy && pthread_equal(set->waiter, pthread_self())) {
		pthread_mutex_unlock(&set->lock);
		RXWAIT_LOG(
			ERR,
			"wait set %s: called by the thread waiting on the set, from inside the wait",
			what);
		return dvp_err(EBUSY);
	}
	set->ctl_pending++;
	while (set->busy) {
		dvp_rx_wait_kick(set);
		pthread_cond_wait(&set->left, &set->lock);
	}
	return 0;
}

static void set_ctl_end(struct dvp_rxwait_set *set)
{
	set->ctl_pending--;
	pthread_mutex_unlock(&set->lock);
}

int dvp_rxwait_set_add(struct dvp_rxwait_set *set, struct dvp_rxwait_queue *iq, void *data)
{
	struct epoll_event ev = { .events = EPOLLIN };
	unsigned int i;
	int ret;

	if (set == NULL || !dvp_rxwait_queue_active(iq)) {
		RXWAIT_LOG(ERR, "wait set add: %s",
			   set == NULL ?
				   "no set" :
				   "the queue has no interrupt state (is intr_conf.rxq set?)");
		return dvp_err(EINVAL);
	}
	if (iq->set != NULL) {
		RXWAIT_LOG(ERR, "wait set add: port %u rx queue %u is in a wait set already",
			   iq->port_id, iq->queue_id);
		return dvp_err(EEXIST);
	}
	ret = set_ctl_begin(set, "add");
	if (ret < 0)
		return ret;
	if (set->count == set->max) {
		RXWAIT_LOG(ERR, "wait set add: port %u rx queue %u: the set is full (%u queues)",
			   iq->port_id, iq->queue_id, set->max);
		ret = dvp_err(ENOSPC);
		goto out;
	}
	ev.data.ptr = iq;
	for (i = 0; i < iq->nb_fds; i++) {
		if (epoll_ctl(set->epfd, EPOLL_CTL_ADD, iq->fds[i], &ev) != 0) {
			ret = dvp_err(errno);
			RXWAIT_LOG(
				ERR,
				"wait set add: port %u rx queue %u: epoll cannot watch fd %d: %s%s",
				iq->port_id, iq->queue_id, iq->fds[i], dvp_strerror(-ret),
				ret == -EEXIST ? " (queues must not share an event fd)" : "");
			while (i-- > 0)
				epoll_ctl(set->epfd, EPOLL_CTL_DEL, iq->fds[i], NULL);
			goto out;
		}
	}
	set->nfds += iq->nb_fds;
	iq->set = set;
	iq->wake_gen = 0; /* the set's count starts at 1 */
	iq->set_data = data;
	iq->set_slot = set->count;
	set->queues[set->count] = iq;
	__atomic_store_n(&set->count, set->count + 1, __ATOMIC_RELAXED);
out:
	set_ctl_end(set);
	return ret;
}

int dvp_rxwait_set_del(struct dvp_rxwait_set *set, struct dvp_rxwait_queue *iq)
{
	struct dvp_rxwait_queue *last;
	unsigned int i;
	int ret;

	if (set == NULL || iq == NULL)
		return dvp_err(EINVAL);
	if (iq->set != set)
		return dvp_err(ENOENT);
	ret = set_ctl_begin(set, "remove");
	if (ret < 0)
		return ret;
	/* An fd may be closed already when a driver got the order wrong: ignore. */
	for (i = 0; i < iq->nb_fds; i++)
		epoll_ctl(set->epfd, EPOLL_CTL_DEL, iq->fds[i], NULL);
	set->nfds -= iq->nb_fds;
	last = set->queues[set->count - 1];
	set->queues[iq->set_slot] = last;
	last->set_slot = iq->set_slot;
	set->queues[set->count - 1] = NULL;
	__atomic_store_n(&set->count, set->count - 1, __ATOMIC_RELAXED);
	iq->set = NULL;
	iq->set_data = NULL;
	set_ctl_end(set);
	return 0;
}

static void ready_add(struct dvp_rx_wait_event *ready, unsigned int max_ready, unsigned int *n,
		      const struct dvp_rxwait_queue *iq)
{
	if (*n < max_ready) {
		ready[*n].port_id = iq->port_id;
		ready[*n].queue_id = iq->queue_id;
		ready[*n].data = iq->set_data;
		(*n)++;
	}
}

/*
 * @now and @deadline are on the set's clock, read around each sleep anyway
 * to measure it: a timeout costs no reading of its own, and the TSC clock
 * an application installs costs no system call, where CLOCK_MONOTONIC is
 * one on a machine whose clocksource has no vDSO (a VM's HPET).
 */
static int wait_ms_left(int timeout_ms, uint64_t deadline, uint64_t now)
{
	if (timeout_ms < 0)
		return -1;
	if (now >= deadline)
		return 0;
	/* Round up: a sleep shorter than asked would spin on the last ms. */
	return (int)((deadline - now + 999999) / 1000000);
}

static __dvp_cold int wait_hook_failed(const struct dvp_rxwait_queue *iq, const char *hook, int ret)
{
	RXWAIT_LOG(ERR, "rx wait: port %u rx queue %u: the driver's %s failed: %s", iq->port_id,
		   iq->queue_id, hook, dvp_strerror(-ret));
	return ret;
}

int rxwait_rx_wait(struct dvp_rxwait_set *set, struct dvp_rx_wait_event *ready,
		   unsigned int max_ready, int timeout_ms, bool *slept)
{
	uint64_t deadline = 0, t0, t1;
	struct dvp_rxwait_queue *iq;
	unsigned int i, n = 0;
	bool kicked = false, timed = false;
	int k, ret = 0, ms;

	*slept = false;
	if (set == NULL || ready == NULL || max_ready == 0) {
		RXWAIT_LOG(ERR, "rx wait: %s", set == NULL ? "no set" : "no room for ready queues");
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&set->lock);
	if (set->busy) {
		pthread_mutex_unlock(&set->lock);
		RXWAIT_LOG(
			ERR,
			"rx wait: another thread is waiting on this set (a set belongs to one lcore)");
		return dvp_err(EBUSY);
	}
	if (set->ctl_pending) {
		/* A queue is leaving or joining: let it, the caller comes back. */
		pthread_mutex_unlock(&set->lock);
		return 0;
	}
	set->busy = true;
	set->waiter = pthread_self();
	pthread_mutex_unlock(&set->lock);

	for (;;) {
		/* 1. Arm every queue whose previous event has been read. */
		for (i = 0; i < set->count; i++) {
			iq = set->queues[i];
			ret = dvp_rxwait_queue_arm(iq);
			if (dvp_unlikely(ret < 0)) {
				wait_hook_failed(iq, "arm", ret);
				goto out;
			}
		}
		/*
		 * 2. Poll once more: a completion that landed after the last
		 * empty poll but before the arm raises no event.
		 */
		for (i = 0; i < set->count; i++) {
			iq = set->queues[i];
			if (iq->ops->has_work(iq->ctx))
				ready_add(ready, max_ready, &n, iq);
		}
		if (n > 0 || timeout_ms == 0)
			goto out;

		/* 3. Sleep: every queue is armed and empty. */
		t0 = rxwait_set_now(set);
		/* The timeout counts from the first sleep (arming is not waiting). */
		if (!timed && timeout_ms > 0) {
			deadline = t0 + (uint64_t)timeout_ms * 1000000u;
			timed = true;
		}
		ms = wait_ms_left(timeout_ms, deadline, t0);
		if (ms == 0)
			goto out;
		k = epoll_wait(set->epfd, set->evs, (int)set->nfds + 1, ms);
		t1 = rxwait_set_now(set);
		*slept = true;
		for (i = 0; i < set->count; i++) {
			iq = set->queues[i];
			dvp_counter_add(&iq->stats.sleeps, 1);
			dvp_counter_add(&iq->stats.asleep_ns, t1 - t0);
		}
		if (k < 0) {
			if (errno == EINTR)
				continue;
			ret = dvp_err(errno);
			RXWAIT_LOG(ERR, "rx wait: epoll_wait: %s", dvp_strerror(-ret));
			goto out;
		}
		if (k == 0)
			goto out; /* the time is up (whatever the ms rounding) */

		/* 4. Read what fired; keep the queues that really have work. */
		set->wake_gen++;
		for (i = 0; i < (unsigned int)k; i++) {
			bool oneshot, work;
			uint64_t drain;

			iq = set->evs[i].data.ptr;
			if (iq == NULL) {
				while (read(set->kickfd, &drain, sizeof(drain)) > 0)
					;
				kicked = true;
				continue;
			}
			/* A queue two of whose fds fired is read once: consume reads all. */
			if (iq->wake_gen == set->wake_gen)
				continue;
			iq->wake_gen = set->wake_gen;
			/*
			 * A source that disarmed itself signals nothing more, so
			 * its event can wait in the fd: the lcore answers first
			 * and the next arm reads it (one or two system calls off
			 * the path from a completion to the reply). Found empty,
			 * it is read now and not polled again: the poll after
			 * the next arm sees whatever came in meanwhile.
			 */
			oneshot = iq->ops->flags & DVP_RXWAIT_QUEUE_F_ONESHOT;
			work = oneshot && iq->ops->has_work(iq->ctx);
			iq->unread = work;
			ret = 0;
			if (!work) {
				ret = dvp_rxwait_queue_consume(iq);
				if (dvp_unlikely(ret < 0)) {
					wait_hook_failed(iq, "consume", ret);
					goto out;
				}
				work = !oneshot && iq->ops->has_work(iq->ctx);
			}
			if (work) {
				dvp_counter_add(&iq->stats.wakeups, 1);
				ready_add(ready, max_ready, &n, iq);
			} else if (ret > 0) {
				/* An event with nothing behind it: normal, and harmless. */
				dvp_counter_add(&iq->stats.spurious, (uint64_t)ret);
			}
		}
		ret = 0;
		if (n > 0 || kicked || wait_ms_left(timeout_ms, deadline, t1) == 0)
			goto out;
	}
out:
	pthread_mutex_lock(&set->lock);
	set->busy = false;
	pthread_cond_broadcast(&set->left);
	pthread_mutex_unlock(&set->lock);
	return ret < 0 ? ret : (int)n;
}

int dvp_rx_wait(struct dvp_rxwait_set *set, struct dvp_rx_wait_event *ready, unsigned int max_ready,
		int timeout_ms)
{
	bool slept;

	return rxwait_rx_wait(set, ready, max_ready, timeout_ms, &slept);
}
