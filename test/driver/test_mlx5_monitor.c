/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's power monitor (dvp_get_monitor_addr(), DPDK's
 * get_monitor_addr) on sim_mlx5: the address is the op_own byte of the CQE
 * at the consumer index, and the check of the value read there says "do
 * not sleep" exactly when a burst would return packets: before and after
 * each frame, over many passes of the CQ; with compressed CQE sessions,
 * whose mini-CQE arrays the PMD leaves as invalid CQEs that look owned by
 * software on a later pass by their owner bit alone (the check ignores
 * them, as DPDK's); on a multi-packet RQ; with a fault waiting for the
 * queue's lcore. The check runs as DPDK's power management runs it: on the
 * value read at the address.
 */

#include "mlx5_fixture.h"

#include <dvp_port_driver.h>

#include "mlx5_rx.h"

#define MAXF 64

static unsigned int sim_index;
static bool eal_up;
/* The program's argument "rx_vec_en=0" (meson's mlx5_monitor_scalar): every port's PMD args. */
static const char *pmd_extra = "";
static const char *sim_extra = ""; /* the device's: profile=<name> */

struct mon {
	struct mf f;
	uint8_t frames[MAXF][128];
	const void *fp[MAXF];
	size_t lens[MAXF];
	struct dvp_mbuf *got[MAXF];
	uint64_t seq;
};

static struct mon mons;

static int teardown(void **state)
{
	(void)state;
	if (eal_up)
		dvp_eal_cleanup();
	eal_up = false;
	return 0;
}

/* An EAL with one sim device in step mode; its port up with one rx queue of @p nb_desc. */
static struct mon *mon_open(const char *pmd_args, const char *sim_args, uint16_t nb_desc)
{
	struct mon *m = &mons;
	char cpu[16], allow[160], vdev[192], name[32];

	memset(m, 0, sizeof(*m));
	snprintf(cpu, sizeof(cpu), "%d", dvp_test_first_cpu());
	snprintf(allow, sizeof(allow), "sim_mlx5_%u%s%s%s%s", sim_index, *pmd_args ? "," : "",
		 pmd_args, *pmd_extra ? "," : "", pmd_extra);
	snprintf(vdev, sizeof(vdev), "sim_mlx5,cable=traffic,gen=off,mode=step%s%s%s%s",
		 *sim_args ? "," : "", sim_args, *sim_extra ? "," : "", sim_extra);
	assert_true(dvp_test_eal_init("--no-huge", "-m", "128", "-l", cpu, "-a", allow, "--vdev",
				      vdev) > 0);
	eal_up = true;
	snprintf(name, sizeof(name), "sim_mlx5_%u", sim_index++);
	m->f.sim = sim_mlx5_find(name);
	assert_non_null(m->f.sim);
	m->f.nports = 1;
	assert_int_equal(dvp_port_get_by_name(name, &m->f.port[0]), 0);
	m->f.mp = dvp_pktmbuf_pool_create("mon_pool", 2048, 0, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					  DVP_SOCKET_ANY);
	assert_non_null(m->f.mp);
	mf_port_start(&m->f, 0, 1, 1, NULL, nb_desc);
	for (unsigned int i = 0; i < MAXF; i++)
		m->fp[i] = m->frames[i];
	return m;
}

static void mon_close(struct mon *m)
{
	assert_int_equal(dvp_port_close(m->f.port[0]), 0);
	assert_int_equal(sim_mlx5_invalid_total(m->f.sim), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(m->f.mp), 0);
	dvp_mempool_free(m->f.mp);
	eal_up = false;
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static struct mlx5_rxq *rxq_of(struct mon *m)
{
	return dvp_port_get(m->f.port[0])->rxqs[0];
}

/* The condition now, checked against the queue: the op_own byte at the consumer index. */
static struct dvp_power_monitor_cond cond(struct mon *m)
{
	struct dvp_power_monitor_cond pmc;
	const struct mlx5_rxq *rxq = rxq_of(m);

	memset(&pmc, 0xa5, sizeof(pmc));
	assert_int_equal(dvp_get_monitor_addr(m->f.port[0], 0, &pmc), 0);
	assert_ptr_equal(pmc.addr, &mlx5_cqe_slot(rxq->cqes, rxq->cqe_cnt, rxq->cq_ci)->op_own);
	assert_int_equal(pmc.size, 1);
	assert_non_null(pmc.fn);
	return pmc;
}

/* What DPDK's power management does before it sleeps: the check of the byte read there. */
static bool would_wake(const struct dvp_power_monitor_cond *pmc)
{
	uint8_t v = __atomic_load_n((const volatile uint8_t *)pmc->addr, __ATOMIC_ACQUIRE);

	return pmc->fn(v, pmc->opaque) != 0;
}

/* The check on a condition asked for now. */
static bool wakes_now(struct mon *m)
{
	struct dvp_power_monitor_cond pmc = cond(m);

	return would_wake(&pmc);
}

/* Frame i of the stream: its own length and sequence number, to the port. */
static void frame(struct mon *m, unsigned int i)
{
	struct dvp_ether_addr mac;
	uint32_t len = 60 + (uint32_t)(m->seq * 7 % 60);

	assert_int_equal(dvp_macaddr_get(m->f.port[0], &mac), 0);
	assert_int_equal(sim_mlx5_frame_build(m->frames[i], len, 0, m->seq++, mac.addr_bytes),
			 (int)len);
	m->lens[i] = len;
}

static void test_check_values(void **state)
{
	struct mon *m = mon_open("", "", 64);
	struct dvp_power_monitor_cond pmc;
	uint8_t own;

	(void)state;
	pmc = cond(m);
	own = !!(rxq_of(m)->cq_ci & rxq_of(m)->cqe_cnt);
	/* A receive completion of this pass: work. Of the last pass, or none yet: sleep. */
	assert_int_not_equal(pmc.fn(MLX5_CQE_RESP_SEND << 4 | own, pmc.opaque), 0);
	assert_int_not_equal(pmc.fn(MLX5_CQE_RESP_SEND << 4 | 0x2 | own, pmc.opaque), 0);
	assert_int_not_equal(pmc.fn(MLX5_CQE_RESP_ERR << 4 | own, pmc.opaque), 0);
	assert_int_equal(pmc.fn(MLX5_CQE_RESP_SEND << 4 | !own, pmc.opaque), 0);
	/* An invalid opcode is the device's whatever its owner bit says. */
	assert_int_equal(pmc.fn(MLX5_CQE_INVALID << 4 | own, pmc.opaque), 0);
	assert_int_equal(pmc.fn(MLX5_CQE_INVALID << 4 | !own, pmc.opaque), 0);
	/* Nothing received yet: the device owns the CQE there. */
	assert_false(would_wake(&pmc));
	/* The lib/port checks. */
	assert_int_equal(dvp_get_monitor_addr(m->f.port[0], 1, &pmc), -EINVAL);
	assert_int_equal(dvp_get_monitor_addr(m->f.port[0], 0, NULL), -EINVAL);
	assert_int_equal(dvp_get_monitor_addr(DVP_MAX_PORTS, 0, &pmc), -EINVAL);
	mon_close(m);
}

/*
 * One frame at a time over four passes of a CQ that starts near its end:
 * the monitored byte turns to "work" when the device completes the frame
 * (the same address: what UMWAIT would wake on), and back after the burst.
 */
static void test_plain_passes(void **state)
{
	struct mon *m = mon_open("rxq_cqe_comp_en=0", "cq_start=100", 64);
	uint32_t ci0 = rxq_of(m)->cq_ci, cqe_cnt = rxq_of(m)->cqe_cnt;

	(void)state;
	for (unsigned int i = 0; i < 4 * cqe_cnt; i++) {
		struct dvp_power_monitor_cond pmc = cond(m);
		struct dvp_mbuf *pkt;

		assert_false(would_wake(&pmc));
		frame(m, 0);
		assert_int_equal(sim_mlx5_inject(m->f.sim, 0, m->frames[0], m->lens[0]),
				 SIM_MLX5_RX_DELIVERED);
		assert_true(would_wake(&pmc));
		assert_ptr_equal(cond(m).addr, pmc.addr);
		assert_int_equal(dvp_rx_burst(m->f.port[0], 0, &pkt, 1), 1);
		assert_memory_equal(dvp_pktmbuf_mtod(pkt, const void *), m->frames[0], m->lens[0]);
		dvp_pktmbuf_free(pkt);
		assert_false(wakes_now(m));
	}
	assert_true(rxq_of(m)->cq_ci - ci0 >= 4 * cqe_cnt);
	mon_close(m);
}

/*
 * Frames in compressed sessions taken a few at a time, over many passes:
 * before every burst, "do not sleep" must be exactly "the burst returns
 * packets". Counts the times the CQE at the consumer index was one of the
 * PMD's invalidated mini-CQE slots whose owner bit matched the pass: an
 * owner-only check would not sleep there, with nothing to receive.
 */
static void run_property(struct mon *m, unsigned int rounds, unsigned int *stale_owned)
{
	uint32_t ci0 = rxq_of(m)->cq_ci, cqe_cnt = rxq_of(m)->cqe_cnt;

	for (unsigned int round = 0; round < rounds; round++) {
		unsigned int n = 1 + (round * 13) % 40, got = 0;
		uint16_t burst = (uint16_t)(1 + round % 7);

		for (unsigned int i = 0; i < n; i++)
			frame(m, i);
		assert_int_equal(sim_mlx5_inject_burst(m->f.sim, 0, m->fp, m->lens, n, NULL),
				 (int)n);
		for (;;) {
			struct dvp_power_monitor_cond pmc = cond(m);
			uint8_t v = *(const volatile uint8_t *)pmc.addr;
			bool wake = would_wake(&pmc);
			uint16_t k = dvp_rx_burst(m->f.port[0], 0, m->got, burst);

			assert_int_equal(wake, k > 0);
			if (!wake && (v >> 4) == MLX5_CQE_INVALID &&
			    (v & MLX5_CQE_OWNER_MASK) == pmc.opaque[0])
				(*stale_owned)++;
			for (uint16_t j = 0; j < k; j++) {
				assert_memory_equal(dvp_pktmbuf_mtod(m->got[j], const void *),
						    m->frames[got + j], m->lens[got + j]);
				dvp_pktmbuf_free(m->got[j]);
			}
			got += k;
			if (k == 0)
				break;
		}
		assert_int_equal(got, n);
	}
	assert_true(rxq_of(m)->cq_ci - ci0 > 4 * cqe_cnt);
}

static void test_compressed_sessions(void **state)
{
	struct mon *m = mon_open("", "cq_start=119", 64);
	struct sim_mlx5_dev_stats ds;
	unsigned int stale_owned = 0;

	(void)state;
	run_property(m, 300, &stale_owned);
	assert_int_equal(sim_mlx5_dev_stats(m->f.sim, &ds), 0);
	assert_true(ds.cqe_sessions > 100);
	print_message("%" PRIu64 " compressed sessions; the consumer index met %u invalidated "
		      "mini-CQE slots with the pass's owner bit\n",
		      ds.cqe_sessions, stale_owned);
	assert_true(stale_owned > 0);
	mon_close(m);
}

/*
 * 2^9 strides a WQE, the fewest a device without ext_stride_num_range
 * takes (profile=cx4lx), and two WQEs of them: multi-packet on every profile.
 */
static void test_mprq(void **state)
{
	struct mon *m = mon_open("mprq_en=1,rxqs_min_mprq=1,mprq_log_stride_num=9", "", 1024);
	unsigned int stale_owned = 0;

	(void)state;
	assert_non_null(rxq_of(m)->mprq);
	run_property(m, 800, &stale_owned);
	mon_close(m);
}

/* A fault waiting for the queue's lcore: no sleep, whatever the CQE says. */
static void test_fault_pending(void **state)
{
	struct mon *m = mon_open("", "", 64);
	struct dvp_port *port = dvp_port_get(m->f.port[0]);
	struct dvp_power_monitor_cond pmc;
	struct dvp_mbuf *pkt;

	(void)state;
	assert_false(wakes_now(m));
	dvp_port_ctrl_lock(port);
	assert_int_equal(dvp_port_queue_fault_raise(port, 0, false, DVP_PORT_CAUSE_WQ_FATAL), 0);
	dvp_port_ctrl_unlock(port);
	pmc = cond(m);
	assert_true(would_wake(&pmc));
	assert_int_not_equal(pmc.fn(MLX5_CQE_INVALID << 4, pmc.opaque), 0);
	/* The burst rebuilds the queue; then there is nothing to wake for. */
	assert_int_equal(dvp_rx_burst(m->f.port[0], 0, &pkt, 1), 0);
	assert_false(wakes_now(m));
	frame(m, 0);
	assert_int_equal(sim_mlx5_inject(m->f.sim, 0, m->frames[0], m->lens[0]),
			 SIM_MLX5_RX_DELIVERED);
	assert_true(wakes_now(m));
	assert_int_equal(dvp_rx_burst(m->f.port[0], 0, &pkt, 1), 1);
	dvp_pktmbuf_free(pkt);
	mon_close(m);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_check_values, teardown),
		cmocka_unit_test_teardown(test_plain_passes, teardown),
		cmocka_unit_test_teardown(test_compressed_sessions, teardown),
		cmocka_unit_test_teardown(test_mprq, teardown),
		cmocka_unit_test_teardown(test_fault_pending, teardown),
	};

	if (argc > 1 && strncmp(argv[1], "rx_vec_en=", 10) == 0)
		pmd_extra = argv[1];
	else if (argc > 1)
		sim_extra = argv[1];
	return cmocka_run_group_tests(tests, NULL, NULL);
}
