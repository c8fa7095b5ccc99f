/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Steering: ibv_create_flow on a hashing QP. A port keeps its rules sorted
 * by priority (lower first), then specific rules before the multicast
 * default before the promiscuous default, then age; a received frame goes
 * to the first rule that matches it, or is counted as taken by none (on a
 * real port it would go to the kernel).
 *
 * Verbs specs and mlx5dv flows (sim_flow_dv.c) share one filter form: the
 * outer headers of fte_match_param (struct sim_match), as the kernel turns
 * verbs specs into it too. An ETH spec is the MACs, the EtherType after
 * the tag and the tag's TCI (0 on an untagged frame); IPV4 adds
 * ip_version 4 and the addresses; IPV6 ip_version 6, the addresses,
 * traffic_class as ip_dscp and ip_ecn and next_hdr as ip_protocol; TCP or
 * UDP ip_protocol and that protocol's ports. As the kernel's parser: a
 * spec's ip_protocol must agree with one an earlier spec gave (EINVAL),
 * and IPV6 hop_limit under a nonzero mask is refused (EOPNOTSUPP). IPV6
 * flow_label, which the kernel matches in the misc part, is refused too
 * (EOPNOTSUPP): the sim models the outer headers only.
 */

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "sim_dev.h"
#include "sim_obj.h"
#include "sim_pkt.h"
#include "sim_steer.h"
#include "sim_wq.h"

struct spec_hdr {
	enum ibv_flow_spec_type type;
	uint16_t size;
};

static int kind_rank(int type)
{
	return type == IBV_FLOW_ATTR_NORMAL ? 0 : type == IBV_FLOW_ATTR_MC_DEFAULT ? 1 : 2;
}

/* Whether @p a goes before @p b in a port's list. */
static bool flow_before(const struct sim_flow *a, const struct sim_flow *b)
{
	if (a->priority != b->priority)
		return a->priority < b->priority;
	if (kind_rank(a->type) != kind_rank(b->type))
		return kind_rank(a->type) < kind_rank(b->type);
	return a->seq < b->seq;
}

/* The spec at @p p (@p size bytes by its header) into @p s; false if it is shorter. */
static bool spec_get(void *s, size_t len, const uint8_t *p, uint16_t size)
{
	if (size < len)
		return false;
	memcpy(s, p, len);
	return true;
}

/* A verbs ETH spec's value or mask into fte outer-header form. */
static void eth_to_fte(uint8_t *fte, const struct ibv_flow_eth_filter *e)
{
	const uint8_t *d = e->dst_mac, *s = e->src_mac;

	mlx5_fte_set(fte, MLX5_FTE_DMAC_47_16,
		     (uint32_t)d[0] << 24 | d[1] << 16 | d[2] << 8 | d[3]);
	mlx5_fte_set(fte, MLX5_FTE_DMAC_15_0, (uint32_t)d[4] << 8 | d[5]);
	mlx5_fte_set(fte, MLX5_FTE_SMAC_47_16,
		     (uint32_t)s[0] << 24 | s[1] << 16 | s[2] << 8 | s[3]);
	mlx5_fte_set(fte, MLX5_FTE_SMAC_15_0, (uint32_t)s[4] << 8 | s[5]);
	mlx5_fte_set(fte, MLX5_FTE_ETHERTYPE, ntohs(e->ether_type));
	/* The TCI's PCP, DEI and VID are first_prio, first_cfi and first_vid in a row. */
	mlx5_fte_set(fte, MLX5_FTE_O(MLX5_FTE_FIRST_PRIO.off, 16), ntohs(e->vlan_tag));
}

/*
 * ip_protocol @p val under @p mask (0: none asked), as the kernel sets it:
 * a second spec may only repeat what the first gave. 0 or EINVAL.
 */
static int proto_set(struct sim_mlx5_dev *dev, struct sim_flow *f, uint8_t mask, uint8_t val,
		     const char *spec)
{
	uint32_t had = mlx5_fte_get(f->m.mask, MLX5_FTE_IP_PROTOCOL);

	if (mask == 0)
		return 0;
	if (had == 0) {
		mlx5_fte_set(f->m.mask, MLX5_FTE_IP_PROTOCOL, mask);
		mlx5_fte_set(f->m.val, MLX5_FTE_IP_PROTOCOL, val);
		return 0;
	}
	if (had == mask && mlx5_fte_get(f->m.val, MLX5_FTE_IP_PROTOCOL) == val)
		return 0;
	SIM_LOG(ERR, dev,
		"create_flow: %s asks IP protocol %u under 0x%x after an earlier spec's %u under "
		"0x%x; give one protocol",
		spec, val, mask, mlx5_fte_get(f->m.val, MLX5_FTE_IP_PROTOCOL), had);
	return EINVAL;
}

/* A verbs IPV6 spec into @p f's filter; 0 or a positive errno after a log line. */
static int ipv6_to_fte(struct sim_mlx5_dev *dev, struct sim_flow *f,
		       const struct ibv_flow_spec_ipv6 *s)
{
	if (s->mask.hop_limit != 0) {
		SIM_LOG(ERR, dev,
			"create_flow: IPV6 hop_limit under mask 0x%x not supported; valid are "
			"src_ip, dst_ip, flow_label, next_hdr and traffic_class",
			s->mask.hop_limit);
		return EOPNOTSUPP;
	}
	if (s->mask.flow_label != 0) {
		SIM_LOG(ERR, dev,
			"create_flow: IPV6 flow_label under mask 0x%x: the device matches it in "
			"the misc parameters, which the sim does not model; give mask 0",
			ntohl(s->mask.flow_label));
		return EOPNOTSUPP;
	}
	mlx5_fte_set(f->m.val, MLX5_FTE_IP_VERSION, 6);
	mlx5_fte_set(f->m.mask, MLX5_FTE_IP_VERSION, 0xf);
	mlx5_fte_set_bytes(f->m.val, MLX5_FTE_SRC_IPV6, s->val.src_ip);
	mlx5_fte_set_bytes(f->m.mask, MLX5_FTE_SRC_IPV6, s->mask.src_ip);
	mlx5_fte_set_bytes(f->m.val, MLX5_FTE_DST_IPV6, s->val.dst_ip);
	mlx5_fte_set_bytes(f->m.mask, MLX5_FTE_DST_IPV6, s->mask.dst_ip);
	/* The traffic class is the DSCP (its top 6 bits) and the ECN (its low 2). */
	mlx5_fte_set(f->m.val, MLX5_FTE_IP_DSCP, s->val.traffic_class >> 2);
	mlx5_fte_set(f->m.mask, MLX5_FTE_IP_DSCP, s->mask.traffic_class >> 2);
	mlx5_fte_set(f->m.val, MLX5_FTE_IP_ECN, s->val.traffic_class & 3u);
	mlx5_fte_set(f->m.mask, MLX5_FTE_IP_ECN, s->mask.traffic_class & 3u);
	return proto_set(dev, f, s->mask.next_hdr, s->val.next_hdr, "IPV6 next_hdr");
}

struct sim_counters *sim_flow_counters(struct sim_mlx5_dev *dev, struct ibv_counters *c,
				       const char *fn)
{
	struct sim_counters *ctr = dvp_container_of(c, struct sim_counters, ibv);

	if (c == NULL || ctr->magic != SIM_MAGIC_COUNTERS || ctr->npoints == 0) {
		SIM_LOG(ERR, dev, "%s needs live counters with a point attached", fn);
		return NULL;
	}
	return ctr;
}

static int parse_specs(struct sim_mlx5_dev *dev, const struct ibv_flow_attr *attr,
		       struct sim_flow *f)
{
	const uint8_t *p = (const uint8_t *)(attr + 1);
	size_t left = attr->size > sizeof(*attr) ? attr->size - sizeof(*attr) : 0;

	for (unsigned int i = 0; i < attr->num_of_specs; i++) {
		struct spec_hdr h;
		bool ok = true;

		if (left < sizeof(h))
			goto short_attr;
		memcpy(&h, p, sizeof(h));
		if (h.size < sizeof(h) || h.size > left)
			goto short_attr;
		switch ((int)h.type) {
		case IBV_FLOW_SPEC_ETH: {
			struct ibv_flow_spec_eth s;

			if (!spec_get(&s, sizeof(s), p, h.size))
				goto short_attr;
			eth_to_fte(f->m.val, &s.val);
			eth_to_fte(f->m.mask, &s.mask);
			/*
			 * As the kernel turns it into fte: a spec on the tag
			 * matches frames with an 802.1Q tag only, so VLAN 0
			 * (or priority bits) never match an untagged frame.
			 */
			if (s.mask.vlan_tag != 0) {
				mlx5_fte_set(f->m.val, MLX5_FTE_CVLAN_TAG, 1);
				mlx5_fte_set(f->m.mask, MLX5_FTE_CVLAN_TAG, 1);
			}
			break;
		}
		case IBV_FLOW_SPEC_IPV4: {
			struct ibv_flow_spec_ipv4 s;

			if (!spec_get(&s, sizeof(s), p, h.size))
				goto short_attr;
			mlx5_fte_set(f->m.val, MLX5_FTE_IP_VERSION, 4);
			mlx5_fte_set(f->m.mask, MLX5_FTE_IP_VERSION, 0xf);
			mlx5_fte_set(f->m.val, MLX5_FTE_SRC_IPV4, ntohl(s.val.src_ip));
			mlx5_fte_set(f->m.mask, MLX5_FTE_SRC_IPV4, ntohl(s.mask.src_ip));
			mlx5_fte_set(f->m.val, MLX5_FTE_DST_IPV4, ntohl(s.val.dst_ip));
			mlx5_fte_set(f->m.mask, MLX5_FTE_DST_IPV4, ntohl(s.mask.dst_ip));
			break;
		}
		case IBV_FLOW_SPEC_IPV6: {
			struct ibv_flow_spec_ipv6 s;
			int ret;

			if (!spec_get(&s, sizeof(s), p, h.size))
				goto short_attr;
			ret = ipv6_to_fte(dev, f, &s);
			if (ret != 0)
				return ret;
			break;
		}
		case IBV_FLOW_SPEC_TCP:
		case IBV_FLOW_SPEC_UDP: {
			struct ibv_flow_spec_tcp_udp s;
			bool tcp = h.type == IBV_FLOW_SPEC_TCP;

			if (!spec_get(&s, sizeof(s), p, h.size))
				goto short_attr;
			if (proto_set(dev, f, 0xff, tcp ? IPPROTO_TCP : IPPROTO_UDP,
				      tcp ? "TCP" : "UDP") != 0)
				return EINVAL;
			mlx5_fte_set(f->m.val, tcp ? MLX5_FTE_TCP_SPORT : MLX5_FTE_UDP_SPORT,
				     ntohs(s.val.src_port));
			mlx5_fte_set(f->m.mask, tcp ? MLX5_FTE_TCP_SPORT : MLX5_FTE_UDP_SPORT,
				     ntohs(s.mask.src_port));
			mlx5_fte_set(f->m.val, tcp ? MLX5_FTE_TCP_DPORT : MLX5_FTE_UDP_DPORT,
				     ntohs(s.val.dst_port));
			mlx5_fte_set(f->m.mask, tcp ? MLX5_FTE_TCP_DPORT : MLX5_FTE_UDP_DPORT,
				     ntohs(s.mask.dst_port));
			break;
		}
		case IBV_FLOW_SPEC_ACTION_TAG: {
			struct ibv_flow_spec_action_tag s;

			if (!spec_get(&s, sizeof(s), p, h.size))
				goto short_attr;
			if (s.tag_id > MLX5_CQE_FLOW_TAG_MASK) {
				SIM_LOG(ERR, dev, "create_flow: tag 0x%x is wider than 24 bits",
					s.tag_id);
				return EINVAL;
			}
			f->has_tag = true;
			f->tag = s.tag_id;
			break;
		}
		case IBV_FLOW_SPEC_ACTION_DROP:
			f->drop = true;
			break;
		case IBV_FLOW_SPEC_ACTION_COUNT: {
			struct ibv_flow_spec_counter_action s;

			if (!spec_get(&s, sizeof(s), p, h.size))
				goto short_attr;
			f->ctr = sim_flow_counters(dev, s.counters, "create_flow: ACTION_COUNT");
			if (f->ctr == NULL)
				return EINVAL;
			break;
		}
		default:
			SIM_LOG(ERR, dev,
				"create_flow: spec type 0x%x not supported; valid are ETH, "
				"IPV4, IPV6, TCP, UDP, ACTION_TAG, ACTION_DROP and ACTION_COUNT",
				(unsigned int)h.type);
			return EOPNOTSUPP;
		}
		if (!ok)
			goto short_attr;
		p += h.size;
		left -= h.size;
	}
	return 0;
short_attr:
	SIM_LOG(ERR, dev, "create_flow: attr size %u does not hold its %u spec(s)", attr->size,
		attr->num_of_specs);
	return EINVAL;
}

struct ibv_flow *sim_create_flow(struct ibv_qp *ibv, struct ibv_flow_attr *attr)
{
	struct sim_qp *qp = sim_qp_of(ibv, __func__);
	struct sim_mlx5_dev *dev;
	struct sim_flow *f;
	int ret;

	if (qp == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = qp->ctx->dev;
	if (!qp->hash)
		return sim_refuse(dev, EINVAL,
				  "create_flow: QP %u is a send queue; steer to a hashing QP",
				  ibv->qp_num);
	if (attr->port < 1 || attr->port > dev->nports)
		return sim_refuse(dev, EINVAL,
				  "create_flow: port %u does not exist; valid ports are 1..%u",
				  attr->port, dev->nports);
	if ((attr->type != IBV_FLOW_ATTR_NORMAL && attr->type != IBV_FLOW_ATTR_ALL_DEFAULT &&
	     attr->type != IBV_FLOW_ATTR_MC_DEFAULT) ||
	    attr->flags != 0 || attr->comp_mask != 0)
		return sim_refuse(
			dev, EOPNOTSUPP,
			"create_flow: type %d, flags 0x%x not supported; valid are NORMAL, "
			"ALL_DEFAULT and MC_DEFAULT without flags",
			attr->type, attr->flags);
	f = sim_obj_alloc(true, sizeof(*f));
	if (f == NULL)
		return NULL;
	ret = parse_specs(dev, attr, f);
	if (ret != 0) {
		free(f);
		errno = ret;
		return NULL;
	}
	f->magic = SIM_MAGIC_FLOW;
	f->ctx = qp->ctx;
	f->qp = qp;
	f->port = attr->port - 1u;
	f->priority = attr->priority;
	f->type = attr->type;
	f->ibv.context = ibv->context;
	if (sim_dev_lock_alive(dev) != 0) {
		free(f);
		return NULL;
	}
	sim_flow_insert(dev, f);
	return &f->ibv;
}

void sim_flow_insert(struct sim_mlx5_dev *dev, struct sim_flow *f)
{
	struct sim_port *port = &dev->ports[f->port];
	struct sim_flow *it;

	f->seq = dev->flow_seq++;
	f->ibv.handle = (uint32_t)f->seq;
	/*
	 * The newest of its priority and kind goes after all of them: found
	 * from the end, past the few rules of later priorities (the port's
	 * own), so that a table of many rules takes one without walking it.
	 */
	for (it = TAILQ_LAST(&port->flows, sim_flow_list); it != NULL && flow_before(f, it);
	     it = TAILQ_PREV(it, sim_flow_list, next))
		;
	if (it != NULL)
		TAILQ_INSERT_AFTER(&port->flows, it, f, next);
	else
		TAILQ_INSERT_HEAD(&port->flows, f, next);
	if (f->qp != NULL)
		f->qp->flows++;
	if (f->matcher != NULL)
		f->matcher->flows++;
	if (f->ctr != NULL)
		f->ctr->flows++;
	sim_obj_add(f->ctx);
}

int sim_destroy_flow(struct ibv_flow *ibv)
{
	struct sim_flow *f;
	struct sim_mlx5_dev *dev;

	if (ibv == NULL)
		return EINVAL;
	f = dvp_container_of(ibv, struct sim_flow, ibv);
	if (f->magic != SIM_MAGIC_FLOW) {
		DVP_LOG_LINE(ERR, sim_logtype, "", "sim_mlx5: destroy_flow: %p is not a live flow",
			     (void *)ibv);
		return EINVAL;
	}
	dev = f->ctx->dev;
	pthread_mutex_lock(&dev->lock);
	TAILQ_REMOVE(&dev->ports[f->port].flows, f, next);
	if (f->qp != NULL)
		f->qp->flows--;
	if (f->matcher != NULL)
		f->matcher->flows--;
	if (f->ctr != NULL)
		f->ctr->flows--;
	sim_obj_drop(f->ctx, &f->magic);
	free(f);
	return 0;
}

/*
 * The fields a rule may match, read from @p pkt into fte outer-header form:
 * what the device's parser gives steering. A field the frame lacks reads
 * 0 (the TCI of an untagged frame, the ports of a fragment). IPv6's
 * ip_protocol is the header's next header, and its ports are read when
 * that is TCP or UDP right after the 40-byte header (sim_pkt_parse()).
 */
static void flow_headers(const struct sim_pkt *pkt, uint8_t *h)
{
	const uint8_t *d = pkt->data;
	uint16_t etype = (uint16_t)(d[12] << 8 | d[13]);

	memset(h, 0, MLX5_FTE_PART_SIZE);
	/* The MACs sit in a row in both: destination then source. */
	memcpy(h + MLX5_FTE_DMAC_47_16.off / 8, d, 6);
	memcpy(h + MLX5_FTE_SMAC_47_16.off / 8, d + 6, 6);
	if ((etype == 0x8100 || etype == 0x88a8) && pkt->len >= 18) {
		mlx5_fte_set(h, etype == 0x8100 ? MLX5_FTE_CVLAN_TAG : MLX5_FTE_SVLAN_TAG, 1);
		mlx5_fte_set(h, MLX5_FTE_O(MLX5_FTE_FIRST_PRIO.off, 16),
			     (uint32_t)(d[14] << 8 | d[15]));
	}
	/* The EtherType after up to two tags, as sim_pkt_parse() reads it. */
	for (uint32_t off = 12, tags = 0;
	     tags < 2 && (etype == 0x8100 || etype == 0x88a8) && pkt->len >= off + 6; tags++) {
		off += 4;
		etype = (uint16_t)(d[off] << 8 | d[off + 1]);
	}
	mlx5_fte_set(h, MLX5_FTE_ETHERTYPE, etype);
	if (pkt->l3 != 0) {
		const uint8_t *ip = d + pkt->l3_off;
		uint8_t tos;

		mlx5_fte_set(h, MLX5_FTE_IP_VERSION, pkt->l3);
		mlx5_fte_set(h, MLX5_FTE_FRAG, pkt->frag);
		mlx5_fte_set(h, MLX5_FTE_IP_PROTOCOL, pkt->l3 == 4 ? ip[9] : ip[6]);
		if (pkt->l3 == 4) {
			memcpy(h + MLX5_FTE_SRC_IPV4.off / 8, ip + 12, 4);
			memcpy(h + MLX5_FTE_DST_IPV4.off / 8, ip + 16, 4);
			tos = ip[1];
		} else {
			mlx5_fte_set_bytes(h, MLX5_FTE_SRC_IPV6, ip + 8);
			mlx5_fte_set_bytes(h, MLX5_FTE_DST_IPV6, ip + 24);
			tos = (uint8_t)(ip[0] << 4 | ip[1] >> 4);
		}
		mlx5_fte_set(h, MLX5_FTE_IP_DSCP, tos >> 2);
		mlx5_fte_set(h, MLX5_FTE_IP_ECN, tos & 3u);
	}
	if (pkt->l4_proto != 0) {
		const uint8_t *l4 = d + pkt->l4_off;
		bool tcp = pkt->l4_proto == IPPROTO_TCP;

		mlx5_fte_set(h, tcp ? MLX5_FTE_TCP_SPORT : MLX5_FTE_UDP_SPORT,
			     (uint32_t)(l4[0] << 8 | l4[1]));
		mlx5_fte_set(h, tcp ? MLX5_FTE_TCP_DPORT : MLX5_FTE_UDP_DPORT,
			     (uint32_t)(l4[2] << 8 | l4[3]));
	}
}

static bool match_normal(const struct sim_match *m, const uint8_t *h)
{
	for (unsigned int i = 0; i < MLX5_FTE_PART_SIZE; i++)
		if ((h[i] ^ m->val[i]) & m->mask[i])
			return false;
	return true;
}

/* dev->lock held. */
struct sim_flow *sim_flow_match(struct sim_port *port, const struct sim_pkt *pkt)
{
	uint8_t h[MLX5_FTE_PART_SIZE];
	struct sim_flow *f;

	flow_headers(pkt, h);
	TAILQ_FOREACH(f, &port->flows, next) {
		switch (f->type) {
		case IBV_FLOW_ATTR_ALL_DEFAULT:
			return f;
		case IBV_FLOW_ATTR_MC_DEFAULT:
			if (pkt->len >= 6 && (pkt->data[0] & 1))
				return f;
			break;
		default:
			if (match_normal(&f->m, h))
				return f;
		}
	}
	return NULL;
}
