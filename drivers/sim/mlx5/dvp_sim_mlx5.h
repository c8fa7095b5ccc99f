/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * sim_mlx5: a software mlx5 HCA, the device behind the mlx5 PMD when no
 * ConnectX is present (doc/sim.md). This header is its extra API for tests
 * and applications, as DPDK's rte_pmd_*.h: create devices, step them, cable
 * their ports, drive the traffic source and sink, inject faults, read
 * counters. The PMD itself never uses it: it sees an ib bus device and the
 * glue table (mlx5_glue.h).
 *
 * Every function returns 0 (or a count) on success and a negative errno on
 * failure with dvp_errno set, after one log line naming the problem.
 */

#ifndef DVP_SIM_MLX5_H
#define DVP_SIM_MLX5_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <dvp_common.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sim_mlx5_dev;
struct mlx5_glue;

/** Most ports a device has. */
#define SIM_MLX5_MAX_PORTS 8
/** Most frame sizes a source cycles through. */
#define SIM_MLX5_MAX_SIZES 16

/**
 * Create a device from devargs text, as `--vdev sim_mlx5,<args>` would
 * ("ports=2,cable=loop,mode=step"; "" for the defaults). It is named
 * sim_mlx5_<n> and added to the ib bus.
 */
__dvp_export int sim_mlx5_create(const char *args, struct sim_mlx5_dev **dev);

/** Stop and free a device. -EBUSY while a context on it is open. */
__dvp_export int sim_mlx5_destroy(struct sim_mlx5_dev *dev);

/** The device named @p name ("sim_mlx5_0"), or NULL. */
__dvp_export struct sim_mlx5_dev *sim_mlx5_find(const char *name);

__dvp_export const char *sim_mlx5_name(const struct sim_mlx5_dev *dev);
/**
 * The sim device and port behind dvp port @p port_id (a port of the mlx5
 * PMD on a sim device). @return 0, -EINVAL (no such port), -ENODEV (not on a sim).
 */
__dvp_export int sim_mlx5_port_of(uint16_t port_id, struct sim_mlx5_dev **dev, unsigned int *port);
__dvp_export unsigned int sim_mlx5_nports(const struct sim_mlx5_dev *dev);

/** The glue table of every sim device (what the ib bus gives as sw_ops). */
__dvp_export const struct mlx5_glue *sim_mlx5_glue(void);

/* --- Running ------------------------------------------------------------ */

/**
 * Run the device once: doorbells, send queues, cables, sources, arms,
 * timed faults. For a device created with mode=step (and allowed, though
 * racy in timing only, beside the device thread).
 * @return the number of work items done (WQEs, frames, arms); 0 when idle.
 */
__dvp_export int sim_mlx5_step(struct sim_mlx5_dev *dev);

/** Step until a step finds nothing to do (at most @p max_steps). @return steps run. */
__dvp_export int sim_mlx5_step_idle(struct sim_mlx5_dev *dev, unsigned int max_steps);

/** Start / stop the device thread (mode=thread starts it at creation). */
__dvp_export int sim_mlx5_thread_start(struct sim_mlx5_dev *dev);
__dvp_export int sim_mlx5_thread_stop(struct sim_mlx5_dev *dev);

/** Advance the virtual clock (clock=virtual) by @p ns. */
__dvp_export int sim_mlx5_clock_advance(struct sim_mlx5_dev *dev, uint64_t ns);
/** The device's time in ns (virtual or monotonic). */
__dvp_export uint64_t sim_mlx5_clock_ns(struct sim_mlx5_dev *dev);
/**
 * The device's free-running counter, what CQE timestamps and
 * query_rt_values_ex give: ticks of hca_core_clock (the profile's kHz)
 * since its creation, as a ConnectX outside real-time mode.
 */
__dvp_export uint64_t sim_mlx5_clock_ticks(struct sim_mlx5_dev *dev);

/* --- Ports and cables (ports are 0-based here; verbs numbers them from 1) */

__dvp_export int sim_mlx5_link_set(struct sim_mlx5_dev *dev, unsigned int port, bool up);
__dvp_export int sim_mlx5_mac_get(struct sim_mlx5_dev *dev, unsigned int port, uint8_t mac[6]);

/** Cable port @p pa of @p a to port @p pb of @p b (the same device allowed). */
__dvp_export int sim_mlx5_cable(struct sim_mlx5_dev *a, unsigned int pa, struct sim_mlx5_dev *b,
				unsigned int pb);
/** Cable a port to its traffic source (receive side) and sink (send side). */
__dvp_export int sim_mlx5_cable_traffic(struct sim_mlx5_dev *dev, unsigned int port);
/** Unplug a port (frames it sends are counted and dropped). */
__dvp_export int sim_mlx5_uncable(struct sim_mlx5_dev *dev, unsigned int port);

/** What happened to a received frame. */
enum sim_mlx5_rx_result {
	SIM_MLX5_RX_DELIVERED, /**< scattered into a WQE, CQE written */
	SIM_MLX5_RX_NO_FLOW, /**< no flow rule took it */
	SIM_MLX5_RX_FLOW_DROP, /**< a rule with a drop action took it */
	SIM_MLX5_RX_NO_WQE, /**< the RQ had no posted WQE (out_of_buffer) */
	SIM_MLX5_RX_QUEUE_DOWN, /**< the RQ is not ready, or its CQ is in error */
	SIM_MLX5_RX_LINK_DOWN,
	SIM_MLX5_RX_ERROR_CQE, /**< an error CQE was written instead */
	SIM_MLX5_RX_CQ_OVERRUN, /**< the CQ was full: it is now in error */
	SIM_MLX5_RX_OVERSIZE, /**< longer than the port's MTU allows */
	SIM_MLX5_RX_DEVICE_FATAL,
};

/**
 * Receive @p len bytes on @p port now, as if from the wire, bypassing the
 * cable's drop and corruption faults. @return an enum sim_mlx5_rx_result
 * (>= 0), or a negative errno for bad arguments.
 */
__dvp_export int sim_mlx5_inject(struct sim_mlx5_dev *dev, unsigned int port, const void *frame,
				 size_t len);

/**
 * Receive the @p n frames @p frames (lengths @p lens) on @p port in one
 * engine pass, as sim_mlx5_inject() each: completions to one CQ that match
 * go into compressed CQE sessions (doc/sim.md, "CQE compression"), closed
 * when full and at the end of the call. @p results (may be NULL) takes each
 * frame's enum sim_mlx5_rx_result. @return how many were delivered, or a
 * negative errno for bad arguments (then none was received).
 */
__dvp_export int sim_mlx5_inject_burst(struct sim_mlx5_dev *dev, unsigned int port,
				       const void *const *frames, const size_t *lens,
				       unsigned int n, int *results);

/** Keep a copy of the last @p depth frames the port sends (0 turns it off). */
__dvp_export int sim_mlx5_capture(struct sim_mlx5_dev *dev, unsigned int port, unsigned int depth);
/** Pop the oldest captured frame into @p buf. @return its length, 0 if none. */
__dvp_export int sim_mlx5_capture_pop(struct sim_mlx5_dev *dev, unsigned int port, void *buf,
				      size_t size);

/* --- Traffic source and sink -------------------------------------------- */

struct sim_mlx5_source_conf {
	uint16_t sizes[SIM_MLX5_MAX_SIZES]; /**< frame lengths without FCS, cycled */
	unsigned int nsizes;
	uint32_t flows; /**< UDP/IPv4 flows (source addresses 198.18.0.0 + flow) */
	uint64_t rate_pps; /**< 0: as fast as the port takes them */
	uint64_t on_ns, off_ns; /**< burst pattern; off_ns 0: always on */
	uint64_t count; /**< frames to send, then stop; 0: unlimited */
	/** With vlan and nvlan_tcis > 0: frame k carries vlan_tcis[k % nvlan_tcis], not vlan_tci. */
	uint16_t vlan_tcis[SIM_MLX5_MAX_SIZES];
	unsigned int nvlan_tcis;
	bool vlan; /**< frames carry an 802.1Q tag of vlan_tci after the MACs (4 bytes more) */
	uint16_t vlan_tci;
	/**
	 * IPv6/UDP frames (sim_mlx5_frame_build6()) instead of IPv4/UDP: every
	 * size at least SIM_MLX5_FRAME6_MIN.
	 */
	bool ipv6;
};

/** Set a port's source (it restarts at sequence 0). Does not start it. */
__dvp_export int sim_mlx5_source_set(struct sim_mlx5_dev *dev, unsigned int port,
				     const struct sim_mlx5_source_conf *conf);
__dvp_export int sim_mlx5_source_start(struct sim_mlx5_dev *dev, unsigned int port);
__dvp_export int sim_mlx5_source_stop(struct sim_mlx5_dev *dev, unsigned int port);

struct sim_mlx5_source_stats {
	uint64_t sent; /**< frames put on the wire */
	uint64_t bytes;
	uint64_t paused; /**< steps a frame waited on flow control */
	bool done; /**< count reached */
};

struct sim_mlx5_sink_stats {
	uint64_t received; /**< frames in sequence or late, intact */
	uint64_t bytes;
	uint64_t lost; /**< sequence numbers skipped and not (yet) seen */
	uint64_t reordered; /**< arrived after a later one of their flow */
	uint64_t duplicates;
	uint64_t corrupt; /**< bad IP/UDP checksum, payload or length */
	uint64_t foreign; /**< not a source frame */
	uint64_t
		vlan; /**< of those received, frames that came with an 802.1Q tag (checked without it) */
	uint64_t vlan_tci; /**< the TCI of the last of them */
};

__dvp_export int sim_mlx5_source_stats(struct sim_mlx5_dev *dev, unsigned int port,
				       struct sim_mlx5_source_stats *st);
__dvp_export int sim_mlx5_sink_stats(struct sim_mlx5_dev *dev, unsigned int port,
				     struct sim_mlx5_sink_stats *st);
__dvp_export int sim_mlx5_sink_reset(struct sim_mlx5_dev *dev, unsigned int port);

/**
 * Build source frame @p seq of @p flow (what a source sends) into @p buf.
 * @return its length, or a negative errno when @p len is out of range.
 */
__dvp_export int sim_mlx5_frame_build(void *buf, size_t len, uint32_t flow, uint64_t seq,
				      const uint8_t dst_mac[6]);

/** The shortest IPv6 source frame: Ethernet, IPv6, UDP and the payload's header. */
#define SIM_MLX5_FRAME6_MIN 78u

/**
 * Build IPv6 source frame @p seq of @p flow into @p buf: 2001:db8::<flow>
 * -> 2001:db8:1::1, UDP 0xc000 | flow -> 9 with a valid checksum, the
 * payload as sim_mlx5_frame_build()'s (after the 62 bytes of headers).
 * @return its length, or a negative errno when @p len is out of range.
 */
__dvp_export int sim_mlx5_frame_build6(void *buf, size_t len, uint32_t flow, uint64_t seq,
				       const uint8_t dst_mac[6]);

/* --- Faults --------------------------------------------------------------- */

/** Lose @p ppm frames per million on the port's receive wire. */
__dvp_export int sim_mlx5_fault_drop(struct sim_mlx5_dev *dev, unsigned int port, uint32_t ppm);
/** Flip one byte past the Ethernet header of @p ppm received frames per million. */
__dvp_export int sim_mlx5_fault_corrupt(struct sim_mlx5_dev *dev, unsigned int port, uint32_t ppm);
/** Take the port's link down at clock @p at_ns for @p down_ns (PORT_ERR, then PORT_ACTIVE). */
__dvp_export int sim_mlx5_fault_link_flap(struct sim_mlx5_dev *dev, unsigned int port,
					  uint64_t at_ns, uint64_t down_ns);
/**
 * Hold (or release) the sends of port @p port, as a link partner sending
 * 802.3x pause frames for good: its send queues keep every frame, and what
 * is behind them, until released.
 */
__dvp_export int sim_mlx5_fault_tx_hold(struct sim_mlx5_dev *dev, unsigned int port, bool hold);
/** Stop (or resume) reading CQ @p cqn's consumer index: it overruns once full. */
__dvp_export int sim_mlx5_fault_cq_stall(struct sim_mlx5_dev *dev, uint32_t cqn, bool stall);
/**
 * Answer the next @p count WQEs processed on queue @p qn (an SQ's qp_num or
 * a WQ's wq_num; 0 for any) as if their lkey were invalid.
 */
__dvp_export int sim_mlx5_fault_bad_lkey(struct sim_mlx5_dev *dev, uint32_t qn, unsigned int count);
/** Fail the device: IBV_EVENT_DEVICE_FATAL (twice) on every context; all queues stop. */
__dvp_export int sim_mlx5_fault_fatal(struct sim_mlx5_dev *dev);

/* --- Counters -------------------------------------------------------------- */

/** Invalid uses of the device by its driver: each is logged and counted. */
enum sim_mlx5_invalid {
	SIM_MLX5_INV_DB_ORDER, /**< send doorbell rung before the record covered the WQE */
	SIM_MLX5_INV_ARM_ORDER, /**< arm doorbell without the same arm record written first */
	SIM_MLX5_INV_WQE_PAST_PI, /**< a WQE runs past the producer index */
	SIM_MLX5_INV_DS, /**< a WQE's ds count does not match its segments */
	SIM_MLX5_INV_WQE_CTRL, /**< control segment with the wrong index, QPN or opcode */
	SIM_MLX5_INV_RING_OVERRUN, /**< producer index more than a ring ahead of the device */
	SIM_MLX5_INV_CI_AHEAD, /**< CQ consumer index past the CQEs written */
	SIM_MLX5_INV_DESTROYED_DB, /**< arm or doorbell written for a destroyed CQ or SQ */
	SIM_MLX5_INV_DESTROY_UNACKED, /**< destroy with completion or async events not acked */
	SIM_MLX5_INV_BAD_OBJECT, /**< an object the device did not create, or used after destroy */
	SIM_MLX5_INV_EMPW, /**< an eMPW WQE against its rules (inline headers, no packet, opmod) */
	SIM_MLX5_INV_INLINE, /**< a send WQE without the inline headers the device requires */
	SIM_MLX5_INV_OFFLOAD, /**< a VLAN insertion the device lacks, an LSO WQE against its rules */
	SIM_MLX5_INV_MAX
};

/** What the device saw of its driver. */
struct sim_mlx5_dev_stats {
	uint64_t invalid[SIM_MLX5_INV_MAX];
	uint64_t
		cqes; /**< completions written, errors included (a compressed session counts each) */
	uint64_t error_cqes; /**< flush CQEs included */
	uint64_t flush_cqes; /**< error CQEs of WQEs flushed after an error (WR_FLUSH_ERR) */
	uint64_t comp_events; /**< completion events raised */
	uint64_t arms; /**< arm doorbells honoured */
	uint64_t arms_stale; /**< arm doorbells ignored for a stale sn */
	uint64_t cq_overruns;
	uint64_t async_events;
	uint64_t cqe_sessions; /**< compressed CQE sessions written (of two completions or more) */
	uint64_t cqe_minis; /**< the completions those sessions held (mini-CQEs) */
};

struct sim_mlx5_port_stats {
	uint64_t rx_frames, rx_bytes; /**< delivered to a receive queue */
	uint64_t rx_out_of_buffer; /**< no WQE posted */
	uint64_t rx_no_flow; /**< no rule took it */
	uint64_t rx_dropped; /**< link down, queue down, drop rule, oversize, overrun */
	uint64_t rx_wire_drops; /**< lost by the drop fault or a full cable */
	uint64_t rx_wire_corrupt; /**< damaged by the corrupt fault */
	uint64_t tx_frames, tx_bytes; /**< sent by its send queues */
	uint64_t tx_dropped; /**< sent while the link was down or unplugged */
	uint64_t tx_completions;
	uint64_t
		tx_empw_wqes; /**< enhanced multi-packet send WQEs completed (their packets are in tx_frames) */
	uint64_t tx_lso_wqes; /**< LSO (TSO) WQEs done (their frames are in tx_frames) */
	/*
	 * What the port's queues cost on the host bus (doc/sim.md, "Bus
	 * counters"): bytes the device reads from and writes to host memory.
	 */
	uint64_t
		bus_cqe_bytes; /**< CQE slots written, 64 bytes each: a compressed session of N costs 1 + ceil(N / 8) */
	uint64_t
		bus_wqe_bytes; /**< WQEs fetched: send WQEs in 64-byte blocks, receive WQEs by stride */
	uint64_t bus_data_rd_bytes; /**< packet data read for sends (inline data is in the WQE) */
	uint64_t bus_data_wr_bytes; /**< received packet data written */
	uint64_t bus_doorbells; /**< send doorbells written to the UAR (BlueFlame registers) */
	uint64_t
		bus_dbrec_updates; /**< new producer counters read from SQ and RQ doorbell records */
	/* Striding RQs (doc/sim.md, "Striding RQ"). */
	uint64_t rx_mprq_fillers; /**< filler CQEs: a frame did not fit the strides left */
	uint64_t rx_mprq_oversize; /**< frames longer than a whole WQE: dropped (also rx_dropped) */
	/**
	 * Frames longer than the port's MTU + 18, dropped on arrival as a
	 * ConnectX's MAC drops them (also rx_dropped); a netdev counts them in
	 * rx_length_errors.
	 */
	uint64_t rx_oversize;
};

__dvp_export int sim_mlx5_dev_stats(struct sim_mlx5_dev *dev, struct sim_mlx5_dev_stats *st);
__dvp_export int sim_mlx5_port_stats(struct sim_mlx5_dev *dev, unsigned int port,
				     struct sim_mlx5_port_stats *st);
/** Short name of an invalid-use kind ("db_order", ...). */
__dvp_export const char *sim_mlx5_invalid_name(enum sim_mlx5_invalid kind);
/** Sum of all invalid-use counters. */
__dvp_export uint64_t sim_mlx5_invalid_total(struct sim_mlx5_dev *dev);

/* --- RSS ---------------------------------------------------------------- */

/** The Toeplitz hash of @p len bytes of @p input under @p key (at least len + 4 bytes). */
__dvp_export uint32_t sim_mlx5_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *input,
					size_t len);

#ifdef __cplusplus
}
#endif

#endif /* DVP_SIM_MLX5_H */
