/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The port's MTU and rx scatter of the mlx5 PMD on sim_mlx5: the MTU is
 * the device's (its netdev's), frames longer are dropped by the device on
 * arrival and counted (ierrors, rx_length_errors) with no queue error; a
 * queue whose mbufs are shorter than a frame is refused at setup unless it
 * scatters; with rx scatter a frame longer than one mbuf arrives as a chain,
 * every byte in place, on every rx path: plain CQEs, compressed ones, a
 * multi-packet RQ, and with the vector burst asked for; a MARK rule's id
 * on each chain's head on those paths.
 */

#include "mlx5_fixture.h"

#include <dvp_flow.h>
#include <dvp_port_driver.h>

#include "mlx5_rx.h"

static unsigned int sim_index;

static int eal_up(const char *pmd_args, const char *sim_args)
{
	char cpu[16], allow[256], vdev[224];

	snprintf(cpu, sizeof(cpu), "%d", dvp_test_first_cpu());
	snprintf(allow, sizeof(allow), "sim_mlx5_%u,%s", sim_index, pmd_args);
	snprintf(vdev, sizeof(vdev), "sim_mlx5,%s", sim_args);
	return dvp_test_eal_init("--no-huge", "-m", "256", "-l", cpu, "-a", allow, "--vdev", vdev);
}

/* The EAL with a stepped one-port sim of netdev MTU @p dev_mtu, @p pmd_args for the PMD. */
static void sg_open(struct mf *f, const char *pmd_args, unsigned int dev_mtu)
{
	char name[32], sim[192];

	snprintf(sim, sizeof(sim), "ports=1,mode=step,cable=traffic,gen=off,mtu=%u%s%s", dev_mtu,
		 mf_sim_extra != NULL ? "," : "", mf_sim_extra != NULL ? mf_sim_extra : "");
	assert_true(eal_up(pmd_args, sim) > 0);
	snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
	memset(f, 0, sizeof(*f));
	f->sim = sim_mlx5_find(name);
	assert_non_null(f->sim);
	f->nports = 1;
	assert_int_equal(dvp_port_get_by_name(name, &f->port[0]), 0);
	/* DPDK's and testpmd's default mbufs: 2048 bytes of data after the headroom. */
	f->mp = dvp_pktmbuf_pool_create("sg_pool", 2048, 32, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					DVP_SOCKET_ANY);
	assert_non_null(f->mp);
	f->pool_n = 2048;
}

static void sg_close(struct mf *f)
{
	assert_int_equal(dvp_port_stop(f->port[0]), 0);
	assert_int_equal(dvp_port_mbufs_held(f->port[0]), 0);
	assert_int_equal(dvp_port_close(f->port[0]), 0);
	assert_int_equal(sim_mlx5_invalid_total(f->sim), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(f->mp), 0);
	dvp_mempool_free(f->mp);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/* Configure port 0 with MTU @p mtu and rx offloads @p rx_off. @return the rx setup's answer. */
static int sg_setup(struct mf *f, unsigned int mtu, uint64_t rx_off)
{
	struct dvp_port_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mtu = mtu;
	conf.rxmode.offloads = rx_off;
	assert_int_equal(dvp_port_configure(f->port[0], 1, 1, &conf), 0);
	assert_int_equal(dvp_txq_setup(f->port[0], 0, 256, DVP_SOCKET_ANY, NULL), 0);
	return dvp_rxq_setup(f->port[0], 0, 512, DVP_SOCKET_ANY, NULL, f->mp);
}

/* Send @p count frames of @p sizes from the port's source and take them all. */
static void source(struct mf *f, const uint16_t *sizes, unsigned int nsizes, uint64_t count)
{
	mf_source(f, 0, count, 1, sizes, nsizes);
}

/* The MARK id every frame gets in the marked cases; UINT32_MAX: no rule. */
static uint32_t sg_mark = UINT32_MAX;

/* A rule taking every frame to queue 0 with MARK @p id. */
static void mark_all(struct mf *f, uint32_t id)
{
	static const struct dvp_flow_attr ingress = { .ingress = 1 };
	struct dvp_flow_action_mark m = { id };
	struct dvp_flow_action_queue q0 = { 0 };
	struct dvp_flow_item any[] = { { .type = DVP_FLOW_ITEM_ETH },
				       { .type = DVP_FLOW_ITEM_END } };
	struct dvp_flow_action act[] = { { DVP_FLOW_ACTION_QUEUE, &q0 },
					 { DVP_FLOW_ACTION_MARK, &m },
					 { DVP_FLOW_ACTION_END, NULL } };

	assert_non_null(dvp_flow_create(f->port[0], &ingress, any, act));
}

/* Compare chain @p m with frame @p seq of @p len bytes (its segments and bytes); free it. */
static void check_chain(struct mf *f, struct dvp_mbuf *m, uint64_t seq, uint32_t len)
{
	static uint8_t frame[10000];
	const uint32_t room = DVP_MBUF_DEFAULT_BUF_SIZE - DVP_PKTMBUF_HEADROOM;
	struct dvp_ether_addr mac;
	uint32_t off = 0, segs = 0;

	assert_int_equal(dvp_macaddr_get(f->port[0], &mac), 0);
	assert_int_equal(sim_mlx5_frame_build(frame, len, 0, seq, mac.addr_bytes), (int)len);
	assert_int_equal(m->pkt_len, len);
	assert_int_equal(m->nb_segs, (len + room - 1) / room);
	for (const struct dvp_mbuf *s = m; s != NULL; s = s->next, segs++) {
		assert_true(s->data_len > 0 && s->data_len <= room);
		assert_memory_equal(dvp_pktmbuf_mtod(s, const void *), frame + off, s->data_len);
		off += s->data_len;
	}
	assert_int_equal(off, len);
	assert_int_equal(segs, m->nb_segs);
	if (sg_mark != UINT32_MAX) {
		assert_int_equal(m->ol_flags & (DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID),
				 DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID);
		assert_int_equal(m->hash.fdir.hi, sg_mark);
	} else {
		assert_int_equal(m->ol_flags & DVP_MBUF_F_RX_FDIR, 0);
	}
	dvp_pktmbuf_free(m);
}

/*
 * Rx scatter on the rx path @p pmd_args picks: MTU 9000 on 2 KB mbufs,
 * frames of 60 to 9014 bytes; each arrives as a chain, in order, intact,
 * nothing lost and nothing left at close. With @p mark, a rule marks every
 * frame and each chain's head carries it.
 */
static void scatter_path(const char *pmd_args, bool mark)
{
	static const uint16_t sizes[] = { 60, 1514, 2048, 2049, 4000, 9014 };
	const unsigned int n = 600;
	struct dvp_port_stats st;
	struct dvp_mbuf *pkts[32];
	uint64_t got = 0;
	struct mf f;

	sg_open(&f, pmd_args, 9000);
	assert_int_equal(sg_setup(&f, 9000, DVP_RX_OFFLOAD_SCATTER), 0);
	sg_mark = mark ? 0x5a5 : UINT32_MAX;
	if (mark)
		mark_all(&f, sg_mark);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	source(&f, sizes, DVP_DIM(sizes), n);
	for (int i = 0; i < 100000 && got < n; i++) {
		uint16_t k;

		sim_mlx5_step(f.sim);
		k = dvp_rx_burst(f.port[0], 0, pkts, 32);
		for (uint16_t j = 0; j < k; j++, got++)
			check_chain(&f, pkts[j], got, sizes[got % DVP_DIM(sizes)]);
	}
	assert_int_equal(got, n);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ipackets, n);
	assert_int_equal(st.ierrors, 0);
	assert_int_equal(st.rx_nombuf, 0);
	sg_mark = UINT32_MAX;
	sg_close(&f);
}

static void test_scatter_compressed(void **state)
{
	(void)state;
	scatter_path("rxq_cqe_comp_en=1", false);
}

static void test_scatter_plain_cqes(void **state)
{
	(void)state;
	scatter_path("rxq_cqe_comp_en=0", false);
}

/* The vector burst asked for (the default): a scattering port takes the scatter one. */
static void test_scatter_vector_asked(void **state)
{
	(void)state;
	scatter_path("rx_vec_en=1,rxq_cqe_comp_en=0", false);
}

static void test_scatter_mprq(void **state)
{
	(void)state;
	scatter_path("mprq_en=1,rxqs_min_mprq=1", false);
}

/* The marked cases: compressed sessions, plain CQEs, a multi-packet RQ. */
static void test_scatter_marked_compressed(void **state)
{
	(void)state;
	scatter_path("rxq_cqe_comp_en=1", true);
}

static void test_scatter_marked_plain_cqes(void **state)
{
	(void)state;
	scatter_path("rxq_cqe_comp_en=0", true);
}

static void test_scatter_marked_mprq(void **state)
{
	(void)state;
	scatter_path("mprq_en=1,rxqs_min_mprq=1", true);
}

/*
 * The device's MTU 9000, the application's 1500 on 2 KB mbufs: configure
 * brings the device to 1500, so the peer's 9014-byte frames are dropped by
 * the device on arrival and counted (ierrors, rx_length_errors), the
 * others arrive, and no queue breaks.
 */
static void test_mtu_drops_longer_frames(void **state)
{
	static const uint16_t sizes[] = { 1514, 9014 };
	const unsigned int n = 400;
	struct dvp_port_stats st;
	struct dvp_mbuf *pkts[32];
	uint64_t got = 0, v;
	uint16_t mtu;
	struct mf f;

	(void)state;
	sg_open(&f, "", 9000);
	assert_int_equal(dvp_port_mtu_get(f.port[0], &mtu), 0);
	assert_int_equal(mtu, 9000);
	assert_int_equal(sg_setup(&f, 1500, 0), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	source(&f, sizes, DVP_DIM(sizes), n);
	for (int i = 0; i < 100000 && got < n / 2; i++) {
		uint16_t k;

		sim_mlx5_step(f.sim);
		k = dvp_rx_burst(f.port[0], 0, pkts, 32);
		for (uint16_t j = 0; j < k; j++, got++) {
			assert_int_equal(pkts[j]->pkt_len, 1514);
			assert_int_equal(pkts[j]->nb_segs, 1);
		}
		dvp_pktmbuf_free_bulk(pkts, k);
	}
	sim_mlx5_step_idle(f.sim, 10);
	assert_int_equal(got, n / 2);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ipackets, n / 2);
	assert_int_equal(st.ierrors, n / 2);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_length_errors", &v), 0);
	assert_int_equal(v, n / 2);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "sim_rx_oversize", &v), 0);
	assert_int_equal(v, n / 2);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_restarts", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_cqe_errors", &v), 0);
	assert_int_equal(v, 0);
	/* Counted from the last reset, as every counter. */
	assert_int_equal(dvp_stats_reset(f.port[0]), 0);
	assert_int_equal(dvp_stats_get(f.port[0], &st), 0);
	assert_int_equal(st.ierrors, 0);
	sg_close(&f);
}

/* Without rx scatter, mbufs shorter than a frame of the MTU: refused at setup, with the numbers. */
static void test_short_mbufs_refused(void **state)
{
	struct dvp_log_capture cap;
	struct mf f;

	(void)state;
	sg_open(&f, "", 9000);
	dvp_log_capture_begin(&cap);
	assert_int_equal(sg_setup(&f, 9000, 0), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "too small for frames of MTU 9000 (9018 bytes)");
	assert_contains(cap.buf, "rx scatter");
	dvp_log_capture_free(&cap);
	/* With it, the same pool is taken. */
	assert_int_equal(sg_setup(&f, 9000, DVP_RX_OFFLOAD_SCATTER), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	sg_close(&f);
}

/*
 * mtu_set: refused on a started port and where a queue could not take the
 * frames; else the device takes it, and frames up to it arrive.
 */
static void test_mtu_set(void **state)
{
	static const uint16_t sizes[] = { 4000 };
	struct dvp_mbuf *pkts[32];
	uint64_t got = 0;
	uint16_t mtu;
	struct mf f;

	(void)state;
	sg_open(&f, "", 1500);
	assert_int_equal(sg_setup(&f, 0, 0), 0);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	assert_int_equal(dvp_port_mtu_set(f.port[0], 4000), -EBUSY);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	/* The 2 KB queue without scatter cannot take frames of 4018 bytes. */
	assert_int_equal(dvp_port_mtu_set(f.port[0], 4000), -EINVAL);
	assert_int_equal(dvp_port_mtu_set(f.port[0], 9979), -EINVAL); /* above the device's */
	/* Set up again with scatter: now it may. */
	assert_int_equal(sg_setup(&f, 0, DVP_RX_OFFLOAD_SCATTER), 0);
	assert_int_equal(dvp_port_mtu_set(f.port[0], 4000), -EINVAL); /* sized for 1500 */
	assert_int_equal(sg_setup(&f, 4000, DVP_RX_OFFLOAD_SCATTER), 0);
	assert_int_equal(dvp_port_mtu_get(f.port[0], &mtu), 0);
	assert_int_equal(mtu, 4000);
	assert_int_equal(dvp_port_start(f.port[0]), 0);
	source(&f, sizes, 1, 64);
	for (int i = 0; i < 100000 && got < 64; i++) {
		uint16_t k;

		sim_mlx5_step(f.sim);
		k = dvp_rx_burst(f.port[0], 0, pkts, 32);
		for (uint16_t j = 0; j < k; j++, got++)
			check_chain(&f, pkts[j], got, 4000);
	}
	assert_int_equal(got, 64);
	sg_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_scatter_compressed),
		cmocka_unit_test(test_scatter_plain_cqes),
		cmocka_unit_test(test_scatter_vector_asked),
		cmocka_unit_test(test_scatter_mprq),
		cmocka_unit_test(test_scatter_marked_compressed),
		cmocka_unit_test(test_scatter_marked_plain_cqes),
		cmocka_unit_test(test_scatter_marked_mprq),
		cmocka_unit_test(test_mtu_drops_longer_frames),
		cmocka_unit_test(test_short_mbufs_refused),
		cmocka_unit_test(test_mtu_set),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
