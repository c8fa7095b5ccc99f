/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The handshake's wire format, and the names of work completion statuses
 * as net_verbs counts them. Pure functions: the unit tests call them with
 * whatever a peer might send.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <dvp_byteorder.h>
#include <dvp_common.h>

#include "verbs_proto.h"

size_t verbs_hello_encode(const struct verbs_hello *h, uint8_t *buf)
{
	memset(buf, 0, VERBS_HELLO_LEN);
	dvp_be32_put(buf, VERBS_HELLO_MAGIC);
	buf[4] = VERBS_HELLO_VERSION;
	buf[5] = h->kind;
	buf[6] = h->flags;
	buf[7] = h->reason;
	dvp_be16_put(buf + 8, h->queue);
	dvp_be16_put(buf + 10, h->nb_rxq);
	dvp_be16_put(buf + 12, h->nb_txq);
	dvp_be16_put(buf + 14, h->mode);
	dvp_be32_put(buf + 16, h->rx_buf_len);
	dvp_be32_put(buf + 20, h->qpn);
	dvp_be32_put(buf + 24, h->qkey);
	dvp_be32_put(buf + 28, (uint32_t)(h->session >> 32));
	dvp_be32_put(buf + 32, (uint32_t)h->session);
	return VERBS_HELLO_LEN;
}

int verbs_hello_decode(const void *buf, size_t len, struct verbs_hello *h, char *why, size_t whylen)
{
	const uint8_t *p = buf;
	uint32_t magic;
	uint16_t mode;

	memset(h, 0, sizeof(*h));
	if (p == NULL || len < VERBS_HELLO_LEN) {
		snprintf(why, whylen, "%zu bytes of private data, a net_verbs handshake has %d",
			 len, VERBS_HELLO_LEN);
		return -EPROTO;
	}
	magic = dvp_be32_get(p);
	if (magic != VERBS_HELLO_MAGIC) {
		snprintf(why, whylen,
			 "magic 0x%08x is not net_verbs' 0x%08x: the peer is not a net_verbs port",
			 magic, VERBS_HELLO_MAGIC);
		return -EPROTO;
	}
	if (p[4] != VERBS_HELLO_VERSION) {
		snprintf(why, whylen, "handshake version %u, this build speaks %u", p[4],
			 VERBS_HELLO_VERSION);
		return -EPROTO;
	}
	if (p[5] < VERBS_HELLO_REQ || p[5] > VERBS_HELLO_REJECT) {
		snprintf(why, whylen, "message kind %u (valid: 1 request, 2 accept, 3 reject)",
			 p[5]);
		return -EPROTO;
	}
	mode = dvp_be16_get(p + 14);
	if (mode > VERBS_MODE_UD) {
		snprintf(why, whylen, "mode %u (valid: 0 rc, 1 ud)", mode);
		return -EPROTO;
	}
	h->kind = p[5];
	h->flags = p[6];
	h->reason = p[7];
	h->mode = (uint8_t)mode;
	h->queue = dvp_be16_get(p + 8);
	h->nb_rxq = dvp_be16_get(p + 10);
	h->nb_txq = dvp_be16_get(p + 12);
	h->rx_buf_len = dvp_be32_get(p + 16);
	h->qpn = dvp_be32_get(p + 20);
	h->qkey = dvp_be32_get(p + 24);
	h->session = (uint64_t)dvp_be32_get(p + 28) << 32 | dvp_be32_get(p + 32);
	if (h->nb_rxq > VERBS_MAX_QUEUES || h->nb_txq > VERBS_MAX_QUEUES) {
		snprintf(why, whylen, "%u rx and %u tx queues (at most %d each)", h->nb_rxq,
			 h->nb_txq, VERBS_MAX_QUEUES);
		return -EPROTO;
	}
	if (h->kind == VERBS_HELLO_REQ && h->queue >= VERBS_MAX_QUEUES) {
		snprintf(why, whylen, "queue %u (at most %d)", h->queue, VERBS_MAX_QUEUES - 1);
		return -EPROTO;
	}
	return 0;
}

static const char *const reject_reasons[VERBS_REJ_MAX] = {
	[VERBS_REJ_NONE] = "no reason given",
	[VERBS_REJ_STOPPED] = "the listening port is not started",
	[VERBS_REJ_QUEUES] =
		"the queue counts do not match (each rx queue needs a tx queue on the other side)",
	[VERBS_REJ_QUEUE] = "no such queue on the listening port",
	[VERBS_REJ_MODE] = "the ports' modes differ (mode=rc against mode=ud)",
	[VERBS_REJ_RESOURCES] = "the listening port could not set the queue up",
	[VERBS_REJ_NO_RECONNECT] =
		"the listening port has reconnect=0 and was connected once already",
	[VERBS_REJ_BAD_HELLO] = "the request's handshake was not understood",
};

const char *verbs_reject_reason_str(unsigned int reason)
{
	return reason < VERBS_REJ_MAX ? reject_reasons[reason] : "an unknown reason";
}

/*
 * One counter per status; names as the enum's, shorter. A status added to
 * libibverbs later lands in "other" until it gets its own.
 */
static const struct {
	enum ibv_wc_status status;
	const char *name;
} wc_names[VERBS_WC_STATUS_N - 1] = {
	{ IBV_WC_LOC_LEN_ERR, "loc_len_err" },
	{ IBV_WC_LOC_QP_OP_ERR, "loc_qp_op_err" },
	{ IBV_WC_LOC_EEC_OP_ERR, "loc_eec_op_err" },
	{ IBV_WC_LOC_PROT_ERR, "loc_prot_err" },
	{ IBV_WC_WR_FLUSH_ERR, "wr_flush_err" },
	{ IBV_WC_MW_BIND_ERR, "mw_bind_err" },
	{ IBV_WC_BAD_RESP_ERR, "bad_resp_err" },
	{ IBV_WC_LOC_ACCESS_ERR, "loc_access_err" },
	{ IBV_WC_REM_INV_REQ_ERR, "rem_inv_req_err" },
	{ IBV_WC_REM_ACCESS_ERR, "rem_access_err" },
	{ IBV_WC_REM_OP_ERR, "rem_op_err" },
	{ IBV_WC_RETRY_EXC_ERR, "retry_exc_err" },
	{ IBV_WC_RNR_RETRY_EXC_ERR, "rnr_retry_exc_err" },
	{ IBV_WC_LOC_RDD_VIOL_ERR, "loc_rdd_viol_err" },
	{ IBV_WC_REM_INV_RD_REQ_ERR, "rem_inv_rd_req_err" },
	{ IBV_WC_REM_ABORT_ERR, "rem_abort_err" },
	{ IBV_WC_INV_EECN_ERR, "inv_eecn_err" },
	{ IBV_WC_INV_EEC_STATE_ERR, "inv_eec_state_err" },
	{ IBV_WC_FATAL_ERR, "fatal_err" },
	{ IBV_WC_RESP_TIMEOUT_ERR, "resp_timeout_err" },
	{ IBV_WC_GENERAL_ERR, "general_err" },
	{ IBV_WC_TM_ERR, "tm_err" },
	{ IBV_WC_TM_RNDV_INCOMPLETE, "tm_rndv_incomplete" },
};

unsigned int verbs_wc_status_index(enum ibv_wc_status status)
{
	unsigned int i;

	for (i = 0; i < DVP_DIM(wc_names); i++)
		if (wc_names[i].status == status)
			return i;
	return VERBS_WC_STATUS_N - 1;
}

const char *verbs_wc_status_name(unsigned int idx)
{
	if (idx < DVP_DIM(wc_names))
		return wc_names[idx].name;
	return "other";
}
