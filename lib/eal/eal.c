/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp_eal_init() and dvp_eal_cleanup(): bring the EAL's parts up in order
 * and take them down in reverse, so init can run again after cleanup.
 */

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "dvp_eal.h"
#include "dvp_eal_host.h"
#include "dvp_interrupts.h"
#include "dvp_lcore.h"
#include "dvp_telemetry.h"
#include "eal_private.h"

/* Init and cleanup are serialised; the status is also read by other threads. */
static pthread_mutex_t eal_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic enum dvp_eal_init_status eal_status;

enum dvp_eal_init_status dvp_eal_init_status(void)
{
	/* Acquire: whoever sees DONE also sees everything init set up. */
	return atomic_load_explicit(&eal_status, memory_order_acquire);
}

bool eal_is_initialised(void)
{
	return dvp_eal_init_status() == DVP_EAL_INIT_DONE;
}

bool dvp_eal_has_hugepages(void)
{
	return eal_is_initialised() && eal_memory_has_hugepages();
}

const char *dvp_eal_file_prefix(void)
{
	return eal_cfg.file_prefix[0] ? eal_cfg.file_prefix : DVP_DEFAULT_FILE_PREFIX;
}

static void set_status(enum dvp_eal_init_status s)
{
	atomic_store_explicit(&eal_status, s, memory_order_release);
}

/* Take eal_lock for an init; false (EALREADY, not locked) when the EAL is up already. */
static bool init_lock(const char *who)
{
	pthread_mutex_lock(&eal_lock);
	if (!eal_is_initialised())
		return true;
	pthread_mutex_unlock(&eal_lock);
	EAL_LOG(ERR, "%s: already initialised; call dvp_eal_cleanup() first", who);
	dvp_errno = EALREADY;
	return false;
}

static int memzone_init(const struct eal_cfg *cfg)
{
	(void)cfg;
	return eal_memzone_init();
}

static int cycles_init(const struct eal_cfg *cfg)
{
	(void)cfg;
	eal_cycles_init();
	return 0;
}

/*
 * The parts under the buses, brought up in this order (for a native or a
 * hosted init: eal_cfg says which) and taken down in reverse.
 */
static const struct {
	int (*init)(const struct eal_cfg *cfg);
	void (*cleanup)(void);
} eal_parts[] = {
	{ .init = eal_memory_init, .cleanup = eal_memory_cleanup },
	{ .init = eal_heap_init, .cleanup = eal_heap_cleanup },
	{ .init = memzone_init, .cleanup = eal_memzone_cleanup },
	{ .init = cycles_init, .cleanup = NULL },
	{ .init = eal_lcore_init, .cleanup = eal_lcore_cleanup },
	{ .init = eal_intr_init, .cleanup = eal_intr_cleanup },
};

/* Take the first @n parts down, last first. */
static void parts_down(size_t n)
{
	while (n-- > 0)
		if (eal_parts[n].cleanup != NULL)
			eal_parts[n].cleanup();
}

/* The parts, then the buses; undone in reverse on failure. Called with eal_lock held. */
static int eal_start(void)
{
	size_t i;
	int ret;

	for (i = 0; i < DVP_DIM(eal_parts); i++) {
		ret = eal_parts[i].init(&eal_cfg);
		if (ret < 0) {
			parts_down(i);
			return ret;
		}
	}
	/* Drivers probed here may reserve memory and register interrupt fds. */
	set_status(DVP_EAL_INIT_DONE);
	ret = eal_bus_init(&eal_cfg);
	if (ret < 0) {
		parts_down(DVP_DIM(eal_parts));
		return ret;
	}
	return 0;
}

int dvp_eal_init(int argc, char **argv)
{
	int consumed, ret;

	if (!init_lock("dvp_eal_init"))
		return -1;
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		pthread_mutex_unlock(&eal_lock);
		EAL_LOG(ERR, "dvp_eal_init: argv must hold at least the program name");
		set_status(DVP_EAL_INIT_FAILED);
		dvp_errno = EINVAL;
		return -1;
	}

	/* A refused argument is named, whatever --log-level hides. */
	eal_log_hold();
	consumed = eal_args_parse(argc, argv, &eal_cfg);
	if (consumed < 0) {
		/* The parser logged which argument; the errno says it was an argument. */
		ret = consumed == -EINVAL ? -E_DVP_BAD_ARG : consumed;
		goto fail_args;
	}
	if (eal_cfg.help_shown) {
		eal_log_release(false);
		eal_cfg_free(&eal_cfg);
		set_status(DVP_EAL_INIT_HELP_SHOWN);
		pthread_mutex_unlock(&eal_lock);
		return -1;
	}

	ret = eal_start();
	if (ret < 0)
		goto fail_args;
	/* Last, as DPDK: the ports the buses probed are there to be asked about. */
	eal_telemetry_init(&eal_cfg, argc, argv);
	eal_log_release(false);
	pthread_mutex_unlock(&eal_lock);
	EAL_LOG(DEBUG, "initialised: %u lcore(s), main lcore %u, %s memory", dvp_lcore_count(),
		dvp_get_main_lcore(), eal_memory_has_hugepages() ? "hugepage" : "--no-huge memfd");
	/*
	 * As rte_eal_init: the program name moves to the last consumed slot,
	 * so `argc -= ret; argv += ret;` leaves the application an argv whose
	 * argv[0] is still the program name, ready for getopt.
	 */
	argv[consumed - 1] = argv[0];
	return consumed - 1;

fail_args:
	eal_log_release(true);
	eal_cfg_free(&eal_cfg);
	set_status(DVP_EAL_INIT_FAILED);
	pthread_mutex_unlock(&eal_lock);
	dvp_errno = -ret;
	return -1;
}

static bool host_valid(const struct dvp_eal_host *host)
{
	return host != NULL && host->name != NULL && host->lcore_enabled != NULL &&
	       host->lcore_socket != NULL && host->mem_map != NULL && host->mem_unmap != NULL &&
	       host->mem_page_size != NULL && host->log != NULL && host->intr_attach != NULL &&
	       host->intr_detach != NULL;
}

int dvp_eal_init_hosted(const struct dvp_eal_host *host)
{
	unsigned int i;
	int ret;

	if (!host_valid(host)) {
		EAL_LOG(ERR,
			"hosted init: the host must give a name and every hook of struct dvp_eal_host");
		dvp_errno = EINVAL;
		return -1;
	}
	if (!init_lock("hosted init"))
		return -1;
	memset(&eal_cfg, 0, sizeof(eal_cfg));
	eal_cfg.host = host;
	for (i = 0; i < DVP_MAX_LCORE; i++)
		eal_cfg.lcore_enabled[i] = host->lcore_enabled(host->arg, i);
	if (host->main_lcore >= DVP_MAX_LCORE || !eal_cfg.lcore_enabled[host->main_lcore]) {
		pthread_mutex_unlock(&eal_lock);
		EAL_LOG(ERR, "hosted init: main lcore %u of %s is not an enabled lcore below %u",
			host->main_lcore, host->name, DVP_MAX_LCORE);
		dvp_errno = EINVAL;
		return -1;
	}
	eal_cfg.main_lcore = host->main_lcore;
	eal_cfg.main_lcore_given = true;
	/* The heap starts empty and grows in blocks the host lends. */
	eal_cfg.socket_mem_given = true;
	eal_cfg.no_telemetry = true;
	snprintf(eal_cfg.file_prefix, sizeof(eal_cfg.file_prefix), "hosted");
	eal_log_set_host(host);
	ret = eal_start();
	if (ret < 0) {
		eal_log_set_host(NULL);
		memset(&eal_cfg, 0, sizeof(eal_cfg));
		set_status(DVP_EAL_INIT_FAILED);
		pthread_mutex_unlock(&eal_lock);
		dvp_errno = -ret;
		return -1;
	}
	pthread_mutex_unlock(&eal_lock);
	EAL_LOG(INFO, "hosted by %s: %u lcore(s), main lcore %u", host->name, dvp_lcore_count(),
		host->main_lcore);
	return 0;
}

bool dvp_eal_is_hosted(void)
{
	return eal_is_initialised() && eal_cfg.host != NULL;
}

int eal_thread_may_teardown(const char *who)
{
	unsigned int lcore = dvp_lcore_id();
	char thread[64];

	if (dvp_thread_is_telemetry())
		snprintf(thread, sizeof(thread), "the telemetry thread (a telemetry command)");
	else if (dvp_thread_is_intr())
		snprintf(thread, sizeof(thread),
			 "the EAL interrupt thread (an interrupt callback)");
	else if (lcore != DVP_LCORE_ID_ANY && eal_is_initialised() && lcore != dvp_get_main_lcore())
		snprintf(thread, sizeof(thread), "worker lcore %u", lcore);
	else
		return 0;
	EAL_LOG(ERR,
		"%s: called from %s; call it from the main lcore (%u) or a non-EAL thread, "
		"after dvp_eal_mp_wait_lcore()",
		who, thread, dvp_get_main_lcore());
	return dvp_err(EDEADLK);
}

int dvp_eal_cleanup(void)
{
	/*
	 * Cleanup stops the interrupt and telemetry threads and joins the
	 * workers: from one of them it would free the state the thread runs
	 * on, or wait for itself. Refused before anything is touched.
	 */
	int ret = eal_thread_may_teardown("dvp_eal_cleanup");

	if (ret < 0)
		return ret;
	pthread_mutex_lock(&eal_lock);
	if (!eal_is_initialised()) {
		pthread_mutex_unlock(&eal_lock);
		return dvp_err(E_DVP_NO_INIT);
	}
	/* First: no command runs while the devices behind it go. */
	eal_telemetry_cleanup();
	eal_bus_cleanup();
	/* No new work from here on: the status says so to every public call. */
	set_status(DVP_EAL_INIT_NONE);
	parts_down(DVP_DIM(eal_parts));
	eal_log_set_host(NULL);
	eal_cfg_free(&eal_cfg);
	eal_cfg.host = NULL;
	pthread_mutex_unlock(&eal_lock);
	return 0;
}
