/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#ifndef AF_XDP_LOG_H
#define AF_XDP_LOG_H

#include <dvp_log.h>

extern int af_xdp_logtype;

/* One line of the driver's log type ("pmd.net.af_xdp"). */
#define AF_XDP_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, af_xdp_logtype, "AF_XDP: ", fmt, ##__VA_ARGS__)

#endif /* AF_XDP_LOG_H */
