/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* The test consumer: see sim_consumer.h. */

#include "dvp_test.h"

#include <endian.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_barrier.h>
#include <dvp_byteorder.h>

#include "sim_consumer.h"

#define SC_MEM (8u << 20)

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	assert_true(fl >= 0);
	assert_int_equal(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

void sc_open(struct sc *s, const char *args)
{
	struct ibv_device **list;
	int n = 0;

	memset(s, 0, sizeof(*s));
	assert_int_equal(sim_mlx5_create(args, &s->sim), 0);
	s->g = sim_mlx5_glue();
	list = s->g->get_device_list(&n);
	assert_non_null(list);
	for (int i = 0; i < n; i++)
		if (strcmp(s->g->get_device_name(list[i]), sim_mlx5_name(s->sim)) == 0)
			s->ctx = s->g->open_device(list[i]);
	s->g->free_device_list(list);
	assert_non_null(s->ctx);
	set_nonblock(s->ctx->async_fd);
	s->pd = s->g->alloc_pd(s->ctx);
	assert_non_null(s->pd);
	s->ch = s->g->create_comp_channel(s->ctx);
	assert_non_null(s->ch);
	set_nonblock(s->ch->fd);
	assert_int_equal(posix_memalign((void **)&s->mem, 4096, SC_MEM), 0);
	memset(s->mem, 0, SC_MEM);
	s->mem_size = SC_MEM;
	s->mr = s->g->reg_mr(s->pd, s->mem, s->mem_size, IBV_ACCESS_LOCAL_WRITE);
	assert_non_null(s->mr);
}

void sc_close(struct sc *s)
{
	assert_int_equal(s->g->dereg_mr(s->mr), 0);
	assert_int_equal(s->g->destroy_comp_channel(s->ch), 0);
	assert_int_equal(s->g->dealloc_pd(s->pd), 0);
	assert_int_equal(s->g->close_device(s->ctx), 0);
	assert_int_equal(sim_mlx5_destroy(s->sim), 0);
	free(s->mem);
}

void *sc_alloc(struct sc *s, size_t size)
{
	void *p;

	size = (size + 63) & ~(size_t)63;
	assert_true(s->mem_used + size <= s->mem_size);
	p = s->mem + s->mem_used;
	s->mem_used += size;
	return p;
}

void sc_cq_init(struct sc *s, struct sc_cq *c, int entries, bool channel)
{
	sc_cq_init_comp(s, c, entries, channel, 0);
}

void sc_cq_init_comp(struct sc *s, struct sc_cq *c, int entries, bool channel, uint8_t fmt)
{
	struct mlx5dv_obj obj;

	memset(c, 0, sizeof(*c));
	if (fmt == 0) {
		c->cq = s->g->create_cq(s->ctx, entries, c, channel ? s->ch : NULL, 0);
	} else {
		struct ibv_cq_init_attr_ex a = { .cqe = (uint32_t)entries,
						 .cq_context = c,
						 .channel = channel ? s->ch : NULL };
		struct mlx5dv_cq_init_attr dv = { .comp_mask =
							  MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE,
						  .cqe_comp_res_format = fmt };
		struct ibv_cq_ex *cx = s->g->dv_create_cq(s->ctx, &a, &dv);

		assert_non_null(cx);
		c->cq = ibv_cq_ex_to_cq(cx);
	}
	assert_non_null(c->cq);
	memset(&obj, 0, sizeof(obj));
	obj.cq.in = c->cq;
	obj.cq.out = &c->dv;
	assert_int_equal(s->g->dv_init_obj(&obj, MLX5DV_OBJ_CQ), 0);
	assert_int_equal(c->dv.cqe_size, 64);
	/* The record holds the starting index: 0 on hardware. */
	c->ci = be32toh(c->dv.dbrec[0]) & 0xffffff;
}

void sc_cq_fini(struct sc *s, struct sc_cq *c)
{
	assert_int_equal(s->g->destroy_cq(c->cq), 0);
}

struct mlx5_cqe64 *sc_cq_peek(struct sc_cq *c)
{
	struct mlx5_cqe64 *cqe =
		(struct mlx5_cqe64 *)(void *)((uint8_t *)c->dv.buf +
					      (size_t)(c->ci & (c->dv.cqe_cnt - 1)) * 64);
	uint8_t op_own = __atomic_load_n(&cqe->op_own, __ATOMIC_ACQUIRE);

	/* Software's iff valid opcode and the owner bit of this pass (get_sw_cqe). */
	if ((op_own >> 4) == MLX5_CQE_INVALID || (op_own & 1) != !!(c->ci & c->dv.cqe_cnt))
		return NULL;
	/* udma_from_device_barrier: the rest of the CQE after its ownership. */
	dvp_dma_from_device_barrier();
	return cqe;
}

void sc_cq_consume(struct sc_cq *c, uint32_t n)
{
	c->ci += n;
	/* udma_to_device_barrier, then the 24-bit index (update_cons_index). */
	dvp_dma_to_device_barrier();
	__atomic_store_n(&c->dv.dbrec[0], htobe32(c->ci & 0xffffff), __ATOMIC_RELEASE);
}

uint32_t sc_cq_drain(struct sc_cq *c)
{
	uint32_t n = 0;

	while (sc_cq_peek(c) != NULL) {
		sc_cq_consume(c, 1);
		n++;
	}
	return n;
}

void sc_cq_arm_raw(struct sc_cq *c, uint32_t sn, uint32_t ci, bool solicited, bool record)
{
	uint32_t hi = (sn & 3) << 28 | (solicited ? 1u << 24 : 0) | (ci & 0xffffff);
	uint64_t db = htobe64((uint64_t)hi << 32 | c->dv.cqn);

	/* mlx5_arm_cq: record, WC start barrier, one 64-bit doorbell, flush. */
	if (record)
		__atomic_store_n(&c->dv.dbrec[1], htobe32(hi), __ATOMIC_RELEASE);
	dvp_mmio_wc_start();
	__atomic_store_n((uint64_t *)(void *)((uint8_t *)c->dv.cq_uar + 0x20), db,
			 __ATOMIC_RELEASE);
	dvp_mmio_flush_writes();
}

void sc_cq_arm(struct sc_cq *c, bool solicited)
{
	sc_cq_arm_raw(c, c->sn, c->ci, solicited, true);
}

int sc_cq_events(struct sc *s, struct sc_cq *c)
{
	struct ibv_cq *cq;
	void *ctx;
	int n = 0;

	while (s->g->get_cq_event(s->ch, &cq, &ctx) == 0) {
		assert_ptr_equal(cq, c->cq);
		assert_ptr_equal(ctx, c);
		s->g->ack_cq_events(cq, 1);
		c->sn++; /* as mlx5_cq_event */
		n++;
	}
	assert_int_equal(errno, EAGAIN);
	return n;
}

void sc_rxq_init(struct sc *s, struct sc_rxq *q, uint32_t nwqe, uint32_t buf_size, int cq_entries,
		 bool channel)
{
	sc_rxq_init_comp(s, q, nwqe, buf_size, cq_entries, channel, 0);
}

void sc_rxq_init_comp(struct sc *s, struct sc_rxq *q, uint32_t nwqe, uint32_t buf_size,
		      int cq_entries, bool channel, uint8_t fmt)
{
	struct ibv_wq_init_attr wa;
	struct ibv_wq_attr mod;
	struct mlx5dv_obj obj;

	memset(q, 0, sizeof(*q));
	sc_cq_init_comp(s, &q->cq, cq_entries, channel, fmt);
	memset(&wa, 0, sizeof(wa));
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = nwqe;
	wa.max_sge = 1;
	wa.pd = s->pd;
	wa.cq = q->cq.cq;
	q->wq = s->g->create_wq(s->ctx, &wa);
	assert_non_null(q->wq);
	memset(&mod, 0, sizeof(mod));
	mod.attr_mask = IBV_WQ_ATTR_STATE;
	mod.wq_state = IBV_WQS_RDY;
	assert_int_equal(s->g->modify_wq(q->wq, &mod), 0);
	memset(&obj, 0, sizeof(obj));
	obj.rwq.in = q->wq;
	obj.rwq.out = &q->dv;
	assert_int_equal(s->g->dv_init_obj(&obj, MLX5DV_OBJ_RWQ), 0);
	q->pi = be32toh(q->dv.dbrec[0]) & 0xffff;
	q->buf_size = buf_size;
	q->bufs = sc_alloc(s, (size_t)q->dv.wqe_cnt * buf_size);
}

void sc_rxq_fini(struct sc *s, struct sc_rxq *q)
{
	assert_int_equal(s->g->destroy_wq(q->wq), 0);
	sc_cq_fini(s, &q->cq);
}

uint8_t *sc_rxq_buf(struct sc_rxq *q, uint32_t counter)
{
	return q->bufs + (size_t)(counter & (q->dv.wqe_cnt - 1)) * q->buf_size;
}

void sc_rxq_post(struct sc *s, struct sc_rxq *q, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++, q->pi++) {
		struct mlx5_wqe_data_seg *ds =
			(struct mlx5_wqe_data_seg *)(void *)((uint8_t *)q->dv.buf +
							     (size_t)(q->pi & (q->dv.wqe_cnt - 1)) *
								     q->dv.stride);

		ds->byte_count = htobe32(q->buf_size);
		ds->lkey = htobe32(s->mr->lkey);
		ds->addr = htobe64((uintptr_t)sc_rxq_buf(q, q->pi));
	}
	dvp_dma_to_device_barrier();
	__atomic_store_n(&q->dv.dbrec[0], htobe32(q->pi & 0xffff), __ATOMIC_RELEASE);
}

void sc_rss_init(struct sc *s, struct sc_rss *r, struct sc_rxq **qs, unsigned int n,
		 uint64_t fields, const uint8_t *key, uint8_t port, const uint8_t *mac,
		 uint32_t tag)
{
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_qp_init_attr_ex qa;
	struct ibv_wq *wqs[64];
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_action_tag tag;
	} fl; /* specs follow the attr, each a multiple of 4 bytes */
	static const uint8_t default_key[40] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 };
	unsigned int log = 0;

	assert_true(n >= 1 && n <= 64 && (n & (n - 1)) == 0);
	while ((1u << log) < n)
		log++;
	for (unsigned int i = 0; i < n; i++)
		wqs[i] = qs[i]->wq;
	memset(&ia, 0, sizeof(ia));
	ia.log_ind_tbl_size = log;
	ia.ind_tbl = wqs;
	r->ind = s->g->create_rwq_ind_table(s->ctx, &ia);
	assert_non_null(r->ind);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
	qa.pd = s->pd;
	qa.rwq_ind_tbl = r->ind;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key_len = 40;
	qa.rx_hash_conf.rx_hash_key = (uint8_t *)(key != NULL ? key : default_key);
	qa.rx_hash_conf.rx_hash_fields_mask = fields;
	r->qp = s->g->create_qp_ex(s->ctx, &qa);
	assert_non_null(r->qp);
	memset(&fl, 0, sizeof(fl));
	fl.attr.type = mac != NULL ? IBV_FLOW_ATTR_NORMAL : IBV_FLOW_ATTR_ALL_DEFAULT;
	fl.attr.port = port;
	fl.attr.size = sizeof(fl.attr);
	if (mac != NULL) {
		fl.attr.num_of_specs = 1;
		fl.attr.size += sizeof(fl.eth);
		fl.eth.type = IBV_FLOW_SPEC_ETH;
		fl.eth.size = sizeof(fl.eth);
		memcpy(fl.eth.val.dst_mac, mac, 6);
		memset(fl.eth.mask.dst_mac, 0xff, 6);
		if (tag != 0) {
			fl.attr.num_of_specs = 2;
			fl.attr.size += sizeof(fl.tag);
			fl.tag.type = IBV_FLOW_SPEC_ACTION_TAG;
			fl.tag.size = sizeof(fl.tag);
			fl.tag.tag_id = tag;
		}
	}
	r->flow = s->g->create_flow(r->qp, &fl.attr);
	assert_non_null(r->flow);
}

void sc_rss_fini(struct sc *s, struct sc_rss *r)
{
	assert_int_equal(s->g->destroy_flow(r->flow), 0);
	assert_int_equal(s->g->destroy_qp(r->qp), 0);
	assert_int_equal(s->g->destroy_rwq_ind_table(r->ind), 0);
}

void sc_txq_init(struct sc *s, struct sc_txq *q, uint32_t nwqe, uint8_t port, int cq_entries,
		 bool channel)
{
	struct ibv_qp_init_attr_ex qa;
	struct ibv_qp_attr mod;
	struct mlx5dv_obj obj;

	memset(q, 0, sizeof(*q));
	sc_cq_init(s, &q->cq, cq_entries, channel);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = s->pd;
	qa.send_cq = q->cq.cq;
	qa.recv_cq = q->cq.cq;
	qa.cap.max_send_wr = nwqe;
	qa.cap.max_send_sge = 1;
	q->qp = s->g->create_qp_ex(s->ctx, &qa);
	assert_non_null(q->qp);
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_INIT;
	mod.port_num = port;
	assert_int_equal(s->g->modify_qp(q->qp, &mod, IBV_QP_STATE | IBV_QP_PORT), 0);
	mod.qp_state = IBV_QPS_RTR;
	assert_int_equal(s->g->modify_qp(q->qp, &mod, IBV_QP_STATE), 0);
	mod.qp_state = IBV_QPS_RTS;
	assert_int_equal(s->g->modify_qp(q->qp, &mod, IBV_QP_STATE), 0);
	memset(&obj, 0, sizeof(obj));
	obj.qp.in = q->qp;
	obj.qp.out = &q->dv;
	q->dv.comp_mask = MLX5DV_QP_MASK_RAW_QP_HANDLES;
	assert_int_equal(s->g->dv_init_obj(&obj, MLX5DV_OBJ_QP), 0);
	assert_true(q->dv.comp_mask & MLX5DV_QP_MASK_RAW_QP_HANDLES);
	assert_int_equal(q->dv.sq.stride, 64);
	q->sqn = q->dv.sqn;
	q->pi = be32toh(q->dv.dbrec[MLX5_SND_DBR]) & 0xffff;
	q->nbufs = q->dv.sq.wqe_cnt;
	q->buf_size = 2048;
	q->bufs = sc_alloc(s, (size_t)q->nbufs * q->buf_size);
}

void sc_txq_fini(struct sc *s, struct sc_txq *q)
{
	assert_int_equal(s->g->destroy_qp(q->qp), 0);
	sc_cq_fini(s, &q->cq);
}

uint8_t *sc_tx_wqe_at(struct sc_txq *q, uint32_t bb)
{
	return (uint8_t *)q->dv.sq.buf + (size_t)(bb & (q->dv.sq.wqe_cnt - 1)) * 64;
}

uint32_t sc_tx_wqe(struct sc *s, struct sc_txq *q, const void *frame, uint32_t len,
		   uint8_t fm_ce_se, uint8_t cs_flags)
{
	uint8_t *wqe = sc_tx_wqe_at(q, q->pi);
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_eth_seg *es = (void *)(wqe + 16);
	struct mlx5_wqe_data_seg *ds = (void *)(wqe + 48);
	uint32_t inl = len < 18 ? len : 18, idx = q->pi, nds = len > inl ? 4 : 3;
	uint8_t *buf = q->bufs + (size_t)(q->next_buf++ % q->nbufs) * q->buf_size;

	assert_true(len <= q->buf_size);
	memset(wqe, 0, 64);
	ctrl->opmod_idx_opcode = htobe32((idx & 0xffff) << 8 | MLX5_OPCODE_SEND);
	ctrl->qpn_ds = htobe32(q->sqn << 8 | nds);
	ctrl->fm_ce_se = fm_ce_se;
	es->cs_flags = cs_flags;
	es->inline_hdr_sz = htobe16((uint16_t)inl);
	memcpy(es->inline_hdr_start, frame, inl);
	if (len > inl) {
		memcpy(buf, (const uint8_t *)frame + inl, len - inl);
		ds->byte_count = htobe32(len - inl);
		ds->lkey = htobe32(s->mr->lkey);
		ds->addr = htobe64((uintptr_t)buf);
	}
	q->last_wqe = wqe;
	q->pi++;
	return idx;
}

uint8_t *sc_tx_wqe_unit(struct sc_txq *q, uint32_t idx, unsigned int u)
{
	return sc_tx_wqe_at(q, idx + u / 4) + (u % 4) * 16;
}

unsigned int sc_tx_wqe_ds(struct sc_txq *q, uint32_t idx)
{
	const struct mlx5_wqe_ctrl_seg *ctrl = (const void *)sc_tx_wqe_at(q, idx);

	return be32toh(ctrl->qpn_ds) & 0x3f;
}

uint32_t sc_tx_empw(struct sc *s, struct sc_txq *q, const uint8_t *const *frames,
		    const uint32_t *lens, unsigned int n, uint64_t inl, uint8_t fm_ce_se,
		    uint8_t cs_flags)
{
	enum { MAX_DS = 63 }; /* a WQE's ds field is 6 bits */
	/* Whole basic blocks: the copy below moves 64 bytes at a time. */
	uint8_t wqe[(MAX_DS + 1) * 16];
	struct mlx5_wqe_ctrl_seg *ctrl = (void *)wqe;
	struct mlx5_wqe_eth_seg *es = (void *)(wqe + 16);
	uint32_t idx = q->pi, off = 32;
	unsigned int ds, bbs;

	memset(wqe, 0, sizeof(wqe));
	for (unsigned int i = 0; i < n; i++) {
		struct mlx5_wqe_data_seg *d = (void *)(wqe + off);

		if (inl & (1ull << i)) {
			uint32_t bc = htobe32(lens[i] | MLX5_INLINE_SEG);

			assert_true(off + 4 + lens[i] <= MAX_DS * 16);
			memcpy(wqe + off, &bc, 4);
			memcpy(wqe + off + 4, frames[i], lens[i]);
			off += (4 + lens[i] + 15) / 16 * 16;
		} else {
			uint8_t *buf = q->bufs + (size_t)(q->next_buf++ % q->nbufs) * q->buf_size;

			assert_true(off + 16 <= MAX_DS * 16 && lens[i] <= q->buf_size);
			memcpy(buf, frames[i], lens[i]);
			d->byte_count = htobe32(lens[i]);
			d->lkey = htobe32(s->mr->lkey);
			d->addr = htobe64((uintptr_t)buf);
			off += 16;
		}
	}
	ds = off / 16;
	/* The control segment: [31:24] opmod 0, [23:8] WQE index, [7:0] 0x29. */
	ctrl->opmod_idx_opcode = htobe32((idx & 0xffff) << 8 | 0x29);
	ctrl->qpn_ds = htobe32(q->sqn << 8 | ds);
	ctrl->fm_ce_se = fm_ce_se;
	es->cs_flags = cs_flags;
	bbs = (ds + 3) / 4;
	for (unsigned int b = 0; b < bbs; b++)
		memcpy(sc_tx_wqe_at(q, idx + b), wqe + b * 64, 64);
	q->last_wqe = sc_tx_wqe_at(q, idx);
	q->pi += bbs;
	return idx;
}

void sc_tx_ring(struct sc_txq *q)
{
	uint64_t first8;

	memcpy(&first8, q->last_wqe, 8);
	/* WQEs before the record, the record before the doorbell (mlx5_doorbell_ring). */
	dvp_dma_to_device_barrier();
	__atomic_store_n(&q->dv.dbrec[MLX5_SND_DBR], htobe32(q->pi & 0xffff), __ATOMIC_RELEASE);
	dvp_mmio_wc_start();
	__atomic_store_n((uint64_t *)q->dv.bf.reg, first8, __ATOMIC_RELEASE);
	dvp_mmio_flush_writes();
}

/* One's complement over 16-bit words, written independently of the simulator's. */
static uint16_t csum(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

uint32_t sc_udp_frame(uint8_t *f, uint32_t len, const uint8_t dst[6], uint32_t src_ip,
		      uint32_t dst_ip, uint16_t sport, uint16_t dport)
{
	uint32_t ulen = len - 34, pseudo;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	f[6] = 0x02;
	dvp_be16_put(f + 12, 0x0800);
	f[14] = 0x45;
	dvp_be16_put(f + 16, (uint16_t)(len - 14));
	f[22] = 64;
	f[23] = 17;
	dvp_be32_put(f + 26, src_ip);
	dvp_be32_put(f + 30, dst_ip);
	dvp_be16_put(f + 24, csum(f + 14, 20, 0));
	dvp_be16_put(f + 34, sport);
	dvp_be16_put(f + 36, dport);
	dvp_be16_put(f + 38, (uint16_t)ulen);
	for (uint32_t i = 42; i < len; i++)
		f[i] = (uint8_t)i;
	pseudo =
		(src_ip >> 16) + (src_ip & 0xffff) + (dst_ip >> 16) + (dst_ip & 0xffff) + 17 + ulen;
	dvp_be16_put(f + 40, csum(f + 34, ulen, pseudo));
	return len;
}
