/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* What the ib bus's files share (not installed). */

#ifndef BUS_IB_PRIVATE_H
#define BUS_IB_PRIVATE_H

#include <dvp_log.h>

#include "dvp_bus_ib.h"

extern int ib_bus_logtype;
#define IB_BUS_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, ib_bus_logtype, "IB_BUS: ", fmt, ##__VA_ARGS__)

#endif /* BUS_IB_PRIVATE_H */
