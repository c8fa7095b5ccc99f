/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Fault injection: wire drops and corruption (seeded, so a run repeats),
 * timed link flaps, a CQ whose consumer index the device stops reading,
 * WQEs answered as if their lkey were bad, and a device fatal error. Each
 * is reported to the driver the way the hardware reports it: loss, bad
 * checksum flags, PORT_ERR/PORT_ACTIVE, CQ_ERR, an error CQE, DEVICE_FATAL.
 */

#include <errno.h>
#include <string.h>

#include <dvp_errno.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_event.h"

/* xorshift64*: cheap, and the same sequence for the same seed. */
static uint32_t sim_rand(struct sim_mlx5_dev *dev)
{
	uint64_t x = dev->rng;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	dev->rng = x;
	return (uint32_t)((x * 0x2545f4914f6cdd1dull) >> 32);
}

static bool sim_chance_ppm(struct sim_mlx5_dev *dev, uint32_t ppm)
{
	return ppm != 0 && sim_rand(dev) % 1000000u < ppm;
}

bool sim_wire_pass(struct sim_mlx5_dev *dev, struct sim_port *to, uint8_t *frame, uint32_t len)
{
	/* Relaxed: a setting, changed under the receiving device's lock. */
	if (sim_chance_ppm(dev, __atomic_load_n(&to->drop_ppm, __ATOMIC_RELAXED))) {
		__atomic_fetch_add(&to->wire_drops, 1, __ATOMIC_RELAXED);
		return false;
	}
	if (len > 14 && sim_chance_ppm(dev, __atomic_load_n(&to->corrupt_ppm, __ATOMIC_RELAXED))) {
		frame[14 + sim_rand(dev) % (len - 14)] ^= (uint8_t)(1u + sim_rand(dev) % 255u);
		__atomic_fetch_add(&to->wire_corrupt, 1, __ATOMIC_RELAXED);
	}
	return true;
}

bool sim_fault_bad_lkey_take(struct sim_mlx5_dev *dev, uint32_t qn)
{
	dev->wqes_seen++;
	if (dev->cfg.bad_lkey_nth != 0 && dev->wqes_seen == dev->cfg.bad_lkey_nth)
		return true;
	if (dev->bad_lkey_count > 0 && (dev->bad_lkey_qn == 0 || dev->bad_lkey_qn == qn)) {
		dev->bad_lkey_count--;
		return true;
	}
	return false;
}

static void sim_fatal_locked(struct sim_mlx5_dev *dev)
{
	if (dev->fatal)
		return;
	dev->fatal = true;
	SIM_LOG(WARNING, dev, "device fatal error: every queue stops; IBV_EVENT_DEVICE_FATAL");
	/* Real stacks can deliver it twice (reset flow and removal): drivers must cope. */
	sim_async_event_all(dev, IBV_EVENT_DEVICE_FATAL, 0);
	sim_async_event_all(dev, IBV_EVENT_DEVICE_FATAL, 0);
}

/* Timed faults due at @p now. @return how many fired. */
int sim_fault_poll(struct sim_mlx5_dev *dev, uint64_t now)
{
	int n = 0;

	for (unsigned int i = 0; i < dev->nports; i++) {
		struct sim_port *p = &dev->ports[i];

		if (now >= p->flap_at) {
			p->flap_at = UINT64_MAX;
			sim_link_change(p, false);
			n++;
		}
		if (now >= p->flap_up_at && p->flap_at == UINT64_MAX) {
			p->flap_up_at = UINT64_MAX;
			sim_link_change(p, true);
			n++;
		}
	}
	if (now >= dev->fatal_at) {
		dev->fatal_at = UINT64_MAX;
		sim_fatal_locked(dev);
		n++;
	}
	return n;
}

static int set_ppm(struct sim_mlx5_dev *dev, unsigned int port, uint32_t ppm, bool corrupt,
		   const char *fn)
{
	struct sim_port *p = sim_port_get(dev, port, fn);

	if (p == NULL)
		return -dvp_errno;
	if (ppm > 1000000u) {
		SIM_LOG(ERR, dev, "%s: %u parts per million; valid is 0..1000000", fn, ppm);
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&dev->lock);
	__atomic_store_n(corrupt ? &p->corrupt_ppm : &p->drop_ppm, ppm, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_mlx5_fault_drop(struct sim_mlx5_dev *dev, unsigned int port, uint32_t ppm)
{
	return set_ppm(dev, port, ppm, false, __func__);
}

int sim_mlx5_fault_corrupt(struct sim_mlx5_dev *dev, unsigned int port, uint32_t ppm)
{
	return set_ppm(dev, port, ppm, true, __func__);
}

int sim_mlx5_fault_link_flap(struct sim_mlx5_dev *dev, unsigned int port, uint64_t at_ns,
			     uint64_t down_ns)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	if (down_ns == 0 || at_ns > UINT64_MAX - down_ns) {
		SIM_LOG(ERR, dev, "fault_link_flap: the link must stay down for a nonzero time");
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&dev->lock);
	p->flap_at = at_ns;
	p->flap_up_at = at_ns + down_ns;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_mlx5_fault_tx_hold(struct sim_mlx5_dev *dev, unsigned int port, bool hold)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&dev->lock);
	p->tx_held = hold;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_mlx5_fault_cq_stall(struct sim_mlx5_dev *dev, uint32_t cqn, bool stall)
{
	struct sim_cq *cq;

	if (dev == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	TAILQ_FOREACH(cq, &dev->cqs, next)
		if (cq->cqn == cqn)
			break;
	if (cq != NULL)
		cq->stall = stall;
	pthread_mutex_unlock(&dev->lock);
	if (cq == NULL) {
		SIM_LOG(ERR, dev, "fault_cq_stall: no CQ %u on this device", cqn);
		return dvp_err(ENOENT);
	}
	return 0;
}

int sim_mlx5_fault_bad_lkey(struct sim_mlx5_dev *dev, uint32_t qn, unsigned int count)
{
	if (dev == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	dev->bad_lkey_qn = qn;
	dev->bad_lkey_count = count;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_mlx5_fault_fatal(struct sim_mlx5_dev *dev)
{
	if (dev == NULL)
		return dvp_err(EINVAL);
	pthread_mutex_lock(&dev->lock);
	sim_fatal_locked(dev);
	pthread_mutex_unlock(&dev->lock);
	return 0;
}
