/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The EAL interrupt thread ("dvp-intr"): one epoll loop that calls back when
 * a registered fd is readable. Drivers hand it their async-event fds and
 * control sockets; port events are delivered from it.
 */

#ifndef DVP_INTERRUPTS_H
#define DVP_INTERRUPTS_H

#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Called on the interrupt thread when @p fd is readable. Must not block. */
typedef void (*dvp_intr_callback_fn)(int fd, void *arg);

/**
 * Call @p cb(@p fd, @p arg) whenever @p fd is readable (level-triggered:
 * the callback reads until EAGAIN). Several callbacks may share one fd.
 * An fd that reports HUP or ERR is unregistered with a log line rather than
 * woken forever.
 * @return 0, or -EINVAL, -EEXIST (same fd, cb and arg already), -ENOMEM,
 *   -E_DVP_NO_INIT (no EAL), or epoll's error for an fd it cannot watch.
 */
int dvp_intr_callback_register(int fd, dvp_intr_callback_fn cb, void *arg);

/**
 * Remove the callbacks on @p fd that match @p cb and @p arg (@p arg ==
 * (void *)-1 matches any arg). Safe from inside a callback. From any other
 * thread it returns only once no matching callback is running, so the
 * caller may free @p arg afterwards.
 * @return the number removed (0: none matched), or -EINVAL.
 */
int dvp_intr_callback_unregister(int fd, dvp_intr_callback_fn cb, void *arg);

/** Whether the caller is the interrupt thread. */
bool dvp_thread_is_intr(void);

#ifdef __cplusplus
}
#endif

#endif /* DVP_INTERRUPTS_H */
