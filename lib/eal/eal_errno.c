/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <stdio.h>
#include <string.h>

#include "dvp_errno.h"

__thread int per_thread_dvp_errno;

static const char *const dvp_error_text[] = {
	[E_DVP_NO_INIT - DVP_EMIN] = "EAL not initialised",
	[E_DVP_BAD_ARG - DVP_EMIN] = "invalid argument (see the log for which)",
	[E_DVP_NO_HUGEPAGES - DVP_EMIN] = "not enough hugepages",
	[E_DVP_DEVICE - DVP_EMIN] = "unexpected answer from the device",
};

const char *dvp_strerror(int errnum)
{
	static __thread char buf[128];

	if (errnum < 0)
		errnum = -errnum;
	if (errnum >= DVP_EMIN && errnum < DVP_EMAX)
		return dvp_error_text[errnum - DVP_EMIN];
	/* The GNU strerror_r may return a static string instead of filling buf. */
	return strerror_r(errnum, buf, sizeof(buf));
}
