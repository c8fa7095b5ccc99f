/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The registry of buses and drivers, and the device list all buses share:
 * scanning, probing (vdevs first, since their probe may add devices to
 * other buses, then the allowed devices of the scanned buses to the driver
 * that matches best), lookup and removal.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvp_parse.h"
#include "eal_bus.h"

const char *dvp_sysfs_root(void)
{
	const char *r = getenv("DVP_SYSFS_ROOT");

	return r != NULL && *r != '\0' ? r : "/sys";
}

int dvp_sysfs_read_line(const char *path, char *buf, size_t size)
{
	FILE *f;
	bool ok;

	if (path == NULL || buf == NULL || size == 0) {
		EAL_LOG(ERR, "sysfs read line: %s",
			path == NULL ? "no path" :
			buf == NULL  ? "no buffer" :
				       "a buffer of 0 bytes");
		dvp_errno = EINVAL;
		return EINVAL;
	}
	/* fgets takes an int: a line longer than that is cut anyway. */
	if (size > INT_MAX)
		size = INT_MAX;
	f = fopen(path, "r");
	if (f == NULL)
		return errno;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return EIO;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

pthread_mutex_t eal_bus_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

static struct {
	struct dvp_bus *buses; /* registration order */
	struct dvp_driver *drivers; /* registration order */
	struct eal_dev *devs; /* creation order */
	const struct eal_cfg *cfg; /* allow and block lists */
	bool probed;
} bus;

void dvp_driver_register(struct dvp_driver *drv)
{
	struct dvp_driver **l;

	if (drv == NULL || drv->name == NULL || drv->probe == NULL) {
		EAL_LOG(ERR, "driver registration without a name or a probe function: ignored");
		return;
	}
	pthread_mutex_lock(&eal_bus_lock);
	for (l = &bus.drivers; *l != NULL; l = &(*l)->next) {
		if (*l == drv || strcmp((*l)->name, drv->name) == 0) {
			pthread_mutex_unlock(&eal_bus_lock);
			/* A plugin's: -d refuses the plugin and says why (eal_plugin.c). */
			if (eal_plugin_loading != NULL)
				eal_plugin_name_add(eal_plugin_loading->dups,
						    sizeof(eal_plugin_loading->dups),
						    &eal_plugin_loading->nb_dups, drv->name);
			else
				EAL_LOG(ERR, "driver %s is registered twice: the second is ignored",
					drv->name);
			return;
		}
	}
	drv->next = NULL;
	*l = drv;
	pthread_mutex_unlock(&eal_bus_lock);
	if (eal_plugin_loading != NULL)
		eal_plugin_name_add(eal_plugin_loading->drivers,
				    sizeof(eal_plugin_loading->drivers),
				    &eal_plugin_loading->nb_drivers, drv->name);
}

void dvp_bus_register(struct dvp_bus *b)
{
	struct dvp_bus **l;

	if (b == NULL || b->name == NULL || b->type == DVP_BUS_VDEV) {
		EAL_LOG(ERR,
			"bus registration without a name, or for the EAL's own vdev bus: ignored");
		return;
	}
	pthread_mutex_lock(&eal_bus_lock);
	for (l = &bus.buses; *l != NULL; l = &(*l)->next) {
		if (*l == b || (*l)->type == b->type) {
			pthread_mutex_unlock(&eal_bus_lock);
			/* A plugin carrying its own copy of a bus built in here. */
			EAL_LOG(WARNING, "bus %s is registered already: the second is not used",
				b->name);
			return;
		}
	}
	b->next = NULL;
	*l = b;
	pthread_mutex_unlock(&eal_bus_lock);
}

int eal_bus_resolve_arg(const char *opt, const char *arg, char **resolved)
{
	const struct dvp_bus *b;
	int ret = 0;

	*resolved = NULL;
	for (b = bus.buses; b != NULL && ret == 0 && *resolved == NULL; b = b->next)
		if (b->resolve_arg != NULL)
			ret = b->resolve_arg(opt, arg, resolved);
	return ret;
}

const struct dvp_driver *dvp_driver_find(const char *name)
{
	const struct dvp_driver *d;

	if (name == NULL)
		return NULL;
	pthread_mutex_lock(&eal_bus_lock);
	for (d = bus.drivers; d != NULL; d = d->next)
		if (strcmp(d->name, name) == 0)
			break;
	pthread_mutex_unlock(&eal_bus_lock);
	return d;
}

void dvp_driver_foreach(void (*fn)(const struct dvp_driver *drv, void *arg), void *arg)
{
	const struct dvp_driver *d;

	if (fn == NULL)
		return;
	pthread_mutex_lock(&eal_bus_lock);
	for (d = bus.drivers; d != NULL; d = d->next)
		fn(d, arg);
	pthread_mutex_unlock(&eal_bus_lock);
}

bool eal_bus_probed(void)
{
	return bus.probed;
}

struct eal_dev *eal_dev_find_locked(const char *name)
{
	struct eal_dev *d;

	for (d = bus.devs; d != NULL; d = d->next)
		if (strcmp(d->dev.name, name) == 0)
			return d;
	return NULL;
}

void eal_dev_link_locked(struct eal_dev *d)
{
	struct eal_dev **l;

	d->dev.devargs = d->devargs.name[0] ? &d->devargs : NULL;
	for (l = &bus.devs; *l != NULL; l = &(*l)->next)
		;
	d->next = NULL;
	*l = d;
}

void eal_dev_free_locked(struct eal_dev *d)
{
	struct eal_dev **l;

	for (l = &bus.devs; *l != NULL; l = &(*l)->next) {
		if (*l == d) {
			*l = d->next;
			break;
		}
	}
	dvp_devargs_free(&d->devargs);
	free(d->dev.ib);
	free(d);
}

/*
 * Remove device @p name; with @p added_only, only one a driver added to bus
 * @p type (dvp_bus_dev_remove()), else any (dvp_dev_remove()).
 */
static int dev_remove(const char *name, enum dvp_bus_type type, bool added_only)
{
	struct eal_dev *d;
	int ret;

	if (name == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&eal_bus_lock);
	d = eal_dev_find_locked(name);
	if (d == NULL || (added_only && d->dev.bus != type)) {
		pthread_mutex_unlock(&eal_bus_lock);
		/* Cleanup removes newest first, so a vdev may find the device it added gone. */
		if (added_only)
			EAL_LOG(DEBUG, "bus device remove: no such device %s", name);
		else
			EAL_LOG(ERR, "remove device %s: no such device", name);
		return dvp_err(ENOENT);
	}
	if (added_only && !d->sw) {
		pthread_mutex_unlock(&eal_bus_lock);
		EAL_LOG(ERR, "bus device remove: %s was found by a scan; use dvp_dev_remove()",
			name);
		return dvp_err(EINVAL);
	}
	ret = eal_dev_remove_locked(d);
	pthread_mutex_unlock(&eal_bus_lock);
	return ret;
}

int dvp_bus_dev_add(const struct dvp_bus_dev_info *info)
{
	struct eal_dev *d;
	int ret = 0;

	if (info == NULL || info->name == NULL || info->name[0] == '\0' ||
	    strlen(info->name) >= DVP_DEV_NAME_MAX_LEN || info->bus == DVP_BUS_VDEV) {
		EAL_LOG(ERR,
			"bus device add: a device needs a name of 1-%d characters and a bus other than vdev (dvp_vdev_create)",
			DVP_DEV_NAME_MAX_LEN - 1);
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&eal_bus_lock);
	if (eal_dev_find_locked(info->name) != NULL) {
		pthread_mutex_unlock(&eal_bus_lock);
		EAL_LOG(ERR, "bus device add: a device named %s exists already", info->name);
		return dvp_err(EEXIST);
	}
	d = calloc(1, sizeof(*d));
	if (d == NULL) {
		pthread_mutex_unlock(&eal_bus_lock);
		return dvp_err(ENOMEM);
	}
	snprintf(d->dev.name, sizeof(d->dev.name), "%s", info->name);
	d->dev.bus = info->bus;
	d->dev.numa_node = info->numa_node;
	d->dev.ib = info->ib;
	d->sw = info->sw;
	eal_dev_link_locked(d);
	if (bus.probed) {
		/* Added after init: offered now, and taken back if its driver fails. */
		ret = eal_dev_probe_locked(d);
		if (ret < 0) {
			d->dev.ib = NULL; /* the caller's again */
			eal_dev_free_locked(d);
		}
	}
	pthread_mutex_unlock(&eal_bus_lock);
	return ret;
}

int dvp_bus_dev_remove(enum dvp_bus_type type, const char *name)
{
	return dev_remove(name, type, true);
}

static bool in_list(const struct eal_strlist *l, const char *name, const char **entry)
{
	size_t len = strlen(name);
	unsigned int i;

	for (i = 0; i < l->n; i++) {
		if (strncmp(l->s[i], name, len) == 0 &&
		    (l->s[i][len] == '\0' || l->s[i][len] == ',')) {
			if (entry != NULL)
				*entry = l->s[i];
			return true;
		}
	}
	return false;
}

/* The ib driver that fits @p d best, or NULL. */
static const struct dvp_driver *ib_match(const struct eal_dev *d)
{
	const struct dvp_driver *drv, *best = NULL;
	int score, best_score = 0;

	for (drv = bus.drivers; drv != NULL; drv = drv->next) {
		if (drv->bus != DVP_BUS_IB || drv->match == NULL)
			continue;
		score = drv->match(&d->dev);
		if (score > best_score) {
			best = drv;
			best_score = score;
		}
	}
	return best;
}

static __dvp_cold int probe_failed(struct eal_dev *d, const struct dvp_driver *drv, int ret)
{
	EAL_LOG(ERR, "probe of %s device %s by driver %s failed: %s",
		d->dev.bus == DVP_BUS_IB ? "ib" : "virtual", d->dev.name, drv->name,
		dvp_strerror(ret));
	d->dev.driver = NULL;
	return dvp_err(-ret);
}

int eal_dev_probe_locked(struct eal_dev *d)
{
	const struct dvp_driver *drv = d->vdev_drv;
	int ret;

	if (d->dev.driver != NULL)
		return 0;
	if (d->dev.bus == DVP_BUS_IB) {
		drv = ib_match(d);
		if (drv == NULL) {
			/* net_verbs is not a bus driver: it opens the device from its vdev. */
			EAL_LOG(INFO,
				"ib device %s: no ib-bus driver claims it (a --vdev such as net_verbs,dev=%s may still use it)",
				d->dev.name, d->dev.name);
			return 0;
		}
		if (d->dev.devargs != NULL && dvp_devargs_check_keys(&d->devargs, drv->keys) < 0)
			return dvp_err(EINVAL);
	}
	d->dev.driver = drv;
	ret = drv->probe(&d->dev);
	if (ret < 0)
		return probe_failed(d, drv, ret);
	EAL_LOG(DEBUG, "device %s probed by driver %s", d->dev.name, drv->name);
	return 0;
}

int eal_dev_remove_locked(struct eal_dev *d)
{
	const struct dvp_driver *drv = d->dev.driver;
	int ret = 0;

	if (drv != NULL && drv->remove != NULL) {
		ret = drv->remove(&d->dev);
		if (ret < 0)
			EAL_LOG(ERR, "remove of device %s by driver %s failed: %s", d->dev.name,
				drv->name, dvp_strerror(ret));
	}
	d->dev.driver = NULL;
	eal_dev_free_locked(d);
	return ret < 0 ? dvp_err(-ret) : 0;
}

/* The next device of @p type not yet offered to a driver in this round. */
static struct eal_dev *next_untried(enum dvp_bus_type type)
{
	struct eal_dev *d;

	for (d = bus.devs; d != NULL; d = d->next)
		if (d->dev.bus == type && !d->tried && d->dev.driver == NULL)
			return d;
	return NULL;
}

/* Apply -a / -b to @p d; false when it must not be probed. */
static int ib_allowed(struct eal_dev *d, bool *explicit)
{
	const char *entry = NULL;
	int ret;

	*explicit = false;
	if (bus.cfg == NULL)
		return 1;
	if (in_list(&bus.cfg->block, d->dev.name, NULL)) {
		EAL_LOG(INFO, "ib device %s is blocked (-b)", d->dev.name);
		return 0;
	}
	if (bus.cfg->allow.n != 0 && !in_list(&bus.cfg->allow, d->dev.name, &entry))
		return 0;
	/* A scanned device is hardware (a PCI function) or rxe; drivers' own stay. */
	if (bus.cfg->no_pci && !d->sw) {
		if (entry != NULL)
			EAL_LOG(WARNING,
				"-a %s: not probed: --no-pci leaves the ib devices of the scan alone",
				d->dev.name);
		else
			EAL_LOG(INFO, "ib device %s is not probed (--no-pci)", d->dev.name);
		return 0;
	}
	if (bus.cfg->allow.n == 0)
		return 1;
	*explicit = true;
	if (d->devargs.name[0] == '\0') {
		ret = eal_devargs_parse_ctx("-a", entry, &d->devargs);
		if (ret < 0)
			return ret;
		d->dev.devargs = &d->devargs;
	}
	return 1;
}

int dvp_dev_probe_all(void)
{
	struct eal_dev *d;
	bool explicit;
	int ret, first = 0;

	if (!eal_is_initialised() && bus.cfg == NULL)
		return dvp_err(E_DVP_NO_INIT);
	pthread_mutex_lock(&eal_bus_lock);
	for (d = bus.devs; d != NULL; d = d->next)
		d->tried = false;
	/* Virtual devices were asked for by name: any failure is the caller's error. */
	while ((d = next_untried(DVP_BUS_VDEV)) != NULL) {
		d->tried = true;
		ret = eal_dev_probe_locked(d);
		if (ret < 0) {
			eal_dev_free_locked(d);
			first = first ? first : ret;
		}
	}
	while ((d = next_untried(DVP_BUS_IB)) != NULL) {
		d->tried = true;
		ret = ib_allowed(d, &explicit);
		if (ret <= 0) {
			first = first ? first : ret;
			continue;
		}
		ret = eal_dev_probe_locked(d);
		/* A device found by the scan is not worth failing for unless it was asked for. */
		if (ret < 0 && explicit)
			first = first ? first : ret;
	}
	pthread_mutex_unlock(&eal_bus_lock);
	return first < 0 ? dvp_err(-first) : 0;
}

struct dvp_device *dvp_dev_find(const char *name)
{
	struct eal_dev *d;

	if (name == NULL)
		return NULL;
	pthread_mutex_lock(&eal_bus_lock);
	d = eal_dev_find_locked(name);
	pthread_mutex_unlock(&eal_bus_lock);
	return d ? &d->dev : NULL;
}

void dvp_dev_foreach(void (*fn)(struct dvp_device *dev, void *arg), void *arg)
{
	struct eal_dev *d;

	if (fn == NULL)
		return;
	pthread_mutex_lock(&eal_bus_lock);
	for (d = bus.devs; d != NULL; d = d->next)
		fn(&d->dev, arg);
	pthread_mutex_unlock(&eal_bus_lock);
}

int dvp_dev_remove(const char *name)
{
	return dev_remove(name, DVP_BUS_VDEV, false);
}

struct attach_pick {
	const char *name;
	bool vdev;
};

static void attach_pick_vdev(const struct dvp_driver *drv, void *arg)
{
	struct attach_pick *p = arg;

	if (drv->bus == DVP_BUS_VDEV && strncmp(p->name, drv->name, strlen(drv->name)) == 0)
		p->vdev = true;
}

static void ib_names(struct dvp_device *dev, void *arg)
{
	char *list = arg;
	size_t off = strlen(list);

	if (dev->bus == DVP_BUS_IB && off < 200)
		snprintf(list + off, 256 - off, "%s%s", off ? ", " : "", dev->name);
}

int dvp_dev_attach(const char *devargs)
{
	char name[DVP_DEV_NAME_MAX_LEN], list[256] = "";
	struct attach_pick pick = { .name = name };
	struct eal_dev *d;
	int ret;

	if (devargs == NULL || devargs[0] == '\0' || devargs[0] == ',') {
		EAL_LOG(ERR,
			"attach: no device named: give a device and its devargs, e.g. sim_mlx5,ports=2 or mlx5_0,rxq_cqe_comp_en=0");
		return dvp_err(EINVAL);
	}
	if (!eal_is_initialised()) {
		EAL_LOG(ERR, "attach %s: the EAL is not initialised", devargs);
		return dvp_err(E_DVP_NO_INIT);
	}
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(devargs, ","), devargs);
	dvp_driver_foreach(attach_pick_vdev, &pick);
	if (pick.vdev)
		return dvp_vdev_create(devargs);

	pthread_mutex_lock(&eal_bus_lock);
	d = eal_dev_find_locked(name);
	if (d == NULL || d->dev.bus != DVP_BUS_IB) {
		pthread_mutex_unlock(&eal_bus_lock);
		dvp_dev_foreach(ib_names, list);
		EAL_LOG(ERR,
			"attach %s: %s is neither an ib device (found: %s) nor named after a virtual device driver (sim_mlx5, net_verbs, net_memif, net_ring ...)",
			devargs, name, list[0] ? list : "none");
		return dvp_err(ENODEV);
	}
	if (d->dev.driver != NULL) {
		pthread_mutex_unlock(&eal_bus_lock);
		EAL_LOG(ERR, "attach %s: ib device %s is attached already", devargs, name);
		return dvp_err(EEXIST);
	}
	dvp_devargs_free(&d->devargs);
	ret = eal_devargs_parse_ctx("attach", devargs, &d->devargs);
	if (ret == 0) {
		d->dev.devargs = &d->devargs;
		ret = eal_dev_probe_locked(d);
		if (ret == 0 && d->dev.driver == NULL) {
			EAL_LOG(ERR,
				"attach %s: no ib-bus driver takes ib device %s (net_verbs,dev=%s does, as a virtual device)",
				devargs, name, name);
			ret = dvp_err(ENODEV);
		}
	}
	pthread_mutex_unlock(&eal_bus_lock);
	return ret;
}

/* Whether some ib-bus driver takes devargs key @p key. */
static bool ib_key_known(const char *key)
{
	const struct dvp_driver *drv;
	const struct dvp_devargs_key *k;

	for (drv = bus.drivers; drv != NULL; drv = drv->next)
		for (k = drv->keys; drv->bus == DVP_BUS_IB && k != NULL && k->key != NULL; k++)
			if (strcmp(k->key, key) == 0)
				return true;
	return false;
}

/*
 * An -a naming no device is only a warning (the adapter may be elsewhere
 * or later), but its devargs are still checked: a key no ib driver takes
 * fails the init, as it would with the device present.
 */
static int allow_unmatched_check(void)
{
	char name[DVP_DEV_NAME_MAX_LEN];
	const struct dvp_driver *drv;
	struct dvp_devargs da;
	unsigned int i, k;
	bool ib_drivers = false;
	int ret = 0;

	/* Without an ib driver nothing would take the device: no keys to check against. */
	for (drv = bus.drivers; drv != NULL; drv = drv->next)
		ib_drivers |= drv->bus == DVP_BUS_IB;

	for (i = 0; i < bus.cfg->allow.n && ret == 0; i++) {
		const char *a = bus.cfg->allow.s[i];
		char pci[DVP_PCI_ADDR_LEN];

		snprintf(name, sizeof(name), "%.*s", (int)strcspn(a, ","), a);
		if (eal_dev_find_locked(name) != NULL)
			continue;
		/* A PCI address left as given had no ib device: -a said so already. */
		if (!dvp_pci_addr_parse(name, strlen(name), pci))
			EAL_LOG(WARNING, "-a %s: no ib device of this name was found", name);
		if (!ib_drivers || strchr(a, ',') == NULL)
			continue;
		if (dvp_devargs_parse(a, &da) != 0)
			return dvp_err(EINVAL); /* the parser logged why */
		for (k = 0; k < da.count; k++) {
			if (!ib_key_known(da.pairs[k].key)) {
				char drivers[128] = "";
				size_t off = 0;

				for (drv = bus.drivers; drv != NULL; drv = drv->next)
					if (drv->bus == DVP_BUS_IB && off < sizeof(drivers))
						off += (size_t)snprintf(
							drivers + off, sizeof(drivers) - off,
							"%s%s", off ? ", " : "", drv->name);
				EAL_LOG(ERR,
					"-a %s: unknown devargs key '%s': no ib driver (%s) takes it",
					a, da.pairs[k].key, off ? drivers : "none registered");
				ret = dvp_err(EINVAL);
				break;
			}
		}
		dvp_devargs_free(&da);
	}
	return ret;
}

int eal_bus_init(const struct eal_cfg *cfg)
{
	const struct dvp_bus *b;
	struct eal_dev *d;
	unsigned int i;
	int ret = 0;

	pthread_mutex_lock(&eal_bus_lock);
	bus.cfg = cfg;
	bus.probed = false;
	for (b = bus.buses; b != NULL && ret == 0; b = b->next)
		if (b->scan != NULL)
			ret = b->scan();
	for (i = 0; i < cfg->vdev.n && ret == 0; i++) {
		ret = eal_vdev_add_locked("--vdev", cfg->vdev.s[i], &d);
		/* A name given twice, or that no driver takes: the command line's. */
		if (ret == -EEXIST || ret == -ENODEV)
			ret = dvp_err(EINVAL);
	}
	/* Hosted, nothing is probed unasked: the host attaches what it is given. */
	if (ret == 0 && cfg->host == NULL)
		ret = dvp_dev_probe_all();
	if (ret == 0)
		ret = allow_unmatched_check();
	if (ret == 0)
		bus.probed = true;
	pthread_mutex_unlock(&eal_bus_lock);
	if (ret < 0)
		eal_bus_cleanup();
	/*
	 * A device of the command line (--vdev, -a) whose devargs were refused
	 * (a bad key or value, EINVAL after the driver's line) is the command
	 * line's fault: dvp_eal_init() reports it as E_DVP_BAD_ARG, so that
	 * programs exit as for any bad argument.
	 */
	return ret == -EINVAL ? -E_DVP_BAD_ARG : ret;
}

void eal_bus_cleanup(void)
{
	const struct dvp_bus *b;
	struct eal_dev *d;

	pthread_mutex_lock(&eal_bus_lock);
	/* Newest first: an ib device a vdev added goes before that vdev. */
	while (bus.devs != NULL) {
		for (d = bus.devs; d->next != NULL; d = d->next)
			;
		eal_dev_remove_locked(d);
	}
	for (b = bus.buses; b != NULL; b = b->next)
		if (b->cleanup != NULL)
			b->cleanup();
	bus.cfg = NULL;
	bus.probed = false;
	pthread_mutex_unlock(&eal_bus_lock);
}
