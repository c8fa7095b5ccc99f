/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A net_af_xdp port: its devargs, its netdev, and what its files share.
 * af_xdp_ethdev.c makes the port and its ops; af_xdp_xsk.c opens its
 * sockets at start and closes them at stop; af_xdp_stats.c counts.
 */

#ifndef AF_XDP_PORT_H
#define AF_XDP_PORT_H

#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <dvp_port_driver.h>

#include "af_xdp_netdev.h"
#include "af_xdp_rxtx.h"

#define AF_XDP_DRIVER_NAME "net_af_xdp"
#define AF_XDP_DEFAULT_DESC 2048
#define AF_XDP_MIN_DESC 64
#define AF_XDP_MAX_DESC 16384
#define AF_XDP_MAX_QUEUES 64

/* Where the XDP program runs (xdp_mode). */
enum af_xdp_mode {
	AF_XDP_MODE_AUTO, /* native where the driver has it, else generic */
	AF_XDP_MODE_NATIVE, /* in the driver */
	AF_XDP_MODE_GENERIC, /* on the kernel's skb path, any netdev */
};

/* What the UMEM is (umem). */
enum af_xdp_umem {
	AF_XDP_UMEM_AUTO, /* the pool's when it can be, else own */
	AF_XDP_UMEM_POOL, /* the mbuf pool's memory: no copy on our side */
	AF_XDP_UMEM_OWN, /* an area of the socket's: frames copied to and from mbufs */
};

struct af_xdp_conf {
	uint16_t start_queue;
	uint16_t queue_count;
	enum af_xdp_mode mode;
	enum af_xdp_umem umem;
	bool shared_umem; /* one UMEM for the port's queues */
	bool force_copy; /* bind with XDP_COPY: no zero-copy even where the driver has it */
	uint32_t busy_budget; /* 0: no busy polling */
	char prog[PATH_MAX]; /* xdp_prog: an object file with an xsks_map; "" for libxdp's */
};

/* The port's private data (port->priv). */
struct af_xdp_port {
	struct dvp_port *port;
	struct af_xdp_netdev nd;
	struct af_xdp_conf conf;
	/* From start to stop (af_xdp_xsk.c). */
	struct xdp_program *prog; /* xdp_prog's program; libxdp's own is the sockets' */
	int xsks_map_fd;
	struct af_xdp_umem_area *shared; /* shared_umem: the port's one UMEM */
	const char *xdp_mode_name; /* "native" or "generic", as attached */
	bool zero_copy; /* the kernel bound the sockets in zero-copy mode */
	bool pool_umem; /* the queues' UMEM is their pool's */
	/* Serialises the XDP counters' carry at stop with readers (telemetry). */
	pthread_mutex_t xdp_lock;
	/* Port counters (atomic: the interrupt thread and the control thread). */
	uint64_t link_events;
	uint64_t link_events_base;
};

/* af_xdp_xsk.c: sockets and UMEMs of every rx queue (and its tx pair). */
int af_xdp_xsk_start(struct af_xdp_port *xp);
void af_xdp_xsk_stop(struct af_xdp_port *xp);
/* The live socket's XDP_STATISTICS of rx queue @rxq (zeros when stopped). */
void af_xdp_xsk_stats(const struct af_xdp_rxq *rxq, struct af_xdp_xdp_ctrs *c);
/* libbpf's and libxdp's messages into the driver's log. */
void af_xdp_xsk_log_init(void);

/* af_xdp_stats.c: the stats ops. */
int af_xdp_stats_get(struct dvp_port *port, struct dvp_port_stats *stats);
int af_xdp_stats_reset(struct dvp_port *port);
int af_xdp_xstats(struct dvp_port *port, struct dvp_xstats_out *o);
int af_xdp_xstats_reset(struct dvp_port *port);
/* At stop, before the socket of @rxq closes: keep its XDP counters. */
void af_xdp_stats_carry(struct af_xdp_port *xp, struct af_xdp_rxq *rxq);

#endif /* AF_XDP_PORT_H */
