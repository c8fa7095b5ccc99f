/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Flow rule insertion and deletion rate (dvp_flow.h) on the mlx5 PMD over
 * sim_mlx5: the control path a flow-offloading application (OVS) lives on.
 *
 *   bench_flow_insert [rules] [rounds]
 *
 * A started port of 4 rx queues (as dpdk-test-flow-perf sets up); each
 * round creates @rules rules (10000 by default), ETH / IPV4 dst
 * 10.<i>/32 -> QUEUE i % 4, the pattern and action of flow-perf's
 * `--ingress --ether --ipv4 --queue`, then destroys them one by one. The
 * TSC times each pass; the figures are the medians over @rounds rounds (5)
 * with the spread (interquartile range over the median) beside them:
 *
 *   PERF flow_insert rules=<n> rounds=<r> insert_per_s=<> destroy_per_s=<>
 *        insert_spread_pct=<> destroy_spread_pct=<>
 *
 * The simulated device makes a rule in memory; on a ConnectX each is a
 * firmware command through the kernel, so the figures here are the PMD's
 * and lib/port's own cost per rule, an upper bound for hardware.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_flow.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

#include "bench_common.h"

#define NQ 4
/* The port of the first sim device, named after it. */
#define VDEV "sim_mlx5_0"

static void die(const char *what)
{
	fprintf(stderr, "bench_flow_insert: %s failed: %s\n", what, dvp_strerror(dvp_errno));
	exit(1);
}

/* The median of @p v (sorted here) and its spread, the IQR over the median in %. */
static double median(double *v, unsigned int n, double *spread_pct)
{
	double med = bench_median(v, n);

	*spread_pct = 100.0 * bench_spread(v, n, med);
	return med;
}

int main(int argc, char **argv)
{
	const char *eal[] = {
		argv[0], "--no-huge",	"-m",	   "256",    "-l",
		"0",	 "--log-level", "warning", "--vdev", "sim_mlx5,ports=1,mode=step"
	};
	static const struct dvp_flow_attr ingress = { .ingress = 1 };
	unsigned int rules = argc > 1 ? (unsigned int)strtoul(argv[1], NULL, 0) : 10000;
	unsigned int rounds = argc > 2 ? (unsigned int)strtoul(argv[2], NULL, 0) : 5;
	double hz, ins_med, del_med, ins_spread, del_spread, *ins, *del;
	struct dvp_flow **flows;
	struct dvp_mempool *mp;
	struct dvp_port_conf conf;
	uint16_t port;

	if (rules == 0 || rules > 1000000 || rounds == 0 || rounds > 100) {
		fprintf(stderr,
			"bench_flow_insert: rules 1..1000000 and rounds 1..100; got %s %s\n",
			argc > 1 ? argv[1] : "-", argc > 2 ? argv[2] : "-");
		return 2;
	}
	if (dvp_eal_init((int)DVP_DIM(eal), (char **)eal) < 0)
		die("EAL init");
	if (dvp_port_get_by_name(VDEV, &port) != 0)
		die("port lookup");
	mp = dvp_pktmbuf_pool_create("flow_bench", 4096, 256, 0, DVP_MBUF_DEFAULT_BUF_SIZE, 0);
	if (mp == NULL)
		die("pool");
	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = DVP_RSS_IP;
	if (dvp_port_configure(port, NQ, 1, &conf) != 0)
		die("configure");
	for (uint16_t q = 0; q < NQ; q++)
		if (dvp_rxq_setup(port, q, 256, DVP_SOCKET_ANY, NULL, mp) != 0)
			die("rx queue setup");
	if (dvp_txq_setup(port, 0, 256, DVP_SOCKET_ANY, NULL) != 0 || dvp_port_start(port) != 0)
		die("port start");
	flows = calloc(rules, sizeof(*flows));
	ins = calloc(rounds, sizeof(*ins));
	del = calloc(rounds, sizeof(*del));
	if (flows == NULL || ins == NULL || del == NULL)
		die("calloc");
	hz = (double)dvp_get_tsc_hz();
	for (unsigned int r = 0; r < rounds; r++) {
		uint64_t t0 = dvp_rdtsc(), t1;

		for (unsigned int i = 0; i < rules; i++) {
			struct dvp_flow_item_ipv4 ip = { .dst = htonl(0x0a000000u + i) };
			struct dvp_flow_item_ipv4 ipm = { .dst = 0xffffffff };
			struct dvp_flow_action_queue qa = { (uint16_t)(i % NQ) };
			struct dvp_flow_item pat[] = {
				{ .type = DVP_FLOW_ITEM_ETH },
				{ .type = DVP_FLOW_ITEM_IPV4, .spec = &ip, .mask = &ipm },
				{ .type = DVP_FLOW_ITEM_END }
			};
			struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &qa },
							 { DVP_FLOW_ACTION_END, NULL } };

			flows[i] = dvp_flow_create(port, &ingress, pat, act);
			if (flows[i] == NULL)
				die("dvp_flow_create");
		}
		t1 = dvp_rdtsc();
		ins[r] = rules / ((double)(t1 - t0) / hz);
		for (unsigned int i = 0; i < rules; i++)
			if (dvp_flow_destroy(port, flows[i]) != 0)
				die("dvp_flow_destroy");
		del[r] = rules / ((double)(dvp_rdtsc() - t1) / hz);
	}
	ins_med = median(ins, rounds, &ins_spread);
	del_med = median(del, rounds, &del_spread);
	printf("PERF flow_insert rules=%u rounds=%u insert_per_s=%.0f destroy_per_s=%.0f "
	       "insert_spread_pct=%.1f destroy_spread_pct=%.1f\n",
	       rules, rounds, ins_med, del_med, ins_spread, del_spread);
	free(flows);
	free(ins);
	free(del);
	if (dvp_port_stop(port) != 0 || dvp_port_close(port) != 0)
		die("port close");
	if (dvp_pktmbuf_pool_in_use(mp) != 0) {
		fprintf(stderr, "bench_flow_insert: %u mbufs still in use at the end\n",
			dvp_pktmbuf_pool_in_use(mp));
		return 1;
	}
	dvp_mempool_free(mp);
	dvp_eal_cleanup();
	return 0;
}
