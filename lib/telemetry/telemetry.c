/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The command table and the answer to one request, as DPDK's telemetry
 * v2 gives them: a request is "<command>[,<params>]", the reply
 * {"<command>": <value>}, and null for a command that is unknown, too
 * long, or whose answer failed. The table is kept sorted, so "/" lists
 * the commands in order.
 */

#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "telemetry_private.h"

struct tel_cmd {
	char name[DVP_TELEMETRY_MAX_CMD_LEN];
	dvp_telemetry_cb fn;
	char help[DVP_TELEMETRY_MAX_HELP_LEN];
};

static pthread_mutex_t cmds_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tel_cmd *cmds; /* sorted by name, under cmds_lock */
static unsigned int nb_cmds;
static char version[64] = "dvpmd";

void tel_set_version(const char *v)
{
	pthread_mutex_lock(&cmds_lock);
	snprintf(version, sizeof(version), "%s", v != NULL ? v : "dvpmd");
	pthread_mutex_unlock(&cmds_lock);
}

static bool cmd_name_valid(const char *cmd)
{
	const char *c;

	if (cmd == NULL || cmd[0] != '/' || strlen(cmd) >= DVP_TELEMETRY_MAX_CMD_LEN)
		return false;
	for (c = cmd; *c != '\0'; c++)
		if (!isalnum((unsigned char)*c) && *c != '_' && *c != '/')
			return false;
	return true;
}

int dvp_telemetry_register_cmd(const char *cmd, dvp_telemetry_cb fn, const char *help)
{
	struct tel_cmd *n;
	unsigned int i;
	int c = 1;

	if (!cmd_name_valid(cmd) || fn == NULL || help == NULL ||
	    strlen(help) >= DVP_TELEMETRY_MAX_HELP_LEN)
		return -EINVAL;
	pthread_mutex_lock(&cmds_lock);
	for (i = 0; i < nb_cmds && (c = strcmp(cmd, cmds[i].name)) > 0; i++)
		;
	if (i == nb_cmds || c != 0) {
		n = realloc(cmds, (nb_cmds + 1) * sizeof(*n));
		if (n == NULL) {
			pthread_mutex_unlock(&cmds_lock);
			return -ENOMEM;
		}
		cmds = n;
		memmove(&cmds[i + 1], &cmds[i], (nb_cmds - i) * sizeof(*n));
		nb_cmds++;
		snprintf(cmds[i].name, sizeof(cmds[i].name), "%s", cmd);
	}
	cmds[i].fn = fn;
	snprintf(cmds[i].help, sizeof(cmds[i].help), "%s", help);
	pthread_mutex_unlock(&cmds_lock);
	return 0;
}

static dvp_telemetry_cb cmd_find(const char *cmd)
{
	dvp_telemetry_cb fn = NULL;
	unsigned int i;

	pthread_mutex_lock(&cmds_lock);
	for (i = 0; i < nb_cmds; i++)
		if (strcmp(cmd, cmds[i].name) == 0) {
			fn = cmds[i].fn;
			break;
		}
	pthread_mutex_unlock(&cmds_lock);
	return fn;
}

static int cmd_list(const char *cmd, const char *params, struct dvp_json *w)
{
	unsigned int i;

	(void)cmd;
	(void)params;
	dvp_json_arr_open(w, NULL);
	pthread_mutex_lock(&cmds_lock);
	for (i = 0; i < nb_cmds; i++)
		dvp_json_str(w, NULL, cmds[i].name);
	pthread_mutex_unlock(&cmds_lock);
	dvp_json_arr_close(w);
	return 0;
}

static void info_value(struct dvp_json *w)
{
	dvp_json_obj_open(w, NULL);
	pthread_mutex_lock(&cmds_lock);
	dvp_json_str(w, "version", version);
	pthread_mutex_unlock(&cmds_lock);
	dvp_json_i64(w, "pid", getpid());
	dvp_json_i64(w, "max_output_len", DVP_TELEMETRY_MAX_OUTPUT);
	dvp_json_obj_close(w);
}

static int cmd_info(const char *cmd, const char *params, struct dvp_json *w)
{
	(void)cmd;
	(void)params;
	info_value(w);
	return 0;
}

size_t tel_greeting(char *out, size_t cap)
{
	struct dvp_json w;

	dvp_json_init_buf(&w, out, cap);
	info_value(&w);
	return dvp_json_len(&w);
}

/* "/help" alone: its own help, as a string; "/help,<cmd>": {"<cmd>": help}. */
static int cmd_help(const char *cmd, const char *params, struct dvp_json *w)
{
	const char *look = params != NULL ? params : cmd;
	unsigned int i;
	int ret = -1;

	pthread_mutex_lock(&cmds_lock);
	for (i = 0; i < nb_cmds; i++) {
		if (strcmp(look, cmds[i].name) != 0)
			continue;
		if (params == NULL) {
			dvp_json_str(w, NULL, cmds[i].help);
		} else {
			dvp_json_obj_open(w, NULL);
			dvp_json_str(w, params, cmds[i].help);
			dvp_json_obj_close(w);
		}
		ret = 0;
		break;
	}
	pthread_mutex_unlock(&cmds_lock);
	return ret;
}

__attribute__((constructor)) static void tel_builtin_cmds(void)
{
	dvp_telemetry_register_cmd("/", cmd_list,
				   "Returns list of available commands, Takes no parameters");
	dvp_telemetry_register_cmd("/info", cmd_info,
				   "Returns DPDK Telemetry information. Takes no parameters");
	dvp_telemetry_register_cmd("/help", cmd_help,
				   "Returns help text for a command. Parameters: string command");
}

/* {"<cmd>":null}, with the command cut to DPDK's length at a whole UTF-8 character. */
static size_t reply_null(const char *cmd, char *out, size_t cap)
{
	char name[DVP_TELEMETRY_MAX_CMD_LEN + 1];
	size_t n = strlen(cmd);
	struct dvp_json w;

	if (n > DVP_TELEMETRY_MAX_CMD_LEN) {
		n = DVP_TELEMETRY_MAX_CMD_LEN;
		while (n > 0 && ((unsigned char)cmd[n] & 0xc0) == 0x80)
			n--;
	}
	memcpy(name, cmd, n);
	name[n] = '\0';
	dvp_json_init_buf(&w, out, cap);
	dvp_json_obj_open(&w, NULL);
	dvp_json_null(&w, name);
	dvp_json_obj_close(&w);
	return dvp_json_len(&w);
}

size_t dvp_telemetry_reply(const char *msg, size_t len, char *out, size_t cap)
{
	char req[DVP_TELEMETRY_MAX_INPUT + 1];
	const char *cmd, *params;
	dvp_telemetry_cb fn;
	struct dvp_json w;
	char *p;
	int ret;

	if (cap == 0)
		return 0;
	if (len > DVP_TELEMETRY_MAX_INPUT)
		len = DVP_TELEMETRY_MAX_INPUT;
	memcpy(req, msg, len);
	req[len] = '\0';
	/*
	 * As DPDK splits it (strtok): commas before the command are skipped,
	 * the command ends at the next comma, and the parameters are the rest
	 * (NULL when empty). The request ends at a NUL byte.
	 */
	p = req + strspn(req, ",");
	if (*p == '\0')
		return reply_null("(null)", out, cap);
	cmd = p;
	p += strcspn(p, ",");
	params = NULL;
	if (*p == ',') {
		*p++ = '\0';
		if (*p != '\0')
			params = p;
	}
	fn = strlen(cmd) < DVP_TELEMETRY_MAX_CMD_LEN ? cmd_find(cmd) : NULL;
	if (fn == NULL)
		return reply_null(cmd, out, cap);

	dvp_json_init_buf(&w, out, cap);
	dvp_json_obj_open(&w, NULL);
	dvp_json_set_key(&w, cmd);
	ret = fn(cmd, params, &w);
	if (ret < 0 || dvp_json_failed(&w) || !(w.depth == 1 && w.skipped == 0))
		return reply_null(cmd, out, cap);
	/* The answer wrote nothing: null, as DPDK replies for no data. */
	if (w.key != NULL)
		dvp_json_null(&w, NULL);
	dvp_json_obj_close(&w);
	return dvp_json_len(&w);
}
