/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Named rings: created in a memzone "RG_<name>", found and freed by name. */

#include <string.h>

#include <dvp_errno.h>
#include <dvp_lcore.h>
#include <dvp_memzone.h>

#include "ring_private.h"

static int ring_mz_name(char *buf, size_t len, const char *name)
{
	if (name == NULL || name[0] == '\0' || strlen(name) >= DVP_RING_NAMESIZE) {
		RING_LOG(ERR, "ring name '%s' is invalid: it must have 1 to %d characters",
			 name ? name : "(null)", DVP_RING_NAMESIZE - 1);
		return dvp_err(EINVAL);
	}
	snprintf(buf, len, "%s%s", DVP_RING_MZ_PREFIX, name);
	return 0;
}

struct dvp_ring *dvp_ring_create_elem(const char *name, unsigned int count, unsigned int esize,
				      int socket_id, unsigned int flags)
{
	char mz_name[DVP_MEMZONE_NAMESIZE];
	const struct dvp_memzone *mz;
	struct dvp_ring probe __dvp_aligned(2 * DVP_CACHE_LINE_SIZE);
	unsigned int slots_count;
	struct dvp_ring *r;
	ssize_t size;
	int err;

	if (ring_mz_name(mz_name, sizeof(mz_name), name) < 0)
		return NULL;
	/* Validate everything (with the messages) before reserving memory. */
	if (dvp_ring_init_elem(&probe, name, count, esize, flags) < 0)
		return NULL;
	slots_count = probe.size;
	size = (ssize_t)sizeof(struct dvp_ring) +
	       (ssize_t)DVP_CACHE_LINE_ROUNDUP((size_t)slots_count * esize);

	mz = dvp_memzone_reserve_aligned(mz_name, (size_t)size, socket_id, 0,
					 2 * DVP_CACHE_LINE_SIZE);
	if (mz == NULL) {
		err = dvp_errno;
		if (err == EEXIST)
			RING_LOG(ERR, "ring %s: a ring of that name exists", name);
		else
			RING_LOG(ERR, "ring %s: cannot reserve %zd bytes on socket %d: %s", name,
				 size, socket_id, dvp_strerror(err));
		dvp_errno = err;
		return NULL;
	}
	r = mz->addr;
	/* Cannot fail: the same arguments passed above. */
	(void)dvp_ring_init_elem(r, name, count, esize, flags);
	r->memzone = mz;
	r->socket_id = mz->socket_id;
	return r;
}

struct dvp_ring *dvp_ring_create(const char *name, unsigned int count, int socket_id,
				 unsigned int flags)
{
	return dvp_ring_create_elem(name, count, sizeof(void *), socket_id, flags);
}

void dvp_ring_free(struct dvp_ring *r)
{
	if (r == NULL)
		return;
	if (r->memzone == NULL) {
		RING_LOG(
			ERR,
			"ring %s was built with dvp_ring_init() in the caller's memory: free that memory instead",
			r->name);
		dvp_errno = EINVAL;
		return;
	}
	if (dvp_memzone_free(r->memzone) < 0)
		RING_LOG(ERR, "ring %s: cannot free its memzone: %s", r->name,
			 dvp_strerror(dvp_errno));
}

struct dvp_ring *dvp_ring_lookup(const char *name)
{
	char mz_name[DVP_MEMZONE_NAMESIZE];
	const struct dvp_memzone *mz;

	if (name == NULL || name[0] == '\0' || strlen(name) >= DVP_RING_NAMESIZE) {
		dvp_errno = ENOENT;
		return NULL;
	}
	snprintf(mz_name, sizeof(mz_name), "%s%s", DVP_RING_MZ_PREFIX, name);
	mz = dvp_memzone_lookup(mz_name);
	if (mz == NULL) {
		dvp_errno = ENOENT;
		return NULL;
	}
	return mz->addr;
}
