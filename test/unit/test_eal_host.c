/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The hosted runtime (dvp_eal_init_hosted()) against a mock host: memory,
 * lcores, log lines and interrupt dispatch all go through the host's hooks,
 * nothing is probed until dvp_dev_attach(), and cleanup gives every block
 * back.
 */

#include "dvp_test.h"

#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_bus.h>
#include <dvp_eal.h>
#include <dvp_eal_host.h>
#include <dvp_interrupts.h>
#include <dvp_lcore.h>
#include <dvp_malloc.h>
#include <dvp_port.h>

static struct mock {
	unsigned int maps, unmaps;
	size_t mapped;
	unsigned int lines;
	char last_line[512];
	int intr_fd;
	void (*ready)(void);
	unsigned int detaches;
	bool refuse_intr;
} mock;

static bool m_lcore_enabled(void *arg, unsigned int id)
{
	(void)arg;
	return id == 0 || id == 3;
}

static int m_lcore_socket(void *arg, unsigned int id)
{
	(void)arg;
	(void)id;
	return 0;
}

static void *m_mem_map(void *arg, int socket, size_t len, size_t *page_sz, void **cookie)
{
	void *p;

	(void)arg;
	(void)socket;
	if (posix_memalign(&p, 4096, len) != 0)
		return NULL;
	mock.maps++;
	mock.mapped += len;
	*page_sz = 4096;
	*cookie = p;
	return p;
}

static void m_mem_unmap(void *arg, void *cookie)
{
	(void)arg;
	mock.unmaps++;
	free(cookie);
}

/* The host's own memory: one static block of 2 MB pages. */
static char host_block[8192];

static size_t m_mem_page_size(void *arg, const void *addr)
{
	(void)arg;
	return (uintptr_t)addr - (uintptr_t)host_block < sizeof(host_block) ? 2u << 20 : 0;
}

static void m_log(void *arg, uint32_t level, uint32_t type, const char *line)
{
	(void)arg;
	(void)level;
	(void)type;
	mock.lines++;
	snprintf(mock.last_line, sizeof(mock.last_line), "%s", line);
}

static int m_intr_attach(void *arg, int fd, void (*ready)(void))
{
	(void)arg;
	if (mock.refuse_intr)
		return -EPERM;
	mock.intr_fd = fd;
	mock.ready = ready;
	return 0;
}

static void m_intr_detach(void *arg, int fd)
{
	(void)arg;
	assert_int_equal(fd, mock.intr_fd);
	mock.detaches++;
}

static const struct dvp_eal_host host = {
	.name = "mock host",
	.main_lcore = 0,
	.lcore_enabled = m_lcore_enabled,
	.lcore_socket = m_lcore_socket,
	.mem_map = m_mem_map,
	.mem_unmap = m_mem_unmap,
	.mem_page_size = m_mem_page_size,
	.log = m_log,
	.intr_attach = m_intr_attach,
	.intr_detach = m_intr_detach,
};

static int setup(void **state)
{
	(void)state;
	memset(&mock, 0, sizeof(mock));
	mock.intr_fd = -1;
	return 0;
}

static int never_run(void *arg)
{
	(void)arg;
	fail_msg("a hosted runtime launched a function on a thread of its own");
	return 0;
}

static void test_hosted_init_uses_the_host(void **state)
{
	void *p;

	(void)state;
	assert_int_equal(dvp_eal_init_hosted(&host), 0);
	assert_true(dvp_eal_is_hosted());
	/* Log lines go to the host, not to a stream. */
	assert_true(mock.lines >= 1);
	assert_contains(mock.last_line, "hosted by mock host");
	/* The host's lcores, no thread of ours. */
	assert_int_equal(dvp_lcore_count(), 2);
	assert_true(dvp_lcore_is_enabled(3));
	assert_false(dvp_lcore_is_enabled(1));
	assert_int_equal(dvp_lcore_id(), 0);
	assert_int_equal(dvp_eal_remote_launch(never_run, NULL, 3), -ENOTSUP);
	/* Memory: nothing at start, blocks from the host on demand. */
	assert_int_equal(mock.maps, 0);
	p = dvp_malloc("hosted", 1 << 20, 0);
	assert_non_null(p);
	assert_true(mock.maps >= 1);
	/* Page sizes: the heap's blocks (4 KB from the mock), the host's own, unknown memory. */
	assert_int_equal(dvp_mem_page_size(p), 4096);
	assert_int_equal(dvp_mem_page_size(host_block + 100), 2u << 20);
	assert_int_equal(dvp_mem_page_size(&mock), 0);
	dvp_free(p);
	assert_true(mock.intr_fd >= 0);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_false(dvp_eal_is_hosted());
	assert_int_equal(mock.unmaps, mock.maps);
	assert_int_equal(mock.detaches, 1);
}

static int intr_calls;

static void on_event(int fd, void *arg)
{
	uint64_t v;

	(void)arg;
	assert_true(dvp_thread_is_intr());
	if (read(fd, &v, sizeof(v)) == sizeof(v))
		intr_calls++;
}

/* The host watches one epoll fd and calls ready(): callbacks run on its thread. */
static void test_hosted_interrupts_run_on_the_host_thread(void **state)
{
	struct epoll_event ev;
	uint64_t one = 1;
	int efd;

	(void)state;
	assert_int_equal(dvp_eal_init_hosted(&host), 0);
	efd = eventfd(0, EFD_NONBLOCK);
	assert_true(efd >= 0);
	assert_int_equal(dvp_intr_callback_register(efd, on_event, NULL), 0);
	assert_int_equal(write(efd, &one, sizeof(one)), sizeof(one));
	/* What the host's interrupt thread does: wait on the fd, then call back. */
	assert_int_equal(epoll_wait(mock.intr_fd, &ev, 1, 5000), 1);
	mock.ready();
	assert_int_equal(intr_calls, 1);
	/* Outside our callbacks the host's thread is its own again. */
	assert_false(dvp_thread_is_intr());
	/* Nothing ready: a call back does nothing and does not block. */
	mock.ready();
	assert_int_equal(intr_calls, 1);
	assert_true(dvp_intr_callback_unregister(efd, on_event, NULL) >= 0);
	close(efd);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_hosted_attach(void **state)
{
	uint16_t pid, n = 0;

	(void)state;
	assert_int_equal(dvp_eal_init_hosted(&host), 0);
	DVP_PORT_FOREACH(pid)
		n++;
	assert_int_equal(n, 0); /* nothing probed unasked */
	assert_int_equal(dvp_dev_attach("net_ring0"), 0);
	DVP_PORT_FOREACH(pid)
		n++;
	assert_true(n >= 1);
	assert_int_equal(dvp_dev_attach("net_ring0"), -EEXIST);
	mock.lines = 0;
	assert_int_equal(dvp_dev_attach("no_such_dev0,x=1"), -ENODEV);
	assert_int_equal(mock.lines, 1);
	assert_contains(mock.last_line, "no_such_dev0");
	assert_int_equal(dvp_dev_attach(""), -EINVAL);
	assert_int_equal(dvp_dev_attach("net_ring1,bogus_key=1"), -EINVAL);
	assert_int_equal(dvp_dev_remove("net_ring0"), 0);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(mock.unmaps, mock.maps);
}

static void test_hosted_bad_hosts(void **state)
{
	struct dvp_eal_host h = host;

	(void)state;
	h.log = NULL;
	assert_int_equal(dvp_eal_init_hosted(&h), -1);
	assert_int_equal(dvp_errno, EINVAL);
	assert_int_equal(dvp_eal_init_hosted(NULL), -1);
	h = host;
	h.main_lcore = 1; /* not one the host runs */
	assert_int_equal(dvp_eal_init_hosted(&h), -1);
	assert_int_equal(dvp_errno, EINVAL);
	mock.refuse_intr = true;
	assert_int_equal(dvp_eal_init_hosted(&host), -1);
	assert_int_equal(dvp_errno, EPERM);
	assert_false(dvp_eal_is_hosted());
	mock.refuse_intr = false;
	/* A failed init leaves nothing behind: a good one works after it. */
	assert_int_equal(dvp_eal_init_hosted(&host), 0);
	assert_int_equal(dvp_eal_init_hosted(&host), -1);
	assert_int_equal(dvp_errno, EALREADY);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(mock.unmaps, mock.maps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_hosted_init_uses_the_host, setup),
		cmocka_unit_test_setup(test_hosted_interrupts_run_on_the_host_thread, setup),
		cmocka_unit_test_setup(test_hosted_attach, setup),
		cmocka_unit_test_setup(test_hosted_bad_hosts, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
