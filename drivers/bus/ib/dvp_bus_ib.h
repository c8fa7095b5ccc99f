/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The ib bus (drivers/bus/ib): RDMA devices from /sys/class/infiniband and
 * ibv_get_device_list(), plus software devices a driver adds, such as the
 * simulated HCA. A device of this bus is a struct dvp_device whose bus is
 * DVP_BUS_IB and whose ib member describes it as below.
 */

#ifndef DVP_BUS_IB_H
#define DVP_BUS_IB_H

#include <net/if.h>
#include <stdint.h>

#include <dvp_bus.h>
#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_device;

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

/**
 * Add a software ib device (a driver's probe does this, e.g. sim_mlx5). It
 * is offered to the ib drivers at once when the EAL has already probed,
 * else with the others at init. The bus copies @p info.
 * @return 0, -EINVAL (no name, too many ports), -EEXIST for a taken name,
 *   -ENOMEM, or the driver's error.
 */
__dvp_export int dvp_ib_bus_add_device(const struct dvp_ib_device *info);

/** Remove a software ib device added above (its driver's remove runs first). */
__dvp_export int dvp_ib_bus_remove_device(const char *name);

/**
 * @return what the ib bus knows of @p dev, or NULL when @p dev is not an
 *   ib bus device (as DPDK's RTE_DEV_TO_PCI). Calling it also makes an ib
 *   driver's library need the bus's, so that loading the driver alone (-d)
 *   brings the bus.
 */
__dvp_export const struct dvp_ib_device *dvp_ib_device_of(const struct dvp_device *dev);

/** @return the ib device named @p name (scanned or added), or NULL. */
__dvp_export const struct dvp_ib_device *dvp_ib_device_find(const char *name);

/**
 * @return the name of a port's state (struct dvp_ib_port's state), as
 *   libibverbs words it: "down", "init", "armed", "active", "active defer";
 *   "unknown" for anything else (0: the bus could not read it).
 */
__dvp_export const char *dvp_ib_port_state_name(int state);

/**
 * @return the name of a port's link layer (struct dvp_ib_port's
 *   link_layer): "InfiniBand", "Ethernet", else "unspecified".
 */
__dvp_export const char *dvp_ib_link_layer_name(int link_layer);

#ifdef __cplusplus
}
#endif

#endif /* DVP_BUS_IB_H */
