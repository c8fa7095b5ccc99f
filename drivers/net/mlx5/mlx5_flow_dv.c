/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The application's rules that verbs flow specs cannot say, through
 * mlx5dv's flow matcher: ETH has_vlan (the cvlan_tag bit: "untagged" has
 * no verbs spec) and IPV4 fragment_offset 0 under 0x3fff (the frag bit:
 * "not a fragment"). The rule's match becomes an fte_match_param
 * (mlx5_fte.h) value and mask: the MACs, the EtherType (VLAN's inner_type
 * with a VLAN item), the tag's TCI as first_prio/cfi/vid with cvlan_tag 1,
 * ip_version 4 or 6 and the addresses (IPv6's filling src_ipv4_src_ipv6 and
 * dst_ipv4_dst_ipv6, IPv4's their last 32 bits), ip_protocol and the ports
 * of UDP or TCP.
 * On a device of several ports (the sim's) the misc part's source_port
 * says which port; on hardware each port is a device of its own and the
 * outer headers are all there is.
 *
 * A matcher is one priority and one mask: rules that share both share it
 * (counted), and it goes with the last of them. The kernel places a
 * matcher's priority where it places a verbs flow's of the same number,
 * so both kinds of rule keep one order. Actions: DEST_IBV_QP (the same
 * hashing QPs as the verbs rules) or DROP alone, TAG, IBV_COUNTER.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_errno.h>

#include "mlx5.h"

static bool has(uint32_t set, unsigned int t)
{
	return (set & DVP_FLOW_RULE_BIT(t)) != 0;
}

bool mlx5_flow_dv_needed(const struct dvp_flow_rule *r)
{
	return (has(r->items, DVP_FLOW_ITEM_ETH) && (r->eth_mask.has_vlan & 1)) ||
	       (has(r->items, DVP_FLOW_ITEM_IPV4) && r->ipv4_mask.fragment_offset != 0);
}

int mlx5_flow_dv_validate(struct dvp_port *port, const struct dvp_flow_rule *r)
{
	const struct mlx5_glue *g = mlx5_priv(port)->dev->glue;

	if (!mlx5_flow_dv_needed(r))
		return 0;
	if (g->dv_create_flow_matcher == NULL || g->dv_create_flow == NULL)
		return FLOW_REFUSE(port, ENOTSUP,
				   "ETH has_vlan and IPV4 fragment_offset need mlx5dv flow "
				   "matchers, which glue %s lacks",
				   g->name);
	if (has(r->items, DVP_FLOW_ITEM_IPV4) && r->ipv4_mask.fragment_offset != 0 &&
	    (r->ipv4_mask.fragment_offset != htons(0x3fff) || r->ipv4.fragment_offset != 0))
		return FLOW_REFUSE(port, ENOTSUP,
				   "IPV4 fragment_offset 0x%x under mask 0x%x; mlx5 matches "
				   "only 0 under 0x3fff (not a fragment)",
				   ntohs(r->ipv4.fragment_offset),
				   ntohs(r->ipv4_mask.fragment_offset));
	if (has(r->items, DVP_FLOW_ITEM_VLAN) && (r->eth_mask.has_vlan & 1) &&
	    !(r->eth.has_vlan & 1))
		return FLOW_REFUSE(port, EINVAL,
				   "ETH has_vlan 0 with a VLAN item; give has_vlan 1 or no VLAN "
				   "item");
	return 0;
}

static uint32_t mac_hi(const struct dvp_ether_addr *a)
{
	const uint8_t *b = a->addr_bytes;

	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];
}

static uint32_t mac_lo(const struct dvp_ether_addr *a)
{
	return (uint32_t)a->addr_bytes[4] << 8 | a->addr_bytes[5];
}

/* One side (value or mask) of @p r's match into @p b; @p mask picks the side. */
static void fte_side(const struct mlx5_priv *priv, const struct dvp_flow_rule *r, bool mask,
		     uint8_t *b)
{
	const struct dvp_flow_item_eth *eth = mask ? &r->eth_mask : &r->eth;
	const struct dvp_flow_item_vlan *vlan = mask ? &r->vlan_mask : &r->vlan;
	const struct dvp_flow_item_ipv4 *ip = mask ? &r->ipv4_mask : &r->ipv4;
	const struct dvp_flow_item_ipv6 *ip6 = mask ? &r->ipv6_mask : &r->ipv6;
	const struct dvp_flow_item_l4 *l4 = mask ? &r->l4_mask : &r->l4;
	bool tcp = has(r->items, DVP_FLOW_ITEM_TCP);

	memset(b, 0, MLX5_DV_MATCH_SIZE);
	mlx5_fte_set(b, MLX5_FTE_DMAC_47_16, mac_hi(&eth->dst));
	mlx5_fte_set(b, MLX5_FTE_DMAC_15_0, mac_lo(&eth->dst));
	mlx5_fte_set(b, MLX5_FTE_SMAC_47_16, mac_hi(&eth->src));
	mlx5_fte_set(b, MLX5_FTE_SMAC_15_0, mac_lo(&eth->src));
	mlx5_fte_set(b, MLX5_FTE_ETHERTYPE, ntohs(eth->type));
	if (r->eth_mask.has_vlan & 1)
		mlx5_fte_set(b, MLX5_FTE_CVLAN_TAG, mask ? 1 : eth->has_vlan & 1);
	if (has(r->items, DVP_FLOW_ITEM_VLAN)) {
		/* A VLAN item is a tagged frame, whatever its TCI mask. */
		mlx5_fte_set(b, MLX5_FTE_CVLAN_TAG, 1);
		/* PCP, DEI and VID are first_prio, first_cfi and first_vid in a row. */
		mlx5_fte_set(b, MLX5_FTE_O(MLX5_FTE_FIRST_PRIO.off, 16), ntohs(vlan->tci));
		mlx5_fte_set(b, MLX5_FTE_ETHERTYPE, ntohs(vlan->inner_type));
	}
	if (has(r->items, DVP_FLOW_ITEM_IPV4)) {
		mlx5_fte_set(b, MLX5_FTE_IP_VERSION, mask ? 0xf : 4);
		mlx5_fte_set(b, MLX5_FTE_SRC_IPV4, ntohl(ip->src));
		mlx5_fte_set(b, MLX5_FTE_DST_IPV4, ntohl(ip->dst));
		/* Validated: 0 under 0x3fff, "not a fragment". */
		if (r->ipv4_mask.fragment_offset != 0)
			mlx5_fte_set(b, MLX5_FTE_FRAG, mask ? 1 : 0);
	}
	if (has(r->items, DVP_FLOW_ITEM_IPV6)) {
		mlx5_fte_set(b, MLX5_FTE_IP_VERSION, mask ? 0xf : 6);
		mlx5_fte_set_bytes(b, MLX5_FTE_SRC_IPV6, ip6->src);
		mlx5_fte_set_bytes(b, MLX5_FTE_DST_IPV6, ip6->dst);
	}
	if (tcp || has(r->items, DVP_FLOW_ITEM_UDP)) {
		mlx5_fte_set(b, MLX5_FTE_IP_PROTOCOL, mask ? 0xff : tcp ? 6 : 17);
		mlx5_fte_set(b, tcp ? MLX5_FTE_TCP_SPORT : MLX5_FTE_UDP_SPORT, ntohs(l4->src_port));
		mlx5_fte_set(b, tcp ? MLX5_FTE_TCP_DPORT : MLX5_FTE_UDP_DPORT, ntohs(l4->dst_port));
	}
	if (priv->dev->attr.orig_attr.phys_port_cnt > 1)
		mlx5_fte_set(b, MLX5_FTE_MISC_SOURCE_PORT, mask ? 0xffff : priv->port_num);
}

static void destroyed(const struct mlx5_priv *priv, const char *what, int ret)
{
	if (ret != 0)
		MLX5_PLOG(WARNING, priv->port, "%s: %s", what, dvp_strerror(ret));
}

void mlx5_flow_dv_matcher_put(struct mlx5_priv *priv, struct mlx5_dv_matcher *dm)
{
	struct mlx5_dv_matcher **p;

	if (dm == NULL || --dm->refs > 0)
		return;
	for (p = &priv->dv_matchers; *p != dm; p = &(*p)->next)
		;
	*p = dm->next;
	destroyed(priv, "dv_destroy_flow_matcher", priv->dev->glue->dv_destroy_flow_matcher(dm->m));
	free(dm);
}

/* The matcher of @p priority and @p mask (@p criteria), shared, made on first use. */
static struct mlx5_dv_matcher *matcher_get(struct mlx5_priv *priv, uint16_t priority,
					   uint8_t criteria, const uint8_t *mask, int *err)
{
	struct mlx5dv_flow_match_parameters *mp;
	struct mlx5dv_flow_matcher_attr ma;
	struct mlx5_dv_matcher *dm;

	for (dm = priv->dv_matchers; dm != NULL; dm = dm->next) {
		if (dm->priority == priority && dm->criteria == criteria &&
		    memcmp(dm->mask, mask, MLX5_DV_MATCH_SIZE) == 0) {
			dm->refs++;
			return dm;
		}
	}
	dm = calloc(1, sizeof(*dm));
	mp = calloc(1, sizeof(*mp) + MLX5_DV_MATCH_SIZE);
	if (dm == NULL || mp == NULL) {
		free(dm);
		free(mp);
		*err = ENOMEM;
		MLX5_PLOG(ERR, priv->port, "flow: no memory for a flow matcher");
		return NULL;
	}
	mp->match_sz = MLX5_DV_MATCH_SIZE;
	memcpy(mp->match_buf, mask, MLX5_DV_MATCH_SIZE);
	memset(&ma, 0, sizeof(ma));
	ma.type = IBV_FLOW_ATTR_NORMAL;
	ma.priority = priority;
	ma.match_criteria_enable = criteria;
	ma.match_mask = mp;
	errno = 0;
	dm->m = priv->dev->glue->dv_create_flow_matcher(priv->dev->ctx, &ma);
	free(mp);
	if (dm->m == NULL) {
		*err = errno ? errno : EINVAL;
		MLX5_PLOG(ERR, priv->port, "flow: dv_create_flow_matcher (priority %u): %s",
			  priority, dvp_strerror(*err));
		free(dm);
		return NULL;
	}
	dm->priority = priority;
	dm->criteria = criteria;
	memcpy(dm->mask, mask, MLX5_DV_MATCH_SIZE);
	dm->refs = 1;
	dm->next = priv->dv_matchers;
	priv->dv_matchers = dm;
	return dm;
}

struct ibv_flow *mlx5_flow_dv_create(struct mlx5_priv *priv, const struct dvp_flow_rule *r,
				     const struct mlx5_flow_dv_actions *act,
				     struct mlx5_dv_matcher **matcher, int *err)
{
	uint8_t mask[MLX5_DV_MATCH_SIZE];
	struct mlx5dv_flow_match_parameters *vp;
	struct mlx5dv_flow_action_attr a[3];
	struct mlx5_dv_matcher *dm;
	uint8_t criteria = 1u << MLX5_FTE_OUTER;
	struct ibv_flow *flow;
	size_t n = 0;

	fte_side(priv, r, true, mask);
	if (priv->dev->attr.orig_attr.phys_port_cnt > 1)
		criteria |= 1u << MLX5_FTE_MISC;
	vp = calloc(1, sizeof(*vp) + MLX5_DV_MATCH_SIZE);
	if (vp == NULL) {
		*err = ENOMEM;
		MLX5_PLOG(ERR, priv->port, "flow: no memory for a rule's match");
		return NULL;
	}
	vp->match_sz = MLX5_DV_MATCH_SIZE;
	fte_side(priv, r, false, (uint8_t *)vp->match_buf);
	dm = matcher_get(priv, (uint16_t)r->priority, criteria, mask, err);
	if (dm == NULL) {
		free(vp);
		return NULL;
	}
	if (act->qp != NULL)
		a[n++] = (struct mlx5dv_flow_action_attr){ .type = MLX5DV_FLOW_ACTION_DEST_IBV_QP,
							   .qp = act->qp };
	else
		a[n++] = (struct mlx5dv_flow_action_attr){ .type = MLX5DV_FLOW_ACTION_DROP };
	if (act->has_tag)
		a[n++] = (struct mlx5dv_flow_action_attr){ .type = MLX5DV_FLOW_ACTION_TAG,
							   .tag_value = act->tag };
	if (act->ctr != NULL)
		a[n++] = (struct mlx5dv_flow_action_attr){ .type = MLX5DV_FLOW_ACTION_IBV_COUNTER,
							   .counter = act->ctr };
	errno = 0;
	flow = priv->dev->glue->dv_create_flow(dm->m, vp, n, a);
	free(vp);
	if (flow == NULL) {
		*err = errno ? errno : EINVAL;
		MLX5_PLOG(ERR, priv->port, "flow: dv_create_flow: %s", dvp_strerror(*err));
		mlx5_flow_dv_matcher_put(priv, dm);
		return NULL;
	}
	*matcher = dm;
	return flow;
}
