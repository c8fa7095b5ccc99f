/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The ib bus: RDMA devices as sysfs shows them (/sys/class/infiniband,
 * or $DVP_SYSFS_ROOT/class/infiniband for tests), joined by name with
 * libibverbs' device list, plus software devices that drivers add.
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

#include "dvp_parse.h"
#include "eal_bus.h"

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
	int n, i;

	pathf(path, sizeof(path), "%s/ports/%u/gid_attrs/ndevs/0", dir, port);
	if (read_line(path, out, len))
		return;
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
	struct eal_dev *d;

	if (strlen(name) >= DVP_DEV_NAME_MAX_LEN) {
		EAL_LOG(WARNING, "ib device name %s is too long: skipped", name);
		return 0;
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL)
		return dvp_err(ENOMEM);
	pathf(dir, sizeof(dir), "%s/%s", base, name);
	copy_str(d->ib.name, sizeof(d->ib.name), name);
	copy_str(d->dev.name, sizeof(d->dev.name), name);
	d->dev.bus = DVP_BUS_IB;
	read_provider(dir, name, d->ib.provider, sizeof(d->ib.provider));
	pathf(path, sizeof(path), "%s/device/numa_node", dir);
	d->ib.numa_node = read_line(path, line, sizeof(line)) ? atoi(line) : -1;
	pathf(path, sizeof(path), "%s/node_guid", dir);
	d->ib.node_guid = read_line(path, line, sizeof(line)) ? parse_guid(line) : 0;
	read_ports(dir, &d->ib);
	d->ib.ibv_dev = ibv_find(name);
	d->dev.numa_node = d->ib.numa_node;
	eal_dev_link_locked(d);
	EAL_LOG(DEBUG, "ib device %s: provider %s, node %d, %u port(s)%s", name, d->ib.provider,
		d->ib.numa_node, d->ib.nports, d->ib.ibv_dev ? "" : ", not known to libibverbs");
	return 0;
}

int eal_ib_scan(void)
{
	struct dirent **list;
	char base[PATH_MAX];
	int n, i, ret = 0;

	pathf(base, sizeof(base), "%s/class/infiniband", dvp_sysfs_root());
	n = scandir(base, &list, dir_filter, alphasort);
	if (n < 0) {
		EAL_LOG(DEBUG, "no %s (%s): no RDMA devices", base, dvp_strerror(errno));
		return 0;
	}
	/* A fake tree's devices are not libibverbs' (whose names may clash with them). */
	if (n > 0 && strcmp(dvp_sysfs_root(), "/sys") == 0) {
		ibv_list = ibv_get_device_list(NULL);
		if (ibv_list == NULL)
			EAL_LOG(WARNING, "libibverbs lists no devices (%s): sysfs shows %d",
				dvp_strerror(errno), n);
	}
	for (i = 0; i < n; i++) {
		if (ret == 0 && eal_dev_find_locked(list[i]->d_name) == NULL)
			ret = scan_one(base, list[i]->d_name);
		free(list[i]);
	}
	free(list);
	return ret;
}

void eal_ib_cleanup(void)
{
	if (ibv_list != NULL)
		ibv_free_device_list(ibv_list);
	ibv_list = NULL;
}

int dvp_ib_bus_add_device(const struct dvp_ib_device *info)
{
	struct eal_dev *d;
	int ret = 0;

	if (info == NULL || info->name[0] == '\0' ||
	    strnlen(info->name, sizeof(info->name)) == sizeof(info->name) ||
	    info->nports > DVP_IB_MAX_PORTS) {
		EAL_LOG(ERR,
			"ib bus add: a device needs a name of 1-%d characters and at most %d ports",
			DVP_DEV_NAME_MAX_LEN - 1, DVP_IB_MAX_PORTS);
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&eal_bus_lock);
	if (eal_dev_find_locked(info->name) != NULL) {
		pthread_mutex_unlock(&eal_bus_lock);
		EAL_LOG(ERR, "ib bus add: a device named %s exists already", info->name);
		return dvp_err(EEXIST);
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		pthread_mutex_unlock(&eal_bus_lock);
		return dvp_err(ENOMEM);
	}
	d->ib = *info;
	d->sw = true;
	copy_str(d->dev.name, sizeof(d->dev.name), info->name);
	d->dev.bus = DVP_BUS_IB;
	d->dev.numa_node = info->numa_node;
	eal_dev_link_locked(d);
	if (eal_bus_probed()) {
		/* Added after init: offered now, and taken back if its driver fails. */
		ret = eal_dev_probe_locked(d);
		if (ret < 0)
			eal_dev_free_locked(d);
	}
	pthread_mutex_unlock(&eal_bus_lock);
	return ret;
}

int dvp_ib_bus_remove_device(const char *name)
{
	struct eal_dev *d;
	int ret;

	if (name == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&eal_bus_lock);
	d = eal_dev_find_locked(name);
	if (d == NULL || d->dev.bus != DVP_BUS_IB) {
		pthread_mutex_unlock(&eal_bus_lock);
		/* Cleanup removes newest first, so a vdev may find its ib device gone. */
		EAL_LOG(DEBUG, "ib bus remove: no ib device %s", name);
		return dvp_err(ENOENT);
	}
	if (!d->sw) {
		pthread_mutex_unlock(&eal_bus_lock);
		EAL_LOG(ERR, "ib bus remove: %s is a hardware device; use dvp_dev_remove()", name);
		return dvp_err(EINVAL);
	}
	ret = eal_dev_remove_locked(d);
	pthread_mutex_unlock(&eal_bus_lock);
	return ret;
}

/* "[DDDD:]BB:DD.F" of @p len bytes at @p s as "dddd:bb:dd.f" in @p out (13 bytes). */
bool eal_pci_addr_parse(const char *s, size_t len, char out[EAL_PCI_ADDR_LEN])
{
	static const unsigned int max_digits[] = { 4, 2, 2, 1 },
				  max_val[] = { 0xffff, 0xff, 0x1f, 7 };
	static const char seps[] = { ':', ':', '.', '\0' };
	unsigned int v[4] = { 0 }, f = 0, nd = 0;
	size_t i;
	int d;

	/* Without a domain, the first field is the bus: shift the fields by one. */
	for (i = 0; i < len && s[i] != '.'; i++)
		f += s[i] == ':';
	if (f != 1 && f != 2)
		return false;
	f = f == 1 ? 1 : 0;
	for (i = 0; i <= len; i++) {
		if (i == len || s[i] == ':' || s[i] == '.') {
			if (f > 3 || nd == 0 || (i < len ? s[i] : '\0') != seps[f] ||
			    v[f] > max_val[f])
				return false;
			f++;
			nd = 0;
			continue;
		}
		d = dvp_parse_hex_digit(s[i]);
		if (d < 0 || f > 3 || ++nd > max_digits[f])
			return false;
		v[f] = v[f] << 4 | (unsigned int)d;
	}
	if (f != 4)
		return false;
	snprintf(out, EAL_PCI_ADDR_LEN, "%04x:%02x:%02x.%x", v[0], v[1], v[2], v[3]);
	return true;
}

int eal_ib_of_pci_arg(const char *opt, const char *arg, char **resolved)
{
	size_t nlen = strcspn(arg, ",");
	char addr[EAL_PCI_ADDR_LEN], dir[PATH_MAX];
	struct dirent **list;
	int n, i;

	*resolved = NULL;
	if (!eal_pci_addr_parse(arg, nlen, addr))
		return 0;
	pathf(dir, sizeof(dir), "%s/bus/pci/devices/%s/infiniband", dvp_sysfs_root(), addr);
	n = scandir(dir, &list, dir_filter, alphasort);
	if (n <= 0) {
		EAL_LOG(WARNING,
			"%s %.*s: PCI function %s has no ib device (no %s): nothing to probe", opt,
			(int)nlen, arg, addr, dir);
		if (n == 0)
			free(list);
		return 0;
	}
	/* One ib device per PCI function (mlx5 gives each function its own). */
	if (asprintf(resolved, "%s%s", list[0]->d_name, arg + nlen) < 0)
		*resolved = NULL;
	else
		EAL_LOG(INFO, "%s %.*s: PCI function %s is ib device %s", opt, (int)nlen, arg, addr,
			list[0]->d_name);
	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
	return *resolved != NULL ? 0 : dvp_err(ENOMEM);
}
