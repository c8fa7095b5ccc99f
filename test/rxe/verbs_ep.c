/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* One end of a net_verbs test: see verbs_ep.h. */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

#include "verbs_ep.h"

#define FRAME_MAGIC 0x56455046u /* "VEPF" */
#define FIN_MAGIC 0x46494e21u /* "FIN!" */
#define BURST 32

struct fhdr {
	uint32_t magic;
	uint32_t run;
	uint64_t seq;
	uint32_t len;
} __attribute__((packed));

uint64_t ep_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static uint32_t frame_len(const struct ep *e, uint64_t seq)
{
	if (e->frame_len != 0)
		return e->frame_len;
	/* 64 to 511 bytes, every length met. */
	return 64u + (uint32_t)((seq * 37u) % 448u);
}

static uint8_t pattern(uint32_t run, uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 131u + i + run);
}

static void on_event(uint16_t port, enum dvp_port_event event,
		     const struct dvp_port_event_info *info, void *arg)
{
	struct ep *e = arg;

	(void)port;
	if (event == DVP_PORT_EVENT_LINK_STATUS_CHANGE) {
		__atomic_fetch_add(info->link.link_status ? &e->link_ups : &e->link_downs, 1,
				   __ATOMIC_RELAXED);
		__atomic_store_n(&e->link_up, info->link.link_status, __ATOMIC_RELAXED);
	} else if (event == DVP_PORT_EVENT_QUEUE_ERROR) {
		__atomic_store_n(&e->last_queue_error_cause, info->cause, __ATOMIC_RELAXED);
		if (info->cause == DVP_PORT_CAUSE_CQ_ERROR)
			__atomic_fetch_add(&e->cq_err_events, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&e->queue_errors, 1, __ATOMIC_RELAXED);
		fprintf(stderr, "# event QUEUE_ERROR on %s queue %u (cause %d): %s\n",
			info->queue.tx ? "tx" : "rx", info->queue.queue_id, info->cause,
			info->queue.reason);
	}
}

int ep_open(struct ep *e, const char *name, bool listen, int tcp_port, const char *extra, int lcore,
	    bool intr, uint16_t rxd)
{
	const char *dev = getenv("DVP_RXE_DEV"), *ip = getenv("DVP_RXE_IP");
	char vdev[256], lc[16], prefix[64];
	const char *args[32];
	struct dvp_port_conf conf = { 0 };
	int n = 0, ret;

	memset(e, 0, sizeof(*e));
	e->intr = intr;
	if (dev == NULL || ip == NULL) {
		fprintf(stderr, "%s: DVP_RXE_DEV and DVP_RXE_IP are not set (run in the VM)\n",
			name);
		return -EINVAL;
	}
	snprintf(vdev, sizeof(vdev), "net_verbs0,dev=%s,%s=%s:%d%s%s", dev,
		 listen ? "listen" : "connect", ip, tcp_port, extra && *extra ? "," : "",
		 extra ? extra : "");
	snprintf(lc, sizeof(lc), "%d", lcore);
	snprintf(prefix, sizeof(prefix), "vep%d", (int)getpid());
	args[n++] = name;
	args[n++] = "--no-huge";
	args[n++] = "-m";
	args[n++] = "128";
	args[n++] = "--file-prefix";
	args[n++] = prefix;
	args[n++] = "-l";
	args[n++] = lc;
	args[n++] = "--vdev";
	args[n++] = vdev;
	if (getenv("DVP_RXE_VERBS_LOG") != NULL) {
		/* e.g. DVP_RXE_VERBS_LOG=pmd.net.verbs:debug */
		args[n++] = "--log-level";
		args[n++] = getenv("DVP_RXE_VERBS_LOG");
	}
	args[n] = NULL;
	ret = dvp_eal_init(n, (char **)args);
	if (ret < 0) {
		fprintf(stderr, "%s: EAL init with --vdev %s: %s\n", name, vdev,
			dvp_strerror(dvp_errno));
		return -dvp_errno;
	}
	if (dvp_port_get_by_name("net_verbs0", &e->port) < 0) {
		fprintf(stderr, "%s: no port net_verbs0\n", name);
		return -ENODEV;
	}
	if (getrandom(&e->run, sizeof(e->run), 0) != sizeof(e->run))
		e->run = (uint32_t)getpid();
	e->run |= 1;
	e->mp = dvp_pktmbuf_pool_create("ep", 4095, 128, 0, DVP_MBUF_DEFAULT_BUF_SIZE,
					DVP_SOCKET_ANY);
	if (e->mp == NULL)
		return -dvp_errno;
	conf.intr_conf.lsc = 1;
	conf.intr_conf.rxq = intr;
	ret = dvp_port_event_register(e->port, DVP_PORT_EVENT_LINK_STATUS_CHANGE, on_event, e);
	if (ret == 0)
		ret = dvp_port_event_register(e->port, DVP_PORT_EVENT_QUEUE_ERROR, on_event, e);
	if (ret == 0)
		ret = dvp_port_configure(e->port, 1, 1, &conf);
	if (ret == 0)
		ret = dvp_rxq_setup(e->port, 0, rxd, DVP_SOCKET_ANY, NULL, e->mp);
	if (ret == 0)
		ret = dvp_txq_setup(e->port, 0, 0, DVP_SOCKET_ANY, NULL);
	if (ret == 0 && intr) {
		e->set = dvp_rxwait_set_create(1);
		ret = e->set == NULL ?
			      -dvp_errno :
			      dvp_rx_intr_ctl(e->port, 0, e->set, DVP_RX_INTR_CTL_ADD, NULL);
	}
	if (ret == 0)
		ret = dvp_port_start(e->port);
	if (ret < 0)
		fprintf(stderr, "%s: port setup: %s\n", name, dvp_strerror(-ret));
	return ret;
}

int ep_wait_link(struct ep *e, bool up, unsigned int ms)
{
	uint64_t end = ep_now_ms() + ms;

	while (__atomic_load_n(&e->link_up, __ATOMIC_RELAXED) != up) {
		if (ep_now_ms() > end)
			return -ETIMEDOUT;
		/* Keep the queues polled: a broken one is torn down by its lcore. */
		ep_rx_only(e);
		usleep(1000);
	}
	return 0;
}

static void rx_check(struct ep *e, struct dvp_mbuf *m)
{
	const struct fhdr *h = dvp_pktmbuf_mtod(m, const struct fhdr *);
	const uint8_t *p = dvp_pktmbuf_mtod(m, const uint8_t *);
	uint32_t i;

	if (m->pkt_len != m->data_len || m->data_len < sizeof(*h)) {
		e->rx_bad++;
		return;
	}
	if (h->magic == FIN_MAGIC) {
		e->fin_seen = true;
		e->fins++;
		return;
	}
	if (h->magic != FRAME_MAGIC || h->len != m->pkt_len || h->len != frame_len(e, h->seq)) {
		e->rx_bad++;
		return;
	}
	for (i = sizeof(*h); i < h->len; i++) {
		if (p[i] != pattern(h->run, h->seq, i)) {
			e->rx_bad++;
			return;
		}
	}
	if (h->run != e->rx_run) {
		/* A new peer (or the peer restarted): follow its sequence from here. */
		e->rx_run = h->run;
		e->rx_runs++;
		e->rx_run_start = h->seq;
		e->rx_expected = h->seq;
		e->rx_ok_run = 0;
	}
	if (h->seq < e->rx_expected) {
		e->rx_bad++; /* duplicated or reordered */
		return;
	}
	e->rx_gaps += h->seq - e->rx_expected;
	e->rx_expected = h->seq + 1;
	e->rx_ok++;
	e->rx_ok_run++;
}

static int rx_some(struct ep *e)
{
	struct dvp_mbuf *pkts[BURST];
	uint16_t n, i;

	n = dvp_rx_burst(e->port, 0, pkts, BURST);
	for (i = 0; i < n; i++)
		rx_check(e, pkts[i]);
	dvp_pktmbuf_free_bulk(pkts, n);
	return n;
}

int ep_rx_only(struct ep *e)
{
	return rx_some(e);
}

static struct dvp_mbuf *frame_new(struct ep *e, uint64_t seq, bool fin)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(e->mp);
	uint32_t len = fin ? 64 : frame_len(e, seq), i;
	struct fhdr *h;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)dvp_pktmbuf_append(m, (uint16_t)len);
	h = (struct fhdr *)p;
	h->magic = fin ? FIN_MAGIC : FRAME_MAGIC;
	h->run = e->run;
	h->seq = seq;
	h->len = len;
	for (i = sizeof(*h); i < len; i++)
		p[i] = pattern(e->run, seq, i);
	return m;
}

/* Sequence numbers the current peer run has delivered (gaps included). */
static uint64_t rx_received(const struct ep *e)
{
	return e->rx_run != 0 ? e->rx_expected - e->rx_run_start : 0;
}

/* Frames we may build now, from sequence number @next on. */
static uint64_t tx_allowed(const struct ep *e, uint64_t next)
{
	uint64_t ours = next - e->tx_start;
	uint64_t theirs = rx_received(e);

	if (next >= e->tx_limit)
		return 0;
	if (ours < e->lockstep)
		return theirs >= ours ? 1 : 0;
	return e->tx_limit - next;
}

static int tx_some(struct ep *e)
{
	uint64_t next = e->tx_seq + e->npending;
	uint64_t left = tx_allowed(e, next);
	uint16_t sent;

	if (e->lockstep_delay_us > 0 && left > 0 && e->npending == 0 &&
	    next - e->tx_start < e->lockstep)
		usleep(e->lockstep_delay_us);

	/* Frames the queue refused wait here: building and freeing them again would waste the CPU rxe needs. */
	while (e->npending < BURST && left > 0) {
		e->pending[e->npending] = frame_new(e, e->tx_seq + e->npending, false);
		if (e->pending[e->npending] == NULL)
			break;
		e->npending++;
		left--;
	}
	if (e->npending == 0)
		return 0;
	sent = dvp_tx_burst(e->port, 0, e->pending, e->npending);
	if (sent > 0) {
		memmove(e->pending, e->pending + sent,
			(e->npending - sent) * sizeof(e->pending[0]));
		e->npending -= sent;
		e->tx_seq += sent;
	}
	return sent;
}

int ep_pump(struct ep *e, unsigned int sleep_ms)
{
	struct dvp_rx_wait_event ev;
	int n, sent, ret;

	n = rx_some(e);
	sent = tx_some(e);
	if (e->intr && n == 0 && sent == 0 && sleep_ms > 0) {
		/* Nothing came and nothing could go: sleep until a frame arrives. */
		e->sleeps++;
		ret = dvp_rx_wait(e->set, &ev, 1, (int)sleep_ms);
		if (ret < 0)
			return ret;
	}
	return n + sent;
}

/* What the port says about itself: for a test that failed. */
static void ep_dump(struct ep *e)
{
	struct dvp_xstat_name names[256];
	struct dvp_xstat vals[256];
	int n, i;

	n = dvp_xstats_get_names(e->port, names, 256);
	if (n < 0 || n > 256 || dvp_xstats_get(e->port, vals, 256) != n)
		return;
	fprintf(stderr, "# xstats (non-zero):");
	for (i = 0; i < n; i++)
		if (vals[i].value != 0)
			fprintf(stderr, " %s=%" PRIu64, names[i].name, vals[i].value);
	fprintf(stderr, "\n# gaps %" PRIu64 ", bad %" PRIu64 ", pending %u, link %s\n", e->rx_gaps,
		e->rx_bad, e->npending, e->link_up ? "up" : "down");
}

/* Send our end marker. @return true if the port took it. */
static bool fin_send(struct ep *e)
{
	struct dvp_mbuf *fin = frame_new(e, 0, true);

	if (fin != NULL && dvp_tx_burst(e->port, 0, &fin, 1) == 1)
		return true;
	dvp_pktmbuf_free(fin);
	return false;
}

/*
 * Each side sends COUNT frames, then an end marker once it has sent them
 * all and has them all, or the peer's marker says no more will come (on a
 * test that loses frames on purpose, the last ones may be among the lost).
 * A marker can be lost too: a side repeats its own every 200 ms until the
 * peer's arrives, and answers each marker of the peer's that arrives after
 * its own went. Both stop 300 ms after they have sent theirs and seen the
 * peer's.
 */
int ep_exchange(struct ep *e, uint64_t count, unsigned int idle_ms)
{
	uint64_t last = ep_now_ms(), fin_sent_at = 0, fin_last = 0, fins_answered = 0;
	uint64_t linger_end = 0, now;
	int n;

	e->tx_start = e->tx_seq;
	e->tx_limit = e->tx_seq + count;
	e->fin_seen = false;
	e->fins = 0;
	e->link_up_at_fin = false;
	for (;;) {
		bool sent_all = e->tx_seq >= e->tx_limit;
		bool got_all = rx_received(e) >= count;

		n = ep_pump(e, sent_all ? 50 : 1);
		if (n < 0)
			return n;
		now = ep_now_ms();
		if (n > 0)
			last = now;
		if (sent_all && (got_all || e->fin_seen) &&
		    (fin_sent_at == 0 || (!e->fin_seen && now - fin_last >= 200) ||
		     (e->fins != fins_answered && now - fin_last >= 50)) &&
		    fin_send(e)) {
			fin_last = now;
			fins_answered = e->fins;
			if (fin_sent_at == 0) {
				fin_sent_at = now;
				e->link_up_at_fin = __atomic_load_n(&e->link_up, __ATOMIC_RELAXED);
			}
		}
		if (fin_sent_at != 0 && e->fin_seen && linger_end == 0)
			linger_end = now + 300; /* the peer's last acks */
		if (linger_end != 0 && now > linger_end)
			return 0;
		if (now - last > idle_ms) {
			fprintf(stderr,
				"# no progress for %u ms: sent %" PRIu64 "/%" PRIu64
				", received up to %" PRIu64 " of %" PRIu64 ", end marker %s/%s\n",
				idle_ms, e->tx_seq, e->tx_limit, rx_received(e), count,
				fin_sent_at ? "sent" : "not sent",
				e->fin_seen ? "seen" : "not seen");
			ep_dump(e);
			return -ETIMEDOUT;
		}
	}
}

int ep_close(struct ep *e)
{
	unsigned int in_use;
	int held, ret = 0;

	dvp_pktmbuf_free_bulk(e->pending, e->npending);
	e->npending = 0;
	if (dvp_port_stop(e->port) < 0)
		ret = -EIO;
	if (e->clean_end) {
		struct dvp_port_stats st;
		uint64_t dropped = ep_xstat(e, "tx_dropped_on_reset");

		if (dvp_stats_get(e->port, &st) < 0 || st.oerrors != 0 || dropped != 0) {
			fprintf(stderr,
				"# after the stop: oerrors %" PRIu64
				", tx_dropped_on_reset %" PRIu64
				": delivered sends were counted as lost\n",
				st.oerrors, dropped);
			ret = -EIO;
		}
	}
	held = dvp_port_mbufs_held(e->port);
	if (held != 0) {
		fprintf(stderr, "# the port still holds %d mbufs after stop\n", held);
		ret = -EIO;
	}
	dvp_port_close(e->port);
	dvp_rxwait_set_free(e->set);
	in_use = dvp_mempool_in_use_count(e->mp);
	if (in_use != 0) {
		fprintf(stderr, "# %u mbufs are not back in the pool\n", in_use);
		ret = -EIO;
	}
	dvp_mempool_free(e->mp);
	dvp_eal_cleanup();
	return ret;
}

uint64_t ep_xstat(const struct ep *e, const char *name)
{
	struct dvp_xstat_name names[256];
	struct dvp_xstat vals[256];
	int n, i;

	n = dvp_xstats_get_names(e->port, names, 256);
	if (n < 0 || n > 256 || dvp_xstats_get(e->port, vals, 256) != n)
		return UINT64_MAX;
	for (i = 0; i < n; i++)
		if (strcmp(names[i].name, name) == 0)
			return vals[i].value;
	return UINT64_MAX;
}

void ep_print(const struct ep *e, const char *who)
{
	fprintf(stderr,
		"# %s: sent %" PRIu64 ", received %" PRIu64 " in sequence (%" PRIu64
		" peer runs), %" PRIu64 " lost, %" PRIu64
		" bad; link up %u down %u, queue errors %u, sleeps %" PRIu64 "\n",
		who, e->tx_seq, e->rx_ok, e->rx_runs, e->rx_gaps, e->rx_bad,
		__atomic_load_n(&e->link_ups, __ATOMIC_RELAXED),
		__atomic_load_n(&e->link_downs, __ATOMIC_RELAXED),
		__atomic_load_n(&e->queue_errors, __ATOMIC_RELAXED), e->sleeps);
}
