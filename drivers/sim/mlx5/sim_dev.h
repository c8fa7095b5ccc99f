/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The simulated mlx5 HCA's core, which every part of it includes: the
 * device, its ports and its settings, its limits, its log; and what the
 * device's own files offer the other parts: the registry, port lookup, the
 * clock and the reports of invalid use and of refused calls (sim_dev.c),
 * the settings from devargs (sim_devargs.c), and the faults the engines
 * consult (sim_fault.c). Not installed.
 *
 * Each other part has its header: events (sim_event.h), the verbs objects
 * all parts build on (sim_obj.h), UAR pages (sim_uar.h), CQs (sim_cq.h),
 * WQs and QPs with their engines (sim_wq.h), steering (sim_steer.h),
 * cables and traffic (sim_traffic.h), packets (sim_pkt.h) and the glue
 * table (sim_glue.h). A part's header holds what it offers the others; a
 * file includes the headers of the parts it uses, and no other.
 *
 * Locking. One mutex per device (dev->lock) serialises the engine (a step,
 * on the device thread or in sim_mlx5_step()) with the control path (every
 * glue call that creates, modifies or destroys an object, and the public
 * API). The driver's datapath never takes it: it shares only memory with the
 * device, the CQ buffers, doorbell records, WQ buffers and UAR registers,
 * accessed on the device side with acquire loads and release stores (see
 * mlx5_db.h for the driver side). Event queues (completion channels, async
 * events) have their own mutex, taken after dev->lock when both are needed.
 */

#ifndef SIM_DEV_H
#define SIM_DEV_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <dvp_common.h>
#include <dvp_devargs.h>
#include <dvp_log.h>

#include "dvp_sim_mlx5.h"
#include "sim_profile.h"

extern int sim_logtype;

#define SIM_LOG(level, dev, fmt, ...) \
	DVP_LOG_LINE(level, sim_logtype, "", "%s: " fmt, (dev)->name, ##__VA_ARGS__)

/* --- Limits: what the device reports and takes -------------------------- */

#define SIM_PAGE_SIZE 4096u
#define SIM_MAX_CQE (1u << 22)
#define SIM_MAX_WQE (1u << 15)
#define SIM_MAX_SGE 30u
#define SIM_MAX_MR 65536u
#define SIM_MAX_IND_LOG 9u
#define SIM_MAX_FLOWS_PER_SOURCE 65536u
/**
 * The largest MTU a port takes (what a ConnectX's netdev reports as its
 * maxmtu), and the longest frame the engine handles: that MTU plus the
 * Ethernet and VLAN headers.
 */
#define SIM_MTU_MAX 9978u
#define SIM_FRAME_MAX (SIM_MTU_MAX + 18u)
/*
 * LSO: log2 of the largest payload an LSO WQE carries (max_lso_cap, the
 * verbs' tso_caps.max_tso: 256 KiB on every profile, as mlx5 devices
 * report), and the scratch the engine gathers one into, headers and all.
 */
#define SIM_LSO_LOG 18u
#define SIM_LSO_BUF ((1u << SIM_LSO_LOG) + 1024u)
#define SIM_MTU_MIN 68u
#define SIM_FRAME_MIN 60u
/** Most receive completions in one compressed CQE session (cqe_comp_caps.max_num). */
#define SIM_CQE_COMP_MAX 64u

/* --- The device's lists ------------------------------------------------- */

struct dvp_device;
struct sim_ctx;
struct sim_cq;
struct sim_qp;
struct sim_uar;
struct sim_flow;
struct sim_mr;

TAILQ_HEAD(sim_ctx_list, sim_ctx);
TAILQ_HEAD(sim_cq_list, sim_cq);
TAILQ_HEAD(sim_qp_list, sim_qp);
TAILQ_HEAD(sim_uar_list, sim_uar);
TAILQ_HEAD(sim_flow_list, sim_flow);

/* --- Ports -------------------------------------------------------------- */

/* Frames on the way from a peer port: single producer (the peer's engine), single consumer. */
struct sim_fifo {
	uint32_t depth; /* power of two */
	uint32_t slot_size;
	uint8_t *slots; /* depth x (uint32_t length + frame) */
	uint32_t head; /* consumer's, atomic */
	uint32_t tail; /* producer's, atomic */
};

struct sim_source {
	struct sim_mlx5_source_conf conf;
	bool running;
	uint64_t next; /* frames built so far: frame k is flow k % flows, number k / flows */
	/*
	 * Set once the partner (a link up, a flow rule) is there: the rate's
	 * and the pattern's schedule count from then, so the time spent waiting
	 * for it is never sent afterwards as one burst.
	 */
	bool scheduled;
	uint64_t start_ns; /* of the current schedule */
	uint64_t phase_start, phase_sent; /* the current on-phase and what it sent */
	uint8_t *frame; /* the frame on the wire, kept while flow control holds it */
	uint32_t frame_len;
	bool pending;
	struct sim_mlx5_source_stats st; /* of the current run */
	struct sim_mlx5_source_stats past; /* of the runs before it: the totals never go back */
};

struct sim_sink_flow {
	uint64_t next; /* one past the highest sequence seen */
	uint64_t window; /* bit i: next - 1 - i seen */
	uint64_t unique;
};

struct sim_sink {
	struct sim_sink_flow *flows; /* grown to the highest flow seen */
	uint32_t nflows;
	struct sim_mlx5_sink_stats st; /* since the last reset */
	struct sim_mlx5_sink_stats past; /* before it: the totals never go back */
};

struct sim_capture {
	uint32_t depth, head, count;
	uint8_t *frames; /* depth x (uint32_t length + SIM_FRAME_MAX) */
};

enum sim_cable {
	SIM_CABLE_NONE,
	SIM_CABLE_PORT,
	SIM_CABLE_TRAFFIC,
};

struct sim_port {
	struct sim_mlx5_dev *dev;
	unsigned int idx;
	uint8_t mac[6];
	uint32_t mtu; /* the netdev's: frames longer than it + 18 are dropped on arrival (lock) */
	bool link_up;
	bool pause;
	bool tx_held; /* the tx_hold fault: the partner pauses the port, its sends wait */
	enum sim_cable cable;
	struct sim_port *peer;
	struct sim_fifo fifo;
	struct sim_source source;
	struct sim_sink sink;
	struct sim_capture cap;
	struct sim_flow_list flows; /* by priority, then kind, then age */
	uint32_t drop_ppm, corrupt_ppm; /* atomic: read by the sending side's engine */
	uint64_t wire_drops, wire_corrupt; /* atomic: counted by the sending side's engine */
	uint64_t flap_at, flap_up_at; /* clock of the link going down, up; UINT64_MAX: none */
	struct sim_mlx5_port_stats st;
};

/* --- The device --------------------------------------------------------- */

struct sim_cfg {
	unsigned int ports;
	enum sim_cable cable; /* SIM_CABLE_PORT: ports paired 0-1, 2-3... */
	bool thread;
	uint32_t mtu;
	int numa;
	bool pause;
	struct sim_profile prof; /* the adapter it is (sim_profile.h) */
	uint32_t idle_us;
	bool clock_virtual;
	uint64_t seed;
	uint32_t cq_start, wq_start;
	uint8_t mac[6];
	bool mac_set;
	struct sim_mlx5_source_conf src;
	bool src_on;
	uint32_t drop_ppm, corrupt_ppm; /* atomic: read by the sending side's engine */
	uint64_t wire_drops, wire_corrupt; /* atomic: counted by the sending side's engine */
	uint64_t flap_at, flap_down;
	uint64_t fatal_at;
	uint64_t bad_lkey_nth;
	uint32_t cq_stall_cqn;
	bool tx_hold;
	uint8_t rx_opcode; /* opcode of receive CQEs (MLX5_CQE_RESP_SEND; rx_opcode=) */
};

struct sim_mlx5_dev {
	char name[64];
	struct ibv_device ibv_dev;
	struct sim_cfg cfg;
	unsigned int nports;
	struct sim_port ports[SIM_MLX5_MAX_PORTS];
	pthread_mutex_t lock;
	bool fatal;
	bool on_bus;
	const struct dvp_device *vdev; /* the --vdev that owns it, or NULL (API) */
	struct sim_ctx_list ctxs;
	struct sim_cq_list cqs;
	struct sim_qp_list sqs;
	struct sim_uar_list dead_uars;
	uint32_t next_cqn, next_qpn, next_key;
	struct sim_mr **mrs; /* by lkey index */
	uint64_t flow_seq;
	struct sim_mlx5_dev_stats st;
	/* Faults. */
	uint32_t bad_lkey_qn;
	unsigned int bad_lkey_count;
	uint64_t wqes_seen;
	uint64_t fatal_at;
	uint64_t rng;
	/* Clock. */
	uint64_t clock_virt_ns, clock_base_ns;
	/* A frame less its C-VLAN tag, on its way into a stripping WQ (under lock). */
	uint8_t strip_buf[SIM_FRAME_MAX];
	/* Thread. */
	pthread_t thread;
	bool thread_started;
	bool thread_stop; /* atomic */
	uint8_t *frame; /* scratch: the frame being sent */
	uint8_t *lso; /* scratch: the message of an LSO WQE (SIM_LSO_BUF bytes) */
	struct sim_mlx5_dev *reg_next;
};

/* sim_dev.c */
void sim_dev_list_lock(void);
void sim_dev_list_unlock(void);
unsigned int sim_dev_next_index(void);
/* @p dev joins the live devices. */
void sim_dev_register(struct sim_mlx5_dev *dev);
/* @p dev leaves them (the list lock held). */
void sim_dev_unregister_locked(struct sim_mlx5_dev *dev);
int sim_dev_registered(const struct sim_mlx5_dev *dev);
struct sim_mlx5_dev *sim_dev_first(void);
/* With the list lock held: device @p name and its port with address @p mac, or NULL. */
struct sim_mlx5_dev *sim_dev_find_port_locked(const char *name, const uint8_t mac[6],
					      unsigned int *port);
struct sim_port *sim_port_get(struct sim_mlx5_dev *dev, unsigned int port, const char *fn);
/* sim_port_get() for a getter filling @p out (not NULL); with dev->lock taken. */
struct sim_port *sim_port_lock_out(struct sim_mlx5_dev *dev, unsigned int port, const void *out,
				   const char *fn);
void sim_invalid(struct sim_mlx5_dev *dev, enum sim_mlx5_invalid kind, const char *fmt, ...)
	__dvp_format_printf(3, 4);
/*
 * Refuse a verbs call the way libibverbs does, errno @p err and NULL,
 * after an error line naming the device, the call and what is valid.
 */
void *sim_refuse(struct sim_mlx5_dev *dev, int err, const char *fmt, ...) __dvp_format_printf(3, 4);
/* The device's clock: monotonic since its creation, or virtual (clock=virtual). */
uint64_t sim_now(struct sim_mlx5_dev *dev);
/* The same instant in ticks of the profile's hca_core_clock (CQE timestamps). */
uint64_t sim_ticks(struct sim_mlx5_dev *dev);

/* sim_devargs.c */
extern const struct dvp_devargs_key sim_devargs_keys[];
int sim_cfg_parse(const char *name, const struct dvp_devargs *da, struct sim_cfg *cfg);

/* sim_fault.c */
/* The drop and corrupt faults of the wire into @p to. @return false if the frame is lost. */
bool sim_wire_pass(struct sim_mlx5_dev *dev, struct sim_port *to, uint8_t *frame, uint32_t len);
/* Whether the WQE the engine takes now from queue @p qn is answered as if its lkey were bad. */
bool sim_fault_bad_lkey_take(struct sim_mlx5_dev *dev, uint32_t qn);
int sim_fault_poll(struct sim_mlx5_dev *dev, uint64_t now);

#endif /* SIM_DEV_H */
