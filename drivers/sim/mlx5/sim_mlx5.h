/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Private header of the simulated mlx5 HCA: its objects and the functions
 * its files share. Not installed.
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

#ifndef SIM_MLX5_H
#define SIM_MLX5_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include <dvp_bus.h>
#include <dvp_common.h>
#include <dvp_devargs.h>
#include <dvp_log.h>

#include "dvp_sim_mlx5.h"
#include "mlx5_glue.h"
#include "mlx5_prm.h"

extern int sim_logtype;

#define SIM_LOG(level, dev, fmt, ...) \
	DVP_LOG_LINE(level, sim_logtype, "", "%s: " fmt, (dev)->name, ##__VA_ARGS__)

/*
 * The sim object of @p type behind the verbs object @p ptr (its member
 * ibv) if it is one of ours and alive (its magic is @p member_magic), or
 * NULL after a line naming the call @p fn and what was expected.
 */
#define SIM_OBJ_OF(type, ptr, member_magic, what, fn)                                          \
	({                                                                                     \
		type *o_ = NULL;                                                               \
		if ((ptr) == NULL)                                                             \
			DVP_LOG_LINE(ERR, sim_logtype, "", "sim_mlx5: %s: NULL %s", fn, what); \
		else {                                                                         \
			o_ = dvp_container_of((ptr), type, ibv);                               \
			if (o_->magic != (member_magic)) {                                     \
				DVP_LOG_LINE(ERR, sim_logtype, "",                             \
					     "sim_mlx5: %s: %p is not a live sim_mlx5 %s", fn, \
					     (void *)(ptr), what);                             \
				o_ = NULL;                                                     \
			}                                                                      \
		}                                                                              \
		o_;                                                                            \
	})

/* Object magics: every glue call checks the object is one of ours and alive. */
enum {
	SIM_MAGIC_CTX = 0x53430001,
	SIM_MAGIC_PD,
	SIM_MAGIC_MR,
	SIM_MAGIC_CHANNEL,
	SIM_MAGIC_CQ,
	SIM_MAGIC_WQ,
	SIM_MAGIC_IND,
	SIM_MAGIC_QP,
	SIM_MAGIC_FLOW,
	SIM_MAGIC_DEAD = 0x64656164,
};

#define SIM_PAGE_SIZE 4096u
#define SIM_MAX_CQE (1u << 22)
#define SIM_MAX_WQE (1u << 15)
#define SIM_MAX_SGE 30u
#define SIM_MAX_MR 65536u
#define SIM_MAX_IND_LOG 9u
#define SIM_BF_SIZE 256u
#define SIM_FIFO_DEPTH 256u
#define SIM_MAX_FLOWS_PER_SOURCE 65536u
/** Longest frame the engine handles: a 9000-byte MTU plus Ethernet and VLAN headers. */
#define SIM_FRAME_MAX (9000u + 18u)
#define SIM_MTU_MAX 9000u
#define SIM_MTU_MIN 68u
#define SIM_FRAME_MIN 60u
/** Most receive completions in one compressed CQE session (cqe_comp_caps.max_num). */
#define SIM_CQE_COMP_MAX 64u
/** Mini-CQE formats the device takes (MLX5DV_CQE_RES_FORMAT_*): hash and checksum. */
#define SIM_CQE_COMP_FORMATS (MLX5DV_CQE_RES_FORMAT_HASH | MLX5DV_CQE_RES_FORMAT_CSUM)

/* --- Events ------------------------------------------------------------- */

struct sim_ev {
	struct ibv_async_event async; /* async queues */
	struct ibv_cq *cq; /* completion channels: the CQ whose event it is */
};

/*
 * A queue of events behind an fd that is readable while the queue is not
 * empty: an EFD_SEMAPHORE eventfd whose count equals the queue length,
 * both changed under the queue's mutex, so a reader that finds an event
 * under the mutex can always read its count without blocking.
 */
struct sim_evq {
	int fd;
	pthread_mutex_t lock;
	struct sim_ev *ring;
	unsigned int head, count, cap;
};

/* 0, or -errno with errno left as eventfd() set it (the caller's errno, as libibverbs'). */
int sim_evq_init(struct sim_evq *q);
void sim_evq_fini(struct sim_evq *q);
int sim_evq_push(struct sim_evq *q, const struct sim_ev *ev);
/* Pop one event, blocking unless the fd is O_NONBLOCK: 0, or -1 with errno (libibverbs' way). */
int sim_evq_pop(struct sim_evq *q, struct sim_ev *ev);
/* Drop the queued events about verbs object @p obj (a CQ, QP or WQ). @return how many. */
unsigned int sim_evq_remove(struct sim_evq *q, const void *obj);

/* --- Objects ------------------------------------------------------------- */

struct sim_mlx5_dev;
struct sim_ctx;

/* A UAR page: CQ arm doorbell at +MLX5_CQ_DOORBELL, send doorbells at +MLX5_BF_OFFSET. */
struct sim_uar {
	uint8_t *page;
	uint32_t num; /* the CQN or SQN it belongs to */
	bool is_sq;
	bool dead; /* its object is destroyed: any write is invalid use */
	TAILQ_ENTRY(sim_uar) ctx_next;
	TAILQ_ENTRY(sim_uar) dead_next;
};
TAILQ_HEAD(sim_uar_list, sim_uar);

/* The 64-bit doorbell register at @p off of a UAR page (the page is page-aligned). */
static inline uint64_t *sim_uar_reg(const struct sim_uar *uar, uint32_t off)
{
	return (uint64_t *)(void *)(uar->page + off);
}

/*
 * A queue buffer or doorbell record: from the application's allocator when
 * it set one (mlx5dv_set_context_attr, MLX5DV_CTX_ATTR_BUF_ALLOCATORS, as
 * DPDK does to place rings on the device's node), else from the sim.
 */
struct sim_mem {
	void *addr;
	void (*free)(void *ptr, void *priv); /* NULL: the sim's own (free()) */
	void *priv;
};

struct sim_ctx {
	struct ibv_context ibv;
	uint32_t magic;
	struct sim_mlx5_dev *dev;
	struct mlx5dv_ctx_allocators alloc; /* from dv_set_context_attr, or all NULL */
	struct sim_evq async;
	struct sim_uar_list uars; /* freed at close: late doorbells stay detectable */
	unsigned int objs;
	TAILQ_ENTRY(sim_ctx) next;
};

struct sim_pd {
	struct ibv_pd ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	unsigned int users;
};

struct sim_mr {
	struct ibv_mr ibv;
	uint32_t magic;
	struct sim_pd *pd;
	int access;
	uint32_t index;
};

struct sim_channel {
	struct ibv_comp_channel ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_evq q;
	unsigned int cqs;
};

/* Per-slot shadow of the CQEs written, for arm decisions without reading back. */
#define SIM_CQE_SOLICITED 0x1
#define SIM_CQE_ERROR 0x2

struct sim_wq;
struct sim_port;

/*
 * The compressed CQE session a CQ is writing (sim_cq_comp.c): its slots
 * [start, start + n) are taken from the ring as its completions come, and
 * written, title last, when it closes. Open only inside one engine pass.
 */
struct sim_cq_sess {
	uint32_t n; /* completions in it; 0: none open */
	uint32_t start; /* CQ index of its first slot (the title) */
	uint16_t counter; /* WQE counter of its first completion */
	const struct sim_wq *wq;
	struct sim_port *port;
	struct mlx5_cqe64 title; /* its first completion's CQE */
	struct mlx5_mini_cqe8 mini[SIM_CQE_COMP_MAX];
};

struct sim_cq {
	union {
		struct ibv_cq ibv;
		struct ibv_cq_ex ibv_ex; /* dv_create_cq's view (its poll functions unset) */
	};
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_channel *ch;
	uint32_t cqn;
	uint32_t cqe_cnt;
	struct mlx5_cqe64 *buf;
	__be32 *dbrec;
	struct sim_mem buf_mem, db_mem;
	struct sim_uar *uar;
	uint8_t *slot_flags;
	uint32_t pi; /* 24-bit index of the next CQE the device writes */
	uint32_t ci; /* consumer index as last read from the record */
	uint32_t bad_ci; /* last invalid consumer index reported */
	bool armed, arm_sol;
	uint32_t arm_ci;
	uint32_t sn; /* the arm sn the device accepts: events raised, mod 4 */
	bool error; /* overrun: no more CQEs */
	bool stall;
	unsigned int users; /* WQs and QPs on it */
	/* Written by the application's threads (get/ack), read at destroy. */
	uint32_t events_got; /* acks: ibv.comp_events_completed, as libibverbs */
	uint32_t async_got; /* acks: ibv.async_events_completed */
	/* CQE compression asked at creation (dv_create_cq); comp_max 0: off. */
	uint32_t comp_max;
	uint8_t comp_fmt; /* enum mlx5_mini_cqe_format: MLX5_MINI_CQE_HASH or _CSUM */
	struct sim_cq_sess sess;
	TAILQ_ENTRY(sim_cq) next;
};

struct sim_wq {
	struct ibv_wq ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_pd *pd;
	struct sim_cq *cq;
	uint32_t wqe_cnt, stride, max_sge;
	uint8_t *buf;
	__be32 *dbrec;
	struct sim_mem buf_mem, db_mem;
	uint32_t ci; /* 16-bit counter of the next WQE the device consumes */
	uint32_t bad_pi; /* last invalid producer index reported */
	uint32_t last_pi; /* the record's producer counter last read (bus_dbrec_updates) */
	unsigned int ind_refs;
	uint32_t async_got; /* acks: ibv.events_completed */
	/* Striding RQ (sim_mprq.c): log2 stride bytes and strides per WQE, 0 for a plain RQ. */
	uint32_t log_stride_sz, log_stride_num;
	uint32_t strd_ci; /* next free stride of the WQE at ci */
	bool wqe_fetched; /* the WQE at ci is read (counted in bus_wqe_bytes) */
	uint8_t *wqe_addr; /* its buffer, checked against the MRs when fetched */
};

struct sim_ind {
	struct ibv_rwq_ind_table ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	uint32_t size;
	struct sim_wq **wqs;
	unsigned int users;
};

struct sim_flow;
TAILQ_HEAD(sim_flow_list, sim_flow);

struct sim_qp {
	struct ibv_qp ibv;
	uint32_t magic;
	struct sim_ctx *ctx;
	struct sim_pd *pd;
	bool hash; /* an RSS QP (TIR) rather than a send queue */
	/* Send queue. */
	struct sim_cq *cq;
	unsigned int port; /* 0-based, set by the move to INIT */
	uint8_t *sq_buf;
	uint32_t wqe_cnt; /* basic blocks */
	uint32_t max_inline;
	__be32 *dbrec;
	struct sim_mem buf_mem, db_mem;
	struct sim_uar *uar;
	uint32_t sq_ci; /* 16-bit counter of the next basic block the device reads */
	uint32_t empw_sent; /* packets of the eMPW WQE at sq_ci already on the wire */
	bool wqe_fetched; /* the WQE at sq_ci is counted in bus_wqe_bytes (held, resumed) */
	bool empw_bad_lkey; /* the bad-lkey fault waits for that WQE's first pointer */
	bool rung; /* a doorbell was seen and WQEs may be waiting */
	uint32_t bad_pi; /* last invalid producer index reported */
	uint32_t last_pi; /* the record's producer counter last read (bus_dbrec_updates) */
	TAILQ_ENTRY(sim_qp) sq_next;
	/* RSS. */
	struct sim_ind *ind;
	uint8_t key[MLX5_RSS_HASH_KEY_LEN];
	uint32_t key_len;
	uint64_t fields;
	unsigned int flows;
	uint32_t async_got; /* acks: ibv.events_completed */
};

/* A rule's filters, kept as their specs came; a spec not given has size 0. */
struct sim_match {
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_ipv4 ipv4;
	struct ibv_flow_spec_tcp_udp l4;
	int l4_proto; /* 0, IPPROTO_TCP or IPPROTO_UDP */
};

struct sim_flow {
	struct ibv_flow ibv;
	uint32_t magic;
	struct sim_qp *qp;
	unsigned int port;
	uint16_t priority;
	int type; /* enum ibv_flow_attr_type */
	uint64_t seq;
	struct sim_match m;
	bool has_tag, drop;
	uint32_t tag;
	TAILQ_ENTRY(sim_flow) next;
};

/* --- Ports, cables, traffic -------------------------------------------- */

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
	uint64_t start_ns; /* of the current run */
	uint64_t phase_start, phase_sent; /* the current on-phase and what it sent */
	uint8_t *frame; /* the frame on the wire, kept while flow control holds it */
	uint32_t frame_len;
	bool pending;
	struct sim_mlx5_source_stats st;
};

struct sim_sink_flow {
	uint64_t next; /* one past the highest sequence seen */
	uint64_t window; /* bit i: next - 1 - i seen */
	uint64_t unique;
};

struct sim_sink {
	struct sim_sink_flow *flows; /* grown to the highest flow seen */
	uint32_t nflows;
	struct sim_mlx5_sink_stats st;
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
	uint32_t mtu;
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

/* --- The device ------------------------------------------------------------ */

struct sim_cfg {
	unsigned int ports;
	enum sim_cable cable; /* SIM_CABLE_PORT: ports paired 0-1, 2-3... */
	bool thread;
	uint32_t mtu;
	int numa;
	bool pause;
	bool empw; /* enhanced multi-packet send WQEs: advertised and taken */
	uint32_t cqe_comp_max; /* compressed CQE sessions: the most completions in one; 0: none */
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
};

TAILQ_HEAD(sim_ctx_list, sim_ctx);
TAILQ_HEAD(sim_cq_list, sim_cq);
TAILQ_HEAD(sim_qp_list, sim_qp);

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
	/* Thread. */
	pthread_t thread;
	bool thread_started;
	bool thread_stop; /* atomic */
	uint8_t *frame; /* scratch: the frame being sent */
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
uint64_t sim_mono_ns(void);
/* The device's clock: monotonic since its creation, or virtual (clock=virtual). */
uint64_t sim_now(struct sim_mlx5_dev *dev);

/* sim_async.c */
void sim_async_event(struct sim_ctx *ctx, const struct ibv_async_event *ev);
void sim_async_event_all(struct sim_mlx5_dev *dev, enum ibv_event_type type, unsigned int port);
void sim_link_change(struct sim_port *port, bool up);

/* sim_devargs.c */
extern const struct dvp_devargs_key sim_devargs_keys[];
int sim_cfg_parse(const char *name, const struct dvp_devargs *da, struct sim_cfg *cfg);
void sim_cfg_defaults(struct sim_cfg *cfg);

/* sim_glue.c */
extern const struct mlx5_glue sim_glue_ops;

/* sim_obj.c */
struct sim_ctx *sim_ctx_of(struct ibv_context *ibv, const char *fn);
/*
 * A create call's new object: zeroed @p size bytes when the call's
 * arguments are @p valid. NULL with errno EINVAL (not valid) or ENOMEM.
 */
void *sim_obj_alloc(bool valid, size_t size);
/*
 * A destroy call's start: take dev->lock and return 0 if no object uses this
 * one (@p users, read under the lock). Else drop the lock, log "<@p fmt> is
 * still used by <count> <@p by>" and return EBUSY, as libibverbs refuses.
 */
int sim_obj_lock_unused(struct sim_mlx5_dev *dev, const unsigned int *users, const char *by,
			const char *fmt, ...) __dvp_format_printf(4, 5);
/*
 * A destroy call's check, dev->lock held: whether the @p got async events
 * of the object named @p what and @p num are all acked (@p completed, under
 * @p mutex). If not, drop the lock, count the invalid use and return EBUSY
 * (libibverbs would wait for them forever); else 0.
 */
int sim_obj_unacked(struct sim_mlx5_dev *dev, const uint32_t *got, pthread_mutex_t *mutex,
		    const uint32_t *completed, const char *what, uint32_t num);
/*
 * A create call's commit: take dev->lock unless the device has had a fatal
 * error (then errno EIO and return EIO, as the driver's commands fail; the
 * caller frees its object); 0 with the lock held.
 */
int sim_dev_lock_alive(struct sim_mlx5_dev *dev);
bool sim_obj_same_ctx(struct sim_ctx *ctx, const struct sim_ctx *pd_ctx,
		      const struct sim_ctx *cq_ctx, const char *fn);
/* A create call's end, dev->lock held: the object counts in @p ctx; drop the lock. */
void sim_obj_add(struct sim_ctx *ctx);
/*
 * A destroy call's end, dev->lock held: the object (its @p magic) leaves
 * @p ctx's count and is dead to every later call; drop the lock.
 */
void sim_obj_drop(struct sim_ctx *ctx, uint32_t *magic);
void *sim_buf_alloc(size_t size);
void *sim_mem_alloc(struct sim_ctx *ctx, size_t size, struct sim_mem *m);
void sim_mem_free(struct sim_mem *m);
struct sim_mr *sim_mr_lookup(struct sim_mlx5_dev *dev, uint32_t lkey);
struct sim_pd *sim_pd_of(struct ibv_pd *pd, const char *fn);
struct ibv_pd *sim_alloc_pd(struct ibv_context *context);
int sim_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *sim_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int sim_dereg_mr(struct ibv_mr *mr);

/* sim_cq.c */
struct sim_cq *sim_cq_of(struct ibv_cq *cq, const char *fn);
struct ibv_comp_channel *sim_create_comp_channel(struct ibv_context *context);
int sim_destroy_comp_channel(struct ibv_comp_channel *channel);
struct ibv_cq *sim_create_cq(struct ibv_context *context, int cqe, void *cq_context,
			     struct ibv_comp_channel *channel, int comp_vector);
struct ibv_cq_ex *sim_dv_create_cq(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr,
				   struct mlx5dv_cq_init_attr *dv_attr);
int sim_destroy_cq(struct ibv_cq *cq);
int sim_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq, void **cq_context);
void sim_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);

/* sim_wq.c */
struct sim_wq *sim_wq_of(struct ibv_wq *wq, const char *fn);
struct sim_ind *sim_ind_of(struct ibv_rwq_ind_table *t, const char *fn);
struct ibv_wq *sim_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr);
struct ibv_wq *sim_dv_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr,
				struct mlx5dv_wq_init_attr *dv_attr);
void sim_mprq_caps(struct mlx5dv_striding_rq_caps *caps);
int sim_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr);
int sim_destroy_wq(struct ibv_wq *wq);
struct ibv_rwq_ind_table *sim_create_rwq_ind_table(struct ibv_context *context,
						   struct ibv_rwq_ind_table_init_attr *attr);
int sim_destroy_rwq_ind_table(struct ibv_rwq_ind_table *table);
/*
 * A posted WQE and a free CQE slot for the next frame of @p wq:
 * SIM_MLX5_RX_DELIVERED, else what became of the frame (counted).
 */
int sim_wq_room(struct sim_port *port, struct sim_wq *wq, bool hold_ok);

/* sim_qp.c */
struct sim_qp *sim_qp_of(struct ibv_qp *qp, const char *fn);
struct ibv_qp *sim_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr);
int sim_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int sim_destroy_qp(struct ibv_qp *qp);

/* sim_flow.c */
struct ibv_flow *sim_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr);
int sim_destroy_flow(struct ibv_flow *flow);
struct sim_pkt;
struct sim_flow *sim_flow_match(struct sim_port *port, const struct sim_pkt *pkt);

/* sim_cqe.c: the device side of a CQ (dev->lock held). */
struct mlx5_cqe64;
int sim_cq_room(struct sim_cq *cq);
/* @p port: whose queue completes (its bus counters). */
void sim_cq_write(struct sim_cq *cq, struct sim_port *port, struct mlx5_cqe64 *cqe, uint8_t opcode,
		  bool solicited);
void sim_cq_write_error(struct sim_cq *cq, struct sim_port *port, bool send, uint8_t syndrome,
			uint32_t qpn, uint8_t wqe_opcode, uint16_t wqe_counter);
/*
 * A receive completion of @p wq on @p port: into the CQ's compressed
 * session when it has them (sim_cq_comp.c), else as its own CQE.
 */
void sim_cq_write_rx(struct sim_cq *cq, struct sim_port *port, const struct sim_wq *wq,
		     struct mlx5_cqe64 *cqe, const struct sim_pkt *pkt);
void sim_cq_overrun(struct sim_cq *cq);
int sim_cq_poll_arm(struct sim_cq *cq);

/* sim_uar.c */
struct sim_uar *sim_uar_alloc(struct sim_uar_list *uars, bool is_sq, uint32_t num);
void sim_uar_kill(struct sim_mlx5_dev *dev, struct sim_uar *uar);
void sim_uar_free_all(struct sim_mlx5_dev *dev, struct sim_uar_list *uars);
int sim_uar_poll_dead(struct sim_mlx5_dev *dev);

/* sim_cq_comp.c: compressed CQE sessions (dev->lock held). */
/*
 * A receive completion of @p wq on @p port, in the next slot: into the
 * CQ's open session when it matches, else into a new one. A session closes
 * when full.
 */
void sim_cq_comp_add(struct sim_cq *cq, struct sim_port *port, const struct sim_wq *wq,
		     const struct mlx5_cqe64 *cqe, const struct sim_pkt *pkt);
/* Write the CQ's open session, if any (a single completion as a plain CQE). */
void sim_cq_comp_close(struct sim_cq *cq);
/* Close every open session of the device: the engine goes idle. */
void sim_cq_comp_close_all(struct sim_mlx5_dev *dev);

/* sim_pkt.c */
struct sim_pkt {
	const uint8_t *data;
	uint32_t len;
	uint32_t l3_off, l4_off;
	uint8_t l3; /* 0, 4 or 6 */
	uint8_t l4_proto; /* IPPROTO_* when the L4 header is present, else 0 */
	bool frag;
	uint32_t l3_end; /* end of the IP datagram in the frame */
};
void sim_pkt_parse(const uint8_t *data, uint32_t len, struct sim_pkt *p);
bool sim_pkt_ipv4_csum_ok(const struct sim_pkt *p);
bool sim_pkt_l4_csum_ok(const struct sim_pkt *p);
void sim_pkt_fill_ipv4_csum(uint8_t *frame, const struct sim_pkt *p);
void sim_pkt_fill_l4_csum(uint8_t *frame, const struct sim_pkt *p);
uint16_t sim_csum_fold(uint32_t sum);
uint32_t sim_csum_add(uint32_t sum, const uint8_t *data, size_t len);

/* sim_rss.c */
uint32_t sim_rss_hash(const struct sim_qp *qp, const struct sim_pkt *p);

/* sim_engine_rx.c */
int sim_rx_frame(struct sim_port *port, const uint8_t *frame, uint32_t len, bool hold_ok);
/* Sentinel for sim_rx_frame: the frame must wait (flow control), nothing was done. */
#define SIM_RX_HOLD (-1000)

/* sim_mprq.c: striding RQs. */
int sim_rx_to_mprq(struct sim_port *port, struct sim_wq *wq, struct mlx5_cqe64 *cqe,
		   const struct sim_pkt *pkt, bool hold_ok);

/* sim_engine_tx.c */
int sim_tx_poll(struct sim_qp *qp);

/* sim_engine_send.c */
/* Build the frame of a SEND WQE of @p ds units into dev->frame. @return a syndrome or 0. */
uint8_t sim_tx_send_build(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint32_t *len);
/* Where the bytes of one frame of a send WQE come from (0 or a syndrome). */
uint8_t sim_tx_data_seg(struct sim_qp *qp, const struct mlx5_wqe_data_seg *ds, uint8_t *dst,
			uint32_t room, uint32_t *len, bool bad_lkey);
/* Length check and checksum offload of a gathered frame (0 or a syndrome). */
uint8_t sim_tx_frame_finish(struct sim_qp *qp, uint8_t cs_flags, uint8_t *frame, uint32_t len);

/* sim_engine_empw.c */
/* Outcome of an eMPW WQE: done, held by flow control, or failed with a syndrome. */
#define SIM_EMPW_HOLD 0x100u
unsigned int sim_tx_empw(struct sim_qp *qp, const uint8_t *wqe, uint32_t ds, uint16_t idx,
			 uint32_t *bytes);

/* sim_traffic.c */
int sim_traffic_init(struct sim_port *port);
void sim_traffic_fini(struct sim_port *port);
int sim_source_poll(struct sim_port *port, uint64_t now);
void sim_sink_frame(struct sim_port *port, const uint8_t *frame, uint32_t len);
void sim_capture_frame(struct sim_port *port, const uint8_t *frame, uint32_t len);
void sim_capture_fini(struct sim_port *port);

/* sim_cable.c */
int sim_fifo_init(struct sim_fifo *f, uint32_t depth, uint32_t frame_max);
void sim_fifo_fini(struct sim_fifo *f);
/* Unplug @p port from whatever it is cabled to (its peer too), locking what that takes. */
void sim_cable_unplug(struct sim_port *port);
/* The port's cable cannot take a frame now (flow control holds the SQ). */
bool sim_cable_holds(const struct sim_port *port);
void sim_cable_send(struct sim_port *port, uint8_t *frame, uint32_t len);
/* Frames waiting on the port's cable, received. @return how many were taken. */
int sim_cable_poll(struct sim_port *port);

/* sim_fault.c */
uint32_t sim_rand(struct sim_mlx5_dev *dev);
bool sim_chance_ppm(struct sim_mlx5_dev *dev, uint32_t ppm);
/* The drop and corrupt faults of the wire into @p to. @return false if the frame is lost. */
bool sim_wire_pass(struct sim_mlx5_dev *dev, struct sim_port *to, uint8_t *frame, uint32_t len);
bool sim_fault_bad_lkey_take(struct sim_mlx5_dev *dev, uint32_t qn);
int sim_fault_poll(struct sim_mlx5_dev *dev, uint64_t now);
void sim_fatal_locked(struct sim_mlx5_dev *dev);

#endif /* SIM_MLX5_H */
