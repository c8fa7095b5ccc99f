/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Devargs: "name,key=value,key=[a,b],..." as DPDK writes them. */

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "dvp_devargs.h"
#include "dvp_parse.h"
#include "eal_private.h"

#define DEVARGS_SYNTAX "expected NAME,KEY=VALUE,KEY=[A,B],..."

static bool name_char_ok(char c)
{
	return isalnum((unsigned char)c) || strchr("_.:-", c) != NULL;
}

static bool key_char_ok(char c)
{
	return isalnum((unsigned char)c) || strchr("_.-", c) != NULL;
}

void dvp_devargs_free(struct dvp_devargs *da)
{
	unsigned int i;

	if (da == NULL)
		return;
	for (i = 0; i < da->count && i < DVP_DEVARGS_MAX_PAIRS; i++) {
		free(da->pairs[i].key);
		free(da->pairs[i].value);
	}
	free(da->args);
	memset(da, 0, sizeof(*da));
}

/* One "key=value" of @p len bytes at @p p, appended to @p da. */
static int parse_pair(const char *ctx, const char *str, const char *p, size_t len,
		      struct dvp_devargs *da)
{
	const char *eq = memchr(p, '=', len);
	size_t klen, vlen;
	const char *v;
	unsigned int i;

	if (len == 0)
		return eal_arg_error(ctx, str, "empty KEY=VALUE pair (two commas); %s",
				     DEVARGS_SYNTAX);
	if (eq == NULL)
		return eal_arg_error(ctx, str, "'%.*s' has no value; expected %.*s=VALUE", (int)len,
				     p, (int)len, p);
	klen = (size_t)(eq - p);
	if (klen == 0)
		return eal_arg_error(ctx, str, "empty key in '%.*s'; %s", (int)len, p,
				     DEVARGS_SYNTAX);
	for (i = 0; i < klen; i++)
		if (!key_char_ok(p[i]))
			return eal_arg_error(
				ctx, str,
				"bad character '%c' in key '%.*s'; keys use letters, digits, '_', '.' and '-'",
				p[i], (int)klen, p);
	v = eq + 1;
	vlen = len - klen - 1;
	if (vlen == 0)
		return eal_arg_error(ctx, str, "key '%.*s' has an empty value", (int)klen, p);
	if (*v == '[') {
		if (v[vlen - 1] != ']')
			return eal_arg_error(
				ctx, str, "value of key '%.*s' opens '[' but does not end with ']'",
				(int)klen, p);
		v++;
		vlen -= 2;
		if (vlen == 0)
			return eal_arg_error(ctx, str, "key '%.*s' has an empty list '[]'",
					     (int)klen, p);
	}
	for (i = 0; i < da->count; i++)
		if (strlen(da->pairs[i].key) == klen && strncmp(da->pairs[i].key, p, klen) == 0)
			return eal_arg_error(ctx, str, "key '%.*s' is given twice", (int)klen, p);
	if (da->count == DVP_DEVARGS_MAX_PAIRS)
		return eal_arg_error(ctx, str, "more than %d KEY=VALUE pairs",
				     DVP_DEVARGS_MAX_PAIRS);
	da->pairs[da->count].key = strndup(p, klen);
	da->pairs[da->count].value = strndup(v, vlen);
	da->count++;
	if (da->pairs[da->count - 1].key == NULL || da->pairs[da->count - 1].value == NULL)
		return dvp_err(ENOMEM);
	return 0;
}

int eal_devargs_parse_ctx(const char *ctx, const char *str, struct dvp_devargs *da)
{
	const char *p, *start, *comma;
	size_t nlen;
	int depth = 0, ret;

	if (da == NULL)
		return dvp_err(EINVAL);
	memset(da, 0, sizeof(*da));
	if (str == NULL || *str == '\0')
		return eal_arg_error(ctx, "", "empty device string; %s", DEVARGS_SYNTAX);

	comma = strchr(str, ',');
	nlen = comma ? (size_t)(comma - str) : strlen(str);
	if (nlen == 0)
		return eal_arg_error(ctx, str, "no device name before ','; %s", DEVARGS_SYNTAX);
	if (nlen >= DVP_DEV_NAME_MAX_LEN)
		return eal_arg_error(ctx, str, "device name is longer than %d characters",
				     DVP_DEV_NAME_MAX_LEN - 1);
	for (p = str; p < str + nlen; p++)
		if (!name_char_ok(*p))
			return eal_arg_error(
				ctx, str,
				"bad character '%c' in device name '%.*s'; names use letters, digits, '_', '.', ':' and '-'",
				*p, (int)nlen, str);
	memcpy(da->name, str, nlen);
	if (comma == NULL)
		return 0;

	/*
	 * A trailing comma ends the list without a pair, as DPDK's kvargs takes
	 * "net_ring0,size=64,"; two commas in a row are still an empty pair.
	 */
	if (comma[1] == '\0')
		return 0;
	da->args = strdup(comma + 1);
	if (da->args == NULL)
		return dvp_err(ENOMEM);
	nlen = strlen(da->args);
	if (da->args[nlen - 1] == ',')
		da->args[nlen - 1] = '\0';
	/* Split at the commas outside brackets. */
	for (start = p = comma + 1;; p++) {
		if (*p == '[') {
			if (depth++ > 0)
				goto bad_nest;
		} else if (*p == ']') {
			if (depth-- == 0) {
				ret = eal_arg_error(ctx, str, "']' without a matching '['");
				goto fail;
			}
		} else if ((*p == ',' && depth == 0) || *p == '\0') {
			if (*p == '\0' && depth > 0) {
				ret = eal_arg_error(ctx, str, "'[' is not closed by ']'");
				goto fail;
			}
			if (*p == '\0' && p == start)
				break; /* after a trailing comma */
			ret = parse_pair(ctx, str, start, (size_t)(p - start), da);
			if (ret < 0)
				goto fail;
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	return 0;

bad_nest:
	ret = eal_arg_error(ctx, str, "lists in brackets cannot be nested");
fail:
	dvp_devargs_free(da);
	return ret;
}

int dvp_devargs_parse(const char *str, struct dvp_devargs *da)
{
	return eal_devargs_parse_ctx("devargs", str, da);
}

int dvp_devargs_check_keys(const struct dvp_devargs *da, const struct dvp_devargs_key *keys)
{
	const struct dvp_devargs_key *k;
	char valid[512];
	size_t off = 0;
	unsigned int i;

	if (da == NULL)
		return dvp_err(EINVAL);
	for (i = 0; i < da->count; i++) {
		for (k = keys; k != NULL && k->key != NULL; k++)
			if (strcmp(k->key, da->pairs[i].key) == 0)
				break;
		if (k != NULL && k->key != NULL)
			continue;
		valid[0] = '\0';
		for (k = keys; k != NULL && k->key != NULL && off < sizeof(valid); k++)
			off += (size_t)snprintf(valid + off, sizeof(valid) - off, "%s%s",
						k == keys ? "" : ", ", k->key);
		if (valid[0] == '\0')
			EAL_LOG(ERR, "%s: unknown devargs key '%s'; this device takes no keys",
				da->name, da->pairs[i].key);
		else
			EAL_LOG(ERR, "%s: unknown devargs key '%s'; valid keys: %s", da->name,
				da->pairs[i].key, valid);
		return dvp_err(EINVAL);
	}
	return 0;
}

const char *dvp_devargs_get(const struct dvp_devargs *da, const char *key)
{
	unsigned int i;

	if (da == NULL || key == NULL)
		return NULL;
	for (i = 0; i < da->count; i++)
		if (strcmp(da->pairs[i].key, key) == 0)
			return da->pairs[i].value;
	return NULL;
}

/*
 * "64", "0x40", "010" (ten: no octal), "2k", "1M": false unless the whole
 * text is one such number (dvp_parse.h's rules, then the suffix).
 */
static bool parse_size(const char *s, uint64_t *out)
{
	unsigned int shift = 0;
	const char *end;
	uint64_t v;

	if (dvp_parse_u64_prefix(s, &v, &end) < 0)
		return false;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		break;
	case 'm':
	case 'M':
		shift = 20;
		break;
	case 'g':
	case 'G':
		shift = 30;
		break;
	case '\0':
		break;
	default:
		return false;
	}
	if (shift != 0 && *++end != '\0')
		return false;
	if (shift != 0 && v > (UINT64_MAX >> shift))
		return false;
	*out = v << shift;
	return true;
}

int dvp_devargs_get_u64(const struct dvp_devargs *da, const char *key, uint64_t min, uint64_t max,
			uint64_t def, uint64_t *out)
{
	const char *v = dvp_devargs_get(da, key);
	uint64_t n = def;

	if (out == NULL)
		return dvp_err(EINVAL);
	if (v != NULL && (!parse_size(v, &n) || n < min || n > max)) {
		EAL_LOG(ERR,
			"%s: devargs %s=%s: expected a number from %llu to %llu (decimal or 0x hex, optional k/m/g suffix)",
			da->name, key, v, (unsigned long long)min, (unsigned long long)max);
		return dvp_err(EINVAL);
	}
	*out = n;
	return 0;
}

int dvp_devargs_get_u32(const struct dvp_devargs *da, const char *key, uint32_t min, uint32_t max,
			uint32_t def, uint32_t *out)
{
	uint64_t v;
	int ret;

	if (out == NULL)
		return dvp_err(EINVAL);
	ret = dvp_devargs_get_u64(da, key, min, max, def, &v);
	if (ret == 0)
		*out = (uint32_t)v;
	return ret;
}

/* "1", "yes", "true", "on" (any case): 1; their opposites: 0; anything else: -1. */
static int parse_bool(const char *s)
{
	static const char *const yes[] = { "1", "yes", "true", "on" };
	static const char *const no[] = { "0", "no", "false", "off" };
	size_t i;

	for (i = 0; i < DVP_DIM(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0)
			return 1;
		if (strcasecmp(s, no[i]) == 0)
			return 0;
	}
	return -1;
}

int dvp_devargs_get_bool(const struct dvp_devargs *da, const char *key, bool def, bool *out)
{
	const char *v = dvp_devargs_get(da, key);
	int b = v != NULL ? parse_bool(v) : def;

	if (out == NULL)
		return dvp_err(EINVAL);
	if (b < 0) {
		EAL_LOG(ERR,
			"%s: devargs %s=%s: expected a boolean: 1/0, yes/no, true/false or on/off",
			da->name, key, v);
		return dvp_err(EINVAL);
	}
	*out = b;
	return 0;
}

int dvp_devargs_get_choice(const struct dvp_devargs *da, const char *key,
			   const char *const *choices, unsigned int def, unsigned int *out)
{
	const char *v = dvp_devargs_get(da, key);
	char list[512];
	size_t off = 0;
	unsigned int i;

	if (out == NULL || choices == NULL)
		return dvp_err(EINVAL);
	if (v == NULL) {
		*out = def;
		return 0;
	}
	for (i = 0; choices[i] != NULL; i++) {
		if (strcmp(v, choices[i]) == 0) {
			*out = i;
			return 0;
		}
	}
	list[0] = '\0';
	for (i = 0; choices[i] != NULL && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%s", i ? ", " : "",
					choices[i]);
	EAL_LOG(ERR, "%s: devargs %s=%s: expected one of: %s", da->name, key, v, list);
	return dvp_err(EINVAL);
}
