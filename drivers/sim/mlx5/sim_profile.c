/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Device profiles of the simulated HCA: what a ConnectX-4 Lx, -5, -6 Dx
 * and -7 report and require, from public sources (doc/sim.md "Profiles"
 * names them per setting; where they say nothing per model the choice is
 * the sim's and is said so there), and the settings devargs change one
 * by one over the profile's.
 */

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <infiniband/mlx5dv.h>

#include "mlx5_prm.h"
#include "mlx5_prm_cmd.h"
#include "sim_dev.h"
#include "sim_pkt.h"
#include "sim_profile.h"

/* Striding RQ limits the kernel reports (mlx5_ib_query_device: 2^6..2^13 bytes, 2^9..2^16). */
#define MPRQ_LOG_SZ_MIN 6u
#define MPRQ_LOG_SZ_MAX 13u
#define MPRQ_LOG_NUM_MIN 9u
#define MPRQ_LOG_NUM_MIN_EXT 3u /* with ext_stride_num_range */
#define MPRQ_LOG_NUM_MAX 16u

/*
 * The device clock CQE timestamps count (hca_core_clock): 156.25 MHz, what
 * ConnectX-4 Lx and later report in free-running mode; the sim's choice
 * for every profile (doc/sim.md "Profiles").
 */
#define CORE_CLOCK_KHZ 156250u

#define COMP_FORMATS (MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM)

static const struct sim_profile profiles[] = {
	{
		.name = "cx4lx",
		.model = "ConnectX-4 Lx",
		.part_id = MLX5_PCI_ID_CONNECTX4LX,
		.mpw = true, /* legacy MPW only */
		.inline_cap = MLX5_CAP_INLINE_MODE_L2,
		.inline_vport = MLX5_INLINE_MODE_L2,
		.cqe_comp_max = SIM_CQE_COMP_MAX,
		.cqe_comp_formats = COMP_FORMATS,
		.devx = true,
		.cvlan_strip = true,
		.core_clock_khz = CORE_CLOCK_KHZ,
	},
	{
		.name = "cx5",
		.model = "ConnectX-5",
		.part_id = MLX5_PCI_ID_CONNECTX5,
		.mpw = true,
		.empw = true,
		.inline_cap = MLX5_CAP_INLINE_MODE_NOT_REQUIRED,
		.cqe_comp_max = SIM_CQE_COMP_MAX,
		.cqe_comp_formats = COMP_FORMATS,
		.ext_stride_num = true,
		.devx = true,
		.vlan_insert = true,
		.cvlan_strip = true,
		.core_clock_khz = CORE_CLOCK_KHZ,
	},
	{
		.name = "cx6dx",
		.model = "ConnectX-6 Dx",
		.part_id = MLX5_PCI_ID_CONNECTX6DX,
		.mpw = true,
		.empw = true,
		.inline_cap = MLX5_CAP_INLINE_MODE_NOT_REQUIRED,
		.cqe_comp_max = SIM_CQE_COMP_MAX,
		.cqe_comp_formats = COMP_FORMATS,
		.ext_stride_num = true,
		.devx = true,
		.vlan_insert = true,
		.cvlan_strip = true,
		.core_clock_khz = CORE_CLOCK_KHZ,
	},
	{
		.name = "cx7",
		.model = "ConnectX-7",
		.part_id = MLX5_PCI_ID_CONNECTX7,
		.mpw = true,
		.empw = true,
		.inline_cap = MLX5_CAP_INLINE_MODE_NOT_REQUIRED,
		.cqe_comp_max = SIM_CQE_COMP_MAX,
		.cqe_comp_formats = COMP_FORMATS,
		.ext_stride_num = true,
		.devx = true,
		.vlan_insert = true,
		.cvlan_strip = true,
		.core_clock_khz = CORE_CLOCK_KHZ,
	},
};

#define DEFAULT_PROFILE 2 /* cx6dx */

static const char *const inline_names[] = { "none", "l2", "ip", "l4", NULL };

const char *sim_profile_inline_name(unsigned int mode)
{
	return mode < DVP_DIM(inline_names) - 1 ? inline_names[mode] : "inner";
}

unsigned int sim_profile_inline_mode(const struct sim_profile *p)
{
	switch (p->inline_cap) {
	case MLX5_CAP_INLINE_MODE_L2:
		return MLX5_INLINE_MODE_L2;
	case MLX5_CAP_INLINE_MODE_VPORT_CONTEXT:
		return p->inline_vport;
	default:
		return MLX5_INLINE_MODE_NONE;
	}
}

uint32_t sim_profile_inline_need(unsigned int mode, const uint8_t *frame, uint32_t len)
{
	struct sim_pkt p;
	uint32_t need = MLX5_INLINE_HSIZE_L2;

	if (mode == MLX5_INLINE_MODE_NONE)
		return 0;
	if (mode >= MLX5_INLINE_MODE_IP) {
		sim_pkt_parse(frame, len, &p);
		if (p.l3 != 0)
			need = DVP_MAX(need, p.l4_off);
		if (mode >= MLX5_INLINE_MODE_TCP_UDP && p.l4_proto == IPPROTO_TCP)
			need = DVP_MAX(need, p.l4_off + 20u);
		else if (mode >= MLX5_INLINE_MODE_TCP_UDP && p.l4_proto == IPPROTO_UDP)
			need = DVP_MAX(need, p.l4_off + 8u);
	}
	return DVP_MIN(need, len);
}

void sim_profile_mprq_caps(const struct sim_profile *p, struct mlx5dv_striding_rq_caps *caps)
{
	caps->min_single_stride_log_num_of_bytes = MPRQ_LOG_SZ_MIN;
	caps->max_single_stride_log_num_of_bytes = MPRQ_LOG_SZ_MAX;
	caps->min_single_wqe_log_num_of_strides =
		p->ext_stride_num ? MPRQ_LOG_NUM_MIN_EXT : MPRQ_LOG_NUM_MIN;
	caps->max_single_wqe_log_num_of_strides = MPRQ_LOG_NUM_MAX;
	caps->supported_qpts = 1u << IBV_QPT_RAW_PACKET;
}

int sim_profile_parse(const struct dvp_devargs *da, struct sim_profile *p)
{
	const char *names[DVP_DIM(profiles) + 1];
	unsigned int c = 0, mode = 0;
	uint64_t v = 0;
	int ret;

	for (unsigned int i = 0; i < DVP_DIM(profiles); i++)
		names[i] = profiles[i].name;
	names[DVP_DIM(profiles)] = NULL;
	ret = dvp_devargs_get_choice(da, "profile", names, DEFAULT_PROFILE, &c);
	if (ret < 0)
		return ret;
	*p = profiles[c];
	/* A VF or an e-switch setup: the vport context says what must be inline. */
	if (dvp_devargs_get(da, "inline_mode") != NULL) {
		ret = dvp_devargs_get_choice(da, "inline_mode", inline_names, 0, &mode);
		p->inline_cap = MLX5_CAP_INLINE_MODE_VPORT_CONTEXT;
		p->inline_vport = (uint8_t)mode;
	}
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "empw", p->empw, &p->empw);
	/* The flags as a ConnectX-5 sets them: MPW_ALLOWED with ENHANCED_MPW. */
	p->mpw = p->mpw || p->empw;
	if (ret == 0 && dvp_devargs_get(da, "empw") != NULL && !p->empw)
		p->mpw = false;
	if (ret == 0)
		ret = dvp_devargs_get_u64(da, "cqe_comp", 0, SIM_CQE_COMP_MAX, p->cqe_comp_max, &v);
	p->cqe_comp_max = (uint32_t)v;
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "ext_stride_num", p->ext_stride_num,
					   &p->ext_stride_num);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "devx", p->devx, &p->devx);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "vlan_insert", p->vlan_insert, &p->vlan_insert);
	if (ret == 0)
		ret = dvp_devargs_get_bool(da, "vlan_strip", p->cvlan_strip, &p->cvlan_strip);
	return ret < 0 ? -EINVAL : 0;
}
