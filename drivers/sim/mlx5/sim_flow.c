/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Steering: ibv_create_flow on a hashing QP. A port keeps its rules sorted
 * by priority (lower first), then specific rules before the multicast
 * default before the promiscuous default, then age; a received frame goes
 * to the first rule that matches it, or is counted as taken by none (on a
 * real port it would go to the kernel).
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
		case IBV_FLOW_SPEC_ETH:
			ok = spec_get(&f->m.eth, sizeof(f->m.eth), p, h.size);
			break;
		case IBV_FLOW_SPEC_IPV4:
			ok = spec_get(&f->m.ipv4, sizeof(f->m.ipv4), p, h.size);
			break;
		case IBV_FLOW_SPEC_TCP:
		case IBV_FLOW_SPEC_UDP:
			ok = spec_get(&f->m.l4, sizeof(f->m.l4), p, h.size);
			f->m.l4_proto = h.type == IBV_FLOW_SPEC_TCP ? IPPROTO_TCP : IPPROTO_UDP;
			break;
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
			f->ctr = dvp_container_of(s.counters, struct sim_counters, ibv);
			if (s.counters == NULL || f->ctr->magic != SIM_MAGIC_COUNTERS ||
			    f->ctr->npoints == 0) {
				SIM_LOG(ERR, dev,
					"create_flow: ACTION_COUNT needs live counters with a point "
					"attached");
				return EINVAL;
			}
			break;
		}
		default:
			SIM_LOG(ERR, dev,
				"create_flow: spec type 0x%x not supported; valid are "
				"ETH, IPV4, TCP, UDP, ACTION_TAG, ACTION_DROP and ACTION_COUNT",
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
	struct sim_flow *f, *it;
	struct sim_port *port;
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
	f->qp = qp;
	f->port = attr->port - 1u;
	f->priority = attr->priority;
	f->type = attr->type;
	f->ibv.context = ibv->context;
	port = &dev->ports[f->port];
	if (sim_dev_lock_alive(dev) != 0) {
		free(f);
		return NULL;
	}
	f->seq = dev->flow_seq++;
	f->ibv.handle = (uint32_t)f->seq;
	TAILQ_FOREACH(it, &port->flows, next)
		if (flow_before(f, it))
			break;
	if (it != NULL)
		TAILQ_INSERT_BEFORE(it, f, next);
	else
		TAILQ_INSERT_TAIL(&port->flows, f, next);
	qp->flows++;
	if (f->ctr != NULL)
		f->ctr->flows++;
	sim_obj_add(qp->ctx);
	return &f->ibv;
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
	dev = f->qp->ctx->dev;
	pthread_mutex_lock(&dev->lock);
	TAILQ_REMOVE(&dev->ports[f->port].flows, f, next);
	f->qp->flows--;
	if (f->ctr != NULL)
		f->ctr->flows--;
	sim_obj_drop(f->qp->ctx, &f->magic);
	free(f);
	return 0;
}

static bool masked_eq(const uint8_t *a, const uint8_t *b, const uint8_t *mask, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((a[i] ^ b[i]) & mask[i])
			return false;
	return true;
}

static bool match_normal(const struct sim_match *m, const struct sim_pkt *pkt)
{
	const uint8_t *d = pkt->data;

	if (m->eth.size != 0) {
		uint16_t etype = 0, tci = 0;

		if (pkt->len < 14 || !masked_eq(d, m->eth.val.dst_mac, m->eth.mask.dst_mac, 6) ||
		    !masked_eq(d + 6, m->eth.val.src_mac, m->eth.mask.src_mac, 6))
			return false;
		memcpy(&etype, d + 12, 2);
		if (etype == htons(0x8100) && pkt->len >= 18) {
			memcpy(&tci, d + 14, 2);
			memcpy(&etype, d + 16, 2);
		}
		if (((etype ^ m->eth.val.ether_type) & m->eth.mask.ether_type) ||
		    ((tci ^ m->eth.val.vlan_tag) & m->eth.mask.vlan_tag))
			return false;
	}
	if (m->ipv4.size != 0) {
		uint32_t src, dst;

		if (pkt->l3 != 4)
			return false;
		memcpy(&src, d + pkt->l3_off + 12, 4);
		memcpy(&dst, d + pkt->l3_off + 16, 4);
		if (((src ^ m->ipv4.val.src_ip) & m->ipv4.mask.src_ip) ||
		    ((dst ^ m->ipv4.val.dst_ip) & m->ipv4.mask.dst_ip))
			return false;
	}
	if (m->l4_proto != 0) {
		uint16_t sport, dport;

		if (pkt->l4_proto != m->l4_proto)
			return false;
		memcpy(&sport, d + pkt->l4_off, 2);
		memcpy(&dport, d + pkt->l4_off + 2, 2);
		if (((sport ^ m->l4.val.src_port) & m->l4.mask.src_port) ||
		    ((dport ^ m->l4.val.dst_port) & m->l4.mask.dst_port))
			return false;
	}
	return true;
}

/* dev->lock held. */
struct sim_flow *sim_flow_match(struct sim_port *port, const struct sim_pkt *pkt)
{
	struct sim_flow *f;

	TAILQ_FOREACH(f, &port->flows, next) {
		switch (f->type) {
		case IBV_FLOW_ATTR_ALL_DEFAULT:
			return f;
		case IBV_FLOW_ATTR_MC_DEFAULT:
			if (pkt->len >= 6 && (pkt->data[0] & 1))
				return f;
			break;
		default:
			if (match_normal(&f->m, pkt))
				return f;
		}
	}
	return NULL;
}
