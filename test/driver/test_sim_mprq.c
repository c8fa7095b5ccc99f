/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's striding RQs, driven through the glue as a direct-verbs
 * consumer would: the capability dv_query_device reports, dv_create_wq
 * refusing out-of-range strides, frames spanning several strides, the
 * filler CQE when a frame does not fit the strides left, a frame longer
 * than a whole WQE dropped and counted, running out of WQEs, a WQE with a
 * bad lkey, and the bus counters (one 32-byte WQE read per WQE).
 */

#include "dvp_test.h"

#include <endian.h>
#include <errno.h>

#include <dvp_barrier.h>

#include "mlx5_prm.h"
#include "sim_consumer.h"

#define LOG_SZ 6u /* 64-byte strides */
#define LOG_NUM 3u /* 8 per WQE: 512 bytes */
#define STRD (1u << LOG_SZ)
#define NSTRD (1u << LOG_NUM)

struct mq {
	struct sc s;
	struct sc_rxq q; /* its wq is striding; bufs holds one WQE buffer per ring slot */
	struct sc_rss rss;
	uint8_t frame[2048];
};

static struct ibv_wq *create(struct sc *s, struct ibv_cq *cq, uint32_t log_sz, uint32_t log_num,
			     uint32_t max_sge, uint64_t mask)
{
	struct mlx5dv_wq_init_attr dv;
	struct ibv_wq_init_attr wa;

	memset(&wa, 0, sizeof(wa));
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = 4;
	wa.max_sge = max_sge;
	wa.pd = s->pd;
	wa.cq = cq;
	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = mask;
	dv.striding_rq_attrs.single_stride_log_num_of_bytes = log_sz;
	dv.striding_rq_attrs.single_wqe_log_num_of_strides = log_num;
	errno = 0;
	return s->g->dv_create_wq(s->ctx, &wa, &dv);
}

static void mq_open(struct mq *m)
{
	struct sc_rxq *qs[1] = { &m->q };
	struct ibv_wq_attr mod;
	struct mlx5dv_obj obj;

	sc_open(&m->s, "mode=step");
	memset(&m->q, 0, sizeof(m->q));
	sc_cq_init(&m->s, &m->q.cq, 64, false);
	m->q.wq =
		create(&m->s, m->q.cq.cq, LOG_SZ, LOG_NUM, 1, MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ);
	assert_non_null(m->q.wq);
	memset(&mod, 0, sizeof(mod));
	mod.attr_mask = IBV_WQ_ATTR_STATE;
	mod.wq_state = IBV_WQS_RDY;
	assert_int_equal(m->s.g->modify_wq(m->q.wq, &mod), 0);
	memset(&obj, 0, sizeof(obj));
	obj.rwq.in = m->q.wq;
	obj.rwq.out = &m->q.dv;
	assert_int_equal(m->s.g->dv_init_obj(&obj, MLX5DV_OBJ_RWQ), 0);
	assert_int_equal(m->q.dv.stride, MLX5_MPRQ_WQE_SIZE);
	assert_int_equal(m->q.dv.wqe_cnt, 4);
	m->q.pi = be32toh(m->q.dv.dbrec[MLX5_RCV_DBR]) & 0xffff;
	m->q.buf_size = STRD * NSTRD;
	m->q.bufs = sc_alloc(&m->s, (size_t)m->q.dv.wqe_cnt * m->q.buf_size);
	sc_rss_init(&m->s, &m->rss, qs, 1, 0, NULL, 1, NULL, 0);
}

static void mq_close(struct mq *m)
{
	sc_rss_fini(&m->s, &m->rss);
	sc_rxq_fini(&m->s, &m->q);
	assert_int_equal(sim_mlx5_invalid_total(m->s.sim), 0);
	sc_close(&m->s);
}

/* Post @p n striding WQEs with @p lkey (the registered memory's unless a test breaks it). */
static void post(struct mq *m, uint32_t n, uint32_t lkey)
{
	for (uint32_t i = 0; i < n; i++, m->q.pi++) {
		struct mlx5_mprq_wqe *w =
			(struct mlx5_mprq_wqe *)(void *)((uint8_t *)m->q.dv.buf +
							 (size_t)(m->q.pi & (m->q.dv.wqe_cnt - 1)) *
								 MLX5_MPRQ_WQE_SIZE);

		memset(&w->nseg, 0, sizeof(w->nseg));
		w->dseg.byte_count = htobe32(STRD * NSTRD);
		w->dseg.lkey = htobe32(lkey);
		w->dseg.addr = htobe64((uintptr_t)sc_rxq_buf(&m->q, m->q.pi));
	}
	dvp_dma_to_device_barrier();
	__atomic_store_n(&m->q.dv.dbrec[MLX5_RCV_DBR], htobe32(m->q.pi & 0xffff), __ATOMIC_RELEASE);
}

/* A frame of @p len bytes whose payload bytes count from @p seed. */
static int inject(struct mq *m, uint32_t len, uint8_t seed)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 1 };

	sc_udp_frame(m->frame, len, dst, 1, 2, 3, 4);
	for (uint32_t i = 42; i < len; i++)
		m->frame[i] = (uint8_t)(seed + i);
	return sim_mlx5_inject(m->s.sim, 0, m->frame, len);
}

/* The next CQE: a frame of @p len in @p strides strides from @p stride of WQE @p wqe (filler if len is 0). */
static void expect_cqe(struct mq *m, uint32_t len, uint32_t strides, uint32_t stride, uint32_t wqe)
{
	struct mlx5_cqe64 *cqe = sc_cq_peek(&m->q.cq);
	uint32_t bc;

	assert_non_null(cqe);
	assert_int_equal(cqe->op_own >> 4, MLX5_CQE_RESP_SEND);
	bc = be32toh(cqe->byte_cnt);
	assert_int_equal(bc & MLX5_MPRQ_LEN_MASK, len);
	assert_int_equal((bc & MLX5_MPRQ_STRIDE_NUM_MASK) >> MLX5_MPRQ_STRIDE_NUM_SHIFT, strides);
	assert_int_equal(!!(bc & MLX5_MPRQ_FILLER_MASK), len == 0);
	assert_int_equal(be16toh(cqe->wqe_counter), stride);
	assert_int_equal(be16toh(cqe->wqe_id), wqe & 0xffff);
	if (len != 0)
		assert_memory_equal(sc_rxq_buf(&m->q, wqe) + (size_t)stride * STRD, m->frame, len);
	sc_cq_consume(&m->q.cq, 1);
}

/*
 * What the kernel reports (mlx5_ib_query_device): strides of 2^6..2^13
 * bytes, 2^9..2^16 per WQE, or 2^3..2^16 with ext_stride_num_range (every
 * profile but cx4lx, or ext_stride_num=on).
 */
static void test_mprq_caps(void **state)
{
	static const struct {
		const char *args;
		uint32_t num_min;
	} cases[] = {
		{ "mode=step", 3 },
		{ "mode=step,profile=cx4lx", 9 },
		{ "mode=step,profile=cx5", 3 },
		{ "mode=step,profile=cx7,ext_stride_num=off", 9 },
		{ "mode=step,profile=cx4lx,ext_stride_num=on", 3 },
	};
	struct mlx5dv_context attr;
	struct sc s;

	(void)state;
	for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
		sc_open(&s, cases[c].args);
		memset(&attr, 0, sizeof(attr));
		assert_int_equal(s.g->dv_query_device(s.ctx, &attr), 0);
		assert_int_equal(attr.comp_mask, 0);
		memset(&attr, 0, sizeof(attr));
		attr.comp_mask = MLX5DV_CONTEXT_MASK_STRIDING_RQ;
		assert_int_equal(s.g->dv_query_device(s.ctx, &attr), 0);
		assert_int_equal(attr.comp_mask, MLX5DV_CONTEXT_MASK_STRIDING_RQ);
		assert_int_equal(attr.striding_rq_caps.min_single_stride_log_num_of_bytes, 6);
		assert_int_equal(attr.striding_rq_caps.max_single_stride_log_num_of_bytes, 13);
		assert_int_equal(attr.striding_rq_caps.min_single_wqe_log_num_of_strides,
				 cases[c].num_min);
		assert_int_equal(attr.striding_rq_caps.max_single_wqe_log_num_of_strides, 16);
		assert_true(attr.striding_rq_caps.supported_qpts & (1u << IBV_QPT_RAW_PACKET));
		sc_close(&s);
	}
}

static void test_mprq_create_refused(void **state)
{
	const uint64_t on = MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ;
	struct sc_cq cq;
	struct ibv_wq *wq;
	struct sc s;

	(void)state;
	sc_open(&s, "mode=step");
	sc_cq_init(&s, &cq, 64, false);
	assert_null(create(&s, cq.cq, 5, 6, 1, on));
	assert_int_equal(errno, EINVAL);
	assert_null(create(&s, cq.cq, 14, 6, 1, on));
	assert_int_equal(errno, EINVAL);
	assert_null(create(&s, cq.cq, 11, 2, 1, on));
	assert_int_equal(errno, EINVAL);
	assert_null(create(&s, cq.cq, 11, 17, 1, on));
	assert_int_equal(errno, EINVAL);
	assert_null(create(&s, cq.cq, 11, 6, 2, on));
	assert_int_equal(errno, EINVAL);
	assert_null(create(&s, cq.cq, 11, 6, 1, on | 2));
	assert_int_equal(errno, EINVAL);
	/* Without the mask, a plain RQ of 16-byte WQEs. */
	wq = create(&s, cq.cq, 0, 0, 1, 0);
	assert_non_null(wq);
	assert_int_equal(s.g->destroy_wq(wq), 0);
	wq = create(&s, cq.cq, 13, 16, 1, on);
	assert_non_null(wq);
	assert_int_equal(s.g->destroy_wq(wq), 0);
	sc_cq_fini(&s, &cq);
	sc_close(&s);
	/* Without ext_stride_num_range, 2^9 strides at least. */
	sc_open(&s, "mode=step,profile=cx4lx");
	sc_cq_init(&s, &cq, 64, false);
	assert_null(create(&s, cq.cq, 11, 8, 1, on));
	assert_int_equal(errno, EINVAL);
	wq = create(&s, cq.cq, 6, 9, 1, on);
	assert_non_null(wq);
	assert_int_equal(s.g->destroy_wq(wq), 0);
	sc_cq_fini(&s, &cq);
	sc_close(&s);
}

/*
 * 60 bytes: one stride; 200: four; 300 with three strides left: a filler
 * for them, then five strides at the start of the next WQE; 600, longer
 * than the 512-byte WQE: dropped and counted, nothing written.
 */
static void test_mprq_strides_and_filler(void **state)
{
	struct sim_mlx5_port_stats ps;
	uint32_t w0;
	struct mq m;

	(void)state;
	mq_open(&m);
	w0 = m.q.pi;
	post(&m, 2, m.s.mr->lkey);
	assert_int_equal(inject(&m, 60, 1), SIM_MLX5_RX_DELIVERED);
	expect_cqe(&m, 60, 1, 0, w0);
	assert_int_equal(inject(&m, 200, 2), SIM_MLX5_RX_DELIVERED);
	expect_cqe(&m, 200, 4, 1, w0);
	assert_int_equal(inject(&m, 300, 3), SIM_MLX5_RX_DELIVERED);
	expect_cqe(&m, 0, 3, 5, w0);
	expect_cqe(&m, 300, 5, 0, w0 + 1);
	assert_int_equal(inject(&m, 600, 4), SIM_MLX5_RX_OVERSIZE);
	assert_null(sc_cq_peek(&m.q.cq));
	/* Exactly the three strides left: no filler. */
	assert_int_equal(inject(&m, 3 * STRD, 5), SIM_MLX5_RX_DELIVERED);
	expect_cqe(&m, 3 * STRD, 3, 5, w0 + 1);
	assert_null(sc_cq_peek(&m.q.cq));
	assert_int_equal(sim_mlx5_port_stats(m.s.sim, 0, &ps), 0);
	assert_int_equal(ps.rx_frames, 4);
	assert_int_equal(ps.rx_mprq_fillers, 1);
	assert_int_equal(ps.rx_mprq_oversize, 1);
	assert_int_equal(ps.rx_dropped, 1);
	assert_int_equal(ps.bus_wqe_bytes, 2 * MLX5_MPRQ_WQE_SIZE);
	assert_int_equal(ps.bus_cqe_bytes, 5 * 64);
	assert_int_equal(ps.bus_data_wr_bytes, 60 + 200 + 300 + 3 * STRD);
	mq_close(&m);
}

/* The filler moves to a WQE that is not posted: out of buffer until the next post. */
static void test_mprq_out_of_wqes(void **state)
{
	struct sim_mlx5_port_stats ps;
	uint32_t w0;
	struct mq m;

	(void)state;
	mq_open(&m);
	w0 = m.q.pi;
	assert_int_equal(inject(&m, 60, 1), SIM_MLX5_RX_NO_WQE);
	post(&m, 1, m.s.mr->lkey);
	assert_int_equal(inject(&m, 400, 1), SIM_MLX5_RX_DELIVERED);
	expect_cqe(&m, 400, 7, 0, w0);
	assert_int_equal(inject(&m, 100, 2), SIM_MLX5_RX_NO_WQE);
	expect_cqe(&m, 0, 1, 7, w0);
	assert_null(sc_cq_peek(&m.q.cq));
	post(&m, 1, m.s.mr->lkey);
	assert_int_equal(inject(&m, 100, 3), SIM_MLX5_RX_DELIVERED);
	expect_cqe(&m, 100, 2, 0, w0 + 1);
	assert_int_equal(sim_mlx5_port_stats(m.s.sim, 0, &ps), 0);
	assert_int_equal(ps.rx_out_of_buffer, 2);
	assert_int_equal(ps.rx_mprq_fillers, 1);
	mq_close(&m);
}

/* A WQE whose lkey is not an MR: an error CQE when the device reads it, the WQ in error. */
static void test_mprq_bad_lkey(void **state)
{
	struct mlx5_err_cqe *err;
	struct mq m;

	(void)state;
	mq_open(&m);
	post(&m, 1, m.s.mr->lkey + 0x100);
	assert_int_equal(inject(&m, 60, 1), SIM_MLX5_RX_ERROR_CQE);
	err = (struct mlx5_err_cqe *)(void *)sc_cq_peek(&m.q.cq);
	assert_non_null(err);
	assert_int_equal(err->op_own >> 4, MLX5_CQE_RESP_ERR);
	assert_int_equal(err->syndrome, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	sc_cq_consume(&m.q.cq, 1);
	assert_int_equal(inject(&m, 60, 1), SIM_MLX5_RX_QUEUE_DOWN);
	mq_close(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mprq_caps),
		cmocka_unit_test(test_mprq_create_refused),
		cmocka_unit_test(test_mprq_strides_and_filler),
		cmocka_unit_test(test_mprq_out_of_wqes),
		cmocka_unit_test(test_mprq_bad_lkey),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
