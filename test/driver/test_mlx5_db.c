/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * drivers/common/mlx5/mlx5_db.h, the driver side of the protocol the mlx5
 * PMD will use: each helper writes the bytes rdma-core's rules give (the
 * test consumer's independent version), the ownership rule's truth table,
 * WQE packing, and the helpers alone driving the simulated HCA through a
 * send, a receive and an armed completion with no invalid use.
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_db.h"
#include "sim_fixture.h"

struct page {
	uint8_t b[4096];
} __attribute__((aligned(4096)));

static uint64_t reg64(const struct page *p, size_t off)
{
	uint64_t v;

	memcpy(&v, p->b + off, 8);
	return v;
}

static void test_set_ci(void **state)
{
	__be32 dbrec[2] = { 0, 0x11111111 };

	(void)state;
	mlx5_cq_set_ci(dbrec, 0x1234567); /* 24 bits reach the device */
	assert_int_equal(dbrec[0], htobe32(0x234567));
	assert_int_equal(dbrec[1], 0x11111111);
}

static void test_arm_matches_rdma_core(void **state)
{
	static struct page mine, theirs;
	__be32 rec_mine[2] = { 0 }, rec_theirs[2] = { 0 };
	struct sc_cq c;

	(void)state;
	mlx5_cq_arm(rec_mine, mine.b, 0x55, 6, 0x1abcdef, true);
	memset(&c, 0, sizeof(c));
	c.dv.cq_uar = theirs.b;
	c.dv.dbrec = rec_theirs;
	c.dv.cqn = 0x55;
	sc_cq_arm_raw(&c, 6, 0x1abcdef, true, true);
	/* [29:28] sn & 3, [24] solicited, [23:0] ci; then << 32 | cqn, big-endian. */
	assert_int_equal(rec_mine[1], htobe32(2u << 28 | 1u << 24 | 0xabcdef));
	assert_int_equal(rec_mine[1], rec_theirs[1]);
	assert_int_equal(reg64(&mine, MLX5_CQ_DOORBELL),
			 htobe64((uint64_t)(2u << 28 | 1u << 24 | 0xabcdef) << 32 | 0x55));
	assert_memory_equal(mine.b, theirs.b, sizeof(mine.b));
	assert_int_equal(mlx5_cq_arm_word(1, 5, false), 1u << 28 | 5);
}

static void test_rq_and_sq_doorbells(void **state)
{
	static struct page uar;
	__be32 rec[2] = { 0, 0 };
	uint8_t wqe[64];

	(void)state;
	mlx5_rq_db(rec, 0x12345);
	assert_int_equal(rec[MLX5_RCV_DBR], htobe32(0x2345));
	for (int i = 0; i < 64; i++)
		wqe[i] = (uint8_t)(0xa0 + i);
	mlx5_sq_db(rec, uar.b + MLX5_BF_OFFSET, 0x10002, wqe, true);
	assert_int_equal(rec[MLX5_SND_DBR], htobe32(2));
	assert_memory_equal(uar.b + MLX5_BF_OFFSET, wqe, 8);
	assert_int_equal(rec[MLX5_RCV_DBR], htobe32(0x2345));
}

static void test_ownership_rule(void **state)
{
	const uint32_t cnt = 64;

	(void)state;
	/* Initial CQEs: invalid opcode, owner 1: never software's. */
	assert_false(mlx5_cqe_sw_owned(MLX5_CQE_OP_OWN_INIT, 0, cnt));
	assert_false(mlx5_cqe_sw_owned(MLX5_CQE_OP_OWN_INIT, cnt, cnt));
	assert_false(mlx5_cqe_sw_owned(MLX5_CQE_INVALID << 4, 0, cnt));
	/* First pass: owner 0; second pass: owner 1; and so on. */
	assert_true(mlx5_cqe_sw_owned(MLX5_CQE_REQ << 4, 5, cnt));
	assert_false(mlx5_cqe_sw_owned(MLX5_CQE_REQ << 4 | 1, 5, cnt));
	assert_true(mlx5_cqe_sw_owned(MLX5_CQE_RESP_SEND << 4 | 1, cnt + 5, cnt));
	assert_false(mlx5_cqe_sw_owned(MLX5_CQE_RESP_SEND << 4, cnt + 5, cnt));
	assert_true(mlx5_cqe_sw_owned(MLX5_CQE_RESP_ERR << 4, 2 * cnt, cnt));
	/* A 24-bit wrap keeps the parity: 2^24 is a multiple of every ring. */
	assert_true(mlx5_cqe_sw_owned(MLX5_CQE_REQ << 4, 0x1000000, cnt));
}

static void test_wqe_packing(void **state)
{
	struct mlx5_wqe_ctrl_seg c;

	(void)state;
	mlx5_wqe_ctrl_fill(&c, 0x12345, MLX5_OPCODE_SEND, 0xabcdef, 4, MLX5_WQE_CTRL_CQ_UPDATE);
	assert_int_equal(be32toh(c.opmod_idx_opcode), 0x2345u << 8 | MLX5_OPCODE_SEND);
	assert_int_equal(be32toh(c.qpn_ds), 0xabcdefu << 8 | 4);
	assert_int_equal(c.fm_ce_se, MLX5_WQE_CTRL_CQ_UPDATE);
	assert_int_equal(mlx5_eseg_ds(0), 1);
	assert_int_equal(mlx5_eseg_ds(2), 1);
	assert_int_equal(mlx5_eseg_ds(18), 2);
	assert_int_equal(mlx5_eseg_ds(19), 3);
	assert_int_equal(mlx5_wqe_ds_to_bbs(4), 1);
	assert_int_equal(mlx5_wqe_ds_to_bbs(5), 2);
	assert_int_equal(mlx5_wqe_ds_to_bbs(63), 16);
}

/* The helpers alone, as the PMD will use them, against the simulator. */
static void test_helpers_drive_the_sim(void **state)
{
	static const uint8_t dst[6] = { 2, 0, 0, 0, 0, 9 };
	/* A loop cable, port 1's SQ to port 2's RQ, whose CQ reports events. */
	const struct sim_fix_conf c = {
		.args = "mode=step,ports=2,cable=loop,near_wrap=24",
		.tx_wqe = 16,
		.tx_cq = 16,
		.nrxq = 1,
		.rx_wqe = 16,
		.rx_buf = 256,
		.rx_cq = 16,
		.rx_channel = true,
		.rss_port = 2,
		.rss_all = true,
	};
	struct mlx5_cqe64 *cqe;
	struct mlx5_wqe_data_seg *ds;
	struct mlx5_wqe_eth_seg *es;
	uint8_t frame[80], *wqe, *buf;
	struct ibv_cq *cq;
	void *ctx;
	struct sim_fix f;
	struct sc_rxq *rx;
	struct sc_txq *tx;

	(void)state;
	sim_fix_open(&f, &c);
	rx = &f.rx[0];
	tx = &f.tx;
	/* Receive: one WQE and its record. */
	ds = (void *)((uint8_t *)rx->dv.buf + (rx->pi & (rx->dv.wqe_cnt - 1)) * rx->dv.stride);
	ds->byte_count = htobe32(256);
	ds->lkey = htobe32(f.s.mr->lkey);
	ds->addr = htobe64((uintptr_t)sc_rxq_buf(rx, rx->pi));
	mlx5_rq_db(rx->dv.dbrec, ++rx->pi);
	/* Arm the receive CQ before anything arrives. */
	mlx5_cq_arm(rx->cq.dv.dbrec, rx->cq.dv.cq_uar, rx->cq.dv.cqn, 0, rx->cq.ci, false);
	/* Send: control, Ethernet segment with 18 bytes inline, one data segment. */
	sc_udp_frame(frame, 80, dst, 1, 2, 3, 4);
	wqe = sc_tx_wqe_at(tx, tx->pi);
	buf = sc_alloc(&f.s, 64);
	memcpy(buf, frame + 18, 62);
	memset(wqe, 0, 64);
	mlx5_wqe_ctrl_fill((void *)wqe, tx->pi, MLX5_OPCODE_SEND, tx->sqn, 4,
			   MLX5_WQE_CTRL_CQ_UPDATE);
	es = (void *)(wqe + 16);
	es->inline_hdr_sz = htobe16(18);
	memcpy(es->inline_hdr_start, frame, 18);
	ds = (void *)(wqe + 48);
	ds->byte_count = htobe32(62);
	ds->lkey = htobe32(f.s.mr->lkey);
	ds->addr = htobe64((uintptr_t)buf);
	mlx5_sq_db(tx->dv.dbrec, tx->dv.bf.reg, ++tx->pi, wqe, true);
	sim_mlx5_step_idle(f.s.sim, 100);
	/* Send completion, then the frame, then the event. */
	cqe = mlx5_cqe_get(tx->cq.dv.buf, tx->cq.dv.cqe_cnt, tx->cq.ci);
	assert_non_null(cqe);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
	mlx5_cq_set_ci(tx->cq.dv.dbrec, ++tx->cq.ci);
	cqe = mlx5_cqe_get(rx->cq.dv.buf, rx->cq.dv.cqe_cnt, rx->cq.ci);
	assert_non_null(cqe);
	assert_int_equal(be32toh(cqe->byte_cnt), 80);
	assert_memory_equal(sc_rxq_buf(rx, rx->pi - 1), frame, 80);
	mlx5_cq_set_ci(rx->cq.dv.dbrec, ++rx->cq.ci);
	assert_null(mlx5_cqe_get(rx->cq.dv.buf, rx->cq.dv.cqe_cnt, rx->cq.ci));
	assert_int_equal(f.s.g->get_cq_event(f.s.ch, &cq, &ctx), 0);
	assert_ptr_equal(cq, rx->cq.cq);
	f.s.g->ack_cq_events(cq, 1);
	sim_fix_close(&f, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_ci),
		cmocka_unit_test(test_arm_matches_rdma_core),
		cmocka_unit_test(test_rq_and_sq_doorbells),
		cmocka_unit_test(test_ownership_rule),
		cmocka_unit_test(test_wqe_packing),
		cmocka_unit_test(test_helpers_drive_the_sim),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
