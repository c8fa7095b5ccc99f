/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The EAL's part of telemetry: the runtime directory DPDK's tools look in
 * for a file prefix (made at start, removed at cleanup when nothing else
 * is in it), starting and stopping the socket, and the EAL's own commands
 * (/eal/params, /eal/app_params).
 *
 * A socket that cannot be created costs one warning, never the start: the
 * process runs as well without it.
 */

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <dvp_telemetry.h>

#include "dvp_eal.h"
#include "eal_private.h"

DVP_LOG_REGISTER(dvp_logtype_telemetry, "telemetry", WARNING);

/* The runtime directory the socket went into: removed at cleanup when empty. */
static char run_dir[PATH_MAX];

/* argv as given: up to "--" for /eal/params, after it for /eal/app_params (as DPDK). */
static pthread_mutex_t args_lock = PTHREAD_MUTEX_INITIALIZER;
static char **eal_args;
static char **app_args;

static void tel_log(unsigned int level, const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	dvp_log(level, (uint32_t)dvp_logtype_telemetry, "%s\n", line);
}

static void args_free(char ***v)
{
	char **a = *v;

	for (; a != NULL && *a != NULL; a++)
		free(*a);
	free(*v);
	*v = NULL;
}

static char **args_dup(int n, char **argv)
{
	char **v = calloc((size_t)n + 1, sizeof(*v));
	int i;

	for (i = 0; v != NULL && i < n; i++) {
		v[i] = strdup(argv[i]);
		if (v[i] == NULL)
			args_free(&v);
	}
	return v;
}

static void args_save(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc && strcmp(argv[i], "--") != 0; i++)
		;
	pthread_mutex_lock(&args_lock);
	eal_args = args_dup(i, argv);
	if (i + 1 < argc)
		app_args = args_dup(argc - i - 1, argv + i + 1);
	pthread_mutex_unlock(&args_lock);
}

static int cmd_params(const char *cmd, const char *params, struct dvp_json *w)
{
	char **a;

	(void)params;
	dvp_json_arr_open(w, NULL);
	pthread_mutex_lock(&args_lock);
	for (a = strcmp(cmd, "/eal/params") == 0 ? eal_args : app_args; a != NULL && *a != NULL;
	     a++)
		dvp_json_str(w, NULL, *a);
	pthread_mutex_unlock(&args_lock);
	dvp_json_arr_close(w);
	return 0;
}

__attribute__((constructor)) static void eal_telemetry_cmds(void)
{
	/* The EAL's threads refuse a stop as they refuse dvp_eal_cleanup(). */
	dvp_telemetry_set_stop_check(eal_thread_may_teardown);
	dvp_telemetry_register_cmd("/eal/params", cmd_params,
				   "Returns EAL commandline parameters used. Takes no parameters");
	dvp_telemetry_register_cmd("/eal/app_params", cmd_params,
				   "Returns app commandline parameters used. Takes no parameters");
}

static int runtime_dir(const char *prefix, char *dir, size_t len)
{
	const char *base = getenv("RUNTIME_DIRECTORY");

	/* As DPDK and dpdk-telemetry.py compute it. */
	if (base == NULL) {
		if (getuid() == 0)
			base = "/var/run";
		else if ((base = getenv("XDG_RUNTIME_DIR")) == NULL)
			base = "/tmp";
	}
	if ((size_t)snprintf(dir, len, "%s/dpdk/%s", base, prefix) >= len)
		return -ENAMETOOLONG;
	return 0;
}

/* mkdir DIR/dpdk and DIR/dpdk/<prefix>, each 0700, as DPDK. */
static int runtime_dir_create(const char *dir, char *why, size_t wlen)
{
	char parent[PATH_MAX];
	const char *slash = strrchr(dir, '/');

	int err;

	snprintf(parent, sizeof(parent), "%.*s", (int)(slash - dir), dir);
	if (mkdir(parent, 0700) < 0 && errno != EEXIST) {
		err = errno;
		snprintf(why, wlen, "cannot create %s: %s", parent, dvp_strerror(err));
		return -err;
	}
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		err = errno;
		snprintf(why, wlen, "cannot create %s: %s", dir, dvp_strerror(err));
		return -err;
	}
	return 0;
}

void eal_telemetry_init(const struct eal_cfg *cfg, int argc, char **argv)
{
	struct dvp_telemetry_conf conf = { .version = dvp_version(), .log = tel_log };
	char dir[PATH_MAX], why[PATH_MAX + 128];
	int ret = 0, tries;
	cpu_set_t cpus;

	if (cfg->no_telemetry || cfg->host != NULL)
		return;
	args_save(argc, argv);
	if (runtime_dir(cfg->file_prefix, dir, sizeof(dir)) < 0) {
		EAL_LOG(WARNING,
			"no telemetry socket: the runtime directory of --file-prefix '%s' is too long a path",
			cfg->file_prefix);
		return;
	}
	eal_control_cpus(&cpus);
	conf.runtime_dir = dir;
	conf.cpus = &cpus;
	/*
	 * Another process of this prefix that exits removes the directory
	 * when it is empty, maybe between our mkdir and our bind (ENOENT):
	 * made again, it is ours.
	 */
	for (tries = 0; tries < 3; tries++) {
		ret = runtime_dir_create(dir, why, sizeof(why));
		if (ret == 0)
			ret = dvp_telemetry_start(&conf, why, sizeof(why));
		if (ret != -ENOENT)
			break;
	}
	if (ret == 0) {
		snprintf(run_dir, sizeof(run_dir), "%s", dir);
		return;
	}
	EAL_LOG(WARNING, "no telemetry socket: %s", why);
}

void eal_telemetry_cleanup(void)
{
	dvp_telemetry_stop();
	/*
	 * A clean exit leaves nothing behind: the directory goes with the
	 * socket unless something else is in it (another program's files of
	 * the same prefix, as DPDK's), which keeps it (ENOTEMPTY).
	 */
	if (run_dir[0] != '\0' && rmdir(run_dir) != 0 && errno != ENOTEMPTY && errno != EEXIST &&
	    errno != ENOENT)
		EAL_LOG(DEBUG, "cannot remove the runtime directory %s: %s", run_dir,
			dvp_strerror(errno));
	run_dir[0] = '\0';
	pthread_mutex_lock(&args_lock);
	args_free(&eal_args);
	args_free(&app_args);
	pthread_mutex_unlock(&args_lock);
}
