/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/common/mlx5's glue tables: both implementations fill every entry
 * (a PMD may call any), and the verbs table's port facts are read from the
 * netdev's sysfs as the kernel lays it out (a fake tree under
 * DVP_SYSFS_ROOT, since these machines have no mlx5 adapter).
 */

#include "dvp_test.h"

#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mlx5_glue.h"
#include "sim_consumer.h"

static void check_complete(const struct mlx5_glue *g)
{
	/* Everything after the name is a function pointer. */
	const size_t n = (sizeof(*g) - sizeof(g->name)) / sizeof(void (*)(void));
	void (*const *fn)(void) =
		(void (*const *)(void))(const void *)((const char *)g + sizeof(g->name));

	assert_non_null(g->name);
	for (size_t i = 0; i < n; i++)
		if (fn[i] == NULL)
			fail_msg("%s glue: entry %zu of %zu is NULL", g->name, i, n);
}

static void test_tables_complete(void **state)
{
	(void)state;
	check_complete(&mlx5_glue_verbs);
	check_complete(sim_mlx5_glue());
	assert_string_equal(mlx5_glue_verbs.name, "verbs");
}

static char root[] = "/tmp/dvp-test-sysfs-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[512], dir[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	snprintf(dir, sizeof(dir), "%s", path);
	for (slash = dir + strlen(root) + 1; (slash = strchr(slash, '/')) != NULL; slash++) {
		*slash = '\0';
		mkdir(dir, 0755);
		*slash = '/';
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_verbs_port_net_from_sysfs(void **state)
{
	struct ibv_device dev;
	struct ibv_context ctx;
	struct mlx5_glue_port_net net;
	struct dvp_log_capture cap;
	char cmd[600];

	(void)state;
	assert_non_null(mkdtemp(root));
	/* Port 1: a RoCE port names its netdev; port 2: found by dev_port. */
	put("class/infiniband/mlx5_7/ports/1/gid_attrs/ndevs/0", "enp1s0f0\n");
	put("class/infiniband/mlx5_7/device/net/enp1s0f1/dev_port", "1\n");
	put("class/net/enp1s0f0/address", "b8:ce:f6:01:02:03\n");
	put("class/net/enp1s0f0/mtu", "9000\n");
	put("class/net/enp1s0f0/operstate", "up\n");
	put("class/net/enp1s0f0/speed", "100000\n");
	put("class/net/enp1s0f1/address", "b8:ce:f6:01:02:04\n");
	put("class/net/enp1s0f1/mtu", "1500\n");
	put("class/net/enp1s0f1/operstate", "down\n");
	put("class/net/enp1s0f1/speed", "-1\n");
	setenv("DVP_SYSFS_ROOT", root, 1);
	memset(&dev, 0, sizeof(dev));
	snprintf(dev.name, sizeof(dev.name), "mlx5_7");
	memset(&ctx, 0, sizeof(ctx));
	ctx.device = &dev;

	assert_int_equal(mlx5_glue_verbs.get_port_net(&ctx, 1, &net), 0);
	assert_string_equal(net.ifname, "enp1s0f0");
	assert_memory_equal(net.mac, "\xb8\xce\xf6\x01\x02\x03", 6);
	assert_int_equal(net.mtu, 9000);
	assert_true(net.link_up);
	assert_int_equal(net.speed_mbps, 100000);
	assert_int_equal(mlx5_glue_verbs.get_port_net(&ctx, 2, &net), 0);
	assert_string_equal(net.ifname, "enp1s0f1");
	assert_memory_equal(net.mac, "\xb8\xce\xf6\x01\x02\x04", 6);
	assert_false(net.link_up);
	assert_int_equal(net.speed_mbps, 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(mlx5_glue_verbs.get_port_net(&ctx, 3, &net), ENODEV);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "mlx5_7 port 3: no Ethernet netdev");
	dvp_log_capture_free(&cap);
	unsetenv("DVP_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_complete),
		cmocka_unit_test(test_verbs_port_net_from_sysfs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
