/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvpmd's ring and mempool against DPDK's rte_ring and rte_mempool, in one
 * process, on the same cores, with the same sizes and the same compiler
 * flags (one translation unit, DPDK's -march included).
 *
 * Cases (cycles per element or per object, lower is better):
 *   ring_{spsc,mpmc}_b{1,8,32}      enqueue then dequeue of a bulk, one core
 *   ring2_{spsc,mpmc}_b{1,8,32}     lcore 1 enqueues, the main lcore dequeues
 *   mempool_{cache,nocache}_n{1,4,32}  get then put of n objects, one core
 *
 * Each case runs both implementations alternately, TRIALS times (the first
 * argument, 9 by default, at least 5), after one warm-up run of each, and
 * keeps each one's median and spread: the interquartile range over the
 * median. DVP_BENCH_CASES=ring_,mempool_ selects cases by name;
 * DVP_BENCH_SCALE=N divides the loop counts (for valgrind). Output, one line
 * per case and a final geometric mean:
 *   RATIO <case> ours=<cycles> dpdk=<cycles> ratio=<ours/dpdk> spread_ours=<%> spread_dpdk=<%>
 *         spread_ratio=<%>
 *   RATIO <case> ours=<cycles> dpdk=<cycles> too-noisy spread_ours=<%> ...
 *   RATIO geomean=<value> cases=<n> too_noisy=<n>
 * spread_ratio is the spread of the trials' own ratios (each of ours over
 * the DPDK trial run right after it). A case where any of the three
 * spreads exceeds BENCH_SPREAD_MAX (20 %) says so instead of a ratio, and stays
 * out of the geometric mean: its trials measured the host (two vCPUs the
 * hypervisor moves), not the ring.
 *
 * Both EALs run with --no-huge on lcores 0-1: ours is initialised first,
 * then DPDK's; each one's worker thread on CPU 1 sleeps unless launched, and
 * two-lcore cases launch through our EAL for both rings (a ring does not
 * care which EAL made the thread).
 */

#include <errno.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_version.h>

#include <dvp_cycles.h>
#include <dvp_eal.h>
#include <dvp_lcore.h>
#include <dvp_mempool.h>
#include <dvp_ring.h>

#include "bench_common.h"

/*
 * The tables a loop hands to a library and gets back are "used" through
 * this barrier, so the compiler can neither drop a copy nor fold constant
 * objects into the stores, for either library.
 */
#define ESCAPE(p) __asm__ volatile("" : : "r"(p) : "memory")

#define RING_SIZE 4096
#define POOL_SIZE 8192
#define POOL_ELT 64
#define POOL_CACHE 256
static unsigned int trials = 9;
/* Loop counts; DVP_BENCH_SCALE=N divides them (for valgrind runs). */
static unsigned int ITERS_1CORE = 200000u;
static unsigned int ELEMS_2CORE = 1000000u;

/* -------------------------------------------------------------------------
 * One core: each function is the same loop around one library's calls, with
 * the bulk size a constant so both libraries' inline code specialises.
 */

#define RING_1CORE(fname, rtype, enq, deq, bulk)                                      \
	static __attribute__((noinline)) uint64_t fname(rtype *r, unsigned int iters) \
	{                                                                             \
		void *objs[bulk], *out[bulk];                                         \
		unsigned int i;                                                       \
		uint64_t t0;                                                          \
		for (i = 0; i < (bulk); i++)                                          \
			objs[i] = (void *)(uintptr_t)(i + 1);                         \
		t0 = dvp_rdtsc();                                                     \
		for (i = 0; i < iters; i++) {                                         \
			ESCAPE(objs);                                                 \
			if (enq(r, objs, bulk, NULL) != (bulk))                       \
				abort();                                              \
			if (deq(r, out, bulk, NULL) != (bulk))                        \
				abort();                                              \
			ESCAPE(out);                                                  \
		}                                                                     \
		return dvp_rdtsc() - t0;                                              \
	}

#define RING_1CORE_ALL(b)                                                   \
	RING_1CORE(dvp_spsc_##b, struct dvp_ring, dvp_ring_sp_enqueue_bulk, \
		   dvp_ring_sc_dequeue_bulk, b)                             \
	RING_1CORE(rte_spsc_##b, struct rte_ring, rte_ring_sp_enqueue_bulk, \
		   rte_ring_sc_dequeue_bulk, b)                             \
	RING_1CORE(dvp_mpmc_##b, struct dvp_ring, dvp_ring_mp_enqueue_bulk, \
		   dvp_ring_mc_dequeue_bulk, b)                             \
	RING_1CORE(rte_mpmc_##b, struct rte_ring, rte_ring_mp_enqueue_bulk, \
		   rte_ring_mc_dequeue_bulk, b)

RING_1CORE_ALL(1)
RING_1CORE_ALL(8)
RING_1CORE_ALL(32)

#define POOL_1CORE(fname, ptype, get, put, n)                                          \
	static __attribute__((noinline)) uint64_t fname(ptype *mp, unsigned int iters) \
	{                                                                              \
		void *objs[n];                                                         \
		unsigned int i;                                                        \
		uint64_t t0 = dvp_rdtsc();                                             \
		for (i = 0; i < iters; i++) {                                          \
			if (get(mp, objs, n) != 0)                                     \
				abort();                                               \
			ESCAPE(objs);                                                  \
			put(mp, objs, n);                                              \
		}                                                                      \
		return dvp_rdtsc() - t0;                                               \
	}

#define POOL_1CORE_ALL(n)                                                                        \
	POOL_1CORE(dvp_pool_##n, struct dvp_mempool, dvp_mempool_get_bulk, dvp_mempool_put_bulk, \
		   n)                                                                            \
	POOL_1CORE(rte_pool_##n, struct rte_mempool, rte_mempool_get_bulk, rte_mempool_put_bulk, n)

POOL_1CORE_ALL(1)
POOL_1CORE_ALL(4)
POOL_1CORE_ALL(32)

/* -------------------------------------------------------------------------
 * Two lcores: lcore 1 enqueues ELEMS_2CORE elements, the main lcore
 * dequeues them; the time is the main lcore's from the start signal to the
 * last element.
 */

struct two_core {
	void *ring;
	unsigned int bulk;
	unsigned int (*enq)(void *r, void *const *objs, unsigned int n);
	_Atomic int ready; /* the producer runs: its wake-up is not timed */
	_Atomic int go;
};

#define ENQ_FN(fname, rtype, enq)                                             \
	static unsigned int fname(void *r, void *const *objs, unsigned int n) \
	{                                                                     \
		switch (n) {                                                  \
		case 1:                                                       \
			return enq((rtype *)r, objs, 1, NULL);                \
		case 8:                                                       \
			return enq((rtype *)r, objs, 8, NULL);                \
		default:                                                      \
			return enq((rtype *)r, objs, 32, NULL);               \
		}                                                             \
	}

ENQ_FN(dvp_sp_enq, struct dvp_ring, dvp_ring_sp_enqueue_bulk)
ENQ_FN(dvp_mp_enq, struct dvp_ring, dvp_ring_mp_enqueue_bulk)
ENQ_FN(rte_sp_enq, struct rte_ring, rte_ring_sp_enqueue_bulk)
ENQ_FN(rte_mp_enq, struct rte_ring, rte_ring_mp_enqueue_bulk)

static int two_core_producer(void *arg)
{
	struct two_core *t = arg;
	void *objs[32];
	unsigned int i, sent = 0;

	for (i = 0; i < 32; i++)
		objs[i] = (void *)(uintptr_t)(i + 1);
	atomic_store_explicit(&t->ready, 1, memory_order_release);
	while (!atomic_load_explicit(&t->go, memory_order_acquire))
		dvp_pause();
	while (sent < ELEMS_2CORE) {
		unsigned int n;

		ESCAPE(objs);
		n = t->enq(t->ring, objs, t->bulk);
		/* As DPDK's ring_perf_autotest: back off when the ring is full. */
		if (n == 0)
			dvp_pause();
		sent += n;
	}
	return 0;
}

/* Dequeue one bulk; back off on an empty ring, as DPDK's ring_perf_autotest. */
#define DEQ_ONE(rtype, deq, r, out, b, got)                            \
	do {                                                           \
		unsigned int n_ = deq((rtype *)(r), (out), (b), NULL); \
		if (n_ == 0)                                           \
			dvp_pause();                                   \
		(got) += n_;                                           \
		ESCAPE(out);                                           \
	} while (0)

#define DEQ_LOOP(fname, rtype, deq)                                            \
	static __attribute__((noinline)) uint64_t fname(struct two_core *t)    \
	{                                                                      \
		void *out[32];                                                 \
		unsigned int got = 0;                                          \
		uint64_t t0;                                                   \
		atomic_store_explicit(&t->go, 0, memory_order_relaxed);        \
		atomic_store_explicit(&t->ready, 0, memory_order_relaxed);     \
		if (dvp_eal_remote_launch(two_core_producer, t, 1) != 0)       \
			abort();                                               \
		while (!atomic_load_explicit(&t->ready, memory_order_acquire)) \
			dvp_pause();                                           \
		t0 = dvp_rdtsc();                                              \
		atomic_store_explicit(&t->go, 1, memory_order_release);        \
		switch (t->bulk) {                                             \
		case 1:                                                        \
			while (got < ELEMS_2CORE)                              \
				DEQ_ONE(rtype, deq, t->ring, out, 1, got);     \
			break;                                                 \
		case 8:                                                        \
			while (got < ELEMS_2CORE)                              \
				DEQ_ONE(rtype, deq, t->ring, out, 8, got);     \
			break;                                                 \
		default:                                                       \
			while (got < ELEMS_2CORE)                              \
				DEQ_ONE(rtype, deq, t->ring, out, 32, got);    \
		}                                                              \
		t0 = dvp_rdtsc() - t0;                                         \
		dvp_eal_wait_lcore(1);                                         \
		return t0;                                                     \
	}

DEQ_LOOP(dvp_sc_loop, struct dvp_ring, dvp_ring_sc_dequeue_bulk)
DEQ_LOOP(dvp_mc_loop, struct dvp_ring, dvp_ring_mc_dequeue_bulk)
DEQ_LOOP(rte_sc_loop, struct rte_ring, rte_ring_sc_dequeue_bulk)
DEQ_LOOP(rte_mc_loop, struct rte_ring, rte_ring_mc_dequeue_bulk)

/* -------------------------------------------------------------------------
 * Measuring and reporting
 */

static double log_sum;
static unsigned int ncases, nnoisy;

/*
 * @p ours[t] and @p dpdk[t] ran back to back: their ratio sees the same
 * host. Each side steady is not enough: two vCPUs the hypervisor moves
 * between trials can make every trial of one side fast and every trial
 * of the other slow in one run and the reverse in the next, so the
 * trials' ratios must agree too.
 */
static void report(const char *name, double *ours, double *dpdk, unsigned int n)
{
	double r[64], mo, md, mr, so, sd, sr;
	unsigned int t;

	for (t = 0; t < n; t++)
		r[t] = ours[t] / dpdk[t];
	mo = bench_median(ours, n);
	md = bench_median(dpdk, n);
	mr = bench_median(r, n);
	so = bench_spread(ours, n, mo);
	sd = bench_spread(dpdk, n, md);
	sr = bench_spread(r, n, mr);
	if (so > BENCH_SPREAD_MAX || sd > BENCH_SPREAD_MAX || sr > BENCH_SPREAD_MAX) {
		printf("RATIO %s ours=%.2f dpdk=%.2f too-noisy spread_ours=%.0f%% spread_dpdk=%.0f%% spread_ratio=%.0f%%\n",
		       name, mo, md, 100 * so, 100 * sd, 100 * sr);
		nnoisy++;
	} else {
		printf("RATIO %s ours=%.2f dpdk=%.2f ratio=%.3f spread_ours=%.0f%% spread_dpdk=%.0f%% spread_ratio=%.0f%%\n",
		       name, mo, md, mo / md, 100 * so, 100 * sd, 100 * sr);
		log_sum += log(mo / md);
		ncases++;
	}
	fflush(stdout);
}

/* Alternate the two, trials times each, and report the medians per element. */
typedef uint64_t (*trial_fn)(void *ctx, unsigned int iters);

/* DVP_BENCH_CASES=a,b runs only the cases whose names contain a or b. */
static bool case_selected(const char *name)
{
	const char *sel = getenv("DVP_BENCH_CASES"), *p;
	size_t len;

	if (sel == NULL || *sel == '\0')
		return true;
	for (p = sel; *p != '\0'; p += len + (p[len] == ',')) {
		char pat[64];

		len = strcspn(p, ",");
		if (len == 0 || len >= sizeof(pat))
			continue;
		memcpy(pat, p, len);
		pat[len] = '\0';
		if (strstr(name, pat) != NULL)
			return true;
	}
	return false;
}

static void run_case(const char *name, trial_fn ours, void *ours_ctx, trial_fn dpdk, void *dpdk_ctx,
		     unsigned int iters, double per)
{
	double a[64], b[64];
	unsigned int t;

	if (!case_selected(name))
		return;
	/* warm both: caches, branch predictors, page faults */
	ours(ours_ctx, iters / 10 + 1);
	dpdk(dpdk_ctx, iters / 10 + 1);
	for (t = 0; t < trials; t++) {
		a[t] = (double)ours(ours_ctx, iters) / per;
		b[t] = (double)dpdk(dpdk_ctx, iters) / per;
	}
	report(name, a, b, trials);
}

/* Adapters from the typed loops to trial_fn. */
#define ADAPT(fname, type, inner)                            \
	static uint64_t fname(void *ctx, unsigned int iters) \
	{                                                    \
		return inner((type *)ctx, iters);            \
	}

ADAPT(t_dvp_spsc_1, struct dvp_ring, dvp_spsc_1)
ADAPT(t_dvp_spsc_8, struct dvp_ring, dvp_spsc_8)
ADAPT(t_dvp_spsc_32, struct dvp_ring, dvp_spsc_32)
ADAPT(t_rte_spsc_1, struct rte_ring, rte_spsc_1)
ADAPT(t_rte_spsc_8, struct rte_ring, rte_spsc_8)
ADAPT(t_rte_spsc_32, struct rte_ring, rte_spsc_32)
ADAPT(t_dvp_mpmc_1, struct dvp_ring, dvp_mpmc_1)
ADAPT(t_dvp_mpmc_8, struct dvp_ring, dvp_mpmc_8)
ADAPT(t_dvp_mpmc_32, struct dvp_ring, dvp_mpmc_32)
ADAPT(t_rte_mpmc_1, struct rte_ring, rte_mpmc_1)
ADAPT(t_rte_mpmc_8, struct rte_ring, rte_mpmc_8)
ADAPT(t_rte_mpmc_32, struct rte_ring, rte_mpmc_32)
ADAPT(t_dvp_pool_1, struct dvp_mempool, dvp_pool_1)
ADAPT(t_dvp_pool_4, struct dvp_mempool, dvp_pool_4)
ADAPT(t_dvp_pool_32, struct dvp_mempool, dvp_pool_32)
ADAPT(t_rte_pool_1, struct rte_mempool, rte_pool_1)
ADAPT(t_rte_pool_4, struct rte_mempool, rte_pool_4)
ADAPT(t_rte_pool_32, struct rte_mempool, rte_pool_32)

static uint64_t t_dvp_sc(void *ctx, unsigned int iters)
{
	(void)iters;
	return dvp_sc_loop(ctx);
}

static uint64_t t_dvp_mc(void *ctx, unsigned int iters)
{
	(void)iters;
	return dvp_mc_loop(ctx);
}

static uint64_t t_rte_sc(void *ctx, unsigned int iters)
{
	(void)iters;
	return rte_sc_loop(ctx);
}

static uint64_t t_rte_mc(void *ctx, unsigned int iters)
{
	(void)iters;
	return rte_mc_loop(ctx);
}

int main(int argc, char **argv)
{
	char prefix[PATH_MAX], *dpdk_argv[16];
	char *dvp_argv[] = { argv[0], "--no-huge", "-l", "0-1", "--log-level", "notice", NULL };
	struct dvp_ring *dr_s, *dr_m;
	struct rte_ring *rr_s, *rr_m;
	struct dvp_mempool *dp_c, *dp_n;
	struct rte_mempool *rp_c, *rp_n;
	int dpdk_argc = 0;
	static const unsigned int bulks[] = { 1, 8, 32 };
	unsigned int i;

	if (argc > 1)
		trials = (unsigned int)atoi(argv[1]);
	if (trials < 5 || trials > 64)
		trials = 9;
	if (getenv("DVP_BENCH_SCALE") != NULL && atoi(getenv("DVP_BENCH_SCALE")) > 0) {
		ITERS_1CORE /= (unsigned int)atoi(getenv("DVP_BENCH_SCALE"));
		ELEMS_2CORE /= (unsigned int)atoi(getenv("DVP_BENCH_SCALE"));
	}

	/* Ours first, then DPDK's (both pin the main thread to CPU 0). */
	if (dvp_eal_init((int)DVP_DIM(dvp_argv) - 1, dvp_argv) < 0) {
		fprintf(stderr, "bench: dvp_eal_init failed: %s\n", dvp_strerror(dvp_errno));
		return 1;
	}
	snprintf(prefix, sizeof(prefix), "--file-prefix=dvpbench%d", (int)getpid());
	dpdk_argv[dpdk_argc++] = argv[0];
	dpdk_argv[dpdk_argc++] = "--no-huge";
	dpdk_argv[dpdk_argc++] = "--no-pci";
	dpdk_argv[dpdk_argc++] = "--no-shconf";
	dpdk_argv[dpdk_argc++] = "-l";
	dpdk_argv[dpdk_argc++] = "0-1";
	dpdk_argv[dpdk_argc++] = prefix;
	dpdk_argv[dpdk_argc++] = "-m";
	dpdk_argv[dpdk_argc++] = "512";
	dpdk_argv[dpdk_argc++] = "--no-telemetry";
	dpdk_argv[dpdk_argc++] = "--log-level=notice";
	dpdk_argv[dpdk_argc] = NULL;
	if (rte_eal_init(dpdk_argc, dpdk_argv) < 0) {
		fprintf(stderr, "bench: rte_eal_init failed: %s\n", rte_strerror(rte_errno));
		dvp_eal_cleanup();
		return 1;
	}
	printf("# %s vs %s; %u trials per case, medians; TSC %.0f MHz\n", dvp_version(),
	       rte_version(), trials, (double)dvp_get_tsc_hz() / 1e6);

	dr_s = dvp_ring_create("b_spsc", RING_SIZE, 0, DVP_RING_F_SP_ENQ | DVP_RING_F_SC_DEQ);
	dr_m = dvp_ring_create("b_mpmc", RING_SIZE, 0, 0);
	rr_s = rte_ring_create("b_spsc", RING_SIZE, 0, RING_F_SP_ENQ | RING_F_SC_DEQ);
	rr_m = rte_ring_create("b_mpmc", RING_SIZE, 0, 0);
	dp_c = dvp_mempool_create("b_cache", POOL_SIZE, POOL_ELT, POOL_CACHE, 0, NULL, NULL, 0, 0);
	dp_n = dvp_mempool_create("b_nocache", POOL_SIZE, POOL_ELT, 0, 0, NULL, NULL, 0, 0);
	rp_c = rte_mempool_create("b_cache", POOL_SIZE, POOL_ELT, POOL_CACHE, 0, NULL, NULL, NULL,
				  NULL, 0, 0);
	rp_n = rte_mempool_create("b_nocache", POOL_SIZE, POOL_ELT, 0, 0, NULL, NULL, NULL, NULL, 0,
				  0);
	if (!dr_s || !dr_m || !rr_s || !rr_m || !dp_c || !dp_n || !rp_c || !rp_n) {
		fprintf(stderr, "bench: cannot create the rings and pools\n");
		return 1;
	}

	run_case("ring_spsc_b1", t_dvp_spsc_1, dr_s, t_rte_spsc_1, rr_s, ITERS_1CORE,
		 ITERS_1CORE * 1.0);
	run_case("ring_spsc_b8", t_dvp_spsc_8, dr_s, t_rte_spsc_8, rr_s, ITERS_1CORE,
		 ITERS_1CORE * 8.0);
	run_case("ring_spsc_b32", t_dvp_spsc_32, dr_s, t_rte_spsc_32, rr_s, ITERS_1CORE,
		 ITERS_1CORE * 32.0);
	run_case("ring_mpmc_b1", t_dvp_mpmc_1, dr_m, t_rte_mpmc_1, rr_m, ITERS_1CORE,
		 ITERS_1CORE * 1.0);
	run_case("ring_mpmc_b8", t_dvp_mpmc_8, dr_m, t_rte_mpmc_8, rr_m, ITERS_1CORE,
		 ITERS_1CORE * 8.0);
	run_case("ring_mpmc_b32", t_dvp_mpmc_32, dr_m, t_rte_mpmc_32, rr_m, ITERS_1CORE,
		 ITERS_1CORE * 32.0);

	run_case("mempool_cache_n1", t_dvp_pool_1, dp_c, t_rte_pool_1, rp_c, ITERS_1CORE,
		 ITERS_1CORE * 1.0);
	run_case("mempool_cache_n4", t_dvp_pool_4, dp_c, t_rte_pool_4, rp_c, ITERS_1CORE,
		 ITERS_1CORE * 4.0);
	run_case("mempool_cache_n32", t_dvp_pool_32, dp_c, t_rte_pool_32, rp_c, ITERS_1CORE,
		 ITERS_1CORE * 32.0);
	run_case("mempool_nocache_n1", t_dvp_pool_1, dp_n, t_rte_pool_1, rp_n, ITERS_1CORE,
		 ITERS_1CORE * 1.0);
	run_case("mempool_nocache_n4", t_dvp_pool_4, dp_n, t_rte_pool_4, rp_n, ITERS_1CORE,
		 ITERS_1CORE * 4.0);
	run_case("mempool_nocache_n32", t_dvp_pool_32, dp_n, t_rte_pool_32, rp_n, ITERS_1CORE,
		 ITERS_1CORE * 32.0);

	for (i = 0; i < DVP_DIM(bulks); i++) {
		unsigned int b = bulks[i];
		struct two_core ds = { .ring = dr_s, .bulk = b, .enq = dvp_sp_enq };
		struct two_core rs = { .ring = rr_s, .bulk = b, .enq = rte_sp_enq };
		struct two_core dm = { .ring = dr_m, .bulk = b, .enq = dvp_mp_enq };
		struct two_core rm = { .ring = rr_m, .bulk = b, .enq = rte_mp_enq };
		char name[32];

		snprintf(name, sizeof(name), "ring2_spsc_b%u", b);
		run_case(name, t_dvp_sc, &ds, t_rte_sc, &rs, 0, ELEMS_2CORE);
		snprintf(name, sizeof(name), "ring2_mpmc_b%u", b);
		run_case(name, t_dvp_mc, &dm, t_rte_mc, &rm, 0, ELEMS_2CORE);
	}

	if (ncases > 0)
		printf("RATIO geomean=%.3f cases=%u too_noisy=%u\n", exp(log_sum / ncases), ncases,
		       nnoisy);

	rte_mempool_free(rp_c);
	rte_mempool_free(rp_n);
	rte_ring_free(rr_s);
	rte_ring_free(rr_m);
	dvp_mempool_free(dp_c);
	dvp_mempool_free(dp_n);
	dvp_ring_free(dr_s);
	dvp_ring_free(dr_m);
	/* DPDK leaves its (empty) runtime directory behind: remove ours. */
	snprintf(prefix, sizeof(prefix), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	if (rmdir(prefix) != 0)
		fprintf(stderr, "bench: cannot remove %s: %s\n", prefix, strerror(errno));
	dvp_eal_cleanup();
	return 0;
}
