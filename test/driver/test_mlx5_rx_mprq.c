/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's multi-packet (striding) RQs on sim_mlx5 (mprq_en): a
 * stream of mixed sizes spanning several strides, with filler CQEs when a
 * frame does not fit the strides left, every mbuf checked against the
 * frame sent (length and bytes); the pool running empty in the middle of
 * a burst (rx_nombuf, the packet waits for a later burst); an error CQE
 * and the queue's recovery; a stop and start with strides in use; the
 * devargs, their warnings and refusals. Every test ends with the sim
 * having seen no invalid use, no mbuf held by the port and every mbuf
 * back in its pool.
 *
 * Each test brings the EAL up itself: devargs come from -a at init, and
 * the sim numbers its devices in creation order over the process.
 */

#include "mlx5_fixture.h"

#include <dvp_port_driver.h>

#include "mlx5_rx.h"
#include "mlx5_rx_mprq.h"

/* 128-byte strides, 128 per WQE (16 KB, the least DPDK asks): frames span up to 12. */
#define SMALL_STRIDES "mprq_en=1,rxqs_min_mprq=1,mprq_log_stride_size=7,mprq_log_stride_num=7"

static unsigned int sim_index;

static int eal_up(const char *pmd_args, const char *sim_args, struct dvp_log_capture *cap)
{
	char cpu[16], allow[256], vdev[128];
	int ret;

	snprintf(cpu, sizeof(cpu), "%d", dvp_test_first_cpu());
	snprintf(allow, sizeof(allow), "sim_mlx5_%u,%s", sim_index, pmd_args);
	/* The program's device argument too (a profile), as mf_open() gives it. */
	snprintf(vdev, sizeof(vdev), "sim_mlx5,%s%s%s", sim_args, mf_sim_extra != NULL ? "," : "",
		 mf_sim_extra != NULL ? mf_sim_extra : "");
	if (cap != NULL)
		dvp_log_capture_begin(cap);
	ret = dvp_test_eal_init("--no-huge", "-m", "256", "-l", cpu, "-a", allow, "--vdev", vdev);
	if (cap != NULL)
		dvp_log_capture_end(cap);
	return ret;
}

/* The EAL with a stepped one-port sim device carrying @p pmd_args, and a pool of @p pool_n. */
static void mp_open_sim(struct mf *f, const char *pmd_args, const char *sim_args,
			unsigned int pool_n)
{
	char name[32];

	assert_true(eal_up(pmd_args, sim_args, NULL) > 0);
	snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
	memset(f, 0, sizeof(*f));
	f->sim = sim_mlx5_find(name);
	assert_non_null(f->sim);
	f->nports = 1;
	assert_int_equal(dvp_port_get_by_name(name, &f->port[0]), 0);
	f->mp = dvp_pktmbuf_pool_create("mprq_pool", pool_n, DVP_MIN(32u, pool_n / 4), 0,
					DVP_MBUF_DEFAULT_BUF_SIZE, DVP_SOCKET_ANY);
	assert_non_null(f->mp);
	f->pool_n = pool_n;
}

static void mp_open(struct mf *f, const char *pmd_args, unsigned int pool_n)
{
	mp_open_sim(f, pmd_args, "ports=1,mode=step,cable=traffic,gen=off", pool_n);
}

static void mp_close(struct mf *f)
{
	assert_int_equal(dvp_port_stop(f->port[0]), 0);
	assert_int_equal(dvp_port_mbufs_held(f->port[0]), 0);
	assert_int_equal(dvp_port_close(f->port[0]), 0);
	assert_int_equal(sim_mlx5_invalid_total(f->sim), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(f->mp), 0);
	dvp_mempool_free(f->mp);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/* The least strides per WQE (log2) the device takes: 3 with ext_stride_num_range, else 9. */
static uint32_t dev_log_num_min(struct mf *f)
{
	const struct mlx5_dev *dev = mlx5_priv(dvp_port_get(f->port[0]))->dev;
	struct mlx5dv_context dv;

	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_STRIDING_RQ;
	assert_int_equal(dev->glue->dv_query_device(dev->ctx, &dv), 0);
	return dv.striding_rq_caps.min_single_wqe_log_num_of_strides;
}

/*
 * A test built on SMALL_STRIDES' 2^7 strides per WQE, on a device that
 * takes no fewer than 2^9 (a ConnectX-4 Lx profile): closed, skipped;
 * test_mprq_device_minimum covers such a device.
 */
#define SMALL_OR_SKIP(f)                                                                           \
	do {                                                                                       \
		if (dev_log_num_min(f) > 7) {                                                      \
			print_message("the device takes 2^%u strides per WQE at least: skipped\n", \
				      dev_log_num_min(f));                                         \
			mp_close(f);                                                               \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

/* The frames a source or inject sends: k-th of @p sizes, flow 0, sequence k. */
struct expect {
	const uint16_t *sizes;
	unsigned int nsizes;
	uint64_t next; /* the frame the next mbuf should be */
	uint8_t mac[6];
};

/*
 * Check @p m against frame e->next (length, every byte), allowing up to
 * @p skip frames lost before it. Frees it.
 */
static void expect_mbuf(struct expect *e, struct dvp_mbuf *m, unsigned int skip)
{
	uint8_t frame[2048];

	for (unsigned int s = 0; s <= skip; s++, e->next++) {
		uint32_t len = e->sizes[e->next % e->nsizes];

		if (m->pkt_len != len)
			continue;
		assert_int_equal(sim_mlx5_frame_build(frame, len, 0, e->next, e->mac), (int)len);
		if (memcmp(dvp_pktmbuf_mtod(m, const void *), frame, len) != 0)
			continue;
		assert_int_equal(m->data_len, len);
		assert_int_equal(m->nb_segs, 1);
		e->next++;
		dvp_pktmbuf_free(m);
		return;
	}
	fail_msg("mbuf of %u bytes matches none of the frames up to %" PRIu64, m->pkt_len,
		 e->next - 1);
}

static void expect_init(struct expect *e, struct mf *f, const uint16_t *sizes, unsigned int n)
{
	struct dvp_ether_addr mac;

	memset(e, 0, sizeof(*e));
	e->sizes = sizes;
	e->nsizes = n;
	assert_int_equal(dvp_macaddr_get(f->port[0], &mac), 0);
	memcpy(e->mac, mac.addr_bytes, 6);
}

/* Receive and check frames until e->next reaches @p until, bursts of 1..64. */
static void rx_until(struct mf *f, struct expect *e, uint64_t until, unsigned int skip)
{
	struct dvp_mbuf *pkts[64];
	unsigned int idle = 0, b = 0;

	while (e->next < until) {
		int work = sim_mlx5_step(f->sim);
		uint16_t n = dvp_rx_burst(f->port[0], 0, pkts, (uint16_t)(b++ % 64 + 1));

		for (uint16_t i = 0; i < n; i++)
			expect_mbuf(e, pkts[i], skip);
		idle = work == 0 && n == 0 ? idle + 1 : 0;
		assert_true(idle < 1000);
	}
}

static void source(struct mf *f, const uint16_t *sizes, unsigned int n, uint64_t count)
{
	mf_source(f, 0, count, 1, sizes, n);
}

/*
 * A stream of sizes from one stride to twelve: every frame arrives, in
 * order, intact; the device writes fillers (a frame that does not fit the
 * strides left) and reads each 32-byte WQE once; the queue holds no mbuf.
 */
static void test_mprq_stream(void **state)
{
	static const uint16_t sizes[] = { 60, 1514, 128, 60, 300, 1000, 129, 640, 1514 };
	const uint64_t count = 30000;
	struct sim_mlx5_port_stats ps;
	struct dvp_port_stats st;
	struct mlx5_rxq *rxq;
	struct expect e;
	struct mf f;

	(void)state;
	mp_open(&f, SMALL_STRIDES, 2048);
	SMALL_OR_SKIP(&f);
	mf_port_start(&f, 0, 1, 1, NULL, 512);
	assert_ptr_equal(dvp_port_get(f.port[0])->rx_pkt_burst, mlx5_rx_burst_mprq);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	assert_non_null(rxq->mprq);
	assert_int_equal(rxq->wqe_n, 4);
	assert_int_equal(rxq->mprq->strd_n, 128);
	expect_init(&e, &f, sizes, DVP_DIM(sizes));
	source(&f, sizes, DVP_DIM(sizes), count);
	rx_until(&f, &e, count, 0);
	assert_int_equal(dvp_port_mbufs_held(f.port[0]), 0);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(ps.rx_frames, count);
	assert_true(ps.rx_mprq_fillers > 0);
	assert_int_equal(ps.rx_out_of_buffer + ps.rx_dropped, 0);
	/* One WQE read per WQE: each holds ~30 of these frames. */
	assert_int_equal(ps.bus_wqe_bytes % MLX5_MPRQ_WQE_SIZE, 0);
	assert_true(ps.bus_wqe_bytes / MLX5_MPRQ_WQE_SIZE < count / 8);
	assert_int_equal(ps.bus_cqe_bytes, (count + ps.rx_mprq_fillers) * 64);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ipackets, count);
	assert_int_equal(st.ierrors + st.rx_nombuf + st.imissed, 0);
	mp_close(&f);
}

/*
 * A pool of 48 mbufs the application holds on to: the burst that finds it
 * empty stops at the CQE without an mbuf (rx_nombuf), which a later burst
 * delivers once mbufs come back. Nothing is lost or reordered.
 */
static void test_mprq_pool_empty(void **state)
{
	static const uint16_t sizes[] = { 60, 700, 1514 };
	struct dvp_mbuf *held[64], *pkts[32];
	struct dvp_port_stats st;
	unsigned int nheld = 0;
	struct expect e;
	struct mf f;
	uint16_t n;

	(void)state;
	mp_open(&f, SMALL_STRIDES, 48);
	SMALL_OR_SKIP(&f);
	mf_port_start(&f, 0, 1, 1, NULL, 512);
	expect_init(&e, &f, sizes, DVP_DIM(sizes));
	source(&f, sizes, DVP_DIM(sizes), 100);
	sim_mlx5_step_idle(f.sim, 1000);
	while (nheld < DVP_DIM(held) - 32 && (n = dvp_rx_burst(f.port[0], 0, pkts, 32)) > 0) {
		for (uint16_t i = 0; i < n; i++) {
			held[nheld++] = pkts[i];
		}
	}
	assert_true(nheld <= 48);
	assert_int_equal(dvp_rx_burst(f.port[0], 0, pkts, 32), 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_true(st.rx_nombuf >= 1);
	assert_int_equal(st.ipackets, nheld);
	for (unsigned int i = 0; i < nheld; i++)
		expect_mbuf(&e, held[i], 0);
	rx_until(&f, &e, 100, 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ipackets, 100);
	assert_int_equal(st.ierrors + st.imissed, 0);
	mp_close(&f);
}

/*
 * A WQE the device finds a bad lkey in: an error CQE, the WQ reset and
 * every WQE posted again; frames arriving while the WQ was in error are
 * dropped by the device, the rest arrive intact and in order.
 */
static void test_mprq_error_cqe(void **state)
{
	static const uint16_t sizes[] = { 60, 300, 1514 };
	struct sim_mlx5_port_stats ps;
	struct sim_mlx5_dev_stats ds;
	struct dvp_port_stats st;
	struct mlx5_rxq *rxq;
	uint64_t restarts = 0;
	struct expect e;
	struct mf f;

	(void)state;
	mp_open(&f, SMALL_STRIDES, 1024);
	SMALL_OR_SKIP(&f);
	mf_port_start(&f, 0, 1, 1, NULL, 512);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	expect_init(&e, &f, sizes, DVP_DIM(sizes));
	source(&f, sizes, DVP_DIM(sizes), 3000);
	rx_until(&f, &e, 500, 0);
	assert_int_equal(sim_mlx5_fault_bad_lkey(f.sim, rxq->wq->wq_num, 1), 0);
	rx_until(&f, &e, 3000, 3000);
	assert_int_equal(sim_mlx5_port_stats(f.sim, 0, &ps), 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ierrors, 1);
	assert_int_equal(st.ipackets + 1 + ps.rx_dropped, 3000);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_restarts", &restarts), 0);
	assert_int_equal(restarts, 1);
	/* The striding WQEs posted behind the bad one were flushed: no frame among them. */
	assert_int_equal(sim_mlx5_dev_stats(f.sim, &ds), 0);
	assert_true(ds.flush_cqes > 0);
	mp_close(&f);
}

/*
 * Receive completions of another responder opcode (the sim's rx_opcode=3,
 * RESP_SEND_IMM; fillers too) on a striding RQ: frames all the same, none
 * lost, no reset.
 */
static void test_mprq_other_opcode(void **state)
{
	static const uint16_t sizes[] = { 60, 1514, 300 };
	struct dvp_port_stats st;
	uint64_t restarts = 1;
	struct expect e;
	struct mf f;

	(void)state;
	mp_open_sim(&f, SMALL_STRIDES, "ports=1,mode=step,cable=traffic,gen=off,rx_opcode=3", 2048);
	SMALL_OR_SKIP(&f);
	mf_port_start(&f, 0, 1, 1, NULL, 512);
	assert_ptr_equal(dvp_port_get(f.port[0])->rx_pkt_burst, mlx5_rx_burst_mprq);
	expect_init(&e, &f, sizes, DVP_DIM(sizes));
	source(&f, sizes, DVP_DIM(sizes), 3000);
	rx_until(&f, &e, 3000, 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ipackets, 3000);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_restarts", &restarts), 0);
	assert_int_equal(restarts, 0);
	mp_close(&f);
}

/*
 * Stop with frames received and not taken and a WQE half used, then start:
 * the frames count as dropped_on_reset, the queue starts over at stride 0
 * and what comes next arrives intact.
 */
static void test_mprq_stop_start(void **state)
{
	static const uint16_t sizes[] = { 200, 1514, 60 };
	struct dvp_mbuf *pkts[8];
	uint64_t dropped = 0;
	struct expect e;
	struct mf f;
	uint8_t frame[1600];

	(void)state;
	mp_open(&f, SMALL_STRIDES, 1024);
	SMALL_OR_SKIP(&f);
	mf_port_start(&f, 0, 1, 1, NULL, 512);
	expect_init(&e, &f, sizes, DVP_DIM(sizes));
	for (uint64_t k = 0; k < 10; k++) {
		uint32_t len = sizes[k % DVP_DIM(sizes)];

		sim_mlx5_frame_build(frame, len, 0, k, e.mac);
		assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, len), SIM_MLX5_RX_DELIVERED);
	}
	assert_int_equal(dvp_rx_burst(f.port[0], 0, pkts, 4), 4);
	for (int i = 0; i < 4; i++)
		expect_mbuf(&e, pkts[i], 0);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_port_mbufs_held(f.port[0]), 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_dropped_on_reset", &dropped), 0);
	assert_int_equal(dropped, 6);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	e.next = 100;
	for (uint64_t k = 100; k < 400; k++) {
		uint32_t len = sizes[k % DVP_DIM(sizes)];

		sim_mlx5_frame_build(frame, len, 0, k, e.mac);
		assert_int_equal(sim_mlx5_inject(f.sim, 0, frame, len), SIM_MLX5_RX_DELIVERED);
		if (k % 8 == 7)
			rx_until(&f, &e, k + 1, 0);
	}
	mp_close(&f);
}

/*
 * RSS over two queues, one multi-packet (1024 descriptors) and one that
 * cannot be (64, no more than a WQE's strides): the port's burst is the
 * multi-packet one with the hash, and takes the plain queue as a plain
 * one. Every frame arrives, with its hash.
 */
static void test_mprq_rss_mixed(void **state)
{
	static const uint16_t sizes[] = { 60, 1000 };
	struct dvp_mbuf *pkts[32];
	struct dvp_port_conf conf;
	struct dvp_port *dev;
	uint64_t got[2] = { 0, 0 };
	struct mf f;

	(void)state;
	mp_open(&f, "mprq_en=1,rxqs_min_mprq=2", 1024);
	memset(&conf, 0, sizeof(conf));
	conf.rss_conf.rss_hf = DVP_RSS_IP | DVP_RSS_NONFRAG_IPV4_UDP;
	assert_int_equal(dvp_port_configure(f.port[0], 2, 1, &conf), 0);
	assert_int_equal(dvp_rxq_setup(f.port[0], 0, 1024, DVP_SOCKET_ANY, NULL, f.mp), 0);
	assert_int_equal(dvp_rxq_setup(f.port[0], 1, 64, DVP_SOCKET_ANY, NULL, f.mp), 0);
	assert_int_equal(dvp_txq_setup(f.port[0], 0, 64, DVP_SOCKET_ANY, NULL), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	dev = dvp_port_get(f.port[0]);
	assert_ptr_equal(dev->rx_pkt_burst, mlx5_rx_burst_mprq_hash);
	assert_non_null(((struct mlx5_rxq *)dev->rxqs[0])->mprq);
	assert_null(((struct mlx5_rxq *)dev->rxqs[1])->mprq);
	mf_source(&f, 0, 4000, 64, sizes, DVP_DIM(sizes));
	for (unsigned int idle = 0; got[0] + got[1] < 4000; idle++) {
		int work = sim_mlx5_step(f.sim);

		for (uint16_t q = 0; q < 2; q++) {
			uint16_t n = dvp_rx_burst(f.port[0], q, pkts, 32);

			for (uint16_t i = 0; i < n; i++) {
				assert_true(pkts[i]->ol_flags & DVP_MBUF_F_RX_RSS_HASH);
				assert_int_equal(pkts[i]->hash.rss & 1, q);
				assert_true(pkts[i]->pkt_len == 60 || pkts[i]->pkt_len == 1000);
			}
			dvp_pktmbuf_free_bulk(pkts, n);
			got[q] += n;
			if (n > 0 || work > 0)
				idle = 0;
		}
		assert_true(idle < 1000);
	}
	assert_true(got[0] > 0 && got[1] > 0);
	mp_close(&f);
}

/*
 * WQEs of the fewest strides the device takes (2^3, or 2^9 without
 * ext_stride_num_range), at least four, of 2^14 bytes or more: a stream of
 * frames of one to several strides, every one intact, on every profile.
 */
static void test_mprq_device_minimum(void **state)
{
	static const uint16_t sizes[] = { 60, 1514, 128, 300, 64 };
	char args[128];
	struct mlx5_rxq *rxq;
	uint32_t min, desc;
	struct expect e;
	struct mf f;

	(void)state;
	mp_open(&f, "mprq_en=1,rxqs_min_mprq=1", 1024);
	min = dev_log_num_min(&f);
	mp_close(&f);
	/* A WQE holds a frame of the MTU and 2^14 bytes at least (DPDK's minimum). */
	snprintf(args, sizeof(args),
		 "mprq_en=1,rxqs_min_mprq=1,mprq_log_stride_size=%u,mprq_log_stride_num=%u",
		 DVP_MAX(6u, 14u - DVP_MIN(min, 8u)), min);
	mp_open(&f, args, 2048);
	desc = DVP_MAX(64u, 4u << min);
	mf_port_start(&f, 0, 1, 1, NULL, (uint16_t)desc);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	assert_non_null(rxq->mprq);
	assert_int_equal(rxq->mprq->strd_n, 1u << min);
	assert_int_equal(rxq->wqe_n, desc >> min);
	expect_init(&e, &f, sizes, DVP_DIM(sizes));
	source(&f, sizes, DVP_DIM(sizes), 5000);
	rx_until(&f, &e, 5000, 0);
	mp_close(&f);
}

/* The port's queues are all plain: its rx burst is not the multi-packet one. */
static void assert_plain_burst(uint16_t port)
{
	dvp_rx_burst_fn burst = dvp_port_get(port)->rx_pkt_burst;

	assert_true(burst != mlx5_rx_burst_mprq && burst != mlx5_rx_burst_mprq_hash);
}

/* Setup of one queue of @p nb_desc under @p pmd_args, its log lines into @p cap. */
static void setup_logged(struct mf *f, const char *pmd_args, uint16_t nb_desc,
			 struct dvp_log_capture *cap)
{
	mp_open(f, pmd_args, 512);
	dvp_log_capture_begin(cap);
	mf_port_start(f, 0, 1, 1, NULL, nb_desc);
	dvp_log_capture_end(cap);
}

static void test_mprq_devargs(void **state)
{
	struct dvp_log_capture cap;
	struct mlx5_rxq *rxq;
	uint32_t min, use;
	char want[128];
	struct mf f;

	(void)state;
	/* rxqs_min_mprq is 12 by default: one queue stays plain. */
	setup_logged(&f, "mprq_en=1", 256, &cap);
	assert_contains(cap.buf, "rxqs_min_mprq=12");
	dvp_log_capture_free(&cap);
	assert_plain_burst(f.port[0]);
	mp_close(&f);
	/* Out of the device's range: DPDK's default within it, with a warning. */
	setup_logged(&f, "mprq_en=1,rxqs_min_mprq=1,mprq_log_stride_num=20", 1024, &cap);
	min = dev_log_num_min(&f);
	use = DVP_MAX(min, 6u); /* DPDK's default, within the device's range */
	snprintf(want, sizeof(want),
		 "mprq_log_stride_num=20 is outside the device's %u..16: using %u", min, use);
	assert_contains(cap.buf, want);
	dvp_log_capture_free(&cap);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	assert_non_null(rxq->mprq);
	assert_int_equal(rxq->mprq->strd_n, 1u << use);
	/* The default stride fits MTU 1500 + 18 + the headroom: 2048 bytes. */
	assert_int_equal(rxq->mprq->log_strd_sz, 11);
	assert_int_equal(rxq->wqe_n, 1024u >> use);
	mp_close(&f);
	setup_logged(&f, "mprq_en=1,rxqs_min_mprq=1,mprq_log_stride_size=2", 1024, &cap);
	assert_contains(cap.buf, "mprq_log_stride_size=2 is outside the device's 6..13: using 11");
	dvp_log_capture_free(&cap);
	mp_close(&f);
	/* No more descriptors than the strides of one WQE: plain. */
	setup_logged(&f, "mprq_en=1,rxqs_min_mprq=1", 64, &cap);
	snprintf(want, sizeof(want), "needs more descriptors than the 2^%u strides", use);
	assert_contains(cap.buf, want);
	dvp_log_capture_free(&cap);
	assert_plain_burst(f.port[0]);
	mp_close(&f);
	/* Bad values: the probe fails naming the key. */
	assert_true(eal_up("mprq_en=2", "mode=step", &cap) < 0);
	sim_index++;
	assert_contains(cap.buf, "mprq_en");
	dvp_log_capture_free(&cap);
	dvp_eal_cleanup();
	assert_true(eal_up("mprq_log_stride_num=32", "mode=step", &cap) < 0);
	sim_index++;
	assert_contains(cap.buf, "mprq_log_stride_num");
	dvp_log_capture_free(&cap);
	dvp_eal_cleanup();
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mprq_stream),	cmocka_unit_test(test_mprq_pool_empty),
		cmocka_unit_test(test_mprq_error_cqe),	cmocka_unit_test(test_mprq_other_opcode),
		cmocka_unit_test(test_mprq_stop_start), cmocka_unit_test(test_mprq_rss_mixed),
		cmocka_unit_test(test_mprq_devargs),	cmocka_unit_test(test_mprq_device_minimum),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
