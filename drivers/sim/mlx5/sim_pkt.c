/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Frame parsing and Internet checksums, for what the HCA computes itself:
 * the L3/L4 header types and checksum-ok flags of receive CQEs, the RSS
 * input, steering matches, and the checksums a send WQE asks to be filled.
 */

#include <netinet/in.h>
#include <string.h>

#include "sim_pkt.h"

static uint16_t rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

void sim_pkt_parse(const uint8_t *d, uint32_t len, struct sim_pkt *p)
{
	uint32_t off = 14;
	uint16_t etype;

	memset(p, 0, sizeof(*p));
	p->data = d;
	p->len = len;
	if (len < 14)
		return;
	etype = rd16(d + 12);
	for (int tags = 0; tags < 2 && (etype == 0x8100 || etype == 0x88a8) && len >= off + 4;
	     tags++) {
		etype = rd16(d + off + 2);
		off += 4;
	}
	if (etype == 0x0800 && len >= off + 20 && (d[off] >> 4) == 4) {
		uint32_t ihl = (d[off] & 0xfu) * 4u, tot = rd16(d + off + 2);

		if (ihl < 20 || tot < ihl || off + tot > len)
			return;
		p->l3 = 4;
		p->l3_off = off;
		p->l3_end = off + tot;
		p->frag = (rd16(d + off + 6) & 0x3fff) != 0;
		p->l4_off = off + ihl;
		if (!p->frag) {
			uint8_t proto = d[off + 9];

			if ((proto == IPPROTO_UDP && p->l4_off + 8 <= p->l3_end) ||
			    (proto == IPPROTO_TCP && p->l4_off + 20 <= p->l3_end))
				p->l4_proto = proto;
		}
	} else if (etype == 0x86dd && len >= off + 40 && (d[off] >> 4) == 6) {
		uint32_t plen = rd16(d + off + 4);
		uint8_t next = d[off + 6];

		if (off + 40 + plen > len)
			return;
		p->l3 = 6;
		p->l3_off = off;
		p->l3_end = off + 40 + plen;
		p->l4_off = off + 40;
		p->frag = next == 44;
		if ((next == IPPROTO_UDP && p->l4_off + 8 <= p->l3_end) ||
		    (next == IPPROTO_TCP && p->l4_off + 20 <= p->l3_end))
			p->l4_proto = next;
	}
}

/* One's complement sum of big-endian 16-bit words, unfolded. */
uint32_t sim_csum_add(uint32_t sum, const uint8_t *data, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(data[i] << 8 | data[i + 1]);
	if (len & 1)
		sum += (uint32_t)data[len - 1] << 8;
	return sum;
}

uint16_t sim_csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint32_t pseudo_sum(const struct sim_pkt *p)
{
	const uint8_t *ip = p->data + p->l3_off;
	uint32_t l4_len = p->l3_end - p->l4_off;
	uint32_t sum;

	if (p->l3 == 4)
		sum = sim_csum_add(0, ip + 12, 8);
	else
		sum = sim_csum_add(0, ip + 8, 32);
	return sum + p->l4_proto + (l4_len & 0xffff) + (l4_len >> 16);
}

bool sim_pkt_ipv4_csum_ok(const struct sim_pkt *p)
{
	if (p->l3 != 4)
		return false;
	return sim_csum_fold(sim_csum_add(0, p->data + p->l3_off, p->l4_off - p->l3_off)) == 0xffff;
}

bool sim_pkt_udp_csum_none(const struct sim_pkt *p)
{
	return p->l4_proto == IPPROTO_UDP && p->l3 == 4 && rd16(p->data + p->l4_off + 6) == 0;
}

bool sim_pkt_l4_csum_ok(const struct sim_pkt *p)
{
	const uint8_t *l4 = p->data + p->l4_off;

	if (p->l4_proto == 0)
		return false;
	/* A zero UDP checksum over IPv4 means "not computed", which is valid. */
	if (sim_pkt_udp_csum_none(p))
		return true;
	return sim_csum_fold(sim_csum_add(pseudo_sum(p), l4, p->l3_end - p->l4_off)) == 0xffff;
}

void sim_pkt_fill_ipv4_csum(uint8_t *frame, const struct sim_pkt *p)
{
	uint8_t *ip = frame + p->l3_off;

	if (p->l3 != 4)
		return;
	wr16(ip + 10, 0);
	wr16(ip + 10, (uint16_t)~sim_csum_fold(sim_csum_add(0, ip, p->l4_off - p->l3_off)));
}

void sim_pkt_fill_l4_csum(uint8_t *frame, const struct sim_pkt *p)
{
	uint8_t *l4 = frame + p->l4_off;
	uint32_t at;
	uint16_t c;

	if (p->l4_proto == 0)
		return;
	at = p->l4_proto == IPPROTO_UDP ? 6u : 16u;
	wr16(l4 + at, 0);
	c = (uint16_t)~sim_csum_fold(sim_csum_add(pseudo_sum(p), l4, p->l3_end - p->l4_off));
	if (c == 0 && p->l4_proto == IPPROTO_UDP)
		c = 0xffff;
	wr16(l4 + at, c);
}
