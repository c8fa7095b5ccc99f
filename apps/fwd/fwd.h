/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-fwd: forward packets between ports, as DPDK's testpmd does, and report
 * what happened. Shared types of the program's files:
 *
 *   main.c        the run: EAL, devices, ports, lcores, the stats loop, shutdown
 *   fwd_args.c    the application's options and --help
 *   fwd_ports.c   pool, port and queue setup, streams and their lcores, teardown
 *   fwd_engine.c  the forwarding loops (the fast path)
 *   fwd_stats.c   the counters' snapshots and sums, the configuration and stats lines
 *   fwd_summary.c the summary at the end and the loss check that gives the exit status
 *   fwd_json.c    the same three as JSON objects (--json)
 *   fwd_sim.c     the simulated HCA as default device, its source and sink
 */

#ifndef DVP_FWD_H
#define DVP_FWD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dvp_build_config.h>
#include <dvp_common.h>
#include <dvp_errno.h>
#include <dvp_rxwait.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>
#include <dvp_port.h>

#define FWD_PROG "dvp-fwd"
/* Exit statuses: 2 is a usage error, as getopt-style programs do. */
#define FWD_EXIT_OK 0
#define FWD_EXIT_FAIL 1
#define FWD_EXIT_USAGE 2

#define FWD_MAX_BURST 512
#define FWD_MAX_TXPKTS 16
/* Retry a partial tx burst until it is all taken (back-pressure, no loss). */
#define FWD_TX_RETRY_FOREVER UINT32_MAX
/* Ethernet + IPv4 + UDP headers of generated frames */
#define FWD_HDR_LEN 42

enum fwd_mode {
	FWD_MODE_IO,
	FWD_MODE_MAC,
	FWD_MODE_MACSWAP,
	FWD_MODE_RXONLY,
	FWD_MODE_TXONLY,
	FWD_MODE_FLOWGEN,
	FWD_MODE_MAX,
};

enum fwd_rx_mode {
	FWD_RX_POLL,
	FWD_RX_INTR,
	FWD_RX_ADAPTIVE,
	FWD_RX_MODE_MAX,
};

enum fwd_topology {
	FWD_TOPO_PAIRED,
	FWD_TOPO_CHAINED,
	FWD_TOPO_LOOP,
};

/* What the command line asked for (fwd_args.c). */
struct fwd_config {
	enum fwd_mode mode;
	enum fwd_rx_mode rx_mode;
	bool rx_mode_given; /* else adaptive where the port can, poll elsewhere */
	enum fwd_topology topology;
	unsigned int nb_cores;
	uint16_t nb_rxq, nb_txq;
	uint16_t nb_rxd, nb_txd; /* 0: the driver's default */
	uint16_t burst;
	uint16_t txpkts[FWD_MAX_TXPKTS]; /* frame lengths without FCS, cycled */
	unsigned int nb_txpkts;
	uint32_t flowgen_flows;
	uint32_t tx_retry; /* FWD_TX_RETRY_FOREVER, or retries before dropping */
	bool tx_first;
	bool promisc; /* put the ports in promiscuous mode */
	double stats_period; /* seconds, 0: no periodic lines */
	double duration; /* seconds, 0: until a signal */
	uint64_t portmask; /* 0: every port */
	bool peer_given[DVP_MAX_PORTS];
	struct dvp_ether_addr peer[DVP_MAX_PORTS];
	double max_loss_pct; /* exit 1 when more than this share is lost */
	unsigned int total_mbufs; /* 0: computed */
	bool json;
	bool record_cycles; /* --record-core-cycles */
	const char *sim_args; /* devargs added to the default simulated HCA */
	bool verbose;
};

/*
 * Counters of one stream, written only by the lcore that runs it (relaxed
 * stores: a single writer, read by the main lcore for the stats lines).
 */
struct fwd_stream_stats {
	uint64_t rx_packets;
	uint64_t tx_packets;
	uint64_t fwd_dropped; /* the tx queue refused them after the retries */
	uint64_t stop_dropped; /* unsent when the run was stopped: not loss */
	uint64_t rx_bursts; /* bursts that brought packets */
	uint64_t tx_nombuf; /* generator: no mbuf for a burst */
	uint64_t
		busy_cycles; /* --record-core-cycles: TSC cycles of the bursts that moved packets */
};

/* One forwarding stream: an rx queue (or, for generators, a tx queue only). */
struct fwd_stream {
	uint16_t rx_port, rx_queue;
	uint16_t tx_port, tx_queue;
	uint16_t burst;
	bool joined; /* its rx queue is in its lcore's wait set */
	enum fwd_mode mode;
	uint32_t tx_retry; /* FWD_TX_RETRY_FOREVER or a count */
	struct dvp_mempool *pool; /* generators allocate from it */
	struct dvp_ether_addr tx_src; /* mac: the tx port's address */
	struct dvp_ether_addr tx_dst; /* mac, txonly, flowgen: the peer's */
	uint64_t seq; /* generators: packets built */
	uint32_t flows; /* flowgen: flows to cycle through; else 1 */
	/* Generators: frame header templates, one per --txpkts length. */
	uint16_t nb_tmpl;
	uint16_t tmpl_len[FWD_MAX_TXPKTS];
	uint8_t tmpl[FWD_MAX_TXPKTS][FWD_HDR_LEN];
	struct fwd_stream_stats st __dvp_cache_aligned;
} __dvp_cache_aligned;

struct fwd_lcore_stats {
	uint64_t rounds; /* passes over the lcore's streams */
	uint64_t empty_rounds;
	uint64_t sleeps; /* intr: dvp_rx_wait() calls that slept or found work */
	uint64_t wakeups; /* of which returned with work */
	uint64_t timeouts; /* of which returned nothing (kick or timeout) */
	uint64_t asleep_cycles; /* timer cycles inside dvp_rx_wait() */
	int error; /* a negative errno from dvp_rx_wait(), 0 */
};

/* One forwarding lcore and its streams. */
struct fwd_lcore {
	unsigned int lcore_id;
	unsigned int nb_streams;
	struct fwd_stream **streams;
	struct dvp_rxwait_set *set; /* intr and adaptive rx modes */
	struct dvp_rxwait_governor *gov; /* adaptive */
	enum fwd_rx_mode rx_mode; /* what this lcore runs */
	bool record_cycles; /* count the TSC cycles of bursts that moved packets */
	struct fwd_lcore_stats st __dvp_cache_aligned;
} __dvp_cache_aligned;

/* One port in use. */
struct fwd_port {
	uint16_t port_id;
	char name[64];
	struct dvp_port_info info;
	struct dvp_ether_addr mac;
	uint16_t peer; /* the port its packets go to */
	bool rx_used, tx_used; /* a stream receives / sends on it */
	bool intr; /* rx interrupts configured */
	bool started;
	uint16_t nb_rxd, nb_txd;
	/* The sim's port behind it, when its sink is used (fwd_sim.c). */
	int sim_port;
	void *sim_dev;
	uint64_t queue_errors; /* QUEUE_ERROR events (atomic: interrupt thread) */
	uint64_t link_changes; /* atomic */
	int link_shown; /* the link state last printed: 1 up, 0 down, -1 not yet (atomic) */
};

/* The whole run (main.c owns it). */
struct fwd_run {
	struct fwd_config cfg;
	struct fwd_port ports[DVP_MAX_PORTS];
	unsigned int nb_ports;
	struct fwd_stream *streams;
	unsigned int nb_streams;
	struct fwd_lcore *lcores;
	unsigned int nb_lcores;
	struct dvp_mempool *pool;
	unsigned int pool_size;
	bool default_sim; /* we created the simulated HCA */
	bool usage_error; /* a setup failure the command line caused: exit 2 */
	bool events_on; /* port event callbacks registered */
	bool running; /* configuration printed: link events are news (atomic) */
	bool color;
	FILE *out; /* stdout; notices go to stderr with --json */
	FILE *note;
};

/* Set by the main lcore to end the forwarding loops. */
extern volatile bool fwd_stop_flag;

static inline bool fwd_stopping(void)
{
	/*
	 * Relaxed: the loops need only see the store eventually; what they
	 * wrote is handed back through dvp_eal_wait_lcore(), which orders it.
	 */
	return __atomic_load_n(&fwd_stop_flag, __ATOMIC_RELAXED);
}

/* fwd_args.c */
int fwd_parse_args(int argc, char **argv, struct fwd_config *cfg);
void fwd_usage(FILE *f);
const char *fwd_mode_name(enum fwd_mode m);
const char *fwd_rx_mode_name(enum fwd_rx_mode m);
bool fwd_mode_receives(enum fwd_mode m);

/* fwd_ports.c */
int fwd_check_lcores(struct fwd_run *run);
int fwd_ports_init(struct fwd_run *run);
int fwd_streams_init(struct fwd_run *run);
int fwd_ports_start(struct fwd_run *run);
int fwd_tx_first(struct fwd_run *run);
int fwd_ports_stop(struct fwd_run *run);
void fwd_events_off(struct fwd_run *run);
/* Once running: say a link that changed while the configuration was printed. */
void fwd_links_catch_up(struct fwd_run *run);
void fwd_teardown(struct fwd_run *run);

/* fwd_engine.c */
int fwd_lcore_main(void *arg);
/* One io-mode poll pass over the lcore's streams. @return packets received. */
uint32_t fwd_io_pass(struct fwd_lcore *lc);
/* Build the frame templates of a stream that generates (txonly, flowgen, --tx-first). */
void fwd_stream_templates(struct fwd_stream *fs, const struct fwd_config *cfg);
/* Fill @p n fresh mbufs with the stream's next frames. */
void fwd_build_frames(struct fwd_stream *fs, struct dvp_mbuf **pkts, uint16_t n);

/* How the run ended, for the summary. */
struct fwd_result {
	bool drained; /* traffic had stopped moving before the lcores stopped */
	unsigned int pool_in_use; /* mbufs not back in the pool after the ports stopped */
	unsigned int errors; /* lcores that failed, ports that kept mbufs */
};

/* fwd_stats.c */
int fwd_stats_init(struct fwd_run *run);
void fwd_stats_period(struct fwd_run *run, double now_s);
void fwd_stats_final(struct fwd_run *run);
uint64_t fwd_stats_moved(struct fwd_run *run);
uint64_t fwd_stats_in_flight(struct fwd_run *run);
void fwd_print_config(struct fwd_run *run);

/* fwd_summary.c */
int fwd_summary(struct fwd_run *run, double elapsed_s, const struct fwd_result *res);

/* fwd_sim.c */
bool fwd_sim_available(void);
int fwd_sim_create_default(struct fwd_run *run);
void fwd_sim_attach(struct fwd_run *run);
void fwd_sim_start(struct fwd_run *run);
void fwd_sim_stop_sources(struct fwd_run *run);
bool fwd_sim_in_use(const struct fwd_run *run);

/* The sink's verdict, summed over the ports that feed a sink. */
struct fwd_sim_verdict {
	bool used;
	uint64_t sent; /* by the sources */
	uint64_t received, lost, reordered, duplicates, corrupt, foreign;
	uint64_t wire_drops; /* frames the sim's drop fault or a full cable lost */
};
void fwd_sim_verdict(struct fwd_run *run, struct fwd_sim_verdict *v);

#endif /* DVP_FWD_H */
