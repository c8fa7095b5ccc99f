/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * mlx5 layouts and constants that <infiniband/mlx5dv.h> does not carry.
 *
 * Everything mlx5dv.h has (struct mlx5_cqe64, mlx5_err_cqe, mlx5_wqe_ctrl_seg,
 * mlx5_wqe_eth_seg, mlx5_wqe_data_seg, mlx5dv_cq/qp/rwq, MLX5_CQE_* opcodes,
 * MLX5_CQ_DOORBELL, MLX5_SND_DBR/MLX5_RCV_DBR ...) is used from there. This
 * header adds what the Ethernet datapath needs on top: the doorbell-record
 * slots of a CQ (rdma-core keeps them in its private mlx5.h), the responder
 * CQE fields that mlx5_cqe64 folds into reserved bytes (RSS hash result),
 * the L4 header types, and the Ethernet-segment sizes of a send WQE.
 *
 * Shared by the mlx5 PMD (drivers/net/mlx5) and the simulated HCA
 * (drivers/sim/mlx5), so both sides read the same bits.
 */

#ifndef MLX5_PRM_H
#define MLX5_PRM_H

#include <endian.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#ifdef __cplusplus
extern "C" {
#endif

/* CQ doorbell record: two big-endian words (rdma-core providers/mlx5/mlx5.h). */
#ifndef MLX5_CQ_SET_CI
#define MLX5_CQ_SET_CI 0 /**< [23:0] consumer index */
#define MLX5_CQ_ARM_DB 1 /**< [29:28] arm sn, [24] solicited-only, [23:0] arm ci */
#endif

/** The hardware counts CQEs with 24 bits; the arm and set-ci fields are that wide. */
#define MLX5_CQ_INDEX_MASK 0xffffffu
/** WQ counters (doorbell records, CQE wqe_counter, WQE index) are 16 bits. */
#define MLX5_WQ_INDEX_MASK 0xffffu

/* Arm doorbell word: dbrec[MLX5_CQ_ARM_DB] and the upper half of the UAR write. */
#define MLX5_CQ_ARM_SN_SHIFT 28
#define MLX5_CQ_ARM_SN_MASK 0x3u
#define MLX5_CQ_ARM_CMD_MASK (1u << 24) /**< MLX5_CQ_DB_REQ_NOT_SOL or MLX5_CQ_DB_REQ_NOT */

/** Initial op_own of every CQE: opcode invalid, owner bit set (as DPDK's mlx5_cq_init). */
#define MLX5_CQE_OP_OWN_INIT ((MLX5_CQE_INVALID << 4) | MLX5_CQE_OWNER_MASK)

/** CQE sizes: dvpmd's datapath only takes 64-byte CQEs (cqe_size of mlx5dv_cq). */
#define MLX5_CQE_SIZE 64u
#define MLX5_CQE_SIZE_SHIFT 6

/*
 * Responder (receive) CQE of an Ethernet queue. struct mlx5_cqe64 names the
 * fields shared with RDMA; these live in what it calls rsvd4[] and in the
 * two bytes it calls hds_ip_ext and l4_hdr_type_etc.
 */
#define MLX5_CQE_RX_HASH_RES_OFF 12 /**< __be32: Toeplitz result of the RSS hash */

/* hds_ip_ext: MLX5_CQE_L2_OK / L3_OK / L4_OK (mlx5dv.h) say the checksum verified. */
/* l4_hdr_type_etc: [3:2] L3 header type (MLX5_CQE_L3_HDR_TYPE_*), [6:4] L4 type. */
#define MLX5_CQE_L3_HDR_TYPE_SHIFT 2
#define MLX5_CQE_L3_HDR_TYPE_MASK 0x3u
#define MLX5_CQE_L4_HDR_TYPE_SHIFT 4
#define MLX5_CQE_L4_HDR_TYPE_MASK 0x7u
#define MLX5_CQE_IP_FRAG (1u << 7) /**< l4_hdr_type_etc bit 7: IP fragment */
/**
 * l4_hdr_type_etc bit 0: the WQ stripped a C-VLAN tag, whose TCI is in
 * vlan_info (big-endian).
 */
#define MLX5_CQE_VLAN_STRIPPED (1u << 0)

enum {
	MLX5_CQE_L4_HDR_TYPE_NONE = 0,
	MLX5_CQE_L4_HDR_TYPE_TCP = 1,
	MLX5_CQE_L4_HDR_TYPE_UDP = 2,
	MLX5_CQE_L4_HDR_TYPE_TCP_EMP_ACK = 3,
	MLX5_CQE_L4_HDR_TYPE_TCP_ACK = 4,
};

/** sop_drop_qpn of a receive CQE carries the flow tag of the matching rule ([23:0]). */
#define MLX5_CQE_FLOW_TAG_MASK 0xffffffu
/** sop_drop_qpn / s_wqe_opcode_qpn of a send or error CQE: [31:24] WQE opcode, [23:0] QPN. */
#define MLX5_CQE_QPN_MASK 0xffffffu
#define MLX5_CQE_WQE_OPCODE_SHIFT 24

/* Send WQE: 16-byte units ("ds"), 64-byte basic blocks (MLX5_SEND_WQE_BB). */
#define MLX5_WSEG_SIZE 16u
#define MLX5_WQE_DS_MASK 0x3fu
/** Largest WQE a raw packet SQ takes: ds is 6 bits. */
#define MLX5_WQE_MAX_DS 63u
/** opmod_idx_opcode: [31:24] opmod, [23:8] WQE index, [7:0] opcode. */
#define MLX5_WQE_IDX_SHIFT 8
/** qpn_ds: [31:8] SQ number, [5:0] ds. */
#define MLX5_WQE_QPN_SHIFT 8

/*
 * Ethernet segment: the first bytes of the frame are inlined, starting at
 * inline_hdr_start (2 bytes inside the segment's first 16) and running on
 * through the 16 bytes of inline_hdr and further 16-byte units. 18 bytes
 * (Ethernet + VLAN) is the minimum ConnectX-4/5 accept.
 */
#define MLX5_ESEG_MIN_INLINE_SIZE 18u
#define MLX5_ESEG_INLINE_IN_FIRST_DS 2u

/*
 * VLAN insertion by the device (HCA cap wqe_vlan_insert): bytes 12-15 of
 * the Ethernet segment as one big-endian word, this flag and the tag's TCI
 * in its low 16 bits, where inline_hdr_sz and the first two inline bytes
 * would be: a WQE that asks for it inlines no header.
 */
#define MLX5_ETH_WQE_VLAN_INSERT (1u << 31)

/*
 * Large send (LSO): a WQE of opcode MLX5_OPCODE_TSO is a SEND whose
 * Ethernet segment holds the segment size in mss and inlines every header
 * (L2 through TCP); the device cuts the payload after them into frames of
 * mss bytes, each with the headers, the IPv4 length, id and checksum and
 * the TCP sequence number, flags and checksum rewritten (mlx5dv.h's
 * MLX5_OPCODE_TSO).
 */

/*
 * Enhanced multi-packet send WQE (eMPW, "MPWv2": ConnectX-5 and later, as
 * mlx5dv_query_device() reports with MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED and
 * MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW). The title is a control segment with
 * this opcode (opmod 0) and an Ethernet segment of one unit without inline
 * headers (its cs_flags apply to every packet); then one data segment per
 * packet: a pointer (byte count, lkey, address) or inline data (byte count
 * | MLX5_INLINE_SEG, the bytes, padded to 16). An inline segment of 0 bytes
 * is padding. Each packet leaves as its own frame; the WQE completes once.
 * Facts and sources: doc/sim.md, "Enhanced multi-packet send".
 */
#ifndef MLX5_OPCODE_ENHANCED_MPSW
#define MLX5_OPCODE_ENHANCED_MPSW 0x29u
#endif
#define MLX5_OPC_MOD_ENHANCED_MPSW 0u
/** Units of the eMPW title: the control segment and the Ethernet segment. */
#define MLX5_EMPW_TITLE_DS 2u
/** The most packets one eMPW WQE of pointer segments holds: ds is 6 bits. */
#define MLX5_EMPW_MAX_PTR_PKTS (MLX5_WQE_MAX_DS - MLX5_EMPW_TITLE_DS)

/*
 * Completion mode of a send WQE: control segment fm_ce_se bits 3:2 (DPDK's
 * enum mlx5_completion_mode, MLX5_COMP_MODE_OFFSET). mlx5dv.h's
 * MLX5_WQE_CTRL_CQ_UPDATE is ALWAYS. After an error the SQ flushes every
 * WQE outstanding (syndrome WR_FLUSH_ERR): in ONLY_ERR mode each of them
 * writes a CQE, which overruns a CQ sized for one completion every
 * few dozen WQEs; in ONLY_FIRST_ERR only the first error does, and a
 * flushed WQE writes one only when it asked for a completion (ALWAYS).
 * DPDK sets ONLY_FIRST_ERR on every WQE that asks for none.
 */
#define MLX5_COMP_MODE_SHIFT 2
#define MLX5_COMP_MODE_MASK 0xcu
enum {
	MLX5_COMP_ONLY_ERR = 0,
	MLX5_COMP_ONLY_FIRST_ERR = 1,
	MLX5_COMP_ALWAYS = 2,
	MLX5_COMP_CQE_AND_EQE = 3,
};
/** fm_ce_se of a send WQE that asks for no completion. */
#define MLX5_WQE_CTRL_FIRST_ERR (MLX5_COMP_ONLY_FIRST_ERR << MLX5_COMP_MODE_SHIFT)

/** Offset of the UAR register a send doorbell writes in the page mlx5dv_qp.bf.reg is on. */
#define MLX5_BF_OFFSET 0x800u

/** RSS hash key length of ConnectX (Toeplitz, 40 bytes). */
#define MLX5_RSS_HASH_KEY_LEN 40u

/*
 * Compressed CQEs (legacy layout). A session of N receive completions
 * takes N consecutive CQ slots: the title, a full CQE with format 3 in
 * op_own and N in byte_cnt, at slot T; mini-CQE arrays of eight at T + 1,
 * then T + 8, T + 16, ...; the other slots are holes left to software.
 * Packet i of the session completes WQE counter title.wqe_counter + i and
 * takes from the title every field its mini-CQE lacks.
 */
#define MLX5_CQE_FORMAT_SHIFT 2
#define MLX5_CQE_FORMAT_MASK 0xcu /**< op_own bits 3:2 */
#define MLX5_CQE_FORMAT_COMPRESSED 3u
#define MLX5_MINI_CQE_PER_CQE 8u /**< mini-CQEs in one 64-byte slot */

/** Mini-CQE formats, as DPDK's rxq_cqe_comp_en numbers them (CQ context mini_cqe_res_format). */
enum mlx5_mini_cqe_format {
	MLX5_MINI_CQE_HASH = 0, /**< rx_hash_result, byte_cnt */
	MLX5_MINI_CQE_CSUM = 1, /**< checksum, byte_cnt */
	MLX5_MINI_CQE_FTAG_STRIDX =
		2, /**< flow tag 23:8, stride index, flow tag 7:0 | 24-bit byte count */
	MLX5_MINI_CQE_CSUM_STRIDX = 3, /**< checksum, stride index, byte_cnt */
	MLX5_MINI_CQE_L34H_STRIDX = 4, /**< header type byte, stride index, byte_cnt */
};

/** One mini-CQE (8 bytes, big-endian fields); which union member holds depends on the format. */
struct mlx5_mini_cqe8 {
	union {
		__be32 rx_hash_result; /**< HASH */
		struct {
			__be16 checksum; /**< CSUM, CSUM_STRIDX; flow tag 23:8 in FTAG_STRIDX */
			__be16 stride_idx; /**< *_STRIDX */
		};
		struct {
			uint8_t hdr_type; /**< L34H_STRIDX: as the CQE's l4_hdr_type_etc */
			uint8_t rsvd;
			__be16 l34h_stride_idx;
		};
	};
	__be32 byte_cnt; /**< FTAG_STRIDX: flow tag 7:0 in the top byte, 24-bit length */
};

/*
 * Striding (multi-packet) RQ: one 32-byte WQE (struct mlx5_mprq_wqe of
 * mlx5dv.h: next segment, then one data segment over all its strides).
 * A receive CQE's byte_cnt then packs the length, the strides the packet
 * consumed and a filler flag; wqe_counter is the first stride's index and
 * the WQE index is at bytes 2-3 (wqe_id).
 */
#define MLX5_MPRQ_LEN_MASK 0xffffu
#define MLX5_MPRQ_STRIDE_NUM_SHIFT 16
#define MLX5_MPRQ_STRIDE_NUM_MASK 0x3fff0000u
#define MLX5_MPRQ_FILLER_MASK 0x80000000u
#define MLX5_MPRQ_WQE_SIZE 32u
#define MLX5_CQE_WQE_ID_OFF 2 /**< __be16: the striding RQ's WQE index */

/** Format bits of a CQE's op_own: MLX5_CQE_FORMAT_COMPRESSED for a session title. */
static inline unsigned int mlx5_cqe_format(uint8_t op_own)
{
	return (op_own & MLX5_CQE_FORMAT_MASK) >> MLX5_CQE_FORMAT_SHIFT;
}

/** Basic blocks (64 bytes) a WQE of @p ds 16-byte units spans. */
static inline unsigned int mlx5_wqe_ds_to_bbs(unsigned int ds)
{
	return (ds * MLX5_WSEG_SIZE + MLX5_SEND_WQE_BB - 1) / MLX5_SEND_WQE_BB;
}

/** ds units of an Ethernet segment inlining @p inline_sz header bytes. */
static inline unsigned int mlx5_eseg_ds(unsigned int inline_sz)
{
	unsigned int rest = inline_sz > MLX5_ESEG_INLINE_IN_FIRST_DS ?
				    inline_sz - MLX5_ESEG_INLINE_IN_FIRST_DS :
				    0;

	return 1 + (rest + MLX5_WSEG_SIZE - 1) / MLX5_WSEG_SIZE;
}

/** The RSS hash result of a receive CQE (host order). */
static inline uint32_t mlx5_cqe_rx_hash(const struct mlx5_cqe64 *cqe)
{
	uint32_t v;

	memcpy(&v, (const uint8_t *)cqe + MLX5_CQE_RX_HASH_RES_OFF, sizeof(v));
	return be32toh(v);
}

static inline unsigned int mlx5_cqe_l3_type(const struct mlx5_cqe64 *cqe)
{
	return (cqe->l4_hdr_type_etc >> MLX5_CQE_L3_HDR_TYPE_SHIFT) & MLX5_CQE_L3_HDR_TYPE_MASK;
}

static inline unsigned int mlx5_cqe_l4_type(const struct mlx5_cqe64 *cqe)
{
	return (cqe->l4_hdr_type_etc >> MLX5_CQE_L4_HDR_TYPE_SHIFT) & MLX5_CQE_L4_HDR_TYPE_MASK;
}

/* The layouts this header and the datapath rely on, checked against mlx5dv.h. */
_Static_assert(sizeof(struct mlx5_cqe64) == 64, "64-byte CQE");
_Static_assert(offsetof(struct mlx5_cqe64, hds_ip_ext) == 28, "hds_ip_ext at 28");
_Static_assert(offsetof(struct mlx5_cqe64, l4_hdr_type_etc) == 29, "l4_hdr_type_etc at 29");
_Static_assert(offsetof(struct mlx5_cqe64, vlan_info) == 30, "vlan_info at 30");
_Static_assert(offsetof(struct mlx5_cqe64, srqn_uidx) == 32, "srqn_uidx at 32");
_Static_assert(offsetof(struct mlx5_cqe64, byte_cnt) == 44, "byte_cnt at 44");
_Static_assert(offsetof(struct mlx5_cqe64, timestamp) == 48, "timestamp at 48");
_Static_assert(offsetof(struct mlx5_cqe64, sop_drop_qpn) == 56, "sop_drop_qpn at 56");
_Static_assert(offsetof(struct mlx5_cqe64, wqe_counter) == 60, "wqe_counter at 60");
_Static_assert(offsetof(struct mlx5_cqe64, op_own) == 63, "op_own last");
_Static_assert(sizeof(struct mlx5_err_cqe) == 64, "64-byte error CQE");
_Static_assert(offsetof(struct mlx5_err_cqe, syndrome) == 55, "syndrome at 55");
_Static_assert(offsetof(struct mlx5_err_cqe, s_wqe_opcode_qpn) == 56, "qpn at 56");
_Static_assert(sizeof(struct mlx5_wqe_ctrl_seg) == 16, "one ds");
_Static_assert(offsetof(struct mlx5_wqe_ctrl_seg, fm_ce_se) == 11, "fm_ce_se at 11");
_Static_assert(MLX5_WQE_CTRL_CQ_UPDATE == MLX5_COMP_ALWAYS << MLX5_COMP_MODE_SHIFT,
	       "CQ_UPDATE is the ALWAYS completion mode");
_Static_assert(sizeof(struct mlx5_wqe_eth_seg) == 32, "two ds");
_Static_assert(offsetof(struct mlx5_wqe_eth_seg, inline_hdr_start) == 14, "inline start");
_Static_assert(sizeof(struct mlx5_wqe_data_seg) == 16, "one ds");
_Static_assert(sizeof(struct mlx5_mini_cqe8) == 8, "8-byte mini-CQE");
_Static_assert(offsetof(struct mlx5_mini_cqe8, stride_idx) == 2, "stride index at 2");
_Static_assert(offsetof(struct mlx5_mini_cqe8, byte_cnt) == 4, "mini byte_cnt at 4");
_Static_assert(sizeof(struct mlx5_mprq_wqe) == MLX5_MPRQ_WQE_SIZE, "32-byte striding WQE");

#ifdef __cplusplus
}
#endif

#endif /* MLX5_PRM_H */
