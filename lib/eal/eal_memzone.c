/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Memzones: named areas carved from the heap of a node. The table is small
 * and only the control path touches it, so one mutex guards it.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "dvp_lcore.h"
#include "dvp_malloc.h"
#include "dvp_memzone.h"
#include "eal_private.h"

#define MEMZONE_MAX 1024

struct mz_slot {
	struct dvp_memzone mz;
	bool used;
};

static struct {
	pthread_mutex_t lock;
	struct mz_slot slot[MEMZONE_MAX];
	bool up;
} mzs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static struct mz_slot *find_locked(const char *name)
{
	unsigned int i;

	for (i = 0; i < MEMZONE_MAX; i++)
		if (mzs.slot[i].used && strcmp(mzs.slot[i].mz.name, name) == 0)
			return &mzs.slot[i];
	return NULL;
}

static __dvp_cold const struct dvp_memzone *mz_error(int err, const char *name, size_t len,
						     const char *why)
{
	EAL_LOG(ERR, "memzone '%s' (%zu bytes): %s", name ? name : "(null)", len, why);
	dvp_errno = err;
	return NULL;
}

const struct dvp_memzone *dvp_memzone_reserve_aligned(const char *name, size_t len, int socket_id,
						      unsigned int flags, unsigned int align)
{
	const unsigned int known = DVP_MEMZONE_2MB | DVP_MEMZONE_1GB | DVP_MEMZONE_SIZE_HINT_ONLY;
	size_t page = eal_memory_page_size(), want = 0;
	struct mz_slot *s = NULL;
	const char *bad;
	unsigned int i;
	void *addr;
	int err;

	if (!mzs.up)
		return mz_error(E_DVP_NO_INIT, name, len, "the EAL is not initialised");
	if (name == NULL || name[0] == '\0' || strlen(name) >= DVP_MEMZONE_NAMESIZE)
		return mz_error(EINVAL, name, len, "the name must have 1 to 31 characters");
	if (len == 0)
		return mz_error(EINVAL, name, len, "the length is 0");
	/* Before any rounding of len, which would wrap near SIZE_MAX. */
	bad = eal_heap_request_check(len, align, &err);
	if (bad != NULL)
		return mz_error(err, name, len, bad);
	if (flags & ~known)
		return mz_error(
			EINVAL, name, len,
			"unknown flags; valid: DVP_MEMZONE_2MB, DVP_MEMZONE_1GB, DVP_MEMZONE_SIZE_HINT_ONLY");
	if (flags & DVP_MEMZONE_2MB)
		want = (size_t)2 << 20;
	if (flags & DVP_MEMZONE_1GB)
		want = (size_t)1 << 30;
	if (want != 0 && want != page && !(flags & DVP_MEMZONE_SIZE_HINT_ONLY)) {
		char why[160];

		snprintf(
			why, sizeof(why),
			"%zu KB pages asked for, but EAL memory is on %zu KB pages (add DVP_MEMZONE_SIZE_HINT_ONLY to accept them)",
			want >> 10, page >> 10);
		return mz_error(ENOMEM, name, len, why);
	}

	pthread_mutex_lock(&mzs.lock);
	if (find_locked(name) != NULL) {
		pthread_mutex_unlock(&mzs.lock);
		return mz_error(EEXIST, name, len, "a memzone of this name exists");
	}
	for (i = 0; i < MEMZONE_MAX && s == NULL; i++)
		if (!mzs.slot[i].used)
			s = &mzs.slot[i];
	if (s == NULL) {
		pthread_mutex_unlock(&mzs.lock);
		return mz_error(ENOSPC, name, len,
				"all " DVP_STR(MEMZONE_MAX) " memzones are in use");
	}
	len = DVP_CACHE_LINE_ROUNDUP(len);
	addr = dvp_malloc_socket(name, len, align, socket_id);
	if (addr == NULL) {
		pthread_mutex_unlock(&mzs.lock);
		return NULL; /* the heap said why, naming the memzone */
	}
	memset(s, 0, sizeof(*s));
	snprintf(s->mz.name, sizeof(s->mz.name), "%s", name);
	s->mz.addr = addr;
	s->mz.len = len;
	s->mz.hugepage_sz = page;
	s->mz.socket_id = dvp_malloc_socket_of(addr);
	s->mz.flags = flags;
	s->used = true;
	pthread_mutex_unlock(&mzs.lock);
	return &s->mz;
}

const struct dvp_memzone *dvp_memzone_reserve(const char *name, size_t len, int socket_id,
					      unsigned int flags)
{
	return dvp_memzone_reserve_aligned(name, len, socket_id, flags, DVP_CACHE_LINE_SIZE);
}

int dvp_memzone_free(const struct dvp_memzone *mz)
{
	struct mz_slot *s;
	void *addr;

	if (mz == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&mzs.lock);
	s = dvp_container_of(mz, struct mz_slot, mz);
	if (s < mzs.slot || s >= mzs.slot + MEMZONE_MAX || !s->used) {
		pthread_mutex_unlock(&mzs.lock);
		EAL_LOG(ERR, "dvp_memzone_free(%p): not a reserved memzone (freed twice?)",
			(const void *)mz);
		return dvp_err(EINVAL);
	}
	addr = s->mz.addr;
	memset(s, 0, sizeof(*s));
	pthread_mutex_unlock(&mzs.lock);
	dvp_free(addr);
	return 0;
}

const struct dvp_memzone *dvp_memzone_lookup(const char *name)
{
	struct mz_slot *s;

	if (name == NULL) {
		dvp_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&mzs.lock);
	s = find_locked(name);
	pthread_mutex_unlock(&mzs.lock);
	if (s == NULL) {
		dvp_errno = ENOENT;
		return NULL;
	}
	return &s->mz;
}

void dvp_memzone_walk(void (*fn)(const struct dvp_memzone *mz, void *arg), void *arg)
{
	unsigned int i;

	if (fn == NULL)
		return;
	pthread_mutex_lock(&mzs.lock);
	for (i = 0; i < MEMZONE_MAX; i++)
		if (mzs.slot[i].used)
			fn(&mzs.slot[i].mz, arg);
	pthread_mutex_unlock(&mzs.lock);
}

static void dump_one(const struct dvp_memzone *mz, void *arg)
{
	fprintf(arg, "memzone '%s': addr %p, len %zu, node %d, page %zu KB\n", mz->name, mz->addr,
		mz->len, mz->socket_id, mz->hugepage_sz >> 10);
}

void dvp_memzone_dump(FILE *f)
{
	dvp_memzone_walk(dump_one, f);
}

int eal_memzone_init(void)
{
	pthread_mutex_lock(&mzs.lock);
	memset(mzs.slot, 0, sizeof(mzs.slot));
	mzs.up = true;
	pthread_mutex_unlock(&mzs.lock);
	return 0;
}

void eal_memzone_cleanup(void)
{
	unsigned int i;

	/* The heap goes away next with everything in it; only forget the names. */
	pthread_mutex_lock(&mzs.lock);
	for (i = 0; i < MEMZONE_MAX; i++)
		if (mzs.slot[i].used)
			EAL_LOG(DEBUG, "memzone '%s' still reserved at cleanup",
				mzs.slot[i].mz.name);
	memset(mzs.slot, 0, sizeof(mzs.slot));
	mzs.up = false;
	pthread_mutex_unlock(&mzs.lock);
}
