/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Steering of the mlx5 PMD: an indirection table over the port's receive
 * WQs, hashing QPs (TIRs) with the port's Toeplitz key and fields, and the
 * flow rules that send the port's traffic to them, all built from
 * priv->rss (mlx5_rss.c).
 *
 * A ConnectX hashing QP takes one L3 and at most one L4 protocol (the
 * kernel refuses TCP and UDP ports in one mask, or IPv4 and IPv6), so RSS
 * is split into classes as DPDK does: IPv4/TCP, IPv4/UDP, IPv6/TCP and
 * IPv6/UDP rules, then IPv4 and IPv6 rules, then the catch-all L2 rule,
 * each group at a lower priority than the one before (an IPv4 and an IPv6
 * rule never match one frame) and each rule to a QP hashing the fields of
 * its class. A class is made when the port's types ask for it:
 * an L4 class for its NONFRAG type (IPv6's _EX types count as its own,
 * as DPDK's mlx5 takes them), an L3 class for any type of its IP version,
 * so that the frames of a protocol the types leave out still spread by
 * their addresses. The L2 class hashes nothing: its frames take the
 * indirection table's first entry.
 *
 * Rules per class: the port's unicast MAC and all multicast (broadcast
 * included), or every frame when promiscuous, at priorities after the
 * application's rules (mlx5_flow_rules.c), which are made and undone with
 * them. With the VLAN filter the unicast and multicast rules are made once
 * per VLAN id of the table, each matching the ETH spec's VLAN id
 * (mlx5_vlan.c says which ids). An isolated port (dvp_flow_isolate()) has
 * none of these: the application's rules are all that steer to its queues,
 * as with DPDK's mlx5, and on hardware what they leave goes to the
 * kernel's netdev.
 * Callers hold priv->steer_lock.
 *
 * A key, fields or table cannot be changed in a live QP or table through
 * verbs, so a change builds a second set beside the first, then destroys
 * the first. The second set takes the other of two priority bases: a
 * ConnectX keeps the rules of one priority in one flow table, where two
 * rules of the same match are not ordered by age (as the simulator orders
 * them). Classes are made most specific first and destroyed least specific
 * first: whichever base is the higher, a frame's first matching rule moves
 * from the old set to the new once, and no frame meets no rule meanwhile.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_errno.h>

#include "mlx5.h"
#include "mlx5_rx.h"

#define RSS_V4                                                           \
	(DVP_RSS_IPV4 | DVP_RSS_FRAG_IPV4 | DVP_RSS_NONFRAG_IPV4_OTHER | \
	 DVP_RSS_NONFRAG_IPV4_TCP | DVP_RSS_NONFRAG_IPV4_UDP)
/*
 * A ConnectX hashes IPv6 addresses as the IPv6 header gives them, so the
 * _EX type (addresses from extension headers) is IPv6's, as DPDK's mlx5
 * takes it: DPDK's RTE_ETH_RSS_IP holds it.
 */
#define RSS_V6_TCP (DVP_RSS_NONFRAG_IPV6_TCP | DVP_RSS_IPV6_TCP_EX)
#define RSS_V6_UDP (DVP_RSS_NONFRAG_IPV6_UDP | DVP_RSS_IPV6_UDP_EX)
#define RSS_V6                                                                             \
	(DVP_RSS_IPV6 | DVP_RSS_FRAG_IPV6 | DVP_RSS_NONFRAG_IPV6_OTHER | DVP_RSS_IPV6_EX | \
	 RSS_V6_TCP | RSS_V6_UDP)

uint64_t mlx5_rss_hf_capa(void)
{
	return RSS_V4 | RSS_V6 | DVP_RSS_L3_SRC_ONLY | DVP_RSS_L3_DST_ONLY | DVP_RSS_L4_SRC_ONLY |
	       DVP_RSS_L4_DST_ONLY;
}

/* The @p src and @p dst fields of one layer, less the one its *_ONLY bit in @p hf leaves out. */
static uint64_t layer_fields(uint64_t hf, uint64_t src_only, uint64_t dst_only, uint64_t src,
			     uint64_t dst)
{
	return ((hf & dst_only) ? 0 : src) | ((hf & src_only) ? 0 : dst);
}

/* The IBV_RX_HASH_* fields of class @p c under @p hf; false when the class is not needed. */
static bool class_fields(enum mlx5_rss_class c, uint64_t hf, uint64_t *fields)
{
	uint64_t v4 = layer_fields(hf, DVP_RSS_L3_SRC_ONLY, DVP_RSS_L3_DST_ONLY,
				   IBV_RX_HASH_SRC_IPV4, IBV_RX_HASH_DST_IPV4);
	uint64_t v6 = layer_fields(hf, DVP_RSS_L3_SRC_ONLY, DVP_RSS_L3_DST_ONLY,
				   IBV_RX_HASH_SRC_IPV6, IBV_RX_HASH_DST_IPV6);
	uint64_t tcp = layer_fields(hf, DVP_RSS_L4_SRC_ONLY, DVP_RSS_L4_DST_ONLY,
				    IBV_RX_HASH_SRC_PORT_TCP, IBV_RX_HASH_DST_PORT_TCP);
	uint64_t udp = layer_fields(hf, DVP_RSS_L4_SRC_ONLY, DVP_RSS_L4_DST_ONLY,
				    IBV_RX_HASH_SRC_PORT_UDP, IBV_RX_HASH_DST_PORT_UDP);

	switch (c) {
	case MLX5_RSS_IPV4_TCP:
		*fields = v4 | tcp;
		return (hf & DVP_RSS_NONFRAG_IPV4_TCP) != 0;
	case MLX5_RSS_IPV4_UDP:
		*fields = v4 | udp;
		return (hf & DVP_RSS_NONFRAG_IPV4_UDP) != 0;
	case MLX5_RSS_IPV6_TCP:
		*fields = v6 | tcp;
		return (hf & RSS_V6_TCP) != 0;
	case MLX5_RSS_IPV6_UDP:
		*fields = v6 | udp;
		return (hf & RSS_V6_UDP) != 0;
	case MLX5_RSS_IPV4:
		*fields = v4;
		return (hf & RSS_V4) != 0;
	case MLX5_RSS_IPV6:
		*fields = v6;
		return (hf & RSS_V6) != 0;
	case MLX5_RSS_L2:
	default:
		*fields = 0;
		return true;
	}
}

/* A flow rule: the attribute and its specs, contiguous as verbs reads them. */
struct flow_buf {
	uint8_t b[sizeof(struct ibv_flow_attr) + sizeof(struct ibv_flow_spec_eth) +
		  sizeof(struct ibv_flow_spec_ipv6) + sizeof(struct ibv_flow_spec_tcp_udp)];
	size_t len;
} __dvp_aligned(8);

static void flow_add(struct flow_buf *fb, const void *spec, size_t size)
{
	struct ibv_flow_attr *attr = (struct ibv_flow_attr *)(void *)fb->b;

	memcpy(fb->b + fb->len, spec, size);
	fb->len += size;
	attr->num_of_specs++;
	attr->size = (uint16_t)fb->len;
}

enum flow_kind { FLOW_UNICAST, FLOW_MULTICAST, FLOW_ALL };

/* @p vlan: the VLAN id the rule matches, or -1 for none. */
static struct ibv_flow *flow_create(struct mlx5_priv *priv, const struct mlx5_steer *s,
				    enum mlx5_rss_class c, struct ibv_qp *qp, enum flow_kind kind,
				    int vlan)
{
	static const uint8_t mc[6] = { 0x01, 0, 0, 0, 0, 0 };
	struct ibv_flow_spec_eth eth = { .type = IBV_FLOW_SPEC_ETH, .size = sizeof(eth) };
	struct ibv_flow_spec_ipv4 ip = { .type = IBV_FLOW_SPEC_IPV4, .size = sizeof(ip) };
	struct ibv_flow_spec_ipv6 ip6 = { .type = IBV_FLOW_SPEC_IPV6, .size = sizeof(ip6) };
	bool v6 = c == MLX5_RSS_IPV6_TCP || c == MLX5_RSS_IPV6_UDP || c == MLX5_RSS_IPV6;
	bool tcp = c == MLX5_RSS_IPV4_TCP || c == MLX5_RSS_IPV6_TCP;
	bool udp = c == MLX5_RSS_IPV4_UDP || c == MLX5_RSS_IPV6_UDP;
	struct ibv_flow_spec_tcp_udp l4 = { .size = sizeof(l4) };
	struct ibv_flow_attr *attr;
	struct flow_buf fb;

	memset(&fb, 0, sizeof(fb));
	attr = (struct ibv_flow_attr *)(void *)fb.b;
	attr->type = IBV_FLOW_ATTR_NORMAL;
	attr->port = priv->port_num;
	/* Specific classes first: L4 rules, then IPv4 and IPv6, then the L2 catch-all. */
	attr->priority = (uint16_t)(MLX5_FLOW_USER_PRIOS + s->prio +
				    (c == MLX5_RSS_L2			      ? 2 :
				     c == MLX5_RSS_IPV4 || c == MLX5_RSS_IPV6 ? 1 :
										0));
	fb.len = sizeof(*attr);
	attr->size = (uint16_t)fb.len;
	if (kind == FLOW_UNICAST) {
		memcpy(eth.val.dst_mac, priv->port->mac.addr_bytes, 6);
		memset(eth.mask.dst_mac, 0xff, 6);
	} else if (kind == FLOW_MULTICAST) {
		memcpy(eth.val.dst_mac, mc, 6);
		memcpy(eth.mask.dst_mac, mc, 6);
	}
	if (vlan >= 0) {
		/* The VID only: a tagged frame of any priority (the device wants a tag). */
		eth.val.vlan_tag = htons((uint16_t)vlan);
		eth.mask.vlan_tag = htons(0x0fff);
	}
	flow_add(&fb, &eth, sizeof(eth));
	/* An IP spec of zero masks: that IP version (ip_version), any address. */
	if (v6)
		flow_add(&fb, &ip6, sizeof(ip6));
	else if (c != MLX5_RSS_L2)
		flow_add(&fb, &ip, sizeof(ip));
	if (tcp || udp) {
		l4.type = tcp ? IBV_FLOW_SPEC_TCP : IBV_FLOW_SPEC_UDP;
		flow_add(&fb, &l4, sizeof(l4));
	}
	return priv->dev->glue->create_flow(qp, attr);
}

/* A failed destroy is logged and otherwise ignored: the teardown goes on. */
static void destroyed(const struct mlx5_priv *priv, const char *what, int ret)
{
	if (ret != 0)
		MLX5_PLOG(WARNING, priv->port, "%s: %s", what, dvp_strerror(ret));
}

/* Destroy the objects of @p s, least specific class first. */
static void steer_destroy(struct mlx5_priv *priv, struct mlx5_steer *s)
{
	const struct mlx5_glue *g = priv->dev->glue;

	for (int c = MLX5_RSS_CLASSES - 1; c >= 0; c--) {
		struct mlx5_hrxq *h = &s->hrxq[c];

		for (int f = (int)h->nb_flows - 1; f >= 0; f--) {
			if (h->flows[f] == NULL)
				continue;
			destroyed(priv, "destroy_flow", g->destroy_flow(h->flows[f]));
		}
		free(h->flows);
		h->flows = NULL;
		h->nb_flows = 0;
		if (h->qp != NULL) {
			destroyed(priv, "destroy_qp (RSS)", g->destroy_qp(h->qp));
			h->qp = NULL;
		}
	}
	if (s->ind != NULL) {
		destroyed(priv, "destroy_rwq_ind_table", g->destroy_rwq_ind_table(s->ind));
		s->ind = NULL;
	}
}

void mlx5_steering_destroy(struct mlx5_priv *priv)
{
	mlx5_uflows_teardown(priv);
	steer_destroy(priv, &priv->steer);
	priv->steering = false;
}

/*
 * The indirection table of @p s: priv->rss's entries over the rx queues'
 * WQs, or the one WQ of a port with one queue.
 */
static int ind_table_create(struct mlx5_priv *priv, struct mlx5_steer *s)
{
	struct dvp_port *port = priv->port;
	struct ibv_wq *wqs[MLX5_RSS_RETA_SIZE];
	struct ibv_rwq_ind_table_init_attr ia;
	uint16_t nb = port->nb_rx_queues;
	uint32_t size = nb > 1 ? priv->rss.reta_n : 1;

	for (uint32_t i = 0; i < size; i++) {
		const struct mlx5_rxq *rxq = port->rxqs[nb > 1 ? priv->rss.reta[i] : 0];

		wqs[i] = rxq->wq;
	}
	memset(&ia, 0, sizeof(ia));
	ia.log_ind_tbl_size = dvp_log2_u32(size);
	ia.ind_tbl = wqs;
	s->ind = priv->dev->glue->create_rwq_ind_table(priv->dev->ctx, &ia);
	if (s->ind == NULL) {
		int err = errno ? errno : EINVAL;

		MLX5_PLOG(ERR, port, "create_rwq_ind_table (%u entries over %u queues): %s", size,
			  nb, dvp_strerror(err));
		return dvp_err(err);
	}
	return 0;
}

static const char *kind_name(enum flow_kind kind)
{
	return kind == FLOW_ALL ? "all" : kind == FLOW_UNICAST ? "unicast" : "multicast";
}

/*
 * The rules of class @p c into h->flows: unicast and multicast (or all,
 * promiscuous), once per VLAN id of @p vlans when there are @p nb_vlans.
 */
static int class_flows(struct mlx5_priv *priv, struct mlx5_steer *s, enum mlx5_rss_class c,
		       struct mlx5_hrxq *h, const uint16_t *vlans, unsigned int nb_vlans)
{
	struct dvp_port *port = priv->port;
	unsigned int kinds = port->promiscuous ? 1 : MLX5_FLOWS_PER_CLASS;

	h->nb_flows = kinds * (nb_vlans > 0 ? nb_vlans : 1);
	h->flows = calloc(h->nb_flows, sizeof(*h->flows));
	if (h->flows == NULL) {
		h->nb_flows = 0;
		MLX5_PLOG(ERR, port, "no memory for the %u flow rules of RSS class %d",
			  kinds * (nb_vlans > 0 ? nb_vlans : 1), c);
		return -ENOMEM;
	}
	for (unsigned int f = 0; f < h->nb_flows; f++) {
		enum flow_kind kind = port->promiscuous ? FLOW_ALL :
				      f % kinds == 0	? FLOW_UNICAST :
							  FLOW_MULTICAST;
		int vlan = nb_vlans > 0 ? vlans[f / kinds] : -1;

		h->flows[f] = flow_create(priv, s, c, h->qp, kind, vlan);
		if (h->flows[f] == NULL) {
			int ret = -(errno ? errno : EINVAL);

			if (vlan >= 0)
				MLX5_PLOG(ERR, port, "create_flow (class %d, %s, VLAN %d): %s", c,
					  kind_name(kind), vlan, dvp_strerror(-ret));
			else
				MLX5_PLOG(ERR, port, "create_flow (class %d, %s): %s", c,
					  kind_name(kind), dvp_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* Build the objects of @p s (its prio set) from priv->rss; on an error none is left. */
static int steer_build(struct mlx5_priv *priv, struct mlx5_steer *s)
{
	struct dvp_port *port = priv->port;
	uint64_t hf = port->nb_rx_queues > 1 ? priv->rss.hf : 0;
	uint16_t vlans[MLX5_VLAN_FILTER_MAX];
	unsigned int nb_vlans = mlx5_vlan_steer_ids(port, vlans);
	int ret;

	if (port->flow_isolated)
		return 0;
	errno = 0;
	ret = ind_table_create(priv, s);
	if (ret < 0)
		return ret;
	for (int c = 0; c < MLX5_RSS_CLASSES; c++) {
		struct ibv_qp_init_attr_ex qa;
		struct mlx5_hrxq *h = &s->hrxq[c];
		uint64_t fields;

		if (!class_fields((enum mlx5_rss_class)c, hf, &fields))
			continue;
		memset(&qa, 0, sizeof(qa));
		qa.qp_type = IBV_QPT_RAW_PACKET;
		qa.comp_mask =
			IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
		qa.pd = priv->dev->pd;
		qa.rwq_ind_tbl = s->ind;
		qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
		qa.rx_hash_conf.rx_hash_key_len = MLX5_RSS_HASH_KEY_LEN;
		qa.rx_hash_conf.rx_hash_key = priv->rss.key;
		qa.rx_hash_conf.rx_hash_fields_mask = fields;
		h->qp = priv->dev->glue->create_qp_ex(priv->dev->ctx, &qa);
		if (h->qp == NULL) {
			ret = -(errno ? errno : EINVAL);
			MLX5_PLOG(ERR, port, "create_qp_ex (RSS class %d, fields 0x%llx): %s", c,
				  (unsigned long long)fields, dvp_strerror(-ret));
			goto err;
		}
		ret = class_flows(priv, s, (enum mlx5_rss_class)c, h, vlans, nb_vlans);
		if (ret < 0)
			goto err;
	}
	return 0;
err:
	steer_destroy(priv, s);
	return dvp_err(-ret);
}

/* Isolation is the port's steering left out at the next start: nothing to refuse or do now. */
int mlx5_flow_isolate(struct dvp_port *port, bool on)
{
	(void)port;
	(void)on;
	return 0;
}

int mlx5_steering_create(struct mlx5_priv *priv)
{
	int ret;

	if (priv->port->nb_rx_queues == 0 || priv->steering)
		return 0;
	ret = steer_build(priv, &priv->steer);
	if (ret < 0)
		return ret;
	/* The application's rules too: they lean on the same queues. */
	ret = mlx5_uflows_build(priv);
	if (ret < 0) {
		steer_destroy(priv, &priv->steer);
		return ret;
	}
	priv->steering = true;
	return 0;
}

int mlx5_steering_rebuild(struct mlx5_priv *priv)
{
	struct mlx5_steer next = { .prio = priv->steer.prio == 0 ? MLX5_FLOW_PRIOS_PER_SET : 0 };
	int ret;

	if (!priv->steering)
		return 0;
	ret = steer_build(priv, &next);
	if (ret < 0)
		return ret;
	steer_destroy(priv, &priv->steer);
	priv->steer = next;
	return 0;
}
