/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Flow rules through mlx5dv flow matchers (mlx5_flow_dv.c) on the sim: ETH
 * has_vlan 0 (untagged only) and IPV4 fragment_offset 0 under 0x3fff (not
 * a fragment), which verbs specs cannot say, with IPV4 or IPV6; MARK, DROP
 * and COUNT on them; shared matchers; rules kept across stop and start and
 * on the second port of a device; what the PMD refuses; and the sim's own
 * refusals of matchers and flows that the kernel refuses, through the glue.
 */

#include "mlx5_fixture.h"

#include <arpa/inet.h>

#include <dvp_flow.h>

#include "mlx5_rx.h"

#define NQ 4
#define LEN 100

static const struct dvp_flow_attr ingress = { .ingress = 1 };
static const uint64_t fdir_id = DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID;

enum kind { PLAIN, TAGGED, FRAGMENT };

/* Source frame @p i of @p flow (198.18.0.<flow>, UDP), untagged, tagged (VID 10) or a fragment. */
static size_t frame(struct mf *f, unsigned int port, uint8_t *b, uint32_t flow, unsigned int i,
		    enum kind k)
{
	struct dvp_ether_addr mac;

	assert_int_equal(dvp_macaddr_get(f->port[port], &mac), 0);
	assert_int_equal(sim_mlx5_frame_build(b, LEN, flow, i, mac.addr_bytes), LEN);
	if (k == TAGGED) {
		memmove(b + 16, b + 12, LEN - 12);
		b[12] = 0x81;
		b[13] = 0x00;
		b[14] = 0x00;
		b[15] = 10;
		return LEN + 4;
	}
	if (k == FRAGMENT)
		b[14 + 6] |= 0x20; /* MF: the first fragment of a datagram */
	return LEN;
}

static void inject(struct mf *f, unsigned int port, uint32_t flow, unsigned int n, enum kind k,
		   int expect)
{
	uint8_t b[LEN + 4];

	for (unsigned int i = 0; i < n; i++) {
		size_t len = frame(f, port, b, flow, i, k);

		assert_int_equal(sim_mlx5_inject(f->sim, port, b, len), expect);
	}
}

/* Take every frame of the port's queues: @p n in all, each with @p flags; on queue @p q if set. */
static void expect_rx(struct mf *f, unsigned int port, int q, unsigned int n, uint64_t flags,
		      uint32_t id)
{
	struct dvp_mbuf *m[32];
	unsigned int total = 0;

	for (uint16_t o = 0; o < NQ; o++) {
		uint16_t got = dvp_rx_burst(f->port[port], o, m, 32);

		if (q >= 0 && o != q)
			assert_int_equal(got, 0);
		for (uint16_t i = 0; i < got; i++) {
			assert_int_equal(m[i]->ol_flags & fdir_id, flags);
			if (flags & DVP_MBUF_F_RX_FDIR_ID)
				assert_int_equal(m[i]->hash.fdir.hi, id);
		}
		total += got;
		dvp_pktmbuf_free_bulk(m, got);
	}
	assert_int_equal(total, n);
}

static void open_ports(struct mf *f, const char *args)
{
	struct dvp_port_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = DVP_RSS_IP | DVP_RSS_NONFRAG_IPV4_UDP;
	mf_open(f, args, 2048);
	for (unsigned int i = 0; i < f->nports; i++)
		mf_port_start(f, i, NQ, 1, &conf, 128);
}

static unsigned int matchers(struct mf *f, unsigned int port)
{
	unsigned int n = 0;

	for (struct mlx5_dv_matcher *m = mlx5_priv(dvp_port_get(f->port[port]))->dv_matchers;
	     m != NULL; m = m->next)
		n++;
	return n;
}

/* A rule on 198.18.0.<flow>: ETH has_vlan 0 (untagged) or IPV4 not-a-fragment, and @p act. */
static struct dvp_flow *rule(struct mf *f, unsigned int port, uint32_t flow, bool untagged,
			     const struct dvp_flow_action *act)
{
	struct dvp_flow_item_eth eth = { .has_vlan = 0 };
	struct dvp_flow_item_eth ethm = { .has_vlan = 1 };
	struct dvp_flow_item_ipv4 ip = { .src = htonl(0xc6120000u + flow) };
	struct dvp_flow_item_ipv4 ipm = { .src = 0xffffffff };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = &ipm },
				       { .type = DVP_FLOW_ITEM_END } };

	if (untagged) {
		pat[0].spec = &eth;
		pat[0].mask = &ethm;
	} else {
		ipm.fragment_offset = htons(0x3fff);
	}
	assert_int_equal(dvp_flow_validate(f->port[port], &ingress, pat, act), 0);
	return dvp_flow_create(f->port[port], &ingress, pat, act);
}

/* Untagged frames take the rule (queue, mark); tagged ones of the same flow go by RSS. */
static void test_untagged_mark(void **state)
{
	struct dvp_flow_action_queue q3 = { 3 };
	struct dvp_flow_action_mark mk = { 0x42 };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q3 },
					 { DVP_FLOW_ACTION_MARK, &mk },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow *r1, *r2;
	struct mf f;

	(void)state;
	open_ports(&f, "ports=1,mode=step");
	r1 = rule(&f, 0, 5, true, act);
	assert_non_null(r1);
	inject(&f, 0, 5, 4, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, 3, 4, fdir_id, 0x42);
	inject(&f, 0, 5, 3, TAGGED, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, -1, 3, 0, 0);
	/* Another flow: not the rule's. */
	inject(&f, 0, 6, 2, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, -1, 2, 0, 0);
	/* A rule of the same priority and mask shares the matcher. */
	mk.id = 0x43;
	r2 = rule(&f, 0, 6, true, act);
	assert_non_null(r2);
	assert_int_equal(matchers(&f, 0), 1);
	inject(&f, 0, 6, 2, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, 3, 2, fdir_id, 0x43);
	assert_int_equal(dvp_flow_destroy(f.port[0], r1), 0);
	assert_int_equal(matchers(&f, 0), 1);
	inject(&f, 0, 5, 2, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, -1, 2, 0, 0);
	assert_int_equal(dvp_flow_destroy(f.port[0], r2), 0);
	assert_int_equal(matchers(&f, 0), 0);
	mf_close(&f);
}

/* IPv6 frame 2001:db8::<flow> -> 2001:db8:1::1 UDP into @p port, tagged (VID 10) or not. */
static void inject6(struct mf *f, uint32_t flow, bool tagged, unsigned int n, int expect)
{
	struct dvp_ether_addr mac;
	uint8_t b[LEN + 4];

	assert_int_equal(dvp_macaddr_get(f->port[0], &mac), 0);
	mf_frame6(b, LEN, flow, 17, mac.addr_bytes);
	if (tagged) {
		memmove(b + 16, b + 12, LEN - 12);
		b[12] = 0x81, b[13] = 0x00, b[14] = 0x00, b[15] = 10;
	}
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(sim_mlx5_inject(f->sim, 0, b, LEN + (tagged ? 4 : 0)), expect);
}

/*
 * ETH has_vlan 0 / IPV6 src / UDP through a matcher (ip_version 6 and the
 * address in src_ipv4_src_ipv6): untagged IPv6 frames of that source are
 * steered, marked and counted; tagged ones, other sources and IPv4 frames
 * go by RSS.
 */
static void test_ipv6_untagged(void **state)
{
	struct dvp_flow_item_eth eth = { .has_vlan = 0 }, ethm = { .has_vlan = 1 };
	struct dvp_flow_item_ipv6 ip = { .src = { 0x20, 0x01, 0x0d, 0xb8, [15] = 5 } };
	struct dvp_flow_item_ipv6 ipm;
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH, .spec = &eth, .mask = &ethm },
				       { .type = DVP_FLOW_ITEM_IPV6, .spec = &ip, .mask = &ipm },
				       { .type = DVP_FLOW_ITEM_UDP },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action_queue q3 = { 3 };
	struct dvp_flow_action_mark mk = { 0x66 };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q3 },
					 { DVP_FLOW_ACTION_MARK, &mk },
					 { DVP_FLOW_ACTION_COUNT, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_query_count qc = { 0 };
	struct dvp_flow *r;
	struct mf f;

	(void)state;
	memset(&ipm, 0, sizeof(ipm));
	memset(ipm.src, 0xff, sizeof(ipm.src));
	open_ports(&f, "ports=1,mode=step");
	assert_true(mlx5_flow_dv_needed(
		&(struct dvp_flow_rule){ .items = DVP_FLOW_RULE_BIT(DVP_FLOW_ITEM_ETH) |
						  DVP_FLOW_RULE_BIT(DVP_FLOW_ITEM_IPV6),
					 .eth_mask = ethm }));
	r = dvp_flow_create(f.port[0], &ingress, pat, act);
	assert_non_null(r);
	assert_int_equal(matchers(&f, 0), 1);
	inject6(&f, 5, false, 4, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, 3, 4, fdir_id, 0x66);
	inject6(&f, 5, true, 2, SIM_MLX5_RX_DELIVERED);
	inject6(&f, 6, false, 1, SIM_MLX5_RX_DELIVERED);
	inject(&f, 0, 5, 1, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, -1, 4, 0, 0);
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 4);
	assert_int_equal(qc.bytes, 4 * LEN);
	assert_int_equal(dvp_flow_destroy(f.port[0], r), 0);
	assert_int_equal(matchers(&f, 0), 0);
	mf_close(&f);
}

/* Not-a-fragment: whole datagrams counted and marked, fragments left to RSS. */
static void test_not_fragment_count(void **state)
{
	struct dvp_flow_action_queue q1 = { 1 };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q1 },
					 { DVP_FLOW_ACTION_FLAG, NULL },
					 { DVP_FLOW_ACTION_COUNT, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_query_count qc = { 0 };
	struct dvp_flow *r;
	struct mf f;

	(void)state;
	open_ports(&f, "ports=1,mode=step");
	r = rule(&f, 0, 7, false, act);
	assert_non_null(r);
	inject(&f, 0, 7, 5, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, 1, 5, DVP_MBUF_F_RX_FDIR, 0);
	inject(&f, 0, 7, 3, FRAGMENT, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, -1, 3, 0, 0);
	/* A tagged whole datagram is not a fragment: the rule does not ask for untagged. */
	inject(&f, 0, 7, 1, TAGGED, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, 1, 1, DVP_MBUF_F_RX_FDIR, 0);
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 6);
	assert_int_equal(qc.bytes, 5 * LEN + LEN + 4);
	/* Kept across stop and start, and so are its counts. */
	for (int i = 0; i < 2; i++) {
		assert_int_equal(dvp_port_stop(f.port[0]), 0);
		assert_int_equal(matchers(&f, 0), 0);
		assert_int_equal(dvp_port_start(f.port[0]), 0);
		assert_int_equal(matchers(&f, 0), 1);
		inject(&f, 0, 7, 2, PLAIN, SIM_MLX5_RX_DELIVERED);
		expect_rx(&f, 0, 1, 2, DVP_MBUF_F_RX_FDIR, 0);
		inject(&f, 0, 7, 1, FRAGMENT, SIM_MLX5_RX_DELIVERED);
		expect_rx(&f, 0, -1, 1, 0, 0);
	}
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 10);
	mf_close(&f);
}

/* A queue restart (a bad lkey on the rule's queue) makes the rule again, its counts kept. */
static void test_queue_restart(void **state)
{
	struct dvp_flow_action_queue q3 = { 3 };
	struct dvp_flow_action_mark mk = { 0x99 };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q3 },
					 { DVP_FLOW_ACTION_MARK, &mk },
					 { DVP_FLOW_ACTION_COUNT, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_query_count qc = { 0 };
	struct mlx5_rxq *rxq;
	struct dvp_mbuf *m[32];
	uint64_t restarts = 0;
	struct dvp_flow *r;
	struct mf f;

	(void)state;
	open_ports(&f, "ports=1,mode=step");
	r = rule(&f, 0, 5, true, act);
	assert_non_null(r);
	inject(&f, 0, 5, 2, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, 3, 2, fdir_id, 0x99);
	rxq = dvp_port_get(f.port[0])->rxqs[3];
	assert_int_equal(sim_mlx5_fault_bad_lkey(f.sim, rxq->wq->wq_num, 1), 0);
	{
		uint8_t b[LEN + 4];
		size_t len = frame(&f, 0, b, 5, 9, PLAIN);

		(void)sim_mlx5_inject(f.sim, 0, b, len); /* meets the bad WQE */
	}
	for (int i = 0; i < 100 && restarts == 0; i++) {
		dvp_pktmbuf_free_bulk(m, dvp_rx_burst(f.port[0], 3, m, 32));
		assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q3_restarts", &restarts), 0);
	}
	assert_int_equal(restarts, 1);
	assert_int_equal(matchers(&f, 0), 1);
	inject(&f, 0, 5, 3, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, 3, 3, fdir_id, 0x99);
	inject(&f, 0, 5, 1, TAGGED, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, -1, 1, 0, 0);
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 6);
	mf_close(&f);
}

/* DROP of untagged frames, on the second port of a device: its first port is untouched. */
static void test_drop_second_port(void **state)
{
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_DROP, NULL },
					 { DVP_FLOW_ACTION_COUNT, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_query_count qc = { 0 };
	struct dvp_flow *r;
	struct mf f;

	(void)state;
	open_ports(&f, "ports=2,mode=step");
	r = rule(&f, 1, 8, true, act);
	assert_non_null(r);
	inject(&f, 1, 8, 3, PLAIN, SIM_MLX5_RX_FLOW_DROP);
	inject(&f, 1, 8, 2, TAGGED, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 1, -1, 2, 0, 0);
	inject(&f, 0, 8, 2, PLAIN, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 0, -1, 2, 0, 0);
	assert_int_equal(dvp_flow_query(f.port[1], r, &qc), 0);
	assert_int_equal(qc.hits, 3);
	mf_close(&f);
}

static void refused(struct mf *f, const struct dvp_flow_item *pat, int err)
{
	struct dvp_flow_action_queue q0 = { 0 };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q0 },
					 { DVP_FLOW_ACTION_END, NULL } };

	assert_int_equal(dvp_flow_validate(f->port[0], &ingress, pat, act), -err);
	assert_null(dvp_flow_create(f->port[0], &ingress, pat, act));
	assert_int_equal(dvp_errno, err);
}

static void test_refused(void **state)
{
	struct dvp_flow_item_ipv4 ip = { .fragment_offset = htons(0x2000) };
	struct dvp_flow_item_ipv4 ipm = { .fragment_offset = htons(0x3fff) };
	struct dvp_flow_item_eth eth = { .has_vlan = 0 };
	struct dvp_flow_item_eth ethm = { .has_vlan = 1 };
	struct dvp_flow_item_vlan vlan = { .tci = htons(10) };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = &ipm },
				       { .type = DVP_FLOW_ITEM_END },
				       { .type = DVP_FLOW_ITEM_END } };
	struct mf f;

	(void)state;
	open_ports(&f, "ports=1,mode=step");
	/* Fragments, or a fragment_offset under another mask: no frag bit says those. */
	refused(&f, pat, ENOTSUP);
	ip.fragment_offset = 0;
	ipm.fragment_offset = htons(0x1fff);
	refused(&f, pat, ENOTSUP);
	/* Untagged and a VLAN item. */
	pat[0] = (struct dvp_flow_item){ .type = DVP_FLOW_ITEM_ETH, .spec = &eth, .mask = &ethm };
	pat[1] = (struct dvp_flow_item){ .type = DVP_FLOW_ITEM_VLAN, .spec = &vlan };
	refused(&f, pat, EINVAL);
	/* A NULL mask leaves has_vlan out: a plain verbs rule, no matcher. */
	pat[0].mask = NULL;
	pat[1].type = DVP_FLOW_ITEM_END;
	assert_non_null(
		dvp_flow_create(f.port[0], &ingress, pat,
				(struct dvp_flow_action[]){ { DVP_FLOW_ACTION_DROP, NULL },
							    { DVP_FLOW_ACTION_END, NULL } }));
	assert_int_equal(matchers(&f, 0), 0);
	mf_close(&f);
}

struct dvm {
	struct mlx5dv_flow_match_parameters *p;
	uint8_t *b;
};

static struct dvm dvm_new(size_t sz)
{
	struct dvm d;

	d.p = calloc(1, sizeof(*d.p) + MLX5_FTE_MATCH_PARAM_SIZE);
	assert_non_null(d.p);
	d.p->match_sz = sz;
	d.b = (uint8_t *)d.p->match_buf;
	return d;
}

/* The sim refuses what the kernel refuses, and what it does not model. */
static void test_sim_refusals(void **state)
{
	struct dvm mask = dvm_new(MLX5_FTE_PART_SIZE), val = dvm_new(MLX5_FTE_PART_SIZE);
	struct mlx5dv_flow_matcher_attr ma = { .type = IBV_FLOW_ATTR_NORMAL,
					       .match_criteria_enable = 1,
					       .match_mask = mask.p };
	struct mlx5dv_flow_action_attr drop = { .type = MLX5DV_FLOW_ACTION_DROP };
	struct mlx5dv_flow_matcher *m;
	const struct mlx5_glue *g;
	struct ibv_context *ctx;
	struct ibv_flow *fl;
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 0);
	g = mlx5_priv(dvp_port_get(f.port[0]))->dev->glue;
	ctx = mlx5_priv(dvp_port_get(f.port[0]))->dev->ctx;
	mlx5_fte_set(mask.b, MLX5_FTE_CVLAN_TAG, 1);
	/* match_sz: below the outer headers, not a multiple of 8. */
	mask.p->match_sz = 56;
	errno = 0;
	assert_null(g->dv_create_flow_matcher(ctx, &ma));
	assert_int_equal(errno, EINVAL);
	mask.p->match_sz = 68;
	assert_null(g->dv_create_flow_matcher(ctx, &ma));
	assert_int_equal(errno, EINVAL);
	mask.p->match_sz = MLX5_FTE_PART_SIZE;
	/* The outer headers masked but not enabled. */
	ma.match_criteria_enable = 0;
	assert_null(g->dv_create_flow_matcher(ctx, &ma));
	assert_int_equal(errno, EINVAL);
	ma.match_criteria_enable = 0x81; /* bit 7: the reserved part */
	assert_null(g->dv_create_flow_matcher(ctx, &ma));
	assert_int_equal(errno, EINVAL);
	ma.match_criteria_enable = 1;
	/* A field the sim does not model (TTL), and the inner headers. */
	mlx5_fte_set(mask.b, MLX5_FTE_TTL_HOPLIMIT, 0xff);
	assert_null(g->dv_create_flow_matcher(ctx, &ma));
	assert_int_equal(errno, EOPNOTSUPP);
	mlx5_fte_set(mask.b, MLX5_FTE_TTL_HOPLIMIT, 0);
	mask.p->match_sz = 3 * MLX5_FTE_PART_SIZE;
	mask.b[2 * MLX5_FTE_PART_SIZE + 7] = 0xff;
	ma.match_criteria_enable = 1 | 1u << MLX5_FTE_INNER;
	assert_null(g->dv_create_flow_matcher(ctx, &ma));
	assert_int_equal(errno, EOPNOTSUPP);
	mask.b[2 * MLX5_FTE_PART_SIZE + 7] = 0;
	ma.match_criteria_enable = 1;
	mask.p->match_sz = MLX5_FTE_PART_SIZE;
	m = g->dv_create_flow_matcher(ctx, &ma);
	assert_non_null(m);
	/* A value outside the mask: "match value differs from criteria". */
	mlx5_fte_set(val.b, MLX5_FTE_FRAG, 1);
	errno = 0;
	assert_null(g->dv_create_flow(m, val.p, 1, &drop));
	assert_int_equal(errno, EINVAL);
	mlx5_fte_set(val.b, MLX5_FTE_FRAG, 0);
	/* No fate. */
	assert_null(g->dv_create_flow(m, val.p, 0, NULL));
	assert_int_equal(errno, EINVAL);
	fl = g->dv_create_flow(m, val.p, 1, &drop);
	assert_non_null(fl);
	/* An untagged frame meets it; no matcher goes while it has flows. */
	assert_int_equal(g->dv_destroy_flow_matcher(m), EBUSY);
	inject(&f, 0, 1, 1, PLAIN, SIM_MLX5_RX_FLOW_DROP);
	inject(&f, 0, 1, 1, TAGGED, SIM_MLX5_RX_NO_FLOW);
	assert_int_equal(g->destroy_flow(fl), 0);
	assert_int_equal(g->dv_destroy_flow_matcher(m), 0);
	free(mask.p);
	free(val.p);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_untagged_mark), cmocka_unit_test(test_not_fragment_count),
		cmocka_unit_test(test_queue_restart), cmocka_unit_test(test_drop_second_port),
		cmocka_unit_test(test_refused),	      cmocka_unit_test(test_sim_refusals),
		cmocka_unit_test(test_ipv6_untagged),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
