/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Helpers shared by the cmocka tests: capture what the library logs, so a
 * test can assert that an error names the offending token.
 */

#ifndef DVP_TEST_H
#define DVP_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <dvp_log.h>

/* Exit status meson reads as "skipped". */
#define DVP_TEST_SKIP 77

struct dvp_log_capture {
	char *buf;
	size_t len;
	FILE *f;
};

/* Route log lines into memory until dvp_log_capture_end(). */
static inline void dvp_log_capture_begin(struct dvp_log_capture *c)
{
	memset(c, 0, sizeof(*c));
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
	dvp_log_open_stream(c->f);
}

/* Stop capturing; the text stays in c->buf until dvp_log_capture_free(). */
static inline const char *dvp_log_capture_end(struct dvp_log_capture *c)
{
	dvp_log_open_stream(NULL);
	fclose(c->f);
	c->f = NULL;
	return c->buf;
}

static inline void dvp_log_capture_free(struct dvp_log_capture *c)
{
	free(c->buf);
	c->buf = NULL;
}

/* Assert that @haystack contains @needle, printing both when it does not. */
#define assert_contains(haystack, needle)                                            \
	do {                                                                         \
		const char *h_ = (haystack), *n_ = (needle);                         \
		if (h_ == NULL || strstr(h_, n_) == NULL)                            \
			fail_msg("expected \"%s\" in:\n%s", n_, h_ ? h_ : "(null)"); \
	} while (0)

#endif /* DVP_TEST_H */
