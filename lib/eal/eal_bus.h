/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* What the bus files share (not installed). */

#ifndef EAL_BUS_H
#define EAL_BUS_H

#include <pthread.h>

#include "dvp_bus.h"
#include "eal_private.h"

/* A device on any bus; dvp_device is what drivers and apps see of it. */
struct eal_dev {
	struct eal_dev *next;
	struct dvp_device dev; /* dev.ib: the bus's, freed with the device */
	struct dvp_devargs devargs;
	const struct dvp_driver *vdev_drv; /* vdevs: the driver its name picks */
	bool sw; /* a device a driver added, not one a scan found */
	bool tried; /* offered to drivers in the current dvp_dev_probe_all() */
};

/*
 * Guards the device list. Recursive: a driver's probe or remove adds and
 * removes devices of its own (the sim's vdev adds its ib device).
 */
extern pthread_mutex_t eal_bus_lock;

struct eal_dev *eal_dev_find_locked(const char *name);
/* Append @p d; the list keeps creation order. */
void eal_dev_link_locked(struct eal_dev *d);
/* Unlink and free @p d (its driver must be done with it). */
void eal_dev_free_locked(struct eal_dev *d);
/* Offer @p d to its driver(s) now; 0 when none wants it. */
int eal_dev_probe_locked(struct eal_dev *d);
/* Remove @p d: its driver's remove, then the device. */
int eal_dev_remove_locked(struct eal_dev *d);
/* Whether dvp_eal_init() probed already, so new devices are probed at once. */
bool eal_bus_probed(void);

/* eal_bus_vdev.c: parse @p str (errors open with @p ctx), pick its driver, check its keys. */
int eal_vdev_add_locked(const char *ctx, const char *str, struct eal_dev **out);

#endif /* EAL_BUS_H */
