/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * dvp_errno: the per-thread error of the last failed dvpmd call.
 *
 * Public functions return a negative errno value (or NULL) on failure and set
 * dvp_errno to the positive value, so both styles of caller are served.
 */

#ifndef DVP_ERRNO_H
#define DVP_ERRNO_H

#include <errno.h>

#ifdef __cplusplus
extern "C" {
#endif

extern __thread int per_thread_dvp_errno;

/** The calling thread's last dvpmd error (a positive errno value). */
#define dvp_errno per_thread_dvp_errno

/** dvpmd's own error numbers, above every system errno. */
enum {
	DVP_EMIN = 1000,
	/** The EAL is not initialised, or was cleaned up. */
	E_DVP_NO_INIT = DVP_EMIN,
	/** An argument or devargs string was rejected; the log says which. */
	E_DVP_BAD_ARG,
	/** Hugepages were asked for but the system has too few. */
	E_DVP_NO_HUGEPAGES,
	/** A device answered in a way the driver cannot use. */
	E_DVP_DEVICE,
	DVP_EMAX
};

/**
 * Text for @p errnum: a dvpmd error or a system errno. Thread-safe; the
 * returned string stays valid until the next call in the same thread.
 */
const char *dvp_strerror(int errnum);

/** Set dvp_errno to @p err (positive) and return -@p err: `return dvp_err(EINVAL);`. */
static inline int dvp_err(int err)
{
	dvp_errno = err;
	return -err;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_ERRNO_H */
