/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include "dvp_eal.h"

const char *dvp_version(void)
{
	return "dvpmd " DVP_VERSION;
}
