/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The hosted runtime: dvpmd inside a process whose EAL is another's.
 *
 * A DPDK plugin (drivers/dpdk/net_dvp) or any other host that already owns
 * the process's memory, lcores, logs and interrupt thread starts dvpmd with
 * dvp_eal_init_hosted() instead of dvp_eal_init(). The runtime then maps no
 * memory of its own (its heap grows in blocks the host gives), starts no
 * thread (lcore ids are the host's, and the host's threads run the
 * datapath), writes every log line through the host, and runs its interrupt
 * sources (async events, device hot-plug, control sockets) on the host's
 * interrupt thread through one epoll fd. No device is probed at init: the
 * host attaches the ones it is asked for with dvp_dev_attach().
 *
 * Everything else (rings, pools, ports, drivers, lib/rxwait) is the code a
 * native process runs. dvp_eal_cleanup() undoes a hosted init too.
 */

#ifndef DVP_EAL_HOST_H
#define DVP_EAL_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dvp_common.h>
#include <dvp_lcore.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a host lends the runtime. Every hook is required; @c arg is passed to each. */
struct dvp_eal_host {
	/** Who hosts, for log lines: "DPDK 22.11.11". */
	const char *name;
	void *arg;
	/** The host's main lcore id: the thread calling dvp_eal_init_hosted() runs it. */
	unsigned int main_lcore;
	/** Whether the host runs lcore @p lcore_id (ids below DVP_MAX_LCORE are asked). */
	bool (*lcore_enabled)(void *arg, unsigned int lcore_id);
	/** NUMA node of lcore @p lcore_id. */
	int (*lcore_socket)(void *arg, unsigned int lcore_id);
	/**
	 * Lend @p len bytes (a multiple of the system page size) on NUMA node
	 * @p socket, for the runtime's heap. @return the address, with the
	 * page size backing it in *@p page_sz and the host's handle for
	 * mem_unmap in *@p cookie; or NULL.
	 */
	void *(*mem_map)(void *arg, int socket, size_t len, size_t *page_sz, void **cookie);
	/** Take back a block mem_map lent. */
	void (*mem_unmap)(void *arg, void *cookie);
	/**
	 * The size of the pages behind @p addr in the host's memory (its
	 * pools' memory, external memory it knows), or 0 for memory it does
	 * not know: what a driver rounds a memory registration to.
	 */
	size_t (*mem_page_size)(void *arg, const void *addr);
	/**
	 * Write one log line (ending in a newline) of log type @p type at
	 * @p level (DVP_LOG_*): called only for lines the type's level lets
	 * through, from any thread.
	 */
	void (*log)(void *arg, uint32_t level, uint32_t type, const char *line);
	/**
	 * Call @p ready on the host's interrupt thread whenever @p fd (an epoll
	 * fd) is readable, until intr_detach. @return 0 or a negative errno.
	 */
	int (*intr_attach)(void *arg, int fd, void (*ready)(void));
	/** Stop calling ready for @p fd; returns once no call is running. */
	void (*intr_detach)(void *arg, int fd);
};

/**
 * Start the runtime inside a host process (see the file comment). The
 * host must outlive the runtime: call dvp_eal_cleanup() before it goes.
 * @return 0, or -1 with dvp_errno set after a log line: EINVAL (a hook
 *   missing, the main lcore not enabled), EALREADY (initialised already,
 *   natively or hosted), or what setting up failed with.
 */
int dvp_eal_init_hosted(const struct dvp_eal_host *host);

/** Whether the runtime was started by dvp_eal_init_hosted(). */
bool dvp_eal_is_hosted(void);

/**
 * Make the calling thread, which the host runs as lcore @p lcore_id, that
 * lcore for the runtime too (per-lcore mempool caches, dvp_lcore_id()).
 * Cheap enough to call at the top of every burst, where a host's datapath
 * relies on dvp_lcore_id() (net_dvp's does not: its pools are DPDK's, with
 * DPDK's lcore id).
 */
static inline void dvp_eal_host_thread_lcore(unsigned int lcore_id)
{
	DVP_PER_LCORE(_lcore_id) = lcore_id < DVP_MAX_LCORE ? lcore_id : DVP_LCORE_ID_ANY;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_EAL_HOST_H */
