/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Devargs of the simulated HCA: `--vdev sim_mlx5,ports=2,cable=loop,...`.
 * Each key has one line of help (shown when a key is unknown); each bad
 * value is one error line naming the key, the value and what is valid.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_parse.h>

#include "mlx5_prm.h"
#include "sim_dev.h"

const struct dvp_devargs_key sim_devargs_keys[] = {
	{ "ports", "number of Ethernet ports, 1..8 (default 1)" },
	{ "mode",
	  "thread|step: run on a device thread, or only in sim_mlx5_step() (default thread)" },
	{ "cable", "none|loop|traffic: loop cables ports 0-1, 2-3...; traffic gives each port a "
		   "source and a sink (default none)" },
	{ "mtu",
	  "L3 MTU of every port's netdev at start, 68..9978 (default 1500); the driver may change it" },
	{ "mac",
	  "MAC address of port 0, the next ports count up (default 02:53:49:4d:<dev>:<port>)" },
	{ "numa", "NUMA node the device reports, 0..255 (default 0)" },
	{ "pause", "on|off: 802.3x flow control: sources and cabled ports wait for receive "
		   "buffers instead of dropping (default on)" },
	{ "profile", "cx4lx|cx5|cx6dx|cx7: the adapter the device is, what it reports and "
		     "requires; the keys below change one setting each (default cx6dx)" },
	{ "empw", "on|off: enhanced multi-packet send WQEs, reported by dv_query_device and "
		  "taken by the send engine, as ConnectX-5 and later (default: the profile's)" },
	{ "cqe_comp", "0..64: most receive completions one compressed CQE session holds, as "
		      "dv_query_device reports it (cqe_comp_caps.max_num); 0: no CQE compression "
		      "(default 64)" },
	{ "inline_mode", "none|l2|ip|l4: the headers every send WQE must carry inline, said by "
			 "the NIC vport context, as on a VF or an e-switch setup (default: the "
			 "profile's: l2 on cx4lx, none on the others)" },
	{ "ext_stride_num", "on|off: striding RQs of 2^3 strides per WQE and up, else 2^9 "
			    "(HCA cap ext_stride_num_range; default: off on cx4lx, on on the "
			    "others)" },
	{ "vlan_insert", "on|off: VLAN insertion from the send WQE's Ethernet segment (HCA cap "
			 "wqe_vlan_insert; default: off on cx4lx, on on the others)" },
	{ "devx", "on|off: DevX contexts and general commands (QUERY_HCA_CAP, "
		  "QUERY_NIC_VPORT_CONTEXT) answered; off: as a kernel without DevX (default on)" },
	{ "vlan_strip", "on|off: receive WQs may strip the C-VLAN tag into the CQE "
			"(raw_packet_caps CVLAN_STRIPPING; default on)" },
	{ "idle_us", "sleep of the device thread after a spell of idle steps, 0..100000 us "
		     "(default 20)" },
	{ "clock", "real|virtual: time base of rates, patterns and timed faults; virtual moves "
		   "only with sim_mlx5_clock_advance() (default real)" },
	{ "seed", "seed of the drop and corruption draws (default 1)" },
	{ "near_wrap", "none|16|24: start every CQ index 64 below the 16- or 24-bit wrap and "
		       "every WQ counter 64 below the 16-bit wrap (default none)" },
	{ "cq_start", "first index of every CQ, 0..0xffffff (default 0, or as near_wrap)" },
	{ "wq_start", "first counter of every RQ and SQ, 0..0xffff (default 0, or as near_wrap)" },
	{ "sizes", "source frame lengths without FCS, 60..mtu+14, cycled: sizes=[60,512,1514] "
		   "(default 60)" },
	{ "flows", "source UDP/IPv4 flows (distinct source addresses), 1..65536 (default 1)" },
	{ "rate", "source frames per second per port, 0 for as fast as the port takes them "
		  "(default 0)" },
	{ "pattern", "source bursts: pattern=[on:10ms,off:90ms] (default always on)" },
	{ "count", "frames each source sends before it stops, 0 for no limit (default 0)" },
	{ "ip", "4|6: source frames are UDP over IPv4 (198.18.0.0 + flow -> 198.19.0.1) or over "
		"IPv6 (2001:db8::flow -> 2001:db8:1::1, sizes from 78, default 78) (default 4)" },
	{ "vlan", "0..0xffff: source frames carry an 802.1Q tag of this TCI (PCP, DEI, VID) "
		  "after the MACs, 4 bytes more than sizes=; several are cycled: "
		  "vlan=[0x64,0xc8] (default untagged)" },
	{ "gen", "on|off: start the sources at creation (default on with cable=traffic)" },
	{ "drop", "percentage of frames lost on each port's receive wire, 0..100 (default 0)" },
	{ "corrupt", "percentage of received frames with one byte flipped, 0..100 (default 0)" },
	{ "flap", "link flap of every port: flap=[at:100ms,down:50ms]" },
	{ "fatal", "time after creation of a device fatal error, e.g. fatal=2s (default never)" },
	{ "bad_lkey", "answer the N-th WQE the device processes as if its lkey were invalid "
		      "(default 0: never)" },
	{ "cq_stall", "CQ number (the first CQ is 1) whose consumer index the device stops "
		      "reading, so it overruns (default 0: none)" },
	{ "tx_hold", "on|off: every port's link partner pauses it for good, so its send queues "
		     "hold their frames (default off)" },
	{ "rx_opcode", "1..4: the opcode of every receive completion, one of the responder "
		       "opcodes (RESP_WR_IMM 1, RESP_SEND 2, RESP_SEND_IMM 3, RESP_SEND_INV 4), "
		       "for drivers that must take any non-error opcode (default 2)" },
	{ NULL, NULL },
};

#define CFG_ERR(name, fmt, ...) DVP_LOG_LINE(ERR, sim_logtype, "", "%s: " fmt, name, ##__VA_ARGS__)

static void sim_cfg_defaults(struct sim_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->ports = 1;
	cfg->cable = SIM_CABLE_NONE;
	cfg->thread = true;
	cfg->mtu = 1500;
	cfg->pause = true;
	cfg->idle_us = 20;
	cfg->seed = 1;
	cfg->src.sizes[0] = SIM_FRAME_MIN;
	cfg->src.nsizes = 1;
	cfg->src.flows = 1;
	cfg->fatal_at = UINT64_MAX;
	cfg->rx_opcode = MLX5_CQE_RESP_SEND;
}

/* The longest time a devarg may give: a year, far from uint64_t's ns limit. */
#define SIM_TIME_MAX_NS 31536000e9

/* "10ms", "1.5s", "500us", "100ns" -> ns, at most a year. */
static int parse_time(const char *name, const char *key, const char *v, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double mult;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	const char *end;
	double x;
	int ret;

	/* Finite and >= 0 (no nan, no inf); the unit decides the bound below. */
	ret = dvp_parse_double_prefix(v, 0, SIM_TIME_MAX_NS, &x, &end);
	for (unsigned int i = 0; ret == 0 && i < DVP_DIM(units); i++) {
		if (strcmp(end, units[i].unit) != 0)
			continue;
		/* Checked before the cast: a value past it would wrap or fire at once. */
		if (x * units[i].mult > SIM_TIME_MAX_NS)
			break;
		*ns = (uint64_t)(x * units[i].mult);
		return 0;
	}
	CFG_ERR(name,
		"devargs %s: '%s' is not a time; give a number from 0 to 31536000 s with a "
		"unit ns, us, ms or s (e.g. 10ms)",
		key, v);
	return -EINVAL;
}

/* "0.1" (percent) -> parts per million. */
static int parse_percent(const char *name, const struct dvp_devargs *da, const char *key,
			 uint32_t *ppm)
{
	const char *v = dvp_devargs_get(da, key);
	double x;

	if (v == NULL)
		return 0;
	if (dvp_parse_double(v, 0, 100, &x) < 0) {
		CFG_ERR(name, "devargs %s: '%s' is not a percentage 0..100 (e.g. 0.5)", key, v);
		return -EINVAL;
	}
	*ppm = (uint32_t)(x * 10000.0 + 0.5);
	return 0;
}

/* "[a:<time>,b:<time>]" (brackets already removed) into two times. */
static int parse_pair(const char *name, const char *key, const char *v, const char *a,
		      const char *b, uint64_t *va, uint64_t *vb)
{
	char buf[128], *comma, *first, *second;
	size_t la = strlen(a), lb = strlen(b);

	snprintf(buf, sizeof(buf), "%s", v);
	comma = strchr(buf, ',');
	if (comma == NULL)
		goto bad;
	*comma = '\0';
	first = buf;
	second = comma + 1;
	if (strncmp(first, a, la) != 0 || first[la] != ':' || strncmp(second, b, lb) != 0 ||
	    second[lb] != ':')
		goto bad;
	if (parse_time(name, key, first + la + 1, va) != 0 ||
	    parse_time(name, key, second + lb + 1, vb) != 0)
		return -EINVAL;
	return 0;
bad:
	CFG_ERR(name, "devargs %s: '%s' is not of the form %s=[%s:<time>,%s:<time>]", key, v, key,
		a, b);
	return -EINVAL;
}

static int parse_mac(const char *name, const char *v, uint8_t mac[6])
{
	unsigned int m[6];
	char tail;

	if (sscanf(v, "%x:%x:%x:%x:%x:%x%c", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5], &tail) != 6)
		goto bad;
	for (unsigned int i = 0; i < 6; i++) {
		if (m[i] > 0xff)
			goto bad;
		mac[i] = (uint8_t)m[i];
	}
	if (mac[0] & 1) {
		CFG_ERR(name, "devargs mac: %s is a multicast address; give a unicast one", v);
		return -EINVAL;
	}
	return 0;
bad:
	CFG_ERR(name, "devargs mac: '%s' is not a MAC address like 02:00:00:00:00:01", v);
	return -EINVAL;
}

static int parse_sizes(const char *name, const char *v, uint32_t mtu,
		       struct sim_mlx5_source_conf *src)
{
	char buf[256], *save = NULL, *tok;
	unsigned int n = 0;

	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		uint64_t x = 0;

		if (dvp_parse_u64(tok, SIM_FRAME_MIN, mtu + 14u, &x) < 0) {
			CFG_ERR(name,
				"devargs sizes: '%s' is not a frame length %u..%u (the MTU "
				"plus 14, without FCS)",
				tok, SIM_FRAME_MIN, mtu + 14u);
			return -EINVAL;
		}
		if (n == SIM_MLX5_MAX_SIZES) {
			CFG_ERR(name, "devargs sizes: more than %u lengths", SIM_MLX5_MAX_SIZES);
			return -EINVAL;
		}
		src->sizes[n++] = (uint16_t)x;
	}
	if (n == 0) {
		CFG_ERR(name, "devargs sizes: no length given (e.g. sizes=[60,1514])");
		return -EINVAL;
	}
	src->nsizes = n;
	return 0;
}

/* vlan=[a,b,...]: TCIs the source's frames carry in turn. */
static int parse_vlans(const char *name, const char *v, struct sim_mlx5_source_conf *src)
{
	char buf[256], *save = NULL, *tok;
	unsigned int n = 0;

	snprintf(buf, sizeof(buf), "%s", v);
	for (tok = strtok_r(buf, ",", &save); tok != NULL; tok = strtok_r(NULL, ",", &save)) {
		uint64_t x = 0;

		if (dvp_parse_u64(tok, 0, 0xffff, &x) < 0) {
			CFG_ERR(name, "devargs vlan: '%s' is not a TCI 0..0xffff", tok);
			return -EINVAL;
		}
		if (n == SIM_MLX5_MAX_SIZES) {
			CFG_ERR(name, "devargs vlan: more than %u TCIs", SIM_MLX5_MAX_SIZES);
			return -EINVAL;
		}
		src->vlan_tcis[n++] = (uint16_t)x;
	}
	if (n == 0) {
		CFG_ERR(name, "devargs vlan: no TCI given (e.g. vlan=[0x64,0xc8])");
		return -EINVAL;
	}
	src->vlan_tci = src->vlan_tcis[0];
	src->nvlan_tcis = n;
	return 0;
}

static int parse_run(const char *name, const struct dvp_devargs *da, struct sim_cfg *cfg)
{
	static const char *const modes[] = { "step", "thread", NULL };
	static const char *const cables[] = { "none", "loop", "traffic", NULL };
	static const char *const clocks[] = { "real", "virtual", NULL };
	unsigned int c = 0;
	uint64_t v = 0;
	int ret;

	ret = dvp_devargs_get_u64(da, "ports", 1, SIM_MLX5_MAX_PORTS, 1, &v);
	cfg->ports = (unsigned int)v;
	if (ret == 0)
		ret = dvp_devargs_get_choice(da, "mode", modes, 1, &c);
	cfg->thread = c == 1;
	if (ret == 0)
		ret = dvp_devargs_get_choice(da, "cable", cables, 0, &c);
	cfg->cable = c == 1 ? SIM_CABLE_PORT : c == 2 ? SIM_CABLE_TRAFFIC : SIM_CABLE_NONE;
	if (ret == 0 && cfg->cable == SIM_CABLE_PORT && (cfg->ports & 1)) {
		CFG_ERR(name,
			"devargs cable=loop pairs ports 0-1, 2-3...: give an even ports= "
			"(ports=%u)",
			cfg->ports);
		ret = -EINVAL;
	}
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "mtu", SIM_MTU_MIN, SIM_MTU_MAX, 1500, &v);
	cfg->mtu = (uint32_t)v;
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "numa", 0, 255, 0, &v);
	cfg->numa = (int)v;
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "pause", true, &cfg->pause);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "idle_us", 0, 100000, 20, &v);
	cfg->idle_us = (uint32_t)v;
	if (ret == 0)
		ret = dvp_devargs_get_choice(da, "clock", clocks, 0, &c);
	cfg->clock_virtual = c == 1;
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "seed", 0, UINT64_MAX, 1, &cfg->seed);
	if (ret == 0 && dvp_devargs_get(da, "mac") != NULL) {
		ret = parse_mac(name, dvp_devargs_get(da, "mac"), cfg->mac);
		cfg->mac_set = true;
	}
	return ret;
}

static int parse_wrap(const char *name, const struct dvp_devargs *da, struct sim_cfg *cfg)
{
	static const char *const wraps[] = { "none", "16", "24", NULL };
	uint32_t cq_def = 0, wq_def = 0;
	unsigned int c = 0;
	uint64_t v = 0;
	int ret;

	(void)name;
	ret = dvp_devargs_get_choice(da, "near_wrap", wraps, 0, &c);
	if (c == 1)
		cq_def = 0x10000u - 64u;
	else if (c == 2)
		cq_def = 0x1000000u - 64u;
	if (c != 0)
		wq_def = 0x10000u - 64u;
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "cq_start", 0, MLX5_CQ_INDEX_MASK, cq_def, &v);
	cfg->cq_start = (uint32_t)v;
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "wq_start", 0, MLX5_WQ_INDEX_MASK, wq_def, &v);
	cfg->wq_start = (uint32_t)v;
	return ret;
}

static int parse_source(const char *name, const struct dvp_devargs *da, struct sim_cfg *cfg)
{
	const char *v;
	uint64_t x = 0;
	int ret = 0;

	if (dvp_devargs_get(da, "ip") != NULL) {
		ret = dvp_devargs_get_u64(da, "ip", 4, 6, 4, &x);
		if (ret == 0 && x == 5) {
			CFG_ERR(name, "devargs ip: 5; valid are 4 and 6");
			ret = -EINVAL;
		}
		cfg->src.ipv6 = x == 6;
		if (cfg->src.ipv6)
			cfg->src.sizes[0] = SIM_MLX5_FRAME6_MIN;
	}
	v = dvp_devargs_get(da, "sizes");
	if (ret == 0 && v != NULL)
		ret = parse_sizes(name, v, cfg->mtu, &cfg->src);
	for (unsigned int i = 0; ret == 0 && cfg->src.ipv6 && i < cfg->src.nsizes; i++) {
		if (cfg->src.sizes[i] < SIM_MLX5_FRAME6_MIN) {
			CFG_ERR(name, "devargs sizes: %u with ip=6; IPv6 frames take %u..mtu+14",
				cfg->src.sizes[i], SIM_MLX5_FRAME6_MIN);
			ret = -EINVAL;
		}
	}
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "flows", 1, SIM_MAX_FLOWS_PER_SOURCE, 1, &x);
	cfg->src.flows = (uint32_t)x;
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "rate", 0, 1000000000ull, 0, &cfg->src.rate_pps);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "count", 0, UINT64_MAX, 0, &cfg->src.count);
	v = dvp_devargs_get(da, "vlan");
	if (ret == 0 && v != NULL && strchr(v, ',') != NULL) {
		ret = parse_vlans(name, v, &cfg->src);
		cfg->src.vlan = true;
	} else if (ret == 0 && v != NULL) {
		ret = dvp_devargs_get_u64(da, "vlan", 0, 0xffff, 0, &x);
		cfg->src.vlan = true;
		cfg->src.vlan_tci = (uint16_t)x;
	}
	v = dvp_devargs_get(da, "pattern");
	if (ret == 0 && v != NULL) {
		ret = parse_pair(name, "pattern", v, "on", "off", &cfg->src.on_ns,
				 &cfg->src.off_ns);
		if (ret == 0 && cfg->src.on_ns == 0) {
			CFG_ERR(name, "devargs pattern: the on time must not be 0");
			ret = -EINVAL;
		}
	}
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "gen", cfg->cable == SIM_CABLE_TRAFFIC,
					   &cfg->src_on);
	if (ret == 0 && cfg->src_on && cfg->cable != SIM_CABLE_TRAFFIC) {
		CFG_ERR(name, "devargs gen=on needs cable=traffic (the sources are on that cable)");
		ret = -EINVAL;
	}
	return ret;
}

static int parse_faults(const char *name, const struct dvp_devargs *da, struct sim_cfg *cfg)
{
	const char *v;
	uint64_t x = 0;
	int ret;

	ret = parse_percent(name, da, "drop", &cfg->drop_ppm);
	if (ret == 0)
		ret = parse_percent(name, da, "corrupt", &cfg->corrupt_ppm);
	v = dvp_devargs_get(da, "flap");
	if (ret == 0 && v != NULL) {
		ret = parse_pair(name, "flap", v, "at", "down", &cfg->flap_at, &cfg->flap_down);
		if (ret == 0 && cfg->flap_down == 0) {
			CFG_ERR(name, "devargs flap: the down time must not be 0");
			ret = -EINVAL;
		}
	}
	v = dvp_devargs_get(da, "fatal");
	if (ret == 0 && v != NULL)
		ret = parse_time(name, "fatal", v, &cfg->fatal_at);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "bad_lkey", 0, UINT64_MAX, 0, &cfg->bad_lkey_nth);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "cq_stall", 0, MLX5_CQ_INDEX_MASK, 0, &x);
	cfg->cq_stall_cqn = (uint32_t)x;
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "tx_hold", false, &cfg->tx_hold);
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "rx_opcode", MLX5_CQE_RESP_WR_IMM,
					  MLX5_CQE_RESP_SEND_INV, MLX5_CQE_RESP_SEND, &x);
	cfg->rx_opcode = (uint8_t)x;
	return ret;
}

int sim_cfg_parse(const char *name, const struct dvp_devargs *da, struct sim_cfg *cfg)
{
	int ret;

	sim_cfg_defaults(cfg);
	ret = sim_profile_parse(da, &cfg->prof);
	if (ret == 0)
		ret = parse_run(name, da, cfg);
	if (ret == 0)
		ret = parse_wrap(name, da, cfg);
	if (ret == 0)
		ret = parse_source(name, da, cfg);
	if (ret == 0)
		ret = parse_faults(name, da, cfg);
	return ret < 0 ? -EINVAL : 0;
}
