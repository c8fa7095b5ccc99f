/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's compressed CQE sessions as a consumer decoding them by the
 * PRM's legacy layout sees them: the title and its mini-CQE arrays at
 * T + 1, T + 8, T + 16..., sessions closed when full, on a completion that
 * does not match, on an error, at the end of an engine pass or injection,
 * before an event; sessions wrapping the CQ in the middle of an array over
 * many passes; the bus bytes they cost; dv_create_cq's and
 * dv_query_device's answers.
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

#define MAXF 64

struct fix {
	struct sim_fix x; /* first: sim_fix_new() allocates the whole */
	uint8_t frames[MAXF][256];
	const void *fp[MAXF];
	size_t lens[MAXF];
	int res[MAXF];
};

/* One completion as the consumer decodes it. */
struct rxc {
	uint32_t len, hash, tag;
	uint16_t csum, counter;
	uint8_t ok, hdr;
	uint32_t session; /* completions of its session; 1 for a plain CQE */
};

static struct fix *fix_open(const char *args, int rx_cq, uint8_t fmt, bool channel)
{
	const struct sim_fix_conf c = { .args = args,
					.nrxq = 1,
					.rx_post = 512,
					.rx_cq = rx_cq,
					.rx_channel = channel,
					.rss_fields = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4,
					.rss_tag = 0x123456,
					.rx_cqe_comp = fmt };
	struct fix *f = sim_fix_new(sizeof(*f), &c);

	for (unsigned int i = 0; i < MAXF; i++)
		f->fp[i] = f->frames[i];
	return f;
}

/* Frame @p i: UDP/IPv4 of @p len bytes from source address @p src, its payload marked with i. */
static void frame(struct fix *f, unsigned int i, uint32_t len, uint32_t src)
{
	f->lens[i] = sc_udp_frame(f->frames[i], len, f->x.mac, src, 0x0a000002, 1000, 2000);
	f->frames[i][len - 1] = (uint8_t)(i * 7 + len);
}

/* The checksum a CSUM mini-CQE carries: the folded 16-bit sum of the bytes after L2. */
static uint16_t csum16(const uint8_t *p, size_t n)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static int inject(struct fix *f, unsigned int n)
{
	return sim_mlx5_inject_burst(f->x.s.sim, 0, f->fp, f->lens, n, f->res);
}

static struct mlx5_cqe64 *slot(struct sc_cq *c, uint32_t idx)
{
	return (struct mlx5_cqe64 *)(void *)((uint8_t *)c->dv.buf +
					     (size_t)(idx & (c->dv.cqe_cnt - 1)) * 64);
}

/*
 * Take what waits at the consumer index, a plain receive CQE or a whole
 * session, into @p out; invalidate the session's array and hole slots as
 * DPDK does (op_own 0xF0), then consume. @return completions, 0 if none.
 */
static unsigned int take(struct sc_cq *c, bool hash_fmt, struct rxc *out)
{
	struct mlx5_cqe64 *t = sc_cq_peek(c);
	uint32_t n, ci = c->ci;

	if (t == NULL)
		return 0;
	assert_int_equal(t->op_own >> 4, MLX5_CQE_RESP_SEND);
	n = mlx5_cqe_format(t->op_own) == MLX5_CQE_FORMAT_COMPRESSED ? be32toh(t->byte_cnt) : 1;
	assert_true(n >= 1 && n <= 64);
	for (uint32_t i = 0; i < n; i++) {
		struct rxc *r = &out[i];

		r->hash = mlx5_cqe_rx_hash(t);
		r->tag = be32toh(t->sop_drop_qpn) & 0xffffff;
		r->counter = (uint16_t)(be16toh(t->wqe_counter) + i);
		r->ok = t->hds_ip_ext;
		r->hdr = t->l4_hdr_type_etc;
		r->session = n;
		r->csum = 0;
		if (n == 1) {
			r->len = be32toh(t->byte_cnt);
		} else {
			const struct mlx5_mini_cqe8 *m =
				(const struct mlx5_mini_cqe8 *)(const void *)slot(
					c, ci + (i < 8 ? 1 : i / 8 * 8)) +
				i % 8;

			r->len = be32toh(m->byte_cnt);
			if (hash_fmt)
				r->hash = be32toh(m->rx_hash_result);
			else
				r->csum = be16toh(m->checksum);
		}
	}
	for (uint32_t k = 1; k < n; k++)
		slot(c, ci + k)->op_own = 0xf0;
	sc_cq_consume(c, n);
	return n;
}

/* Take @p n completions (sessions whole) and check each against frames [0, n). */
static void take_check(struct fix *f, unsigned int n, bool hash_fmt, struct rxc *out)
{
	struct sc_rxq *q = &f->x.rx[0];
	unsigned int got = 0, k;

	while (got < n && (k = take(&q->cq, hash_fmt, out + got)) != 0)
		got += k;
	assert_int_equal(got, n);
	assert_null(sc_cq_peek(&q->cq));
	for (unsigned int i = 0; i < n; i++) {
		assert_int_equal(out[i].counter, (uint16_t)(f->x.rx_next + i));
		assert_int_equal(out[i].len, f->lens[i]);
		assert_memory_equal(sc_rxq_buf(q, out[i].counter), f->frames[i], f->lens[i]);
		assert_int_equal(out[i].tag, 0x123456);
	}
	f->x.rx_next += n;
	sc_rxq_post(&f->x.s, q, n);
}

static uint64_t cqe_bytes(struct fix *f)
{
	struct sim_mlx5_port_stats ps;

	assert_int_equal(sim_mlx5_port_stats(f->x.s.sim, 0, &ps), 0);
	return ps.bus_cqe_bytes;
}

static void test_session_layout(void **state)
{
	struct fix *f = fix_open("mode=step", 0, MLX5DV_CQE_RES_FORMAT_HASH, false);
	struct sc_cq *c = &f->x.rx[0].cq;
	struct mlx5_cqe64 *t = slot(c, c->ci);
	struct sim_mlx5_dev_stats ds;
	struct rxc out[MAXF];

	(void)state;
	for (unsigned int i = 0; i < 20; i++)
		frame(f, i, 60 + i, 0x0a000001);
	assert_int_equal(inject(f, 20), 20);
	/* One title: format 3, byte_cnt 20, the first WQE; the holes untouched. */
	assert_int_equal(t->op_own, MLX5_CQE_RESP_SEND << 4 | 0xc);
	assert_int_equal(be32toh(t->byte_cnt), 20);
	assert_int_equal(be16toh(t->wqe_counter), (uint16_t)f->x.rx_next);
	for (uint32_t k = 2; k < 20; k++)
		if (k != 8 && k != 16)
			assert_int_equal(slot(c, c->ci + k)->op_own, MLX5_CQE_OP_OWN_INIT);
	/* Mini 8 at T + 8, mini 19 at T + 16 + 3. */
	assert_int_equal(be32toh(((struct mlx5_mini_cqe8 *)(void *)slot(c, c->ci + 8))->byte_cnt),
			 68);
	assert_int_equal(
		be32toh(((struct mlx5_mini_cqe8 *)(void *)slot(c, c->ci + 16))[3].byte_cnt), 79);
	take_check(f, 20, true, out);
	for (unsigned int i = 0; i < 20; i++) {
		assert_int_equal(out[i].session, 20);
		assert_int_equal(out[i].hash, out[0].hash);
		assert_int_not_equal(out[i].hash, 0);
	}
	assert_int_equal(cqe_bytes(f), 64 * (1 + 3));
	assert_int_equal(sim_mlx5_dev_stats(f->x.s.sim, &ds), 0);
	assert_int_equal(ds.cqes, 20);
	assert_int_equal(ds.cqe_sessions, 1);
	assert_int_equal(ds.cqe_minis, 20);
	sim_fix_free(&f->x, true);
}

static void test_single_is_plain(void **state)
{
	struct fix *f = fix_open("mode=step", 0, MLX5DV_CQE_RES_FORMAT_HASH, false);
	struct rxc out[MAXF];

	(void)state;
	frame(f, 0, 100, 0x0a000001);
	assert_int_equal(sim_mlx5_inject(f->x.s.sim, 0, f->frames[0], f->lens[0]),
			 SIM_MLX5_RX_DELIVERED);
	assert_int_equal(mlx5_cqe_format(slot(&f->x.rx[0].cq, f->x.rx[0].cq.ci)->op_own), 0);
	take_check(f, 1, true, out);
	assert_int_equal(out[0].session, 1);
	assert_int_equal(inject(f, 1), 1);
	take_check(f, 1, true, out);
	assert_int_equal(out[0].session, 1);
	assert_int_equal(cqe_bytes(f), 128);
	sim_fix_free(&f->x, true);
}

static void test_full_sessions(void **state)
{
	struct fix *f = fix_open("mode=step,cqe_comp=8", 0, MLX5DV_CQE_RES_FORMAT_HASH, false);
	struct rxc out[MAXF];

	(void)state;
	for (unsigned int i = 0; i < 20; i++)
		frame(f, i, 64, 0x0a000001);
	assert_int_equal(inject(f, 20), 20);
	take_check(f, 20, true, out);
	assert_int_equal(out[0].session, 8);
	assert_int_equal(out[8].session, 8);
	assert_int_equal(out[16].session, 4);
	assert_int_equal(cqe_bytes(f), 64 * 6);
	sim_fix_free(&f->x, true);
}

/* What the title carries must match: a bad IP checksum (another L3 verdict) closes it. */
static void test_mismatch_closes(void **state)
{
	struct fix *f = fix_open("mode=step", 0, MLX5DV_CQE_RES_FORMAT_HASH, false);
	struct rxc out[MAXF];

	(void)state;
	for (unsigned int i = 0; i < 9; i++) {
		frame(f, i, 70, 0x0a000001);
		if (i >= 5 && i < 8)
			f->frames[i][22] ^= 1; /* TTL: the header checksum fails */
	}
	assert_int_equal(inject(f, 9), 9);
	take_check(f, 9, true, out);
	assert_int_equal(out[0].session, 5);
	assert_int_equal(out[5].session, 3);
	assert_int_equal(out[8].session, 1);
	assert_int_equal(out[0].ok & MLX5_CQE_L3_OK, MLX5_CQE_L3_OK);
	assert_int_equal(out[5].ok & MLX5_CQE_L3_OK, 0);
	sim_fix_free(&f->x, true);
}

/* Two flows alternating: one hash session; the checksum format splits them. */
static void check_two_flows(uint8_t fmt)
{
	static const uint32_t src[6] = { 1, 1, 1, 2, 2, 1 };
	struct fix *f = fix_open("mode=step", 0, fmt, false);
	bool hash = fmt == MLX5DV_CQE_RES_FORMAT_HASH;
	struct rxc out[MAXF];

	for (unsigned int i = 0; i < 6; i++)
		frame(f, i, 80 + i, 0x0a000000 + src[i]);
	assert_int_equal(inject(f, 6), 6);
	take_check(f, 6, hash, out);
	assert_int_not_equal(out[0].hash, out[3].hash);
	for (unsigned int i = 0; i < 6; i++) {
		assert_int_equal(out[i].hash, out[src[i] == 1 ? 0 : 3].hash);
		if (!hash && out[i].session > 1)
			assert_int_equal(out[i].csum, csum16(f->frames[i] + 14, f->lens[i] - 14));
	}
	if (hash) {
		assert_int_equal(out[0].session, 6);
	} else {
		assert_int_equal(out[0].session, 3);
		assert_int_equal(out[3].session, 2);
		assert_int_equal(out[5].session, 1);
	}
	sim_fix_free(&f->x, true);
}

static void test_hash_format_two_flows(void **state)
{
	(void)state;
	check_two_flows(MLX5DV_CQE_RES_FORMAT_HASH);
}

static void test_csum_format_two_flows(void **state)
{
	(void)state;
	check_two_flows(MLX5DV_CQE_RES_FORMAT_CSUM);
}

/*
 * A 64-entry CQ starting 3 below its end: the first session of 20 has its
 * title at slot 61, arrays at 62, 5 and 13; later ones fall anywhere, over
 * many passes. With the consumer invalidating as DPDK does, no stale slot
 * passes for a CQE.
 */
static void test_wrap_mid_array(void **state)
{
	struct fix *f = fix_open("mode=step,cq_start=61", 63, MLX5DV_CQE_RES_FORMAT_HASH, false);
	struct sc_cq *c = &f->x.rx[0].cq;
	struct rxc out[MAXF];

	(void)state;
	assert_int_equal(c->dv.cqe_cnt, 64);
	assert_int_equal(c->ci, 61);
	for (unsigned int round = 0; round < 60; round++) {
		unsigned int n = round == 0 ? 20 : 1 + (round * 13) % 40;
		uint32_t t = c->ci;

		for (unsigned int i = 0; i < n; i++)
			frame(f, i, 60 + (round + i) % 100, 0x0a000001);
		assert_int_equal(inject(f, n), (int)n);
		if (n > 1)
			assert_int_equal(mlx5dv_get_cqe_owner(slot(c, t)), !!(t & 64));
		take_check(f, n, true, out);
		assert_int_equal(out[0].session, n);
	}
	assert_true(c->ci > 64 * 10);
	sim_fix_free(&f->x, true);
}

/* An error CQE ends the session before it; the WQ stops and flushes what is posted. */
static void test_error_after_session(void **state)
{
	struct fix *f = fix_open("mode=step,bad_lkey=6", 0, MLX5DV_CQE_RES_FORMAT_HASH, false);
	struct sc_cq *c = &f->x.rx[0].cq;
	struct mlx5_cqe64 *e;
	struct rxc out[MAXF];

	(void)state;
	for (unsigned int i = 0; i < 10; i++)
		frame(f, i, 64, 0x0a000001);
	assert_int_equal(inject(f, 10), 5);
	assert_int_equal(f->res[5], SIM_MLX5_RX_ERROR_CQE);
	assert_int_equal(f->res[6], SIM_MLX5_RX_QUEUE_DOWN);
	assert_int_equal(take(c, true, out), 5);
	assert_int_equal(out[0].session, 5);
	e = sc_cq_peek(c);
	assert_non_null(e);
	assert_int_equal(mlx5dv_get_cqe_opcode(e), MLX5_CQE_RESP_ERR);
	assert_int_equal(mlx5_cqe_format(e->op_own), 0);
	assert_int_equal(be16toh(e->wqe_counter), (uint16_t)(f->x.rx_next + 5));
	sc_cq_consume(c, 1);
	/* Plain flush CQEs, never compressed, for the WQEs posted behind it. */
	for (e = sc_cq_peek(c); e != NULL; e = sc_cq_peek(c)) {
		assert_int_equal(mlx5dv_get_cqe_opcode(e), MLX5_CQE_RESP_ERR);
		assert_int_equal(mlx5_cqe_format(e->op_own), 0);
		assert_int_equal(((struct mlx5_err_cqe *)(void *)e)->syndrome,
				 MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
		sc_cq_consume(c, 1);
	}
	assert_int_equal(sim_fix_stats(&f->x).flush_cqes,
			 f->x.rx[0].pi - (uint32_t)(f->x.rx_next + 6));
	sim_fix_free(&f->x, true);
}

/* An armed CQ: the event's completion is written before it is raised, the rest after. */
static void test_event_closes_session(void **state)
{
	struct fix *f = fix_open("mode=step", 0, MLX5DV_CQE_RES_FORMAT_HASH, true);
	struct sc_cq *c = &f->x.rx[0].cq;
	struct rxc out[MAXF];

	(void)state;
	sc_cq_arm(c, false);
	assert_int_equal(sim_mlx5_step(f->x.s.sim), 1);
	for (unsigned int i = 0; i < 10; i++)
		frame(f, i, 64, 0x0a000001);
	assert_int_equal(inject(f, 10), 10);
	assert_int_equal(sc_cq_events(&f->x.s, c), 1);
	take_check(f, 10, true, out);
	assert_int_equal(out[0].session, 1);
	assert_int_equal(out[1].session, 9);
	sim_fix_free(&f->x, true);
}

/* Frames crossing a cable in one engine pass share a session, written at the pass's end. */
static void test_engine_pass(void **state)
{
	struct sim_fix_conf c = sim_fix_loop_conf("mode=step,ports=2,cable=loop", 256, 256);
	struct sim_mlx5_dev_stats ds;
	struct fix *f;
	struct rxc out[MAXF];

	(void)state;
	c.rx_cqe_comp = MLX5DV_CQE_RES_FORMAT_CSUM;
	f = sim_fix_new(sizeof(*f), &c);
	for (unsigned int i = 0; i < 12; i++) {
		frame(f, i, 60 + i, 0x0a000001);
		sc_tx_wqe(&f->x.s, &f->x.tx, f->frames[i], (uint32_t)f->lens[i], 0, 0);
	}
	sc_tx_ring(&f->x.tx);
	assert_true(sim_mlx5_step(f->x.s.sim) > 0);
	assert_int_equal(sim_mlx5_dev_stats(f->x.s.sim, &ds), 0);
	assert_int_equal(ds.cqe_sessions, 1);
	while (take(&f->x.rx[0].cq, false, out) != 0)
		;
	assert_int_equal(out[0].session, 12);
	for (unsigned int i = 0; i < 12; i++)
		assert_int_equal(out[i].len, f->lens[i]);
	sim_mlx5_step_idle(f->x.s.sim, 10);
	sc_cq_drain(&f->x.tx.cq);
	sim_fix_free(&f->x, true);
}

static void test_caps_and_refusals(void **state)
{
	struct sc s;
	struct mlx5dv_context dv = { .comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION };
	struct ibv_cq_init_attr_ex a = { .cqe = 64 };
	struct mlx5dv_cq_init_attr da = { .comp_mask = MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE };
	static const uint8_t bad[] = { 0, MLX5DV_CQE_RES_FORMAT_CSUM_STRIDX,
				       MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM };
	struct ibv_cq_ex *cx;

	(void)state;
	sc_open(&s, "mode=step");
	assert_int_equal(s.g->dv_query_device(s.ctx, &dv), 0);
	assert_true(dv.comp_mask & MLX5DV_CONTEXT_MASK_CQE_COMPRESION);
	assert_int_equal(dv.cqe_comp_caps.max_num, 64);
	assert_int_equal(dv.cqe_comp_caps.supported_format,
			 MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM);
	for (unsigned int i = 0; i < sizeof(bad); i++) {
		da.cqe_comp_res_format = bad[i];
		errno = 0;
		assert_null(s.g->dv_create_cq(s.ctx, &a, &da));
		assert_int_equal(errno, EINVAL);
	}
	a.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	da.cqe_comp_res_format = MLX5DV_CQE_RES_FORMAT_HASH;
	assert_null(s.g->dv_create_cq(s.ctx, &a, &da));
	a.wc_flags = 0;
	cx = s.g->dv_create_cq(s.ctx, &a, &da);
	assert_non_null(cx);
	assert_int_equal(s.g->destroy_cq(ibv_cq_ex_to_cq(cx)), 0);
	sc_close(&s);
	/* A device without compression says so, and refuses it. */
	sc_open(&s, "mode=step,cqe_comp=0");
	dv.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
	assert_int_equal(s.g->dv_query_device(s.ctx, &dv), 0);
	assert_int_equal(dv.cqe_comp_caps.max_num, 0);
	assert_int_equal(dv.cqe_comp_caps.supported_format, 0);
	errno = 0;
	assert_null(s.g->dv_create_cq(s.ctx, &a, &da));
	assert_int_equal(errno, EINVAL);
	sc_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_session_layout),
		cmocka_unit_test(test_single_is_plain),
		cmocka_unit_test(test_full_sessions),
		cmocka_unit_test(test_mismatch_closes),
		cmocka_unit_test(test_hash_format_two_flows),
		cmocka_unit_test(test_csum_format_two_flows),
		cmocka_unit_test(test_wrap_mid_array),
		cmocka_unit_test(test_error_after_session),
		cmocka_unit_test(test_event_closes_session),
		cmocka_unit_test(test_engine_pass),
		cmocka_unit_test(test_caps_and_refusals),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
