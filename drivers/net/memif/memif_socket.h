/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the control transport (memif_socket.c: socket names, listeners,
 * channels) and the interfaces it carries (memif_if.c) share: the three
 * objects, the one lock over them, and the calls each makes into the
 * other. The rest of the driver sees interfaces through memif_if.h only.
 *
 * One mutex, memif_lock, guards every object here; the data path never
 * takes it (see memif_rxtx.h). A callback is unregistered from the
 * control thread only without the mutex held: dvp_intr_callback_unregister()
 * waits for a running callback, which may be waiting for the mutex.
 */

#ifndef MEMIF_SOCKET_H
#define MEMIF_SOCKET_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "memif_cc.h"
#include "memif_if.h"
#include "memif_rxtx.h"
#include "memif_shm.h"

/* One connected control socket and the state machine that speaks on it. */
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

/* An interface: memif_if.c's object, on its socket's list. */
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

/* A socket name in use by one role: the interfaces on it, a server's listener. */
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

extern pthread_mutex_t memif_lock;

/* memif_socket.c */

/*
 * Put @ifc on the socket its parameters name (takes memif_lock): made on
 * first use, with a server's listener (a stale file-system socket is
 * replaced, a live one refused). @return 0, or -errno after a log line
 * (EEXIST: its id is taken on that socket).
 */
int memif_sock_join(struct memif_if *ifc);

/*
 * Take @ifc off its socket (takes memif_lock); the last one out closes the
 * listener and unlinks the file it bound. Not from a callback.
 */
void memif_sock_leave(struct memif_if *ifc);

/* A client's connect to @name, non-blocking (may be in progress). @return the fd or -errno. */
int memif_sock_connect(const char *name, bool abstract);

/*
 * A channel over connected socket @fd (taken, closed on failure), watched
 * on the interrupt thread with its handshake deadline; a client's (@ifc
 * given) says nothing first, a server's (@sock given) sends HELLO.
 * memif_lock held. @return it, or NULL after a log line.
 */
struct memif_chan *memif_chan_new(int fd, struct memif_sock *sock, struct memif_if *ifc);

/* Send what the state machine produced, if anything. */
void memif_chan_send(struct memif_chan *ch, const struct memif_cc_out *out);

/* Close and free @ch: from its own callbacks only, memif_lock held. */
void memif_chan_close(struct memif_chan *ch);

/* Free @ch, marked dead under memif_lock: from outside its callbacks, without the lock. */
void memif_chan_release(struct memif_chan *ch);

/* memif_if.c */

/* The state machine's environment: interfaces looked up, connected, disconnected. */
extern const struct memif_cc_ops memif_if_cc_ops;

/* A server's channel whose INIT named an interface: it is that interface's now. */
void memif_if_chan_bind(struct memif_chan *ch);

/* @ch, closing, leaves @ifc (a client then retries after its back-off). */
void memif_if_chan_closed(struct memif_if *ifc, const struct memif_chan *ch);

#endif /* MEMIF_SOCKET_H */
