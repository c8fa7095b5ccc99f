/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * libFuzzer target: telemetry's request parser and reply (what a client
 * sends over the socket) with the JSON writer behind it. Whatever the
 * bytes and the room, the reply must be one valid JSON object that fits.
 * The first byte picks the room; commands that echo their parameter and
 * that overflow exercise escaping and truncation.
 */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_telemetry.h>

#include "json_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int cmd_echo(const char *cmd, const char *params, struct dvp_json *w)
{
	dvp_json_obj_open(w, NULL);
	dvp_json_str(w, "cmd", cmd);
	dvp_json_str(w, "params", params);
	dvp_json_arr_open(w, "bytes");
	for (const char *p = params; p != NULL && *p != '\0'; p++)
		dvp_json_u64(w, NULL, (unsigned char)*p);
	dvp_json_arr_close(w);
	dvp_json_obj_close(w);
	return 0;
}

/* Nested as deep as the parameter's length says, with a string at each level. */
static int cmd_nest(const char *cmd, const char *params, struct dvp_json *w)
{
	size_t n = params != NULL ? strlen(params) % (DVP_JSON_MAX_DEPTH + 4) : 0;
	size_t i;

	(void)cmd;
	/* Level i is an object when i is odd: what it holds takes a key. */
	for (i = 0; i < n; i++) {
		const char *key = i > 0 && i % 2 == 0 ? params : NULL;

		if (i % 2)
			dvp_json_obj_open(w, key);
		else
			dvp_json_arr_open(w, key);
		dvp_json_str(w, i % 2 ? params : NULL, params);
	}
	while (i-- > 0) {
		if (i % 2)
			dvp_json_obj_close(w);
		else
			dvp_json_arr_close(w);
	}
	return params != NULL && params[0] == '!' ? -1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool registered;
	static char out[DVP_TELEMETRY_MAX_OUTPUT + 1];
	size_t cap, n;

	if (!registered) {
		dvp_telemetry_register_cmd("/echo", cmd_echo, "echo");
		dvp_telemetry_register_cmd("/nest", cmd_nest, "nest");
		registered = true;
	}
	if (size == 0)
		return 0;
	/* Room from the smallest reply that always fits up to the real one. */
	cap = data[0] < 128 ? 64 + (size_t)data[0] * 4 : sizeof(out);
	n = dvp_telemetry_reply((const char *)data + 1, size - 1, out, cap);
	if (n >= cap || strlen(out) != n || !json_valid(out, n) || out[0] != '{')
		abort();
	return 0;
}
