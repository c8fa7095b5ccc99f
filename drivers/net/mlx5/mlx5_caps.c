/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the device can do and what it requires, asked of it at probe,
 * never assumed: mlx5dv_query_device (multi-packet send WQEs), and through
 * DevX general commands, where rdma-core has no verb, the HCA
 * capabilities and the NIC vport context that say which headers every
 * send WQE must carry inline (a ConnectX-4 Lx always the L2 header; a VF
 * or an e-switch setup what its vport context says). A device that
 * answers no DevX command (an old kernel, a context DevX was refused to)
 * is known by its PCI device id instead, as DPDK's mlx5_set_min_inline()
 * does: 18 bytes on a ConnectX-4 and 4 Lx, none on the others. Then the
 * choices made from them: the inline headers of every SEND WQE and
 * whether eMPW may be used at all (only where nothing must be inline:
 * its title carries no headers, as DPDK and mlx5e's
 * mlx5e_tx_mpwqe_supported() agree).
 */

#include <errno.h>
#include <string.h>

#include <dvp_errno.h>

#include "mlx5.h"
#include "mlx5_prm_cmd.h"

const char *mlx5_inline_mode_name(unsigned int mode)
{
	static const char *const names[] = { "none", "L2",	 "IP",	     "TCP/UDP",
					     "?",    "inner L2", "inner IP", "inner TCP/UDP" };

	return mode < DVP_DIM(names) ? names[mode] : "?";
}

/* Bytes a driver inlines to meet @p mode whatever the frame (DPDK's sizes). */
static uint32_t inline_hsize(unsigned int mode)
{
	switch (mode) {
	case MLX5_INLINE_MODE_NONE:
		return 0;
	case MLX5_INLINE_MODE_L2:
		return MLX5_INLINE_HSIZE_L2;
	case MLX5_INLINE_MODE_IP:
		return MLX5_INLINE_HSIZE_L3;
	case MLX5_INLINE_MODE_TCP_UDP:
		return MLX5_INLINE_HSIZE_L4;
	case MLX5_INLINE_MODE_INNER_L2:
		return MLX5_INLINE_HSIZE_INNER_L2;
	case MLX5_INLINE_MODE_INNER_IP:
		return MLX5_INLINE_HSIZE_INNER_L3;
	default:
		return MLX5_INLINE_HSIZE_INNER_L4;
	}
}

/* One DevX query into @p out. @return 0, or a positive errno (the command's status logged). */
static int devx_query(struct mlx5_dev *mdev, uint32_t opcode, uint32_t op_mod, void *out,
		      size_t outlen)
{
	uint8_t in[MLX5_CMD_QUERY_IN_SIZE];
	int ret;

	memset(in, 0, sizeof(in));
	mlx5_prm_set(in, MLX5_IN_OPCODE, opcode);
	mlx5_prm_set(in, MLX5_IN_OP_MOD, op_mod);
	memset(out, 0, outlen);
	ret = mdev->glue->dv_devx_general_cmd(mdev->ctx, in, sizeof(in), out, outlen);
	if (ret == 0 && mlx5_prm_get(out, MLX5_OUT_STATUS) != 0)
		ret = EREMOTEIO;
	if (ret != 0)
		MLX5_LOG(INFO, "%s: DevX command 0x%x/%u: %s (status 0x%x, syndrome 0x%x)",
			 mdev->name, opcode, op_mod, dvp_strerror(ret),
			 mlx5_prm_get(out, MLX5_OUT_STATUS), mlx5_prm_get(out, MLX5_OUT_SYNDROME));
	return ret;
}

/*
 * The inline mode the device requires, by DevX: the HCA's wqe_inline_mode,
 * and where that defers to it, the vport context's min_wqe_inline_mode.
 * @return 0 (*@p mode set), or a positive errno: no DevX.
 */
static int inline_mode_devx(struct mlx5_dev *mdev, unsigned int *mode, bool *vlan_insert)
{
	uint8_t out[MLX5_QUERY_HCA_CAP_OUT_SIZE];
	const uint8_t *cap = out + MLX5_CMD_OUT_HDR_SIZE;
	bool eth_virt;
	int ret;

	ret = devx_query(mdev, MLX5_CMD_OP_QUERY_HCA_CAP, MLX5_HCA_CAP_OP_MOD(MLX5_HCA_CAP_GENERAL),
			 out, sizeof(out));
	if (ret != 0)
		return ret;
	if (!mlx5_prm_get(cap, MLX5_CAP_GEN_ETH_NET_OFFLOADS))
		return ENOTSUP; /* no Ethernet offload caps to ask: as without DevX */
	eth_virt = mlx5_prm_get(cap, MLX5_CAP_GEN_ETH_VIRT);
	ret = devx_query(mdev, MLX5_CMD_OP_QUERY_HCA_CAP,
			 MLX5_HCA_CAP_OP_MOD(MLX5_HCA_CAP_ETHERNET_OFFLOADS), out, sizeof(out));
	if (ret != 0)
		return ret;
	*vlan_insert = mlx5_prm_get(cap, MLX5_CAP_ETH_WQE_VLAN_INSERT) != 0;
	switch (mlx5_prm_get(cap, MLX5_CAP_ETH_WQE_INLINE_MODE)) {
	case MLX5_CAP_INLINE_MODE_L2:
		*mode = MLX5_INLINE_MODE_L2;
		return 0;
	case MLX5_CAP_INLINE_MODE_NOT_REQUIRED:
		*mode = MLX5_INLINE_MODE_NONE;
		return 0;
	case MLX5_CAP_INLINE_MODE_VPORT_CONTEXT:
		/* As DPDK: the vport context has it only on a device that virtualises. */
		if (!eth_virt)
			return ENOTSUP;
		ret = devx_query(mdev, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT, 0, out,
				 MLX5_QUERY_NIC_VPORT_OUT_SIZE);
		if (ret != 0)
			return ret;
		*mode = mlx5_prm_get(cap, MLX5_VPORT_MIN_WQE_INLINE_MODE);
		return *mode == 4 ? EPROTO : 0; /* 4 is reserved */
	default:
		return EPROTO;
	}
}

/* Without DevX: the models known to need the L2 header inline, by PCI id (DPDK's list). */
static unsigned int inline_mode_by_id(uint32_t part_id)
{
	switch (part_id) {
	case MLX5_PCI_ID_CONNECTX4:
	case MLX5_PCI_ID_CONNECTX4VF:
	case MLX5_PCI_ID_CONNECTX4LX:
	case MLX5_PCI_ID_CONNECTX4LXVF:
		return MLX5_INLINE_MODE_L2;
	default:
		return MLX5_INLINE_MODE_NONE;
	}
}

/*
 * The inline headers every SEND WQE carries: what the device requires,
 * at least 18 bytes unless txq_inline_min says otherwise (the SEND fast
 * path's one-block layout), never less than the device requires.
 */
static void inline_min_choose(struct mlx5_dev *mdev)
{
	const struct mlx5_cfg *cfg = &mdev->cfg;
	uint32_t need = mdev->caps.inline_hsize;

	mdev->txq_inline_min = DVP_MAX(need, cfg->txq_inline_min);
	if (cfg->txq_inline_min_set && cfg->txq_inline_min < need)
		MLX5_LOG(WARNING,
			 "%s: txq_inline_min=%u is below the %u bytes the device requires "
			 "inline (%s headers): every send WQE inlines %u",
			 mdev->name, cfg->txq_inline_min, need,
			 mlx5_inline_mode_name(mdev->caps.inline_mode), need);
}

/*
 * The tx path: enhanced multi-packet send WQEs when the device has them
 * (both flags, as DPDK reads them; MPW_ALLOWED alone is ConnectX-4 Lx's
 * legacy MPW, not done here) and requires no inline headers, unless
 * txq_mpw_en=0 or a txq_inline_min above 0 asks for inline headers in
 * every WQE, which an eMPW title cannot carry (DPDK's guide: minimal
 * inlining disengages eMPW).
 */
static void empw_choose(struct mlx5_dev *mdev, const struct mlx5dv_context *dv)
{
	const uint64_t both = MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED | MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW;
	const struct mlx5_cfg *cfg = &mdev->cfg;
	bool has = (dv->flags & both) == both;

	mdev->empw = has && cfg->txq_mpw_en && mdev->caps.inline_mode == MLX5_INLINE_MODE_NONE &&
		     !(cfg->txq_inline_min_set && cfg->txq_inline_min > 0);
	if (has && cfg->txq_mpw_en && mdev->caps.inline_mode != MLX5_INLINE_MODE_NONE)
		MLX5_LOG(NOTICE,
			 "%s: the device requires %s headers inline in every send WQE: "
			 "enhanced multi-packet send, whose title carries none, is off",
			 mdev->name, mlx5_inline_mode_name(mdev->caps.inline_mode));
	else if (has && cfg->txq_mpw_en && !mdev->empw)
		MLX5_LOG(NOTICE,
			 "%s: txq_inline_min=%u inlines headers in every WQE: enhanced "
			 "multi-packet send is off (txq_inline_min=0 keeps it)",
			 mdev->name, cfg->txq_inline_min);
	MLX5_LOG(INFO, "%s: tx path: %s", mdev->name,
		 mdev->empw ? "enhanced multi-packet send (eMPW)" : "one SEND WQE per packet");
}

void mlx5_caps_query(struct mlx5_dev *mdev)
{
	struct mlx5_caps *caps = &mdev->caps;
	struct mlx5dv_context dv;
	unsigned int mode = MLX5_INLINE_MODE_NONE;
	bool vlan_insert = false;
	int ret;

	memset(&dv, 0, sizeof(dv));
	ret = mdev->glue->dv_query_device(mdev->ctx, &dv);
	if (ret != 0) {
		MLX5_LOG(WARNING, "%s: mlx5dv_query_device: %s; tx sends one WQE per packet",
			 mdev->name, dvp_strerror(ret));
		memset(&dv, 0, sizeof(dv));
	}
	caps->part_id = mdev->attr.orig_attr.vendor_part_id;
	ret = mdev->devx ? inline_mode_devx(mdev, &mode, &vlan_insert) : EOPNOTSUPP;
	caps->devx = ret == 0;
	if (ret != 0) {
		mode = inline_mode_by_id(caps->part_id);
		MLX5_LOG(NOTICE,
			 "%s: the inline headers the device requires not read through DevX (%s): "
			 "%s, by its PCI device id 0x%04x",
			 mdev->name, dvp_strerror(ret), mlx5_inline_mode_name(mode), caps->part_id);
	}
	caps->inline_mode = (uint8_t)mode;
	caps->inline_hsize = inline_hsize(mode);
	MLX5_LOG(INFO, "%s: send WQEs must inline %s headers (%u bytes)%s", mdev->name,
		 mlx5_inline_mode_name(mode), caps->inline_hsize, caps->devx ? "" : " (by PCI id)");
	/*
	 * As DPDK: the device inserts the tag only where no header must be
	 * inline (the flag takes the place of inline_hdr_sz); elsewhere the
	 * driver writes it into the headers it inlines.
	 */
	caps->vlan_insert = vlan_insert && mode == MLX5_INLINE_MODE_NONE;
	/* TSO as DPDK asks for it: the verbs' tso_caps, for raw packet QPs. */
	if (mdev->attr.tso_caps.supported_qpts & (1u << IBV_QPT_RAW_PACKET))
		caps->tso_max = mdev->attr.tso_caps.max_tso;
	MLX5_LOG(INFO, "%s: tx VLAN insertion by the %s; TSO %s%u bytes", mdev->name,
		 caps->vlan_insert ? "device" : "driver", caps->tso_max ? "up to " : "none, ",
		 caps->tso_max);
	inline_min_choose(mdev);
	empw_choose(mdev, &dv);
}
