/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's enhanced multi-packet send WQEs (eMPW, opcode 0x29), over a
 * loop cable from port 0 to port 1: the capability as dv_query_device
 * reports it (and its absence with empw=off), pointer and inline packets
 * each delivered as its own frame in order, the largest WQE (63 units),
 * WQEs across the end of the ring, the title's checksum flags, one
 * completion per WQE that asks, errors (lkey, range, length) with the
 * packets before the failing one sent, the bad-lkey fault, flow control
 * holding a WQE between two packets. The rules a driver can break in
 * an eMPW WQE are rows of test_sim_engine_tx.c's table of malformed WQEs.
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

static const uint8_t dst[6] = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 };

#define NF 64

struct fix {
	struct sim_fix l; /* first: sim_fix_new() allocates the whole */
	uint8_t frames[NF][1600];
	uint32_t lens[NF];
	const uint8_t *fp[NF];
	uint8_t got[2048];
};

static struct fix *fix_open(const char *args, uint32_t tx_wqe, uint32_t rx_post)
{
	const struct sim_fix_conf c = sim_fix_loop_conf(args, tx_wqe, rx_post);
	struct fix *f = sim_fix_new(sizeof(*f), &c);

	for (int i = 0; i < NF; i++)
		f->fp[i] = f->frames[i];
	return f;
}

static void fix_close(struct fix *f, bool expect_clean)
{
	sim_fix_free(&f->l, expect_clean);
}

/* Frames first..first+n-1: UDP, lengths cycling through 60..1514, numbered by dport. */
static void frames_build(struct fix *f, unsigned int n, uint32_t first)
{
	static const uint32_t sizes[] = { 60, 61, 64, 100, 127, 128, 129, 256, 511, 1514 };

	assert_true(n <= NF);
	for (unsigned int i = 0; i < n; i++) {
		f->lens[i] = sizes[(first + i) % DVP_DIM(sizes)];
		sc_udp_frame(f->frames[i], f->lens[i], dst, 0x0a000001, 0x0a000002, 7,
			     (uint16_t)(first + i));
	}
}

/* The next @p n receive CQEs hold frames 0..n-1 of f->frames, in order. */
static void expect_rx(struct fix *f, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct mlx5_cqe64 *cqe = sc_cq_peek(&f->l.rx[0].cq);

		assert_non_null(cqe);
		assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_SEND);
		assert_int_equal(be32toh(cqe->byte_cnt), f->lens[i]);
		assert_memory_equal(sc_rxq_buf(&f->l.rx[0], f->l.rx_next), f->frames[i],
				    f->lens[i]);
		sc_cq_consume(&f->l.rx[0].cq, 1);
		f->l.rx_next++;
	}
}

static void expect_tx_cqe(struct fix *f, uint32_t idx, uint32_t bytes)
{
	struct mlx5_cqe64 *cqe = sim_fix_tx_cqe(&f->l);

	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_REQ);
	assert_int_equal(be16toh(cqe->wqe_counter), idx & 0xffff);
	assert_int_equal(be32toh(cqe->sop_drop_qpn) >> 24, MLX5_OPCODE_ENHANCED_MPSW);
	assert_int_equal(be32toh(cqe->sop_drop_qpn) & 0xffffff, f->l.tx.sqn);
	assert_int_equal(be32toh(cqe->byte_cnt), bytes);
}

static uint32_t sum(const uint32_t *lens, unsigned int n)
{
	uint32_t s = 0;

	for (unsigned int i = 0; i < n; i++)
		s += lens[i];
	return s;
}

static void test_empw_capability(void **state)
{
	struct mlx5dv_context attr;
	struct sc s;

	(void)state;
	sc_open(&s, "mode=step");
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(s.g->dv_query_device(s.ctx, &attr), 0);
	assert_true(attr.flags & MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED);
	assert_true(attr.flags & MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW);
	sc_close(&s);
	sc_open(&s, "mode=step,empw=off");
	memset(&attr, 0, sizeof(attr));
	assert_int_equal(s.g->dv_query_device(s.ctx, &attr), 0);
	assert_false(attr.flags &
		     (MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED | MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW));
	sc_close(&s);
}

/* 32 pointer packets in one WQE: 32 frames, in order, one completion. */
static void test_empw_pointers(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct sim_mlx5_port_stats st;
	uint32_t idx;

	(void)state;
	frames_build(f, 32, 0);
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 32, 0, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	assert_int_equal(sc_tx_wqe_ds(&f->l.tx, idx), 34);
	assert_int_equal(f->l.tx.pi - idx, 9); /* 34 units: 9 basic blocks */
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	expect_tx_cqe(f, idx, sum(f->lens, 32));
	assert_null(sc_cq_peek(&f->l.tx.cq));
	expect_rx(f, 32);
	assert_null(sc_cq_peek(&f->l.rx[0].cq));
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 0, &st), 0);
	assert_int_equal(st.tx_frames, 32);
	assert_int_equal(st.tx_bytes, sum(f->lens, 32));
	assert_int_equal(st.tx_empw_wqes, 1);
	assert_int_equal(st.tx_completions, 1);
	fix_close(f, true);
}

/*
 * The bus counters of both ports after one eMPW WQE of @p wqe_bytes whose
 * pointer packets are @p rd bytes, looped back as @p nrx frames of @p wr
 * bytes: a CQE per frame and one for the WQE, a receive WQE per frame.
 */
static void expect_bus(struct fix *f, uint64_t wqe_bytes, uint64_t rd, uint64_t nrx, uint64_t wr)
{
	struct sim_mlx5_port_stats a, b;

	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 0, &a), 0);
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 1, &b), 0);
	assert_int_equal(a.bus_cqe_bytes + b.bus_cqe_bytes, (nrx + 1) * 64);
	assert_int_equal(a.bus_wqe_bytes + b.bus_wqe_bytes, wqe_bytes + nrx * f->l.rx[0].dv.stride);
	assert_int_equal(a.bus_data_rd_bytes + b.bus_data_rd_bytes, rd);
	assert_int_equal(a.bus_data_wr_bytes + b.bus_data_wr_bytes, wr);
	assert_int_equal(a.bus_doorbells + b.bus_doorbells, 1);
	assert_true(a.bus_dbrec_updates + b.bus_dbrec_updates >= 2); /* the SQ's, the RQ's */
}

/* Inline and pointer packets mixed, and 0-byte inline segments as padding. */
static void test_empw_inline_mixed(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t lens[8];
	const uint8_t *fp[8];
	uint32_t idx;

	(void)state;
	frames_build(f, 6, 0); /* 60, 61, 64, 100, 127, 128 */
	/* Packets 0, 2, 3 inline; a pad (0 bytes) between 3 and 4 is no packet. */
	for (int i = 0; i < 4; i++) {
		lens[i] = f->lens[i];
		fp[i] = f->fp[i];
	}
	lens[4] = 0;
	fp[4] = f->fp[0];
	for (int i = 4; i < 6; i++) {
		lens[i + 1] = f->lens[i];
		fp[i + 1] = f->fp[i];
	}
	idx = sc_tx_empw(&f->l.s, &f->l.tx, fp, lens, 7, 0x1d, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	/* 2 + 4 (60 + 4 bytes) + 1 + 5 (64 + 4) + 7 (100 + 4) + 1 (pad) + 1 + 1 */
	assert_int_equal(sc_tx_wqe_ds(&f->l.tx, idx), 22);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	expect_tx_cqe(f, idx, sum(f->lens, 6));
	expect_rx(f, 6);
	expect_bus(f, 6 * MLX5_SEND_WQE_BB, f->lens[1] + f->lens[4] + f->lens[5], 6,
		   sum(f->lens, 6));
	fix_close(f, true);
}

/* The largest WQE: 61 pointer packets, ds 63, 16 basic blocks. */
static void test_empw_largest(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t idx;

	(void)state;
	frames_build(f, MLX5_EMPW_MAX_PTR_PKTS, 0);
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, MLX5_EMPW_MAX_PTR_PKTS, 0,
			 MLX5_WQE_CTRL_CQ_UPDATE, 0);
	assert_int_equal(sc_tx_wqe_ds(&f->l.tx, idx), 63);
	assert_int_equal(f->l.tx.pi - idx, 16);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	expect_tx_cqe(f, idx, sum(f->lens, MLX5_EMPW_MAX_PTR_PKTS));
	expect_rx(f, MLX5_EMPW_MAX_PTR_PKTS);
	fix_close(f, true);
}

/*
 * WQEs across the end of the ring, at every offset of the title from the
 * last basic block back: the data segments go on at the ring's start. The
 * ones without a completion request are covered by the next one's.
 */
static void test_empw_ring_wrap(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 256);
	uint32_t cnt = f->l.tx.dv.sq.wqe_cnt, first = 0;

	(void)state;
	assert_int_equal(cnt, 64);
	for (uint32_t back = 1; back <= 5; back++) {
		uint32_t idx, pads = 0;
		uint8_t pad[60];

		/* SEND WQEs up to @p back blocks before the end, without completions. */
		sc_udp_frame(pad, 60, dst, 1, 2, 3, 4);
		while ((f->l.tx.pi & (cnt - 1)) != cnt - back) {
			sc_tx_wqe(&f->l.s, &f->l.tx, pad, 60, 0, 0);
			pads++;
		}
		if (pads > 0) {
			sc_tx_ring(&f->l.tx);
			sim_fix_run(&f->l);
		}
		frames_build(f, 30, first);
		idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 30, back & 1 ? 0x5 : 0,
				 MLX5_WQE_CTRL_CQ_UPDATE, 0);
		assert_true((idx & (cnt - 1)) + (f->l.tx.pi - idx) > cnt); /* it wraps */
		sc_tx_ring(&f->l.tx);
		sim_fix_run(&f->l);
		expect_tx_cqe(f, idx, sum(f->lens, 30));
		assert_null(sc_cq_peek(&f->l.tx.cq));
		/* The SENDs first, then the 30. */
		for (uint32_t i = 0; i < pads; i++) {
			struct mlx5_cqe64 *cqe = sc_cq_peek(&f->l.rx[0].cq);

			assert_non_null(cqe);
			assert_int_equal(be32toh(cqe->byte_cnt), 60);
			assert_memory_equal(sc_rxq_buf(&f->l.rx[0], f->l.rx_next), pad, 60);
			sc_cq_consume(&f->l.rx[0].cq, 1);
			f->l.rx_next++;
		}
		expect_rx(f, 30);
		assert_null(sc_cq_peek(&f->l.rx[0].cq));
		sc_rxq_post(&f->l.s, &f->l.rx[0], pads + 30);
		first += 30;
	}
	fix_close(f, true);
}

/* The title's cs_flags apply to every packet of the WQE. */
static void test_empw_checksum(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint8_t want[4][128];

	(void)state;
	frames_build(f, 4, 0);
	for (int i = 0; i < 4; i++) {
		f->lens[i] = 128;
		sc_udp_frame(want[i], 128, dst, 0xc0a80001 + (uint32_t)i, 0xc0a80002, 53, 5353);
		memcpy(f->frames[i], want[i], 128);
		f->frames[i][24] = f->frames[i][25] = 0; /* IPv4 header checksum */
		f->frames[i][40] = f->frames[i][41] = 0; /* UDP checksum */
	}
	sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 4, 0x2, 0,
		   MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	for (int i = 0; i < 4; i++)
		memcpy(f->frames[i], want[i], 128);
	expect_rx(f, 4);
	fix_close(f, true);
}

/* Completions only for WQEs that ask; SEND and eMPW WQEs mixed on one SQ. */
static void test_empw_completions(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	struct mlx5_cqe64 *cqe;
	uint32_t a, b, c;

	(void)state;
	frames_build(f, 12, 0);
	a = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 4, 0, 0, 0);
	b = sc_tx_wqe(&f->l.s, &f->l.tx, f->frames[4], f->lens[4], MLX5_WQE_CTRL_CQ_UPDATE, 0);
	c = sc_tx_empw(&f->l.s, &f->l.tx, f->fp + 5, f->lens + 5, 7, 0, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	assert_int_equal(b, a + 2);
	assert_int_equal(c, b + 1);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	cqe = sim_fix_tx_cqe(&f->l);
	assert_int_equal(be16toh(cqe->wqe_counter), b & 0xffff);
	assert_int_equal(be32toh(cqe->sop_drop_qpn) >> 24, MLX5_OPCODE_SEND);
	expect_tx_cqe(f, c, sum(f->lens + 5, 7));
	assert_null(sc_cq_peek(&f->l.tx.cq));
	expect_rx(f, 12);
	fix_close(f, true);
}

/*
 * Ring the WQE at @p idx: @p sent of its packets arrive, then the error CQE
 * with @p syndrome names it and the SQ is in error; after a reset the SQ
 * sends again.
 */
static void expect_error(struct fix *f, uint32_t idx, unsigned int sent, uint8_t syndrome)
{
	struct mlx5_err_cqe *err = sim_fix_tx_error(&f->l, idx, syndrome);

	assert_int_equal(be32toh(err->s_wqe_opcode_qpn) >> 24, MLX5_OPCODE_ENHANCED_MPSW);
	expect_rx(f, sent);
	assert_null(sc_cq_peek(&f->l.rx[0].cq));
	sim_fix_sq_recover(&f->l);
	frames_build(f, 3, 100);
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 3, 0, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	expect_tx_cqe(f, idx, sum(f->lens, 3));
	expect_rx(f, 3);
}

static struct mlx5_wqe_data_seg *pkt_seg(struct fix *f, uint32_t idx, unsigned int k)
{
	return (struct mlx5_wqe_data_seg *)(void *)sc_tx_wqe_unit(&f->l.tx, idx, 2 + k);
}

static void test_empw_error_lkey_range_length(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 256);
	uint32_t idx;

	(void)state;
	/* A bad lkey on packet 3: packets 0..2 left before the error. */
	frames_build(f, 6, 0);
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 6, 0, 0, 0);
	pkt_seg(f, idx, 3)->lkey = htobe32(0x777701);
	expect_error(f, idx, 3, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	/* Packet 0 past the end of its MR. */
	frames_build(f, 6, 0);
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 6, 0, 0, 0);
	pkt_seg(f, idx, 0)->addr = htobe64((uintptr_t)(f->l.s.mem + f->l.s.mem_size - 40));
	expect_error(f, idx, 0, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	/* A runt (12 bytes) inline as packet 2, an oversized one (1600) as packet 1. */
	frames_build(f, 3, 0);
	f->lens[2] = 12;
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 3, 0x4, 0, 0);
	expect_error(f, idx, 2, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	frames_build(f, 3, 0);
	f->lens[1] = 1600; /* MTU 1500 allows 1518 */
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 3, 0, 0, 0);
	expect_error(f, idx, 1, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	/* A pointer segment of 0 bytes. */
	frames_build(f, 3, 0);
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 3, 0, 0, 0);
	pkt_seg(f, idx, 0)->byte_count = 0;
	expect_error(f, idx, 0, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	fix_close(f, true);
}

/* The bad-lkey fault hits the WQE's first pointer segment: nothing leaves. */
static void test_empw_fault_bad_lkey(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 64, 64);
	uint32_t idx;

	(void)state;
	assert_int_equal(sim_mlx5_fault_bad_lkey(f->l.s.sim, f->l.tx.sqn, 1), 0);
	frames_build(f, 5, 0);
	idx = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 5, 0, MLX5_WQE_CTRL_CQ_UPDATE, 0);
	expect_error(f, idx, 0, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	fix_close(f, true);
}

/*
 * 300 packets in WQEs of 30 toward a receiver with 4 buffers, pause on: 4
 * received, 256 wait on the cable, the WQE of packet 261 is held after its
 * 20th packet; buffers posted later take every packet, in order, none lost.
 */
static void test_empw_flow_control(void **state)
{
	struct fix *f = fix_open("mode=step,ports=2,cable=loop", 1024, 4);
	struct sim_mlx5_port_stats st;
	uint32_t idx[10], got = 0;

	(void)state;
	for (int w = 0; w < 10; w++) {
		frames_build(f, 30, (uint32_t)w * 30);
		idx[w] = sc_tx_empw(&f->l.s, &f->l.tx, f->fp, f->lens, 30, 0,
				    MLX5_WQE_CTRL_CQ_UPDATE, 0);
	}
	sc_tx_ring(&f->l.tx);
	sim_fix_run(&f->l);
	for (int w = 0; w < 8; w++) {
		frames_build(f, 30, (uint32_t)w * 30);
		expect_tx_cqe(f, idx[w], sum(f->lens, 30));
	}
	assert_null(sc_cq_peek(&f->l.tx.cq));
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 0, &st), 0);
	assert_int_equal(st.tx_frames, 260);
	for (int round = 0; round < 20 && got < 300; round++) {
		/* Frame k of the stream carries UDP destination port k: in order, none lost. */
		while (sc_cq_peek(&f->l.rx[0].cq) != NULL) {
			const uint8_t *b = sc_rxq_buf(&f->l.rx[0], f->l.rx_next++);

			assert_int_equal((uint32_t)b[36] << 8 | b[37], got);
			sc_cq_consume(&f->l.rx[0].cq, 1);
			got++;
		}
		sc_rxq_post(&f->l.s, &f->l.rx[0], 64);
		sim_fix_run(&f->l);
	}
	assert_int_equal(got, 300);
	for (int w = 8; w < 10; w++) {
		frames_build(f, 30, (uint32_t)w * 30);
		expect_tx_cqe(f, idx[w], sum(f->lens, 30));
	}
	assert_int_equal(sim_mlx5_port_stats(f->l.s.sim, 1, &st), 0);
	assert_int_equal(st.rx_frames, 300);
	assert_int_equal(st.rx_out_of_buffer, 0);
	assert_int_equal(st.rx_wire_drops, 0);
	fix_close(f, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empw_capability),
		cmocka_unit_test(test_empw_pointers),
		cmocka_unit_test(test_empw_inline_mixed),
		cmocka_unit_test(test_empw_largest),
		cmocka_unit_test(test_empw_ring_wrap),
		cmocka_unit_test(test_empw_checksum),
		cmocka_unit_test(test_empw_completions),
		cmocka_unit_test(test_empw_error_lkey_range_length),
		cmocka_unit_test(test_empw_fault_bad_lkey),
		cmocka_unit_test(test_empw_flow_control),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
