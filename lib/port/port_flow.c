/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Flow rules (dvp_flow.h): the application's pattern and actions checked
 * and laid flat into a struct dvp_flow_rule for the driver, and the port's
 * list of rules, which outlives the driver's objects: those are made at
 * each start and undone at each stop, so rules survive both. COUNT's
 * counts of earlier lives are kept here and added to the driver's.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "port_private.h"

struct dvp_flow {
	struct dvp_flow *next;
	struct dvp_flow_rule rule;
	void *drv; /* the driver's handle while live */
	bool live;
	/* Added to the driver's counts: those of earlier lives, less a reset's. */
	uint64_t hits_base, bytes_base;
};

static const char *const item_names[DVP_FLOW_ITEM_MAX] = {
	[DVP_FLOW_ITEM_END] = "END",   [DVP_FLOW_ITEM_VOID] = "VOID", [DVP_FLOW_ITEM_ETH] = "ETH",
	[DVP_FLOW_ITEM_VLAN] = "VLAN", [DVP_FLOW_ITEM_IPV4] = "IPV4", [DVP_FLOW_ITEM_IPV6] = "IPV6",
	[DVP_FLOW_ITEM_UDP] = "UDP",   [DVP_FLOW_ITEM_TCP] = "TCP",
};

static const char *const action_names[DVP_FLOW_ACTION_MAX] = {
	[DVP_FLOW_ACTION_END] = "END",	   [DVP_FLOW_ACTION_VOID] = "VOID",
	[DVP_FLOW_ACTION_QUEUE] = "QUEUE", [DVP_FLOW_ACTION_DROP] = "DROP",
	[DVP_FLOW_ACTION_MARK] = "MARK",   [DVP_FLOW_ACTION_FLAG] = "FLAG",
	[DVP_FLOW_ACTION_COUNT] = "COUNT", [DVP_FLOW_ACTION_RSS] = "RSS",
};

/* An item's layer: items must come in increasing layers, one per layer. */
static int item_layer(enum dvp_flow_item_type t)
{
	switch (t) {
	case DVP_FLOW_ITEM_ETH:
		return 0;
	case DVP_FLOW_ITEM_VLAN:
		return 1;
	case DVP_FLOW_ITEM_IPV4:
	case DVP_FLOW_ITEM_IPV6:
		return 2;
	default:
		return 3;
	}
}

/* Where item @p t goes in @p r: its spec, its mask, their size. */
static size_t item_slot(struct dvp_flow_rule *r, enum dvp_flow_item_type t, void **spec,
			void **mask)
{
	switch (t) {
	case DVP_FLOW_ITEM_ETH:
		*spec = &r->eth, *mask = &r->eth_mask;
		return sizeof(r->eth);
	case DVP_FLOW_ITEM_VLAN:
		*spec = &r->vlan, *mask = &r->vlan_mask;
		return sizeof(r->vlan);
	case DVP_FLOW_ITEM_IPV4:
		*spec = &r->ipv4, *mask = &r->ipv4_mask;
		return sizeof(r->ipv4);
	case DVP_FLOW_ITEM_IPV6:
		*spec = &r->ipv6, *mask = &r->ipv6_mask;
		return sizeof(r->ipv6);
	default:
		*spec = &r->l4, *mask = &r->l4_mask;
		return sizeof(r->l4);
	}
}

static int parse_pattern(const struct dvp_port *port, const struct dvp_flow_item *pattern,
			 struct dvp_flow_rule *r)
{
	int layer = -1;

	if (pattern == NULL)
		return port_refuse(port->port_id, EINVAL, "flow: no pattern given (NULL)");
	for (unsigned int i = 0;; i++) {
		const struct dvp_flow_item *it = &pattern[i];
		void *spec, *mask;
		size_t size;

		if (it->type == DVP_FLOW_ITEM_END)
			return 0;
		if ((unsigned int)it->type >= DVP_FLOW_ITEM_MAX)
			return port_refuse(port->port_id, EINVAL,
					   "flow: pattern item %u: type %d unknown; valid are ETH, "
					   "VLAN, IPV4, IPV6, UDP, TCP, VOID, END",
					   i, (int)it->type);
		if (it->type == DVP_FLOW_ITEM_VOID)
			continue;
		if (item_layer(it->type) <= layer)
			return port_refuse(
				port->port_id, EINVAL,
				"flow: pattern item %u: %s after a layer as deep or "
				"deeper; the order is ETH, VLAN, IPV4|IPV6, UDP|TCP, each once",
				i, item_names[it->type]);
		layer = item_layer(it->type);
		r->items |= DVP_FLOW_RULE_BIT(it->type);
		size = item_slot(r, it->type, &spec, &mask);
		if (it->spec == NULL) {
			if (it->mask != NULL)
				return port_refuse(
					port->port_id, EINVAL,
					"flow: pattern item %u: %s has a mask but no spec", i,
					item_names[it->type]);
			continue;
		}
		if (it->mask != NULL) {
			memcpy(mask, it->mask, size);
		} else {
			memset(mask, 0xff, size);
			/* As DPDK's default masks: what a device may not match stays out. */
			if (it->type == DVP_FLOW_ITEM_ETH)
				r->eth_mask.has_vlan = 0;
			if (it->type == DVP_FLOW_ITEM_IPV4)
				r->ipv4_mask.fragment_offset = 0;
		}
		for (size_t b = 0; b < size; b++)
			((uint8_t *)spec)[b] =
				((const uint8_t *)it->spec)[b] & ((uint8_t *)mask)[b];
	}
}

static int parse_rss(const struct dvp_port *port, unsigned int i,
		     const struct dvp_flow_action_rss *rss, struct dvp_flow_rule *r)
{
	uint8_t seen[DVP_MAX_QUEUES_PER_PORT] = { 0 };

	if (rss->key != NULL || rss->key_len != 0)
		return port_refuse(port->port_id, ENOTSUP,
				   "flow: action %u: RSS with a key of its own (%u bytes); give "
				   "none (NULL, 0): the port's key is used",
				   i, rss->key_len);
	if (rss->queue_num == 0 || rss->queue == NULL)
		return port_refuse(port->port_id, EINVAL,
				   "flow: action %u: RSS without queues; give 1..%u of them", i,
				   port->nb_rx_queues);
	r->rss_in_order = true;
	for (unsigned int k = 0; k < rss->queue_num; k++) {
		uint16_t q = rss->queue[k];

		if (q >= port->nb_rx_queues || seen[q])
			return port_refuse(port->port_id, EINVAL,
					   "flow: action %u: RSS queue %u %s; the port has %u rx "
					   "queues, each listed once",
					   i, q, q >= port->nb_rx_queues ? "unknown" : "twice",
					   port->nb_rx_queues);
		seen[q] = 1;
		if (q != k)
			r->rss_in_order = false;
	}
	r->rss_types = rss->types;
	r->rss_queue_num = rss->queue_num;
	return 0;
}

static int parse_actions(const struct dvp_port *port, const struct dvp_flow_action *actions,
			 struct dvp_flow_rule *r)
{
	const uint32_t fate = DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_QUEUE) |
			      DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_DROP) |
			      DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_RSS);
	const uint32_t tag =
		DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_MARK) | DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_FLAG);
	unsigned int i;

	if (actions == NULL)
		return port_refuse(port->port_id, EINVAL, "flow: no actions given (NULL)");
	for (i = 0; actions[i].type != DVP_FLOW_ACTION_END; i++) {
		const struct dvp_flow_action *a = &actions[i];
		uint32_t bit = DVP_FLOW_RULE_BIT(a->type);

		if ((unsigned int)a->type >= DVP_FLOW_ACTION_MAX)
			return port_refuse(
				port->port_id, EINVAL,
				"flow: action %u: type %d unknown; valid are QUEUE, RSS, "
				"DROP, MARK, FLAG, COUNT, VOID, END",
				i, (int)a->type);
		if (a->type == DVP_FLOW_ACTION_VOID)
			continue;
		if ((r->actions & bit) || ((bit & fate) && (r->actions & fate)) ||
		    ((bit & tag) && (r->actions & tag)))
			return port_refuse(port->port_id, EINVAL,
					   "flow: action %u: a second %s; a rule takes one fate "
					   "(QUEUE, RSS or DROP), one of MARK or FLAG, one COUNT",
					   i, action_names[a->type]);
		if ((a->type == DVP_FLOW_ACTION_QUEUE || a->type == DVP_FLOW_ACTION_MARK ||
		     a->type == DVP_FLOW_ACTION_RSS) &&
		    a->conf == NULL)
			return port_refuse(port->port_id, EINVAL,
					   "flow: action %u: %s without its conf", i,
					   action_names[a->type]);
		if (a->type == DVP_FLOW_ACTION_QUEUE) {
			r->queue = ((const struct dvp_flow_action_queue *)a->conf)->index;
			if (r->queue >= port->nb_rx_queues)
				return port_refuse(port->port_id, EINVAL,
						   "flow: action %u: QUEUE %u; the port has %u rx "
						   "queues (configure it first)",
						   i, r->queue, port->nb_rx_queues);
		}
		if (a->type == DVP_FLOW_ACTION_RSS) {
			int ret = parse_rss(port, i, a->conf, r);

			if (ret != 0)
				return ret;
		}
		if (a->type == DVP_FLOW_ACTION_MARK)
			r->mark = ((const struct dvp_flow_action_mark *)a->conf)->id;
		r->actions |= bit;
	}
	if (!(r->actions & fate))
		return port_refuse(port->port_id, EINVAL,
				   "flow: no fate among the %u actions; give QUEUE, RSS or DROP",
				   i);
	if ((r->actions & tag) && (r->actions & DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_DROP)))
		return port_refuse(port->port_id, EINVAL,
				   "flow: MARK or FLAG with DROP: nothing is received to carry it");
	return 0;
}

/* Check the rule with lib/port's rules and the driver's; fill @p r. */
static int rule_make(struct dvp_port *port, const struct dvp_flow_attr *attr,
		     const struct dvp_flow_item *pattern, const struct dvp_flow_action *actions,
		     struct dvp_flow_rule *r)
{
	int ret;

	memset(r, 0, sizeof(*r));
	if (port->ops->flow_validate == NULL)
		return port_refuse(port->port_id, ENOTSUP, "flow: %s has no flow rules",
				   port->driver_name);
	if (attr == NULL || !attr->ingress || attr->egress)
		return port_refuse(port->port_id, EINVAL,
				   "flow: attributes %s; only ingress rules are supported",
				   attr == NULL ? "missing" :
				   attr->egress ? "egress" :
						  "without ingress");
	r->priority = attr->priority;
	ret = parse_pattern(port, pattern, r);
	if (ret == 0)
		ret = parse_actions(port, actions, r);
	if (ret < 0)
		return ret;
	ret = port->ops->flow_validate(port, r);
	return ret < 0 ? dvp_err(-ret) : 0;
}

int dvp_flow_validate(uint16_t port_id, const struct dvp_flow_attr *attr,
		      const struct dvp_flow_item pattern[], const struct dvp_flow_action actions[])
{
	struct dvp_port *port = port_get_checked(port_id, "flow validate");
	struct dvp_flow_rule r;

	if (port == NULL)
		return -EINVAL;
	return rule_make(port, attr, pattern, actions, &r);
}

static int flow_live(struct dvp_port *port, struct dvp_flow *f)
{
	int ret = port->ops->flow_create(port, &f->rule, &f->drv);

	if (ret < 0)
		return dvp_err(-ret);
	f->live = true;
	return 0;
}

static void flow_unlive(struct dvp_port *port, struct dvp_flow *f)
{
	uint64_t h = 0, b = 0;

	if (!f->live)
		return;
	if ((f->rule.actions & DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_COUNT)) &&
	    port->ops->flow_query != NULL && port->ops->flow_query(port, f->drv, &h, &b) == 0) {
		f->hits_base += h;
		f->bytes_base += b;
	}
	port->ops->flow_destroy(port, f->drv);
	f->drv = NULL;
	f->live = false;
}

struct dvp_flow *dvp_flow_create(uint16_t port_id, const struct dvp_flow_attr *attr,
				 const struct dvp_flow_item pattern[],
				 const struct dvp_flow_action actions[])
{
	struct dvp_port *port = port_get_checked(port_id, "flow create");
	struct port_slot *s;
	struct dvp_flow *f;
	int ret;

	if (port == NULL)
		return NULL;
	f = calloc(1, sizeof(*f));
	if (f == NULL) {
		port_refuse(port_id, ENOMEM, "flow create: no memory for a rule");
		return NULL;
	}
	ret = rule_make(port, attr, pattern, actions, &f->rule);
	if (ret < 0) {
		free(f);
		return NULL;
	}
	s = port_slot_of(port);
	pthread_mutex_lock(&s->qlock);
	if (port->started)
		ret = flow_live(port, f);
	if (ret == 0) {
		if (s->flows_tail == NULL)
			s->flows_tail = &s->flows;
		*s->flows_tail = f;
		s->flows_tail = &f->next;
	}
	pthread_mutex_unlock(&s->qlock);
	if (ret < 0) {
		free(f);
		return NULL;
	}
	return f;
}

/* The link to @p f in the port's list, or NULL after a log line. */
static struct dvp_flow **flow_find(struct dvp_port *port, const struct dvp_flow *f,
				   const char *func)
{
	struct dvp_flow **p;

	for (p = &port_slot_of(port)->flows; *p != NULL; p = &(*p)->next)
		if (*p == f)
			return p;
	port_refuse(port->port_id, EINVAL, "%s: %p is not a rule of this port", func,
		    (const void *)f);
	return NULL;
}

int dvp_flow_destroy(uint16_t port_id, struct dvp_flow *flow)
{
	struct dvp_port *port = port_get_checked(port_id, "flow destroy");
	struct port_slot *s;
	struct dvp_flow **p;

	if (port == NULL)
		return -EINVAL;
	s = port_slot_of(port);
	pthread_mutex_lock(&s->qlock);
	p = flow_find(port, flow, "flow destroy");
	if (p != NULL) {
		*p = flow->next;
		if (s->flows_tail == &flow->next)
			s->flows_tail = p;
		flow_unlive(port, flow);
		free(flow);
	}
	pthread_mutex_unlock(&s->qlock);
	return p == NULL ? -EINVAL : 0;
}

int dvp_flow_flush(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "flow flush");

	if (port == NULL)
		return -EINVAL;
	if (port->ops->flow_validate == NULL)
		return port_refuse(port_id, ENOTSUP, "flow flush: %s has no flow rules",
				   port->driver_name);
	pthread_mutex_lock(&port_slot_of(port)->qlock);
	port_flow_release(port);
	pthread_mutex_unlock(&port_slot_of(port)->qlock);
	return 0;
}

int dvp_flow_query(uint16_t port_id, struct dvp_flow *flow, struct dvp_flow_query_count *out)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "flow query", out, "nowhere to put the counts");
	uint64_t h = 0, b = 0;
	int ret = 0;

	if (port == NULL)
		return -EINVAL;
	pthread_mutex_lock(&port_slot_of(port)->qlock);
	if (flow_find(port, flow, "flow query") == NULL) {
		ret = -EINVAL;
	} else if (!(flow->rule.actions & DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_COUNT))) {
		ret = port_refuse(port_id, ENOTSUP, "flow query: the rule has no COUNT action");
	} else if (flow->live) {
		ret = port->ops->flow_query(port, flow->drv, &h, &b);
		if (ret < 0)
			ret = port_refuse(port_id, -ret, "flow query: %s failed: %s",
					  port->driver_name, dvp_strerror(-ret));
	}
	if (ret == 0) {
		out->hits = flow->hits_base + h;
		out->bytes = flow->bytes_base + b;
		if (out->reset) {
			/* Unsigned: the base goes below 0 by what the driver counted so far. */
			flow->hits_base = 0 - h;
			flow->bytes_base = 0 - b;
		}
	}
	pthread_mutex_unlock(&port_slot_of(port)->qlock);
	return ret;
}

int dvp_flow_count(uint16_t port_id)
{
	struct dvp_port *port = port_get_checked(port_id, "flow count");
	int n = 0;

	if (port == NULL)
		return -EINVAL;
	pthread_mutex_lock(&port_slot_of(port)->qlock);
	for (const struct dvp_flow *f = port_slot_of(port)->flows; f != NULL; f = f->next)
		n++;
	pthread_mutex_unlock(&port_slot_of(port)->qlock);
	return n;
}

int port_flow_start(struct dvp_port *port)
{
	struct dvp_flow *f;
	unsigned int i = 0;
	int ret;

	for (f = port_slot_of(port)->flows; f != NULL; f = f->next, i++) {
		ret = flow_live(port, f);
		if (ret < 0) {
			port_flow_stop(port);
			return port_refuse(port->port_id, -ret,
					   "start: flow rule %u refused by %s: %s; destroy it or "
					   "change the port",
					   i, port->driver_name, dvp_strerror(-ret));
		}
	}
	return 0;
}

void port_flow_stop(struct dvp_port *port)
{
	for (struct dvp_flow *f = port_slot_of(port)->flows; f != NULL; f = f->next)
		flow_unlive(port, f);
}

int dvp_flow_isolate(uint16_t port_id, bool on)
{
	struct dvp_port *port = port_get_checked(port_id, "flow isolate");
	int ret = 0;

	if (port == NULL)
		return -EINVAL;
	pthread_mutex_lock(&port_slot_of(port)->qlock);
	if (on == port->flow_isolated) {
		/* Already so: nothing to ask of the driver. */
	} else if (port->started) {
		ret = port_refuse(port_id, EBUSY,
				  "flow isolate: the port is started; stop it, set isolated mode "
				  "%s, start it",
				  on ? "on" : "off");
	} else if (on && port->ops->flow_isolate == NULL) {
		ret = port_refuse(port_id, ENOTSUP, "flow isolate: %s cannot isolate a port",
				  port->driver_name);
	} else if (port->ops->flow_isolate != NULL &&
		   (ret = port->ops->flow_isolate(port, on)) < 0) {
		ret = dvp_err(-ret);
	} else {
		port->flow_isolated = on;
		PORT_LOG(INFO, "port %u: isolated mode %s from its next start", port_id,
			 on ? "on" : "off");
	}
	pthread_mutex_unlock(&port_slot_of(port)->qlock);
	return ret;
}

void port_flow_release(struct dvp_port *port)
{
	struct port_slot *s = port_slot_of(port);

	while (s->flows != NULL) {
		struct dvp_flow *f = s->flows;

		s->flows = f->next;
		flow_unlive(port, f);
		free(f);
	}
	s->flows_tail = &s->flows;
}
