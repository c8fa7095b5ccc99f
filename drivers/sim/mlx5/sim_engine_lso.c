/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * LSO WQEs (opcode MLX5_OPCODE_TSO) in the send engine: a SEND whose
 * Ethernet segment holds the segment size (mss) and inlines every header
 * of a TCP message, Ethernet (with or without an 802.1Q tag) through TCP
 * over IPv4 or IPv6. The message is gathered whole; the device then sends
 * one frame per mss bytes of payload, each with the inline headers,
 * rewritten as the segment needs: the IP length, the IPv4 id (counting up
 * from the message's) and checksum, the TCP sequence number (advanced by
 * the payload before) and flags (FIN and PSH on the last frame only), and
 * the checksums the Ethernet segment asks for. Flow control may hold the
 * WQE between two frames (qp->empw_sent of them sent): it resumes there.
 *
 * The rules, held as the device would (a local length error CQE, the SQ
 * in error, logged and counted as invalid use): an mss, every header
 * inline (the inline part is the headers), a payload of 1 byte to the
 * device's largest (max_lso_cap, tso_caps.max_tso), frames no longer than
 * the port's MTU + 18. All under dev->lock.
 */

#include <netinet/in.h>
#include <string.h>

#include "sim_dev.h"
#include "sim_engine.h"
#include "sim_pkt.h"
#include "sim_traffic.h"
#include "sim_wq.h"

#define TCP_FIN 0x01u
#define TCP_PSH 0x08u

static uint8_t lso_refuse(struct sim_qp *qp, const char *what, uint32_t v)
{
	sim_invalid(qp->ctx->dev, SIM_MLX5_INV_OFFLOAD, "SQ %u: an LSO WQE %s (%u)", qp->ibv.qp_num,
		    what, v);
	return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
}

/* Where the headers of an LSO message are. */
struct lso_hdr {
	uint32_t l3_off, l4_off, end;
	uint8_t l3; /* 4 or 6 */
};

/*
 * The headers at @p h (@p inl bytes): Ethernet (an 802.1Q tag or none),
 * IPv4 or IPv6, TCP with its options, read by their own lengths (the IP
 * length of a message is the driver's, and may not fit 16 bits).
 * @return false when they are not all there or not TCP.
 */
static bool lso_headers(const uint8_t *h, uint32_t inl, struct lso_hdr *p)
{
	uint32_t off = 12, l4;
	uint16_t type;

	if (inl < 14)
		return false;
	type = (uint16_t)(h[12] << 8 | h[13]);
	if (type == 0x8100) {
		if (inl < 18)
			return false;
		off = 16;
		type = (uint16_t)(h[16] << 8 | h[17]);
	}
	p->l3_off = off + 2;
	if (type == 0x0800 && inl >= p->l3_off + 20u && h[p->l3_off + 9] == IPPROTO_TCP) {
		p->l3 = 4;
		l4 = p->l3_off + (h[p->l3_off] & 0xfu) * 4u;
	} else if (type == 0x86dd && inl >= p->l3_off + 40u && h[p->l3_off + 6] == IPPROTO_TCP) {
		p->l3 = 6;
		l4 = p->l3_off + 40u;
	} else {
		return false;
	}
	p->l4_off = l4;
	if (inl < l4 + 20u)
		return false;
	p->end = l4 + (uint32_t)(h[l4 + 12] >> 4) * 4u;
	return p->end >= l4 + 20u && p->end <= inl;
}

/* Frame @p i of the message in dev->lso: @p hdr bytes of headers, @p n of payload from @p off. */
static uint32_t lso_frame(struct sim_mlx5_dev *dev, const struct lso_hdr *hp, uint32_t hdr,
			  uint32_t off, uint32_t n, uint32_t i, bool last)
{
	uint8_t *f = dev->frame;
	uint32_t seq, l3 = hp->l3_off, l4 = hp->l4_off;
	uint16_t v;

	memcpy(f, dev->lso, hdr);
	memcpy(f + hdr, dev->lso + off, n);
	if (hp->l3 == 4) {
		v = htobe16((uint16_t)(hdr - l3 + n));
		memcpy(f + l3 + 2, &v, sizeof(v));
		memcpy(&v, f + l3 + 4, sizeof(v));
		v = htobe16((uint16_t)(be16toh(v) + i));
		memcpy(f + l3 + 4, &v, sizeof(v));
	} else {
		v = htobe16((uint16_t)(hdr - l3 - 40u + n));
		memcpy(f + l3 + 4, &v, sizeof(v));
	}
	memcpy(&seq, f + l4 + 4, sizeof(seq));
	seq = htobe32(be32toh(seq) + (off - hdr));
	memcpy(f + l4 + 4, &seq, sizeof(seq));
	if (!last)
		f[l4 + 13] &= (uint8_t) ~(TCP_FIN | TCP_PSH);
	return hdr + n;
}

unsigned int sim_tx_lso(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint32_t *len)
{
	struct sim_mlx5_dev *dev = qp->ctx->dev;
	struct sim_port *port = &dev->ports[qp->port];
	const struct mlx5_wqe_eth_seg *es = (const void *)(wqe + MLX5_WSEG_SIZE);
	uint32_t inl, eds, mss, hdr, payload, w3;
	struct lso_hdr hp;
	uint8_t synd;

	memcpy(&w3, (const uint8_t *)es + 12, sizeof(w3));
	if (be32toh(w3) & MLX5_ETH_WQE_VLAN_INSERT)
		return lso_refuse(
			qp, "asks for VLAN insertion: its headers must be inline, tag and all",
			be32toh(w3) & 0xffffu);
	inl = be16toh(es->inline_hdr_sz);
	mss = be16toh(es->mss);
	eds = mlx5_eseg_ds(inl);
	if (1 + eds > ds) {
		sim_invalid(dev, SIM_MLX5_INV_DS,
			    "SQ %u: ds %u cannot hold the control and Ethernet segments with %u "
			    "inline header bytes (%u needed)",
			    qp->ibv.qp_num, ds, inl, 1 + eds);
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	if (mss == 0)
		return lso_refuse(qp, "has mss 0", 0);
	if (!lso_headers(es->inline_hdr_start, inl, &hp))
		return lso_refuse(
			qp, "does not inline Ethernet, IP and TCP headers whole (inline bytes)",
			inl);
	memcpy(dev->lso, es->inline_hdr_start, inl);
	*len = inl;
	/* Room for a payload past the largest: it is refused below, as too large. */
	synd = sim_tx_gather(qp, wqe, (1 + eds) * MLX5_WSEG_SIZE, ds * MLX5_WSEG_SIZE, dev->lso,
			     len, SIM_LSO_BUF,
			     qp->empw_sent == 0 && sim_fault_bad_lkey_take(dev, qp->ibv.qp_num));
	if (synd != 0)
		return synd;
	/* The inline part is the headers every frame carries. */
	hdr = inl;
	payload = *len - hdr;
	if (payload == 0)
		return lso_refuse(qp, "carries no payload after its headers (bytes)", hdr);
	if (payload > 1u << SIM_LSO_LOG)
		return lso_refuse(qp, "carries more payload than max_lso_cap allows (bytes)",
				  payload);
	if (hdr + mss > port->mtu + 18u)
		return lso_refuse(qp, "makes frames longer than the MTU + 18 (headers + mss)",
				  hdr + mss);
	/* From the frame a hold stopped at: flow control may pause between two. */
	for (uint32_t off = hdr + qp->empw_sent * mss, i = qp->empw_sent; off < *len;
	     off += mss, i++) {
		uint32_t n = DVP_MIN(mss, *len - off), flen;

		if (sim_cable_holds(port)) {
			qp->empw_sent = i;
			return SIM_EMPW_HOLD;
		}
		flen = lso_frame(dev, &hp, hdr, off, n, i, off + n == *len);
		synd = sim_tx_frame_finish(qp, es->cs_flags, dev->frame, flen);
		if (synd != 0)
			return synd; /* not past the checks above */
		sim_cable_send(port, dev->frame, flen);
	}
	qp->empw_sent = 0;
	port->st.tx_lso_wqes++;
	return 0;
}
