/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Running the device: one step does everything due (timed faults, send
 * queues, cables, sources, arm doorbells, late doorbells on destroyed
 * objects); the device thread repeats steps like hardware beside the
 * application, sleeping after a spell of idle steps; sim_mlx5_step() runs
 * one from the caller for deterministic tests and benchmarks.
 */

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include <dvp_common.h>
#include <dvp_errno.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_traffic.h"
#include "sim_uar.h"
#include "sim_wq.h"

/* Idle steps before the thread starts sleeping: a doorbell is seen at once while busy. */
#define IDLE_SPIN_STEPS 512

static int sim_step_locked(struct sim_mlx5_dev *dev)
{
	uint64_t now = sim_now(dev);
	struct sim_qp *qp;
	struct sim_cq *cq;
	int n;

	n = sim_fault_poll(dev, now);
	n += sim_uar_poll_dead(dev);
	if (dev->fatal)
		return n;
	/* Sends first, so a frame crosses a cable and is received in the same step. */
	TAILQ_FOREACH(qp, &dev->sqs, sq_next)
		n += sim_tx_poll(qp);
	for (unsigned int i = 0; i < dev->nports; i++) {
		n += sim_cable_poll(&dev->ports[i]);
		n += sim_source_poll(&dev->ports[i], now);
	}
	TAILQ_FOREACH(cq, &dev->cqs, next)
		n += sim_cq_poll_arm(cq);
	/* The pass ends: its compressed sessions are written (the hardware's timeout). */
	sim_cq_comp_close_all(dev);
	return n;
}

int sim_mlx5_step(struct sim_mlx5_dev *dev)
{
	int n;

	if (dev == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	n = sim_step_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	return n;
}

int sim_mlx5_step_idle(struct sim_mlx5_dev *dev, unsigned int max_steps)
{
	unsigned int i;

	for (i = 0; i < max_steps; i++) {
		int n = sim_mlx5_step(dev);

		if (n < 0)
			return n;
		if (n == 0)
			return (int)i + 1;
	}
	return (int)i;
}

static void *sim_thread_main(void *arg)
{
	struct sim_mlx5_dev *dev = arg;
	unsigned int idle = 0;

	/* Acquire: pairs with the release store of thread_stop. */
	while (!__atomic_load_n(&dev->thread_stop, __ATOMIC_ACQUIRE)) {
		int n;

		pthread_mutex_lock(&dev->lock);
		n = sim_step_locked(dev);
		pthread_mutex_unlock(&dev->lock);
		if (n > 0) {
			idle = 0;
			continue;
		}
		if (++idle < IDLE_SPIN_STEPS || dev->cfg.idle_us == 0)
			dvp_pause();
		else
			usleep(dev->cfg.idle_us);
	}
	return NULL;
}

int sim_mlx5_thread_start(struct sim_mlx5_dev *dev)
{
	char name[16];
	int ret;

	if (dev == NULL)
		return dvp_err(EINVAL);
	if (dev->thread_started)
		return 0;
	__atomic_store_n(&dev->thread_stop, false, __ATOMIC_RELAXED);
	ret = pthread_create(&dev->thread, NULL, sim_thread_main, dev);
	if (ret != 0) {
		SIM_LOG(ERR, dev, "cannot start the device thread: %s", strerror(ret));
		return dvp_err(ret);
	}
	/* "dvp-sim_mlx5_0": the kernel keeps 15 characters. */
	memcpy(name, "dvp-", 4);
	memcpy(name + 4, dev->name, sizeof(name) - 5);
	name[sizeof(name) - 1] = '\0';
	pthread_setname_np(dev->thread, name);
	dev->thread_started = true;
	return 0;
}

int sim_mlx5_thread_stop(struct sim_mlx5_dev *dev)
{
	if (dev == NULL)
		return dvp_err(EINVAL);
	if (!dev->thread_started)
		return 0;
	/* Release: what the caller did before stopping is visible to the thread's last step. */
	__atomic_store_n(&dev->thread_stop, true, __ATOMIC_RELEASE);
	pthread_join(dev->thread, NULL);
	dev->thread_started = false;
	return 0;
}
