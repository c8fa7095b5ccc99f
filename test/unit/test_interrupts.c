/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * lib/eal interrupt thread: callbacks run on "dvp-intr", unregister works
 * from inside a callback and waits for a running one from other threads,
 * HUP unregisters with a log line, an fd closed (and its number reused)
 * right after its last unregister stays out of the old registration, and registering/unregistering from
 * several threads at once while fds fire neither loses nor leaks anything.
 */

#include "dvp_test_eal.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdatomic.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <dvp_interrupts.h>

static int setup(void **state)
{
	(void)state;
	return dvp_test_eal_init("--no-huge", "-m", "4") == 3 ? 0 : -1;
}

struct ctx {
	int fd;
	sem_t called;
	atomic_int calls;
	atomic_bool on_intr;
	atomic_bool in_cb;
	atomic_bool unregister_self;
	atomic_int sleep_ms;
	atomic_int self_unregistered;
	char name[16];
};

static void drain(int fd)
{
	uint64_t v;

	while (read(fd, &v, sizeof(v)) == sizeof(v))
		;
}

static void cb(int fd, void *arg)
{
	struct ctx *c = arg;
	int ms;

	drain(fd);
	atomic_store(&c->in_cb, true);
	atomic_store(&c->on_intr, dvp_thread_is_intr());
	pthread_getname_np(pthread_self(), c->name, sizeof(c->name));
	ms = atomic_load(&c->sleep_ms);
	if (ms)
		usleep((useconds_t)ms * 1000);
	/* cmocka asserts only on the test's thread: record, check there. */
	if (atomic_load(&c->unregister_self))
		atomic_store(&c->self_unregistered, dvp_intr_callback_unregister(fd, cb, arg));
	atomic_fetch_add(&c->calls, 1);
	atomic_store(&c->in_cb, false);
	sem_post(&c->called);
}

static void ctx_init(struct ctx *c)
{
	memset(c, 0, sizeof(*c));
	c->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(c->fd >= 0);
	sem_init(&c->called, 0, 0);
}

static void ctx_fini(struct ctx *c)
{
	close(c->fd);
	sem_destroy(&c->called);
}

static void fire(int fd)
{
	uint64_t one = 1;

	assert_int_equal(write(fd, &one, sizeof(one)), sizeof(one));
}

static void test_callback_runs_on_intr_thread(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	assert_false(dvp_thread_is_intr());
	assert_int_equal(dvp_intr_callback_register(c.fd, cb, &c), 0);
	assert_int_equal(dvp_intr_callback_register(c.fd, cb, &c), -EEXIST);
	fire(c.fd);
	sem_wait(&c.called);
	assert_true(atomic_load(&c.on_intr));
	assert_string_equal(c.name, "dvp-intr");
	fire(c.fd);
	sem_wait(&c.called);
	assert_int_equal(atomic_load(&c.calls), 2);
	assert_int_equal(dvp_intr_callback_unregister(c.fd, cb, &c), 1);
	assert_int_equal(dvp_intr_callback_unregister(c.fd, cb, &c), 0);
	ctx_fini(&c);
}

static void test_bad_register(void **state)
{
	struct dvp_log_capture cap;
	struct ctx c;

	(void)state;
	ctx_init(&c);
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_intr_callback_register(-1, cb, &c), -EINVAL);
	assert_int_equal(dvp_intr_callback_register(c.fd, NULL, &c), -EINVAL);
	/* A regular file cannot be watched by epoll. */
	{
		FILE *f = tmpfile();

		assert_int_equal(dvp_intr_callback_register(fileno(f), cb, &c), -EPERM);
		fclose(f);
	}
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "bad fd");
	assert_contains(cap.buf, "epoll cannot watch fd");
	dvp_log_capture_free(&cap);
	ctx_fini(&c);
}

static void test_unregister_from_inside_callback(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	atomic_store(&c.unregister_self, true);
	assert_int_equal(dvp_intr_callback_register(c.fd, cb, &c), 0);
	fire(c.fd);
	sem_wait(&c.called);
	assert_int_equal(atomic_load(&c.self_unregistered), 1);
	/* Gone: a new event wakes nobody, and a second unregister finds nothing. */
	fire(c.fd);
	usleep(20000);
	assert_int_equal(atomic_load(&c.calls), 1);
	assert_int_equal(dvp_intr_callback_unregister(c.fd, cb, (void *)-1), 0);
	ctx_fini(&c);
}

static void test_unregister_waits_for_running_callback(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	atomic_store(&c.sleep_ms, 100);
	assert_int_equal(dvp_intr_callback_register(c.fd, cb, &c), 0);
	fire(c.fd);
	while (!atomic_load(&c.in_cb))
		usleep(1000);
	/* The callback is sleeping inside: unregister returns only after it is out. */
	assert_int_equal(dvp_intr_callback_unregister(c.fd, cb, (void *)-1), 1);
	assert_false(atomic_load(&c.in_cb));
	assert_int_equal(atomic_load(&c.calls), 1);
	sem_wait(&c.called);
	ctx_fini(&c);
}

/*
 * A callback that unregisters itself and closes its fd, as a driver
 * tearing down a socket on the interrupt thread does, then opens another
 * eventfd -- which takes the same number -- and registers it.
 */
struct reuse {
	struct ctx next; /* the new fd's */
	int old_fd;
	atomic_int unregistered, registered;
	sem_t done;
};

static int sem_wait_2s(sem_t *sem)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += 2;
	return sem_timedwait(sem, &ts);
}

static void reuse_cb(int fd, void *arg)
{
	struct reuse *r = arg;

	drain(fd);
	atomic_store(&r->unregistered, dvp_intr_callback_unregister(fd, reuse_cb, arg));
	close(fd);
	r->next.fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	atomic_store(&r->registered, dvp_intr_callback_register(r->next.fd, cb, &r->next));
	sem_post(&r->done);
}

static void test_fd_closed_and_reused_inside_callback(void **state)
{
	static struct reuse r;

	(void)state;
	memset(&r, 0, sizeof(r));
	sem_init(&r.done, 0, 0);
	sem_init(&r.next.called, 0, 0);
	r.old_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	assert_true(r.old_fd >= 0);
	assert_int_equal(dvp_intr_callback_register(r.old_fd, reuse_cb, &r), 0);
	fire(r.old_fd);
	sem_wait(&r.done);
	assert_int_equal(atomic_load(&r.unregistered), 1);
	assert_int_equal(atomic_load(&r.registered), 0);
	/* The lowest free number: the one just closed. */
	assert_int_equal(r.next.fd, r.old_fd);
	/*
	 * The old registration's end must not take the new file out of the
	 * epoll set, nor the new one be added to the old, dying source.
	 */
	usleep(20000);
	assert_int_equal(atomic_load(&r.next.calls), 0); /* not called for the old fd's event */
	for (int i = 1; i <= 2; i++) {
		fire(r.next.fd);
		assert_int_equal(sem_wait_2s(&r.next.called), 0);
		assert_int_equal(atomic_load(&r.next.calls), i);
	}
	assert_int_equal(dvp_intr_callback_unregister(r.next.fd, cb, &r.next), 1);
	ctx_fini(&r.next);
	sem_destroy(&r.done);
}

static void test_several_callbacks_one_fd(void **state)
{
	struct ctx a, b;

	(void)state;
	ctx_init(&a);
	ctx_init(&b);
	/* b's callback is registered on a's fd: both run per event; b's drain finds nothing. */
	assert_int_equal(dvp_intr_callback_register(a.fd, cb, &a), 0);
	assert_int_equal(dvp_intr_callback_register(a.fd, cb, &b), 0);
	fire(a.fd);
	sem_wait(&a.called);
	sem_wait(&b.called);
	assert_int_equal(dvp_intr_callback_unregister(a.fd, cb, (void *)-1), 2);
	ctx_fini(&a);
	ctx_fini(&b);
}

static void test_hangup_unregisters_with_log_line(void **state)
{
	struct dvp_log_capture cap;
	struct ctx c, sync;
	int p[2];

	(void)state;
	ctx_init(&c);
	ctx_init(&sync);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(dvp_intr_callback_register(p[0], cb, &c), 0);
	assert_int_equal(dvp_intr_callback_register(sync.fd, cb, &sync), 0);
	dvp_log_capture_begin(&cap);
	close(p[1]);
	/* The HUP is ready before this event, so the thread handles it first. */
	fire(sync.fd);
	sem_wait(&sync.called);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "reported hang-up: unregistered its 1 callback");
	dvp_log_capture_free(&cap);
	assert_int_equal(dvp_intr_callback_unregister(p[0], cb, (void *)-1), 0);
	assert_int_equal(dvp_intr_callback_unregister(sync.fd, cb, &sync), 1);
	close(p[0]);
	ctx_fini(&c);
	ctx_fini(&sync);
}

/* Threads register, fire and unregister their own fds while others do the same. */
struct racer {
	pthread_t t;
	struct ctx c;
	int rounds;
	int errors; /* read after join */
};

static void *race(void *arg)
{
	struct racer *r = arg;
	uint64_t one = 1;
	int i, n;

	for (i = 0; i < r->rounds; i++) {
		if (dvp_intr_callback_register(r->c.fd, cb, &r->c) != 0)
			r->errors++;
		if (write(r->c.fd, &one, sizeof(one)) != sizeof(one))
			r->errors++;
		if (i % 2 == 0)
			sem_wait(&r->c.called);
		n = dvp_intr_callback_unregister(r->c.fd, cb, &r->c);
		if (n != 1)
			r->errors++;
		/* Once unregister returned, the callback is not running on our ctx. */
		if (atomic_load(&r->c.in_cb))
			r->errors++;
		while (sem_trywait(&r->c.called) == 0)
			;
		drain(r->c.fd);
	}
	return NULL;
}

static void test_register_unregister_race(void **state)
{
	struct racer r[4];
	unsigned int i;

	(void)state;
	for (i = 0; i < DVP_DIM(r); i++) {
		ctx_init(&r[i].c);
		atomic_store(&r[i].c.sleep_ms, (int)(i % 2));
		r[i].rounds = 200;
		r[i].errors = 0;
		assert_int_equal(pthread_create(&r[i].t, NULL, race, &r[i]), 0);
	}
	for (i = 0; i < DVP_DIM(r); i++) {
		pthread_join(r[i].t, NULL);
		assert_int_equal(r[i].errors, 0);
		assert_true(atomic_load(&r[i].c.calls) >= r[i].rounds / 2);
		ctx_fini(&r[i].c);
	}
}

static void test_cleanup_with_callbacks_left(void **state)
{
	struct ctx c;

	(void)state;
	ctx_init(&c);
	assert_int_equal(dvp_intr_callback_register(c.fd, cb, &c), 0);
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_int_equal(dvp_intr_callback_register(c.fd, cb, &c), -E_DVP_NO_INIT);
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "4"), 3);
	ctx_fini(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_callback_runs_on_intr_thread),
		cmocka_unit_test(test_bad_register),
		cmocka_unit_test(test_unregister_from_inside_callback),
		cmocka_unit_test(test_unregister_waits_for_running_callback),
		cmocka_unit_test(test_fd_closed_and_reused_inside_callback),
		cmocka_unit_test(test_several_callbacks_one_fd),
		cmocka_unit_test(test_hangup_unregisters_with_log_line),
		cmocka_unit_test(test_register_unregister_race),
		cmocka_unit_test(test_cleanup_with_callbacks_left),
	};

	return cmocka_run_group_tests(tests, setup, dvp_test_eal_teardown);
}
