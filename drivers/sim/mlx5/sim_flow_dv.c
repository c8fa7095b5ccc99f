/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * mlx5dv steering: flow matchers (a priority and an fte_match_param mask)
 * and flows on them (a value under that mask and its actions), on the
 * same per-port rule lists as ibv_create_flow (sim_flow.c), in the same
 * priority order.
 *
 * What the kernel and the device refuse is refused here, so that a PMD
 * that breaks a rule fails its tests:
 *  - match_sz: a whole number of 64-bit words (match_buf is uint64_t[]),
 *    at least the outer headers and at most fte_match_param (EINVAL);
 *  - a mask bit in a part its match_criteria_enable leaves out (the
 *    kernel's check of the mask against the criteria, EINVAL);
 *  - a value bit outside its matcher's mask (fs_core's "match value
 *    differs from criteria", EINVAL);
 *  - criteria the sim does not model, rather than ignore them
 *    (EOPNOTSUPP): any part but the outer headers and misc's source_port,
 *    and in the outer headers anything but the MACs, EtherType, the first
 *    tag's PCP/DEI/VID, cvlan_tag, frag, ip_version, ip_protocol, the TCP
 *    and UDP ports, ip_dscp, ip_ecn and the IPv4 and IPv6 addresses.
 * A matcher has no port: on a device of one port its flows take that
 * port's frames; on the sim's devices of several ports (on hardware each
 * port is a device of its own) the matcher must match misc source_port,
 * 1..nports, and its flows take that port's frames.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_dev.h"
#include "sim_obj.h"
#include "sim_steer.h"
#include "sim_wq.h"

/* Criteria the sim matches on: a mask of the outer headers and misc parts. */
static uint8_t modelled[2 * MLX5_FTE_PART_SIZE];

static void modelled_init(void)
{
	static const struct mlx5_fte_field f[] = {
		MLX5_FTE_SMAC_47_16,	   MLX5_FTE_SMAC_15_0, MLX5_FTE_ETHERTYPE,
		MLX5_FTE_DMAC_47_16,	   MLX5_FTE_DMAC_15_0, MLX5_FTE_FIRST_PRIO,
		MLX5_FTE_FIRST_CFI,	   MLX5_FTE_FIRST_VID, MLX5_FTE_IP_PROTOCOL,
		MLX5_FTE_CVLAN_TAG,	   MLX5_FTE_FRAG,      MLX5_FTE_IP_VERSION,
		MLX5_FTE_TCP_SPORT,	   MLX5_FTE_TCP_DPORT, MLX5_FTE_UDP_SPORT,
		MLX5_FTE_UDP_DPORT,	   MLX5_FTE_IP_DSCP,   MLX5_FTE_IP_ECN,
		MLX5_FTE_MISC_SOURCE_PORT,
	};
	static const uint8_t ones[16] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
					  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		mlx5_fte_set(modelled, f[i], 0xffffffffu);
	/* The address fields whole: IPv6's 128 bits hold IPv4's 32. */
	mlx5_fte_set_bytes(modelled, MLX5_FTE_SRC_IPV6, ones);
	mlx5_fte_set_bytes(modelled, MLX5_FTE_DST_IPV6, ones);
}

static pthread_once_t modelled_once = PTHREAD_ONCE_INIT;

/* The first byte of @p b (@p n bytes) with a bit outside @p allowed (NULL: all zero), or -1. */
static int stray(const uint8_t *b, const uint8_t *allowed, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] & (allowed != NULL ? (uint8_t)~allowed[i] : 0xff))
			return (int)i;
	return -1;
}

static struct sim_matcher *matcher_of(struct mlx5dv_flow_matcher *m, const char *fn)
{
	struct sim_matcher *sm = (struct sim_matcher *)(void *)m;

	if (sm == NULL || sm->magic != SIM_MAGIC_MATCHER) {
		DVP_LOG_LINE(ERR, sim_logtype, "", "sim_mlx5: %s: %p is not a live flow matcher",
			     fn, (void *)m);
		return NULL;
	}
	return sm;
}

/* The checks common to a mask and a value: its size. 0 or EINVAL after a log line. */
static int match_size_ok(struct sim_mlx5_dev *dev, const struct mlx5dv_flow_match_parameters *p,
			 const char *what)
{
	if (p == NULL || p->match_sz % 8 != 0 || p->match_sz < MLX5_FTE_PART_SIZE ||
	    p->match_sz > MLX5_FTE_MATCH_PARAM_SIZE) {
		SIM_LOG(ERR, dev,
			"%s: match_sz %zu; valid is a multiple of 8 from %u (the outer headers) to "
			"%u (fte_match_param)",
			what, p != NULL ? p->match_sz : 0, MLX5_FTE_PART_SIZE,
			MLX5_FTE_MATCH_PARAM_SIZE);
		return EINVAL;
	}
	return 0;
}

struct mlx5dv_flow_matcher *sim_dv_create_flow_matcher(struct ibv_context *ibv,
						       struct mlx5dv_flow_matcher_attr *attr)
{
	struct sim_ctx *ctx = sim_ctx_of(ibv, __func__);
	struct sim_mlx5_dev *dev;
	struct sim_matcher *m;
	const uint8_t *mask;
	unsigned int port = 0;
	int at;

	if (ctx == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = ctx->dev;
	pthread_once(&modelled_once, modelled_init);
	if (attr->type != IBV_FLOW_ATTR_NORMAL || attr->flags != 0 || attr->comp_mask != 0)
		return sim_refuse(dev, EOPNOTSUPP,
				  "dv_create_flow_matcher: type %d, flags 0x%x, comp_mask 0x%llx "
				  "not supported; valid are NORMAL, 0, 0 (the NIC receive table)",
				  attr->type, attr->flags, (unsigned long long)attr->comp_mask);
	if (match_size_ok(dev, attr->match_mask, "dv_create_flow_matcher") != 0) {
		errno = EINVAL;
		return NULL;
	}
	/* Bit 7 would be the reserved last part. */
	if (attr->match_criteria_enable >> (MLX5_FTE_MISC5 + 1) != 0)
		return sim_refuse(dev, EINVAL,
				  "dv_create_flow_matcher: match_criteria_enable 0x%x; valid "
				  "bits are 0..%u",
				  attr->match_criteria_enable, MLX5_FTE_MISC5);
	mask = (const uint8_t *)attr->match_mask->match_buf;
	for (unsigned int part = 0; part * MLX5_FTE_PART_SIZE < attr->match_mask->match_sz;
	     part++) {
		const uint8_t *p = mask + part * MLX5_FTE_PART_SIZE;

		if (stray(p, NULL, MLX5_FTE_PART_SIZE) < 0)
			continue;
		if (!(attr->match_criteria_enable & (1u << part)))
			return sim_refuse(dev, EINVAL,
					  "dv_create_flow_matcher: the mask has bits in part %u "
					  "but match_criteria_enable 0x%x lacks its bit 0x%x",
					  part, attr->match_criteria_enable, 1u << part);
		at = part <= MLX5_FTE_MISC ?
			     stray(p, modelled + part * MLX5_FTE_PART_SIZE, MLX5_FTE_PART_SIZE) :
			     0;
		if (at >= 0)
			return sim_refuse(dev, EOPNOTSUPP,
					  "dv_create_flow_matcher: part %u byte %d of the mask "
					  "(0x%02x) is a criterion the sim does not match; valid "
					  "are the outer MACs, EtherType, first tag, cvlan_tag, "
					  "frag, ip_version, ip_protocol, ip_dscp, ip_ecn, L4 "
					  "ports, IPv4/IPv6 addresses and misc source_port",
					  part, at, p[at]);
	}
	if (attr->match_mask->match_sz > MLX5_FTE_PART_SIZE &&
	    mlx5_fte_get(mask, MLX5_FTE_MISC_SOURCE_PORT) != 0) {
		if (mlx5_fte_get(mask, MLX5_FTE_MISC_SOURCE_PORT) != 0xffff)
			return sim_refuse(dev, EOPNOTSUPP,
					  "dv_create_flow_matcher: source_port mask 0x%x; valid "
					  "is 0xffff",
					  mlx5_fte_get(mask, MLX5_FTE_MISC_SOURCE_PORT));
		port = 1; /* the value says which */
	} else if (dev->nports > 1) {
		return sim_refuse(dev, EINVAL,
				  "dv_create_flow_matcher: the device has %u ports and a matcher "
				  "none; match misc source_port (1..%u)",
				  dev->nports, dev->nports);
	}
	m = sim_obj_alloc(true, sizeof(*m));
	if (m == NULL)
		return NULL;
	m->ctx = ctx;
	m->priority = attr->priority;
	m->port = port; /* 1: per flow, by source_port; 0: port 0 */
	memcpy(m->mask, mask, attr->match_mask->match_sz);
	if (sim_dev_lock_alive(dev) != 0) {
		free(m);
		return NULL;
	}
	m->magic = SIM_MAGIC_MATCHER;
	sim_obj_add(ctx);
	return (struct mlx5dv_flow_matcher *)(void *)m;
}

int sim_dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	struct sim_matcher *m = matcher_of(matcher, __func__);

	if (m == NULL)
		return EINVAL;
	if (sim_obj_lock_unused(m->ctx->dev, &m->flows, "flow(s)", "dv_destroy_flow_matcher") != 0)
		return EBUSY;
	sim_obj_drop(m->ctx, &m->magic);
	free(m);
	return 0;
}

/* @p f's actions; 0 or a positive errno after a log line. */
static int flow_actions(struct sim_mlx5_dev *dev, struct sim_flow *f, size_t n,
			const struct mlx5dv_flow_action_attr *a)
{
	for (size_t i = 0; i < n; i++) {
		switch ((int)a[i].type) {
		case MLX5DV_FLOW_ACTION_DEST_IBV_QP:
			f->qp = f->qp == NULL ? sim_qp_of(a[i].qp, "dv_create_flow") : NULL;
			if (f->qp == NULL || !f->qp->hash) {
				SIM_LOG(ERR, dev,
					"dv_create_flow: DEST_IBV_QP needs one live hashing QP");
				return EINVAL;
			}
			break;
		case MLX5DV_FLOW_ACTION_DROP:
			f->drop = true;
			break;
		case MLX5DV_FLOW_ACTION_TAG:
			if (a[i].tag_value > MLX5_CQE_FLOW_TAG_MASK) {
				SIM_LOG(ERR, dev, "dv_create_flow: tag 0x%x is wider than 24 bits",
					a[i].tag_value);
				return EINVAL;
			}
			f->has_tag = true;
			f->tag = a[i].tag_value;
			break;
		case MLX5DV_FLOW_ACTION_IBV_COUNTER:
			f->ctr =
				sim_flow_counters(dev, a[i].counter, "dv_create_flow: IBV_COUNTER");
			if (f->ctr == NULL)
				return EINVAL;
			break;
		default:
			SIM_LOG(ERR, dev,
				"dv_create_flow: action type %d not supported; valid are "
				"DEST_IBV_QP, DROP, TAG and IBV_COUNTER",
				(int)a[i].type);
			return EOPNOTSUPP;
		}
	}
	if ((f->qp != NULL) == f->drop) {
		SIM_LOG(ERR, dev, "dv_create_flow: give one fate, DEST_IBV_QP or DROP");
		return EINVAL;
	}
	return 0;
}

struct ibv_flow *sim_dv_create_flow(struct mlx5dv_flow_matcher *matcher,
				    struct mlx5dv_flow_match_parameters *value, size_t num_actions,
				    struct mlx5dv_flow_action_attr actions[])
{
	struct sim_matcher *m = matcher_of(matcher, __func__);
	struct sim_mlx5_dev *dev;
	struct sim_flow *f;
	uint8_t v[MLX5_FTE_MATCH_PARAM_SIZE] = { 0 };
	int at, ret;

	if (m == NULL) {
		errno = EINVAL;
		return NULL;
	}
	dev = m->ctx->dev;
	if (match_size_ok(dev, value, "dv_create_flow") != 0) {
		errno = EINVAL;
		return NULL;
	}
	memcpy(v, value->match_buf, value->match_sz);
	at = stray(v, m->mask, sizeof(v));
	if (at >= 0)
		return sim_refuse(dev, EINVAL,
				  "dv_create_flow: match value differs from criteria: byte %d "
				  "(0x%02x) has bits outside the matcher's mask (0x%02x)",
				  at, v[at], m->mask[at]);
	if (m->port != 0 && (mlx5_fte_get(v, MLX5_FTE_MISC_SOURCE_PORT) < 1 ||
			     mlx5_fte_get(v, MLX5_FTE_MISC_SOURCE_PORT) > dev->nports))
		return sim_refuse(dev, EINVAL, "dv_create_flow: source_port %u; valid are 1..%u",
				  mlx5_fte_get(v, MLX5_FTE_MISC_SOURCE_PORT), dev->nports);
	f = sim_obj_alloc(actions != NULL || num_actions == 0, sizeof(*f));
	if (f == NULL)
		return NULL;
	ret = flow_actions(dev, f, num_actions, actions);
	if (ret == 0 && f->qp != NULL && f->qp->ctx != m->ctx) {
		SIM_LOG(ERR, dev, "dv_create_flow: the QP is of another context than the matcher");
		ret = EINVAL;
	}
	if (ret != 0) {
		free(f);
		errno = ret;
		return NULL;
	}
	memcpy(f->m.val, v, MLX5_FTE_PART_SIZE);
	memcpy(f->m.mask, m->mask, MLX5_FTE_PART_SIZE);
	f->magic = SIM_MAGIC_FLOW;
	f->ctx = m->ctx;
	f->matcher = m;
	f->port = m->port != 0 ? mlx5_fte_get(v, MLX5_FTE_MISC_SOURCE_PORT) - 1u : 0;
	f->priority = m->priority;
	f->type = IBV_FLOW_ATTR_NORMAL;
	f->ibv.context = &m->ctx->ibv;
	if (sim_dev_lock_alive(dev) != 0) {
		free(f);
		return NULL;
	}
	sim_flow_insert(dev, f);
	return &f->ibv;
}
