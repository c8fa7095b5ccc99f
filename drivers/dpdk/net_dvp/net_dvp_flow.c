/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * rte_flow on net_dvp: DPDK's items and actions translated into dvp_flow's
 * (dvp_flow.h), which lib/port checks and the driver takes. A DPDK item
 * without a mask takes DPDK's default mask (rte_flow_item_*_mask), as
 * DPDK's drivers read it; a field dvp_flow cannot match (IPv4's protocol,
 * TCP's flags ...) is refused with the item named. ETH's has_vlan and
 * IPv4's fragment_offset go through: the driver says which values it can
 * match. MARK and FLAG need nothing here: the driver writes DPDK's
 * RTE_MBUF_F_RX_FDIR(_ID) and hash.fdir.hi into the mbufs itself (the
 * values are the same, net_dvp_rxtx.c checks them).
 */

#include <errno.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_flow.h>
#include <rte_flow_driver.h>

#include <dvp_errno.h>
#include <dvp_flow.h>

#include "net_dvp.h"

/* The most items and actions of one rule (VOIDs included). */
#define NET_DVP_FLOW_MAX 16

struct flow_conv {
	struct dvp_flow_item items[NET_DVP_FLOW_MAX];
	struct dvp_flow_action actions[NET_DVP_FLOW_MAX];
	struct dvp_flow_item_eth eth[2]; /* spec, mask */
	struct dvp_flow_item_vlan vlan[2];
	struct dvp_flow_item_ipv4 ipv4[2];
	struct dvp_flow_item_ipv6 ipv6[2];
	struct dvp_flow_item_l4 l4[2];
	struct dvp_flow_action_queue queue;
	struct dvp_flow_action_mark mark;
	struct dvp_flow_action_rss rss; /* its queue list: the caller's */
};

static int refuse(struct rte_flow_error *error, int err, enum rte_flow_error_type type,
		  const void *cause, const char *msg)
{
	return rte_flow_error_set(error, err, type, cause, msg);
}

/* Whether the @p n bytes at @p p are all 0 (a mask selecting nothing). */
static bool zero(const void *p, size_t n)
{
	const uint8_t *b = p;

	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* Item @p it into @p c's slot for it; @return 0 or -rte_errno after the error is set. */
static int item_conv(const struct rte_flow_item *it, struct flow_conv *c, struct dvp_flow_item *out,
		     struct rte_flow_error *error)
{
	if (it->last != NULL)
		return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST, it,
			      "net_dvp: item ranges (last) are not supported");
	switch (it->type) {
	case RTE_FLOW_ITEM_TYPE_VOID:
		out->type = DVP_FLOW_ITEM_VOID;
		return 0;
	case RTE_FLOW_ITEM_TYPE_ETH: {
		const struct rte_flow_item_eth *s = it->spec, *m;

		m = it->mask != NULL ? it->mask : &rte_flow_item_eth_mask;
		out->type = DVP_FLOW_ITEM_ETH;
		if (s == NULL)
			return 0;
		memcpy(&c->eth[0].dst, &s->dst, 6);
		memcpy(&c->eth[0].src, &s->src, 6);
		c->eth[0].type = s->type;
		memcpy(&c->eth[1].dst, &m->dst, 6);
		memcpy(&c->eth[1].src, &m->src, 6);
		c->eth[1].type = m->type;
		c->eth[0].has_vlan = (uint8_t)s->has_vlan;
		c->eth[1].has_vlan = (uint8_t)m->has_vlan;
		out->spec = &c->eth[0];
		out->mask = &c->eth[1];
		return 0;
	}
	case RTE_FLOW_ITEM_TYPE_VLAN: {
		const struct rte_flow_item_vlan *s = it->spec, *m;

		m = it->mask != NULL ? it->mask : &rte_flow_item_vlan_mask;
		out->type = DVP_FLOW_ITEM_VLAN;
		if (s == NULL)
			return 0;
		c->vlan[0] = (struct dvp_flow_item_vlan){ s->tci, s->inner_type };
		c->vlan[1] = (struct dvp_flow_item_vlan){ m->tci, m->inner_type };
		out->spec = &c->vlan[0];
		out->mask = &c->vlan[1];
		return 0;
	}
	case RTE_FLOW_ITEM_TYPE_IPV4: {
		const struct rte_flow_item_ipv4 *s = it->spec, *m;
		struct rte_ipv4_hdr rest;

		m = it->mask != NULL ? it->mask : &rte_flow_item_ipv4_mask;
		out->type = DVP_FLOW_ITEM_IPV4;
		if (s == NULL)
			return 0;
		rest = m->hdr;
		rest.src_addr = 0;
		rest.dst_addr = 0;
		rest.fragment_offset = 0;
		if (!zero(&rest, sizeof(rest)))
			return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
				      "net_dvp: IPV4 matches src and dst addresses and "
				      "fragment_offset only");
		c->ipv4[0] = (struct dvp_flow_item_ipv4){ s->hdr.src_addr, s->hdr.dst_addr,
							  s->hdr.fragment_offset };
		c->ipv4[1] = (struct dvp_flow_item_ipv4){ m->hdr.src_addr, m->hdr.dst_addr,
							  m->hdr.fragment_offset };
		out->spec = &c->ipv4[0];
		out->mask = &c->ipv4[1];
		return 0;
	}
	case RTE_FLOW_ITEM_TYPE_IPV6: {
		const struct rte_flow_item_ipv6 *s = it->spec, *m;
		struct rte_ipv6_hdr rest;

		m = it->mask != NULL ? it->mask : &rte_flow_item_ipv6_mask;
		out->type = DVP_FLOW_ITEM_IPV6;
		if (s == NULL)
			return 0;
		rest = m->hdr;
		memset(rest.src_addr, 0, 16);
		memset(rest.dst_addr, 0, 16);
		if (!zero(&rest, sizeof(rest)))
			return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
				      "net_dvp: IPV6 matches src and dst addresses only");
		memcpy(c->ipv6[0].src, s->hdr.src_addr, 16);
		memcpy(c->ipv6[0].dst, s->hdr.dst_addr, 16);
		memcpy(c->ipv6[1].src, m->hdr.src_addr, 16);
		memcpy(c->ipv6[1].dst, m->hdr.dst_addr, 16);
		out->spec = &c->ipv6[0];
		out->mask = &c->ipv6[1];
		return 0;
	}
	case RTE_FLOW_ITEM_TYPE_UDP: {
		const struct rte_flow_item_udp *s = it->spec, *m;

		m = it->mask != NULL ? it->mask : &rte_flow_item_udp_mask;
		out->type = DVP_FLOW_ITEM_UDP;
		if (s == NULL)
			return 0;
		if (m->hdr.dgram_len != 0 || m->hdr.dgram_cksum != 0)
			return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
				      "net_dvp: UDP matches src and dst ports only");
		c->l4[0] = (struct dvp_flow_item_l4){ s->hdr.src_port, s->hdr.dst_port };
		c->l4[1] = (struct dvp_flow_item_l4){ m->hdr.src_port, m->hdr.dst_port };
		out->spec = &c->l4[0];
		out->mask = &c->l4[1];
		return 0;
	}
	case RTE_FLOW_ITEM_TYPE_TCP: {
		const struct rte_flow_item_tcp *s = it->spec, *m;
		struct rte_tcp_hdr rest;

		m = it->mask != NULL ? it->mask : &rte_flow_item_tcp_mask;
		out->type = DVP_FLOW_ITEM_TCP;
		if (s == NULL)
			return 0;
		rest = m->hdr;
		rest.src_port = 0;
		rest.dst_port = 0;
		if (!zero(&rest, sizeof(rest)))
			return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, it,
				      "net_dvp: TCP matches src and dst ports only");
		c->l4[0] = (struct dvp_flow_item_l4){ s->hdr.src_port, s->hdr.dst_port };
		c->l4[1] = (struct dvp_flow_item_l4){ m->hdr.src_port, m->hdr.dst_port };
		out->spec = &c->l4[0];
		out->mask = &c->l4[1];
		return 0;
	}
	default:
		return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, it,
			      "net_dvp: item not supported; valid are ETH, VLAN, IPV4, IPV6, UDP, "
			      "TCP, VOID");
	}
}

static int action_conv(const struct rte_flow_action *a, struct flow_conv *c,
		       struct dvp_flow_action *out, struct rte_flow_error *error)
{
	switch (a->type) {
	case RTE_FLOW_ACTION_TYPE_VOID:
		out->type = DVP_FLOW_ACTION_VOID;
		return 0;
	case RTE_FLOW_ACTION_TYPE_QUEUE:
		if (a->conf == NULL)
			break;
		c->queue.index = ((const struct rte_flow_action_queue *)a->conf)->index;
		*out = (struct dvp_flow_action){ DVP_FLOW_ACTION_QUEUE, &c->queue };
		return 0;
	case RTE_FLOW_ACTION_TYPE_DROP:
		out->type = DVP_FLOW_ACTION_DROP;
		return 0;
	case RTE_FLOW_ACTION_TYPE_MARK:
		if (a->conf == NULL)
			break;
		c->mark.id = ((const struct rte_flow_action_mark *)a->conf)->id;
		*out = (struct dvp_flow_action){ DVP_FLOW_ACTION_MARK, &c->mark };
		return 0;
	case RTE_FLOW_ACTION_TYPE_FLAG:
		out->type = DVP_FLOW_ACTION_FLAG;
		return 0;
	case RTE_FLOW_ACTION_TYPE_COUNT:
		out->type = DVP_FLOW_ACTION_COUNT;
		return 0;
	case RTE_FLOW_ACTION_TYPE_RSS: {
		const struct rte_flow_action_rss *r = a->conf;

		if (r == NULL)
			break;
		if (r->level > 1 || (r->func != RTE_ETH_HASH_FUNCTION_DEFAULT &&
				     r->func != RTE_ETH_HASH_FUNCTION_TOEPLITZ))
			return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, a,
				      "net_dvp: RSS level or func not supported; valid are level "
				      "0 or 1 (outer) and func DEFAULT or TOEPLITZ");
		/* dvp's DVP_RSS_* bits are ethdev's RTE_ETH_RSS_* bits. */
		c->rss = (struct dvp_flow_action_rss){ .types = r->types,
						       .key = r->key,
						       .key_len = r->key_len,
						       .queue_num = (uint16_t)r->queue_num,
						       .queue = r->queue };
		if (r->queue_num > UINT16_MAX)
			c->rss.queue_num = 0;
		*out = (struct dvp_flow_action){ DVP_FLOW_ACTION_RSS, &c->rss };
		return 0;
	}
	default:
		return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, a,
			      "net_dvp: action not supported; valid are QUEUE, RSS, DROP, MARK, "
			      "FLAG, COUNT, VOID");
	}
	return refuse(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, a,
		      "net_dvp: action without its conf");
}

static int conv(const struct rte_flow_attr *attr, const struct rte_flow_item pattern[],
		const struct rte_flow_action actions[], struct flow_conv *c,
		struct dvp_flow_attr *da, struct rte_flow_error *error)
{
	unsigned int i;
	int ret;

	memset(c, 0, sizeof(*c));
	if (attr == NULL || pattern == NULL || actions == NULL)
		return refuse(error, EINVAL, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
			      "net_dvp: attributes, pattern and actions are all needed");
	if (attr->egress || attr->transfer || attr->group != 0)
		return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR, attr,
			      "net_dvp: ingress rules of group 0 only");
	*da = (struct dvp_flow_attr){ .priority = attr->priority, .ingress = attr->ingress };
	for (i = 0; pattern[i].type != RTE_FLOW_ITEM_TYPE_END; i++) {
		if (i + 1 >= NET_DVP_FLOW_MAX)
			return refuse(error, E2BIG, RTE_FLOW_ERROR_TYPE_ITEM_NUM, &pattern[i],
				      "net_dvp: too many items");
		ret = item_conv(&pattern[i], c, &c->items[i], error);
		if (ret < 0)
			return ret;
	}
	for (i = 0; actions[i].type != RTE_FLOW_ACTION_TYPE_END; i++) {
		if (i + 1 >= NET_DVP_FLOW_MAX)
			return refuse(error, E2BIG, RTE_FLOW_ERROR_TYPE_ACTION_NUM, &actions[i],
				      "net_dvp: too many actions");
		ret = action_conv(&actions[i], c, &c->actions[i], error);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static uint16_t dvp_port_of(struct rte_eth_dev *eth)
{
	return ((struct net_dvp_port *)eth->data->dev_private)->dvp_port;
}

/* A dvp_flow refusal: its log line says why; DPDK's error says where to look. */
static int dvp_refused(struct rte_flow_error *error, int err)
{
	return refuse(error, err, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
		      "net_dvp: refused by dvpmd; its log line says why");
}

static int net_dvp_flow_validate(struct rte_eth_dev *eth, const struct rte_flow_attr *attr,
				 const struct rte_flow_item pattern[],
				 const struct rte_flow_action actions[],
				 struct rte_flow_error *error)
{
	struct dvp_flow_attr da;
	struct flow_conv c;
	int ret = conv(attr, pattern, actions, &c, &da, error);

	if (ret < 0)
		return ret;
	ret = dvp_flow_validate(dvp_port_of(eth), &da, c.items, c.actions);
	return ret < 0 ? dvp_refused(error, -ret) : 0;
}

static struct rte_flow *net_dvp_flow_create(struct rte_eth_dev *eth,
					    const struct rte_flow_attr *attr,
					    const struct rte_flow_item pattern[],
					    const struct rte_flow_action actions[],
					    struct rte_flow_error *error)
{
	struct dvp_flow_attr da;
	struct dvp_flow *f;
	struct flow_conv c;

	if (conv(attr, pattern, actions, &c, &da, error) < 0)
		return NULL;
	f = dvp_flow_create(dvp_port_of(eth), &da, c.items, c.actions);
	if (f == NULL)
		dvp_refused(error, dvp_errno);
	return (struct rte_flow *)(void *)f;
}

static int net_dvp_flow_destroy(struct rte_eth_dev *eth, struct rte_flow *flow,
				struct rte_flow_error *error)
{
	int ret = dvp_flow_destroy(dvp_port_of(eth), (struct dvp_flow *)(void *)flow);

	return ret < 0 ? dvp_refused(error, -ret) : 0;
}

static int net_dvp_flow_flush(struct rte_eth_dev *eth, struct rte_flow_error *error)
{
	int ret = dvp_flow_flush(dvp_port_of(eth));

	return ret < 0 ? dvp_refused(error, -ret) : 0;
}

static int net_dvp_flow_query(struct rte_eth_dev *eth, struct rte_flow *flow,
			      const struct rte_flow_action *action, void *data,
			      struct rte_flow_error *error)
{
	struct rte_flow_query_count *qc = data;
	struct dvp_flow_query_count dq = { 0 };
	int ret;

	if (action == NULL || action->type != RTE_FLOW_ACTION_TYPE_COUNT || qc == NULL)
		return refuse(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, action,
			      "net_dvp: only COUNT can be queried");
	dq.reset = qc->reset;
	ret = dvp_flow_query(dvp_port_of(eth), (struct dvp_flow *)(void *)flow, &dq);
	if (ret < 0)
		return dvp_refused(error, -ret);
	qc->hits_set = 1;
	qc->bytes_set = 1;
	qc->hits = dq.hits;
	qc->bytes = dq.bytes;
	return 0;
}

static int net_dvp_flow_isolate(struct rte_eth_dev *eth, int set, struct rte_flow_error *error)
{
	int ret = dvp_flow_isolate(dvp_port_of(eth), set != 0);

	return ret < 0 ? dvp_refused(error, -ret) : 0;
}

static const struct rte_flow_ops net_dvp_flow_ops = {
	.validate = net_dvp_flow_validate,
	.create = net_dvp_flow_create,
	.destroy = net_dvp_flow_destroy,
	.flush = net_dvp_flow_flush,
	.query = net_dvp_flow_query,
	.isolate = net_dvp_flow_isolate,
};

int net_dvp_flow_ops_get(struct rte_eth_dev *eth, const struct rte_flow_ops **ops)
{
	(void)eth;
	*ops = &net_dvp_flow_ops;
	return 0;
}
