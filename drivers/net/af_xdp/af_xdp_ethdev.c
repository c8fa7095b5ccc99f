/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_af_xdp as a port: devargs (DPDK's names where DPDK has them), probe
 * and remove, and the lib/port ops. The port is the netdev's: its MAC
 * address, MTU, promiscuous mode and link are read and set on the netdev,
 * and the link is followed on the EAL interrupt thread (af_xdp_netdev.c).
 * Sockets exist from start to stop (af_xdp_xsk.c).
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <dvp_bus.h>
#include <dvp_errno.h>
#include <dvp_fd.h>
#include <dvp_malloc.h>
#include <dvp_port_driver.h>

#include "af_xdp_log.h"
#include "af_xdp_port.h"

DVP_LOG_REGISTER(af_xdp_logtype, "pmd.net.af_xdp", NOTICE);

static const struct dvp_devargs_key af_xdp_keys[] = {
	{ "iface", "the netdev to run on, in this process's network namespace (required)" },
	{ "start_queue", "the netdev's first queue the port uses, 0 to 1023 (default 0)" },
	{ "queue_count",
	  "queues from start_queue on, 1 to " DVP_STR(
		  AF_XDP_MAX_QUEUES) ": the port's most rx and tx queues (default 1)" },
	{ "shared_umem", "yes: the port's queues share one UMEM (the pool's memory registered "
			 "once) instead of one each; they must then have one pool (default no)" },
	{ "xdp_prog", "an XDP program object file to attach instead of libxdp's, with an XSKMAP "
		      "named xsks_map keyed by rx queue (default: libxdp's program)" },
	{ "busy_budget", "frames a busy poll may take (SO_BUSY_POLL_BUDGET), 0 to 65535; 0: no "
			 "busy polling (default 0; not with rx interrupts)" },
	{ "force_copy", "yes: bind the sockets in copy mode even where the driver has "
			"zero-copy (default no: zero-copy where the driver has it)" },
	{ "xdp_mode", "native, generic or auto: where the XDP program runs (default auto: "
		      "native where the driver has it)" },
	{ "umem", "pool, own or auto: the UMEM is the mbuf pool's memory (no copy in user "
		  "space), the socket's own area (frames copied), or the pool's where it can "
		  "be (default auto)" },
	{ NULL, NULL },
};

/* ------------------------------------------------------------------------
 * Link and netdev events
 */

/* A netdev that cannot be read is down; the reading is the cause (netlink says no more). */
static int link_read(struct dvp_port *port, struct dvp_link *link, enum dvp_port_event_cause *cause,
		     void *arg)
{
	struct af_xdp_port *xp = arg;

	(void)port;
	if (af_xdp_netdev_link_get(&xp->nd, link) < 0) {
		memset(link, 0, sizeof(*link));
		link->link_status = DVP_LINK_DOWN;
	}
	*cause = link->link_status == DVP_LINK_UP ? DVP_PORT_CAUSE_LINK_UP :
						    DVP_PORT_CAUSE_LINK_DOWN;
	return 0;
}

static void link_report(struct af_xdp_port *xp)
{
	if (dvp_port_link_report(xp->port, link_read, xp, DVP_PORT_CAUSE_NONE) > 0)
		__atomic_fetch_add(&xp->link_events, 1, __ATOMIC_RELAXED);
}

/* Wake the lcores asleep on the rx queues: they find what changed. */
static void kick_rxqs(struct dvp_port *port)
{
	uint16_t q;

	for (q = 0; q < port->nb_rx_queues; q++) {
		struct af_xdp_rxq *rxq = port->rxqs[q];

		if (rxq != NULL && rxq->intr)
			dvp_rxwait_queue_kick(&rxq->iq);
	}
}

/* On the EAL interrupt thread. */
static void netdev_event(void *arg, enum af_xdp_netdev_event ev)
{
	struct af_xdp_port *xp = arg;
	struct dvp_port *port = xp->port;
	struct dvp_link down = { .link_status = DVP_LINK_DOWN };

	dvp_port_ctrl_lock(port);
	if (ev == AF_XDP_NETDEV_GONE) {
		AF_XDP_LOG(ERR, "%s: netdev %s (ifindex %d) is gone from this network namespace",
			   port->name, xp->nd.name, xp->nd.ifindex);
		if (dvp_port_link_set(port, &down, DVP_PORT_CAUSE_LINK_DOWN) > 0)
			__atomic_fetch_add(&xp->link_events, 1, __ATOMIC_RELAXED);
		dvp_port_removal_report(port, DVP_PORT_CAUSE_NONE);
	} else {
		link_report(xp);
	}
	/* The link coming up or the device going: either may be work for a sleeper. */
	kick_rxqs(port);
	dvp_port_ctrl_unlock(port);
}

static int af_xdp_link_update(struct dvp_port *port, bool wait)
{
	/* The netdev says at once; a carrier coming up is reported when it does. */
	(void)wait;
	link_report(port->priv);
	return 0;
}

/* ------------------------------------------------------------------------
 * Ops
 */

static int af_xdp_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	struct af_xdp_port *xp = port->priv;

	info->max_rx_queues = xp->conf.queue_count;
	info->max_tx_queues = xp->conf.queue_count;
	info->rx_desc_lim = (struct dvp_desc_lim){
		.nb_max = AF_XDP_MAX_DESC,
		.nb_min = AF_XDP_MIN_DESC,
		.nb_align = AF_XDP_MIN_DESC,
	};
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxq_size = AF_XDP_DEFAULT_DESC;
	info->default_txq_size = AF_XDP_DEFAULT_DESC;
	/* Chains and other pools' mbufs are sent, copied into the UMEM. */
	info->tx_offload_capa = DVP_TX_OFFLOAD_MULTI_SEGS;
	info->min_mtu = 68;
	info->max_rx_pktlen = AF_XDP_CHUNK_MAX - AF_XDP_RX_HEADROOM;
	info->max_mtu = (uint16_t)(info->max_rx_pktlen - 14 - 4);
	info->intr_capa = DVP_PORT_INTR_RXQ | DVP_PORT_INTR_LSC | DVP_PORT_INTR_RMV |
			  DVP_PORT_INTR_QUEUE_ERROR;
	info->speed_capa_mbps = DVP_LINK_SPEED_100G;
	return 0;
}

static int af_xdp_configure(struct dvp_port *port)
{
	struct af_xdp_port *xp = port->priv;
	uint16_t mtu;

	if (port->nb_tx_queues > port->nb_rx_queues) {
		AF_XDP_LOG(ERR,
			   "%s: %u tx queues for %u rx queues: tx queue q sends on rx queue q's "
			   "socket, so a port has at most as many tx queues as rx queues",
			   port->name, port->nb_tx_queues, port->nb_rx_queues);
		return dvp_err(EINVAL);
	}
	if (af_xdp_netdev_mtu_get(&xp->nd, &mtu) == 0 && mtu != port->conf.rxmode.mtu)
		return af_xdp_netdev_mtu_set(&xp->nd, (uint16_t)port->conf.rxmode.mtu);
	return 0;
}

static bool desc_ok(const struct dvp_port *port, const char *what, uint16_t q, uint16_t nb_desc)
{
	if (dvp_is_power_of_2(nb_desc))
		return true;
	AF_XDP_LOG(ERR, "%s %s queue %u: %u descriptors: an AF_XDP ring is a power of two",
		   port->name, what, q, nb_desc);
	dvp_err(EINVAL);
	return false;
}

static int af_xdp_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			    const struct dvp_rxq_conf *conf, struct dvp_mempool *mp)
{
	struct af_xdp_rxq *rxq;
	int ret;

	(void)conf;
	if (!desc_ok(port, "rx", q, nb_desc))
		return -EINVAL;
	rxq = dvp_zmalloc_socket("af_xdp rxq", sizeof(*rxq), DVP_CACHE_LINE_SIZE, socket_id);
	if (rxq == NULL)
		return -dvp_errno;
	rxq->port = port;
	rxq->port_id = port->port_id;
	rxq->queue_id = q;
	rxq->nb_desc = nb_desc;
	rxq->socket_id = socket_id;
	rxq->mp = mp;
	rxq->fd = -1;
	rxq->epfd = -1;
	if (port->conf.intr_conf.rxq) {
		struct dvp_rxwait_queue_conf ic;

		rxq->epfd = epoll_create1(EPOLL_CLOEXEC);
		/* lib/rxwait refuses a blocking fd: its reads must never hang the lcore. */
		if (rxq->epfd < 0 || dvp_fd_set_nonblock(rxq->epfd) < 0) {
			ret = -errno;
			AF_XDP_LOG(ERR, "%s rx queue %u: no epoll set for rx interrupts: %s",
				   port->name, q, strerror(-ret));
			goto fail;
		}
		rxq->intr = true;
		ic = dvp_port_rxq_intr_conf(port, q, rxq->epfd);
		ret = dvp_port_rxq_intr_init(port, q, &rxq->iq, &af_xdp_intr_ops, rxq, &ic);
		if (ret < 0)
			goto fail;
	}
	dvp_port_queue_fault_attach(port, q, false, &rxq->fault);
	port->rxqs[q] = rxq;
	return 0;
fail:
	if (rxq->epfd >= 0)
		close(rxq->epfd);
	dvp_free(rxq);
	return dvp_err(-ret);
}

static void af_xdp_rxq_release(struct dvp_port *port, uint16_t q)
{
	struct af_xdp_rxq *rxq = port->rxqs[q];

	/* Out of its wait set first; nothing to ack. */
	dvp_rxwait_queue_fini(&rxq->iq);
	if (rxq->epfd >= 0)
		close(rxq->epfd);
	port->rxqs[q] = NULL;
	port->rxq_intr[q] = NULL;
	dvp_free(rxq);
}

static int af_xdp_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			    const struct dvp_txq_conf *conf)
{
	struct af_xdp_txq *txq;

	(void)conf;
	if (!desc_ok(port, "tx", q, nb_desc))
		return -EINVAL;
	txq = dvp_zmalloc_socket("af_xdp txq", sizeof(*txq), DVP_CACHE_LINE_SIZE, socket_id);
	if (txq == NULL)
		return -dvp_errno;
	txq->port = port;
	txq->port_id = port->port_id;
	txq->queue_id = q;
	txq->nb_desc = nb_desc;
	txq->socket_id = socket_id;
	txq->fd = -1;
	dvp_port_queue_fault_attach(port, q, true, &txq->fault);
	port->txqs[q] = txq;
	return 0;
}

static void af_xdp_txq_release(struct dvp_port *port, uint16_t q)
{
	dvp_free(port->txqs[q]);
	port->txqs[q] = NULL;
}

static int af_xdp_start(struct dvp_port *port)
{
	struct af_xdp_port *xp = port->priv;
	int ret;

	if (port->removed) {
		AF_XDP_LOG(ERR, "%s: netdev %s is gone; reset the port once it is back", port->name,
			   xp->nd.name);
		return dvp_err(ENODEV);
	}
	ret = af_xdp_xsk_start(xp);
	if (ret < 0)
		return ret;
	port->rx_pkt_burst = xp->pool_umem ? af_xdp_rx_pool : af_xdp_rx_own;
	port->tx_pkt_burst = xp->pool_umem ? af_xdp_tx_pool : af_xdp_tx_own;
	return 0;
}

static int af_xdp_stop(struct dvp_port *port)
{
	uint16_t q;

	af_xdp_xsk_stop(port->priv);
	/* A fault left from before the stop: the sockets it was about are closed. */
	for (q = 0; q < port->nb_rx_queues; q++)
		(void)dvp_queue_fault_take(&((struct af_xdp_rxq *)port->rxqs[q])->fault);
	for (q = 0; q < port->nb_tx_queues; q++)
		(void)dvp_queue_fault_take(&((struct af_xdp_txq *)port->txqs[q])->fault);
	return 0;
}

/*
 * The queue_restart op, for a fault raised on a stopped port: a stopped
 * port has no sockets, and start opens new ones, so there is nothing to
 * rebuild.
 */
static int af_xdp_queue_restart(struct dvp_port *port, uint16_t q, bool tx,
				enum dvp_port_event_cause cause)
{
	(void)port;
	(void)q;
	(void)tx;
	(void)cause;
	return 0;
}

static unsigned int af_xdp_mbufs_held(struct dvp_port *port)
{
	unsigned int held = 0;
	uint16_t q;

	/* Not concurrent with bursts (lib/port's rule): the bitmaps are still. */
	for (q = 0; q < port->nb_rx_queues; q++) {
		const struct af_xdp_rxq *rxq = port->rxqs[q];

		if (rxq != NULL)
			held += af_xdp_held_count(rxq->held, rxq->held_words);
	}
	for (q = 0; q < port->nb_tx_queues; q++) {
		const struct af_xdp_txq *txq = port->txqs[q];

		if (txq != NULL)
			held += af_xdp_held_count(txq->held, txq->held_words);
	}
	return held;
}

static int af_xdp_close(struct dvp_port *port)
{
	struct af_xdp_port *xp = port->priv;

	af_xdp_netdev_watch_stop(&xp->nd);
	pthread_mutex_destroy(&xp->xdp_lock);
	return 0;
}

/* After a removal: the netdev of that name, back (with a new ifindex, maybe). */
static int af_xdp_reset(struct dvp_port *port)
{
	struct af_xdp_port *xp = port->priv;
	int ret;

	af_xdp_netdev_watch_stop(&xp->nd);
	ret = af_xdp_netdev_reopen(&xp->nd);
	if (ret == 0)
		ret = af_xdp_netdev_mac_get(&xp->nd, &port->mac);
	if (ret == 0)
		ret = af_xdp_netdev_watch_start(&xp->nd, netdev_event, xp);
	if (ret == 0)
		link_report(xp);
	return ret;
}

static int af_xdp_promisc_enable(struct dvp_port *port)
{
	return af_xdp_netdev_promisc_set(&((struct af_xdp_port *)port->priv)->nd, true);
}

static int af_xdp_promisc_disable(struct dvp_port *port)
{
	return af_xdp_netdev_promisc_set(&((struct af_xdp_port *)port->priv)->nd, false);
}

static int af_xdp_mac_addr_set(struct dvp_port *port, const struct dvp_ether_addr *mac)
{
	return af_xdp_netdev_mac_set(&((struct af_xdp_port *)port->priv)->nd, mac);
}

static int af_xdp_mtu_set(struct dvp_port *port, uint16_t mtu)
{
	return af_xdp_netdev_mtu_set(&((struct af_xdp_port *)port->priv)->nd, mtu);
}

static const struct dvp_port_ops af_xdp_port_ops = {
	.info_get = af_xdp_info_get,
	.configure = af_xdp_configure,
	.rxq_setup = af_xdp_rxq_setup,
	.rxq_release = af_xdp_rxq_release,
	.txq_setup = af_xdp_txq_setup,
	.txq_release = af_xdp_txq_release,
	.start = af_xdp_start,
	.stop = af_xdp_stop,
	.close = af_xdp_close,
	.reset = af_xdp_reset,
	.queue_restart = af_xdp_queue_restart,
	.link_update = af_xdp_link_update,
	.promiscuous_enable = af_xdp_promisc_enable,
	.promiscuous_disable = af_xdp_promisc_disable,
	.mac_addr_set = af_xdp_mac_addr_set,
	.mtu_set = af_xdp_mtu_set,
	.stats_get = af_xdp_stats_get,
	.stats_reset = af_xdp_stats_reset,
	.xstats = af_xdp_xstats,
	.xstats_reset = af_xdp_xstats_reset,
	.mbufs_held = af_xdp_mbufs_held,
};

/* ------------------------------------------------------------------------
 * Probe
 */

static int parse_conf(const struct dvp_device *dev, struct af_xdp_conf *c)
{
	static const char *const modes[] = { "auto", "native", "generic", NULL };
	static const char *const umems[] = { "auto", "pool", "own", NULL };
	const struct dvp_devargs *da = dev->devargs;
	unsigned int mode = 0, umem = 0;
	uint32_t start = 0, count = 1, budget = 0;
	const char *prog;
	int ret;

	memset(c, 0, sizeof(*c));
	ret = dvp_devargs_get_u32(da, "start_queue", 0, 1023, 0, &start);
	if (ret == 0)
		ret = dvp_devargs_get_u32(da, "queue_count", 1, AF_XDP_MAX_QUEUES, 1, &count);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "shared_umem", false, &c->shared_umem);
	if (ret == 0)
		ret = dvp_devargs_get_u32(da, "busy_budget", 0, UINT16_MAX, 0, &budget);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "force_copy", false, &c->force_copy);
	if (ret == 0)
		ret = dvp_devargs_get_choice(da, "xdp_mode", modes, 0, &mode);
	if (ret == 0)
		ret = dvp_devargs_get_choice(da, "umem", umems, 0, &umem);
	if (ret < 0)
		return ret;
	c->start_queue = (uint16_t)start;
	c->queue_count = (uint16_t)count;
	c->busy_budget = budget;
	c->mode = (enum af_xdp_mode)mode;
	c->umem = (enum af_xdp_umem)umem;
	prog = dvp_devargs_get(da, "xdp_prog");
	if (prog != NULL) {
		if (prog[0] == '\0' || strlen(prog) >= sizeof(c->prog) || access(prog, R_OK) != 0) {
			AF_XDP_LOG(ERR, "%s: xdp_prog=%s: not a readable file (%s)", dev->name,
				   prog, prog[0] == '\0' ? "empty path" : strerror(errno));
			return dvp_err(EINVAL);
		}
		snprintf(c->prog, sizeof(c->prog), "%s", prog);
	}
	return 0;
}

static int af_xdp_probe(struct dvp_device *dev)
{
	struct af_xdp_netdev nd = { .nl_fd = -1 };
	struct af_xdp_conf conf;
	struct af_xdp_port *xp;
	struct dvp_port *port;
	uint16_t mtu = 1500;
	int ret, nq;

	ret = parse_conf(dev, &conf);
	if (ret < 0)
		return ret;
	if (dvp_devargs_get(dev->devargs, "iface") == NULL) {
		AF_XDP_LOG(ERR, "%s: no iface=<netdev> given: the port runs on a netdev",
			   dev->name);
		return dvp_err(EINVAL);
	}
	ret = af_xdp_netdev_open(&nd, dev->name, dvp_devargs_get(dev->devargs, "iface"));
	if (ret < 0)
		return ret;
	nq = af_xdp_netdev_queues(&nd);
	if (nq > 0 && conf.start_queue + conf.queue_count > nq) {
		AF_XDP_LOG(
			ERR,
			"%s: start_queue=%u queue_count=%u: %s has %d queues (0 to %d; ethtool -l "
			"%s)",
			dev->name, conf.start_queue, conf.queue_count, nd.name, nq, nq - 1,
			nd.name);
		return dvp_err(EINVAL);
	}
	af_xdp_xsk_log_init();
	port = dvp_port_allocate(dev->name, AF_XDP_DRIVER_NAME, &af_xdp_port_ops, dev, sizeof(*xp));
	if (port == NULL)
		return -dvp_errno;
	xp = port->priv;
	xp->port = port;
	xp->nd = nd;
	xp->conf = conf;
	xp->xsks_map_fd = -1;
	pthread_mutex_init(&xp->xdp_lock, NULL);
	ret = af_xdp_netdev_mac_get(&xp->nd, &port->mac);
	if (ret < 0)
		goto fail;
	(void)af_xdp_netdev_mtu_get(&xp->nd, &mtu);
	port->mtu = (uint16_t)DVP_MIN(mtu, AF_XDP_CHUNK_MAX - AF_XDP_RX_HEADROOM - 18);
	port->numa_node = nd.numa_node >= 0 ? nd.numa_node : dev->numa_node;
	ret = af_xdp_netdev_watch_start(&xp->nd, netdev_event, xp);
	if (ret < 0)
		goto fail;
	ret = dvp_port_probing_finish(port);
	if (ret < 0) {
		af_xdp_netdev_watch_stop(&xp->nd);
		goto fail;
	}
	link_report(xp);
	dev->driver_data = port;
	AF_XDP_LOG(INFO, "%s: on %s (ifindex %d), queues %u-%u of %d%s%s", dev->name, nd.name,
		   nd.ifindex, conf.start_queue, conf.start_queue + conf.queue_count - 1, nq,
		   conf.prog[0] != '\0' ? ", xdp_prog " : "", conf.prog);
	return 0;
fail:
	pthread_mutex_destroy(&xp->xdp_lock);
	dvp_port_release(port);
	return ret;
}

static struct dvp_driver af_xdp_driver = {
	.name = AF_XDP_DRIVER_NAME,
	.bus = DVP_BUS_VDEV,
	.keys = af_xdp_keys,
	.probe = af_xdp_probe,
	.remove = dvp_port_vdev_remove,
};

DVP_DRIVER_REGISTER(net_af_xdp, af_xdp_driver);
