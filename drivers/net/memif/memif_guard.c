/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Guarded mappings: a peer's region we could not seal against shrinking.
 *
 * A client that truncates the file behind a region we mapped turns our next
 * access past the new end into SIGBUS. Our own memfds are sealed
 * (F_SEAL_SHRINK); a peer's memfd is sealed by us when it allows sealing;
 * what remains -- hugetlbfs files and memfds created without
 * MFD_ALLOW_SEALING, which is what DPDK's zero-copy client hands over -- is
 * mapped here. A SIGBUS handler, installed when the first such region is
 * mapped, looks the faulting address up in a fixed table; if it lies in a
 * guarded region, the whole region is replaced with anonymous zero pages
 * (mmap MAP_FIXED, as Wayland compositors do for a client's shm pool) and
 * the access resumes on memory we own. The connection then carries zeros
 * -- descriptors that fail their checks, packets of zeros -- until it is
 * closed, and the process lives. A fault elsewhere goes to the handler
 * that was installed before ours, or to the default action.
 *
 * The table is read in the signal handler: slots are claimed with an
 * atomic exchange and published with release stores; the handler reads
 * them with acquire loads, and neither side takes a lock.
 */

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include <dvp_common.h>

#include "memif_log.h"
#include "memif_shm.h"

#define GUARD_SLOTS 1024

struct guard_slot {
	uintptr_t start; /* 0: free */
	uintptr_t len;
	uint32_t claimed;
	uint32_t faults;
};

static struct guard_slot slots[GUARD_SLOTS];
static struct sigaction prev_sa;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;
static int install_err;

static void guard_sigbus(int sig, siginfo_t *si, void *uctx)
{
	uintptr_t a = (uintptr_t)si->si_addr;
	unsigned int i;

	for (i = 0; i < GUARD_SLOTS; i++) {
		uintptr_t start = __atomic_load_n(&slots[i].start, __ATOMIC_ACQUIRE);
		uintptr_t len;

		if (start == 0 || a < start)
			continue;
		len = __atomic_load_n(&slots[i].len, __ATOMIC_RELAXED);
		if (a - start >= len)
			continue;
		/* mmap is a plain system call: safe here in practice on Linux. */
		if (mmap((void *)start, len, PROT_READ | PROT_WRITE,
			 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED)
			break;
		__atomic_fetch_add(&slots[i].faults, 1, __ATOMIC_RELAXED);
		return;
	}
	/* Not ours: whatever would have happened without us. */
	if (prev_sa.sa_flags & SA_SIGINFO) {
		prev_sa.sa_sigaction(sig, si, uctx);
	} else if (prev_sa.sa_handler != SIG_DFL && prev_sa.sa_handler != SIG_IGN) {
		prev_sa.sa_handler(sig);
	} else {
		/* Default action: on return the access faults again and kills us. */
		signal(SIGBUS, SIG_DFL);
	}
}

static void guard_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = guard_sigbus;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &prev_sa) < 0)
		install_err = errno;
	else
		MEMIF_LOG(INFO, "SIGBUS handler installed: a peer that truncates an unsealed "
				"region gets it replaced by zeros, not this process killed");
}

int memif_guard_add(void *addr, uint64_t len, char *why)
{
	unsigned int i;

	pthread_once(&install_once, guard_install);
	if (install_err != 0) {
		snprintf(why, MEMIF_WHY_SZ, "Cannot guard an unsealed region: sigaction: %s",
			 strerror(install_err));
		return -install_err;
	}
	for (i = 0; i < GUARD_SLOTS; i++) {
		if (__atomic_exchange_n(&slots[i].claimed, 1, __ATOMIC_ACQUIRE))
			continue;
		__atomic_store_n(&slots[i].faults, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[i].len, (uintptr_t)len, __ATOMIC_RELAXED);
		/* Release: the handler that sees start sees len. */
		__atomic_store_n(&slots[i].start, (uintptr_t)addr, __ATOMIC_RELEASE);
		return 0;
	}
	snprintf(why, MEMIF_WHY_SZ,
		 "Too many unsealed regions mapped (%d): seal regions with "
		 "F_SEAL_SHRINK",
		 GUARD_SLOTS);
	return -ENOSPC;
}

unsigned int memif_guard_del(void *addr)
{
	unsigned int i, faults;

	for (i = 0; i < GUARD_SLOTS; i++) {
		if (__atomic_load_n(&slots[i].start, __ATOMIC_RELAXED) != (uintptr_t)addr)
			continue;
		faults = __atomic_load_n(&slots[i].faults, __ATOMIC_RELAXED);
		/* Nobody touches the region any more: the caller unmaps it next. */
		__atomic_store_n(&slots[i].start, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&slots[i].claimed, 0, __ATOMIC_RELEASE);
		return faults;
	}
	return 0;
}

unsigned int memif_guard_faults(const void *addr)
{
	unsigned int i;

	for (i = 0; i < GUARD_SLOTS; i++)
		if (__atomic_load_n(&slots[i].start, __ATOMIC_ACQUIRE) == (uintptr_t)addr)
			return __atomic_load_n(&slots[i].faults, __ATOMIC_RELAXED);
	return 0;
}
