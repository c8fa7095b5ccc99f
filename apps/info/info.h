/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* dvp-info's parts: text in main.c, JSON in info_json.c. */

#ifndef DVP_INFO_H
#define DVP_INFO_H

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

#endif /* DVP_INFO_H */
