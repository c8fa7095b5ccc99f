/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The receive engine: a frame arrives on a port (from a cable's FIFO, the
 * port's traffic source, or sim_mlx5_inject), is steered by the port's flow
 * rules to a hashing QP, spread by its Toeplitz hash over the indirection
 * table to a WQ, scattered into that WQ's next posted WQE after every
 * segment's lkey and range is checked against the MRs, and completed with
 * a CQE in the order hardware writes it (into a compressed session on a
 * CQ that asked for them: sim_cq_comp.c). All under dev->lock.
 */

#include <errno.h>
#include <netinet/in.h>
#include <string.h>

#include <dvp_errno.h>

#include "sim_cq.h"
#include "sim_dev.h"
#include "sim_engine.h"
#include "sim_obj.h"
#include "sim_pkt.h"
#include "sim_steer.h"
#include "sim_wq.h"

static uint8_t l4_type(const struct sim_pkt *p)
{
	const uint8_t *tcp;
	uint32_t hlen;

	if (p->l4_proto == IPPROTO_UDP)
		return MLX5_CQE_L4_HDR_TYPE_UDP;
	if (p->l4_proto != IPPROTO_TCP)
		return MLX5_CQE_L4_HDR_TYPE_NONE;
	tcp = p->data + p->l4_off;
	hlen = (uint32_t)(tcp[12] >> 4) * 4u;
	if (!(tcp[13] & 0x10)) /* no ACK */
		return MLX5_CQE_L4_HDR_TYPE_TCP;
	return p->l4_off + hlen >= p->l3_end ? MLX5_CQE_L4_HDR_TYPE_TCP_EMP_ACK :
					       MLX5_CQE_L4_HDR_TYPE_TCP_ACK;
}

/* The offload fields of a receive CQE: header types and checksum verdicts. */
static void cqe_offloads(struct mlx5_cqe64 *cqe, const struct sim_pkt *p)
{
	uint8_t ok = p->len >= 14 ? MLX5_CQE_L2_OK : 0, l3 = MLX5_CQE_L3_HDR_TYPE_NONE;

	if (p->l3 == 4) {
		l3 = MLX5_CQE_L3_HDR_TYPE_IPV4;
		if (sim_pkt_ipv4_csum_ok(p))
			ok |= MLX5_CQE_L3_OK;
	} else if (p->l3 == 6) {
		l3 = MLX5_CQE_L3_HDR_TYPE_IPV6;
		ok |= MLX5_CQE_L3_OK; /* IPv6 has no header checksum */
	}
	/* A UDP checksum of 0 over IPv4 is none at all: nothing verified, L4_OK stays clear. */
	if (p->l4_proto != 0 && !sim_pkt_udp_csum_none(p) && sim_pkt_l4_csum_ok(p))
		ok |= MLX5_CQE_L4_OK;
	cqe->hds_ip_ext = ok;
	cqe->l4_hdr_type_etc = (uint8_t)(l3 << MLX5_CQE_L3_HDR_TYPE_SHIFT |
					 l4_type(p) << MLX5_CQE_L4_HDR_TYPE_SHIFT |
					 (p->frag ? MLX5_CQE_IP_FRAG : 0));
}

/*
 * Scatter the frame into WQE @p wqe of @p wq. @return 0, or the error
 * syndrome (MLX5_CQE_SYNDROME_*) the hardware would report.
 */
static uint8_t scatter(struct sim_wq *wq, const uint8_t *wqe, const uint8_t *frame, uint32_t len)
{
	struct sim_mlx5_dev *dev = wq->ctx->dev;
	uint32_t done = 0;

	if (sim_fault_bad_lkey_take(dev, wq->ibv.wq_num))
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	for (uint32_t i = 0; i < wq->max_sge && done < len; i++) {
		struct mlx5_wqe_data_seg ds;
		uint32_t bc, lkey, n;
		struct sim_mr *mr;
		uintptr_t addr, lo, hi;

		memcpy(&ds, wqe + i * sizeof(ds), sizeof(ds));
		lkey = be32toh(ds.lkey);
		if (lkey == MLX5_INVALID_LKEY)
			break;
		bc = be32toh(ds.byte_count);
		if (bc == 0)
			return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
		mr = sim_mr_lookup(dev, lkey);
		if (mr == NULL || mr->pd != wq->pd || !(mr->access & IBV_ACCESS_LOCAL_WRITE))
			return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		n = DVP_MIN(bc, len - done);
		addr = (uintptr_t)be64toh(ds.addr);
		lo = (uintptr_t)mr->ibv.addr;
		hi = lo + mr->ibv.length;
		if (addr < lo || addr > hi || n > hi - addr)
			return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
		memcpy((void *)addr, frame + done, n);
		done += n;
	}
	return done < len ? MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR : 0;
}

/* The receive CQE fields every packet gets (hash, flow tag, offloads, timestamp). */
static void rx_cqe_init(struct mlx5_cqe64 *cqe, struct sim_mlx5_dev *dev,
			const struct sim_flow *flow, const struct sim_pkt *pkt, uint32_t hash)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->sop_drop_qpn = htobe32(flow->has_tag ? flow->tag : 0);
	/* The free-running counter in hca_core_clock ticks, as a ConnectX's. */
	cqe->timestamp = htobe64(sim_ticks(dev));
	hash = htobe32(hash);
	memcpy((uint8_t *)cqe + MLX5_CQE_RX_HASH_RES_OFF, &hash, sizeof(hash));
	cqe_offloads(cqe, pkt);
}

/*
 * A WQ that strips C-VLAN tags (IBV_WQ_FLAGS_CVLAN_STRIPPING): a frame
 * whose outer tag is 802.1Q (TPID 0x8100) goes to memory without those
 * four bytes, the TCI into the CQE's vlan_info and the CVLAN-stripped bit
 * (bit 0 of l4_hdr_type_etc), where rdma-core's and DPDK's mlx5 read
 * them. @return the frame to deliver: @p pkt, or @p out over @p buf.
 */
static const struct sim_pkt *rx_vlan_strip(const struct sim_wq *wq, const struct sim_pkt *pkt,
					   struct mlx5_cqe64 *cqe, uint8_t *buf,
					   struct sim_pkt *out)
{
	const uint8_t *f = pkt->data;

	if (!wq->cvlan_strip || pkt->len < 18 || f[12] != 0x81 || f[13] != 0x00)
		return pkt;
	memcpy(buf, f, 12);
	memcpy(buf + 12, f + 16, pkt->len - 16);
	sim_pkt_parse(buf, pkt->len - 4, out);
	memcpy(&cqe->vlan_info, f + 14, sizeof(cqe->vlan_info)); /* big-endian as on the wire */
	cqe->l4_hdr_type_etc |= MLX5_CQE_VLAN_STRIPPED;
	return out;
}

static int rx_to_wq(struct sim_port *port, struct sim_wq *wq, const struct sim_flow *flow,
		    const struct sim_pkt *pkt, uint32_t hash, bool hold_ok)
{
	struct sim_mlx5_dev *dev = port->dev;
	struct mlx5_cqe64 cqe;
	struct sim_pkt stripped;
	uint16_t counter;
	uint8_t synd;
	int ret;

	if (wq->ibv.state != IBV_WQS_RDY || wq->cq->error) {
		port->st.rx_dropped++;
		return SIM_MLX5_RX_QUEUE_DOWN;
	}
	/* The header types and verdicts are the tagged frame's: the same after the strip. */
	rx_cqe_init(&cqe, dev, flow, pkt, hash);
	pkt = rx_vlan_strip(wq, pkt, &cqe, dev->strip_buf, &stripped);
	if (wq->log_stride_num != 0)
		return sim_rx_to_mprq(port, wq, &cqe, pkt, hold_ok);
	ret = sim_wq_room(port, wq, hold_ok);
	if (ret != SIM_MLX5_RX_DELIVERED)
		return ret;
	counter = (uint16_t)wq->ci;
	synd = scatter(wq, wq->buf + (size_t)(wq->ci & (wq->wqe_cnt - 1)) * wq->stride, pkt->data,
		       pkt->len);
	wq->ci = (wq->ci + 1) & MLX5_WQ_INDEX_MASK;
	port->st.bus_wqe_bytes += wq->stride;
	if (synd != 0) {
		/* The WQE is consumed, those posted behind it flushed; the WQ stops until reset. */
		sim_cq_write_error(wq->cq, port, false, synd, wq->ibv.wq_num, 0, counter);
		wq->ibv.state = IBV_WQS_ERR;
		SIM_LOG(DEBUG, dev, "WQ %u: error CQE, syndrome 0x%02x, WQE 0x%04x", wq->ibv.wq_num,
			synd, counter);
		sim_wq_flush(port, wq);
		return SIM_MLX5_RX_ERROR_CQE;
	}
	cqe.byte_cnt = htobe32(pkt->len);
	cqe.wqe_counter = htobe16(counter);
	sim_cq_write_rx(wq->cq, port, wq, &cqe, pkt);
	port->st.rx_frames++;
	port->st.rx_bytes += pkt->len;
	port->st.bus_data_wr_bytes += pkt->len;
	return SIM_MLX5_RX_DELIVERED;
}

/*
 * Receive one frame on @p port. @p hold_ok: the sender can wait (flow
 * control), so an RQ without a WQE answers SIM_RX_HOLD instead of dropping.
 * @return an enum sim_mlx5_rx_result, or SIM_RX_HOLD.
 */
int sim_rx_frame(struct sim_port *port, const uint8_t *frame, uint32_t len, bool hold_ok)
{
	struct sim_flow *flow;
	struct sim_pkt pkt;
	struct sim_qp *qp;
	uint32_t hash;
	int ret;

	if (port->dev->fatal)
		return SIM_MLX5_RX_DEVICE_FATAL;
	if (!port->link_up) {
		port->st.rx_dropped++;
		return SIM_MLX5_RX_LINK_DOWN;
	}
	if (len > port->mtu + 18u) {
		port->st.rx_dropped++;
		port->st.rx_oversize++;
		return SIM_MLX5_RX_OVERSIZE;
	}
	sim_pkt_parse(frame, len, &pkt);
	flow = sim_flow_match(port, &pkt);
	if (flow == NULL) {
		port->st.rx_no_flow++;
		return SIM_MLX5_RX_NO_FLOW;
	}
	if (flow->drop) {
		port->st.rx_dropped++;
		if (flow->ctr != NULL)
			sim_counters_hit(flow->ctr, len);
		return SIM_MLX5_RX_FLOW_DROP;
	}
	qp = flow->qp;
	hash = qp->fields != 0 ? sim_rss_hash(qp, &pkt) : 0;
	ret = rx_to_wq(port, qp->ind->wqs[hash & (qp->ind->size - 1)], flow, &pkt, hash, hold_ok);
	/* A frame held back comes again: it counts once, when the flow takes it for good. */
	if (flow->ctr != NULL && ret != SIM_RX_HOLD)
		sim_counters_hit(flow->ctr, len);
	return ret;
}

int sim_mlx5_inject(struct sim_mlx5_dev *dev, unsigned int port, const void *frame, size_t len)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);
	int ret;

	if (p == NULL)
		return -dvp_errno;
	if (frame == NULL || len < 14 || len > SIM_FRAME_MAX) {
		SIM_LOG(ERR, dev, "inject: frame of %zu bytes; valid is 14..%u", len,
			SIM_FRAME_MAX);
		return dvp_err(EINVAL);
	}
	pthread_mutex_lock(&dev->lock);
	ret = sim_rx_frame(p, frame, (uint32_t)len, false);
	/* The engine is idle again: a lone completion is a plain CQE. */
	sim_cq_comp_close_all(dev);
	pthread_mutex_unlock(&dev->lock);
	return ret;
}

int sim_mlx5_inject_burst(struct sim_mlx5_dev *dev, unsigned int port, const void *const *frames,
			  const size_t *lens, unsigned int n, int *results)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);
	int delivered = 0;

	if (p == NULL)
		return -dvp_errno;
	if (n > 0 && (frames == NULL || lens == NULL)) {
		SIM_LOG(ERR, dev, "inject_burst: %u frames without the frame or length array", n);
		return dvp_err(EINVAL);
	}
	for (unsigned int i = 0; i < n; i++)
		if (frames[i] == NULL || lens[i] < 14 || lens[i] > SIM_FRAME_MAX) {
			SIM_LOG(ERR, dev,
				"inject_burst: frame %u of %zu bytes; valid is 14..%u, not NULL", i,
				lens[i], SIM_FRAME_MAX);
			return dvp_err(EINVAL);
		}
	pthread_mutex_lock(&dev->lock);
	for (unsigned int i = 0; i < n; i++) {
		int r = sim_rx_frame(p, frames[i], (uint32_t)lens[i], false);

		delivered += r == SIM_MLX5_RX_DELIVERED;
		if (results != NULL)
			results[i] = r;
	}
	sim_cq_comp_close_all(dev);
	pthread_mutex_unlock(&dev->lock);
	return delivered;
}
