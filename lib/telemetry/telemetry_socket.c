/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The telemetry socket: a SOCK_SEQPACKET unix socket served by one control
 * thread over epoll.
 *
 * One thread rather than DPDK's thread per client: a client costs an fd
 * and at most one pending reply, not a thread and its stack, so a hundred
 * clients are served where DPDK closes all but ten. No call of the thread
 * blocks on a client: sends are non-blocking, and a reply a client does
 * not read stays pending (with the client's reads paused, so what it
 * sends waits in its own socket) until it can be sent, while the others
 * are served. Commands run on this thread and are quick, so a client waits
 * at most for the answers queued before its own.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "telemetry_private.h"

#define SOCKET_NAME "dpdk_telemetry.v2"

struct client {
	int fd; /* -1: free slot */
	char *pending; /* a reply the client's socket had no room for */
	size_t pending_len;
};

static struct {
	pthread_mutex_t lock; /* start/stop */
	bool running;
	int listen_fd;
	int stop_fd; /* eventfd: stop asks the thread to leave */
	int epfd;
	pthread_t thread;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct dvp_telemetry_conf conf;
	struct client clients[DVP_TELEMETRY_MAX_CLIENTS];
	unsigned int nb_clients;
	char out[DVP_TELEMETRY_MAX_OUTPUT + 1];
} tel = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.listen_fd = -1,
	.stop_fd = -1,
	.epfd = -1,
};

#define TEL_LOG(level, fmt, ...)                                                         \
	do {                                                                             \
		if (tel.conf.log != NULL)                                                \
			tel.conf.log(TEL_LOG_##level, "TELEMETRY: " fmt, ##__VA_ARGS__); \
	} while (0)

/* epoll data: the listening socket, the stop eventfd, or client slot + 2 */
enum { EV_LISTEN, EV_STOP, EV_CLIENT0 };

static __thread bool on_tel_thread;

/*
 * dvp_telemetry_set_stop_check()'s, read outside tel.lock: a stop that is
 * refused must not wait for the lock a stop in progress holds while it
 * joins the very thread asking. Relaxed: a function pointer, nothing to
 * publish with it.
 */
static int (*_Atomic tel_stop_check)(const char *who);

bool dvp_thread_is_telemetry(void)
{
	return on_tel_thread;
}

void dvp_telemetry_set_stop_check(int (*check)(const char *who))
{
	atomic_store_explicit(&tel_stop_check, check, memory_order_relaxed);
}

const char *dvp_telemetry_path(void)
{
	return tel.running ? tel.path : NULL;
}

static void client_close(struct client *c)
{
	epoll_ctl(tel.epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	free(c->pending);
	c->pending = NULL;
	c->pending_len = 0;
	tel.nb_clients--;
}

static void client_watch(struct client *c, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.u64 = EV_CLIENT0 + (c - tel.clients) };

	if (epoll_ctl(tel.epfd, EPOLL_CTL_MOD, c->fd, &ev) < 0)
		client_close(c);
}

/*
 * Send one reply, or keep it for when the client's socket has room (and
 * read nothing more from it until then). @return false if the client is gone.
 */
static bool client_send(struct client *c, const char *msg, size_t len)
{
	ssize_t n = send(c->fd, msg, len, MSG_DONTWAIT | MSG_NOSIGNAL);

	if (n == (ssize_t)len)
		return true;
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
		c->pending = malloc(len);
		if (c->pending == NULL) {
			client_close(c);
			return false;
		}
		memcpy(c->pending, msg, len);
		c->pending_len = len;
		client_watch(c, EPOLLOUT);
		return c->fd >= 0;
	}
	/* A reset or closed peer; a seqpacket send is whole or nothing. */
	client_close(c);
	return false;
}

static void client_flush(struct client *c)
{
	char *msg = c->pending;
	size_t len = c->pending_len;

	c->pending = NULL;
	c->pending_len = 0;
	if (client_send(c, msg, len) && c->pending == NULL)
		client_watch(c, EPOLLIN);
	free(msg);
}

static void client_read(struct client *c)
{
	char req[DVP_TELEMETRY_MAX_INPUT];
	ssize_t n;
	size_t len;

	/* One request per wake-up, so a chatty client cannot starve the others. */
	n = recv(c->fd, req, sizeof(req), MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	if (n <= 0) {
		client_close(c);
		return;
	}
	len = dvp_telemetry_reply(req, (size_t)n, tel.out, sizeof(tel.out));
	client_send(c, tel.out, len);
}

static void client_accept(void)
{
	struct epoll_event ev = { .events = EPOLLIN };
	struct client *c = NULL;
	unsigned int i;
	size_t len;
	int fd;

	fd = accept4(tel.listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR &&
		    errno != ECONNABORTED)
			TEL_LOG(DEBUG, "accept on %s: %s", tel.path, strerror(errno));
		return;
	}
	for (i = 0; i < DVP_TELEMETRY_MAX_CLIENTS && c == NULL; i++)
		if (tel.clients[i].fd < 0)
			c = &tel.clients[i];
	if (c == NULL) {
		/* As DPDK past its limit: the connection is closed unanswered. */
		TEL_LOG(DEBUG, "%u clients connected already: one more refused",
			DVP_TELEMETRY_MAX_CLIENTS);
		close(fd);
		return;
	}
	ev.data.u64 = EV_CLIENT0 + (uint64_t)(c - tel.clients);
	if (epoll_ctl(tel.epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
		close(fd);
		return;
	}
	c->fd = fd;
	tel.nb_clients++;
	len = tel_greeting(tel.out, sizeof(tel.out));
	client_send(c, tel.out, len);
}

static void *tel_main(void *arg)
{
	struct epoll_event evs[32];
	unsigned int i;
	int n, k;

	(void)arg;
	on_tel_thread = true;
	pthread_setname_np(pthread_self(), "dvp-telemetry");
	for (;;) {
		n = epoll_wait(tel.epfd, evs, 32, -1);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			TEL_LOG(ERR, "epoll_wait: %s; the socket stops answering", strerror(errno));
			break;
		}
		for (k = 0; k < n; k++) {
			uint64_t id = evs[k].data.u64;
			struct client *c;

			if (id == EV_STOP)
				goto out;
			if (id == EV_LISTEN) {
				client_accept();
				continue;
			}
			c = &tel.clients[id - EV_CLIENT0];
			if (c->fd < 0)
				continue; /* closed by an earlier event of this round */
			if (c->pending != NULL) {
				if (evs[k].events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
					client_flush(c);
			} else if (evs[k].events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
				client_read(c);
			}
		}
	}
out:
	for (i = 0; i < DVP_TELEMETRY_MAX_CLIENTS; i++)
		if (tel.clients[i].fd >= 0)
			client_close(&tel.clients[i]);
	return NULL;
}

/*
 * Bind the socket at tel.path. A socket file whose owner answers a connect
 * belongs to a live process and is left alone; one that refuses is a
 * killed process's, and is replaced.
 */
static int socket_create(char *why, size_t wlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, probe, err;

	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", tel.path);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		snprintf(why, wlen, "cannot create a unix socket: %s", strerror(err));
		return -err;
	}
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		err = errno;
		if (err != EADDRINUSE) {
			snprintf(why, wlen, "cannot bind %s: %s", tel.path, strerror(err));
			close(fd);
			return -err;
		}
		probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (probe >= 0 && connect(probe, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			close(probe);
			close(fd);
			snprintf(
				why, wlen,
				"%s is served by another live process (give this one another --file-prefix)",
				tel.path);
			return -EADDRINUSE;
		}
		if (probe >= 0)
			close(probe);
		TEL_LOG(DEBUG, "replacing %s, left by a process that is gone", tel.path);
		unlink(tel.path);
		if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
			err = errno;
			snprintf(why, wlen, "cannot bind %s: %s", tel.path, strerror(err));
			close(fd);
			return -err;
		}
	}
	/* A backlog for a crowd connecting at once; the thread accepts them in turn. */
	if (listen(fd, DVP_TELEMETRY_MAX_CLIENTS) < 0) {
		err = errno;
		snprintf(why, wlen, "cannot listen on %s: %s", tel.path, strerror(err));
		unlink(tel.path);
		close(fd);
		return -err;
	}
	return fd;
}

static void fds_close(void)
{
	if (tel.listen_fd >= 0)
		close(tel.listen_fd);
	if (tel.stop_fd >= 0)
		close(tel.stop_fd);
	if (tel.epfd >= 0)
		close(tel.epfd);
	tel.listen_fd = tel.stop_fd = tel.epfd = -1;
}

static int setup(char *why, size_t wlen)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int err;

	tel.epfd = epoll_create1(EPOLL_CLOEXEC);
	tel.stop_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (tel.epfd < 0 || tel.stop_fd < 0) {
		err = errno;
		snprintf(why, wlen, "cannot create the socket's epoll/eventfd: %s", strerror(err));
		return -err;
	}
	ev.data.u64 = EV_STOP;
	if (epoll_ctl(tel.epfd, EPOLL_CTL_ADD, tel.stop_fd, &ev) < 0)
		goto fail_ctl;
	tel.listen_fd = socket_create(why, wlen);
	if (tel.listen_fd < 0)
		return tel.listen_fd;
	ev.data.u64 = EV_LISTEN;
	if (epoll_ctl(tel.epfd, EPOLL_CTL_ADD, tel.listen_fd, &ev) < 0) {
		unlink(tel.path);
		goto fail_ctl;
	}
	return 0;

fail_ctl:
	err = errno;
	snprintf(why, wlen, "epoll_ctl: %s", strerror(err));
	return -err;
}

int dvp_telemetry_start(const struct dvp_telemetry_conf *conf, char *why, size_t wlen)
{
	sigset_t all, old;
	pthread_attr_t attr;
	unsigned int i;
	int ret;

	if (conf == NULL || conf->runtime_dir == NULL) {
		snprintf(why, wlen, "no runtime directory given");
		return -EINVAL;
	}
	pthread_mutex_lock(&tel.lock);
	if (tel.running) {
		pthread_mutex_unlock(&tel.lock);
		snprintf(why, wlen, "the telemetry socket is started already (%s)", tel.path);
		return -EALREADY;
	}
	tel.conf = *conf;
	tel_set_version(conf->version);
	if ((size_t)snprintf(tel.path, sizeof(tel.path), "%s/" SOCKET_NAME, conf->runtime_dir) >=
	    sizeof(tel.path)) {
		pthread_mutex_unlock(&tel.lock);
		snprintf(why, wlen, "the socket path %s/" SOCKET_NAME " is longer than %zu bytes",
			 conf->runtime_dir, sizeof(tel.path) - 1);
		return -ENAMETOOLONG;
	}
	for (i = 0; i < DVP_TELEMETRY_MAX_CLIENTS; i++)
		tel.clients[i].fd = -1;
	tel.nb_clients = 0;
	ret = setup(why, wlen);
	if (ret < 0) {
		fds_close();
		pthread_mutex_unlock(&tel.lock);
		return ret;
	}
	pthread_attr_init(&attr);
	if (conf->cpus != NULL)
		pthread_attr_setaffinity_np(&attr, sizeof(*conf->cpus), conf->cpus);
	/* The thread takes no signal: the application's handlers run elsewhere. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ret = pthread_create(&tel.thread, &attr, tel_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&attr);
	if (ret != 0) {
		snprintf(why, wlen, "cannot start the telemetry thread: %s", strerror(ret));
		unlink(tel.path);
		fds_close();
		pthread_mutex_unlock(&tel.lock);
		return -ret;
	}
	tel.running = true;
	pthread_mutex_unlock(&tel.lock);
	TEL_LOG(DEBUG, "listening on %s", tel.path);
	return 0;
}

int dvp_telemetry_stop(void)
{
	int (*check)(const char *who) = atomic_load_explicit(&tel_stop_check, memory_order_relaxed);
	uint64_t one = 1;

	if (check != NULL) {
		int ret = check("dvp_telemetry_stop");

		if (ret < 0)
			return ret;
	} else if (on_tel_thread) {
		TEL_LOG(ERR, "dvp_telemetry_stop: called from the telemetry thread (a telemetry "
			     "command); call it from another thread");
		return -EDEADLK;
	}
	pthread_mutex_lock(&tel.lock);
	if (!tel.running) {
		pthread_mutex_unlock(&tel.lock);
		return 0;
	}
	/* Unlinked first: from here no client finds the socket. */
	unlink(tel.path);
	if (write(tel.stop_fd, &one, sizeof(one)) != sizeof(one))
		TEL_LOG(ERR, "cannot wake the telemetry thread: %s", strerror(errno));
	pthread_join(tel.thread, NULL);
	fds_close();
	tel.running = false;
	pthread_mutex_unlock(&tel.lock);
	return 0;
}
