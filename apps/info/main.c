/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-info: initialise the EAL with the user's arguments and print what it
 * found: lcores, memory per NUMA node, and devices on each bus.
 * (A placeholder the apps issue grows into the full report.)
 *
 *   dvp-info [EAL options]          e.g. dvp-info --no-huge -l 0-1
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include <dvp_bus.h>
#include <dvp_eal.h>
#include <dvp_lcore.h>
#include <dvp_malloc.h>

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

	printf("memory: %s\n", dvp_eal_has_hugepages() ? "hugepages" : "anonymous (--no-huge)");
	for (n = 0; n < dvp_socket_count(); n++) {
		if (dvp_malloc_get_socket_stats((int)n, &st) != 0)
			continue;
		printf("  node %u: %.1f MB mapped, %.1f MB free, %zu KB pages\n", n,
		       (double)st.heap_totalsz_bytes / (1 << 20),
		       (double)st.heap_freesz_bytes / (1 << 20), st.hugepage_sz >> 10);
	}
}

static const char *link_layer_name(int ll)
{
	switch (ll) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "unspecified";
	}
}

static void print_device(struct dvp_device *dev, void *arg)
{
	const struct dvp_ib_device *ib = dev->ib;
	unsigned int p;

	(*(unsigned int *)arg)++;
	printf("  %s: %s bus, node %d, driver %s\n", dev->name,
	       dev->bus == DVP_BUS_IB ? "ib" : "vdev", dev->numa_node,
	       dev->driver ? dev->driver->name : "(none)");
	if (ib == NULL)
		return;
	printf("    provider %s, node GUID %016" PRIx64 "%s\n", ib->provider, ib->node_guid,
	       ib->ibv_dev ? "" : (ib->sw_ops ? ", software device" : ", not in libibverbs"));
	for (p = 0; p < ib->nports; p++)
		printf("    port %u: %s, %s%s%s\n", ib->ports[p].port_num,
		       ibv_port_state_str((enum ibv_port_state)ib->ports[p].state),
		       link_layer_name(ib->ports[p].link_layer), ib->ports[p].netdev[0] ? ", " : "",
		       ib->ports[p].netdev);
}

int main(int argc, char **argv)
{
	unsigned int ndev = 0;
	int n;

	n = dvp_eal_init(argc, argv);
	if (n < 0) {
		if (dvp_eal_init_status() == DVP_EAL_INIT_HELP_SHOWN)
			return 0;
		fprintf(stderr, "dvp-info: cannot initialise the EAL: %s\n",
			dvp_strerror(dvp_errno));
		return 1;
	}
	/* argv[n] is the program name again; what follows is ours. */
	if (n + 1 < argc) {
		fprintf(stderr,
			"dvp-info: unexpected argument '%s'; dvp-info takes EAL options only (see -h)\n",
			argv[n + 1]);
		dvp_eal_cleanup();
		return 2;
	}
	printf("%s\n", dvp_version());
	print_lcores();
	print_memory();
	printf("devices:\n");
	dvp_dev_foreach(print_device, &ndev);
	if (ndev == 0)
		printf("  none (no RDMA device found; --vdev creates virtual ones)\n");
	return dvp_eal_cleanup() == 0 ? 0 : 1;
}
