/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Small helpers every dvpmd file may use: branch hints, alignment, sizes.
 */

#ifndef DVP_COMMON_H
#define DVP_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#include <dvp_build_config.h>

#ifdef __cplusplus
extern "C" {
#endif

#define dvp_likely(x) __builtin_expect(!!(x), 1)
#define dvp_unlikely(x) __builtin_expect(!!(x), 0)

#define __dvp_aligned(a) __attribute__((aligned(a)))
#define __dvp_cache_aligned __dvp_aligned(DVP_CACHE_LINE_SIZE)
#define __dvp_packed __attribute__((packed))
#define __dvp_unused __attribute__((unused))
#define __dvp_always_inline inline __attribute__((always_inline))
#define __dvp_noinline __attribute__((noinline))
#define __dvp_cold __attribute__((cold))
#define __dvp_format_printf(f, a) __attribute__((format(printf, f, a)))
#define __dvp_constructor(prio) __attribute__((constructor(prio)))
#define __dvp_warn_unused_result __attribute__((warn_unused_result))
/*
 * What a driver's shared object exports: drivers are built with hidden
 * visibility, so that only the declarations their API headers mark with
 * this are seen outside them (test/build/test_driver_exports.sh checks).
 */
#define __dvp_export __attribute__((visibility("default")))

/* Constructor priorities: log types exist before drivers register. */
#define DVP_PRIO_LOG 101
#define DVP_PRIO_BUS 110
#define DVP_PRIO_DRIVER 120

#define DVP_DIM(a) (sizeof(a) / sizeof((a)[0]))
#define DVP_MIN(a, b) ((a) < (b) ? (a) : (b))
#define DVP_MAX(a, b) ((a) > (b) ? (a) : (b))
#define DVP_STR_(x) #x
#define DVP_STR(x) DVP_STR_(x)

#define dvp_container_of(ptr, type, member) ((type *)(void *)((char *)(ptr)-offsetof(type, member)))

/** Round @p v up to a multiple of @p align (a power of two). */
#define DVP_ALIGN_CEIL(v, align) (((v) + ((__typeof__(v))(align)-1)) & ~((__typeof__(v))(align)-1))
#define DVP_ALIGN_FLOOR(v, align) ((v) & ~((__typeof__(v))(align)-1))
#define DVP_PTR_ALIGN_CEIL(p, align) \
	((__typeof__(p))DVP_ALIGN_CEIL((uintptr_t)(p), (uintptr_t)(align)))
#define DVP_CACHE_LINE_ROUNDUP(size) DVP_ALIGN_CEIL((size_t)(size), DVP_CACHE_LINE_SIZE)

static inline bool dvp_is_power_of_2(uint64_t n)
{
	return n && !(n & (n - 1));
}

/** Smallest power of two >= @p v (0 for 0, and for v > 2^31). */
static inline uint32_t dvp_align32pow2(uint32_t v)
{
	if (v <= 1)
		return v;
	return v > (1u << 31) ? 0 : 1u << (32 - __builtin_clz(v - 1));
}

static inline uint64_t dvp_align64pow2(uint64_t v)
{
	if (v <= 1)
		return v;
	return v > (1ull << 63) ? 0 : 1ull << (64 - __builtin_clzll(v - 1));
}

static inline uint32_t dvp_log2_u32(uint32_t v)
{
	return v ? 31 - __builtin_clz(v) : 0;
}

/** Busy-wait hint: lets a sibling hyperthread run and saves power in spin loops. */
static inline void dvp_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_COMMON_H */
