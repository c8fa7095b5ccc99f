/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_ring's inboxes (under ring_lock): each ring wrapped with its eventfd
 * and gate, shared by the ports that read and write it, counted by
 * reference, and the driver's own rings in EAL memory.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_malloc.h>

#include "net_ring_private.h"

static struct ring_inbox *inboxes;

/*
 * A ring of the driver's own, in EAL memory on the port's node (the
 * consumer is always one rx queue; producers are any tx queues).
 */
struct dvp_ring *ring_inbox_ring_new(const char *name, unsigned int size, int socket_id)
{
	ssize_t sz = dvp_ring_get_memsize(size);
	struct dvp_ring *r;

	if (sz < 0) {
		dvp_errno = EINVAL;
		return NULL;
	}
	r = dvp_zmalloc_socket("net_ring ring", (size_t)sz, 2 * DVP_CACHE_LINE_SIZE, socket_id);
	if (r == NULL)
		return NULL;
	if (dvp_ring_init(r, name, size, DVP_RING_F_SC_DEQ) < 0) {
		dvp_free(r);
		dvp_errno = EINVAL;
		return NULL;
	}
	return r;
}

struct ring_inbox *ring_inbox_new_locked(struct dvp_ring *ring, bool own)
{
	/* Aligned as its type: the producers' handshake has a line of its own. */
	struct ring_inbox *in = aligned_alloc(_Alignof(struct ring_inbox), sizeof(*in));

	if (in == NULL)
		return NULL;
	memset(in, 0, sizeof(*in));
	in->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (in->efd < 0) {
		RING_LOG(ERR, "ring %s: eventfd: %s", dvp_ring_get_name(ring), dvp_strerror(errno));
		free(in);
		return NULL;
	}
	in->ring = ring;
	in->own_ring = own;
	/* No consumer port yet: the application reads it, so it is open. */
	in->open = 1;
	in->next = inboxes;
	inboxes = in;
	return in;
}

struct ring_inbox *ring_inbox_of_ring_locked(struct dvp_ring *ring)
{
	struct ring_inbox *in;

	for (in = inboxes; in != NULL; in = in->next)
		if (in->ring == ring)
			return in;
	return ring_inbox_new_locked(ring, false);
}

void ring_inbox_put_locked(struct ring_inbox *in)
{
	struct ring_inbox **l;

	if (in == NULL || --in->refs > 0)
		return;
	for (l = &inboxes; *l != in; l = &(*l)->next)
		;
	*l = in->next;
	close(in->efd);
	if (in->own_ring) {
		/* The last reference: frames still in the ring go back to their pools. */
		ring_inbox_drain(in);
		dvp_free(in->ring);
	}
	/* An application's ring keeps its frames: the application reads or drains it. */
	free(in);
}

void ring_inbox_get(struct ring_inbox *in)
{
	in->refs++;
}
