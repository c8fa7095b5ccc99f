/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The ib bus: RDMA devices as sysfs shows them (/sys/class/infiniband,
 * or $DVP_SYSFS_ROOT/class/infiniband for tests), joined by name with
 * libibverbs' device list, plus software devices that drivers add. It
 * registers with the EAL's bus registry; the EAL knows nothing of verbs.
 */

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include <dvp_errno.h>
#include <dvp_parse.h>

#include "bus_ib_private.h"

DVP_LOG_REGISTER(ib_bus_logtype, "bus.ib", NOTICE);

static struct ibv_device **ibv_list;

/* snprintf into a path; one place that accepts truncation (paths then fail to open). */
static __dvp_format_printf(3, 4) void pathf(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static void copy_str(char *dst, size_t len, const char *src)
{
	size_t n = strnlen(src, len - 1);

	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* First line of @p path without its newline; false when unreadable or empty. */
static bool read_line(const char *path, char *buf, size_t len)
{
	return dvp_sysfs_read_line(path, buf, len) == 0 && buf[0] != '\0';
}

static uint64_t parse_guid(const char *s)
{
	uint64_t v = 0;

	for (; *s; s++) {
		if (*s == ':')
			continue;
		if (!isxdigit((unsigned char)*s))
			return 0;
		v = v << 4 |
		    (uint64_t)(isdigit((unsigned char)*s) ? *s - '0' :
							    tolower((unsigned char)*s) - 'a' + 10);
	}
	return v;
}

static int dir_filter(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

static int num_filter(const struct dirent *e)
{
	return isdigit((unsigned char)e->d_name[0]);
}

static int num_sort(const struct dirent **a, const struct dirent **b)
{
	return atoi((*a)->d_name) - atoi((*b)->d_name);
}

/* The kernel driver behind the device ("mlx5_core" -> "mlx5"), else its name's stem. */
static void read_provider(const char *dir, const char *name, char *out, size_t len)
{
	char path[PATH_MAX], link[PATH_MAX];
	const char *base;
	ssize_t n;
	size_t l;

	pathf(path, sizeof(path), "%s/device/driver", dir);
	n = readlink(path, link, sizeof(link) - 1);
	if (n > 0) {
		link[n] = '\0';
		base = strrchr(link, '/');
		base = base ? base + 1 : link;
		copy_str(out, len, base);
		l = strlen(out);
		if (l > 5 && strcmp(out + l - 5, "_core") == 0)
			out[l - 5] = '\0';
		return;
	}
	/* No device link (software devices): the name without its index, rxe0 -> rxe. */
	copy_str(out, len, name);
	for (l = strlen(out); l > 1 && isdigit((unsigned char)out[l - 1]); l--)
		out[l - 1] = '\0';
	if (l > 1 && out[l - 1] == '_')
		out[l - 1] = '\0';
}

static void read_netdev(const char *dir, unsigned int port, char *out, size_t len)
{
	char path[PATH_MAX];
	struct dirent **list;
	int n, i, idx;

	/* The netdev behind the port's first GIDs (RoCE); none on InfiniBand. */
	for (idx = 0; idx < 4; idx++) {
		pathf(path, sizeof(path), "%s/ports/%u/gid_attrs/ndevs/%d", dir, port, idx);
		if (read_line(path, out, len))
			return;
	}
	out[0] = '\0';
	pathf(path, sizeof(path), "%s/device/net", dir);
	n = scandir(path, &list, dir_filter, alphasort);
	if (n <= 0)
		return;
	/* Port N of a multi-port function drives its Nth netdev. */
	if ((unsigned int)n >= port)
		copy_str(out, len, list[port - 1]->d_name);
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static void read_ports(const char *dir, struct dvp_ib_device *ib)
{
	char path[PATH_MAX], line[64];
	struct dvp_ib_port *p;
	struct dirent **list;
	int n, i;

	pathf(path, sizeof(path), "%s/ports", dir);
	n = scandir(path, &list, num_filter, num_sort);
	for (i = 0; i < n; i++) {
		if (ib->nports < DVP_IB_MAX_PORTS) {
			p = &ib->ports[ib->nports++];
			p->port_num = (uint8_t)atoi(list[i]->d_name);
			pathf(path, sizeof(path), "%s/ports/%u/state", dir, p->port_num);
			p->state = read_line(path, line, sizeof(line)) ? atoi(line) : 0;
			pathf(path, sizeof(path), "%s/ports/%u/link_layer", dir, p->port_num);
			if (!read_line(path, line, sizeof(line)))
				p->link_layer = IBV_LINK_LAYER_UNSPECIFIED;
			else if (strcmp(line, "Ethernet") == 0)
				p->link_layer = IBV_LINK_LAYER_ETHERNET;
			else if (strcmp(line, "InfiniBand") == 0)
				p->link_layer = IBV_LINK_LAYER_INFINIBAND;
			else
				p->link_layer = IBV_LINK_LAYER_UNSPECIFIED;
			read_netdev(dir, p->port_num, p->netdev, sizeof(p->netdev));
		}
		free(list[i]);
	}
	if (n > 0)
		free(list);
}

static struct ibv_device *ibv_find(const char *name)
{
	int i;

	for (i = 0; ibv_list != NULL && ibv_list[i] != NULL; i++)
		if (strcmp(ibv_get_device_name(ibv_list[i]), name) == 0)
			return ibv_list[i];
	return NULL;
}

static int scan_one(const char *base, const char *name)
{
	char dir[PATH_MAX], path[PATH_MAX], line[64];
	struct dvp_ib_device *ib;
	int ret;

	if (strlen(name) >= DVP_DEV_NAME_MAX_LEN) {
		IB_BUS_LOG(WARNING, "ib device name %s is too long: skipped", name);
		return 0;
	}
	ib = calloc(1, sizeof(*ib));
	if (ib == NULL)
		return dvp_err(ENOMEM);
	pathf(dir, sizeof(dir), "%s/%s", base, name);
	copy_str(ib->name, sizeof(ib->name), name);
	read_provider(dir, name, ib->provider, sizeof(ib->provider));
	pathf(path, sizeof(path), "%s/device/numa_node", dir);
	ib->numa_node = read_line(path, line, sizeof(line)) ? atoi(line) : -1;
	pathf(path, sizeof(path), "%s/node_guid", dir);
	ib->node_guid = read_line(path, line, sizeof(line)) ? parse_guid(line) : 0;
	read_ports(dir, ib);
	ib->ibv_dev = ibv_find(name);
	IB_BUS_LOG(DEBUG, "ib device %s: provider %s, node %d, %u port(s)%s", name, ib->provider,
		   ib->numa_node, ib->nports, ib->ibv_dev ? "" : ", not known to libibverbs");
	ret = dvp_bus_dev_add(&(struct dvp_bus_dev_info){
		.name = name, .bus = DVP_BUS_IB, .numa_node = ib->numa_node, .ib = ib });
	if (ret < 0)
		free(ib);
	return ret;
}

static int ib_scan(void)
{
	struct dirent **list;
	char base[PATH_MAX];
	int n, i, ret = 0;

	pathf(base, sizeof(base), "%s/class/infiniband", dvp_sysfs_root());
	n = scandir(base, &list, dir_filter, alphasort);
	if (n < 0) {
		IB_BUS_LOG(DEBUG, "no %s (%s): no RDMA devices", base, dvp_strerror(errno));
		return 0;
	}
	/* A fake tree's devices are not libibverbs' (whose names may clash with them). */
	if (n > 0 && strcmp(dvp_sysfs_root(), "/sys") == 0) {
		ibv_list = ibv_get_device_list(NULL);
		if (ibv_list == NULL)
			IB_BUS_LOG(WARNING, "libibverbs lists no devices (%s): sysfs shows %d",
				   dvp_strerror(errno), n);
	}
	for (i = 0; i < n; i++) {
		if (ret == 0 && dvp_dev_find(list[i]->d_name) == NULL)
			ret = scan_one(base, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return ret;
}

static void ib_cleanup(void)
{
	if (ibv_list != NULL)
		ibv_free_device_list(ibv_list);
	ibv_list = NULL;
}

int dvp_ib_bus_add_device(const struct dvp_ib_device *info)
{
	struct dvp_ib_device *ib;
	int ret;

	if (info == NULL || info->name[0] == '\0' ||
	    strnlen(info->name, sizeof(info->name)) == sizeof(info->name) ||
	    info->nports > DVP_IB_MAX_PORTS) {
		IB_BUS_LOG(
			ERR,
			"ib bus add: a device needs a name of 1-%d characters and at most %d ports",
			DVP_DEV_NAME_MAX_LEN - 1, DVP_IB_MAX_PORTS);
		return dvp_err(EINVAL);
	}
	ib = malloc(sizeof(*ib));
	if (ib == NULL)
		return dvp_err(ENOMEM);
	*ib = *info;
	ret = dvp_bus_dev_add(&(struct dvp_bus_dev_info){ .name = ib->name,
							  .bus = DVP_BUS_IB,
							  .numa_node = ib->numa_node,
							  .ib = ib,
							  .sw = true });
	if (ret < 0)
		free(ib);
	return ret;
}

int dvp_ib_bus_remove_device(const char *name)
{
	return dvp_bus_dev_remove(DVP_BUS_IB, name);
}

const struct dvp_ib_device *dvp_ib_device_of(const struct dvp_device *dev)
{
	return dev != NULL && dev->bus == DVP_BUS_IB ? dev->ib : NULL;
}

const struct dvp_ib_device *dvp_ib_device_find(const char *name)
{
	return dvp_ib_device_of(dvp_dev_find(name));
}

const char *dvp_ib_port_state_name(int state)
{
	switch (state) {
	case IBV_PORT_DOWN:
		return "down";
	case IBV_PORT_INIT:
		return "init";
	case IBV_PORT_ARMED:
		return "armed";
	case IBV_PORT_ACTIVE:
		return "active";
	case IBV_PORT_ACTIVE_DEFER:
		return "active defer";
	default:
		return "unknown";
	}
}

const char *dvp_ib_link_layer_name(int link_layer)
{
	switch (link_layer) {
	case IBV_LINK_LAYER_INFINIBAND:
		return "InfiniBand";
	case IBV_LINK_LAYER_ETHERNET:
		return "Ethernet";
	default:
		return "unspecified";
	}
}

/* -a and -b name a PCI function by its address: its ib device is the one probed. */
static int ib_resolve_arg(const char *opt, const char *arg, char **resolved)
{
	size_t nlen = strcspn(arg, ",");
	char addr[DVP_PCI_ADDR_LEN], dir[PATH_MAX];
	struct dirent **list;
	int n, i;

	*resolved = NULL;
	if (!dvp_pci_addr_parse(arg, nlen, addr))
		return 0;
	pathf(dir, sizeof(dir), "%s/bus/pci/devices/%s/infiniband", dvp_sysfs_root(), addr);
	n = scandir(dir, &list, dir_filter, alphasort);
	if (n <= 0) {
		IB_BUS_LOG(WARNING,
			   "%s %.*s: PCI function %s has no ib device (no %s): nothing to probe",
			   opt, (int)nlen, arg, addr, dir);
		if (n == 0)
			free(list);
		return 0;
	}
	/* One ib device per PCI function (mlx5 gives each function its own). */
	if (asprintf(resolved, "%s%s", list[0]->d_name, arg + nlen) < 0)
		*resolved = NULL;
	else
		IB_BUS_LOG(INFO, "%s %.*s: PCI function %s is ib device %s", opt, (int)nlen, arg,
			   addr, list[0]->d_name);
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return *resolved != NULL ? 0 : dvp_err(ENOMEM);
}

static struct dvp_bus ib_bus = {
	.name = "ib",
	.type = DVP_BUS_IB,
	.scan = ib_scan,
	.cleanup = ib_cleanup,
	.resolve_arg = ib_resolve_arg,
};

DVP_BUS_REGISTER(ib, ib_bus);
