/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The simulated HCA (drivers/sim/mlx5, doc/sim.md) as dvp-fwd's default
 * device, through its public API (dvp_sim_mlx5.h, as DPDK's rte_pmd_*.h):
 * create it, find which sim port is behind each dvp port, start and stop
 * the traffic source, and read the sink's verdict.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_bus.h>
#include <dvp_bus_ib.h>
#include <dvp_devargs.h>
#include <dvp_sim_mlx5.h>

#include "fwd.h"

/*
 * Two ports, each cabled to the sim's traffic source and sink. Only port
 * 0's source is started (0 -> 1). The source sends 10 ms bursts every
 * 100 ms, as fast as the port takes them (rate=0), so that the rx queues
 * run dry between bursts and interrupt mode has something to show. pause=on (the sim's default)
 * holds frames back rather than dropping them when the rx ring is full,
 * so this configuration is lossless.
 */
static const char *const sim_defaults[] = {
	"ports=2",
	"cable=traffic",
	"gen=off",
	"flows=16",
	"sizes=[64,512,1514]",
	"rate=0",
	"pattern=[on:10ms,off:90ms]",
};

bool fwd_sim_available(void)
{
	return dvp_driver_find("sim_mlx5") != NULL && dvp_driver_find("net_mlx5") != NULL;
}

/*
 * The devargs of the default device: ours, with --sim's keys replacing
 * ours of the same name and the others added. @return 0, or -EINVAL after
 * the line naming what is wrong with --sim.
 */
static int default_devargs(const char *user, char *out, size_t len)
{
	struct dvp_devargs da;
	char *text = NULL;
	unsigned int i, k;
	size_t n = 0;

	memset(&da, 0, sizeof(da));
	if (user != NULL) {
		if (asprintf(&text, "sim_mlx5,%s", user) < 0)
			return -ENOMEM;
		if (dvp_devargs_parse(text, &da) != 0) {
			free(text);
			fprintf(stderr,
				FWD_PROG ": --sim '%s': not devargs KEY=VALUE,... (see above)\n",
				user);
			return -EINVAL;
		}
		free(text);
	}
	n += (size_t)snprintf(out + n, len - n, "sim_mlx5");
	for (i = 0; i < DVP_DIM(sim_defaults); i++) {
		size_t kl = strcspn(sim_defaults[i], "=");
		bool replaced = false;

		for (k = 0; k < da.count; k++)
			replaced |= strlen(da.pairs[k].key) == kl &&
				    strncmp(da.pairs[k].key, sim_defaults[i], kl) == 0;
		if (!replaced && n < len)
			n += (size_t)snprintf(out + n, len - n, ",%s", sim_defaults[i]);
	}
	if (user != NULL && n < len)
		n += (size_t)snprintf(out + n, len - n, ",%s", user);
	dvp_devargs_free(&da);
	return n < len ? 0 : -E2BIG;
}

static void count_ib(struct dvp_device *dev, void *arg)
{
	if (dev->bus == DVP_BUS_IB && dev->ib != NULL && dev->ib->sw_ops == NULL)
		(*(unsigned int *)arg)++;
}

/* RDMA devices of the machine (not software ones) the ib bus found. */
static unsigned int count_adapters(void)
{
	unsigned int n = 0;

	dvp_dev_foreach(count_ib, &n);
	return n;
}

int fwd_sim_create_default(struct fwd_run *run)
{
	char args[512];
	int ret;

	ret = default_devargs(run->cfg.sim_args, args, sizeof(args));
	if (ret == -E2BIG)
		fprintf(stderr,
			FWD_PROG ": --sim: with the simulated HCA's defaults its devargs take more "
				 "than %zu bytes; give fewer or shorter KEY=VALUE pairs\n",
			sizeof(args) - 1);
	if (ret != 0) {
		run->usage_error = ret == -EINVAL || ret == -E2BIG;
		return ret;
	}
	if (count_adapters() == 0)
		fprintf(run->note,
			FWD_PROG ": no device given and no RDMA adapter found: running on the "
				 "simulated HCA (--vdev %s)\n",
			args);
	else
		fprintf(run->note,
			FWD_PROG
			": no device given, and no driver made a port of this machine's "
			"RDMA devices (see dvp-info): running on the simulated HCA (--vdev "
			"%s)\n",
			args);
	fflush(run->note);
	ret = dvp_vdev_create(args);
	if (ret != 0) {
		fprintf(stderr, FWD_PROG ": cannot create the simulated HCA: %s\n",
			dvp_strerror(-ret));
		/* A bad key or value of --sim is the command line's fault. */
		run->usage_error = run->cfg.sim_args != NULL && ret == -EINVAL;
		return ret;
	}
	run->default_sim = true;
	return 0;
}

struct sim_scan {
	unsigned int sims, traffic;
};

static void count_sim_vdevs(struct dvp_device *dev, void *arg)
{
	struct sim_scan *sc = arg;
	const char *cable;

	if (dev->bus != DVP_BUS_VDEV || dev->driver == NULL ||
	    strcmp(dev->driver->name, "sim_mlx5") != 0)
		return;
	sc->sims++;
	cable = dev->devargs ? dvp_devargs_get(dev->devargs, "cable") : NULL;
	if (cable != NULL && strcmp(cable, "traffic") == 0)
		sc->traffic++;
}

/*
 * Find the sim port behind each dvp port. Only when every sim device is
 * cabled to traffic: the sim's API has no query for a port's cable, and
 * asking a port without a source or sink is an error it logs.
 */
void fwd_sim_attach(struct fwd_run *run)
{
	struct sim_scan sc = { 0, 0 };
	struct sim_mlx5_dev *dev;
	unsigned int i, sp;

	dvp_dev_foreach(count_sim_vdevs, &sc);
	if (sc.sims == 0 || sc.traffic != sc.sims)
		return;
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];

		if (sim_mlx5_port_of(fp->port_id, &dev, &sp) == 0) {
			fp->sim_dev = dev;
			fp->sim_port = (int)sp;
		}
	}
}

bool fwd_sim_in_use(const struct fwd_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nb_ports; i++)
		if (run->ports[i].sim_dev != NULL)
			return true;
	return false;
}

/* The default device: start port 0's source (the others stay off: 0 -> 1). */
void fwd_sim_start(struct fwd_run *run)
{
	struct fwd_port *fp = &run->ports[0];

	if (!run->default_sim || fp->sim_dev == NULL || !fwd_mode_receives(run->cfg.mode))
		return;
	sim_mlx5_source_start(fp->sim_dev, (unsigned int)fp->sim_port);
}

void fwd_sim_stop_sources(struct fwd_run *run)
{
	unsigned int i;

	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];

		if (fp->sim_dev != NULL)
			sim_mlx5_source_stop(fp->sim_dev, (unsigned int)fp->sim_port);
	}
}

void fwd_sim_verdict(struct fwd_run *run, struct fwd_sim_verdict *v)
{
	unsigned int i;

	memset(v, 0, sizeof(*v));
	for (i = 0; i < run->nb_ports; i++) {
		struct fwd_port *fp = &run->ports[i];
		struct sim_mlx5_source_stats so;
		struct sim_mlx5_sink_stats si;
		struct sim_mlx5_port_stats ps;

		if (fp->sim_dev == NULL)
			continue;
		if (sim_mlx5_source_stats(fp->sim_dev, (unsigned int)fp->sim_port, &so) == 0)
			v->sent += so.sent;
		if (sim_mlx5_sink_stats(fp->sim_dev, (unsigned int)fp->sim_port, &si) == 0) {
			v->received += si.received;
			v->lost += si.lost;
			v->reordered += si.reordered;
			v->duplicates += si.duplicates;
			v->corrupt += si.corrupt;
			v->foreign += si.foreign;
		}
		if (sim_mlx5_port_stats(fp->sim_dev, (unsigned int)fp->sim_port, &ps) == 0)
			v->wire_drops += ps.rx_wire_drops;
	}
	v->used = v->sent != 0 || v->received != 0 || v->foreign != 0 || v->corrupt != 0;
}
