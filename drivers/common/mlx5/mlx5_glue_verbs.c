/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The glue table over rdma-core: each entry is the libibverbs or libmlx5
 * call itself, or a function making that call where the header makes the
 * name a macro. The few that are not one call (the netdev of a port) read
 * sysfs the way the kernel lays it out.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/netlink.h>
#include <linux/rtnetlink.h>

#include <dvp_bus.h>
#include <dvp_log.h>
#include <dvp_parse.h>

#include "mlx5_glue.h"

DVP_LOG_REGISTER(mlx5_common_logtype, "pmd.common.mlx5", NOTICE);

#define GLUE_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, mlx5_common_logtype, "mlx5 glue: ", fmt, ##__VA_ARGS__)

/* Macros in the header (over __ibv_get_device_list, ibv_reg_mr_iova2, a compat symbol). */
static struct ibv_device **glue_get_device_list(int *num_devices)
{
	return ibv_get_device_list(num_devices);
}

static int glue_query_port(struct ibv_context *context, uint8_t port_num,
			   struct ibv_port_attr *attr)
{
	return ibv_query_port(context, port_num, attr);
}

static struct ibv_mr *glue_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr(pd, addr, length, access);
}

static void copy_name(char *dst, size_t size, const char *src)
{
	size_t n = strnlen(src, size - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/*
 * The netdev of an mlx5 port: a RoCE port names it in its GID attributes;
 * otherwise the PCI function's net/ folder holds one netdev per port, told
 * apart by dev_port (0-based).
 */
static int port_ifname(const char *ibdev, uint8_t port_num, char *ifname)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	DIR *dir;
	int ret = ENODEV;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/gid_attrs/ndevs/0",
		 dvp_sysfs_root(), ibdev, port_num);
	if (dvp_sysfs_read_line(path, buf, sizeof(buf)) == 0 && buf[0] != '\0') {
		copy_name(ifname, IF_NAMESIZE, buf);
		return 0;
	}
	snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net", dvp_sysfs_root(), ibdev);
	dir = opendir(path);
	if (dir == NULL)
		return errno;
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/class/infiniband/%s/device/net/%s/dev_port",
			 dvp_sysfs_root(), ibdev, de->d_name);
		if (dvp_sysfs_read_line(path, buf, sizeof(buf)) != 0 ||
		    strtoul(buf, NULL, 0) != (unsigned long)(port_num - 1))
			continue;
		copy_name(ifname, IF_NAMESIZE, de->d_name);
		ret = 0;
		break;
	}
	closedir(dir);
	return ret;
}

/*
 * The netdev's maxmtu (IFLA_MAX_MTU), which sysfs does not show: one
 * RTM_GETLINK over a netlink socket. @return it, or 0 when not told.
 */
static uint32_t netdev_max_mtu(const char *ifname)
{
	struct {
		struct nlmsghdr nh;
		struct ifinfomsg ifi;
	} req = {
		.nh = { .nlmsg_len = NLMSG_LENGTH(sizeof(struct ifinfomsg)),
			.nlmsg_type = RTM_GETLINK,
			.nlmsg_flags = NLM_F_REQUEST,
			.nlmsg_seq = 1 },
		.ifi = { .ifi_family = AF_UNSPEC },
	};
	char buf[16384];
	uint32_t max_mtu = 0;
	ssize_t n;
	int fd;

	req.ifi.ifi_index = (int)if_nametoindex(ifname);
	if (req.ifi.ifi_index == 0)
		return 0;
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (fd < 0)
		return 0;
	if (send(fd, &req, req.nh.nlmsg_len, 0) == (ssize_t)req.nh.nlmsg_len &&
	    (n = recv(fd, buf, sizeof(buf), 0)) > 0) {
		const struct nlmsghdr *nh = (const void *)buf;

		if (NLMSG_OK(nh, (unsigned int)n) && nh->nlmsg_type == RTM_NEWLINK) {
			const struct ifinfomsg *ifi = NLMSG_DATA(nh);
			int len = (int)IFLA_PAYLOAD(nh);

			for (const struct rtattr *a = IFLA_RTA(ifi); RTA_OK(a, len);
			     a = RTA_NEXT(a, len))
				if (a->rta_type == IFLA_MAX_MTU &&
				    RTA_PAYLOAD(a) >= sizeof(uint32_t))
					memcpy(&max_mtu, RTA_DATA(a), sizeof(max_mtu));
		}
	}
	close(fd);
	return max_mtu;
}

static int glue_get_port_net(struct ibv_context *context, uint8_t port_num,
			     struct mlx5_glue_port_net *net)
{
	const char *ibdev = ibv_get_device_name(context->device);
	char path[PATH_MAX], buf[64];
	unsigned int m[6];
	int ret;

	memset(net, 0, sizeof(*net));
	ret = port_ifname(ibdev, port_num, net->ifname);
	if (ret != 0) {
		GLUE_LOG(ERR, "%s port %u: no Ethernet netdev found in sysfs (%s)", ibdev, port_num,
			 strerror(ret));
		return ret;
	}
	snprintf(path, sizeof(path), "%s/class/net/%s/address", dvp_sysfs_root(), net->ifname);
	ret = dvp_sysfs_read_line(path, buf, sizeof(buf));
	if (ret != 0 ||
	    sscanf(buf, "%x:%x:%x:%x:%x:%x", &m[0], &m[1], &m[2], &m[3], &m[4], &m[5]) != 6) {
		GLUE_LOG(ERR, "%s port %u: cannot read the MAC address of %s", ibdev, port_num,
			 net->ifname);
		return ret != 0 ? ret : EIO;
	}
	for (unsigned int i = 0; i < 6; i++)
		net->mac[i] = (uint8_t)m[i];
	snprintf(path, sizeof(path), "%s/class/net/%s/mtu", dvp_sysfs_root(), net->ifname);
	if (dvp_sysfs_read_line(path, buf, sizeof(buf)) == 0)
		net->mtu = (uint32_t)strtoul(buf, NULL, 10);
	net->max_mtu = netdev_max_mtu(net->ifname);
	/* operstate "up" is carrier and RUNNING, which PORT_ACTIVE does not promise. */
	snprintf(path, sizeof(path), "%s/class/net/%s/operstate", dvp_sysfs_root(), net->ifname);
	net->link_up = dvp_sysfs_read_line(path, buf, sizeof(buf)) == 0 && strcmp(buf, "up") == 0;
	snprintf(path, sizeof(path), "%s/class/net/%s/speed", dvp_sysfs_root(), net->ifname);
	if (net->link_up && dvp_sysfs_read_line(path, buf, sizeof(buf)) == 0 && buf[0] != '-')
		net->speed_mbps = (uint32_t)strtoul(buf, NULL, 10);
	return 0;
}

static int glue_set_port_mtu(struct ibv_context *context, uint8_t port_num, uint32_t mtu)
{
	const char *ibdev = ibv_get_device_name(context->device);
	struct ifreq ifr = { .ifr_mtu = (int)mtu };
	int fd, ret = 0;

	ret = port_ifname(ibdev, port_num, ifr.ifr_name);
	if (ret != 0)
		return ret;
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return errno;
	if (ioctl(fd, SIOCSIFMTU, &ifr) != 0) {
		ret = errno;
		GLUE_LOG(ERR, "%s port %u: cannot set the MTU of %s to %u: %s%s", ibdev, port_num,
			 ifr.ifr_name, mtu, strerror(ret),
			 ret == EPERM ? " (it needs CAP_NET_ADMIN)" : "");
	}
	close(fd);
	return ret;
}

static int glue_port_rx_length_errors(struct ibv_context *context, uint8_t port_num,
				      uint64_t *count)
{
	const char *ibdev = ibv_get_device_name(context->device);
	char ifname[IF_NAMESIZE], path[PATH_MAX], buf[32];
	int ret = port_ifname(ibdev, port_num, ifname);

	if (ret != 0)
		return ret;
	snprintf(path, sizeof(path), "%s/class/net/%s/statistics/rx_length_errors",
		 dvp_sysfs_root(), ifname);
	ret = dvp_sysfs_read_line(path, buf, sizeof(buf));
	if (ret != 0)
		return ret == ENOENT ? ENOTSUP : ret;
	return dvp_parse_u64(buf, 0, UINT64_MAX, count) == 0 ? 0 : EIO;
}

static int glue_port_out_of_buffer(struct ibv_context *context, uint8_t port_num, uint64_t *count)
{
	const char *ibdev = ibv_get_device_name(context->device);
	char path[PATH_MAX], buf[32];
	int ret;

	snprintf(path, sizeof(path), "%s/class/infiniband/%s/ports/%u/hw_counters/out_of_buffer",
		 dvp_sysfs_root(), ibdev, port_num);
	ret = dvp_sysfs_read_line(path, buf, sizeof(buf));
	if (ret != 0)
		return ret == ENOENT ? ENOTSUP : ret;
	return dvp_parse_u64(buf, 0, UINT64_MAX, count) == 0 ? 0 : EIO;
}

/*
 * A real device's counters beyond out_of_buffer (its netdev's physical
 * counters would be the next to show): none yet.
 */
static unsigned int glue_port_counters(struct ibv_context *context, uint8_t port_num,
				       const char **names, uint64_t *values, unsigned int n)
{
	(void)context;
	(void)port_num;
	(void)names;
	(void)values;
	(void)n;
	return 0;
}

const struct mlx5_glue mlx5_glue_verbs = {
	.name = "verbs",
	.get_device_list = glue_get_device_list,
	.free_device_list = ibv_free_device_list,
	.get_device_name = ibv_get_device_name,
	.dv_is_supported = mlx5dv_is_supported,
	.open_device = ibv_open_device,
	.dv_open_device = mlx5dv_open_device,
	.close_device = ibv_close_device,
	.query_device = ibv_query_device,
	.query_device_ex = ibv_query_device_ex,
	.dv_query_device = mlx5dv_query_device,
	.dv_devx_general_cmd = mlx5dv_devx_general_cmd,
	.query_port = glue_query_port,
	.port_state_str = ibv_port_state_str,
	.get_port_net = glue_get_port_net,
	.port_out_of_buffer = glue_port_out_of_buffer,
	.port_rx_length_errors = glue_port_rx_length_errors,
	.set_port_mtu = glue_set_port_mtu,
	.port_counters = glue_port_counters,
	.alloc_pd = ibv_alloc_pd,
	.dealloc_pd = ibv_dealloc_pd,
	.reg_mr = glue_reg_mr,
	.dereg_mr = ibv_dereg_mr,
	.create_comp_channel = ibv_create_comp_channel,
	.destroy_comp_channel = ibv_destroy_comp_channel,
	.create_cq = ibv_create_cq,
	.dv_create_cq = mlx5dv_create_cq,
	.destroy_cq = ibv_destroy_cq,
	.get_cq_event = ibv_get_cq_event,
	.ack_cq_events = ibv_ack_cq_events,
	.create_wq = ibv_create_wq,
	.modify_wq = ibv_modify_wq,
	.destroy_wq = ibv_destroy_wq,
	.dv_create_wq = mlx5dv_create_wq,
	.create_rwq_ind_table = ibv_create_rwq_ind_table,
	.destroy_rwq_ind_table = ibv_destroy_rwq_ind_table,
	.create_qp_ex = ibv_create_qp_ex,
	.modify_qp = ibv_modify_qp,
	.destroy_qp = ibv_destroy_qp,
	.create_flow = ibv_create_flow,
	.destroy_flow = ibv_destroy_flow,
	.create_counters = ibv_create_counters,
	.destroy_counters = ibv_destroy_counters,
	.attach_counters_point_flow = ibv_attach_counters_point_flow,
	.read_counters = ibv_read_counters,
	.dv_create_flow_matcher = mlx5dv_create_flow_matcher,
	.dv_destroy_flow_matcher = mlx5dv_destroy_flow_matcher,
	.dv_create_flow = mlx5dv_create_flow,
	.dv_set_context_attr = mlx5dv_set_context_attr,
	.dv_init_obj = mlx5dv_init_obj,
	.get_async_event = ibv_get_async_event,
	.ack_async_event = ibv_ack_async_event,
	.query_rt_values_ex = ibv_query_rt_values_ex,
};
