/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * DPDK as dvpmd's host: memory from memzones, DPDK's lcores, rte_log, and
 * DPDK's interrupt thread. The runtime is started by the first net_dvp
 * vdev and stopped when the last one goes (probe and remove run on DPDK's
 * main thread, so a counter under a mutex is enough).
 */

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_interrupts.h>
#include <rte_lcore.h>
#include <rte_memzone.h>
#include <rte_version.h>

#include <dvp_eal.h>
#include <dvp_eal_host.h>
#include <dvp_log.h>
#include <dvp_mempool.h>

#include "net_dvp.h"

RTE_LOG_REGISTER(net_dvp_logtype, pmd.net.dvp, NOTICE);

static pthread_mutex_t runtime_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int runtime_users;
static unsigned int memzones_made;
static struct rte_intr_handle *intr_handle;
static void (*intr_ready)(void);
/* dvp log type -> the rte_log type its lines go to */
static int rte_types[DVP_LOG_MAX_TYPES];

static bool host_lcore_enabled(void *arg, unsigned int lcore_id)
{
	(void)arg;
	return lcore_id < RTE_MAX_LCORE && rte_lcore_is_enabled(lcore_id);
}

static int host_lcore_socket(void *arg, unsigned int lcore_id)
{
	(void)arg;
	return (int)rte_lcore_to_socket_id(lcore_id);
}

static void *host_mem_map(void *arg, int socket, size_t len, size_t *page_sz, void **cookie)
{
	const struct rte_memzone *mz;
	char name[RTE_MEMZONE_NAMESIZE];

	(void)arg;
	snprintf(name, sizeof(name), "dvp_heap_%u", memzones_made++);
	mz = rte_memzone_reserve_aligned(name, len, socket, 0, RTE_CACHE_LINE_SIZE);
	if (mz == NULL) {
		NET_DVP_LOG(ERR,
			    "cannot reserve a %zu KB memzone on socket %d for dvpmd's heap: %s",
			    len >> 10, socket, rte_strerror(rte_errno));
		return NULL;
	}
	*page_sz = mz->hugepage_sz;
	*cookie = (void *)(uintptr_t)mz;
	return mz->addr;
}

static void host_mem_unmap(void *arg, void *cookie)
{
	(void)arg;
	rte_memzone_free(cookie);
}

/* DPDK's memory, its external memory included (rte_extmem_register()). */
static size_t host_mem_page_size(void *arg, const void *addr)
{
	const struct rte_memseg_list *msl = rte_mem_virt2memseg_list(addr);

	(void)arg;
	return msl != NULL ? msl->page_sz : 0;
}

/* dvp's "pmd.net.mlx5" is DPDK's "pmd.net.dvp.mlx5"; "eal" is "pmd.net.dvp.eal". */
static int rte_type_of(uint32_t type)
{
	const char *name;
	char rte_name[96];
	int t;

	if (type >= DVP_LOG_MAX_TYPES)
		return net_dvp_logtype;
	if (rte_types[type] > 0)
		return rte_types[type];
	name = dvp_log_type_name(type);
	if (name == NULL)
		return net_dvp_logtype;
	if (strncmp(name, "pmd.net.", 8) == 0)
		name += 8;
	else if (strncmp(name, "pmd.", 4) == 0)
		name += 4;
	snprintf(rte_name, sizeof(rte_name), "pmd.net.dvp.%s", name);
	t = rte_log_register_type_and_pick_level(rte_name, RTE_LOG_NOTICE);
	if (t < 0)
		return net_dvp_logtype;
	rte_types[type] = t;
	return t;
}

static void host_log(void *arg, uint32_t level, uint32_t type, const char *line)
{
	(void)arg;
	rte_log(level, (uint32_t)rte_type_of(type), "%s", line);
}

/*
 * dvp's own level filter runs before the line reaches rte_log: let it pass
 * what DPDK's level for the type (set with --log-level) lets through.
 */
static void log_levels_sync(void)
{
	const char *name;
	uint32_t t;
	int rt;

	for (t = 0; t < DVP_LOG_MAX_TYPES; t++) {
		name = dvp_log_type_name(t);
		if (name == NULL)
			break;
		rt = rte_type_of(t);
		dvp_log_set_level(t, (uint32_t)rte_log_get_level((uint32_t)rt));
	}
}

static void host_intr_cb(void *arg)
{
	(void)arg;
	intr_ready();
}

static int host_intr_attach(void *arg, int fd, void (*ready)(void))
{
	int ret;

	(void)arg;
	intr_handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (intr_handle == NULL)
		return -ENOMEM;
	if (rte_intr_fd_set(intr_handle, fd) != 0 ||
	    rte_intr_type_set(intr_handle, RTE_INTR_HANDLE_EXT) != 0) {
		rte_intr_instance_free(intr_handle);
		intr_handle = NULL;
		return -EINVAL;
	}
	intr_ready = ready;
	ret = rte_intr_callback_register(intr_handle, host_intr_cb, NULL);
	if (ret < 0) {
		rte_intr_instance_free(intr_handle);
		intr_handle = NULL;
	}
	return ret;
}

static void host_intr_detach(void *arg, int fd)
{
	(void)arg;
	(void)fd;
	if (intr_handle == NULL)
		return;
	/* Waits while DPDK's interrupt thread is inside the callback. */
	while (rte_intr_callback_unregister(intr_handle, host_intr_cb, NULL) == -EAGAIN)
		rte_pause();
	rte_intr_instance_free(intr_handle);
	intr_handle = NULL;
}

static struct dvp_eal_host dpdk_host = {
	.lcore_enabled = host_lcore_enabled,
	.lcore_socket = host_lcore_socket,
	.mem_map = host_mem_map,
	.mem_unmap = host_mem_unmap,
	.mem_page_size = host_mem_page_size,
	.log = host_log,
	.intr_attach = host_intr_attach,
	.intr_detach = host_intr_detach,
};

int net_dvp_runtime_get(void)
{
	int ret = 0;

	pthread_mutex_lock(&runtime_lock);
	if (runtime_users == 0) {
		/* Before any queue: their pools' rings are found through it. */
		dvp_mempool_host_init();
		dpdk_host.name = rte_version();
		dpdk_host.main_lcore = rte_get_main_lcore();
		log_levels_sync();
		if (dvp_eal_init_hosted(&dpdk_host) < 0) {
			ret = -dvp_errno;
			NET_DVP_LOG(ERR, "cannot start dvpmd's runtime in this process: %s",
				    dvp_strerror(dvp_errno));
		}
		/* Types drivers registered while starting get DPDK's levels too. */
		log_levels_sync();
	}
	if (ret == 0)
		runtime_users++;
	pthread_mutex_unlock(&runtime_lock);
	return ret;
}

void net_dvp_runtime_put(void)
{
	pthread_mutex_lock(&runtime_lock);
	if (runtime_users > 0 && --runtime_users == 0) {
		net_dvp_pool_events_off();
		if (dvp_eal_cleanup() < 0)
			NET_DVP_LOG(WARNING, "dvpmd's runtime did not stop cleanly: %s",
				    dvp_strerror(dvp_errno));
	}
	pthread_mutex_unlock(&runtime_lock);
}
