/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/mbuf: layout, pool creation, alloc/free (bulk too), editing, chains,
 * reference counts (also shared between two lcores: suite 'concurrent').
 */

/* Catch any double free of an mbuf with the pool's cookies. */
#define DVP_MEMPOOL_DEBUG_CHECKS 1

#include "dvp_test.h"

#include <dvp_eal.h>
#include <dvp_errno.h>
#include <dvp_lcore.h>
#include <dvp_mbuf.h>

static struct dvp_mempool *pool;

static int eal_setup(void **state)
{
	char *argv[] = { "test_mbuf", "--no-huge", "-l", "0-1", "--log-level", "notice", NULL };

	(void)state;
	if (dvp_eal_init((int)DVP_DIM(argv) - 1, argv) < 0) {
		fprintf(stderr, "dvp_eal_init failed: %s\n", dvp_strerror(dvp_errno));
		return -1;
	}
	pool = dvp_pktmbuf_pool_create("mb_pool", 511, 32, 16, DVP_MBUF_DEFAULT_BUF_SIZE,
				       DVP_SOCKET_ANY);
	return pool == NULL ? -1 : 0;
}

static int eal_teardown(void **state)
{
	(void)state;
	dvp_mempool_free(pool);
	return dvp_eal_cleanup();
}

/* Every test leaves the pool as it found it: every mbuf free, none twice. */
static int check_no_leak(void **state)
{
	unsigned int free_objs = dvp_ring_count(pool->ring), i;

	(void)state;
	for (i = 0; i < DVP_MAX_LCORE; i++)
		free_objs += pool->local_cache[i].len;
	if (free_objs != pool->size) {
		fprintf(stderr, "%u mbufs free of %u: %s\n", free_objs, pool->size,
			free_objs > pool->size ? "some were freed twice" : "some leaked");
		return -1;
	}
	if (dvp_pktmbuf_pool_in_use(pool) != 0) {
		fprintf(stderr, "%u mbufs still in use\n", dvp_pktmbuf_pool_in_use(pool));
		return -1;
	}
	return dvp_mempool_debug_errors(pool) == 0 ? 0 : -1;
}

static void test_layout(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct dvp_mbuf), 128);
	/* what rx writes and tx reads is on the first line */
	assert_true(offsetof(struct dvp_mbuf, buf_addr) < 64);
	assert_true(offsetof(struct dvp_mbuf, pool) + 8 <= 64);
	assert_true(offsetof(struct dvp_mbuf, next) + 8 <= 64);
	assert_true(offsetof(struct dvp_mbuf, hash) + 4 <= 64);
	assert_true(offsetof(struct dvp_mbuf, vlan_tci) + 2 <= 64);
	assert_true(offsetof(struct dvp_mbuf, packet_type) + 4 <= 64);
	/* rearm_data covers data_off, refcnt, nb_segs, port */
	assert_int_equal(offsetof(struct dvp_mbuf, rearm_data),
			 offsetof(struct dvp_mbuf, data_off));
	assert_int_equal(offsetof(struct dvp_mbuf, port),
			 offsetof(struct dvp_mbuf, rearm_data) + 6);
	/* the flags are DPDK's values */
	assert_int_equal(DVP_MBUF_F_RX_IP_CKSUM_NONE,
			 DVP_MBUF_F_RX_IP_CKSUM_GOOD | DVP_MBUF_F_RX_IP_CKSUM_BAD);
	assert_int_equal(DVP_MBUF_F_RX_L4_CKSUM_MASK & DVP_MBUF_F_RX_IP_CKSUM_MASK, 0);
	assert_int_equal(DVP_PTYPE_L2_ETHER | DVP_PTYPE_L3_IPV4 | DVP_PTYPE_L4_UDP, 0x211);
}

static void test_pool_create(void **state)
{
	struct dvp_log_capture c;
	struct dvp_mempool *mp;

	(void)state;
	assert_int_equal(dvp_pktmbuf_data_room_size(pool), DVP_MBUF_DEFAULT_BUF_SIZE);
	assert_int_equal(dvp_pktmbuf_priv_size(pool), 16);
	assert_int_equal(pool->elt_size, 128 + 16 + DVP_MBUF_DEFAULT_BUF_SIZE);

	dvp_log_capture_begin(&c);
	assert_null(dvp_pktmbuf_pool_create("mb_bad", 64, 0, 12, 2048, DVP_SOCKET_ANY));
	assert_int_equal(dvp_errno, EINVAL);
	assert_null(dvp_pktmbuf_pool_create("mb_pool", 64, 0, 0, 2048, DVP_SOCKET_ANY));
	assert_int_equal(dvp_errno, EEXIST);
	dvp_log_capture_end(&c);
	assert_contains(c.buf,
			"mbuf pool mb_bad: private size 12 is invalid: it must be a multiple of 8");
	dvp_log_capture_free(&c);

	/* a data room smaller than the headroom: data starts at the end */
	mp = dvp_pktmbuf_pool_create("mb_tiny", 8, 0, 0, 64, DVP_SOCKET_ANY);
	assert_non_null(mp);
	{
		struct dvp_mbuf *m = dvp_pktmbuf_alloc(mp);

		assert_non_null(m);
		assert_int_equal(dvp_pktmbuf_headroom(m), 64);
		assert_int_equal(dvp_pktmbuf_tailroom(m), 0);
		assert_null(dvp_pktmbuf_append(m, 1));
		dvp_pktmbuf_free(m);
	}
	assert_int_equal(dvp_pktmbuf_pool_in_use(mp), 0);
	dvp_mempool_free(mp);
}

static void test_alloc_fields(void **state)
{
	struct dvp_mbuf *m;
	const char *why = NULL;

	(void)state;
	m = dvp_pktmbuf_alloc(pool);
	assert_non_null(m);
	assert_ptr_equal(m->pool, pool);
	assert_ptr_equal(m->buf_addr, (char *)m + 128 + 16);
	assert_ptr_equal(dvp_mbuf_to_priv(m), (char *)m + 128);
	assert_int_equal(m->buf_len, DVP_MBUF_DEFAULT_BUF_SIZE);
	assert_int_equal(m->data_off, DVP_PKTMBUF_HEADROOM);
	assert_int_equal(m->priv_size, 16);
	assert_int_equal(dvp_mbuf_refcnt_read(m), 1);
	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(m->port, DVP_MBUF_PORT_INVALID);
	assert_int_equal(m->ol_flags, 0);
	assert_int_equal(m->packet_type, 0);
	assert_int_equal(dvp_pktmbuf_pkt_len(m), 0);
	assert_int_equal(dvp_pktmbuf_data_len(m), 0);
	assert_null(m->next);
	assert_int_equal(dvp_pktmbuf_headroom(m), 128);
	assert_int_equal(dvp_pktmbuf_tailroom(m), 2048);
	assert_true(dvp_pktmbuf_is_contiguous(m));
	assert_ptr_equal(dvp_pktmbuf_mtod(m, char *), (char *)m->buf_addr + 128);
	assert_ptr_equal(dvp_pktmbuf_mtod_offset(m, char *, 14), (char *)m->buf_addr + 142);
	assert_int_equal(dvp_mbuf_check(m, 1, &why), 0);

	/* dirty it, free it, and get it back clean */
	m->ol_flags = DVP_MBUF_F_RX_RSS_HASH | DVP_MBUF_F_RX_IP_CKSUM_GOOD;
	m->packet_type = DVP_PTYPE_L2_ETHER | DVP_PTYPE_L3_IPV6;
	m->port = 3;
	m->vlan_tci = 7;
	m->hash.rss = 0x1234;
	m->tx.l2_len = 14;
	assert_non_null(dvp_pktmbuf_append(m, 100));
	dvp_pktmbuf_free(m);
	m = dvp_pktmbuf_alloc(pool);
	assert_int_equal(m->ol_flags, 0);
	assert_int_equal(m->packet_type, 0);
	assert_int_equal(m->port, DVP_MBUF_PORT_INVALID);
	assert_int_equal(m->vlan_tci, 0);
	assert_int_equal(m->tx_offload, 0);
	assert_int_equal(m->pkt_len, 0);
	m->data_off = 0;
	m->pkt_len = 5;
	dvp_pktmbuf_reset(m);
	assert_int_equal(m->data_off, 128);
	assert_int_equal(m->pkt_len, 0);
	dvp_pktmbuf_free(m);
	dvp_pktmbuf_free(NULL);
}

static void test_alloc_bulk_all_or_nothing(void **state)
{
	struct dvp_mbuf *m[600];
	unsigned int i;

	(void)state;
	/* start with every mbuf in the ring: 500 at once bypass the cache */
	dvp_mempool_cache_flush(dvp_mempool_default_cache(pool, dvp_lcore_id()), pool);
	assert_int_equal(dvp_pktmbuf_alloc_bulk(pool, m, 0), 0);
	assert_int_equal(dvp_pktmbuf_alloc_bulk(pool, m, 512), -ENOENT);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	assert_int_equal(dvp_pktmbuf_alloc_bulk(pool, m, 500), 0);
	for (i = 0; i < 500; i++) {
		assert_int_equal(m[i]->data_off, 128);
		assert_int_equal(m[i]->refcnt, 1);
	}
	assert_int_equal(dvp_pktmbuf_alloc_bulk(pool, m + 500, 11), 0);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 511);
	assert_null(dvp_pktmbuf_alloc(pool));
	assert_int_equal(dvp_pktmbuf_alloc_bulk(pool, m + 511, 1), -ENOENT);
	dvp_pktmbuf_free_bulk(m, 511);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
}

static void test_append_prepend_adj_trim(void **state)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(pool);
	char *p;

	(void)state;
	p = dvp_pktmbuf_append(m, 60);
	assert_ptr_equal(p, dvp_pktmbuf_mtod(m, char *));
	memset(p, 'a', 60);
	assert_int_equal(m->data_len, 60);
	assert_int_equal(m->pkt_len, 60);
	assert_null(dvp_pktmbuf_append(m, 2048 - 60 + 1));
	assert_int_equal(m->data_len, 60);
	assert_non_null(dvp_pktmbuf_append(m, 2048 - 60));
	assert_int_equal(dvp_pktmbuf_tailroom(m), 0);
	assert_int_equal(dvp_pktmbuf_trim(m, 2048 - 60), 0);

	p = dvp_pktmbuf_prepend(m, 14);
	assert_ptr_equal(p, (char *)m->buf_addr + 128 - 14);
	assert_int_equal(m->data_len, 74);
	assert_int_equal(m->pkt_len, 74);
	assert_null(dvp_pktmbuf_prepend(m, 115));
	assert_non_null(dvp_pktmbuf_prepend(m, 114));
	assert_int_equal(dvp_pktmbuf_headroom(m), 0);

	p = dvp_pktmbuf_adj(m, 128);
	assert_ptr_equal(p, (char *)m->buf_addr + 128);
	assert_int_equal(*p, 'a');
	assert_int_equal(m->data_len, 60);
	assert_null(dvp_pktmbuf_adj(m, 61));
	assert_int_equal(dvp_pktmbuf_trim(m, 61), -EINVAL);
	assert_int_equal(dvp_pktmbuf_trim(m, 20), 0);
	assert_int_equal(m->pkt_len, 40);
	assert_non_null(dvp_pktmbuf_adj(m, 40));
	assert_int_equal(m->pkt_len, 0);
	assert_int_equal(dvp_pktmbuf_trim(m, 0), 0);
	dvp_pktmbuf_free(m);
}

static void test_chain(void **state)
{
	struct dvp_mbuf *a = dvp_pktmbuf_alloc(pool), *b = dvp_pktmbuf_alloc(pool),
			*c = dvp_pktmbuf_alloc(pool);
	const char *why = NULL;
	char *p;

	(void)state;
	dvp_pktmbuf_append(a, 100);
	dvp_pktmbuf_append(b, 200);
	dvp_pktmbuf_append(c, 300);
	assert_int_equal(dvp_pktmbuf_chain(b, c), 0);
	assert_int_equal(dvp_pktmbuf_chain(a, b), 0);
	assert_int_equal(a->nb_segs, 3);
	assert_int_equal(a->pkt_len, 600);
	assert_int_equal(a->data_len, 100);
	assert_ptr_equal(dvp_pktmbuf_lastseg(a), c);
	assert_false(dvp_pktmbuf_is_contiguous(a));
	assert_int_equal(dvp_mbuf_check(a, 1, &why), 0);

	/* append and trim work on the last segment */
	p = dvp_pktmbuf_append(a, 10);
	assert_ptr_equal(p, (char *)c->buf_addr + c->data_off + 300);
	assert_int_equal(c->data_len, 310);
	assert_int_equal(a->pkt_len, 610);
	assert_int_equal(dvp_pktmbuf_trim(a, 310), 0);
	assert_int_equal(a->pkt_len, 300);
	assert_int_equal(dvp_mbuf_check(a, 1, &why), 0);

	/* a damaged chain is reported */
	a->nb_segs = 2;
	assert_int_equal(dvp_mbuf_check(a, 1, &why), -EINVAL);
	assert_contains(why, "nb_segs");
	a->nb_segs = 3;
	a->pkt_len = 1;
	assert_int_equal(dvp_mbuf_check(a, 1, &why), -EINVAL);
	assert_contains(why, "pkt_len");
	a->pkt_len = 300;

	/* too many segments */
	{
		uint16_t saved = a->nb_segs;

		a->nb_segs = DVP_MBUF_MAX_NB_SEGS;
		assert_int_equal(dvp_pktmbuf_chain(a, dvp_pktmbuf_lastseg(a)), -EOVERFLOW);
		a->nb_segs = saved;
	}
	dvp_pktmbuf_free(a); /* the whole chain */
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	/* segments came back with next cleared */
	a = dvp_pktmbuf_alloc(pool);
	b = dvp_pktmbuf_alloc(pool);
	c = dvp_pktmbuf_alloc(pool);
	assert_null(a->next);
	assert_null(b->next);
	assert_null(c->next);
	dvp_pktmbuf_free(a);
	dvp_pktmbuf_free_seg(b);
	dvp_pktmbuf_free(c);
}

static void test_check_reasons(void **state)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(pool);
	const char *why = NULL;

	(void)state;
	m->data_len = 4000;
	assert_int_equal(dvp_mbuf_check(m, 0, &why), -EINVAL);
	assert_contains(why, "past the end of the buffer");
	m->data_len = 0;
	dvp_mbuf_refcnt_set(m, 0);
	assert_int_equal(dvp_mbuf_check(m, 0, &why), -EINVAL);
	assert_contains(why, "reference count");
	dvp_mbuf_refcnt_set(m, 1);
	assert_int_equal(dvp_mbuf_check(NULL, 0, &why), -EINVAL);
	assert_int_equal(dvp_mbuf_check(m, 0, NULL), 0);
	dvp_pktmbuf_free(m);
}

static void test_refcnt(void **state)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(pool), *c;

	(void)state;
	assert_int_equal(dvp_mbuf_refcnt_update(m, 2), 3);
	assert_int_equal(dvp_mbuf_refcnt_read(m), 3);
	assert_int_equal(dvp_mbuf_refcnt_update(m, -1), 2);
	dvp_mbuf_refcnt_update(m, -1);
	/* a shared chain: every segment gets the second reference */
	c = dvp_pktmbuf_alloc(pool);
	dvp_pktmbuf_chain(m, c);
	dvp_pktmbuf_refcnt_update(m, 1);
	assert_int_equal(dvp_mbuf_refcnt_read(m), 2);
	assert_int_equal(dvp_mbuf_refcnt_read(c), 2);
	dvp_pktmbuf_free(m); /* drops one reference of each segment */
	assert_int_equal(dvp_mbuf_refcnt_read(m), 1);
	assert_int_equal(dvp_mbuf_refcnt_read(c), 1);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 2);
	assert_ptr_equal(m->next, c);
	dvp_pktmbuf_free(m); /* last references: both segments go back */
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	m = dvp_pktmbuf_alloc(pool);
	assert_int_equal(dvp_mbuf_refcnt_read(m), 1);
	dvp_pktmbuf_free(m);
}

static void test_free_bulk_mixed(void **state)
{
	struct dvp_mempool *other;
	struct dvp_mbuf *m[200];
	unsigned int i;

	(void)state;
	other = dvp_pktmbuf_pool_create("mb_other", 100, 0, 0, 256, DVP_SOCKET_ANY);
	assert_non_null(other);
	for (i = 0; i < 200; i++) {
		if (i % 10 == 9)
			m[i] = NULL;
		else
			m[i] = dvp_pktmbuf_alloc(i % 3 ? pool : other);
		assert_true(i % 10 == 9 || m[i] != NULL);
	}
	/* a chain across two pools */
	dvp_pktmbuf_chain(m[0], m[1]);
	m[1] = NULL;
	/* a shared mbuf freed twice within the same call goes back once */
	dvp_mbuf_refcnt_update(m[2], 1);
	m[9] = m[2];
	/* one still shared after the call */
	dvp_mbuf_refcnt_update(m[5], 1);
	dvp_pktmbuf_free_bulk(m, 200);
	assert_int_equal(dvp_mbuf_refcnt_read(m[5]), 1);
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 1);
	assert_int_equal(dvp_pktmbuf_pool_in_use(other), 0);
	dvp_pktmbuf_free(m[5]);
	dvp_mempool_free(other);
}

static void test_dump(void **state)
{
	struct dvp_mbuf *m = dvp_pktmbuf_alloc(pool);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	memcpy(dvp_pktmbuf_append(m, 4), "\xde\xad\xbe\xef", 4);
	f = open_memstream(&buf, &len);
	dvp_pktmbuf_dump(f, m, 64);
	fclose(f);
	assert_contains(buf, "pkt_len=4");
	assert_contains(buf, "de ad be ef");
	free(buf);
	dvp_pktmbuf_free(m);
}

/* Two lcores each drop one reference of the same mbufs: each returns exactly once. */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define SHARED_ROUNDS 2000u
#else
#define SHARED_ROUNDS 100000u
#endif
#define SHARED_BURST 64

struct shared {
	struct dvp_mbuf *m[SHARED_BURST];
	_Atomic unsigned int ready, done;
};

static int shared_worker(void *arg)
{
	struct shared *s = arg;
	unsigned int r;

	for (r = 1; r <= SHARED_ROUNDS; r++) {
		while (atomic_load(&s->ready) != r)
			dvp_pause();
		dvp_pktmbuf_free_bulk(s->m, SHARED_BURST);
		atomic_store(&s->done, r);
	}
	return 0;
}

static void test_concurrent_shared_free(void **state)
{
	struct shared s;
	unsigned int r, i;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(dvp_eal_remote_launch(shared_worker, &s, 1), 0);
	for (r = 1; r <= SHARED_ROUNDS; r++) {
		assert_int_equal(dvp_pktmbuf_alloc_bulk(pool, s.m, SHARED_BURST), 0);
		for (i = 0; i < SHARED_BURST; i++)
			dvp_mbuf_refcnt_update(s.m[i], 1);
		atomic_store(&s.ready, r);
		/* both lcores free the same mbufs at once */
		for (i = 0; i < SHARED_BURST; i++)
			dvp_pktmbuf_free(s.m[i]);
		while (atomic_load(&s.done) != r)
			dvp_pause();
	}
	assert_int_equal(dvp_eal_wait_lcore(1), 0);
	/* the worker's cache holds some: they are free all the same */
	assert_int_equal(dvp_pktmbuf_pool_in_use(pool), 0);
	assert_int_equal(dvp_mempool_debug_errors(pool), 0);
	dvp_mempool_cache_flush(dvp_mempool_default_cache(pool, 1), pool);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_layout, check_no_leak),
		cmocka_unit_test_teardown(test_pool_create, check_no_leak),
		cmocka_unit_test_teardown(test_alloc_fields, check_no_leak),
		cmocka_unit_test_teardown(test_alloc_bulk_all_or_nothing, check_no_leak),
		cmocka_unit_test_teardown(test_append_prepend_adj_trim, check_no_leak),
		cmocka_unit_test_teardown(test_chain, check_no_leak),
		cmocka_unit_test_teardown(test_check_reasons, check_no_leak),
		cmocka_unit_test_teardown(test_refcnt, check_no_leak),
		cmocka_unit_test_teardown(test_free_bulk_mixed, check_no_leak),
		cmocka_unit_test_teardown(test_dump, check_no_leak),
		cmocka_unit_test_teardown(test_concurrent_shared_free, check_no_leak),
	};

	return cmocka_run_group_tests_name("mbuf", tests, eal_setup, eal_teardown);
}
