/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's rx VLAN stripping and rx timestamps on sim_mlx5, on every
 * rx path (scalar, vector, each with CQE compression asked for, scatter,
 * multi-packet): tagged and untagged frames with stripping on and off,
 * each mbuf checked byte for byte against the frame as the wire carried
 * it less its tag; timestamps equal to the device clock (virtual, so
 * exact) at each frame's arrival, in its ticks, and dvp_port_read_clock()
 * on the same clock; stripping turned on and off while the port runs; a
 * device without the capability refusing the offload. Every test ends
 * with the sim having seen no invalid use and every mbuf back in its pool.
 *
 * Each test brings the EAL up itself: PMD devargs come from -a at init.
 */

#include "mlx5_fixture.h"

#include <dvp_pmd_mlx5.h>

#include "mlx5_rx.h"

#define NFRAMES 48u
#define CHUNK 8u /* frames injected at once (at one clock) */
#define TICK_NS 1000u /* the virtual clock's step between two chunks */

static unsigned int sim_index;

/* An rx path: the PMD's devargs, the sim's, and whether the queue scatters. */
struct path {
	const char *name;
	const char *pmd; /* -a devargs */
	bool scatter; /* 512-byte buffers and DVP_RX_OFFLOAD_SCATTER */
	const char *burst; /* dvp_pmd_mlx5_paths().rx expected; NULL: any vector/scalar */
};

static const struct path paths[] = {
	{ "scalar", "rx_vec_en=0,rxq_cqe_comp_en=0", false, "scalar" },
	{ "vector", "rxq_cqe_comp_en=0", false, NULL },
	/* Compression asked for: the stripping queue's CQ does not compress. */
	{ "scalar, compression asked", "rx_vec_en=0,rxq_cqe_comp_en=1", false,
	  "scalar, compressed CQEs" },
	{ "vector, compression asked", "rxq_cqe_comp_en=1", false, NULL },
	{ "scatter", "rxq_cqe_comp_en=1", true, "scatter, compressed CQEs" },
	{ "multi-packet", "mprq_en=1,rxqs_min_mprq=1,mprq_log_stride_num=6", false,
	  "multi-packet" },
};

struct ro {
	struct mf f;
	uint8_t mac[6];
};

static void ro_open(struct ro *r, const char *pmd_args, const char *sim_args, bool scatter)
{
	char cpu[16], allow[256], vdev[160], name[32];

	snprintf(cpu, sizeof(cpu), "%d", dvp_test_first_cpu());
	snprintf(allow, sizeof(allow), "sim_mlx5_%u,%s", sim_index, pmd_args);
	/* The program's device argument too (a profile), as mf_open() gives it. */
	snprintf(vdev, sizeof(vdev), "sim_mlx5,ports=1,mode=step,clock=virtual%s%s%s%s",
		 sim_args[0] != '\0' ? "," : "", sim_args, mf_sim_extra != NULL ? "," : "",
		 mf_sim_extra != NULL ? mf_sim_extra : "");
	assert_true(dvp_test_eal_init("--no-huge", "-m", "256", "-l", cpu, "-a", allow, "--vdev",
				      vdev) > 0);
	snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
	memset(r, 0, sizeof(*r));
	r->f.sim = sim_mlx5_find(name);
	assert_non_null(r->f.sim);
	r->f.nports = 1;
	assert_int_equal(dvp_port_get_by_name(name, &r->f.port[0]), 0);
	r->f.pool_n = 2048;
	r->f.mp = dvp_pktmbuf_pool_create(
		"ro_pool", r->f.pool_n, 64, 0,
		scatter ? DVP_PKTMBUF_HEADROOM + 512 : DVP_MBUF_DEFAULT_BUF_SIZE, DVP_SOCKET_ANY);
	assert_non_null(r->f.mp);
	assert_int_equal(sim_mlx5_mac_get(r->f.sim, 0, r->mac), 0);
}

static void ro_start(struct ro *r, uint64_t offloads)
{
	struct dvp_port_conf c;

	memset(&c, 0, sizeof(c));
	c.rxmode.offloads = offloads;
	assert_int_equal(dvp_port_configure(r->f.port[0], 1, 1, &c), 0);
	/* 2^10: a multi-packet RQ of 2^9 strides a WQE (ConnectX-4 Lx) wants more than 2^9. */
	assert_int_equal(dvp_rxq_setup(r->f.port[0], 0, 1024, DVP_SOCKET_ANY, NULL, r->f.mp), 0);
	assert_int_equal(dvp_txq_setup(r->f.port[0], 0, 256, DVP_SOCKET_ANY, NULL), 0);
	assert_int_equal(dvp_port_start(r->f.port[0]), 0);
}

static void ro_close(struct ro *r)
{
	assert_int_equal(dvp_port_stop(r->f.port[0]), 0);
	assert_int_equal(dvp_port_mbufs_held(r->f.port[0]), 0);
	assert_int_equal(dvp_port_close(r->f.port[0]), 0);
	assert_int_equal(sim_mlx5_invalid_total(r->f.sim), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(r->f.mp), 0);
	dvp_mempool_free(r->f.mp);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/* Frame @p i: tagged (TCI from i) unless i % 3 == 0; a scattering queue's span two buffers. */
static bool frame_tagged(unsigned int i)
{
	return i % 3 != 0;
}

static uint16_t frame_tci(unsigned int i)
{
	return (uint16_t)((i % 8) << 13 | (i * 37 + 1) % 4095);
}

/* The frame as the wire carries it (@p tagged) into @p b. @return its length. */
static uint32_t frame_build(const struct ro *r, unsigned int i, bool scatter, bool tagged,
			    uint8_t *b)
{
	uint32_t len = 0, plen = scatter ? 600u + i : 60u + i;
	uint16_t tci = frame_tci(i);

	memcpy(b, r->mac, 6);
	memcpy(b + 6, "\x02\x00\x00\x00\x00\x01", 6);
	len = 12;
	if (tagged) {
		b[len++] = 0x81;
		b[len++] = 0x00;
		b[len++] = (uint8_t)(tci >> 8);
		b[len++] = (uint8_t)tci;
	}
	/* An ethertype of no protocol the device parses: the payload is the check. */
	b[len++] = 0x88;
	b[len++] = 0xb5;
	for (uint32_t k = 0; k < plen; k++)
		b[len++] = (uint8_t)(i * 7 + k);
	return len;
}

/* The packet's bytes, over its chain, equal @p want of @p len bytes. */
static void mbuf_equal(const struct dvp_mbuf *m, const uint8_t *want, uint32_t len)
{
	uint32_t off = 0;

	assert_int_equal(m->pkt_len, len);
	for (const struct dvp_mbuf *s = m; s != NULL; s = s->next) {
		assert_true(off + s->data_len <= len);
		assert_memory_equal(dvp_pktmbuf_mtod(s, const uint8_t *), want + off, s->data_len);
		off += s->data_len;
	}
	assert_int_equal(off, len);
}

/*
 * Inject NFRAMES frames, the virtual clock one TICK_NS on before each CHUNK,
 * and take them: each checked against its frame (tag stripped when
 * @p strip and the frame had one), its VLAN flags and TCI, and with @p ts
 * its timestamp against the device's ticks at its arrival.
 */
static void ro_traffic(struct ro *r, const struct path *p, bool strip, bool ts)
{
	static uint8_t frames[NFRAMES][1024];
	static size_t lens[NFRAMES];
	uint64_t ticks[NFRAMES];
	struct dvp_mbuf *pkts[NFRAMES];
	int off = 0;
	uint64_t flag = 0;
	unsigned int got = 0;

	assert_int_equal(dvp_mbuf_rx_timestamp_slot(&off, &flag), 0);
	/* Eight at a time, so that a CQ that compresses opens sessions. */
	for (unsigned int i = 0; i < NFRAMES; i += CHUNK) {
		const void *fp[CHUNK];

		assert_int_equal(sim_mlx5_clock_advance(r->f.sim, TICK_NS), 0);
		for (unsigned int j = 0; j < CHUNK; j++) {
			lens[i + j] = frame_build(r, i + j, p->scatter, frame_tagged(i + j),
						  frames[i + j]);
			fp[j] = frames[i + j];
			ticks[i + j] = sim_mlx5_clock_ticks(r->f.sim);
		}
		assert_int_equal(sim_mlx5_inject_burst(r->f.sim, 0, fp, &lens[i], CHUNK, NULL),
				 CHUNK);
	}
	for (int tries = 0; got < NFRAMES && tries < 100; tries++)
		got += dvp_rx_burst(r->f.port[0], 0, pkts + got, (uint16_t)(NFRAMES - got));
	assert_int_equal(got, NFRAMES);
	for (unsigned int i = 0; i < NFRAMES; i++) {
		const struct dvp_mbuf *m = pkts[i];
		bool stripped = strip && frame_tagged(i);
		uint8_t plain[1024];
		uint32_t plen = frame_build(r, i, p->scatter, frame_tagged(i) && !stripped, plain);

		mbuf_equal(m, plain, plen);
		if (stripped) {
			assert_int_equal(m->ol_flags &
						 (DVP_MBUF_F_RX_VLAN | DVP_MBUF_F_RX_VLAN_STRIPPED),
					 DVP_MBUF_F_RX_VLAN | DVP_MBUF_F_RX_VLAN_STRIPPED);
			assert_int_equal(m->vlan_tci, frame_tci(i));
		} else {
			assert_int_equal(m->ol_flags &
						 (DVP_MBUF_F_RX_VLAN | DVP_MBUF_F_RX_VLAN_STRIPPED),
					 0);
		}
		if (ts) {
			uint64_t v;

			memcpy(&v, (const uint8_t *)m + off, sizeof(v));
			assert_true(m->ol_flags & flag);
			assert_int_equal(v, ticks[i]);
			if (i % CHUNK == 0 && i > 0)
				assert_true(ticks[i] > ticks[i - 1]);
		} else {
			assert_false(m->ol_flags & flag);
		}
	}
	for (unsigned int i = 0; i < NFRAMES; i++)
		dvp_pktmbuf_free(pkts[i]);
}

static void check_path(const struct ro *r, const struct path *p)
{
	struct dvp_pmd_mlx5_paths pa;
	const struct mlx5_rxq *rxq = dvp_port_get(r->f.port[0])->rxqs[0];

	assert_int_equal(dvp_pmd_mlx5_paths(r->f.port[0], &pa), 0);
	print_message("%s: rx burst %s\n", p->name, pa.rx);
	if (p->burst != NULL)
		assert_string_equal(pa.rx, p->burst);
	/* A queue with a per-packet CQE field never compresses. */
	if (rxq->ofl != 0)
		assert_int_equal(rxq->comp_fmt, MLX5_RX_COMP_OFF);
}

static void run_path(const struct path *p, uint64_t offloads)
{
	struct sim_mlx5_dev_stats st;
	struct ro r;
	uint64_t scatter = p->scatter ? DVP_RX_OFFLOAD_SCATTER : 0;

	ro_open(&r, p->pmd, "", p->scatter);
	ro_start(&r, offloads | scatter);
	check_path(&r, p);
	ro_traffic(&r, p, (offloads & DVP_RX_OFFLOAD_VLAN_STRIP) != 0,
		   (offloads & DVP_RX_OFFLOAD_TIMESTAMP) != 0);
	assert_int_equal(sim_mlx5_dev_stats(r.f.sim, &st), 0);
	/* Compression where asked and nothing per packet stands in its way; never else. */
	if (strstr(p->pmd, "rxq_cqe_comp_en=1") != NULL && offloads == 0)
		assert_true(st.cqe_sessions > 0);
	else
		assert_int_equal(st.cqe_sessions, 0);
	ro_close(&r);
}

static void test_strip_off(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(paths); i++)
		run_path(&paths[i], 0);
}

static void test_strip_on(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(paths); i++)
		run_path(&paths[i], DVP_RX_OFFLOAD_VLAN_STRIP);
}

static void test_timestamp(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(paths); i++)
		run_path(&paths[i], DVP_RX_OFFLOAD_TIMESTAMP);
}

static void test_strip_and_timestamp(void **state)
{
	(void)state;
	for (unsigned int i = 0; i < DVP_DIM(paths); i++)
		run_path(&paths[i], DVP_RX_OFFLOAD_VLAN_STRIP | DVP_RX_OFFLOAD_TIMESTAMP);
}

/* The port's clock is the device's counter, in the timestamps' ticks. */
static void test_read_clock(void **state)
{
	struct dvp_port_info info;
	struct ro r;
	uint64_t c0 = 0, c1 = 0;

	(void)state;
	ro_open(&r, "rxq_cqe_comp_en=0", "", false);
	assert_int_equal(dvp_port_info_get(r.f.port[0], &info), 0);
	assert_true(info.rx_offload_capa & DVP_RX_OFFLOAD_TIMESTAMP);
	assert_true(info.rx_offload_capa & DVP_RX_OFFLOAD_VLAN_STRIP);
	assert_int_equal(sim_mlx5_clock_advance(r.f.sim, 1000000), 0);
	assert_int_equal(dvp_port_read_clock(r.f.port[0], &c0), 0);
	assert_int_equal(c0, sim_mlx5_clock_ticks(r.f.sim));
	/* One ms is 156250 ticks of the profile's 156.25 MHz. */
	assert_int_equal(c0, 156250);
	assert_int_equal(sim_mlx5_clock_advance(r.f.sim, 1000000), 0);
	assert_int_equal(dvp_port_read_clock(r.f.port[0], &c1), 0);
	assert_int_equal(c1 - c0, 156250);
	assert_int_equal(dvp_port_read_clock(r.f.port[0], NULL), -EINVAL);
	ro_start(&r, 0);
	ro_close(&r);
}

/* On while the port runs, and off again: each burst after the change sees it. */
static void test_strip_at_run_time(void **state)
{
	const struct path *p = &paths[0];
	struct dvp_log_capture cap;
	struct ro r;

	(void)state;
	ro_open(&r, p->pmd, "", false);
	ro_start(&r, 0);
	ro_traffic(&r, p, false, false);
	assert_int_equal(dvp_port_rxq_vlan_strip_set(r.f.port[0], 0, true), 0);
	ro_traffic(&r, p, true, false);
	assert_int_equal(dvp_port_rxq_vlan_strip_set(r.f.port[0], 0, false), 0);
	ro_traffic(&r, p, false, false);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rxq_vlan_strip_set(r.f.port[0], 1, true), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "rx queue 1 is not set up");
	dvp_log_capture_free(&cap);
	ro_close(&r);

	/*
	 * A queue whose CQ compresses cannot start stripping while it runs
	 * (its minis carry no tag); stopped, its CQ is built anew without.
	 */
	ro_open(&r, "rx_vec_en=0,rxq_cqe_comp_en=1", "", false);
	ro_start(&r, 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rxq_vlan_strip_set(r.f.port[0], 0, true), -ENOTSUP);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "its CQ compresses");
	dvp_log_capture_free(&cap);
	ro_traffic(&r, &paths[2], false, false);
	assert_int_equal(dvp_port_stop(r.f.port[0]), 0);
	assert_int_equal(dvp_port_rxq_vlan_strip_set(r.f.port[0], 0, true), 0);
	assert_int_equal(dvp_port_start(r.f.port[0]), 0);
	ro_traffic(&r, &paths[2], true, false);
	assert_int_equal(((const struct mlx5_rxq *)dvp_port_get(r.f.port[0])->rxqs[0])->comp_fmt,
			 MLX5_RX_COMP_OFF);
	ro_close(&r);
}

/* A device without CVLAN_STRIPPING offers no VLAN stripping, and refuses it with one line. */
static void test_no_cap(void **state)
{
	struct dvp_log_capture cap;
	struct dvp_port_info info;
	struct dvp_port_conf c;
	struct ro r;

	(void)state;
	ro_open(&r, "rxq_cqe_comp_en=0", "vlan_strip=off", false);
	assert_int_equal(dvp_port_info_get(r.f.port[0], &info), 0);
	assert_false(info.rx_offload_capa & DVP_RX_OFFLOAD_VLAN_STRIP);
	memset(&c, 0, sizeof(c));
	c.rxmode.offloads = DVP_RX_OFFLOAD_VLAN_STRIP;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_configure(r.f.port[0], 1, 1, &c), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "rx offloads 0x1 not supported");
	dvp_log_capture_free(&cap);
	ro_start(&r, 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_port_rxq_vlan_strip_set(r.f.port[0], 0, true), -ENOTSUP);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "cannot strip VLAN tags");
	dvp_log_capture_free(&cap);
	/* Tagged frames come as they are. */
	ro_traffic(&r, &paths[0], false, false);
	ro_close(&r);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strip_off),  cmocka_unit_test(test_strip_on),
		cmocka_unit_test(test_timestamp),  cmocka_unit_test(test_strip_and_timestamp),
		cmocka_unit_test(test_read_clock), cmocka_unit_test(test_strip_at_run_time),
		cmocka_unit_test(test_no_cap),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
