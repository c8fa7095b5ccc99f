/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Rx interrupts and port events of net_dvp ports.
 *
 * Rx interrupts: DPDK's rte_eth_dev_rx_intr_ctl_q() puts the fd of each
 * rx queue (the interrupt handle's efds) into the lcore's epoll set,
 * edge-triggered, and never reads it (the handle is RTE_INTR_HANDLE_EXT).
 * That fd is an epoll fd of ours holding two: the dvp queue's event fd (a
 * completion channel, an eventfd) and a kick eventfd. The ethdev API has
 * no "poll once more after arming": applications such as l3fwd-power arm
 * and go to sleep. So enable arms the queue through lib/rxwait and then asks
 * whether a packet landed before the arm took effect; if one did, it kicks,
 * and the lcore does not sleep on work already there. Disable reads the
 * queue's events (acked in batches by lib/rxwait) and the kick.
 *
 * Power monitor: get_monitor_addr gives DPDK's power management (and
 * l3fwd-power's --pmd-mgmt=monitor) what the dvp port's driver says to
 * watch (dvp_get_monitor_addr(): for mlx5 the op_own byte of the next
 * CQE), its check called straight: it is code of this process.
 *
 * Events: dvp's LINK_STATUS_CHANGE, REMOVAL and QUEUE_ERROR callbacks run
 * on dvpmd's interrupt dispatch, which is DPDK's interrupt thread here, and
 * become RTE_ETH_EVENT_INTR_LSC, _INTR_RMV, and _ERR_RECOVERING followed by
 * _RECOVERY_SUCCESS (dvpmd has restarted the queue when it reports it).
 */

#include <assert.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <rte_interrupts.h>
#include <rte_power_intrinsics.h>

#include "net_dvp.h"

static inline struct net_dvp_port *priv_of(struct rte_eth_dev *eth)
{
	return eth->data->dev_private;
}

static void rxq_fds_close(struct net_dvp_rxq *rxq)
{
	if (rxq->epoll_fd >= 0)
		close(rxq->epoll_fd);
	if (rxq->kick_fd >= 0)
		close(rxq->kick_fd);
	rxq->epoll_fd = rxq->kick_fd = -1;
}

static int rxq_fds_open(struct net_dvp_port *p, struct net_dvp_rxq *rxq)
{
	struct epoll_event ev = { .events = EPOLLIN };
	int qfd, ret;

	qfd = dvp_rx_intr_fd(p->dvp_port, rxq->queue_id);
	if (qfd < 0)
		return qfd;
	rxq->kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	rxq->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
	if (rxq->kick_fd < 0 || rxq->epoll_fd < 0)
		goto fail;
	ev.data.fd = qfd;
	if (epoll_ctl(rxq->epoll_fd, EPOLL_CTL_ADD, qfd, &ev) != 0)
		goto fail;
	ev.data.fd = rxq->kick_fd;
	if (epoll_ctl(rxq->epoll_fd, EPOLL_CTL_ADD, rxq->kick_fd, &ev) != 0)
		goto fail;
	return 0;
fail:
	ret = -errno;
	NET_DVP_LOG(ERR, "port %u rx queue %u: cannot set up its interrupt fds: %s", p->eth_port,
		    rxq->queue_id, rte_strerror(-ret));
	rxq_fds_close(rxq);
	return ret;
}

int net_dvp_intr_setup(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = priv_of(eth);
	struct rte_intr_handle *h = eth->intr_handle;
	uint16_t nq = eth->data->nb_rx_queues, i;
	int ret;

	if (!eth->data->dev_conf.intr_conf.rxq)
		return 0;
	if (nq > RTE_MAX_RXTX_INTR_VEC_ID) {
		NET_DVP_LOG(ERR, "port %u: rx interrupts for at most %d queues, %u configured",
			    p->eth_port, RTE_MAX_RXTX_INTR_VEC_ID, nq);
		return -EINVAL;
	}
	if (rte_intr_vec_list_alloc(h, "net_dvp_intr_vec", nq) != 0)
		return -ENOMEM;
	for (i = 0; i < nq; i++) {
		struct net_dvp_rxq *rxq = net_dvp_rxq_of(eth, i);

		ret = rxq_fds_open(p, rxq);
		if (ret < 0)
			goto fail;
		rte_intr_vec_list_index_set(h, i, RTE_INTR_VEC_RXTX_OFFSET + i);
		rte_intr_efds_index_set(h, i, rxq->epoll_fd);
	}
	rte_intr_nb_efd_set(h, nq);
	rte_intr_max_intr_set(h, nq + 1);
	/* DPDK reads nothing from an EXT handle's fds: the disable op consumes them. */
	rte_intr_efd_counter_size_set(h, 0);
	return 0;
fail:
	net_dvp_intr_teardown(eth);
	return ret;
}

void net_dvp_intr_teardown(struct rte_eth_dev *eth)
{
	struct rte_intr_handle *h = eth->intr_handle;
	uint16_t i;

	if (h == NULL)
		return;
	for (i = 0; i < eth->data->nb_rx_queues; i++) {
		struct net_dvp_rxq *rxq = net_dvp_rxq_of(eth, i);

		if (rxq != NULL)
			rxq_fds_close(rxq);
	}
	rte_intr_nb_efd_set(h, 0);
	rte_intr_vec_list_free(h);
}

int net_dvp_rx_intr_enable(struct rte_eth_dev *eth, uint16_t queue_id)
{
	struct net_dvp_port *p = priv_of(eth);
	struct net_dvp_rxq *rxq = net_dvp_rxq_of(eth, queue_id);
	uint64_t one = 1;
	int ret;

	ret = dvp_rx_intr_enable(p->dvp_port, queue_id);
	if (ret < 0)
		return ret;
	/* A packet that landed between the caller's last poll and the arm raised no event. */
	if (dvp_rx_intr_has_work(p->dvp_port, queue_id) > 0 && rxq->kick_fd >= 0 &&
	    write(rxq->kick_fd, &one, sizeof(one)) != sizeof(one))
		return -errno;
	return 0;
}

int net_dvp_rx_intr_disable(struct rte_eth_dev *eth, uint16_t queue_id)
{
	struct net_dvp_port *p = priv_of(eth);
	struct net_dvp_rxq *rxq = net_dvp_rxq_of(eth, queue_id);
	uint64_t v;
	int ret;

	ret = dvp_rx_intr_disable(p->dvp_port, queue_id);
	if (rxq->kick_fd >= 0 && read(rxq->kick_fd, &v, sizeof(v)) < 0 && errno != EAGAIN)
		return -errno;
	return ret < 0 ? ret : 0;
}

/* The condition is dvp's, field for field: what the driver fills goes to DPDK as it is. */
#define NET_DVP_SAME_PMC_FIELD(f)                                                      \
	static_assert(offsetof(struct dvp_power_monitor_cond, f) ==                    \
				      offsetof(struct rte_power_monitor_cond, f) &&    \
			      sizeof(((struct dvp_power_monitor_cond *)0)->f) ==       \
				      sizeof(((struct rte_power_monitor_cond *)0)->f), \
		      "dvp_power_monitor_cond." #f " is not rte_power_monitor_cond's")
NET_DVP_SAME_PMC_FIELD(addr);
NET_DVP_SAME_PMC_FIELD(size);
NET_DVP_SAME_PMC_FIELD(fn);
NET_DVP_SAME_PMC_FIELD(opaque);
static_assert(DVP_POWER_MONITOR_OPAQUE_SZ == RTE_POWER_MONITOR_OPAQUE_SZ, "opaque sizes differ");

/*
 * DPDK gives the op rx_queues[q] alone: net_dvp's queue, or the dvp queue
 * itself where ethdev calls the dvp burst straight (net_dvp.h, rx_direct).
 * Which port and queue it is, the ports of this process say: a few
 * compares, once before each sleep.
 */
static bool rxq_find(const void *rxq, uint16_t *dvp_port, uint16_t *q)
{
	uint16_t pid, i;

	for (pid = 0; pid < RTE_MAX_ETHPORTS; pid++) {
		const struct rte_eth_dev *eth = &rte_eth_devices[pid];
		const struct net_dvp_port *p;

		if (eth->dev_ops != &net_dvp_ops || eth->data == NULL ||
		    eth->data->dev_private == NULL)
			continue;
		p = eth->data->dev_private;
		for (i = 0; i < eth->data->nb_rx_queues; i++) {
			if (eth->data->rx_queues[i] == rxq || (p->rx_direct && p->rxqs[i] == rxq)) {
				*dvp_port = p->dvp_port;
				*q = i;
				return true;
			}
		}
	}
	return false;
}

int net_dvp_get_monitor_addr(void *rxq, struct rte_power_monitor_cond *pmc)
{
	struct dvp_power_monitor_cond c;
	uint16_t dvp_port, q;
	int ret;

	if (rxq == NULL || !rxq_find(rxq, &dvp_port, &q))
		return -EINVAL;
	ret = dvp_get_monitor_addr(dvp_port, q, &c);
	if (ret < 0)
		return ret;
	pmc->addr = c.addr;
	pmc->size = c.size;
	pmc->fn = c.fn;
	memcpy(pmc->opaque, c.opaque, sizeof(pmc->opaque));
	return 0;
}

static void on_dvp_event(uint16_t dvp_port, enum dvp_port_event event,
			 const struct dvp_port_event_info *info, void *arg)
{
	struct rte_eth_dev *eth = arg;

	(void)dvp_port;
	switch (event) {
	case DVP_PORT_EVENT_LINK_STATUS_CHANGE: {
		struct rte_eth_link l = net_dvp_link_of(&info->link);

		rte_eth_linkstatus_set(eth, &l);
		rte_eth_dev_callback_process(eth, RTE_ETH_EVENT_INTR_LSC, NULL);
		break;
	}
	case DVP_PORT_EVENT_REMOVAL:
		rte_eth_dev_callback_process(eth, RTE_ETH_EVENT_INTR_RMV, NULL);
		break;
	case DVP_PORT_EVENT_QUEUE_ERROR:
		NET_DVP_LOG(WARNING, "port %u: %s queue %u restarted after an error: %s",
			    eth->data->port_id, info->queue.tx ? "tx" : "rx", info->queue.queue_id,
			    info->queue.reason);
		rte_eth_dev_callback_process(eth, RTE_ETH_EVENT_ERR_RECOVERING, NULL);
		rte_eth_dev_callback_process(eth, RTE_ETH_EVENT_RECOVERY_SUCCESS, NULL);
		break;
	default:
		break;
	}
}

static const enum dvp_port_event forwarded[] = {
	DVP_PORT_EVENT_LINK_STATUS_CHANGE,
	DVP_PORT_EVENT_REMOVAL,
	DVP_PORT_EVENT_QUEUE_ERROR,
};

void net_dvp_events_on(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = priv_of(eth);
	unsigned int i;

	if (p->events_on)
		return;
	for (i = 0; i < RTE_DIM(forwarded); i++)
		dvp_port_event_register(p->dvp_port, forwarded[i], on_dvp_event, eth);
	p->events_on = true;
}

void net_dvp_events_off(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = priv_of(eth);
	unsigned int i;

	if (!p->events_on)
		return;
	for (i = 0; i < RTE_DIM(forwarded); i++)
		dvp_port_event_unregister(p->dvp_port, forwarded[i], on_dvp_event, eth);
	p->events_on = false;
}
