/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The sim's telemetry command, /dvp/sim,<port>: for a dvp port on a
 * simulated HCA, its sim port's cable, traffic source and sink, faults and
 * counters. sim_mlx5_port_of() finds the sim port behind a dvp port, as
 * dvp-fwd needs too.
 */

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_common.h>
#include <dvp_json.h>
#include <dvp_port.h>
#include <dvp_telemetry.h>

#include "sim_dev.h"

/* What names the sim port behind a dvp port: the PMD names its device after the sim's, and takes the port's MAC. */
static int port_key(uint16_t port_id, struct dvp_port_info *info, struct dvp_ether_addr *mac)
{
	if (!dvp_port_is_valid(port_id) || dvp_port_info_get(port_id, info) != 0 ||
	    dvp_macaddr_get(port_id, mac) != 0)
		return -EINVAL;
	return 0;
}

int sim_mlx5_port_of(uint16_t port_id, struct sim_mlx5_dev **dev, unsigned int *port)
{
	struct dvp_port_info info;
	struct dvp_ether_addr mac;

	*dev = NULL;
	if (port_key(port_id, &info, &mac) != 0)
		return -EINVAL;
	sim_dev_list_lock();
	*dev = sim_dev_find_port_locked(info.device_name, mac.addr_bytes, port);
	sim_dev_list_unlock();
	return *dev != NULL ? 0 : -ENODEV;
}

static const char *cable_name(enum sim_cable c)
{
	return c == SIM_CABLE_TRAFFIC ? "traffic" : c == SIM_CABLE_PORT ? "port" : "none";
}

#define SO(m) DVP_JSON_FIELD(struct sim_mlx5_source_stats, m)
static const struct dvp_json_field source_fields[] = { SO(sent), SO(bytes), SO(paused) };
#undef SO

#define SI(m) DVP_JSON_FIELD(struct sim_mlx5_sink_stats, m)
static const struct dvp_json_field sink_fields[] = {
	SI(received), SI(bytes),   SI(lost), SI(reordered), SI(duplicates),
	SI(corrupt),  SI(foreign), SI(vlan), SI(vlan_tci),
};
#undef SI

#define PS(m) DVP_JSON_FIELD(struct sim_mlx5_port_stats, m)
#define BUS(m) DVP_JSON_FIELD_AS(#m, struct sim_mlx5_port_stats, bus_##m)
static const struct dvp_json_field counter_fields[] = {
	PS(rx_frames), PS(rx_bytes), PS(rx_out_of_buffer), PS(rx_no_flow),     PS(rx_dropped),
	PS(tx_frames), PS(tx_bytes), PS(tx_dropped),	   PS(tx_completions),
};
static const struct dvp_json_field bus_fields[] = {
	BUS(cqe_bytes),	    BUS(wqe_bytes), BUS(data_rd_bytes),
	BUS(data_wr_bytes), BUS(doorbells), BUS(dbrec_updates),
};
#undef BUS
#undef PS

#define DS(m) DVP_JSON_FIELD(struct sim_mlx5_dev_stats, m)
static const struct dvp_json_field device_fields[] = {
	DS(cqes),	DS(error_cqes),	 DS(flush_cqes),   DS(comp_events),  DS(arms),
	DS(arms_stale), DS(cq_overruns), DS(async_events), DS(cqe_sessions), DS(cqe_minis),
};
#undef DS

static void write_port(struct dvp_json *w, struct sim_mlx5_dev *dev, struct sim_port *p)
{
	struct sim_mlx5_source_stats so;
	struct sim_mlx5_sink_stats si;
	struct sim_mlx5_port_stats ps;
	bool traffic;

	pthread_mutex_lock(&dev->lock);
	traffic = p->cable == SIM_CABLE_TRAFFIC;
	so = p->source.st;
	so.done = p->source.conf.count != 0 && so.sent >= p->source.conf.count;
	si = p->sink.st;
	ps = p->st;
	dvp_json_str(w, "cable", cable_name(p->cable));
	dvp_json_bool(w, "link_up", p->link_up);
	dvp_json_bool(w, "source_running", traffic && p->source.running);
	pthread_mutex_unlock(&dev->lock);
	ps.rx_wire_drops = __atomic_load_n(&p->wire_drops, __ATOMIC_RELAXED);
	ps.rx_wire_corrupt = __atomic_load_n(&p->wire_corrupt, __ATOMIC_RELAXED);

	if (traffic) {
		dvp_json_obj_open(w, "source");
		dvp_json_fields(w, NULL, &so, source_fields, DVP_DIM(source_fields));
		dvp_json_bool(w, "done", so.done);
		dvp_json_obj_close(w);
		dvp_json_fields(w, "sink", &si, sink_fields, DVP_DIM(sink_fields));
	} else {
		dvp_json_null(w, "source");
		dvp_json_null(w, "sink");
	}
	dvp_json_obj_open(w, "faults");
	dvp_json_u64(w, "drop_ppm", __atomic_load_n(&p->drop_ppm, __ATOMIC_RELAXED));
	dvp_json_u64(w, "corrupt_ppm", __atomic_load_n(&p->corrupt_ppm, __ATOMIC_RELAXED));
	dvp_json_u64(w, "wire_drops", ps.rx_wire_drops);
	dvp_json_u64(w, "wire_corrupt", ps.rx_wire_corrupt);
	dvp_json_obj_close(w);
	dvp_json_fields(w, "counters", &ps, counter_fields, DVP_DIM(counter_fields));
	dvp_json_fields(w, "bus", &ps, bus_fields, DVP_DIM(bus_fields));
}

static void write_device(struct dvp_json *w, struct sim_mlx5_dev *dev)
{
	struct sim_mlx5_dev_stats st;
	uint64_t invalid = 0;
	unsigned int i;

	sim_mlx5_dev_stats(dev, &st);
	for (i = 0; i < SIM_MLX5_INV_MAX; i++)
		invalid += st.invalid[i];
	dvp_json_obj_open(w, "device_counters");
	dvp_json_fields(w, NULL, &st, device_fields, DVP_DIM(device_fields));
	dvp_json_u64(w, "invalid_uses", invalid);
	dvp_json_obj_close(w);
}

/* A port that is not on a sim replies null, as ethdev's commands for a bad port. */
static int cmd_sim(const char *cmd, const char *params, struct dvp_json *w)
{
	struct dvp_port_info info;
	struct dvp_ether_addr mac;
	struct sim_mlx5_dev *dev;
	unsigned long id;
	unsigned int sp;

	(void)cmd;
	if (params == NULL || !isdigit((unsigned char)params[0]))
		return -1;
	id = strtoul(params, NULL, 0);
	if (id >= DVP_MAX_PORTS || port_key((uint16_t)id, &info, &mac) != 0)
		return -1;
	/* The list lock keeps the device from being destroyed meanwhile. */
	sim_dev_list_lock();
	dev = sim_dev_find_port_locked(info.device_name, mac.addr_bytes, &sp);
	if (dev == NULL) {
		sim_dev_list_unlock();
		return -1;
	}
	dvp_json_obj_open(w, NULL);
	dvp_json_u64(w, "port_id", id);
	dvp_json_str(w, "device", dev->name);
	dvp_json_u64(w, "sim_port", sp);
	write_port(w, dev, &dev->ports[sp]);
	write_device(w, dev);
	dvp_json_obj_close(w);
	sim_dev_list_unlock();
	return 0;
}

__attribute__((constructor)) static void sim_telemetry_init(void)
{
	dvp_telemetry_register_cmd(
		"/dvp/sim", cmd_sim,
		"Returns a sim port's cable, traffic source and sink, faults, counters and bus counters. Parameters: int port_id");
}
