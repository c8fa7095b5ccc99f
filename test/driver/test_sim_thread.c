/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5 on its device thread, beside a consumer in interrupt mode: the
 * source sends bursts with idle gaps; the consumer echoes what it receives
 * to the sink and, when it finds nothing, arms the CQ, polls once more and
 * only then sleeps in epoll on the completion channel (the libibverbs
 * protocol). Every frame must come back intact and in order, with no
 * invalid use, and the consumer must have slept between bursts. Two
 * threads share the CQ, WQ and UAR memory as a driver and an HCA do: this
 * test is in suite 'concurrent' (TSan).
 */

#include "dvp_test.h"

#include <endian.h>
#include <sys/epoll.h>
#include <time.h>
#include <unistd.h>

#include <dvp_common.h>

#include "sim_fixture.h"

#define COUNT 20000u

struct fix {
	struct sim_fix x; /* first: sim_fix_new() allocates the whole */
	uint32_t tx_done;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void tx_reap(struct fix *f)
{
	f->tx_done += sc_cq_drain(&f->x.tx.cq);
}

/* Echo what was received. @return frames. */
static uint32_t echo(struct fix *f)
{
	struct mlx5_cqe64 *cqe;
	uint32_t n = 0;

	while (n < 64 && (cqe = sc_cq_peek(&f->x.rx[0].cq)) != NULL) {
		uint16_t counter = be16toh(cqe->wqe_counter);

		assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_SEND);
		/* Never write over a WQE (or its buffer) the device has not completed. */
		while (f->x.tx.pi - f->tx_done >= f->x.tx.dv.sq.wqe_cnt) {
			tx_reap(f);
			dvp_pause();
		}
		sc_tx_wqe(&f->x.s, &f->x.tx, sc_rxq_buf(&f->x.rx[0], counter),
			  be32toh(cqe->byte_cnt), MLX5_WQE_CTRL_CQ_UPDATE, 0);
		sc_cq_consume(&f->x.rx[0].cq, 1);
		sc_rxq_post(&f->x.s, &f->x.rx[0], 1);
		n++;
	}
	if (n > 0)
		sc_tx_ring(&f->x.tx);
	tx_reap(f);
	return n;
}

static void test_interrupt_mode_beside_device_thread(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct epoll_event ev = { .events = EPOLLIN };
	struct sim_mlx5_sink_stats snk;
	/* 200 frames per burst, then 4 ms idle: the consumer sleeps between bursts even slowed. */
	const struct sim_fix_conf c = {
		.args = "mode=thread,cable=traffic,flows=8,count=20000,sizes=[60,256],"
			"rate=200000,pattern=[on:1ms,off:4ms],idle_us=50",
		.tx_wqe = 512,
		.nrxq = 1,
		.rx_post = 512,
		.rx_channel = true,
	};
	unsigned int sleeps = 0, events = 0;
	double deadline;
	int ep;

	(void)state;
	assert_non_null(f);
	sim_fix_open(&f->x, &c);
	ep = epoll_create1(EPOLL_CLOEXEC);
	assert_true(ep >= 0);
	ev.data.fd = f->x.s.ch->fd;
	assert_int_equal(epoll_ctl(ep, EPOLL_CTL_ADD, f->x.s.ch->fd, &ev), 0);
	/* A guard against a hang, not a measurement. */
	deadline = now_s() + 120.0;
	for (;;) {
		if (echo(f) > 0)
			continue;
		assert_int_equal(sim_mlx5_sink_stats(f->x.s.sim, 0, &snk), 0);
		if (snk.received + snk.lost + snk.corrupt >= COUNT)
			break;
		assert_true(now_s() < deadline);
		/* Arm, then poll once more: sleep only if that finds nothing. */
		sc_cq_arm(&f->x.rx[0].cq, false);
		if (sc_cq_peek(&f->x.rx[0].cq) != NULL)
			continue;
		if (epoll_wait(ep, &ev, 1, 100) == 1) {
			events += (unsigned int)sc_cq_events(&f->x.s, &f->x.rx[0].cq);
			sleeps++;
		}
	}
	/* A frame reaches the sink before its completion is written: reap the last ones. */
	while (f->tx_done < COUNT && now_s() < deadline)
		tx_reap(f);
	assert_int_equal(f->tx_done, COUNT);
	print_message("%u frames, %u sleeps, %u events\n", COUNT, sleeps, events);
	assert_int_equal(snk.received, COUNT);
	assert_int_equal(snk.lost, 0);
	assert_int_equal(snk.corrupt, 0);
	assert_int_equal(snk.reordered, 0);
	assert_int_equal(snk.duplicates, 0);
	assert_true(sleeps > 0);
	assert_true(events > 0);
	assert_int_equal(sim_mlx5_invalid_total(f->x.s.sim), 0);
	close(ep);
	assert_int_equal(sim_mlx5_thread_stop(f->x.s.sim), 0);
	sim_fix_close(&f->x, false);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_interrupt_mode_beside_device_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
