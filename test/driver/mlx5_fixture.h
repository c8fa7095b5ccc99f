/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the mlx5 PMD's driver tests share: the EAL, a sim_mlx5 device whose
 * ports the PMD probed, a mbuf pool, port setup, and the checks every test
 * ends with (the sim saw no invalid use, every mbuf is back in its pool).
 * Each call asserts its own success, so tests read as scenarios.
 */

#ifndef MLX5_FIXTURE_H
#define MLX5_FIXTURE_H

#include "dvp_test_eal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>
#include <dvp_port_driver.h>
#include <dvp_sim_mlx5.h>

#include "mlx5.h"

#define MF_MAX_PORTS 4

struct mf {
	struct sim_mlx5_dev *sim;
	unsigned int nports;
	uint16_t port[MF_MAX_PORTS];
	struct dvp_mempool *mp;
	unsigned int pool_n;
};

/*
 * Arguments from the program's command line for every mf_open(): the
 * tests of each module run once per tx path and once per rx path
 * (test/driver/meson.build). "<name>_send" passes "empw=off", a device
 * argument, so the device has no enhanced multi-packet send and the PMD
 * falls back to SEND WQEs; "<name>_scalar" passes "rx_vec_en=0", a PMD
 * devarg, so the ports take the scalar rx burst instead of the vector one;
 * "<name>_sse" passes "--force-max-simd-bitwidth=128", an EAL option, so
 * the inline eMPW burst is the SSE one where the CPU has AVX2.
 */
static const char *mf_sim_extra;
static const char *mf_pmd_extra;
static const char *mf_eal_extra; /* an EAL option ("--..."), as --force-max-simd-bitwidth */

static inline void mf_args(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "rx_vec_en=", 10) == 0)
			mf_pmd_extra = argv[i];
		else if (strncmp(argv[i], "--", 2) == 0)
			mf_eal_extra = argv[i];
		else
			mf_sim_extra = argv[i];
	}
	if (mf_eal_extra != NULL)
		print_message("EAL with %s\n", mf_eal_extra);
	if (mf_sim_extra != NULL)
		print_message("sim_mlx5 devices with %s\n", mf_sim_extra);
	if (mf_pmd_extra != NULL)
		print_message("mlx5 PMD with %s\n", mf_pmd_extra);
}

/*
 * A device made by sim_mlx5_create() is probed without devargs: give the
 * PMD those of the command line as -a would have (they act at port start).
 */
static inline void mf_pmd_devargs(struct mf *f)
{
	struct dvp_devargs da;
	struct mlx5_cfg cfg;
	char text[128];

	if (mf_pmd_extra == NULL)
		return;
	snprintf(text, sizeof(text), "%s,%s", sim_mlx5_name(f->sim), mf_pmd_extra);
	assert_int_equal(dvp_devargs_parse(text, &da), 0);
	assert_int_equal(mlx5_devargs_parse(&da, sim_mlx5_name(f->sim), &cfg), 0);
	dvp_devargs_free(&da);
	for (unsigned int i = 0; i < f->nports; i++)
		mlx5_priv(dvp_port_get(f->port[i]))->dev->cfg.rx_vec_en = cfg.rx_vec_en;
}

/* Bring the EAL up once per test program (group setup). */
static inline int mf_eal_init(void **state)
{
	char cpu[16];

	(void)state;
	snprintf(cpu, sizeof(cpu), "%d", dvp_test_first_cpu());
	/* mf_eal_extra NULL ends the list where no option was given. */
	return dvp_test_eal_init("--no-huge", "-m", "256", "-l", cpu, mf_eal_extra) > 0 ? 0 : -1;
}

static inline int mf_eal_cleanup(void **state)
{
	(void)state;
	return dvp_eal_cleanup();
}

/* Create a sim device from @p args; the PMD probes it: find its ports. */
static inline void mf_open(struct mf *f, const char *args, unsigned int pool_n)
{
	static unsigned int pools;
	char name[64];

	char all[256];

	memset(f, 0, sizeof(*f));
	if (mf_sim_extra != NULL) {
		snprintf(all, sizeof(all), "%s,%s", args, mf_sim_extra);
		args = all;
	}
	assert_int_equal(sim_mlx5_create(args, &f->sim), 0);
	f->nports = sim_mlx5_nports(f->sim);
	assert_true(f->nports <= MF_MAX_PORTS);
	for (unsigned int i = 0; i < f->nports; i++) {
		if (f->nports == 1)
			snprintf(name, sizeof(name), "%s", sim_mlx5_name(f->sim));
		else
			snprintf(name, sizeof(name), "%s_p%u", sim_mlx5_name(f->sim), i + 1);
		assert_int_equal(dvp_port_get_by_name(name, &f->port[i]), 0);
	}
	mf_pmd_devargs(f);
	if (pool_n != 0) {
		snprintf(name, sizeof(name), "mf_pool%u", pools++);
		f->mp = dvp_pktmbuf_pool_create(name, pool_n, DVP_MIN(256u, pool_n * 2 / 3), 0,
						DVP_MBUF_DEFAULT_BUF_SIZE, DVP_SOCKET_ANY);
		assert_non_null(f->mp);
		f->pool_n = pool_n;
	}
}

/* Configure port @p i with queues of @p nb_desc, from the fixture's pool, and start it. */
static inline void mf_port_start(struct mf *f, unsigned int i, uint16_t nrx, uint16_t ntx,
				 const struct dvp_port_conf *conf, uint16_t nb_desc)
{
	struct dvp_port_conf c;

	if (conf == NULL) {
		memset(&c, 0, sizeof(c));
		conf = &c;
	}
	assert_int_equal(dvp_port_configure(f->port[i], nrx, ntx, conf), 0);
	for (uint16_t q = 0; q < nrx; q++)
		assert_int_equal(dvp_rxq_setup(f->port[i], q, nb_desc, DVP_SOCKET_ANY, NULL, f->mp),
				 0);
	for (uint16_t q = 0; q < ntx; q++)
		assert_int_equal(dvp_txq_setup(f->port[i], q, nb_desc, DVP_SOCKET_ANY, NULL), 0);
	assert_int_equal(dvp_port_start(f->port[i]), 0);
}

/* The device saw no invalid use, every mbuf is back, everything is freed. */
static inline void mf_close(struct mf *f)
{
	uint64_t invalid;

	for (unsigned int i = 0; i < f->nports; i++) {
		if (!dvp_port_is_valid(f->port[i]))
			continue;
		assert_int_equal(dvp_port_stop(f->port[i]), 0);
		assert_int_equal(dvp_port_mbufs_held(f->port[i]), 0);
	}
	invalid = sim_mlx5_invalid_total(f->sim);
	if (invalid != 0) {
		struct sim_mlx5_dev_stats st;

		sim_mlx5_dev_stats(f->sim, &st);
		for (int k = 0; k < SIM_MLX5_INV_MAX; k++)
			if (st.invalid[k])
				print_message("invalid use %s: %" PRIu64 "\n",
					      sim_mlx5_invalid_name((enum sim_mlx5_invalid)k),
					      st.invalid[k]);
	}
	assert_int_equal(invalid, 0);
	/* Destroying the device closes its ports (the PMD's remove). */
	assert_int_equal(sim_mlx5_destroy(f->sim), 0);
	for (unsigned int i = 0; i < f->nports; i++)
		assert_false(dvp_port_is_valid(f->port[i]));
	if (f->mp != NULL) {
		assert_int_equal(dvp_pktmbuf_pool_in_use(f->mp), 0);
		dvp_mempool_free(f->mp);
	}
}

/* A sink-checked stream: @p count frames of @p flows flows from port @p src's source. */
static inline void mf_source(struct mf *f, unsigned int src, uint64_t count, uint32_t flows,
			     const uint16_t *sizes, unsigned int nsizes)
{
	struct sim_mlx5_source_conf sc;

	memset(&sc, 0, sizeof(sc));
	for (unsigned int i = 0; i < nsizes; i++)
		sc.sizes[i] = sizes[i];
	sc.nsizes = nsizes;
	sc.flows = flows;
	sc.count = count;
	assert_int_equal(sim_mlx5_source_set(f->sim, src, &sc), 0);
	assert_int_equal(sim_mlx5_source_start(f->sim, src), 0);
}

/*
 * A frame of @p len bytes (sim_mlx5_frame_build's @p flow and @p seq, to
 * 02:00:00:00:00:09) in mbufs of at most @p seg bytes each, chained.
 */
static inline struct dvp_mbuf *mf_frame(struct mf *f, uint32_t len, uint32_t flow, uint64_t seq,
					uint32_t seg)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 9 };
	struct dvp_mbuf *head = NULL;
	uint8_t buf[2048];

	assert_int_equal(sim_mlx5_frame_build(buf, len, flow, seq, dst), (int)len);
	for (uint32_t off = 0; off < len; off += seg) {
		struct dvp_mbuf *m = dvp_pktmbuf_alloc(f->mp);
		uint32_t n = DVP_MIN(seg, len - off);

		assert_non_null(m);
		memcpy(dvp_pktmbuf_append(m, (uint16_t)n), buf + off, n);
		if (head == NULL)
			head = m;
		else
			assert_int_equal(dvp_pktmbuf_chain(head, m), 0);
	}
	return head;
}

/*
 * An IPv6 frame of @p len bytes (74..2048) to @p dst: 2001:db8::<flow> ->
 * 2001:db8:1::1, next header @p proto; UDP (17) and TCP (6) carry ports
 * 0xc000 | flow -> 9, anything else no L4 header the sim reads.
 */
static inline void mf_frame6(uint8_t *b, uint32_t len, uint32_t flow, uint8_t proto,
			     const uint8_t dst[6])
{
	static const uint8_t src_mac[6] = { 0x02, 0x53, 0x47, 0x45, 0x4e, 0x06 };

	assert_true(len >= 74 && len <= 2048);
	memset(b, 0, len);
	memcpy(b, dst, 6);
	memcpy(b + 6, src_mac, 6);
	b[12] = 0x86, b[13] = 0xdd;
	b[14] = 0x60;
	b[18] = (uint8_t)((len - 54) >> 8), b[19] = (uint8_t)(len - 54);
	b[20] = proto;
	b[21] = 64;
	b[22] = 0x20, b[23] = 0x01, b[24] = 0x0d, b[25] = 0xb8; /* 2001:db8:: */
	b[34] = (uint8_t)(flow >> 24), b[35] = (uint8_t)(flow >> 16);
	b[36] = (uint8_t)(flow >> 8), b[37] = (uint8_t)flow;
	b[38] = 0x20, b[39] = 0x01, b[40] = 0x0d, b[41] = 0xb8, b[43] = 0x01; /* 2001:db8:1:: */
	b[53] = 1;
	b[54] = (uint8_t)(0xc0 | ((flow >> 8) & 0x3f)), b[55] = (uint8_t)flow;
	b[57] = 9;
	if (proto == 17)
		b[58] = b[18], b[59] = b[19];
	else if (proto == 6)
		b[66] = 0x50; /* data offset: 5 words */
}

/* Send all @p n packets on (port, queue), stepping the device while the ring is full. */
static inline void mf_tx_all(struct mf *f, uint16_t port, uint16_t q, struct dvp_mbuf **pkts,
			     uint16_t n)
{
	uint16_t sent = 0;

	for (int tries = 0; sent < n && tries < 100000; tries++) {
		sent += dvp_tx_burst(port, q, pkts + sent, (uint16_t)(n - sent));
		if (sent < n)
			sim_mlx5_step(f->sim);
	}
	assert_int_equal(sent, n);
}

#endif /* MLX5_FIXTURE_H */
