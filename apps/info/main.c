/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-info: initialise the EAL with the user's arguments and report what
 * it holds, as ibv_devinfo and dpdk-devbind --status together: the lcores,
 * the memory per NUMA node, every device on every bus (RDMA devices, the
 * simulated HCA, virtual devices) with the driver that took it, and every
 * port with its link, MAC, queue and descriptor limits, offloads, RSS and
 * interrupt capabilities.
 *
 *   dvp-info [EAL options] [-- --json]        e.g. dvp-info --no-huge -l 0-1
 */

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_bus.h>
#include <dvp_bus_ib.h>
#include <dvp_eal.h>
#include <dvp_lcore.h>
#include <dvp_malloc.h>
#include <dvp_parse.h>
#include <dvp_port.h>

#include "app_args.h"
#include "app_eal.h"
#include "info.h"

static const struct info_flag rx_offloads[] = {
	{ DVP_RX_OFFLOAD_VLAN_STRIP, "vlan_strip" },
	{ DVP_RX_OFFLOAD_IPV4_CKSUM, "ipv4_cksum" },
	{ DVP_RX_OFFLOAD_UDP_CKSUM, "udp_cksum" },
	{ DVP_RX_OFFLOAD_TCP_CKSUM, "tcp_cksum" },
	{ DVP_RX_OFFLOAD_VLAN_FILTER, "vlan_filter" }, /* a port offload, none of a queue */
	{ DVP_RX_OFFLOAD_SCATTER, "scatter" },
	{ DVP_RX_OFFLOAD_TIMESTAMP, "timestamp" },
	{ DVP_RX_OFFLOAD_KEEP_CRC, "keep_crc" },
	{ DVP_RX_OFFLOAD_RSS_HASH, "rss_hash" },
	{ 0, NULL },
};

static const struct info_flag tx_offloads[] = {
	{ DVP_TX_OFFLOAD_VLAN_INSERT, "vlan_insert" },
	{ DVP_TX_OFFLOAD_IPV4_CKSUM, "ipv4_cksum" },
	{ DVP_TX_OFFLOAD_UDP_CKSUM, "udp_cksum" },
	{ DVP_TX_OFFLOAD_TCP_CKSUM, "tcp_cksum" },
	{ DVP_TX_OFFLOAD_TCP_TSO, "tcp_tso" },
	{ DVP_TX_OFFLOAD_MT_LOCKFREE, "mt_lockfree" },
	{ DVP_TX_OFFLOAD_MULTI_SEGS, "multi_segs" },
	{ DVP_TX_OFFLOAD_MBUF_FAST_FREE, "mbuf_fast_free" },
	{ 0, NULL },
};

static const struct info_flag rss_fields[] = {
	{ DVP_RSS_IPV4, "ipv4" },
	{ DVP_RSS_FRAG_IPV4, "frag_ipv4" },
	{ DVP_RSS_NONFRAG_IPV4_TCP, "ipv4_tcp" },
	{ DVP_RSS_NONFRAG_IPV4_UDP, "ipv4_udp" },
	{ DVP_RSS_NONFRAG_IPV4_OTHER, "ipv4_other" },
	{ DVP_RSS_IPV6, "ipv6" },
	{ DVP_RSS_FRAG_IPV6, "frag_ipv6" },
	{ DVP_RSS_NONFRAG_IPV6_TCP, "ipv6_tcp" },
	{ DVP_RSS_NONFRAG_IPV6_UDP, "ipv6_udp" },
	{ DVP_RSS_NONFRAG_IPV6_OTHER, "ipv6_other" },
	{ DVP_RSS_L2_PAYLOAD, "l2_payload" },
	{ DVP_RSS_IPV6_EX, "ipv6_ex" },
	{ DVP_RSS_IPV6_TCP_EX, "ipv6_tcp_ex" },
	{ DVP_RSS_IPV6_UDP_EX, "ipv6_udp_ex" },
	{ DVP_RSS_L4_DST_ONLY, "l4_dst_only" },
	{ DVP_RSS_L4_SRC_ONLY, "l4_src_only" },
	{ DVP_RSS_L3_DST_ONLY, "l3_dst_only" },
	{ DVP_RSS_L3_SRC_ONLY, "l3_src_only" },
	{ 0, NULL },
};

static const struct info_flag intr_capa[] = {
	{ DVP_PORT_INTR_RXQ, "rxq" },
	{ DVP_PORT_INTR_RXQ_SOLICITED, "rxq_solicited" },
	{ DVP_PORT_INTR_LSC, "lsc" },
	{ DVP_PORT_INTR_RMV, "rmv" },
	{ DVP_PORT_INTR_QUEUE_ERROR, "queue_error" },
	{ 0, NULL },
};

const struct info_flag *const info_rx_offloads = rx_offloads;
const struct info_flag *const info_tx_offloads = tx_offloads;
const struct info_flag *const info_rss_fields = rss_fields;
const struct info_flag *const info_intr_capa = intr_capa;

/* "ib bus" devices have a provider; the sim's are software devices. */
const char *info_bus_name(const struct dvp_device *dev)
{
	return dev->bus == DVP_BUS_IB ? "ib" : "vdev";
}

/* Text: the flags set in @p v, space separated, or "none". */
void info_flags_text(FILE *f, const struct info_flag *flags, uint64_t v)
{
	bool any = false;

	for (; flags->name != NULL; flags++) {
		if (v & flags->bit) {
			fprintf(f, "%s%s", any ? " " : "", flags->name);
			any = true;
		}
	}
	if (!any)
		fprintf(f, "none");
}

static void print_lcores(void)
{
	unsigned int i;

	printf("lcores: %u, main lcore %u\n", dvp_lcore_count(), dvp_get_main_lcore());
	DVP_LCORE_FOREACH(i) {
		printf("  lcore %u: CPU %d, node %d%s\n", i, dvp_lcore_to_cpu_id(i),
		       dvp_lcore_to_socket_id(i), i == dvp_get_main_lcore() ? " (main)" : "");
	}
}

static void print_memory(void)
{
	struct dvp_malloc_socket_stats st;
	unsigned int n;

	printf("memory: %s\n",
	       dvp_eal_has_hugepages() ? "hugepages" : "ordinary pages in memfds (--no-huge)");
	for (n = 0; n < dvp_socket_count(); n++) {
		if (dvp_malloc_get_socket_stats((int)n, &st) != 0)
			continue;
		printf("  node %u: %.1f MB mapped, %.1f MB free, %zu KB pages\n", n,
		       (double)st.heap_totalsz_bytes / (1 << 20),
		       (double)st.heap_freesz_bytes / (1 << 20), st.hugepage_sz >> 10);
	}
}

static void print_device(struct dvp_device *dev, void *arg)
{
	const struct dvp_ib_device *ib = dev->ib;
	unsigned int p;

	(*(unsigned int *)arg)++;
	printf("  %s: %s bus, node %d, driver %s\n", dev->name, info_bus_name(dev), dev->numa_node,
	       dev->driver ? dev->driver->name : "(none)");
	if (ib == NULL)
		return;
	printf("    provider %s, node GUID %016" PRIx64 "%s\n", ib->provider, ib->node_guid,
	       ib->ibv_dev ? "" : (ib->sw_ops ? ", software device" : ", not in libibverbs"));
	for (p = 0; p < ib->nports; p++)
		printf("    port %u: %s, %s%s%s\n", ib->ports[p].port_num,
		       dvp_ib_port_state_name(ib->ports[p].state),
		       dvp_ib_link_layer_name(ib->ports[p].link_layer),
		       ib->ports[p].netdev[0] ? ", " : "", ib->ports[p].netdev);
}

static void print_desc(const char *dir, uint16_t nq, uint16_t maxq, const struct dvp_desc_lim *l,
		       uint16_t def)
{
	printf("    %s: %u of %u queues; descriptors %u..%u", dir, nq, maxq, l->nb_min, l->nb_max);
	if (l->nb_align > 1)
		printf(" (multiple of %u)", l->nb_align);
	printf(", default %u\n", def);
}

static void print_port(uint16_t p)
{
	struct dvp_port_info in;
	struct dvp_ether_addr mac;
	struct dvp_link link;
	char macs[24] = "?", links[64] = "link unknown", name[64] = "";
	uint16_t mtu = 0;

	dvp_port_get_name(p, name, sizeof(name));
	if (dvp_port_info_get(p, &in) != 0) {
		printf("  port %u: %s: cannot read its information\n", p, name);
		return;
	}
	if (dvp_macaddr_get(p, &mac) == 0)
		dvp_ether_format_addr(macs, sizeof(macs), &mac);
	if (dvp_link_get(p, &link) == 0)
		dvp_link_to_str(links, sizeof(links), &link);
	dvp_port_mtu_get(p, &mtu);
	printf("  port %u: %s, driver %s, device %s, node %d\n", p, name, in.driver_name,
	       in.device_name, in.numa_node);
	printf("    MAC %s, %s, MTU %u (%u..%u), max frame %u, fastest link %u Mb/s\n", macs, links,
	       mtu, in.min_mtu, in.max_mtu, in.max_rx_pktlen, in.speed_capa_mbps);
	print_desc("rx", in.nb_rx_queues, in.max_rx_queues, &in.rx_desc_lim, in.default_rxq_size);
	print_desc("tx", in.nb_tx_queues, in.max_tx_queues, &in.tx_desc_lim, in.default_txq_size);
	printf("    rx offloads: ");
	info_flags_text(stdout, rx_offloads, in.rx_offload_capa);
	printf("\n    tx offloads: ");
	info_flags_text(stdout, tx_offloads, in.tx_offload_capa);
	if (in.hash_key_size != 0) {
		printf("\n    RSS: %u-byte key, %u entries: ", in.hash_key_size, in.reta_size);
		info_flags_text(stdout, rss_fields, in.rss_hf_capa);
	} else {
		printf("\n    RSS: none");
	}
	printf("\n    interrupts: ");
	info_flags_text(stdout, intr_capa, in.intr_capa);
	printf("\n");
}

static void print_text(void)
{
	unsigned int ndev = 0;
	uint16_t p;

	printf("%s\n", dvp_version());
	print_lcores();
	print_memory();
	printf("devices:\n");
	dvp_dev_foreach(print_device, &ndev);
	if (ndev == 0)
		printf("  none (no RDMA device found; --vdev creates virtual ones)\n");
	printf("ports:\n");
	DVP_PORT_FOREACH(p)
		print_port(p);
	if (dvp_port_count() == 0)
		printf("  none (no driver made a port of the devices above)\n");
}

static void usage(FILE *f, const char *prg)
{
	fprintf(f,
		"Usage: %s [EAL options] [-- options]\n"
		"\n"
		"Initialise the EAL with the EAL options given and report what it holds:\n"
		"lcores, memory per NUMA node, every device on the ib and vdev buses with the\n"
		"driver that took it (RDMA devices, the simulated HCA, virtual devices), and\n"
		"every port with its link, MAC, MTU, queue and descriptor limits, offloads,\n"
		"RSS and interrupt capabilities.\n"
		"\n"
		"Options:\n"
		"  --json      One JSON object on stdout instead of text.\n"
		"  --check     The first-contact check instead: each port sends to the next\n"
		"              (or, alone, to itself) through every path it runs (rx, tx,\n"
		"              rx interrupts, async events), per path what was sent, received\n"
		"              and counted, and PASS or FAIL. Exit status 1 if any failed.\n"
		"  --frames N  Frames per port pair for --check (default 10000).\n"
		"  --flap      With --check, take each receiving port's netdev down and up\n"
		"              (needs CAP_NET_ADMIN; only on a port that may go down).\n"
		"  --rx-buf N  With --check, receive into buffers of N bytes (64..9216) with\n"
		"              rx scatter: frames longer than N arrive as chains of mbufs.\n"
		"  -h, --help  Print this help.\n"
		"\n"
		"Examples:\n"
		"  %s --no-huge                                 what this machine has\n"
		"  %s --no-huge --vdev sim_mlx5,ports=2         with a simulated HCA\n"
		"  %s --no-huge -- --json | python3 -m json.tool\n"
		"  %s --no-huge -a mlx5_0 -a mlx5_1 -- --check   two ports cabled together\n"
		"\n"
		"EAL options: %s -h. Exit status: 0, 1 when the EAL cannot start, 2 for bad\n"
		"arguments. See doc/apps.md.\n",
		prg, prg, prg, prg, prg, prg);
}

#define PRG "dvp-info"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "check", no_argument, NULL, 'c' },
		{ "frames", required_argument, NULL, 'n' },
		{ "flap", no_argument, NULL, 'f' },
		{ "rx-buf", required_argument, NULL, 'b' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool json = false, check = false, flap = false;
	uint64_t frames = 10000, rx_buf = 0;
	int n, opt, status = 0;

	n = app_eal_init(PRG, argc, argv, &status);
	if (n < 0)
		return status;
	/* argv[n] is the program name again; what follows is ours. */
	argc -= n;
	argv += n;
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'c':
			check = true;
			break;
		case 'f':
			flap = true;
			break;
		case 'n':
			if (dvp_parse_u64(optarg, 1, 100000000, &frames) != 0) {
				fprintf(stderr, PRG ": --frames %s: give 1..100000000\n", optarg);
				status = 2;
				goto hint;
			}
			break;
		case 'b':
			if (dvp_parse_u64(optarg, 64, 9216, &rx_buf) != 0) {
				fprintf(stderr, PRG ": --rx-buf %s: give 64..9216 bytes\n", optarg);
				status = 2;
				goto hint;
			}
			break;
		case 'h':
			usage(stdout, PRG);
			goto out;
		default:
			app_option_refused(
				PRG, argv, opt, opts,
				"--json, --check, --frames N, --flap, --rx-buf N, --help");
			status = 2;
			goto out;
		}
	}
	if (optind < argc) {
		fprintf(stderr,
			PRG ": unexpected argument '%s'; " PRG " takes EAL options, and --json, "
			    "--check, --frames, --flap, --rx-buf after '--'\n",
			argv[optind]);
		status = 2;
		goto hint;
	}
	if (check)
		status = info_check(frames, flap, json, (uint32_t)rx_buf);
	else if (json)
		info_print_json(stdout);
	else
		print_text();
	goto out;
hint:
	fprintf(stderr, "Try '" PRG " -- --help' for more information.\n");
out:
	if (dvp_eal_cleanup() != 0 && status == 0)
		status = 1;
	return status;
}
