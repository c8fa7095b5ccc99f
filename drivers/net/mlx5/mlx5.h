/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Private header of the mlx5 PMD (doc/mlx5.md): the device and port
 * structures and what the driver's files share. Not installed.
 *
 * Objects:
 *  - struct mlx5_dev: one per IB device (a ConnectX function, or a
 *    sim_mlx5 device): the verbs context, the PD, the MR table and the
 *    async-event source, shared by the device's ports;
 *  - struct mlx5_priv: one per IB port (port->priv): steering (the
 *    indirection table, hashing QPs and flow rules) and the port's view of
 *    the netdev;
 *  - struct mlx5_rxq (mlx5_rx.h) and struct mlx5_txq (mlx5_tx.h): the
 *    queues and their fast paths.
 *
 * Every call into rdma-core goes through dev->glue (mlx5_glue.h): the verbs
 * table for a real HCA, the simulator's for a software device.
 */

#ifndef MLX5_H
#define MLX5_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <dvp_bus.h>
#include <dvp_bus_ib.h>
#include <ib_async.h>
#include <dvp_log.h>
#include <dvp_port_driver.h>

#include "mlx5_fte.h"
#include "mlx5_glue.h"
#include "mlx5_mr.h"
#include "mlx5_prm.h"

extern int mlx5_logtype;

#define MLX5_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, mlx5_logtype, "net_mlx5: ", fmt, ##__VA_ARGS__)
#define MLX5_PLOG(level, port, fmt, ...) \
	DVP_LOG_LINE(level, mlx5_logtype, "net_mlx5: ", "%s: " fmt, (port)->name, ##__VA_ARGS__)

#define MLX5_DRIVER_NAME "net_mlx5"

/* op_own of a completion without its SE bit: opcode, format 0, owner. */
#define MLX5_OP_OWN_CHECK_MASK 0xfdu

/* Descriptor limits (rings are rounded up to a power of two). */
#define MLX5_RXQ_DESC_MIN 64u
#define MLX5_RXQ_DESC_MAX 32768u
#define MLX5_TXQ_DESC_MIN 64u
#define MLX5_TXQ_DESC_MAX 32768u
#define MLX5_RXQ_DESC_DEFAULT 1024u
#define MLX5_TXQ_DESC_DEFAULT 1024u
/* A completion is asked for every this many packets unless tx_free_thresh says otherwise. */
#define MLX5_TX_COMP_THRESH 32u
/* ... and at least every SQ size / this many basic blocks (DPDK's inline divisor). */
#define MLX5_TX_COMP_WQE_DIV 8u
/* How long a tx queue stop waits for the device to finish its sends (mlx5_txq.c). */
#define MLX5_TX_DRAIN_MS 100u
/* The least number of empty RQ slots worth a replenish. */
#define MLX5_RX_REPLENISH_THRESH 16u
/* Indirection table entries (RSS reta size). */
#define MLX5_RSS_RETA_SIZE 512u
/*
 * Longest frame inline in an eMPW session (txq_inline_mpw): DPDK's
 * MLX5_EMPW_MAX_INLINE_LEN, what a 15-block WQE holds after its title and
 * the inline segment's 4-byte header (960 - 32 - 4).
 */
#define MLX5_EMPW_INLINE_MAX_LIMIT 924u
#define MLX5_EMPW_INLINE_DEFAULT 268u
/* Multi-packet RQ defaults, DPDK's (mlx5_defs.h): 2^6 strides per WQE, 128 bytes, 12 queues. */
#define MLX5_MPRQ_DEFAULT_LOG_STRIDE_NUM 6u
#define MLX5_MPRQ_DEFAULT_LOG_STRIDE_SIZE 11u
#define MLX5_MPRQ_DEFAULT_MEMCPY_LEN 128u
#define MLX5_MPRQ_DEFAULT_MIN_RXQS 12u
/* Smallest WQE buffer (log2 bytes) DPDK asks of a device that does not say (Verbs). */
#define MLX5_MPRQ_LOG_MIN_WQE_SIZE 14u
/* Longest whole-packet inline (txq_inline_max), as DPDK's limit. */
#define MLX5_TXQ_INLINE_MAX_LIMIT 960u

/* Devargs (mlx5_devargs.c), with DPDK net_mlx5's names and meanings. */
struct mlx5_cfg {
	bool cqe_comp; /* rxq_cqe_comp_en != 0: CQE compression asked for */
	uint32_t cqe_comp_fmt; /* rxq_cqe_comp_en & 0x7f: DPDK's mini-CQE format, 0..4 */
	bool cqe_comp_enh; /* rxq_cqe_comp_en bit 7: the enhanced layout (not given) */
	uint32_t txq_inline_min; /* bytes of every frame inlined in its WQE */
	uint32_t txq_inline_max; /* frames up to this many bytes inlined whole ... */
	uint32_t txqs_min_inline; /* ... when the port has at least this many tx queues */
	bool txq_inline_min_set; /* txq_inline_min was given */
	bool txq_mpw_en; /* eMPW where the device has it */
	uint32_t txq_inline_mpw; /* eMPW: frames up to this inline in the session */
	/* Multi-packet (striding) RQ (mlx5_rx_mprq.c). */
	bool mprq_en;
	uint32_t mprq_log_stride_num; /* strides per WQE, log2 */
	uint32_t mprq_log_stride_size; /* bytes per stride, log2; MLX5_MPRQ_LOG_STRIDE_SIZE_UNSET */
	uint32_t mprq_max_memcpy_len;
	uint32_t rxqs_min_mprq; /* MPRQ needs at least this many rx queues on the port */
	bool rx_vec_en; /* the vector rx burst where the CPU and the queues allow it */
};

#define MLX5_MPRQ_LOG_STRIDE_SIZE_UNSET UINT32_MAX

extern const struct dvp_devargs_key mlx5_devargs_keys[];
int mlx5_devargs_parse(const struct dvp_devargs *da, const char *devname, struct mlx5_cfg *cfg);

/* What the device requires and reports beyond ibv_device_attr (mlx5_caps.c). */
struct mlx5_caps {
	bool devx; /* answered DevX general commands */
	uint8_t inline_mode; /* MLX5_INLINE_MODE_*: headers every send WQE must carry inline */
	uint32_t inline_hsize; /* bytes inlined to meet it whatever the frame */
	uint32_t part_id; /* PCI device id */
	/* The Ethernet segment's VLAN insertion: wqe_vlan_insert, where no header must be inline. */
	bool vlan_insert;
	uint32_t tso_max; /* largest LSO payload (tso_caps.max_tso); 0: no TSO */
};

/* One IB device. */
struct mlx5_dev {
	char name[DVP_DEV_NAME_MAX_LEN];
	struct dvp_device *bus_dev;
	const struct mlx5_glue *glue;
	bool is_sw; /* a software device (the simulator): no OS prerequisites */
	struct ibv_context *ctx;
	bool devx; /* ctx was opened for DevX (mlx5dv_open_device) */
	struct ibv_pd *pd;
	struct ibv_device_attr_ex attr;
	struct mlx5_caps caps;
	struct mlx5_cfg cfg;
	uint32_t txq_inline_min; /* header bytes every SEND WQE inlines: cfg's, at least caps' */
	bool empw; /* tx through enhanced multi-packet send WQEs (mlx5_tx_empw.h) */
	uint8_t cqe_comp; /* MLX5DV_CQE_RES_FORMAT_* the rx CQs compress in; 0: none */
	uint8_t cqe_comp_mini; /* its enum mlx5_mini_cqe_format */
	struct mlx5_mr_table mr;
	int alloc_socket; /* NUMA node of the queue buffers created next */
	struct ib_async *async;
	unsigned int nports; /* ports probed and not yet closed */
	struct dvp_port *ports[DVP_IB_MAX_PORTS]; /* by IB port number - 1 */
	struct mlx5_dev *next; /* the driver's device list (mlx5_mr.c registry) */
};

/* Device counters (glue port_counters) a port shows among its xstats, at most. */
#define MLX5_DEV_COUNTERS_MAX 32

/* Traffic classes of RSS, most specific first: one hashing QP and its flow rules each. */
enum mlx5_rss_class {
	MLX5_RSS_IPV4_TCP,
	MLX5_RSS_IPV4_UDP,
	MLX5_RSS_IPV6_TCP,
	MLX5_RSS_IPV6_UDP,
	MLX5_RSS_IPV4,
	MLX5_RSS_IPV6,
	MLX5_RSS_L2, /* everything else, not hashed */
	MLX5_RSS_CLASSES,
};

/*
 * Flow rules per class: the unicast MAC and multicast, or all
 * (promiscuous); with the VLAN filter, that many per VLAN id (mlx5_vlan.c).
 */
#define MLX5_FLOWS_PER_CLASS 2

struct mlx5_hrxq {
	struct ibv_qp *qp;
	struct ibv_flow **flows; /* nb_flows of them, allocated with the class */
	unsigned int nb_flows;
};

/*
 * Flow priorities of a steering set: its classes take prio + 0 (L4),
 * + 1 (IPv4, IPv6), + 2 (L2). A rebuild makes the new set at the other base
 * before it destroys the old one, so every frame meets a rule throughout.
 */
#define MLX5_FLOW_PRIOS_PER_SET 3u

/*
 * Flow priorities of the application's rules (mlx5_flow_rules.c): 0 and 1,
 * above every set of the port's own steering, which starts after them.
 * Eight priorities in all, what a kernel of any age gives verbs.
 */
#define MLX5_FLOW_USER_PRIOS 2u

/* A hashing QP over one rx queue's WQ: the target of QUEUE rules. */
struct mlx5_qhrxq {
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *qp;
	unsigned int refs; /* live rules on it */
};

struct mlx5_uflow;
struct mlx5_dv_matcher;

/* One set of steering objects: the port's traffic goes through it. */
struct mlx5_steer {
	struct ibv_rwq_ind_table *ind;
	struct mlx5_hrxq hrxq[MLX5_RSS_CLASSES];
	uint16_t prio; /* 0 or MLX5_FLOW_PRIOS_PER_SET */
};

/* RSS as the port has it now (mlx5_rss.c): what steering is built from. */
struct mlx5_rss {
	uint8_t key[MLX5_RSS_HASH_KEY_LEN];
	uint64_t hf; /* DVP_RSS_* */
	uint32_t reta_n; /* indirection entries: info's reta_size */
	uint16_t reta[MLX5_RSS_RETA_SIZE]; /* the rx queue of each entry */
};

/* One IB port: port->priv. */
struct mlx5_priv {
	struct mlx5_dev *dev;
	struct dvp_port *port;
	uint8_t port_num; /* 1-based */
	/* As probed (MAC, MTU limits), the MTU then as set; the link is port->link. */
	struct mlx5_glue_port_net net;
	/*
	 * Steering, created at start, rebuilt by a queue restart and by RSS
	 * changes, and the RSS it is built from: under the lock.
	 */
	pthread_mutex_t steer_lock;
	bool steering;
	struct mlx5_steer steer;
	struct mlx5_rss rss;
	/*
	 * The application's flow rules (lib/port's live ones), oldest first,
	 * their verbs objects made with the steering and undone with it;
	 * nb_mark of them MARK or FLAG (then every rx queue's mark is set).
	 */
	struct mlx5_uflow *uflows;
	struct mlx5_uflow **uflows_tail; /* the link a new rule goes into; NULL: &uflows */
	unsigned int nb_mark;
	struct mlx5_dv_matcher *dv_matchers; /* of the live rules that need mlx5dv */
	struct mlx5_qhrxq qhrxq[DVP_MAX_QUEUES_PER_PORT];
	/* The device's out_of_buffer count at the last reset (imissed is past it). */
	uint64_t oob_base;
	/* Its count of frames dropped on arrival for their length (ierrors, rx_length_errors). */
	uint64_t len_err_base;
	/* The device's other counters (glue port_counters) at the last reset. */
	uint64_t dev_ctr_base[MLX5_DEV_COUNTERS_MAX];
};

static inline struct mlx5_priv *mlx5_priv(const struct dvp_port *port)
{
	return (struct mlx5_priv *)port->priv;
}

/* Who a CQ, WQ or QP belongs to (their cq_context / wq_context / qp_context). */
struct mlx5_owner {
	uint16_t port_id;
	uint16_t queue_id;
	bool tx;
};

/* What an error CQE's syndrome means, for a log line. */
static inline const char *mlx5_syndrome_str(uint8_t s)
{
	switch (s) {
	case MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR:
		return "local length error";
	case MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR:
		return "local QP operation error";
	case MLX5_CQE_SYNDROME_LOCAL_PROT_ERR:
		return "local protection error: lkey or address";
	case MLX5_CQE_SYNDROME_WR_FLUSH_ERR:
		return "flushed";
	default:
		return "error";
	}
}

/* mlx5_probe.c */
int mlx5_check_prerequisites(const char *devname);
void mlx5_dev_port_closed(struct mlx5_dev *dev, struct dvp_port *port);
extern const struct dvp_port_ops mlx5_port_ops;

/* mlx5_ethdev.c */
int mlx5_link_update(struct dvp_port *port, bool wait, enum dvp_port_event_cause cause);
/*
 * After a queue's verbs object is destroyed (@p what, as "destroy_cq"): a
 * failure @p ret (an errno value; 0 is none) logged for rx or tx queue
 * @p q. Teardown goes on either way: the object is gone for the driver.
 */
void mlx5_queue_destroyed(struct dvp_port *port, bool tx, uint16_t q, const char *what, int ret);

/* mlx5_flow.c (callers hold priv->steer_lock) */
int mlx5_steering_create(struct mlx5_priv *priv);
void mlx5_steering_destroy(struct mlx5_priv *priv);
/*
 * Replace the steering of a started port by one built from priv->rss now,
 * making the new before destroying the old: no frame meets no rule. On an
 * error the old steering stays. A port without steering (stopped) is left
 * alone: start builds it.
 */
int mlx5_steering_rebuild(struct mlx5_priv *priv);
/*
 * Rebuild a started port's steering, under its lock, from what it is to
 * steer now (MAC, promiscuous mode, VLAN table and filter); a stopped
 * port's is built at start.
 */
int mlx5_steering_refresh(struct dvp_port *port);
uint64_t mlx5_rss_hf_capa(void);
int mlx5_flow_isolate(struct dvp_port *port, bool on);

/* mlx5_flow_rules.c: the flow ops, and the rules' verbs objects (under steer_lock). */
int mlx5_flow_validate(struct dvp_port *port, const struct dvp_flow_rule *rule);
int mlx5_flow_create(struct dvp_port *port, const struct dvp_flow_rule *rule, void **handle);
void mlx5_flow_destroy(struct dvp_port *port, void *handle);
int mlx5_flow_query(struct dvp_port *port, void *handle, uint64_t *hits, uint64_t *bytes);
/* Make the verbs objects of every rule (on an error none is left), undo them all. */
int mlx5_uflows_build(struct mlx5_priv *priv);
void mlx5_uflows_teardown(struct mlx5_priv *priv);
/* One line naming what is refused and what is valid, then -@p err. */
#define FLOW_REFUSE(port, err, fmt, ...) (MLX5_PLOG(ERR, port, "flow: " fmt, ##__VA_ARGS__), -(err))

/* mlx5_flow_dv.c: rules through mlx5dv flow matchers (under steer_lock). */
/* The fte_match_param parts the PMD writes: the outer headers, and misc for source_port. */
#define MLX5_DV_MATCH_SIZE (2u * MLX5_FTE_PART_SIZE)
/* A matcher of one priority and mask, shared by the live rules with both (priv->dv_matchers). */
struct mlx5_dv_matcher {
	struct mlx5_dv_matcher *next;
	struct mlx5dv_flow_matcher *m;
	unsigned int refs;
	uint16_t priority;
	uint8_t criteria; /* match_criteria_enable */
	uint8_t mask[MLX5_DV_MATCH_SIZE];
};
/* Whether @p r says what verbs specs cannot (ETH has_vlan, IPV4 fragment_offset). */
bool mlx5_flow_dv_needed(const struct dvp_flow_rule *r);
/* 0, or -errno after a log line for such a rule the device or mlx5dv cannot take. */
int mlx5_flow_dv_validate(struct dvp_port *port, const struct dvp_flow_rule *r);
/* A rule's actions: to @p qp (NULL: DROP), the flow tag, COUNT's counters (or NULL). */
struct mlx5_flow_dv_actions {
	struct ibv_qp *qp;
	bool has_tag;
	uint32_t tag;
	struct ibv_counters *ctr;
};
/*
 * The flow of @p r with @p act, on a shared matcher (*@p matcher, to put
 * back after destroy_flow). NULL with *@p err set after a log line.
 */
struct ibv_flow *mlx5_flow_dv_create(struct mlx5_priv *priv, const struct dvp_flow_rule *r,
				     const struct mlx5_flow_dv_actions *act,
				     struct mlx5_dv_matcher **matcher, int *err);
void mlx5_flow_dv_matcher_put(struct mlx5_priv *priv, struct mlx5_dv_matcher *m);

/* mlx5_rss.c */
uint32_t mlx5_rss_reta_size(const struct mlx5_dev *dev);
/* priv->rss from port->conf: its key (or the default) and fields, the queues in turn. */
void mlx5_rss_configure(struct mlx5_priv *priv);
int mlx5_rss_hash_update(struct dvp_port *port, const struct dvp_port_rss_conf *conf);
int mlx5_rss_hash_conf_get(struct dvp_port *port, struct dvp_port_rss_conf *conf);
int mlx5_rss_reta_update(struct dvp_port *port, const struct dvp_rss_reta_entry64 *reta,
			 uint16_t reta_size);
int mlx5_rss_reta_query(struct dvp_port *port, struct dvp_rss_reta_entry64 *reta,
			uint16_t reta_size);

/* mlx5_rxq.c, mlx5_txq.c */
int mlx5_rxq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		   const struct dvp_rxq_conf *conf, struct dvp_mempool *mp);
void mlx5_rxq_release(struct dvp_port *port, uint16_t q);
int mlx5_rxq_start(struct dvp_port *port, uint16_t q);
void mlx5_rxq_stop(struct dvp_port *port, uint16_t q);
int mlx5_txq_setup(struct dvp_port *port, uint16_t q, uint16_t nb_desc, int socket_id,
		   const struct dvp_txq_conf *conf);
void mlx5_txq_release(struct dvp_port *port, uint16_t q);
int mlx5_txq_start(struct dvp_port *port, uint16_t q);
void mlx5_txq_stop(struct dvp_port *port, uint16_t q);
/* mlx5_err.c: the queue_restart op. */
int mlx5_queue_restart(struct dvp_port *port, uint16_t q, bool tx, enum dvp_port_event_cause cause);

/* mlx5_caps.c: the device's capabilities and requirements, and the tx choices they make. */
void mlx5_caps_query(struct mlx5_dev *mdev);
/* The name of a WQE inline mode (MLX5_CAP_INLINE_MODE_* / MLX5_INLINE_MODE_*). */
const char *mlx5_inline_mode_name(unsigned int mode);

/* mlx5_rx_comp.c */
void mlx5_cqe_comp_choose(struct mlx5_dev *mdev);

/* mlx5_intr.c */
int mlx5_async_create(struct mlx5_dev *dev);
void mlx5_async_destroy(struct mlx5_dev *dev);
extern const struct dvp_rxwait_queue_ops mlx5_rxq_intr_ops;
/* The get_monitor_addr op: the next CQE's op_own byte. */
int mlx5_rxq_monitor_addr(void *rxq, struct dvp_power_monitor_cond *pmc);
/* VLAN stripping of rx queue @p q at run time: the WQ's flag (mlx5_rxq.c). */
int mlx5_rxq_vlan_strip_set(struct dvp_port *port, uint16_t q, bool on);

/*
 * mlx5_vlan.c: the VLAN filter. At most MLX5_VLAN_FILTER_MAX VLAN ids (as
 * DPDK's mlx5), each a flow rule per class and kind: the device's flow
 * tables stay far from full even while a rebuild holds two sets.
 */
#define MLX5_VLAN_FILTER_MAX 128
int mlx5_vlan_filter_set(struct dvp_port *port, uint16_t vlan_id, bool on);
int mlx5_vlan_filter_offload_set(struct dvp_port *port, bool on);
/*
 * The VLAN ids the port's steering matches, into @p ids (room for
 * MLX5_VLAN_FILTER_MAX), lowest first: those of port->vlan_filter when
 * the filter is on and holds any, the port not promiscuous. 0: the
 * steering matches no VLAN (every frame of the port's addresses).
 */
unsigned int mlx5_vlan_steer_ids(const struct dvp_port *port, uint16_t *ids);

#endif /* MLX5_H */
