/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The one number parser of options and devargs: what every command line
 * and devargs string of dvpmd (EAL, drivers, programs) goes through.
 *
 * Integers are decimal, or hexadecimal after 0x/0X. A leading zero is
 * still decimal ("010" is ten): there is no octal. No sign, no space, no
 * digit separator. The value is checked against the caller's range on
 * 64 bits, before any cast to a narrower type.
 *
 * Reals are decimal ("10", "0.5", "1e3", "-2"), finite: NaN, infinity and
 * hexadecimal floats are refused, and so is a value that overflows.
 *
 * Functions log nothing: the caller knows the option or key and the valid
 * range, and says both in its one line.
 */

#ifndef DVP_PARSE_H
#define DVP_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/**
 * Parse the integer at the start of @p s; @p end (may be NULL) is set to
 * the first character after it (a unit, a separator).
 * @return 0, -EINVAL (no digits there), or -ERANGE (above UINT64_MAX).
 */
int dvp_parse_u64_prefix(const char *s, uint64_t *out, const char **end);

/**
 * Parse all of @p s as one integer from @p min to @p max.
 * @return 0, -EINVAL (NULL, empty, not a number, or text after it), or
 *   -ERANGE (outside [@p min, @p max]); @p out is set only on success.
 */
int dvp_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/**
 * Parse the finite real at the start of @p s, from @p min to @p max;
 * @p end (may be NULL) is set to the first character after it.
 * @return 0, -EINVAL (no number there; NaN, infinity, a hex float), or
 *   -ERANGE (outside [@p min, @p max], or too large for a double).
 */
int dvp_parse_double_prefix(const char *s, double min, double max, double *out, const char **end);

/** All of @p s as one finite real from @p min to @p max (see above). */
int dvp_parse_double(const char *s, double min, double max, double *out);

/** The value of hexadecimal digit @p c, or -1 when it is not one. */
static inline int dvp_parse_hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/** "dddd:bb:dd.f" and its NUL. */
#define DVP_PCI_ADDR_LEN 13

/**
 * Whether the @p len bytes at @p s are a PCI address as DPDK users write
 * it, [DDDD:]BB:DD.F; @p out gets its full lower-case form.
 */
bool dvp_pci_addr_parse(const char *s, size_t len, char out[DVP_PCI_ADDR_LEN]);

#ifdef __cplusplus
}
#endif

#endif /* DVP_PARSE_H */
