/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Lcores: the main lcore is the thread that called dvp_eal_init(), pinned
 * to its CPU set; each worker is a thread "dvp-worker-N" pinned to its own,
 * sleeping on a condition variable until a function is launched on it.
 * Launch and wait are control path, so a mutex and a condition variable per
 * lcore are the simplest correct hand-off (and they let TSan see it).
 */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>

#include "dvp_eal.h"
#include "dvp_eal_host.h"
#include "dvp_lcore.h"
#include "eal_private.h"

DVP_DEFINE_PER_LCORE(unsigned int, _lcore_id) = DVP_LCORE_ID_ANY;

struct lcore {
	bool enabled;
	bool thread_started;
	int socket;
	cpu_set_t cpus;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	/* Under lock: */
	enum dvp_lcore_state state;
	bool stop;
	dvp_lcore_function_t f;
	void *arg;
	int ret;
};

static struct {
	struct lcore lc[DVP_MAX_LCORE];
	unsigned int main;
	unsigned int count;
	bool up;
	cpu_set_t main_saved_affinity;
	bool main_pinned;
} lcores;

unsigned int dvp_get_main_lcore(void)
{
	return lcores.main;
}

unsigned int dvp_lcore_count(void)
{
	return lcores.count;
}

bool dvp_lcore_is_enabled(unsigned int lcore_id)
{
	return lcore_id < DVP_MAX_LCORE && lcores.lc[lcore_id].enabled;
}

int dvp_lcore_to_socket_id(unsigned int lcore_id)
{
	if (!dvp_lcore_is_enabled(lcore_id))
		return DVP_SOCKET_ANY;
	return lcores.lc[lcore_id].socket;
}

int dvp_lcore_to_cpu_id(unsigned int lcore_id)
{
	int i;

	if (!dvp_lcore_is_enabled(lcore_id))
		return -1;
	for (i = 0; i < CPU_SETSIZE; i++)
		if (CPU_ISSET(i, &lcores.lc[lcore_id].cpus))
			return i;
	return -1;
}

int dvp_socket_id(void)
{
	unsigned int id = dvp_lcore_id();
	int cpu;

	if (id < DVP_MAX_LCORE && lcores.lc[id].enabled && lcores.lc[id].socket >= 0)
		return lcores.lc[id].socket;
	cpu = sched_getcpu();
	return cpu < 0 ? 0 : eal_cpu_socket((unsigned int)cpu);
}

unsigned int dvp_socket_count(void)
{
	return eal_numa_nodes();
}

unsigned int dvp_get_next_lcore(unsigned int i, bool skip_main, bool wrap)
{
	unsigned int n;

	if (lcores.count == 0)
		return DVP_MAX_LCORE;
	for (n = 0; n < DVP_MAX_LCORE; n++) {
		i++;
		if (i >= DVP_MAX_LCORE) {
			if (!wrap)
				return DVP_MAX_LCORE;
			i = 0;
		}
		if (!lcores.lc[i].enabled || (skip_main && i == lcores.main))
			continue;
		return i;
	}
	return DVP_MAX_LCORE;
}

void eal_control_cpus(cpu_set_t *set)
{
	unsigned int i;
	int c;

	*set = eal_process_cpus;
	for (i = 0; i < DVP_MAX_LCORE; i++) {
		if (!lcores.lc[i].enabled)
			continue;
		for (c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &lcores.lc[i].cpus))
				CPU_CLR(c, set);
	}
	if (CPU_COUNT(set) == 0)
		*set = eal_process_cpus;
}

static void *worker_main(void *arg)
{
	struct lcore *lc = arg;
	unsigned int id = (unsigned int)(lc - lcores.lc);
	char name[16];
	dvp_lcore_function_t f;
	void *farg;
	int ret;

	DVP_PER_LCORE(_lcore_id) = id;
	snprintf(name, sizeof(name), "dvp-worker-%u", id);
	pthread_setname_np(pthread_self(), name);

	pthread_mutex_lock(&lc->lock);
	for (;;) {
		while (!lc->stop && lc->state != DVP_LCORE_RUNNING)
			pthread_cond_wait(&lc->cond, &lc->lock);
		if (lc->stop)
			break;
		f = lc->f;
		farg = lc->arg;
		pthread_mutex_unlock(&lc->lock);
		ret = f(farg);
		pthread_mutex_lock(&lc->lock);
		lc->ret = ret;
		lc->state = DVP_LCORE_WAIT;
		pthread_cond_broadcast(&lc->cond);
	}
	pthread_mutex_unlock(&lc->lock);
	return NULL;
}

static int lcore_socket(const cpu_set_t *cpus)
{
	int i, s = -2, n;

	/* A CPU set spanning nodes has no node of its own, as in DPDK. */
	for (i = 0; i < CPU_SETSIZE; i++) {
		if (!CPU_ISSET(i, cpus))
			continue;
		n = eal_cpu_socket((unsigned int)i);
		if (s != -2 && n != s)
			return DVP_SOCKET_ANY;
		s = n;
	}
	return s < 0 ? 0 : s;
}

static __dvp_cold int start_worker(struct lcore *lc, unsigned int id)
{
	pthread_attr_t attr;
	char cpus[256];
	int ret;

	pthread_attr_init(&attr);
	ret = pthread_attr_setaffinity_np(&attr, sizeof(lc->cpus), &lc->cpus);
	if (ret == 0)
		ret = pthread_create(&lc->thread, &attr, worker_main, lc);
	pthread_attr_destroy(&attr);
	if (ret != 0) {
		eal_format_cpuset(&lc->cpus, cpus, sizeof(cpus));
		EAL_LOG(ERR, "cannot start the thread of lcore %u on CPUs %s: %s", id, cpus,
			dvp_strerror(ret));
		return dvp_err(ret);
	}
	lc->thread_started = true;
	return 0;
}

int eal_lcore_init(const struct eal_cfg *cfg)
{
	const struct dvp_eal_host *host = cfg->host;
	struct lcore *lc;
	char cpus[256];
	unsigned int i;
	int ret;

	memset(&lcores, 0, sizeof(lcores));
	lcores.main = cfg->main_lcore;
	for (i = 0; i < DVP_MAX_LCORE; i++) {
		if (!cfg->lcore_enabled[i])
			continue;
		lc = &lcores.lc[i];
		lc->enabled = true;
		lc->cpus = cfg->lcore_cpus[i];
		lc->socket =
			host != NULL ? host->lcore_socket(host->arg, i) : lcore_socket(&lc->cpus);
		lc->state = DVP_LCORE_WAIT;
		pthread_mutex_init(&lc->lock, NULL);
		pthread_cond_init(&lc->cond, NULL);
		lcores.count++;
	}

	if (host != NULL) {
		/* The host's threads are the lcores: nothing to start or pin. */
		DVP_PER_LCORE(_lcore_id) = lcores.main;
		lcores.up = true;
		return 0;
	}
	/* The main thread runs on its lcore's CPUs until cleanup gives its own mask back. */
	lc = &lcores.lc[lcores.main];
	pthread_getaffinity_np(pthread_self(), sizeof(lcores.main_saved_affinity),
			       &lcores.main_saved_affinity);
	ret = pthread_setaffinity_np(pthread_self(), sizeof(lc->cpus), &lc->cpus);
	if (ret != 0) {
		eal_format_cpuset(&lc->cpus, cpus, sizeof(cpus));
		EAL_LOG(ERR, "cannot pin the main lcore %u to CPUs %s: %s", lcores.main, cpus,
			dvp_strerror(ret));
		ret = dvp_err(ret);
		goto fail;
	}
	lcores.main_pinned = true;
	DVP_PER_LCORE(_lcore_id) = lcores.main;

	for (i = 0; i < DVP_MAX_LCORE; i++) {
		if (!lcores.lc[i].enabled || i == lcores.main)
			continue;
		ret = start_worker(&lcores.lc[i], i);
		if (ret < 0)
			goto fail;
	}
	lcores.up = true;
	return 0;

fail:
	eal_lcore_cleanup();
	return ret;
}

void eal_lcore_cleanup(void)
{
	struct lcore *lc;
	unsigned int i;

	for (i = 0; i < DVP_MAX_LCORE; i++) {
		lc = &lcores.lc[i];
		if (!lc->thread_started)
			continue;
		pthread_mutex_lock(&lc->lock);
		if (lc->state == DVP_LCORE_RUNNING)
			EAL_LOG(NOTICE, "cleanup waits for lcore %u to return from its function",
				i);
		while (lc->state == DVP_LCORE_RUNNING)
			pthread_cond_wait(&lc->cond, &lc->lock);
		lc->stop = true;
		pthread_cond_broadcast(&lc->cond);
		pthread_mutex_unlock(&lc->lock);
		pthread_join(lc->thread, NULL);
	}
	if (lcores.main_pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(lcores.main_saved_affinity),
				       &lcores.main_saved_affinity);
	for (i = 0; i < DVP_MAX_LCORE; i++) {
		lc = &lcores.lc[i];
		if (!lc->enabled)
			continue;
		pthread_mutex_destroy(&lc->lock);
		pthread_cond_destroy(&lc->cond);
	}
	DVP_PER_LCORE(_lcore_id) = DVP_LCORE_ID_ANY;
	memset(&lcores, 0, sizeof(lcores));
}

static __dvp_cold int bad_worker(unsigned int id, const char *what)
{
	if (!lcores.up) {
		EAL_LOG(ERR, "%s lcore %u: the EAL is not initialised", what, id);
		return dvp_err(E_DVP_NO_INIT);
	}
	if (id == lcores.main)
		EAL_LOG(ERR, "%s lcore %u: it is the main lcore (the calling thread), not a worker",
			what, id);
	else
		EAL_LOG(ERR, "%s lcore %u: no such lcore is enabled", what, id);
	return dvp_err(EINVAL);
}

static bool is_worker(unsigned int id)
{
	return lcores.up && id < DVP_MAX_LCORE && lcores.lc[id].enabled && id != lcores.main;
}

int dvp_eal_remote_launch(dvp_lcore_function_t f, void *arg, unsigned int worker_id)
{
	struct lcore *lc;

	if (!is_worker(worker_id))
		return bad_worker(worker_id, "launch on");
	if (f == NULL)
		return dvp_err(EINVAL);
	lc = &lcores.lc[worker_id];
	if (!lc->thread_started) {
		EAL_LOG(ERR,
			"launch on lcore %u: hosted, the host's threads run the lcores: launch there",
			worker_id);
		return dvp_err(ENOTSUP);
	}
	pthread_mutex_lock(&lc->lock);
	if (lc->state == DVP_LCORE_RUNNING) {
		pthread_mutex_unlock(&lc->lock);
		return dvp_err(EBUSY);
	}
	lc->f = f;
	lc->arg = arg;
	lc->ret = 0;
	lc->state = DVP_LCORE_RUNNING;
	pthread_cond_broadcast(&lc->cond);
	pthread_mutex_unlock(&lc->lock);
	return 0;
}

int dvp_eal_mp_remote_launch(dvp_lcore_function_t f, void *arg, enum dvp_call_main call_main)
{
	unsigned int i;
	int ret;

	if (!lcores.up)
		return bad_worker(0, "launch on");
	if (f == NULL)
		return dvp_err(EINVAL);
	DVP_LCORE_FOREACH_WORKER(i) {
		if (dvp_eal_get_lcore_state(i) == DVP_LCORE_RUNNING)
			return dvp_err(EBUSY);
	}
	DVP_LCORE_FOREACH_WORKER(i) {
		ret = dvp_eal_remote_launch(f, arg, i);
		if (ret < 0)
			return ret;
	}
	if (call_main == DVP_CALL_MAIN)
		lcores.lc[lcores.main].ret = f(arg);
	return 0;
}

int dvp_eal_wait_lcore(unsigned int worker_id)
{
	struct lcore *lc;
	int ret;

	if (!is_worker(worker_id))
		return bad_worker(worker_id, "wait for");
	lc = &lcores.lc[worker_id];
	pthread_mutex_lock(&lc->lock);
	while (lc->state == DVP_LCORE_RUNNING)
		pthread_cond_wait(&lc->cond, &lc->lock);
	ret = lc->ret;
	pthread_mutex_unlock(&lc->lock);
	return ret;
}

void dvp_eal_mp_wait_lcore(void)
{
	unsigned int i;

	DVP_LCORE_FOREACH_WORKER(i) {
		dvp_eal_wait_lcore(i);
	}
}

enum dvp_lcore_state dvp_eal_get_lcore_state(unsigned int lcore_id)
{
	enum dvp_lcore_state s;
	struct lcore *lc;

	if (!is_worker(lcore_id))
		return DVP_LCORE_WAIT;
	lc = &lcores.lc[lcore_id];
	pthread_mutex_lock(&lc->lock);
	s = lc->state;
	pthread_mutex_unlock(&lc->lock);
	return s;
}
