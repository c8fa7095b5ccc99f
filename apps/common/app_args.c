/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "app_args.h"

/*
 * The long option @p name (@p len bytes, before any '=') names, as
 * getopt_long() takes it: exactly, or the options it is a prefix of
 * (*@p n of them; one is a unique abbreviation).
 */
static const struct option *long_option(const struct option *opts, const char *name, size_t len,
					unsigned int *n)
{
	const struct option *o, *first = NULL;

	*n = 0;
	for (o = opts; o != NULL && o->name != NULL; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		if (strlen(o->name) == len) {
			*n = 1;
			return o;
		}
		if (first == NULL)
			first = o;
		(*n)++;
	}
	return first;
}

/* Append the long options @p name (@p len bytes) is a prefix of to @p buf. */
static void list_matches(const struct option *opts, const char *name, size_t len, char *buf,
			 size_t cap)
{
	const struct option *o;
	size_t off = strlen(buf);
	const char *sep = "";

	for (o = opts; o->name != NULL && off < cap; o++) {
		if (strncmp(o->name, name, len) != 0)
			continue;
		off += (size_t)snprintf(buf + off, cap - off, "%s--%s", sep, o->name);
		sep = ", ";
	}
}

const char *app_option_why(char *const *argv, int o, const struct option *opts, char *buf,
			   size_t len)
{
	const char *tok = optind > 0 ? argv[optind - 1] : NULL;

	if (tok != NULL && strncmp(tok, "--", 2) == 0 && tok[2] != '\0') {
		const char *name = tok + 2, *eq = strchr(name, '=');
		size_t nlen = eq != NULL ? (size_t)(eq - name) : strlen(name);
		unsigned int n;
		const struct option *lo = long_option(opts, name, nlen, &n);

		/* An unknown or ambiguous long option: glibc leaves optopt 0. */
		if (optopt == 0 && n > 1) {
			snprintf(buf, len, "--%.*s: ambiguous: ", (int)nlen, name);
			list_matches(opts, name, nlen, buf, len);
			return buf;
		}
		if (optopt == 0) {
			snprintf(buf, len, "%.*s: unknown option", (int)(nlen + 2), tok);
			return buf;
		}
		/*
		 * A value error of this long option (optopt is its val), unless
		 * the failure was a short option in a group after it.
		 */
		if (n == 1 && lo->flag == NULL && lo->val == optopt) {
			if (eq != NULL && lo->has_arg == no_argument) {
				snprintf(buf, len, "--%s: takes no value (given '%s')", lo->name,
					 tok);
				return buf;
			}
			if (eq == NULL && lo->has_arg == required_argument) {
				snprintf(buf, len, "--%s: needs a value", lo->name);
				return buf;
			}
		}
	}
	if (o == ':')
		snprintf(buf, len, "-%c: needs a value", optopt);
	else
		snprintf(buf, len, "-%c: unknown option (long options take two dashes)", optopt);
	return buf;
}

int app_option_refused(const char *prog, char *const *argv, int o, const struct option *opts,
		       const char *valid)
{
	char why[256];

	app_option_why(argv, o, opts, why, sizeof(why));
	fprintf(stderr, "%s: %s%s%s\n", prog, why,
		valid != NULL && strstr(why, ": unknown option") != NULL ? "; valid: " : "",
		valid != NULL && strstr(why, ": unknown option") != NULL ? valid : "");
	fprintf(stderr, "Try '%s -- --help' for more information.\n", prog);
	return -EINVAL;
}

void app_block_stop_signals(sigset_t *sigs)
{
	sigemptyset(sigs);
	sigaddset(sigs, SIGINT);
	sigaddset(sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, sigs, NULL);
}
