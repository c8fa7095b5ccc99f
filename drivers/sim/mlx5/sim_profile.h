/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The adapter a simulated HCA presents itself as (`profile=`, doc/sim.md
 * "Profiles"): its PCI device id, the inline headers its send WQEs must
 * carry, its multi-packet send WQEs, its CQE compression, its striding RQ
 * limits and whether it answers DevX commands. Each setting may also be
 * given alone (`inline_mode=`, `devx=`, ...), over the profile's. The
 * queries (sim_glue.c, sim_devx.c) answer from it and the engines hold
 * the driver to it. Not installed.
 */

#ifndef SIM_PROFILE_H
#define SIM_PROFILE_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_devargs.h>

#include "mlx5_prm_cmd.h"

struct mlx5dv_striding_rq_caps;

struct sim_profile {
	const char *name; /* the profile= value: "cx6dx" */
	const char *model; /* "ConnectX-6 Dx" */
	uint16_t part_id; /* PCI device id, as ibv_device_attr.vendor_part_id */
	bool mpw; /* MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED (ConnectX-4 Lx's legacy MPW alone) */
	bool empw; /* ... and _ENHANCED_MPW: eMPW WQEs reported and taken */
	/*
	 * The inline headers every send WQE must carry: the HCA cap
	 * wqe_inline_mode (MLX5_CAP_INLINE_MODE_*), and the NIC vport
	 * context's min_wqe_inline_mode (MLX5_INLINE_MODE_*) when the cap
	 * says the vport context decides (a VF, an e-switch setup).
	 */
	uint8_t inline_cap;
	uint8_t inline_vport;
	uint32_t cqe_comp_max; /* cqe_comp_caps.max_num; 0: no CQE compression */
	uint32_t cqe_comp_formats; /* MLX5DV_CQE_RES_FORMAT_* */
	bool ext_stride_num; /* HCA cap ext_stride_num_range: 2^3 strides per WQE, not 2^9 */
	bool devx; /* answers DevX general commands (and DevX contexts open) */
	bool vlan_insert; /* HCA cap wqe_vlan_insert: the Ethernet segment's VLAN insertion */
	/* Receive WQs strip the C-VLAN tag (IBV_RAW_PACKET_CAP_CVLAN_STRIPPING). */
	bool cvlan_strip;
	/* hca_core_clock: the free-running counter CQE timestamps read, in kHz. */
	uint32_t core_clock_khz;
};

/* Fill @p p from the devargs' profile= and single settings. @return 0 or -EINVAL (logged). */
int sim_profile_parse(const struct dvp_devargs *da, struct sim_profile *p);

/* The inline mode the send engine holds WQEs to (MLX5_INLINE_MODE_*). */
unsigned int sim_profile_inline_mode(const struct sim_profile *p);

/* Name of an MLX5_INLINE_MODE_* ("none", "l2", "ip", "l4"). */
const char *sim_profile_inline_name(unsigned int mode);

/*
 * Header bytes a send of @p frame (@p len bytes) must carry inline under
 * inline mode @p mode: 0, or at least the 18 bytes of Ethernet and a VLAN
 * tag, through the IP header (ip), through the TCP or UDP header (l4);
 * never more than the frame.
 */
uint32_t sim_profile_inline_need(unsigned int mode, const uint8_t *frame, uint32_t len);

/* The striding RQ limits reported (striding_rq_caps) and held to by dv_create_wq. */
void sim_profile_mprq_caps(const struct sim_profile *p, struct mlx5dv_striding_rq_caps *caps);

#endif /* SIM_PROFILE_H */
