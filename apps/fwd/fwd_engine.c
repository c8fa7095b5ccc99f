/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The forwarding loops: the fast path of dvp-fwd. One loop per lcore over
 * its streams, specialised at compile time for each forward mode and rx
 * mode (the switch in fwd_lcore_main() calls always-inline loops with
 * constant arguments). Inside a loop there is no system call, lock,
 * allocation or log call; the only system calls are the sleeps of intr and
 * adaptive modes (dvp_rx_wait() through the governor), which is the point
 * of those modes. Counters have one writer, the lcore, and are read by the
 * main lcore with relaxed loads.
 */

#include <string.h>

#include <dvp_counter.h>
#include <dvp_cycles.h>

#include "fwd.h"

volatile bool fwd_stop_flag;

/* ------------------------------------------------------------------------
 * Frames of the generators (txonly, flowgen) and of --tx-first
 */

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static __dvp_always_inline uint16_t ipv4_cksum(const uint8_t *h)
{
	uint32_t sum = 0;
	unsigned int i;

	for (i = 0; i < 20; i += 2)
		sum += (uint32_t)h[i] << 8 | h[i + 1];
	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * UDP/IPv4 from 198.18.0.1 to 198.18.0.2 (RFC 2544's benchmark range, as
 * testpmd's txonly), ports 9 -> 9 (discard), UDP checksum 0 (none, valid
 * for IPv4). flowgen varies the source address and port per flow.
 */
void fwd_stream_templates(struct fwd_stream *fs, const struct fwd_config *cfg)
{
	unsigned int i;

	fs->nb_tmpl = (uint16_t)cfg->nb_txpkts;
	fs->flows = cfg->mode == FWD_MODE_FLOWGEN ? cfg->flowgen_flows : 1;
	for (i = 0; i < cfg->nb_txpkts; i++) {
		uint8_t *h = fs->tmpl[i];
		uint16_t len = cfg->txpkts[i];

		fs->tmpl_len[i] = len;
		memset(h, 0, FWD_HDR_LEN);
		memcpy(h, fs->tx_dst.addr_bytes, 6);
		memcpy(h + 6, fs->tx_src.addr_bytes, 6);
		put16(h + 12, 0x0800);
		h[14] = 0x45;
		put16(h + 16, (uint16_t)(len - 14));
		h[22] = 64; /* TTL */
		h[23] = 17; /* UDP */
		h[26] = 198, h[27] = 18, h[28] = 0, h[29] = 1;
		h[30] = 198, h[31] = 18, h[32] = 0, h[33] = 2;
		put16(h + 24, ipv4_cksum(h + 14));
		put16(h + 34, 9);
		put16(h + 36, 9);
		put16(h + 38, (uint16_t)(len - 34));
	}
}

static __dvp_always_inline void build_frame(struct fwd_stream *fs, struct dvp_mbuf *m)
{
	uint16_t t = (uint16_t)(fs->seq % fs->nb_tmpl);
	uint16_t len = fs->tmpl_len[t];
	uint8_t *h = dvp_pktmbuf_mtod(m, uint8_t *);

	memcpy(h, fs->tmpl[t], FWD_HDR_LEN);
	if (fs->flows > 1) {
		uint32_t flow = (uint32_t)(fs->seq % fs->flows);

		h[28] = (uint8_t)(flow >> 8);
		h[29] = (uint8_t)flow;
		put16(h + 34, (uint16_t)(0xc000u | (flow & 0x3fffu)));
		h[24] = h[25] = 0;
		put16(h + 24, ipv4_cksum(h + 14));
	}
	/* The sequence number at the start of the payload, for captures. */
	memcpy(h + FWD_HDR_LEN, &fs->seq, sizeof(fs->seq));
	m->data_len = len;
	m->pkt_len = len;
	fs->seq++;
}

void fwd_build_frames(struct fwd_stream *fs, struct dvp_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	for (i = 0; i < n; i++)
		build_frame(fs, pkts[i]);
}

/* ------------------------------------------------------------------------
 * Per-burst work
 */

/*
 * Send @n packets on the stream's tx queue. What the queue does not take is
 * retried (tx_retry times, or until taken: back-pressure toward the rx
 * side), then freed and counted; at a stop request it is freed as
 * stop_dropped, which is not loss (the run ends).
 */
static __dvp_always_inline void send_burst(struct fwd_stream *fs, struct dvp_mbuf **pkts,
					   uint16_t n)
{
	uint16_t sent = dvp_tx_burst(fs->tx_port, fs->tx_queue, pkts, n);
	uint32_t retry = 0;

	while (dvp_unlikely(sent < n)) {
		if (retry++ == fs->tx_retry) {
			dvp_pktmbuf_free_bulk(pkts + sent, n - sent);
			dvp_counter_add(&fs->st.fwd_dropped, n - sent);
			break;
		}
		if (fwd_stopping()) {
			dvp_pktmbuf_free_bulk(pkts + sent, n - sent);
			dvp_counter_add(&fs->st.stop_dropped, n - sent);
			break;
		}
		dvp_pause();
		sent = (uint16_t)(sent + dvp_tx_burst(fs->tx_port, fs->tx_queue, pkts + sent,
						      (uint16_t)(n - sent)));
	}
	dvp_counter_add(&fs->st.tx_packets, sent);
}

static __dvp_always_inline void mac_copy(uint8_t *dst, const struct dvp_ether_addr *a)
{
	memcpy(dst, a->addr_bytes, 6);
}

/* What a receiving mode does with a burst of @n packets. */
static __dvp_always_inline void process(struct fwd_stream *fs, enum fwd_mode mode,
					struct dvp_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	dvp_counter_add(&fs->st.rx_packets, n);
	dvp_counter_add(&fs->st.rx_bursts, 1);
	switch (mode) {
	case FWD_MODE_RXONLY:
		dvp_pktmbuf_free_bulk(pkts, n);
		return;
	case FWD_MODE_MAC:
		for (i = 0; i < n; i++) {
			uint8_t *eth = dvp_pktmbuf_mtod(pkts[i], uint8_t *);

			mac_copy(eth, &fs->tx_dst);
			mac_copy(eth + 6, &fs->tx_src);
		}
		break;
	case FWD_MODE_MACSWAP:
		for (i = 0; i < n; i++) {
			uint8_t *eth = dvp_pktmbuf_mtod(pkts[i], uint8_t *);
			uint8_t tmp[6];

			memcpy(tmp, eth, 6);
			memcpy(eth, eth + 6, 6);
			memcpy(eth + 6, tmp, 6);
		}
		break;
	default:
		break;
	}
	send_burst(fs, pkts, n);
}

/* txonly, flowgen: one burst of fresh frames. */
static __dvp_always_inline void generate(struct fwd_stream *fs)
{
	struct dvp_mbuf *pkts[FWD_MAX_BURST];

	if (dvp_unlikely(dvp_pktmbuf_alloc_bulk(fs->pool, pkts, fs->burst) != 0)) {
		dvp_counter_add(&fs->st.tx_nombuf, 1);
		return;
	}
	fwd_build_frames(fs, pkts, fs->burst);
	send_burst(fs, pkts, fs->burst);
}

/* ------------------------------------------------------------------------
 * The loops
 */

static __dvp_always_inline void count_round(struct fwd_lcore *lc, uint32_t got)
{
	dvp_counter_add(&lc->st.rounds, 1);
	if (got == 0)
		dvp_counter_add(&lc->st.empty_rounds, 1);
}

/*
 * One pass over the lcore's streams. @return packets received. With @p cyc
 * (--record-core-cycles), the TSC cycles from before an rx burst that
 * brought packets to the end of their processing are added to the stream's
 * busy_cycles, as testpmd counts them: empty polls are left out.
 */
static __dvp_always_inline uint32_t rx_pass(struct fwd_lcore *lc, enum fwd_mode mode, bool adaptive,
					    bool cyc)
{
	struct dvp_mbuf *pkts[FWD_MAX_BURST];
	uint32_t got = 0;
	unsigned int i;

	for (i = 0; i < lc->nb_streams; i++) {
		struct fwd_stream *fs = lc->streams[i];
		uint64_t t0 = cyc ? dvp_rdtsc() : 0;
		uint16_t n;

		if (adaptive)
			n = dvp_rx_burst_adaptive(lc->gov, fs->rx_port, fs->rx_queue, pkts,
						  fs->burst);
		else
			n = dvp_rx_burst(fs->rx_port, fs->rx_queue, pkts, fs->burst);
		if (n != 0) {
			got += n;
			process(fs, mode, pkts, n);
			if (cyc)
				dvp_counter_add(&fs->st.busy_cycles, dvp_rdtsc() - t0);
		}
	}
	return got;
}

/*
 * One io-mode pass of poll mode without --record-core-cycles, out of line:
 * the same rx_pass() that loop_poll() inlines, for test/bench/bench_fwd_e2e.c
 * to time between steps of a simulated device (doc/perf.md). dvp-fwd's own
 * loop does not call it.
 */
uint32_t fwd_io_pass(struct fwd_lcore *lc)
{
	return rx_pass(lc, FWD_MODE_IO, false, false);
}

/* Poll mode is specialised on @p cyc, so that without the option no TSC is read. */
static __dvp_always_inline int loop_poll(struct fwd_lcore *lc, enum fwd_mode mode, bool cyc)
{
	while (!fwd_stopping())
		count_round(lc, rx_pass(lc, mode, false, cyc));
	return 0;
}

/*
 * intr: sleep as soon as a pass finds nothing. dvp_rx_wait() arms every
 * queue, polls each once more and sleeps only if all are still empty; the
 * main lcore kicks the set at stop, so no timeout is needed.
 */
static __dvp_always_inline int loop_intr(struct fwd_lcore *lc, enum fwd_mode mode)
{
	struct dvp_rx_wait_event ev[16];

	while (!fwd_stopping()) {
		uint32_t got = rx_pass(lc, mode, false, lc->record_cycles);
		uint64_t t0;
		int ret;

		count_round(lc, got);
		if (got != 0)
			continue;
		t0 = dvp_get_timer_cycles();
		ret = dvp_rx_wait(lc->set, ev, DVP_DIM(ev), -1);
		dvp_counter_add(&lc->st.asleep_cycles, dvp_get_timer_cycles() - t0);
		dvp_counter_add(&lc->st.sleeps, 1);
		if (dvp_unlikely(ret < 0))
			return ret;
		dvp_counter_add(ret > 0 ? &lc->st.wakeups : &lc->st.timeouts, 1);
	}
	return 0;
}

/* adaptive: the governor decides, after each pass, to keep polling, pause or sleep. */
static __dvp_always_inline int loop_adaptive(struct fwd_lcore *lc, enum fwd_mode mode)
{
	while (!fwd_stopping()) {
		int ret;

		count_round(lc, rx_pass(lc, mode, true, lc->record_cycles));
		ret = dvp_rxwait_governor_idle(lc->gov);
		if (dvp_unlikely(ret < 0))
			return ret;
	}
	return 0;
}

static __dvp_always_inline int loop_generate(struct fwd_lcore *lc)
{
	unsigned int i;

	while (!fwd_stopping()) {
		for (i = 0; i < lc->nb_streams; i++) {
			struct fwd_stream *fs = lc->streams[i];
			uint64_t t0 = lc->record_cycles ? dvp_rdtsc() : 0;

			generate(fs);
			if (lc->record_cycles)
				dvp_counter_add(&fs->st.busy_cycles, dvp_rdtsc() - t0);
		}
		count_round(lc, 1);
	}
	return 0;
}

static __dvp_always_inline int run_rx_mode(struct fwd_lcore *lc, enum fwd_mode mode)
{
	switch (lc->rx_mode) {
	case FWD_RX_INTR:
		return loop_intr(lc, mode);
	case FWD_RX_ADAPTIVE:
		return loop_adaptive(lc, mode);
	default:
		return lc->record_cycles ? loop_poll(lc, mode, true) : loop_poll(lc, mode, false);
	}
}

/* What each forwarding lcore runs (dvp_eal_remote_launch). */
int fwd_lcore_main(void *arg)
{
	struct fwd_lcore *lc = arg;
	int ret;

	if (lc->nb_streams == 0)
		return 0;
	switch (lc->streams[0]->mode) {
	case FWD_MODE_IO:
		ret = run_rx_mode(lc, FWD_MODE_IO);
		break;
	case FWD_MODE_MAC:
		ret = run_rx_mode(lc, FWD_MODE_MAC);
		break;
	case FWD_MODE_MACSWAP:
		ret = run_rx_mode(lc, FWD_MODE_MACSWAP);
		break;
	case FWD_MODE_RXONLY:
		ret = run_rx_mode(lc, FWD_MODE_RXONLY);
		break;
	default:
		ret = loop_generate(lc);
		break;
	}
	if (ret < 0) {
		lc->st.error = ret;
		/* End the run: the main lcore reports the error. */
		__atomic_store_n(&fwd_stop_flag, true, __ATOMIC_RELAXED);
	}
	return ret;
}
