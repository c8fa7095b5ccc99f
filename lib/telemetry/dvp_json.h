/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The JSON writer of dvpmd: the telemetry replies and the apps' --json
 * output both go through it, so every string is escaped the same way.
 *
 * Strings are escaped as JSON asks (quote, backslash, control characters);
 * other bytes pass through as UTF-8, and a byte that is not part of valid
 * UTF-8 becomes U+FFFD, so the output always parses.
 *
 * Two sinks: a stream (no limit), or a buffer of fixed size. Into a buffer,
 * each call adds one whole element or nothing: an element that does not fit
 * (with room kept for the closing brackets of what is open) is dropped, as
 * is everything after it, and the text stays valid JSON; the writer says
 * it was truncated.
 *
 * Each value takes a key: the member name inside an object, NULL inside an
 * array or at the top level.
 */

#ifndef DVP_JSON_H
#define DVP_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Deepest nesting of objects and arrays. */
#define DVP_JSON_MAX_DEPTH 32

/** A writer; its fields are the writer's own. */
struct dvp_json {
	FILE *f; /* stream sink, or NULL */
	char *buf; /* buffer sink: always NUL-terminated */
	size_t cap; /* bytes of buf */
	size_t len; /* bytes kept */
	size_t start; /* where the element being written began */
	bool overflow; /* the element being written does not fit */
	bool truncated; /* an element was dropped: all later ones are */
	bool error; /* misuse (a key missing, too deep, unbalanced) or a stream error */
	unsigned int depth; /* open containers written */
	unsigned int skipped; /* open containers dropped, inside those written */
	uint32_t is_obj; /* bit d: level d + 1 is an object */
	uint32_t has_elem; /* bit d: level d + 1 has an element already */
	const char *key; /* for the next value given no key */
};

/** Write to the stream @p f (no size limit). */
void dvp_json_init_file(struct dvp_json *w, FILE *f);

/** Write into @p buf of @p cap bytes (at least 1): at most cap - 1 bytes and a NUL. */
void dvp_json_init_buf(struct dvp_json *w, char *buf, size_t cap);

/** The key the next value given a NULL key takes (once). */
void dvp_json_set_key(struct dvp_json *w, const char *key);

void dvp_json_obj_open(struct dvp_json *w, const char *key);
void dvp_json_obj_close(struct dvp_json *w);
void dvp_json_arr_open(struct dvp_json *w, const char *key);
void dvp_json_arr_close(struct dvp_json *w);

/** A string (NULL writes null). */
void dvp_json_str(struct dvp_json *w, const char *key, const char *s);
void dvp_json_u64(struct dvp_json *w, const char *key, uint64_t v);
void dvp_json_i64(struct dvp_json *w, const char *key, int64_t v);
void dvp_json_bool(struct dvp_json *w, const char *key, bool v);
void dvp_json_null(struct dvp_json *w, const char *key);
/** @p v with @p decimals digits after the point ("%.*f"); NaN and infinities write null. */
void dvp_json_fixed(struct dvp_json *w, const char *key, double v, unsigned int decimals);
/** @p v in the shortest of "%g"'s forms with 15 significant digits; NaN and infinities write null. */
void dvp_json_double(struct dvp_json *w, const char *key, double v);

/**
 * One unsigned integer member of a struct, for dvp_json_fields(): a table
 * of them writes a counters struct in one call, keys in the table's order.
 */
struct dvp_json_field {
	const char *key;
	size_t offset;
	size_t size; /**< 1, 2, 4 or 8 bytes */
};

/** Member @p m of struct type @p T, written under @p key. */
#define DVP_JSON_FIELD_AS(key, T, m)                       \
	{                                                  \
		(key), offsetof(T, m), sizeof(((T *)0)->m) \
	}
/** Member @p m of struct type @p T, written under its own name. */
#define DVP_JSON_FIELD(T, m) DVP_JSON_FIELD_AS(#m, T, m)

/**
 * Write the @p n members @p fields of the struct at @p base as unsigned
 * integers, inside an object under @p obj_key, or into the container open
 * now when @p obj_key is NULL. A field of another size is a misuse
 * (dvp_json_failed()).
 */
void dvp_json_fields(struct dvp_json *w, const char *obj_key, const void *base,
		     const struct dvp_json_field *fields, size_t n);

/** Bytes written into the buffer (without the NUL); 0 for a stream. */
size_t dvp_json_len(const struct dvp_json *w);
/** Whether an element was dropped for want of room. */
bool dvp_json_truncated(const struct dvp_json *w);
/**
 * Whether the writer was misused (a member without a key, nesting deeper
 * than DVP_JSON_MAX_DEPTH, a close without an open) or the stream failed.
 */
bool dvp_json_failed(const struct dvp_json *w);
/** Whether every container opened has been closed. */
bool dvp_json_complete(const struct dvp_json *w);

#ifdef __cplusplus
}
#endif

#endif /* DVP_JSON_H */
