/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The net_dvp vdev driver: --vdev net_dvpN,<dvp device>[,<its devargs>]
 * attaches the dvp device on the hosted runtime and makes an ethdev port of
 * each dvp port it creates. Remove closes them and detaches the device.
 * In a secondary process, the probe attaches the ports the primary made
 * (net_dvp_secondary.c).
 */

#include <stdio.h>
#include <string.h>

#include <bus_vdev_driver.h>
#include <ethdev_vdev.h>
#include <rte_malloc.h>

#include <dvp_bus.h>
#include <dvp_eal.h>

#include "net_dvp.h"

#define NET_DVP_USAGE                                                                   \
	"<dvp device>[,<its devargs>], e.g. sim_mlx5,ports=2,cable=traffic | mlx5_0 | " \
	"net_verbs0,dev=rxe0,listen=IP:PORT | net_memif0,role=client,socket=PATH | net_ring0"

/*
 * The vdevs probed, newest first: probe and remove run on DPDK's main
 * thread and change the list under the control lock, which secondaries'
 * requests take to read it.
 */
static struct net_dvp_dev *devs;

static struct net_dvp_dev **dev_slot(const struct rte_vdev_device *vdev)
{
	struct net_dvp_dev **d;

	for (d = &devs; *d != NULL; d = &(*d)->next)
		if ((*d)->vdev == vdev)
			return d;
	return NULL;
}

int net_dvp_dev_ports(const char *name, uint16_t *ports, unsigned int max)
{
	const struct net_dvp_dev *dev;
	uint16_t i;

	for (dev = devs; dev != NULL && strcmp(dev->name, name) != 0; dev = dev->next)
		;
	if (dev == NULL)
		return -ENODEV;
	for (i = 0; i < dev->nb_ports && i < max; i++)
		ports[i] = dev->eth_ports[i];
	return i;
}

static int net_dvp_probe(struct rte_vdev_device *vdev)
{
	const char *name = rte_vdev_device_name(vdev);
	const char *args = rte_vdev_device_args(vdev);
	bool before[DVP_MAX_PORTS] = { false };
	struct net_dvp_dev *dev;
	uint16_t pid;
	int ret;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return net_dvp_secondary_probe(vdev);
	if (args == NULL || args[0] == '\0') {
		NET_DVP_LOG(ERR, "%s: no dvp device given: --vdev %s," NET_DVP_USAGE, name, name);
		return -EINVAL;
	}
	dev = rte_zmalloc("net_dvp_dev", sizeof(*dev), 0);
	if (dev == NULL)
		return -ENOMEM;
	snprintf(dev->name, sizeof(dev->name), "%s", name);
	snprintf(dev->dvp_dev, sizeof(dev->dvp_dev), "%.*s", (int)strcspn(args, ","), args);
	dev->vdev = vdev;
	ret = net_dvp_runtime_get();
	if (ret < 0)
		goto fail_free;

	DVP_PORT_FOREACH(pid)
		before[pid] = true;
	ret = dvp_dev_attach(args);
	if (ret < 0) {
		NET_DVP_LOG(
			ERR,
			"%s: cannot attach dvp device '%s' (the line above says why); expected " NET_DVP_USAGE,
			name, args);
		goto fail_runtime;
	}
	DVP_PORT_FOREACH(pid) {
		if (before[pid])
			continue;
		ret = net_dvp_port_create(dev, pid);
		if (ret < 0)
			goto fail_ports;
	}
	if (dev->nb_ports == 0) {
		NET_DVP_LOG(ERR, "%s: dvp device %s made no port", name, dev->dvp_dev);
		ret = -ENODEV;
		goto fail_ports;
	}
	net_dvp_ctrl_lock();
	dev->next = devs;
	devs = dev;
	net_dvp_ctrl_unlock();
	net_dvp_mp_start();
	NET_DVP_LOG(INFO, "%s: %s gives %u port(s)", name, dev->dvp_dev, dev->nb_ports);
	return 0;

fail_ports:
	while (dev->nb_ports > 0)
		rte_eth_dev_close(dev->eth_ports[--dev->nb_ports]);
	dvp_dev_remove(dev->dvp_dev);
fail_runtime:
	net_dvp_runtime_put();
fail_free:
	rte_free(dev);
	return ret;
}

static int net_dvp_remove(struct rte_vdev_device *vdev)
{
	struct net_dvp_dev **slot = dev_slot(vdev), *dev;
	struct rte_eth_dev *eth;
	uint16_t i;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return net_dvp_secondary_remove(vdev);
	if (slot == NULL)
		return 0;
	net_dvp_ctrl_lock();
	dev = *slot;
	*slot = dev->next;
	net_dvp_ctrl_unlock();
	if (devs == NULL)
		net_dvp_mp_stop();
	for (i = 0; i < dev->nb_ports; i++) {
		eth = &rte_eth_devices[dev->eth_ports[i]];
		/* Closed already by the application (rte_eth_dev_close releases the port)? */
		if (eth->data == NULL || eth->data->dev_private == NULL ||
		    eth->state == RTE_ETH_DEV_UNUSED)
			continue;
		rte_eth_dev_close(dev->eth_ports[i]);
	}
	if (dvp_dev_remove(dev->dvp_dev) < 0)
		NET_DVP_LOG(WARNING, "%s: removing dvp device %s failed", dev->name, dev->dvp_dev);
	net_dvp_dev_pools_free(dev);
	net_dvp_runtime_put();
	rte_free(dev);
	return 0;
}

static struct rte_vdev_driver net_dvp_driver = {
	.probe = net_dvp_probe,
	.remove = net_dvp_remove,
};

RTE_PMD_REGISTER_VDEV(net_dvp, net_dvp_driver);
RTE_PMD_REGISTER_PARAM_STRING(net_dvp, NET_DVP_USAGE);
