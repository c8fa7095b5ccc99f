/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * memif control channel: the message checker, and the client and server
 * state machines talking to each other in one process with real shared
 * memory and fds, then each rejection a broken or hostile peer earns.
 * Every test also checks that no fd leaks.
 */

#include "dvp_test.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include "memif_cc.h"
#include "memif_shm.h"

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL)
		n++;
	closedir(d);
	return n;
}

/* ------------------------------------------------------------------------
 * An environment for the state machines: real shared memory on both sides.
 */

struct side {
	struct memif_cc cc;
	struct memif_if_cfg cfg;
	struct memif_shm shm;
	bool up;
	bool down;
	bool down_by_peer;
	char down_reason[MEMIF_WHY_SZ];
	bool busy; /* server: answer lookups with "Already connected" */
};

static const struct memif_if_cfg *t_lookup(void *ctx, uint32_t id, char *why)
{
	struct side *s = ctx;

	if (id != s->cfg.id) {
		snprintf(why, MEMIF_WHY_SZ, "ID not found");
		return NULL;
	}
	if (s->busy) {
		snprintf(why, MEMIF_WHY_SZ, "Already connected");
		return NULL;
	}
	return &s->cfg;
}

static int t_check_region(void *ctx, int fd, uint64_t size, char *why)
{
	(void)ctx;
	return memif_region_check_fd(fd, size, why);
}

static int t_check_ring_fd(void *ctx, int fd, char *why)
{
	(void)ctx;
	return memif_check_eventfd(fd, why);
}

static int t_prepare(void *ctx, struct memif_conn_desc *c, char *why)
{
	struct side *s = ctx;

	return memif_shm_client_create(&s->shm, c, why);
}

static int t_connected(void *ctx, struct memif_conn_desc *c, char *why)
{
	struct side *s = ctx;
	int ret = 0;

	if (s->cfg.role == MEMIF_ROLE_SERVER)
		ret = memif_shm_server_map(&s->shm, c, why);
	if (ret == 0)
		s->up = true;
	return ret;
}

static void t_disconnected(void *ctx, bool by_peer, const char *reason)
{
	struct side *s = ctx;

	s->down = true;
	s->up = false;
	s->down_by_peer = by_peer;
	snprintf(s->down_reason, sizeof(s->down_reason), "%s", reason);
}

static const struct memif_cc_ops t_ops = {
	.lookup = t_lookup,
	.check_region = t_check_region,
	.check_ring_fd = t_check_ring_fd,
	.prepare = t_prepare,
	.connected = t_connected,
	.disconnected = t_disconnected,
};

static void side_cfg(struct side *s, enum memif_role role)
{
	memset(s, 0, sizeof(*s));
	memif_shm_reset(&s->shm);
	s->cfg.role = role;
	s->cfg.id = 7;
	snprintf(s->cfg.app_name, sizeof(s->cfg.app_name), "dvpmd test");
	snprintf(s->cfg.if_name, sizeof(s->cfg.if_name),
		 role == MEMIF_ROLE_CLIENT ? "net_memif_c" : "net_memif_s");
	s->cfg.nb_c2s = 2;
	s->cfg.nb_s2c = 3;
	s->cfg.log2_ring_size = 4;
	s->cfg.bsize = 256;
}

/* Deliver @out (as sendmsg + recvmsg would: the fd is duplicated) to @to. */
static int deliver(struct side *to, const struct memif_cc_out *out)
{
	int fd = -1;

	assert_true(out->valid);
	if (out->fd >= 0) {
		fd = dup(out->fd);
		assert_true(fd >= 0);
	}
	return memif_cc_input(&to->cc, &out->msg, sizeof(out->msg), fd,
			      &(struct memif_cc_out){ .fd = -1 });
}

/* Run the handshake to its end; @return the last error, or 0 when both are up. */
static int pump(struct side *c, struct side *s, struct memif_cc_out *last)
{
	struct memif_cc_out out;
	struct side *from = s, *to = c;
	int ret, i;

	memif_cc_init(&c->cc, MEMIF_ROLE_CLIENT, &c->cfg, &t_ops, c, "client", &out);
	assert_false(out.valid);
	memif_cc_init(&s->cc, MEMIF_ROLE_SERVER, NULL, &t_ops, s, "server", &out);
	assert_true(out.valid);
	assert_int_equal(out.msg.type, MEMIF_MSG_TYPE_HELLO);
	for (i = 0; i < 100 && out.valid; i++) {
		int fd = -1;
		struct side *tmp;

		if (out.fd >= 0)
			fd = dup(out.fd);
		*last = out;
		ret = memif_cc_input(&to->cc, &out.msg, sizeof(out.msg), fd, &out);
		if (ret < 0) {
			if (out.valid) /* the DISCONNECT goes to the other side */
				(void)deliver(from, &out);
			*last = out;
			return ret;
		}
		tmp = from;
		from = to;
		to = tmp;
	}
	return (c->cc.state == MEMIF_CC_CONNECTED && s->cc.state == MEMIF_CC_CONNECTED) ? 0 :
											  -EAGAIN;
}

static void teardown_pair(struct side *c, struct side *s)
{
	struct memif_cc_out out;

	memif_cc_close(&c->cc, NULL, &out);
	memif_cc_close(&s->cc, NULL, &out);
	memif_shm_release(&c->shm);
	memif_shm_release(&s->shm);
}

/* ------------------------------------------------------------------------
 * Tests
 */

static void test_handshake_and_shared_rings(void **state)
{
	struct side c, s;
	struct memif_cc_out last;
	int fds = count_fds();
	unsigned int q;

	(void)state;
	side_cfg(&c, MEMIF_ROLE_CLIENT);
	side_cfg(&s, MEMIF_ROLE_SERVER);
	assert_int_equal(pump(&c, &s, &last), 0);
	assert_true(c.up);
	assert_true(s.up);
	assert_string_equal(c.cc.conn.remote_if_name, "net_memif_s");
	assert_string_equal(s.cc.conn.remote_if_name, "net_memif_c");
	assert_string_equal(s.cc.conn.remote_name, "dvpmd test");

	/* HELLO offered 255 rings; INIT then rings as negotiated. */
	assert_int_equal(c.shm.nb_c2s, 2);
	assert_int_equal(c.shm.nb_s2c, 3);
	assert_int_equal(s.shm.nb_c2s, 2);
	assert_int_equal(s.shm.nb_s2c, 3);
	for (q = 0; q < 3; q++) {
		struct memif_ring *cr = c.shm.s2c[q].ring, *sr = s.shm.s2c[q].ring;

		assert_int_equal(sr->cookie, MEMIF_COOKIE);
		assert_int_equal(s.shm.s2c[q].log2_ring_size, 4);
		/* Same memory: a store on one side is seen on the other. */
		cr->head = (uint16_t)(100 + q);
		assert_int_equal(sr->head, 100 + q);
		assert_int_equal(sr->desc[3].length, 256);
		assert_true(memif_shm_buf_ok(&s.shm, sr->desc[3].region, sr->desc[3].offset,
					     sr->desc[3].length));
	}
	/* Copy-mode buffers of different rings never overlap. */
	assert_int_equal(c.shm.s2c[0].ring->desc[0].offset,
			 c.shm.c2s[1].ring->desc[15].offset + 256);
	teardown_pair(&c, &s);
	assert_int_equal(count_fds(), fds);
}

static void test_bad_secret(void **state)
{
	struct side c, s;
	struct memif_cc_out last;
	int fds = count_fds();

	(void)state;
	side_cfg(&c, MEMIF_ROLE_CLIENT);
	side_cfg(&s, MEMIF_ROLE_SERVER);
	snprintf(s.cfg.secret, sizeof(s.cfg.secret), "right");
	snprintf(c.cfg.secret, sizeof(c.cfg.secret), "wrong");
	assert_int_equal(pump(&c, &s, &last), -EPROTO);
	assert_int_equal(last.msg.type, MEMIF_MSG_TYPE_DISCONNECT);
	assert_string_equal((char *)last.msg.disconnect.string, "Incorrect secret");
	/* The client heard the reason from the peer. */
	assert_true(c.down);
	assert_true(c.down_by_peer);
	assert_string_equal(c.down_reason, "Incorrect secret");
	assert_false(s.up);
	teardown_pair(&c, &s);

	side_cfg(&c, MEMIF_ROLE_CLIENT);
	side_cfg(&s, MEMIF_ROLE_SERVER);
	snprintf(s.cfg.secret, sizeof(s.cfg.secret), "right");
	assert_int_equal(pump(&c, &s, &last), -EPROTO);
	assert_string_equal(c.down_reason, "Secret required");
	teardown_pair(&c, &s);

	/* 24 characters: the field is full and carries no NUL. */
	side_cfg(&c, MEMIF_ROLE_CLIENT);
	side_cfg(&s, MEMIF_ROLE_SERVER);
	snprintf(s.cfg.secret, sizeof(s.cfg.secret), "abcdefghijklmnopqrstuvwx");
	snprintf(c.cfg.secret, sizeof(c.cfg.secret), "abcdefghijklmnopqrstuvwx");
	assert_int_equal(pump(&c, &s, &last), 0);
	teardown_pair(&c, &s);
	snprintf(c.cfg.secret, sizeof(c.cfg.secret), "abcdefghijklmnopqrstuvwy");
	assert_int_equal(pump(&c, &s, &last), -EPROTO);
	assert_string_equal(c.down_reason, "Incorrect secret");
	teardown_pair(&c, &s);
	assert_int_equal(count_fds(), fds);
}

static void test_id_not_found_and_busy(void **state)
{
	struct side c, s;
	struct memif_cc_out last;
	int fds = count_fds();

	(void)state;
	side_cfg(&c, MEMIF_ROLE_CLIENT);
	side_cfg(&s, MEMIF_ROLE_SERVER);
	c.cfg.id = 8;
	assert_int_equal(pump(&c, &s, &last), -EPROTO);
	assert_string_equal(c.down_reason, "ID not found");
	assert_false(s.down); /* the server's interface was never bound */
	teardown_pair(&c, &s);

	side_cfg(&c, MEMIF_ROLE_CLIENT);
	side_cfg(&s, MEMIF_ROLE_SERVER);
	s.busy = true;
	assert_int_equal(pump(&c, &s, &last), -EPROTO);
	assert_string_equal(c.down_reason, "Already connected");
	teardown_pair(&c, &s);
	assert_int_equal(count_fds(), fds);
}

/* Feed a hand-made message to a server that has accepted INIT. */
static int server_after_init(struct side *s, struct memif_cc_out *out)
{
	struct memif_msg m;

	side_cfg(s, MEMIF_ROLE_SERVER);
	memif_cc_init(&s->cc, MEMIF_ROLE_SERVER, NULL, &t_ops, s, "server", out);
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_INIT;
	m.init.version = MEMIF_VERSION;
	m.init.id = 7;
	return memif_cc_input(&s->cc, &m, sizeof(m), -1, out);
}

static int memfd_of(uint64_t size, bool seal)
{
	int fd = memfd_create("t", MFD_ALLOW_SEALING);

	assert_true(fd >= 0);
	if (seal)
		assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK), 0);
	assert_int_equal(ftruncate(fd, (off_t)size), 0);
	return fd;
}

static void add_region(struct memif_msg *m, uint16_t index, uint64_t size)
{
	memset(m, 0, sizeof(*m));
	m->type = MEMIF_MSG_TYPE_ADD_REGION;
	m->add_region.index = index;
	m->add_region.size = size;
}

static void add_ring(struct memif_msg *m, bool c2s, uint16_t index, uint16_t region,
		     uint32_t offset, uint8_t log2)
{
	memset(m, 0, sizeof(*m));
	m->type = MEMIF_MSG_TYPE_ADD_RING;
	m->add_ring.flags = c2s ? MEMIF_MSG_ADD_RING_FLAG_C2S : 0;
	m->add_ring.index = index;
	m->add_ring.region = region;
	m->add_ring.offset = offset;
	m->add_ring.log2_ring_size = log2;
}

static void expect_reject(struct side *s, const struct memif_msg *m, int fd, const char *why)
{
	struct memif_cc_out out;

	assert_true(memif_cc_input(&s->cc, m, sizeof(*m), fd, &out) < 0);
	assert_true(out.valid);
	assert_int_equal(out.msg.type, MEMIF_MSG_TYPE_DISCONNECT);
	assert_contains((char *)out.msg.disconnect.string, why);
	assert_int_equal(s->cc.state, MEMIF_CC_CLOSED);
	memif_cc_close(&s->cc, NULL, &out);
	memif_shm_release(&s->shm);
}

static void test_server_rejects(void **state)
{
	struct side s;
	struct memif_cc_out out;
	struct memif_msg m;
	int fds = count_fds();
	int pfd[2];

	(void)state;
	/* Region out of order. */
	assert_int_equal(server_after_init(&s, &out), 0);
	assert_int_equal(out.msg.type, MEMIF_MSG_TYPE_ACK);
	add_region(&m, 1, 4096);
	expect_reject(&s, &m, memfd_of(4096, true), "Invalid region index 1 (expected 0)");

	/* A region larger than its file. */
	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 8192);
	expect_reject(&s, &m, memfd_of(4096, true), "but its file has 4096");

	/* A region smaller than announced, even when we seal it ourselves. */
	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 8192);
	expect_reject(&s, &m, memfd_of(4096, false), "but its file has 4096");

	/* A pipe as a region. */
	assert_int_equal(server_after_init(&s, &out), 0);
	assert_int_equal(pipe(pfd), 0);
	close(pfd[1]);
	add_region(&m, 0, 4096);
	expect_reject(&s, &m, pfd[0], "not a memory file");

	/* Rings: outside the region, unknown region, index over the limit, twice, not an eventfd. */
	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), memfd_of(4096, true), &out), 0);
	add_ring(&m, true, 0, 0, 4096 - 128, 4);
	expect_reject(&s, &m, eventfd(0, 0), "outside region 0");

	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), memfd_of(4096, true), &out), 0);
	add_ring(&m, true, 0, 1, 0, 4);
	expect_reject(&s, &m, eventfd(0, 0), "region(s) were added");

	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), memfd_of(4096, true), &out), 0);
	add_ring(&m, false, 3, 0, 0, 4);
	expect_reject(&s, &m, eventfd(0, 0), "Invalid ring index 3 for s2c rings");

	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), memfd_of(4096, true), &out), 0);
	add_ring(&m, false, 0, 0, 0, 4);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), eventfd(0, 0), &out), 0);
	expect_reject(&s, &m, eventfd(0, 0), "added twice");

	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), memfd_of(4096, true), &out), 0);
	add_ring(&m, false, 0, 0, 0, 4);
	expect_reject(&s, &m, memfd_of(16, true), "not an eventfd");

	/* CONNECT with a hole, and a ring without a cookie. */
	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), memfd_of(4096, true), &out), 0);
	add_ring(&m, false, 1, 0, 0, 4);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), eventfd(0, 0), &out), 0);
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_CONNECT;
	expect_reject(&s, &m, -1, "ring 0 missing");

	assert_int_equal(server_after_init(&s, &out), 0);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), memfd_of(4096, true), &out), 0);
	add_ring(&m, true, 0, 0, 0, 4);
	assert_int_equal(memif_cc_input(&s.cc, &m, sizeof(m), eventfd(0, 0), &out), 0);
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_CONNECT;
	expect_reject(&s, &m, -1, "Wrong ring: c2s 0 has cookie 0x0");

	/* Messages out of place. */
	assert_int_equal(server_after_init(&s, &out), 0);
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_HELLO;
	expect_reject(&s, &m, -1, "Unexpected message HELLO while taking regions and rings");

	side_cfg(&s, MEMIF_ROLE_SERVER);
	memif_cc_init(&s.cc, MEMIF_ROLE_SERVER, NULL, &t_ops, &s, "server", &out);
	add_region(&m, 0, 4096);
	expect_reject(&s, &m, memfd_of(4096, true), "Unexpected message ADD_REGION while waiting");

	/* INIT of another version or mode. */
	side_cfg(&s, MEMIF_ROLE_SERVER);
	memif_cc_init(&s.cc, MEMIF_ROLE_SERVER, NULL, &t_ops, &s, "server", &out);
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_INIT;
	m.init.version = 0x0100;
	m.init.id = 7;
	expect_reject(&s, &m, -1, "Incompatible memif version 0x0100");

	side_cfg(&s, MEMIF_ROLE_SERVER);
	memif_cc_init(&s.cc, MEMIF_ROLE_SERVER, NULL, &t_ops, &s, "server", &out);
	m.init.version = MEMIF_VERSION;
	m.init.mode = MEMIF_INTERFACE_MODE_IP;
	expect_reject(&s, &m, -1, "Only ethernet mode supported");
	assert_int_equal(count_fds(), fds);
}

static void test_client_rejects(void **state)
{
	struct side c;
	struct memif_cc_out out;
	struct memif_msg m;
	int fds = count_fds();

	(void)state;
	side_cfg(&c, MEMIF_ROLE_CLIENT);
	memif_cc_init(&c.cc, MEMIF_ROLE_CLIENT, &c.cfg, &t_ops, &c, "client", &out);
	memif_msg_build_hello(&m, "srv");
	m.hello.min_version = 0x0300;
	m.hello.max_version = 0x0300;
	assert_int_equal(memif_cc_input(&c.cc, &m, sizeof(m), -1, &out), -EPROTO);
	assert_contains((char *)out.msg.disconnect.string, "Incompatible memif version");
	assert_true(c.down);
	assert_false(c.down_by_peer);

	side_cfg(&c, MEMIF_ROLE_CLIENT);
	memif_cc_init(&c.cc, MEMIF_ROLE_CLIENT, &c.cfg, &t_ops, &c, "client", &out);
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_ACK;
	assert_int_equal(memif_cc_input(&c.cc, &m, sizeof(m), -1, &out), -EPROTO);
	assert_contains((char *)out.msg.disconnect.string, "Unexpected message ACK");

	/* A server that limits rings and ring size: the client follows. */
	side_cfg(&c, MEMIF_ROLE_CLIENT);
	memif_cc_init(&c.cc, MEMIF_ROLE_CLIENT, &c.cfg, &t_ops, &c, "client", &out);
	memif_msg_build_hello(&m, "srv");
	m.hello.max_c2s_ring = 0;
	m.hello.max_log2_ring_size = 2;
	assert_int_equal(memif_cc_input(&c.cc, &m, sizeof(m), -1, &out), 0);
	assert_int_equal(out.msg.type, MEMIF_MSG_TYPE_INIT);
	assert_int_equal(c.cc.conn.nb_c2s, 1);
	assert_int_equal(c.cc.conn.nb_s2c, 3);
	assert_int_equal(c.cc.conn.log2_ring_size, 2);
	/* Peer's DISCONNECT, with a string that is not NUL-terminated nor printable. */
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_DISCONNECT;
	memset(m.disconnect.string, 'x', sizeof(m.disconnect.string));
	m.disconnect.string[0] = 0x07;
	assert_int_equal(memif_cc_input(&c.cc, &m, sizeof(m), -1, &out), -ECONNRESET);
	assert_false(out.valid);
	assert_true(c.down_by_peer);
	assert_int_equal(c.down_reason[0], '?');
	assert_int_equal(strlen(c.down_reason), MEMIF_DISC_STRING_SZ - 1);
	/* Closed: further input is refused and its fd closed. */
	assert_int_equal(memif_cc_input(&c.cc, &m, sizeof(m), eventfd(0, 0), &out), -EPIPE);
	memif_shm_release(&c.shm);
	assert_int_equal(count_fds(), fds);
}

static void test_msg_check(void **state)
{
	char why[MEMIF_WHY_SZ];
	struct memif_msg m;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_ACK;
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), 0);
	assert_int_equal(memif_msg_check(&m, 127, false, why), -EPROTO);
	assert_contains(why, "Invalid message size: 127 bytes, expected 128");
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	assert_contains(why, "Unexpected file descriptor with ACK");
	m.type = 0;
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);
	assert_contains(why, "Unknown message type 0");
	m.type = 9;
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);

	memif_msg_build_hello(&m, "x");
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), 0);
	memset(m.hello.name, 'a', sizeof(m.hello.name));
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);
	assert_contains(why, "HELLO name not NUL-terminated");
	memif_msg_build_hello(&m, "x");
	m.hello.min_version = 0x0300;
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);
	assert_contains(why, "min_version");

	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_INIT;
	memset(m.init.name, 'n', sizeof(m.init.name));
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);
	assert_contains(why, "INIT name");

	add_region(&m, 0, 0);
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	assert_contains(why, "Invalid region size 0");
	add_region(&m, 256, 4096);
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	add_region(&m, 0, 4096);
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);
	assert_contains(why, "ADD_REGION without its file descriptor");

	add_ring(&m, true, 0, 0, 0, 0);
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	assert_contains(why, "Invalid log2 ring size 0 (valid: 1..14)");
	add_ring(&m, true, 0, 0, 0, 15);
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	add_ring(&m, true, 255, 0, 0, 4);
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	add_ring(&m, true, 0, 0, 8, 4);
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	assert_contains(why, "not a multiple of 16");
	add_ring(&m, true, 0, 0, 0, 4);
	m.add_ring.flags = 2;
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	add_ring(&m, true, 0, 0, 0, 4);
	m.add_ring.private_hdr_size = 8;
	assert_int_equal(memif_msg_check(&m, sizeof(m), true, why), -EPROTO);
	assert_contains(why, "private header");

	memset(&m, 0, sizeof(m));
	m.type = MEMIF_MSG_TYPE_CONNECT;
	memset(m.connect.if_name, 'i', sizeof(m.connect.if_name));
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);
	m.type = MEMIF_MSG_TYPE_CONNECTED;
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), -EPROTO);
	m.type = MEMIF_MSG_TYPE_DISCONNECT;
	assert_int_equal(memif_msg_check(&m, sizeof(m), false, why), 0);
}

static void test_layout_and_shm(void **state)
{
	char why[MEMIF_WHY_SZ];
	struct memif_layout l;
	int fd;

	(void)state;
	/* DPDK's defaults: 1+1 rings of 1024 x 2048 bytes. */
	assert_int_equal(memif_layout_copy(1, 1, 10, 2048, &l, why), 0);
	assert_int_equal(l.ring_bytes, 128 + 16 * 1024);
	assert_int_equal(l.buffers_off, 2 * (128 + 16 * 1024));
	assert_int_equal(l.size, l.buffers_off + 2 * 1024 * 2048);
	assert_int_equal(memif_layout_copy(255, 255, 14, 65535, &l, why), -EINVAL);
	assert_contains(why, "exceeds 4 GiB");
	assert_int_equal(memif_layout_copy(0, 0, 10, 2048, &l, why), -EINVAL);

	fd = eventfd(0, 0);
	assert_int_equal(memif_check_eventfd(fd, why), 0);
	assert_true(fcntl(fd, F_GETFL) & O_NONBLOCK);
	close(fd);
	fd = memfd_of(4096, true);
	assert_int_equal(memif_region_check_fd(fd, 4096, why), 0);
	assert_int_equal(memif_region_check_fd(fd, 4097, why), -EPROTO);
	assert_int_equal(memif_check_eventfd(fd, why), -EPROTO);
	close(fd);
}

/* A memfd that allows sealing but is not sealed: we seal it against shrinking. */
static void test_unsealed_region_gets_sealed(void **state)
{
	char why[MEMIF_WHY_SZ];
	int fd = memfd_of(4096, false);

	(void)state;
	assert_false(memif_region_sealed(fd));
	assert_int_equal(memif_region_check_fd(fd, 4096, why), 0);
	assert_true(memif_region_sealed(fd));
	assert_true(ftruncate(fd, 0) < 0);
	close(fd);
}

/*
 * A region that cannot be sealed (a memfd made without MFD_ALLOW_SEALING,
 * as DPDK's --no-huge memory; hugetlbfs files are alike) is mapped under
 * the SIGBUS guard: the peer truncates it, our next access reads zeros
 * instead of killing the process, and the release reports it.
 */
static void test_truncated_region_reads_zeros(void **state)
{
	struct memif_conn_desc c;
	struct memif_shm shm;
	struct dvp_log_capture cap;
	char why[MEMIF_WHY_SZ] = "";
	volatile uint8_t *p;
	struct memif_ring *r;
	int fd, keep, fds = count_fds();
	unsigned int i;

	(void)state;
	fd = memfd_create("t_unsealable", 0);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 3 * 4096), 0);
	r = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	assert_true(r != MAP_FAILED);
	r->cookie = MEMIF_COOKIE;
	munmap(r, 4096);
	keep = dup(fd);
	assert_int_equal(memif_region_check_fd(fd, 3 * 4096, why), 0);
	assert_false(memif_region_sealed(fd));

	memset(&c, 0, sizeof(c));
	for (i = 0; i < MEMIF_MAX_QUEUES; i++)
		c.c2s[i].fd = c.s2c[i].fd = -1;
	c.nregions = 1;
	c.regions[0].fd = fd;
	c.regions[0].size = 3 * 4096;
	c.nb_c2s = 1;
	c.c2s[0] = (struct memif_ring_desc){ .present = true,
					     .fd = eventfd(0, 0),
					     .log2_ring_size = 4 };
	assert_int_equal(memif_shm_server_map(&shm, &c, why), 0);
	assert_true(shm.regions[0].guarded);
	p = shm.regions[0].addr;
	p[5000] = 0xab;
	assert_int_equal(p[5000], 0xab);

	/* The peer shrinks the file: our accesses past its end fault, and are caught. */
	assert_int_equal(ftruncate(keep, 0), 0);
	assert_int_equal(p[5000], 0);
	p[9000] = 1;
	assert_int_equal(p[0], 0);
	assert_int_equal(memif_guard_faults(shm.regions[0].addr), 1);

	dvp_log_set_global_level(DVP_LOG_WARNING);
	dvp_log_capture_begin(&cap);
	memif_shm_release(&shm);
	dvp_log_capture_end(&cap);
	dvp_log_set_global_level(DVP_LOG_CRIT);
	assert_contains(cap.buf, "region 0 was truncated by the peer while mapped");
	dvp_log_capture_free(&cap);
	close(keep);
	assert_int_equal(count_fds(), fds);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_msg_check),
		cmocka_unit_test(test_layout_and_shm),
		cmocka_unit_test(test_handshake_and_shared_rings),
		cmocka_unit_test(test_bad_secret),
		cmocka_unit_test(test_id_not_found_and_busy),
		cmocka_unit_test(test_server_rejects),
		cmocka_unit_test(test_client_rejects),
		cmocka_unit_test(test_unsealed_region_gets_sealed),
		cmocka_unit_test(test_truncated_region_reads_zeros),
	};

	/* The rejections log on purpose: keep the test output for failures. */
	dvp_log_set_global_level(DVP_LOG_CRIT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
