/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The DevX general commands the simulated HCA answers
 * (mlx5dv_devx_general_cmd, glue dv_devx_general_cmd), in the PRM's
 * layouts (mlx5_prm_cmd.h), from its profile: QUERY_HCA_CAP for the
 * general and the Ethernet offload capabilities, QUERY_NIC_VPORT_CONTEXT
 * for the inline headers its send WQEs must carry. A context opened
 * without DevX gets EINVAL, as the kernel answers a context without a
 * DevX user id; a command it does not know, the BAD_OPCODE status.
 */

#include <errno.h>
#include <string.h>

#include "mlx5_prm_cmd.h"
#include "sim_dev.h"
#include "sim_glue.h"
#include "sim_obj.h"

/* Command statuses (the output's first byte), as the PRM numbers them. */
#define STATUS_BAD_OPCODE 0x2u
#define STATUS_BAD_PARAM 0x3u

static void caps_general(const struct sim_profile *p, uint8_t *cap)
{
	mlx5_prm_set(cap, MLX5_CAP_GEN_ETH_VIRT, 1);
	mlx5_prm_set(cap, MLX5_CAP_GEN_PORT_TYPE, MLX5_CAP_PORT_TYPE_ETH);
	mlx5_prm_set(cap, MLX5_CAP_GEN_STRIDING_RQ, 1);
	mlx5_prm_set(cap, MLX5_CAP_GEN_ETH_NET_OFFLOADS, 1);
	mlx5_prm_set(cap, MLX5_CAP_GEN_EXT_STRIDE_NUM_RANGE, p->ext_stride_num);
	mlx5_prm_set(cap, MLX5_CAP_GEN_CQE_COMPRESSION, p->cqe_comp_max != 0);
	mlx5_prm_set(cap, MLX5_CAP_GEN_CQE_COMPRESSION_MAX_NUM, p->cqe_comp_max);
}

static void caps_eth(const struct sim_profile *p, uint8_t *cap)
{
	mlx5_prm_set(cap, MLX5_CAP_ETH_CSUM_CAP, 1);
	mlx5_prm_set(cap, MLX5_CAP_ETH_WQE_INLINE_MODE, p->inline_cap);
	mlx5_prm_set(cap, MLX5_CAP_ETH_WQE_VLAN_INSERT, p->vlan_insert);
	mlx5_prm_set(cap, MLX5_CAP_ETH_MAX_LSO_CAP, SIM_LSO_LOG);
}

/* The command's own failure: its status and syndrome in @p out, EREMOTEIO as the kernel gives. */
static int cmd_fail(struct sim_mlx5_dev *dev, uint8_t *out, uint8_t status, const char *what)
{
	SIM_LOG(ERR, dev, "devx_general_cmd: %s", what);
	mlx5_prm_set(out, MLX5_OUT_STATUS, status);
	mlx5_prm_set(out, MLX5_OUT_SYNDROME, 0x5a1u);
	return EREMOTEIO;
}

int sim_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen, void *out,
			 size_t outlen)
{
	struct sim_ctx *ctx = sim_ctx_of(context, __func__);
	const struct sim_profile *p;
	struct sim_mlx5_dev *dev;
	uint32_t opcode, op_mod;
	uint8_t *o = out;

	if (ctx == NULL || in == NULL || out == NULL)
		return EINVAL;
	dev = ctx->dev;
	p = &dev->cfg.prof;
	if (!ctx->devx) {
		SIM_LOG(ERR, dev,
			"devx_general_cmd: the context was not opened for DevX "
			"(mlx5dv_open_device with MLX5DV_CONTEXT_FLAGS_DEVX%s)",
			p->devx ? "" : ", which this device refuses: devx=off");
		return EINVAL;
	}
	if (inlen < MLX5_CMD_QUERY_IN_SIZE || outlen < MLX5_CMD_OUT_HDR_SIZE) {
		SIM_LOG(ERR, dev, "devx_general_cmd: %zu bytes in, %zu out; at least %u and %u",
			inlen, outlen, MLX5_CMD_QUERY_IN_SIZE, MLX5_CMD_OUT_HDR_SIZE);
		return EINVAL;
	}
	if (__atomic_load_n(&dev->fatal, __ATOMIC_RELAXED))
		return EIO;
	memset(out, 0, outlen);
	opcode = mlx5_prm_get(in, MLX5_IN_OPCODE);
	op_mod = mlx5_prm_get(in, MLX5_IN_OP_MOD);
	switch (opcode) {
	case MLX5_CMD_OP_QUERY_HCA_CAP:
		if (outlen < MLX5_QUERY_HCA_CAP_OUT_SIZE)
			return cmd_fail(dev, o, STATUS_BAD_PARAM,
					"QUERY_HCA_CAP: output too short");
		if (op_mod >> 1 == MLX5_HCA_CAP_GENERAL)
			caps_general(p, o + MLX5_CMD_OUT_HDR_SIZE);
		else if (op_mod >> 1 == MLX5_HCA_CAP_ETHERNET_OFFLOADS)
			caps_eth(p, o + MLX5_CMD_OUT_HDR_SIZE);
		else
			return cmd_fail(dev, o, STATUS_BAD_PARAM,
					"QUERY_HCA_CAP: only the general (0) and Ethernet offload "
					"(1) capabilities are modelled");
		return 0;
	case MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT:
		if (outlen < MLX5_QUERY_NIC_VPORT_OUT_SIZE)
			return cmd_fail(dev, o, STATUS_BAD_PARAM,
					"QUERY_NIC_VPORT_CONTEXT: output too short");
		if (mlx5_prm_get(in, MLX5_VPORT_IN_OTHER_VPORT) != 0 ||
		    mlx5_prm_get(in, MLX5_VPORT_IN_VPORT_NUMBER) != 0)
			return cmd_fail(dev, o, STATUS_BAD_PARAM,
					"QUERY_NIC_VPORT_CONTEXT: only the function's own vport "
					"(0) is there");
		mlx5_prm_set(o + MLX5_CMD_OUT_HDR_SIZE, MLX5_VPORT_MIN_WQE_INLINE_MODE,
			     p->inline_vport);
		return 0;
	default:
		return cmd_fail(dev, o, STATUS_BAD_OPCODE,
				"opcode not modelled; QUERY_HCA_CAP (0x100) and "
				"QUERY_NIC_VPORT_CONTEXT (0x754) are");
	}
}
