/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Frames as the simulated HCA reads them: the L3/L4 headers of a frame and
 * the Internet checksums (sim_pkt.c), for receive CQEs, the RSS input,
 * steering matches, the checksums a send asks for, and the traffic source
 * and sink.
 */

#ifndef SIM_PKT_H
#define SIM_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* sim_pkt.c */
struct sim_pkt {
	const uint8_t *data;
	uint32_t len;
	uint32_t l3_off, l4_off;
	uint8_t l3; /* 0, 4 or 6 */
	uint8_t l4_proto; /* IPPROTO_* when the L4 header is present, else 0 */
	bool frag;
	uint32_t l3_end; /* end of the IP datagram in the frame */
};
void sim_pkt_parse(const uint8_t *data, uint32_t len, struct sim_pkt *p);
bool sim_pkt_ipv4_csum_ok(const struct sim_pkt *p);
bool sim_pkt_l4_csum_ok(const struct sim_pkt *p);
/* A UDP datagram over IPv4 whose checksum field is 0: the sender computed none. */
bool sim_pkt_udp_csum_none(const struct sim_pkt *p);
void sim_pkt_fill_ipv4_csum(uint8_t *frame, const struct sim_pkt *p);
void sim_pkt_fill_l4_csum(uint8_t *frame, const struct sim_pkt *p);
uint16_t sim_csum_fold(uint32_t sum);
uint32_t sim_csum_add(uint32_t sum, const uint8_t *data, size_t len);

#endif /* SIM_PKT_H */
