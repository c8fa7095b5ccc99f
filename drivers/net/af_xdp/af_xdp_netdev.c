/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The netdev of a net_af_xdp port: ioctl(2) for its address, MTU and
 * flags, ethtool for its speed and queues, and a NETLINK_ROUTE socket on
 * the EAL interrupt thread for its link. The ioctls take any socket of the
 * process's network namespace: one AF_INET datagram socket per call, as
 * they are rare.
 */

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sockios.h>
#include <net/if_arp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <dvp_bus.h>
#include <dvp_errno.h>
#include <dvp_interrupts.h>

#include "af_xdp_log.h"
#include "af_xdp_netdev.h"

/* ioctl @req on @nd with @ifr (its name filled in). @return 0 or -errno. */
static int nd_ioctl(const struct af_xdp_netdev *nd, unsigned long req, struct ifreq *ifr)
{
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int ret = 0;

	if (fd < 0)
		return -errno;
	snprintf(ifr->ifr_name, sizeof(ifr->ifr_name), "%s", nd->name);
	if (ioctl(fd, req, ifr) != 0)
		ret = -errno;
	close(fd);
	return ret;
}

static int nd_ethtool(const struct af_xdp_netdev *nd, void *cmd)
{
	struct ifreq ifr = { .ifr_data = cmd };

	return nd_ioctl(nd, SIOCETHTOOL, &ifr);
}

static int nd_numa_node(const char *ifname)
{
	char path[128], line[32];

	/* A virtual netdev (veth) has no device, hence no node. */
	snprintf(path, sizeof(path), "%s/class/net/%s/device/numa_node", dvp_sysfs_root(), ifname);
	if (dvp_sysfs_read_line(path, line, sizeof(line)) != 0)
		return -1;
	return atoi(line) < 0 ? -1 : atoi(line);
}

int af_xdp_netdev_open(struct af_xdp_netdev *nd, const char *dev, const char *ifname)
{
	unsigned int idx;

	if (ifname == NULL || ifname[0] == '\0' || strlen(ifname) >= IF_NAMESIZE) {
		AF_XDP_LOG(ERR, "%s: iface=%s: a netdev name has 1 to %d bytes", dev,
			   ifname != NULL ? ifname : "(none)", IF_NAMESIZE - 1);
		return dvp_err(EINVAL);
	}
	idx = if_nametoindex(ifname);
	if (idx == 0) {
		AF_XDP_LOG(ERR, "%s: iface=%s: no such netdev in this network namespace (%s)", dev,
			   ifname, strerror(errno));
		return dvp_err(ENODEV);
	}
	snprintf(nd->name, sizeof(nd->name), "%s", ifname);
	nd->ifindex = (int)idx;
	nd->numa_node = nd_numa_node(ifname);
	return 0;
}

int af_xdp_netdev_reopen(struct af_xdp_netdev *nd)
{
	unsigned int idx = if_nametoindex(nd->name);

	if (idx == 0) {
		AF_XDP_LOG(ERR, "netdev %s: not found again (%s)", nd->name, strerror(errno));
		return dvp_err(ENODEV);
	}
	nd->ifindex = (int)idx;
	return 0;
}

int af_xdp_netdev_mac_get(const struct af_xdp_netdev *nd, struct dvp_ether_addr *mac)
{
	struct ifreq ifr = { 0 };
	int ret = nd_ioctl(nd, SIOCGIFHWADDR, &ifr);

	if (ret == 0 && ifr.ifr_hwaddr.sa_family != ARPHRD_ETHER) {
		AF_XDP_LOG(ERR, "netdev %s: not an Ethernet device (hardware type %u)", nd->name,
			   ifr.ifr_hwaddr.sa_family);
		return dvp_err(ENOTSUP);
	}
	if (ret < 0) {
		AF_XDP_LOG(ERR, "netdev %s: cannot read its MAC address: %s", nd->name,
			   strerror(-ret));
		return dvp_err(-ret);
	}
	memcpy(mac->addr_bytes, ifr.ifr_hwaddr.sa_data, sizeof(mac->addr_bytes));
	return 0;
}

int af_xdp_netdev_mac_set(const struct af_xdp_netdev *nd, const struct dvp_ether_addr *mac)
{
	struct ifreq ifr = { 0 };
	int ret;

	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac->addr_bytes, sizeof(mac->addr_bytes));
	ret = nd_ioctl(nd, SIOCSIFHWADDR, &ifr);
	if (ret < 0) {
		AF_XDP_LOG(ERR, "netdev %s: the kernel refused the MAC address: %s", nd->name,
			   strerror(-ret));
		return dvp_err(-ret);
	}
	return 0;
}

int af_xdp_netdev_mtu_get(const struct af_xdp_netdev *nd, uint16_t *mtu)
{
	struct ifreq ifr = { 0 };
	int ret = nd_ioctl(nd, SIOCGIFMTU, &ifr);

	if (ret < 0)
		return dvp_err(-ret);
	*mtu = (uint16_t)DVP_MIN(ifr.ifr_mtu, UINT16_MAX);
	return 0;
}

int af_xdp_netdev_mtu_set(const struct af_xdp_netdev *nd, uint16_t mtu)
{
	struct ifreq ifr = { .ifr_mtu = mtu };
	int ret = nd_ioctl(nd, SIOCSIFMTU, &ifr);

	if (ret < 0) {
		AF_XDP_LOG(ERR, "netdev %s: the kernel refused MTU %u: %s", nd->name, mtu,
			   strerror(-ret));
		return dvp_err(-ret);
	}
	return 0;
}

int af_xdp_netdev_promisc_set(const struct af_xdp_netdev *nd, bool on)
{
	struct ifreq ifr = { 0 };
	int ret = nd_ioctl(nd, SIOCGIFFLAGS, &ifr);

	if (ret == 0) {
		if (on)
			ifr.ifr_flags = (short)(ifr.ifr_flags | IFF_PROMISC);
		else
			ifr.ifr_flags = (short)(ifr.ifr_flags & ~IFF_PROMISC);
		ret = nd_ioctl(nd, SIOCSIFFLAGS, &ifr);
	}
	if (ret < 0) {
		AF_XDP_LOG(ERR, "netdev %s: cannot turn promiscuous mode %s: %s", nd->name,
			   on ? "on" : "off", strerror(-ret));
		return dvp_err(-ret);
	}
	return 0;
}

int af_xdp_netdev_link_get(const struct af_xdp_netdev *nd, struct dvp_link *link)
{
	struct ethtool_cmd ecmd = { .cmd = ETHTOOL_GSET };
	struct ethtool_value carrier = { .cmd = ETHTOOL_GLINK };
	struct ifreq ifr = { 0 };
	bool up;
	uint32_t speed;
	int ret;

	memset(link, 0, sizeof(*link));
	ret = nd_ioctl(nd, SIOCGIFFLAGS, &ifr);
	if (ret < 0)
		return dvp_err(-ret);
	/*
	 * The carrier, as ethtool's "Link detected": frames flow when it is
	 * on. IFF_RUNNING is the operstate, which the kernel's link watch
	 * derives from it later and can leave behind: a veth whose carrier
	 * came on as it was set up has been seen DOWN for good with frames
	 * flowing. IFF_RUNNING only for a driver without ETHTOOL_GLINK.
	 */
	if (nd_ethtool(nd, &carrier) == 0)
		up = (ifr.ifr_flags & IFF_UP) && carrier.data != 0;
	else
		up = (ifr.ifr_flags & IFF_UP) && (ifr.ifr_flags & IFF_RUNNING);
	link->link_status = up ? DVP_LINK_UP : DVP_LINK_DOWN;
	link->link_duplex = DVP_LINK_FULL_DUPLEX;
	link->link_autoneg = DVP_LINK_FIXED;
	link->link_speed = DVP_LINK_SPEED_UNKNOWN;
	/* ETHTOOL_GSET still answers for every driver with link settings. */
	if (nd_ethtool(nd, &ecmd) == 0) {
		speed = ethtool_cmd_speed(&ecmd);
		if (speed != 0 && speed != (uint32_t)SPEED_UNKNOWN)
			link->link_speed = speed;
		link->link_duplex =
			ecmd.duplex == DUPLEX_HALF ? DVP_LINK_HALF_DUPLEX : DVP_LINK_FULL_DUPLEX;
		link->link_autoneg =
			ecmd.autoneg == AUTONEG_ENABLE ? DVP_LINK_AUTONEG : DVP_LINK_FIXED;
	}
	if (link->link_status == DVP_LINK_DOWN)
		link->link_speed = DVP_LINK_SPEED_NONE;
	return 0;
}

int af_xdp_netdev_queues(const struct af_xdp_netdev *nd)
{
	struct ethtool_channels ch = { .cmd = ETHTOOL_GCHANNELS };
	int ret = nd_ethtool(nd, &ch);

	if (ret < 0)
		return -ENOTSUP;
	return (int)DVP_MAX(ch.combined_count, ch.rx_count);
}

/* ------------------------------------------------------------------------
 * The link watch (EAL interrupt thread)
 */

/* What a netlink message says of @nd, as the event to report, or -1 for nothing. */
static int nl_event_of(const struct af_xdp_netdev *nd, const struct nlmsghdr *h)
{
	const struct ifinfomsg *ifi;

	if (h->nlmsg_type != RTM_NEWLINK && h->nlmsg_type != RTM_DELLINK)
		return -1;
	if (h->nlmsg_len < NLMSG_LENGTH(sizeof(*ifi)))
		return -1;
	ifi = NLMSG_DATA(h);
	if (ifi->ifi_index != nd->ifindex)
		return -1;
	return h->nlmsg_type == RTM_DELLINK ? AF_XDP_NETDEV_GONE : AF_XDP_NETDEV_LINK;
}

static void nl_read(int fd, void *arg)
{
	struct af_xdp_netdev *nd = arg;
	/* Netlink messages are 4-byte aligned in the buffer. */
	uint32_t buf[4096];
	bool link = false, gone = false;
	ssize_t n;

	for (;;) {
		size_t off = 0;

		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Messages lost to an overrun: read the link again anyway. */
			if (errno == ENOBUFS)
				link = true;
			break;
		}
		while (off + sizeof(struct nlmsghdr) <= (size_t)n) {
			const struct nlmsghdr *h = (const void *)((const char *)buf + off);
			int ev;

			if (h->nlmsg_len < sizeof(*h) || off + h->nlmsg_len > (size_t)n)
				break;
			ev = nl_event_of(nd, h);
			if (ev == AF_XDP_NETDEV_GONE)
				gone = true;
			else if (ev == AF_XDP_NETDEV_LINK)
				link = true;
			off += NLMSG_ALIGN(h->nlmsg_len);
		}
	}
	/* Gone wins: the link of a netdev that is no more is down. */
	if (gone)
		nd->cb(nd->cb_arg, AF_XDP_NETDEV_GONE);
	else if (link)
		nd->cb(nd->cb_arg, AF_XDP_NETDEV_LINK);
}

int af_xdp_netdev_watch_start(struct af_xdp_netdev *nd, af_xdp_netdev_cb cb, void *arg)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK, .nl_groups = RTMGRP_LINK };
	int fd, ret;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
		ret = -errno;
		AF_XDP_LOG(ERR, "netdev %s: cannot open a netlink socket for its link: %s",
			   nd->name, strerror(-ret));
		if (fd >= 0)
			close(fd);
		return dvp_err(-ret);
	}
	nd->nl_fd = fd;
	nd->cb = cb;
	nd->cb_arg = arg;
	ret = dvp_intr_callback_register(fd, nl_read, nd);
	if (ret < 0) {
		AF_XDP_LOG(ERR, "netdev %s: cannot watch its link on the interrupt thread: %s",
			   nd->name, dvp_strerror(-ret));
		close(fd);
		nd->nl_fd = -1;
		return ret;
	}
	return 0;
}

void af_xdp_netdev_watch_stop(struct af_xdp_netdev *nd)
{
	if (nd->nl_fd < 0)
		return;
	dvp_intr_callback_unregister(nd->nl_fd, nl_read, nd);
	close(nd->nl_fd);
	nd->nl_fd = -1;
}
