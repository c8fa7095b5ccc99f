/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-perf internals: options (main.c), an end of the link and its frames
 * (port.c), the server and clients (run.c), the latency histogram (hist.c).
 */

#ifndef PERF_H
#define PERF_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dvp_cycles.h>
#include <dvp_rxwait.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

/*
 * A log-linear histogram of nanosecond values: exact below 128 ns, then
 * 64 buckets per power of two (at most 1/64 = 1.6% relative error), up to
 * 2^41 ns (36 minutes). Percentiles are read from it, as HdrHistogram does.
 */
#define HIST_SUB_BITS 6
#define HIST_LINEAR 128u
#define HIST_MAX_EXP 41
#define HIST_BUCKETS (HIST_LINEAR + (HIST_MAX_EXP - 7 + 1) * (1u << HIST_SUB_BITS))

struct hist {
	uint64_t count;
	uint64_t sum;
	uint64_t min;
	uint64_t max;
	uint64_t b[HIST_BUCKETS];
};

void hist_init(struct hist *h);
void hist_add(struct hist *h, uint64_t ns);
/* The value at quantile @q (0 to 1): the middle of its bucket, exact for min and max. */
uint64_t hist_quantile(const struct hist *h, double q);
/* Bucket @i covers [lo, hi]. */
void hist_bucket_range(unsigned int i, uint64_t *lo, uint64_t *hi);
/* Every non-empty bucket: lo_ns,hi_ns,count,cumulative fraction. @return 0 or -errno. */
int hist_write_csv(const struct hist *h, const char *path, const char *label);
/*
 * Draw the latency distribution (density and CDF, log x axis) into a PNG
 * with gnuplot. @return 0, -ENOENT when gnuplot is not installed, or
 * another negative errno.
 */
int hist_plot(const struct hist *h, const char *png, const char *title);

#define PERF_MAGIC 0x44505246u /* "DPRF" */
#define PERF_ETHERTYPE 0x88b5 /* IEEE local experimental */
#define PERF_BURST_MAX 64

enum frame_type {
	FT_DATA = 1,
	FT_DONE = 2, /* client -> server: the run is over */
	FT_DONE_ACK = 3, /* server -> client: what it saw */
	FT_BYE = 4, /* client -> server: leaving (a datagram link has no disconnect) */
	FT_SYNC = 5, /* client -> server, echoed: both ends are in their loops (bw) */
};

/* Behind a 14-byte Ethernet header. */
struct perf_hdr {
	uint32_t magic;
	uint8_t type;
	uint8_t pad[3];
	uint64_t seq;
	uint64_t value; /* DONE_ACK: frames received; DONE: the client's idle ms */
	uint64_t errors; /* DONE_ACK: frames out of sequence */
} __attribute__((packed));

#define FRAME_MIN (14 + sizeof(struct perf_hdr))

static inline struct perf_hdr *frame_hdr(struct dvp_mbuf *m)
{
	return dvp_pktmbuf_mtod_offset(m, struct perf_hdr *, 14);
}

/* The header of a frame of ours, or NULL when it is not one (inline: per frame). */
static inline const struct perf_hdr *frame_check(struct dvp_mbuf *m)
{
	if (m->data_len < FRAME_MIN || frame_hdr(m)->magic != PERF_MAGIC)
		return NULL;
	return frame_hdr(m);
}

enum rx_mode { MODE_POLL, MODE_INTR, MODE_ADAPTIVE };
extern const char *const perf_mode_names[3];

enum perf_role { ROLE_CLIENT, ROLE_SERVER, ROLE_PAIR };

/* The options (main.c); read-only once parsed. */
struct perf_opt {
	enum perf_role role;
	bool bw;
	uint16_t port;
	uint16_t peer_port; /* ROLE_PAIR: the server's port */
	uint32_t size;
	uint64_t iters;
	uint64_t warmup;
	enum rx_mode mode;
	uint16_t burst;
	uint16_t rxd, txd;
	const char *csv;
	const char *plot;
	double idle_s;
	unsigned int link_timeout_s;
	unsigned int timeout_s;
};
extern struct perf_opt opt;

/*
 * Set by a signal (or by the client of a pair that failed, for its server
 * thread); read in every wait loop. Relaxed: a flag that only ends loops,
 * publishing no data.
 */
extern atomic_int perf_stop;
extern uint64_t perf_hz;

/*
 * Set, on the main thread, where a line blames the command line once the
 * ports are known (a port that does not exist, a size or rx mode it cannot
 * take, too few lcores): the exit status is then 2, as for a bad option.
 */
extern bool perf_usage_error;

/*
 * Deadlines are TSC readings: checking one in a poll loop is a compare.
 * perf_now_ns() converts in floating point, which an emulated CPU (the
 * Soft-RoCE guest's) runs in software: tenths of a µs between the
 * doorbell and the first poll of a round trip, when every call of
 * recv_some() converted its deadline.
 */
static inline uint64_t perf_deadline_in_ms(uint64_t ms)
{
	return dvp_rdtsc() + ms * (perf_hz / 1000);
}

static inline uint64_t perf_deadline_in(unsigned int s)
{
	return dvp_rdtsc() + (uint64_t)s * perf_hz;
}

static inline bool perf_past(uint64_t deadline)
{
	return dvp_rdtsc() > deadline;
}

static inline bool perf_stopping(void)
{
	return atomic_load_explicit(&perf_stop, memory_order_relaxed) != 0;
}

/* One end of the link: a port, its pool and how its rx queue waits. */
struct perf_end {
	uint16_t port;
	bool server;
	const char *pool_name;
	struct dvp_mempool *mp;
	struct dvp_rxwait_set *set;
	struct dvp_rxwait_governor *gov;
	struct dvp_ether_addr mac;
	struct hist hist; /* client, lat */
	int status; /* a pair's server thread: its result */
};

/* port.c */
uint64_t perf_now_ns(void);
/* perf_now_ns() as lib/rxwait's clock: the TSC, no system call (a VM's clock_gettime may be one). */
uint64_t perf_intr_clock(void *arg);
/* Configure and start @e's port. @return 0 or a negative errno (said on stderr). */
int end_setup(struct perf_end *e);
/* Wait for @e's link and print its PERF-CONFIG line. @return 0 or a negative errno. */
int end_wait_link(struct perf_end *e);
/* Stop and close the port; every mbuf must be back. @return 0 or -EIO. */
int end_teardown(struct perf_end *e);
struct dvp_mbuf *frame_new(struct perf_end *e, uint8_t type, uint64_t seq, uint64_t value,
			   uint64_t errors);
/* Send one frame, retrying while the queue is full. @return 0 or -ETIMEDOUT (freed). */
int send_one(struct perf_end *e, struct dvp_mbuf *m);
/* At least one frame, waiting as --rx-mode says, until @deadline. @return n, 0 or -errno. */
int recv_some(struct perf_end *e, struct dvp_mbuf **pkts, uint16_t max, uint64_t deadline);
/* Wake @e's rx wait (async-signal safe). */
void end_kick(struct perf_end *e);
/*
 * --rx-mode intr: kick the waits of @a and @b (either may be NULL) every
 * 100 ms from a thread of our own, their sets created. @return 0 or -errno.
 */
int perf_ticker_start(struct perf_end *a, struct perf_end *b);
/* Stop and join it (before the ends' teardown); fine when not started. */
void perf_ticker_stop(void);

/* run.c */
int run_server(struct perf_end *e);
int run_lat(struct perf_end *e);
int run_bw(struct perf_end *e);
void run_idle(struct perf_end *e);
void check_tx_errors(struct perf_end *e);
/** The rx queue's interrupt counters on one line led by @p tag (not in poll mode). */
void print_intr_stats(struct perf_end *e, const char *tag);

#endif /* PERF_H */
