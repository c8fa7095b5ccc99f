/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Interrupts of the mlx5 PMD, over lib/rxwait, and the power monitor:
 *  - rx queues: the hooks of struct dvp_rxwait_queue_ops. A CQ polled
 *    through mlx5dv is armed by writing the arm doorbell directly with the
 *    PMD's own sequence number and consumer index (never
 *    ibv_req_notify_cq, whose provider-side consumer index never moved);
 *    events come from the queue's non-blocking completion channel through
 *    the glue's get_cq_event, each one advancing the sequence number, and
 *    lib/rxwait acks them in batches;
 *  - the power monitor of rx queues (get_monitor_addr, as DPDK's mlx5):
 *    the op_own byte of the CQE at the consumer index, which the device
 *    writes last when it completes the next receive;
 *  - async events: the device's async fd, non-blocking, read on the EAL
 *    interrupt thread by a drivers/common/ib source whose get hook names
 *    the port and queue each event concerns (from the CQ, QP or WQ
 *    context); its link and queue-error handlers re-read the link and
 *    restart the queue, and report to lib/port with the cause.
 */

#include <errno.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_fd.h>

#include "mlx5.h"
#include "mlx5_rx.h"

static int rxq_arm(void *ctx, bool solicited)
{
	struct mlx5_rxq *rxq = ctx;

	/* The next CQE to poll, and one sn per event received so far (mlx5_arm_cq). */
	mlx5_cq_arm(rxq->cq_db, rxq->dv_cq.cq_uar, rxq->dv_cq.cqn, rxq->arm_sn, rxq->cq_ci,
		    solicited);
	return 0;
}

static int rxq_consume(void *ctx)
{
	struct mlx5_rxq *rxq = ctx;
	const struct mlx5_glue *g = rxq->priv->dev->glue;
	int n = 0;

	for (;;) {
		struct ibv_cq *cq;
		void *cq_ctx;

		if (g->get_cq_event(rxq->channel, &cq, &cq_ctx) != 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				break;
			return -errno;
		}
		rxq->arm_sn++;
		n++;
	}
	return n;
}

static void rxq_ack(void *ctx, unsigned int n)
{
	struct mlx5_rxq *rxq = ctx;

	rxq->priv->dev->glue->ack_cq_events(rxq->cq, n);
}

static bool rxq_has_work(void *ctx)
{
	const struct mlx5_rxq *rxq = ctx;

	/* A fault to answer is work too: the lcore must burst to rebuild the queue. */
	return mlx5_rxq_has_cqe(rxq) || dvp_queue_fault_pending(&rxq->fault);
}

const struct dvp_rxwait_queue_ops mlx5_rxq_intr_ops = {
	.arm = rxq_arm,
	.consume = rxq_consume,
	.ack = rxq_ack,
	.has_work = rxq_has_work,
	.flags = DVP_RXWAIT_QUEUE_F_SOLICITED | DVP_RXWAIT_QUEUE_F_ONESHOT,
};

/* What the monitor's check finds in opaque[]. */
enum {
	MONITOR_OWNER, /* the owner bit of a CQE software owns on this pass */
	MONITOR_MASK, /* where the owner bit is in op_own */
	MONITOR_NOW, /* non-zero: a fault waits for the queue's lcore: do not sleep */
};

/*
 * The power monitor's check of op_own (@p val) at the consumer index: a
 * CQE software owns is work. An invalid opcode's owner bit says nothing:
 * the PMD writes such CQEs over the mini-CQE arrays it has taken (of
 * either owner), and the device owns them until it writes a real one.
 */
static int rxq_monitor_check(const uint64_t val, const uint64_t opaque[DVP_POWER_MONITOR_OPAQUE_SZ])
{
	const uint8_t op_own = (uint8_t)val;

	if (opaque[MONITOR_NOW] != 0)
		return -1;
	if ((op_own >> 4) == MLX5_CQE_INVALID)
		return 0;
	return (op_own & opaque[MONITOR_MASK]) == opaque[MONITOR_OWNER] ? -1 : 0;
}

/*
 * The byte the device writes last when it completes the next receive, and
 * what makes it software's on this pass over the CQ (mlx5_cqe_sw_owned()).
 * A session of compressed CQEs still being taken leaves its title, owned
 * by software, at the consumer index: work, so no sleep.
 */
int mlx5_rxq_monitor_addr(void *q, struct dvp_power_monitor_cond *pmc)
{
	const struct mlx5_rxq *rxq = q;
	struct mlx5_cqe64 *cqe;

	if (rxq->cqes == NULL)
		return -EINVAL;
	cqe = mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, rxq->cq_ci);
	pmc->addr = &cqe->op_own;
	pmc->size = sizeof(cqe->op_own);
	pmc->fn = rxq_monitor_check;
	pmc->opaque[MONITOR_OWNER] = !!(rxq->cq_ci & rxq->cqe_cnt);
	pmc->opaque[MONITOR_MASK] = MLX5_CQE_OWNER_MASK;
	/* A fault raised while the lcore sleeps wakes it only with the next CQE. */
	pmc->opaque[MONITOR_NOW] = dvp_queue_fault_pending(&rxq->fault);
	pmc->opaque[3] = 0;
	return 0;
}

static void event_owner(struct ib_async_event *ev, const struct mlx5_owner *o)
{
	if (o == NULL)
		return;
	ev->port_id = o->port_id;
	ev->queue_id = o->queue_id;
	ev->tx = o->tx;
	ev->queue_known = true;
}

static int async_get(void *ctx, struct ib_async_event *ev)
{
	struct mlx5_dev *dev = ctx;
	const struct ibv_async_event *e = &ev->ibv;
	const struct mlx5_owner *owner;
	unsigned int pn;

	memset(ev, 0, sizeof(*ev));
	if (dev->glue->get_async_event(dev->ctx, &ev->ibv) != 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return -EAGAIN;
		return -(errno ? errno : EIO);
	}
	ev->port_id = IB_ASYNC_PORT_ALL;
	owner = ib_async_element(e, &pn);
	if (owner != NULL)
		event_owner(ev, owner);
	else if (pn >= 1 && pn <= DVP_IB_MAX_PORTS && dev->ports[pn - 1] != NULL)
		ev->port_id = dev->ports[pn - 1]->port_id;
	return 0;
}

static void async_ack(void *ctx, struct ib_async_event *ev)
{
	struct mlx5_dev *dev = ctx;

	dev->glue->ack_async_event(&ev->ibv);
}

static void async_link(void *ctx, struct dvp_port *port, enum dvp_port_event_cause cause)
{
	(void)ctx;
	mlx5_link_update(port, false, cause);
}

/* No queue_error: lib/port's queue-fault primitive, the default, serves the queues. */
static const struct ib_async_ops async_ops = {
	.get = async_get,
	.ack = async_ack,
	.link = async_link,
};

int mlx5_async_create(struct mlx5_dev *dev)
{
	int ret = dvp_fd_set_nonblock(dev->ctx->async_fd);

	if (ret < 0) {
		MLX5_LOG(ERR, "%s: async event fd: %s", dev->name, dvp_strerror(-ret));
		return dvp_err(-ret);
	}
	dev->async = ib_async_create(dev->name, dev->ctx->async_fd, &async_ops, dev);
	if (dev->async == NULL)
		return -dvp_errno;
	for (unsigned int i = 0; i < DVP_IB_MAX_PORTS; i++) {
		if (dev->ports[i] == NULL)
			continue;
		ret = ib_async_add_port(dev->async, dev->ports[i]->port_id);
		if (ret < 0)
			goto err;
	}
	ret = ib_async_start(dev->async);
	if (ret < 0)
		goto err;
	return 0;
err:
	mlx5_async_destroy(dev);
	return ret;
}

void mlx5_async_destroy(struct mlx5_dev *dev)
{
	ib_async_destroy(dev->async);
	dev->async = NULL;
}
