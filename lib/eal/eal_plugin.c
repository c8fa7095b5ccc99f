/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * -d: driver plugins, as DPDK loads them. A driver registers itself from a
 * constructor, so loading its shared object is all there is to it; each
 * load says which drivers it registered. A library that registers none (a
 * system library, DPDK's net_dvp plugin, a dvpmd library that is not a
 * driver), one already in the process (linked in, or given twice) and one
 * whose drivers are registered already (another copy of a driver) are
 * refused: a bad argument, with a line saying which. A refused library
 * stays loaded: its constructors ran, and what they registered may point
 * into it. A program with the EAL linked in statically cannot take a
 * plugin at all: the plugin would bring a second EAL (libdvp_eal.so) with
 * its own driver registry.
 */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "dvp_bus.h"
#include "eal_private.h"

static void list_driver(const struct dvp_driver *drv, void *arg)
{
	char *buf = arg;
	size_t off = strlen(buf);

	snprintf(buf + off, 256 - off, "%s%s", off ? ", " : "", drv->name);
}

/* Whether this EAL is a shared object: a plugin then shares it. */
static bool eal_is_shared(void)
{
	Dl_info info;
	const char *base;

	if (dladdr((void *)eal_plugin_load, &info) == 0 || info.dli_fname == NULL)
		return false;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	return strncmp(base, "libdvp_eal.so", 13) == 0;
}

struct plugin_of {
	const struct link_map *lm; /* the library's */
	struct eal_plugin *pl;
};

/* Collect the drivers whose struct lies in the library of pl->lm. */
static void driver_of(const struct dvp_driver *drv, void *arg)
{
	struct plugin_of *po = arg;
	struct link_map *lm = NULL;
	Dl_info info;

	if (dladdr1(drv, &info, (void **)&lm, RTLD_DL_LINKMAP) != 0 && lm == po->lm)
		eal_plugin_name_add(po->pl->drivers, sizeof(po->pl->drivers), &po->pl->nb_drivers,
				    drv->name);
}

struct eal_plugin *eal_plugin_loading;

void eal_plugin_name_add(char *buf, size_t len, unsigned int *n, const char *name)
{
	size_t off = strlen(buf);

	if (off < len)
		snprintf(buf + off, len - off, "%s%s", *n ? ", " : "", name);
	(*n)++;
}

/* A library in the process already (RTLD_NOLOAD found it): never loaded twice. */
static int refuse_loaded(const char *opt, const char *path, void *h)
{
	struct eal_plugin pl = { .path = path };
	struct plugin_of po = { .pl = &pl };

	if (dlinfo(h, RTLD_DI_LINKMAP, &po.lm) == 0)
		dvp_driver_foreach(driver_of, &po);
	dlclose(h);
	if (pl.nb_drivers != 0)
		EAL_LOG(ERR,
			"%s '%s': in this program already (linked in, or given before), with driver%s %s: give each driver once",
			opt, path, pl.nb_drivers > 1 ? "s" : "", pl.drivers);
	else
		EAL_LOG(ERR,
			"%s '%s': registers no dvp driver (a library this program has loaded already); expected a dvpmd driver's shared object, as libdvp_net_ring.so",
			opt, path);
	return dvp_err(EINVAL);
}

static int load_one(const char *opt, const char *path)
{
	struct eal_plugin pl = { .path = path };
	void *h;

	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (h != NULL)
		return refuse_loaded(opt, path, h);
	eal_plugin_loading = &pl;
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	eal_plugin_loading = NULL;
	if (h == NULL) {
		EAL_LOG(ERR, "%s '%s': cannot load it: %s", opt, path, dlerror());
		return dvp_err(EINVAL);
	}
	/* Never closed, even refused: its drivers and what else it registered stay. */
	if (pl.nb_dups != 0) {
		EAL_LOG(ERR,
			"%s '%s': driver%s %s %s in this program already (built in, or loaded by an earlier -d): give each driver once",
			opt, path, pl.nb_dups > 1 ? "s" : "", pl.dups,
			pl.nb_dups > 1 ? "are" : "is");
		return dvp_err(EINVAL);
	}
	if (pl.nb_drivers == 0) {
		EAL_LOG(ERR,
			"%s '%s': registers no dvp driver; expected a dvpmd driver's shared object, as libdvp_net_ring.so",
			opt, path);
		return dvp_err(EINVAL);
	}
	EAL_LOG(INFO, "%s %s: registered driver%s %s", opt, path, pl.nb_drivers > 1 ? "s" : "",
		pl.drivers);
	return 0;
}

/* Every "*.so" of @p dir, in name order, as DPDK loads a plugin directory. */
static int load_dir(const char *opt, const char *dir)
{
	struct dirent **list;
	char path[PATH_MAX];
	size_t len;
	int n, i, ret = 0, loaded = 0;

	n = scandir(dir, &list, NULL, alphasort);
	if (n < 0) {
		EAL_LOG(ERR, "%s '%s': cannot read the directory: %s", opt, dir,
			dvp_strerror(errno));
		return dvp_err(EINVAL);
	}
	for (i = 0; i < n; i++) {
		len = strlen(list[i]->d_name);
		if (ret == 0 && len > 3 && strcmp(list[i]->d_name + len - 3, ".so") == 0) {
			snprintf(path, sizeof(path), "%s/%s", dir, list[i]->d_name);
			ret = load_one(opt, path);
			loaded++;
		}
		free(list[i]);
	}
	free(list);
	if (loaded == 0)
		EAL_LOG(WARNING, "%s %s: no *.so in this directory: no driver loaded", opt, dir);
	return ret;
}

int eal_plugin_load(const char *opt, const char *path)
{
	char drivers[256] = "";
	struct stat st;

	if (*path == '\0' || stat(path, &st) != 0) {
		EAL_LOG(ERR,
			"%s '%s': %s; expected a driver's shared object or a directory of them",
			opt, path, *path ? dvp_strerror(errno) : "empty path");
		return dvp_err(EINVAL);
	}
	if (!eal_is_shared()) {
		dvp_driver_foreach(list_driver, drivers);
		EAL_LOG(WARNING,
			"%s %s: not loaded: this program has dvpmd linked in statically, with its drivers built in (%s)",
			opt, path, drivers[0] ? drivers : "none");
		return 0;
	}
	return S_ISDIR(st.st_mode) ? load_dir(opt, path) : load_one(opt, path);
}
