/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* lib/telemetry internals: not installed. */

#ifndef TELEMETRY_PRIVATE_H
#define TELEMETRY_PRIVATE_H

#include <stddef.h>

#include "dvp_telemetry.h"

/* dvp_log's levels: the EAL's logger is handed in, this library is below it. */
#define TEL_LOG_ERR 4
#define TEL_LOG_WARNING 5
#define TEL_LOG_DEBUG 8

/* The greeting a client gets on connecting (the value of /info), into @p out. */
size_t tel_greeting(char *out, size_t cap);

/* telemetry.c: what the greeting and /info say, set by dvp_telemetry_start() */
void tel_set_version(const char *version);

#endif /* TELEMETRY_PRIVATE_H */
