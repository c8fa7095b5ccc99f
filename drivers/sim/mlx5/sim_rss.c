/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Receive-side scaling as a hashing QP (a TIR) does it: the Toeplitz hash,
 * under the QP's 40-byte key, of the fields its rx_hash_fields_mask names,
 * in the order of the Microsoft RSS specification (source address,
 * destination address, source port, destination port). A frame that has
 * none of the fields asked for hashes to 0.
 */

#include <netinet/in.h>
#include <string.h>

#include "sim_pkt.h"
#include "sim_steer.h"
#include "sim_wq.h"

uint32_t sim_mlx5_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *input, size_t len)
{
	uint32_t hash = 0, window;
	size_t next_bit = 32;

	if (key == NULL || input == NULL || key_len < 4)
		return 0;
	/* The 32 key bits that line up with the input bit being consumed. */
	window = (uint32_t)key[0] << 24 | (uint32_t)key[1] << 16 | (uint32_t)key[2] << 8 | key[3];
	for (size_t i = 0; i < len; i++) {
		for (int b = 7; b >= 0; b--) {
			if (input[i] & (1u << b))
				hash ^= window;
			window <<= 1;
			if (next_bit / 8 < key_len)
				window |= (key[next_bit / 8] >> (7 - next_bit % 8)) & 1u;
			next_bit++;
		}
	}
	return hash;
}

uint32_t sim_rss_hash(const struct sim_qp *qp, const struct sim_pkt *p)
{
	const uint8_t *d = p->data;
	uint64_t f = qp->fields;
	uint8_t in[36];
	size_t n = 0;

	if (p->l3 == 4) {
		if (f & IBV_RX_HASH_SRC_IPV4)
			memcpy(in + n, d + p->l3_off + 12, 4), n += 4;
		if (f & IBV_RX_HASH_DST_IPV4)
			memcpy(in + n, d + p->l3_off + 16, 4), n += 4;
	} else if (p->l3 == 6) {
		if (f & IBV_RX_HASH_SRC_IPV6)
			memcpy(in + n, d + p->l3_off + 8, 16), n += 16;
		if (f & IBV_RX_HASH_DST_IPV6)
			memcpy(in + n, d + p->l3_off + 24, 16), n += 16;
	}
	if (p->l4_proto == IPPROTO_TCP) {
		if (f & IBV_RX_HASH_SRC_PORT_TCP)
			memcpy(in + n, d + p->l4_off, 2), n += 2;
		if (f & IBV_RX_HASH_DST_PORT_TCP)
			memcpy(in + n, d + p->l4_off + 2, 2), n += 2;
	} else if (p->l4_proto == IPPROTO_UDP) {
		if (f & IBV_RX_HASH_SRC_PORT_UDP)
			memcpy(in + n, d + p->l4_off, 2), n += 2;
		if (f & IBV_RX_HASH_DST_PORT_UDP)
			memcpy(in + n, d + p->l4_off + 2, 2), n += 2;
	}
	return n == 0 ? 0 : sim_mlx5_toeplitz(qp->key, qp->key_len, in, n);
}
