/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * IPv6 in the application's flow rules on the mlx5 PMD and sim_mlx5: ETH /
 * IPV6 (addresses under masks) / UDP or TCP steered to a queue and marked,
 * flagged, counted and dropped, also under a VLAN item; an RSS rule hashing IPv6 addresses and the
 * rule's ports (each frame on the queue of its Toeplitz hash); IPv4 frames
 * of the same ports and IPv6 frames of another protocol left to the port's
 * RSS. Then what the sim refuses as the kernel does (an IPV6 spec's
 * hop_limit, a next_hdr against the L4 spec's protocol, a hashing QP of
 * two IP versions or two L4 protocols) and what the PMD refuses.
 */

#include "mlx5_fixture.h"

#include <arpa/inet.h>

#include <dvp_flow.h>

#include "mlx5_rx.h"

#define NQ 4
#define FDIR_ID (DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID)

static const struct dvp_flow_attr ingress = { .ingress = 1 };

/* 2001:db8::<flow> as mf_frame6() builds it. */
static void src6(uint8_t a[16], uint32_t flow)
{
	static const uint8_t net[16] = { 0x20, 0x01, 0x0d, 0xb8 };

	memcpy(a, net, 16);
	a[12] = (uint8_t)(flow >> 24), a[13] = (uint8_t)(flow >> 16);
	a[14] = (uint8_t)(flow >> 8), a[15] = (uint8_t)flow;
}

/* @p n IPv6 frames of @p flow and next header @p proto into port 0, each answered @p expect. */
static void inject6(struct mf *f, uint32_t flow, uint8_t proto, unsigned int n, int expect)
{
	uint8_t frame[100], mac[6];

	assert_int_equal(sim_mlx5_mac_get(f->sim, 0, mac), 0);
	mf_frame6(frame, sizeof(frame), flow, proto, mac);
	for (unsigned int i = 0; i < n; i++)
		assert_int_equal(sim_mlx5_inject(f->sim, 0, frame, sizeof(frame)), expect);
}

/* An IPv4/UDP source frame of @p flow (same ports as the IPv6 ones) into port 0. */
static void inject4(struct mf *f, uint32_t flow, int expect)
{
	uint8_t frame[100], mac[6];

	assert_int_equal(sim_mlx5_mac_get(f->sim, 0, mac), 0);
	assert_int_equal(sim_mlx5_frame_build(frame, sizeof(frame), flow, 0, mac), 100);
	assert_int_equal(sim_mlx5_inject(f->sim, 0, frame, sizeof(frame)), expect);
}

/* Take every frame of every queue: @p per_q[q] of queue q, each with @p flags and @p id. */
static unsigned int take(struct mf *f, unsigned int per_q[NQ], uint64_t flags, uint32_t id)
{
	struct dvp_mbuf *m[32];
	unsigned int total = 0;

	for (uint16_t q = 0; q < NQ; q++) {
		uint16_t n = dvp_rx_burst(f->port[0], q, m, 32);

		for (uint16_t i = 0; i < n; i++) {
			assert_int_equal(m[i]->ol_flags & FDIR_ID, flags);
			if (flags & DVP_MBUF_F_RX_FDIR_ID)
				assert_int_equal(m[i]->hash.fdir.hi, id);
		}
		dvp_pktmbuf_free_bulk(m, n);
		if (per_q != NULL)
			per_q[q] = n;
		total += n;
	}
	return total;
}

/* Port 0 with NQ queues, RSS on IPv4 and UDP over IPv4 (IPv6 not hashed by the port). */
static void open_rss(struct mf *f)
{
	struct dvp_port_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = DVP_RSS_IPV4 | DVP_RSS_NONFRAG_IPV4_UDP;
	mf_open(f, "ports=1,mode=step", 1024);
	mf_port_start(f, 0, NQ, 1, &conf, 128);
}

/*
 * ETH / IPV6 src 2001:db8::<flow> (/128 or /112) / @p l4 dst 9 with the
 * actions @p act.
 */
static struct dvp_flow *rule6(struct mf *f, uint32_t flow, bool wide, enum dvp_flow_item_type l4,
			      const struct dvp_flow_action *act)
{
	struct dvp_flow_item_ipv6 ip, ipm;
	struct dvp_flow_item_l4 port = { .dst_port = htons(9) };
	struct dvp_flow_item_l4 portm = { .dst_port = 0xffff };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_IPV6, .spec = &ip, .mask = &ipm },
				       { .type = l4, .spec = &port, .mask = &portm },
				       { .type = DVP_FLOW_ITEM_END } };

	memset(&ip, 0, sizeof(ip));
	memset(&ipm, 0, sizeof(ipm));
	src6(ip.src, flow);
	memset(ipm.src, 0xff, wide ? 14 : 16);
	assert_int_equal(dvp_flow_validate(f->port[0], &ingress, pat, act), 0);
	return dvp_flow_create(f->port[0], &ingress, pat, act);
}

/* QUEUE + MARK on IPv6/UDP from one address: those frames alone, marked, on the queue. */
static void test_queue_mark(void **state)
{
	struct dvp_flow_action_queue q2 = { 2 };
	struct dvp_flow_action_mark ma = { 0x6 };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q2 },
					 { DVP_FLOW_ACTION_MARK, &ma },
					 { DVP_FLOW_ACTION_END, NULL } };
	unsigned int per_q[NQ];
	struct dvp_flow *r;
	struct mf f;

	(void)state;
	open_rss(&f);
	/* Without a rule the port's own steering takes IPv6 to the table's first queue. */
	inject6(&f, 5, IPPROTO_UDP, 3, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, per_q, 0, 0), 3);
	assert_int_equal(per_q[0], 3);
	r = rule6(&f, 5, false, DVP_FLOW_ITEM_UDP, act);
	assert_non_null(r);
	inject6(&f, 5, IPPROTO_UDP, 4, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, per_q, FDIR_ID, 0x6), 4);
	assert_int_equal(per_q[2], 4);
	/* Another address, TCP to the same port, IPv4 of the same ports: not the rule's. */
	inject6(&f, 6, IPPROTO_UDP, 1, SIM_MLX5_RX_DELIVERED);
	inject6(&f, 5, IPPROTO_TCP, 1, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, per_q, 0, 0), 2);
	assert_int_equal(per_q[0], 2);
	inject4(&f, 5, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, NULL, 0, 0), 1);
	/* Kept across stop and start. */
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	inject6(&f, 5, IPPROTO_UDP, 2, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, per_q, FDIR_ID, 0x6), 2);
	assert_int_equal(per_q[2], 2);
	assert_int_equal(dvp_flow_destroy(f.port[0], r), 0);
	inject6(&f, 5, IPPROTO_UDP, 1, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, per_q, 0, 0), 1);
	assert_int_equal(per_q[0], 1);
	mf_close(&f);
}

/* FLAG + COUNT on a /112 over TCP, then a counted DROP: frames and bytes as the rules took them. */
static void test_flag_count_drop(void **state)
{
	struct dvp_flow_action_queue q1 = { 1 };
	struct dvp_flow_action flag[] = { { DVP_FLOW_ACTION_QUEUE, &q1 },
					  { DVP_FLOW_ACTION_FLAG, NULL },
					  { DVP_FLOW_ACTION_COUNT, NULL },
					  { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action drop[] = { { DVP_FLOW_ACTION_DROP, NULL },
					  { DVP_FLOW_ACTION_COUNT, NULL },
					  { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_query_count qc = { 0 };
	unsigned int per_q[NQ];
	struct dvp_flow *r;
	struct mf f;

	(void)state;
	open_rss(&f);
	r = rule6(&f, 0x10000, true, DVP_FLOW_ITEM_TCP, flag);
	assert_non_null(r);
	inject6(&f, 0x10007, IPPROTO_TCP, 3, SIM_MLX5_RX_DELIVERED);
	inject6(&f, 0x1ffff, IPPROTO_TCP, 2, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, per_q, DVP_MBUF_F_RX_FDIR, 0), 5);
	assert_int_equal(per_q[1], 5);
	inject6(&f, 0x20000, IPPROTO_TCP, 1, SIM_MLX5_RX_DELIVERED); /* outside the /112 */
	inject6(&f, 0x10007, IPPROTO_UDP, 1, SIM_MLX5_RX_DELIVERED); /* UDP */
	assert_int_equal(take(&f, NULL, 0, 0), 2);
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 5);
	assert_int_equal(qc.bytes, 500);
	assert_int_equal(dvp_flow_destroy(f.port[0], r), 0);
	r = rule6(&f, 0x10000, true, DVP_FLOW_ITEM_TCP, drop);
	assert_non_null(r);
	inject6(&f, 0x10001, IPPROTO_TCP, 4, SIM_MLX5_RX_FLOW_DROP);
	inject6(&f, 0x10001, IPPROTO_UDP, 1, SIM_MLX5_RX_DELIVERED);
	assert_int_equal(take(&f, NULL, 0, 0), 1);
	assert_int_equal(dvp_flow_query(f.port[0], r, &qc), 0);
	assert_int_equal(qc.hits, 4);
	assert_int_equal(qc.bytes, 400);
	mf_close(&f);
}

/* ETH / VLAN (VID 10) / IPV6 / UDP: tagged IPv6 frames of that VID alone, marked. */
static void test_vlan(void **state)
{
	struct dvp_flow_item_vlan vlan = { .tci = htons(10) }, vlanm = { .tci = htons(0x0fff) };
	struct dvp_flow_item pat[] = {
		{ .type = DVP_FLOW_ITEM_ETH },
		{ .type = DVP_FLOW_ITEM_VLAN, .spec = &vlan, .mask = &vlanm },
		{ .type = DVP_FLOW_ITEM_IPV6 },
		{ .type = DVP_FLOW_ITEM_UDP },
		{ .type = DVP_FLOW_ITEM_END }
	};
	struct dvp_flow_action_queue q3 = { 3 };
	struct dvp_flow_action_mark ma = { 0x10 };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q3 },
					 { DVP_FLOW_ACTION_MARK, &ma },
					 { DVP_FLOW_ACTION_END, NULL } };
	uint8_t frame[104], mac[6];
	unsigned int per_q[NQ];
	struct mf f;

	(void)state;
	open_rss(&f);
	assert_int_equal(sim_mlx5_mac_get(f.sim, 0, mac), 0);
	assert_non_null(dvp_flow_create(f.port[0], &ingress, pat, act));
	for (uint8_t vid = 10; vid <= 11; vid++) {
		mf_frame6(frame, 100, 5, IPPROTO_UDP, mac);
		memmove(frame + 16, frame + 12, 100 - 12);
		frame[12] = 0x81, frame[13] = 0x00, frame[14] = 0x00, frame[15] = vid;
		assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, 104), SIM_MLX5_RX_DELIVERED);
		assert_int_equal(take(&f, per_q, vid == 10 ? FDIR_ID : 0, 0x10), 1);
		if (vid == 10)
			assert_int_equal(per_q[3], 1);
	}
	inject6(&f, 5, IPPROTO_UDP, 1, SIM_MLX5_RX_DELIVERED); /* untagged */
	assert_int_equal(take(&f, NULL, 0, 0), 1);
	mf_close(&f);
}

/*
 * The Toeplitz input of IPv6 frame @p p: the addresses, and the ports when
 * @p ports. Its hash under @p key picks entry hash % NQ of the rule's table.
 */
static uint32_t hash6(const uint8_t *key, const uint8_t *p, bool ports)
{
	uint8_t in[36];

	memcpy(in, p + 22, 32);
	memcpy(in + 32, p + 54, 4);
	return sim_mlx5_toeplitz(key, 40, in, ports ? 36 : 32);
}

/*
 * RSS + MARK on ETH / IPV6 / UDP: with UDP over IPv6 in its types each
 * frame lands on the queue of the hash of its addresses and ports, with
 * only IPv6 on that of its addresses; the mbuf carries the hash.
 */
static void test_rss(void **state)
{
	static const uint16_t all[NQ] = { 0, 1, 2, 3 };
	static const uint64_t types[] = { DVP_RSS_IPV6 | DVP_RSS_NONFRAG_IPV6_UDP,
					  DVP_RSS_IPV6_UDP_EX, DVP_RSS_IPV6 };
	const uint8_t *key;
	struct mf f;

	(void)state;
	open_rss(&f);
	key = mlx5_priv(dvp_port_get(f.port[0]))->rss.key;
	for (unsigned int t = 0; t < DVP_DIM(types); t++) {
		struct dvp_flow_action_rss rss = { .types = types[t],
						   .queue_num = NQ,
						   .queue = all };
		struct dvp_flow_action_mark ma = { 0x99 };
		struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
					       { .type = DVP_FLOW_ITEM_IPV6 },
					       { .type = DVP_FLOW_ITEM_UDP },
					       { .type = DVP_FLOW_ITEM_END } };
		struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_RSS, &rss },
						 { DVP_FLOW_ACTION_MARK, &ma },
						 { DVP_FLOW_ACTION_END, NULL } };
		bool ports = types[t] != DVP_RSS_IPV6;
		unsigned int used = 0, total = 0;
		uint8_t frame[100], mac[6];
		struct dvp_mbuf *m[32];

		assert_non_null(dvp_flow_create(f.port[0], &ingress, pat, act));
		assert_int_equal(sim_mlx5_mac_get(f.sim, 0, mac), 0);
		for (uint32_t flow = 0; flow < 32; flow++) {
			uint32_t h;
			uint16_t got = 0, q;

			mf_frame6(frame, sizeof(frame), flow * 977u, IPPROTO_UDP, mac);
			h = hash6(key, frame, ports);
			assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, sizeof(frame)),
					 SIM_MLX5_RX_DELIVERED);
			for (q = 0; q < NQ && got == 0; q++)
				got = dvp_rx_burst(f.port[0], q, m, 32);
			assert_int_equal(got, 1);
			assert_int_equal(q - 1, h % NQ);
			assert_true(m[0]->ol_flags & DVP_MBUF_F_RX_RSS_HASH);
			assert_int_equal(m[0]->hash.rss, h);
			assert_int_equal(m[0]->hash.fdir.hi, 0x99);
			used |= 1u << (q - 1);
			total++;
			dvp_pktmbuf_free_bulk(m, got);
		}
		assert_int_equal(total, 32);
		assert_true(__builtin_popcount(used) >= 2);
		assert_int_equal(dvp_flow_flush(f.port[0]), 0);
	}
	mf_close(&f);
}

/* A verbs IPV6 spec on @p qp of port 1, its mask's @p field byte at @p at set; errno or 0. */
static int ipv6_spec(const struct mlx5_glue *g, struct ibv_qp *qp, size_t at, uint8_t next_l4)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_ipv6 ip;
		struct ibv_flow_spec_tcp_udp l4;
	} b;
	struct ibv_flow *fl;

	memset(&b, 0, sizeof(b));
	b.attr.type = IBV_FLOW_ATTR_NORMAL;
	b.attr.port = 1;
	b.attr.num_of_specs = next_l4 != 0 ? 2 : 1;
	b.attr.size = (uint16_t)(sizeof(b.attr) + sizeof(b.ip) + (next_l4 != 0 ? sizeof(b.l4) : 0));
	b.ip.type = IBV_FLOW_SPEC_IPV6;
	b.ip.size = sizeof(b.ip);
	((uint8_t *)&b.ip.mask)[at] = 0xff;
	((uint8_t *)&b.ip.val)[at] = IPPROTO_TCP;
	b.l4.type = next_l4 == IPPROTO_TCP ? IBV_FLOW_SPEC_TCP : IBV_FLOW_SPEC_UDP;
	b.l4.size = sizeof(b.l4);
	errno = 0;
	fl = g->create_flow(qp, &b.attr);
	if (fl == NULL)
		return errno;
	assert_int_equal(g->destroy_flow(fl), 0);
	return 0;
}

/* A hashing QP over the port's table hashing @p fields; errno or 0. */
static int hash_qp(struct mlx5_priv *priv, uint64_t fields)
{
	struct ibv_qp_init_attr_ex qa;
	struct ibv_qp *qp;

	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
	qa.pd = priv->dev->pd;
	qa.rwq_ind_tbl = priv->steer.ind;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key_len = 40;
	qa.rx_hash_conf.rx_hash_key = priv->rss.key;
	qa.rx_hash_conf.rx_hash_fields_mask = fields;
	errno = 0;
	qp = priv->dev->glue->create_qp_ex(priv->dev->ctx, &qa);
	if (qp == NULL)
		return errno;
	assert_int_equal(priv->dev->glue->destroy_qp(qp), 0);
	return 0;
}

/* What the sim refuses as the kernel does, and what the PMD refuses. */
static void test_refused(void **state)
{
	const size_t flow_label = offsetof(struct ibv_flow_ipv6_filter, flow_label);
	const size_t next_hdr = offsetof(struct ibv_flow_ipv6_filter, next_hdr);
	const size_t tclass = offsetof(struct ibv_flow_ipv6_filter, traffic_class);
	const size_t hop_limit = offsetof(struct ibv_flow_ipv6_filter, hop_limit);
	static const uint16_t all[NQ] = { 0, 1, 2, 3 };
	struct dvp_flow_action_rss r6 = { .types = DVP_RSS_IPV6, .queue_num = NQ, .queue = all };
	struct dvp_flow_item ip4[] = { { .type = DVP_FLOW_ITEM_IPV4 },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action rss_v6[] = { { DVP_FLOW_ACTION_RSS, &r6 },
					    { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_log_capture cap;
	const struct mlx5_glue *g;
	struct mlx5_priv *priv;
	struct ibv_qp *qp;
	struct mf f;

	(void)state;
	open_rss(&f);
	priv = mlx5_priv(dvp_port_get(f.port[0]));
	g = priv->dev->glue;
	qp = priv->steer.hrxq[MLX5_RSS_L2].qp;
	assert_non_null(qp);
	dvp_log_capture_begin(&cap);
	assert_int_equal(ipv6_spec(g, qp, tclass, 0), 0);
	assert_int_equal(ipv6_spec(g, qp, next_hdr, IPPROTO_TCP), 0);
	assert_int_equal(ipv6_spec(g, qp, hop_limit, 0), EOPNOTSUPP);
	assert_int_equal(ipv6_spec(g, qp, flow_label, 0), EOPNOTSUPP);
	assert_int_equal(ipv6_spec(g, qp, next_hdr, IPPROTO_UDP), EINVAL);
	assert_int_equal(hash_qp(priv, IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_PORT_TCP), 0);
	assert_int_equal(hash_qp(priv, IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV6), EINVAL);
	assert_int_equal(hash_qp(priv, IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_UDP),
			 EINVAL);
	assert_null(dvp_flow_create(f.port[0], &ingress, ip4, rss_v6));
	assert_int_equal(dvp_errno, ENOTSUP);
	{
		const char *log = dvp_log_capture_end(&cap);

		assert_contains(log, "IPV6 hop_limit under mask 0xff not supported");
		assert_contains(log, "IPV6 flow_label");
		assert_contains(log, "asks IP protocol 17 under 0xff after an earlier spec's 6");
		assert_contains(log, "name IPv4 and IPv6 addresses");
		assert_contains(log, "name TCP and UDP ports");
		assert_contains(log, "without a type of the rule's IP version");
	}
	dvp_log_capture_free(&cap);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_queue_mark), cmocka_unit_test(test_flag_count_drop),
		cmocka_unit_test(test_vlan),	   cmocka_unit_test(test_rss),
		cmocka_unit_test(test_refused),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
