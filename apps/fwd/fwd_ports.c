/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The control path of dvp-fwd: the mbuf pool, ports and their queues,
 * forwarding streams and the lcores that run them, start, --tx-first, and
 * the orderly teardown that checks every mbuf came back.
 */

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <dvp_malloc.h>

#include "fwd.h"

#define FWD_MBUF_CACHE 256

/* An error line of the run (not a usage error). */
#define run_err(...) fprintf(stderr, FWD_PROG ": " __VA_ARGS__)

static void port_event_cb(uint16_t port_id, enum dvp_port_event event,
			  const struct dvp_port_event_info *info, void *arg);

static struct fwd_port *fwd_port_of(struct fwd_run *run, uint16_t port_id)
{
	unsigned int i;

	for (i = 0; i < run->nb_ports; i++)
		if (run->ports[i].port_id == port_id)
			return &run->ports[i];
	return NULL;
}

static uint16_t desc_count(uint16_t asked, uint16_t def, const struct dvp_desc_lim *lim)
{
	if (asked != 0)
		return asked;
	if (def != 0)
		return def;
	return DVP_MIN((uint16_t)1024, lim->nb_max ? lim->nb_max : (uint16_t)1024);
}

static int check_desc(const struct fwd_port *fp, const char *opt, uint16_t n,
		      const struct dvp_desc_lim *lim)
{
	if ((lim->nb_max != 0 && n > lim->nb_max) || n < lim->nb_min ||
	    (lim->nb_align > 1 && n % lim->nb_align != 0)) {
		run_err("port %u (%s): %s %u is outside what it takes: %u to %u, a multiple of %u\n",
			fp->port_id, fp->name, opt, n, lim->nb_min, lim->nb_max,
			DVP_MAX(lim->nb_align, (uint16_t)1));
		return -EINVAL;
	}
	return 0;
}

/* Peers by topology over the ports in use, in port id order. */
static void set_peers(struct fwd_run *run)
{
	unsigned int i, n = run->nb_ports;

	for (i = 0; i < n; i++) {
		unsigned int j;

		switch (run->cfg.topology) {
		case FWD_TOPO_CHAINED:
			j = (i + 1) % n;
			break;
		case FWD_TOPO_LOOP:
			j = i;
			break;
		default:
			j = (i ^ 1) < n ? i ^ 1 : i;
			break;
		}
		run->ports[i].peer = run->ports[j].port_id;
	}
	if (run->cfg.topology == FWD_TOPO_PAIRED && n % 2 == 1 && n > 1)
		fprintf(run->note,
			FWD_PROG ": %u ports in paired topology: port %u forwards to itself\n", n,
			run->ports[n - 1].port_id);
}

/* Which ports the run uses, what they can do, and their peers. @return 0, -EINVAL, -ENODEV. */
static int ports_select(struct fwd_run *run)
{
	const struct fwd_config *cfg = &run->cfg;
	uint16_t p;
	unsigned int i;

	if (cfg->portmask != 0) {
		for (i = 0; i < 64 && i < DVP_MAX_PORTS; i++) {
			if ((cfg->portmask >> i & 1) && !dvp_port_is_valid((uint16_t)i)) {
				fprintf(stderr,
					FWD_PROG ": --portmask 0x%" PRIx64
						 ": port %u does not exist "
						 "(%u ports: see dvp-info)\n",
					cfg->portmask, i, dvp_port_count());
				run->usage_error = true;
				return -EINVAL;
			}
		}
	}
	DVP_PORT_FOREACH(p) {
		struct fwd_port *fp;

		if (cfg->portmask != 0 && (p >= 64 || !(cfg->portmask >> p & 1)))
			continue;
		fp = &run->ports[run->nb_ports++];
		memset(fp, 0, sizeof(*fp));
		fp->port_id = p;
		fp->sim_port = -1;
		fp->link_shown = -1;
		dvp_port_get_name(p, fp->name, sizeof(fp->name));
		if (dvp_port_info_get(p, &fp->info) != 0 || dvp_macaddr_get(p, &fp->mac) != 0) {
			run_err("port %u (%s): cannot read its information\n", p, fp->name);
			return -ENODEV;
		}
	}
	if (run->nb_ports == 0) {
		run_err("no port to forward on: the devices given made none (see the lines above)\n");
		return -ENODEV;
	}
	set_peers(run);
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];

		if (fwd_mode_receives(cfg->mode)) {
			fp->rx_used = true;
			if (cfg->mode != FWD_MODE_RXONLY)
				fwd_port_of(run, fp->peer)->tx_used = true;
		} else {
			fp->tx_used = true;
		}
	}
	return 0;
}

static int port_check_queues(struct fwd_run *run, struct fwd_port *fp)
{
	const struct fwd_config *cfg = &run->cfg;
	const struct dvp_port_info *in = &fp->info;

	if (cfg->nb_rxq > in->max_rx_queues || cfg->nb_txq > in->max_tx_queues) {
		run_err("port %u (%s): --rxq %u --txq %u exceed its %u rx and %u tx queues\n",
			fp->port_id, fp->name, cfg->nb_rxq, cfg->nb_txq, in->max_rx_queues,
			in->max_tx_queues);
		run->usage_error = true;
		return -EINVAL;
	}
	fp->nb_rxd = desc_count(cfg->nb_rxd, in->default_rxq_size, &in->rx_desc_lim);
	fp->nb_txd = desc_count(cfg->nb_txd, in->default_txq_size, &in->tx_desc_lim);
	if (check_desc(fp, "--rxd", fp->nb_rxd, &in->rx_desc_lim) != 0 ||
	    check_desc(fp, "--txd", fp->nb_txd, &in->tx_desc_lim) != 0) {
		run->usage_error = true;
		return -EINVAL;
	}
	if (fp->rx_used && cfg->rx_mode != FWD_RX_POLL) {
		if (in->intr_capa & DVP_PORT_INTR_RXQ) {
			fp->intr = true;
		} else if (cfg->rx_mode_given) {
			run_err("port %u (%s): its driver %s has no rx interrupts, so --rx-mode %s "
				"cannot run on it; use --rx-mode poll\n",
				fp->port_id, fp->name, in->driver_name,
				fwd_rx_mode_name(cfg->rx_mode));
			run->usage_error = true;
			return -ENOTSUP;
		} else {
			fprintf(run->note,
				FWD_PROG
				": port %u (%s) has no rx interrupts: its queues are polled\n",
				fp->port_id, fp->name);
		}
	}
	return 0;
}

static int pool_create(struct fwd_run *run)
{
	const struct fwd_config *cfg = &run->cfg;
	uint16_t maxlen = 0, room;
	unsigned int i, n = 0;
	int socket = run->ports[0].info.numa_node;

	for (i = 0; i < run->nb_ports; i++)
		n += (unsigned int)cfg->nb_rxq * run->ports[i].nb_rxd +
		     (unsigned int)cfg->nb_txq * run->ports[i].nb_txd;
	/* Each lcore: its cache (up to 1.5 x), a burst in hand and one for --tx-first. */
	n += cfg->nb_cores * (FWD_MBUF_CACHE * 3 / 2 + 2u * cfg->burst) + FWD_MBUF_CACHE * 3 / 2;
	n += run->nb_ports * cfg->nb_txq * (unsigned int)cfg->burst;
	n = cfg->total_mbufs ? cfg->total_mbufs : DVP_MAX(n + 1024, 4096u);
	for (i = 0; i < cfg->nb_txpkts; i++)
		maxlen = DVP_MAX(maxlen, cfg->txpkts[i]);
	room = (uint16_t)DVP_MAX((unsigned int)DVP_MBUF_DEFAULT_BUF_SIZE,
				 (unsigned int)maxlen + DVP_PKTMBUF_HEADROOM);
	if (socket < 0)
		socket = dvp_socket_id();
	run->pool = dvp_pktmbuf_pool_create("fwd_pool", n, DVP_MIN(FWD_MBUF_CACHE, n / 4), 0, room,
					    socket);
	if (run->pool == NULL) {
		run_err("cannot create a pool of %u mbufs on node %d: %s\n", n, socket,
			dvp_strerror(dvp_errno));
		return -dvp_errno;
	}
	run->pool_size = n;
	return 0;
}

static int port_setup(struct fwd_run *run, struct fwd_port *fp)
{
	const struct fwd_config *cfg = &run->cfg;
	const struct dvp_port_info *in = &fp->info;
	struct dvp_port_conf conf;
	uint16_t q;
	int socket = in->numa_node >= 0 ? in->numa_node : DVP_SOCKET_ANY;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.intr_conf.rxq = fp->intr;
	conf.intr_conf.lsc = !!(in->intr_capa & DVP_PORT_INTR_LSC);
	conf.intr_conf.rmv = !!(in->intr_capa & DVP_PORT_INTR_RMV);
	if (cfg->nb_rxq > 1 && in->hash_key_size != 0)
		conf.rss_conf.rss_hf = (DVP_RSS_IP | DVP_RSS_UDP | DVP_RSS_TCP) & in->rss_hf_capa;
	ret = dvp_port_configure(fp->port_id, cfg->nb_rxq, cfg->nb_txq, &conf);
	if (ret != 0) {
		run_err("port %u (%s): configure failed: %s\n", fp->port_id, fp->name,
			dvp_strerror(-ret));
		return ret;
	}
	for (q = 0; q < cfg->nb_rxq; q++) {
		ret = dvp_rxq_setup(fp->port_id, q, fp->nb_rxd, socket, NULL, run->pool);
		if (ret != 0) {
			run_err("port %u (%s): rx queue %u setup failed: %s\n", fp->port_id,
				fp->name, q, dvp_strerror(-ret));
			return ret;
		}
	}
	for (q = 0; q < cfg->nb_txq; q++) {
		ret = dvp_txq_setup(fp->port_id, q, fp->nb_txd, socket, NULL);
		if (ret != 0) {
			run_err("port %u (%s): tx queue %u setup failed: %s\n", fp->port_id,
				fp->name, q, dvp_strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* @p fn on each port of the run, in order, up to the first error. */
static int ports_each(struct fwd_run *run, int (*fn)(struct fwd_run *, struct fwd_port *))
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < run->nb_ports && ret == 0; i++)
		ret = fn(run, &run->ports[i]);
	return ret;
}

int fwd_ports_init(struct fwd_run *run)
{
	int ret;

	ret = ports_select(run);
	if (ret == 0)
		ret = ports_each(run, port_check_queues);
	if (ret == 0)
		ret = pool_create(run);
	if (ret == 0)
		ret = ports_each(run, port_setup);
	if (ret != 0)
		return ret;
	/* Errors here only lose the event lines; the run goes on. */
	dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_LINK_STATUS_CHANGE, port_event_cb,
				run);
	dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_QUEUE_ERROR, port_event_cb, run);
	dvp_port_event_register(DVP_PORT_ID_ALL, DVP_PORT_EVENT_REMOVAL, port_event_cb, run);
	run->events_on = true;
	return 0;
}

/*
 * Say @p link of @p fp when it is not what was last said. The interrupt
 * thread (events) and the main thread (fwd_links_catch_up()) both call it:
 * the exchange says each change once, whoever sees it first.
 */
static void link_say(struct fwd_run *run, struct fwd_port *fp, const struct dvp_link *link)
{
	char ls[64];

	if (__atomic_exchange_n(&fp->link_shown, (int)link->link_status, __ATOMIC_RELAXED) ==
	    (int)link->link_status)
		return;
	dvp_link_to_str(ls, sizeof(ls), link);
	fprintf(run->note, FWD_PROG ": port %u (%s): %s\n", fp->port_id, fp->name, ls);
}

void fwd_links_catch_up(struct fwd_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		struct dvp_link link;

		/* Only a link the configuration lines showed (not in JSON). */
		if (__atomic_load_n(&fp->link_shown, __ATOMIC_RELAXED) >= 0 &&
		    dvp_link_get_nowait(fp->port_id, &link) == 0)
			link_say(run, fp, &link);
	}
}

/* Events arrive on the EAL interrupt thread: count them and say so. */
static void port_event_cb(uint16_t port_id, enum dvp_port_event event,
			  const struct dvp_port_event_info *info, void *arg)
{
	struct fwd_run *run = arg;
	struct fwd_port *fp = fwd_port_of(run, port_id);

	if (fp == NULL)
		return;
	switch (event) {
	case DVP_PORT_EVENT_LINK_STATUS_CHANGE:
		/* Relaxed: a count for the summary, read after the run. */
		__atomic_fetch_add(&fp->link_changes, 1, __ATOMIC_RELAXED);
		/*
		 * The configuration lines show each link; say only what
		 * changes after them (acquire: pairs with the release once they
		 * are printed). A change before then that they missed is said
		 * by fwd_links_catch_up().
		 */
		if (__atomic_load_n(&run->running, __ATOMIC_ACQUIRE))
			link_say(run, fp, &info->link);
		break;
	case DVP_PORT_EVENT_QUEUE_ERROR:
		__atomic_fetch_add(&fp->queue_errors, 1, __ATOMIC_RELAXED);
		fprintf(run->note, FWD_PROG ": port %u (%s): %s queue %u error: %s\n", port_id,
			fp->name, info->queue.tx ? "tx" : "rx", info->queue.queue_id,
			info->queue.reason);
		break;
	case DVP_PORT_EVENT_REMOVAL:
		fprintf(run->note, FWD_PROG ": port %u (%s): device removed\n", port_id, fp->name);
		break;
	default:
		break;
	}
}

static void stream_macs(struct fwd_run *run, struct fwd_stream *fs)
{
	const struct fwd_config *cfg = &run->cfg;
	struct fwd_port *tx = fwd_port_of(run, fs->tx_port);

	fs->tx_src = tx->mac;
	if (cfg->peer_given[fs->tx_port]) {
		fs->tx_dst = cfg->peer[fs->tx_port];
	} else {
		/* testpmd's default peer address: 02:00:00:00:00:<port> */
		memset(&fs->tx_dst, 0, sizeof(fs->tx_dst));
		fs->tx_dst.addr_bytes[0] = 0x02;
		fs->tx_dst.addr_bytes[5] = (uint8_t)fs->tx_port;
	}
}

/* Enough worker lcores for --nb-cores? Checked before any device is made. */
int fwd_check_lcores(struct fwd_run *run)
{
	unsigned int nw = 0, l;

	DVP_LCORE_FOREACH_WORKER(l)
		nw++;
	if (nw >= run->cfg.nb_cores)
		return 0;
	run_err("--nb-cores %u needs %u worker lcores besides the main one; the EAL has %u "
		"(%u lcores): give more with -l, e.g. -l 0-%u, or --lcores '(0-%u)@0' on one "
		"CPU\n",
		run->cfg.nb_cores, run->cfg.nb_cores, nw, dvp_lcore_count(), run->cfg.nb_cores,
		run->cfg.nb_cores);
	run->usage_error = true;
	return -EINVAL;
}

static int lcores_init(struct fwd_run *run)
{
	const struct fwd_config *cfg = &run->cfg;
	unsigned int workers[DVP_MAX_LCORE];
	unsigned int nw = 0, i, l;

	DVP_LCORE_FOREACH_WORKER(l)
		workers[nw++] = l;
	if (nw < cfg->nb_cores)
		return -EINVAL; /* fwd_check_lcores() said so before */
	run->nb_lcores = DVP_MIN(cfg->nb_cores, run->nb_streams);
	if (run->nb_lcores < cfg->nb_cores)
		fprintf(run->note,
			FWD_PROG ": --nb-cores %u: only %u streams, so %u lcores forward\n",
			cfg->nb_cores, run->nb_streams, run->nb_lcores);
	run->lcores = aligned_alloc(DVP_CACHE_LINE_SIZE, sizeof(*run->lcores) * run->nb_lcores);
	if (run->lcores == NULL)
		return -ENOMEM;
	memset(run->lcores, 0, sizeof(*run->lcores) * run->nb_lcores);
	for (i = 0; i < run->nb_lcores; i++) {
		run->lcores[i].lcore_id = workers[i];
		run->lcores[i].streams = calloc(run->nb_streams, sizeof(struct fwd_stream *));
		if (run->lcores[i].streams == NULL)
			return -ENOMEM;
	}
	/* Round-robin; each tx queue belongs to one stream, hence to one lcore. */
	for (i = 0; i < run->nb_streams; i++) {
		struct fwd_lcore *lc = &run->lcores[i % run->nb_lcores];

		lc->streams[lc->nb_streams++] = &run->streams[i];
	}
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];
		bool all_intr = fwd_mode_receives(cfg->mode);
		unsigned int s;

		for (s = 0; s < lc->nb_streams; s++)
			all_intr = all_intr && fwd_port_of(run, lc->streams[s]->rx_port)->intr;
		lc->rx_mode = all_intr ? cfg->rx_mode : FWD_RX_POLL;
		lc->record_cycles = cfg->record_cycles;
		if (lc->rx_mode == FWD_RX_POLL)
			continue;
		lc->set = dvp_rxwait_set_create(lc->nb_streams);
		if (lc->set == NULL) {
			run_err("lcore %u: cannot create its wait set: %s\n", lc->lcore_id,
				dvp_strerror(dvp_errno));
			return -dvp_errno;
		}
		if (lc->rx_mode == FWD_RX_ADAPTIVE) {
			lc->gov = dvp_rxwait_governor_create(lc->set, NULL);
			if (lc->gov == NULL) {
				run_err("lcore %u: cannot create its governor: %s\n", lc->lcore_id,
					dvp_strerror(dvp_errno));
				return -dvp_errno;
			}
		}
	}
	if (fwd_mode_receives(cfg->mode) == false && cfg->rx_mode_given &&
	    cfg->rx_mode != FWD_RX_POLL)
		fprintf(run->note, FWD_PROG ": --rx-mode %s: %s mode receives nothing; ignored\n",
			fwd_rx_mode_name(cfg->rx_mode), fwd_mode_name(cfg->mode));
	return 0;
}

int fwd_streams_init(struct fwd_run *run)
{
	const struct fwd_config *cfg = &run->cfg;
	bool rx = fwd_mode_receives(cfg->mode);
	uint16_t nq = rx ? cfg->nb_rxq : cfg->nb_txq;
	unsigned int i, n = 0;
	uint16_t q;

	run->nb_streams = run->nb_ports * nq;
	run->streams = aligned_alloc(DVP_CACHE_LINE_SIZE, sizeof(*run->streams) * run->nb_streams);
	if (run->streams == NULL)
		return -ENOMEM;
	memset(run->streams, 0, sizeof(*run->streams) * run->nb_streams);
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];

		for (q = 0; q < nq; q++) {
			struct fwd_stream *fs = &run->streams[n++];

			fs->mode = cfg->mode;
			fs->burst = cfg->burst;
			fs->tx_retry = cfg->tx_retry;
			fs->pool = run->pool;
			fs->rx_port = rx ? fp->port_id : DVP_MAX_PORTS;
			fs->rx_queue = q;
			fs->tx_port = rx ? fp->peer : fp->port_id;
			fs->tx_queue = q;
			stream_macs(run, fs);
			fwd_stream_templates(fs, cfg);
		}
	}
	return lcores_init(run);
}

int fwd_ports_start(struct fwd_run *run)
{
	unsigned int i, s;
	int ret;

	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		struct dvp_link link;

		if (run->cfg.promisc) {
			ret = dvp_promiscuous_enable(fp->port_id);
			if (ret != 0)
				fprintf(run->note,
					FWD_PROG ": port %u (%s): no promiscuous mode: %s\n",
					fp->port_id, fp->name, dvp_strerror(-ret));
		}
		ret = dvp_port_start(fp->port_id);
		if (ret != 0) {
			run_err("port %u (%s): start failed: %s\n", fp->port_id, fp->name,
				dvp_strerror(-ret));
			return ret;
		}
		fp->started = true;
		if (dvp_link_get_nowait(fp->port_id, &link) == 0 && !link.link_status)
			fprintf(run->note, FWD_PROG ": port %u (%s): link down at start\n",
				fp->port_id, fp->name);
	}
	for (i = 0; i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];

		if (lc->set == NULL)
			continue;
		for (s = 0; s < lc->nb_streams; s++) {
			struct fwd_stream *fs = lc->streams[s];

			ret = dvp_rx_intr_ctl(fs->rx_port, fs->rx_queue, lc->set,
					      DVP_RX_INTR_CTL_ADD, fs);
			if (ret != 0) {
				run_err("port %u rx queue %u: cannot join lcore %u's wait set: %s\n",
					fs->rx_port, fs->rx_queue, lc->lcore_id,
					dvp_strerror(-ret));
				return ret;
			}
			fs->joined = true;
		}
	}
	return 0;
}

/* How long --tx-first waits for the links: testpmd's wait for them at start. */
#define FWD_LINK_WAIT_S 9
/*
 * A link can be up before the peer has room: a memif server is up once its
 * client's CONNECT is in, and the client posts its rx buffers when CONNECTED
 * reaches it, or (DPDK's) at its first rx burst, once its application starts
 * forwarding. --tx-first keeps offering what a tx queue did not take, every
 * millisecond, for as long again as it waits for the links.
 */
#define FWD_FIRST_BURST_WAIT_MS (FWD_LINK_WAIT_S * 1000)

/* 1: up, 0: down, -1: the driver cannot say (a line, once per port, says so). */
static int tx_link_up(struct fwd_run *run, uint16_t port_id, bool *said)
{
	struct dvp_link link;
	int ret = dvp_link_get_nowait(port_id, &link);

	if (ret == 0)
		return link.link_status ? 1 : 0;
	if (!*said)
		fprintf(run->note,
			FWD_PROG ": --tx-first: port %u (%s): its link cannot be read (%s): the "
				 "first burst goes out without waiting for it\n",
			port_id, fwd_port_of(run, port_id)->name, dvp_strerror(-ret));
	*said = true;
	return -1;
}

/* Whether SIGINT or SIGTERM waits for main: the wait ends, main takes it next. */
static bool stop_signal_pending(void)
{
	sigset_t p;

	return sigpending(&p) == 0 && (sigismember(&p, SIGINT) || sigismember(&p, SIGTERM));
}

/*
 * A burst sent on a port whose link is down is lost (a memif client is
 * still connecting, a net_verbs connector still handshaking): wait until
 * the link of every port a stream sends on is up, up to FWD_LINK_WAIT_S,
 * with a line when there is anything to wait for. @return ports still down.
 */
static unsigned int wait_tx_links(struct fwd_run *run, bool *down)
{
	bool said[DVP_MAX_PORTS] = { false }, announced = false;
	const struct timespec tick = { 0, 10 * 1000 * 1000 };
	unsigned int i, n_down, t;

	for (t = 0;; t++) {
		n_down = 0;
		for (i = 0; i < run->nb_ports; i++) {
			struct fwd_port *fp = &run->ports[i];

			down[fp->port_id] = fp->tx_used &&
					    tx_link_up(run, fp->port_id, &said[fp->port_id]) == 0;
			n_down += down[fp->port_id];
		}
		if (n_down == 0 || t >= FWD_LINK_WAIT_S * 100 || stop_signal_pending())
			return n_down;
		if (!announced) {
			fprintf(run->note,
				FWD_PROG ": --tx-first: waiting up to %d s for the link of %u "
					 "port%s to come up\n",
				FWD_LINK_WAIT_S, n_down, n_down == 1 ? "" : "s");
			announced = true;
		}
		nanosleep(&tick, NULL);
	}
}

/*
 * Offer @pkts (a whole burst) to @fs's tx queue until it has taken them all
 * or the streams together have waited FWD_FIRST_BURST_WAIT_MS (@waited_ms),
 * with a line when it has to wait. @return frames taken.
 */
static uint16_t first_burst_send(struct fwd_run *run, struct fwd_stream *fs, struct dvp_mbuf **pkts,
				 unsigned int *waited_ms)
{
	const struct timespec ms = { 0, 1000 * 1000 };
	uint16_t sent = 0;
	bool announced = false;

	for (;;) {
		sent += dvp_tx_burst(fs->tx_port, fs->tx_queue, pkts + sent,
				     (uint16_t)(fs->burst - sent));
		if (sent == fs->burst || *waited_ms >= FWD_FIRST_BURST_WAIT_MS ||
		    stop_signal_pending())
			return sent;
		if (!announced) {
			fprintf(run->note,
				FWD_PROG ": --tx-first: port %u (%s) tx queue %u took %u of %u "
					 "frames: waiting up to %d s for room\n",
				fs->tx_port, fwd_port_of(run, fs->tx_port)->name, fs->tx_queue,
				sent, fs->burst, FWD_LINK_WAIT_S);
			announced = true;
		}
		nanosleep(&ms, NULL);
		++*waited_ms;
	}
}

/* --tx-first: one burst on every stream, from the main lcore before the workers start. */
int fwd_tx_first(struct fwd_run *run)
{
	struct dvp_mbuf *pkts[FWD_MAX_BURST];
	bool down[DVP_MAX_PORTS] = { false }, said[DVP_MAX_PORTS] = { false };
	unsigned int i, waited_ms = 0;

	if (wait_tx_links(run, down) != 0 && stop_signal_pending())
		return 0;
	for (i = 0; i < run->nb_streams; i++) {
		struct fwd_stream *fs = &run->streams[i];
		uint16_t sent;

		if (down[fs->tx_port]) {
			if (!said[fs->tx_port])
				fprintf(run->note,
					FWD_PROG
					": --tx-first: port %u (%s): link still down after "
					"%d s: no first burst sent on it\n",
					fs->tx_port, fwd_port_of(run, fs->tx_port)->name,
					FWD_LINK_WAIT_S);
			said[fs->tx_port] = true;
			continue;
		}
		if (dvp_pktmbuf_alloc_bulk(run->pool, pkts, fs->burst) != 0) {
			run_err("--tx-first: the pool has fewer than %u mbufs free\n", fs->burst);
			return -ENOMEM;
		}
		fwd_build_frames(fs, pkts, fs->burst);
		sent = first_burst_send(run, fs, pkts, &waited_ms);
		if (sent < fs->burst) {
			fprintf(run->note,
				FWD_PROG ": --tx-first: port %u (%s) tx queue %u took %u of the "
					 "first burst's %u frames; the rest are freed\n",
				fs->tx_port, fwd_port_of(run, fs->tx_port)->name, fs->tx_queue,
				sent, fs->burst);
			dvp_pktmbuf_free_bulk(pkts + sent, fs->burst - sent);
		}
		/* Counted as forwarded: the ports' stats count them too. */
		fs->st.tx_packets += sent;
	}
	return 0;
}

static void lcores_free(struct fwd_run *run)
{
	unsigned int i;

	for (i = 0; run->lcores != NULL && i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];

		dvp_rxwait_governor_free(lc->gov);
		dvp_rxwait_set_free(lc->set);
		free(lc->streams);
	}
	free(run->lcores);
	run->lcores = NULL;
	run->nb_lcores = 0;
}

/*
 * Stop the ports (the lcores have returned): every mbuf they hold goes back
 * to the pool. @return the number of ports that failed to give them all back.
 */
int fwd_ports_stop(struct fwd_run *run)
{
	unsigned int i, s, bad = 0;
	int held;

	/* Out of the wait sets first: the queues are still set up and started. */
	for (i = 0; run->lcores != NULL && i < run->nb_lcores; i++) {
		struct fwd_lcore *lc = &run->lcores[i];

		for (s = 0; lc->set != NULL && s < lc->nb_streams; s++)
			if (lc->streams[s]->joined)
				dvp_rx_intr_ctl(lc->streams[s]->rx_port, lc->streams[s]->rx_queue,
						lc->set, DVP_RX_INTR_CTL_DEL, NULL);
		for (s = 0; s < lc->nb_streams; s++)
			lc->streams[s]->joined = false;
	}
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];

		if (!fp->started)
			continue;
		if (dvp_port_stop(fp->port_id) != 0)
			bad++;
		held = dvp_port_mbufs_held(fp->port_id);
		if (held > 0) {
			run_err("port %u (%s) still holds %d mbufs after stop\n", fp->port_id,
				fp->name, held);
			bad++;
		}
		fp->started = false;
	}
	return (int)bad;
}

/* Release everything, newest first: lcores' sets, ports, streams, the pool. */
/* No more event lines: the ports are about to stop (their links go down). */
void fwd_events_off(struct fwd_run *run)
{
	if (!run->events_on)
		return;
	dvp_port_event_unregister(DVP_PORT_ID_ALL, DVP_PORT_EVENT_LINK_STATUS_CHANGE, port_event_cb,
				  run);
	dvp_port_event_unregister(DVP_PORT_ID_ALL, DVP_PORT_EVENT_QUEUE_ERROR, port_event_cb, run);
	dvp_port_event_unregister(DVP_PORT_ID_ALL, DVP_PORT_EVENT_REMOVAL, port_event_cb, run);
	run->events_on = false;
}

void fwd_teardown(struct fwd_run *run)
{
	unsigned int i;

	fwd_events_off(run);
	lcores_free(run);
	fwd_ports_stop(run);
	for (i = 0; i < run->nb_ports; i++)
		dvp_port_close(run->ports[i].port_id);
	run->nb_ports = 0;
	free(run->streams);
	run->streams = NULL;
	if (run->pool != NULL)
		dvp_mempool_free(run->pool);
	run->pool = NULL;
}
