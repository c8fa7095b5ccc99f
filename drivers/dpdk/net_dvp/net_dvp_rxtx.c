/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The bursts: dvp mbufs in and out of rte_mbufs without copying packet
 * data (net_dvp.h says how), and the dvp pools behind the queues.
 */

#include <string.h>

#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_memcpy.h>
#include <rte_prefetch.h>

#include <dvp_eal_host.h>
#include <dvp_errno.h>
#include <dvp_mempool.h>

#include "net_dvp.h"

/*
 * The free callback of a dvp buffer an rte_mbuf carries: the last owner of
 * the rte_mbuf let go of it, on whatever thread that is.
 */
static void net_dvp_buf_free(void *addr, void *opaque)
{
	struct dvp_mbuf *dm = opaque;

	(void)addr;
	/*
	 * DPDK dropped the count to 0 before calling: back to 1, so that rx
	 * can hand the buffer out again without writing this line. Plain: the
	 * last owner is the only one that knows the buffer now.
	 */
	net_dvp_buf_of(dm)->shinfo.refcnt = 1;
	dvp_pktmbuf_free_seg(dm);
}

/*
 * DPDK's threads are lcores by DPDK's ids, and dvpmd's runtime takes the
 * same ids: tell it which one this thread is, so its pools use this
 * lcore's cache. Two thread-local loads when nothing changed.
 */
static __rte_always_inline void net_dvp_lcore_sync(void)
{
	unsigned int id = rte_lcore_id();

	if (unlikely(dvp_lcore_id() != id))
		dvp_eal_host_thread_lcore(id);
}

/*
 * Make @p m (fresh from its pool) carry the received dvp segment @p dm.
 * Only dm's first cache line is read: the shared info on its second line
 * needs no write (a free dvp buffer's count is 1, see net_dvp_buf_free()),
 * and with IOVA as VA the buffer's IOVA is its address.
 */
static __rte_always_inline void net_dvp_attach(struct rte_mbuf *m, struct dvp_mbuf *dm,
					       uint16_t port, bool iova_va)
{
	struct net_dvp_buf *b = net_dvp_buf_of(dm);

	m->buf_addr = dm->buf_addr;
	m->buf_iova = iova_va ? (rte_iova_t)(uintptr_t)dm->buf_addr : b->buf_iova;
	m->buf_len = dm->buf_len;
	m->shinfo = &b->shinfo;
	m->data_off = dm->data_off;
	m->data_len = dm->data_len;
	m->pkt_len = dm->pkt_len;
	/* The rx flags and packet types have DPDK's values in dvpmd too. */
	m->ol_flags = dm->ol_flags | RTE_MBUF_F_EXTERNAL;
	m->packet_type = dm->packet_type;
	m->hash.rss = dm->hash.rss;
	m->vlan_tci = dm->vlan_tci;
	m->vlan_tci_outer = dm->vlan_tci_outer;
	m->port = port;
	m->tx_offload = 0;
}

/* A chained packet: a shell for each further segment. @return false when mp ran dry. */
static __rte_noinline bool net_dvp_attach_chain(struct net_dvp_rxq *rxq, struct rte_mbuf *head,
						struct dvp_mbuf *dm)
{
	struct rte_mbuf *prev = head, *m;
	struct dvp_mbuf *seg, *next;

	for (seg = dm->next; seg != NULL; seg = seg->next) {
		m = rte_pktmbuf_alloc(rxq->mp);
		if (m == NULL) {
			/* What is attached goes with the head; free the rest here. */
			prev->next = NULL;
			for (; seg != NULL; seg = next) {
				next = seg->next;
				seg->next = NULL;
				dvp_pktmbuf_free_seg(seg);
			}
			rte_pktmbuf_free(head);
			return false;
		}
		net_dvp_attach(m, seg, rxq->eth_port, rxq->iova_va);
		prev->next = m;
		prev = m;
	}
	head->nb_segs = dm->nb_segs;
	/* Each segment is owned by its own shell now. */
	for (seg = dm; seg != NULL; seg = next) {
		next = seg->next;
		seg->next = NULL;
		seg->nb_segs = 1;
	}
	return true;
}

/*
 * Take @p n shells into the stash and start loading their first lines,
 * which the next burst writes: the loads overlap the device poll instead of
 * stalling the attach. @return false when the pool had fewer.
 */
static __rte_always_inline bool net_dvp_stash_fill(struct net_dvp_rxq *rxq, uint16_t n)
{
	uint16_t i;

	/* Raw gets: a free mbuf has refcnt 1, next NULL, nb_segs 1; attach writes the rest. */
	if (unlikely(rte_mempool_get_bulk(rxq->mp, (void **)&rxq->stash[rxq->stash_n], n) != 0))
		return false;
	for (i = 0; i < n; i++)
		rte_prefetch0(rxq->stash[rxq->stash_n + i]);
	rxq->stash_n += n;
	return true;
}

/* The stash was short (the application's pool ran dry): top it up as far as it goes. */
static __rte_noinline void net_dvp_stash_refill_slow(struct net_dvp_rxq *rxq)
{
	uint16_t want = NET_DVP_BURST_MAX - rxq->stash_n;

	while (want > 0 && !net_dvp_stash_fill(rxq, want))
		want /= 2;
	if (rxq->stash_n == 0)
		rxq->shell_nombuf++;
}

void net_dvp_rxq_stash_drain(struct net_dvp_rxq *rxq)
{
	if (rxq->stash_n != 0)
		rte_mempool_put_bulk(rxq->mp, (void **)rxq->stash, rxq->stash_n);
	rxq->stash_n = 0;
}

uint16_t net_dvp_rx_burst(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct net_dvp_rxq *rxq = q;
	struct dvp_mbuf *dm[NET_DVP_BURST_MAX];
	uint16_t i, nb, out = 0;

	net_dvp_lcore_sync();
	/*
	 * A packet needs a shell: take no more from the device than the stash
	 * holds. With the application's pool dry, packets wait in the device's
	 * queue (and past its size the device counts them missed).
	 */
	if (unlikely(rxq->stash_n < NET_DVP_BURST_MAX)) {
		net_dvp_stash_refill_slow(rxq);
		if (rxq->stash_n == 0)
			return 0;
	}
	nb = dvp_rx_burst(rxq->dvp_port, rxq->queue_id, dm,
			  RTE_MIN(RTE_MIN(nb_pkts, NET_DVP_BURST_MAX), rxq->stash_n));
	if (nb == 0)
		return 0;
	rxq->stash_n -= nb;
	for (i = 0; i < nb; i++) {
		struct rte_mbuf *m = rxq->stash[rxq->stash_n + i];

		/* tx or a free reads the buffer's shared info on dm's second line. */
		rte_prefetch0(&dm[i]->dynfield1);
		net_dvp_attach(m, dm[i], rxq->eth_port, rxq->iova_va);
		if (unlikely(dm[i]->next != NULL) && !net_dvp_attach_chain(rxq, m, dm[i])) {
			/* Dropped with its shell. */
			rxq->shell_nombuf++;
			continue;
		}
		pkts[out++] = m;
	}
	/* Shells for the next burst, loading while the application works. */
	if (unlikely(!net_dvp_stash_fill(rxq, nb)))
		net_dvp_stash_refill_slow(rxq);
	return out;
}

/*
 * An rte_mbuf whose buffer is a dvp buffer, held by it alone: the dvp mbuf
 * can go to the device as it is.
 */
static __rte_always_inline struct dvp_mbuf *net_dvp_owned(struct rte_mbuf *m)
{
	if (!RTE_MBUF_HAS_EXTBUF(m) || m->shinfo->free_cb != net_dvp_buf_free || m->nb_segs != 1 ||
	    rte_mbuf_refcnt_read(m) != 1 || rte_mbuf_ext_refcnt_read(m->shinfo) != 1)
		return NULL;
	return m->shinfo->fcb_opaque;
}

/* What the application set on @p m, onto the dvp mbuf that goes to the device. */
static __rte_always_inline void net_dvp_tx_fields(struct dvp_mbuf *dm, const struct rte_mbuf *m)
{
	dm->data_off = (uint16_t)((char *)m->buf_addr + m->data_off - (char *)dm->buf_addr);
	dm->data_len = m->data_len;
	dm->pkt_len = m->pkt_len;
	dm->nb_segs = 1;
	/* Tx flags have DPDK's values in dvpmd; the external-buffer one is ours to drop. */
	dm->ol_flags = m->ol_flags & ~RTE_MBUF_F_EXTERNAL;
	dm->tx_offload = m->tx_offload;
	dm->vlan_tci = m->vlan_tci;
	dm->vlan_tci_outer = m->vlan_tci_outer;
	dm->packet_type = m->packet_type;
}

/*
 * Make a shell whose dvp buffer went to the device the direct mbuf it was
 * born as again, without the free callback (the buffer is the device's
 * now), ready to go back to its pool. With IOVA as VA, its buffer's IOVA is
 * its address: no read of the mempool object header's line.
 */
static __rte_always_inline void net_dvp_shell_restore(struct rte_mbuf *m, bool iova_va)
{
	struct rte_mempool *mp = m->pool;
	uint32_t hdr = (uint32_t)sizeof(struct rte_mbuf) + rte_pktmbuf_priv_size(mp);

	m->buf_addr = (char *)m + hdr;
	m->buf_iova = iova_va ? (rte_iova_t)(uintptr_t)m->buf_addr : rte_mempool_virt2iova(m) + hdr;
	m->buf_len = rte_pktmbuf_data_room_size(mp);
	m->data_off = RTE_MIN(RTE_PKTMBUF_HEADROOM, m->buf_len);
	m->data_len = 0;
	m->ol_flags = 0;
}

/* Put restored shells back, one bulk put per run of the same pool. */
static __rte_always_inline void net_dvp_shells_put(struct rte_mbuf **shells, uint16_t n)
{
	uint16_t i, start = 0;

	for (i = 1; i <= n; i++) {
		if (i == n || shells[i]->pool != shells[start]->pool) {
			rte_mempool_put_bulk(shells[start]->pool, (void **)&shells[start],
					     i - start);
			start = i;
		}
	}
}

/* A foreign rte_mbuf (no longer than max_len): its data into a dvp mbuf, or NULL when dry. */
static __rte_noinline struct dvp_mbuf *net_dvp_tx_copy(struct net_dvp_txq *txq, struct rte_mbuf *m)
{
	struct dvp_mbuf *dm = dvp_pktmbuf_alloc(txq->pool);
	const struct rte_mbuf *seg;
	char *dst;

	if (dm == NULL)
		return NULL;
	dst = dvp_pktmbuf_mtod(dm, char *);
	for (seg = m; seg != NULL; seg = seg->next) {
		rte_memcpy(dst, rte_pktmbuf_mtod(seg, const char *), seg->data_len);
		dst += seg->data_len;
	}
	net_dvp_tx_fields(dm, m);
	dm->data_off = RTE_PKTMBUF_HEADROOM;
	dm->data_len = (uint16_t)m->pkt_len;
	txq->copied++;
	return dm;
}

enum net_dvp_tx_how {
	NET_DVP_TX_OWNED, /* a dvp buffer: the dvp mbuf goes, the shell returns to its pool */
	NET_DVP_TX_COPIED, /* foreign: a copy goes, the rte_mbuf is freed */
	NET_DVP_TX_DROP, /* longer than any dvp buffer: freed and counted */
};

uint16_t net_dvp_tx_burst(void *q, struct rte_mbuf **pkts, uint16_t nb_pkts)
{
	struct net_dvp_txq *txq = q;
	struct dvp_mbuf *send[NET_DVP_BURST_MAX], *dm;
	struct rte_mbuf *shells[NET_DVP_BURST_MAX];
	uint8_t how[NET_DVP_BURST_MAX];
	uint16_t i, k = 0, nb, sent, done, nb_shells = 0;

	net_dvp_lcore_sync();
	nb = RTE_MIN(nb_pkts, NET_DVP_BURST_MAX);
	for (i = 0; i < nb; i++) {
		dm = net_dvp_owned(pkts[i]);
		if (likely(dm != NULL)) {
			net_dvp_tx_fields(dm, pkts[i]);
			how[i] = NET_DVP_TX_OWNED;
			send[k++] = dm;
			continue;
		}
		if (unlikely(pkts[i]->pkt_len > txq->max_len)) {
			how[i] = NET_DVP_TX_DROP;
			continue;
		}
		dm = net_dvp_tx_copy(txq, pkts[i]);
		if (dm == NULL)
			break; /* the copy pool is dry: this one and the rest stay the caller's */
		how[i] = NET_DVP_TX_COPIED;
		send[k++] = dm;
	}
	nb = i;
	sent = dvp_tx_burst(txq->dvp_port, txq->queue_id, send, k);

	/*
	 * The caller's array is consumed up to the first packet the device did
	 * not take; drops before that point are consumed too, later ones are
	 * dropped when the caller offers them again.
	 */
	for (i = 0, k = 0; i < nb; i++) {
		if (how[i] == NET_DVP_TX_DROP) {
			txq->dropped++;
			rte_pktmbuf_free(pkts[i]);
			continue;
		}
		if (k == sent)
			break;
		k++;
		if (likely(how[i] == NET_DVP_TX_OWNED)) {
			net_dvp_shell_restore(pkts[i], txq->iova_va);
			shells[nb_shells++] = pkts[i];
		} else {
			rte_pktmbuf_free(pkts[i]);
		}
	}
	done = i;
	if (nb_shells != 0)
		net_dvp_shells_put(shells, nb_shells);
	/* Copies made for packets kept back are not needed. */
	for (; i < nb; i++) {
		if (how[i] == NET_DVP_TX_DROP)
			continue;
		if (how[i] == NET_DVP_TX_COPIED)
			dvp_pktmbuf_free(send[k]);
		k++;
	}
	return done;
}

struct pool_fill {
	unsigned int bad_iova;
};

static void net_dvp_buf_init(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int idx)
{
	struct dvp_mbuf *dm = obj;
	struct net_dvp_buf *b = net_dvp_buf_of(dm);
	struct pool_fill *f = opaque;

	(void)mp;
	(void)idx;
	b->shinfo.free_cb = net_dvp_buf_free;
	b->shinfo.fcb_opaque = dm;
	b->shinfo.refcnt = 1;
	b->buf_iova = rte_mem_virt2iova(dm->buf_addr);
	if (b->buf_iova == RTE_BAD_IOVA)
		f->bad_iova++;
}

struct dvp_mempool *net_dvp_pool_create(struct net_dvp_port *p, const char *what, unsigned int n,
					uint16_t data_room, int socket)
{
	struct net_dvp_pool_ref *ref = rte_zmalloc("net_dvp_pool_ref", sizeof(*ref), 0);
	struct pool_fill fill = { 0 };
	struct dvp_mempool *mp;
	char name[DVP_MEMPOOL_NAMESIZE];

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
	dvp_mempool_obj_iter(mp, net_dvp_buf_init, &fill);
	if (fill.bad_iova != 0)
		NET_DVP_LOG(WARNING,
			    "port %u: pool %s: %u buffers have no IOVA in DPDK's memory map",
			    p->eth_port, name, fill.bad_iova);
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
