/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Control-channel state machines (client and server) and the message
 * checker. No sockets here: memif_socket.c moves the bytes and fds.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_log.h>

#include "memif_cc.h"
#include "memif_log.h"

static void __dvp_format_printf(2, 3) why_set(char *why, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, MEMIF_WHY_SZ, fmt, ap);
	va_end(ap);
}

static bool nul_terminated(const uint8_t *s, size_t n)
{
	return memchr(s, '\0', n) != NULL;
}

void memif_sanitize(char *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i] != '\0'; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = '\0';
}

static void copy_name(uint8_t *dst, const char *src, size_t n)
{
	size_t len = strnlen(src, n - 1);

	memcpy(dst, src, len);
	dst[len] = '\0';
}

/* ------------------------------------------------------------------------
 * Checks of one message alone
 */

/* The name a message carries (the peer's or the interface's), or NULL. */
static const uint8_t *msg_name(const struct memif_msg *m)
{
	switch (m->type) {
	case MEMIF_MSG_TYPE_HELLO:
		return m->hello.name;
	case MEMIF_MSG_TYPE_INIT:
		return m->init.name;
	case MEMIF_MSG_TYPE_CONNECT:
		return m->connect.if_name;
	case MEMIF_MSG_TYPE_CONNECTED:
		return m->connected.if_name;
	default:
		return NULL;
	}
}

int memif_msg_check(const void *buf, size_t len, bool has_fd, char *why)
{
	const struct memif_msg *m = buf;
	const uint8_t *name;
	bool want_fd;

	if (len != MEMIF_MSG_SZ) {
		why_set(why, "Invalid message size: %zu bytes, expected %d", len, MEMIF_MSG_SZ);
		return -EPROTO;
	}
	if (m->type == MEMIF_MSG_TYPE_NONE || m->type > MEMIF_MSG_TYPE_MAX) {
		why_set(why, "Unknown message type %u (valid: 1..%d)", m->type, MEMIF_MSG_TYPE_MAX);
		return -EPROTO;
	}
	want_fd = m->type == MEMIF_MSG_TYPE_ADD_REGION || m->type == MEMIF_MSG_TYPE_ADD_RING;
	if (want_fd && !has_fd) {
		why_set(why, "%s without its file descriptor", memif_msg_type_name(m->type));
		return -EPROTO;
	}
	if (!want_fd && has_fd) {
		why_set(why, "Unexpected file descriptor with %s", memif_msg_type_name(m->type));
		return -EPROTO;
	}
	name = msg_name(m);
	if (name != NULL && !nul_terminated(name, MEMIF_NAME_SZ)) {
		why_set(why, "%s name not NUL-terminated", memif_msg_type_name(m->type));
		return -EPROTO;
	}

	switch (m->type) {
	case MEMIF_MSG_TYPE_HELLO:
		if (m->hello.min_version > m->hello.max_version) {
			why_set(why, "HELLO min_version 0x%04x above max_version 0x%04x",
				m->hello.min_version, m->hello.max_version);
			return -EPROTO;
		}
		break;
	case MEMIF_MSG_TYPE_ADD_REGION:
		if (m->add_region.index >= MEMIF_MAX_REGIONS) {
			why_set(why, "Invalid region index %u (valid: 0..%d)", m->add_region.index,
				MEMIF_MAX_REGIONS - 1);
			return -EPROTO;
		}
		if (m->add_region.size == 0 || m->add_region.size > MEMIF_MAX_REGION_SIZE) {
			why_set(why, "Invalid region size %llu (valid: 1..%llu)",
				(unsigned long long)m->add_region.size,
				(unsigned long long)MEMIF_MAX_REGION_SIZE);
			return -EPROTO;
		}
		break;
	case MEMIF_MSG_TYPE_ADD_RING:
		if (m->add_ring.flags & ~MEMIF_MSG_ADD_RING_FLAG_C2S) {
			why_set(why, "Unknown ADD_RING flags 0x%x", m->add_ring.flags);
			return -EPROTO;
		}
		if (m->add_ring.index >= MEMIF_MAX_QUEUES) {
			why_set(why, "Invalid ring index %u (valid: 0..%d)", m->add_ring.index,
				MEMIF_MAX_QUEUES - 1);
			return -EPROTO;
		}
		if (m->add_ring.region >= MEMIF_MAX_REGIONS) {
			why_set(why, "Invalid ring region %u", m->add_ring.region);
			return -EPROTO;
		}
		if (m->add_ring.log2_ring_size < 1 ||
		    m->add_ring.log2_ring_size > MEMIF_MAX_LOG2_RING_SIZE) {
			why_set(why, "Invalid log2 ring size %u (valid: 1..%d)",
				m->add_ring.log2_ring_size, MEMIF_MAX_LOG2_RING_SIZE);
			return -EPROTO;
		}
		if (m->add_ring.private_hdr_size != 0) {
			why_set(why, "Ring private header of %u bytes not supported (0 only)",
				m->add_ring.private_hdr_size);
			return -EPROTO;
		}
		if (m->add_ring.offset % MEMIF_RING_ALIGN != 0) {
			why_set(why, "Ring offset %u not a multiple of %d", m->add_ring.offset,
				MEMIF_RING_ALIGN);
			return -EPROTO;
		}
		break;
	default:
		/*
		 * ACK has no fields, the names are checked above and DISCONNECT's
		 * string is sanitized when read.
		 */
		break;
	}
	return 0;
}

/* ------------------------------------------------------------------------
 * Message builders
 */

static void msg_zero(struct memif_msg *m, uint16_t type)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
}

void memif_msg_build_hello(struct memif_msg *m, const char *name)
{
	msg_zero(m, MEMIF_MSG_TYPE_HELLO);
	copy_name(m->hello.name, name, MEMIF_NAME_SZ);
	m->hello.min_version = MEMIF_VERSION;
	m->hello.max_version = MEMIF_VERSION;
	m->hello.max_region = MEMIF_MAX_REGIONS - 1;
	m->hello.max_c2s_ring = MEMIF_MAX_QUEUES - 1;
	m->hello.max_s2c_ring = MEMIF_MAX_QUEUES - 1;
	m->hello.max_log2_ring_size = MEMIF_MAX_LOG2_RING_SIZE;
}

void memif_msg_build_disconnect(struct memif_msg *m, uint32_t code, const char *reason)
{
	msg_zero(m, MEMIF_MSG_TYPE_DISCONNECT);
	m->disconnect.code = code;
	copy_name(m->disconnect.string, reason, MEMIF_DISC_STRING_SZ);
}

static void out_msg(struct memif_cc_out *out, const struct memif_msg *m, int fd)
{
	out->valid = true;
	out->fd = fd;
	out->msg = *m;
}

static void out_ack(struct memif_cc_out *out)
{
	struct memif_msg m;

	msg_zero(&m, MEMIF_MSG_TYPE_ACK);
	out_msg(out, &m, -1);
}

/* ------------------------------------------------------------------------
 * State machines
 */

static void close_collected_fds(struct memif_cc *cc)
{
	struct memif_conn_desc *c = &cc->conn;
	unsigned int i;

	if (!cc->owns_fds)
		return;
	for (i = 0; i < c->nregions; i++) {
		if (c->regions[i].fd >= 0)
			close(c->regions[i].fd);
		c->regions[i].fd = -1;
	}
	for (i = 0; i < MEMIF_MAX_QUEUES; i++) {
		if (c->c2s[i].present && c->c2s[i].fd >= 0)
			close(c->c2s[i].fd);
		if (c->s2c[i].present && c->s2c[i].fd >= 0)
			close(c->s2c[i].fd);
		c->c2s[i].present = false;
		c->s2c[i].present = false;
	}
	c->nregions = 0;
	cc->owns_fds = false;
}

static void conn_reset(struct memif_conn_desc *c)
{
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < MEMIF_MAX_REGIONS; i++)
		c->regions[i].fd = -1;
	for (i = 0; i < MEMIF_MAX_QUEUES; i++) {
		c->c2s[i].fd = -1;
		c->s2c[i].fd = -1;
	}
}

/* Reject: log, queue a DISCONNECT with the reason, close. */
static int __dvp_cold cc_fail(struct memif_cc *cc, const char *why, int err,
			      struct memif_cc_out *out)
{
	struct memif_msg m;
	bool was_up = cc->state != MEMIF_CC_CLOSED;

	MEMIF_LOG(ERR, "%s: closing the control channel: %s", cc->log_name, why);
	memif_msg_build_disconnect(&m, 0, why);
	out_msg(out, &m, -1);
	cc->state = MEMIF_CC_CLOSED;
	close_collected_fds(cc);
	if (was_up && cc->ops->disconnected != NULL && cc->cfg != NULL)
		cc->ops->disconnected(cc->ctx, false, why);
	return err;
}

void memif_cc_init(struct memif_cc *cc, enum memif_role role, const struct memif_if_cfg *cfg,
		   const struct memif_cc_ops *ops, void *ctx, const char *log_name,
		   struct memif_cc_out *out)
{
	struct memif_msg m;

	/* A server speaks first (HELLO); a client waits for it. */
	*cc = (struct memif_cc){
		.role = role,
		.state = role == MEMIF_ROLE_SERVER ? MEMIF_CC_S_WAIT_INIT : MEMIF_CC_C_WAIT_HELLO,
		.cfg = cfg,
		.ops = ops,
		.ctx = ctx,
		.log_name = log_name,
	};
	conn_reset(&cc->conn);
	out->valid = false;
	out->fd = -1;
	if (role == MEMIF_ROLE_SERVER) {
		memif_msg_build_hello(&m, cfg != NULL ? cfg->app_name : "dvpmd");
		out_msg(out, &m, -1);
	}
}

static const char *const state_doing[] = {
	[MEMIF_CC_S_WAIT_INIT] = "waiting for INIT",
	[MEMIF_CC_S_SETUP] = "taking regions and rings",
	[MEMIF_CC_C_WAIT_HELLO] = "waiting for HELLO",
	[MEMIF_CC_C_SETUP] = "waiting for ACK",
	[MEMIF_CC_C_WAIT_CONNECTED] = "waiting for CONNECTED",
	[MEMIF_CC_CONNECTED] = "connected",
	[MEMIF_CC_CLOSED] = "closed",
};

static int unexpected(struct memif_cc *cc, const struct memif_msg *m, const char *waiting,
		      struct memif_cc_out *out)
{
	char why[MEMIF_WHY_SZ];

	why_set(why, "Unexpected message %s while %s", memif_msg_type_name(m->type), waiting);
	return cc_fail(cc, why, -EPROTO, out);
}

static int secret_matches(const char *ours, const uint8_t *theirs)
{
	size_t n = strnlen(ours, MEMIF_SECRET_SZ);
	unsigned int diff = 0;
	size_t i;

	/* Compare all 24 bytes whatever differs first: no early exit to time. */
	for (i = 0; i < MEMIF_SECRET_SZ; i++)
		diff |= (unsigned int)((i < n ? (uint8_t)ours[i] : 0) ^ theirs[i]);
	return diff == 0;
}

static int server_init(struct memif_cc *cc, const struct memif_msg *m, struct memif_cc_out *out)
{
	const struct memif_msg_init *i = &m->init;
	const struct memif_if_cfg *cfg;
	char why[MEMIF_WHY_SZ] = "";

	if (i->version != MEMIF_VERSION) {
		why_set(why, "Incompatible memif version 0x%04x (supported: 0x%04x)", i->version,
			MEMIF_VERSION);
		return cc_fail(cc, why, -EPROTO, out);
	}
	cfg = cc->ops->lookup(cc->ctx, i->id, why);
	if (cfg == NULL) {
		if (why[0] == '\0')
			why_set(why, "ID not found");
		return cc_fail(cc, why, -EPROTO, out);
	}
	/* Found: a refusal from here on is the interface's to count and log. */
	cc->cfg = cfg;
	if (i->mode != MEMIF_INTERFACE_MODE_ETHERNET) {
		why_set(why, "Only ethernet mode supported (mode %u asked)", i->mode);
		return cc_fail(cc, why, -EPROTO, out);
	}
	if (cfg->secret[0] != '\0') {
		if (i->secret[0] == '\0')
			return cc_fail(cc, "Secret required", -EPROTO, out);
		if (!secret_matches(cfg->secret, i->secret))
			return cc_fail(cc, "Incorrect secret", -EPROTO, out);
	}
	memif_sanitize(cc->conn.remote_name, i->name, MEMIF_NAME_SZ - 1);
	cc->owns_fds = true;
	cc->state = MEMIF_CC_S_SETUP;
	out_ack(out);
	return 0;
}

static int server_add_region(struct memif_cc *cc, const struct memif_msg *m, int fd,
			     struct memif_cc_out *out)
{
	const struct memif_msg_add_region *r = &m->add_region;
	struct memif_conn_desc *c = &cc->conn;
	char why[MEMIF_WHY_SZ] = "";
	int ret;

	if (r->index != c->nregions) {
		close(fd);
		why_set(why, "Invalid region index %u (expected %u)", r->index, c->nregions);
		return cc_fail(cc, why, -EPROTO, out);
	}
	ret = cc->ops->check_region(cc->ctx, fd, r->size, why);
	if (ret < 0) {
		close(fd);
		return cc_fail(cc, why, ret, out);
	}
	c->regions[c->nregions].fd = fd;
	c->regions[c->nregions].size = r->size;
	c->nregions++;
	out_ack(out);
	return 0;
}

static int server_add_ring(struct memif_cc *cc, const struct memif_msg *m, int fd,
			   struct memif_cc_out *out)
{
	const struct memif_msg_add_ring *r = &m->add_ring;
	struct memif_conn_desc *c = &cc->conn;
	bool c2s = r->flags & MEMIF_MSG_ADD_RING_FLAG_C2S;
	unsigned int limit = c2s ? cc->cfg->nb_c2s : cc->cfg->nb_s2c;
	struct memif_ring_desc *d;
	char why[MEMIF_WHY_SZ] = "";
	int ret;

	if (r->index >= limit) {
		why_set(why, "Invalid ring index %u for %s rings (this interface has %u)", r->index,
			c2s ? "c2s" : "s2c", limit);
		goto reject;
	}
	d = c2s ? &c->c2s[r->index] : &c->s2c[r->index];
	if (d->present) {
		why_set(why, "Ring %s %u added twice", c2s ? "c2s" : "s2c", r->index);
		goto reject;
	}
	if (r->region >= c->nregions) {
		why_set(why, "Ring %s %u in region %u, but %u region(s) were added",
			c2s ? "c2s" : "s2c", r->index, r->region, c->nregions);
		goto reject;
	}
	if ((uint64_t)r->offset + memif_ring_bytes(r->log2_ring_size) >
	    c->regions[r->region].size) {
		why_set(why, "Ring %s %u (offset %u, %llu bytes) outside region %u of %llu bytes",
			c2s ? "c2s" : "s2c", r->index, r->offset,
			(unsigned long long)memif_ring_bytes(r->log2_ring_size), r->region,
			(unsigned long long)c->regions[r->region].size);
		goto reject;
	}
	ret = cc->ops->check_ring_fd(cc->ctx, fd, why);
	if (ret < 0) {
		close(fd);
		return cc_fail(cc, why, ret, out);
	}
	d->present = true;
	d->fd = fd;
	d->region = r->region;
	d->offset = r->offset;
	d->log2_ring_size = r->log2_ring_size;
	if (c2s)
		c->nb_c2s = (uint16_t)DVP_MAX(c->nb_c2s, r->index + 1u);
	else
		c->nb_s2c = (uint16_t)DVP_MAX(c->nb_s2c, r->index + 1u);
	out_ack(out);
	return 0;

reject:
	close(fd);
	return cc_fail(cc, why, -EPROTO, out);
}

static int rings_contiguous(const struct memif_ring_desc *d, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (!d[i].present)
			return (int)i;
	return -1;
}

static int server_connect(struct memif_cc *cc, const struct memif_msg *m, struct memif_cc_out *out)
{
	struct memif_conn_desc *c = &cc->conn;
	char why[MEMIF_WHY_SZ] = "";
	struct memif_msg r;
	int hole, ret;

	if (c->nb_c2s + c->nb_s2c == 0)
		return cc_fail(cc, "CONNECT before any ring was added", -EPROTO, out);
	hole = rings_contiguous(c->c2s, c->nb_c2s);
	if (hole < 0)
		hole = rings_contiguous(c->s2c, c->nb_s2c);
	if (hole >= 0) {
		why_set(why, "CONNECT with ring %d missing", hole);
		return cc_fail(cc, why, -EPROTO, out);
	}
	memif_sanitize(c->remote_if_name, m->connect.if_name, MEMIF_NAME_SZ - 1);
	ret = cc->ops->connected(cc->ctx, c, why);
	if (ret < 0)
		return cc_fail(cc, why[0] ? why : "Failed to connect", ret, out);
	/* The interface owns the fds now. */
	cc->owns_fds = false;
	cc->state = MEMIF_CC_CONNECTED;
	msg_zero(&r, MEMIF_MSG_TYPE_CONNECTED);
	copy_name(r.connected.if_name, cc->cfg->if_name, MEMIF_NAME_SZ);
	out_msg(out, &r, -1);
	return 0;
}

static int client_hello(struct memif_cc *cc, const struct memif_msg *m, struct memif_cc_out *out)
{
	const struct memif_msg_hello *h = &m->hello;
	const struct memif_if_cfg *cfg = cc->cfg;
	struct memif_conn_desc *c = &cc->conn;
	char why[MEMIF_WHY_SZ] = "";
	int ret;

	if (h->min_version > MEMIF_VERSION || h->max_version < MEMIF_VERSION) {
		why_set(why, "Incompatible memif version: server 0x%04x..0x%04x, ours 0x%04x",
			h->min_version, h->max_version, MEMIF_VERSION);
		return cc_fail(cc, why, -EPROTO, out);
	}
	c->nb_c2s = (uint16_t)DVP_MIN((unsigned int)h->max_c2s_ring + 1, cfg->nb_c2s);
	c->nb_s2c = (uint16_t)DVP_MIN((unsigned int)h->max_s2c_ring + 1, cfg->nb_s2c);
	c->log2_ring_size = DVP_MIN(h->max_log2_ring_size, cfg->log2_ring_size);
	c->bsize = cfg->bsize;
	if (c->log2_ring_size < 1) {
		why_set(why, "Server allows rings of %u slot(s) only", 1u << h->max_log2_ring_size);
		return cc_fail(cc, why, -EPROTO, out);
	}
	memif_sanitize(c->remote_name, h->name, MEMIF_NAME_SZ - 1);
	ret = cc->ops->prepare(cc->ctx, c, why);
	if (ret < 0)
		return cc_fail(cc, why[0] ? why : "Failed to create shared memory", ret, out);
	if (c->nregions == 0 || c->nregions > (unsigned int)h->max_region + 1) {
		why_set(why, "Server takes %u region(s), we need %u", h->max_region + 1u,
			c->nregions);
		return cc_fail(cc, why, -EPROTO, out);
	}
	cc->state = MEMIF_CC_C_SETUP;
	cc->step = 0;
	return 1;
}

/* The client's setup sequence: INIT, regions, c2s rings, s2c rings, CONNECT. */
static void client_next(struct memif_cc *cc, struct memif_cc_out *out)
{
	const struct memif_if_cfg *cfg = cc->cfg;
	struct memif_conn_desc *c = &cc->conn;
	unsigned int s = cc->step++;
	const struct memif_ring_desc *d;
	struct memif_msg m;
	bool c2s;

	if (s == 0) {
		msg_zero(&m, MEMIF_MSG_TYPE_INIT);
		m.init.version = MEMIF_VERSION;
		m.init.id = cfg->id;
		m.init.mode = MEMIF_INTERFACE_MODE_ETHERNET;
		memcpy(m.init.secret, cfg->secret, strnlen(cfg->secret, MEMIF_SECRET_SZ));
		copy_name(m.init.name, cfg->app_name, MEMIF_NAME_SZ);
		out_msg(out, &m, -1);
		return;
	}
	s--;
	if (s < c->nregions) {
		msg_zero(&m, MEMIF_MSG_TYPE_ADD_REGION);
		m.add_region.index = (uint16_t)s;
		m.add_region.size = c->regions[s].size;
		out_msg(out, &m, c->regions[s].fd);
		return;
	}
	s -= c->nregions;
	if (s < (unsigned int)c->nb_c2s + c->nb_s2c) {
		c2s = s < c->nb_c2s;
		if (!c2s)
			s -= c->nb_c2s;
		d = c2s ? &c->c2s[s] : &c->s2c[s];
		msg_zero(&m, MEMIF_MSG_TYPE_ADD_RING);
		m.add_ring.flags = c2s ? MEMIF_MSG_ADD_RING_FLAG_C2S : 0;
		m.add_ring.index = (uint16_t)s;
		m.add_ring.region = d->region;
		m.add_ring.offset = d->offset;
		m.add_ring.log2_ring_size = d->log2_ring_size;
		out_msg(out, &m, d->fd);
		return;
	}
	msg_zero(&m, MEMIF_MSG_TYPE_CONNECT);
	copy_name(m.connect.if_name, cfg->if_name, MEMIF_NAME_SZ);
	out_msg(out, &m, -1);
	cc->state = MEMIF_CC_C_WAIT_CONNECTED;
}

static int client_connected(struct memif_cc *cc, const struct memif_msg *m,
			    struct memif_cc_out *out)
{
	struct memif_conn_desc *c = &cc->conn;
	char why[MEMIF_WHY_SZ] = "";
	int ret;

	memif_sanitize(c->remote_if_name, m->connected.if_name, MEMIF_NAME_SZ - 1);
	ret = cc->ops->connected(cc->ctx, c, why);
	if (ret < 0)
		return cc_fail(cc, why[0] ? why : "Failed to connect", ret, out);
	cc->state = MEMIF_CC_CONNECTED;
	return 0;
}

static int peer_disconnect(struct memif_cc *cc, const struct memif_msg *m)
{
	char reason[MEMIF_DISC_STRING_SZ];
	bool was_bound = cc->cfg != NULL;

	memif_sanitize(reason, m->disconnect.string, MEMIF_DISC_STRING_SZ - 1);
	MEMIF_LOG(ERR, "%s: peer disconnected: %s (code %u)", cc->log_name,
		  reason[0] ? reason : "no reason given", m->disconnect.code);
	cc->state = MEMIF_CC_CLOSED;
	close_collected_fds(cc);
	if (was_bound && cc->ops->disconnected != NULL)
		cc->ops->disconnected(cc->ctx, true, reason);
	return -ECONNRESET;
}

int memif_cc_input(struct memif_cc *cc, const void *buf, size_t len, int fd,
		   struct memif_cc_out *out)
{
	char why[MEMIF_WHY_SZ];
	struct memif_msg m;
	int ret;

	out->valid = false;
	out->fd = -1;
	if (cc->state == MEMIF_CC_CLOSED) {
		if (fd >= 0)
			close(fd);
		return -EPIPE;
	}
	ret = memif_msg_check(buf, len, fd >= 0, why);
	if (ret < 0) {
		if (fd >= 0)
			close(fd);
		return cc_fail(cc, why, ret, out);
	}
	/* Work on an aligned copy: the packed fields are then plain loads. */
	memcpy(&m, buf, sizeof(m));
	MEMIF_LOG(DEBUG, "%s: received %s", cc->log_name, memif_msg_type_name(m.type));

	if (m.type == MEMIF_MSG_TYPE_DISCONNECT)
		return peer_disconnect(cc, &m);

	switch (cc->state) {
	case MEMIF_CC_S_WAIT_INIT:
		if (m.type != MEMIF_MSG_TYPE_INIT)
			break;
		return server_init(cc, &m, out);
	case MEMIF_CC_S_SETUP:
		if (m.type == MEMIF_MSG_TYPE_ADD_REGION)
			return server_add_region(cc, &m, fd, out);
		if (m.type == MEMIF_MSG_TYPE_ADD_RING)
			return server_add_ring(cc, &m, fd, out);
		if (m.type == MEMIF_MSG_TYPE_CONNECT)
			return server_connect(cc, &m, out);
		break;
	case MEMIF_CC_C_WAIT_HELLO:
		if (m.type != MEMIF_MSG_TYPE_HELLO)
			break;
		ret = client_hello(cc, &m, out);
		if (ret > 0) {
			client_next(cc, out);
			ret = 0;
		}
		return ret;
	case MEMIF_CC_C_SETUP:
		if (m.type == MEMIF_MSG_TYPE_ACK) {
			client_next(cc, out);
			return 0;
		}
		break;
	case MEMIF_CC_C_WAIT_CONNECTED:
		if (m.type == MEMIF_MSG_TYPE_CONNECTED)
			return client_connected(cc, &m, out);
		break;
	default:
		break;
	}
	if (fd >= 0)
		close(fd);
	return unexpected(cc, &m, state_doing[cc->state], out);
}

void memif_cc_close(struct memif_cc *cc, const char *reason, struct memif_cc_out *out)
{
	bool was_open = cc->state != MEMIF_CC_CLOSED;

	out->valid = false;
	out->fd = -1;
	if (!was_open)
		return;
	if (reason != NULL) {
		struct memif_msg m;

		memif_msg_build_disconnect(&m, 0, reason);
		out_msg(out, &m, -1);
	}
	cc->state = MEMIF_CC_CLOSED;
	close_collected_fds(cc);
	if (cc->cfg != NULL && cc->ops->disconnected != NULL)
		cc->ops->disconnected(cc->ctx, false, reason != NULL ? reason : "closed");
}
