/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A strict JSON syntax check for tests (RFC 8259: one value, nothing after
 * it, strings of valid UTF-8 with only JSON's escapes, no control bytes),
 * to hold the writer's output to the grammar without a parser library.
 */

#ifndef DVP_TEST_JSON_CHECK_H
#define DVP_TEST_JSON_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

struct jc {
	const unsigned char *p, *end;
	unsigned int depth;
};

static inline void jc_ws(struct jc *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
		c->p++;
}

static inline bool jc_utf8(struct jc *c)
{
	unsigned char b = *c->p;
	size_t n, i;

	if (b >= 0xc2 && b <= 0xdf)
		n = 2;
	else if (b >= 0xe0 && b <= 0xef)
		n = 3;
	else if (b >= 0xf0 && b <= 0xf4)
		n = 4;
	else
		return false;
	if ((size_t)(c->end - c->p) < n)
		return false;
	for (i = 1; i < n; i++)
		if ((c->p[i] & 0xc0) != 0x80)
			return false;
	if ((b == 0xe0 && c->p[1] < 0xa0) || (b == 0xed && c->p[1] >= 0xa0) ||
	    (b == 0xf0 && c->p[1] < 0x90) || (b == 0xf4 && c->p[1] >= 0x90))
		return false;
	c->p += n;
	return true;
}

static inline bool jc_string(struct jc *c)
{
	int i;

	if (c->p >= c->end || *c->p != '"')
		return false;
	c->p++;
	while (c->p < c->end && *c->p != '"') {
		if (*c->p < 0x20)
			return false;
		if (*c->p == '\\') {
			c->p++;
			if (c->p >= c->end)
				return false;
			if (*c->p == 'u') {
				for (i = 1; i <= 4; i++)
					if (c->p + i >= c->end ||
					    !strchr("0123456789abcdefABCDEF", c->p[i]) ||
					    c->p[i] == '\0')
						return false;
				c->p += 5;
			} else if (strchr("\"\\/bfnrt", *c->p) != NULL && *c->p != '\0') {
				c->p++;
			} else {
				return false;
			}
		} else if (*c->p >= 0x80) {
			if (!jc_utf8(c))
				return false;
		} else {
			c->p++;
		}
	}
	if (c->p >= c->end)
		return false;
	c->p++;
	return true;
}

static inline bool jc_digits(struct jc *c)
{
	const unsigned char *s = c->p;

	while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
		c->p++;
	return c->p > s;
}

static inline bool jc_number(struct jc *c)
{
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (c->p < c->end && *c->p == '0')
		c->p++;
	else if (!jc_digits(c))
		return false;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (!jc_digits(c))
			return false;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (!jc_digits(c))
			return false;
	}
	return true;
}

static inline bool jc_word(struct jc *c, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n) != 0)
		return false;
	c->p += n;
	return true;
}

static inline bool jc_value(struct jc *c);

static inline bool jc_container(struct jc *c, char close, bool obj)
{
	c->p++;
	if (++c->depth > 64)
		return false;
	jc_ws(c);
	if (c->p < c->end && *c->p == close) {
		c->p++;
		c->depth--;
		return true;
	}
	for (;;) {
		if (obj) {
			if (!jc_string(c))
				return false;
			jc_ws(c);
			if (c->p >= c->end || *c->p != ':')
				return false;
			c->p++;
		}
		if (!jc_value(c))
			return false;
		jc_ws(c);
		if (c->p < c->end && *c->p == ',') {
			c->p++;
			jc_ws(c);
			continue;
		}
		if (c->p < c->end && *c->p == close) {
			c->p++;
			c->depth--;
			return true;
		}
		return false;
	}
}

static inline bool jc_value(struct jc *c)
{
	jc_ws(c);
	if (c->p >= c->end)
		return false;
	switch (*c->p) {
	case '{':
		return jc_container(c, '}', true);
	case '[':
		return jc_container(c, ']', false);
	case '"':
		return jc_string(c);
	case 't':
		return jc_word(c, "true");
	case 'f':
		return jc_word(c, "false");
	case 'n':
		return jc_word(c, "null");
	default:
		return jc_number(c);
	}
}

/* Whether @p s (@p len bytes) is exactly one JSON value, with optional white space around. */
static inline bool json_valid(const char *s, size_t len)
{
	struct jc c = { (const unsigned char *)s, (const unsigned char *)s + len, 0 };

	if (!jc_value(&c))
		return false;
	jc_ws(&c);
	return c.p == c.end;
}

#endif /* DVP_TEST_JSON_CHECK_H */
