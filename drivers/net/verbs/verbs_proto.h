/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs' handshake: the private data of the rdma_cm connect, accept
 * and reject messages. Both ends are net_verbs ports; the handshake tells
 * the listener which of its queues a connection feeds, and each sender how
 * long a frame the receiving end can take and whether it sleeps for
 * solicited completions only. Not installed.
 *
 * Wire layout (36 bytes, big-endian; the CM pads private data with zeros,
 * so longer input is accepted):
 *
 *     0 magic "DVPV"    4 version  5 kind  6 flags  7 reason
 *     8 queue          10 nb_rxq  12 nb_txq  14 mode
 *    16 rx_buf_len     20 qpn     24 qkey    28 session (8 bytes)
 */

#ifndef VERBS_PROTO_H
#define VERBS_PROTO_H

#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>

#define VERBS_MAX_QUEUES 16 /* per direction */

#define VERBS_HELLO_MAGIC 0x44565056u /* "DVPV" */
#define VERBS_HELLO_VERSION 1
#define VERBS_HELLO_LEN 36

enum verbs_hello_kind {
	VERBS_HELLO_REQ = 1, /* connector -> listener, in the connect request */
	VERBS_HELLO_ACCEPT = 2, /* listener -> connector, in the accept */
	VERBS_HELLO_REJECT = 3, /* listener -> connector, in the reject */
};

/* REQ: the connector's tx queue sends on this connection (else its rx queue receives). */
#define VERBS_HELLO_F_TX (1u << 0)
/* The receiving end arms for solicited completions only: mark the last frame of each burst. */
#define VERBS_HELLO_F_SOLICITED (1u << 1)

/* Why a listener refused a connection (REJECT's reason). */
enum verbs_reject_reason {
	VERBS_REJ_NONE = 0,
	VERBS_REJ_STOPPED, /* the listening port is not started */
	VERBS_REJ_QUEUES, /* the queue counts do not match */
	VERBS_REJ_QUEUE, /* no such queue */
	VERBS_REJ_MODE, /* rc against ud */
	VERBS_REJ_RESOURCES, /* the listener could not set the queue up */
	VERBS_REJ_NO_RECONNECT, /* reconnect=0 and the port was connected once already */
	VERBS_REJ_BAD_HELLO, /* the request's private data made no sense */
	VERBS_REJ_MAX,
};

/* The modes of the devarg, also on the wire. */
enum verbs_mode {
	VERBS_MODE_RC = 0,
	VERBS_MODE_UD = 1,
};

/* A handshake message, host order. */
struct verbs_hello {
	uint8_t kind; /* enum verbs_hello_kind */
	uint8_t flags; /* VERBS_HELLO_F_* */
	uint8_t reason; /* REJECT: enum verbs_reject_reason */
	uint8_t mode; /* enum verbs_mode */
	uint16_t queue; /* the connector's queue (and the listener's opposite one) */
	uint16_t nb_rxq; /* the sender's queue counts */
	uint16_t nb_txq;
	uint32_t rx_buf_len; /* the receiving end's largest frame, 0 from a sender */
	uint32_t qpn; /* UD: the receiving end's QP number */
	uint32_t qkey; /* UD: its Q_Key */
	uint64_t session; /* random per start of the sending port: a restart changes it */
};

/* Write @h into @buf (at least VERBS_HELLO_LEN bytes). @return VERBS_HELLO_LEN. */
size_t verbs_hello_encode(const struct verbs_hello *h, uint8_t *buf);

/*
 * Read a hello from @buf (@len bytes, NULL allowed when @len is 0). On a
 * bad message, @return -EPROTO with @why (@whylen bytes) saying what was
 * wrong in words; else 0.
 */
int verbs_hello_decode(const void *buf, size_t len, struct verbs_hello *h, char *why,
		       size_t whylen);

/* "the queue counts do not match", ... for a reject reason. */
const char *verbs_reject_reason_str(unsigned int reason);

/* Work completion statuses: one xstat each, per direction (verbs_proto.c). */

/* Statuses with a counter: every enum ibv_wc_status but SUCCESS, plus "other". */
#define VERBS_WC_STATUS_N 24

/* The counter index of @status (VERBS_WC_STATUS_N - 1 for one this build does not know). */
unsigned int verbs_wc_status_index(enum ibv_wc_status status);

/* The xstat name part of counter @idx: "loc_len_err", ..., "other". */
const char *verbs_wc_status_name(unsigned int idx);

#endif /* VERBS_PROTO_H */
