/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * sim_mlx5 as a device and a glue table: the vdev on the ib bus as the mlx5
 * PMD will find it, the queries, and every verbs-style error of the object
 * calls (bad attributes, objects still in use, states, foreign objects),
 * each refused as libibverbs refuses it, with one log line.
 */

#include "dvp_test_eal.h"

#include <dvp_bus.h>
#include <dvp_bus_ib.h>
#include <mlx5_glue.h>
#include <mlx5_prm_cmd.h>

#include "sim_consumer.h"

/* First: the process's first sim device is sim_mlx5_0. */
static void test_vdev_on_ib_bus(void **state)
{
	struct dvp_device *d;
	struct sim_mlx5_dev *sim;

	(void)state;
	assert_true(dvp_test_eal_init("--no-huge", "-m", "4", "--vdev",
				      "sim_mlx5,ports=2,mode=step,mtu=9000") > 0);
	sim = sim_mlx5_find("sim_mlx5_0");
	assert_non_null(sim);
	assert_int_equal(sim_mlx5_nports(sim), 2);
	d = dvp_dev_find("sim_mlx5_0");
	assert_non_null(d);
	assert_int_equal(d->bus, DVP_BUS_IB);
	assert_non_null(d->ib);
	assert_string_equal(d->ib->provider, "sim_mlx5");
	assert_ptr_equal(d->ib->sw_ops, sim_mlx5_glue());
	/* The sim registered its table: mlx5 knows it by that, not by the provider's name. */
	assert_ptr_equal(mlx5_glue_lookup(d->ib->sw_ops), sim_mlx5_glue());
	assert_null(mlx5_glue_lookup(d->ib));
	assert_null(mlx5_glue_lookup(NULL));
	assert_ptr_equal(d->ib->sw_ctx, sim);
	assert_null(d->ib->ibv_dev);
	assert_int_equal(d->ib->nports, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(d->ib->ports[i].port_num, i + 1);
		assert_int_equal(d->ib->ports[i].state, IBV_PORT_ACTIVE);
		assert_int_equal(d->ib->ports[i].link_layer, IBV_LINK_LAYER_ETHERNET);
	}
	/* Its vdev owns it. */
	assert_int_equal(sim_mlx5_destroy(sim), -EINVAL);
	/* At run time too, and removed by its vdev's name. */
	assert_int_equal(dvp_vdev_create("sim_mlx5_extra,mode=step"), 0);
	assert_non_null(sim_mlx5_find("sim_mlx5_1"));
	assert_non_null(dvp_dev_find("sim_mlx5_1"));
	assert_int_equal(dvp_dev_remove("sim_mlx5_extra"), 0);
	assert_null(sim_mlx5_find("sim_mlx5_1"));
	assert_null(dvp_dev_find("sim_mlx5_1"));
	/* A vdev named like the next device: the device takes the name after. */
	assert_int_equal(dvp_vdev_create("sim_mlx5_2,mode=step"), 0);
	assert_non_null(sim_mlx5_find("sim_mlx5_3"));
	assert_int_equal(dvp_dev_find("sim_mlx5_3")->bus, DVP_BUS_IB);
	assert_int_equal(dvp_dev_remove("sim_mlx5_2"), 0);
	assert_null(sim_mlx5_find("sim_mlx5_3"));
	assert_int_equal(dvp_eal_cleanup(), 0);
	assert_null(sim_mlx5_find("sim_mlx5_0"));
}

static void test_vdev_bad_devargs(void **state)
{
	struct dvp_log_capture cap;

	(void)state;
	dvp_log_capture_begin(&cap);
	assert_int_equal(dvp_test_eal_init("--no-huge", "-m", "4", "--vdev", "sim_mlx5,port=2"),
			 -1);
	dvp_log_capture_end(&cap);
	assert_contains(cap.buf, "unknown devargs key 'port'");
	assert_contains(cap.buf, "ports");
	dvp_log_capture_free(&cap);
}

static void test_queries(void **state)
{
	struct ibv_device_attr_ex ax;
	struct mlx5_glue_port_net net;
	struct ibv_device_attr a;
	struct mlx5dv_context dv;
	struct ibv_port_attr pa;
	struct ibv_device **list;
	uint8_t mac[6];
	struct sc s;
	int n;

	(void)state;
	sc_open(&s, "mode=step,ports=2,mac=02:00:00:00:10:00,mtu=9000,numa=1");
	assert_string_equal(s.g->name, "sim_mlx5");
	assert_int_equal(s.g->query_device(s.ctx, &a), 0);
	assert_int_equal(a.vendor_id, 0x02c9);
	assert_int_equal(a.vendor_part_id, 0x101d); /* cx6dx, the default profile */
	assert_int_equal(a.phys_port_cnt, 2);
	assert_true(a.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM);
	assert_int_equal(s.g->query_device_ex(s.ctx, NULL, &ax), 0);
	assert_int_equal(ax.rss_caps.rx_hash_function, IBV_RX_HASH_FUNC_TOEPLITZ);
	assert_true(ax.rss_caps.supported_qpts & (1u << IBV_QPT_RAW_PACKET));
	assert_int_equal(ax.orig_attr.phys_port_cnt, 2);
	dv.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
	assert_int_equal(s.g->dv_query_device(s.ctx, &dv), 0);
	/* CQE compression, in the formats of the legacy layout it writes (test_sim_cq_comp.c). */
	assert_int_equal(dv.comp_mask, MLX5DV_CONTEXT_MASK_CQE_COMPRESION);
	assert_int_equal(dv.cqe_comp_caps.max_num, 64);
	dv.comp_mask = 0;
	assert_int_equal(s.g->dv_query_device(s.ctx, &dv), 0);
	assert_int_equal(dv.comp_mask, 0); /* none asked, none answered */
	assert_int_equal(s.g->query_port(s.ctx, 2, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	assert_string_equal(s.g->port_state_str(pa.state), "ACTIVE");
	assert_int_equal(s.g->query_port(s.ctx, 3, &pa), EINVAL);
	assert_int_equal(s.g->get_port_net(s.ctx, 2, &net), 0);
	assert_int_equal(sim_mlx5_mac_get(s.sim, 1, mac), 0);
	assert_memory_equal(net.mac, mac, 6);
	assert_memory_equal(net.mac, "\x02\x00\x00\x00\x10\x01", 6);
	assert_int_equal(net.mtu, 9000);
	assert_true(net.link_up);
	assert_string_equal(net.ifname, "");
	list = s.g->get_device_list(&n);
	assert_non_null(list);
	assert_true(n >= 1);
	for (int i = 0; i < n; i++)
		assert_true(s.g->dv_is_supported(list[i]));
	s.g->free_device_list(list);
	assert_false(s.g->dv_is_supported(NULL));
	sc_close(&s);
}

/* A DevX context on @p s's device (the test's own: closed by the caller). */
static struct ibv_context *devx_open(struct sc *s)
{
	struct mlx5dv_context_attr a = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n = 0;

	list = s->g->get_device_list(&n);
	assert_non_null(list);
	for (int i = 0; i < n; i++)
		if (strcmp(s->g->get_device_name(list[i]), sim_mlx5_name(s->sim)) == 0)
			ctx = s->g->dv_open_device(list[i], &a);
	s->g->free_device_list(list);
	return ctx;
}

/* QUERY_HCA_CAP of @p type (current values) into @p out. @return the glue's answer. */
static int hca_cap(struct sc *s, struct ibv_context *ctx, uint32_t type, uint8_t *out)
{
	uint8_t in[MLX5_CMD_QUERY_IN_SIZE] = { 0 };

	mlx5_prm_set(in, MLX5_IN_OPCODE, MLX5_CMD_OP_QUERY_HCA_CAP);
	mlx5_prm_set(in, MLX5_IN_OP_MOD, MLX5_HCA_CAP_OP_MOD(type));
	return s->g->dv_devx_general_cmd(ctx, in, sizeof(in), out, MLX5_QUERY_HCA_CAP_OUT_SIZE);
}

#define MPW_BOTH (MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED | MLX5DV_CONTEXT_FLAGS_ENHANCED_MPW)

/*
 * Each profile as the PMD sees it: the PCI id in query_device, the
 * multi-packet send flags of dv_query_device, and through DevX the HCA
 * caps (in the PRM's bit layout, read with a layout the test builds from
 * the word and bit, not the shared header's helper) and the vport
 * context's inline mode; inline_mode= overrides the profile's as a VF's
 * vport context would.
 */
static void test_profiles(void **state)
{
	const uint64_t both = MPW_BOTH;
	static const struct {
		const char *args;
		uint32_t part;
		uint64_t flags;
		uint32_t cap_inline, vport_inline, ext_stride;
	} cases[] = {
		{ "profile=cx4lx", 0x1015, MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED, 0, 1, 0 },
		{ "profile=cx5", 0x1017, MPW_BOTH, 2, 0, 1 },
		{ "profile=cx6dx", 0x101d, MPW_BOTH, 2, 0, 1 },
		{ "profile=cx7", 0x1021, MPW_BOTH, 2, 0, 1 },
		{ "profile=cx7,inline_mode=l2", 0x1021, MPW_BOTH, 1, 1, 1 },
		{ "profile=cx5,inline_mode=ip", 0x1017, MPW_BOTH, 1, 2, 1 },
		{ "inline_mode=l4", 0x101d, MPW_BOTH, 1, 3, 1 },
		{ "profile=cx4lx,inline_mode=none", 0x1015, MLX5DV_CONTEXT_FLAGS_MPW_ALLOWED, 1, 0,
		  0 },
		{ "profile=cx4lx,empw=on", 0x1015, MPW_BOTH, 0, 1, 0 },
		{ "profile=cx6dx,empw=off", 0x101d, 0, 2, 0, 1 },
	};
	uint8_t out[MLX5_QUERY_HCA_CAP_OUT_SIZE];
	uint8_t in[MLX5_CMD_QUERY_IN_SIZE];
	struct ibv_context *ctx;
	struct mlx5dv_context dv;
	struct ibv_device_attr a;
	struct sc s;
	uint32_t w;

	(void)state;
	for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
		char args[96];

		snprintf(args, sizeof(args), "mode=step,%s", cases[c].args);
		sc_open(&s, args);
		assert_int_equal(s.g->query_device(s.ctx, &a), 0);
		assert_int_equal(a.vendor_part_id, cases[c].part);
		memset(&dv, 0, sizeof(dv));
		assert_int_equal(s.g->dv_query_device(s.ctx, &dv), 0);
		assert_int_equal(dv.flags & both, cases[c].flags);
		ctx = devx_open(&s);
		assert_non_null(ctx);
		assert_int_equal(hca_cap(&s, ctx, MLX5_HCA_CAP_GENERAL, out), 0);
		assert_int_equal(out[0], 0); /* status */
		/* eth_net_offloads: bit 0x21c, word 0x21c / 32 = 16, bit 3 from its top. */
		memcpy(&w, out + 16 + 16 * 4, 4);
		assert_int_equal((be32toh(w) >> (31 - 0x1c)) & 1, 1);
		assert_int_equal(mlx5_prm_get(out + 16, MLX5_CAP_GEN_EXT_STRIDE_NUM_RANGE),
				 cases[c].ext_stride);
		assert_int_equal(mlx5_prm_get(out + 16, MLX5_CAP_GEN_CQE_COMPRESSION_MAX_NUM), 64);
		assert_int_equal(hca_cap(&s, ctx, MLX5_HCA_CAP_ETHERNET_OFFLOADS, out), 0);
		/* wqe_inline_mode: bits 0x12..0x13 of word 0: bits 13..12 of it. */
		memcpy(&w, out + 16, 4);
		assert_int_equal((be32toh(w) >> 12) & 3, cases[c].cap_inline);
		memset(in, 0, sizeof(in));
		mlx5_prm_set(in, MLX5_IN_OPCODE, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
		assert_int_equal(s.g->dv_devx_general_cmd(ctx, in, sizeof(in), out,
							  MLX5_QUERY_NIC_VPORT_OUT_SIZE),
				 0);
		/* min_wqe_inline_mode: bits 5..7 of word 0: bits 26..24 of it. */
		memcpy(&w, out + 16, 4);
		assert_int_equal((be32toh(w) >> 24) & 7, cases[c].vport_inline);
		assert_int_equal(s.g->close_device(ctx), 0);
		sc_close(&s);
	}
}

/*
 * Without DevX (devx=off, as a kernel without it), no DevX context opens;
 * on a plain context the commands are refused; a command the device does
 * not model fails with its status in the output.
 */
static void test_devx_refused(void **state)
{
	uint8_t out[MLX5_QUERY_HCA_CAP_OUT_SIZE];
	uint8_t in[MLX5_CMD_QUERY_IN_SIZE] = { 0 };
	struct mlx5dv_context_attr bad = { .flags = 1u << 7 };
	struct ibv_device **list;
	struct ibv_context *ctx;
	struct sc s;
	int n = 0;

	(void)state;
	sc_open(&s, "mode=step,devx=off");
	errno = 0;
	assert_null(devx_open(&s));
	assert_int_equal(errno, EOPNOTSUPP);
	assert_int_equal(hca_cap(&s, s.ctx, MLX5_HCA_CAP_GENERAL, out), EINVAL);
	sc_close(&s);
	sc_open(&s, "mode=step");
	/* A plain context (sc_open's) is no DevX one. */
	assert_int_equal(hca_cap(&s, s.ctx, MLX5_HCA_CAP_GENERAL, out), EINVAL);
	list = s.g->get_device_list(&n);
	assert_non_null(list);
	errno = 0;
	for (int i = 0; i < n; i++)
		if (strcmp(s.g->get_device_name(list[i]), sim_mlx5_name(s.sim)) == 0)
			assert_null(s.g->dv_open_device(list[i], &bad));
	assert_int_equal(errno, EOPNOTSUPP);
	s.g->free_device_list(list);
	ctx = devx_open(&s);
	assert_non_null(ctx);
	mlx5_prm_set(in, MLX5_IN_OPCODE, 0x999);
	assert_int_equal(s.g->dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)),
			 EREMOTEIO);
	assert_int_not_equal(mlx5_prm_get(out, MLX5_OUT_STATUS), 0);
	/* QUERY_HCA_CAP of a capability type not modelled (QoS, 0xc). */
	memset(in, 0, sizeof(in));
	mlx5_prm_set(in, MLX5_IN_OPCODE, MLX5_CMD_OP_QUERY_HCA_CAP);
	mlx5_prm_set(in, MLX5_IN_OP_MOD, MLX5_HCA_CAP_OP_MOD(0xcu));
	assert_int_equal(s.g->dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)),
			 EREMOTEIO);
	/* Another vport than the function's own. */
	memset(in, 0, sizeof(in));
	mlx5_prm_set(in, MLX5_IN_OPCODE, MLX5_CMD_OP_QUERY_NIC_VPORT_CONTEXT);
	mlx5_prm_set(in, MLX5_VPORT_IN_OTHER_VPORT, 1);
	mlx5_prm_set(in, MLX5_VPORT_IN_VPORT_NUMBER, 3);
	assert_int_equal(s.g->dv_devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)),
			 EREMOTEIO);
	assert_int_equal(s.g->close_device(ctx), 0);
	sc_close(&s);
}

/* A zeroed block that is no sim object: big enough for the magic check to read. */
static void *foreign(void)
{
	void *p = calloc(1, 4096);

	assert_non_null(p);
	return p;
}

static void test_cq_and_channel_errors(void **state)
{
	struct sc s;
	struct sc_cq c;
	void *junk = foreign();

	(void)state;
	sc_open(&s, "mode=step");
	assert_null(s.g->create_cq(s.ctx, 0, NULL, NULL, 0));
	assert_int_equal(errno, EINVAL);
	assert_null(s.g->create_cq(s.ctx, 1 << 22, NULL, NULL, 0));
	assert_null(s.g->create_cq(s.ctx, 16, NULL, NULL, 99));
	assert_int_equal(errno, EINVAL);
	sc_cq_init(&s, &c, 16, true);
	assert_int_equal(s.g->destroy_comp_channel(s.ch), EBUSY);
	assert_int_equal(s.g->destroy_cq(junk), EINVAL);
	assert_int_equal(s.g->close_device(s.ctx), EBUSY); /* objects still exist */
	sc_cq_fini(&s, &c);
	sc_close(&s);
	free(junk);
}

static void test_mr_pd_errors(void **state)
{
	struct ibv_mr *mr;
	struct sc s;

	(void)state;
	sc_open(&s, "mode=step");
	assert_null(s.g->reg_mr(s.pd, s.mem, 0, IBV_ACCESS_LOCAL_WRITE));
	assert_int_equal(errno, EINVAL);
	assert_null(s.g->reg_mr(s.pd, s.mem, 64, IBV_ACCESS_REMOTE_WRITE));
	mr = s.g->reg_mr(s.pd, s.mem, 64, 0);
	assert_non_null(mr);
	assert_int_not_equal(mr->lkey, MLX5_INVALID_LKEY);
	assert_int_not_equal(mr->lkey, s.mr->lkey);
	assert_int_equal(s.g->dealloc_pd(s.pd), EBUSY);
	assert_int_equal(s.g->dereg_mr(mr), 0);
	sc_close(&s);
}

static void test_wq_qp_errors(void **state)
{
	struct ibv_wq_init_attr wa;
	struct ibv_qp_init_attr_ex qa;
	struct ibv_qp_attr mod;
	struct sc_rxq rx, *qs[1];
	struct sc_txq tx;
	struct sc_rss rss;
	struct sc s, s2;
	struct sc_cq other;
	uint8_t key[40] = { 0 };

	(void)state;
	sc_open(&s, "mode=step");
	sc_rxq_init(&s, &rx, 16, 256, 32, false);
	memset(&wa, 0, sizeof(wa));
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = 16;
	wa.max_sge = 31;
	wa.pd = s.pd;
	wa.cq = rx.cq.cq;
	assert_null(s.g->create_wq(s.ctx, &wa));
	assert_int_equal(errno, EINVAL);
	wa.max_sge = 1;
	wa.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	wa.create_flags = IBV_WQ_FLAGS_SCATTER_FCS; /* VLAN stripping alone is modelled */
	assert_null(s.g->create_wq(s.ctx, &wa));
	assert_int_equal(errno, EOPNOTSUPP);
	/* A CQ of another context: the driver mixed its devices up. */
	sc_open(&s2, "mode=step");
	sc_cq_init(&s2, &other, 16, false);
	wa.comp_mask = 0;
	wa.cq = other.cq;
	assert_null(s.g->create_wq(s.ctx, &wa));
	{
		struct sim_mlx5_dev_stats st;

		assert_int_equal(sim_mlx5_dev_stats(s.sim, &st), 0);
		assert_int_equal(st.invalid[SIM_MLX5_INV_BAD_OBJECT], 1);
	}
	sc_cq_fini(&s2, &other);
	sc_close(&s2);

	qs[0] = &rx;
	sc_rss_init(&s, &rss, qs, 1, IBV_RX_HASH_SRC_IPV4, NULL, 1, NULL, 0);
	assert_int_equal(s.g->destroy_wq(rx.wq), EBUSY);
	assert_int_equal(s.g->destroy_rwq_ind_table(rss.ind), EBUSY);
	assert_int_equal(s.g->destroy_qp(rss.qp), EBUSY); /* its flow */
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_RTS;
	assert_int_equal(s.g->modify_qp(rss.qp, &mod, IBV_QP_STATE), EINVAL);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH;
	qa.pd = s.pd;
	qa.rwq_ind_tbl = rss.ind;
	qa.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qa.rx_hash_conf.rx_hash_key = key;
	qa.rx_hash_conf.rx_hash_key_len = 16;
	assert_null(s.g->create_qp_ex(s.ctx, &qa));
	assert_int_equal(errno, EINVAL);
	qa.rx_hash_conf.rx_hash_key_len = 40;
	qa.rx_hash_conf.rx_hash_fields_mask = IBV_RX_HASH_INNER;
	assert_null(s.g->create_qp_ex(s.ctx, &qa));
	assert_int_equal(errno, EOPNOTSUPP);
	qa.qp_type = IBV_QPT_UD;
	assert_null(s.g->create_qp_ex(s.ctx, &qa));
	assert_int_equal(errno, EOPNOTSUPP);
	memset(&qa, 0, sizeof(qa));
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD;
	qa.pd = s.pd;
	qa.send_cq = rx.cq.cq;
	qa.cap.max_send_wr = 16;
	qa.cap.max_recv_wr = 16;
	assert_null(s.g->create_qp_ex(s.ctx, &qa));
	assert_int_equal(errno, EOPNOTSUPP);
	sc_rss_fini(&s, &rss);

	sc_txq_init(&s, &tx, 16, 1, 32, false);
	mod.qp_state = IBV_QPS_RESET;
	assert_int_equal(s.g->modify_qp(tx.qp, &mod, IBV_QP_STATE), 0);
	mod.qp_state = IBV_QPS_RTS;
	assert_int_equal(s.g->modify_qp(tx.qp, &mod, IBV_QP_STATE), EINVAL); /* skips INIT, RTR */
	mod.qp_state = IBV_QPS_INIT;
	assert_int_equal(s.g->modify_qp(tx.qp, &mod, IBV_QP_STATE), EINVAL); /* no port */
	mod.port_num = 9;
	assert_int_equal(s.g->modify_qp(tx.qp, &mod, IBV_QP_STATE | IBV_QP_PORT), EINVAL);
	assert_int_equal(s.g->destroy_cq(tx.cq.cq), EBUSY);
	sc_txq_fini(&s, &tx);
	{
		struct mlx5dv_obj obj;

		memset(&obj, 0, sizeof(obj));
		assert_int_equal(s.g->dv_init_obj(&obj, MLX5DV_OBJ_SRQ), EOPNOTSUPP);
	}
	sc_rxq_fini(&s, &rx);
	sc_close(&s);
}

static unsigned int allocs, frees;

static void *count_alloc(size_t size, void *priv)
{
	void *p = NULL;

	assert_ptr_equal(priv, &allocs);
	if (posix_memalign(&p, 4096, size) != 0)
		return NULL;
	allocs++;
	return p;
}

static void count_free(void *ptr, void *priv)
{
	assert_ptr_equal(priv, &allocs);
	frees++;
	free(ptr);
}

static void test_buf_allocators(void **state)
{
	struct mlx5dv_ctx_allocators a = { count_alloc, count_free, &allocs };
	struct mlx5dv_ctx_allocators half = { count_alloc, NULL, &allocs };
	struct sc_rxq rx;
	struct sc_txq tx;
	struct sc s;

	(void)state;
	sc_open(&s, "mode=step");
	assert_int_equal(s.g->dv_set_context_attr(s.ctx, MLX5DV_CTX_ATTR_BUF_ALLOCATORS, &half),
			 EINVAL);
	assert_int_equal(s.g->dv_set_context_attr(s.ctx, 99, &a), EOPNOTSUPP);
	assert_int_equal(s.g->dv_set_context_attr(s.ctx, MLX5DV_CTX_ATTR_BUF_ALLOCATORS, &a), 0);
	sc_rxq_init(&s, &rx, 16, 256, 32, false); /* CQ and WQ: buffer and record each */
	sc_txq_init(&s, &tx, 16, 1, 32, false);
	assert_int_equal(allocs, 8);
	assert_int_equal(frees, 0);
	sc_rxq_post(&s, &rx, 16);
	sc_txq_fini(&s, &tx);
	sc_rxq_fini(&s, &rx);
	assert_int_equal(frees, 8);
	sc_close(&s);
}

static void test_destroy_busy_device(void **state)
{
	struct sc s;

	(void)state;
	sc_open(&s, "mode=step");
	assert_int_equal(sim_mlx5_destroy(s.sim), -EBUSY); /* a context is open */
	sc_close(&s);
	assert_int_equal(sim_mlx5_step(NULL), -EINVAL);
	assert_int_equal(sim_mlx5_clock_advance(NULL, 1), -EINVAL);
}

static void test_thread_mode_starts_and_stops(void **state)
{
	struct sim_mlx5_dev *dev;

	(void)state;
	assert_int_equal(sim_mlx5_create("idle_us=100", &dev), 0); /* mode=thread by default */
	assert_int_equal(sim_mlx5_thread_start(dev), 0); /* already running: no-op */
	assert_int_equal(sim_mlx5_clock_advance(dev, 1), -EINVAL); /* real clock */
	assert_int_equal(sim_mlx5_thread_stop(dev), 0);
	assert_int_equal(sim_mlx5_thread_stop(dev), 0);
	assert_int_equal(sim_mlx5_destroy(dev), 0);
}

/*
 * C-VLAN stripping as the device reports and takes it: the cap in
 * raw_packet_caps, the WQ flag at creation and by modify_wq; a device
 * without the cap (vlan_strip=off) refusing both. The clock of CQE
 * timestamps: hca_core_clock, and query_rt_values_ex in its ticks.
 */
static void test_vlan_strip_and_clock(void **state)
{
	struct ibv_device_attr_ex ax;
	struct ibv_wq_init_attr wa;
	struct ibv_values_ex v;
	struct ibv_wq_attr mod;
	struct ibv_wq *wq;
	struct sc_cq cq;
	struct sc s;

	(void)state;
	sc_open(&s, "mode=step,clock=virtual");
	assert_int_equal(s.g->query_device_ex(s.ctx, NULL, &ax), 0);
	assert_true(ax.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING);
	assert_int_equal(ax.hca_core_clock, 156250);
	assert_int_equal(sim_mlx5_clock_advance(s.sim, 2000000), 0);
	memset(&v, 0, sizeof(v));
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	assert_int_equal(s.g->query_rt_values_ex(s.ctx, &v), 0);
	assert_int_equal(v.raw_clock.tv_nsec, 312500); /* 2 ms at 156.25 MHz */
	assert_int_equal(sim_mlx5_clock_ticks(s.sim), 312500);
	v.comp_mask = IBV_VALUES_MASK_RAW_CLOCK << 1;
	assert_int_equal(s.g->query_rt_values_ex(s.ctx, &v), EOPNOTSUPP);
	sc_cq_init(&s, &cq, 16, false);
	memset(&wa, 0, sizeof(wa));
	wa.wq_type = IBV_WQT_RQ;
	wa.max_wr = 16;
	wa.max_sge = 1;
	wa.pd = s.pd;
	wa.cq = cq.cq;
	wa.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	wa.create_flags = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	wq = s.g->create_wq(s.ctx, &wa);
	assert_non_null(wq);
	memset(&mod, 0, sizeof(mod));
	mod.attr_mask = IBV_WQ_ATTR_FLAGS;
	mod.flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	assert_int_equal(s.g->modify_wq(wq, &mod), 0); /* off */
	mod.flags = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	assert_int_equal(s.g->modify_wq(wq, &mod), 0); /* on again */
	mod.flags_mask = IBV_WQ_FLAGS_SCATTER_FCS;
	assert_int_equal(s.g->modify_wq(wq, &mod), EOPNOTSUPP);
	assert_int_equal(s.g->destroy_wq(wq), 0);
	sc_cq_fini(&s, &cq);
	sc_close(&s);

	sc_open(&s, "mode=step,vlan_strip=off");
	assert_int_equal(s.g->query_device_ex(s.ctx, NULL, &ax), 0);
	assert_false(ax.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING);
	sc_cq_init(&s, &cq, 16, false);
	wa.pd = s.pd;
	wa.cq = cq.cq;
	assert_null(s.g->create_wq(s.ctx, &wa));
	assert_int_equal(errno, EOPNOTSUPP);
	wa.comp_mask = 0;
	wq = s.g->create_wq(s.ctx, &wa);
	assert_non_null(wq);
	mod.flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	assert_int_equal(s.g->modify_wq(wq, &mod), EOPNOTSUPP);
	assert_int_equal(s.g->destroy_wq(wq), 0);
	sc_cq_fini(&s, &cq);
	sc_close(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vdev_on_ib_bus),
		cmocka_unit_test(test_vdev_bad_devargs),
		cmocka_unit_test(test_queries),
		cmocka_unit_test(test_profiles),
		cmocka_unit_test(test_devx_refused),
		cmocka_unit_test(test_cq_and_channel_errors),
		cmocka_unit_test(test_mr_pd_errors),
		cmocka_unit_test(test_wq_qp_errors),
		cmocka_unit_test(test_vlan_strip_and_clock),
		cmocka_unit_test(test_buf_allocators),
		cmocka_unit_test(test_destroy_busy_device),
		cmocka_unit_test(test_thread_mode_starts_and_stops),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
