/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The JSON writer (dvp_json.h). Into a buffer, an element is written in
 * place and taken back whole if it ran past the room left, so a reply
 * never ends inside a string or a number.
 */

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dvp_json.h"

void dvp_json_init_file(struct dvp_json *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	w->error = f == NULL;
}

void dvp_json_init_buf(struct dvp_json *w, char *buf, size_t cap)
{
	memset(w, 0, sizeof(*w));
	w->buf = buf;
	w->cap = cap;
	w->error = buf == NULL || cap == 0;
	if (!w->error)
		buf[0] = '\0';
}

void dvp_json_set_key(struct dvp_json *w, const char *key)
{
	w->key = key;
}

static void put(struct dvp_json *w, const char *s, size_t n)
{
	if (w->f != NULL) {
		if (fwrite(s, 1, n, w->f) != n)
			w->error = true;
		return;
	}
	if (w->overflow || w->len + n >= w->cap) {
		w->overflow = true;
		return;
	}
	memcpy(w->buf + w->len, s, n);
	w->len += n;
}

static void putc_(struct dvp_json *w, char c)
{
	put(w, &c, 1);
}

/* Length of the valid UTF-8 sequence at @p s (1 to 4), or 0 if it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	size_t n, i;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0; /* a continuation byte, an overlong lead, or past U+10FFFF */
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	/* Overlong forms, UTF-16 surrogates, and code points past U+10FFFF. */
	if ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0) ||
	    (c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90))
		return 0;
	return n;
}

/* The letter of @p c's two-character escape ("\\n" for a newline), or 0. */
static char short_escape(unsigned char c)
{
	static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";
	const char *p = c != '\0' ? strchr(from, c) : NULL;

	return p != NULL ? to[p - from] : '\0';
}

static void put_string(struct dvp_json *w, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	char esc[8];
	size_t n;

	putc_(w, '"');
	while (*s != '\0') {
		const unsigned char *run = s;

		/* Runs of bytes that need no escape go out in one piece. */
		while (*s >= 0x20 && *s != '"' && *s != '\\' && (n = utf8_len(s)) != 0)
			s += n;
		if (s > run)
			put(w, (const char *)run, (size_t)(s - run));
		if (*s == '\0')
			break;
		/* JSON's two-character escapes, then \u for other controls. */
		esc[0] = '\\';
		esc[1] = short_escape(*s);
		if (esc[1] != '\0') {
			put(w, esc, 2);
		} else if (*s < 0x20) {
			snprintf(esc, sizeof(esc), "\\u%04x", *s);
			put(w, esc, 6);
		} else {
			/* Not UTF-8: the replacement character, one byte at a time. */
			put(w, "\\ufffd", 6);
		}
		s++;
	}
	putc_(w, '"');
}

static bool level_is_obj(const struct dvp_json *w)
{
	return w->depth > 0 && (w->is_obj >> (w->depth - 1) & 1);
}

/*
 * Start an element: drop it if an earlier one was dropped, write the comma
 * and the key. @return false when the element is not to be written.
 */
static bool elem_begin(struct dvp_json *w, const char *key)
{
	if (w->error)
		return false;
	if (key == NULL && w->key != NULL)
		key = w->key;
	w->key = NULL;
	if (w->truncated || w->skipped > 0)
		return false;
	if (level_is_obj(w) && key == NULL) {
		w->error = true;
		return false;
	}
	w->start = w->len;
	w->overflow = false;
	if (w->depth > 0 && (w->has_elem >> (w->depth - 1) & 1))
		putc_(w, ',');
	if (level_is_obj(w)) {
		put_string(w, key);
		putc_(w, ':');
	}
	return true;
}

/*
 * Finish an element of @p closers unclosed brackets: keep it if it fits
 * with a byte for every bracket open, or take it back.
 */
static bool elem_end(struct dvp_json *w, unsigned int closers)
{
	if (w->f == NULL && (w->overflow || w->len + w->depth + closers >= w->cap)) {
		w->len = w->start;
		w->buf[w->len] = '\0';
		w->overflow = false;
		w->truncated = true;
		return false;
	}
	if (w->f == NULL)
		w->buf[w->len] = '\0';
	if (w->depth > 0)
		w->has_elem |= 1u << (w->depth - 1);
	return true;
}

static void open_(struct dvp_json *w, const char *key, char c, bool obj)
{
	if (!w->error && w->depth + w->skipped >= DVP_JSON_MAX_DEPTH) {
		w->error = true;
		return;
	}
	if (!elem_begin(w, key)) {
		if (!w->error)
			w->skipped++;
		return;
	}
	putc_(w, c);
	if (!elem_end(w, 1)) {
		w->skipped++;
		return;
	}
	w->depth++;
	w->is_obj = (w->is_obj & ~(1u << (w->depth - 1))) | (uint32_t)obj << (w->depth - 1);
	w->has_elem &= ~(1u << (w->depth - 1));
}

static void close_(struct dvp_json *w, char c, bool obj)
{
	if (w->error)
		return;
	if (w->skipped > 0) {
		w->skipped--;
		return;
	}
	if (w->depth == 0 || level_is_obj(w) != obj) {
		w->error = true;
		return;
	}
	/* Room for the bracket was kept when it was opened. */
	w->depth--;
	if (w->f != NULL) {
		putc_(w, c);
		return;
	}
	w->buf[w->len++] = c;
	w->buf[w->len] = '\0';
}

void dvp_json_obj_open(struct dvp_json *w, const char *key)
{
	open_(w, key, '{', true);
}

void dvp_json_obj_close(struct dvp_json *w)
{
	close_(w, '}', true);
}

void dvp_json_arr_open(struct dvp_json *w, const char *key)
{
	open_(w, key, '[', false);
}

void dvp_json_arr_close(struct dvp_json *w)
{
	close_(w, ']', false);
}

static void raw(struct dvp_json *w, const char *key, const char *text)
{
	if (!elem_begin(w, key))
		return;
	put(w, text, strlen(text));
	elem_end(w, 0);
}

void dvp_json_str(struct dvp_json *w, const char *key, const char *s)
{
	if (s == NULL) {
		raw(w, key, "null");
		return;
	}
	if (!elem_begin(w, key))
		return;
	put_string(w, s);
	elem_end(w, 0);
}

void dvp_json_u64(struct dvp_json *w, const char *key, uint64_t v)
{
	char t[24];

	snprintf(t, sizeof(t), "%" PRIu64, v);
	raw(w, key, t);
}

/* The unsigned integer of @p size bytes at @p m (1, 2, 4 or 8). */
static uint64_t load_uint(const void *m, size_t size)
{
	return size == 8 ? *(const uint64_t *)m :
	       size == 4 ? *(const uint32_t *)m :
	       size == 2 ? *(const uint16_t *)m :
			   *(const uint8_t *)m;
}

void dvp_json_fields(struct dvp_json *w, const char *obj_key, const void *base,
		     const struct dvp_json_field *fields, size_t n)
{
	const uint8_t *p = base;
	size_t i, size;

	if (obj_key != NULL)
		dvp_json_obj_open(w, obj_key);
	for (i = 0; i < n; i++) {
		size = fields[i].size;
		if (size != 1 && size != 2 && size != 4 && size != 8)
			w->error = true;
		else
			dvp_json_u64(w, fields[i].key, load_uint(p + fields[i].offset, size));
	}
	if (obj_key != NULL)
		dvp_json_obj_close(w);
}

void dvp_json_i64(struct dvp_json *w, const char *key, int64_t v)
{
	char t[24];

	snprintf(t, sizeof(t), "%" PRId64, v);
	raw(w, key, t);
}

void dvp_json_bool(struct dvp_json *w, const char *key, bool v)
{
	raw(w, key, v ? "true" : "false");
}

void dvp_json_null(struct dvp_json *w, const char *key)
{
	raw(w, key, "null");
}

void dvp_json_fixed(struct dvp_json *w, const char *key, double v, unsigned int decimals)
{
	char t[352]; /* DBL_MAX has 309 digits before the point */

	if (!isfinite(v)) {
		raw(w, key, "null");
		return;
	}
	snprintf(t, sizeof(t), "%.*f", (int)(decimals > 17 ? 17 : decimals), v);
	raw(w, key, t);
}

void dvp_json_double(struct dvp_json *w, const char *key, double v)
{
	char t[32];

	if (!isfinite(v)) {
		raw(w, key, "null");
		return;
	}
	snprintf(t, sizeof(t), "%.15g", v);
	raw(w, key, t);
}

size_t dvp_json_len(const struct dvp_json *w)
{
	return w->f == NULL ? w->len : 0;
}

bool dvp_json_truncated(const struct dvp_json *w)
{
	return w->truncated;
}

bool dvp_json_failed(const struct dvp_json *w)
{
	return w->error || (w->f != NULL && ferror(w->f));
}

bool dvp_json_complete(const struct dvp_json *w)
{
	return w->depth == 0 && w->skipped == 0;
}
