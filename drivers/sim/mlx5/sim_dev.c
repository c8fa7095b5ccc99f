/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The device as its parts see it: the registry of live devices (what the
 * glue's get_device_list lists and telemetry finds ports in), its ports,
 * its counters, its clock (monotonic time since creation, or a virtual one
 * moved by the caller), and the reports of invalid use by the driver and
 * of verbs calls refused. sim_vdev.c creates and destroys devices.
 */

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <dvp_cycles.h>
#include <dvp_errno.h>

#include "sim_dev.h"

DVP_LOG_REGISTER(sim_logtype, "pmd.sim.mlx5", NOTICE);

static pthread_mutex_t sim_list_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sim_mlx5_dev *sim_list;
static unsigned int sim_next_index;

void sim_dev_list_lock(void)
{
	pthread_mutex_lock(&sim_list_lock);
}

void sim_dev_list_unlock(void)
{
	pthread_mutex_unlock(&sim_list_lock);
}

struct sim_mlx5_dev *sim_dev_first(void)
{
	return sim_list;
}

/* A number for a new device's name: each is given once. */
unsigned int sim_dev_next_index(void)
{
	unsigned int index;

	sim_dev_list_lock();
	index = sim_next_index++;
	sim_dev_list_unlock();
	return index;
}

void sim_dev_register(struct sim_mlx5_dev *dev)
{
	sim_dev_list_lock();
	dev->reg_next = sim_list;
	sim_list = dev;
	sim_dev_list_unlock();
}

void sim_dev_unregister_locked(struct sim_mlx5_dev *dev)
{
	for (struct sim_mlx5_dev **pp = &sim_list; *pp != NULL; pp = &(*pp)->reg_next) {
		if (*pp == dev) {
			*pp = dev->reg_next;
			break;
		}
	}
}

/* Whether @p dev is a live device (the list lock held). */
int sim_dev_registered(const struct sim_mlx5_dev *dev)
{
	for (struct sim_mlx5_dev *d = sim_list; d != NULL; d = d->reg_next)
		if (d == dev)
			return 1;
	return 0;
}

static const char *const invalid_names[SIM_MLX5_INV_MAX] = {
	[SIM_MLX5_INV_DB_ORDER] = "db_order",
	[SIM_MLX5_INV_ARM_ORDER] = "arm_order",
	[SIM_MLX5_INV_WQE_PAST_PI] = "wqe_past_pi",
	[SIM_MLX5_INV_DS] = "ds_count",
	[SIM_MLX5_INV_WQE_CTRL] = "wqe_ctrl",
	[SIM_MLX5_INV_RING_OVERRUN] = "ring_overrun",
	[SIM_MLX5_INV_CI_AHEAD] = "ci_ahead",
	[SIM_MLX5_INV_DESTROYED_DB] = "destroyed_db",
	[SIM_MLX5_INV_DESTROY_UNACKED] = "destroy_unacked",
	[SIM_MLX5_INV_BAD_OBJECT] = "bad_object",
	[SIM_MLX5_INV_EMPW] = "empw",
	[SIM_MLX5_INV_INLINE] = "inline",
	[SIM_MLX5_INV_OFFLOAD] = "offload",
};

const char *sim_mlx5_invalid_name(enum sim_mlx5_invalid kind)
{
	return (unsigned int)kind < SIM_MLX5_INV_MAX ? invalid_names[kind] : "unknown";
}

/*
 * A driver bug the hardware would not report, or would answer with a hang
 * or a silent loss: said loudly, and counted for the tests to assert.
 * Relaxed: a statistic, read after the test has joined what it waits for.
 */
void sim_invalid(struct sim_mlx5_dev *dev, enum sim_mlx5_invalid kind, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	__atomic_fetch_add(&dev->st.invalid[kind], 1, __ATOMIC_RELAXED);
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	SIM_LOG(ERR, dev, "invalid use by the driver (%s): %s", invalid_names[kind], msg);
}

void *sim_refuse(struct sim_mlx5_dev *dev, int err, const char *fmt, ...)
{
	char msg[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	SIM_LOG(ERR, dev, "%s", msg);
	errno = err; /* after the log, which may change it */
	return NULL;
}

struct sim_port *sim_port_get(struct sim_mlx5_dev *dev, unsigned int port, const char *fn)
{
	if (dev == NULL) {
		DVP_LOG_LINE(ERR, sim_logtype, "", "%s: no device given", fn);
		dvp_errno = EINVAL;
		return NULL;
	}
	if (port >= dev->nports) {
		SIM_LOG(ERR, dev, "%s: port %u does not exist; valid ports are 0..%u", fn, port,
			dev->nports - 1);
		dvp_errno = EINVAL;
		return NULL;
	}
	return &dev->ports[port];
}

struct sim_port *sim_port_lock_out(struct sim_mlx5_dev *dev, unsigned int port, const void *out,
				   const char *fn)
{
	struct sim_port *p = sim_port_get(dev, port, fn);

	if (p == NULL)
		return NULL;
	if (out == NULL) {
		SIM_LOG(ERR, dev, "%s: no place for the result", fn);
		dvp_errno = EINVAL;
		return NULL;
	}
	pthread_mutex_lock(&dev->lock);
	return p;
}

struct sim_mlx5_dev *sim_mlx5_find(const char *name)
{
	struct sim_mlx5_dev *dev = NULL;

	if (name == NULL)
		return NULL;
	sim_dev_list_lock();
	for (dev = sim_list; dev != NULL; dev = dev->reg_next)
		if (strcmp(dev->name, name) == 0)
			break;
	sim_dev_list_unlock();
	return dev;
}

struct sim_mlx5_dev *sim_dev_find_port_locked(const char *name, const uint8_t mac[6],
					      unsigned int *port)
{
	struct sim_mlx5_dev *dev;
	unsigned int p;

	for (dev = sim_list; dev != NULL; dev = dev->reg_next) {
		if (strcmp(dev->name, name) != 0)
			continue;
		for (p = 0; p < dev->nports; p++) {
			if (memcmp(dev->ports[p].mac, mac, 6) == 0) {
				*port = p;
				return dev;
			}
		}
	}
	return NULL;
}

const char *sim_mlx5_name(const struct sim_mlx5_dev *dev)
{
	return dev != NULL ? dev->name : NULL;
}

unsigned int sim_mlx5_nports(const struct sim_mlx5_dev *dev)
{
	return dev != NULL ? dev->nports : 0;
}

int sim_mlx5_mac_get(struct sim_mlx5_dev *dev, unsigned int port, uint8_t mac[6])
{
	struct sim_port *p = sim_port_get(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	memcpy(mac, p->mac, 6);
	return 0;
}

int sim_mlx5_dev_stats(struct sim_mlx5_dev *dev, struct sim_mlx5_dev_stats *st)
{
	if (dev == NULL || st == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	/* Relaxed: counters, counted where no lock is held; nothing is read through them. */
	for (unsigned int i = 0; i < SIM_MLX5_INV_MAX; i++)
		st->invalid[i] = __atomic_load_n(&dev->st.invalid[i], __ATOMIC_RELAXED);
	st->cqes = dev->st.cqes;
	st->error_cqes = dev->st.error_cqes;
	st->flush_cqes = dev->st.flush_cqes;
	st->comp_events = dev->st.comp_events;
	st->arms = dev->st.arms;
	st->arms_stale = dev->st.arms_stale;
	st->cq_overruns = dev->st.cq_overruns;
	st->async_events = __atomic_load_n(&dev->st.async_events, __ATOMIC_RELAXED);
	st->cqe_sessions = dev->st.cqe_sessions;
	st->cqe_minis = dev->st.cqe_minis;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

uint64_t sim_mlx5_invalid_total(struct sim_mlx5_dev *dev)
{
	uint64_t n = 0;

	for (unsigned int i = 0; dev != NULL && i < SIM_MLX5_INV_MAX; i++)
		n += __atomic_load_n(&dev->st.invalid[i], __ATOMIC_RELAXED);
	return n;
}

int sim_mlx5_port_stats(struct sim_mlx5_dev *dev, unsigned int port, struct sim_mlx5_port_stats *st)
{
	struct sim_port *p = sim_port_lock_out(dev, port, st, __func__);

	if (p == NULL)
		return -dvp_errno;
	*st = p->st;
	pthread_mutex_unlock(&dev->lock);
	/* Counted by whichever engine sends into this port, maybe another device's. */
	st->rx_wire_drops = __atomic_load_n(&p->wire_drops, __ATOMIC_RELAXED);
	st->rx_wire_corrupt = __atomic_load_n(&p->wire_corrupt, __ATOMIC_RELAXED);
	return 0;
}

/* --- Clock -------------------------------------------------------------- */

uint64_t sim_now(struct sim_mlx5_dev *dev)
{
	if (dev->cfg.clock_virtual)
		return __atomic_load_n(&dev->clock_virt_ns, __ATOMIC_RELAXED);
	return dvp_clock_monotonic_ns() - dev->clock_base_ns;
}

uint64_t sim_mlx5_clock_ns(struct sim_mlx5_dev *dev)
{
	return dev != NULL ? sim_now(dev) : 0;
}

uint64_t sim_ticks(struct sim_mlx5_dev *dev)
{
	const uint64_t ns = sim_now(dev), khz = dev->cfg.prof.core_clock_khz;

	/* ns * kHz / 10^6, in two parts so that no product overflows. */
	return ns / 1000000u * khz + ns % 1000000u * khz / 1000000u;
}

uint64_t sim_mlx5_clock_ticks(struct sim_mlx5_dev *dev)
{
	return dev != NULL ? sim_ticks(dev) : 0;
}

int sim_mlx5_clock_advance(struct sim_mlx5_dev *dev, uint64_t ns)
{
	if (dev == NULL)
		return dvp_err(EINVAL);
	if (!dev->cfg.clock_virtual) {
		SIM_LOG(ERR, dev,
			"clock_advance: the clock is real time; create the device with "
			"clock=virtual");
		return dvp_err(EINVAL);
	}
	/* Relaxed: the engine reads it under the lock taken below or in the next step. */
	pthread_mutex_lock(&dev->lock);
	__atomic_fetch_add(&dev->clock_virt_ns, ns, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}
