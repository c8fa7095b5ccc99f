/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Telemetry: the socket DPDK's dpdk-telemetry.py talks to (DPDK's protocol
 * v2), and the commands it answers.
 *
 * A library registers a command with the function that answers it; the EAL
 * starts the socket (dvp_eal_init(), unless --no-telemetry or hosted) and
 * removes it (dvp_eal_cleanup()). Commands are answered on the socket's own
 * control thread, one at a time: an answer must be quick and must not wait
 * on the datapath.
 *
 * A reply is one JSON object {"<command>": <value>} of at most
 * DVP_TELEMETRY_MAX_OUTPUT bytes: the answer writes the value with the
 * dvp_json.h writer, giving NULL as its key; elements past the limit are
 * dropped (see dvp_json.h). An answer returning a negative number, or
 * writing nothing, replies null, as does an unknown command.
 */

#ifndef DVP_TELEMETRY_H
#define DVP_TELEMETRY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#include <dvp_json.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Longest command (with its '/'), plus one: DPDK's limit. */
#define DVP_TELEMETRY_MAX_CMD_LEN 56
/** Longest help text, plus one. */
#define DVP_TELEMETRY_MAX_HELP_LEN 128
/** Largest reply in bytes (the max_output_len the greeting announces). */
#define DVP_TELEMETRY_MAX_OUTPUT (16 * 1024)
/** Longest request read: the rest of a longer message is dropped, as DPDK does. */
#define DVP_TELEMETRY_MAX_INPUT 1023
/** Most clients connected at once; more are closed at once. */
#define DVP_TELEMETRY_MAX_CLIENTS 128

/**
 * Answer @p cmd: write one value with @p w (key NULL).
 * @param params  what followed the first ',' after the command, or NULL
 * @return 0, or negative to reply null
 */
typedef int (*dvp_telemetry_cb)(const char *cmd, const char *params, struct dvp_json *w);

/**
 * Register @p cmd ("/" then letters, digits, '_' and '/'; shorter than
 * DVP_TELEMETRY_MAX_CMD_LEN) answered by @p fn, described by @p help
 * (shorter than DVP_TELEMETRY_MAX_HELP_LEN). Registering a command again
 * replaces its function and help. Any thread, any time (constructors too).
 * @return 0, -EINVAL for a bad name, help or NULL @p fn, -ENOMEM
 */
int dvp_telemetry_register_cmd(const char *cmd, dvp_telemetry_cb fn, const char *help);

/**
 * The reply to one request @p msg of @p len bytes (as read from a client),
 * into @p out of @p cap bytes (NUL-terminated). Commands run here, on the
 * calling thread.
 * @return the reply's length (without the NUL)
 */
size_t dvp_telemetry_reply(const char *msg, size_t len, char *out, size_t cap);

/** What the socket needs from its starter (the EAL). */
struct dvp_telemetry_conf {
	const char *runtime_dir; /**< the socket goes in it: <dir>/dpdk_telemetry.v2 */
	const char *version; /**< "version" of the greeting and of /info */
	const cpu_set_t *cpus; /**< CPUs of the control thread, NULL: inherited */
	/** Log a line (no newline) at a dvp_log level (NULL: none). */
	void (*log)(unsigned int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
};

/**
 * Create the socket and start its thread. A socket left by a process that
 * is gone is replaced; one that answers (another live process) is not.
 * @return 0, or a negative errno with what failed in @p why (one line, for
 *   the caller to log): -EADDRINUSE (a live process has it), -ENAMETOOLONG,
 *   -EALREADY (started), or the errno of socket/bind/listen/thread creation.
 */
int dvp_telemetry_start(const struct dvp_telemetry_conf *conf, char *why, size_t wlen);

/**
 * Stop the thread, close every client and remove the socket. Safe when not
 * started. Refused from the telemetry thread itself (a command's function:
 * it would join itself and close the epoll set it runs on), and from any
 * thread the check of dvp_telemetry_set_stop_check() refuses, before
 * anything is touched.
 * @return 0, or -EDEADLK (refused, after a line saying where to call it)
 */
int dvp_telemetry_stop(void);

/** Whether the calling thread is the telemetry thread (running a command). */
bool dvp_thread_is_telemetry(void);

/**
 * Set the check dvp_telemetry_stop() runs first, for the library that owns
 * the threads a stop must not come from (the EAL: its lcores, its
 * interrupt thread): it returns 0, or a negative errno after its one line
 * naming @p who and the thread, and must refuse the telemetry thread as
 * well (dvp_thread_is_telemetry()). NULL (the default): only the
 * telemetry thread is refused. Any thread, any time (constructors too).
 */
void dvp_telemetry_set_stop_check(int (*check)(const char *who));

/** The socket's path while started, else NULL. */
const char *dvp_telemetry_path(void);

#ifdef __cplusplus
}
#endif

#endif /* DVP_TELEMETRY_H */
