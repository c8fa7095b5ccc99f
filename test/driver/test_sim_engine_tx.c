/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's send engine, over a loop cable from port 0 to port 1: WQEs
 * gathered and delivered, checksum offload, VLAN insertion, completions
 * asked for or not, error CQEs and the SQ's recovery through RESET, flow control on a full
 * cable, link down, and the invalid uses a send queue can suffer (doorbell
 * before record, WQE past the producer index, malformed SEND and eMPW WQEs
 * from one table, ring overrun, doorbell of a destroyed SQ). LSO WQEs are
 * test_sim_engine_lso.c's.
 */

#include "dvp_test.h"

#include <endian.h>

#include <dvp_common.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

static const uint8_t dst[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

struct fix {
	struct sim_fix l; /* first: sim_fix_new() allocates the whole */
	uint8_t frame[2048], got[2048];
};

static struct fix *fix_open(const char *args, uint32_t tx_wqe, uint32_t rx_post)
{
	const struct sim_fix_conf c = sim_fix_loop_conf(args, tx_wqe, rx_post);
	struct fix *f = sim_fix_new(sizeof(*f), &c);

	assert_int_equal(sim_mlx5_capture(f->l.s.sim, 0, 16), 0);
	return f;
}

static void fix_close(struct fix *f, bool expect_clean)
{
	sim_fix_free(&f->l, expect_clean);
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
		idx[i] =
			sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, lens[i], MLX5_WQE_CTRL_CQ_UPDATE, 0);
	}
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	for (unsigned int i = 0; i < 4; i++) {
		struct mlx5_cqe64 *cqe = sim_fix_tx_cqe(&f->l);
		uint32_t counter = f->l.rx[0].pi - 64 + i;

		assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
		assert_int_equal(be16toh(cqe->wqe_counter), idx[i] & 0xffff);
		assert_int_equal(be32toh(cqe->byte_cnt), lens[i]);
		cqe = sc_cq_peek(&f->l.rx[0].cq);
		assert_non_null(cqe);
		assert_int_equal(be32toh(cqe->byte_cnt), lens[i]);
		sc_udp_frame(f->frame, lens[i], dst, 0x0a000001, 0x0a000002, 7, (uint16_t)i);
		assert_memory_equal(sc_rxq_buf(&f->l.rx[0], counter), f->frame, lens[i]);
		sc_cq_consume(&f->l.rx[0].cq, 1);
		assert_int_equal(sim_mlx5_capture_pop(f->l.s.sim, 0, f->got, sizeof(f->got)),
				 lens[i]);
		assert_memory_equal(f->got, f->frame, lens[i]);
	}
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 0, &st), 0);
	assert_int_equal(st.tx_frames, 4);
	assert_int_equal(st.tx_completions, 4);
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 1, &st), 0);
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
	sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 128, 0, MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	cqe = sc_cq_peek(&f->l.rx[0].cq);
	assert_non_null(cqe);
	assert_int_equal(cqe->hds_ip_ext & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK),
			 MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	assert_memory_equal(sc_rxq_buf(&f->l.rx[0], f->l.rx[0].pi - 64), want, 128);
	sc_cq_consume(&f->l.rx[0].cq, 1);
	/* Without the flags the zeroed IP checksum arrives as it left. */
	sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 128, 0, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	cqe = sc_cq_peek(&f->l.rx[0].cq);
	assert_non_null(cqe);
	assert_int_equal(cqe->hds_ip_ext & MLX5_CQE_L3_OK, 0);
	sc_cq_consume(&f->l.rx[0].cq, 1);
	assert_null(sc_cq_peek(&f->l.tx.cq)); /* no completion was asked for */
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
		last = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60,
				 i == 3 ? MLX5_WQE_CTRL_CQ_UPDATE : 0, 0);
	/* A NOP of one ds asking for a completion. */
	nop = f->l.tx.pi;
	ctrl = (void *)sc_tx_wqe_at(&f->l.tx, nop);
	memset(ctrl, 0, 64);
	ctrl->opmod_idx_opcode = htobe32((nop & 0xffff) << 8 | MLX5_OPCODE_NOP);
	ctrl->qpn_ds = htobe32(f->l.tx.sqn << 8 | 1);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	f->l.tx.last_wqe = (void *)ctrl;
	f->l.tx.pi++;
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	assert_int_equal(be16toh(sim_fix_tx_cqe(&f->l)->wqe_counter), last & 0xffff);
	assert_int_equal(be16toh(sim_fix_tx_cqe(&f->l)->wqe_counter), nop & 0xffff);
	assert_null(sc_cq_peek(&f->l.tx.cq));
	assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 4);
	fix_close(f, true);
}

/* The WQE just written fails with @p syndrome; the SQ recovers through RESET. */
/* The next send CQE is WQE @p idx's flush (REQ_ERR, WR_FLUSH_ERR). */
static void expect_flush(struct fix *f, uint32_t idx)
{
	struct mlx5_cqe64 *cqe = sim_fix_tx_cqe(&f->l);
	struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)(void *)cqe;

	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ_ERR);
	assert_int_equal(err->syndrome, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	assert_int_equal(be16toh(err->wqe_counter), idx & 0xffff);
}

static void expect_tx_error(struct fix *f, uint32_t idx, uint8_t syndrome)
{
	struct mlx5_err_cqe *err = sim_fix_tx_error(&f->l, idx, syndrome);
	struct mlx5_cqe64 *cqe;

	assert_int_equal(be32toh(err->s_wqe_opcode_qpn) & 0xffffff, f->l.tx.sqn);
	/* In error, a WQE posted is flushed: a CQE as it asks (here always), nothing sent. */
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	expect_flush(f, idx);
	assert_null(sc_cq_peek(&f->l.tx.cq));
	assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 0);
	sim_fix_sq_recover(&f->l);
	idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	cqe = sim_fix_tx_cqe(&f->l);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), idx & 0xffff);
	sc_cq_drain(&f->l.rx[0].cq);
}

static struct mlx5_wqe_data_seg *data_seg(struct fix *f, uint32_t idx)
{
	return (struct mlx5_wqe_data_seg *)(void *)(sc_tx_wqe_at(&f->l.tx, idx) + 48);
}

static void test_tx_error_bad_lkey(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 100, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 100, MLX5_WQE_CTRL_CQ_UPDATE, 0);
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
	idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 100, 0, 0);
	data_seg(f, idx)->addr = htobe64((uintptr_t)(f->l.s.mem + f->l.s.mem_size - 40));
	expect_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	fix_close(f, true);
}

static void test_tx_error_length(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 1600, dst, 1, 2, 3, 4); /* MTU 1500 allows 1518 */
	idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 1600, 0, 0);
	expect_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 12, 0, 0); /* a runt */
	expect_tx_error(f, idx, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	fix_close(f, true);
}

/*
 * A SEND WQE of @p len bytes with the first @p inl inline in its Ethernet
 * segment (across as many units as they take), the rest behind one data
 * segment. @return its index.
 */
static uint32_t send_inl(struct fix *f, uint32_t len, uint32_t inl)
{
	struct sc_txq *q = &f->l.tx;
	uint8_t wqe[4 * 64] = { 0 };
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_eth_seg *es = (void *)(wqe + 16);
	uint32_t off = (1 + mlx5_eseg_ds(inl)) * 16, idx = q->pi, ds, bbs;
	uint8_t *buf = q->bufs + (size_t)(q->next_buf++ % q->nbufs) * q->buf_size;

	es->inline_hdr_sz = htobe16((uint16_t)inl);
	memcpy(es->inline_hdr_start, f->frame, inl);
	if (len > inl) {
		struct mlx5_wqe_data_seg *d = (void *)(wqe + off);

		memcpy(buf, f->frame + inl, len - inl);
		d->byte_count = htobe32(len - inl);
		d->lkey = htobe32(f->l.s.mr->lkey);
		d->addr = htobe64((uintptr_t)buf);
		off += 16;
	}
	ds = off / 16;
	bbs = mlx5_wqe_ds_to_bbs(ds);
	ctrl->opmod_idx_opcode = htobe32((idx & 0xffff) << 8 | MLX5_OPCODE_SEND);
	ctrl->qpn_ds = htobe32(q->sqn << 8 | ds);
	ctrl->fm_ce_se = MLX5_WQE_CTRL_CQ_UPDATE;
	for (uint32_t b = 0; b < bbs; b++)
		memcpy(sc_tx_wqe_at(q, idx + b), wqe + b * 64, 64);
	q->last_wqe = sc_tx_wqe_at(q, idx);
	q->pi += bbs;
	return idx;
}

/*
 * The inline headers the device requires (inline_mode, as a VF's vport
 * context says; the profile's otherwise): a SEND WQE with fewer is an
 * error CQE (invalid use "inline"), one with as many or more is sent; an
 * eMPW WQE is refused wherever any are required.
 */
static void test_tx_inline_mode(void **state)
{
	static const struct {
		const char *mode;
		uint32_t len, short_inl, enough_inl;
	} cases[] = {
		/* l2: Ethernet and a VLAN tag, 18 bytes (or the frame, when shorter). */
		{ "profile=cx4lx,empw=on", 100, 14, 18 },
		{ "inline_mode=l2", 100, 0, 18 },
		/* ip: through the IPv4 header (14 + 20). */
		{ "inline_mode=ip", 100, 18, 34 },
		/* l4: through the UDP header (14 + 20 + 8). */
		{ "inline_mode=l4", 100, 34, 42 },
		{ "inline_mode=l4", 1514, 41, 64 },
	};
	const uint8_t *fp[1];
	uint32_t lens[1], idx;

	(void)state;
	for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
		char args[96];
		struct fix *f;

		snprintf(args, sizeof(args), "mode=step,ports=2,cable=loop,%s", cases[c].mode);
		f = fix_open(args, 64, 64);
		sc_udp_frame(f->frame, cases[c].len, dst, 1, 2, 3, 4);
		idx = send_inl(f, cases[c].len, cases[c].enough_inl);
		sc_tx_ring(&f->l.tx);
		sim_fix_run(&f->l);
		assert_int_equal(mlx5dv_get_cqe_opcode(sim_fix_tx_cqe(&f->l)), MLX5_CQE_REQ);
		assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 1);
		idx = send_inl(f, cases[c].len, cases[c].short_inl);
		sim_fix_tx_error(&f->l, idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		assert_int_equal(sim_fix_invalid(&f->l, SIM_MLX5_INV_INLINE), 1);
		sim_fix_sq_recover(&f->l);
		/* eMPW: refused whatever it carries. */
		fp[0] = f->frame;
		lens[0] = cases[c].len;
		idx = sc_tx_empw(&f->l.s, &f->l.tx, fp, lens, 1, 0, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		sim_fix_tx_error(&f->l, idx, MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR);
		assert_int_equal(sim_fix_invalid(&f->l, SIM_MLX5_INV_INLINE), 2);
		sim_fix_sq_recover(&f->l);
		/* After the reset, enough again: sent. */
		send_inl(f, cases[c].len, cases[c].enough_inl);
		sc_tx_ring(&f->l.tx);
		sim_fix_run(&f->l);
		assert_int_equal(mlx5dv_get_cqe_opcode(sim_fix_tx_cqe(&f->l)), MLX5_CQE_REQ);
		assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 1);
		fix_close(f, false);
	}
	/* No mode: no inline headers needed, eMPW taken. */
	{
		struct fix *f = fix_open("mode=step,ports=2,cable=loop,inline_mode=none", 64, 64);

		sc_udp_frame(f->frame, 100, dst, 1, 2, 3, 4);
		send_inl(f, 100, 0);
		fp[0] = f->frame;
		lens[0] = 100;
		sc_tx_empw(&f->l.s, &f->l.tx, fp, lens, 1, 0, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		sc_tx_ring(&f->l.tx);
		sim_fix_run(&f->l);
		assert_int_equal(mlx5dv_get_cqe_opcode(sim_fix_tx_cqe(&f->l)), MLX5_CQE_REQ);
		assert_int_equal(mlx5dv_get_cqe_opcode(sim_fix_tx_cqe(&f->l)), MLX5_CQE_REQ);
		assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 2);
		fix_close(f, true);
	}
}

/*
 * After a send error the SQ flushes every WQE behind the failing one, none
 * sent, each writing a flush CQE (REQ_ERR, WR_FLUSH_ERR) as its completion
 * mode says: ONLY_ERR (0) one, ONLY_FIRST_ERR (1) none, ALWAYS (2) and
 * CQE_AND_EQE (3) one. In the every-error mode a ring of WQEs overruns a
 * CQ sized for one completion every few dozen WQEs; in the first-error
 * mode it does not.
 */
static void test_tx_error_flush_modes(void **state)
{
	static const uint8_t modes[] = { 0, MLX5_WQE_CTRL_FIRST_ERR, MLX5_WQE_CTRL_CQ_UPDATE,
					 3u << MLX5_COMP_MODE_SHIFT };
	struct sim_fix_conf c = sim_fix_loop_conf("mode=step,ports=2,cable=loop", 128, 64);
	struct sim_mlx5_dev_stats st;
	uint32_t idx[5];
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	assert_int_equal(sim_mlx5_fault_bad_lkey(f->l.s.sim, f->l.tx.sqn, 1), 0);
	idx[0] = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, MLX5_WQE_CTRL_FIRST_ERR, 0);
	for (unsigned int i = 0; i < 4; i++)
		idx[i + 1] = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, modes[i], 0);
	sim_fix_tx_error(&f->l, idx[0], MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	expect_flush(f, idx[1]);
	expect_flush(f, idx[3]);
	expect_flush(f, idx[4]);
	assert_null(sc_cq_peek(&f->l.tx.cq));
	assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 0);
	st = sim_fix_stats(&f->l);
	assert_int_equal(st.flush_cqes, 3);
	/* Posted while in error: flushed too, once rung. */
	idx[0] = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, 0, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	expect_flush(f, idx[0]);
	sim_fix_sq_recover(&f->l);
	fix_close(f, true);

	/* 100 WQEs behind an error, on a CQ of 32: overrun in the every-error mode only. */
	c.tx_cq = 31;
	for (unsigned int m = 0; m < 2; m++) {
		uint8_t mode = m == 0 ? 0 : MLX5_WQE_CTRL_FIRST_ERR;

		f = sim_fix_new(sizeof(*f), &c);
		assert_int_equal(sim_mlx5_fault_bad_lkey(f->l.s.sim, f->l.tx.sqn, 1), 0);
		for (unsigned int i = 0; i < 100; i++)
			sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60,
				  i % 32 == 31 ? MLX5_WQE_CTRL_CQ_UPDATE : mode, 0);
		sc_tx_ring(&f->l.tx);
		sim_fix_run(&f->l);
		st = sim_fix_stats(&f->l);
		assert_int_equal(st.cq_overruns, m == 0 ? 1 : 0);
		assert_int_equal(st.flush_cqes, m == 0 ? 31 : 3);
		assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 0);
		sim_fix_free(&f->l, false);
	}
}

/*
 * VLAN insertion from a SEND's Ethernet segment: the tag after the MAC
 * addresses where the device has it; an error CQE (invalid use
 * "offload") where it has not.
 */
static void test_tx_vlan_insert(void **state)
{
	static const char *const args[] = { "mode=step,ports=2,cable=loop",
					    "mode=step,ports=2,cable=loop,vlan_insert=off" };

	(void)state;
	for (unsigned int a = 0; a < DVP_DIM(args); a++) {
		struct fix *f = fix_open(args[a], 64, 64);
		struct mlx5_wqe_eth_seg *es;
		uint32_t idx, w = htobe32(MLX5_ETH_WQE_VLAN_INSERT | 0x2064);

		sc_udp_frame(f->frame, 100, dst, 1, 2, 3, 4);
		idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 100, MLX5_WQE_CTRL_CQ_UPDATE, 0);
		/* No inline header: the frame by pointer, its segment moved up a unit. */
		es = (void *)sc_tx_wqe_unit(&f->l.tx, idx, 1);
		memcpy(&es->inline_hdr_sz, &w, sizeof(w));
		{
			struct mlx5_wqe_data_seg *d = (void *)sc_tx_wqe_unit(&f->l.tx, idx, 3);

			/* The whole frame in the data segment's buffer. */
			memcpy((uint8_t *)(uintptr_t)be64toh(d->addr), f->frame, 100);
			d->byte_count = htobe32(100);
			((struct mlx5_wqe_ctrl_seg *)(void *)sc_tx_wqe_at(&f->l.tx, idx))->qpn_ds =
				htobe32(f->l.tx.sqn << 8 | 3);
			memcpy(sc_tx_wqe_unit(&f->l.tx, idx, 2), d, sizeof(*d));
		}
		sc_tx_ring(&f->l.tx);
		sim_fix_run(&f->l);
		if (a == 1) {
			sim_fix_expect_invalid(&f->l, idx, SIM_MLX5_INV_OFFLOAD);
			fix_close(f, false);
			continue;
		}
		assert_int_equal(mlx5dv_get_cqe_opcode(sim_fix_tx_cqe(&f->l)), MLX5_CQE_REQ);
		assert_int_equal(sim_mlx5_capture_pop(f->l.s.sim, 0, f->got, sizeof(f->got)), 104);
		assert_memory_equal(f->got, f->frame, 12);
		assert_int_equal(f->got[12] << 8 | f->got[13], 0x8100);
		assert_int_equal(f->got[14] << 8 | f->got[15], 0x2064);
		assert_memory_equal(f->got + 16, f->frame + 12, 88);
		sc_cq_consume(&f->l.rx[0].cq, 1);
		fix_close(f, true);
	}
}

static void test_tx_invalid_db_order(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint64_t first8;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	/* The doorbell without the record: the device does not see the WQE. */
	memcpy(&first8, f->l.tx.last_wqe, 8);
	__atomic_store_n((uint64_t *)f->l.tx.dv.bf.reg, first8, __ATOMIC_RELEASE);
	sim_fix_run(&f->l);
	assert_int_equal(sim_fix_invalid(&f->l, SIM_MLX5_INV_DB_ORDER), 1);
	assert_null(sc_cq_peek(&f->l.tx.cq));
	sc_tx_ring(&f->l.tx); /* now in order */
	sim_fix_run(&f->l);
	assert_non_null(sim_fix_tx_cqe(&f->l));
	assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 1);
	fix_close(f, false);
}

static void test_tx_invalid_wqe_past_pi(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t idx;

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	ctrl = (void *)sc_tx_wqe_at(&f->l.tx, idx);
	ctrl->qpn_ds = htobe32(f->l.tx.sqn << 8 | 8); /* two basic blocks, one published */
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	assert_int_equal(sim_fix_invalid(&f->l, SIM_MLX5_INV_WQE_PAST_PI), 1);
	assert_null(sc_cq_peek(&f->l.tx.cq));
	assert_null(sc_cq_peek(&f->l.rx[0].cq));
	fix_close(f, false);
}

/*
 * Malformed WQEs, SEND and eMPW: each row is a WQE the consumer writes
 * correctly and then breaks in one field. The device must count one
 * invalid use of the row's kind, complete the WQE with a local QP
 * operation error, move the QP to the error state and send nothing
 * (sim_fix_expect_invalid()).
 */
enum wqe_kind { WQE_SEND, WQE_EMPW };

struct invalid_wqe {
	const char *what;
	const char *args; /* added to the loop device's */
	enum wqe_kind wqe;
	unsigned int frames; /* eMPW: packets in the session */
	uint32_t len; /* each frame's length */
	uint64_t inl; /* eMPW: frames written inline (bit i: frame i) */
	unsigned int ds; /* the ds count written over the right one (0: kept) */
	uint32_t idx_skew; /* added to the WQE index in the control segment */
	uint32_t opmod, opcode; /* written over the control segment's (0: kept) */
	uint16_t inline_hdr; /* eMPW: inline header bytes claimed (0: none) */
	enum sim_mlx5_invalid expect;
};

static const struct invalid_wqe invalid_wqes[] = {
	{ "SEND ds short of its 18 inline bytes", "", WQE_SEND, 1, 60, 0, 2, 0, 0, 0, 0,
	  SIM_MLX5_INV_DS },
	{ "SEND with the wrong WQE index", "", WQE_SEND, 1, 60, 0, 0, 5, 0, 0, 0,
	  SIM_MLX5_INV_WQE_CTRL },
	{ "RDMA WRITE on an Ethernet SQ", "", WQE_SEND, 1, 60, 0, 0, 0, 0, MLX5_OPCODE_RDMA_WRITE,
	  0, SIM_MLX5_INV_WQE_CTRL },
	{ "eMPW with inline headers", "", WQE_EMPW, 4, 60, 0, 0, 0, 0, 0, 2, SIM_MLX5_INV_EMPW },
	{ "eMPW with opmod 1", "", WQE_EMPW, 4, 60, 0, 0, 0, 1, 0, 0, SIM_MLX5_INV_EMPW },
	{ "eMPW title alone", "", WQE_EMPW, 2, 60, 0, 2, 0, 0, 0, 0, SIM_MLX5_INV_DS },
	{ "eMPW of empty inline segments only", "", WQE_EMPW, 2, 0, 0x3, 0, 0, 0, 0, 0,
	  SIM_MLX5_INV_DS },
	{ "eMPW inline frame past ds (6 needed)", "", WQE_EMPW, 1, 60, 0x1, 5, 0, 0, 0, 0,
	  SIM_MLX5_INV_DS },
	{ "eMPW on a device without it", ",empw=off", WQE_EMPW, 4, 60, 0, 0, 0, 0, 0, 0,
	  SIM_MLX5_INV_WQE_CTRL },
};

static uint32_t invalid_wqe_write(struct fix *f, const struct invalid_wqe *c)
{
	const uint8_t *fp[8];
	uint32_t lens[8], idx;
	struct mlx5_wqe_ctrl_seg *ctrl;
	uint32_t opmod_idx_opcode;

	assert_true(c->frames <= DVP_DIM(fp));
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	for (unsigned int i = 0; i < c->frames; i++) {
		fp[i] = f->frame;
		lens[i] = c->len;
	}
	if (c->wqe == WQE_SEND)
		idx = sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, c->len, 0, 0);
	else
		idx = sc_tx_empw(&f->l.s, &f->l.tx, fp, lens, c->frames, c->inl, 0, 0);
	ctrl = (void *)sc_tx_wqe_at(&f->l.tx, idx);
	if (c->ds != 0)
		ctrl->qpn_ds = htobe32(f->l.tx.sqn << 8 | c->ds);
	opmod_idx_opcode = be32toh(ctrl->opmod_idx_opcode);
	if (c->idx_skew != 0)
		opmod_idx_opcode = (opmod_idx_opcode & 0xff0000ffu) | ((idx + c->idx_skew) & 0xffff)
									      << 8;
	if (c->opcode != 0)
		opmod_idx_opcode = (opmod_idx_opcode & ~0xffu) | c->opcode;
	if (c->opmod != 0)
		opmod_idx_opcode = (opmod_idx_opcode & 0x00ffffffu) | c->opmod << 24;
	ctrl->opmod_idx_opcode = htobe32(opmod_idx_opcode);
	if (c->inline_hdr != 0) {
		struct mlx5_wqe_eth_seg *es = (void *)sc_tx_wqe_unit(&f->l.tx, idx, 1);

		es->inline_hdr_sz = htobe16(c->inline_hdr);
		memcpy(es->inline_hdr_start, f->frame, c->inline_hdr);
	}
	return idx;
}

static void test_tx_invalid_wqes(void **state)
{
	char args[96];

	(void)state;
	for (size_t i = 0; i < DVP_DIM(invalid_wqes); i++) {
		const struct invalid_wqe *c = &invalid_wqes[i];
		struct fix *f;

		print_message("%s\n", c->what);
		snprintf(args, sizeof(args), "mode=step,ports=2,cable=loop%s", c->args);
		f = fix_open(args, 64, 64);
		sim_fix_expect_invalid(&f->l, invalid_wqe_write(f, c), c->expect);
		fix_close(f, false);
	}
}

static void test_tx_invalid_ring_overrun(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);

	(void)state;
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, 0, 0);
	f->l.tx.pi += f->l.tx.dv.sq.wqe_cnt; /* a ring and one ahead */
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	assert_int_equal(sim_fix_invalid(&f->l, SIM_MLX5_INV_RING_OVERRUN), 1);
	assert_null(sc_cq_peek(&f->l.rx[0].cq));
	fix_close(f, false);
}

static void test_tx_destroyed_sq_doorbell(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	void *reg = f->l.tx.dv.bf.reg;

	(void)state;
	sc_txq_fini(&f->l.s, &f->l.tx);
	f->l.tx.qp = NULL;
	__atomic_store_n((uint64_t *)reg, 1, __ATOMIC_RELEASE);
	sim_fix_run(&f->l);
	assert_int_equal(sim_fix_invalid(&f->l, SIM_MLX5_INV_DESTROYED_DB), 1);
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
		sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	/* 4 received, 256 wait on the cable, the rest wait in the SQ: none lost. */
	assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 4);
	assert_int_equal(sc_cq_drain(&f->l.tx.cq), 260);
	for (int round = 0; round < 10 && got < 296; round++) {
		sc_rxq_post(&f->l.s, &f->l.rx[0], 64);
		sim_fix_run(&f->l);
		got += sc_cq_drain(&f->l.rx[0].cq);
	}
	assert_int_equal(got, 296);
	assert_int_equal(sc_cq_drain(&f->l.tx.cq), 40);
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 1, &st), 0);
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
		sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, 0, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	assert_int_equal(sc_cq_drain(&f->l.rx[0].cq), 4);
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 1, &st), 0);
	assert_int_equal(st.rx_out_of_buffer, 6);
	fix_close(f, true);
}

static void test_tx_link_down(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct sim_mlx5_port_stats st;

	(void)state;
	assert_int_equal(sim_mlx5_link_set(f->l.s.sim, 0, false), 0);
	sc_udp_frame(f->frame, 60, dst, 1, 2, 3, 4);
	sc_tx_wqe(&f->l.s, &f->l.tx, f->frame, 60, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	assert_non_null(sim_fix_tx_cqe(&f->l)); /* sent into a dead link, still completed */
	assert_null(sc_cq_peek(&f->l.rx[0].cq));
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 0, &st), 0);
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
		cmocka_unit_test(test_tx_error_flush_modes),
		cmocka_unit_test(test_tx_inline_mode),
		cmocka_unit_test(test_tx_vlan_insert),
		cmocka_unit_test(test_tx_invalid_db_order),
		cmocka_unit_test(test_tx_invalid_wqe_past_pi),
		cmocka_unit_test(test_tx_invalid_wqes),
		cmocka_unit_test(test_tx_invalid_ring_overrun),
		cmocka_unit_test(test_tx_destroyed_sq_doorbell),
		cmocka_unit_test(test_tx_flow_control),
		cmocka_unit_test(test_tx_without_flow_control),
		cmocka_unit_test(test_tx_link_down),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
