/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Buses, devices and the driver registry.
 *
 * The EAL keeps the registry: drivers, devices and the buses that find
 * them. It knows one bus itself, "vdev" (virtual devices from --vdev, their
 * driver picked by name). Other buses live under drivers/bus and register
 * with DVP_BUS_REGISTER: drivers/bus/ib finds RDMA devices (dvp_bus_ib.h)
 * and lets drivers add software ones, such as the simulated HCA. Drivers
 * register from a constructor with DVP_DRIVER_REGISTER. At init the EAL
 * scans the registered buses, creates the vdevs (whose probe may add
 * devices), then offers each allowed device of a scanned bus to the driver
 * that matches it best.
 */

#ifndef DVP_BUS_H
#define DVP_BUS_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <dvp_common.h>
#include <dvp_devargs.h>

#ifdef __cplusplus
extern "C" {
#endif

enum dvp_bus_type {
	DVP_BUS_VDEV,
	DVP_BUS_IB, /**< drivers/bus/ib */
};

/** What a bus keeps of its devices (drivers/bus/ib: dvp_bus_ib.h). */
struct dvp_ib_device;

struct dvp_driver;

struct dvp_device {
	char name[DVP_DEV_NAME_MAX_LEN];
	enum dvp_bus_type bus;
	int numa_node;
	const struct dvp_driver *driver; /**< the driver that probed it, or NULL */
	const struct dvp_devargs *devargs; /**< from -a or --vdev; NULL if none */
	/** ib bus devices only: what the ib bus found (dvp_bus_ib.h); NULL otherwise */
	struct dvp_ib_device *ib;
	void *driver_data; /**< the driver's */
};

struct dvp_driver {
	const char *name; /**< "net_ring", "net_mlx5", "sim_mlx5": vdev names start with it */
	enum dvp_bus_type bus;
	/** Valid devargs keys, terminated by a NULL key; NULL for none. */
	const struct dvp_devargs_key *keys;
	/**
	 * ib bus: how well this driver fits @p dev (0: not at all; the highest
	 * wins, so mlx5 answers above the generic verbs driver).
	 */
	int (*match)(const struct dvp_device *dev);
	/** Take the device: create its ports. @return 0 or a negative errno, after a log line. */
	int (*probe)(struct dvp_device *dev);
	/** Release everything probe created. */
	int (*remove)(struct dvp_device *dev);
	struct dvp_driver *next; /**< registry link, owned by the EAL */
};

void dvp_driver_register(struct dvp_driver *drv);

/*
 * A constructor (named after @p fn and @p nm) that calls fn(&obj) before
 * main() runs, at priority @p prio: what the registration macros expand to.
 */
#define __DVP_REGISTER(prio, fn, nm, obj)                   \
	__dvp_constructor(prio) static void fn##_##nm(void) \
	{                                                   \
		fn(&(obj));                                 \
	}

/** Register @p drv (a struct dvp_driver) before main() runs. */
#define DVP_DRIVER_REGISTER(nm, drv) __DVP_REGISTER(DVP_PRIO_DRIVER, dvp_driver_register, nm, drv)

/** @return the registered driver named @p name, or NULL. */
const struct dvp_driver *dvp_driver_find(const char *name);

/** Call @p fn for every registered driver. */
void dvp_driver_foreach(void (*fn)(const struct dvp_driver *drv, void *arg), void *arg);

/** A bus under drivers/bus: how the EAL finds and lets go of its devices. */
struct dvp_bus {
	const char *name; /**< "ib" */
	enum dvp_bus_type type;
	/** Add the bus's devices with dvp_bus_dev_add(); at init, before any probe. */
	int (*scan)(void);
	/** Release what scan kept beyond its devices; at cleanup, after they are gone. */
	void (*cleanup)(void);
	/**
	 * For -a and -b: when @p arg names a device the bus knows by another
	 * name (a PCI address), *resolved gets @p arg with that name (to free).
	 * NULL to leave it. 0 or a negative errno.
	 */
	int (*resolve_arg)(const char *opt, const char *arg, char **resolved);
	struct dvp_bus *next; /**< registry link, owned by the EAL */
};

void dvp_bus_register(struct dvp_bus *bus);

/** Register @p bus (a struct dvp_bus) before main() runs, and before any driver. */
#define DVP_BUS_REGISTER(nm, bus) __DVP_REGISTER(DVP_PRIO_BUS, dvp_bus_register, nm, bus)

/** A device a bus adds; the EAL copies it. */
struct dvp_bus_dev_info {
	const char *name; /**< unique over all buses, < DVP_DEV_NAME_MAX_LEN */
	enum dvp_bus_type bus;
	int numa_node; /**< -1 if unknown */
	/** The bus's own description, malloc'd: the EAL frees it with the device. */
	struct dvp_ib_device *ib;
	/** Added by a driver (a software device), not found by a scan. */
	bool sw;
};

/**
 * Add a device to bus @p info->bus. Called from a bus's scan, or at run
 * time, when it is offered to the drivers at once (and taken back if its
 * driver fails). On failure the caller still owns @p info->ib.
 * @return 0, -EINVAL (bad name), -EEXIST (a taken name), -ENOMEM, or the
 *   driver's error.
 */
int dvp_bus_dev_add(const struct dvp_bus_dev_info *info);

/**
 * Remove a device a driver added to bus @p type (dvp_bus_dev_add() with
 * sw): its driver's remove, then the device.
 * @return 0, -ENOENT (no such device on that bus), -EINVAL (found by a scan:
 *   dvp_dev_remove() takes those).
 */
int dvp_bus_dev_remove(enum dvp_bus_type type, const char *name);

/** Probe every device not yet probed: vdevs, then allowed ib devices. */
int dvp_dev_probe_all(void);

/**
 * Create and probe one virtual device at run time, as a --vdev argument.
 * @return 0 or a negative errno (after a log line).
 */
int dvp_vdev_create(const char *devargs);

/**
 * Attach one device at run time, as rte_dev_probe(): @p devargs names a
 * virtual device ("sim_mlx5,ports=2", "net_memif0,role=client", its name
 * starting with its driver's) or an ib device found by the scan
 * ("mlx5_0,rxq_cqe_comp_en=0"), with its devargs.
 * @return 0, or a negative errno after a log line: -ENODEV (no such
 *   device or driver), -EEXIST (attached already), -EINVAL (bad devargs),
 *   or the driver's error.
 */
int dvp_dev_attach(const char *devargs);

/** Remove a device: the driver's remove, then the device itself. */
int dvp_dev_remove(const char *name);

/** @return the device named @p name, or NULL. */
struct dvp_device *dvp_dev_find(const char *name);

/** Call @p fn for every device on every bus, probed or not. */
void dvp_dev_foreach(void (*fn)(struct dvp_device *dev, void *arg), void *arg);

/**
 * Where buses and drivers read sysfs: $DVP_SYSFS_ROOT when it is set and
 * not empty (tests point it at a fake tree), otherwise "/sys".
 */
const char *dvp_sysfs_root(void);

/**
 * Read the first line of the file @p path into @p buf (@p size bytes),
 * without its newline; a longer line is cut to fit.
 * @return 0 (the line may be empty), or a positive errno: the one from
 *   opening the file, EIO when it has no line at all, or EINVAL (with a log
 *   line) for a NULL @p path or @p buf or a @p size of 0.
 */
int dvp_sysfs_read_line(const char *path, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* DVP_BUS_H */
