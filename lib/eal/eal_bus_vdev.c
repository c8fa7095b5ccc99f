/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The vdev bus: virtual devices named by --vdev or dvp_vdev_create(). A
 * name picks the vdev driver whose name is its longest prefix, as DPDK
 * does ("net_ring0" -> net_ring).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eal_bus.h"

struct vdev_pick {
	const char *name;
	const struct dvp_driver *best;
	char list[256];
	size_t off;
};

static void pick_driver(const struct dvp_driver *drv, void *arg)
{
	struct vdev_pick *p = arg;
	size_t len = strlen(drv->name);

	if (drv->bus != DVP_BUS_VDEV)
		return;
	if (p->off < sizeof(p->list))
		p->off += (size_t)snprintf(p->list + p->off, sizeof(p->list) - p->off, "%s%s",
					   p->off ? ", " : "", drv->name);
	if (strncmp(p->name, drv->name, len) == 0 &&
	    (p->best == NULL || strlen(p->best->name) < len))
		p->best = drv;
}

int eal_vdev_add_locked(const char *ctx, const char *str, struct eal_dev **out)
{
	struct vdev_pick pick = { 0 };
	struct eal_dev *d;
	int ret;

	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return dvp_err(ENOMEM);
	ret = eal_devargs_parse_ctx(ctx, str, &d->devargs);
	if (ret < 0)
		goto fail;
	if (eal_dev_find_locked(d->devargs.name) != NULL) {
		EAL_LOG(ERR, "%s '%s': a device named %s exists already", ctx, str,
			d->devargs.name);
		ret = dvp_err(EEXIST);
		goto fail;
	}
	pick.name = d->devargs.name;
	dvp_driver_foreach(pick_driver, &pick);
	if (pick.best == NULL) {
		EAL_LOG(ERR,
			"%s '%s': no virtual device driver for %s; a name starts with its driver's: %s",
			ctx, str, d->devargs.name,
			pick.off ? pick.list : "(no vdev driver is linked in)");
		ret = dvp_err(ENODEV);
		goto fail;
	}
	ret = dvp_devargs_check_keys(&d->devargs, pick.best->keys);
	if (ret < 0)
		goto fail;
	snprintf(d->dev.name, sizeof(d->dev.name), "%s", d->devargs.name);
	d->dev.bus = DVP_BUS_VDEV;
	d->dev.numa_node = -1;
	d->vdev_drv = pick.best;
	eal_dev_link_locked(d);
	*out = d;
	return 0;

fail:
	dvp_devargs_free(&d->devargs);
	free(d);
	return ret;
}

int dvp_vdev_create(const char *devargs)
{
	struct eal_dev *d;
	int ret;

	if (!eal_is_initialised()) {
		EAL_LOG(ERR, "vdev create '%s': the EAL is not initialised",
			devargs ? devargs : "");
		return dvp_err(E_DVP_NO_INIT);
	}
	pthread_mutex_lock(&eal_bus_lock);
	ret = eal_vdev_add_locked("vdev", devargs, &d);
	if (ret == 0) {
		ret = eal_dev_probe_locked(d);
		if (ret < 0)
			eal_dev_free_locked(d);
	}
	pthread_mutex_unlock(&eal_bus_lock);
	return ret;
}
