/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A port's AF_XDP sockets, UMEMs and XDP program, from start to stop.
 *
 * Sockets live from start to stop, not from queue setup to release: the
 * fill ring holds buffers (mbufs, with a pool UMEM) that only closing the
 * socket gives back, and stop must return every mbuf. So start opens one
 * socket per rx queue (tx queue q sends on rx queue q's), fills it and,
 * in interrupt mode, adds it to the rx queue's epoll set and kicks the
 * queue; stop closes them all and takes back what the kernel held.
 *
 * The UMEM: with a pool UMEM each socket registers the memory of its rx
 * queue's mbuf pool (one chunk of it, or the pool cannot be one), or with
 * shared_umem the port registers it once for all its queues. libxdp gives
 * a UMEM's descriptor to its first socket, which stays bound until the
 * UMEM is deleted: a UMEM therefore never outlives its port's stop, and
 * ports do not share one. An own UMEM is an area of the socket's, split
 * into rx frames (fill ring) and tx frames.
 *
 * The XDP program is libxdp's default (loaded by the first socket, removed
 * with the last) or, with xdp_prog, the user's object file, which must
 * have a map named xsks_map: it is attached here and each socket put in
 * its map.
 */

#include <errno.h>
#include <inttypes.h>
#include <linux/if_link.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <xdp/libxdp.h>

#include <dvp_errno.h>
#include <dvp_malloc.h>

#include "af_xdp_log.h"
#include "af_xdp_port.h"

#ifndef SO_PREFER_BUSY_POLL
#define SO_PREFER_BUSY_POLL 69
#endif
#ifndef SO_BUSY_POLL_BUDGET
#define SO_BUSY_POLL_BUDGET 70
#endif
/* Microseconds a busy poll may spin in the kernel (DPDK's value). */
#define AF_XDP_BUSY_POLL_US 20
#define AF_XDP_PAGE 4096u
/* How long a start waits for the kernel to let go of a queue's previous socket. */
#define AF_XDP_BIND_TRIES 300
#define AF_XDP_BIND_WAIT_US 10000
/* The own UMEM's frames: enough for a standard frame behind the kernel's headroom. */
#define AF_XDP_OWN_FRAME 2048u

struct af_xdp_umem_area {
	struct xsk_umem *umem;
	uint8_t *base; /* its address 0 */
	uint64_t len;
	uint32_t chunk;
	void *own; /* an own UMEM's area */
	unsigned int refs; /* sockets on it */
};

struct af_xdp_sock {
	struct xsk_socket *xsk;
	struct af_xdp_umem_area *umem;
	struct xsk_ring_cons comp_spare; /* an rx-only socket's completion ring */
};

/* ------------------------------------------------------------------------
 * libbpf's and libxdp's messages
 */

static int lib_print(int level, const char *fmt, va_list ap)
{
	char line[256];
	size_t n;

	vsnprintf(line, sizeof(line), fmt, ap);
	n = strlen(line);
	while (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	/*
	 * Their warnings include the normal course of things here (no bpffs,
	 * so no dispatcher): what matters is logged by us where it fails.
	 */
	if (level == 0)
		AF_XDP_LOG(INFO, "libxdp/libbpf: %s", line);
	else
		AF_XDP_LOG(DEBUG, "libxdp/libbpf: %s", line);
	return 0;
}

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return lib_print(level == LIBBPF_WARN ? 0 : 1, fmt, ap);
}

static int libxdp_print(enum libxdp_print_level level, const char *fmt, va_list ap)
{
	return lib_print(level == LIBXDP_WARN ? 0 : 1, fmt, ap);
}

void af_xdp_xsk_log_init(void)
{
	libbpf_set_print(libbpf_print);
	libxdp_set_print(libxdp_print);
}

/* ------------------------------------------------------------------------
 * UMEMs
 */

struct chunk_range {
	uintptr_t lo, hi;
	unsigned int n;
};

static void chunk_cb(struct dvp_mempool *mp, void *opaque, const struct dvp_mempool_memhdr *memhdr,
		     unsigned int idx)
{
	struct chunk_range *r = opaque;

	(void)mp;
	(void)idx;
	r->lo = (uintptr_t)memhdr->addr;
	r->hi = (uintptr_t)memhdr->addr + memhdr->len;
	r->n++;
}

/*
 * Whether @mp can be a UMEM: its objects in one chunk of memory, buffers
 * of at least a minimal chunk. Fills the range and mbuf_hdr (buf_addr -
 * mbuf, the same for every mbuf of a pool), or says why not in @why.
 */
static bool pool_umem_ok(struct dvp_mempool *mp, struct chunk_range *r, uint32_t *hdr,
			 const char **why)
{
	struct dvp_mbuf *m;

	memset(r, 0, sizeof(*r));
	dvp_mempool_mem_iter(mp, chunk_cb, r);
	if (r->n != 1) {
		*why = "its objects are in more than one chunk of memory";
		return false;
	}
	if (dvp_pktmbuf_data_room_size(mp) < AF_XDP_CHUNK_MIN) {
		*why = "its buffers are shorter than 2048 bytes";
		return false;
	}
	m = dvp_pktmbuf_alloc(mp);
	if (m == NULL) {
		*why = "it has no free mbuf";
		return false;
	}
	*hdr = (uint32_t)((uintptr_t)m->buf_addr - (uintptr_t)m);
	dvp_pktmbuf_free(m);
	return true;
}

static struct af_xdp_umem_area *umem_new(const struct af_xdp_port *xp, struct dvp_mempool *mp,
					 uint32_t fill_size, uint32_t comp_size,
					 uint32_t own_frames, int socket_id,
					 struct xsk_ring_prod *fill, struct xsk_ring_cons *comp)
{
	struct af_xdp_umem_area *u;
	struct xsk_umem_config cfg = {
		.fill_size = fill_size,
		.comp_size = comp_size,
		.frame_headroom = 0,
		.flags = XDP_UMEM_UNALIGNED_CHUNK_FLAG,
	};
	int ret;

	u = dvp_zmalloc_socket("af_xdp umem", sizeof(*u), 0, socket_id);
	if (u == NULL)
		return NULL;
	if (own_frames == 0) {
		struct chunk_range r;
		const char *why;
		uint32_t hdr;

		if (!pool_umem_ok(mp, &r, &hdr, &why)) {
			dvp_free(u);
			dvp_err(EINVAL);
			return NULL;
		}
		u->base = (uint8_t *)DVP_ALIGN_FLOOR(r.lo, (uintptr_t)AF_XDP_PAGE);
		u->len = DVP_ALIGN_CEIL(r.hi, (uintptr_t)AF_XDP_PAGE) - (uintptr_t)u->base;
		u->chunk = DVP_MIN((uint32_t)dvp_pktmbuf_data_room_size(mp), AF_XDP_CHUNK_MAX);
	} else {
		u->chunk = AF_XDP_OWN_FRAME;
		u->len = DVP_ALIGN_CEIL((uint64_t)own_frames * u->chunk, (uint64_t)AF_XDP_PAGE);
		u->own = dvp_zmalloc_socket("af_xdp frames", u->len, AF_XDP_PAGE, socket_id);
		if (u->own == NULL) {
			AF_XDP_LOG(ERR, "%s: no room for %u frames of UMEM on node %d",
				   xp->port->name, own_frames, socket_id);
			dvp_free(u);
			return NULL;
		}
		u->base = u->own;
	}
	cfg.frame_size = u->chunk;
	ret = xsk_umem__create(&u->umem, u->base, u->len, fill, comp, &cfg);
	if (ret != 0) {
		AF_XDP_LOG(ERR, "%s: the kernel refused a UMEM of %" PRIu64 " bytes at %p (%s): %s",
			   xp->port->name, u->len, (void *)u->base,
			   own_frames ? "own frames" : "the mbuf pool's memory", strerror(-ret));
		dvp_free(u->own);
		dvp_free(u);
		dvp_err(-ret);
		return NULL;
	}
	return u;
}

static void umem_put(struct af_xdp_umem_area *u)
{
	if (u == NULL || --u->refs != 0)
		return;
	(void)xsk_umem__delete(u->umem);
	dvp_free(u->own);
	dvp_free(u);
}

/* ------------------------------------------------------------------------
 * The XDP program given by xdp_prog
 */

static enum xdp_attach_mode attach_mode_of(enum af_xdp_mode mode)
{
	switch (mode) {
	case AF_XDP_MODE_NATIVE:
		return XDP_MODE_NATIVE;
	case AF_XDP_MODE_GENERIC:
		return XDP_MODE_SKB;
	default:
		return XDP_MODE_UNSPEC;
	}
}

static int prog_load(struct af_xdp_port *xp)
{
	struct bpf_object *obj;
	long err;
	int ret;

	xp->prog = xdp_program__open_file(xp->conf.prog, NULL, NULL);
	err = libxdp_get_error(xp->prog);
	if (err != 0) {
		AF_XDP_LOG(ERR, "%s: xdp_prog=%s: cannot open it as an XDP program object: %s",
			   xp->port->name, xp->conf.prog, strerror((int)-err));
		xp->prog = NULL;
		return dvp_err((int)-err);
	}
	ret = xdp_program__attach(xp->prog, xp->nd.ifindex, attach_mode_of(xp->conf.mode), 0);
	if (ret != 0) {
		AF_XDP_LOG(ERR, "%s: xdp_prog=%s: cannot attach it to %s: %s", xp->port->name,
			   xp->conf.prog, xp->nd.name, strerror(-ret));
		xdp_program__close(xp->prog);
		xp->prog = NULL;
		return dvp_err(-ret);
	}
	obj = xdp_program__bpf_obj(xp->prog);
	xp->xsks_map_fd = obj != NULL ? bpf_object__find_map_fd_by_name(obj, "xsks_map") : -1;
	if (xp->xsks_map_fd < 0) {
		AF_XDP_LOG(ERR,
			   "%s: xdp_prog=%s has no map named xsks_map (an XSKMAP the program "
			   "redirects to, keyed by rx queue)",
			   xp->port->name, xp->conf.prog);
		xdp_program__detach(xp->prog, xp->nd.ifindex, attach_mode_of(xp->conf.mode), 0);
		xdp_program__close(xp->prog);
		xp->prog = NULL;
		return dvp_err(EINVAL);
	}
	return 0;
}

static void prog_unload(struct af_xdp_port *xp)
{
	if (xp->prog == NULL)
		return;
	xdp_program__detach(xp->prog, xp->nd.ifindex, attach_mode_of(xp->conf.mode), 0);
	xdp_program__close(xp->prog);
	xp->prog = NULL;
	xp->xsks_map_fd = -1;
}

/* ------------------------------------------------------------------------
 * Sockets
 */

static void busy_poll_set(struct af_xdp_port *xp, struct af_xdp_rxq *rxq)
{
	int one = 1, us = AF_XDP_BUSY_POLL_US, budget = (int)xp->conf.busy_budget;

	rxq->busy_poll = false;
	if (budget == 0)
		return;
	/* Busy polling keeps the device's interrupts off: a sleeping lcore would wait. */
	if (rxq->intr) {
		if (rxq->queue_id == 0)
			AF_XDP_LOG(INFO,
				   "%s: busy_budget=%d not used: the rx queues sleep on "
				   "interrupts",
				   xp->port->name, budget);
		return;
	}
	if (setsockopt(rxq->fd, SOL_SOCKET, SO_PREFER_BUSY_POLL, &one, sizeof(one)) != 0 ||
	    setsockopt(rxq->fd, SOL_SOCKET, SO_BUSY_POLL, &us, sizeof(us)) != 0 ||
	    setsockopt(rxq->fd, SOL_SOCKET, SO_BUSY_POLL_BUDGET, &budget, sizeof(budget)) != 0) {
		AF_XDP_LOG(INFO, "%s rx queue %u: no busy polling (%s): it needs Linux 5.11",
			   xp->port->name, rxq->queue_id, strerror(errno));
		return;
	}
	rxq->busy_poll = true;
}

static uint64_t *held_map(uint64_t len, uint8_t shift, uint32_t *words, int socket_id)
{
	*words = (uint32_t)((len >> shift) / 64 + 1);
	return dvp_zmalloc_socket("af_xdp held", (size_t)*words * sizeof(uint64_t), 0, socket_id);
}

static void sock_close(struct af_xdp_port *xp, struct af_xdp_rxq *rxq)
{
	struct af_xdp_sock *s = rxq->sock;
	struct af_xdp_txq *txq = rxq->pair;

	if (s == NULL)
		return;
	if (rxq->intr && rxq->fd >= 0)
		epoll_ctl(rxq->epfd, EPOLL_CTL_DEL, rxq->fd, NULL);
	if (rxq->fd >= 0)
		af_xdp_stats_carry(xp, rxq);
	if (s->xsk != NULL)
		xsk_socket__delete(s->xsk);
	/* The UMEM's descriptor is its first socket's: the kernel lets go at its deletion. */
	umem_put(s->umem);
	rxq->fd = -1;
	if (txq != NULL) {
		txq->fd = -1;
		dvp_free(txq->frames);
		txq->frames = NULL;
		txq->nb_frames = 0;
	}
	dvp_free(s);
	rxq->sock = NULL;
}

/* After every UMEM is gone: take back what the kernel held, forget the rings. */
static void sock_reclaim(struct af_xdp_rxq *rxq)
{
	struct af_xdp_txq *txq = rxq->pair;

	af_xdp_rxq_reclaim(rxq);
	dvp_free(rxq->held);
	rxq->held = NULL;
	rxq->held_words = 0;
	if (txq != NULL) {
		af_xdp_txq_reclaim(txq);
		dvp_free(txq->held);
		txq->held = NULL;
		txq->held_words = 0;
		txq->room_wanted = 0;
	}
	rxq->pair = NULL;
}

static int sock_open(struct af_xdp_port *xp, struct af_xdp_rxq *rxq, struct af_xdp_txq *txq,
		     uint32_t fill_size, uint32_t comp_size)
{
	struct dvp_port *port = xp->port;
	struct xsk_socket_config cfg = {
		.rx_size = rxq->nb_desc,
		.tx_size = txq != NULL ? txq->nb_desc : 0,
		.libxdp_flags = xp->prog != NULL ? XSK_LIBXDP_FLAGS__INHIBIT_PROG_LOAD : 0,
		.bind_flags = XDP_USE_NEED_WAKEUP | (xp->conf.force_copy ? XDP_COPY : 0),
	};
	struct xsk_ring_cons *comp;
	struct af_xdp_sock *s;
	uint32_t qid = (uint32_t)xp->conf.start_queue + rxq->queue_id;
	uint32_t own_frames = 0;
	unsigned int tries;
	int ret;

	if (xp->conf.mode == AF_XDP_MODE_NATIVE)
		cfg.xdp_flags = XDP_FLAGS_DRV_MODE;
	else if (xp->conf.mode == AF_XDP_MODE_GENERIC)
		cfg.xdp_flags = XDP_FLAGS_SKB_MODE;
	s = dvp_zmalloc_socket("af_xdp socket", sizeof(*s), 0, rxq->socket_id);
	if (s == NULL)
		return -dvp_errno;
	rxq->sock = s;
	rxq->pair = txq;
	/*
	 * libxdp sets up the rings' shared pointers and sizes but not every
	 * cached index: what a previous socket left must not leak into these.
	 */
	memset(&rxq->rx, 0, sizeof(rxq->rx));
	memset(&rxq->fill, 0, sizeof(rxq->fill));
	if (txq != NULL) {
		memset(&txq->tx, 0, sizeof(txq->tx));
		memset(&txq->comp, 0, sizeof(txq->comp));
	}
	comp = txq != NULL ? &txq->comp : &s->comp_spare;
	if (!xp->pool_umem)
		own_frames = rxq->nb_desc + (txq != NULL ? txq->nb_desc : 0);
	if (xp->shared != NULL) {
		s->umem = xp->shared;
	} else {
		s->umem = umem_new(xp, rxq->mp, fill_size, comp_size, own_frames, rxq->socket_id,
				   &rxq->fill, comp);
		if (s->umem == NULL)
			return -dvp_errno;
		if (xp->conf.shared_umem && xp->pool_umem)
			xp->shared = s->umem;
	}
	s->umem->refs++;
	/*
	 * The kernel lets go of a queue's previous socket from a work item
	 * after the close (the buffer pool's release is deferred): a start
	 * right after a stop may find the queue still taken (EBUSY) for a
	 * moment. Bounded: AF_XDP_BIND_TRIES of AF_XDP_BIND_WAIT_US.
	 */
	for (tries = 0;; tries++) {
		ret = xsk_socket__create_shared(&s->xsk, xp->nd.name, qid, s->umem->umem, &rxq->rx,
						txq != NULL ? &txq->tx : NULL, &rxq->fill, comp,
						&cfg);
		if (ret != -EBUSY || tries == AF_XDP_BIND_TRIES)
			break;
		usleep(AF_XDP_BIND_WAIT_US);
	}
	if (tries != 0 && ret == 0)
		AF_XDP_LOG(INFO, "%s: queue %u of %s was free again after %u ms", port->name, qid,
			   xp->nd.name, tries * AF_XDP_BIND_WAIT_US / 1000);
	if (ret != 0) {
		s->xsk = NULL;
		AF_XDP_LOG(ERR,
			   "%s: cannot open an AF_XDP socket on %s queue %u: %s (the netdev's "
			   "queues: ethtool -l %s; needs root, or CAP_NET_ADMIN, CAP_NET_RAW "
			   "and CAP_BPF)",
			   port->name, xp->nd.name, qid, strerror(-ret), xp->nd.name);
		return dvp_err(-ret);
	}
	rxq->fd = xsk_socket__fd(s->xsk);
	if (xp->prog != NULL) {
		ret = xsk_socket__update_xskmap(s->xsk, xp->xsks_map_fd);
		if (ret != 0) {
			AF_XDP_LOG(
				ERR,
				"%s: cannot put the socket of queue %u in xdp_prog's xsks_map: %s",
				port->name, qid, strerror(-ret));
			return dvp_err(-ret);
		}
	}
	busy_poll_set(xp, rxq);
	rxq->base = s->umem->base;
	rxq->port_id = port->port_id;
	rxq->kick_failed = false;
	rxq->fill_debt = 0;
	if (xp->pool_umem) {
		struct chunk_range r;
		const char *why;

		(void)pool_umem_ok(rxq->mp, &r, &rxq->mbuf_hdr, &why);
		/* A granule no larger than a buffer: buffers never share one. */
		rxq->held_shift = (uint8_t)(31 - __builtin_clz(s->umem->chunk));
		rxq->held =
			held_map(s->umem->len, rxq->held_shift, &rxq->held_words, rxq->socket_id);
		if (rxq->held == NULL)
			return -dvp_errno;
	} else {
		rxq->mbuf_hdr = s->umem->chunk; /* own UMEM: the frame size */
		if (dvp_pktmbuf_data_room_size(rxq->mp) <
		    DVP_PKTMBUF_HEADROOM + s->umem->chunk - AF_XDP_RX_HEADROOM) {
			AF_XDP_LOG(
				ERR,
				"%s rx queue %u: the pool's buffers (%u bytes) are too short for "
				"a %u-byte frame behind %u bytes of headroom",
				port->name, rxq->queue_id, dvp_pktmbuf_data_room_size(rxq->mp),
				s->umem->chunk - AF_XDP_RX_HEADROOM, DVP_PKTMBUF_HEADROOM);
			return dvp_err(EINVAL);
		}
	}
	if (txq != NULL) {
		txq->base = s->umem->base;
		txq->fd = rxq->fd;
		txq->port_id = port->port_id;
		txq->chunk = s->umem->chunk;
		txq->kick_failed = false;
		txq->room_wanted = 0;
		if (xp->pool_umem) {
			txq->mp = rxq->mp;
			txq->mbuf_hdr = rxq->mbuf_hdr;
			txq->held_shift = rxq->held_shift;
			txq->held = held_map(s->umem->len, txq->held_shift, &txq->held_words,
					     txq->socket_id);
			if (txq->held == NULL)
				return -dvp_errno;
		} else {
			uint32_t i;

			txq->frames = dvp_malloc_socket("af_xdp tx frames",
							txq->nb_desc * sizeof(uint64_t), 0,
							txq->socket_id);
			if (txq->frames == NULL)
				return -dvp_errno;
			for (i = 0; i < txq->nb_desc; i++)
				txq->frames[i] = (uint64_t)(rxq->nb_desc + i) * s->umem->chunk;
			txq->nb_frames = txq->nb_desc;
		}
	}
	ret = af_xdp_rxq_fill_first(rxq);
	if (ret < 0)
		return ret;
	if (rxq->intr) {
		struct epoll_event ev = { .events = EPOLLIN, .data.fd = rxq->fd };

		if (epoll_ctl(rxq->epfd, EPOLL_CTL_ADD, rxq->fd, &ev) != 0) {
			ret = -errno;
			AF_XDP_LOG(ERR, "%s rx queue %u: cannot watch its socket: %s", port->name,
				   rxq->queue_id, strerror(-ret));
			return dvp_err(-ret);
		}
		rxq->ep_events = EPOLLIN;
	}
	return 0;
}

/* The kernel drops a frame longer than a chunk allows (imissed): say so once, at start. */
static void mtu_check(const struct af_xdp_port *xp, uint32_t chunk)
{
	uint32_t room = chunk - AF_XDP_RX_HEADROOM;

	if ((uint32_t)xp->port->mtu + 18 > room)
		AF_XDP_LOG(WARNING,
			   "%s: MTU %u: frames of up to %u bytes fit a UMEM chunk behind the "
			   "kernel's %u bytes of headroom; longer ones are dropped (imissed)",
			   xp->port->name, xp->port->mtu, room, AF_XDP_RX_HEADROOM);
}

/* Whether every rx queue's pool can be the UMEM; @why says why not. */
static bool pools_ok(struct dvp_port *port, const char **why, uint16_t *bad_q)
{
	struct chunk_range r;
	uint32_t hdr;
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++) {
		struct af_xdp_rxq *rxq = port->rxqs[q];

		if (!pool_umem_ok(rxq->mp, &r, &hdr, why)) {
			*bad_q = q;
			return false;
		}
		if (q > 0 && rxq->mp != ((struct af_xdp_rxq *)port->rxqs[0])->mp) {
			*why = "the rx queues have different pools (one UMEM covers one pool)";
			*bad_q = q;
			return false;
		}
	}
	return true;
}

static const char *attached_mode(const struct af_xdp_port *xp)
{
	LIBBPF_OPTS(bpf_xdp_query_opts, opts);

	if (bpf_xdp_query(xp->nd.ifindex, 0, &opts) != 0)
		return "unknown";
	switch (opts.attach_mode) {
	case XDP_ATTACHED_DRV:
		return "native";
	case XDP_ATTACHED_SKB:
		return "generic";
	case XDP_ATTACHED_HW:
		return "offloaded";
	case XDP_ATTACHED_MULTI:
		return "several";
	default:
		return "none";
	}
}

int af_xdp_xsk_start(struct af_xdp_port *xp)
{
	struct dvp_port *port = xp->port;
	uint32_t fill_size = 0, comp_size = AF_XDP_MIN_DESC;
	struct xdp_options opts = { 0 };
	socklen_t len = sizeof(opts);
	const char *why = NULL;
	uint16_t q, bad_q = 0;
	int ret;

	xp->pool_umem = xp->conf.umem != AF_XDP_UMEM_OWN && pools_ok(port, &why, &bad_q);
	if (!xp->pool_umem && xp->conf.umem == AF_XDP_UMEM_POOL) {
		AF_XDP_LOG(ERR, "%s: umem=pool: the pool of rx queue %u cannot be a UMEM: %s",
			   port->name, bad_q, why);
		return dvp_err(EINVAL);
	}
	if (!xp->pool_umem && why != NULL)
		AF_XDP_LOG(INFO,
			   "%s: frames copied through an own UMEM: the pool of rx queue %u "
			   "cannot be one: %s",
			   port->name, bad_q, why);
	for (q = 0; q < port->nb_rx_queues; q++)
		fill_size = DVP_MAX(fill_size, ((struct af_xdp_rxq *)port->rxqs[q])->nb_desc);
	for (q = 0; q < port->nb_tx_queues; q++)
		comp_size = DVP_MAX(comp_size, ((struct af_xdp_txq *)port->txqs[q])->nb_desc);
	if (xp->conf.prog[0] != '\0') {
		ret = prog_load(xp);
		if (ret < 0)
			return ret;
	}
	for (q = 0; q < port->nb_rx_queues; q++) {
		struct af_xdp_rxq *rxq = port->rxqs[q];
		struct af_xdp_txq *txq = q < port->nb_tx_queues ? port->txqs[q] : NULL;

		uint32_t fill = xp->conf.shared_umem ? fill_size : rxq->nb_desc;
		uint32_t comp = xp->conf.shared_umem ? comp_size :
				txq != NULL	     ? txq->nb_desc :
						       AF_XDP_MIN_DESC;

		/*
		 * The fill ring has room for twice the buffers it carries: the
		 * kernel publishes its consumer index lazily (when it has used
		 * up what it read), and a ring of just nb_desc would leave no
		 * room for a refill until then, while the kernel runs dry.
		 */
		ret = sock_open(xp, rxq, txq, 2 * fill, comp);
		if (ret < 0) {
			af_xdp_xsk_stop(xp);
			return ret;
		}
	}
	xp->xdp_mode_name = attached_mode(xp);
	mtu_check(xp, ((struct af_xdp_rxq *)port->rxqs[0])->sock->umem->chunk);
	xp->zero_copy = getsockopt(((struct af_xdp_rxq *)port->rxqs[0])->fd, SOL_XDP, XDP_OPTIONS,
				   &opts, &len) == 0 &&
			(opts.flags & XDP_OPTIONS_ZEROCOPY);
	/* Sleepers on the queues arm the new sockets. */
	for (q = 0; q < port->nb_rx_queues; q++) {
		struct af_xdp_rxq *rxq = port->rxqs[q];

		if (rxq->intr)
			dvp_rxwait_queue_kick(&rxq->iq);
	}
	AF_XDP_LOG(INFO, "%s: %u socket(s) on %s queues %u-%u, %s XDP (%s), %s, %s UMEM%s",
		   port->name, port->nb_rx_queues, xp->nd.name, xp->conf.start_queue,
		   xp->conf.start_queue + port->nb_rx_queues - 1, xp->xdp_mode_name,
		   xp->prog != NULL ? xp->conf.prog : "libxdp's program",
		   xp->zero_copy ? "zero-copy" : "copy mode", xp->pool_umem ? "pool" : "own",
		   xp->shared != NULL ? ", shared" : "");
	return 0;
}

void af_xdp_xsk_stop(struct af_xdp_port *xp)
{
	struct dvp_port *port = xp->port;
	uint16_t q;

	pthread_mutex_lock(&xp->xdp_lock);
	for (q = 0; q < port->nb_rx_queues; q++)
		if (port->rxqs[q] != NULL)
			sock_close(xp, port->rxqs[q]);
	pthread_mutex_unlock(&xp->xdp_lock);
	xp->shared = NULL;
	for (q = 0; q < port->nb_rx_queues; q++)
		if (port->rxqs[q] != NULL)
			sock_reclaim(port->rxqs[q]);
	prog_unload(xp);
}

void af_xdp_xsk_stats(const struct af_xdp_rxq *rxq, struct af_xdp_xdp_ctrs *c)
{
	struct xdp_statistics st = { 0 };
	socklen_t len = sizeof(st);

	memset(c, 0, sizeof(*c));
	if (rxq->fd < 0 || getsockopt(rxq->fd, SOL_XDP, XDP_STATISTICS, &st, &len) != 0)
		return;
	c->rx_dropped = st.rx_dropped;
	c->rx_invalid_descs = st.rx_invalid_descs;
	c->tx_invalid_descs = st.tx_invalid_descs;
	c->rx_ring_full = st.rx_ring_full;
	c->rx_fill_ring_empty_descs = st.rx_fill_ring_empty_descs;
	c->tx_ring_empty_descs = st.tx_ring_empty_descs;
}
