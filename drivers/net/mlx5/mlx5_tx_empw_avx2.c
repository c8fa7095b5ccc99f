/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The inline eMPW burst built for AVX2 (chosen at run time by the tx
 * burst choice of mlx5_ethdev.c): the same template as mlx5_tx.c's, whose
 * fast loop then copies a short frame in two 32-byte moves instead of
 * four 16-byte ones.
 */

#pragma GCC target("avx2,movbe,tune=haswell")

#include "mlx5_tx.h"
#include "mlx5_tx_empw.h"

MLX5_TX_BURST_DECL(_empw_inl_avx2, mlx5_tx_burst_empw_inl_tmpl)
