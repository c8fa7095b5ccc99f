/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * libFuzzer target: the memif control channel as a hostile peer sees it.
 *
 * Input: a first byte choosing our role (bit 0: we are the client), then
 * records of 1 control byte + up to 128 message bytes. The control byte
 * says what rides along, as SCM_RIGHTS would bring it:
 *   bits 0-1: 0 none, 1 a memfd, 2 an eventfd, 3 a pipe
 *   bit 2:    the memfd is sealed against shrinking
 *   bit 3:    the memfd is filled with ring cookies (so rings can pass)
 *   bit 4:    the message is cut short by the next control byte's value
 * The state machine runs with the driver's real checks, real mmap of the
 * regions, real eventfd checks. After the input, the channel is closed and
 * every fd and mapping must be gone: a leak aborts.
 */

#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <unistd.h>

#include <dvp_log.h>

#include "memif_cc.h"
#include "memif_shm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

struct env {
	struct memif_if_cfg cfg;
	struct memif_shm shm;
	bool mapped;
};

static const struct memif_if_cfg *f_lookup(void *ctx, uint32_t id, char *why)
{
	struct env *e = ctx;

	if (id != e->cfg.id) {
		snprintf(why, MEMIF_WHY_SZ, "ID not found");
		return NULL;
	}
	return &e->cfg;
}

static int f_check_region(void *ctx, int fd, uint64_t size, char *why)
{
	(void)ctx;
	return memif_region_check_fd(fd, size, why);
}

static int f_check_ring_fd(void *ctx, int fd, char *why)
{
	(void)ctx;
	return memif_check_eventfd(fd, why);
}

static int f_prepare(void *ctx, struct memif_conn_desc *c, char *why)
{
	struct env *e = ctx;
	int ret = memif_shm_client_create(&e->shm, c, why);

	e->mapped = ret == 0;
	return ret;
}

static int f_connected(void *ctx, struct memif_conn_desc *c, char *why)
{
	struct env *e = ctx;
	unsigned int i;
	int ret;

	if (e->cfg.role == MEMIF_ROLE_CLIENT)
		return 0;
	ret = memif_shm_server_map(&e->shm, c, why);
	if (ret < 0)
		return ret;
	e->mapped = true;
	/* Touch every ring the peer described: it must all be mapped. */
	for (i = 0; i < e->shm.nb_c2s; i++)
		__atomic_load_n(&e->shm.c2s[i].ring->head, __ATOMIC_ACQUIRE);
	for (i = 0; i < e->shm.nb_s2c; i++)
		__atomic_load_n(&e->shm.s2c[i].ring->tail, __ATOMIC_ACQUIRE);
	return 0;
}

static void f_disconnected(void *ctx, bool by_peer, const char *reason)
{
	(void)ctx;
	(void)by_peer;
	if (strlen(reason) >= MEMIF_WHY_SZ)
		abort();
}

static const struct memif_cc_ops f_ops = {
	.lookup = f_lookup,
	.check_region = f_check_region,
	.check_ring_fd = f_check_ring_fd,
	.prepare = f_prepare,
	.connected = f_connected,
	.disconnected = f_disconnected,
};

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	if (d == NULL)
		abort();
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	return n;
}

static int make_fd(uint8_t ctl, const uint8_t *msg, size_t len)
{
	int p[2], fd;

	switch (ctl & 3) {
	case 1: {
		struct memif_msg m;
		uint64_t sz;

		memset(&m, 0, sizeof(m));
		memcpy(&m, msg, len < sizeof(m) ? len : sizeof(m));
		/* The announced size, or a little less; small enough for a fuzzer. */
		sz = m.add_region.size & ((1u << 20) - 1);
		if (ctl & 0x20)
			sz = sz > 64 ? sz - 64 : 0;
		fd = memfd_create("fuzz", MFD_ALLOW_SEALING);
		if (fd < 0)
			abort();
		if (ftruncate(fd, (off_t)sz) < 0)
			abort();
		if (ctl & 8) {
			uint32_t *w =
				sz ? mmap(NULL, sz, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) :
				     NULL;
			size_t i;

			if (w == MAP_FAILED)
				abort();
			for (i = 0; i < sz / 4; i++)
				w[i] = MEMIF_COOKIE;
			if (sz)
				munmap(w, sz);
		}
		if (ctl & 4)
			(void)fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
		return fd;
	}
	case 2:
		return eventfd(0, EFD_NONBLOCK);
	case 3:
		if (pipe(p) < 0)
			abort();
		close(p[1]);
		return p[0];
	default:
		return -1;
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* Rejections log by design; a fuzzer makes millions of them. */
	dvp_log_set_global_level(DVP_LOG_CRIT);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct env e;
	static struct memif_cc cc;
	struct memif_cc_out out;
	int fds_before;
	size_t pos = 1;

	if (size < 1)
		return 0;
	fds_before = count_fds();
	memset(&e.cfg, 0, sizeof(e.cfg));
	memif_shm_reset(&e.shm);
	e.mapped = false;
	e.cfg.role = (data[0] & 1) ? MEMIF_ROLE_CLIENT : MEMIF_ROLE_SERVER;
	e.cfg.id = 0;
	if (data[0] & 2)
		snprintf(e.cfg.secret, sizeof(e.cfg.secret), "s3cret");
	snprintf(e.cfg.app_name, sizeof(e.cfg.app_name), "fuzz");
	snprintf(e.cfg.if_name, sizeof(e.cfg.if_name), "fuzz0");
	e.cfg.nb_c2s = 2;
	e.cfg.nb_s2c = 2;
	e.cfg.log2_ring_size = 4;
	e.cfg.bsize = 128;

	memif_cc_init(&cc, e.cfg.role, e.cfg.role == MEMIF_ROLE_CLIENT ? &e.cfg : NULL, &f_ops, &e,
		      "fuzz", &out);
	while (pos < size) {
		uint8_t ctl = data[pos++];
		size_t len = size - pos < MEMIF_MSG_SZ ? size - pos : MEMIF_MSG_SZ;
		uint8_t buf[MEMIF_MSG_SZ + 8];
		int fd;

		if ((ctl & 0x10) && len > 0)
			len = len > (size_t)(ctl >> 5) ? len - (ctl >> 5) : len;
		memset(buf, 0, sizeof(buf));
		memcpy(buf, data + pos, len);
		pos += len;
		fd = make_fd(ctl, buf, len);
		/* Full-size messages most of the time, as a socket delivers them. */
		if (memif_cc_input(&cc, buf, (ctl & 0x10) ? len : MEMIF_MSG_SZ, fd, &out) < 0)
			break;
	}
	memif_cc_close(&cc, "fuzz done", &out);
	memif_shm_release(&e.shm);
	if (count_fds() != fds_before) {
		fprintf(stderr, "fd leak: %d before, %d after\n", fds_before, count_fds());
		abort();
	}
	return 0;
}
