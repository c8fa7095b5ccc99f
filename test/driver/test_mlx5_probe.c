/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's control path on sim_mlx5: probe (one port per IB port,
 * names, capabilities, MACs), devargs (DPDK's keys, unknown keys and bad
 * values refused with one line naming them, inline settings taking
 * effect), rx queue setup refusing buffers too small for the MTU, and the
 * MR cache: a pool of several memory chunks, and a pool the PMD does not
 * know being dropped on send until it is registered.
 *
 * Each test brings the EAL up itself: devargs come from -a at init. The
 * sim numbers its devices in creation order over the whole process, which
 * sim_index follows.
 */

#include "mlx5_fixture.h"

#include <unistd.h>

#include <dvp_port_driver.h>

#include "dvp_pmd_mlx5.h"
#include "mlx5_rx.h"
#include "mlx5_rx_vec.h"
#include "mlx5_tx.h"

extern unsigned int dvp_mempool_test_max_chunk_objs;
extern size_t dvp_mempool_test_chunk_gap;

static unsigned int sim_index;

static int eal_init(const char *allow, const char *vdev)
{
	char cpu[16];

	snprintf(cpu, sizeof(cpu), "%d", dvp_test_first_cpu());
	if (allow == NULL)
		return dvp_test_eal_init("--no-huge", "-m", "128", "-l", cpu);
	return dvp_test_eal_init("--no-huge", "-m", "128", "-l", cpu, "-a", allow, "--vdev", vdev);
}

static void test_probe_ports(void **state)
{
	struct dvp_port_info info;
	struct dvp_ether_addr mac;
	uint8_t sim_mac[6];
	uint16_t mtu;
	struct mf f, g;

	(void)state;
	assert_true(eal_init(NULL, NULL) > 0);
	mf_open(&f, "ports=2,mode=step", 0);
	sim_index++;
	mf_open(&g, "ports=1,mode=step,mtu=9000", 0);
	sim_index++;
	for (unsigned int i = 0; i < 2; i++) {
		char name[64];

		assert_int_equal(dvp_port_info_get(f.port[i], &info), 0);
		assert_string_equal(info.driver_name, "net_mlx5");
		assert_string_equal(info.device_name, sim_mlx5_name(f.sim));
		assert_int_equal(dvp_port_get_name(f.port[i], name, sizeof(name)), 0);
		assert_non_null(strstr(name, i == 0 ? "_p1" : "_p2"));
		assert_int_equal(info.hash_key_size, 40);
		assert_int_equal(info.reta_size, 512);
		/* What the device takes (9978 on a ConnectX), not what it has. */
		assert_int_equal(info.max_mtu, 9978);
		assert_int_equal(info.max_rx_pktlen, 9996);
		assert_true(info.rx_offload_capa & DVP_RX_OFFLOAD_SCATTER);
		assert_true(info.intr_capa & DVP_PORT_INTR_RXQ);
		assert_true(info.intr_capa & DVP_PORT_INTR_RMV);
		assert_true(info.rx_offload_capa & DVP_RX_OFFLOAD_CHECKSUM);
		assert_true(info.tx_offload_capa & DVP_TX_OFFLOAD_MULTI_SEGS);
		assert_int_equal(dvp_macaddr_get(f.port[i], &mac), 0);
		assert_int_equal(sim_mlx5_mac_get(f.sim, i, sim_mac), 0);
		assert_memory_equal(mac.addr_bytes, sim_mac, 6);
	}
	/* The port's MTU starts at its netdev's. */
	assert_int_equal(dvp_port_mtu_get(g.port[0], &mtu), 0);
	assert_int_equal(mtu, 9000);
	assert_int_equal(dvp_port_mtu_get(f.port[0], &mtu), 0);
	assert_int_equal(mtu, 1500);
	mf_close(&g);
	mf_close(&f);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void expect_devargs_error(const char *args, const char *needle)
{
	struct dvp_log_capture cap;
	char allow[128];

	snprintf(allow, sizeof(allow), "sim_mlx5_%u,%s", sim_index, args);
	dvp_log_capture_begin(&cap);
	assert_true(eal_init(allow, "sim_mlx5,mode=step") < 0);
	dvp_log_capture_end(&cap);
	sim_index++;
	assert_contains(cap.buf, needle);
	dvp_log_capture_free(&cap);
	dvp_eal_cleanup();
}

static void test_devargs_refused(void **state)
{
	(void)state;
	expect_devargs_error("txq_inline_mx=64", "unknown devargs key 'txq_inline_mx'");
	expect_devargs_error("txq_inline_mx=64", "txq_inline_max");
	expect_devargs_error("txq_inline_min=5", "txq_inline_min=5 would split the L2 header");
	expect_devargs_error("txq_inline_max=4000", "txq_inline_max");
	expect_devargs_error("rxq_cqe_comp_en=maybe", "rxq_cqe_comp_en");
	expect_devargs_error("rxq_cqe_comp_en=5", "rxq_cqe_comp_en=5: no such CQE compression "
						  "format; valid are 0 (off), 1 (hash)");
	expect_devargs_error("rxq_cqe_comp_en=0x85", "no such CQE compression format");
}

/* No inline minimum, whole frames up to 64 bytes inline with one tx queue. */
static void test_devargs_inline(void **state)
{
	struct dvp_log_capture cap;
	struct sim_mlx5_sink_stats snk;
	struct dvp_ether_addr dst = { { 0x02, 0, 0, 0, 0, 7 } };
	struct dvp_mbuf *pkts[64];
	uint64_t inlined;
	char allow[160], name[32];
	struct mf f;

	(void)state;
	snprintf(allow, sizeof(allow),
		 "sim_mlx5_%u,txq_inline_min=0,txq_inline_max=64,txqs_min_inline=1,"
		 "rxq_cqe_comp_en=0x82",
		 sim_index);
	dvp_log_capture_begin(&cap);
	assert_true(eal_init(allow, "sim_mlx5,mode=step,cable=traffic,gen=off") > 0);
	dvp_log_capture_end(&cap);
	/* Asked for the flow-tag format (DevX only) in the enhanced layout: off, said twice. */
	assert_contains(cap.buf, "the legacy layout is used");
	assert_contains(cap.buf,
			"through DevX, which this driver does not do: CQE compression is off");
	dvp_log_capture_free(&cap);
	snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
	memset(&f, 0, sizeof(f));
	f.sim = sim_mlx5_find(name);
	assert_non_null(f.sim);
	f.nports = 1;
	assert_int_equal(dvp_port_get_by_name(name, &f.port[0]), 0);
	f.mp = dvp_pktmbuf_pool_create("inl_pool", 1024, 128, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
				       DVP_SOCKET_ANY);
	assert_non_null(f.mp);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	for (int i = 0; i < 64; i++) {
		uint32_t len = i % 2 ? 64 : 700;

		pkts[i] = dvp_pktmbuf_alloc(f.mp);
		assert_int_equal(sim_mlx5_frame_build(dvp_pktmbuf_append(pkts[i], (uint16_t)len),
						      len, 0, (uint64_t)i, dst.addr_bytes),
				 (int)len);
	}
	mf_tx_all(&f, f.port[0], 0, pkts, 64);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received, 64);
	assert_int_equal(snk.corrupt + snk.lost, 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_inlined", &inlined), 0);
	assert_int_equal(inlined, 32);
	assert_int_equal(dvp_port_close(f.port[0]), 0);
	assert_int_equal(sim_mlx5_invalid_total(f.sim), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(f.mp), 0);
	dvp_mempool_free(f.mp);
	/* The device belongs to its vdev: the EAL removes both. */
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/*
 * The tx path each devarg gives on a device with eMPW: eMPW by default and
 * with txq_inline_min=0; SEND WQEs with txq_mpw_en=0, and with a
 * txq_inline_min above 0 (inline headers an eMPW title cannot carry); eMPW
 * with frames inline in its sessions once the port has txqs_min_inline tx
 * queues, unless txq_inline_mpw=0.
 */
static void test_devargs_txq_mpw_en(void **state)
{
	static const struct {
		const char *args, *log;
		dvp_tx_burst_fn fn;
	} cases[] = {
		{ "txqs_min_inline=8", NULL, mlx5_tx_burst_empw },
		{ "txq_inline_min=0", NULL, mlx5_tx_burst_empw },
		{ "txq_mpw_en=0", NULL, mlx5_tx_burst },
		{ "txq_mpw_en=1,txq_inline_min=18", "enhanced multi-packet send is off",
		  mlx5_tx_burst },
		/*
		 * One tx queue is enough with txqs_min_inline=1: frames inline
		 * in sessions (NULL: the inline burst for this CPU).
		 */
		{ "txqs_min_inline=1", NULL, NULL },
		{ "txqs_min_inline=1,txq_inline_mpw=0", NULL, mlx5_tx_burst_empw },
		{ "txqs_min_inline=1,txq_mpw_en=0", NULL, mlx5_tx_burst },
	};
	struct dvp_log_capture cap;
	char allow[160], name[32];
	struct mf f;

	(void)state;
	expect_devargs_error("txq_mpw_en=2", "txq_mpw_en");
	expect_devargs_error("txq_inline_mpw=925", "txq_inline_mpw");
	for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
		snprintf(allow, sizeof(allow), "sim_mlx5_%u,%s", sim_index, cases[c].args);
		dvp_log_capture_begin(&cap);
		assert_true(eal_init(allow, "sim_mlx5,mode=step") > 0);
		dvp_log_capture_end(&cap);
		if (cases[c].log != NULL)
			assert_contains(cap.buf, cases[c].log);
		dvp_log_capture_free(&cap);
		snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
		memset(&f, 0, sizeof(f));
		f.sim = sim_mlx5_find(name);
		assert_non_null(f.sim);
		f.nports = 1;
		assert_int_equal(dvp_port_get_by_name(name, &f.port[0]), 0);
		f.mp = dvp_pktmbuf_pool_create("mpw_pool", 512, 64, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					       DVP_SOCKET_ANY);
		assert_non_null(f.mp);
		mf_port_start(&f, 0, 1, 1, NULL, 64);
		assert_ptr_equal(dvp_port_get(f.port[0])->tx_pkt_burst,
				 cases[c].fn != NULL ? cases[c].fn :
						       mlx5_tx_burst_inl_pick(false, false));
		assert_int_equal(dvp_port_close(f.port[0]), 0);
		assert_int_equal(dvp_pktmbuf_pool_in_use(f.mp), 0);
		dvp_mempool_free(f.mp);
		assert_int_equal(dvp_eal_cleanup(), 0);
	}
}

/*
 * The rx burst each rx_vec_en gives: the vector one by default where the
 * CPU has SSE4.2 (x86-64), the scalar one with rx_vec_en=0.
 */
static void test_devargs_rx_vec_en(void **state)
{
	static const struct {
		const char *args;
		bool vec;
	} cases[] = {
		{ "rx_vec_en=0,rxq_cqe_comp_en=0", false },
		{ "rx_vec_en=1", true },
		{ "txq_mpw_en=1", true },
		/* With compressed CQEs (the default): the scalar burst that takes them. */
		{ "rx_vec_en=0", false },
	};
	char allow[160], name[32];
	struct mf f;

	(void)state;
	expect_devargs_error("rx_vec_en=2", "rx_vec_en");
	for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
		dvp_rx_burst_fn want = strstr(cases[c].args, "rxq_cqe_comp_en=0") != NULL ?
					       mlx5_rx_burst :
					       mlx5_rx_burst_comp;

#ifdef MLX5_RX_VEC_SSE
		if (cases[c].vec && __builtin_cpu_supports("sse4.2"))
			want = mlx5_rx_burst_vec;
#endif
		snprintf(allow, sizeof(allow), "sim_mlx5_%u,%s", sim_index, cases[c].args);
		assert_true(eal_init(allow, "sim_mlx5,mode=step") > 0);
		snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
		memset(&f, 0, sizeof(f));
		f.sim = sim_mlx5_find(name);
		assert_non_null(f.sim);
		f.nports = 1;
		assert_int_equal(dvp_port_get_by_name(name, &f.port[0]), 0);
		f.mp = dvp_pktmbuf_pool_create("vec_pool", 512, 64, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					       DVP_SOCKET_ANY);
		assert_non_null(f.mp);
		mf_port_start(&f, 0, 1, 1, NULL, 64);
		assert_ptr_equal(dvp_port_get(f.port[0])->rx_pkt_burst, want);
		assert_int_equal(dvp_port_close(f.port[0]), 0);
		assert_int_equal(dvp_pktmbuf_pool_in_use(f.mp), 0);
		dvp_mempool_free(f.mp);
		assert_int_equal(dvp_eal_cleanup(), 0);
	}
}

/*
 * The inline headers every send WQE must carry, asked of the device (DevX:
 * the HCA caps, and the vport context where they defer to it) or, without
 * DevX, known by its PCI id (ConnectX-4 Lx: L2): the SEND WQEs inline that
 * many bytes, and eMPW, whose title carries none, is off wherever any are
 * required. Every frame reaches the sink and the device saw no WQE short
 * of them (mf_close() checks).
 */
static void test_caps_inline(void **state)
{
	static const struct {
		const char *args;
		uint32_t inline_min;
		bool empw;
	} cases[] = {
		{ "profile=cx6dx", 18, true },
		{ "profile=cx5,devx=off", 18, true },
		{ "profile=cx4lx", 18, false },
		{ "profile=cx4lx,devx=off", 18, false },
		/* eMPW offered but the L2 header required: SEND WQEs. */
		{ "profile=cx4lx,empw=on", 18, false },
		{ "profile=cx6dx,inline_mode=l2", 18, false },
		{ "profile=cx7,inline_mode=ip", 58, false },
		{ "profile=cx5,inline_mode=l4", 78, false },
		{ "profile=cx4lx,inline_mode=ip", 58, false },
		{ "profile=cx4lx,inline_mode=none,empw=on", 18, true },
	};
	static const uint32_t lens[] = { 60, 61, 100, 600, 1514, 64, 77, 79 };
	const char *extra = mf_sim_extra;
	struct dvp_ether_addr dst = { { 0x02, 0, 0, 0, 0, 7 } };
	struct sim_mlx5_sink_stats snk;
	struct dvp_mbuf *pkts[64];
	struct mlx5_txq *txq;
	uint64_t cqe_err;
	char args[160];
	struct mf f;

	(void)state;
	assert_true(eal_init(NULL, NULL) > 0);
	/* Each case is a profile: not the program's. */
	mf_sim_extra = NULL;
	for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
		dvp_tx_burst_fn burst;

		snprintf(args, sizeof(args), "ports=1,mode=step,cable=traffic,gen=off,%s",
			 cases[c].args);
		print_message("%s\n", args);
		mf_open(&f, args, 512);
		sim_index++;
		mf_port_start(&f, 0, 1, 1, NULL, 256);
		txq = dvp_port_get(f.port[0])->txqs[0];
		assert_int_equal(txq->inline_min, cases[c].inline_min);
		burst = dvp_port_get(f.port[0])->tx_pkt_burst;
		assert_true((burst == mlx5_tx_burst_empw) == cases[c].empw);
		if (!cases[c].empw)
			assert_ptr_equal(burst, mlx5_tx_burst);
		for (int i = 0; i < 64; i++) {
			uint32_t len = lens[i % DVP_DIM(lens)];

			pkts[i] = dvp_pktmbuf_alloc(f.mp);
			assert_int_equal(
				sim_mlx5_frame_build(dvp_pktmbuf_append(pkts[i], (uint16_t)len),
						     len, 0, (uint64_t)i, dst.addr_bytes),
				(int)len);
		}
		mf_tx_all(&f, f.port[0], 0, pkts, 64);
		sim_mlx5_step_idle(f.sim, 100);
		dvp_tx_burst(f.port[0], 0, NULL, 0);
		assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
		assert_int_equal(snk.received, 64);
		assert_int_equal(snk.corrupt + snk.lost, 0);
		assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_cqe_errors", &cqe_err),
				 0);
		assert_int_equal(cqe_err, 0);
		mf_close(&f);
	}
	mf_sim_extra = extra;
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_rxq_buffer_too_small(void **state)
{
	struct dvp_log_capture cap;
	struct dvp_port_conf conf;
	struct dvp_mempool *small;
	struct mf f;

	(void)state;
	assert_true(eal_init(NULL, NULL) > 0);
	mf_open(&f, "ports=1,mode=step", 0);
	sim_index++;
	small = dvp_pktmbuf_pool_create("small", 512, 64, 0, 1024, DVP_SOCKET_ANY);
	assert_non_null(small);
	memset(&conf, 0, sizeof(conf));
	assert_int_equal(dvp_port_configure(f.port[0], 1, 1, &conf), 0);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_rxq_setup(f.port[0], 0, 128, DVP_SOCKET_ANY, NULL, small), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "too small for frames of MTU 1500");
	dvp_log_capture_free(&cap);
	mf_close(&f);
	dvp_mempool_free(small);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/*
 * Forward 20,000 frames of the sim's port 0 source to port 1's sink with
 * @p f's pool of many chunks (every mbuf crosses both devices' MRs).
 */
static void forward_through(struct mf *f)
{
	static const uint16_t sizes[] = { 60, 1000 };
	struct sim_mlx5_sink_stats snk;
	struct dvp_mbuf *pkts[32];

	mf_port_start(f, 0, 1, 1, NULL, 512);
	mf_port_start(f, 1, 1, 1, NULL, 512);
	mf_source(f, 0, 20000, 4, sizes, 2);
	for (int i = 0; i < 100000; i++) {
		uint16_t n;

		sim_mlx5_step(f->sim);
		n = dvp_rx_burst(f->port[0], 0, pkts, 32);
		if (n)
			mf_tx_all(f, f->port[1], 0, pkts, n);
		assert_int_equal(sim_mlx5_sink_stats(f->sim, 1, &snk), 0);
		if (snk.received == 20000)
			break;
	}
	assert_int_equal(snk.received, 20000);
	assert_int_equal(snk.lost + snk.corrupt, 0);
}

/*
 * A pool of many chunks that touch: registered by ranges, its chunks rounded
 * to their pages and merged, so one MR covers it and every buffer takes
 * the pool's one lkey, with no per-buffer lookup.
 */
static void test_pool_of_many_chunks(void **state)
{
	struct mlx5_rxq *rxq;
	uint64_t misses;
	struct mf f;

	(void)state;
	assert_true(eal_init(NULL, NULL) > 0);
	dvp_mempool_test_max_chunk_objs = 30;
	mf_open(&f, "ports=2,mode=step,cable=traffic,gen=off", 1500);
	sim_index++;
	dvp_mempool_test_max_chunk_objs = 0;
	assert_int_equal(f.mp->nb_mem_chunks, 50);
	forward_through(&f);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	assert_int_not_equal(rxq->lkey_be, 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_mr_misses", &misses), 0);
	assert_int_equal(misses, 0);
	mf_close(&f);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/*
 * A pool whose chunks are pages apart: one MR per chunk, the lkey found per
 * buffer through the queue's cache and, on a miss, the device's snapshot.
 */
static void test_pool_of_scattered_chunks(void **state)
{
	struct mlx5_rxq *rxq;
	uint64_t misses;
	struct mf f;

	(void)state;
	assert_true(eal_init(NULL, NULL) > 0);
	dvp_mempool_test_max_chunk_objs = 30;
	dvp_mempool_test_chunk_gap = 3 * (size_t)sysconf(_SC_PAGESIZE);
	mf_open(&f, "ports=2,mode=step,cable=traffic,gen=off", 1500);
	sim_index++;
	dvp_mempool_test_max_chunk_objs = 0;
	dvp_mempool_test_chunk_gap = 0;
	assert_int_equal(f.mp->nb_mem_chunks, 50);
	forward_through(&f);
	rxq = dvp_port_get(f.port[0])->rxqs[0];
	assert_int_equal(rxq->lkey_be, 0); /* no single lkey: per buffer */
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "rx_q0_mr_misses", &misses), 0);
	assert_true(misses > 0);
	mf_close(&f);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/*
 * A pool made after the ports started is registered when it is ready (the
 * pool's event), and its mbufs are sent at once; one freed is deregistered.
 */
static void test_pool_registered_when_made(void **state)
{
	struct dvp_ether_addr dst = { { 0x02, 0, 0, 0, 0, 7 } };
	struct sim_mlx5_sink_stats snk;
	struct dvp_mempool *other;
	struct dvp_mbuf *pkts[8];
	uint64_t miss;
	struct mf f;

	(void)state;
	assert_true(eal_init(NULL, NULL) > 0);
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 512);
	sim_index++;
	mf_port_start(&f, 0, 1, 1, NULL, 128);
	other = dvp_pktmbuf_pool_create("other", 256, 32, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					DVP_SOCKET_ANY);
	assert_non_null(other);
	assert_true(dvp_pmd_mlx5_mempool_registered(f.port[0], other));
	assert_int_equal(dvp_port_mempool_sendable(f.port[0], other), 1);
	for (int i = 0; i < 8; i++) {
		pkts[i] = dvp_pktmbuf_alloc(other);
		sim_mlx5_frame_build(dvp_pktmbuf_append(pkts[i], 500), 500, 0, (uint64_t)i,
				     dst.addr_bytes);
	}
	assert_int_equal(dvp_tx_burst(f.port[0], 0, pkts, 8), 8);
	sim_mlx5_step_idle(f.sim, 100);
	assert_int_equal(sim_mlx5_sink_stats(f.sim, 0, &snk), 0);
	assert_int_equal(snk.received, 8);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "tx_q0_mr_miss", &miss), 0);
	assert_int_equal(miss, 0);
	assert_int_equal(dvp_pmd_mlx5_mempool_register(NULL), -EINVAL);
	assert_int_equal(dvp_port_stop(f.port[0]), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(other), 0);
	dvp_mempool_free(other);
	assert_false(dvp_pmd_mlx5_mempool_registered(f.port[0], other));
	mf_close(&f);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

/* Step the device and take what port 0 receives until its source sent @p n in all. */
static void take_from_source(struct mf *f, uint64_t n)
{
	struct sim_mlx5_source_stats src = { 0 };
	struct dvp_mbuf *pkts[32];

	for (int i = 0; i < 100000 && src.sent < n; i++) {
		sim_mlx5_step(f->sim);
		dvp_pktmbuf_free_bulk(pkts, dvp_rx_burst(f->port[0], 0, pkts, 32));
		assert_int_equal(sim_mlx5_source_stats(f->sim, 0, &src), 0);
	}
	assert_int_equal(src.sent, n);
}

/*
 * The device's own counters (the sim's sim_*) among the port's xstats,
 * reset by the rule every xstat follows; and the capability flags a host
 * decides by.
 */
static void test_device_counters_and_capa(void **state)
{
	static const uint16_t sizes[] = { 60 };
	struct dvp_port_info info;
	uint64_t v;
	struct mf f;

	(void)state;
	assert_true(eal_init(NULL, NULL) > 0);
	mf_open(&f, "ports=1,mode=step,cable=traffic,gen=off", 1024);
	sim_index++;
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	assert_int_equal(dvp_port_info_get(f.port[0], &info), 0);
	assert_true(info.dev_capa & DVP_PORT_DEV_CAPA_MEM_REG);
	assert_false(info.dev_capa & DVP_PORT_DEV_CAPA_TX_STOPS); /* native: dropped, counted */
	mf_source(&f, 0, 300, 1, sizes, 1);
	take_from_source(&f, 300);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "sim_source_sent", &v), 0);
	assert_int_equal(v, 300);
	assert_int_equal(dvp_xstats_reset(f.port[0]), 0);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "sim_source_sent", &v), 0);
	assert_int_equal(v, 0);
	/* A new run of the source: its own count starts again, the port's does not go back. */
	mf_source(&f, 0, 500, 1, sizes, 1);
	take_from_source(&f, 500);
	assert_int_equal(dvp_xstats_get_by_name(f.port[0], "sim_source_sent", &v), 0);
	assert_int_equal(v, 500);
	mf_close(&f);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe_ports),
		cmocka_unit_test(test_devargs_refused),
		cmocka_unit_test(test_devargs_inline),
		cmocka_unit_test(test_devargs_txq_mpw_en),
		cmocka_unit_test(test_devargs_rx_vec_en),
		cmocka_unit_test(test_caps_inline),
		cmocka_unit_test(test_rxq_buffer_too_small),
		cmocka_unit_test(test_pool_of_many_chunks),
		cmocka_unit_test(test_pool_of_scattered_chunks),
		cmocka_unit_test(test_pool_registered_when_made),
		cmocka_unit_test(test_device_counters_and_capa),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
