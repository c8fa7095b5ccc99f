/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5 CQs as a consumer following rdma-core's rules sees them:
 * ownership over several passes, start indexes near the 16- and 24-bit
 * wraps (and the 16-bit consumer-index bug surfacing as an overrun), every
 * arm rule, overruns, and the invalid uses of a CQ the device reports.
 */

#include "dvp_test.h"

#include <endian.h>

#include "sim_fixture.h"

static const uint8_t any_mac[6] = { 0x02, 0, 0, 0, 0, 1 };

struct fix {
	struct sim_fix x; /* first: sim_fix_new() allocates the whole */
	uint8_t frame[64];
};

static struct fix *fix_open(const char *args, int cq_entries, uint32_t nwqe)
{
	const struct sim_fix_conf c = {
		.args = args, .tx_wqe = nwqe, .tx_cq = cq_entries, .tx_channel = true
	};
	struct fix *f = sim_fix_new(sizeof(*f), &c);

	sc_udp_frame(f->frame, 60, any_mac, 0x0a000001, 0x0a000002, 1000, 2000);
	return f;
}

static void fix_close(struct fix *f)
{
	sim_fix_free(&f->x, true);
}

/* Send @p n frames asking for a completion each (@p se: solicited), run the device. */
static void produce(struct fix *f, unsigned int n, bool se)
{
	for (unsigned int i = 0; i < n; i++)
		sc_tx_wqe(&f->x.s, &f->x.tx, f->frame, 60,
			  MLX5_WQE_CTRL_CQ_UPDATE | (se ? MLX5_WQE_CTRL_SOLICITED : 0), 0);
	sc_tx_ring(&f->x.tx);
	sim_mlx5_step_idle(f->x.s.sim, 100);
}

/* Poll and check every CQE over @p passes passes of the ring. */
static void check_passes(struct fix *f, unsigned int passes)
{
	struct sc_cq *c = &f->x.tx.cq;
	uint32_t cnt = c->dv.cqe_cnt, sent = 0;

	for (unsigned int p = 0; p < passes * 2; p++) {
		/* Half a ring at a time: the device never laps the consumer. */
		uint32_t first_wqe = f->x.tx.pi;

		produce(f, cnt / 2, false);
		for (uint32_t i = 0; i < cnt / 2; i++) {
			struct mlx5_cqe64 *cqe = sc_cq_peek(c);

			assert_non_null(cqe);
			assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
			assert_int_equal(mlx5dv_get_cqe_owner(cqe), !!(c->ci & cnt));
			assert_int_equal(be16toh(cqe->wqe_counter), (first_wqe + i) & 0xffff);
			assert_int_equal(be32toh(cqe->sop_drop_qpn),
					 (uint32_t)MLX5_OPCODE_SEND << 24 | f->x.tx.sqn);
			sc_cq_consume(c, 1);
			sent++;
		}
		/* The slot after the last is the previous pass's CQE: not ours. */
		assert_null(sc_cq_peek(c));
	}
	assert_int_equal(sent, passes * cnt);
}

static void test_ownership_over_wraps(void **state)
{
	struct fix *f = fix_open("mode=step", 16, 64);

	(void)state;
	assert_int_equal(f->x.tx.cq.dv.cqe_cnt, 32); /* a power of two above 16 + 1 */
	assert_int_equal(f->x.tx.cq.ci, 0);
	check_passes(f, 5);
	assert_int_equal(sim_fix_stats(&f->x).cq_overruns, 0);
	fix_close(f);
}

static void test_near_wrap_24(void **state)
{
	struct fix *f = fix_open("mode=step,near_wrap=24", 64, 64);

	(void)state;
	assert_int_equal(f->x.tx.cq.ci, 0xffffc0);
	assert_int_equal(f->x.tx.pi, 0xffc0);
	check_passes(f, 4); /* crosses 2^24 for the CQ and 2^16 for the SQ */
	assert_true(f->x.tx.cq.ci > 0x1000000);
	assert_int_equal(sim_fix_stats(&f->x).cq_overruns, 0);
	fix_close(f);
}

static void test_near_wrap_16(void **state)
{
	struct fix *f = fix_open("mode=step,near_wrap=16", 64, 64);

	(void)state;
	assert_int_equal(f->x.tx.cq.ci, 0xffc0);
	check_passes(f, 3);
	assert_int_equal(sim_fix_stats(&f->x).cq_overruns, 0);
	fix_close(f);
}

/* A consumer that keeps a 16-bit index (DPDK commit 3afdf157fc) overruns past 2^16. */
static void test_16bit_ci_bug_overruns(void **state)
{
	struct fix *f = fix_open("mode=step,near_wrap=16", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;
	struct ibv_async_event ev;

	(void)state;
	for (int pass = 0; pass < 2; pass++) {
		produce(f, 32, false);
		while (sc_cq_peek(c) != NULL) {
			c->ci++;
			/* The bug: the index written back is cut to 16 bits. */
			__atomic_store_n(&c->dv.dbrec[0], htobe32(c->ci & 0xffff),
					 __ATOMIC_RELEASE);
		}
	}
	assert_int_equal(c->ci, 0x10000);
	assert_int_equal(sim_fix_stats(&f->x).cq_overruns, 0);
	/* The device reads 0x0000 against its 0x10000: a full CQ. */
	produce(f, 1, false);
	assert_int_equal(sim_fix_stats(&f->x).cq_overruns, 1);
	assert_int_equal(f->x.s.g->get_async_event(f->x.s.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, c->cq);
	f->x.s.g->ack_async_event(&ev);
	fix_close(f);
}

static void test_arm_one_shot(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;

	(void)state;
	sc_cq_arm(c, false);
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sc_cq_events(&f->x.s, c), 0); /* nothing written yet */
	produce(f, 1, false);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	assert_int_equal(sc_cq_drain(c), 1);
	produce(f, 3, false); /* not re-armed: no event */
	assert_int_equal(sc_cq_events(&f->x.s, c), 0);
	assert_int_equal(sc_cq_drain(c), 3);
	sc_cq_arm(c, false);
	produce(f, 2, false); /* re-armed: exactly one event for two CQEs */
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	assert_int_equal(sc_cq_drain(c), 2);
	assert_int_equal(sim_fix_stats(&f->x).comp_events, 2);
	fix_close(f);
}

static void test_arm_fires_at_once(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;

	(void)state;
	produce(f, 2, false);
	/* Armed at an index whose CQE is already there: fires without a new CQE. */
	sc_cq_arm(c, false);
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	/* Armed past what is written: waits for the next CQE. */
	assert_int_equal(sc_cq_drain(c), 2);
	sc_cq_arm(c, false);
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sc_cq_events(&f->x.s, c), 0);
	produce(f, 1, false);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	assert_int_equal(sc_cq_drain(c), 1);
	fix_close(f);
}

static void test_arm_stale_sn_ignored(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;

	(void)state;
	sc_cq_arm(c, false); /* sn 0 */
	produce(f, 1, false); /* event: the device now expects sn 1 */
	assert_int_equal(sc_cq_drain(c), 1);
	/* Armed again before reading the event: still sn 0, so stale and ignored. */
	sc_cq_arm(c, false);
	produce(f, 1, false);
	assert_int_equal(sim_fix_stats(&f->x).arms_stale, 1);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1); /* only the first event */
	assert_int_equal(c->sn, 1);
	assert_int_equal(sc_cq_drain(c), 1);
	sc_cq_arm(c, false); /* sn 1: honoured */
	produce(f, 1, false);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	assert_int_equal(sim_fix_stats(&f->x).arms, 2);
	assert_int_equal(sc_cq_drain(c), 1);
	fix_close(f);
}

static void test_arm_solicited_only(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;
	struct mlx5_cqe64 *cqe;

	(void)state;
	sc_cq_arm(c, true);
	produce(f, 3, false);
	assert_int_equal(sc_cq_events(&f->x.s, c), 0);
	produce(f, 1, true);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	for (int i = 0; i < 3; i++) {
		cqe = sc_cq_peek(c);
		assert_non_null(cqe);
		assert_int_equal(mlx5dv_get_cqe_se(cqe), 0);
		sc_cq_consume(c, 1);
	}
	cqe = sc_cq_peek(c);
	assert_non_null(cqe);
	assert_int_equal(mlx5dv_get_cqe_se(cqe), 1);
	sc_cq_consume(c, 1);
	/* Armed solicited with a solicited CQE already waiting: fires at once. */
	produce(f, 1, true);
	sc_cq_arm(c, true);
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	assert_int_equal(sc_cq_drain(c), 1);
	fix_close(f);
}

static void test_arm_solicited_fires_on_error(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;
	struct mlx5_cqe64 *cqe;

	(void)state;
	sc_cq_arm(c, true);
	assert_int_equal(sim_mlx5_fault_bad_lkey(f->x.s.sim, f->x.tx.sqn, 1), 0);
	produce(f, 1, false);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	cqe = sc_cq_peek(c);
	assert_non_null(cqe);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ_ERR);
	assert_int_equal(((struct mlx5_err_cqe *)(void *)cqe)->syndrome,
			 MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	sc_cq_consume(c, 1);
	assert_int_equal(f->x.tx.qp->state, IBV_QPS_ERR);
	fix_close(f);
}

static void test_overrun_raises_cq_err(void **state)
{
	struct fix *f = fix_open("mode=step", 3, 64);
	struct sc_cq *c = &f->x.tx.cq;
	struct ibv_async_event ev;

	(void)state;
	assert_int_equal(c->dv.cqe_cnt, 4);
	produce(f, 5, false); /* never consumed: the fifth has no room */
	assert_int_equal(sim_fix_stats(&f->x).cq_overruns, 1);
	assert_int_equal(f->x.s.g->get_async_event(f->x.s.ctx, &ev), 0);
	assert_int_equal(ev.event_type, IBV_EVENT_CQ_ERR);
	assert_ptr_equal(ev.element.cq, c->cq);
	assert_int_equal(f->x.tx.qp->state, IBV_QPS_ERR);
	/* Not acked: destroying the CQ would hang libibverbs; the sim refuses loudly. */
	assert_int_equal(f->x.s.g->destroy_qp(f->x.tx.qp), 0);
	assert_int_equal(f->x.s.g->destroy_cq(c->cq), EBUSY);
	assert_int_equal(sim_fix_stats(&f->x).invalid[SIM_MLX5_INV_DESTROY_UNACKED], 1);
	f->x.s.g->ack_async_event(&ev);
	assert_int_equal(f->x.s.g->destroy_cq(c->cq), 0);
	sc_close(&f->x.s);
	free(f);
}

static void test_destroy_with_unacked_events(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;
	struct dvp_log_capture cap;
	struct ibv_cq *cq;
	void *ctx;

	(void)state;
	sc_cq_arm(c, false);
	produce(f, 1, false);
	assert_int_equal(f->x.s.g->get_cq_event(f->x.s.ch, &cq, &ctx), 0);
	assert_int_equal(f->x.s.g->destroy_qp(f->x.tx.qp), 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(f->x.s.g->destroy_cq(c->cq), EBUSY);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "destroy_unacked");
	assert_contains(cap.buf, "not acked");
	dvp_log_capture_free(&cap);
	f->x.s.g->ack_cq_events(cq, 1);
	/* An event raised but never read vanishes with the CQ, as in the kernel. */
	assert_int_equal(f->x.s.g->destroy_cq(c->cq), 0);
	assert_int_equal(sim_fix_stats(&f->x).invalid[SIM_MLX5_INV_DESTROY_UNACKED], 1);
	sc_close(&f->x.s);
	free(f);
}

static void test_pending_events_dropped_at_destroy(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct ibv_cq *cq;
	void *ctx;

	(void)state;
	sc_cq_arm(&f->x.tx.cq, false);
	produce(f, 1, false);
	sc_txq_fini(&f->x.s, &f->x.tx); /* one event raised, not read: destroy succeeds */
	assert_int_equal(f->x.s.g->get_cq_event(f->x.s.ch, &cq, &ctx), -1);
	assert_int_equal(errno, EAGAIN);
	assert_int_equal(sim_mlx5_invalid_total(f->x.s.sim), 0);
	sc_close(&f->x.s);
	free(f);
}

static void test_arm_destroyed_cq(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq saved = f->x.tx.cq;
	uint64_t *reg;

	(void)state;
	sc_txq_fini(&f->x.s, &f->x.tx);
	/* The UAR page outlives the CQ (it belongs to the context): write to it. */
	reg = (uint64_t *)(void *)((uint8_t *)saved.dv.cq_uar + MLX5_CQ_DOORBELL);
	__atomic_store_n(reg, htobe64((uint64_t)1 << 32 | saved.dv.cqn), __ATOMIC_RELEASE);
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sim_fix_stats(&f->x).invalid[SIM_MLX5_INV_DESTROYED_DB], 1);
	sc_close(&f->x.s);
	free(f);
}

static void test_arm_without_record(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;

	(void)state;
	produce(f, 2, false);
	assert_int_equal(sc_cq_drain(c), 2);
	sc_cq_arm_raw(c, c->sn, c->ci, false, false); /* doorbell, no record */
	sim_mlx5_step(f->x.s.sim);
	assert_int_equal(sim_fix_stats(&f->x).invalid[SIM_MLX5_INV_ARM_ORDER], 1);
	/* The doorbell is still honoured, as hardware acts on what it was rung with. */
	produce(f, 1, false);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	assert_int_equal(sc_cq_drain(c), 1);
	sc_txq_fini(&f->x.s, &f->x.tx);
	sc_close(&f->x.s);
	free(f);
}

static void test_ci_ahead(void **state)
{
	struct fix *f = fix_open("mode=step", 64, 64);
	struct sc_cq *c = &f->x.tx.cq;

	(void)state;
	produce(f, 2, false);
	sc_cq_consume(c, 5); /* three past what was written */
	produce(f, 1, false);
	assert_int_equal(sim_fix_stats(&f->x).invalid[SIM_MLX5_INV_CI_AHEAD], 1);
	sc_txq_fini(&f->x.s, &f->x.tx);
	sc_close(&f->x.s);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ownership_over_wraps),
		cmocka_unit_test(test_near_wrap_24),
		cmocka_unit_test(test_near_wrap_16),
		cmocka_unit_test(test_16bit_ci_bug_overruns),
		cmocka_unit_test(test_arm_one_shot),
		cmocka_unit_test(test_arm_fires_at_once),
		cmocka_unit_test(test_arm_stale_sn_ignored),
		cmocka_unit_test(test_arm_solicited_only),
		cmocka_unit_test(test_arm_solicited_fires_on_error),
		cmocka_unit_test(test_overrun_raises_cq_err),
		cmocka_unit_test(test_destroy_with_unacked_events),
		cmocka_unit_test(test_pending_events_dropped_at_destroy),
		cmocka_unit_test(test_arm_destroyed_cq),
		cmocka_unit_test(test_arm_without_record),
		cmocka_unit_test(test_ci_ahead),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
