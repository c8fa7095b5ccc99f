/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/port's VLAN filter (port_offload.c) against net_ring's ops with a
 * filter of the test's beside them: what lib/port asks the driver, in what
 * order, with its table as the driver is to see it; errors named.
 */

#include "test_port_helpers.h"

#include <dvp_port_driver.h>

static uint16_t c1; /* net_ring1, cabled to net_ring2 */

static int setup(void **state)
{
	uint16_t lo, c2;

	(void)state;
	return tp_ring_trio_init(&lo, &c1, &c2);
}

/*
 * The VLAN filter: a driver that has one, as net_ring's ops with a VLAN
 * filter beside them (the test's own), recording what lib/port asks.
 */
static struct dvp_port_ops vf_ops;
static const struct dvp_port_ops *vf_ring_ops;
static int vf_calls, vf_last_id, vf_last_on, vf_fail, vf_offload_calls;
static bool vf_seen_in_table;

static int vf_info_get(struct dvp_port *port, struct dvp_port_info *info)
{
	int ret = vf_ring_ops->info_get(port, info);

	info->rx_offload_capa |= DVP_RX_OFFLOAD_VLAN_FILTER;
	return ret;
}

static int vf_filter_set(struct dvp_port *port, uint16_t vlan_id, bool on)
{
	vf_calls++;
	vf_last_id = vlan_id;
	vf_last_on = on;
	/* The table is as it is to be when the driver applies it. */
	vf_seen_in_table = dvp_port_vlan_filter_has(port, vlan_id) == on;
	return vf_fail;
}

static int vf_offload_set(struct dvp_port *port, bool on)
{
	vf_offload_calls++;
	assert_int_equal((port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER) != 0, on);
	return vf_fail;
}

static void test_vlan_filter(void **state)
{
	struct dvp_port_conf conf = { .rxmode.offloads = DVP_RX_OFFLOAD_VLAN_FILTER };
	struct dvp_port *port = dvp_port_get(c1);
	struct dvp_log_capture cap;
	struct dvp_port_info info;

	(void)state;
	/* net_ring filters nothing: refused with one line, nothing kept. */
	tp_port_setup(c1, 1, NULL);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_vlan_filter(c1, 100, true), -ENOTSUP);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, true), -ENOTSUP);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "VLAN filter: net_ring filters no VLANs");
	assert_contains(cap.buf, "VLAN filter offload: net_ring filters no VLANs");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 0);

	vf_ring_ops = port->ops;
	vf_ops = *port->ops;
	vf_ops.info_get = vf_info_get;
	vf_ops.vlan_filter_set = vf_filter_set;
	vf_ops.vlan_filter_offload_set = vf_offload_set;
	port->ops = &vf_ops;
	assert_int_equal(dvp_port_info_get(c1, &info), 0);
	assert_true(info.rx_offload_capa & DVP_RX_OFFLOAD_VLAN_FILTER);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_vlan_filter(c1, 4096, true), -EINVAL);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 4096), -EINVAL);
	/* Configured without the offload: as DPDK, no table change. */
	assert_int_equal(dvp_port_vlan_filter(c1, 100, true), -ENOSYS);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "VLAN filter: VLAN id 4096 out of range [0, 4095]");
	assert_contains(cap.buf, "VLAN filter: DVP_RX_OFFLOAD_VLAN_FILTER is off");
	dvp_log_capture_free(&cap);
	assert_int_equal(vf_calls, 0);

	/* Turned on at run time; then 0 and 4095, the ends of the range. */
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, true), 0);
	assert_int_equal(vf_offload_calls, 1);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, true), 0);
	assert_int_equal(vf_offload_calls, 1);
	assert_int_equal(dvp_port_vlan_filter(c1, 0, true), 0);
	assert_int_equal(dvp_port_vlan_filter(c1, 4095, true), 0);
	assert_int_equal(dvp_port_vlan_filter(c1, 100, true), 0);
	assert_int_equal(vf_calls, 3);
	assert_int_equal(vf_last_id, 100);
	assert_int_equal(vf_last_on, 1);
	assert_true(vf_seen_in_table);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 0), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 4095), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 101), 0);
	assert_int_equal(dvp_port_vlan_filter_count(port), 3);
	assert_int_equal(dvp_port_vlan_filter(c1, 0, false), 0);
	assert_true(vf_seen_in_table);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 0), 0);

	/* A refusal leaves the table and the offloads as they were. */
	vf_fail = -ENOSPC;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_vlan_filter(c1, 200, true), -ENOSPC);
	assert_int_equal(dvp_port_vlan_filter(c1, 100, false), -ENOSPC);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, false), -ENOSPC);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "VLAN filter add VLAN 200: net_ring refused");
	dvp_log_capture_free(&cap);
	vf_fail = 0;
	assert_int_equal(dvp_port_vlan_filter_get(c1, 200), 0);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 1);
	assert_true(port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER);

	/* The table lasts across start, stop and a new configure. */
	assert_int_equal(dvp_port_start(c1), 0);
	assert_int_equal(dvp_port_vlan_filter(c1, 300, true), 0);
	assert_int_equal(dvp_port_stop(c1), 0);
	tp_port_setup(c1, 1, &conf);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 100), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 300), 1);
	assert_int_equal(dvp_port_vlan_filter_get(c1, 4095), 1);
	assert_int_equal(dvp_port_vlan_filter_count(port), 3);
	assert_int_equal(dvp_port_vlan_filter_offload_set(c1, false), 0);
	assert_false(port->conf.rxmode.offloads & DVP_RX_OFFLOAD_VLAN_FILTER);
	assert_int_equal(dvp_port_vlan_filter(c1, 300, false), -ENOSYS);
	port->ops = vf_ring_ops;
	memset(port->vlan_filter, 0, sizeof(port->vlan_filter));

	/* A port not configured yet takes the table; the offload waits for configure. */
	{
		struct dvp_port *p8;
		uint16_t id8;

		assert_int_equal(dvp_vdev_create("net_ring8"), 0);
		id8 = tp_port("net_ring8");
		p8 = dvp_port_get(id8);
		p8->ops = &vf_ops;
		assert_int_equal(dvp_port_vlan_filter(id8, 100, true), 0);
		assert_int_equal(dvp_port_vlan_filter_get(id8, 100), 1);
		dvp_log_capture_begin(&cap);
		assert_int_equal(dvp_port_vlan_filter_offload_set(id8, true), -EINVAL);
		dvp_log_capture_end(&cap);
		assert_contains(cap.buf, "VLAN filter offload: the port is not configured");
		dvp_log_capture_free(&cap);
		tp_port_setup(id8, 1, &conf);
		assert_int_equal(dvp_port_vlan_filter_get(id8, 100), 1);
		assert_int_equal(dvp_port_vlan_filter(id8, 100, false), 0);
		p8->ops = vf_ring_ops;
		assert_int_equal(dvp_dev_remove("net_ring8"), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_vlan_filter, tp_stop_all),
	};

	return cmocka_run_group_tests(tests, setup, tp_teardown);
}
