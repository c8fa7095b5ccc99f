/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-info: what this build is and which RDMA devices the system has.
 * (The EAL issue grows it into the full device and lcore report.)
 */

#include <stdio.h>
#include <stdlib.h>

#include <infiniband/verbs.h>

#include <dvp_eal.h>

int main(void)
{
	struct ibv_device **list;
	int i, n = 0;

	printf("%s\n", dvp_version());
	list = ibv_get_device_list(&n);
	if (list == NULL) {
		printf("RDMA devices: none (%s)\n", dvp_strerror(errno));
		return 0;
	}
	printf("RDMA devices: %d\n", n);
	for (i = 0; i < n; i++)
		printf("  %s\n", ibv_get_device_name(list[i]));
	if (n == 0)
		printf("  (none: the simulated HCA is used, see doc/sim.md)\n");
	ibv_free_device_list(list);
	return 0;
}
