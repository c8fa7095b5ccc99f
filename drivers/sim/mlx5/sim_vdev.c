/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A device's life: created from devargs (the vdev driver `sim_mlx5`, or
 * sim_mlx5_create()), its ports set up and cabled as they say, added to
 * the registry and to the ib bus, where the mlx5 PMD probes it, its thread
 * started; destroyed in the reverse order once no verbs context is open
 * on it.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_bus.h>
#include <dvp_bus_ib.h>
#include <dvp_cycles.h>
#include <dvp_errno.h>

#include "sim_dev.h"
#include "sim_glue.h"
#include "sim_obj.h"
#include "sim_traffic.h"

static int sim_dev_destroy(struct sim_mlx5_dev *dev);

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
	/* Room for the largest frame the port may ever take: its MTU can grow. */
	ret = sim_fifo_init(&p->fifo, SIM_FIFO_DEPTH, SIM_FRAME_MAX);
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
	free(dev->lso);
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
	dev->lso = malloc(SIM_LSO_BUF);
	dev->mrs = calloc(SIM_MAX_MR, sizeof(*dev->mrs));
	if (dev->frame == NULL || dev->lso == NULL || dev->mrs == NULL) {
		dev_free(dev);
		return dvp_err(ENOMEM);
	}

	/* The next free name: a vdev may already be called sim_mlx5_0. */
	for (unsigned int tries = 0; tries < 64; tries++) {
		index = sim_dev_next_index();
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
	dev->clock_base_ns = dvp_clock_monotonic_ns();
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
	sim_dev_register(dev);
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
	sim_dev_unregister_locked(dev);
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
