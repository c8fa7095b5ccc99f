/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The bursts: dvp mbufs in and out of rte_mbufs without copying packet
 * data (net_dvp.h says how), and the dvp pools behind the queues.
 */

#include <assert.h>
#include <stddef.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>

#include <dvp_counter.h>
#include <dvp_errno.h>
#include <dvp_mempool.h>

#include "net_dvp.h"

/*
 * The crossing rests on these: a dvp mbuf of this build is an rte_mbuf
 * byte for byte, and the flags and packet types dvpmd's drivers set have
 * DPDK's values.
 */
#define NET_DVP_SAME_FIELD(dvp, rte)                                                      \
	static_assert(offsetof(struct dvp_mbuf, dvp) == offsetof(struct rte_mbuf, rte) && \
			      sizeof(((struct dvp_mbuf *)0)->dvp) ==                      \
				      sizeof(((struct rte_mbuf *)0)->rte),                \
		      "dvp_mbuf." #dvp " is not rte_mbuf." #rte)
NET_DVP_SAME_FIELD(buf_addr, buf_addr);
NET_DVP_SAME_FIELD(buf_iova, buf_iova);
NET_DVP_SAME_FIELD(data_off, data_off);
NET_DVP_SAME_FIELD(refcnt, refcnt);
NET_DVP_SAME_FIELD(nb_segs, nb_segs);
NET_DVP_SAME_FIELD(port, port);
NET_DVP_SAME_FIELD(ol_flags, ol_flags);
NET_DVP_SAME_FIELD(packet_type, packet_type);
NET_DVP_SAME_FIELD(pkt_len, pkt_len);
NET_DVP_SAME_FIELD(data_len, data_len);
NET_DVP_SAME_FIELD(vlan_tci, vlan_tci);
NET_DVP_SAME_FIELD(hash, hash);
NET_DVP_SAME_FIELD(hash.rss, hash.rss);
NET_DVP_SAME_FIELD(hash.fdir.hi, hash.fdir.hi);
NET_DVP_SAME_FIELD(vlan_tci_outer, vlan_tci_outer);
NET_DVP_SAME_FIELD(buf_len, buf_len);
NET_DVP_SAME_FIELD(pool, pool);
NET_DVP_SAME_FIELD(next, next);
NET_DVP_SAME_FIELD(tx_offload, tx_offload);
NET_DVP_SAME_FIELD(host_shinfo, shinfo);
NET_DVP_SAME_FIELD(priv_size, priv_size);
NET_DVP_SAME_FIELD(host_timesync, timesync);
NET_DVP_SAME_FIELD(dynfield1, dynfield1);
static_assert(sizeof(struct dvp_mbuf) == sizeof(struct rte_mbuf), "dvp_mbuf is not an rte_mbuf");
static_assert(DVP_PKTMBUF_HEADROOM == RTE_PKTMBUF_HEADROOM, "headrooms differ");
static_assert(sizeof(struct dvp_pktmbuf_pool_private) == sizeof(struct rte_pktmbuf_pool_private) &&
		      offsetof(struct dvp_pktmbuf_pool_private, mbuf_priv_size) ==
			      offsetof(struct rte_pktmbuf_pool_private, mbuf_priv_size),
	      "mbuf pool private areas differ");
#define NET_DVP_SAME_VALUE(name) static_assert(DVP_##name == RTE_##name, #name " differs")
NET_DVP_SAME_VALUE(MBUF_F_RX_VLAN);
NET_DVP_SAME_VALUE(MBUF_F_RX_RSS_HASH);
NET_DVP_SAME_VALUE(MBUF_F_RX_FDIR);
NET_DVP_SAME_VALUE(MBUF_F_RX_FDIR_ID);
NET_DVP_SAME_VALUE(MBUF_F_RX_VLAN_STRIPPED);
NET_DVP_SAME_VALUE(MBUF_F_RX_IP_CKSUM_MASK);
NET_DVP_SAME_VALUE(MBUF_F_RX_IP_CKSUM_BAD);
NET_DVP_SAME_VALUE(MBUF_F_RX_IP_CKSUM_GOOD);
NET_DVP_SAME_VALUE(MBUF_F_RX_IP_CKSUM_NONE);
NET_DVP_SAME_VALUE(MBUF_F_RX_L4_CKSUM_MASK);
NET_DVP_SAME_VALUE(MBUF_F_RX_L4_CKSUM_BAD);
NET_DVP_SAME_VALUE(MBUF_F_RX_L4_CKSUM_GOOD);
NET_DVP_SAME_VALUE(MBUF_F_RX_L4_CKSUM_NONE);
NET_DVP_SAME_VALUE(MBUF_F_TX_TCP_SEG);
NET_DVP_SAME_VALUE(MBUF_F_TX_TCP_CKSUM);
NET_DVP_SAME_VALUE(MBUF_F_TX_UDP_CKSUM);
NET_DVP_SAME_VALUE(MBUF_F_TX_L4_MASK);
NET_DVP_SAME_VALUE(MBUF_F_TX_IP_CKSUM);
NET_DVP_SAME_VALUE(MBUF_F_TX_IPV4);
NET_DVP_SAME_VALUE(MBUF_F_TX_IPV6);
NET_DVP_SAME_VALUE(MBUF_F_TX_VLAN);
NET_DVP_SAME_VALUE(MBUF_F_INDIRECT);
NET_DVP_SAME_VALUE(MBUF_F_EXTERNAL);
NET_DVP_SAME_VALUE(PTYPE_L2_ETHER);
NET_DVP_SAME_VALUE(PTYPE_L2_ETHER_VLAN);
NET_DVP_SAME_VALUE(PTYPE_L2_ETHER_QINQ);
NET_DVP_SAME_VALUE(PTYPE_L3_IPV4);
NET_DVP_SAME_VALUE(PTYPE_L3_IPV4_EXT);
NET_DVP_SAME_VALUE(PTYPE_L3_IPV6);
NET_DVP_SAME_VALUE(PTYPE_L3_IPV4_EXT_UNKNOWN);
NET_DVP_SAME_VALUE(PTYPE_L3_IPV6_EXT_UNKNOWN);
NET_DVP_SAME_VALUE(PTYPE_L4_TCP);
NET_DVP_SAME_VALUE(PTYPE_L4_UDP);
NET_DVP_SAME_VALUE(PTYPE_L4_FRAG);
NET_DVP_SAME_VALUE(PTYPE_L4_SCTP);
NET_DVP_SAME_VALUE(PTYPE_L4_ICMP);
NET_DVP_SAME_VALUE(PTYPE_L4_NONFRAG);

/*
 * The dvp queue fills its descriptors from the application's pool and
 * hands back its mbufs as they are (net_dvp.h): only the port id is the
 * ethdev's, when the two numberings differ. The dvp queue's burst function
 * is called straight, not through dvp_rx_burst(): DPDK checks the port
 * and queue before it calls net_dvp, and swaps net_dvp's bursts out before
 * it stops the port.
 */
uint16_t net_dvp_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct net_dvp_rxq *rxq = q;
	uint16_t i, nb;

	nb = rxq->burst(rxq->dvp_q, (struct dvp_mbuf **)pkts, nb_pkts);
	for (i = 0; i < nb; i++)
		pkts[i]->port = rxq->eth_port;
	return nb;
}

static uint16_t net_dvp_tx_burst_checked(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts);

void net_dvp_bursts_set(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = eth->data->dev_private;
	const struct dvp_port_fp_ops *fp = &dvp_port_fp_ops[p->dvp_port];
	uint16_t i;

	for (i = 0; i < eth->data->nb_rx_queues; i++) {
		struct net_dvp_rxq *rxq = eth->data->rx_queues[i];

		if (rxq == NULL)
			continue;
		rxq->burst = fp->rx_pkt_burst;
		rxq->dvp_q = fp->rxq_data[i];
	}
	for (i = 0; i < eth->data->nb_tx_queues; i++) {
		struct net_dvp_txq *txq = eth->data->tx_queues[i];

		if (txq == NULL)
			continue;
		txq->burst = fp->tx_pkt_burst;
		txq->dvp_q = fp->txq_data[i];
	}
	eth->rx_pkt_burst = net_dvp_rx_burst;
	eth->tx_pkt_burst = p->tx_stops ? net_dvp_tx_burst : net_dvp_tx_burst_checked;
	if (p->eth_port != p->dvp_port)
		return;
	/*
	 * Nothing to rewrite: DPDK calls the dvp burst itself, with the dvp
	 * queues in its rx_queues[] (read at each burst, after this returns)
	 * and a dvp mbuf being an rte_mbuf. net_dvp's queues wait in rxqs[]
	 * (net_dvp_rxq_of()) until the port stops.
	 */
	for (i = 0; i < eth->data->nb_rx_queues; i++) {
		p->rxqs[i] = eth->data->rx_queues[i];
		if (p->rxqs[i] != NULL)
			eth->data->rx_queues[i] = fp->rxq_data[i];
	}
	p->rx_direct = true;
	eth->rx_pkt_burst = (eth_rx_burst_t)(void (*)(void))fp->rx_pkt_burst;
}

void net_dvp_bursts_unset(struct rte_eth_dev *eth)
{
	struct net_dvp_port *p = eth->data->dev_private;
	uint16_t i;

	if (!p->rx_direct)
		return;
	for (i = 0; i < eth->data->nb_rx_queues; i++)
		eth->data->rx_queues[i] = p->rxqs[i];
	p->rx_direct = false;
}

/*
 * The pools' generation: it moves on whenever a pool goes, so each tx
 * queue forgets the pools it found sendable (a new pool may come at a
 * freed pool's address, registered or not). Written on the control path
 * (DPDK's pool events), read by any lcore.
 */
static uint32_t pools_gen;

static __rte_noinline void tx_pools_forget(struct net_dvp_txq *txq)
{
	txq->last_pool = NULL;
	memset(txq->pools_ok, 0, sizeof(txq->pools_ok));
	txq->pools_gen = __atomic_load_n(&pools_gen, __ATOMIC_ACQUIRE);
}

/*
 * Whether the dvp queue can take @p m as it is: a direct mbuf (dvpmd has no
 * indirect or external buffers) of a pool the port can send from, in every
 * segment, and a chain only where the queue sends chains.
 */
static __rte_always_inline bool net_dvp_tx_direct(struct net_dvp_txq *txq, const struct rte_mbuf *m)
{
	if (likely(m->nb_segs == 1))
		return (m->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL)) == 0 &&
		       (m->pool == txq->last_pool || net_dvp_tx_pool_ok(txq, m->pool));
	if (!txq->multi_seg)
		return false;
	for (; m != NULL; m = m->next)
		if ((m->ol_flags & (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL)) != 0 ||
		    (m->pool != txq->last_pool && !net_dvp_tx_pool_ok(txq, m->pool)))
			return false;
	return true;
}

/*
 * An rte_mbuf the dvp queue cannot take as it is (an indirect or external
 * buffer, or a pool the device has not registered), no longer than
 * max_len: its data into an mbuf of the queue's own pool. @return the
 * copy, or NULL when that pool is dry.
 */
static __rte_noinline struct rte_mbuf *net_dvp_tx_copy(struct net_dvp_txq *txq,
						       const struct rte_mbuf *m)
{
	struct rte_mbuf *c = rte_pktmbuf_alloc((struct rte_mempool *)txq->pool);
	const struct rte_mbuf *seg;
	char *dst;

	if (c == NULL)
		return NULL;
	dst = rte_pktmbuf_mtod(c, char *);
	for (seg = m; seg != NULL; seg = seg->next) {
		rte_memcpy(dst, rte_pktmbuf_mtod(seg, const char *), seg->data_len);
		dst += seg->data_len;
	}
	c->data_len = (uint16_t)m->pkt_len;
	c->pkt_len = m->pkt_len;
	c->ol_flags = m->ol_flags & ~(RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL);
	c->tx_offload = m->tx_offload;
	c->vlan_tci = m->vlan_tci;
	c->vlan_tci_outer = m->vlan_tci_outer;
	c->packet_type = m->packet_type;
	return c;
}

/*
 * Send @p m, which the dvp queue cannot take as it is, as a copy on its
 * own; one longer than any buffer of ours is dropped and counted.
 * @return false when @p m stays the caller's: the copy pool is dry or the
 *   device full.
 */
static bool net_dvp_tx_one_copy(struct net_dvp_txq *txq, struct rte_mbuf *m)
{
	struct rte_mbuf *copy;

	if (unlikely(m->pkt_len > txq->max_len)) {
		dvp_counter_add(&txq->ctr.dropped, 1);
		rte_pktmbuf_free(m);
		return true;
	}
	copy = net_dvp_tx_copy(txq, m);
	if (copy == NULL)
		return false;
	if (txq->burst(txq->dvp_q, (struct dvp_mbuf **)&copy, 1) == 0) {
		rte_pktmbuf_free(copy);
		return false;
	}
	dvp_counter_add(&txq->ctr.copied, 1);
	rte_pktmbuf_free(m);
	return true;
}

static __rte_always_inline void tx_pools_check(struct net_dvp_txq *txq)
{
	if (unlikely(__atomic_load_n(&pools_gen, __ATOMIC_ACQUIRE) != txq->pools_gen))
		tx_pools_forget(txq);
}

/*
 * The dvp queue stopped at pkts[@p done]: the device is full, or the mbuf
 * is one it cannot send as it is. Such mbufs go as copies, and the queue
 * takes the rest of the array again, until it stops at a direct mbuf
 * (full) or the array is done.
 */
static __rte_noinline uint16_t net_dvp_tx_stopped(struct net_dvp_txq *txq, struct rte_mbuf **pkts,
						  uint16_t nb_pkts, uint16_t done)
{
	tx_pools_check(txq);
	while (done < nb_pkts && !net_dvp_tx_direct(txq, pkts[done])) {
		if (!net_dvp_tx_one_copy(txq, pkts[done]))
			break;
		done++;
		if (done < nb_pkts)
			done += txq->burst(txq->dvp_q, (struct dvp_mbuf **)&pkts[done],
					   nb_pkts - done);
	}
	return done;
}

/*
 * A dvp queue that stops before an mbuf it cannot send as it is (mlx5:
 * drivers/net/mlx5/mlx5_tx.h) takes the whole array; only a short count
 * needs a look, at the mbuf it stopped at.
 *
 * The array and the count go through the queue rather than through
 * callee-saved registers: kept in registers across the call, they cost
 * five pushes, five pops and their moves a burst (21 instructions in all,
 * two thirds of an instruction a packet at bursts of 32); this way two
 * stores and a load, and one register saved.
 */
uint16_t net_dvp_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct net_dvp_txq *txq = q;
	uint16_t sent;

	txq->burst_pkts = pkts;
	txq->burst_nb = nb_pkts;
	sent = txq->burst(txq->dvp_q, (struct dvp_mbuf **)pkts, nb_pkts);
	if (likely(sent == txq->burst_nb))
		return sent;
	return net_dvp_tx_stopped(txq, txq->burst_pkts, txq->burst_nb, sent);
}

/*
 * For the other dvp queues, which would take any mbuf: runs of direct
 * mbufs go to the dvp queue as they are, straight from the caller's
 * array. A packet in between that is not direct is sent as a copy, on
 * its own.
 */
static __rte_noinline uint16_t net_dvp_tx_burst_mixed(struct net_dvp_txq *txq,
						      struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	uint16_t i, done = 0, sent;

	while (done < nb_pkts) {
		for (i = done; i < nb_pkts && likely(net_dvp_tx_direct(txq, pkts[i])); i++)
			;
		if (i > done) {
			sent = txq->burst(txq->dvp_q, (struct dvp_mbuf **)&pkts[done], i - done);
			done += sent;
			if (done < i)
				return done; /* the device is full */
		}
		if (done == nb_pkts || !net_dvp_tx_one_copy(txq, pkts[done]))
			break;
		done++;
	}
	return done;
}

/*
 * The byte of ol_flags that holds the indirect and external flags, and
 * those flags within it: one byte test in the loop below, where a 64-bit
 * mask would take a register move and an AND.
 */
#define NET_DVP_NOT_DIRECT (RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL)
static_assert((NET_DVP_NOT_DIRECT >> 56) << 56 == NET_DVP_NOT_DIRECT,
	      "the indirect and external flags are not in ol_flags' top byte");
static_assert(RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN, "ol_flags' top byte is its last");

/* A lone segment of @p pool, with its own buffer: what the dvp queue takes as it is. */
static __rte_always_inline bool tx_plain(const struct rte_mbuf *m, const struct rte_mempool *pool)
{
	const uint8_t *flags_hi = (const uint8_t *)&m->ol_flags + 7;

	return m->pool == pool && m->nb_segs == 1 && (*flags_hi & (NET_DVP_NOT_DIRECT >> 56)) == 0;
}

/*
 * The burst of the other dvp queues: every mbuf single, direct and of the
 * pool the last one was from, looked at before the dvp queue takes the
 * whole array. A pointer load, three compares with memory and their
 * branches a packet, four packets a loop turn. Anything else goes the way
 * above.
 */
static uint16_t net_dvp_tx_burst_checked(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct net_dvp_txq *txq = q;
	struct rte_mbuf *const *p = pkts, *const *end = pkts + nb_pkts;
	const struct rte_mempool *last;

	tx_pools_check(txq);
	last = txq->last_pool;
	for (; end - p >= 4; p += 4)
		if (unlikely(!tx_plain(p[0], last) || !tx_plain(p[1], last) ||
			     !tx_plain(p[2], last) || !tx_plain(p[3], last)))
			return net_dvp_tx_burst_mixed(txq, pkts, nb_pkts);
	for (; p != end; p++)
		if (unlikely(!tx_plain(*p, last)))
			return net_dvp_tx_burst_mixed(txq, pkts, nb_pkts);
	return txq->burst(txq->dvp_q, (struct dvp_mbuf **)pkts, nb_pkts);
}

bool net_dvp_tx_pool_ok(struct net_dvp_txq *txq, const struct rte_mempool *mp)
{
	unsigned int i;

	for (i = 0; i < NET_DVP_TX_POOLS_OK; i++)
		if (txq->pools_ok[i] == mp)
			goto ok;
	/* Once per pool and queue, then the pool is remembered: the port answers without a lock. */
	if (txq->needs_mr && dvp_port_mempool_sendable(txq->dvp_port, (const void *)mp) != 1)
		return false;
	txq->pools_ok[txq->pools_ok_next++ % NET_DVP_TX_POOLS_OK] = mp;
ok:
	txq->last_pool = mp;
	return true;
}

/*
 * A pool goes: the tx queues forget the pools they found sendable. The
 * devices register and deregister pools themselves, on the same events
 * (DVP_PORT_DEV_CAPA_MEM_REG).
 */
static void pool_event(enum rte_mempool_event event, struct rte_mempool *mp, void *arg)
{
	(void)mp;
	(void)arg;
	if (event == RTE_MEMPOOL_EVENT_DESTROY)
		__atomic_fetch_add(&pools_gen, 1, __ATOMIC_RELEASE);
}

static bool pool_events_on;

void net_dvp_pool_events_on(void)
{
	if (!pool_events_on && rte_mempool_event_callback_register(pool_event, NULL) == 0)
		pool_events_on = true;
}

void net_dvp_pool_events_off(void)
{
	if (pool_events_on)
		rte_mempool_event_callback_unregister(pool_event, NULL);
	pool_events_on = false;
	/* The devices close with the runtime: what the queues remembered goes too. */
	__atomic_fetch_add(&pools_gen, 1, __ATOMIC_RELEASE);
}

struct dvp_mempool *net_dvp_pool_create(struct net_dvp_port *p, const char *what, unsigned int n,
					uint16_t data_room, int socket)
{
	struct net_dvp_pool_ref *ref = rte_zmalloc("net_dvp_pool_ref", sizeof(*ref), 0);
	struct dvp_mempool *mp;
	char name[RTE_MEMPOOL_NAMESIZE];

	if (ref == NULL)
		return NULL;
	snprintf(name, sizeof(name), "ndvp%u_%s%u", p->eth_port, what, p->pools_made++);
	mp = dvp_pktmbuf_pool_create(name, n, RTE_MIN(256u, n / 4), 0, data_room, socket);
	if (mp == NULL) {
		NET_DVP_LOG(ERR, "port %u: cannot create a pool of %u buffers of %u bytes: %s",
			    p->eth_port, n, data_room, dvp_strerror(dvp_errno));
		rte_free(ref);
		return NULL;
	}
	ref->pool = mp;
	ref->next = p->pools;
	p->pools = ref;
	return mp;
}

/*
 * Free every pool in @p list whose buffers are all back; keep the others
 * there. @return how many buffers are still out.
 */
static unsigned int pools_free_idle(struct net_dvp_pool_ref **list)
{
	struct net_dvp_pool_ref **pp = list, *ref;
	unsigned int out = 0, in_use;

	while ((ref = *pp) != NULL) {
		in_use = dvp_mempool_in_use_count(ref->pool);
		if (in_use != 0) {
			out += in_use;
			pp = &ref->next;
			continue;
		}
		*pp = ref->next;
		dvp_mempool_free(ref->pool);
		rte_free(ref);
	}
	return out;
}

void net_dvp_pools_free(struct net_dvp_port *p)
{
	struct net_dvp_pool_ref *ref;

	/*
	 * A pool whose buffers are still out (in another port's tx queue, or
	 * with the application) waits on the device's list: its buffers come
	 * back when that port is closed or the application frees them.
	 */
	pools_free_idle(&p->pools);
	while ((ref = p->pools) != NULL) {
		p->pools = ref->next;
		ref->next = p->dev->pools_left;
		p->dev->pools_left = ref;
	}
	pools_free_idle(&p->dev->pools_left);
}

void net_dvp_dev_pools_free(struct net_dvp_dev *dev)
{
	struct net_dvp_pool_ref *ref;
	unsigned int out = pools_free_idle(&dev->pools_left);

	if (out == 0)
		return;
	/* Every port is closed: what is still out, the application holds. Keep it mapped. */
	NET_DVP_LOG(
		WARNING,
		"%s: %u buffers are still held by the application after every port closed; their pools stay",
		dev->name, out);
	while ((ref = dev->pools_left) != NULL) {
		dev->pools_left = ref->next;
		rte_free(ref);
	}
}
