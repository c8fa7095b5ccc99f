/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * SEND WQEs in the send engine, and the gathering every send opcode
 * shares: a SEND's Ethernet segment with its inline headers (or the VLAN
 * tag the device inserts after the MAC addresses), then its data
 * segments, each a pointer (its lkey a MR of the QP's PD, its range inside
 * that MR) or inline data, gathered into one frame; then the frame's
 * length checked and the checksums its Ethernet segment asks for filled.
 * All under dev->lock.
 */

#include <string.h>

#include "sim_dev.h"
#include "sim_engine.h"
#include "sim_obj.h"
#include "sim_pkt.h"
#include "sim_wq.h"

/*
 * Copy the bytes a pointer data segment names into @p dst (@p room bytes
 * left), after checking its lkey (a MR of the QP's PD) and that the range
 * lies inside that MR. @return 0 or a syndrome.
 */
uint8_t sim_tx_data_seg(struct sim_qp *qp, const struct mlx5_wqe_data_seg *ds, uint8_t *dst,
			uint32_t room, uint32_t *len, bool bad_lkey)
{
	uint32_t bc = be32toh(ds->byte_count), lkey = be32toh(ds->lkey);
	uintptr_t addr = (uintptr_t)be64toh(ds->addr), lo, hi;
	struct sim_mr *mr;

	if (bc == 0 || bc > room)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	mr = bad_lkey ? NULL : sim_mr_lookup(qp->ctx->dev, lkey);
	if (mr == NULL || mr->pd != qp->pd)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	lo = (uintptr_t)mr->ibv.addr;
	hi = lo + mr->ibv.length;
	if (addr < lo || addr > hi || bc > hi - addr)
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	memcpy(dst, (const void *)addr, bc);
	*len = bc;
	qp->ctx->dev->ports[qp->port].st.bus_data_rd_bytes += bc;
	return 0;
}

uint8_t sim_tx_gather(struct sim_qp *qp, const uint8_t *wqe, uint32_t off, uint32_t end,
		      uint8_t *frame, uint32_t *len, uint32_t max, bool bad_lkey)
{
	struct sim_mlx5_dev *dev = qp->ctx->dev;

	while (off < end) {
		struct mlx5_wqe_data_seg ds;
		uint32_t bc, n;
		uint8_t synd;

		memcpy(&ds, wqe + off, sizeof(ds));
		bc = be32toh(ds.byte_count);
		if (bc & MLX5_INLINE_SEG) {
			uint32_t seg;

			n = bc & ~MLX5_INLINE_SEG;
			seg = DVP_ALIGN_CEIL(4u + n, MLX5_WSEG_SIZE);
			if (off + seg > end) {
				sim_invalid(dev, SIM_MLX5_INV_DS,
					    "SQ %u: inline data of %u bytes runs past the WQE's ds",
					    qp->ibv.qp_num, n);
				return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
			}
			if (*len + n > max)
				return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
			memcpy(frame + *len, wqe + off + 4, n);
			*len += n;
			off += seg;
			continue;
		}
		synd = sim_tx_data_seg(qp, &ds, frame + *len, max - *len, &n, bad_lkey);
		if (synd != 0)
			return synd;
		*len += n;
		off += MLX5_WSEG_SIZE;
	}
	return 0;
}

/*
 * A gathered frame: 18 bytes (Ethernet and a VLAN tag) to MTU + 18, then
 * the IPv4 header and TCP/UDP checksums @p cs_flags ask for. Below 18 is
 * the sim's reading where no public source says what the device does: no
 * public driver hands it such a frame (DPDK refuses 18 bytes and less,
 * "some Tx offloads may cause an error if packet is not long enough"), so
 * one that does fails here.
 */
uint8_t sim_tx_frame_finish(struct sim_qp *qp, uint8_t cs_flags, uint8_t *frame, uint32_t len)
{
	struct sim_pkt p;

	if (len < MLX5_ESEG_MIN_INLINE_SIZE || len > qp->ctx->dev->ports[qp->port].mtu + 18u)
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	if (!(cs_flags & (MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM)))
		return 0;
	sim_pkt_parse(frame, len, &p);
	if (cs_flags & MLX5_ETH_WQE_L3_CSUM)
		sim_pkt_fill_ipv4_csum(frame, &p);
	if (cs_flags & MLX5_ETH_WQE_L4_CSUM)
		sim_pkt_fill_l4_csum(frame, &p);
	return 0;
}

uint8_t sim_tx_send_build(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint32_t *len)
{
	struct sim_mlx5_dev *dev = qp->ctx->dev;
	const struct mlx5_wqe_eth_seg *es = (const void *)(wqe + MLX5_WSEG_SIZE);
	uint32_t inl, eds, need, w3;
	unsigned int mode;
	bool vlan;
	uint8_t synd;

	/* Bytes 12-15: inline_hdr_sz, or the VLAN insertion flag and the tag's TCI. */
	memcpy(&w3, (const uint8_t *)es + 12, sizeof(w3));
	w3 = be32toh(w3);
	vlan = (w3 & MLX5_ETH_WQE_VLAN_INSERT) != 0;
	if (vlan && !dev->cfg.prof.vlan_insert) {
		sim_invalid(dev, SIM_MLX5_INV_OFFLOAD,
			    "SQ %u: a SEND WQE asks for VLAN insertion, which the device does not "
			    "report (HCA cap wqe_vlan_insert 0, profile %s)",
			    qp->ibv.qp_num, dev->cfg.prof.name);
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	inl = vlan ? 0 : be16toh(es->inline_hdr_sz);
	eds = mlx5_eseg_ds(inl);
	if (ds < 2 || 1 + eds > ds) {
		sim_invalid(dev, SIM_MLX5_INV_DS,
			    "SQ %u: ds %u cannot hold the control and Ethernet segments with %u "
			    "inline header bytes (%u needed)",
			    qp->ibv.qp_num, ds, inl, 1 + eds);
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	*len = inl;
	memcpy(dev->frame, es->inline_hdr_start, inl);
	/* Room for the tag the device inserts. */
	synd = sim_tx_gather(qp, wqe, (1 + eds) * MLX5_WSEG_SIZE, ds * MLX5_WSEG_SIZE, dev->frame,
			     len, SIM_FRAME_MAX - (vlan ? 4u : 0u),
			     sim_fault_bad_lkey_take(dev, qp->ibv.qp_num));
	if (synd != 0)
		return synd;
	mode = sim_profile_inline_mode(&dev->cfg.prof);
	need = sim_profile_inline_need(mode, dev->frame, *len);
	if (inl < need) {
		/* The device parses the headers from the WQE itself: they must be there. */
		sim_invalid(dev, SIM_MLX5_INV_INLINE,
			    "SQ %u: a SEND WQE of a %u-byte frame inlines %u header bytes; the "
			    "device requires %u (inline_mode=%s)",
			    qp->ibv.qp_num, *len, inl, need, sim_profile_inline_name(mode));
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	}
	if (vlan && *len >= 12) {
		/* An 802.1Q tag after the MAC addresses. */
		uint16_t tag[2] = { htobe16(0x8100), htobe16((uint16_t)w3) };

		memmove(dev->frame + 16, dev->frame + 12, *len - 12);
		memcpy(dev->frame + 12, tag, sizeof(tag));
		*len += 4;
	}
	return sim_tx_frame_finish(qp, es->cs_flags, dev->frame, *len);
}
