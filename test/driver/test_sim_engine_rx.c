/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5's receive engine: steering, scatter, the receive CQE's fields
 * (byte count, WQE counter, flow tag, header types, checksum verdicts), the
 * error CQEs of bad lkeys, ranges and lengths with the WQ's recovery
 * through RESET, running out of WQEs, and a producer index overrunning the
 * ring.
 */

#include "dvp_test.h"

#include <endian.h>

#include "mlx5_prm.h"
#include "sim_fixture.h"

#define TAG 0x1234

struct fix {
	struct sim_fix x; /* first: sim_fix_new() allocates the whole */
	uint8_t frame[2048];
};

static struct fix *fix_open(uint32_t buf_size, uint32_t post)
{
	const struct sim_fix_conf c = {
		.args = "mode=step",
		.nrxq = 1,
		.rx_wqe = 16,
		.rx_buf = buf_size,
		.rx_post = post,
		.rx_cq = 64,
		.rss_fields = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4,
		.rss_tag = TAG,
	};
	return sim_fix_new(sizeof(struct fix), &c);
}

static void fix_close(struct fix *f, bool expect_clean)
{
	sim_fix_free(&f->x, expect_clean);
}

static int inject(struct fix *f, const void *frame, uint32_t len)
{
	return sim_mlx5_inject(f->x.s.sim, 0, frame, len);
}

/* Independent Internet checksum for the frames these tests build. */
static uint16_t csum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* TCP/IPv4 with @p flags and @p payload bytes. */
static uint32_t tcp_frame(uint8_t *f, const uint8_t *mac, uint8_t flags, uint32_t payload)
{
	uint32_t len = 54 + payload, tlen = 20 + payload, sum = 0;

	memset(f, 0, len);
	memcpy(f, mac, 6);
	put16(f + 12, 0x0800);
	f[14] = 0x45;
	put16(f + 16, (uint16_t)(len - 14));
	f[22] = 64;
	f[23] = 6;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	put16(f + 24, csum(f + 14, 20, 0));
	put16(f + 34, 1234);
	put16(f + 36, 80);
	f[46] = 5 << 4;
	f[47] = flags;
	for (int i = 0; i < 8; i += 2)
		sum += (uint32_t)f[26 + i] << 8 | f[27 + i];
	sum += 6 + tlen;
	put16(f + 50, csum(f + 34, tlen, sum));
	return len;
}

/* UDP/IPv6 with a correct checksum. */
static uint32_t udp6_frame(uint8_t *f, const uint8_t *mac)
{
	uint32_t len = 14 + 40 + 8 + 10, sum = 0;

	memset(f, 0, len);
	memcpy(f, mac, 6);
	put16(f + 12, 0x86dd);
	f[14] = 0x60;
	put16(f + 18, 18);
	f[20] = 17;
	f[21] = 64;
	f[22 + 15] = 1; /* ::1 */
	f[38 + 15] = 2; /* ::2 */
	put16(f + 54, 5000);
	put16(f + 56, 6000);
	put16(f + 58, 18);
	for (int i = 0; i < 32; i += 2)
		sum += (uint32_t)f[22 + i] << 8 | f[23 + i];
	sum += 17 + 18;
	put16(f + 60, csum(f + 54, 18, sum));
	return len;
}

static struct mlx5_cqe64 *next_cqe(struct fix *f)
{
	struct mlx5_cqe64 *cqe = sc_cq_peek(&f->x.rx[0].cq);

	assert_non_null(cqe);
	sc_cq_consume(&f->x.rx[0].cq, 1);
	return cqe;
}

static void test_rx_cqe_fields(void **state)
{
	struct fix *f = fix_open(2048, 16);
	uint32_t start = f->x.rx[0].pi - 16, len;
	struct mlx5_cqe64 *cqe;

	(void)state;
	len = sc_udp_frame(f->frame, 100, f->x.mac, 0x0a000001, 0x0a000002, 1000, 2000);
	assert_int_equal(inject(f, f->frame, len), SIM_MLX5_RX_DELIVERED);
	cqe = next_cqe(f);
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_SEND);
	assert_int_equal(mlx5dv_get_cqe_format(cqe), 0);
	assert_int_equal(be32toh(cqe->byte_cnt), 100);
	assert_int_equal(be16toh(cqe->wqe_counter), start & 0xffff);
	assert_int_equal(be32toh(cqe->sop_drop_qpn) & MLX5_CQE_FLOW_TAG_MASK, TAG);
	assert_int_equal(cqe->hds_ip_ext & (MLX5_CQE_L3_OK | MLX5_CQE_L4_OK),
			 MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
	assert_int_equal(mlx5_cqe_l3_type(cqe), MLX5_CQE_L3_HDR_TYPE_IPV4);
	assert_int_equal(mlx5_cqe_l4_type(cqe), MLX5_CQE_L4_HDR_TYPE_UDP);
	assert_memory_equal(sc_rxq_buf(&f->x.rx[0], start), f->frame, 100);
	/* The second frame takes the next WQE. */
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_DELIVERED);
	cqe = next_cqe(f);
	assert_int_equal(be16toh(cqe->wqe_counter), (start + 1) & 0xffff);
	assert_null(sc_cq_peek(&f->x.rx[0].cq));
	fix_close(f, true);
}

static uint8_t verdicts(struct fix *f, const uint8_t *frame, uint32_t len, unsigned int *l3,
			unsigned int *l4, bool *frag)
{
	struct mlx5_cqe64 *cqe;

	assert_int_equal(inject(f, frame, len), SIM_MLX5_RX_DELIVERED);
	cqe = next_cqe(f);
	*l3 = mlx5_cqe_l3_type(cqe);
	*l4 = mlx5_cqe_l4_type(cqe);
	*frag = cqe->l4_hdr_type_etc & MLX5_CQE_IP_FRAG;
	sc_rxq_post(&f->x.s, &f->x.rx[0], 1);
	return cqe->hds_ip_ext & (MLX5_CQE_L2_OK | MLX5_CQE_L3_OK | MLX5_CQE_L4_OK);
}

static void test_rx_offload_flags(void **state)
{
	const uint8_t all = MLX5_CQE_L2_OK | MLX5_CQE_L3_OK | MLX5_CQE_L4_OK;
	struct fix *f = fix_open(2048, 16);
	unsigned int l3, l4;
	uint32_t len;
	bool frag;

	(void)state;
	len = sc_udp_frame(f->frame, 80, f->x.mac, 0x0a000001, 0x0a000002, 1, 2);
	f->frame[24] ^= 0x55; /* IP header checksum broken: only L3 fails */
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag), all & ~MLX5_CQE_L3_OK);
	len = sc_udp_frame(f->frame, 80, f->x.mac, 0x0a000001, 0x0a000002, 1, 2);
	f->frame[70] ^= 1; /* payload: UDP checksum fails */
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag), all & ~MLX5_CQE_L4_OK);
	len = sc_udp_frame(f->frame, 80, f->x.mac, 0x0a000001, 0x0a000002, 1, 2);
	/* No UDP checksum over IPv4: a valid frame, but nothing verified: L4_OK clear. */
	f->frame[40] = f->frame[41] = 0;
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag), all & ~MLX5_CQE_L4_OK);
	assert_int_equal(l4, MLX5_CQE_L4_HDR_TYPE_UDP);
	len = tcp_frame(f->frame, f->x.mac, 0x10, 0); /* bare ACK */
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag), all);
	assert_int_equal(l4, MLX5_CQE_L4_HDR_TYPE_TCP_EMP_ACK);
	len = tcp_frame(f->frame, f->x.mac, 0x18, 30); /* PSH ACK with data */
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag), all);
	assert_int_equal(l4, MLX5_CQE_L4_HDR_TYPE_TCP_ACK);
	len = tcp_frame(f->frame, f->x.mac, 0x02, 0); /* SYN */
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag), all);
	assert_int_equal(l4, MLX5_CQE_L4_HDR_TYPE_TCP);
	assert_int_equal(l3, MLX5_CQE_L3_HDR_TYPE_IPV4);
	len = udp6_frame(f->frame, f->x.mac);
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag), all);
	assert_int_equal(l3, MLX5_CQE_L3_HDR_TYPE_IPV6);
	assert_int_equal(l4, MLX5_CQE_L4_HDR_TYPE_UDP);
	len = sc_udp_frame(f->frame, 80, f->x.mac, 0x0a000001, 0x0a000002, 1, 2);
	f->frame[20] = 0x20; /* more fragments */
	put16(f->frame + 24, 0);
	put16(f->frame + 24, csum(f->frame + 14, 20, 0));
	assert_int_equal(verdicts(f, f->frame, len, &l3, &l4, &frag),
			 MLX5_CQE_L2_OK | MLX5_CQE_L3_OK);
	assert_true(frag);
	assert_int_equal(l4, MLX5_CQE_L4_HDR_TYPE_NONE);
	memset(f->frame, 0, 60);
	memcpy(f->frame, f->x.mac, 6);
	put16(f->frame + 12, 0x0806); /* ARP */
	assert_int_equal(verdicts(f, f->frame, 60, &l3, &l4, &frag), MLX5_CQE_L2_OK);
	assert_int_equal(l3, MLX5_CQE_L3_HDR_TYPE_NONE);
	fix_close(f, true);
}

static void test_rx_steering(void **state)
{
	static const uint8_t other[6] = { 0x02, 9, 9, 9, 9, 9 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	struct fix *f = fix_open(2048, 16);
	struct ibv_flow_attr mc = { .type = IBV_FLOW_ATTR_MC_DEFAULT,
				    .size = sizeof(mc),
				    .port = 1 };
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_action_drop drop;
	} dr;
	struct sim_mlx5_port_stats st;
	struct ibv_flow *mcf, *drf;

	(void)state;
	sc_udp_frame(f->frame, 60, other, 1, 2, 3, 4);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_NO_FLOW);
	memcpy(f->frame, bcast, 6);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_NO_FLOW);
	mcf = f->x.s.g->create_flow(f->x.rss.qp, &mc);
	assert_non_null(mcf);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_DELIVERED);
	/* A drop rule of a higher priority (lower number) wins over the unicast one. */
	memset(&dr, 0, sizeof(dr));
	dr.attr.type = IBV_FLOW_ATTR_NORMAL;
	dr.attr.size = sizeof(dr);
	dr.attr.num_of_specs = 2;
	dr.attr.port = 1;
	dr.eth.type = IBV_FLOW_SPEC_ETH;
	dr.eth.size = sizeof(dr.eth);
	memcpy(dr.eth.val.dst_mac, f->x.mac, 6);
	memset(dr.eth.mask.dst_mac, 0xff, 6);
	dr.drop.type = IBV_FLOW_SPEC_ACTION_DROP;
	dr.drop.size = sizeof(dr.drop);
	dr.attr.priority = 0;
	f->x.s.g->destroy_flow(f->x.rss.flow);
	f->x.rss.flow = NULL;
	drf = f->x.s.g->create_flow(f->x.rss.qp, &dr.attr);
	assert_non_null(drf);
	memcpy(f->frame, f->x.mac, 6);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_FLOW_DROP);
	assert_int_equal(sim_mlx5_port_stats(f->x.s.sim, 0, &st), 0);
	assert_int_equal(st.rx_no_flow, 2);
	assert_int_equal(st.rx_frames, 1);
	assert_int_equal(f->x.s.g->destroy_flow(drf), 0);
	/* The unicast rule again, tagged, for fix_close. */
	f->x.rss.flow = mcf;
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 1);
	fix_close(f, true);
}

static void test_rx_out_of_buffer(void **state)
{
	struct fix *f = fix_open(2048, 1);
	struct sim_mlx5_port_stats st;

	(void)state;
	sc_udp_frame(f->frame, 60, f->x.mac, 1, 2, 3, 4);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_NO_WQE);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_NO_WQE);
	assert_int_equal(sim_mlx5_port_stats(f->x.s.sim, 0, &st), 0);
	assert_int_equal(st.rx_out_of_buffer, 2);
	sc_rxq_post(&f->x.s, &f->x.rx[0], 1);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 2);
	fix_close(f, true);
}

/* Error CQE for the next frame, then the WQ is down until reset. */
static void expect_error(struct fix *f, uint8_t syndrome)
{
	struct mlx5_err_cqe *err;
	struct mlx5_cqe64 *cqe;
	uint32_t counter = f->x.rx[0].pi - 1;
	struct ibv_wq_attr mod;

	sc_udp_frame(f->frame, 100, f->x.mac, 1, 2, 3, 4);
	assert_int_equal(inject(f, f->frame, 100), SIM_MLX5_RX_ERROR_CQE);
	cqe = next_cqe(f);
	err = (struct mlx5_err_cqe *)(void *)cqe;
	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_ERR);
	assert_int_equal(err->syndrome, syndrome);
	assert_int_equal(be16toh(err->wqe_counter), counter & 0xffff);
	assert_int_equal(be32toh(err->s_wqe_opcode_qpn) & 0xffffff, f->x.rx[0].wq->wq_num);
	assert_int_equal(f->x.rx[0].wq->state, IBV_WQS_ERR);
	assert_int_equal(inject(f, f->frame, 100), SIM_MLX5_RX_QUEUE_DOWN);
	/* Recovery: RESET, RDY, counters from the record again, post again. */
	memset(&mod, 0, sizeof(mod));
	mod.attr_mask = IBV_WQ_ATTR_STATE;
	mod.wq_state = IBV_WQS_RDY;
	assert_int_equal(f->x.s.g->modify_wq(f->x.rx[0].wq, &mod), EINVAL); /* not from ERR */
	mod.wq_state = IBV_WQS_RESET;
	assert_int_equal(f->x.s.g->modify_wq(f->x.rx[0].wq, &mod), 0);
	mod.wq_state = IBV_WQS_RDY;
	assert_int_equal(f->x.s.g->modify_wq(f->x.rx[0].wq, &mod), 0);
	f->x.rx[0].pi = be32toh(f->x.rx[0].dv.dbrec[0]) & 0xffff;
	sc_rxq_post(&f->x.s, &f->x.rx[0], 4);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 1);
}

static struct mlx5_wqe_data_seg *last_posted(struct fix *f)
{
	return (struct mlx5_wqe_data_seg *)(void *)((uint8_t *)f->x.rx[0].dv.buf +
						    (size_t)((f->x.rx[0].pi - 1) &
							     (f->x.rx[0].dv.wqe_cnt - 1)) *
							    f->x.rx[0].dv.stride);
}

static void test_rx_bad_lkey(void **state)
{
	struct fix *f = fix_open(2048, 1);

	(void)state;
	last_posted(f)->lkey = htobe32(0xdead01);
	expect_error(f, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	fix_close(f, true);
}

static void test_rx_out_of_range(void **state)
{
	struct fix *f = fix_open(2048, 1);

	(void)state;
	/* 10 bytes before the end of the registered memory: 100 do not fit. */
	last_posted(f)->addr = htobe64((uintptr_t)(f->x.s.mem + f->x.s.mem_size - 10));
	expect_error(f, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	fix_close(f, true);
}

/* The next CQE is a flush of receive WQE @p counter (RESP_ERR, WR_FLUSH_ERR). */
static void expect_flush(struct fix *f, uint32_t counter)
{
	struct mlx5_cqe64 *cqe = next_cqe(f);
	struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)(void *)cqe;

	assert_int_equal(mlx5dv_get_cqe_opcode(cqe), MLX5_CQE_RESP_ERR);
	assert_int_equal(err->syndrome, MLX5_CQE_SYNDROME_WR_FLUSH_ERR);
	assert_int_equal(be16toh(err->wqe_counter), counter & 0xffff);
}

/*
 * After a receive error the WQ flushes every WQE posted behind the failing
 * one, in order, each with a CQE (a receive WQE always completes), and
 * those posted while it is in error by the time it is reset; the frames
 * arriving meanwhile are dropped, written nowhere.
 */
static void test_rx_error_flushes(void **state)
{
	struct fix *f = fix_open(2048, 6);
	uint32_t first = f->x.rx[0].pi - 6;
	struct sim_mlx5_dev_stats st;
	struct ibv_wq_attr mod;

	(void)state;
	assert_int_equal(sim_mlx5_fault_bad_lkey(f->x.s.sim, f->x.rx[0].wq->wq_num, 1), 0);
	sc_udp_frame(f->frame, 100, f->x.mac, 1, 2, 3, 4);
	assert_int_equal(inject(f, f->frame, 100), SIM_MLX5_RX_ERROR_CQE);
	assert_int_equal(mlx5dv_get_cqe_opcode(next_cqe(f)), MLX5_CQE_RESP_ERR);
	for (uint32_t i = 1; i < 6; i++)
		expect_flush(f, first + i);
	assert_null(sc_cq_peek(&f->x.rx[0].cq));
	assert_int_equal(inject(f, f->frame, 100), SIM_MLX5_RX_QUEUE_DOWN);
	/* Three more posted in error: flushed by the time RESET is done. */
	sc_rxq_post(&f->x.s, &f->x.rx[0], 3);
	memset(&mod, 0, sizeof(mod));
	mod.attr_mask = IBV_WQ_ATTR_STATE;
	mod.wq_state = IBV_WQS_RESET;
	assert_int_equal(f->x.s.g->modify_wq(f->x.rx[0].wq, &mod), 0);
	for (uint32_t i = 6; i < 9; i++)
		expect_flush(f, first + i);
	assert_null(sc_cq_peek(&f->x.rx[0].cq));
	st = sim_fix_stats(&f->x);
	assert_int_equal(st.flush_cqes, 8);
	assert_int_equal(st.error_cqes, 9);
	/* Back to RDY: frames land again. */
	mod.wq_state = IBV_WQS_RDY;
	assert_int_equal(f->x.s.g->modify_wq(f->x.rx[0].wq, &mod), 0);
	f->x.rx[0].pi = be32toh(f->x.rx[0].dv.dbrec[0]) & 0xffff;
	sc_rxq_post(&f->x.s, &f->x.rx[0], 4);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 1);
	/* Moved to ERR by the driver: what is posted is flushed at once. */
	mod.wq_state = IBV_WQS_ERR;
	assert_int_equal(f->x.s.g->modify_wq(f->x.rx[0].wq, &mod), 0);
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 3);
	st = sim_fix_stats(&f->x);
	assert_int_equal(st.flush_cqes, 11);
	fix_close(f, true);
}

static void test_rx_too_long(void **state)
{
	struct fix *f = fix_open(64, 1);

	(void)state;
	expect_error(f, MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR);
	fix_close(f, true);
}

static void test_rx_mr_without_local_write(void **state)
{
	struct fix *f = fix_open(2048, 1);
	struct ibv_mr *ro = f->x.s.g->reg_mr(f->x.s.pd, f->x.s.mem, 4096, 0);

	(void)state;
	assert_non_null(ro);
	last_posted(f)->lkey = htobe32(ro->lkey);
	expect_error(f, MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
	assert_int_equal(f->x.s.g->dereg_mr(ro), 0);
	fix_close(f, true);
}

static void test_rx_ring_overrun(void **state)
{
	struct fix *f = fix_open(2048, 4);
	struct sim_mlx5_dev_stats st;

	(void)state;
	/* A record far more than a ring ahead of the device. */
	__atomic_store_n(&f->x.rx[0].dv.dbrec[0],
			 htobe32((f->x.rx[0].pi + f->x.rx[0].dv.wqe_cnt) & 0xffff),
			 __ATOMIC_RELEASE);
	sc_udp_frame(f->frame, 60, f->x.mac, 1, 2, 3, 4);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_QUEUE_DOWN);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_QUEUE_DOWN);
	assert_int_equal(sim_mlx5_dev_stats(f->x.s.sim, &st), 0);
	assert_int_equal(st.invalid[SIM_MLX5_INV_RING_OVERRUN], 1); /* said once */
	fix_close(f, false);
}

static void test_rx_link_down_and_oversize(void **state)
{
	struct fix *f = fix_open(2048, 4);

	(void)state;
	sc_udp_frame(f->frame, 1518, f->x.mac, 1, 2, 3, 4);
	assert_int_equal(inject(f, f->frame, 1519), SIM_MLX5_RX_OVERSIZE);
	assert_int_equal(inject(f, f->frame, 1518), SIM_MLX5_RX_DELIVERED);
	assert_int_equal(sim_mlx5_link_set(f->x.s.sim, 0, false), 0);
	assert_int_equal(inject(f, f->frame, 60), SIM_MLX5_RX_LINK_DOWN);
	assert_int_equal(sim_mlx5_link_set(f->x.s.sim, 0, true), 0);
	assert_int_equal(inject(f, f->frame, 10), -EINVAL);
	assert_int_equal(sc_cq_drain(&f->x.rx[0].cq), 1);
	fix_close(f, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rx_cqe_fields),
		cmocka_unit_test(test_rx_offload_flags),
		cmocka_unit_test(test_rx_steering),
		cmocka_unit_test(test_rx_out_of_buffer),
		cmocka_unit_test(test_rx_bad_lkey),
		cmocka_unit_test(test_rx_error_flushes),
		cmocka_unit_test(test_rx_out_of_range),
		cmocka_unit_test(test_rx_too_long),
		cmocka_unit_test(test_rx_mr_without_local_write),
		cmocka_unit_test(test_rx_ring_overrun),
		cmocka_unit_test(test_rx_link_down_and_oversize),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
