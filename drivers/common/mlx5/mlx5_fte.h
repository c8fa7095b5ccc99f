/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The PRM's fte_match_param: what a flow matcher's mask and a flow's value
 * hold (mlx5dv_flow_match_parameters.match_buf), as mlx5dv_create_flow_matcher
 * and mlx5dv_create_flow pass it to the kernel and the kernel to the
 * device. Eight parts of 64 bytes: outer headers (fte_match_set_lyr_2_4),
 * misc parameters, inner headers, misc 2 to 5, reserved; a matcher's
 * match_criteria_enable has bit n set for part n it matches on.
 *
 * Fields are big-endian bit strings: bit 0 is the top bit of byte 0, and a
 * field of width w at bit offset o covers bits o .. o + w - 1 of its part.
 * Only the fields the PMD writes or the sim reads are named here. Shared by
 * the mlx5 PMD (drivers/net/mlx5) and the simulated HCA (drivers/sim/mlx5).
 */

#ifndef MLX5_FTE_H
#define MLX5_FTE_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes of one part (0x200 bits), and of the whole fte_match_param. */
#define MLX5_FTE_PART_SIZE 64u
#define MLX5_FTE_MATCH_PARAM_SIZE (8u * MLX5_FTE_PART_SIZE)

/** Parts, by their bit in match_criteria_enable (and their place in the buffer). */
enum mlx5_fte_part {
	MLX5_FTE_OUTER = 0,
	MLX5_FTE_MISC = 1,
	MLX5_FTE_INNER = 2,
	MLX5_FTE_MISC2 = 3,
	MLX5_FTE_MISC3 = 4,
	MLX5_FTE_MISC4 = 5,
	MLX5_FTE_MISC5 = 6,
	MLX5_FTE_PARTS = 8, /**< the last is reserved */
};

/** A field: bit offset from the start of fte_match_param, width in bits (1..32, or 128). */
struct mlx5_fte_field {
	uint16_t off;
	uint8_t width;
};

#define MLX5_FTE_O(o, w) ((struct mlx5_fte_field){ (uint16_t)(o), (uint8_t)(w) })

/* fte_match_set_lyr_2_4 of the outer headers (part 0). */
#define MLX5_FTE_SMAC_47_16 MLX5_FTE_O(0x00, 32)
#define MLX5_FTE_SMAC_15_0 MLX5_FTE_O(0x20, 16)
#define MLX5_FTE_ETHERTYPE MLX5_FTE_O(0x30, 16) /**< the one after the VLAN tags */
#define MLX5_FTE_DMAC_47_16 MLX5_FTE_O(0x40, 32)
#define MLX5_FTE_DMAC_15_0 MLX5_FTE_O(0x60, 16)
#define MLX5_FTE_FIRST_PRIO MLX5_FTE_O(0x70, 3)
#define MLX5_FTE_FIRST_CFI MLX5_FTE_O(0x73, 1)
#define MLX5_FTE_FIRST_VID MLX5_FTE_O(0x74, 12)
#define MLX5_FTE_IP_PROTOCOL MLX5_FTE_O(0x80, 8)
#define MLX5_FTE_IP_DSCP MLX5_FTE_O(0x88, 6)
#define MLX5_FTE_IP_ECN MLX5_FTE_O(0x8e, 2)
#define MLX5_FTE_CVLAN_TAG MLX5_FTE_O(0x90, 1) /**< the first tag is 802.1Q (0x8100) */
#define MLX5_FTE_SVLAN_TAG MLX5_FTE_O(0x91, 1) /**< the first tag is 802.1ad (0x88a8) */
#define MLX5_FTE_FRAG MLX5_FTE_O(0x92, 1) /**< an IP fragment (IPv4: MF or an offset) */
#define MLX5_FTE_IP_VERSION MLX5_FTE_O(0x93, 4)
#define MLX5_FTE_TCP_FLAGS MLX5_FTE_O(0x97, 9)
#define MLX5_FTE_TCP_SPORT MLX5_FTE_O(0xa0, 16)
#define MLX5_FTE_TCP_DPORT MLX5_FTE_O(0xb0, 16)
#define MLX5_FTE_TTL_HOPLIMIT MLX5_FTE_O(0xd8, 8)
#define MLX5_FTE_UDP_SPORT MLX5_FTE_O(0xe0, 16)
#define MLX5_FTE_UDP_DPORT MLX5_FTE_O(0xf0, 16)
/*
 * src_ipv4_src_ipv6 at 0x100 and dst_ipv4_dst_ipv6 at 0x180, 128 bits each:
 * an IPv6 address fills one, IPv4's sits in its last 32 bits. The IPv6
 * fields are wider than mlx5_fte_set() takes: use mlx5_fte_set_bytes().
 */
#define MLX5_FTE_SRC_IPV6 MLX5_FTE_O(0x100, 128)
#define MLX5_FTE_DST_IPV6 MLX5_FTE_O(0x180, 128)
#define MLX5_FTE_SRC_IPV4 MLX5_FTE_O(0x160, 32)
#define MLX5_FTE_DST_IPV4 MLX5_FTE_O(0x1e0, 32)

/* fte_match_set_misc (part 1). */
#define MLX5_FTE_MISC_SOURCE_PORT MLX5_FTE_O(0x200 + 0x30, 16)

/** Write @p v into field @p f of @p buf (the value's low f.width bits). */
static inline void mlx5_fte_set(uint8_t *buf, struct mlx5_fte_field f, uint32_t v)
{
	for (unsigned int i = 0; i < f.width; i++) {
		unsigned int bit = f.off + i;
		uint8_t m = (uint8_t)(0x80u >> (bit & 7));

		if ((v >> (f.width - 1 - i)) & 1u)
			buf[bit >> 3] |= m;
		else
			buf[bit >> 3] &= (uint8_t)~m;
	}
}

/**
 * Write the bytes @p v (network order, f.width / 8 of them) into field @p f
 * of @p buf: for byte-aligned fields of whole bytes, such as the IPv6
 * addresses.
 */
static inline void mlx5_fte_set_bytes(uint8_t *buf, struct mlx5_fte_field f, const uint8_t *v)
{
	for (unsigned int i = 0; i < f.width / 8u; i++)
		buf[f.off / 8u + i] = v[i];
}

/** Field @p f of @p buf. */
static inline uint32_t mlx5_fte_get(const uint8_t *buf, struct mlx5_fte_field f)
{
	uint32_t v = 0;

	for (unsigned int i = 0; i < f.width; i++) {
		unsigned int bit = f.off + i;

		v = v << 1 | ((buf[bit >> 3] >> (7 - (bit & 7))) & 1u);
	}
	return v;
}

#ifdef __cplusplus
}
#endif

#endif /* MLX5_FTE_H */
