/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * The glue seam of the mlx5 family (design contract 2): every call the mlx5
 * PMD makes into rdma-core, as a table of function pointers.
 *
 * Two tables implement it:
 *  - mlx5_glue_verbs (mlx5_glue_verbs.c) calls libibverbs and libmlx5;
 *  - the simulated HCA (drivers/sim/mlx5) implements the same calls with a
 *    software device. Its objects embed the verbs structs and fill them as
 *    libibverbs does (ibv_cq->context, channel, cq_context, cqe; ibv_qp->qp_num,
 *    state; ibv_context->async_fd ...), and mlx5dv_init_obj on them gives CQ
 *    buffers, doorbell records, WQ buffers and UAR registers that are plain
 *    memory in exactly the mlx5 layouts.
 * A PMD never calls ibv_* or mlx5dv_* itself: it takes the table from the ib
 * bus device (dvp_ib_device.sw_ops for a software device whose table was
 * registered with mlx5_glue_register(), else mlx5_glue_verbs) and its
 * datapath is then the same on both.
 *
 * The functions keep libibverbs' conventions: NULL or -1 with errno set, or
 * a positive errno, exactly as the verbs call they stand for (see each one).
 *
 * Facts a PMD must honour on both (see also mlx5_db.h):
 *  - A freshly created CQ, WQ or SQ's doorbell record holds its starting
 *    index: 0 on hardware, near a wrap point when the simulator is asked to.
 *    Take the initial consumer index of a CQ and the producer counters of a
 *    WQ/SQ from the record after dv_init_obj, and again after moving a WQ
 *    to ready or a QP through reset.
 *  - ibv_req_notify_cq is deliberately absent: a CQ polled through mlx5dv
 *    must be armed directly (mlx5_cq_arm), with the caller's own sn and ci.
 *  - get_cq_event/get_async_event block unless O_NONBLOCK is set on the fd
 *    (channel->fd, context->async_fd); every event got must be acked, and
 *    destroy_cq fails (the simulator) or hangs (libibverbs) otherwise.
 */

#ifndef MLX5_GLUE_H
#define MLX5_GLUE_H

#include <net/if.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What the PMD needs to know of the Ethernet side of a port. */
struct mlx5_glue_port_net {
	char ifname[IF_NAMESIZE]; /**< kernel netdev, "" for a simulated port */
	uint8_t mac[6]; /**< the port's permanent MAC address */
	uint32_t mtu; /**< L3 MTU (1500 for a standard frame) */
	uint32_t max_mtu; /**< the largest MTU the netdev takes (its maxmtu); 0: unknown */
	bool link_up; /**< carrier present and interface running */
	uint32_t speed_mbps; /**< 0 when unknown */
};

struct mlx5_glue {
	/** "verbs" (libibverbs + libmlx5) or "sim_mlx5". */
	const char *name;

	/* Devices: ibv_get_device_list / ibv_free_device_list / mlx5dv_is_supported. */
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *device);
	bool (*dv_is_supported)(struct ibv_device *device);
	struct ibv_context *(*open_device)(struct ibv_device *device);
	/**
	 * mlx5dv_open_device: a context with @p attr's flags; the PMD asks for
	 * MLX5DV_CONTEXT_FLAGS_DEVX, so that DevX commands (dv_devx_general_cmd)
	 * may be sent on it, as DPDK opens its devices. NULL with errno where
	 * the kernel or the device has no DevX (EOPNOTSUPP) or refuses it
	 * (EPERM): open_device then gives a plain context.
	 */
	struct ibv_context *(*dv_open_device)(struct ibv_device *device,
					      struct mlx5dv_context_attr *attr);
	int (*close_device)(struct ibv_context *context);
	int (*query_device)(struct ibv_context *context, struct ibv_device_attr *attr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr);
	int (*dv_query_device)(struct ibv_context *context, struct mlx5dv_context *attr);
	/**
	 * mlx5dv_devx_general_cmd: one firmware command, @p in and @p out in
	 * the PRM's layouts (mlx5_prm_cmd.h), for what rdma-core has no verb
	 * for: QUERY_HCA_CAP and QUERY_NIC_VPORT_CONTEXT (the inline headers a
	 * send WQE must carry). Control path. @return 0, or a positive errno
	 * (EOPNOTSUPP, EINVAL, EPERM: no DevX on this context); the command's
	 * own status is in @p out.
	 */
	int (*dv_devx_general_cmd)(struct ibv_context *context, const void *in, size_t inlen,
				   void *out, size_t outlen);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *attr);
	const char *(*port_state_str)(enum ibv_port_state state);
	/**
	 * MAC, MTU and link of port @p port_num. On hardware this comes from
	 * the port's netdev (sysfs), as DPDK takes link state from the kernel
	 * rather than from IBV_EVENT_PORT_ACTIVE. @return 0 or a positive errno.
	 */
	int (*get_port_net)(struct ibv_context *context, uint8_t port_num,
			    struct mlx5_glue_port_net *net);
	/**
	 * Frames port @p port_num dropped because its receive queue had no
	 * WQE posted (the out_of_buffer counter), since the device came up.
	 * On hardware, the port's hw_counters/out_of_buffer in sysfs (the
	 * default queue counter, which the PMD's receive queues use); on the
	 * sim, its port counter. Control path. @return 0 or a positive errno
	 * (ENOTSUP where the device does not expose it).
	 */
	int (*port_out_of_buffer)(struct ibv_context *context, uint8_t port_num, uint64_t *count);
	/**
	 * Frames the port dropped on arrival, before any queue, for being
	 * longer than its MTU allows (a netdev's rx_length_errors), for the
	 * port's ierrors. Control path. @return 0 or a positive errno.
	 */
	int (*port_rx_length_errors)(struct ibv_context *context, uint8_t port_num,
				     uint64_t *count);
	/**
	 * Set the port's MTU: its netdev's, which is the port's on a ConnectX
	 * (DPDK's mlx5 sets it the same way), so frames longer than it are
	 * dropped by the device, counted in port_rx_length_errors.
	 * @return 0 or a positive errno (EPERM without CAP_NET_ADMIN).
	 */
	int (*set_port_mtu)(struct ibv_context *context, uint8_t port_num, uint32_t mtu);
	/**
	 * The port's other device counters, shown among its xstats: up to
	 * @p n of them, names (static strings) into @p names and values into
	 * @p values, either of which may be NULL to count them. The names are
	 * the same on every call. Control path.
	 * @return how many there are (0 on a device that shows none).
	 */
	unsigned int (*port_counters)(struct ibv_context *context, uint8_t port_num,
				      const char **names, uint64_t *values, unsigned int n);

	/* Protection domain and memory regions. */
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length, int access);
	int (*dereg_mr)(struct ibv_mr *mr);

	/* Completions. */
	struct ibv_comp_channel *(*create_comp_channel)(struct ibv_context *context);
	int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
	struct ibv_cq *(*create_cq)(struct ibv_context *context, int cqe, void *cq_context,
				    struct ibv_comp_channel *channel, int comp_vector);
	/**
	 * mlx5dv_create_cq: a CQ with mlx5 attributes, here CQE compression
	 * (MLX5DV_CQ_INIT_ATTR_MASK_COMPRESSED_CQE, one cqe_comp_res_format of
	 * those dv_query_device reports in cqe_comp_caps; EINVAL otherwise).
	 * Use it as ibv_cq_ex_to_cq(); destroy it with destroy_cq.
	 * @return NULL with errno on failure.
	 */
	struct ibv_cq_ex *(*dv_create_cq)(struct ibv_context *context,
					  struct ibv_cq_init_attr_ex *cq_attr,
					  struct mlx5dv_cq_init_attr *mlx5_cq_attr);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*get_cq_event)(struct ibv_comp_channel *channel, struct ibv_cq **cq,
			    void **cq_context);
	void (*ack_cq_events)(struct ibv_cq *cq, unsigned int nevents);

	/* Receive queues (IBV_WQT_RQ), their indirection table. */
	struct ibv_wq *(*create_wq)(struct ibv_context *context, struct ibv_wq_init_attr *attr);
	int (*modify_wq)(struct ibv_wq *wq, struct ibv_wq_attr *attr);
	int (*destroy_wq)(struct ibv_wq *wq);
	/**
	 * mlx5dv_create_wq: a receive WQ with mlx5 extras. With
	 * MLX5DV_WQ_INIT_ATTR_MASK_STRIDING_RQ, a striding (multi-packet) RQ
	 * of 32-byte WQEs (struct mlx5_mprq_wqe), each of
	 * 2^single_wqe_log_num_of_strides strides of
	 * 2^single_stride_log_num_of_bytes bytes; both must lie within the
	 * striding_rq_caps of dv_query_device (EINVAL otherwise).
	 * NULL with errno set on failure.
	 */
	struct ibv_wq *(*dv_create_wq)(struct ibv_context *context, struct ibv_wq_init_attr *attr,
				       struct mlx5dv_wq_init_attr *dv_attr);
	struct ibv_rwq_ind_table *(*create_rwq_ind_table)(struct ibv_context *context,
							  struct ibv_rwq_ind_table_init_attr *attr);
	int (*destroy_rwq_ind_table)(struct ibv_rwq_ind_table *table);

	/*
	 * Queue pairs: IBV_QPT_RAW_PACKET send queues (send_cq, cap.max_send_wr,
	 * max_send_sge, max_inline_data), moved RESET -> INIT (with port_num) ->
	 * RTR -> RTS; and hashing QPs for RSS (IBV_QP_INIT_ATTR_IND_TABLE |
	 * IBV_QP_INIT_ATTR_RX_HASH: Toeplitz, 40-byte key, IBV_RX_HASH_* fields),
	 * which take traffic from creation on.
	 */
	struct ibv_qp *(*create_qp_ex)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *attr);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
	int (*destroy_qp)(struct ibv_qp *qp);

	/*
	 * Steering: ibv_create_flow on a QP. IBV_FLOW_ATTR_NORMAL with one
	 * IBV_FLOW_SPEC_ETH (destination MAC under a mask: a unicast MAC,
	 * broadcast, or the multicast bit) and optionally an
	 * IBV_FLOW_SPEC_ACTION_TAG; IBV_FLOW_ATTR_MC_DEFAULT (all multicast);
	 * IBV_FLOW_ATTR_ALL_DEFAULT (promiscuous).
	 */
	struct ibv_flow *(*create_flow)(struct ibv_qp *qp, struct ibv_flow_attr *attr);
	int (*destroy_flow)(struct ibv_flow *flow);
	/*
	 * Flow counters: made, given points (IBV_COUNTER_PACKETS / _BYTES at
	 * an index) by a static attach (flow NULL) before a flow binds them
	 * through IBV_FLOW_SPEC_ACTION_COUNT, read, destroyed once no flow
	 * uses them. NULL / a positive errno as libibverbs.
	 */
	struct ibv_counters *(*create_counters)(struct ibv_context *context,
						struct ibv_counters_init_attr *attr);
	int (*destroy_counters)(struct ibv_counters *counters);
	int (*attach_counters_point_flow)(struct ibv_counters *counters,
					  struct ibv_counter_attach_attr *attr,
					  struct ibv_flow *flow);
	int (*read_counters)(struct ibv_counters *counters, uint64_t *values, uint32_t n,
			     uint32_t flags);

	/*
	 * mlx5dv steering (what verbs flow specs cannot say, such as "no
	 * VLAN tag" or "not a fragment"): a matcher of one priority and one
	 * mask (an fte_match_param of match_sz bytes, mlx5_fte.h, and the
	 * match_criteria_enable bits of the parts it uses), then flows on it,
	 * each a value under that mask and its actions (DEST_IBV_QP to a
	 * hashing QP, or DROP; TAG; IBV_COUNTER with counters attached as for
	 * IBV_FLOW_SPEC_ACTION_COUNT). A flow goes by destroy_flow, a matcher
	 * once it has no flows. NULL with errno / a positive errno as libmlx5:
	 * EINVAL for a mask outside match_criteria_enable or a value outside
	 * its matcher's mask, EOPNOTSUPP for criteria the device cannot match.
	 */
	struct mlx5dv_flow_matcher *(*dv_create_flow_matcher)(
		struct ibv_context *context, struct mlx5dv_flow_matcher_attr *attr);
	int (*dv_destroy_flow_matcher)(struct mlx5dv_flow_matcher *matcher);
	struct ibv_flow *(*dv_create_flow)(struct mlx5dv_flow_matcher *matcher,
					   struct mlx5dv_flow_match_parameters *match_value,
					   size_t num_actions,
					   struct mlx5dv_flow_action_attr actions_attr[]);

	/**
	 * mlx5dv_set_context_attr: MLX5DV_CTX_ATTR_BUF_ALLOCATORS makes CQ, WQ
	 * and SQ buffers and doorbell records of later objects come from the
	 * caller's allocator (EAL memory on the device's node, as DPDK does).
	 * @return 0 or a positive errno.
	 */
	int (*dv_set_context_attr)(struct ibv_context *context, enum mlx5dv_set_ctx_attr_type type,
				   void *attr);

	/** mlx5dv_init_obj for MLX5DV_OBJ_CQ, MLX5DV_OBJ_QP and MLX5DV_OBJ_RWQ. */
	int (*dv_init_obj)(struct mlx5dv_obj *obj, uint64_t obj_type);

	/* Asynchronous events, read from context->async_fd. */
	int (*get_async_event)(struct ibv_context *context, struct ibv_async_event *event);
	void (*ack_async_event)(struct ibv_async_event *event);

	/**
	 * ibv_query_rt_values_ex with IBV_VALUES_MASK_RAW_CLOCK: the device's
	 * free-running counter (what CQE timestamps hold, in ticks of
	 * ibv_device_attr_ex.hca_core_clock kHz) in raw_clock.tv_nsec, as
	 * libmlx5 gives it. Control path (a system call on hardware).
	 * @return 0 or a positive errno (EOPNOTSUPP).
	 */
	int (*query_rt_values_ex)(struct ibv_context *context, struct ibv_values_ex *values);
};

/** The table that calls libibverbs and libmlx5. */
__dvp_export extern const struct mlx5_glue mlx5_glue_verbs;

/**
 * Register @p glue, a software HCA's table, which it gives as the sw_ops of
 * the ib bus devices it adds (from a constructor: before any probe).
 * @return 0, -EINVAL, -ENOSPC (four tables at most).
 */
__dvp_export int mlx5_glue_register(const struct mlx5_glue *glue);

/** @return @p sw_ops when it is a registered glue table, else NULL. */
__dvp_export const struct mlx5_glue *mlx5_glue_lookup(const void *sw_ops);

#ifdef __cplusplus
}
#endif

#endif /* MLX5_GLUE_H */
