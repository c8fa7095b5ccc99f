/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The glue table over rdma-core: each entry is the libibverbs or libmlx5
 * call it names. The few that are not one call (the netdev of a port) read
 * sysfs the way the kernel lays it out.
 */

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_bus.h>
#include <dvp_log.h>
#include <dvp_parse.h>

#include "mlx5_glue.h"

DVP_LOG_REGISTER(mlx5_common_logtype, "pmd.common.mlx5", NOTICE);

#define GLUE_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, mlx5_common_logtype, "mlx5 glue: ", fmt, ##__VA_ARGS__)

static struct ibv_device **glue_get_device_list(int *num_devices)
{
	return ibv_get_device_list(num_devices);
}

static void glue_free_device_list(struct ibv_device **list)
{
	ibv_free_device_list(list);
}

static const char *glue_get_device_name(struct ibv_device *device)
{
	return ibv_get_device_name(device);
}

static bool glue_dv_is_supported(struct ibv_device *device)
{
	return mlx5dv_is_supported(device);
}

static struct ibv_context *glue_open_device(struct ibv_device *device)
{
	return ibv_open_device(device);
}

static int glue_close_device(struct ibv_context *context)
{
	return ibv_close_device(context);
}

static int glue_query_device(struct ibv_context *context, struct ibv_device_attr *attr)
{
	return ibv_query_device(context, attr);
}

static int glue_query_device_ex(struct ibv_context *context,
				const struct ibv_query_device_ex_input *input,
				struct ibv_device_attr_ex *attr)
{
	return ibv_query_device_ex(context, input, attr);
}

static int glue_dv_query_device(struct ibv_context *context, struct mlx5dv_context *attr)
{
	return mlx5dv_query_device(context, attr);
}

static int glue_query_port(struct ibv_context *context, uint8_t port_num,
			   struct ibv_port_attr *attr)
{
	return ibv_query_port(context, port_num, attr);
}

static const char *glue_port_state_str(enum ibv_port_state state)
{
	return ibv_port_state_str(state);
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
	/* operstate "up" is carrier and RUNNING, which PORT_ACTIVE does not promise. */
	snprintf(path, sizeof(path), "%s/class/net/%s/operstate", dvp_sysfs_root(), net->ifname);
	net->link_up = dvp_sysfs_read_line(path, buf, sizeof(buf)) == 0 && strcmp(buf, "up") == 0;
	snprintf(path, sizeof(path), "%s/class/net/%s/speed", dvp_sysfs_root(), net->ifname);
	if (net->link_up && dvp_sysfs_read_line(path, buf, sizeof(buf)) == 0 && buf[0] != '-')
		net->speed_mbps = (uint32_t)strtoul(buf, NULL, 10);
	return 0;
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

static struct ibv_pd *glue_alloc_pd(struct ibv_context *context)
{
	return ibv_alloc_pd(context);
}

static int glue_dealloc_pd(struct ibv_pd *pd)
{
	return ibv_dealloc_pd(pd);
}

static struct ibv_mr *glue_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access)
{
	return ibv_reg_mr(pd, addr, length, access);
}

static int glue_dereg_mr(struct ibv_mr *mr)
{
	return ibv_dereg_mr(mr);
}

static struct ibv_comp_channel *glue_create_comp_channel(struct ibv_context *context)
{
	return ibv_create_comp_channel(context);
}

static int glue_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	return ibv_destroy_comp_channel(channel);
}

static struct ibv_cq *glue_create_cq(struct ibv_context *context, int cqe, void *cq_context,
				     struct ibv_comp_channel *channel, int comp_vector)
{
	return ibv_create_cq(context, cqe, cq_context, channel, comp_vector);
}

static int glue_destroy_cq(struct ibv_cq *cq)
{
	return ibv_destroy_cq(cq);
}

static int glue_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			     void **cq_context)
{
	return ibv_get_cq_event(channel, cq, cq_context);
}

static void glue_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	ibv_ack_cq_events(cq, nevents);
}

static struct ibv_wq *glue_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr)
{
	return ibv_create_wq(context, attr);
}

static int glue_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr)
{
	return ibv_modify_wq(wq, attr);
}

static int glue_destroy_wq(struct ibv_wq *wq)
{
	return ibv_destroy_wq(wq);
}

static struct ibv_rwq_ind_table *glue_create_rwq_ind_table(struct ibv_context *context,
							   struct ibv_rwq_ind_table_init_attr *attr)
{
	return ibv_create_rwq_ind_table(context, attr);
}

static int glue_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table)
{
	return ibv_destroy_rwq_ind_table(table);
}

static struct ibv_qp *glue_create_qp_ex(struct ibv_context *context,
					struct ibv_qp_init_attr_ex *attr)
{
	return ibv_create_qp_ex(context, attr);
}

static int glue_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask)
{
	return ibv_modify_qp(qp, attr, attr_mask);
}

static int glue_destroy_qp(struct ibv_qp *qp)
{
	return ibv_destroy_qp(qp);
}

static struct ibv_flow *glue_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr)
{
	return ibv_create_flow(qp, attr);
}

static int glue_destroy_flow(struct ibv_flow *flow)
{
	return ibv_destroy_flow(flow);
}

static int glue_dv_set_context_attr(struct ibv_context *context, enum mlx5dv_set_ctx_attr_type type,
				    void *attr)
{
	return mlx5dv_set_context_attr(context, type, attr);
}

static int glue_dv_init_obj(struct mlx5dv_obj *obj, uint64_t obj_type)
{
	return mlx5dv_init_obj(obj, obj_type);
}

static int glue_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	return ibv_get_async_event(context, event);
}

static void glue_ack_async_event(struct ibv_async_event *event)
{
	ibv_ack_async_event(event);
}

const struct mlx5_glue mlx5_glue_verbs = {
	.name = "verbs",
	.get_device_list = glue_get_device_list,
	.free_device_list = glue_free_device_list,
	.get_device_name = glue_get_device_name,
	.dv_is_supported = glue_dv_is_supported,
	.open_device = glue_open_device,
	.close_device = glue_close_device,
	.query_device = glue_query_device,
	.query_device_ex = glue_query_device_ex,
	.dv_query_device = glue_dv_query_device,
	.query_port = glue_query_port,
	.port_state_str = glue_port_state_str,
	.get_port_net = glue_get_port_net,
	.port_out_of_buffer = glue_port_out_of_buffer,
	.alloc_pd = glue_alloc_pd,
	.dealloc_pd = glue_dealloc_pd,
	.reg_mr = glue_reg_mr,
	.dereg_mr = glue_dereg_mr,
	.create_comp_channel = glue_create_comp_channel,
	.destroy_comp_channel = glue_destroy_comp_channel,
	.create_cq = glue_create_cq,
	.destroy_cq = glue_destroy_cq,
	.get_cq_event = glue_get_cq_event,
	.ack_cq_events = glue_ack_cq_events,
	.create_wq = glue_create_wq,
	.modify_wq = glue_modify_wq,
	.destroy_wq = glue_destroy_wq,
	.create_rwq_ind_table = glue_create_rwq_ind_table,
	.destroy_rwq_ind_table = glue_destroy_rwq_ind_table,
	.create_qp_ex = glue_create_qp_ex,
	.modify_qp = glue_modify_qp,
	.destroy_qp = glue_destroy_qp,
	.create_flow = glue_create_flow,
	.destroy_flow = glue_destroy_flow,
	.dv_set_context_attr = glue_dv_set_context_attr,
	.dv_init_obj = glue_dv_init_obj,
	.get_async_event = glue_get_async_event,
	.ack_async_event = glue_ack_async_event,
};
