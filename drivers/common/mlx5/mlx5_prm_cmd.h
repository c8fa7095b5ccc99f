/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The DevX general commands the mlx5 PMD sends (mlx5dv_devx_general_cmd)
 * and the simulated HCA answers, in the PRM's layouts; the inline modes
 * they report and the PCI device ids a driver falls back on without DevX.
 *
 * A command's input and output are arrays of big-endian 32-bit words; a
 * field is named by its bit offset from the start (bit 0 is the most
 * significant bit of the first word) and its width, the way the mlx5_ifc
 * structures of Linux (include/linux/mlx5/mlx5_ifc.h) and DPDK
 * (drivers/common/mlx5/mlx5_prm.h) lay them out. Only the fields read
 * here are named; their offsets were computed from those structures
 * (mlx5_ifc_cmd_hca_cap_bits, mlx5_ifc_per_protocol_networking_offload_
 * caps_bits, mlx5_ifc_nic_vport_context_bits and the query in/out
 * structures) and each lies inside one word.
 *
 * Shared by the mlx5 PMD and the simulated HCA, so both read the same bits.
 */

#ifndef MLX5_PRM_CMD_H
#define MLX5_PRM_CMD_H

#include <endian.h>
#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLX5_CMD_OP_QUERY_HCA_CAP 0x100u
#define MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT 0x754u

/** QUERY_HCA_CAP op_mod: the capability type << 1 | 1 for the current values (0: maximum). */
#define MLX5_HCA_CAP_GENERAL 0x0u
#define MLX5_HCA_CAP_ETHERNET_OFFLOADS 0x1u
#define MLX5_HCA_CAP_OP_MOD(type) ((type) << 1 | 1u)

/* Sizes in bytes: a query's input; the outputs' 16-byte header, then their data. */
#define MLX5_CMD_QUERY_IN_SIZE 16u
#define MLX5_CMD_OUT_HDR_SIZE 16u
#define MLX5_HCA_CAP_SIZE 4096u /**< union mlx5_ifc_hca_cap_union_bits */
#define MLX5_NIC_VPORT_CONTEXT_SIZE 256u
#define MLX5_QUERY_HCA_CAP_OUT_SIZE (MLX5_CMD_OUT_HDR_SIZE + MLX5_HCA_CAP_SIZE)
#define MLX5_QUERY_NIC_VPORT_OUT_SIZE (MLX5_CMD_OUT_HDR_SIZE + MLX5_NIC_VPORT_CONTEXT_SIZE)

/** A field: bit offset and width. */
#define MLX5_F(off, bits) (off), (bits)

/* Every query's input and output header. */
#define MLX5_IN_OPCODE MLX5_F(0x00, 16)
#define MLX5_IN_OP_MOD MLX5_F(0x30, 16)
#define MLX5_OUT_STATUS MLX5_F(0x00, 8)
#define MLX5_OUT_SYNDROME MLX5_F(0x20, 32)
/* QUERY_NIC_VPORT_CONTEXT input. */
#define MLX5_VPORT_IN_OTHER_VPORT MLX5_F(0x40, 1)
#define MLX5_VPORT_IN_VPORT_NUMBER MLX5_F(0x50, 16)

/* General device capabilities (cmd_hca_cap), from the output's data on. */
#define MLX5_CAP_GEN_ETH_VIRT MLX5_F(0x1a3, 1)
#define MLX5_CAP_GEN_PORT_TYPE MLX5_F(0x1b6, 2) /**< 1: Ethernet */
#define MLX5_CAP_GEN_STRIDING_RQ MLX5_F(0x201, 1)
#define MLX5_CAP_GEN_ETH_NET_OFFLOADS MLX5_F(0x21c, 1)
#define MLX5_CAP_GEN_EXT_STRIDE_NUM_RANGE MLX5_F(0x3a0, 1)
#define MLX5_CAP_GEN_CQE_COMPRESSION MLX5_F(0x5bf, 1)
#define MLX5_CAP_GEN_CQE_COMPRESSION_MAX_NUM MLX5_F(0x5d0, 16)
/* Ethernet offload capabilities (per_protocol_networking_offload_caps). */
#define MLX5_CAP_ETH_CSUM_CAP MLX5_F(0x00, 1)
#define MLX5_CAP_ETH_WQE_VLAN_INSERT MLX5_F(0x07, 1)
#define MLX5_CAP_ETH_MAX_LSO_CAP MLX5_F(0x0b, 5) /**< log2 of the largest LSO message */
#define MLX5_CAP_ETH_WQE_INLINE_MODE MLX5_F(0x12, 2)
/* NIC vport context, from the output's data on. */
#define MLX5_VPORT_MIN_WQE_INLINE_MODE MLX5_F(0x05, 3)

#define MLX5_CAP_PORT_TYPE_ETH 1u

/** The HCA cap wqe_inline_mode: who says which headers a send WQE must inline. */
enum mlx5_cap_inline_mode {
	MLX5_CAP_INLINE_MODE_L2 = 0, /**< the L2 header, always */
	MLX5_CAP_INLINE_MODE_VPORT_CONTEXT = 1, /**< the NIC vport context's min_wqe_inline_mode */
	MLX5_CAP_INLINE_MODE_NOT_REQUIRED = 2,
};

/** min_wqe_inline_mode: the headers a send WQE must carry inline, up to and including. */
enum mlx5_inline_mode {
	MLX5_INLINE_MODE_NONE = 0,
	MLX5_INLINE_MODE_L2 = 1,
	MLX5_INLINE_MODE_IP = 2,
	MLX5_INLINE_MODE_TCP_UDP = 3,
	MLX5_INLINE_MODE_INNER_L2 = 5,
	MLX5_INLINE_MODE_INNER_IP = 6,
	MLX5_INLINE_MODE_INNER_TCP_UDP = 7,
};

/*
 * Bytes a driver inlines to meet each mode whatever the frame, as DPDK's
 * MLX5_INLINE_HSIZE_* (drivers/net/mlx5/mlx5_defs.h): Ethernet and a VLAN
 * tag; then an IPv6 header; then a TCP header; the inner modes add UDP,
 * VXLAN and the inner headers.
 */
#define MLX5_INLINE_HSIZE_L2 18u
#define MLX5_INLINE_HSIZE_L3 (MLX5_INLINE_HSIZE_L2 + 40u)
#define MLX5_INLINE_HSIZE_L4 (MLX5_INLINE_HSIZE_L3 + 20u)
#define MLX5_INLINE_HSIZE_INNER_L2 (MLX5_INLINE_HSIZE_L3 + 8u + 8u + MLX5_INLINE_HSIZE_L2)
#define MLX5_INLINE_HSIZE_INNER_L3 (MLX5_INLINE_HSIZE_INNER_L2 + 40u)
#define MLX5_INLINE_HSIZE_INNER_L4 (MLX5_INLINE_HSIZE_INNER_L3 + 20u)

/* PCI device ids (ibv_device_attr.vendor_part_id), as DPDK's mlx5_common.h lists them. */
#define MLX5_PCI_ID_CONNECTX4 0x1013u
#define MLX5_PCI_ID_CONNECTX4VF 0x1014u
#define MLX5_PCI_ID_CONNECTX4LX 0x1015u
#define MLX5_PCI_ID_CONNECTX4LXVF 0x1016u
#define MLX5_PCI_ID_CONNECTX5 0x1017u
#define MLX5_PCI_ID_CONNECTX6DX 0x101du
#define MLX5_PCI_ID_CONNECTX7 0x1021u

/** Field (@p off, @p bits) of the command buffer @p buf, host order. */
static inline uint32_t mlx5_prm_get(const void *buf, unsigned int off, unsigned int bits)
{
	uint32_t w;

	memcpy(&w, (const uint8_t *)buf + off / 32 * 4, sizeof(w));
	w = be32toh(w) >> (32 - off % 32 - bits);
	return bits == 32 ? w : w & ((1u << bits) - 1);
}

/** Set field (@p off, @p bits) of the command buffer @p buf to @p v. */
static inline void mlx5_prm_set(void *buf, unsigned int off, unsigned int bits, uint32_t v)
{
	uint32_t w, mask = (bits == 32 ? ~0u : (1u << bits) - 1) << (32 - off % 32 - bits);
	uint8_t *p = (uint8_t *)buf + off / 32 * 4;

	memcpy(&w, p, sizeof(w));
	w = be32toh(w);
	w = (w & ~mask) | ((v << (32 - off % 32 - bits)) & mask);
	w = htobe32(w);
	memcpy(p, &w, sizeof(w));
}

#ifdef __cplusplus
}
#endif

#endif /* MLX5_PRM_CMD_H */
