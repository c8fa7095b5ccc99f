/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal lcores: worker threads are pinned and named, launch/wait hand
 * work over and back, ids and per-lcore variables are per thread.
 */

#include "dvp_test_eal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <dvp_cycles.h>
#include <dvp_lcore.h>

struct seen {
	unsigned int lcore_id;
	int socket;
	char name[16];
	cpu_set_t cpus;
	int ret;
};

static struct seen seen[DVP_MAX_LCORE];
static DVP_DEFINE_PER_LCORE(int, counter);

static int record(void *arg)
{
	unsigned int id = dvp_lcore_id();
	struct seen *s = &seen[id];

	(void)arg;
	s->lcore_id = id;
	s->socket = dvp_socket_id();
	pthread_getname_np(pthread_self(), s->name, sizeof(s->name));
	sched_getaffinity(0, sizeof(s->cpus), &s->cpus);
	DVP_PER_LCORE(counter)++;
	return (int)id + 100;
}

static int eal_up_three_lcores_on_one_cpu(void)
{
	char map[64];
	int c = dvp_test_first_cpu();

	/* Three lcores on whatever CPU we have: runs on any machine. */
	snprintf(map, sizeof(map), "0@%d,1@%d,2@%d", c, c, c);
	return dvp_test_eal_init("--lcores", map, "--no-huge", "-m", "4");
}

static void test_launch_wait_names_and_ids(void **state)
{
	unsigned int i, n = 0;

	(void)state;
	memset(seen, 0, sizeof(seen));
	assert_true(eal_up_three_lcores_on_one_cpu() > 0);
	assert_int_equal(dvp_lcore_count(), 3);
	DVP_LCORE_FOREACH_WORKER(i) {
		assert_int_equal(dvp_eal_remote_launch(record, NULL, i), 0);
		n++;
	}
	assert_int_equal(n, 2);
	DVP_LCORE_FOREACH_WORKER(i) {
		assert_int_equal(dvp_eal_wait_lcore(i), (int)i + 100);
		assert_int_equal(seen[i].lcore_id, i);
		assert_int_equal(dvp_eal_get_lcore_state(i), DVP_LCORE_WAIT);
	}
	assert_string_equal(seen[1].name, "dvp-worker-1");
	assert_string_equal(seen[2].name, "dvp-worker-2");
	/* A second wait returns the same result: it is the last run's. */
	assert_int_equal(dvp_eal_wait_lcore(1), 101);
	/* The main thread's own per-lcore counter was not touched by the workers. */
	assert_int_equal(DVP_PER_LCORE(counter), 0);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_workers_are_pinned(void **state)
{
	cpu_set_t mine;
	char list[64];
	int cpus[2], n = 0, i;
	unsigned int w;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (i = 0; i < CPU_SETSIZE && n < 2; i++)
		if (CPU_ISSET(i, &mine))
			cpus[n++] = i;
	if (n < 2) {
		/* One CPU: lcores 0 and 1 share it, and each is still pinned to it. */
		cpus[1] = cpus[0];
	}
	snprintf(list, sizeof(list), "0@%d,1@%d", cpus[0], cpus[1]);
	memset(seen, 0, sizeof(seen));
	assert_true(dvp_test_eal_init("--lcores", list, "--no-huge", "-m", "4") > 0);
	assert_int_equal(dvp_lcore_to_cpu_id(1), cpus[1]);
	assert_int_equal(dvp_eal_remote_launch(record, NULL, 1), 0);
	assert_int_equal(dvp_eal_wait_lcore(1), 101);
	assert_int_equal(CPU_COUNT(&seen[1].cpus), 1);
	assert_true(CPU_ISSET(cpus[1], &seen[1].cpus));
	/* The main lcore is the calling thread, pinned to its CPU until cleanup. */
	record(NULL);
	assert_int_equal(CPU_COUNT(&seen[0].cpus), 1);
	assert_true(CPU_ISSET(cpus[0], &seen[0].cpus));
	assert_int_equal(seen[0].socket, dvp_lcore_to_socket_id(0));
	assert_int_equal(seen[1].socket, dvp_lcore_to_socket_id(1));
	DVP_LCORE_FOREACH_WORKER(w) {
		assert_int_equal(w, 1);
	}
	DVP_PER_LCORE(counter) = 0;
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static atomic_int release_flag;

static int spin_until_released(void *arg)
{
	(void)arg;
	/* Acquire pairs with the test's release store: nothing else to publish. */
	while (!atomic_load_explicit(&release_flag, memory_order_acquire))
		dvp_delay_us(100);
	return 7;
}

static void test_busy_and_errors(void **state)
{
	struct dvp_log_capture cap;

	(void)state;
	assert_int_equal(dvp_eal_remote_launch(record, NULL, 1), -E_DVP_NO_INIT);
	assert_true(eal_up_three_lcores_on_one_cpu() > 0);
	atomic_store_explicit(&release_flag, 0, memory_order_relaxed);
	assert_int_equal(dvp_eal_remote_launch(spin_until_released, NULL, 1), 0);
	assert_int_equal(dvp_eal_get_lcore_state(1), DVP_LCORE_RUNNING);
	assert_int_equal(dvp_eal_remote_launch(record, NULL, 1), -EBUSY);
	/* mp launch launches nothing while one worker is busy. */
	assert_int_equal(dvp_eal_mp_remote_launch(record, NULL, DVP_SKIP_MAIN), -EBUSY);
	assert_int_equal(dvp_eal_get_lcore_state(2), DVP_LCORE_WAIT);
	atomic_store_explicit(&release_flag, 1, memory_order_release);
	assert_int_equal(dvp_eal_wait_lcore(1), 7);

	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_eal_remote_launch(record, NULL, 0), -EINVAL);
	assert_int_equal(dvp_eal_remote_launch(record, NULL, 50), -EINVAL);
	assert_int_equal(dvp_eal_wait_lcore(DVP_MAX_LCORE + 5), -EINVAL);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "lcore 0: it is the main lcore");
	assert_contains(cap.buf, "lcore 50: no such lcore is enabled");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static void test_mp_launch_with_main(void **state)
{
	unsigned int i;

	(void)state;
	memset(seen, 0, sizeof(seen));
	assert_true(eal_up_three_lcores_on_one_cpu() > 0);
	assert_int_equal(dvp_eal_mp_remote_launch(record, NULL, DVP_CALL_MAIN), 0);
	dvp_eal_mp_wait_lcore();
	DVP_LCORE_FOREACH(i) {
		assert_int_equal(seen[i].lcore_id, i);
	}
	assert_string_equal(seen[2].name, "dvp-worker-2");
	DVP_PER_LCORE(counter) = 0;
	assert_int_equal(dvp_eal_cleanup(), 0);
}

static atomic_int finished;

static int spin_then_mark(void *arg)
{
	int ret = spin_until_released(arg);

	atomic_store_explicit(&finished, 1, memory_order_release);
	return ret;
}

static void *release_later(void *arg)
{
	struct timespec d = { 0, 20 * 1000 * 1000 };

	(void)arg;
	nanosleep(&d, NULL);
	atomic_store_explicit(&release_flag, 1, memory_order_release);
	return NULL;
}

static void test_cleanup_waits_for_running_worker(void **state)
{
	pthread_t t;

	(void)state;
	assert_true(eal_up_three_lcores_on_one_cpu() > 0);
	atomic_store_explicit(&release_flag, 0, memory_order_relaxed);
	atomic_store_explicit(&finished, 0, memory_order_relaxed);
	assert_int_equal(dvp_eal_remote_launch(spin_then_mark, NULL, 2), 0);
	assert_int_equal(pthread_create(&t, NULL, release_later, NULL), 0);
	/* Cleanup cannot join a worker in the middle of its function: it waits. */
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(atomic_load_explicit(&finished, memory_order_acquire), 1);
	pthread_join(t, NULL);
}

static void test_iteration_helpers(void **state)
{
	unsigned int i, n = 0;

	(void)state;
	assert_true(eal_up_three_lcores_on_one_cpu() > 0);
	assert_int_equal(dvp_get_next_lcore(-1u, false, false), 0);
	assert_int_equal(dvp_get_next_lcore(-1u, true, false), 1);
	assert_int_equal(dvp_get_next_lcore(2, false, false), DVP_MAX_LCORE);
	assert_int_equal(dvp_get_next_lcore(2, false, true), 0);
	assert_int_equal(dvp_get_next_lcore(2, true, true), 1);
	DVP_LCORE_FOREACH(i) {
		n++;
	}
	assert_int_equal(n, 3);
	assert_true(dvp_socket_count() >= 1);
	assert_int_equal(dvp_lcore_to_cpu_id(7), -1);
	assert_int_equal(dvp_lcore_to_socket_id(7), DVP_SOCKET_ANY);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(dvp_lcore_count(), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_launch_wait_names_and_ids),
		cmocka_unit_test(test_workers_are_pinned),
		cmocka_unit_test(test_busy_and_errors),
		cmocka_unit_test(test_mp_launch_with_main),
		cmocka_unit_test(test_cleanup_waits_for_running_worker),
		cmocka_unit_test(test_iteration_helpers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
