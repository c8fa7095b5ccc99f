/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Telemetry commands of ports, with DPDK ethdev's names and shapes
 * (/ethdev/list, /ethdev/info, /ethdev/stats, /ethdev/xstats,
 * /ethdev/link_status), and /dvp/intr: each rx queue's interrupt state.
 *
 * They run on the telemetry thread, holding close_lock for reading so that
 * dvp_port_close() never frees a port under them, and a port's qlock while
 * they read its queues.
 */

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_rxwait.h>
#include <dvp_rxwait_driver.h>
#include <dvp_telemetry.h>

#include "port_private.h"

pthread_rwlock_t port_close_lock = PTHREAD_RWLOCK_INITIALIZER;

/*
 * The port a command's parameter names, as DPDK reads it: it must start
 * with a digit, is read by strtoul (0x for hex), and trailing text is
 * ignored. @return the attached port (close_lock held for reading), or
 * NULL (not held).
 */
static struct dvp_port *port_of_param(const char *params)
{
	struct dvp_port *port;
	unsigned long id;

	if (params == NULL || !isdigit((unsigned char)params[0]))
		return NULL;
	id = strtoul(params, NULL, 0);
	if (id >= DVP_MAX_PORTS)
		return NULL;
	pthread_rwlock_rdlock(&port_close_lock);
	if (!dvp_port_is_valid((uint16_t)id)) {
		pthread_rwlock_unlock(&port_close_lock);
		return NULL;
	}
	port = dvp_port_get((uint16_t)id);
	return port;
}

static int port_done(int ret)
{
	pthread_rwlock_unlock(&port_close_lock);
	return ret;
}

static int cmd_list(const char *cmd, const char *params, struct dvp_json *w)
{
	uint16_t p;

	(void)cmd;
	(void)params;
	dvp_json_arr_open(w, NULL);
	DVP_PORT_FOREACH(p)
		dvp_json_i64(w, NULL, p);
	dvp_json_arr_close(w);
	return 0;
}

static void queue_stats(struct dvp_json *w, const char *key, const uint64_t *v)
{
	unsigned int q;

	dvp_json_arr_open(w, key);
	for (q = 0; q < DVP_PORT_QUEUE_STAT_CNTRS; q++)
		dvp_json_u64(w, NULL, v[q]);
	dvp_json_arr_close(w);
}

/* ethdev's /ethdev/stats keys, in its order: the struct's own names. */
#define ST(m) DVP_JSON_FIELD(struct dvp_port_stats, m)
static const struct dvp_json_field stats_fields[] = {
	ST(ipackets), ST(opackets), ST(ibytes),	 ST(obytes),
	ST(imissed),  ST(ierrors),  ST(oerrors), ST(rx_nombuf),
};
#undef ST

static int port_stats(struct dvp_port *port, struct dvp_json *w)
{
	struct dvp_port_stats st;

	if (dvp_stats_get(port->port_id, &st) < 0)
		return -1;
	dvp_json_obj_open(w, NULL);
	dvp_json_fields(w, NULL, &st, stats_fields, DVP_DIM(stats_fields));
	queue_stats(w, "q_ipackets", st.q_ipackets);
	queue_stats(w, "q_opackets", st.q_opackets);
	queue_stats(w, "q_ibytes", st.q_ibytes);
	queue_stats(w, "q_obytes", st.q_obytes);
	queue_stats(w, "q_errors", st.q_errors);
	dvp_json_obj_close(w);
	return 0;
}

static int port_xstats(struct dvp_port *port, struct dvp_json *w)
{
	struct dvp_xstat_name *names = NULL;
	struct dvp_xstat *vals = NULL;
	int n, i, ret = -1;

	n = dvp_xstats_get_names(port->port_id, NULL, 0);
	if (n < 0)
		return -1;
	names = calloc((size_t)n + 1, sizeof(*names));
	vals = calloc((size_t)n + 1, sizeof(*vals));
	if (names != NULL && vals != NULL &&
	    dvp_xstats_get_names(port->port_id, names, (unsigned int)n) == n &&
	    dvp_xstats_get(port->port_id, vals, (unsigned int)n) == n) {
		dvp_json_obj_open(w, NULL);
		for (i = 0; i < n; i++)
			if (vals[i].id < (uint64_t)n)
				dvp_json_u64(w, names[vals[i].id].name, vals[i].value);
		dvp_json_obj_close(w);
		ret = 0;
	}
	free(names);
	free(vals);
	return ret;
}

static int port_link_status(struct dvp_port *port, struct dvp_json *w)
{
	struct dvp_link link;

	if (dvp_link_get_nowait(port->port_id, &link) < 0)
		return -1;
	dvp_json_obj_open(w, NULL);
	if (!link.link_status) {
		dvp_json_str(w, "status", "DOWN");
	} else {
		dvp_json_str(w, "status", "UP");
		/* DPDK's value for an unknown speed is UINT32_MAX too. */
		dvp_json_u64(w, "speed", link.link_speed);
		dvp_json_str(w, "duplex",
			     link.link_duplex == DVP_LINK_FULL_DUPLEX ? "full-duplex" :
									"half-duplex");
	}
	dvp_json_obj_close(w);
	return 0;
}

/* ethdev's queue states: 0 stopped, 1 started. */
static void queue_states(struct dvp_json *w, const char *key, struct dvp_port *port, uint16_t n,
			 void *const *qs)
{
	uint16_t q;

	dvp_json_arr_open(w, key);
	for (q = 0; q < n; q++)
		dvp_json_i64(w, NULL, port->started && qs[q] != NULL);
	dvp_json_arr_close(w);
}

static int port_info(struct dvp_port *port, struct dvp_json *w)
{
	char mac[24];

	dvp_ether_format_addr(mac, sizeof(mac), &port->mac);
	dvp_json_obj_open(w, NULL);
	dvp_json_str(w, "name", port->name);
	/* ethdev's RTE_ETH_DEV_ATTACHED: only attached ports are answered. */
	dvp_json_i64(w, "state", 1);
	dvp_json_i64(w, "nb_rx_queues", port->nb_rx_queues);
	dvp_json_i64(w, "nb_tx_queues", port->nb_tx_queues);
	dvp_json_i64(w, "port_id", port->port_id);
	dvp_json_i64(w, "mtu", port->mtu);
	/* Pools are checked per queue at setup; no smallest buffer is kept. */
	dvp_json_u64(w, "rx_mbuf_size_min", 0);
	dvp_json_str(w, "mac_addr", mac);
	dvp_json_i64(w, "promiscuous", port->promiscuous);
	dvp_json_i64(w, "scattered_rx", 0);
	dvp_json_i64(w, "all_multicast", 0);
	dvp_json_i64(w, "dev_started", port->started);
	dvp_json_i64(w, "lro", 0);
	dvp_json_i64(w, "dev_configured", port->configured);
	queue_states(w, "rxq_state", port, port->nb_rx_queues, port->rxqs);
	queue_states(w, "txq_state", port, port->nb_tx_queues, port->txqs);
	dvp_json_i64(w, "numa_node", port->numa_node);
	dvp_json_u64(w, "dev_flags", 0);
	dvp_json_u64(w, "rx_offloads", port->conf.rxmode.offloads);
	dvp_json_u64(w, "tx_offloads", port->conf.txmode.offloads);
	dvp_json_u64(w, "ethdev_rss_hf", port->conf.rss_conf.rss_hf);
	/* dvpmd's own, after DPDK's. */
	dvp_json_str(w, "driver", port->driver_name);
	dvp_json_obj_close(w);
	return 0;
}

static int port_intr(struct dvp_port *port, struct dvp_json *w)
{
	uint16_t q;

	dvp_json_obj_open(w, NULL);
	dvp_json_i64(w, "port_id", port->port_id);
	dvp_json_str(w, "name", port->name);
	dvp_json_arr_open(w, "rx_queues");
	for (q = 0; q < port->nb_rx_queues; q++) {
		dvp_json_obj_open(w, NULL);
		dvp_json_i64(w, "queue", q);
		dvp_rxwait_queue_json(port->rxq_intr[q], w);
		dvp_json_obj_close(w);
	}
	dvp_json_arr_close(w);
	dvp_json_obj_close(w);
	return 0;
}

/* A command about one port: what writes its answer, and its help. */
struct port_cmd {
	const char *cmd;
	int (*fn)(struct dvp_port *port, struct dvp_json *w);
	bool qlock; /* it reads the queues: hold the port's qlock */
	const char *help;
};

static const struct port_cmd port_cmds[] = {
	{ "/ethdev/stats", port_stats, false,
	  "Returns the common stats for a port. Parameters: int port_id" },
	{ "/ethdev/xstats", port_xstats, false,
	  "Returns the extended stats for a port. Parameters: int port_id" },
	{ "/ethdev/link_status", port_link_status, false,
	  "Returns the link status for a port. Parameters: int port_id" },
	{ "/ethdev/info", port_info, true,
	  "Returns the device info for a port. Parameters: int port_id" },
	{ "/dvp/intr", port_intr, true,
	  "Returns each rx queue's interrupt mode and counters. Parameters: int port_id" },
};

/* Every command of port_cmds: the port its parameter names stays open while it answers. */
static int cmd_port(const char *cmd, const char *params, struct dvp_json *w)
{
	const struct port_cmd *c = NULL;
	struct dvp_port *port;
	unsigned int i;
	int ret;

	for (i = 0; i < DVP_DIM(port_cmds) && c == NULL; i++)
		if (strcmp(cmd, port_cmds[i].cmd) == 0)
			c = &port_cmds[i];
	port = c != NULL ? port_of_param(params) : NULL;
	if (port == NULL)
		return -1;
	if (c->qlock)
		pthread_mutex_lock(&port_slot_of(port)->qlock);
	ret = c->fn(port, w);
	if (c->qlock)
		pthread_mutex_unlock(&port_slot_of(port)->qlock);
	return port_done(ret);
}

void port_telemetry_register(void)
{
	unsigned int i;

	dvp_telemetry_register_cmd("/ethdev/list", cmd_list,
				   "Returns list of available ethdev ports. Takes no parameters");
	for (i = 0; i < DVP_DIM(port_cmds); i++)
		dvp_telemetry_register_cmd(port_cmds[i].cmd, cmd_port, port_cmds[i].help);
}
