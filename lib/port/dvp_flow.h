/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Flow rules (as DPDK's rte_flow): a pattern of protocol items matched on
 * received frames and the actions taken on what matches (steer to a rx
 * queue, drop, mark, count). Control path only.
 *
 * A pattern is an array of items ended by DVP_FLOW_ITEM_END, outermost
 * first: ETH, then VLAN, then IPV4 or IPV6, then UDP or TCP, each at most
 * once; an inner item may come without the outer ones (IPV4 alone matches
 * any IPv4 frame). An item's spec gives the values, its mask the bits that
 * count (NULL: every field of the item); a NULL spec matches any frame of
 * that protocol. Multi-byte fields are in network order, as on the wire.
 * A NULL mask leaves out ETH's has_vlan and IPV4's fragment_offset, as
 * DPDK's default masks do.
 *
 * Actions, ended by DVP_FLOW_ACTION_END: exactly one fate (QUEUE, RSS or
 * DROP), and at most one of MARK or FLAG (not with DROP), at most one COUNT.
 *
 * lib/port keeps a port's rules: created on a stopped port they take effect
 * at start, and they survive stop and start (the driver's objects are made
 * again at each start; the counts of COUNT carry on). A rule goes by
 * dvp_flow_destroy(), dvp_flow_flush(), or the port's close or reset. In
 * isolated mode (dvp_flow_isolate()) the rules are all a port receives.
 *
 * Errors: a negative errno with dvp_errno set and one log line naming the
 * item or action at fault and what is valid; ENOTSUP from a driver without
 * flow rules.
 */

#ifndef DVP_FLOW_H
#define DVP_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_port.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Attributes of a rule: ingress only. */
struct dvp_flow_attr {
	/** Lower first; the driver says how many it has (0 is always valid). */
	uint32_t priority;
	uint32_t ingress : 1; /**< must be 1 */
	uint32_t egress : 1; /**< not supported */
	uint32_t reserved : 30;
};

enum dvp_flow_item_type {
	DVP_FLOW_ITEM_END = 0,
	DVP_FLOW_ITEM_VOID, /**< ignored */
	DVP_FLOW_ITEM_ETH, /**< struct dvp_flow_item_eth */
	DVP_FLOW_ITEM_VLAN, /**< struct dvp_flow_item_vlan */
	DVP_FLOW_ITEM_IPV4, /**< struct dvp_flow_item_ipv4 */
	DVP_FLOW_ITEM_IPV6, /**< struct dvp_flow_item_ipv6 */
	DVP_FLOW_ITEM_UDP, /**< struct dvp_flow_item_l4 */
	DVP_FLOW_ITEM_TCP, /**< struct dvp_flow_item_l4 */
	DVP_FLOW_ITEM_MAX,
};

struct dvp_flow_item_eth {
	struct dvp_ether_addr dst;
	struct dvp_ether_addr src;
	uint16_t type; /**< EtherType (the one after a VLAN tag), network order */
	/**
	 * Bit 0: the frame has a VLAN tag (1) or none (0), as DPDK's
	 * has_vlan; under a mask of 1 only (a NULL mask leaves it out).
	 */
	uint8_t has_vlan;
};

struct dvp_flow_item_vlan {
	uint16_t tci; /**< network order */
	uint16_t inner_type; /**< the EtherType after the tag, network order */
};

struct dvp_flow_item_ipv4 {
	uint32_t src; /**< network order */
	uint32_t dst;
	/**
	 * The header's flags and fragment offset, network order; a NULL mask
	 * leaves it out. Drivers take what their device parses (mlx5: spec 0
	 * under mask 0x3fff, "not a fragment").
	 */
	uint16_t fragment_offset;
};

struct dvp_flow_item_ipv6 {
	uint8_t src[16];
	uint8_t dst[16];
};

struct dvp_flow_item_l4 {
	uint16_t src_port; /**< network order */
	uint16_t dst_port;
};

struct dvp_flow_item {
	enum dvp_flow_item_type type;
	const void *spec; /**< NULL: any frame of the protocol */
	const void *mask; /**< NULL: every field of the item */
};

enum dvp_flow_action_type {
	DVP_FLOW_ACTION_END = 0,
	DVP_FLOW_ACTION_VOID, /**< ignored */
	DVP_FLOW_ACTION_QUEUE, /**< struct dvp_flow_action_queue: to that rx queue */
	DVP_FLOW_ACTION_DROP, /**< no conf */
	/**
	 * struct dvp_flow_action_mark: the id is delivered with the frame,
	 * DVP_MBUF_F_RX_FDIR | DVP_MBUF_F_RX_FDIR_ID and hash.fdir.hi
	 */
	DVP_FLOW_ACTION_MARK,
	DVP_FLOW_ACTION_FLAG, /**< no conf: DVP_MBUF_F_RX_FDIR without an id */
	DVP_FLOW_ACTION_COUNT, /**< no conf: hits and bytes, read by dvp_flow_query() */
	/** struct dvp_flow_action_rss: spread over rx queues by a hash */
	DVP_FLOW_ACTION_RSS,
	DVP_FLOW_ACTION_MAX,
};

struct dvp_flow_action_queue {
	uint16_t index;
};

/**
 * RSS's conf: what a matched frame's hash covers and the queues it picks
 * from. A driver may take only some sets of queues (mlx5: all of the
 * port's, in order) and refuses the others with ENOTSUP.
 */
struct dvp_flow_action_rss {
	uint64_t types; /**< DVP_RSS_*; 0: the port's (dvp_rss_conf's rss_hf) */
	const uint8_t *key; /**< NULL (with key_len 0): the port's key */
	uint32_t key_len;
	uint16_t queue_num; /**< 1 or more */
	const uint16_t *queue; /**< rx queue indexes, each once */
};

struct dvp_flow_action_mark {
	uint32_t id; /**< up to the driver's limit (mlx5: 0xfffffd) */
};

struct dvp_flow_action {
	enum dvp_flow_action_type type;
	const void *conf;
};

/** What dvp_flow_query() reads of a rule with COUNT. */
struct dvp_flow_query_count {
	uint64_t hits; /**< frames matched */
	uint64_t bytes; /**< their bytes */
	bool reset; /**< in: start again from 0 after this read */
};

/** A rule (opaque). */
struct dvp_flow;

/**
 * Whether the rule would be accepted by dvp_flow_create() on @p port_id
 * now. @return 0 or a negative errno (after a log line).
 */
int dvp_flow_validate(uint16_t port_id, const struct dvp_flow_attr *attr,
		      const struct dvp_flow_item pattern[], const struct dvp_flow_action actions[]);

/**
 * Add a rule to @p port_id (in force at once on a started port, from the
 * next start on a stopped one). @return the rule, or NULL with dvp_errno
 * set after a log line.
 */
struct dvp_flow *dvp_flow_create(uint16_t port_id, const struct dvp_flow_attr *attr,
				 const struct dvp_flow_item pattern[],
				 const struct dvp_flow_action actions[]);

/** Remove @p flow, a rule of @p port_id. @return 0 or -EINVAL (not its rule). */
int dvp_flow_destroy(uint16_t port_id, struct dvp_flow *flow);

/** Remove every rule of @p port_id. @return 0 or a negative errno. */
int dvp_flow_flush(uint16_t port_id);

/**
 * The counts of @p flow, a rule with COUNT: since its creation or the last
 * read with @p out->reset. @return 0, -EINVAL, -ENOTSUP (no COUNT action).
 */
int dvp_flow_query(uint16_t port_id, struct dvp_flow *flow, struct dvp_flow_query_count *out);

/**
 * Isolated mode (as rte_flow_isolate()). With @p on, @p port_id receives
 * only what its flow rules take: the port's own steering (its MAC address
 * and multicast, or every frame when promiscuous, spread by its RSS) is
 * not installed, so a frame no rule takes is not received (on hardware the
 * kernel's netdev gets it; the sim counts it in rx_no_flow). Set on a
 * stopped port (EBUSY while started); it holds from the next start, across
 * stop and start, until changed or the port is reset. A driver without
 * flow rules refuses on with ENOTSUP; off is accepted by every driver.
 * @return 0 or a negative errno (after a log line).
 */
int dvp_flow_isolate(uint16_t port_id, bool on);

/**
 * The number of rules of @p port_id. @return it, or -EINVAL.
 */
int dvp_flow_count(uint16_t port_id);

#ifdef __cplusplus
}
#endif

#endif /* DVP_FLOW_H */
