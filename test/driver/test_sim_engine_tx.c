/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's send engine, over a loop cable from port 0 to port 1: WQEs
 * gathered and delivered, checksum offload, completions asked for or not,
 * error CQEs and the SQ's recovery through RESET, flow control on a full
 * cable, link down, and the invalid uses a send queue can suffer (doorbell
 * before record, WQE past the producer index, ds count, control segment,
 * ring overrun, doorbell of a destroyed SQ).
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_prm.h"
#include "sim_consumer.h"

static const uint8_t dst[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

struct fix {
	struct sc s;
	struct sc_txq tx;
	struct sc_rxq rx;
	struct sc_rss rss;
	uint8_t frame[2048], got[2048];
};

static struct fix *fix_open(const char *args, uint32_t tx_wqe, uint32_t rx_post)
{
	struct fix *f = calloc(1, sizeof(*f));
	struct sc_rxq *qs[1];

	assert_non_null(f);
	sc_open(&f->s, args);
	sc_txq_init(&f->s, &f->tx, tx_wqe, 1, 1024, false);
	sc_rxq_init(&f->s, &f->rx, 512, 2048, 1024, false);
	sc_rxq_post(&f->s, &f->rx, rx_post);
	qs[0] = &f->rx;
	sc_rss_init(&f->s, &f->rss, qs, 1, 0, NULL, 2, NULL, 0);
	assert_int_equal(sim_mlx5_capture(f->s.sim, 0, 16), 0);
	return f;
}

static void fix_close(struct fix *f, bool expect_clean)
{
	if (expect_clean)
		assert_int_equal(sim_mlx5_invalid_total(f->s.sim), 0);
	sc_rss_fini(&f->s, &f->rss);
	sc_rxq_fini(&f->s, &f->rx);
	if (f->tx.qp != NULL)
		sc_txq_fini(&f->s, &f->tx);
	sc_close(&f->s);
	free(f);
}

static uint64_t invalid(struct fix *f, enum sim_mlx5_invalid kind)
{
	struct sim_mlx5_dev_stats st;

	assert_int_equal(sim_mlx5_dev_stats(f->s.sim, &st), 0);
	return st.invalid[kind];
}

static struct mlx5_cqe64 *tx_cqe(struct fix *f)
{
	struct mlx5_cqe64 *cqe = sc_cq_peek(&f->tx.cq);

	assert_non_null(cqe);
	sc_cq_consume(&f->tx.cq, 1);
	return cqe;
}

static void run(struct fix *f)
{
	sim_mlx5_step_idle(f->s.sim, 1000);
}

static void test_tx_loop_delivers(void **state)
{
	static const uint32_t lens[] = { 60, 61, 100, 1514 };
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct sim_mlx5_port_stats st;
	uint32_t idx[4];

	(void)state;
	for (unsigned int i = 0; i < 4; i++) {
		sc_udp_frame(f->frame, lens[i], dst, 0x0a000001, 0x0a000002, 7, (uint16_t)i);
		idx[i] = sc_tx_wqe(&f->s, &f->tx, f->frame, lens[i], MLX5_WQE_CTRL_CQ_UPDATE, 0);
	}
	sc_tx_ring(&f->tx);
	run(f);
	for (unsigned int i = 0; i < 4; i++) {
		struct mlx5_cqe64 *cqe = tx_cqe(f);
		uint32_t counter = f->rx.pi - 64 + i;

		assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
		assert_int_equal(be16toh(cqe->wqe_counter), idx[i] & 0xffff);
		assert_int_equal(be32toh(cqe->byte_cnt), lens[i]);
		cqe = sc_cq_peek(&f->rx.cq);
		assert_non_null(cqe);
		assert_int_equal(be32toh(cqe->byte_cnt), lens[i]);
		sc_udp_frame(f->frame, lens[i], dst, 0x0a000001, 0x0a000002, 7, (uint16_t)i);
		assert_memory_equal(sc_rxq_buf(&f->rx, counter), f->frame, lens[i]);
		sc_cq_consume(&f->rx.cq, 1);
		assert_int_equal(sim_mlx5_capture_pop(f->s.sim, 0, f->got, sizeof(f->got)),
				 lens[i]);
		assert_memory_equal(f->got, f->frame, lens[i]);
	}
	assert_int_equal(sim_mlx5_port_stats(f->s.sim, 0, &st), 0);
	assert_int_equal(st.tx_frames, 4);
	assert_int_equal(st.tx_completions, 4);
	assert_int_equal(sim_mlx5_port_stats(f->s.sim, 1, &st), 0);
	assert_int_equal(st.rx_frames, 4);
	fix_close(f, true);
}

static void test_tx_checksum_offload(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint8_t want[128];
	struct mlx5_cqe64 *cqe;

	(void)state;
	sc_udp_frame(want, 128, dst, 0xc0a80001, 0xc0a80002, 53, 5353);
	memcpy(f->frame, want, 128);
	f->frame[24] = f->frame[25] = 0; /* IPv4 header checksum */
	f->frame[40] = f->frame[41] = 0; /* UDP checksum */
	sc_tx_wqe(&f->s, &f->tx, f->frame, 128, 0, MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM);
	sc_tx_ring(&f->tx);
	run(f);
	cqe = sc_cq_peek(&f->rx.cq);
	assert_non_null(cqe);
	assert_int_equal(cqe->hds_ip_ext & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK),
			 MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	assert_memory_equal(sc_rxq_buf(&f->rx, f->rx.pi - 64), want, 128);
	sc_cq_consume(&f->rx.cq, 1);
	/* Without the flags the zeroed IP checksum arrives as it left. */
	sc_tx_wqe(&f->s, &f->tx, f->frame, 128, 0, 0);
	sc_tx_ring(&f->tx);
	run(f);
	cqe = sc_cq_peek(&f->rx.cq);
	assert_non_null(cqe);
	assert_int_equal(cqe->hds_ip_ext & MLX5_CQE_L3_OK, 0);
	sc_cq_consume(&f->rx.cq, 1);
	assert_null(sc_cq_peek(&f->tx.cq)); /* no completion was asked for */
	fix_close(f, true);
}

static void test_tx_completion_per_request(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t last = 0, nop;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	for (int i = 0; i < 4; i++)
		last = sc_tx_wqe(&f->s, &f->tx, f->frame, 60, i == 3 ? MLX5_WQE_CTRL_CQ_UPDATE : 0,
				 0);
	/* A NOP of one ds asking for a completion. */
	nop = f->tx.pi;
	ctrl = (void *)sc_tx_wqe_at(&f->tx, nop);
	memset(ctrl, 0, 64);
	ctrl->opmod_idx_opcode = htobe32((nop & 0xffff) << 8 | MLX5_OPCODE_NOP);
	ctrl->qpn_ds = htobe32(f->tx.sqn << 8 | 1);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	f->tx.last_wqe = (void *)ctrl;
	f->tx.pi++;
	sc_tx_ring(&f->tx);
	run(f);
	assert_int_equal(be16toh(tx_cqe(f)->wqe_counter), last & 0xffff);
	assert_int_equal(be16toh(tx_cqe(f)->wqe_counter), nop & 0xffff);
	assert_null(sc_cq_peek(&f->tx.cq));
	assert_int_equal(sc_cq_drain(&f->rx.cq), 4);
	fix_close(f, true);
}

static void reset_qp(struct fix *f)
{
	struct ibv_qp_attr mod;

	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_RTS;
	assert_int_equal(f->s.g->modify_qp(f->tx.qp, &mod, IBV_QP_STATE), EINVAL); /* from ERR */
	mod.qp_state = IBV_QPS_RESET;
	assert_int_equal(f->s.g->modify_qp(f->tx.qp, &mod, IBV_QP_STATE), 0);
	mod.qp_state = IBV_QPS_INIT;
	mod.port_num = 1;
	assert_int_equal(f->s.g->modify_qp(f->tx.qp, &mod, IBV_QP_STATE | IBV_QP_PORT), 0);
	mod.qp_state = IBV_QPS_RTR;
	assert_int_equal(f->s.g->modify_qp(f->tx.qp, &mod, IBV_QP_STATE), 0);
	mod.qp_state = IBV_QPS_RTS;
	assert_int_equal(f->s.g->modify_qp(f->tx.qp, &mod, IBV_QP_STATE), 0);
	f->tx.pi = be32toh(f->tx.dv.dbrec[MLX5_SND_DBR]) & 0xffff;
}

/* The WQE just written fails with @p syndrome; the SQ recovers through RESET. */
static void expect_tx_error(struct fix *f, uint32_t idx, uint8_t syndrome)
{
	struct mlx5_err_cqe *err;
	struct mlx5_cqe64 *cqe;

	sc_tx_ring(&f->tx);
	run(f);
	cqe = tx_cqe(f);
	err = (struct mlx5_err_cqe *)(void *)cqe;
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ_ERR);
	assert_int_equal(err->syndrome, syndrome);
	assert_int_equal(be16toh(err->wqe_counter), idx & 0xffff);
	assert_int_equal(be32toh(err->s_wqe_opcode_qpn) & 0xffffff, f->tx.sqn);
	assert_int_equal(f->tx.qp->state, IBV_QPS_ERR);
	/* In error, doorbells are ignored. */
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	sc_tx_wqe(&f->s, &f->tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->tx);
	run(f);
	assert_null(sc_cq_peek(&f->tx.cq));
	reset_qp(f);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->tx);
	run(f);
	cqe = tx_cqe(f);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), idx & 0xffff);
	sc_cq_drain(&f->rx.cq);
}

static struct mlx5_wqe_data_seg *data_seg(struct fix *f, uint32_t idx)
{
	return (struct mlx5_wqe_data_seg *)(void *)(sc_tx_wqe_at(&f->tx, idx) + 48);
}

static void test_tx_error_bad_lkey(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 100, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 100, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	data_seg(f, idx)->lkey = htobe32(0x777701);
	expect_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	fix_close(f, true);
}

static void test_tx_error_out_of_range(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 100, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 100, 0, 0);
	data_seg(f, idx)->addr = htobe64((uintptr_t)(f->s.mem + f->s.mem_size - 40));
	expect_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	fix_close(f, true);
}

static void test_tx_error_length(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 1600, dst, 1, 2, 3, 4); /* MTU 1500 allows 1518 */
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 1600, 0, 0);
	expect_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 12, 0, 0); /* a runt */
	expect_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	fix_close(f, true);
}

static void test_tx_invalid_db_order(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint64_t first8;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	sc_tx_wqe(&f->s, &f->tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	/* The doorbell without the record: the device does not see the WQE. */
	memcpy(&first8, f->tx.last_wqe, 8);
	__atomic_store_n((uint64_t *)f->tx.dv.bf.reg, first8, __ATOMIC_RELEASE);
	run(f);
	assert_int_equal(invalid(f, SIM_MLX5_INV_DB_ORDER), 1);
	assert_null(sc_cq_peek(&f->tx.cq));
	sc_tx_ring(&f->tx); /* now in order */
	run(f);
	assert_non_null(tx_cqe(f));
	assert_int_equal(sc_cq_drain(&f->rx.cq), 1);
	fix_close(f, false);
}

static void test_tx_invalid_wqe_past_pi(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ctrl = (void *)sc_tx_wqe_at(&f->tx, idx);
	ctrl->qpn_ds = htobe32(f->tx.sqn << 8 | 8); /* two basic blocks, one published */
	sc_tx_ring(&f->tx);
	run(f);
	assert_int_equal(invalid(f, SIM_MLX5_INV_WQE_PAST_PI), 1);
	assert_null(sc_cq_peek(&f->tx.cq));
	assert_null(sc_cq_peek(&f->rx.cq));
	fix_close(f, false);
}

static void expect_invalid_error(struct fix *f, uint32_t idx, enum sim_mlx5_invalid kind)
{
	struct mlx5_cqe64 *cqe;

	sc_tx_ring(&f->tx);
	run(f);
	assert_int_equal(invalid(f, kind), 1);
	cqe = tx_cqe(f);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ_ERR);
	assert_int_equal(((struct mlx5_err_cqe *)(void *)cqe)->syndrome,
			 MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
	assert_int_equal(be16toh(cqe->wqe_counter), idx & 0xffff);
	assert_int_equal(f->tx.qp->state, IBV_QPS_ERR);
}

static void test_tx_invalid_ds(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 60, 0, 0);
	ctrl = (void *)sc_tx_wqe_at(&f->tx, idx);
	ctrl->qpn_ds = htobe32(f->tx.sqn << 8 | 2); /* 18 inline bytes need 3 */
	expect_invalid_error(f, idx, SIM_MLX5_INV_DS);
	fix_close(f, false);
}

static void test_tx_invalid_ctrl(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 60, 0, 0);
	ctrl = (void *)sc_tx_wqe_at(&f->tx, idx);
	ctrl->opmod_idx_opcode = htobe32(((idx + 5) & 0xffff) << 8 | MLX5_OPCODE_SEND);
	expect_invalid_error(f, idx, SIM_MLX5_INV_WQE_CTRL);
	fix_close(f, false);
}

static void test_tx_invalid_opcode(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->s, &f->tx, f->frame, 60, 0, 0);
	ctrl = (void *)sc_tx_wqe_at(&f->tx, idx);
	ctrl->opmod_idx_opcode = htobe32((idx & 0xffff) << 8 | MLX5_OPCODE_RDMA_WRITE);
	expect_invalid_error(f, idx, SIM_MLX5_INV_WQE_CTRL);
	fix_close(f, false);
}

static void test_tx_invalid_ring_overrun(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	sc_tx_wqe(&f->s, &f->tx, f->frame, 60, 0, 0);
	f->tx.pi += f->tx.dv.sq.wqe_cnt; /* a ring and one ahead */
	sc_tx_ring(&f->tx);
	run(f);
	assert_int_equal(invalid(f, SIM_MLX5_INV_RING_OVERRUN), 1);
	assert_null(sc_cq_peek(&f->rx.cq));
	fix_close(f, false);
}

static void test_tx_destroyed_sq_doorbell(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	void *reg = f->tx.dv.bf.reg;

	(void)state;
	sc_txq_fini(&f->s, &f->tx);
	f->tx.qp = NULL;
	__atomic_store_n((uint64_t *)reg, 1, __ATOMIC_RELEASE);
	run(f);
	assert_int_equal(invalid(f, SIM_MLX5_INV_DESTROYED_DB), 1);
	fix_close(f, false);
}

static void test_tx_flow_control(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 512, 4);
	struct sim_mlx5_port_stats st;
	uint32_t got = 0;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	for (int i = 0; i < 300; i++)
		sc_tx_wqe(&f->s, &f->tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->tx);
	run(f);
	/* 4 received, 256 wait on the cable, the rest wait in the SQ: none lost. */
	assert_int_equal(sc_cq_drain(&f->rx.cq), 4);
	assert_int_equal(sc_cq_drain(&f->tx.cq), 260);
	for (int round = 0; round < 10 && got < 296; round++) {
		sc_rxq_post(&f->s, &f->rx, 64);
		run(f);
		got += sc_cq_drain(&f->rx.cq);
	}
	assert_int_equal(got, 296);
	assert_int_equal(sc_cq_drain(&f->tx.cq), 40);
	assert_int_equal(sim_mlx5_port_stats(f->s.sim, 1, &st), 0);
	assert_int_equal(st.rx_frames, 300);
	assert_int_equal(st.rx_out_of_buffer, 0);
	assert_int_equal(st.rx_wire_drops, 0);
	fix_close(f, true);
}

static void test_tx_without_flow_control(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop,pause=off", 512, 4);
	struct sim_mlx5_port_stats st;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	for (int i = 0; i < 10; i++)
		sc_tx_wqe(&f->s, &f->tx, f->frame, 60, 0, 0);
	sc_tx_ring(&f->tx);
	run(f);
	assert_int_equal(sc_cq_drain(&f->rx.cq), 4);
	assert_int_equal(sim_mlx5_port_stats(f->s.sim, 1, &st), 0);
	assert_int_equal(st.rx_out_of_buffer, 6);
	fix_close(f, true);
}

static void test_tx_link_down(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct sim_mlx5_port_stats st;

	(void)state;
	assert_int_equal(sim_mlx5_link_set(f->s.sim, 0, false), 0);
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	sc_tx_wqe(&f->s, &f->tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->tx);
	run(f);
	assert_non_null(tx_cqe(f)); /* sent into a dead link, still completed */
	assert_null(sc_cq_peek(&f->rx.cq));
	assert_int_equal(sim_mlx5_port_stats(f->s.sim, 0, &st), 0);
	assert_int_equal(st.tx_dropped, 1);
	fix_close(f, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_loop_delivers),
		cmocka_unit_test(test_tx_checksum_offload),
		cmocka_unit_test(test_tx_completion_per_request),
		cmocka_unit_test(test_tx_error_bad_lkey),
		cmocka_unit_test(test_tx_error_out_of_range),
		cmocka_unit_test(test_tx_error_length),
		cmocka_unit_test(test_tx_invalid_db_order),
		cmocka_unit_test(test_tx_invalid_wqe_past_pi),
		cmocka_unit_test(test_tx_invalid_ds),
		cmocka_unit_test(test_tx_invalid_ctrl),
		cmocka_unit_test(test_tx_invalid_opcode),
		cmocka_unit_test(test_tx_invalid_ring_overrun),
		cmocka_unit_test(test_tx_destroyed_sq_doorbell),
		cmocka_unit_test(test_tx_flow_control),
		cmocka_unit_test(test_tx_without_flow_control),
		cmocka_unit_test(test_tx_link_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
