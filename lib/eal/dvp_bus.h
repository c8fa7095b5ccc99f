/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Buses, devices and the driver registry.
 *
 * Two buses: "ib" (RDMA devices from /sys/class/infiniband and
 * ibv_get_device_list(), plus software devices a driver adds, such as the
 * simulated HCA) and "vdev" (virtual devices from --vdev). Drivers register
 * from a constructor with DVP_DRIVER_REGISTER. At init the EAL creates the
 * vdevs (whose probe may add ib devices), then offers each allowed ib device
 * to the driver that matches it best.
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

struct ibv_device;

enum dvp_bus_type {
	DVP_BUS_VDEV,
	DVP_BUS_IB,
};

#define DVP_IB_MAX_PORTS 8

struct dvp_ib_port {
	uint8_t port_num; /**< 1-based, as verbs numbers ports */
	int state; /**< enum ibv_port_state */
	int link_layer; /**< IBV_LINK_LAYER_* */
	char netdev[IF_NAMESIZE]; /**< the Ethernet netdev of a RoCE port, or "" */
};

/** An RDMA device as the ib bus sees it. */
struct dvp_ib_device {
	char name[DVP_DEV_NAME_MAX_LEN]; /**< "mlx5_0", "rxe0", "sim_mlx5_0" */
	char provider[32]; /**< driver behind it: "mlx5", "rxe", "sim_mlx5", ... */
	int numa_node; /**< from the sysfs device link; -1 if unknown */
	uint64_t node_guid; /**< host byte order */
	unsigned int nports;
	struct dvp_ib_port ports[DVP_IB_MAX_PORTS];
	/** The libibverbs device, or NULL for a software device. */
	struct ibv_device *ibv_dev;
	/**
	 * A software device supplies the operations a driver uses in place of
	 * libibverbs (for sim_mlx5: the mlx5 glue ops table), and its context.
	 */
	const void *sw_ops;
	void *sw_ctx;
};

struct dvp_driver;

struct dvp_device {
	char name[DVP_DEV_NAME_MAX_LEN];
	enum dvp_bus_type bus;
	int numa_node;
	const struct dvp_driver *driver; /**< the driver that probed it, or NULL */
	const struct dvp_devargs *devargs; /**< from -a or --vdev; NULL if none */
	struct dvp_ib_device *ib; /**< ib bus devices only */
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

/** Register @p drv (a struct dvp_driver) before main() runs. */
#define DVP_DRIVER_REGISTER(nm, drv)                                                  \
	__dvp_constructor(DVP_PRIO_DRIVER) static void dvp_driver_register_##nm(void) \
	{                                                                             \
		dvp_driver_register(&(drv));                                          \
	}

/** @return the registered driver named @p name, or NULL. */
const struct dvp_driver *dvp_driver_find(const char *name);

/** Call @p fn for every registered driver. */
void dvp_driver_foreach(void (*fn)(const struct dvp_driver *drv, void *arg), void *arg);

/**
 * Add a software ib device (a driver's probe does this, e.g. sim_mlx5). It
 * is offered to the ib drivers at once when the EAL has already probed,
 * else with the others at init. The bus copies @p info.
 * @return 0, -EEXIST for a taken name, -ENOMEM.
 */
int dvp_ib_bus_add_device(const struct dvp_ib_device *info);

/** Remove a software ib device added above (its driver's remove runs first). */
int dvp_ib_bus_remove_device(const char *name);

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
