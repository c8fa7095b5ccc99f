/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The simulated HCA as a device: creation from devargs (the vdev driver
 * `sim_mlx5`, or sim_mlx5_create()), its ports, the
 * registry of live devices behind the glue's get_device_list, the ib bus
 * entry the mlx5 PMD probes, and the reporting of invalid use by the
 * driver.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_bus.h>
#include <dvp_bus_ib.h>
#include <dvp_errno.h>

#include "sim_mlx5.h"

DVP_LOG_REGISTER(sim_logtype, "pmd.sim.mlx5", NOTICE);

static int sim_dev_destroy(struct sim_mlx5_dev *dev);

static pthread_mutex_t sim_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_mlx5_dev *sim_list;
static unsigned int sim_next_index;

void sim_dev_list_lock(void)
{
	pthread_mutex_lock(&sim_list_lock);
}

void sim_dev_list_unlock(void)
{
	pthread_mutex_unlock(&sim_list_lock);
}

struct sim_mlx5_dev *sim_dev_first(void)
{
	return sim_list;
}

/* Whether @p dev is a live device (the list lock held). */
int sim_dev_registered(const struct sim_mlx5_dev *dev)
{
	for (struct sim_mlx5_dev *d = sim_list; d != NULL; d = d->reg_next)
		if (d == dev)
			return 1;
	return 0;
}

static const char *const invalid_names[SIM_MLX5_INV_MAX] = {
	[SIM_MLX5_INV_DB_ORDER] = "db_order",
	[SIM_MLX5_INV_ARM_ORDER] = "arm_order",
	[SIM_MLX5_INV_WQE_PAST_PI] = "wqe_past_pi",
	[SIM_MLX5_INV_DS] = "ds_count",
	[SIM_MLX5_INV_WQE_CTRL] = "wqe_ctrl",
	[SIM_MLX5_INV_RING_OVERRUN] = "ring_overrun",
	[SIM_MLX5_INV_CI_AHEAD] = "ci_ahead",
	[SIM_MLX5_INV_DESTROYED_DB] = "destroyed_db",
	[SIM_MLX5_INV_DESTROY_UNACKED] = "destroy_unacked",
	[SIM_MLX5_INV_BAD_OBJECT] = "bad_object",
	[SIM_MLX5_INV_EMPW] = "empw",
};

const char *sim_mlx5_invalid_name(enum sim_mlx5_invalid kind)
{
	return (unsigned int)kind < SIM_MLX5_INV_MAX ? invalid_names[kind] : "unknown";
}

/*
 * A driver bug the hardware would not report, or would answer with a hang
 * or a silent loss: said loudly, and counted for the tests to assert.
 * Relaxed: a statistic, read after the test has joined what it waits for.
 */
void sim_invalid(struct sim_mlx5_dev *dev, enum sim_mlx5_invalid kind, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	__atomic_fetch_add(&dev->st.invalid[kind], 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	SIM_LOG(ERR, dev, "invalid use by the driver (%s): %s", invalid_names[kind], msg);
}

void *sim_refuse(struct sim_mlx5_dev *dev, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	SIM_LOG(ERR, dev, "%s", msg);
	errno = err; /* after the log, which may change it */
	return NULL;
}

struct sim_port *sim_port_get(struct sim_mlx5_dev *dev, unsigned int port, const char *fn)
{
	if (dev == NULL) {
		DVP_LOG_LINE(ERR, sim_logtype, "", "%s: no device given", fn);
		dvp_errno = EINVAL;
		return NULL;
	}
	if (port >= dev->nports) {
		SIM_LOG(ERR, dev, "%s: port %u does not exist; valid ports are 0..%u", fn, port,
			dev->nports - 1);
		dvp_errno = EINVAL;
		return NULL;
	}
	return &dev->ports[port];
}

struct sim_port *sim_port_lock_out(struct sim_mlx5_dev *dev, unsigned int port, const void *out,
				   const char *fn)
{
	struct sim_port *p = sim_port_get(dev, port, fn);

	if (p == NULL)
		return NULL;
	if (out == NULL) {
		SIM_LOG(ERR, dev, "%s: no place for the result", fn);
		dvp_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	return p;
}

static int port_init(struct sim_mlx5_dev *dev, unsigned int idx, unsigned int dev_index)
{
	struct sim_port *p = &dev->ports[idx];
	const struct sim_cfg *cfg = &dev->cfg;
	int ret;

	p->dev = dev;
	p->idx = idx;
	if (cfg->mac_set) {
		memcpy(p->mac, cfg->mac, 6);
		p->mac[5] = (uint8_t)(p->mac[5] + idx);
	} else {
		/* Locally administered, "SIM", device, port. */
		const uint8_t base[6] = {
			0x02, 0x53, 0x49, 0x4d, (uint8_t)dev_index, (uint8_t)idx
		};

		memcpy(p->mac, base, 6);
	}
	p->mtu = cfg->mtu;
	p->link_up = true;
	p->pause = cfg->pause;
	p->tx_held = cfg->tx_hold;
	p->drop_ppm = cfg->drop_ppm;
	p->corrupt_ppm = cfg->corrupt_ppm;
	p->flap_at = cfg->flap_down ? cfg->flap_at : UINT64_MAX;
	p->flap_up_at = cfg->flap_down ? cfg->flap_at + cfg->flap_down : UINT64_MAX;
	TAILQ_INIT(&p->flows);
	ret = sim_fifo_init(&p->fifo, SIM_FIFO_DEPTH, p->mtu + 18u);
	if (ret != 0)
		return ret;
	p->source.conf = cfg->src;
	return 0;
}

static void port_fini(struct sim_port *p)
{
	sim_traffic_fini(p);
	sim_capture_fini(p);
	sim_fifo_fini(&p->fifo);
}

static int dev_bus_add(struct sim_mlx5_dev *dev)
{
	struct dvp_ib_device info;
	int ret;

	memset(&info, 0, sizeof(info));
	snprintf(info.name, sizeof(info.name), "%s", dev->name);
	snprintf(info.provider, sizeof(info.provider), "sim_mlx5");
	info.numa_node = dev->cfg.numa;
	info.node_guid = 0x0253494d00000000ull | (uint64_t)dev->ports[0].mac[4] << 8;
	info.nports = dev->nports;
	for (unsigned int i = 0; i < dev->nports; i++) {
		info.ports[i].port_num = (uint8_t)(i + 1);
		info.ports[i].state = dev->ports[i].link_up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
		info.ports[i].link_layer = IBV_LINK_LAYER_ETHERNET;
	}
	info.ibv_dev = NULL;
	info.sw_ops = &sim_glue_ops;
	info.sw_ctx = dev;
	ret = dvp_ib_bus_add_device(&info);
	if (ret < 0) {
		SIM_LOG(ERR, dev, "cannot add to the ib bus: %s", dvp_strerror(-ret));
		return ret;
	}
	dev->on_bus = true;
	return 0;
}

static void dev_free(struct sim_mlx5_dev *dev)
{
	for (unsigned int i = 0; i < dev->nports; i++)
		port_fini(&dev->ports[i]);
	free(dev->frame);
	free(dev->mrs);
	pthread_mutex_destroy(&dev->lock);
	free(dev);
}

static int dev_create(const struct sim_cfg *cfg, struct sim_mlx5_dev **out)
{
	struct sim_mlx5_dev *dev = calloc(1, sizeof(*dev));
	unsigned int index;
	int ret;

	if (dev == NULL)
		return dvp_err(ENOMEM);
	dev->cfg = *cfg;
	pthread_mutex_init(&dev->lock, NULL);
	TAILQ_INIT(&dev->ctxs);
	TAILQ_INIT(&dev->cqs);
	TAILQ_INIT(&dev->sqs);
	TAILQ_INIT(&dev->dead_uars);
	dev->next_cqn = 1;
	dev->next_qpn = 0x100;
	dev->next_key = 1;
	dev->rng = cfg->seed ? cfg->seed : 1;
	dev->fatal_at = cfg->fatal_at;
	dev->nports = cfg->ports;
	dev->frame = malloc(SIM_FRAME_MAX);
	dev->mrs = calloc(SIM_MAX_MR, sizeof(*dev->mrs));
	if (dev->frame == NULL || dev->mrs == NULL) {
		dev_free(dev);
		return dvp_err(ENOMEM);
	}

	/* The next free name: a vdev may already be called sim_mlx5_0. */
	for (unsigned int tries = 0; tries < 64; tries++) {
		sim_dev_list_lock();
		index = sim_next_index++;
		sim_dev_list_unlock();
		snprintf(dev->name, sizeof(dev->name), "sim_mlx5_%u", index);
		if (dvp_dev_find(dev->name) == NULL)
			break;
	}
	dev->ibv_dev.node_type = IBV_NODE_CA;
	dev->ibv_dev.transport_type = IBV_TRANSPORT_IB;
	snprintf(dev->ibv_dev.name, sizeof(dev->ibv_dev.name), "%s", dev->name);
	snprintf(dev->ibv_dev.dev_name, sizeof(dev->ibv_dev.dev_name), "uverbs_sim%u", index);

	for (unsigned int i = 0; i < dev->nports; i++) {
		ret = port_init(dev, i, index);
		if (ret != 0) {
			dev->nports = i + 1;
			dev_free(dev);
			return dvp_err(-ret);
		}
	}
	dev->clock_base_ns = sim_mono_ns();
	for (unsigned int i = 0; i < dev->nports; i++) {
		struct sim_port *p = &dev->ports[i];

		if (cfg->cable == SIM_CABLE_PORT && (i & 1)) {
			p->cable = dev->ports[i - 1].cable = SIM_CABLE_PORT;
			p->peer = &dev->ports[i - 1];
			dev->ports[i - 1].peer = p;
		} else if (cfg->cable == SIM_CABLE_TRAFFIC) {
			ret = sim_traffic_init(p);
			if (ret != 0) {
				dev_free(dev);
				return dvp_err(-ret);
			}
			p->cable = SIM_CABLE_TRAFFIC;
			p->source.running = cfg->src_on;
		}
	}
	*out = dev;
	return 0;
}

static int sim_dev_create(const struct sim_cfg *cfg, struct sim_mlx5_dev **out)
{
	struct sim_mlx5_dev *dev = NULL;
	int ret = dev_create(cfg, &dev);

	if (ret < 0)
		return ret;
	sim_dev_list_lock();
	dev->reg_next = sim_list;
	sim_list = dev;
	sim_dev_list_unlock();
	ret = dev_bus_add(dev);
	if (ret == 0 && cfg->thread)
		ret = sim_mlx5_thread_start(dev);
	if (ret < 0) {
		sim_dev_destroy(dev);
		return dvp_err(-ret);
	}
	SIM_LOG(INFO, dev, "%u port(s), mtu %u, %s mode", dev->nports, cfg->mtu,
		cfg->thread ? "thread" : "step");
	*out = dev;
	return 0;
}

int sim_mlx5_create(const char *args, struct sim_mlx5_dev **out)
{
	struct dvp_devargs da;
	struct sim_cfg cfg;
	char *text;
	int ret;

	if (out == NULL)
		return dvp_err(EINVAL);
	if (args == NULL)
		args = "";
	if (asprintf(&text, "sim_mlx5%s%s", args[0] ? "," : "", args) < 0)
		return dvp_err(ENOMEM);
	memset(&da, 0, sizeof(da));
	ret = dvp_devargs_parse(text, &da);
	free(text);
	if (ret == 0)
		ret = dvp_devargs_check_keys(&da, sim_devargs_keys);
	if (ret == 0)
		ret = sim_cfg_parse("sim_mlx5", &da, &cfg);
	dvp_devargs_free(&da);
	if (ret < 0)
		return dvp_err(-ret);
	return sim_dev_create(&cfg, out);
}

static int sim_dev_destroy(struct sim_mlx5_dev *dev)
{
	struct sim_mlx5_dev **pp;
	unsigned int nctx = 0;
	struct sim_ctx *ctx;

	if (dev->on_bus) {
		/* The driver that probed it releases its contexts first. */
		dvp_ib_bus_remove_device(dev->name);
		dev->on_bus = false;
	}
	/* Under the list lock no context can be opened on it any more. */
	sim_dev_list_lock();
	pthread_mutex_lock(&dev->lock);
	TAILQ_FOREACH(ctx, &dev->ctxs, next)
		nctx++;
	pthread_mutex_unlock(&dev->lock);
	if (nctx > 0) {
		sim_dev_list_unlock();
		SIM_LOG(ERR, dev,
			"cannot destroy: %u verbs context(s) still open; close them first", nctx);
		return dvp_err(EBUSY);
	}
	for (pp = &sim_list; *pp != NULL; pp = &(*pp)->reg_next) {
		if (*pp == dev) {
			*pp = dev->reg_next;
			break;
		}
	}
	sim_dev_list_unlock();
	sim_mlx5_thread_stop(dev);
	for (unsigned int i = 0; i < dev->nports; i++)
		sim_cable_unplug(&dev->ports[i]);
	SIM_LOG(INFO, dev, "destroyed");
	dev_free(dev);
	return 0;
}

int sim_mlx5_destroy(struct sim_mlx5_dev *dev)
{
	if (dev == NULL)
		return dvp_err(EINVAL);
	if (dev->vdev != NULL) {
		/* Its vdev holds it: freeing it here would leave the vdev dangling. */
		SIM_LOG(ERR, dev, "was created by --vdev %s; remove it with dvp_dev_remove(\"%s\")",
			dev->vdev->name, dev->vdev->name);
		return dvp_err(EINVAL);
	}
	return sim_dev_destroy(dev);
}

struct sim_mlx5_dev *sim_mlx5_find(const char *name)
{
	struct sim_mlx5_dev *dev = NULL;

	if (name == NULL)
		return NULL;
	sim_dev_list_lock();
	for (dev = sim_list; dev != NULL; dev = dev->reg_next)
		if (strcmp(dev->name, name) == 0)
			break;
	sim_dev_list_unlock();
	return dev;
}

struct sim_mlx5_dev *sim_dev_find_port_locked(const char *name, const uint8_t mac[6],
					      unsigned int *port)
{
	struct sim_mlx5_dev *dev;
	unsigned int p;

	for (dev = sim_list; dev != NULL; dev = dev->reg_next) {
		if (strcmp(dev->name, name) != 0)
			continue;
		for (p = 0; p < dev->nports; p++) {
			if (memcmp(dev->ports[p].mac, mac, 6) == 0) {
				*port = p;
				return dev;
			}
		}
	}
	return NULL;
}

const char *sim_mlx5_name(const struct sim_mlx5_dev *dev)
{
	return dev != NULL ? dev->name : NULL;
}

unsigned int sim_mlx5_nports(const struct sim_mlx5_dev *dev)
{
	return dev != NULL ? dev->nports : 0;
}

const struct mlx5_glue *sim_mlx5_glue(void)
{
	return &sim_glue_ops;
}

int sim_mlx5_mac_get(struct sim_mlx5_dev *dev, unsigned int port, uint8_t mac[6])
{
	struct sim_port *p = sim_port_get(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	memcpy(mac, p->mac, 6);
	return 0;
}

int sim_mlx5_dev_stats(struct sim_mlx5_dev *dev, struct sim_mlx5_dev_stats *st)
{
	if (dev == NULL || st == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	/* Relaxed: counters, counted where no lock is held; nothing is read through them. */
	for (unsigned int i = 0; i < SIM_MLX5_INV_MAX; i++)
		st->invalid[i] = __atomic_load_n(&dev->st.invalid[i], __ATOMIC_RELAXED);
	st->cqes = dev->st.cqes;
	st->error_cqes = dev->st.error_cqes;
	st->comp_events = dev->st.comp_events;
	st->arms = dev->st.arms;
	st->arms_stale = dev->st.arms_stale;
	st->cq_overruns = dev->st.cq_overruns;
	st->async_events = __atomic_load_n(&dev->st.async_events, __ATOMIC_RELAXED);
	st->cqe_sessions = dev->st.cqe_sessions;
	st->cqe_minis = dev->st.cqe_minis;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

uint64_t sim_mlx5_invalid_total(struct sim_mlx5_dev *dev)
{
	uint64_t n = 0;

	for (unsigned int i = 0; dev != NULL && i < SIM_MLX5_INV_MAX; i++)
		n += __atomic_load_n(&dev->st.invalid[i], __ATOMIC_RELAXED);
	return n;
}

int sim_mlx5_port_stats(struct sim_mlx5_dev *dev, unsigned int port, struct sim_mlx5_port_stats *st)
{
	struct sim_port *p = sim_port_lock_out(dev, port, st, __func__);

	if (p == NULL)
		return -dvp_errno;
	*st = p->st;
	pthread_mutex_unlock(&dev->lock);
	/* Counted by whichever engine sends into this port, maybe another device's. */
	st->rx_wire_drops = __atomic_load_n(&p->wire_drops, __ATOMIC_RELAXED);
	st->rx_wire_corrupt = __atomic_load_n(&p->wire_corrupt, __ATOMIC_RELAXED);
	return 0;
}

/* The vdev driver: `--vdev sim_mlx5,ports=2,...` */

static int sim_vdev_probe(struct dvp_device *vdev)
{
	struct dvp_devargs empty;
	const struct dvp_devargs *da = vdev->devargs;
	struct sim_mlx5_dev *dev = NULL;
	struct sim_cfg cfg;
	int ret;

	if (da == NULL) {
		memset(&empty, 0, sizeof(empty));
		da = &empty;
	}
	ret = dvp_devargs_check_keys(da, sim_devargs_keys);
	if (ret == 0)
		ret = sim_cfg_parse(vdev->name, da, &cfg);
	if (ret == 0)
		ret = sim_dev_create(&cfg, &dev);
	if (ret < 0)
		return ret;
	dev->vdev = vdev;
	vdev->driver_data = dev;
	SIM_LOG(INFO, dev, "created for %s", vdev->name);
	return 0;
}

static int sim_vdev_remove(struct dvp_device *vdev)
{
	int ret = sim_dev_destroy(vdev->driver_data);

	if (ret == 0)
		vdev->driver_data = NULL;
	return ret;
}

static struct dvp_driver sim_vdev_driver = {
	.name = "sim_mlx5",
	.bus = DVP_BUS_VDEV,
	.keys = sim_devargs_keys,
	.probe = sim_vdev_probe,
	.remove = sim_vdev_remove,
};

DVP_DRIVER_REGISTER(sim_mlx5, sim_vdev_driver);

/* The PMD knows the sim's devices by their glue table, registered with drivers/common/mlx5. */
__dvp_constructor(DVP_PRIO_DRIVER) static void sim_glue_register(void)
{
	mlx5_glue_register(&sim_glue_ops);
}
