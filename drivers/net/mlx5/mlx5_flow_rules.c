/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The application's flow rules (dvp_flow.h) on mlx5, through the verbs
 * flow API: one ibv_create_flow per rule, its specs built from lib/port's
 * flat rule (ETH, with VLAN's tag in it; IPV4 or IPV6; TCP or UDP; ACTION_TAG for
 * MARK and FLAG; ACTION_DROP; ACTION_COUNT with a counters object of
 * packets and bytes), at priorities 0 and 1, before the port's
 * own steering (mlx5_flow.c).
 *
 * QUEUE steers to a hashing QP over an indirection table of that queue's
 * WQ alone (priv->qhrxq[q], shared by the queue's rules); RSS (over all
 * of the port's queues, in order) to a hashing QP of the rule's own over
 * them all, hashing the addresses of one IP version and the rule's UDP or
 * TCP ports as its types say (rss_fields(); other frames take the table's
 * first queue); DROP rules sit
 * on queue 0's, the action dropping what they match. A rule's verbs
 * objects are made with the port's steering (at start, after a queue
 * restart) and undone with it, so they follow the WQs they point at.
 *
 * MARK id m travels as flow tag m + 1 (tag 0 is "no rule"), FLAG as the
 * tag 0xffffff: the receive CQE's sop_drop_qpn[23:0] (mlx5_rx.c). A
 * compressed session shares its title's flow tag (the device compresses
 * only CQEs equal in every field the mini-CQE lacks), so the mini-CQE
 * formats need no change.
 *
 * A rule that says what verbs specs cannot (ETH has_vlan, IPV4
 * fragment_offset) goes through mlx5dv's flow matcher instead
 * (mlx5_flow_dv.c), to the same QPs with the same tag and counters. The
 * others stay on verbs specs: they need no matcher per mask, run on any
 * rdma-core, and keep the meaning the existing rules were tested with.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_errno.h>

#include "mlx5.h"
#include "mlx5_rx.h"

/* The flow tag of FLAG, and the largest MARK id (its tag one below FLAG's). */
#define MLX5_FLOW_TAG_FLAG MLX5_CQE_FLOW_TAG_MASK
#define MLX5_FLOW_MARK_MAX (MLX5_FLOW_TAG_FLAG - 2u)

struct mlx5_uflow {
	struct mlx5_uflow *next;
	struct dvp_flow_rule rule;
	struct ibv_flow *flow; /* NULL while the steering is down */
	struct mlx5_qhrxq *h; /* the QP it is on while up */
	struct ibv_counters *ctr; /* COUNT's while up: packets at 0, bytes at 1 */
	struct mlx5_dv_matcher *matcher; /* the mlx5dv matcher it is on while up, or NULL */
	uint64_t base[2]; /* counts of earlier lives (queue restarts) */
};

static const uint32_t BIT_MARKS =
	DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_MARK) | DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_FLAG);

static bool has(uint32_t set, unsigned int t)
{
	return (set & DVP_FLOW_RULE_BIT(t)) != 0;
}

static uint64_t rss_fields(const struct mlx5_priv *priv, const struct dvp_flow_rule *r);

int mlx5_flow_validate(struct dvp_port *port, const struct dvp_flow_rule *r)
{
	if (r->priority >= MLX5_FLOW_USER_PRIOS)
		return FLOW_REFUSE(port, EINVAL, "priority %u; valid are 0..%u", r->priority,
				   MLX5_FLOW_USER_PRIOS - 1);
	if (has(r->items, DVP_FLOW_ITEM_VLAN) && r->eth_mask.type != 0)
		return FLOW_REFUSE(port, EINVAL,
				   "ETH type with VLAN; give the EtherType after the tag as "
				   "VLAN's inner_type");
	if (has(r->actions, DVP_FLOW_ACTION_RSS) &&
	    (!r->rss_in_order || r->rss_queue_num != port->nb_rx_queues))
		return FLOW_REFUSE(port, ENOTSUP,
				   "RSS over %u queues not all in order; mlx5 takes RSS over all "
				   "of the port's %u rx queues, 0 to %u in order",
				   r->rss_queue_num, port->nb_rx_queues, port->nb_rx_queues - 1);
	if (has(r->actions, DVP_FLOW_ACTION_RSS) &&
	    rss_fields((const struct mlx5_priv *)port->priv, r) == 0)
		return FLOW_REFUSE(port, ENOTSUP,
				   "RSS types 0x%llx without a type of the rule's IP version; "
				   "mlx5 rules hash IPv4 or IPv6 addresses (IPv4's when the "
				   "pattern has neither item and the types both) and the rule's "
				   "UDP or TCP ports",
				   (unsigned long long)r->rss_types);
	if (has(r->actions, DVP_FLOW_ACTION_MARK) && r->mark > MLX5_FLOW_MARK_MAX)
		return FLOW_REFUSE(port, EINVAL, "MARK id 0x%x; valid are 0..0x%x", r->mark,
				   MLX5_FLOW_MARK_MAX);
	return mlx5_flow_dv_validate(port, r);
}

static void destroyed(const struct mlx5_priv *priv, const char *what, int ret);

/* The attribute and specs of a rule, contiguous as verbs reads them. */
struct uflow_buf {
	uint8_t b[sizeof(struct ibv_flow_attr) + sizeof(struct ibv_flow_spec_eth) +
		  sizeof(struct ibv_flow_spec_ipv6) + sizeof(struct ibv_flow_spec_tcp_udp) +
		  sizeof(struct ibv_flow_spec_action_tag) +
		  sizeof(struct ibv_flow_spec_action_drop) +
		  sizeof(struct ibv_flow_spec_counter_action)];
	size_t len;
} __dvp_aligned(8);

static void spec_add(struct uflow_buf *fb, const void *spec, size_t size)
{
	struct ibv_flow_attr *attr = (struct ibv_flow_attr *)(void *)fb->b;

	memcpy(fb->b + fb->len, spec, size);
	fb->len += size;
	attr->num_of_specs++;
	attr->size = (uint16_t)fb->len;
}

static void rule_specs(const struct mlx5_priv *priv, const struct dvp_flow_rule *r,
		       struct ibv_counters *ctr, struct uflow_buf *fb)
{
	struct ibv_flow_attr *attr = (struct ibv_flow_attr *)(void *)fb->b;
	struct ibv_flow_spec_eth eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(eth) };

	memset(fb, 0, sizeof(*fb));
	attr->type = IBV_FLOW_ATTR_NORMAL;
	attr->port = priv->port_num;
	attr->priority = (uint16_t)r->priority;
	fb->len = sizeof(*attr);
	attr->size = (uint16_t)fb->len;
	/* Every rule starts at L2, as the device parses: a zero mask matches any frame. */
	memcpy(eth.val.dst_mac, r->eth.dst.addr_bytes, 6);
	memcpy(eth.mask.dst_mac, r->eth_mask.dst.addr_bytes, 6);
	memcpy(eth.val.src_mac, r->eth.src.addr_bytes, 6);
	memcpy(eth.mask.src_mac, r->eth_mask.src.addr_bytes, 6);
	eth.val.ether_type = r->eth.type;
	eth.mask.ether_type = r->eth_mask.type;
	if (has(r->items, DVP_FLOW_ITEM_VLAN)) {
		eth.val.vlan_tag = r->vlan.tci;
		eth.mask.vlan_tag = r->vlan_mask.tci;
		eth.val.ether_type = r->vlan.inner_type;
		eth.mask.ether_type = r->vlan_mask.inner_type;
	}
	spec_add(fb, &eth, sizeof(eth));
	if (has(r->items, DVP_FLOW_ITEM_IPV4)) {
		struct ibv_flow_spec_ipv4 ip = { .type = IBV_FLOW_SPEC_IPV4, .size = sizeof(ip) };

		ip.val.src_ip = r->ipv4.src;
		ip.val.dst_ip = r->ipv4.dst;
		ip.mask.src_ip = r->ipv4_mask.src;
		ip.mask.dst_ip = r->ipv4_mask.dst;
		spec_add(fb, &ip, sizeof(ip));
	}
	if (has(r->items, DVP_FLOW_ITEM_IPV6)) {
		struct ibv_flow_spec_ipv6 ip = { .type = IBV_FLOW_SPEC_IPV6, .size = sizeof(ip) };

		/* The item has the addresses alone: flow label, class and next header stay 0. */
		memcpy(ip.val.src_ip, r->ipv6.src, 16);
		memcpy(ip.mask.src_ip, r->ipv6_mask.src, 16);
		memcpy(ip.val.dst_ip, r->ipv6.dst, 16);
		memcpy(ip.mask.dst_ip, r->ipv6_mask.dst, 16);
		spec_add(fb, &ip, sizeof(ip));
	}
	if (has(r->items, DVP_FLOW_ITEM_UDP) || has(r->items, DVP_FLOW_ITEM_TCP)) {
		struct ibv_flow_spec_tcp_udp l4 = { .size = sizeof(l4) };

		l4.type = has(r->items, DVP_FLOW_ITEM_TCP) ? IBV_FLOW_SPEC_TCP : IBV_FLOW_SPEC_UDP;
		l4.val.src_port = r->l4.src_port;
		l4.val.dst_port = r->l4.dst_port;
		l4.mask.src_port = r->l4_mask.src_port;
		l4.mask.dst_port = r->l4_mask.dst_port;
		spec_add(fb, &l4, sizeof(l4));
	}
	if (r->actions & BIT_MARKS) {
		struct ibv_flow_spec_action_tag tag = { .type = IBV_FLOW_SPEC_ACTION_TAG,
							.size = sizeof(tag) };

		tag.tag_id =
			has(r->actions, DVP_FLOW_ACTION_FLAG) ? MLX5_FLOW_TAG_FLAG : r->mark + 1u;
		spec_add(fb, &tag, sizeof(tag));
	}
	if (has(r->actions, DVP_FLOW_ACTION_DROP)) {
		struct ibv_flow_spec_action_drop drop = { .type = IBV_FLOW_SPEC_ACTION_DROP,
							  .size = sizeof(drop) };

		spec_add(fb, &drop, sizeof(drop));
	}
	if (ctr != NULL) {
		struct ibv_flow_spec_counter_action count = { .type = IBV_FLOW_SPEC_ACTION_COUNT,
							      .size = sizeof(count),
							      .counters = ctr };

		spec_add(fb, &count, sizeof(count));
	}
}

/* COUNT's counters object: packets at index 0, bytes at 1, attached before the flow binds it. */
static int counters_make(struct mlx5_priv *priv, struct mlx5_uflow *f)
{
	const struct mlx5_glue *g = priv->dev->glue;
	struct ibv_counters_init_attr ia = { 0 };
	struct ibv_counter_attach_attr pkts = { .counter_desc = IBV_COUNTER_PACKETS, .index = 0 };
	struct ibv_counter_attach_attr bytes = { .counter_desc = IBV_COUNTER_BYTES, .index = 1 };
	int err;

	errno = 0;
	f->ctr = g->create_counters(priv->dev->ctx, &ia);
	if (f->ctr == NULL) {
		err = errno ? errno : ENOTSUP;
		MLX5_PLOG(ERR, priv->port, "flow: COUNT: create_counters: %s", dvp_strerror(err));
		return -err;
	}
	err = g->attach_counters_point_flow(f->ctr, &pkts, NULL);
	if (err == 0)
		err = g->attach_counters_point_flow(f->ctr, &bytes, NULL);
	if (err != 0) {
		MLX5_PLOG(ERR, priv->port, "flow: COUNT: attach_counters_point_flow: %s",
			  dvp_strerror(err));
		destroyed(priv, "destroy_counters", g->destroy_counters(f->ctr));
		f->ctr = NULL;
		return -err;
	}
	return 0;
}

/* The counts of a live rule's counters into @p v (0 where they cannot be read). */
static void counters_read(struct mlx5_priv *priv, const struct mlx5_uflow *f, uint64_t v[2])
{
	v[0] = v[1] = 0;
	if (f->ctr != NULL && priv->dev->glue->read_counters(f->ctr, v, 2, 0) != 0)
		v[0] = v[1] = 0;
}

static void destroyed(const struct mlx5_priv *priv, const char *what, int ret)
{
	if (ret != 0)
		MLX5_PLOG(WARNING, priv->port, "%s: %s", what, dvp_strerror(ret));
}

static void qhrxq_put(struct mlx5_priv *priv, struct mlx5_qhrxq *h)
{
	const struct mlx5_glue *g = priv->dev->glue;

	if (--h->refs > 0)
		return;
	destroyed(priv, "destroy_qp (flow queue)", g->destroy_qp(h->qp));
	destroyed(priv, "destroy_rwq_ind_table (flow queue)", g->destroy_rwq_ind_table(h->ind));
	h->qp = NULL;
	h->ind = NULL;
	/* An RSS rule's own (outside priv->qhrxq) goes with its rule. */
	if (h < priv->qhrxq || h >= priv->qhrxq + DVP_MAX_QUEUES_PER_PORT)
		free(h);
}

/*
 * A hashing QP over an indirection table of @p wqs (1 << @p log_n of
 * them) hashing @p fields with the port's key, into @p h with one ref.
 */
static int hrxq_make(struct mlx5_priv *priv, struct ibv_wq **wqs, uint32_t log_n, uint64_t fields,
		     struct mlx5_qhrxq *h, const char *what)
{
	const struct mlx5_glue *g = priv->dev->glue;
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_qp_init_attr_ex qa;
	int err;

	memset(&ia, 0, sizeof(ia));
	ia.log_ind_tbl_size = log_n;
	ia.ind_tbl = wqs;
	errno = 0;
	h->ind = g->create_rwq_ind_table(priv->dev->ctx, &ia);
	if (h->ind == NULL) {
		err = errno ? errno : EINVAL;
		MLX5_PLOG(ERR, priv->port, "flow: create_rwq_ind_table (%s): %s", what,
			  dvp_strerror(err));
		return err;
	}
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
	qa.pd = priv->dev->pd;
	qa.rwq_ind_tbl = h->ind;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key_len = MLX5_RSS_HASH_KEY_LEN;
	qa.rx_hash_conf.rx_hash_key = priv->rss.key;
	qa.rx_hash_conf.rx_hash_fields_mask = fields;
	h->qp = g->create_qp_ex(priv->dev->ctx, &qa);
	if (h->qp == NULL) {
		err = errno ? errno : EINVAL;
		MLX5_PLOG(ERR, priv->port, "flow: create_qp_ex (%s): %s", what, dvp_strerror(err));
		destroyed(priv, "destroy_rwq_ind_table (flow queue)",
			  g->destroy_rwq_ind_table(h->ind));
		h->ind = NULL;
		return err;
	}
	h->refs = 1;
	return 0;
}

/* The hashing QP of rx queue @p q alone, made on first use. */
static struct mlx5_qhrxq *qhrxq_get(struct mlx5_priv *priv, uint16_t q, int *err)
{
	struct mlx5_qhrxq *h = &priv->qhrxq[q];
	struct ibv_wq *wq;

	if (h->refs > 0) {
		h->refs++;
		return h;
	}
	wq = ((struct mlx5_rxq *)priv->port->rxqs[q])->wq;
	*err = hrxq_make(priv, &wq, 0, 0, h, "queue");
	return *err == 0 ? h : NULL;
}

/*
 * The hash fields of an RSS rule. A hashing QP hashes one IP version: the
 * rule's IPV4 or IPV6 item's, or without either IPv4 when its types (or
 * the port's) have an IPv4 type, else IPv6. The addresses of that version
 * when the types have one of its types, and the ports of the rule's UDP
 * or TCP item when they have that protocol's of that version (IPv6's _EX
 * types as its own, as DPDK's mlx5). 0: nothing mlx5 rules can hash.
 */
static uint64_t rss_fields(const struct mlx5_priv *priv, const struct dvp_flow_rule *r)
{
	const uint64_t v4 = DVP_RSS_IPV4 | DVP_RSS_FRAG_IPV4 | DVP_RSS_NONFRAG_IPV4_TCP |
			    DVP_RSS_NONFRAG_IPV4_UDP | DVP_RSS_NONFRAG_IPV4_OTHER;
	const uint64_t v6_tcp = DVP_RSS_NONFRAG_IPV6_TCP | DVP_RSS_IPV6_TCP_EX;
	const uint64_t v6_udp = DVP_RSS_NONFRAG_IPV6_UDP | DVP_RSS_IPV6_UDP_EX;
	const uint64_t v6 = DVP_RSS_IPV6 | DVP_RSS_FRAG_IPV6 | DVP_RSS_NONFRAG_IPV6_OTHER |
			    DVP_RSS_IPV6_EX | v6_tcp | v6_udp;
	uint64_t t = r->rss_types != 0 ? r->rss_types : priv->rss.hf;
	bool ip6 = has(r->items, DVP_FLOW_ITEM_IPV6) ||
		   (!has(r->items, DVP_FLOW_ITEM_IPV4) && !(t & v4));
	uint64_t f;

	if (!(t & (ip6 ? v6 : v4)))
		return 0;
	f = ip6 ? IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 :
		  IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
	if (has(r->items, DVP_FLOW_ITEM_TCP) && (t & (ip6 ? v6_tcp : DVP_RSS_NONFRAG_IPV4_TCP)))
		f |= IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
	if (has(r->items, DVP_FLOW_ITEM_UDP) && (t & (ip6 ? v6_udp : DVP_RSS_NONFRAG_IPV4_UDP)))
		f |= IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
	return f;
}

/*
 * An RSS rule's own hashing QP: its queues (all of the port's, in order)
 * repeated over a table of the next power of two.
 */
static struct mlx5_qhrxq *rss_hrxq_make(struct mlx5_priv *priv, const struct dvp_flow_rule *r,
					int *err)
{
	struct ibv_wq *wqs[DVP_MAX_QUEUES_PER_PORT];
	struct mlx5_qhrxq *h;
	uint32_t log_n = 0;

	while ((1u << log_n) < r->rss_queue_num)
		log_n++;
	for (uint32_t i = 0; i < (1u << log_n); i++)
		wqs[i] = ((struct mlx5_rxq *)priv->port->rxqs[i % r->rss_queue_num])->wq;
	h = calloc(1, sizeof(*h));
	if (h == NULL) {
		*err = ENOMEM;
		MLX5_PLOG(ERR, priv->port, "flow: RSS rule: out of memory");
		return NULL;
	}
	*err = hrxq_make(priv, wqs, log_n, rss_fields(priv, r), h, "RSS");
	if (*err != 0) {
		free(h);
		return NULL;
	}
	return h;
}

/* The verbs objects of @p f. @return 0 or -errno after a log line. */
static int uflow_up(struct mlx5_priv *priv, struct mlx5_uflow *f)
{
	const struct dvp_flow_rule *r = &f->rule;
	struct uflow_buf fb;
	int err;

	if (has(r->actions, DVP_FLOW_ACTION_RSS))
		f->h = rss_hrxq_make(priv, r, &err);
	else
		f->h = qhrxq_get(priv, has(r->actions, DVP_FLOW_ACTION_QUEUE) ? r->queue : 0, &err);
	if (f->h == NULL)
		return -err;
	if (has(r->actions, DVP_FLOW_ACTION_COUNT)) {
		err = -counters_make(priv, f);
		if (err != 0) {
			qhrxq_put(priv, f->h);
			f->h = NULL;
			return -err;
		}
	}
	if (mlx5_flow_dv_needed(r)) {
		struct mlx5_flow_dv_actions act = {
			.qp = has(r->actions, DVP_FLOW_ACTION_DROP) ? NULL : f->h->qp,
			.has_tag = (r->actions & BIT_MARKS) != 0,
			.tag = has(r->actions, DVP_FLOW_ACTION_FLAG) ? MLX5_FLOW_TAG_FLAG :
								       r->mark + 1u,
			.ctr = f->ctr,
		};

		f->flow = mlx5_flow_dv_create(priv, r, &act, &f->matcher, &err);
	} else {
		rule_specs(priv, r, f->ctr, &fb);
		errno = 0;
		f->flow = priv->dev->glue->create_flow(f->h->qp,
						       (struct ibv_flow_attr *)(void *)fb.b);
		if (f->flow == NULL) {
			err = errno ? errno : EINVAL;
			MLX5_PLOG(ERR, priv->port, "flow: create_flow: %s", dvp_strerror(err));
		}
	}
	if (f->flow == NULL) {
		if (f->ctr != NULL) {
			destroyed(priv, "destroy_counters",
				  priv->dev->glue->destroy_counters(f->ctr));
			f->ctr = NULL;
		}
		qhrxq_put(priv, f->h);
		f->h = NULL;
		return -err;
	}
	return 0;
}

static void uflow_down(struct mlx5_priv *priv, struct mlx5_uflow *f)
{
	uint64_t v[2];

	if (f->flow == NULL)
		return;
	/* The counts so far stay with the rule; its next counters start at 0. */
	counters_read(priv, f, v);
	f->base[0] += v[0];
	f->base[1] += v[1];
	destroyed(priv, "destroy_flow (rule)", priv->dev->glue->destroy_flow(f->flow));
	f->flow = NULL;
	mlx5_flow_dv_matcher_put(priv, f->matcher);
	f->matcher = NULL;
	if (f->ctr != NULL) {
		destroyed(priv, "destroy_counters", priv->dev->glue->destroy_counters(f->ctr));
		f->ctr = NULL;
	}
	qhrxq_put(priv, f->h);
	f->h = NULL;
}

/*
 * Every rx queue delivers the flow tag while a MARK or FLAG rule lives.
 * Relaxed is enough: the flag orders nothing else, and a frame the device
 * tags while the rule is still being made may go unmarked (as a frame
 * that came just before it), never wrongly marked.
 */
static void marks_update(struct mlx5_priv *priv)
{
	struct dvp_port *port = priv->port;

	for (uint16_t q = 0; q < port->nb_rx_queues; q++) {
		struct mlx5_rxq *rxq = port->rxqs[q];

		if (rxq != NULL)
			__atomic_store_n(&rxq->mark, priv->nb_mark > 0, __ATOMIC_RELAXED);
	}
}

int mlx5_uflows_build(struct mlx5_priv *priv)
{
	int ret;

	for (struct mlx5_uflow *f = priv->uflows; f != NULL; f = f->next) {
		ret = uflow_up(priv, f);
		if (ret < 0) {
			mlx5_uflows_teardown(priv);
			return dvp_err(-ret);
		}
	}
	return 0;
}

void mlx5_uflows_teardown(struct mlx5_priv *priv)
{
	/* A queue's QP goes with the last of its rules, whatever the order. */
	for (struct mlx5_uflow *f = priv->uflows; f != NULL; f = f->next)
		uflow_down(priv, f);
}

int mlx5_flow_create(struct dvp_port *port, const struct dvp_flow_rule *rule, void **handle)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	struct mlx5_uflow *f;
	int ret = 0;

	f = calloc(1, sizeof(*f));
	if (f == NULL)
		return FLOW_REFUSE(port, ENOMEM, "no memory for a rule");
	f->rule = *rule;
	pthread_mutex_lock(&priv->steer_lock);
	if (rule->actions & BIT_MARKS) {
		priv->nb_mark++;
		marks_update(priv);
	}
	if (priv->steering)
		ret = uflow_up(priv, f);
	if (ret < 0) {
		if (rule->actions & BIT_MARKS) {
			priv->nb_mark--;
			marks_update(priv);
		}
		pthread_mutex_unlock(&priv->steer_lock);
		free(f);
		return ret;
	}
	if (priv->uflows_tail == NULL)
		priv->uflows_tail = &priv->uflows;
	*priv->uflows_tail = f;
	priv->uflows_tail = &f->next;
	pthread_mutex_unlock(&priv->steer_lock);
	*handle = f;
	return 0;
}

void mlx5_flow_destroy(struct dvp_port *port, void *handle)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	struct mlx5_uflow *f = handle, **p;

	pthread_mutex_lock(&priv->steer_lock);
	for (p = &priv->uflows; *p != NULL && *p != f; p = &(*p)->next)
		;
	if (*p == f) {
		*p = f->next;
		if (priv->uflows_tail == &f->next)
			priv->uflows_tail = p;
		uflow_down(priv, f);
		if (f->rule.actions & BIT_MARKS) {
			priv->nb_mark--;
			marks_update(priv);
		}
		free(f);
	}
	pthread_mutex_unlock(&priv->steer_lock);
}

int mlx5_flow_query(struct dvp_port *port, void *handle, uint64_t *hits, uint64_t *bytes)
{
	struct mlx5_priv *priv = mlx5_priv(port);
	struct mlx5_uflow *f = handle;
	uint64_t v[2];

	pthread_mutex_lock(&priv->steer_lock);
	counters_read(priv, f, v);
	*hits = f->base[0] + v[0];
	*bytes = f->base[1] + v[1];
	pthread_mutex_unlock(&priv->steer_lock);
	return 0;
}
