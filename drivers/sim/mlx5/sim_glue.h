/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The glue table of the simulated HCA (sim_glue.c): every call the mlx5
 * PMD makes into it, each done by the part that owns its object.
 */

#ifndef SIM_GLUE_H
#define SIM_GLUE_H

#include "mlx5_glue.h"

/* sim_glue.c */
extern const struct mlx5_glue sim_glue_ops;

/* sim_devx.c: mlx5dv_devx_general_cmd, answered from the device's profile. */
int sim_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen, void *out,
			 size_t outlen);

#endif /* SIM_GLUE_H */
