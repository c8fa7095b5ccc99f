/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal buses: the driver registry, vdevs from --vdev and at run time,
 * software ib devices, best-match probing, -a/-b, and the ib scan of a fake
 * sysfs tree given by DVP_SYSFS_ROOT.
 */

#include "dvp_test_eal.h"

#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <dvp_bus.h>
#include <dvp_bus_ib.h>

#define NO_SYSFS "/nonexistent/dvp-test-sysfs"

static int vdev_probes, vdev_removes, ib_probes, ib_removes;
static const struct dvp_driver *last_ib_driver;

static int tvdev_probe(struct dvp_device *dev)
{
	struct dvp_ib_device ib = { .provider = "tsw", .numa_node = 0, .nports = 1 };
	const char *addib = dvp_devargs_get(dev->devargs, "addib");
	bool fail = false;

	if (dvp_devargs_get_bool(dev->devargs, "fail", false, &fail) < 0)
		return -EINVAL;
	if (fail)
		return -EIO;
	vdev_probes++;
	if (addib != NULL) {
		snprintf(ib.name, sizeof(ib.name), "%s", addib);
		ib.ports[0].port_num = 1;
		ib.sw_ctx = dev;
		return dvp_ib_bus_add_device(&ib);
	}
	return 0;
}

static int tvdev_remove(struct dvp_device *dev)
{
	const char *addib = dvp_devargs_get(dev->devargs, "addib");

	vdev_removes++;
	/* At cleanup the ib device went first (newest first): -ENOENT is expected then. */
	if (addib != NULL)
		dvp_ib_bus_remove_device(addib);
	return 0;
}

static const struct dvp_devargs_key tvdev_keys[] = {
	{ "size", "a number" },
	{ "fail", "make probe fail" },
	{ "addib", "add a software ib device of this name" },
	{ NULL, NULL },
};

static struct dvp_driver tvdev = {
	.name = "net_tvdev",
	.bus = DVP_BUS_VDEV,
	.keys = tvdev_keys,
	.probe = tvdev_probe,
	.remove = tvdev_remove,
};
DVP_DRIVER_REGISTER(net_tvdev, tvdev);

static int ib_probe(struct dvp_device *dev)
{
	ib_probes++;
	last_ib_driver = dev->driver;
	return 0;
}

static int ib_remove(struct dvp_device *dev)
{
	(void)dev;
	ib_removes++;
	return 0;
}

static int generic_match(const struct dvp_device *dev)
{
	(void)dev;
	return 1;
}

static int tsw_match(const struct dvp_device *dev)
{
	return strcmp(dev->ib->provider, "tsw") == 0 ? 10 : 0;
}

static struct dvp_driver ib_generic = {
	.name = "ib_generic",
	.bus = DVP_BUS_IB,
	.match = generic_match,
	.probe = ib_probe,
	.remove = ib_remove,
};
DVP_DRIVER_REGISTER(ib_generic, ib_generic);

static const struct dvp_devargs_key tsw_keys[] = { { "opt", "an option" }, { NULL, NULL } };

static struct dvp_driver ib_tsw = {
	.name = "ib_tsw",
	.bus = DVP_BUS_IB,
	.keys = tsw_keys,
	.match = tsw_match,
	.probe = ib_probe,
	.remove = ib_remove,
};
DVP_DRIVER_REGISTER(ib_tsw, ib_tsw);

static void reset_counts(void)
{
	vdev_probes = vdev_removes = ib_probes = ib_removes = 0;
	last_ib_driver = NULL;
}

static void test_registry(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	/* The usage text lists each driver and the keys it takes, with their help. */
	f = open_memstream(&buf, &len);
	dvp_eal_usage(f, "t");
	fclose(f);
	assert_contains(buf, "  net_tvdev (vdev bus)\n");
	assert_contains(buf, "addib                add a software ib device of this name");
	assert_contains(buf, "  ib_generic (ib bus): no keys\n");
	free(buf);
	assert_ptr_equal(dvp_driver_find("net_tvdev"), &tvdev);
	assert_ptr_equal(dvp_driver_find("ib_tsw"), &ib_tsw);
	assert_null(dvp_driver_find("nope"));
	/* Registering again is refused with a log line, and changes nothing. */
	dvp_driver_register(&tvdev);
	assert_ptr_equal(dvp_driver_find("net_tvdev"), &tvdev);
}

static void test_vdev_probe_and_remove(void **state)
{
	struct dvp_device *d;
	uint64_t size;

	(void)state;
	reset_counts();
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "4", "--vdev", "net_tvdev0,size=4"),
			 5);
	assert_int_equal(vdev_probes, 1);
	d = dvp_dev_find("net_tvdev0");
	assert_non_null(d);
	assert_ptr_equal(d->driver, &tvdev);
	assert_int_equal(d->bus, DVP_BUS_VDEV);
	assert_int_equal(dvp_devargs_get_u64(d->devargs, "size", 0, 10, 0, &size), 0);
	assert_int_equal(size, 4);
	assert_int_equal(dvp_dev_remove("net_tvdev0"), 0);
	assert_int_equal(vdev_removes, 1);
	assert_null(dvp_dev_find("net_tvdev0"));
	assert_int_equal(dvp_dev_remove("net_tvdev0"), -ENOENT);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void expect_init_fails(const char **args, const char *needle)
{
	struct dvp_log_capture cap;

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_test_eal_init_argv(args), -1);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, needle);
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_eal_init_status(), DVP_EAL_INIT_FAILED);
}

#define INIT_FAILS(needle, ...)                                                                  \
	expect_init_fails((const char *[]){ "test", "--no-huge", "-m", "4", __VA_ARGS__, NULL }, \
			  needle)

static void test_vdev_errors(void **state)
{
	(void)state;
	reset_counts();
	INIT_FAILS("net_tvdev0: unknown devargs key 'sise'; valid keys: size, fail, addib",
		   "--vdev", "net_tvdev0,sise=4");
	INIT_FAILS(
		"probe of virtual device net_tvdev0 by driver net_tvdev failed: Input/output error",
		"--vdev", "net_tvdev0,fail=1");
	INIT_FAILS("a device named net_tvdev0 exists already", "--vdev", "net_tvdev0", "--vdev",
		   "net_tvdev0");
	INIT_FAILS(
		"no virtual device driver for net_zz0; a name starts with its driver's: net_tvdev",
		"--vdev", "net_zz0");
	/* No probe succeeded, so no remove ran; nothing survives a failed init. */
	assert_int_equal(vdev_probes, 0);
	assert_int_equal(vdev_removes, 0);
	assert_null(dvp_dev_find("net_tvdev0"));
}

static void test_sw_ib_device_best_match(void **state)
{
	struct dvp_device *d;

	(void)state;
	reset_counts();
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "--vdev", "net_tvdev0,addib=tsw_0") >
		    0);
	d = dvp_dev_find("tsw_0");
	assert_non_null(d);
	assert_int_equal(d->bus, DVP_BUS_IB);
	assert_ptr_equal(d->driver, &ib_tsw); /* 10 beats the generic driver's 1 */
	assert_string_equal(d->ib->provider, "tsw");
	assert_non_null(d->ib->sw_ctx);
	assert_int_equal(ib_probes, 1);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(ib_removes, 1);
	assert_int_equal(vdev_removes, 1);
}

static void test_add_after_init_probes_at_once(void **state)
{
	struct dvp_ib_device ib = { .name = "tsw_9", .provider = "tsw", .numa_node = -1 };
	struct dvp_log_capture cap;

	(void)state;
	reset_counts();
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4") > 0);
	assert_int_equal(dvp_ib_bus_add_device(&ib), 0);
	assert_int_equal(ib_probes, 1);
	assert_ptr_equal(last_ib_driver, &ib_tsw);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_ib_bus_add_device(&ib), -EEXIST);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "a device named tsw_9 exists already");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_ib_bus_remove_device("tsw_9"), 0);
	assert_int_equal(ib_removes, 1);
	assert_int_equal(dvp_ib_bus_remove_device("tsw_9"), -ENOENT);

	assert_int_equal(dvp_vdev_create("net_tvdev1,size=2"), 0);
	assert_int_equal(dvp_vdev_create("net_tvdev1"), -EEXIST);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_vdev_create("net_tvdev2,bogus=1"), -EINVAL);
	assert_int_equal(dvp_vdev_create("net_tvdev3,fail=1"), -EIO);
	dvp_log_capture_end(&cap);
	dvp_log_capture_free(&cap);
	assert_null(dvp_dev_find("net_tvdev2"));
	assert_null(dvp_dev_find("net_tvdev3"));
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(vdev_removes, 1);
}

static void count_dev(struct dvp_device *dev, void *arg)
{
	(void)dev;
	(*(int *)arg)++;
}

static void test_block_and_allow(void **state)
{
	int n = 0;

	(void)state;
	reset_counts();
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "--vdev", "net_tvdev0,addib=tsw_a",
				      "--vdev", "net_tvdev1,addib=tsw_b", "-b", "tsw_a") > 0);
	assert_null(dvp_dev_find("tsw_a")->driver);
	assert_ptr_equal(dvp_dev_find("tsw_b")->driver, &ib_tsw);
	dvp_dev_foreach(count_dev, &n);
	assert_int_equal(n, 4);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(ib_removes, 1); /* only the probed one had a driver to call */

	reset_counts();
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "--vdev", "net_tvdev0,addib=tsw_a",
				      "--vdev", "net_tvdev1,addib=tsw_b", "-a", "tsw_b,opt=1") > 0);
	assert_null(dvp_dev_find("tsw_a")->driver);
	assert_ptr_equal(dvp_dev_find("tsw_b")->driver, &ib_tsw);
	assert_string_equal(dvp_devargs_get(dvp_dev_find("tsw_b")->devargs, "opt"), "1");
	assert_int_equal(dvp_eal_cleanup(), 0);

	INIT_FAILS("tsw_b: unknown devargs key 'bad'; valid keys: opt", "--vdev",
		   "net_tvdev1,addib=tsw_b", "-a", "tsw_b,bad=1");
}

/* A sysfs tree as the kernel shows an mlx5 HCA with two ports and an rxe device. */
static char root[64];

static void put(const char *rel, const char *text)
{
	char path[512], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, rel);
	for (slash = strchr(path + strlen(root) + 1, '/'); slash; slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	if (text == NULL) {
		mkdir(path, 0755);
		return;
	}
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "%s\n", text);
	fclose(f);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* dvp_sysfs_read_line() with NULL arguments: EINVAL and a line, not a crash. */
static void test_sysfs_read_line_args(void **state)
{
	struct dvp_log_capture cap;
	char buf[8];

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_sysfs_read_line(NULL, buf, sizeof(buf)), EINVAL);
	assert_int_equal(dvp_sysfs_read_line("/proc/self/stat", NULL, 8), EINVAL);
	assert_int_equal(dvp_sysfs_read_line("/proc/self/stat", buf, 0), EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "sysfs read line: no path");
	assert_contains(cap.buf, "sysfs read line: no buffer");
	assert_contains(cap.buf, "sysfs read line: a buffer of 0 bytes");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_sysfs_read_line("/proc/self/stat", buf, sizeof(buf)), 0);
	assert_int_equal(strlen(buf), sizeof(buf) - 1);
}

static void test_fake_sysfs_scan(void **state)
{
	const char *ib = "class/infiniband";
	struct dvp_device *d;
	char path[512];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/dvp-sysfs-XXXXXX");
	assert_non_null(mkdtemp(root));
	put("devices/pci0000:00/0000:00:03.0/numa_node", "0");
	put("devices/pci0000:00/0000:00:03.0/net/eth0", NULL);
	put("devices/pci0000:00/0000:00:03.0/net/eth1", NULL);
	put("bus/pci/drivers/mlx5_core", NULL);
	put("class/infiniband/mlx5_0/node_guid", "0002:c903:0001:2345");
	put("class/infiniband/mlx5_0/ports/1/state", "4: ACTIVE");
	put("class/infiniband/mlx5_0/ports/1/link_layer", "Ethernet");
	put("class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0", "eth0");
	put("class/infiniband/mlx5_0/ports/2/state", "1: DOWN");
	put("class/infiniband/mlx5_0/ports/2/link_layer", "InfiniBand");
	snprintf(path, sizeof(path), "%s/%s/mlx5_0/device", root, ib);
	assert_int_equal(symlink("../../../devices/pci0000:00/0000:00:03.0", path), 0);
	snprintf(path, sizeof(path), "%s/devices/pci0000:00/0000:00:03.0/driver", root);
	assert_int_equal(symlink("../../../bus/pci/drivers/mlx5_core", path), 0);
	put("class/infiniband/rxe0/node_guid", "5254:00ff:fe12:3456");
	put("class/infiniband/rxe0/ports/1/state", "4: ACTIVE");
	put("class/infiniband/rxe0/ports/1/link_layer", "Ethernet");

	reset_counts();
	setenv("DVP_SYSFS_ROOT", root, 1);
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "-b", "rxe0") > 0);
	setenv("DVP_SYSFS_ROOT", NO_SYSFS, 1);

	d = dvp_dev_find("mlx5_0");
	assert_non_null(d);
	assert_int_equal(d->bus, DVP_BUS_IB);
	assert_string_equal(d->ib->provider, "mlx5");
	assert_int_equal(d->ib->numa_node, 0);
	assert_int_equal(d->numa_node, 0);
	assert_true(d->ib->node_guid == 0x0002c90300012345ull);
	assert_int_equal(d->ib->nports, 2);
	assert_int_equal(d->ib->ports[0].port_num, 1);
	assert_int_equal(d->ib->ports[0].state, IBV_PORT_ACTIVE);
	assert_int_equal(d->ib->ports[0].link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_string_equal(d->ib->ports[0].netdev, "eth0");
	assert_int_equal(d->ib->ports[1].port_num, 2);
	assert_int_equal(d->ib->ports[1].state, IBV_PORT_DOWN);
	assert_int_equal(d->ib->ports[1].link_layer, IBV_LINK_LAYER_INFINIBAND);
	assert_string_equal(d->ib->ports[1].netdev, "eth1"); /* port 2 drives the second netdev */
	/* What the scan read, named as the apps print it. */
	assert_string_equal(dvp_ib_port_state_name(d->ib->ports[0].state), "active");
	assert_string_equal(dvp_ib_link_layer_name(d->ib->ports[0].link_layer), "Ethernet");
	assert_string_equal(dvp_ib_port_state_name(d->ib->ports[1].state), "down");
	assert_string_equal(dvp_ib_link_layer_name(d->ib->ports[1].link_layer), "InfiniBand");
	assert_ptr_equal(d->driver, &ib_generic);

	d = dvp_dev_find("rxe0");
	assert_non_null(d);
	assert_string_equal(d->ib->provider, "rxe");
	assert_int_equal(d->ib->numa_node, -1);
	assert_int_equal(d->ib->nports, 1);
	assert_null(d->driver); /* blocked */
	assert_int_equal(ib_probes, 1);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(ib_removes, 1);
	assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* -a and -b take a PCI address as DPDK users type it; --no-pci leaves the scan's devices. */
static void test_pci_address_and_no_pci(void **state)
{
	struct dvp_log_capture cap;
	const char *log;

	(void)state;
	snprintf(root, sizeof(root), "/tmp/dvp-sysfs-XXXXXX");
	assert_non_null(mkdtemp(root));
	put("class/infiniband/mlx5_3/ports/1/state", "4: ACTIVE");
	put("class/infiniband/mlx5_4/ports/1/state", "4: ACTIVE");
	put("bus/pci/devices/0000:3b:00.0/infiniband/mlx5_3", NULL);
	put("bus/pci/devices/0000:3b:00.1/infiniband/mlx5_4", NULL);
	setenv("DVP_SYSFS_ROOT", root, 1);

	/* Short form (domain 0), upper case, a trailing comma. */
	reset_counts();
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "--vdev", "net_tvdev0,addib=tsw_a",
				      "-a", "3B:00.0,", "-a", "tsw_a") > 0);
	assert_ptr_equal(dvp_dev_find("mlx5_3")->driver, &ib_generic);
	assert_null(dvp_dev_find("mlx5_4")->driver);
	assert_ptr_equal(dvp_dev_find("tsw_a")->driver, &ib_tsw);
	assert_int_equal(dvp_eal_cleanup(), 0);

	reset_counts();
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "-b", "0000:3b:00.1") > 0);
	assert_ptr_equal(dvp_dev_find("mlx5_3")->driver, &ib_generic);
	assert_null(dvp_dev_find("mlx5_4")->driver);
	assert_int_equal(dvp_eal_cleanup(), 0);

	/* A function without an ib device: one warning, nothing probed, init goes on. */
	reset_counts();
	dvp_log_capture_begin(&cap);
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "-a", "0000:af:00.0") > 0);
	log = dvp_log_capture_end(&cap);
	assert_contains(log, "-a 0000:af:00.0: PCI function 0000:af:00.0 has no ib device");
	assert_null(strstr(log, "no ib device of this name")); /* said once */
	dvp_log_capture_free(&cap);
	assert_int_equal(ib_probes, 0);
	assert_int_equal(dvp_eal_cleanup(), 0);

	/* --no-pci: no device of the scan; a vdev's software ib device still. */
	reset_counts();
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "--no-pci", "--vdev",
				      "net_tvdev0,addib=tsw_a") > 0);
	assert_null(dvp_dev_find("mlx5_3")->driver);
	assert_null(dvp_dev_find("mlx5_4")->driver);
	assert_ptr_equal(dvp_dev_find("tsw_a")->driver, &ib_tsw);
	assert_int_equal(ib_probes, 1);
	assert_int_equal(dvp_eal_cleanup(), 0);

	setenv("DVP_SYSFS_ROOT", NO_SYSFS, 1);
	assert_int_equal(nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* Port states and link layers by libibverbs' numbers, without the app including verbs. */
static void test_ib_port_names(void **state)
{
	static const struct {
		int state;
		const char *name;
	} states[] = {
		{ IBV_PORT_DOWN, "down" },
		{ IBV_PORT_INIT, "init" },
		{ IBV_PORT_ARMED, "armed" },
		{ IBV_PORT_ACTIVE, "active" },
		{ IBV_PORT_ACTIVE_DEFER, "active defer" },
		/* 0 is what the scan leaves when sysfs had no state to read. */
		{ IBV_PORT_NOP, "unknown" },
		{ IBV_PORT_ACTIVE_DEFER + 1, "unknown" },
		{ -1, "unknown" },
	};
	unsigned int i;

	(void)state;
	for (i = 0; i < DVP_DIM(states); i++)
		assert_string_equal(dvp_ib_port_state_name(states[i].state), states[i].name);
	assert_string_equal(dvp_ib_link_layer_name(IBV_LINK_LAYER_INFINIBAND), "InfiniBand");
	assert_string_equal(dvp_ib_link_layer_name(IBV_LINK_LAYER_ETHERNET), "Ethernet");
	assert_string_equal(dvp_ib_link_layer_name(IBV_LINK_LAYER_UNSPECIFIED), "unspecified");
	assert_string_equal(dvp_ib_link_layer_name(77), "unspecified");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registry),
		cmocka_unit_test(test_vdev_probe_and_remove),
		cmocka_unit_test(test_vdev_errors),
		cmocka_unit_test(test_sw_ib_device_best_match),
		cmocka_unit_test(test_add_after_init_probes_at_once),
		cmocka_unit_test(test_block_and_allow),
		cmocka_unit_test(test_sysfs_read_line_args),
		cmocka_unit_test(test_fake_sysfs_scan),
		cmocka_unit_test(test_pci_address_and_no_pci),
		cmocka_unit_test(test_ib_port_names),
	};

	/* Real RDMA devices would be offered to the test drivers too: scan no tree. */
	setenv("DVP_SYSFS_ROOT", NO_SYSFS, 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
