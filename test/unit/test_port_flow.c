/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port's flow rules (port_flow.c) over a fake driver that records its
 * flow ops: the checks of patterns and actions, the rule handed to the
 * driver, rules surviving stop and start, counts carried across lives,
 * isolated mode set on a stopped port only, and ENOTSUP from net_ring,
 * which has no flow rules.
 */

#include <arpa/inet.h>
#include <errno.h>

#include "test_port_helpers.h"

#include <dvp_flow.h>
#include <dvp_port_driver.h>

/* The fake driver's state: one port. */
static struct {
	int live; /* rules created and not destroyed */
	int creates;
	struct dvp_flow_rule last;
	uint64_t hits; /* what every live rule has counted */
	int refuse; /* flow_validate's answer */
	int isolate_calls, isolate_refuse; /* flow_isolate's, and its answer */
	int q[2];
} fk;

static int fk_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	(void)port;
	info->max_rx_queues = 2;
	info->max_tx_queues = 2;
	info->rx_desc_lim = (struct dvp_desc_lim){ .nb_max = 1024, .nb_min = 1, .nb_align = 1 };
	info->tx_desc_lim = info->rx_desc_lim;
	info->min_mtu = 68;
	info->max_mtu = 1500;
	info->max_rx_pktlen = 1518;
	return 0;
}

static int fk_ok(struct dvp_port *port)
{
	(void)port;
	return 0;
}

static uint16_t fk_rx(void *q, struct dvp_mbuf **p, uint16_t n)
{
	(void)q, (void)p, (void)n;
	return 0;
}

static uint16_t fk_tx(void *q, struct dvp_mbuf **p, uint16_t n)
{
	(void)q, (void)p, (void)n;
	return 0;
}

static int fk_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			const struct dvp_rxq_conf *conf, struct dvp_mempool *mp)
{
	(void)nb_desc, (void)socket_id, (void)conf, (void)mp;
	port->rxqs[q] = &fk.q[q];
	return 0;
}

static void fk_rxq_release(struct dvp_port *port, uint16_t q)
{
	port->rxqs[q] = NULL;
}

static int fk_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
			const struct dvp_txq_conf *conf)
{
	(void)nb_desc, (void)socket_id, (void)conf;
	port->txqs[q] = &fk.q[q];
	return 0;
}

static void fk_txq_release(struct dvp_port *port, uint16_t q)
{
	port->txqs[q] = NULL;
}

static int fk_start(struct dvp_port *port)
{
	port->rx_pkt_burst = fk_rx;
	port->tx_pkt_burst = fk_tx;
	return 0;
}

static int fk_stats_get(struct dvp_port *port, struct dvp_port_stats *st)
{
	(void)port, (void)st;
	return 0;
}

static unsigned int fk_held(struct dvp_port *port)
{
	(void)port;
	return 0;
}

static int fk_flow_validate(struct dvp_port *port, const struct dvp_flow_rule *rule)
{
	(void)port;
	fk.last = *rule;
	return fk.refuse;
}

static int fk_flow_create(struct dvp_port *port, const struct dvp_flow_rule *rule, void **handle)
{
	(void)port, (void)rule;
	fk.live++;
	fk.creates++;
	*handle = &fk;
	return 0;
}

static void fk_flow_destroy(struct dvp_port *port, void *handle)
{
	(void)port;
	assert_ptr_equal(handle, &fk);
	fk.live--;
}

static int fk_flow_query(struct dvp_port *port, void *handle, uint64_t *hits, uint64_t *bytes)
{
	(void)port, (void)handle;
	*hits = fk.hits;
	*bytes = fk.hits * 64;
	return 0;
}

static int fk_flow_isolate(struct dvp_port *port, bool on)
{
	(void)port, (void)on;
	fk.isolate_calls++;
	return fk.isolate_refuse;
}

static const struct dvp_port_ops fk_ops = {
	.info_get = fk_info_get,
	.configure = fk_ok,
	.rxq_setup = fk_rxq_setup,
	.rxq_release = fk_rxq_release,
	.txq_setup = fk_txq_setup,
	.txq_release = fk_txq_release,
	.start = fk_start,
	.stop = fk_ok,
	.stats_get = fk_stats_get,
	.mbufs_held = fk_held,
	.flow_validate = fk_flow_validate,
	.flow_create = fk_flow_create,
	.flow_destroy = fk_flow_destroy,
	.flow_query = fk_flow_query,
	.flow_isolate = fk_flow_isolate,
};

static uint16_t fp, rp;

static int setup(void **state)
{
	struct dvp_port_conf conf = { 0 };
	struct dvp_port *port;

	(void)state;
	if (dvp_test_eal_init("--no-huge", "-m", "32", "-l", "0", "--vdev", "net_ring_flow0") < 0)
		return -1;
	tp_pool_create();
	rp = tp_port("net_ring_flow0");
	port = dvp_port_allocate("fake_flow", "fake", &fk_ops, NULL, 0);
	if (port == NULL || dvp_port_probing_finish(port) < 0)
		return -1;
	fp = port->port_id;
	if (dvp_port_configure(fp, 2, 1, &conf) < 0 ||
	    dvp_rxq_setup(fp, 0, 64, DVP_SOCKET_ANY, NULL, tp_pool) < 0 ||
	    dvp_rxq_setup(fp, 1, 64, DVP_SOCKET_ANY, NULL, tp_pool) < 0 ||
	    dvp_txq_setup(fp, 0, 64, DVP_SOCKET_ANY, NULL) < 0)
		return -1;
	return 0;
}

static const struct dvp_flow_attr ingress = { .ingress = 1 };

/* A check that fails with @p err and a line holding @p what. */
static void refused(const struct dvp_flow_attr *attr, const struct dvp_flow_item *pat,
		    const struct dvp_flow_action *act, int err, const char *what)
{
	struct dvp_log_capture cap;

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_flow_validate(fp, attr, pat, act), -err);
	assert_null(dvp_flow_create(fp, attr, pat, act));
	assert_int_equal(dvp_errno, err);
	assert_contains(dvp_log_capture_end(&cap), what);
	dvp_log_capture_free(&cap);
}

static void test_bad_input(void **state)
{
	struct dvp_flow_action_queue q1 = { 1 }, q9 = { 9 };
	struct dvp_flow_action_mark m = { 7 };
	struct dvp_flow_item eth_ip[] = { { .type = DVP_FLOW_ITEM_ETH },
					  { .type = DVP_FLOW_ITEM_IPV4 },
					  { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_item ip_eth[] = { { .type = DVP_FLOW_ITEM_IPV4 },
					  { .type = DVP_FLOW_ITEM_ETH },
					  { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_item bad_type[] = { { .type = (enum dvp_flow_item_type)99 },
					    { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action to_q1[] = { { DVP_FLOW_ACTION_QUEUE, &q1 },
					   { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action to_q9[] = { { DVP_FLOW_ACTION_QUEUE, &q9 },
					   { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action no_fate[] = { { DVP_FLOW_ACTION_MARK, &m },
					     { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action two_fates[] = { { DVP_FLOW_ACTION_QUEUE, &q1 },
					       { DVP_FLOW_ACTION_DROP, NULL },
					       { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action drop_mark[] = { { DVP_FLOW_ACTION_DROP, NULL },
					       { DVP_FLOW_ACTION_MARK, &m },
					       { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action mark_flag[] = { { DVP_FLOW_ACTION_QUEUE, &q1 },
					       { DVP_FLOW_ACTION_MARK, &m },
					       { DVP_FLOW_ACTION_FLAG, NULL },
					       { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action no_conf[] = { { DVP_FLOW_ACTION_QUEUE, NULL },
					     { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_attr egress = { .egress = 1 };
	static const uint16_t q10[] = { 1, 0 }, q00[] = { 0, 0 }, q02[] = { 0, 2 };
	static const uint8_t key[40];
	struct dvp_flow_action_rss r10 = { .types = DVP_RSS_IP, .queue_num = 2, .queue = q10 };
	struct dvp_flow_action_rss r00 = { .queue_num = 2, .queue = q00 };
	struct dvp_flow_action_rss r02 = { .queue_num = 2, .queue = q02 };
	struct dvp_flow_action_rss rnone = { .queue_num = 0, .queue = q10 };
	struct dvp_flow_action_rss rkey = {
		.key = key, .key_len = 40, .queue_num = 2, .queue = q10
	};
	struct dvp_flow_action rss_twice[] = { { DVP_FLOW_ACTION_RSS, &r00 },
					       { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action rss_unknown[] = { { DVP_FLOW_ACTION_RSS, &r02 },
						 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action rss_none[] = { { DVP_FLOW_ACTION_RSS, &rnone },
					      { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action rss_key[] = { { DVP_FLOW_ACTION_RSS, &rkey },
					     { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action rss_queue[] = { { DVP_FLOW_ACTION_RSS, &r10 },
					       { DVP_FLOW_ACTION_QUEUE, &q1 },
					       { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action rss_noconf[] = { { DVP_FLOW_ACTION_RSS, NULL },
						{ DVP_FLOW_ACTION_END, NULL } };

	(void)state;
	refused(&ingress, eth_ip, rss_twice, EINVAL, "RSS queue 0 twice");
	refused(&ingress, eth_ip, rss_unknown, EINVAL, "RSS queue 2 unknown; the port has 2");
	refused(&ingress, eth_ip, rss_none, EINVAL, "RSS without queues");
	refused(&ingress, eth_ip, rss_key, ENOTSUP, "RSS with a key of its own (40 bytes)");
	refused(&ingress, eth_ip, rss_queue, EINVAL, "action 1: a second QUEUE");
	refused(&ingress, eth_ip, rss_noconf, EINVAL, "RSS without its conf");
	refused(&egress, eth_ip, to_q1, EINVAL, "only ingress");
	refused(NULL, eth_ip, to_q1, EINVAL, "attributes missing");
	refused(&ingress, ip_eth, to_q1, EINVAL, "pattern item 1: ETH after");
	refused(&ingress, bad_type, to_q1, EINVAL, "pattern item 0: type 99 unknown");
	refused(&ingress, NULL, to_q1, EINVAL, "no pattern");
	refused(&ingress, eth_ip, to_q9, EINVAL, "QUEUE 9; the port has 2 rx queues");
	refused(&ingress, eth_ip, no_fate, EINVAL, "give QUEUE, RSS or DROP");
	refused(&ingress, eth_ip, two_fates, EINVAL, "action 1: a second DROP");
	refused(&ingress, eth_ip, drop_mark, EINVAL, "MARK or FLAG with DROP");
	refused(&ingress, eth_ip, mark_flag, EINVAL, "action 2: a second FLAG");
	refused(&ingress, eth_ip, no_conf, EINVAL, "QUEUE without its conf");
	fk.refuse = -EOPNOTSUPP;
	assert_int_equal(dvp_flow_validate(fp, &ingress, eth_ip, to_q1), -EOPNOTSUPP);
	fk.refuse = 0;
	assert_int_equal(dvp_flow_count(fp), 0);
	assert_int_equal(fk.live, 0);
}

/* Specs under their masks, masks defaulting to the whole item, reach the driver. */
static void test_rule_laid_flat(void **state)
{
	struct dvp_flow_item_ipv4 ip = { .src = htonl(0x0a000001), .dst = htonl(0x0a0000ff) };
	struct dvp_flow_item_ipv4 ipm = { .src = htonl(0xffffff00), .dst = 0 };
	struct dvp_flow_item_l4 udp = { .dst_port = htons(4789) };
	struct dvp_flow_action_queue q1 = { 1 };
	struct dvp_flow_action_mark m = { 0x1234 };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_VOID },
				       { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = &ipm },
				       { .type = DVP_FLOW_ITEM_UDP, .spec = &udp },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_MARK, &m },
					 { DVP_FLOW_ACTION_QUEUE, &q1 },
					 { DVP_FLOW_ACTION_COUNT, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_attr attr = { .ingress = 1, .priority = 2 };

	(void)state;
	assert_int_equal(dvp_flow_validate(fp, &attr, pat, act), 0);
	assert_int_equal(fk.last.items, DVP_FLOW_RULE_BIT(DVP_FLOW_ITEM_ETH) |
						DVP_FLOW_RULE_BIT(DVP_FLOW_ITEM_IPV4) |
						DVP_FLOW_RULE_BIT(DVP_FLOW_ITEM_UDP));
	assert_int_equal(fk.last.actions, DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_MARK) |
						  DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_QUEUE) |
						  DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_COUNT));
	assert_int_equal(fk.last.priority, 2);
	assert_int_equal(fk.last.queue, 1);
	assert_int_equal(fk.last.mark, 0x1234);
	assert_int_equal(fk.last.ipv4.src, htonl(0x0a000000));
	assert_int_equal(fk.last.ipv4.dst, 0);
	assert_int_equal(fk.last.ipv4_mask.src, htonl(0xffffff00));
	assert_int_equal(fk.last.l4.dst_port, htons(4789));
	assert_int_equal(fk.last.l4_mask.dst_port, 0xffff);
	assert_int_equal(fk.last.l4_mask.src_port, 0xffff);
	assert_int_equal(fk.last.eth_mask.type, 0);
}

/*
 * ETH has_vlan and IPV4 fragment_offset: out of a NULL (default) mask, as
 * DPDK's default masks; under a given mask they reach the driver.
 */
static void test_vlan_frag_masks(void **state)
{
	struct dvp_flow_item_eth eth = { .type = htons(0x0800), .has_vlan = 1 };
	struct dvp_flow_item_eth ethm = { .has_vlan = 1 };
	struct dvp_flow_item_ipv4 ip = { .src = htonl(0x0a000001),
					 .fragment_offset = htons(0x2000) };
	struct dvp_flow_item_ipv4 ipm = { .fragment_offset = htons(0x3fff) };
	struct dvp_flow_action_queue q1 = { 1 };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH, .spec = &eth },
				       { .type = DVP_FLOW_ITEM_IPV4, .spec = &ip },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q1 },
					 { DVP_FLOW_ACTION_END, NULL } };

	(void)state;
	assert_int_equal(dvp_flow_validate(fp, &ingress, pat, act), 0);
	assert_int_equal(fk.last.eth_mask.has_vlan, 0);
	assert_int_equal(fk.last.eth.has_vlan, 0);
	assert_int_equal(fk.last.eth_mask.type, 0xffff);
	assert_int_equal(fk.last.ipv4_mask.fragment_offset, 0);
	assert_int_equal(fk.last.ipv4.fragment_offset, 0);
	assert_int_equal(fk.last.ipv4_mask.src, 0xffffffff);
	pat[0].mask = &ethm;
	pat[1].mask = &ipm;
	assert_int_equal(dvp_flow_validate(fp, &ingress, pat, act), 0);
	assert_int_equal(fk.last.eth_mask.has_vlan, 1);
	assert_int_equal(fk.last.eth.has_vlan, 1);
	assert_int_equal(fk.last.ipv4_mask.fragment_offset, htons(0x3fff));
	assert_int_equal(fk.last.ipv4.fragment_offset, htons(0x2000));
	assert_int_equal(fk.last.ipv4_mask.src, 0);
}

/* MARK + RSS (OVS's partial offload): types and queues reach the driver. */
static void test_rss_laid_flat(void **state)
{
	static const uint16_t q01[] = { 0, 1 }, q10[] = { 1, 0 };
	struct dvp_flow_action_mark m = { 5 };
	struct dvp_flow_action_rss rss = { .types = DVP_RSS_IP | DVP_RSS_UDP | DVP_RSS_TCP,
					   .queue_num = 2,
					   .queue = q01 };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_MARK, &m },
					 { DVP_FLOW_ACTION_RSS, &rss },
					 { DVP_FLOW_ACTION_END, NULL } };

	(void)state;
	assert_int_equal(dvp_flow_validate(fp, &ingress, pat, act), 0);
	assert_int_equal(fk.last.actions, DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_MARK) |
						  DVP_FLOW_RULE_BIT(DVP_FLOW_ACTION_RSS));
	assert_int_equal(fk.last.rss_types, DVP_RSS_IP | DVP_RSS_UDP | DVP_RSS_TCP);
	assert_int_equal(fk.last.rss_queue_num, 2);
	assert_true(fk.last.rss_in_order);
	assert_int_equal(fk.last.mark, 5);
	rss.queue = q10;
	rss.types = 0;
	assert_int_equal(dvp_flow_validate(fp, &ingress, pat, act), 0);
	assert_false(fk.last.rss_in_order);
	assert_int_equal(fk.last.rss_types, 0);
}

/* Made at start, undone at stop, counts carried on; destroy and flush. */
static void test_stop_start(void **state)
{
	struct dvp_flow_action_queue q0 = { 0 };
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q0 },
					 { DVP_FLOW_ACTION_COUNT, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_action nocount[] = { { DVP_FLOW_ACTION_DROP, NULL },
					     { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_flow_query_count qc = { 0 };
	struct dvp_flow *f, *g;

	(void)state;
	fk.creates = 0;
	f = dvp_flow_create(fp, &ingress, pat, act);
	assert_non_null(f);
	assert_int_equal(fk.live, 0); /* stopped: kept for the start */
	assert_int_equal(dvp_flow_query(fp, f, &qc), 0);
	assert_int_equal(qc.hits, 0);
	assert_int_equal(dvp_port_start(fp), 0);
	assert_int_equal(fk.live, 1);
	g = dvp_flow_create(fp, &ingress, pat, nocount);
	assert_non_null(g);
	assert_int_equal(fk.live, 2);
	assert_int_equal(dvp_flow_query(fp, g, &qc), -ENOTSUP);
	fk.hits = 5;
	assert_int_equal(dvp_flow_query(fp, f, &qc), 0);
	assert_int_equal(qc.hits, 5);
	assert_int_equal(qc.bytes, 320);
	assert_int_equal(dvp_port_stop(fp), 0);
	assert_int_equal(fk.live, 0);
	fk.hits = 0;
	assert_int_equal(dvp_flow_query(fp, f, &qc), 0);
	assert_int_equal(qc.hits, 5);
	assert_int_equal(dvp_port_start(fp), 0);
	assert_int_equal(fk.live, 2);
	assert_int_equal(fk.creates, 4);
	fk.hits = 2;
	qc.reset = true;
	assert_int_equal(dvp_flow_query(fp, f, &qc), 0);
	assert_int_equal(qc.hits, 7);
	fk.hits = 3;
	qc.reset = false;
	assert_int_equal(dvp_flow_query(fp, f, &qc), 0);
	assert_int_equal(qc.hits, 1);
	assert_int_equal(dvp_flow_count(fp), 2);
	assert_int_equal(dvp_flow_destroy(fp, g), 0);
	assert_int_equal(dvp_flow_destroy(fp, g), -EINVAL);
	assert_int_equal(fk.live, 1);
	assert_non_null(dvp_flow_create(fp, &ingress, pat, nocount));
	assert_int_equal(dvp_flow_flush(fp), 0);
	assert_int_equal(fk.live, 0);
	assert_int_equal(dvp_flow_count(fp), 0);
	/* Rules left at close are undone by it. */
	assert_non_null(dvp_flow_create(fp, &ingress, pat, nocount));
	assert_int_equal(dvp_port_stop(fp), 0);
	assert_int_equal(dvp_port_start(fp), 0);
	assert_int_equal(dvp_port_close(fp), 0);
	assert_int_equal(fk.live, 0);
}

/*
 * Isolated mode: set on a stopped port, the driver asked once a change;
 * EBUSY on a started one (but the mode it has is no change); a driver's
 * refusal keeps the mode; kept across stop and start; reset ends it.
 */
static void test_isolate(void **state)
{
	struct dvp_log_capture cap;

	(void)state;
	fk.isolate_calls = 0;
	assert_false(dvp_port_get(fp)->flow_isolated);
	assert_int_equal(dvp_flow_isolate(fp, true), 0);
	assert_true(dvp_port_get(fp)->flow_isolated);
	assert_int_equal(fk.isolate_calls, 1);
	assert_int_equal(dvp_flow_isolate(fp, true), 0);
	assert_int_equal(fk.isolate_calls, 1);
	assert_int_equal(dvp_port_start(fp), 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_flow_isolate(fp, false), -EBUSY);
	assert_int_equal(dvp_errno, EBUSY);
	assert_contains(dvp_log_capture_end(&cap), "the port is started; stop it");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_flow_isolate(fp, true), 0);
	assert_int_equal(dvp_port_stop(fp), 0);
	assert_int_equal(dvp_port_start(fp), 0);
	assert_true(dvp_port_get(fp)->flow_isolated);
	assert_int_equal(dvp_port_stop(fp), 0);
	fk.isolate_refuse = -EIO;
	assert_int_equal(dvp_flow_isolate(fp, false), -EIO);
	assert_true(dvp_port_get(fp)->flow_isolated);
	fk.isolate_refuse = 0;
	assert_int_equal(dvp_flow_isolate(fp, false), 0);
	assert_false(dvp_port_get(fp)->flow_isolated);
	assert_int_equal(fk.isolate_calls, 3);
	assert_int_equal(dvp_flow_isolate(UINT16_MAX, true), -EINVAL);
}

/* net_ring has no flow rules: ENOTSUP and one line saying so. */
static void test_enotsup(void **state)
{
	struct dvp_flow_item pat[] = { { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_DROP, NULL },
					 { DVP_FLOW_ACTION_END, NULL } };
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_flow_validate(rp, &ingress, pat, act), -ENOTSUP);
	assert_null(dvp_flow_create(rp, &ingress, pat, act));
	assert_int_equal(dvp_errno, ENOTSUP);
	assert_int_equal(dvp_flow_flush(rp), -ENOTSUP);
	assert_contains(dvp_log_capture_end(&cap), "net_ring has no flow rules");
	dvp_log_capture_free(&cap);
	/* Isolation too; leaving it off is fine anywhere. */
	assert_int_equal(dvp_port_stop(rp), 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_flow_isolate(rp, true), -ENOTSUP);
	assert_contains(dvp_log_capture_end(&cap), "net_ring cannot isolate a port");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_flow_isolate(rp, false), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bad_input),	cmocka_unit_test(test_rule_laid_flat),
		cmocka_unit_test(test_vlan_frag_masks), cmocka_unit_test(test_rss_laid_flat),
		cmocka_unit_test(test_isolate),		cmocka_unit_test(test_stop_start),
		cmocka_unit_test(test_enotsup),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
