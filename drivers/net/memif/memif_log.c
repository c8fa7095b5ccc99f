/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include "memif_log.h"

DVP_LOG_REGISTER(memif_logtype, "pmd.net.memif", NOTICE);
