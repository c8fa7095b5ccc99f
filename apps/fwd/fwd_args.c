/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-fwd's own options (after the EAL's and "--"), with testpmd's names
 * where testpmd has the option, and the help text.
 */

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_parse.h>

#include "app_args.h"
#include "fwd.h"

static const char *const mode_names[FWD_MODE_MAX] = {
	[FWD_MODE_IO] = "io",	      [FWD_MODE_MAC] = "mac",	    [FWD_MODE_MACSWAP] = "macswap",
	[FWD_MODE_RXONLY] = "rxonly", [FWD_MODE_TXONLY] = "txonly", [FWD_MODE_FLOWGEN] = "flowgen",
};

static const char *const rx_mode_names[FWD_RX_MODE_MAX] = {
	[FWD_RX_POLL] = "poll",
	[FWD_RX_INTR] = "intr",
	[FWD_RX_ADAPTIVE] = "adaptive",
};

static const char *const topology_names[] = { "paired", "chained", "loop" };

const char *fwd_mode_name(enum fwd_mode m)
{
	return m < FWD_MODE_MAX ? mode_names[m] : "?";
}

const char *fwd_rx_mode_name(enum fwd_rx_mode m)
{
	return m < FWD_RX_MODE_MAX ? rx_mode_names[m] : "?";
}

bool fwd_mode_receives(enum fwd_mode m)
{
	return m != FWD_MODE_TXONLY && m != FWD_MODE_FLOWGEN;
}

void fwd_usage(FILE *f)
{
	fprintf(f,
		"Usage: " FWD_PROG " [EAL options] -- [options]\n"
		"\n"
		"Forward packets between ports, as DPDK's testpmd does, and report rates, drops\n"
		"and interrupt activity every stats period and a summary at the end.\n"
		"\n"
		"With no device option (-a, --vdev) and no RDMA adapter on the machine, it says\n"
		"so and runs on the simulated HCA: two ports, port 0 fed by the sim's traffic\n"
		"source (bursts of 10 ms every 100 ms), port 1 sending to its sink, forwarded\n"
		"0 -> 1 in adaptive rx mode; the summary then ends with the sink's verdict.\n"
		"It runs until --duration passes or SIGINT (Ctrl-C) or SIGTERM arrives; both\n"
		"stop cleanly (a second Ctrl-C quits at once).\n"
		"\n"
		"Forwarding:\n"
		"  --forward-mode=MODE   io (default): send each packet received as it is;\n"
		"                        mac: set the source MAC to the tx port's and the\n"
		"                          destination to its peer's (--eth-peer);\n"
		"                        macswap: swap the source and destination MACs;\n"
		"                        rxonly: receive and free;\n"
		"                        txonly: send UDP/IPv4 packets of --txpkts sizes;\n"
		"                        flowgen: as txonly over --flowgen-flows flows.\n"
		"  --port-topology=T     paired (default): 0<->1, 2<->3, ... (an odd last port\n"
		"                        to itself); chained: 0->1->2->...->0; loop: each port\n"
		"                        to itself.\n"
		"  --portmask=MASK       Ports to use, a hexadecimal bit mask (default: all).\n"
		"  --nb-cores=N          Forwarding lcores (default 1): EAL worker lcores, so the\n"
		"                        EAL needs N + 1 lcores (-l). Streams (one per rx queue\n"
		"                        of each port) are shared among them round-robin.\n"
		"  --rxq=N, --txq=N      Rx and tx queues per port (default 1). Forwarding\n"
		"                        modes need --txq >= --rxq: each stream sends on the tx\n"
		"                        queue of its rx queue's number.\n"
		"  --rxd=N, --txd=N      Descriptors per rx and tx queue (default: the\n"
		"                        driver's).\n"
		"  --burst=N             Packets per burst, 1 to %d (default %d).\n"
		"  --txpkts=N[,N...]     Frame lengths without FCS for txonly, flowgen and\n"
		"                        --tx-first, cycled packet by packet, 60 to 9014\n"
		"                        (default 64). (testpmd's gives segment lengths.)\n"
		"  --flowgen-flows=N     Flows of flowgen, 1 to 65536 (default 1024).\n"
		"  --eth-peer=N,MAC      The destination MAC for port N in mac, txonly and\n"
		"                        flowgen modes (default 02:00:00:00:00:NN).\n"
		"  --promisc             Put the ports in promiscuous mode (default: a port\n"
		"                        takes frames to its MAC, broadcast and multicast).\n"
		"  --tx-first            Send one burst on every stream before forwarding, to\n"
		"                        start traffic on looped ports (io, mac, macswap),\n"
		"                        once the links it sends on are up and their peers\n"
		"                        have room (up to 9 s for each).\n"
		"  --tx-retry=N          Retry a tx burst the queue did not take whole N times,\n"
		"                        then drop the rest (counted as fwd drops); 'forever'\n"
		"                        (default) waits, pushing back on the receive side\n"
		"                        instead of losing packets.\n"
		"\n"
		"Receiving:\n"
		"  --rx-mode=MODE        poll: busy-poll the rx queues;\n"
		"                        intr: sleep on the queues' completion events as soon\n"
		"                          as a pass over them finds nothing;\n"
		"                        adaptive: poll while busy, pause, then sleep (lib/rxwait's\n"
		"                          governor). Default: adaptive on ports with rx\n"
		"                          interrupts, poll on the others.\n"
		"\n"
		"Memory:\n"
		"  --total-num-mbufs=N   Mbufs in the pool (default: enough for every queue and\n"
		"                        lcore cache).\n"
		"\n"
		"Reporting:\n"
		"  --stats-period=S      Print one line per port every S seconds (default 1;\n"
		"                        0: none). Decimals are fine.\n"
		"  --duration=S          Stop after S seconds (default: run until a signal).\n"
		"  --json                Print stats lines and the summary as JSON objects, one\n"
		"                        per line, on stdout; notices go to stderr.\n"
		"  --max-loss=PCT        Exit with status 1 when more than PCT %% of the packets\n"
		"                        received were lost (default 0: any loss fails):\n"
		"                        imissed, rx_nombuf, rx and tx errors, fwd drops, and\n"
		"                        the sink's lost and corrupt frames.\n"
		"  --sim=KEY=VALUE,...   Devargs added to the default simulated HCA's\n"
		"                        (doc/sim.md), e.g. --sim drop=1,rate=100000; only\n"
		"                        without device options.\n"
		"  --record-core-cycles  Count the TSC cycles the forwarding lcores spend in\n"
		"                        bursts that moved packets (empty polls and sleeps\n"
		"                        left out) and print them per packet in the summary,\n"
		"                        as testpmd's option does: a forwarder's cost per\n"
		"                        packet even when something else limits its rate.\n"
		"  -v, --verbose         Also print each port's link events and the driver's\n"
		"                        xstats that are not zero at the end.\n"
		"  -h, --help            Print this help.\n"
		"\n"
		"Stats line (per port, per period):\n"
		"  rx and tx in Mpps and Gbit/s (frame bytes without FCS), drops: imissed (no\n"
		"  rx descriptor), rx_nombuf (no mbuf to refill), errors (ierrors + oerrors),\n"
		"  fwd (tx refused), and in intr and adaptive modes wake-ups per second and\n"
		"  the share of time the port's rx queues were asleep.\n"
		"\n"
		"Exit status: 0 when the run ended cleanly without loss beyond --max-loss;\n"
		"1 on loss beyond it, a failure, or mbufs missing from the pool at the end;\n"
		"2 for bad arguments.\n"
		"\n"
		"Examples:\n"
		"  " FWD_PROG " --no-huge -- --duration 10\n"
		"      the simulated HCA, 10 s, adaptive\n"
		"  " FWD_PROG " -l 0-2 -a mlx5_0 -- --nb-cores 2 --rxq 2 --txq 2 --rx-mode poll\n"
		"      a ConnectX port, two forwarding lcores\n"
		"  " FWD_PROG " --no-huge --vdev net_ring0 --vdev net_ring1 -- --tx-first\n"
		"      two looped software ports, traffic started with one burst each\n"
		"\n"
		"EAL options: " FWD_PROG " -h. See doc/apps.md.\n",
		FWD_MAX_BURST, DVP_DEFAULT_BURST);
}

static int bad(const char *opt, const char *val, const char *fmt, ...) __dvp_format_printf(3, 4);

/* One line naming the option, the value and what would be valid; then the hint. */
static int bad(const char *opt, const char *val, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, FWD_PROG ": --%s '%s': ", opt, val);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nTry '" FWD_PROG " -- --help' for more information.\n");
	return -EINVAL;
}

/*
 * A whole-string unsigned number within [min, max] (decimal or 0x, no
 * octal: dvp_parse.h): 0 or -EINVAL, quietly.
 */
static int to_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	return dvp_parse_u64(s, min, max, out) == 0 ? 0 : -EINVAL;
}

static int parse_u64(const char *opt, const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	if (to_u64(s, min, max, out) == 0)
		return 0;
	return bad(opt, s, "expected a number from %llu to %llu", (unsigned long long)min,
		   (unsigned long long)max);
}

static int parse_u16(const char *opt, const char *s, uint64_t min, uint64_t max, uint16_t *out)
{
	uint64_t v = 0;
	int ret = parse_u64(opt, s, min, max, &v);

	if (ret == 0)
		*out = (uint16_t)v;
	return ret;
}

static int parse_seconds(const char *opt, const char *s, double min, double *out)
{
	double v;

	if (dvp_parse_double(s, min, 31536000.0, &v) < 0)
		return bad(opt, s, "expected seconds from %g to 31536000, e.g. 10 or 0.5", min);
	*out = v;
	return 0;
}

static int parse_choice(const char *opt, const char *s, const char *const *names, unsigned int n,
			unsigned int *out)
{
	char list[128] = "";
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (strcmp(s, names[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	for (i = 0; i < n; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 names[i]);
	return bad(opt, s, "unknown value; valid: %s", list);
}

static int parse_eth_peer(const char *s, struct fwd_config *cfg)
{
	const char *comma = strchr(s, ',');
	char num[16];
	uint64_t port = UINT64_MAX;
	size_t len;

	len = comma ? (size_t)(comma - s) : 0;
	if (comma == NULL || len == 0 || len >= sizeof(num))
		return bad("eth-peer", s, "expected PORT,MAC as 0,02:00:00:00:00:01");
	memcpy(num, s, len);
	num[len] = '\0';
	if (dvp_parse_u64(num, 0, UINT64_MAX, &port) == -EINVAL)
		return bad("eth-peer", s, "expected PORT,MAC as 0,02:00:00:00:00:01");
	if (port >= DVP_MAX_PORTS)
		return bad("eth-peer", s, "port %s is out of range: ports go from 0 to %d", num,
			   DVP_MAX_PORTS - 1);
	if (dvp_ether_unformat_addr(comma + 1, &cfg->peer[port]) != 0)
		return bad("eth-peer", s, "'%s' is not a MAC address xx:xx:xx:xx:xx:xx", comma + 1);
	cfg->peer_given[port] = true;
	return 0;
}

static int parse_txpkts(const char *s, struct fwd_config *cfg)
{
	const char *p = s;
	unsigned int n = 0;

	while (*p != '\0') {
		const char *end;
		uint64_t v = 0;

		if (n == FWD_MAX_TXPKTS)
			return bad("txpkts", s, "more than %d lengths", FWD_MAX_TXPKTS);
		if (dvp_parse_u64_prefix(p, &v, &end) < 0 || (*end != ',' && *end != '\0') ||
		    v < 60 || v > 9014)
			return bad("txpkts", s,
				   "expected frame lengths from 60 to 9014 bytes, as 64 or "
				   "64,512,1514");
		cfg->txpkts[n++] = (uint16_t)v;
		p = *end == ',' ? end + 1 : end;
		if (*end == ',' && *p == '\0')
			return bad("txpkts", s, "a length is missing after the last ','");
	}
	if (n == 0)
		return bad("txpkts", s, "expected frame lengths from 60 to 9014 bytes");
	cfg->nb_txpkts = n;
	return 0;
}

static int parse_loss(const char *s, double *out)
{
	const char *end;
	double v;

	if (dvp_parse_double_prefix(s, 0, 100, &v, &end) < 0 ||
	    (*end != '\0' && strcmp(end, "%") != 0))
		return bad("max-loss", s, "expected a percentage from 0 to 100");
	*out = v;
	return 0;
}

enum {
	OPT_FORWARD_MODE = 256,
	OPT_NB_CORES,
	OPT_RXQ,
	OPT_TXQ,
	OPT_RXD,
	OPT_TXD,
	OPT_BURST,
	OPT_TXPKTS,
	OPT_FLOWGEN_FLOWS,
	OPT_RX_MODE,
	OPT_TOPOLOGY,
	OPT_PORTMASK,
	OPT_ETH_PEER,
	OPT_TX_FIRST,
	OPT_PROMISC,
	OPT_TX_RETRY,
	OPT_STATS_PERIOD,
	OPT_DURATION,
	OPT_JSON,
	OPT_MAX_LOSS,
	OPT_TOTAL_MBUFS,
	OPT_SIM,
	OPT_RECORD_CYCLES,
};

static const struct option long_opts[] = {
	{ "forward-mode", required_argument, NULL, OPT_FORWARD_MODE },
	{ "nb-cores", required_argument, NULL, OPT_NB_CORES },
	{ "rxq", required_argument, NULL, OPT_RXQ },
	{ "txq", required_argument, NULL, OPT_TXQ },
	{ "rxd", required_argument, NULL, OPT_RXD },
	{ "txd", required_argument, NULL, OPT_TXD },
	{ "burst", required_argument, NULL, OPT_BURST },
	{ "txpkts", required_argument, NULL, OPT_TXPKTS },
	{ "flowgen-flows", required_argument, NULL, OPT_FLOWGEN_FLOWS },
	{ "rx-mode", required_argument, NULL, OPT_RX_MODE },
	{ "port-topology", required_argument, NULL, OPT_TOPOLOGY },
	{ "portmask", required_argument, NULL, OPT_PORTMASK },
	{ "eth-peer", required_argument, NULL, OPT_ETH_PEER },
	{ "tx-first", no_argument, NULL, OPT_TX_FIRST },
	{ "promisc", no_argument, NULL, OPT_PROMISC },
	{ "tx-retry", required_argument, NULL, OPT_TX_RETRY },
	{ "stats-period", required_argument, NULL, OPT_STATS_PERIOD },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "max-loss", required_argument, NULL, OPT_MAX_LOSS },
	{ "total-num-mbufs", required_argument, NULL, OPT_TOTAL_MBUFS },
	{ "sim", required_argument, NULL, OPT_SIM },
	{ "record-core-cycles", no_argument, NULL, OPT_RECORD_CYCLES },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void config_defaults(struct fwd_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->mode = FWD_MODE_IO;
	cfg->rx_mode = FWD_RX_ADAPTIVE;
	cfg->topology = FWD_TOPO_PAIRED;
	cfg->nb_cores = 1;
	cfg->nb_rxq = 1;
	cfg->nb_txq = 1;
	cfg->burst = DVP_DEFAULT_BURST;
	cfg->txpkts[0] = 64;
	cfg->nb_txpkts = 1;
	cfg->flowgen_flows = 1024;
	cfg->tx_retry = FWD_TX_RETRY_FOREVER;
	cfg->stats_period = 1.0;
}

/*
 * Parse the application's options (argv[0] is the program name).
 * @return 0, 1 when --help was printed, or -EINVAL after the error line.
 */
int fwd_parse_args(int argc, char **argv, struct fwd_config *cfg)
{
	unsigned int choice = 0;
	uint64_t v = 0;
	int opt, ret = 0;

	config_defaults(cfg);
	/* Our own messages: no "unrecognized option" from getopt itself. */
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":hv", long_opts, NULL)) != -1) {
		switch (opt) {
		case OPT_FORWARD_MODE:
			ret = parse_choice("forward-mode", optarg, mode_names, FWD_MODE_MAX,
					   &choice);
			cfg->mode = (enum fwd_mode)choice;
			break;
		case OPT_NB_CORES:
			ret = parse_u64("nb-cores", optarg, 1, DVP_MAX_LCORE - 1, &v);
			cfg->nb_cores = (unsigned int)v;
			break;
		case OPT_RXQ:
			ret = parse_u16("rxq", optarg, 1, DVP_MAX_QUEUES_PER_PORT, &cfg->nb_rxq);
			break;
		case OPT_TXQ:
			ret = parse_u16("txq", optarg, 1, DVP_MAX_QUEUES_PER_PORT, &cfg->nb_txq);
			break;
		case OPT_RXD:
			ret = parse_u16("rxd", optarg, 1, 32768, &cfg->nb_rxd);
			break;
		case OPT_TXD:
			ret = parse_u16("txd", optarg, 1, 32768, &cfg->nb_txd);
			break;
		case OPT_BURST:
			ret = parse_u16("burst", optarg, 1, FWD_MAX_BURST, &cfg->burst);
			break;
		case OPT_TXPKTS:
			ret = parse_txpkts(optarg, cfg);
			break;
		case OPT_FLOWGEN_FLOWS:
			ret = parse_u64("flowgen-flows", optarg, 1, 65536, &v);
			cfg->flowgen_flows = (uint32_t)v;
			break;
		case OPT_RX_MODE:
			ret = parse_choice("rx-mode", optarg, rx_mode_names, FWD_RX_MODE_MAX,
					   &choice);
			cfg->rx_mode = (enum fwd_rx_mode)choice;
			cfg->rx_mode_given = true;
			break;
		case OPT_TOPOLOGY:
			ret = parse_choice("port-topology", optarg, topology_names,
					   DVP_DIM(topology_names), &choice);
			cfg->topology = (enum fwd_topology)choice;
			break;
		case OPT_PORTMASK:
			ret = parse_u64("portmask", optarg, 1,
					DVP_MAX_PORTS >= 64 ? UINT64_MAX :
							      (1ULL << DVP_MAX_PORTS) - 1,
					&cfg->portmask);
			break;
		case OPT_ETH_PEER:
			ret = parse_eth_peer(optarg, cfg);
			break;
		case OPT_TX_FIRST:
			cfg->tx_first = true;
			break;
		case OPT_PROMISC:
			cfg->promisc = true;
			break;
		case OPT_TX_RETRY:
			if (strcmp(optarg, "forever") == 0) {
				cfg->tx_retry = FWD_TX_RETRY_FOREVER;
				break;
			}
			if (to_u64(optarg, 0, FWD_TX_RETRY_FOREVER - 1, &v) != 0)
				ret = bad("tx-retry", optarg,
					  "expected a number of retries from 0 to %u, or 'forever'",
					  FWD_TX_RETRY_FOREVER - 1);
			cfg->tx_retry = (uint32_t)v;
			break;
		case OPT_STATS_PERIOD:
			ret = parse_seconds("stats-period", optarg, 0, &cfg->stats_period);
			if (ret == 0 && cfg->stats_period > 0 && cfg->stats_period < 0.01)
				ret = bad("stats-period", optarg,
					  "too short: 0 (no stats lines) or at least 0.01");
			break;
		case OPT_DURATION:
			ret = parse_seconds("duration", optarg, 0, &cfg->duration);
			break;
		case OPT_JSON:
			cfg->json = true;
			break;
		case OPT_MAX_LOSS:
			ret = parse_loss(optarg, &cfg->max_loss_pct);
			break;
		case OPT_TOTAL_MBUFS:
			ret = parse_u64("total-num-mbufs", optarg, 64, 1u << 24, &v);
			cfg->total_mbufs = (unsigned int)v;
			break;
		case OPT_SIM:
			if (optarg[0] == '\0')
				ret = bad("sim", optarg,
					  "expected devargs KEY=VALUE,... as drop=1");
			cfg->sim_args = optarg;
			break;
		case OPT_RECORD_CYCLES:
			cfg->record_cycles = true;
			break;
		case 'v':
			cfg->verbose = true;
			break;
		case 'h':
			fwd_usage(stdout);
			return 1;
		default:
			return app_option_refused(FWD_PROG, argv, opt, long_opts, NULL);
		}
		if (ret != 0)
			return ret;
	}
	if (optind < argc) {
		fprintf(stderr, FWD_PROG ": unexpected argument '%s'\n", argv[optind]);
		goto hint;
	}
	if (fwd_mode_receives(cfg->mode) && cfg->mode != FWD_MODE_RXONLY &&
	    cfg->nb_txq < cfg->nb_rxq) {
		fprintf(stderr,
			FWD_PROG ": --txq %u is fewer than --rxq %u: in %s mode each stream sends "
				 "on the tx queue of its rx queue's number\n",
			cfg->nb_txq, cfg->nb_rxq, fwd_mode_name(cfg->mode));
		goto hint;
	}
	if (cfg->tx_first && !(fwd_mode_receives(cfg->mode) && cfg->mode != FWD_MODE_RXONLY)) {
		fprintf(stderr,
			FWD_PROG
			": --tx-first starts forwarding modes (io, mac, macswap), not %s\n",
			fwd_mode_name(cfg->mode));
		goto hint;
	}
	return 0;
hint:
	fprintf(stderr, "Try '" FWD_PROG " -- --help' for more information.\n");
	return -EINVAL;
}
