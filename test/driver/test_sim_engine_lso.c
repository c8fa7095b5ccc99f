/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's LSO (TSO opcode) over a loop cable from port 0 to port 1: a
 * message cut into frames with their headers rewritten, the rules a WQE
 * must keep (an mss, every header inline, no VLAN insertion flag, frames
 * within the MTU), and a WQE of many frames held and resumed on a full
 * cable with none lost.
 */

#include "dvp_test.h"

#include <endian.h>

#include <dvp_common.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

static const uint8_t dst[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

struct fix {
	struct sim_fix l; /* first: sim_fix_new() allocates the whole */
	uint8_t got[2048];
};

/* Two ports on a loop cable, port 0's frames captured. */
static struct fix *fix_open(uint32_t tx_wqe, uint32_t rx_post)
{
	const struct sim_fix_conf c =
		sim_fix_loop_conf("mode=step,ports=2,cable=loop", tx_wqe, rx_post);
	struct fix *f = sim_fix_new(sizeof(*f), &c);

	assert_int_equal(sim_mlx5_capture(f->l.s.sim, 0, 16), 0);
	return f;
}

/*
 * An LSO WQE written by hand: the control segment (opcode TSO), the
 * Ethernet segment with @p mss and the first @p inl bytes of @p msg
 * inline, the rest of it as one inline data segment. @return its index.
 */
static uint32_t lso_wqe(struct fix *f, const uint8_t *msg, uint32_t len, uint32_t inl, uint16_t mss,
			bool vlan_flag)
{
	uint8_t wqe[MLX5_WQE_MAX_DS * MLX5_WSEG_SIZE] __dvp_aligned(16);
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_eth_seg *es = (void *)(wqe + MLX5_WSEG_SIZE);
	uint32_t idx = f->l.tx.pi, eds = mlx5_eseg_ds(inl), rest = len - inl, bc, ds, bbs;

	memset(wqe, 0, sizeof(wqe));
	es->mss = htobe16(mss);
	es->cs_flags = MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM;
	es->inline_hdr_sz = htobe16((uint16_t)inl);
	memcpy(es->inline_hdr_start, msg, inl);
	if (vlan_flag) {
		uint32_t w = htobe32(MLX5_ETH_WQE_VLAN_INSERT | 7);

		memcpy(&es->inline_hdr_sz, &w, sizeof(w));
	}
	bc = htobe32(rest | MLX5_INLINE_SEG);
	memcpy(wqe + (1 + eds) * MLX5_WSEG_SIZE, &bc, sizeof(bc));
	memcpy(wqe + (1 + eds) * MLX5_WSEG_SIZE + 4, msg + inl, rest);
	ds = 1 + eds + (4 + rest + MLX5_WSEG_SIZE - 1) / MLX5_WSEG_SIZE;
	ctrl->opmod_idx_opcode = htobe32((idx & 0xffff) << 8 | MLX5_OPCODE_TSO);
	ctrl->qpn_ds = htobe32(f->l.tx.sqn << 8 | ds);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	bbs = mlx5_wqe_ds_to_bbs(ds);
	for (uint32_t b = 0; b < bbs; b++)
		memcpy(sc_tx_wqe_at(&f->l.tx, idx + b), wqe + b * MLX5_SEND_WQE_BB,
		       MLX5_SEND_WQE_BB);
	f->l.tx.last_wqe = sc_tx_wqe_at(&f->l.tx, idx);
	f->l.tx.pi += bbs;
	return idx;
}

/* An IPv4/TCP message: Ethernet, IPv4, TCP (seq 100, PSH|ACK), @p payload bytes. */
static uint32_t lso_msg(uint8_t *m, uint32_t payload)
{
	memset(m, 0, 54 + payload);
	memcpy(m, dst, 6);
	m[12] = 0x08;
	m[14] = 0x45;
	m[20] = 0x40; /* DF */
	m[22] = 64;
	m[23] = 6; /* TCP */
	m[29] = 1;
	m[33] = 2;
	m[37] = 80;
	m[41] = 100; /* seq */
	m[46] = 0x50; /* doff 5 */
	m[47] = 0x18; /* PSH, ACK */
	for (uint32_t i = 0; i < payload; i++)
		m[54 + i] = (uint8_t)i;
	return 54 + payload;
}

/*
 * LSO: a message cut into frames of mss payload bytes, FIN/PSH on the last
 * alone, sequence numbers and IPv4 ids counting up; the rules (an mss,
 * every header inline, no VLAN insertion flag) answered with a local
 * length error, nothing sent.
 */
static void test_tx_lso(void **state)
{
	static const struct {
		const char *what;
		uint32_t inl;
		uint16_t mss;
		bool vlan_flag;
	} bad[] = {
		{ "mss 0", 54, 0, false },
		{ "the TCP header not inline", 34, 40, false },
		{ "VLAN insertion asked", 54, 40, true },
		{ "frames above the MTU", 54, 1500, false },
	};
	struct fix *f = fix_open(64, 64);
	uint8_t msg[256];
	uint32_t len = lso_msg(msg, 100), idx;
	struct mlx5_cqe64 *cqe;

	(void)state;
	idx = lso_wqe(f, msg, len, 54, 40, false);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	cqe = sim_fix_tx_cqe(&f->l);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), idx & 0xffff);
	for (uint32_t i = 0; i < 3; i++) {
		uint32_t n = i < 2 ? 40 : 20;

		assert_int_equal(sim_mlx5_capture_pop(f->l.s.sim, 0, f->got, sizeof(f->got)),
				 54 + n);
		assert_memory_equal(f->got, msg, 16); /* MACs, type, version, tos */
		assert_int_equal(f->got[16] << 8 | f->got[17], 40 + n); /* IPv4 length */
		assert_int_equal(f->got[19], i); /* IPv4 id */
		assert_int_equal(f->got[41], 100 + 40 * i); /* TCP seq */
		assert_int_equal(f->got[47], i < 2 ? 0x10 : 0x18); /* PSH on the last */
		assert_memory_equal(f->got + 54, msg + 54 + 40 * i, n);
		sc_cq_consume(&f->l.rx[0].cq, 1);
	}
	sim_fix_free(&f->l, true);
	for (size_t c = 0; c < DVP_DIM(bad); c++) {
		print_message("LSO with %s\n", bad[c].what);
		f = fix_open(64, 64);
		idx = lso_wqe(f, msg, len, bad[c].inl, bad[c].mss, bad[c].vlan_flag);
		sc_tx_ring(&f->l.tx);
		sim_fix_run(&f->l);
		sim_fix_tx_error(&f->l, idx, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
		assert_int_equal(sim_fix_invalid(&f->l, SIM_MLX5_INV_OFFLOAD), 1);
		assert_int_equal(sim_mlx5_capture_pop(f->l.s.sim, 0, f->got, sizeof(f->got)), 0);
		sim_fix_free(&f->l, false);
	}
}

/* An LSO WQE of 300 frames on a full cable: held between two frames, resumed, none lost. */
static void test_tx_lso_flow_control(void **state)
{
	struct fix *f = fix_open(512, 4);
	struct sim_mlx5_port_stats st;
	uint8_t msg[54 + 600];
	uint32_t got = 0;

	(void)state;
	lso_wqe(f, msg, lso_msg(msg, 600), 54, 2, false);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	/* 4 received, 256 wait on the cable, the WQE waits with 40 frames to go. */
	assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 4);
	assert_null(sc_cq_peek(&f->l.tx.cq));
	for (int round = 0; round < 10 && got < 296; round++) {
		sc_rxq_post(&f->l.s, &f->l.rx[0], 64);
		sim_fix_run(&f->l);
		got += sc_cq_drain(&f->l.rx[0].cq);
	}
	assert_int_equal(got, 296);
	assert_int_equal(sc_cq_drain(&f->l.tx.cq), 1);
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 1, &st), 0);
	assert_int_equal(st.rx_frames, 300);
	assert_int_equal(st.rx_wire_drops, 0);
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 0, &st), 0);
	assert_int_equal(st.tx_frames, 300);
	assert_int_equal(st.tx_lso_wqes, 1);
	sim_fix_free(&f->l, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tx_lso),
		cmocka_unit_test(test_tx_lso_flow_control),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
