/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Barriers named for what they order, so the call site says why it is there.
 *
 * Between CPU threads, dvpmd uses C11 atomics with the weakest correct order.
 * Between the CPU and a device (DMA to host memory, MMIO doorbells) the C11
 * model has nothing to say, so these helpers give the ordering the device
 * protocol needs. The software HCA (drivers/sim/mlx5) is a device on another
 * CPU thread and relies on the same barriers, which are at least as strong
 * between CPUs as between CPU and device.
 */

#ifndef DVP_BARRIER_H
#define DVP_BARRIER_H

#include <stdint.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

#define dvp_compiler_barrier() __asm__ volatile("" ::: "memory")

#if defined(__x86_64__) || defined(__i386__)

/*
 * Host-memory writes (WQEs, doorbell records) visible to the device before
 * a later host-memory write or doorbell. x86 keeps stores to write-back
 * memory in order, so only the compiler must be stopped.
 */
#define dvp_dma_to_device_barrier() dvp_compiler_barrier()

/*
 * Reads of device-written memory (CQE fields) after the read that proved
 * the device is done with it (the owner bit). x86 keeps ordinary loads in
 * order, but lfence also fences against loads hoisted by the CPU across
 * non-temporal or string reads, as rdma-core does for its CQ poll.
 */
#define dvp_dma_from_device_barrier() __asm__ volatile("lfence" ::: "memory")

/* Drain write-combining buffers so a doorbell or BlueFlame copy is issued now. */
#define dvp_mmio_flush_writes() __asm__ volatile("sfence" ::: "memory")

/* Start of a burst of writes to a write-combining MMIO page. */
#define dvp_mmio_wc_start() dvp_mmio_flush_writes()

#elif defined(__aarch64__)

#define dvp_dma_to_device_barrier() __asm__ volatile("dmb oshst" ::: "memory")
#define dvp_dma_from_device_barrier() __asm__ volatile("dmb oshld" ::: "memory")
#define dvp_mmio_flush_writes() __asm__ volatile("dsb st" ::: "memory")
#define dvp_mmio_wc_start() __asm__ volatile("dsb st" ::: "memory")

#else
#error "dvpmd: no device barriers for this architecture"
#endif

/**
 * One 64-bit store of @p value, already in the device's byte order, to an
 * MMIO register such as a doorbell: the device must see it whole, never
 * torn into two 32-bit writes, and after every store before it (release).
 * The caller adds dvp_mmio_wc_start() before it and dvp_mmio_flush_writes()
 * after it on a write-combining mapping.
 */
static __dvp_always_inline void dvp_mmio_write64(volatile void *addr, uint64_t value)
{
	__atomic_store_n((volatile uint64_t *)addr, value, __ATOMIC_RELEASE);
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_BARRIER_H */
