/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The glue tables software HCAs register (the simulated one), so that the
 * PMD knows an ib bus device's sw_ops for an mlx5 glue table by what it
 * is, not by the name of the driver that added the device.
 */

#include <errno.h>
#include <stddef.h>

#include <dvp_common.h>
#include <dvp_errno.h>

#include "mlx5_glue.h"

#define MLX5_GLUE_MAX 4

static const struct mlx5_glue *registered[MLX5_GLUE_MAX];

int mlx5_glue_register(const struct mlx5_glue *glue)
{
	unsigned int i;

	if (glue == NULL)
		return dvp_err(EINVAL);
	for (i = 0; i < MLX5_GLUE_MAX; i++) {
		const struct mlx5_glue *cur = __atomic_load_n(&registered[i], __ATOMIC_ACQUIRE);

		if (cur == glue)
			return 0;
		if (cur == NULL) {
			__atomic_store_n(&registered[i], glue, __ATOMIC_RELEASE);
			return 0;
		}
	}
	return dvp_err(ENOSPC);
}

const struct mlx5_glue *mlx5_glue_lookup(const void *sw_ops)
{
	unsigned int i;

	for (i = 0; sw_ops != NULL && i < MLX5_GLUE_MAX; i++)
		if (__atomic_load_n(&registered[i], __ATOMIC_ACQUIRE) == sw_ops)
			return sw_ops;
	return NULL;
}
