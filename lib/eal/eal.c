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

#include "dvp_eal.h"
#include "dvp_interrupts.h"
#include "dvp_lcore.h"
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

int dvp_eal_init(int argc, char **argv)
{
	int consumed, ret;

	pthread_mutex_lock(&eal_lock);
	if (eal_is_initialised()) {
		pthread_mutex_unlock(&eal_lock);
		EAL_LOG(ERR, "dvp_eal_init: already initialised; call dvp_eal_cleanup() first");
		dvp_errno = EALREADY;
		return -1;
	}
	if (argc < 1 || argv == NULL || argv[0] == NULL) {
		pthread_mutex_unlock(&eal_lock);
		EAL_LOG(ERR, "dvp_eal_init: argv must hold at least the program name");
		set_status(DVP_EAL_INIT_FAILED);
		dvp_errno = EINVAL;
		return -1;
	}

	consumed = eal_args_parse(argc, argv, &eal_cfg);
	if (consumed < 0) {
		/* The parser logged which argument; the errno says it was an argument. */
		ret = consumed == -EINVAL ? -E_DVP_BAD_ARG : consumed;
		goto fail_args;
	}
	if (eal_cfg.help_shown) {
		eal_cfg_free(&eal_cfg);
		set_status(DVP_EAL_INIT_HELP_SHOWN);
		pthread_mutex_unlock(&eal_lock);
		return -1;
	}

	ret = eal_memory_init(&eal_cfg);
	if (ret < 0)
		goto fail_args;
	ret = eal_heap_init(&eal_cfg);
	if (ret < 0)
		goto fail_memory;
	ret = eal_memzone_init();
	if (ret < 0)
		goto fail_heap;
	eal_cycles_init();
	ret = eal_lcore_init(&eal_cfg);
	if (ret < 0)
		goto fail_memzone;
	ret = eal_intr_init();
	if (ret < 0)
		goto fail_lcore;
	/* Drivers probed here may reserve memory and register interrupt fds. */
	set_status(DVP_EAL_INIT_DONE);
	ret = eal_bus_init(&eal_cfg);
	if (ret < 0)
		goto fail_intr;
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

fail_intr:
	eal_intr_cleanup();
fail_lcore:
	eal_lcore_cleanup();
fail_memzone:
	eal_memzone_cleanup();
fail_heap:
	eal_heap_cleanup();
fail_memory:
	eal_memory_cleanup();
fail_args:
	eal_cfg_free(&eal_cfg);
	set_status(DVP_EAL_INIT_FAILED);
	pthread_mutex_unlock(&eal_lock);
	dvp_errno = -ret;
	return -1;
}

int dvp_eal_cleanup(void)
{
	unsigned int lcore = dvp_lcore_id();

	/*
	 * Cleanup stops the interrupt thread and joins the workers: from one
	 * of them it would free the state the thread runs on, or wait for
	 * itself. Refused before anything is touched.
	 */
	if (dvp_thread_is_intr()) {
		EAL_LOG(ERR, "dvp_eal_cleanup: called from the EAL interrupt thread (an interrupt "
			     "callback); call it from the main lcore or a non-EAL thread");
		return dvp_err(EDEADLK);
	}
	if (lcore != DVP_LCORE_ID_ANY && eal_is_initialised() && lcore != dvp_get_main_lcore()) {
		EAL_LOG(ERR,
			"dvp_eal_cleanup: called from worker lcore %u; call it from the main "
			"lcore (%u) or a non-EAL thread, after dvp_eal_mp_wait_lcore()",
			lcore, dvp_get_main_lcore());
		return dvp_err(EDEADLK);
	}
	pthread_mutex_lock(&eal_lock);
	if (!eal_is_initialised()) {
		pthread_mutex_unlock(&eal_lock);
		return dvp_err(E_DVP_NO_INIT);
	}
	eal_bus_cleanup();
	/* No new work from here on: the status says so to every public call. */
	set_status(DVP_EAL_INIT_NONE);
	eal_intr_cleanup();
	eal_lcore_cleanup();
	eal_memzone_cleanup();
	eal_heap_cleanup();
	eal_memory_cleanup();
	eal_cfg_free(&eal_cfg);
	pthread_mutex_unlock(&eal_lock);
	return 0;
}
