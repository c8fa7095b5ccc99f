/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The EAL interrupt thread "dvp-intr" (DPDK's eal-intr-thread): one epoll
 * loop over registered fds, where control-path callbacks run (port events,
 * device events, memif sockets, telemetry of drivers). Not to be confused
 * with lib/rxwait (rx completion events, wait sets, the governor) nor with
 * the port's rx-interrupt API (lib/port/port_rx_intr.c).
 *
 * The source list is guarded by a mutex that the thread drops while a
 * callback runs, so a callback may register and unregister (even itself).
 * The thread runs one callback at a time and publishes it in intr.running;
 * an unregister from another thread that finds its callback running marks
 * it removed and waits on intr.done until the thread has moved past it, so
 * the caller may free the callback's argument when unregister returns.
 *
 * Hosted (dvp_eal_init_hosted()), there is no thread of ours: the host's
 * interrupt thread watches the epoll fd and calls host_ready(), which takes
 * what is ready without waiting and dispatches it the same way.
 */

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "dvp_eal_host.h"
#include "dvp_interrupts.h"
#include "eal_private.h"

struct intr_cb {
	struct intr_cb *next;
	dvp_intr_callback_fn cb;
	void *arg;
	bool removed; /* unregistered while running: the thread frees it */
};

struct intr_src {
	struct intr_src *next;
	int fd;
	struct intr_cb *cbs;
	/*
	 * Out of the epoll set: its last live callback was unregistered, and
	 * the owner may close the fd (and the number be reused) at once. It
	 * stays listed only until the thread frees the callback it was running.
	 */
	bool detached;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t done; /* broadcast when a callback returns */
	struct intr_src *srcs;
	const struct intr_cb *running;
	pthread_t thread;
	int epfd;
	int wakefd; /* eventfd: tells the thread to stop */
	const struct dvp_eal_host *host; /* hosted: whose interrupt thread runs us */
	bool up;
} intr = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.epfd = -1,
	.wakefd = -1,
};

static __thread bool is_intr_thread;

bool dvp_thread_is_intr(void)
{
	return is_intr_thread;
}

/* The source watching @p fd now (not one detached from an fd since closed). */
static struct intr_src *src_find_locked(int fd)
{
	struct intr_src *s;

	for (s = intr.srcs; s != NULL; s = s->next)
		if (s->fd == fd && !s->detached)
			break;
	return s;
}

/*
 * Take @p s out of the epoll set as soon as no live callback is left --
 * before the unregister returns, since the fd may be closed right after
 * and its number given to another file -- and free it once no callback
 * at all is linked (the thread frees one it was running when it returns).
 */
static void src_release_locked(struct intr_src *s)
{
	struct intr_src **l;
	struct intr_cb *c;

	for (c = s->cbs; c != NULL; c = c->next)
		if (!c->removed)
			return;
	if (!s->detached) {
		epoll_ctl(intr.epfd, EPOLL_CTL_DEL, s->fd, NULL);
		s->detached = true;
	}
	if (s->cbs != NULL)
		return;
	for (l = &intr.srcs; *l != s; l = &(*l)->next)
		;
	*l = s->next;
	free(s);
}

int dvp_intr_callback_register(int fd, dvp_intr_callback_fn cb, void *arg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct intr_src *s;
	struct intr_cb *c, **tail;
	int ret = 0;

	if (fd < 0 || cb == NULL) {
		EAL_LOG(ERR, "interrupt callback register: %s", fd < 0 ? "bad fd" : "no callback");
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&intr.lock);
	if (!intr.up) {
		pthread_mutex_unlock(&intr.lock);
		EAL_LOG(ERR, "interrupt callback register on fd %d: the EAL is not initialised",
			fd);
		return dvp_err(E_DVP_NO_INIT);
	}
	s = src_find_locked(fd);
	if (s == NULL) {
		s = calloc(1, sizeof(*s));
		if (s == NULL) {
			ret = dvp_err(ENOMEM);
			goto out;
		}
		s->fd = fd;
		ev.data.fd = fd;
		if (epoll_ctl(intr.epfd, EPOLL_CTL_ADD, fd, &ev) != 0) {
			ret = dvp_err(errno);
			EAL_LOG(ERR, "interrupt callback register: epoll cannot watch fd %d: %s",
				fd, dvp_strerror(errno));
			free(s);
			goto out;
		}
		s->next = intr.srcs;
		intr.srcs = s;
	}
	for (tail = &s->cbs; (c = *tail) != NULL; tail = &c->next) {
		if (c->cb == cb && c->arg == arg && !c->removed) {
			ret = dvp_err(EEXIST);
			goto out;
		}
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		ret = dvp_err(ENOMEM);
		src_release_locked(s);
		goto out;
	}
	c->cb = cb;
	c->arg = arg;
	*tail = c;
out:
	pthread_mutex_unlock(&intr.lock);
	return ret;
}

int dvp_intr_callback_unregister(int fd, dvp_intr_callback_fn cb, void *arg)
{
	struct intr_cb **l, *c;
	struct intr_src *s;
	int n = 0;

	if (fd < 0)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&intr.lock);
	s = src_find_locked(fd);
	if (s == NULL) {
		pthread_mutex_unlock(&intr.lock);
		return 0;
	}
	for (l = &s->cbs; (c = *l) != NULL;) {
		if (c->removed || c->cb != cb || (arg != (void *)-1 && c->arg != arg)) {
			l = &c->next;
			continue;
		}
		n++;
		if (c == intr.running) {
			c->removed = true;
			if (is_intr_thread) {
				/* From inside the callback itself: the thread frees it after. */
				l = &c->next;
				continue;
			}
			/* Wait for it to return; the thread then frees it and unlinks it. */
			while (intr.running == c)
				pthread_cond_wait(&intr.done, &intr.lock);
			/* The list may have changed meanwhile: start over. */
			s = src_find_locked(fd);
			if (s == NULL)
				break;
			l = &s->cbs;
			continue;
		}
		*l = c->next;
		free(c);
	}
	if (s != NULL)
		src_release_locked(s);
	pthread_mutex_unlock(&intr.lock);
	return n;
}

/* Call every callback of @p fd, dropping the lock around each. */
static void dispatch_locked(int fd)
{
	struct intr_src *s = src_find_locked(fd);
	struct intr_cb *c, **l;

	if (s == NULL)
		return; /* unregistered after epoll_wait returned */
	for (c = s->cbs; c != NULL; c = c->next) {
		if (c->removed)
			continue;
		intr.running = c;
		pthread_mutex_unlock(&intr.lock);
		c->cb(fd, c->arg);
		pthread_mutex_lock(&intr.lock);
		intr.running = NULL;
		pthread_cond_broadcast(&intr.done);
	}
	/*
	 * Free what was unregistered while it ran; the source goes with its
	 * last callback. @p s is still there: a running callback stays linked.
	 */
	for (l = &s->cbs; (c = *l) != NULL;) {
		if (c->removed) {
			*l = c->next;
			free(c);
		} else {
			l = &c->next;
		}
	}
	src_release_locked(s);
}

static void hangup_locked(int fd, uint32_t events)
{
	struct intr_src *s = src_find_locked(fd);
	struct intr_cb *c;
	unsigned int n = 0;

	if (s == NULL)
		return;
	while ((c = s->cbs) != NULL) {
		s->cbs = c->next;
		free(c);
		n++;
	}
	EAL_LOG(WARNING, "interrupt fd %d reported %s: unregistered its %u callback%s", fd,
		(events & EPOLLERR) ? "an error" : "hang-up", n, n == 1 ? "" : "s");
	src_release_locked(s);
}

/* Dispatch what epoll_wait() returned. @return false when told to stop. */
static bool dispatch_ready(const struct epoll_event *evs, int n)
{
	int i;

	pthread_mutex_lock(&intr.lock);
	for (i = 0; i < n; i++) {
		if (evs[i].data.fd == intr.wakefd) {
			pthread_mutex_unlock(&intr.lock);
			return false;
		}
		if (evs[i].events & EPOLLIN)
			dispatch_locked(evs[i].data.fd);
		if (evs[i].events & (EPOLLHUP | EPOLLERR))
			hangup_locked(evs[i].data.fd, evs[i].events);
	}
	pthread_mutex_unlock(&intr.lock);
	return true;
}

static void *intr_main(void *unused)
{
	struct epoll_event evs[16];
	int n;

	(void)unused;
	is_intr_thread = true;
	pthread_setname_np(pthread_self(), "dvp-intr");
	for (;;) {
		n = epoll_wait(intr.epfd, evs, DVP_DIM(evs), -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			EAL_LOG(ERR, "interrupt thread: epoll_wait: %s; thread stops",
				dvp_strerror(errno));
			break;
		}
		if (!dispatch_ready(evs, n))
			break;
	}
	return NULL;
}

/* Hosted: the host's interrupt thread found the epoll fd readable. */
static void host_ready(void)
{
	struct epoll_event evs[16];
	int n;

	/*
	 * The host's thread is ours only while it runs our callbacks
	 * (dvp_thread_is_intr()): outside them it may do what our interrupt
	 * thread may not, such as detaching a device and cleaning up.
	 */
	is_intr_thread = true;
	n = epoll_wait(intr.epfd, evs, DVP_DIM(evs), 0);
	if (n > 0)
		dispatch_ready(evs, n);
	is_intr_thread = false;
}

int eal_intr_init(const struct eal_cfg *cfg)
{
	struct epoll_event ev = { .events = EPOLLIN };
	pthread_attr_t attr;
	cpu_set_t cpus;
	int ret;

	intr.epfd = epoll_create1(EPOLL_CLOEXEC);
	if (intr.epfd < 0) {
		ret = errno;
		EAL_LOG(ERR, "interrupt thread: epoll_create1: %s", dvp_strerror(ret));
		return dvp_err(ret);
	}
	intr.wakefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ev.data.fd = intr.wakefd;
	if (intr.wakefd < 0 || epoll_ctl(intr.epfd, EPOLL_CTL_ADD, intr.wakefd, &ev) != 0) {
		ret = errno;
		EAL_LOG(ERR, "interrupt thread: eventfd: %s", dvp_strerror(ret));
		goto fail;
	}
	if (cfg->host != NULL) {
		ret = -cfg->host->intr_attach(cfg->host->arg, intr.epfd, host_ready);
		if (ret != 0) {
			EAL_LOG(ERR, "%s does not take the interrupt fd: %s", cfg->host->name,
				dvp_strerror(ret));
			goto fail;
		}
		pthread_mutex_lock(&intr.lock);
		intr.host = cfg->host;
		intr.up = true;
		pthread_mutex_unlock(&intr.lock);
		return 0;
	}
	/* Control threads stay off the lcores' CPUs when there are others. */
	eal_control_cpus(&cpus);
	pthread_attr_init(&attr);
	pthread_attr_setaffinity_np(&attr, sizeof(cpus), &cpus);
	ret = pthread_create(&intr.thread, &attr, intr_main, NULL);
	pthread_attr_destroy(&attr);
	if (ret != 0) {
		EAL_LOG(ERR, "cannot start the interrupt thread: %s", dvp_strerror(ret));
		goto fail;
	}
	pthread_mutex_lock(&intr.lock);
	intr.up = true;
	pthread_mutex_unlock(&intr.lock);
	return 0;

fail:
	if (intr.wakefd >= 0)
		close(intr.wakefd);
	close(intr.epfd);
	intr.wakefd = intr.epfd = -1;
	return dvp_err(ret);
}

void eal_intr_cleanup(void)
{
	struct intr_src *s;
	struct intr_cb *c;
	uint64_t one = 1;

	pthread_mutex_lock(&intr.lock);
	if (!intr.up) {
		pthread_mutex_unlock(&intr.lock);
		return;
	}
	intr.up = false;
	pthread_mutex_unlock(&intr.lock);
	if (intr.host != NULL) {
		intr.host->intr_detach(intr.host->arg, intr.epfd);
		intr.host = NULL;
	} else {
		if (write(intr.wakefd, &one, sizeof(one)) != sizeof(one))
			EAL_LOG(WARNING, "cannot wake the interrupt thread: %s",
				dvp_strerror(errno));
		pthread_join(intr.thread, NULL);
	}

	pthread_mutex_lock(&intr.lock);
	while ((s = intr.srcs) != NULL) {
		intr.srcs = s->next;
		while ((c = s->cbs) != NULL) {
			s->cbs = c->next;
			free(c);
		}
		EAL_LOG(DEBUG, "fd %d still had interrupt callbacks at cleanup", s->fd);
		free(s);
	}
	pthread_mutex_unlock(&intr.lock);
	close(intr.wakefd);
	close(intr.epfd);
	intr.wakefd = intr.epfd = -1;
}
