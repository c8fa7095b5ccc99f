/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What the WQ and QP engines of the simulated HCA share among their files,
 * and no other part uses: the striding RQ's receive (sim_mprq.c), and the
 * gathering of a send WQE's frame that every send opcode shares
 * (sim_engine_send.c) with the eMPW WQE (sim_engine_empw.c).
 */

#ifndef SIM_ENGINE_H
#define SIM_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "mlx5_prm.h"
#include "sim_wq.h"

struct sim_pkt;

/* sim_mprq.c: striding RQs. */
int sim_rx_to_mprq(struct sim_port *port, struct sim_wq *wq, struct mlx5_cqe64 *cqe,
		   const struct sim_pkt *pkt, bool hold_ok);

/* sim_engine_send.c */
/* Build the frame of a SEND WQE of @p ds units into dev->frame. @return a syndrome or 0. */
uint8_t sim_tx_send_build(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint32_t *len);
/*
 * Gather the data segments of a send WQE, bytes @p off to @p end of it,
 * into @p frame after its *@p len bytes, up to @p max; @p bad_lkey: the
 * bad-lkey fault hits its first pointer. @return a syndrome or 0.
 */
uint8_t sim_tx_gather(struct sim_qp *qp, const uint8_t *wqe, uint32_t off, uint32_t end,
		      uint8_t *frame, uint32_t *len, uint32_t max, bool bad_lkey);
/* Where the bytes of one frame of a send WQE come from (0 or a syndrome). */
uint8_t sim_tx_data_seg(struct sim_qp *qp, const struct mlx5_wqe_data_seg *ds, uint8_t *dst,
			uint32_t room, uint32_t *len, bool bad_lkey);
/* Length check and checksum offload of a gathered frame (0 or a syndrome). */
uint8_t sim_tx_frame_finish(struct sim_qp *qp, uint8_t cs_flags, uint8_t *frame, uint32_t len);

/* sim_engine_lso.c */
/*
 * Outcome of an eMPW or LSO WQE: done (0), held by flow control between
 * two of its frames (qp->empw_sent of them on the wire), or failed with a
 * syndrome.
 */
#define SIM_EMPW_HOLD 0x100u

/*
 * An LSO WQE (MLX5_OPCODE_TSO) of @p ds units: its message gathered, held
 * to the rules, cut into frames of mss payload bytes put on the cable.
 * @p len takes the message's length. @return 0, SIM_EMPW_HOLD, or a
 * syndrome (nothing sent then).
 */
unsigned int sim_tx_lso(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint32_t *len);

/* sim_engine_empw.c */
unsigned int sim_tx_empw(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint16_t idx,
			 uint32_t *bytes);

#endif /* SIM_ENGINE_H */
