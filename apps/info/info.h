/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* dvp-info's parts: text in main.c, JSON in info_json.c. */

#ifndef DVP_INFO_H
#define DVP_INFO_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <dvp_bus.h>

struct info_flag {
	uint64_t bit;
	const char *name;
};

extern const struct info_flag *const info_rx_offloads;
extern const struct info_flag *const info_tx_offloads;
extern const struct info_flag *const info_rss_fields;
extern const struct info_flag *const info_intr_capa;

const char *info_bus_name(const struct dvp_device *dev);
void info_flags_text(FILE *f, const struct info_flag *flags, uint64_t v);
void info_print_json(FILE *f);
/*
 * --check: @p frames through each port pair and every path it runs,
 * --flap taking an adapter's netdev down and up, rx buffers of @p rx_buf
 * bytes with rx scatter (0: a frame to a buffer) (info_check.c).
 * @return 0 when every check passed or could not run, 1 otherwise.
 */
int info_check(uint64_t frames, bool flap, bool json, uint32_t rx_buf);

#endif /* DVP_INFO_H */
