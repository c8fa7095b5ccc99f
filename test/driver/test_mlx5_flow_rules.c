/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The application's flow rules (dvp_flow.h) on the mlx5 PMD and sim_mlx5:
 * steering a flow to a queue past RSS, dropping, MARK and FLAG seen in the
 * mbufs (plain and compressed CQEs, scalar and vector bursts), COUNT read
 * back (the sim's counters objects), rules kept across stop and start,
 * isolated mode, and what the PMD refuses.
 */

#include "mlx5_fixture.h"

#include <arpa/inet.h>

#include <dvp_flow.h>

#include "mlx5_rx.h"

#define NQ 4

static const struct dvp_flow_attr ingress = { .ingress = 1 };

/* A source frame of @p flow: 198.18.0.0 + flow -> 198.19.0.1, UDP 0xc000|flow -> 9. */
static void inject(struct mf *f, uint32_t flow, unsigned int n, int expect)
{
	struct dvp_ether_addr mac;
	uint8_t frames[16][128];
	const void *fp[16];
	size_t lens[16];
	int res[16];

	assert_true(n <= 16);
	assert_int_equal(dvp_macaddr_get(f->port[0], &mac), 0);
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(sim_mlx5_frame_build(frames[i], 100, flow, i, mac.addr_bytes),
				 100);
		fp[i] = frames[i];
		lens[i] = 100;
	}
	/* In one engine pass: a compressing CQ takes them as a session. */
	sim_mlx5_inject_burst(f->sim, 0, fp, lens, n, res);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(res[i], expect);
}

/* Take @p n frames from queue @p q, each marked as @p flags / @p id say. */
static void expect_rx1(struct mf *f, uint16_t q, unsigned int n, uint64_t flags, uint32_t id)
{
	struct dvp_mbuf *m[32];
	uint16_t got = dvp_rx_burst(f->port[0], q, m, 32);

	assert_int_equal(got, n);
	for (uint16_t i = 0; i < got; i++) {
		assert_int_equal(m[i]->ol_flags & (DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID),
				 flags);
		if (flags & DVP_MBUF_F_RX_FDIR_ID)
			assert_int_equal(m[i]->hash.fdir.hi, id);
	}
	dvp_pktmbuf_free_bulk(m, got);
}

/* expect_rx1() on queue @p q, and nothing from the others. */
static void expect_rx(struct mf *f, uint16_t q, unsigned int n, uint64_t flags, uint32_t id)
{
	struct dvp_mbuf *m[32];
	uint16_t got;

	for (uint16_t o = 0; o < NQ; o++) {
		if (o == q)
			continue;
		got = dvp_rx_burst(f->port[0], o, m, 32);
		dvp_pktmbuf_free_bulk(m, got);
		assert_int_equal(got, 0);
	}
	expect_rx1(f, q, n, flags, id);
}

static void open_rss(struct mf *f)
{
	struct dvp_port_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = DVP_RSS_IP | DVP_RSS_NONFRAG_IPV4_UDP;
	mf_open(f, "ports=1,mode=step", 1024);
	mf_port_start(f, 0, NQ, 1, &conf, 128);
}

/* The queue RSS gives flow @p flow (entry i -> queue i % NQ, default key). */
static uint16_t rss_queue(struct mf *f, uint32_t flow)
{
	struct dvp_mbuf *m[32];
	uint16_t found = UINT16_MAX;

	inject(f, flow, 1, SIM_MLX5_RX_DELIVERED);
	for (uint16_t q = 0; q < NQ; q++) {
		uint16_t n = dvp_rx_burst(f->port[0], q, m, 32);

		if (n > 0)
			found = q;
		dvp_pktmbuf_free_bulk(m, n);
	}
	assert_int_not_equal(found, UINT16_MAX);
	return found;
}

/* UDP to port 9 from 198.18.0.<flow>: QUEUE + MARK, past RSS; others unmarked. */
static struct dvp_flow *rule_udp_src(struct mf *f, uint32_t flow, uint16_t q, uint32_t mark,
				     bool flag)
{
	struct dvp_flow_item_ipv4 ip = { .src = htonl(0xc6120000u + flow) };
	struct dvp_flow_item_ipv4 ipm = { .src = 0xffffffff };
	struct dvp_flow_item_l4 udp = { .dst_port = htons(9) };
	struct dvp_flow_item_l4 udpm = { .dst_port = 0xffff };
	struct dvp_flow_action_queue qa = { q };
	struct dvp_flow_action_mark ma = { mark };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = &ipm },
				       { .type = DVP_FLOW_ITEM_UDP, .spec = &udp, .mask = &udpm },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &qa },
					 { flag ? DVP_FLOW_ACTION_FLAG : DVP_FLOW_ACTION_MARK,
					   flag ? NULL : &ma },
					 { DVP_FLOW_ACTION_END, NULL } };

	assert_int_equal(dvp_flow_validate(f->port[0], &ingress, pat, act), 0);
	return dvp_flow_create(f->port[0], &ingress, pat, act);
}

static void test_queue_mark(void **state)
{
	const uint64_t fdir_id = DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID;
	struct dvp_flow *r;
	uint16_t home, other, q6;
	struct mf f;

	(void)state;
	open_rss(&f);
	home = rss_queue(&f, 5);
	other = (uint16_t)((home + 1) % NQ);
	r = rule_udp_src(&f, 5, other, 0x42, false);
	assert_non_null(r);
	assert_true(mlx5_rx_marking(dvp_port_get(f.port[0])->rxqs[0]));
	/* One frame, then a compressed session of eight. */
	inject(&f, 5, 1, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, other, 1, fdir_id, 0x42);
	inject(&f, 5, 8, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, other, 8, fdir_id, 0x42);
	/* Another flow still goes by RSS, unmarked. */
	q6 = rss_queue(&f, 6);
	inject(&f, 6, 2, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, q6, 2, 0, 0);
	assert_int_equal(dvp_flow_destroy(f.port[0], r), 0);
	assert_false(mlx5_rx_marking(dvp_port_get(f.port[0])->rxqs[0]));
	inject(&f, 5, 2, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, home, 2, 0, 0);
	/* MARK id 0 is a mark too. */
	assert_non_null(rule_udp_src(&f, 5, home, 0, false));
	inject(&f, 5, 3, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, home, 3, fdir_id, 0);
	assert_int_equal(dvp_flow_flush(f.port[0]), 0);
	assert_non_null(rule_udp_src(&f, 5, other, 0, true));
	inject(&f, 5, 4, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, other, 4, DVP_MBUF_F_RX_FDIR, 0);
	mf_close(&f);
}

static void test_drop(void **state)
{
	struct dvp_flow_item_ipv4 ip = { .src = htonl(0xc6120007u) };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = NULL },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_DROP, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow *r;
	uint16_t home;
	struct mf f;

	(void)state;
	open_rss(&f);
	home = rss_queue(&f, 7);
	ip.dst = 0;
	r = dvp_flow_create(f.port[0], &ingress, pat, act);
	assert_non_null(r);
	/* The item's default mask covers dst too: 198.19.0.1 is not 0, no match. */
	inject(&f, 7, 1, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, home, 1, 0, 0);
	assert_int_equal(dvp_flow_destroy(f.port[0], r), 0);
	pat[0].mask = &(struct dvp_flow_item_ipv4){ .src = 0xffffffff };
	r = dvp_flow_create(f.port[0], &ingress, pat, act);
	assert_non_null(r);
	inject(&f, 7, 3, SIM_MLX5_RX_FLOW_DROP);
	inject(&f, 8, 1, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(dvp_flow_destroy(f.port[0], r), 0);
	inject(&f, 7, 1, SIM_MLX5_RX_DELIVERED);
	mf_close(&f);
}

/* A port set up with RSS over NQ queues, not started. */
static void open_stopped(struct mf *f)
{
	struct dvp_port_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = DVP_RSS_IP | DVP_RSS_NONFRAG_IPV4_UDP;
	mf_open(f, "ports=1,mode=step", 1024);
	assert_int_equal(dvp_port_configure(f->port[0], NQ, 1, &conf), 0);
	for (uint16_t q = 0; q < NQ; q++)
		assert_int_equal(dvp_rxq_setup(f->port[0], q, 128, DVP_SOCKET_ANY, NULL, f->mp), 0);
	assert_int_equal(dvp_txq_setup(f->port[0], 0, 128, DVP_SOCKET_ANY, NULL), 0);
}

/* Rules made on a stopped port act at start, and survive stop and start. */
static void test_stop_start(void **state)
{
	struct dvp_flow *r;
	struct mf f;

	(void)state;
	open_stopped(&f);
	r = rule_udp_src(&f, 9, 2, 0x777, false);
	assert_non_null(r);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	inject(&f, 9, 2, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 2, 2, DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID, 0x777);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(dvp_port_stop(f.port[0]), 0);
		assert_int_equal(dvp_port_start(f.port[0]), 0);
		inject(&f, 9, 3, SIM_MLX5_RX_DELIVERED);
		expect_rx(&f, 2, 3, DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID, 0x777);
	}
	assert_int_equal(dvp_flow_count(f.port[0]), 1);
	mf_close(&f);
}

/* The frames port 0 of the sim found no rule for. */
static uint64_t no_flow(struct mf *f)
{
	struct sim_mlx5_port_stats ps;

	assert_int_equal(sim_mlx5_port_stats(f->sim, 0, &ps), 0);
	return ps.rx_no_flow;
}

/*
 * Isolated: the rules are all that steer (flow 9 to queue 2); every other
 * frame meets no rule in the device, promiscuous or not, and reaches no
 * queue. It holds across stop and start; off brings RSS back.
 */
static void test_isolate(void **state)
{
	const uint64_t fdir_id = DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID;
	uint64_t n0;
	struct mf f;

	(void)state;
	open_stopped(&f);
	assert_int_equal(dvp_flow_isolate(f.port[0], true), 0);
	assert_non_null(rule_udp_src(&f, 9, 2, 0x777, false));
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	inject(&f, 9, 2, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 2, 2, fdir_id, 0x777);
	n0 = no_flow(&f);
	inject(&f, 5, 3, SIM_MLX5_RX_NO_FLOW);
	assert_int_equal(no_flow(&f) - n0, 3);
	expect_rx(&f, 2, 0, 0, 0);
	assert_int_equal(dvp_promiscuous_enable(f.port[0]), 0);
	inject(&f, 5, 1, SIM_MLX5_RX_NO_FLOW);
	assert_int_equal(dvp_flow_isolate(f.port[0], false), -EBUSY);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	inject(&f, 5, 1, SIM_MLX5_RX_NO_FLOW);
	inject(&f, 9, 1, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 2, 1, fdir_id, 0x777);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_flow_isolate(f.port[0], false), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	(void)rss_queue(&f, 5);
	inject(&f, 9, 1, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 2, 1, fdir_id, 0x777);
	mf_close(&f);
}

/* COUNT: frames and bytes taken (delivered or dropped), kept across stop and start, reset. */
static void test_count(void **state)
{
	struct dvp_flow_item_ipv4 ip = { .src = htonl(0xc6120003u) };
	struct dvp_flow_item_ipv4 ipm = { .src = 0xffffffff };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = &ipm },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action_queue q2 = { 2 };
	struct dvp_flow_action to_q2[] = { { DVP_FLOW_ACTION_QUEUE, &q2 },
					   { DVP_FLOW_ACTION_COUNT, NULL },
					   { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action drop[] = { { DVP_FLOW_ACTION_COUNT, NULL },
					  { DVP_FLOW_ACTION_DROP, NULL },
					  { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_query_count qc = { 0 };
	struct dvp_flow *r, *d;
	struct mf f;

	(void)state;
	open_rss(&f);
	r = dvp_flow_create(f.port[0], &ingress, pat, to_q2);
	assert_non_null(r);
	inject(&f, 3, 5, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 2, 5, 0, 0);
	inject(&f, 4, 2, SIM_MLX5_RX_DELIVERED); /* not the rule's */
	for (uint16_t q = 0; q < NQ; q++) {
		struct dvp_mbuf *m[8];

		dvp_pktmbuf_free_bulk(m, dvp_rx_burst(f.port[0], q, m, 8));
	}
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 5);
	assert_int_equal(qc.bytes, 500);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 5);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	inject(&f, 3, 1, SIM_MLX5_RX_DELIVERED);
	expect_rx(&f, 2, 1, 0, 0);
	qc.reset = true;
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 6);
	assert_int_equal(qc.bytes, 600);
	qc.reset = false;
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 0);
	/* A counted drop: dropped frames count too. */
	assert_int_equal(dvp_flow_destroy(f.port[0], r), 0);
	d = dvp_flow_create(f.port[0], &ingress, pat, drop);
	assert_non_null(d);
	inject(&f, 3, 4, SIM_MLX5_RX_FLOW_DROP);
	assert_int_equal(dvp_flow_query(f.port[0], d, &qc), 0);
	assert_int_equal(qc.hits, 4);
	assert_int_equal(qc.bytes, 400);
	mf_close(&f);
}

/* The sim's counters keep libibverbs' rules. */
static void test_sim_counters(void **state)
{
	struct ibv_counter_attach_attr pk = { .counter_desc = IBV_COUNTER_PACKETS, .index = 0 };
	struct ibv_counter_attach_attr bad = { .counter_desc = IBV_COUNTER_PACKETS, .index = 99 };
	struct mlx5_priv *priv;
	const struct mlx5_glue *g;
	struct ibv_counters *c;
	uint64_t v[2] = { 1, 1 };
	struct mf f;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 0);
	priv = mlx5_priv(dvp_port_get(f.port[0]));
	g = priv->dev->glue;
	c = g->create_counters(priv->dev->ctx, &(struct ibv_counters_init_attr){ 0 });
	assert_non_null(c);
	assert_int_equal(g->attach_counters_point_flow(c, &bad, NULL), EINVAL);
	assert_int_equal(g->attach_counters_point_flow(c, &pk, (struct ibv_flow *)(void *)c),
			 EOPNOTSUPP);
	assert_int_equal(g->attach_counters_point_flow(c, &pk, NULL), 0);
	assert_int_equal(g->read_counters(c, v, 2, 0), 0);
	assert_int_equal(v[0], 0);
	assert_int_equal(v[1], 0);
	assert_int_equal(g->destroy_counters(c), 0);
	mf_close(&f);
}

/* MARK + RSS over all queues (as OVS's partial offload asks): frames spread, each marked. */
static void test_rss_mark(void **state)
{
	static const uint16_t all[NQ] = { 0, 1, 2, 3 };
	struct dvp_flow_item_ipv4 ip = { .src = htonl(0xc6120000u) };
	struct dvp_flow_item_ipv4 ipm = { .src = htonl(0xffff0000u) };
	struct dvp_flow_item_l4 udp = { .dst_port = htons(9) };
	struct dvp_flow_item_l4 udpm = { .dst_port = 0xffff };
	struct dvp_flow_action_rss rss = { .types = DVP_RSS_IP | DVP_RSS_UDP,
					   .queue_num = NQ,
					   .queue = all };
	struct dvp_flow_action_mark ma = { 0x77 };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = &ipm },
				       { .type = DVP_FLOW_ITEM_UDP, .spec = &udp, .mask = &udpm },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_MARK, &ma },
					 { DVP_FLOW_ACTION_RSS, &rss },
					 { DVP_FLOW_ACTION_END, NULL } };
	unsigned int per_q[NQ] = { 0 }, total = 0, used = 0;
	struct dvp_mbuf *m[32];
	struct mf f;

	(void)state;
	open_rss(&f);
	assert_non_null(dvp_flow_create(f.port[0], &ingress, pat, act));
	for (uint32_t flow = 0; flow < 32; flow++)
		inject(&f, flow, 1, SIM_MLX5_RX_DELIVERED);
	for (uint16_t q = 0; q < NQ; q++) {
		uint16_t n = dvp_rx_burst(f.port[0], q, m, 32);

		for (uint16_t i = 0; i < n; i++) {
			assert_int_equal(m[i]->ol_flags & DVP_MBUF_F_RX_FDIR_ID,
					 DVP_MBUF_F_RX_FDIR_ID);
			assert_int_equal(m[i]->hash.fdir.hi, 0x77);
		}
		dvp_pktmbuf_free_bulk(m, n);
		per_q[q] = n;
		total += n;
		used += n > 0;
	}
	print_message("rss+mark: 32 flows over queues %u %u %u %u\n", per_q[0], per_q[1], per_q[2],
		      per_q[3]);
	assert_int_equal(total, 32);
	assert_true(used >= 2);
	/* Rules survive stop and start: the rule's own hashing QP is made again. */
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	inject(&f, 3, 1, SIM_MLX5_RX_DELIVERED);
	total = 0;
	for (uint16_t q = 0; q < NQ; q++) {
		uint16_t n = dvp_rx_burst(f.port[0], q, m, 32);

		for (uint16_t i = 0; i < n; i++)
			assert_int_equal(m[i]->hash.fdir.hi, 0x77);
		dvp_pktmbuf_free_bulk(m, n);
		total += n;
	}
	assert_int_equal(total, 1);
	mf_close(&f);
}

static void refused(struct mf *f, const struct dvp_flow_attr *attr, const struct dvp_flow_item *pat,
		    const struct dvp_flow_action *act, int err, const char *what)
{
	struct dvp_log_capture cap;

	dvp_log_capture_begin(&cap);
	assert_null(dvp_flow_create(f->port[0], attr, pat, act));
	assert_int_equal(dvp_errno, err);
	assert_contains(dvp_log_capture_end(&cap), what);
	dvp_log_capture_free(&cap);
}

static void test_refused(void **state)
{
	struct dvp_flow_item_vlan vlan = { .tci = htons(5) };
	struct dvp_flow_item_eth eth = { .type = htons(0x0800) };
	struct dvp_flow_action_mark big = { 0xfffffe };
	struct dvp_flow_action_queue q0 = { 0 };
	struct dvp_flow_item ip4[] = { { .type = DVP_FLOW_ITEM_IPV4 },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_item any[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_item eth_vlan[] = { { .type = DVP_FLOW_ITEM_ETH, .spec = &eth },
					    { .type = DVP_FLOW_ITEM_VLAN, .spec = &vlan },
					    { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action to_q0[] = { { DVP_FLOW_ACTION_QUEUE, &q0 },
					   { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action mark_big[] = { { DVP_FLOW_ACTION_QUEUE, &q0 },
					      { DVP_FLOW_ACTION_MARK, &big },
					      { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_attr prio2 = { .ingress = 1, .priority = 2 };
	static const uint16_t shuffled[NQ] = { 1, 0, 2, 3 }, inorder[NQ] = { 0, 1, 2, 3 };
	struct dvp_flow_action_rss rs = { .queue_num = NQ, .queue = shuffled };
	struct dvp_flow_action_rss r6 = { .types = DVP_RSS_IPV6,
					  .queue_num = NQ,
					  .queue = inorder };
	struct dvp_flow_action rss_shuffled[] = { { DVP_FLOW_ACTION_RSS, &rs },
						  { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action rss_v6[] = { { DVP_FLOW_ACTION_RSS, &r6 },
					    { DVP_FLOW_ACTION_END, NULL } };
	struct mf f;

	(void)state;
	open_rss(&f);
	refused(&f, &prio2, any, to_q0, EINVAL, "priority 2; valid are 0..1");
	refused(&f, &ingress, eth_vlan, to_q0, EINVAL, "VLAN's inner_type");
	refused(&f, &ingress, any, mark_big, EINVAL, "MARK id 0xfffffe; valid are 0..0xfffffd");
	refused(&f, &ingress, any, rss_shuffled, ENOTSUP, "not all in order");
	refused(&f, &ingress, ip4, rss_v6, ENOTSUP, "without a type of the rule's IP version");
	assert_int_equal(dvp_flow_count(f.port[0]), 0);
	mf_close(&f);
}

/* A multi-packet RQ delivers the marks: the tag is read per packet in its loop. */
static void test_mark_mprq(void **state)
{
	struct dvp_devargs da;
	struct mlx5_cfg cfg;
	struct mf f;
	char text[160];

	(void)state;
	mf_open(&f, "ports=1,mode=step", 1024);
	snprintf(text, sizeof(text), "%s,mprq_en=1,rxqs_min_mprq=1", sim_mlx5_name(f.sim));
	assert_int_equal(dvp_devargs_parse(text, &da), 0);
	assert_int_equal(mlx5_devargs_parse(&da, sim_mlx5_name(f.sim), &cfg), 0);
	dvp_devargs_free(&da);
	mlx5_priv(dvp_port_get(f.port[0]))->dev->cfg = cfg;
	mf_port_start(&f, 0, 1, 1, NULL, 128);
	if (((struct mlx5_rxq *)dvp_port_get(f.port[0])->rxqs[0])->mprq == NULL) {
		print_message("the device has no multi-packet RQ: nothing to check\n");
		mf_close(&f);
		return;
	}
	{
		struct dvp_flow_action_mark m = { 1 };
		struct dvp_flow_action_queue q0 = { 0 };
		struct dvp_flow_item any[] = { { .type = DVP_FLOW_ITEM_ETH },
					       { .type = DVP_FLOW_ITEM_END } };
		struct dvp_flow_action marked[] = { { DVP_FLOW_ACTION_QUEUE, &q0 },
						    { DVP_FLOW_ACTION_MARK, &m },
						    { DVP_FLOW_ACTION_END, NULL } };

		assert_non_null(dvp_flow_create(f.port[0], &ingress, any, marked));
		inject(&f, 5, 8, SIM_MLX5_RX_DELIVERED);
		expect_rx1(&f, 0, 8, DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID, 1);
		assert_int_equal(dvp_flow_flush(f.port[0]), 0);
		inject(&f, 5, 2, SIM_MLX5_RX_DELIVERED);
		expect_rx1(&f, 0, 2, 0, 0);
	}
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_mark), cmocka_unit_test(test_rss_mark),
		cmocka_unit_test(test_drop),	   cmocka_unit_test(test_stop_start),
		cmocka_unit_test(test_count),	   cmocka_unit_test(test_sim_counters),
		cmocka_unit_test(test_refused),	   cmocka_unit_test(test_mark_mprq),
		cmocka_unit_test(test_isolate),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
