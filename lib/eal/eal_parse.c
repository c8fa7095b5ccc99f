/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Numbers in options and devargs (dvp_parse.h). Written by hand for
 * integers: strtoull's base 0 reads a leading zero as octal and takes a
 * sign and spaces, base 10 refuses 0x. Reals go through strtod once the
 * text is known to be a plain decimal number.
 */

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>

#include "dvp_errno.h"
#include "dvp_parse.h"

int dvp_parse_u64_prefix(const char *s, uint64_t *out, const char **end)
{
	unsigned int base = 10;
	const char *p = s;
	uint64_t v = 0;
	bool any = false, over = false;
	int d;

	if (s == NULL || out == NULL)
		return dvp_err(EINVAL);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X') && dvp_parse_hex_digit(p[2]) >= 0) {
		base = 16;
		p += 2;
	}
	for (; (d = dvp_parse_hex_digit(*p)) >= 0 && (unsigned int)d < base; p++) {
		any = true;
		if (v > (UINT64_MAX - (uint64_t)d) / base)
			over = true;
		else
			v = v * base + (uint64_t)d;
	}
	if (end != NULL)
		*end = p;
	if (!any)
		return dvp_err(EINVAL);
	if (over)
		return dvp_err(ERANGE);
	*out = v;
	return 0;
}

/*
 * A _prefix parse's result @p ret for a whole string, *end where it
 * stopped: -ERANGE for a number out of range with nothing after it,
 * -EINVAL for anything else wrong or left over. *end is read only once
 * the parse has set it (out of range, or success).
 */
static int whole(int ret, const char *const *end)
{
	if (ret == -ERANGE && **end == '\0')
		return ret;
	if (ret < 0 || **end != '\0')
		return dvp_err(EINVAL);
	return 0;
}

int dvp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	const char *end;
	uint64_t v;
	int ret;

	ret = whole(dvp_parse_u64_prefix(s, &v, &end), &end);
	if (ret < 0)
		return ret;
	if (v < min || v > max)
		return dvp_err(ERANGE);
	if (out != NULL)
		*out = v;
	return 0;
}

int dvp_parse_double_prefix(const char *s, double min, double max, double *out, const char **end)
{
	const char *p = s, *digits;
	char *e;
	double v;

	if (s == NULL || out == NULL)
		return dvp_err(EINVAL);
	if (end != NULL)
		*end = s;
	if (*p == '-' || *p == '+')
		p++;
	digits = p;
	/*
	 * A plain decimal number starts with a digit, or a point and a digit:
	 * this refuses "nan", "inf", "infinity", spaces, and a second sign.
	 * A hex float ("0x1p3") starts with a digit: refused by name.
	 */
	if (!(*p >= '0' && *p <= '9') && !(*p == '.' && p[1] >= '0' && p[1] <= '9'))
		return dvp_err(EINVAL);
	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		return dvp_err(EINVAL);
	errno = 0;
	v = strtod(s, &e);
	if (e <= digits)
		return dvp_err(EINVAL);
	if (end != NULL)
		*end = e;
	if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL))
		return dvp_err(ERANGE);
	if (!isfinite(v))
		return dvp_err(EINVAL);
	if (v < min || v > max)
		return dvp_err(ERANGE);
	*out = v;
	return 0;
}

int dvp_parse_double(const char *s, double min, double max, double *out)
{
	const char *end;
	double v;
	int ret;

	ret = whole(dvp_parse_double_prefix(s, min, max, &v, &end), &end);
	if (ret < 0)
		return ret;
	*out = v;
	return 0;
}

bool dvp_pci_addr_parse(const char *s, size_t len, char out[DVP_PCI_ADDR_LEN])
{
	static const unsigned int max_digits[] = { 4, 2, 2, 1 },
				  max_val[] = { 0xffff, 0xff, 0x1f, 7 };
	static const char seps[] = { ':', ':', '.', '\0' };
	unsigned int v[4] = { 0 }, f = 0, nd = 0;
	size_t i;
	int d;

	/* Without a domain, the first field is the bus: shift the fields by one. */
	for (i = 0; i < len && s[i] != '.'; i++)
		f += s[i] == ':';
	if (f != 1 && f != 2)
		return false;
	f = f == 1 ? 1 : 0;
	for (i = 0; i <= len; i++) {
		if (i == len || s[i] == ':' || s[i] == '.') {
			if (f > 3 || nd == 0 || (i < len ? s[i] : '\0') != seps[f] ||
			    v[f] > max_val[f])
				return false;
			f++;
			nd = 0;
			continue;
		}
		d = dvp_parse_hex_digit(s[i]);
		if (d < 0 || f > 3 || ++nd > max_digits[f])
			return false;
		v[f] = v[f] << 4 | (unsigned int)d;
	}
	if (f != 4)
		return false;
	snprintf(out, DVP_PCI_ADDR_LEN, "%04x:%02x:%02x.%x", v[0], v[1], v[2], v[3]);
	return true;
}
