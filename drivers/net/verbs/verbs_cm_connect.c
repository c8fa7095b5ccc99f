/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The connect= side of a connection, one step per cm event: resolve the
 * address, then the route; create the queue's QP and send the request
 * with our half of the handshake; on the listener's accept take its half
 * (a tx queue learns where to send, a UD one its address handle) and
 * finish (RC: the QP to RTS, rdma_establish); on a reject say why. A
 * failed step ends in verbs_conn_fail(), which retries after a back-off.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "verbs_conn.h"

void verbs_conn_connect(struct verbs_conn *c)
{
	struct verbs_port *vp = c->vp;
	enum rdma_port_space ps = vp->cfg.mode == VERBS_MODE_UD ? RDMA_PS_UDP : RDMA_PS_TCP;

	c->attempts++;
	if (rdma_create_id(vp->cm_ch, &c->id, c, ps) != 0) {
		verbs_conn_warn(c, "rdma_create_id: ", dvp_strerror(errno), "");
		c->id = NULL;
		verbs_conn_fail(c);
		return;
	}
	verbs_conn_set_ack_timeout(vp, c->id);
	if (rdma_resolve_addr(c->id, NULL, (struct sockaddr *)&vp->cfg.addr, VERBS_CM_TIMEOUT_MS) !=
	    0) {
		verbs_conn_warn(c, "rdma_resolve_addr: ", dvp_strerror(errno), "");
		verbs_conn_fail(c);
		return;
	}
	c->st = VERBS_CS_ADDR;
}

void verbs_conn_on_addr(struct verbs_conn *c)
{
	if (rdma_resolve_route(c->id, VERBS_CM_TIMEOUT_MS) != 0) {
		verbs_conn_warn(c, "rdma_resolve_route: ", dvp_strerror(errno), "");
		verbs_conn_fail(c);
		return;
	}
	c->st = VERBS_CS_ROUTE;
}

void verbs_conn_on_route(struct verbs_conn *c)
{
	struct verbs_port *vp = c->vp;
	struct rdma_conn_param cp = { .retry_count = VERBS_RETRY_CNT,
				      .rnr_retry_count = VERBS_RNR_RETRY };
	uint8_t buf[VERBS_HELLO_LEN];
	struct verbs_hello h;
	struct ibv_qp *qp;
	int ret;

	ret = c->tx ? verbs_txq_qp_create(verbs_conn_txq(c), c->id) :
		      verbs_rxq_qp_create(verbs_conn_rxq(c), c->id);
	if (ret < 0) {
		verbs_conn_fail(c);
		return;
	}
	qp = c->tx ? verbs_conn_txq(c)->qp : verbs_conn_rxq(c)->qp;
	/* UD needs no peer to be ready to send: straight to RTS. */
	if (vp->cfg.mode == VERBS_MODE_UD && verbs_qp_ready(vp, qp, c->id) < 0) {
		verbs_conn_fail(c);
		return;
	}
	verbs_conn_hello_fill(vp, &h, VERBS_HELLO_REQ);
	h.queue = c->q;
	if (c->tx)
		h.flags |= VERBS_HELLO_F_TX;
	else
		verbs_conn_hello_rx_side(c, &h);
	cp.private_data = buf;
	cp.private_data_len = (uint8_t)verbs_hello_encode(&h, buf);
	cp.qp_num = qp->qp_num;
	if (rdma_connect(c->id, &cp) != 0) {
		verbs_conn_warn(c, "rdma_connect: ", dvp_strerror(errno), "");
		verbs_conn_fail(c);
		return;
	}
	c->st = VERBS_CS_CONNECTING;
}

/* The listener accepted (RC: CONNECT_RESPONSE; UD: ESTABLISHED with its QP and address). */
void verbs_conn_on_accepted(struct verbs_conn *c, const struct verbs_cm_event *e)
{
	struct verbs_port *vp = c->vp;
	char why[160];
	struct verbs_hello h;

	if (verbs_hello_decode(e->pdata, e->pdata_len, &h, why, sizeof(why)) < 0 ||
	    h.kind != VERBS_HELLO_ACCEPT) {
		verbs_conn_warn(c, "the listener's accept is not a net_verbs handshake: ",
				h.kind != VERBS_HELLO_ACCEPT && why[0] == '\0' ? "wrong kind" : why,
				"");
		verbs_conn_fail(c);
		return;
	}
	if (c->tx) {
		struct verbs_txq *txq = verbs_conn_txq(c);

		verbs_conn_tx_params(c, &h);
		if (vp->cfg.mode == VERBS_MODE_UD) {
			txq->ah = ibv_create_ah(vp->dev->pd, (struct ibv_ah_attr *)&e->ah_attr);
			if (txq->ah == NULL) {
				verbs_conn_warn(c, "ibv_create_ah to the listener: ",
						dvp_strerror(errno), "");
				verbs_conn_fail(c);
				return;
			}
			txq->remote_qpn = e->qpn;
			txq->remote_qkey = e->qkey;
		}
	}
	if (vp->cfg.mode == VERBS_MODE_RC) {
		struct ibv_qp *qp = c->tx ? verbs_conn_txq(c)->qp : verbs_conn_rxq(c)->qp;

		if (verbs_qp_ready(vp, qp, c->id) < 0 || rdma_establish(c->id) != 0) {
			verbs_conn_warn(c, "completing the connection: ", dvp_strerror(errno), "");
			verbs_conn_fail(c);
			return;
		}
	}
	verbs_conn_up(c);
}

void verbs_conn_on_rejected(struct verbs_conn *c, const struct verbs_cm_event *e)
{
	char addr[80], why[160], msg[160];
	struct verbs_hello h;

	__atomic_fetch_add(&c->vp->ps.cm_rejects_received, 1, __ATOMIC_RELAXED);
	if (verbs_hello_decode(e->pdata, e->pdata_len, &h, why, sizeof(why)) == 0 &&
	    h.kind == VERBS_HELLO_REJECT)
		snprintf(msg, sizeof(msg), "the net_verbs port at %s refused: %s",
			 verbs_addr_str((struct sockaddr *)&c->vp->cfg.addr, addr, sizeof(addr)),
			 verbs_reject_reason_str(h.reason));
	else
		snprintf(msg, sizeof(msg), "nothing accepts at %s (reject status %d)",
			 verbs_addr_str((struct sockaddr *)&c->vp->cfg.addr, addr, sizeof(addr)),
			 e->status);
	verbs_conn_warn(c, msg, "", "");
	verbs_conn_fail(c);
}
