/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#ifndef MEMIF_LOG_H
#define MEMIF_LOG_H

#include <dvp_log.h>

extern int memif_logtype;

/* One line of the memif driver's log type ("pmd.net.memif"). */
#define MEMIF_LOG(level, fmt, ...) DVP_LOG_LINE(level, memif_logtype, "MEMIF: ", fmt, ##__VA_ARGS__)

#endif /* MEMIF_LOG_H */
