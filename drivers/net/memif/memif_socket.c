/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The control transport: socket names shared by the interfaces on them, a
 * server's listener, the control channels (a message with at most one fd
 * each way, a deadline on the handshake), all served on the EAL interrupt
 * thread. What a message means is the state machine's (memif_cc.c) and
 * what a connection does to an interface memif_if.c's.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_interrupts.h>

#include "memif_log.h"
#include "memif_socket.h"

pthread_mutex_t memif_lock = PTHREAD_MUTEX_INITIALIZER;
static struct memif_sock *memif_socks;

static void chan_cb(int fd, void *arg);
static void handshake_cb(int fd, void *arg);

/* ------------------------------------------------------------------------
 * Addresses and messages
 */

static socklen_t sock_addr(const char *name, bool abstract, struct sockaddr_un *un)
{
	size_t len = strnlen(name, MEMIF_SOCKET_NAME_MAX);

	memset(un, 0, sizeof(*un));
	un->sun_family = AF_UNIX;
	if (abstract) {
		/* As DPDK: a leading NUL, the name, no trailing NUL in the length. */
		memcpy(un->sun_path + 1, name, len);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
	}
	memcpy(un->sun_path, name, len);
	return (socklen_t)sizeof(*un);
}

static int msg_send(int fd, const struct memif_msg *m, int afd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { .iov_base = (void *)(uintptr_t)m, .iov_len = sizeof(*m) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;

	if (afd >= 0) {
		memset(ctl, 0, sizeof(ctl));
		mh.msg_control = ctl;
		mh.msg_controllen = sizeof(ctl);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		memcpy(CMSG_DATA(cm), &afd, sizeof(int));
	}
	return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)sizeof(*m) ? 0 : -errno;
}

void memif_chan_send(struct memif_chan *ch, const struct memif_cc_out *out)
{
	int ret;

	if (!out->valid || ch->fd < 0)
		return;
	ret = msg_send(ch->fd, &out->msg, out->fd);
	if (ret < 0 && ret != -EPIPE && ret != -ECONNRESET)
		MEMIF_LOG(WARNING, "%s: cannot send %s: %s", ch->log_name,
			  memif_msg_type_name(out->msg.type), strerror(-ret));
}

/* ------------------------------------------------------------------------
 * Channels
 */

static void chan_free(struct memif_chan *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	if (ch->hfd >= 0)
		close(ch->hfd);
	free(ch);
}

void memif_chan_release(struct memif_chan *ch)
{
	dvp_intr_callback_unregister(ch->fd, chan_cb, ch);
	if (ch->hfd >= 0)
		dvp_intr_callback_unregister(ch->hfd, handshake_cb, ch);
	chan_free(ch);
}

void memif_chan_close(struct memif_chan *ch)
{
	ch->dead = true;
	if (ch->ifc != NULL)
		memif_if_chan_closed(ch->ifc, ch);
	memif_chan_release(ch);
}

/* The longest handshake the interfaces on server socket @s allow. */
static uint32_t sock_handshake_ms(const struct memif_sock *s)
{
	const struct memif_if *ifc;
	uint32_t ms = 0;

	for (ifc = s->ifs; ifc != NULL; ifc = ifc->next)
		ms = DVP_MAX(ms, ifc->p.handshake_ms);
	return ms != 0 ? ms : MEMIF_HANDSHAKE_TIMEOUT_MS_DEFAULT;
}

/* Arm @ch's handshake deadline and watch it. @return 0 or -1 after a log line. */
static int chan_deadline_start(struct memif_chan *ch)
{
	struct itimerspec its = { 0 };

	ch->hfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ch->hfd < 0) {
		MEMIF_LOG(ERR, "%s: handshake timer: %s", ch->log_name, strerror(errno));
		return -1;
	}
	its.it_value.tv_sec = ch->hs_ms / 1000;
	its.it_value.tv_nsec = (long)(ch->hs_ms % 1000) * 1000000L;
	if (timerfd_settime(ch->hfd, 0, &its, NULL) < 0 ||
	    dvp_intr_callback_register(ch->hfd, handshake_cb, ch) < 0) {
		MEMIF_LOG(ERR, "%s: cannot arm the handshake timer", ch->log_name);
		close(ch->hfd);
		ch->hfd = -1;
		return -1;
	}
	return 0;
}

struct memif_chan *memif_chan_new(int fd, struct memif_sock *sock, struct memif_if *ifc)
{
	struct memif_chan *ch = calloc(1, sizeof(*ch));
	struct memif_cc_out out;

	if (ch == NULL) {
		close(fd);
		return NULL;
	}
	ch->fd = fd;
	ch->hfd = -1;
	ch->sock = sock;
	ch->ifc = ifc;
	ch->hs_ms = ifc != NULL ? ifc->p.handshake_ms : sock_handshake_ms(sock);
	if (ifc != NULL)
		snprintf(ch->log_name, sizeof(ch->log_name), "%s", ifc->p.if_name);
	else
		snprintf(ch->log_name, sizeof(ch->log_name), "socket %s", sock->name);
	memif_cc_init(&ch->cc, ifc != NULL ? MEMIF_ROLE_CLIENT : MEMIF_ROLE_SERVER,
		      ifc != NULL ? &ifc->cfg : NULL, &memif_if_cc_ops, ch, ch->log_name, &out);
	if (chan_deadline_start(ch) < 0) {
		chan_free(ch);
		return NULL;
	}
	if (dvp_intr_callback_register(fd, chan_cb, ch) < 0) {
		MEMIF_LOG(ERR, "%s: cannot watch the control channel", ch->log_name);
		dvp_intr_callback_unregister(ch->hfd, handshake_cb, ch);
		chan_free(ch);
		return NULL;
	}
	memif_chan_send(ch, &out);
	return ch;
}

/*
 * A handshake that did not reach CONNECTED in time: a silent peer (a
 * server that never accepts or never says HELLO, a client that connects
 * and says nothing) would hold the channel forever. Closed with the reason
 * (one line: env_disconnected's, or ours before an interface is known); a
 * client retries.
 */
static void handshake_cb(int fd, void *arg)
{
	struct memif_chan *ch = arg;
	char reason[MEMIF_DISC_STRING_SZ];
	struct memif_cc_out out;
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == sizeof(v))
		;
	pthread_mutex_lock(&memif_lock);
	if (!ch->dead && ch->cc.state != MEMIF_CC_CONNECTED) {
		snprintf(reason, sizeof(reason), "Handshake timed out after %u ms", ch->hs_ms);
		if (ch->cc.cfg == NULL)
			MEMIF_LOG(ERR, "%s: a client said nothing for %u ms: closing its channel",
				  ch->log_name, ch->hs_ms);
		memif_cc_close(&ch->cc, reason, &out);
		memif_chan_send(ch, &out);
		memif_chan_close(ch);
	}
	pthread_mutex_unlock(&memif_lock);
}

/* Receive one message with at most one fd; @return bytes, 0 at EOF, -errno. */
static ssize_t chan_recv(struct memif_chan *ch, uint8_t *buf, size_t len, int *afd, bool *extra)
{
	char ctl[CMSG_SPACE(4 * sizeof(int))];
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *cm;
	ssize_t n;

	*afd = -1;
	*extra = false;
	mh.msg_control = ctl;
	mh.msg_controllen = sizeof(ctl);
	n = recvmsg(ch->fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	for (cm = CMSG_FIRSTHDR(&mh); cm != NULL; cm = CMSG_NXTHDR(&mh, cm)) {
		size_t nfd, i;
		int fds[4];

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		memcpy(fds, CMSG_DATA(cm), DVP_MIN(nfd, (size_t)4) * sizeof(int));
		for (i = 0; i < DVP_MIN(nfd, (size_t)4); i++) {
			if (*afd < 0) {
				*afd = fds[i];
			} else {
				close(fds[i]);
				*extra = true;
			}
		}
	}
	if (mh.msg_flags & MSG_CTRUNC)
		*extra = true;
	return n;
}

static void chan_cb(int fd, void *arg)
{
	struct memif_chan *ch = arg;
	uint8_t buf[MEMIF_MSG_SZ + 1];
	struct memif_cc_out out;
	bool extra;
	ssize_t n;
	int afd, ret;

	(void)fd;
	pthread_mutex_lock(&memif_lock);
	while (!ch->dead) {
		n = chan_recv(ch, buf, sizeof(buf), &afd, &extra);
		if (n == -EAGAIN || n == -EINTR)
			break;
		if (n <= 0) {
			/* EOF or error: the peer is gone without a word. */
			memif_cc_close(&ch->cc, NULL, &out);
			if (ch->ifc != NULL && ch->ifc->connected == false && n == 0)
				MEMIF_LOG(INFO, "%s: peer closed the control channel",
					  ch->log_name);
			memif_chan_close(ch);
			break;
		}
		if (extra) {
			if (afd >= 0)
				close(afd);
			memif_cc_close(&ch->cc, "More than one file descriptor with a message",
				       &out);
			memif_chan_send(ch, &out);
			memif_chan_close(ch);
			break;
		}
		ret = memif_cc_input(&ch->cc, buf, (size_t)n, afd, &out);
		memif_chan_send(ch, &out);
		if (ret < 0) {
			memif_chan_close(ch);
			break;
		}
		/* Server: INIT accepted binds the channel to its interface. */
		if (ch->ifc == NULL && ch->cc.cfg != NULL)
			memif_if_chan_bind(ch);
	}
	pthread_mutex_unlock(&memif_lock);
}

/* ------------------------------------------------------------------------
 * Listener (server) and connector (client)
 */

static void listener_cb(int fd, void *arg)
{
	struct memif_sock *s = arg;
	int cfd;

	pthread_mutex_lock(&memif_lock);
	while ((cfd = accept4(fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) >= 0)
		(void)memif_chan_new(cfd, s, NULL);
	pthread_mutex_unlock(&memif_lock);
}

/*
 * A file-system name that is taken (EADDRINUSE at bind): replace it only
 * when it is a stale socket -- a socket file nobody accepts on, left by a
 * process that died. A live socket, or anything that is not a socket (a
 * regular file, a directory), is left alone and refused with what it is.
 * @return 0 when the stale socket was removed, else -errno after a log line.
 */
static int stale_socket_remove(const struct memif_sock *s, const char *if_name,
			       const struct sockaddr_un *un, socklen_t alen)
{
	struct stat st;
	int probe, err;

	if (lstat(s->name, &st) < 0) {
		err = errno;
		MEMIF_LOG(ERR, "%s: cannot listen on %s: in use, and lstat: %s", if_name, s->name,
			  strerror(err));
		return dvp_err(EADDRINUSE);
	}
	if (!S_ISSOCK(st.st_mode)) {
		MEMIF_LOG(ERR,
			  "%s: cannot listen on %s: it is a %s, not a socket; only a stale socket "
			  "is replaced (remove it, or choose another socket=)",
			  if_name, s->name,
			  S_ISREG(st.st_mode) ? "regular file" :
			  S_ISDIR(st.st_mode) ? "directory" :
			  S_ISLNK(st.st_mode) ? "symbolic link" :
						"special file");
		return dvp_err(EADDRINUSE);
	}
	/* Non-blocking: a live server with a full backlog answers EAGAIN, not a hang. */
	probe = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (probe < 0) {
		err = errno;
		MEMIF_LOG(ERR, "%s: cannot listen on %s: in use, and socket: %s", if_name, s->name,
			  strerror(err));
		return dvp_err(EADDRINUSE);
	}
	err = connect(probe, (const struct sockaddr *)un, alen) == 0 ? 0 : errno;
	close(probe);
	if (err != ECONNREFUSED) {
		MEMIF_LOG(ERR,
			  "%s: cannot listen on %s: a live socket is there (%s); a live socket "
			  "is never replaced",
			  if_name, s->name,
			  err == 0	    ? "a server accepts on it" :
			  err == EAGAIN	    ? "a server with a full backlog" :
			  err == EPROTOTYPE ? "a socket of another type" :
					      strerror(err));
		return dvp_err(EADDRINUSE);
	}
	if (unlink(s->name) < 0) {
		err = errno;
		MEMIF_LOG(ERR, "%s: cannot replace the stale socket %s: %s", if_name, s->name,
			  strerror(err));
		return dvp_err(err);
	}
	MEMIF_LOG(NOTICE, "%s: replaced the stale socket %s (nobody accepted on it)", if_name,
		  s->name);
	return 0;
}

/* Listen on @s's name. @return 0 or -errno after a log line. */
static int listener_open(struct memif_sock *s, const char *if_name)
{
	struct sockaddr_un un;
	socklen_t alen = sock_addr(s->name, s->abstract, &un);
	struct stat st;
	int fd, ret, err;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		err = errno;
		MEMIF_LOG(ERR, "%s: socket: %s", if_name, strerror(err));
		return dvp_err(err);
	}
	ret = bind(fd, (struct sockaddr *)&un, alen);
	if (ret < 0 && errno == EADDRINUSE && !s->abstract) {
		ret = stale_socket_remove(s, if_name, &un, alen);
		if (ret < 0) {
			close(fd);
			return ret;
		}
		ret = bind(fd, (struct sockaddr *)&un, alen);
	}
	if (ret < 0 || listen(fd, 8) < 0) {
		err = errno;
		MEMIF_LOG(ERR, "%s: cannot listen on %s%s: %s%s", if_name,
			  s->abstract ? "abstract socket " : "", s->name, strerror(err),
			  err == EADDRINUSE ? " (another server has that abstract name)" : "");
		close(fd);
		return dvp_err(err);
	}
	/* What destroy may unlink: this file, not one that replaced it since. */
	if (!s->abstract && lstat(s->name, &st) == 0) {
		s->dev = st.st_dev;
		s->ino = st.st_ino;
	}
	s->lfd = fd;
	return 0;
}

int memif_sock_connect(const char *name, bool abstract)
{
	struct sockaddr_un un;
	socklen_t alen = sock_addr(name, abstract, &un);
	int fd, err;

	/*
	 * Non-blocking before connect: this runs on the thread that starts the
	 * port and, on reconnect, on the EAL interrupt thread with memif_lock
	 * held; a server that never accepts must not hang either. A connect
	 * still in progress (EINPROGRESS) goes on as a channel: its outcome
	 * arrives as input (HELLO) or as an error on the fd, and the handshake
	 * deadline bounds the wait.
	 */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (connect(fd, (struct sockaddr *)&un, alen) < 0 && errno != EINPROGRESS) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* ------------------------------------------------------------------------
 * Sockets: the names interfaces share
 */

int memif_sock_join(struct memif_if *ifc)
{
	const struct memif_if_params *p = &ifc->p;
	bool client = p->role == MEMIF_ROLE_CLIENT;
	struct memif_sock *s;
	struct memif_if *o;
	int ret;

	pthread_mutex_lock(&memif_lock);
	for (s = memif_socks; s != NULL; s = s->next)
		if (s->role == p->role && s->abstract == p->abstract &&
		    strcmp(s->name, p->socket) == 0)
			break;
	if (s != NULL) {
		for (o = s->ifs; o != NULL; o = o->next) {
			if (o->cfg.id == p->id) {
				pthread_mutex_unlock(&memif_lock);
				MEMIF_LOG(
					ERR,
					"%s: id %u is taken on socket %s by %s (ids of one socket "
					"must differ)",
					p->if_name, p->id, p->socket, o->p.if_name);
				return dvp_err(EEXIST);
			}
		}
	} else {
		s = calloc(1, sizeof(*s));
		if (s == NULL) {
			pthread_mutex_unlock(&memif_lock);
			return dvp_err(ENOMEM);
		}
		snprintf(s->name, sizeof(s->name), "%s", p->socket);
		s->abstract = p->abstract;
		s->role = p->role;
		s->lfd = -1;
		if (!client) {
			ret = listener_open(s, p->if_name);
			if (ret < 0) {
				pthread_mutex_unlock(&memif_lock);
				free(s);
				return ret;
			}
		}
		s->next = memif_socks;
		memif_socks = s;
		if (!client && dvp_intr_callback_register(s->lfd, listener_cb, s) < 0)
			MEMIF_LOG(ERR, "%s: cannot watch listener %s", p->if_name, p->socket);
	}
	ifc->sock = s;
	ifc->next = s->ifs;
	s->ifs = ifc;
	pthread_mutex_unlock(&memif_lock);
	return 0;
}

void memif_sock_leave(struct memif_if *ifc)
{
	struct memif_sock *s = ifc->sock, **sp;
	struct memif_if **ip;
	struct stat st;
	int lfd = -1;

	if (s == NULL)
		return;
	pthread_mutex_lock(&memif_lock);
	for (ip = &s->ifs; *ip != NULL; ip = &(*ip)->next)
		if (*ip == ifc) {
			*ip = ifc->next;
			break;
		}
	if (s->ifs == NULL) {
		for (sp = &memif_socks; *sp != NULL; sp = &(*sp)->next)
			if (*sp == s) {
				*sp = s->next;
				break;
			}
		lfd = s->lfd;
	} else {
		s = NULL;
	}
	ifc->sock = NULL;
	pthread_mutex_unlock(&memif_lock);
	if (s == NULL)
		return;
	if (lfd >= 0) {
		dvp_intr_callback_unregister(lfd, listener_cb, s);
		close(lfd);
		/* Only the file we bound: another process may have replaced it. */
		if (!s->abstract && lstat(s->name, &st) == 0 && S_ISSOCK(st.st_mode) &&
		    st.st_dev == s->dev && st.st_ino == s->ino)
			unlink(s->name);
	}
	free(s);
}
