/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's faults, each by devargs and by API, as the driver sees them:
 * link flaps (PORT_ERR then PORT_ACTIVE, frames lost meanwhile), device
 * fatal (DEVICE_FATAL twice, nothing runs, creates fail), a stalled CQ
 * overrunning (CQ_ERR), bad-lkey completions, wire drops; and devargs
 * errors, each one line naming the key and what is valid.
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

struct fix {
	struct sim_fix x; /* first: sim_fix_new() allocates the whole */
	uint8_t frame[128];
};

static struct fix *fix_open(const char *args, int cq_entries)
{
	const struct sim_fix_conf c = { .args = args,
					.nrxq = 1,
					.rx_wqe = 64,
					.rx_buf = 256,
					.rx_post = 64,
					.rx_cq = cq_entries };
	struct fix *f = sim_fix_new(sizeof(*f), &c);

	sc_udp_frame(f->frame, 60, f->x.mac, 1, 2, 3, 4);
	return f;
}

static void fix_close(struct fix *f)
{
	sim_fix_free(&f->x, true);
}

static int inject(struct fix *f)
{
	return sim_mlx5_inject(f->x.s.sim, 0, f->frame, 60);
}

static void expect_async(struct fix *f, enum ibv_event_type type, int port)
{
	struct ibv_async_event ev;

	assert_int_equal(f->x.s.g->get_async_event(f->x.s.ctx, &ev), 0);
	assert_int_equal(ev.event_type, type);
	if (port > 0)
		assert_int_equal(ev.element.port_num, port);
	f->x.s.g->ack_async_event(&ev);
}

static void expect_no_async(struct fix *f)
{
	struct ibv_async_event ev;

	assert_int_equal(f->x.s.g->get_async_event(f->x.s.ctx, &ev), -1);
	assert_int_equal(errno, EAGAIN);
}

static enum ibv_port_state port_state(struct fix *f, uint8_t port)
{
	struct ibv_port_attr pa;

	assert_int_equal(f->x.s.g->query_port(f->x.s.ctx, port, &pa), 0);
	return pa.state;
}

static void flap_sequence(struct fix *f, uint64_t at_ms, uint64_t down_ms)
{
	struct mlx5_glue_port_net net;

	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sim_mlx5_clock_advance(f->x.s.sim, (at_ms - 1) * 1000000), 0);
	sim_mlx5_step(f->x.s.sim);
	expect_no_async(f);
	assert_int_equal(sim_mlx5_clock_advance(f->x.s.sim, 1000000), 0);
	sim_mlx5_step(f->x.s.sim);
	expect_async(f, IBV_EVENT_PORT_ERR, 1);
	assert_int_equal(port_state(f, 1), IBV_PORT_DOWN);
	assert_int_equal(f->x.s.g->get_port_net(f->x.s.ctx, 1, &net), 0);
	assert_false(net.link_up);
	assert_int_equal(inject(f), SIM_MLX5_RX_LINK_DOWN);
	assert_int_equal(sim_mlx5_clock_advance(f->x.s.sim, down_ms * 1000000), 0);
	sim_mlx5_step(f->x.s.sim);
	expect_async(f, IBV_EVENT_PORT_ACTIVE, 1);
	assert_int_equal(port_state(f, 1), IBV_PORT_ACTIVE);
	assert_int_equal(inject(f), SIM_MLX5_RX_DELIVERED);
	expect_no_async(f);
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 1);
}

static void test_link_flap_devargs(void **state)
{
	struct fix *f = fix_open("mode=step,clock=virtual,flap=[at:10ms,down:5ms]", 64);

	(void)state;
	flap_sequence(f, 10, 5);
	fix_close(f);
}

static void test_link_flap_api(void **state)
{
	struct fix *f = fix_open("mode=step,clock=virtual,ports=2", 64);

	(void)state;
	assert_int_equal(sim_mlx5_fault_link_flap(f->x.s.sim, 0, 3000000, 2000000), 0);
	flap_sequence(f, 3, 2);
	assert_int_equal(sim_mlx5_fault_link_flap(f->x.s.sim, 0, 1, 0), -EINVAL);
	assert_int_equal(port_state(f, 2), IBV_PORT_ACTIVE); /* the other port never moved */
	fix_close(f);
}

static void fatal_checks(struct fix *f)
{
	struct ibv_cq *cq;

	expect_async(f, IBV_EVENT_DEVICE_FATAL, 0);
	expect_async(f, IBV_EVENT_DEVICE_FATAL, 0); /* twice, as real stacks can */
	expect_no_async(f);
	assert_int_equal(inject(f), SIM_MLX5_RX_DEVICE_FATAL);
	cq = f->x.s.g->create_cq(f->x.s.ctx, 16, NULL, NULL, 0);
	assert_null(cq);
	assert_int_equal(errno, EIO);
	assert_int_equal(port_state(f, 1), IBV_PORT_DOWN);
	/* Destroys still work: fix_close tears everything down. */
}

static void test_fatal_api(void **state)
{
	struct fix *f = fix_open("mode=step", 64);

	(void)state;
	assert_int_equal(sim_mlx5_fault_fatal(f->x.s.sim), 0);
	fatal_checks(f);
	fix_close(f);
}

static void test_fatal_devargs(void **state)
{
	struct fix *f = fix_open("mode=step,clock=virtual,fatal=2ms", 64);

	(void)state;
	sim_mlx5_step(f->x.s.sim);
	expect_no_async(f);
	assert_int_equal(sim_mlx5_clock_advance(f->x.s.sim, 2000000), 0);
	sim_mlx5_step(f->x.s.sim);
	fatal_checks(f);
	fix_close(f);
}

static void stall_checks(struct fix *f)
{
	uint32_t cnt = f->x.rx[0].cq.dv.cqe_cnt;

	/* The consumer keeps up, but the device no longer reads its index. */
	for (uint32_t i = 0; i < cnt; i++) {
		assert_int_equal(inject(f), SIM_MLX5_RX_DELIVERED);
		assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 1);
		sc_rxq_post(&f->x.s, &f->x.rx[0], 1);
	}
	assert_int_equal(inject(f), SIM_MLX5_RX_CQ_OVERRUN);
	expect_async(f, IBV_EVENT_CQ_ERR, 0);
	assert_int_equal(f->x.rx[0].wq->state, IBV_WQS_ERR);
	assert_int_equal(inject(f), SIM_MLX5_RX_QUEUE_DOWN);
}

static void test_cq_stall_api(void **state)
{
	struct fix *f = fix_open("mode=step", 16);

	(void)state;
	assert_int_equal(sim_mlx5_fault_cq_stall(f->x.s.sim, f->x.rx[0].cq.dv.cqn, true), 0);
	assert_int_equal(sim_mlx5_fault_cq_stall(f->x.s.sim, 999, true), -ENOENT);
	stall_checks(f);
	fix_close(f);
}

static void test_cq_stall_devargs(void **state)
{
	struct fix *f = fix_open("mode=step,cq_stall=1", 16);

	(void)state;
	assert_int_equal(f->x.rx[0].cq.dv.cqn, 1);
	stall_checks(f);
	fix_close(f);
}

static void expect_bad_lkey_cqe(struct fix *f)
{
	struct mlx5_cqe64 *cqe = sc_cq_peek(&f->x.rx[0].cq);

	assert_non_null(cqe);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_ERR);
	assert_int_equal(((struct mlx5_err_cqe *)(void *)cqe)->syndrome,
			 MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	sc_cq_consume(&f->x.rx[0].cq, 1);
	assert_int_equal(f->x.rx[0].wq->state, IBV_WQS_ERR);
}

static void test_bad_lkey_devargs(void **state)
{
	struct fix *f = fix_open("mode=step,bad_lkey=3", 64);

	(void)state;
	assert_int_equal(inject(f), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(inject(f), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 2);
	assert_int_equal(inject(f), SIM_MLX5_RX_ERROR_CQE);
	expect_bad_lkey_cqe(f);
	fix_close(f);
}

static void test_bad_lkey_api(void **state)
{
	struct fix *f = fix_open("mode=step", 64);

	(void)state;
	assert_int_equal(sim_mlx5_fault_bad_lkey(f->x.s.sim, f->x.rx[0].wq->wq_num + 1, 1), 0);
	assert_int_equal(inject(f), SIM_MLX5_RX_DELIVERED); /* another queue's fault */
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 1);
	assert_int_equal(sim_mlx5_fault_bad_lkey(f->x.s.sim, f->x.rx[0].wq->wq_num, 1), 0);
	assert_int_equal(inject(f), SIM_MLX5_RX_ERROR_CQE);
	expect_bad_lkey_cqe(f);
	fix_close(f);
}

static void test_drop_and_corrupt_api(void **state)
{
	struct sc s;
	struct sc_txq tx;
	struct sim_mlx5_port_stats st;
	uint8_t frame[60];

	(void)state;
	sc_open(&s, "mode=step,ports=2,cable=loop");
	sc_txq_init(&s, &tx, 64, 1, 128, false);
	assert_int_equal(sim_mlx5_fault_drop(s.sim, 1, 1000000), 0); /* port 1 receives */
	assert_int_equal(sim_mlx5_fault_drop(s.sim, 1, 1000001), -EINVAL);
	assert_int_equal(sim_mlx5_fault_corrupt(s.sim, 1, 0), 0);
	sc_udp_frame(frame, 60, (const uint8_t[6]){ 2, 0, 0, 0, 0, 1 }, 1, 2, 3, 4);
	for (int i = 0; i < 10; i++)
		sc_tx_wqe(&s, &tx, frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&tx);
	sim_mlx5_step_idle(s.sim, 100);
	assert_int_equal(sc_cq_drain(&tx.cq), 10);
	assert_int_equal(sim_mlx5_port_stats(s.sim, 1, &st), 0);
	assert_int_equal(st.rx_wire_drops, 10);
	assert_int_equal(st.rx_no_flow, 0); /* none arrived at all */
	assert_int_equal(sim_mlx5_fault_drop(s.sim, 1, 0), 0);
	sc_tx_wqe(&s, &tx, frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&tx);
	sim_mlx5_step_idle(s.sim, 100);
	assert_int_equal(sc_cq_drain(&tx.cq), 1);
	assert_int_equal(sim_mlx5_port_stats(s.sim, 1, &st), 0);
	assert_int_equal(st.rx_no_flow, 1); /* arrived; nobody listens */
	sc_txq_fini(&s, &tx);
	sc_close(&s);
}

static void expect_create_fails(const char *args, const char *needle)
{
	struct dvp_log_capture cap;
	struct sim_mlx5_dev *dev = NULL;

	dvp_log_capture_begin(&cap);
	assert_int_equal(sim_mlx5_create(args, &dev), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_null(dev);
	assert_contains(cap.buf, needle);
	dvp_log_capture_free(&cap);
}

static void test_devargs_errors(void **state)
{
	(void)state;
	expect_create_fails("sise=2", "valid keys");
	expect_create_fails("ports=9", "ports");
	expect_create_fails("mtu=10", "mtu");
	expect_create_fails("mode=fast", "thread");
	expect_create_fails("cable=loop,ports=3", "even");
	expect_create_fails("pattern=[on:1ms]", "pattern=[on:<time>,off:<time>]");
	expect_create_fails("pattern=[on:0ms,off:1ms]", "on time");
	expect_create_fails("flap=[at:1ms,down:0ms]", "down time");
	expect_create_fails("fatal=5", "unit");
	expect_create_fails("mac=01:00:5e:00:00:01", "multicast");
	expect_create_fails("mac=zz", "MAC address");
	expect_create_fails("sizes=[60,10]", "'10'");
	expect_create_fails("drop=101", "percentage");
	expect_create_fails("near_wrap=12", "near_wrap");
	expect_create_fails("gen=on", "cable=traffic");
	expect_create_fails("cq_start=0x1000000", "cq_start");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_link_flap_devargs),
		cmocka_unit_test(test_link_flap_api),
		cmocka_unit_test(test_fatal_api),
		cmocka_unit_test(test_fatal_devargs),
		cmocka_unit_test(test_cq_stall_api),
		cmocka_unit_test(test_cq_stall_devargs),
		cmocka_unit_test(test_bad_lkey_devargs),
		cmocka_unit_test(test_bad_lkey_api),
		cmocka_unit_test(test_drop_and_corrupt_api),
		cmocka_unit_test(test_devargs_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
