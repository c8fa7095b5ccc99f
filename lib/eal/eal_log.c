/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "dvp_eal_host.h"
#include "dvp_errno.h"
#include "dvp_log.h"
#include "eal_private.h"
#include "dvp_parse.h"

struct log_type {
	char name[DVP_LOG_TYPE_NAMESIZE];
	const char *dpdk_name; /* DPDK's name for the same component, NULL: none */
	_Atomic uint32_t level;
};

/*
 * DPDK's log type names for dvpmd's libraries, so that a DPDK user's
 * --log-level lib.eal:debug does what it says. Drivers already use DPDK's
 * names (pmd.net.mlx5). Receive interrupts are ethdev's in DPDK.
 */
static const struct {
	const char *name;
	const char *dpdk_name;
} dpdk_names[] = {
	{ "eal", "lib.eal" },	    { "user", "user1" },
	{ "ring", "lib.ring" },	    { "mempool", "lib.mempool" },
	{ "mbuf", "lib.mbuf" },	    { "port", "lib.ethdev" },
	{ "rxwait", "lib.ethdev" }, { "telemetry", "lib.telemetry" },
};

static const char *dpdk_name_of(const char *name)
{
	size_t i;

	for (i = 0; i < DVP_DIM(dpdk_names); i++)
		if (strcmp(dpdk_names[i].name, name) == 0)
			return dpdk_names[i].dpdk_name;
	return NULL;
}

/* A --log-level pattern, kept so that types registered later obey it too. */
struct log_pattern {
	struct log_pattern *next;
	bool is_regex;
	regex_t regex;
	char *glob;
	uint32_t level;
};

#define LOG_DEFAULT_LEVEL DVP_LOG_INFO

/*
 * Registration and level changes take the mutex; the per-message check reads
 * levels with relaxed loads: a level change has no data to publish with it,
 * and seeing it a few messages late is harmless.
 */
static struct {
	pthread_mutex_t lock;
	struct log_type types[DVP_LOG_MAX_TYPES];
	_Atomic uint32_t ntypes;
	_Atomic uint32_t global_level;
	struct log_pattern *patterns; /* oldest first: later ones win */
	FILE *_Atomic stream;
	/* Hosted: every line goes to the host's log instead of the stream. */
	const struct dvp_eal_host *_Atomic host;
} logs = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.types = {
		[0] = { .name = "eal", .dpdk_name = "lib.eal", .level = LOG_DEFAULT_LEVEL },
		[1] = { .name = "user", .dpdk_name = "user1", .level = LOG_DEFAULT_LEVEL },
	},
	.ntypes = 2,
	.global_level = DVP_LOG_DEBUG,
};

int dvp_logtype_eal = 0;
int dvp_logtype_user = 1;

static const char *const level_names[] = {
	[DVP_LOG_EMERG] = "emergency", [DVP_LOG_ALERT] = "alert",     [DVP_LOG_CRIT] = "critical",
	[DVP_LOG_ERR] = "error",       [DVP_LOG_WARNING] = "warning", [DVP_LOG_NOTICE] = "notice",
	[DVP_LOG_INFO] = "info",       [DVP_LOG_DEBUG] = "debug",
};

#define LEVEL_CHOICES \
	"a number 1-8 or one of emergency, alert, critical, error, warning, notice, info, debug"

static bool level_valid(uint32_t level)
{
	return level >= DVP_LOG_EMERG && level <= DVP_LOG_MAX;
}

const char *dvp_log_level_name(uint32_t level)
{
	return level_valid(level) ? level_names[level] : "unknown";
}

int dvp_log_parse_level(const char *text)
{
	size_t i, len;
	uint64_t n;

	if (text == NULL || *text == '\0')
		return -EINVAL;
	if (isdigit((unsigned char)*text)) {
		/* Range-checked on 64 bits: 4294967297 is not level 1. */
		if (dvp_parse_u64(text, DVP_LOG_EMERG, DVP_LOG_MAX, &n) < 0)
			return -EINVAL;
		return (int)n;
	}
	/* As DPDK: a name or any start of one, the most severe level first ("e" is emergency). */
	len = strlen(text);
	for (i = DVP_LOG_EMERG; i <= DVP_LOG_MAX; i++)
		if (strncasecmp(text, level_names[i], len) == 0)
			return (int)i;
	return -EINVAL;
}

static bool pattern_matches_name(const struct log_pattern *p, const char *name)
{
	if (p->is_regex)
		return regexec(&p->regex, name, 0, NULL, 0) == 0;
	return fnmatch(p->glob, name, 0) == 0;
}

/* A type answers to its own name and to DPDK's name for it. */
static bool pattern_matches(const struct log_pattern *p, const struct log_type *t)
{
	return pattern_matches_name(p, t->name) ||
	       (t->dpdk_name != NULL && pattern_matches_name(p, t->dpdk_name));
}

static bool type_name_valid(const char *name)
{
	size_t len = name ? strlen(name) : 0;
	const char *c;

	if (len == 0 || len >= DVP_LOG_TYPE_NAMESIZE)
		return false;
	for (c = name; *c; c++)
		if (!isalnum((unsigned char)*c) && !strchr("._-", *c))
			return false;
	return true;
}

static int lookup_locked(const char *name)
{
	uint32_t i, n = atomic_load_explicit(&logs.ntypes, memory_order_relaxed);

	for (i = 0; i < n; i++)
		if (strcmp(logs.types[i].name, name) == 0)
			return (int)i;
	for (i = 0; i < n; i++)
		if (logs.types[i].dpdk_name && strcmp(logs.types[i].dpdk_name, name) == 0)
			return (int)i;
	return -ENOENT;
}

int dvp_log_lookup(const char *name)
{
	int ret;

	if (name == NULL)
		return -EINVAL;
	pthread_mutex_lock(&logs.lock);
	ret = lookup_locked(name);
	pthread_mutex_unlock(&logs.lock);
	return ret;
}

int dvp_log_register(const char *name, uint32_t default_level)
{
	struct log_pattern *p;
	uint32_t id, level = default_level;
	struct log_type *t;
	int ret;

	if (!type_name_valid(name) || !level_valid(default_level))
		return -EINVAL;

	pthread_mutex_lock(&logs.lock);
	ret = lookup_locked(name);
	/* Registering a DPDK name ("lib.eal") is a type of its own, not dvpmd's "eal". */
	if (ret >= 0 && strcmp(logs.types[ret].name, name) == 0)
		goto out;
	id = atomic_load_explicit(&logs.ntypes, memory_order_relaxed);
	if (id >= DVP_LOG_MAX_TYPES) {
		ret = -ENOSPC;
		goto out;
	}
	t = &logs.types[id];
	strcpy(t->name, name);
	t->dpdk_name = dpdk_name_of(name);
	for (p = logs.patterns; p != NULL; p = p->next)
		if (pattern_matches(p, t))
			level = p->level;
	atomic_store_explicit(&t->level, level, memory_order_relaxed);
	/* Release: a reader that sees the new count also sees the name. */
	atomic_store_explicit(&logs.ntypes, id + 1, memory_order_release);
	ret = (int)id;
out:
	pthread_mutex_unlock(&logs.lock);
	return ret;
}

static bool type_valid(uint32_t type)
{
	return type < atomic_load_explicit(&logs.ntypes, memory_order_acquire);
}

const char *dvp_log_type_name(uint32_t type)
{
	return type_valid(type) ? logs.types[type].name : NULL;
}

int dvp_log_set_level(uint32_t type, uint32_t level)
{
	if (!type_valid(type) || !level_valid(level))
		return dvp_err(EINVAL);
	atomic_store_explicit(&logs.types[type].level, level, memory_order_relaxed);
	return 0;
}

int dvp_log_get_level(uint32_t type)
{
	if (!type_valid(type))
		return dvp_err(EINVAL);
	return (int)atomic_load_explicit(&logs.types[type].level, memory_order_relaxed);
}

void dvp_log_set_global_level(uint32_t level)
{
	if (level_valid(level))
		atomic_store_explicit(&logs.global_level, level, memory_order_relaxed);
}

uint32_t dvp_log_get_global_level(void)
{
	return atomic_load_explicit(&logs.global_level, memory_order_relaxed);
}

/* Append @p p to the saved patterns and apply it to every existing type. */
static int pattern_add(struct log_pattern *p)
{
	struct log_pattern **tail;
	uint32_t i, n;
	int changed = 0;

	pthread_mutex_lock(&logs.lock);
	for (tail = &logs.patterns; *tail != NULL; tail = &(*tail)->next)
		;
	*tail = p;
	n = atomic_load_explicit(&logs.ntypes, memory_order_relaxed);
	for (i = 0; i < n; i++) {
		if (!pattern_matches(p, &logs.types[i]))
			continue;
		atomic_store_explicit(&logs.types[i].level, p->level, memory_order_relaxed);
		changed++;
	}
	pthread_mutex_unlock(&logs.lock);
	return changed;
}

int dvp_log_set_level_pattern(const char *pattern, uint32_t level)
{
	struct log_pattern *p;

	if (pattern == NULL || *pattern == '\0' || !level_valid(level))
		return dvp_err(EINVAL);
	p = calloc(1, sizeof(*p));
	if (p == NULL || (p->glob = strdup(pattern)) == NULL) {
		free(p);
		return dvp_err(ENOMEM);
	}
	p->level = level;
	return pattern_add(p);
}

int dvp_log_set_level_regexp(const char *regex, uint32_t level)
{
	struct log_pattern *p;

	if (regex == NULL || *regex == '\0' || !level_valid(level))
		return dvp_err(EINVAL);
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return dvp_err(ENOMEM);
	if (regcomp(&p->regex, regex, REG_EXTENDED | REG_NOSUB) != 0) {
		free(p);
		return dvp_err(EINVAL);
	}
	p->is_regex = true;
	p->level = level;
	return pattern_add(p);
}

static int bad_log_arg(const char *arg, const char *token, const char *why)
{
	dvp_log(DVP_LOG_ERR, (uint32_t)dvp_logtype_eal,
		"EAL: --log-level '%s': %s '%s'; expected LEVEL, GLOB:LEVEL or REGEX,LEVEL with LEVEL %s\n",
		arg, why, token, LEVEL_CHOICES);
	return dvp_err(EINVAL);
}

int dvp_log_apply_arg(const char *arg)
{
	const char *sep, *level_text;
	char *match;
	int level, ret;
	bool is_regex;

	if (arg == NULL || *arg == '\0')
		return bad_log_arg("", "", "empty value");

	/* A regular expression may contain ':', so the ',' form is tried first. */
	sep = strrchr(arg, ',');
	is_regex = sep != NULL;
	if (!is_regex)
		sep = strrchr(arg, ':');

	if (sep == NULL) {
		level = dvp_log_parse_level(arg);
		if (level < 0)
			return bad_log_arg(arg, arg, "unknown level");
		/* Every type, including those registered later (drivers). */
		ret = dvp_log_set_level_pattern("*", (uint32_t)level);
		if (ret < 0)
			return ret;
		dvp_log_set_global_level((uint32_t)level);
		return 0;
	}

	level_text = sep + 1;
	level = dvp_log_parse_level(level_text);
	if (level < 0)
		return bad_log_arg(arg, level_text, "unknown level");
	if (sep == arg)
		return bad_log_arg(arg, arg, "no log type pattern before the separator in");

	match = strndup(arg, (size_t)(sep - arg));
	if (match == NULL)
		return dvp_err(ENOMEM);
	if (is_regex)
		ret = dvp_log_set_level_regexp(match, (uint32_t)level);
	else
		ret = dvp_log_set_level_pattern(match, (uint32_t)level);
	if (ret < 0 && dvp_errno == EINVAL)
		ret = bad_log_arg(arg, match, "invalid regular expression");
	free(match);
	return ret < 0 ? ret : 0;
}

int dvp_log_open_stream(FILE *stream)
{
	atomic_store_explicit(&logs.stream, stream, memory_order_release);
	return 0;
}

FILE *dvp_log_get_stream(void)
{
	FILE *f = atomic_load_explicit(&logs.stream, memory_order_acquire);

	return f != NULL ? f : stderr;
}

bool dvp_log_can_log(uint32_t type, uint32_t level)
{
	if (level > atomic_load_explicit(&logs.global_level, memory_order_relaxed))
		return false;
	if (!type_valid(type))
		return false;
	return level <= atomic_load_explicit(&logs.types[type].level, memory_order_relaxed);
}

void eal_log_set_host(const struct dvp_eal_host *host)
{
	/* Release: the host's hooks are set up before a logging thread sees them. */
	atomic_store_explicit(&logs.host, host, memory_order_release);
}

/* The error lines the level hid while an init runs (eal_log_hold()). */
static __thread struct {
	bool on;
	size_t len;
	char buf[2048];
} held;

void eal_log_hold(void)
{
	held.on = true;
	held.len = 0;
}

void eal_log_release(bool show)
{
	FILE *f = dvp_log_get_stream();

	if (show && held.len != 0) {
		fwrite(held.buf, 1, held.len, f);
		fflush(f);
	}
	held.on = false;
	held.len = 0;
}

/* Keep a line the level hides; lines past the buffer are dropped whole. */
static void hold_line(const char *format, va_list ap)
{
	size_t room = sizeof(held.buf) - held.len;
	int len = vsnprintf(held.buf + held.len, room, format, ap);

	if (len > 0 && (size_t)len < room)
		held.len += (size_t)len;
	else
		held.buf[held.len] = '\0';
}

int dvp_vlog(uint32_t level, uint32_t type, const char *format, va_list ap)
{
	const struct dvp_eal_host *host;
	char buf[1024];
	FILE *f;
	int len;

	if (!dvp_log_can_log(type, level)) {
		if (held.on && level <= DVP_LOG_ERR)
			hold_line(format, ap);
		return 0;
	}
	len = vsnprintf(buf, sizeof(buf), format, ap);
	if (len < 0)
		return -EINVAL;
	if ((size_t)len >= sizeof(buf)) {
		/* Keep the line whole even if cut: end it as the caller did. */
		len = sizeof(buf) - 1;
		if (format[strlen(format) - 1] == '\n')
			buf[len - 1] = '\n';
	}
	host = atomic_load_explicit(&logs.host, memory_order_acquire);
	if (host != NULL) {
		host->log(host->arg, level, type, buf);
		return len;
	}
	f = dvp_log_get_stream();
	fwrite(buf, 1, (size_t)len, f);
	fflush(f);
	return len;
}

int dvp_log(uint32_t level, uint32_t type, const char *format, ...)
{
	va_list ap;
	int ret;

	va_start(ap, format);
	ret = dvp_vlog(level, type, format, ap);
	va_end(ap);
	return ret;
}

FILE *dvp_dump_stream(FILE *f, const char *what, const void *obj)
{
	if (f == NULL)
		f = stdout;
	if (obj != NULL)
		return f;
	fprintf(f, "%s: (null)\n", what);
	return NULL;
}

void dvp_log_dump(FILE *f)
{
	uint32_t i, n, level;

	pthread_mutex_lock(&logs.lock);
	level = atomic_load_explicit(&logs.global_level, memory_order_relaxed);
	fprintf(f, "global log level is %s\n", dvp_log_level_name(level));
	n = atomic_load_explicit(&logs.ntypes, memory_order_relaxed);
	for (i = 0; i < n; i++) {
		level = atomic_load_explicit(&logs.types[i].level, memory_order_relaxed);
		fprintf(f, "id %u: %s, level is %s%s%s%s\n", i, logs.types[i].name,
			dvp_log_level_name(level), logs.types[i].dpdk_name ? " (DPDK's " : "",
			logs.types[i].dpdk_name ? logs.types[i].dpdk_name : "",
			logs.types[i].dpdk_name ? ")" : "");
	}
	pthread_mutex_unlock(&logs.lock);
}

/* Free saved patterns at exit so leak checkers see a clean process. */
static void __attribute__((destructor)) log_patterns_free(void)
{
	struct log_pattern *p, *next;

	pthread_mutex_lock(&logs.lock);
	for (p = logs.patterns; p != NULL; p = next) {
		next = p->next;
		if (p->is_regex)
			regfree(&p->regex);
		free(p->glob);
		free(p);
	}
	logs.patterns = NULL;
	pthread_mutex_unlock(&logs.lock);
}
