/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's traffic source and sink with a consumer that echoes what it
 * receives: a clean run (IPv4 and IPv6), loss on the wire and its accounting, reordering,
 * duplicates, corruption and foreign frames at the sink, corruption seen
 * in the receive CQE's checksum verdicts, and the source's rate and burst
 * pattern on the virtual clock, its schedule starting when its partner is there.
 */

#include "dvp_test.h"

#include <endian.h>
#include <inttypes.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

struct fix {
	struct sim_fix x; /* first: sim_fix_new() allocates the whole */
	uint8_t frame[2048];
	uint64_t echoed, bad_flags;
};

static struct fix *fix_open(const char *args)
{
	const struct sim_fix_conf c = {
		.args = args, .tx_wqe = 256, .tx_cq = 512, .nrxq = 1, .rx_wqe = 256, .rx_post = 256
	};
	return sim_fix_new(sizeof(struct fix), &c);
}

static void fix_close(struct fix *f)
{
	sim_fix_free(&f->x, true);
}

/* Send every received frame back out of the port (to the sink); @return frames. */
static uint32_t echo(struct fix *f)
{
	const uint8_t ok = MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
	struct mlx5_cqe64 *cqe;
	uint32_t n = 0;

	while ((cqe = sc_cq_peek(&f->x.rx[0].cq)) != NULL) {
		uint16_t counter = be16toh(cqe->wqe_counter);

		assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_SEND);
		if ((cqe->hds_ip_ext & ok) != ok)
			f->bad_flags++;
		sc_tx_wqe(&f->x.s, &f->x.tx, sc_rxq_buf(&f->x.rx[0], counter),
			  be32toh(cqe->byte_cnt), MLX5_WQE_CTRL_CQ_UPDATE, 0);
		sc_cq_consume(&f->x.rx[0].cq, 1);
		sc_rxq_post(&f->x.s, &f->x.rx[0], 1);
		n++;
		if (n == 128)
			break; /* the send ring holds 256 */
	}
	if (n > 0) {
		sc_tx_ring(&f->x.tx);
		sim_mlx5_step(f->x.s.sim);
		assert_int_equal(sc_cq_drain(&f->x.tx.cq), n);
	}
	f->echoed += n;
	return n;
}

/* Step and echo until the source is done and nothing moves. */
static void run_to_end(struct fix *f)
{
	struct sim_mlx5_source_stats src;

	for (int i = 0; i < 100000; i++) {
		int work = sim_mlx5_step(f->x.s.sim);

		work += (int)echo(f);
		assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
		if (work == 0 && src.done)
			return;
	}
	fail_msg("the source did not finish");
}

static void test_clean_run(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,flows=4,count=3000,sizes=[60,128,1514]");
	struct sim_mlx5_source_stats src;
	struct sim_mlx5_sink_stats snk;

	(void)state;
	run_to_end(f);
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
	assert_int_equal(src.sent, 3000);
	assert_true(src.done);
	assert_int_equal(snk.received, 3000);
	assert_int_equal(snk.bytes, src.bytes);
	assert_int_equal(snk.lost, 0);
	assert_int_equal(snk.reordered, 0);
	assert_int_equal(snk.duplicates, 0);
	assert_int_equal(snk.corrupt, 0);
	assert_int_equal(snk.foreign, 0);
	assert_int_equal(f->bad_flags, 0);
	fix_close(f);
}

/* ip=6: IPv6/UDP frames, through the port and back, all at the sink intact, checksums verified. */
static void test_clean_run_ipv6(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,flows=4,count=2000,ip=6,"
				 "sizes=[78,128,1514]");
	struct sim_mlx5_source_stats src;
	struct sim_mlx5_sink_stats snk;
	uint8_t b[128], mac[6] = { 2 };

	(void)state;
	assert_int_equal(sim_mlx5_frame_build6(b, SIM_MLX5_FRAME6_MIN - 1, 0, 0, mac), -EINVAL);
	assert_int_equal(sim_mlx5_frame_build6(b, 128, 3, 0, mac), 128);
	assert_int_equal(b[12] << 8 | b[13], 0x86dd);
	assert_int_equal(b[37], 3); /* 2001:db8::3 */
	run_to_end(f);
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
	assert_int_equal(src.sent, 2000);
	assert_int_equal(snk.received, 2000);
	assert_int_equal(snk.bytes, src.bytes);
	assert_int_equal(snk.lost + snk.corrupt + snk.foreign, 0);
	assert_int_equal(f->bad_flags, 0);
	fix_close(f);
}

static void test_loss_accounting(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,count=2000,drop=10,seed=7");
	struct sim_mlx5_source_stats src;
	struct sim_mlx5_sink_stats snk;
	struct sim_mlx5_port_stats st;

	(void)state;
	run_to_end(f);
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
	assert_int_equal(sim_mlx5_port_stats(f->x.s.sim, 0, &st), 0);
	print_message("sent %" PRIu64 ", wire drops %" PRIu64 ", sink lost %" PRIu64 "\n", src.sent,
		      st.rx_wire_drops, snk.lost);
	assert_int_equal(src.sent, 2000);
	assert_in_range(st.rx_wire_drops, 120, 280); /* 10 % of 2000, give or take */
	assert_int_equal(snk.received + st.rx_wire_drops, src.sent);
	/* Only drops after the last frame received are invisible to the sink. */
	assert_true(snk.lost <= st.rx_wire_drops && snk.lost + 10 >= st.rx_wire_drops);
	assert_int_equal(snk.corrupt + snk.reordered + snk.duplicates, 0);
	fix_close(f);
}

static void send_seq(struct fix *f, uint64_t seq, bool damage)
{
	static const uint8_t dst[6] = { 0x02, 9, 9, 9, 9, 9 };

	assert_int_equal(sim_mlx5_frame_build(f->frame, 100, 0, seq, dst), 100);
	if (damage)
		f->frame[90] ^= 0x40;
	sc_tx_wqe(&f->x.s, &f->x.tx, f->frame, 100, MLX5_WQE_CTRL_CQ_UPDATE, 0);
}

static void test_sink_accounting(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,gen=off");
	static const uint64_t order[] = { 0, 1, 3, 2, 2, 5 };
	struct sim_mlx5_sink_stats snk;

	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(order); i++)
		send_seq(f, order[i], false);
	send_seq(f, 6, true); /* payload damaged */
	memset(f->frame, 0, 60);
	sc_tx_wqe(&f->x.s, &f->x.tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0); /* not a source's */
	sc_tx_ring(&f->x.tx);
	sim_mlx5_step_idle(f->x.s.sim, 100);
	assert_int_equal(sc_cq_drain(&f->x.tx.cq), 8);
	assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
	assert_int_equal(snk.received, 5); /* 0 1 3 2 5 */
	assert_int_equal(snk.lost, 1); /* 4 */
	assert_int_equal(snk.reordered, 1); /* 2 after 3 */
	assert_int_equal(snk.duplicates, 1); /* 2 again */
	assert_int_equal(snk.corrupt, 1);
	assert_int_equal(snk.foreign, 1);
	/* The late 4 fills the gap. */
	send_seq(f, 4, false);
	sc_tx_ring(&f->x.tx);
	sim_mlx5_step_idle(f->x.s.sim, 100);
	assert_int_equal(sc_cq_drain(&f->x.tx.cq), 1);
	assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
	assert_int_equal(snk.lost, 0);
	assert_int_equal(snk.reordered, 2);
	assert_int_equal(sim_mlx5_sink_reset(f->x.s.sim, 0), 0);
	assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
	assert_int_equal(snk.received, 0);
	fix_close(f);
}

static void test_corruption(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,count=300,corrupt=100");
	struct sim_mlx5_sink_stats snk;
	struct sim_mlx5_port_stats st;

	(void)state;
	run_to_end(f);
	assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
	assert_int_equal(sim_mlx5_port_stats(f->x.s.sim, 0, &st), 0);
	assert_int_equal(st.rx_wire_corrupt, 300);
	/* One flipped byte past the Ethernet header always breaks a checksum. */
	assert_int_equal(f->echoed, 300);
	assert_int_equal(f->bad_flags, 300);
	assert_int_equal(snk.corrupt + snk.foreign, 300);
	assert_int_equal(snk.received, 0);
	fix_close(f);
}

static void test_rate_and_pattern(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,clock=virtual,rate=1000,"
				 "pattern=[on:10ms,off:90ms]");
	struct sim_mlx5_source_stats src;

	(void)state;
	/* 1000/s for 10 ms of every 100: a frame each ms, ten per burst. */
	for (int ms = 0; ms < 200; ms++) {
		sim_mlx5_step(f->x.s.sim);
		echo(f);
		assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
		if (ms == 9 || ms == 99)
			assert_int_equal(src.sent, 10);
		assert_int_equal(sim_mlx5_clock_advance(f->x.s.sim, 1000000), 0);
	}
	assert_int_equal(src.sent, 20);
	assert_int_equal(f->echoed, 20);
	fix_close(f);
}

/*
 * A second without a link is not sent as a burst when it comes back: the
 * source's schedule starts over with its partner, as a generator's does.
 */
static void test_schedule_starts_with_the_partner(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,clock=virtual,rate=1000");
	struct sim_mlx5_source_stats src;
	uint64_t before;

	(void)state;
	sim_mlx5_step(f->x.s.sim);
	echo(f);
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	before = src.sent;
	assert_int_equal(sim_mlx5_link_set(f->x.s.sim, 0, false), 0);
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sim_mlx5_clock_advance(f->x.s.sim, 1000000000), 0);
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	assert_int_equal(src.sent, before);
	assert_int_equal(sim_mlx5_link_set(f->x.s.sim, 0, true), 0);
	/* 1000/s from the link's return: a frame each ms, the first at once. */
	for (int ms = 0; ms < 10; ms++) {
		sim_mlx5_step(f->x.s.sim);
		echo(f);
		assert_int_equal(sim_mlx5_clock_advance(f->x.s.sim, 1000000), 0);
	}
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	assert_int_equal(src.sent, before + 10);
	assert_int_equal(f->echoed, before + 10);
	fix_close(f);
}

static void test_source_api(void **state)
{
	struct fix *f = fix_open("mode=step,cable=traffic,gen=off");
	struct sim_mlx5_source_conf c = { .sizes = { 60 }, .nsizes = 1, .flows = 2, .count = 10 };
	struct sim_mlx5_source_stats src;

	(void)state;
	sim_mlx5_step_idle(f->x.s.sim, 10);
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	assert_int_equal(src.sent, 0); /* gen=off */
	c.sizes[0] = 20;
	assert_int_equal(sim_mlx5_source_set(f->x.s.sim, 0, &c), -EINVAL);
	c.sizes[0] = 60;
	assert_int_equal(sim_mlx5_source_set(f->x.s.sim, 0, &c), 0);
	assert_int_equal(sim_mlx5_source_start(f->x.s.sim, 0), 0);
	run_to_end(f);
	assert_int_equal(sim_mlx5_source_stats(f->x.s.sim, 0, &src), 0);
	assert_int_equal(src.sent, 10);
	assert_int_equal(sim_mlx5_source_stop(f->x.s.sim, 0), 0);
	assert_int_equal(sim_mlx5_source_start(f->x.s.sim, 7), -EINVAL);
	assert_int_equal(sim_mlx5_uncable(f->x.s.sim, 0), 0);
	assert_int_equal(sim_mlx5_source_start(f->x.s.sim, 0), -ENOTCONN);
	fix_close(f);
}

static void test_source_waits_for_a_flow(void **state)
{
	struct sim_mlx5_source_stats src;
	struct sim_mlx5_dev *dev;

	(void)state;
	assert_int_equal(sim_mlx5_create("mode=step,cable=traffic", &dev), 0);
	for (int i = 0; i < 10; i++)
		sim_mlx5_step(dev);
	assert_int_equal(sim_mlx5_source_stats(dev, 0, &src), 0);
	assert_int_equal(src.sent, 0);
	assert_int_equal(sim_mlx5_destroy(dev), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean_run),
		cmocka_unit_test(test_clean_run_ipv6),
		cmocka_unit_test(test_loss_accounting),
		cmocka_unit_test(test_sink_accounting),
		cmocka_unit_test(test_corruption),
		cmocka_unit_test(test_rate_and_pattern),
		cmocka_unit_test(test_schedule_starts_with_the_partner),
		cmocka_unit_test(test_source_api),
		cmocka_unit_test(test_source_waits_for_a_flow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
