/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The netdev behind a net_af_xdp port, as the kernel shows it: found by
 * name in the network namespace of the process, its MAC address, MTU,
 * flags and queues read and set through ioctl(2) and ethtool, and its link
 * followed through a NETLINK_ROUTE socket read on the EAL interrupt
 * thread. Everything here is control path.
 */

#ifndef AF_XDP_NETDEV_H
#define AF_XDP_NETDEV_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <dvp_port.h>

struct af_xdp_netdev;

/* What the watch saw happen to the netdev (af_xdp_netdev_watch_start). */
enum af_xdp_netdev_event {
	AF_XDP_NETDEV_LINK, /* its flags or carrier changed: read the link again */
	AF_XDP_NETDEV_GONE, /* unregistered, or moved to another namespace */
};

typedef void (*af_xdp_netdev_cb)(void *arg, enum af_xdp_netdev_event ev);

struct af_xdp_netdev {
	char name[IF_NAMESIZE];
	int ifindex;
	int numa_node; /* of its device, or -1 */
	/* The watch: a non-blocking NETLINK_ROUTE socket, -1 when not watching. */
	int nl_fd;
	af_xdp_netdev_cb cb;
	void *cb_arg;
};

/*
 * Find the netdev @ifname for device @dev (named in log lines).
 * @return 0, or -ENODEV / -EINVAL after a log line naming it.
 */
int af_xdp_netdev_open(struct af_xdp_netdev *nd, const char *dev, const char *ifname);

/* Find it again by name (after a removal): its ifindex may be new. */
int af_xdp_netdev_reopen(struct af_xdp_netdev *nd);

int af_xdp_netdev_mac_get(const struct af_xdp_netdev *nd, struct dvp_ether_addr *mac);
int af_xdp_netdev_mac_set(const struct af_xdp_netdev *nd, const struct dvp_ether_addr *mac);
int af_xdp_netdev_mtu_get(const struct af_xdp_netdev *nd, uint16_t *mtu);
int af_xdp_netdev_mtu_set(const struct af_xdp_netdev *nd, uint16_t mtu);
int af_xdp_netdev_promisc_set(const struct af_xdp_netdev *nd, bool on);

/* Its link: up when the netdev is up and running (carrier), its speed from ethtool. */
int af_xdp_netdev_link_get(const struct af_xdp_netdev *nd, struct dvp_link *link);

/*
 * Its queues (ethtool channels: combined or rx, whichever is larger).
 * @return the count, or -ENOTSUP when the driver does not say.
 */
int af_xdp_netdev_queues(const struct af_xdp_netdev *nd);

/*
 * Watch the netdev's link messages on the EAL interrupt thread: @cb(@arg,
 * event) for each change of this netdev. @return 0 or -errno after a log line.
 */
int af_xdp_netdev_watch_start(struct af_xdp_netdev *nd, af_xdp_netdev_cb cb, void *arg);

/* Stop watching; returns once the callback is not running. */
void af_xdp_netdev_watch_stop(struct af_xdp_netdev *nd);

#endif /* AF_XDP_NETDEV_H */
