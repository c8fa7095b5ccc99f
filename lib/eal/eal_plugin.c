/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * -d: driver plugins, as DPDK loads them. A driver registers itself from a
 * constructor, so loading its shared object is all there is to it. A
 * program with the EAL linked in statically cannot take one: the plugin
 * would bring a second EAL (libdvp_eal.so) with its own driver registry.
 */

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
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

static int load_one(const char *opt, const char *path)
{
	void *h;

	/* Already in the process (linked in as a shared object): nothing to do. */
	h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
	if (h != NULL) {
		EAL_LOG(DEBUG, "%s %s: loaded already", opt, path);
		dlclose(h);
		return 0;
	}
	eal_plugin_loading = path;
	h = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	eal_plugin_loading = NULL;
	if (h == NULL) {
		EAL_LOG(ERR, "%s '%s': cannot load it: %s", opt, path, dlerror());
		return dvp_err(EINVAL);
	}
	/* Never closed: its drivers stay registered for the process's life. */
	EAL_LOG(DEBUG, "%s %s: loaded", opt, path);
	return 0;
}

/* Every "*.so" of @p dir, in name order, as DPDK loads a plugin directory. */
static int load_dir(const char *opt, const char *dir)
{
	struct dirent **list;
	char path[PATH_MAX];
	size_t len;
	int n, i, ret = 0;

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
		}
		free(list[i]);
	}
	free(list);
	return ret;
}

const char *eal_plugin_loading;

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
