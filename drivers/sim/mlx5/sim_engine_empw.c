/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Enhanced multi-packet send WQEs (eMPW, opcode MLX5_OPCODE_ENHANCED_MPSW)
 * in the send engine: one WQE carries many packets, each described by its
 * own data segment and each sent as its own frame. The rules a driver is
 * held to (doc/sim.md, "Enhanced multi-packet send", gives their sources):
 *
 *  - the title: a control segment with opmod 0, and an Ethernet segment of
 *    one unit without inline headers (eMPW takes no partial inlining: a
 *    packet is either inline whole or behind a pointer);
 *  - then at least one packet: pointer segments (byte count, lkey,
 *    address; lkey and range checked as for any send) or inline data
 *    (byte count | MLX5_INLINE_SEG, the bytes, the next segment at the
 *    next 16 bytes); an inline segment of 0 bytes is padding, no packet;
 *  - every packet 18 bytes to MTU + 18, with the title's checksum flags;
 *  - one completion for the WQE when it asks (wqe_counter: its index).
 *
 * The device sends each packet as it gathers it: flow control may hold the
 * WQE between two packets (qp->empw_sent says how many already left, and
 * the WQE resumes there), and an error on packet k leaves packets 0..k-1
 * on the wire before the error CQE, which names the WQE only.
 */

#include <string.h>

#include "sim_dev.h"
#include "sim_engine.h"
#include "sim_traffic.h"
#include "sim_wq.h"

struct empw_pkt {
	uint32_t off; /* of its data segment in the WQE */
	uint32_t len;
	bool inl;
};

/*
 * The packets of an eMPW WQE of @p ds units, its title checked.
 * @return 0, or a syndrome (after the invalid-use report).
 */
static uint8_t empw_parse(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint16_t idx,
			  struct empw_pkt *pkts, uint32_t *npkts, uint32_t *bytes)
{
	struct sim_mlx5_dev *dev = qp->ctx->dev;
	const struct mlx5_wqe_ctrl_seg *ctrl = (const void *)wqe;
	const struct mlx5_wqe_eth_seg *es = (const void *)(wqe + MLX5_WSEG_SIZE);
	uint32_t off = MLX5_EMPW_TITLE_DS * MLX5_WSEG_SIZE, end = ds * MLX5_WSEG_SIZE, n = 0;
	uint32_t opmod = be32toh(ctrl->opmod_idx_opcode) >> 24;
	unsigned int mode = sim_profile_inline_mode(&dev->cfg.prof);

	if (opmod != MLX5_OPC_MOD_ENHANCED_MPSW) {
		sim_invalid(dev, SIM_MLX5_INV_EMPW,
			    "SQ %u: eMPW WQE 0x%04x has opmod %u; ENHANCED_MPSW takes opmod 0",
			    qp->ibv.qp_num, idx, opmod);
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	if (mode != MLX5_INLINE_MODE_NONE) {
		/* Its title cannot carry the headers, so DPDK and mlx5e never use it there. */
		sim_invalid(dev, SIM_MLX5_INV_INLINE,
			    "SQ %u: eMPW WQE 0x%04x on a device that requires headers inline in "
			    "every send WQE (inline_mode=%s): only SEND WQEs can carry them",
			    qp->ibv.qp_num, idx, sim_profile_inline_name(mode));
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	if (es->inline_hdr_sz != 0) {
		sim_invalid(dev, SIM_MLX5_INV_EMPW,
			    "SQ %u: eMPW WQE 0x%04x inlines %u header bytes in its Ethernet "
			    "segment; eMPW takes none (a packet goes inline whole, in its data "
			    "segment)",
			    qp->ibv.qp_num, idx, be16toh(es->inline_hdr_sz));
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	*bytes = 0;
	while (off < end) {
		uint32_t bc, seg;

		memcpy(&bc, wqe + off, sizeof(bc));
		bc = be32toh(bc);
		if (!(bc & MLX5_INLINE_SEG)) {
			pkts[n++] = (struct empw_pkt){ off, bc, false };
			*bytes += bc;
			off += MLX5_WSEG_SIZE;
			continue;
		}
		bc &= ~MLX5_INLINE_SEG;
		seg = DVP_ALIGN_CEIL(4u + bc, MLX5_WSEG_SIZE);
		if (bc > end || off + seg > end) {
			sim_invalid(
				dev, SIM_MLX5_INV_DS,
				"SQ %u: eMPW WQE 0x%04x: an inline packet of %u bytes at byte %u "
				"runs past its ds %u",
				qp->ibv.qp_num, idx, bc, off, ds);
			return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
		}
		if (bc != 0) {
			pkts[n++] = (struct empw_pkt){ off, bc, true };
			*bytes += bc;
		}
		off += seg;
	}
	if (n == 0) {
		sim_invalid(dev, SIM_MLX5_INV_DS,
			    "SQ %u: eMPW WQE 0x%04x of ds %u carries no packet (ds 3 and more: "
			    "control, Ethernet and a data segment per packet)",
			    qp->ibv.qp_num, idx, ds);
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	*npkts = n;
	return 0;
}

/*
 * Send the packets of the eMPW WQE @p wqe (@p ds units, index @p idx) from
 * qp->empw_sent on. @return 0 when all left (*@p bytes: their sum),
 * SIM_EMPW_HOLD when flow control stops it between two packets, else the
 * syndrome of the error CQE to write.
 */
unsigned int sim_tx_empw(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint16_t idx,
			 uint32_t *bytes)
{
	struct sim_mlx5_dev *dev = qp->ctx->dev;
	struct sim_port *port = &dev->ports[qp->port];
	const struct mlx5_wqe_eth_seg *es = (const void *)(wqe + MLX5_WSEG_SIZE);
	struct empw_pkt pkts[MLX5_EMPW_MAX_PTR_PKTS];
	uint32_t n = 0;
	uint8_t synd = empw_parse(qp, wqe, ds, idx, pkts, &n, bytes);

	if (synd != 0)
		return synd;
	for (uint32_t k = qp->empw_sent; k < n; k++) {
		uint32_t len = pkts[k].len;

		if (sim_cable_holds(port)) {
			qp->empw_sent = k;
			return SIM_EMPW_HOLD;
		}
		/* The bad-lkey fault counts WQEs: it hits this one's first pointer segment. */
		if (k == 0)
			qp->empw_bad_lkey = sim_fault_bad_lkey_take(dev, qp->ibv.qp_num);
		if (pkts[k].inl) {
			/* Bounded by the WQE (at most 63 units): it fits the frame buffer. */
			memcpy(dev->frame, wqe + pkts[k].off + 4, len);
		} else {
			struct mlx5_wqe_data_seg d;

			memcpy(&d, wqe + pkts[k].off, sizeof(d));
			synd = sim_tx_data_seg(qp, &d, dev->frame, SIM_FRAME_MAX, &len,
					       qp->empw_bad_lkey);
			qp->empw_bad_lkey = false;
			if (synd != 0)
				return synd;
		}
		synd = sim_tx_frame_finish(qp, es->cs_flags, dev->frame, len);
		if (synd != 0)
			return synd;
		sim_cable_send(port, dev->frame, len);
	}
	qp->empw_sent = 0;
	qp->empw_bad_lkey = false;
	return 0;
}
