/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Control sockets: listeners, control channels and the client's reconnect
 * timer, all served on the EAL interrupt thread. One mutex guards the
 * control-plane state; the data path never takes it (see memif_rxtx.h).
 *
 * A callback is unregistered from the control thread only without the
 * mutex held: dvp_intr_callback_unregister() waits for a running callback,
 * which may be waiting for the mutex.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_interrupts.h>

#include "memif_log.h"
#include "memif_socket.h"
#include "memif_zc.h"

struct memif_sock;

struct memif_chan {
	int fd;
	int hfd; /* handshake deadline (timerfd), disarmed at CONNECTED */
	uint32_t hs_ms;
	bool dead;
	struct memif_sock *sock; /* server: the listener it came from */
	struct memif_if *ifc; /* bound interface (client: always) */
	struct memif_cc cc;
	char log_name[128];
};

struct memif_if {
	struct memif_if_params p;
	struct memif_if_cfg cfg;
	struct memif_sock *sock;
	struct memif_if *next; /* on sock */
	memif_link_cb link_cb;
	void *link_arg;
	bool started;
	bool connected;
	struct memif_chan *chan;
	int tfd; /* client: reconnect timer */
	int vfd; /* eventfd a queue writes when its peer broke the ring protocol */
	bool disc_error; /* the next disconnect is our verdict on the peer: logged as an error */
	unsigned int backoff_ms;
	bool warned; /* client: the first failed connect was logged */
	struct memif_if_stats st;
	char last_reason[MEMIF_DISC_STRING_SZ];
	char remote_app[MEMIF_NAME_SZ];
	char remote_if[MEMIF_NAME_SZ];
	/* The port's queues, given at start. */
	uint16_t nb_rxq;
	uint16_t nb_txq;
	struct memif_queue *rxq[MEMIF_MAX_QUEUES];
	struct memif_queue *txq[MEMIF_MAX_QUEUES];
	struct memif_shm shm;
};

struct memif_sock {
	char name[MEMIF_SOCKET_NAME_MAX + 1];
	bool abstract;
	enum memif_role role;
	int lfd; /* server: listener */
	dev_t dev; /* server, file-system name: the socket file we bound */
	ino_t ino;
	struct memif_if *ifs;
	struct memif_sock *next;
};

static pthread_mutex_t memif_lock = PTHREAD_MUTEX_INITIALIZER;
static struct memif_sock *memif_socks;

static void chan_free(struct memif_chan *ch);
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

static void chan_send(struct memif_chan *ch, const struct memif_cc_out *out)
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

static const struct memif_cc_ops memif_env_ops = {
	.lookup = env_lookup,
	.check_region = env_check_region,
	.check_ring_fd = env_check_ring_fd,
	.prepare = env_prepare,
	.connected = env_connected,
	.disconnected = env_disconnected,
};

/* ------------------------------------------------------------------------
 * Channels
 */

/* Close a channel (lock held). From the interrupt thread only. */
static void chan_close_here(struct memif_chan *ch)
{
	struct memif_if *ifc = ch->ifc;

	ch->dead = true;
	if (ifc != NULL && ifc->chan == ch) {
		ifc->chan = NULL;
		if (ifc->p.role == MEMIF_ROLE_CLIENT)
			arm_reconnect(ifc);
	}
	dvp_intr_callback_unregister(ch->fd, chan_cb, ch);
	if (ch->hfd >= 0)
		dvp_intr_callback_unregister(ch->hfd, handshake_cb, ch);
	chan_free(ch);
}

static void chan_free(struct memif_chan *ch)
{
	if (ch->fd >= 0)
		close(ch->fd);
	if (ch->hfd >= 0)
		close(ch->hfd);
	free(ch);
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

static struct memif_chan *chan_new(int fd, struct memif_sock *sock, struct memif_if *ifc)
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
		      ifc != NULL ? &ifc->cfg : NULL, &memif_env_ops, ch, ch->log_name, &out);
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
	chan_send(ch, &out);
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
		chan_send(ch, &out);
		chan_close_here(ch);
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
			chan_close_here(ch);
			break;
		}
		if (extra) {
			if (afd >= 0)
				close(afd);
			memif_cc_close(&ch->cc, "More than one file descriptor with a message",
				       &out);
			chan_send(ch, &out);
			chan_close_here(ch);
			break;
		}
		ret = memif_cc_input(&ch->cc, buf, (size_t)n, afd, &out);
		chan_send(ch, &out);
		if (ret < 0) {
			chan_close_here(ch);
			break;
		}
		/* Server: INIT accepted binds the channel to its interface. */
		if (ch->ifc == NULL && ch->cc.cfg != NULL) {
			ch->ifc = dvp_container_of(ch->cc.cfg, struct memif_if, cfg);
			ch->ifc->chan = ch;
			snprintf(ch->log_name, sizeof(ch->log_name), "%s", ch->ifc->p.if_name);
		}
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
		(void)chan_new(cfd, s, NULL);
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

static void client_try(struct memif_if *ifc)
{
	struct sockaddr_un un;
	socklen_t alen = sock_addr(ifc->p.socket, ifc->p.abstract, &un);
	int fd;

	ifc->st.connect_attempts++;
	/*
	 * Non-blocking before connect: this runs on the thread that starts the
	 * port and, on reconnect, on the EAL interrupt thread with memif_lock
	 * held; a server that never accepts must not hang either. A connect
	 * still in progress (EINPROGRESS) goes on as a channel: its outcome
	 * arrives as input (HELLO) or as an error on the fd, and the handshake
	 * deadline bounds the wait.
	 */
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || (connect(fd, (struct sockaddr *)&un, alen) < 0 && errno != EINPROGRESS)) {
		int err = errno;

		if (fd >= 0)
			close(fd);
		if (!ifc->warned)
			MEMIF_LOG(NOTICE, "%s: no server on %s%s (%s%s): retrying", ifc->p.if_name,
				  ifc->p.abstract ? "@" : "", ifc->p.socket, strerror(err),
				  err == EAGAIN ? ": its backlog is full" : "");
		ifc->warned = true;
		arm_reconnect(ifc);
		return;
	}
	ifc->warned = false;
	ifc->chan = chan_new(fd, NULL, ifc);
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
		chan_send(ch, &out);
		chan_close_here(ch);
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
	struct memif_if *ifc, *o;
	struct memif_sock *s;
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
				free(ifc);
				return null_err(EEXIST);
			}
		}
	} else {
		s = calloc(1, sizeof(*s));
		if (s == NULL) {
			pthread_mutex_unlock(&memif_lock);
			free(ifc);
			return null_err(ENOMEM);
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
				free(ifc);
				return null_err(-ret);
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
		chan_send(ch, &out);
	}
	queues_down(ifc);
	memif_shm_release(&ifc->shm);
	pthread_mutex_unlock(&memif_lock);
	if (ch != NULL) {
		/* Without the lock: a running chan_cb may be waiting for it. */
		dvp_intr_callback_unregister(ch->fd, chan_cb, ch);
		if (ch->hfd >= 0)
			dvp_intr_callback_unregister(ch->hfd, handshake_cb, ch);
		chan_free(ch);
	}
}

void memif_if_destroy(struct memif_if *ifc)
{
	struct memif_sock *s, **sp;
	struct memif_if **ip;
	struct stat st;
	int lfd = -1;

	if (ifc == NULL)
		return;
	s = ifc->sock;
	memif_if_stop(ifc);
	if (ifc->tfd >= 0) {
		dvp_intr_callback_unregister(ifc->tfd, timer_cb, ifc);
		close(ifc->tfd);
	}
	if (ifc->vfd >= 0) {
		dvp_intr_callback_unregister(ifc->vfd, violation_cb, ifc);
		close(ifc->vfd);
	}
	pthread_mutex_lock(&memif_lock);
	if (s != NULL) {
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
	}
	pthread_mutex_unlock(&memif_lock);
	if (s != NULL) {
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
