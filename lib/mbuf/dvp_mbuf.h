/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/**
 * @file
 * Packet buffers (mbufs), as DPDK's rte_mbuf.
 *
 * An mbuf is a 128-byte header followed by the pool's private area and the
 * data buffer, all in one mempool object:
 *
 *     | struct dvp_mbuf | priv_size | headroom | data ... | tailroom |
 *                                   ^buf_addr  ^buf_addr + data_off
 *
 * Everything an rx burst writes (and a tx burst reads) is on the first
 * cache line, pool and next included, so receiving a packet touches one
 * line of the header. A packet is a chain of segments linked by next; the
 * first segment holds pkt_len (the sum of every data_len) and nb_segs.
 *
 * Reference counts: an mbuf is born with refcnt 1; dvp_mbuf_refcnt_update()
 * lets several owners share it, and each dvp_pktmbuf_free() drops one
 * reference, the last one returning the segment to its pool. While the
 * count is 1 the caller is the only owner, so the count is updated with a
 * plain store; atomic read-modify-writes are used only when it is above 1.
 * There are no indirect (cloned) mbufs.
 *
 * Invariants of a free mbuf (what the pool hands out): refcnt 1, next NULL,
 * nb_segs 1; dvp_pktmbuf_alloc() resets the rest.
 */

#ifndef DVP_MBUF_H
#define DVP_MBUF_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>

#include <dvp_common.h>
#include <dvp_mempool.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Bytes left in front of the data of a fresh mbuf (for headers to prepend). */
#define DVP_PKTMBUF_HEADROOM 128
/** Data room for a standard Ethernet frame plus the headroom. */
#define DVP_MBUF_DEFAULT_DATAROOM 2048
#define DVP_MBUF_DEFAULT_BUF_SIZE (DVP_MBUF_DEFAULT_DATAROOM + DVP_PKTMBUF_HEADROOM)
/** priv_size must be a multiple of this, so the buffer stays aligned. */
#define DVP_MBUF_PRIV_ALIGN 8
#define DVP_MBUF_MAX_NB_SEGS UINT16_MAX
/** The port field of an mbuf no port has received. */
#define DVP_MBUF_PORT_INVALID UINT16_MAX

/* ------------------------------------------------------------------------
 * Offload flags (ol_flags). Bit values are DPDK's, so that a DPDK user's
 * habits (and masks) carry over.
 */

/** A VLAN tag is in vlan_tci (and, with VLAN_STRIPPED, removed from the data). */
#define DVP_MBUF_F_RX_VLAN (1ULL << 0)
/** hash.rss holds the RSS hash the device computed. */
#define DVP_MBUF_F_RX_RSS_HASH (1ULL << 1)
/** A flow rule with MARK or FLAG matched the frame (dvp_flow.h). */
#define DVP_MBUF_F_RX_FDIR (1ULL << 2)
/** ... and hash.fdir.hi holds its MARK id. */
#define DVP_MBUF_F_RX_FDIR_ID (1ULL << 13)
/** The VLAN tag was stripped from the packet data into vlan_tci. */
#define DVP_MBUF_F_RX_VLAN_STRIPPED (1ULL << 6)

/**
 * The timestamp slot (dvp_mbuf_rx_timestamp_slot()) holds the device clock
 * when the packet arrived. Natively this bit, which DPDK leaves free; in a
 * DPDK application, the flag DPDK's rx timestamp dynflag registration gave.
 */
#define DVP_MBUF_F_RX_TIMESTAMP (1ULL << 17)

/** Rx IP (L3) checksum state: two bits, four values. */
#define DVP_MBUF_F_RX_IP_CKSUM_MASK ((1ULL << 4) | (1ULL << 7))
#define DVP_MBUF_F_RX_IP_CKSUM_UNKNOWN 0 /**< the device says nothing */
#define DVP_MBUF_F_RX_IP_CKSUM_BAD (1ULL << 4) /**< verified and wrong */
#define DVP_MBUF_F_RX_IP_CKSUM_GOOD (1ULL << 7) /**< verified and right */
/** Not verified, but the data is known valid (e.g. a checksum left 0). */
#define DVP_MBUF_F_RX_IP_CKSUM_NONE ((1ULL << 4) | (1ULL << 7))

/** Rx L4 (TCP/UDP) checksum state, same four values. */
#define DVP_MBUF_F_RX_L4_CKSUM_MASK ((1ULL << 3) | (1ULL << 8))
#define DVP_MBUF_F_RX_L4_CKSUM_UNKNOWN 0
#define DVP_MBUF_F_RX_L4_CKSUM_BAD (1ULL << 3)
#define DVP_MBUF_F_RX_L4_CKSUM_GOOD (1ULL << 8)
#define DVP_MBUF_F_RX_L4_CKSUM_NONE ((1ULL << 3) | (1ULL << 8))

/** Tx offload requests (l2_len and l3_len must be set for checksums). */
#define DVP_MBUF_F_TX_TCP_SEG (1ULL << 50)
#define DVP_MBUF_F_TX_L4_NO_CKSUM (0ULL << 52)
#define DVP_MBUF_F_TX_TCP_CKSUM (1ULL << 52)
#define DVP_MBUF_F_TX_SCTP_CKSUM (2ULL << 52)
#define DVP_MBUF_F_TX_UDP_CKSUM (3ULL << 52)
#define DVP_MBUF_F_TX_L4_MASK (3ULL << 52)
#define DVP_MBUF_F_TX_IP_CKSUM (1ULL << 54)
#define DVP_MBUF_F_TX_IPV4 (1ULL << 55)
#define DVP_MBUF_F_TX_IPV6 (1ULL << 56)
/** Insert vlan_tci as a VLAN tag on transmit. */
#define DVP_MBUF_F_TX_VLAN (1ULL << 57)
#ifdef DVP_HOST_DPDK
/*
 * Hosted only (a DPDK application's rte_mbuf): the buffer is another
 * mbuf's (indirect) or the application's own (external). dvpmd makes
 * neither; a driver that cannot send such an mbuf as it is leaves it to
 * net_dvp (doc/dpdk.md).
 */
#define DVP_MBUF_F_EXTERNAL (1ULL << 61)
#define DVP_MBUF_F_INDIRECT (1ULL << 62)
#endif

/* ------------------------------------------------------------------------
 * Packet types (packet_type): one field per layer, DPDK's values.
 */
#define DVP_PTYPE_UNKNOWN 0x00000000u
#define DVP_PTYPE_L2_ETHER 0x00000001u
#define DVP_PTYPE_L2_ETHER_ARP 0x00000003u
#define DVP_PTYPE_L2_ETHER_LLDP 0x00000004u
#define DVP_PTYPE_L2_ETHER_VLAN 0x00000006u
#define DVP_PTYPE_L2_ETHER_QINQ 0x00000007u
#define DVP_PTYPE_L2_MASK 0x0000000fu
#define DVP_PTYPE_L3_IPV4 0x00000010u /**< IPv4 without options */
#define DVP_PTYPE_L3_IPV4_EXT 0x00000030u /**< IPv4 with options */
#define DVP_PTYPE_L3_IPV6 0x00000040u /**< IPv6 without extension headers */
#define DVP_PTYPE_L3_IPV4_EXT_UNKNOWN 0x00000090u /**< IPv4, options unknown */
#define DVP_PTYPE_L3_IPV6_EXT 0x000000c0u
#define DVP_PTYPE_L3_IPV6_EXT_UNKNOWN 0x000000e0u
#define DVP_PTYPE_L3_MASK 0x000000f0u
#define DVP_PTYPE_L4_TCP 0x00000100u
#define DVP_PTYPE_L4_UDP 0x00000200u
#define DVP_PTYPE_L4_FRAG 0x00000300u
#define DVP_PTYPE_L4_SCTP 0x00000400u
#define DVP_PTYPE_L4_ICMP 0x00000500u
#define DVP_PTYPE_L4_NONFRAG 0x00000600u
#define DVP_PTYPE_L4_MASK 0x00000f00u

/* ------------------------------------------------------------------------
 * The mbuf
 */

/** Tx offload lengths, as DPDK's tx_offload bit fields. */
union dvp_mbuf_tx_offload {
	uint64_t tx_offload;
	struct {
		uint64_t l2_len : 7;
		uint64_t l3_len : 9;
		uint64_t l4_len : 8;
		uint64_t tso_segsz : 16;
		uint64_t outer_l3_len : 9;
		uint64_t outer_l2_len : 7;
	};
};

#ifdef DVP_HOST_DPDK
/*
 * Built into a DPDK application (drivers/dpdk/net_dvp): the header is laid
 * out as DPDK 22.11's struct rte_mbuf, field for field, so that an mbuf of
 * the application's pool is a dvp mbuf and crosses between the two without
 * a translation (net_dvp checks every offset at build time). The fields
 * dvpmd does not use keep DPDK's meaning; pool is DPDK's rte_mempool, which
 * is what struct dvp_mempool names in this build (dvp_mempool_host.h).
 */
struct dvp_mbuf {
	void *buf_addr;
	uint64_t buf_iova; /**< DPDK's IOVA of buf_addr */
	union {
		uint64_t rearm_data;
		struct {
			uint16_t data_off;
			uint16_t refcnt;
			uint16_t nb_segs;
			uint16_t port;
		};
	};
	uint64_t ol_flags;
	uint32_t packet_type;
	uint32_t pkt_len;
	uint16_t data_len;
	uint16_t vlan_tci;
	union {
		uint32_t rss;
		struct {
			uint32_t lo;
			uint32_t hi;
		} fdir;
	} hash;
	uint16_t vlan_tci_outer;
	uint16_t buf_len;
	struct dvp_mempool *pool;

	/* Second cache line: DPDK keeps next here, so freeing a chain reads it. */
	struct dvp_mbuf *next;
	union {
		uint64_t tx_offload;
		union dvp_mbuf_tx_offload tx;
	};
	void *host_shinfo; /**< DPDK's external buffer info; unused by dvpmd */
	uint16_t priv_size;
	uint16_t host_timesync;
	uint32_t dynfield1[9]; /**< DPDK's dynamic fields (its registry hands them out) */
} __dvp_cache_aligned;

_Static_assert(sizeof(struct dvp_mbuf) == 2 * 64, "struct dvp_mbuf is two 64-byte lines");
#else
struct dvp_mbuf {
	/* First cache line: everything rx writes and tx reads. */
	void *buf_addr; /**< start of the buffer (headroom included) */
	union {
		/** The four fields below as one word, for drivers to re-arm in one store. */
		uint64_t rearm_data;
		struct {
			uint16_t data_off; /**< offset of the data in the buffer */
			uint16_t refcnt; /**< access with dvp_mbuf_refcnt_*() */
			uint16_t nb_segs; /**< segments in the packet (first segment) */
			uint16_t port; /**< input port, or DVP_MBUF_PORT_INVALID */
		};
	};
	uint64_t ol_flags; /**< DVP_MBUF_F_* */
	uint32_t packet_type; /**< DVP_PTYPE_* of each layer, or'ed */
	uint32_t pkt_len; /**< bytes of the whole packet (first segment) */
	uint16_t data_len; /**< bytes of data in this segment */
	uint16_t vlan_tci; /**< VLAN TCI, host order, valid with DVP_MBUF_F_RX_VLAN */
	union {
		uint32_t rss; /**< RSS hash, valid with DVP_MBUF_F_RX_RSS_HASH */
		struct {
			uint32_t lo;
			uint32_t hi;
		} fdir;
	} hash;
	uint16_t vlan_tci_outer; /**< outer VLAN TCI (QinQ) */
	uint16_t buf_len; /**< bytes of the buffer (headroom included) */
	struct dvp_mempool *pool; /**< the pool the mbuf returns to */
	struct dvp_mbuf *next; /**< next segment, or NULL */

	/* Second cache line: tx offload metadata and the application's. */
	union {
		uint64_t tx_offload;
		union dvp_mbuf_tx_offload tx;
	};
	uint16_t priv_size; /**< bytes of the private area after this header */
	uint16_t reserved16;
	uint32_t reserved32;
	uint64_t udata64; /**< free for the application */
	/** Device clock ticks at arrival, valid with DVP_MBUF_F_RX_TIMESTAMP (dvp_port_read_clock()) */
	uint64_t timestamp;
	uint32_t dynfield1[8]; /**< free for libraries and drivers (one owner each) */
} __dvp_cache_aligned;

_Static_assert(sizeof(struct dvp_mbuf) == 2 * 64, "struct dvp_mbuf is two 64-byte lines");
_Static_assert(offsetof(struct dvp_mbuf, next) < 64, "rx fields on the first cache line");
#endif /* DVP_HOST_DPDK */

/** What dvp_pktmbuf_pool_create() keeps in the pool's private area. */
struct dvp_pktmbuf_pool_private {
	uint16_t mbuf_data_room_size; /**< buf_len of each mbuf */
	uint16_t mbuf_priv_size; /**< priv_size of each mbuf */
	uint32_t flags;
};

/* ------------------------------------------------------------------------
 * Control path
 */

/**
 * Create a pool of @p n mbufs, each with a @p priv_size private area and a
 * @p data_room_size buffer (headroom included: DVP_MBUF_DEFAULT_BUF_SIZE for
 * standard frames), on NUMA node @p socket_id.
 *
 * @param cache_size  per-lcore cache, as dvp_mempool_create()
 * @param priv_size  a multiple of DVP_MBUF_PRIV_ALIGN
 * @param data_room_size  at most UINT16_MAX
 * @return the pool, or NULL with dvp_errno set after a log line (EINVAL
 *   naming the bad argument, EEXIST, ENOMEM, E_DVP_NO_INIT).
 */
struct dvp_mempool *dvp_pktmbuf_pool_create(const char *name, unsigned int n,
					    unsigned int cache_size, uint16_t priv_size,
					    uint16_t data_room_size, int socket_id);

/**
 * Object constructor of an mbuf pool (what dvp_pktmbuf_pool_create() uses):
 * sets buf_addr, buf_len, pool, priv_size and the free-mbuf invariants. The
 * pool's private area must hold a struct dvp_pktmbuf_pool_private.
 */
void dvp_pktmbuf_init(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int obj_idx);

/** The data room (buf_len) of the pool's mbufs. */
static inline uint16_t dvp_pktmbuf_data_room_size(struct dvp_mempool *mp)
{
	return ((struct dvp_pktmbuf_pool_private *)dvp_mempool_get_priv(mp))->mbuf_data_room_size;
}

/** The private area size of the pool's mbufs. */
static inline uint16_t dvp_pktmbuf_priv_size(struct dvp_mempool *mp)
{
	return ((struct dvp_pktmbuf_pool_private *)dvp_mempool_get_priv(mp))->mbuf_priv_size;
}

/**
 * Mbufs of @p mp in use (allocated and not freed), counting those in lcore
 * caches as free: exact while no other thread uses the pool, so a test or a
 * shutdown path can assert that every mbuf came back.
 */
static inline unsigned int dvp_pktmbuf_pool_in_use(const struct dvp_mempool *mp)
{
	return dvp_mempool_in_use_count(mp);
}

/**
 * Where a driver puts an rx timestamp (DVP_RX_OFFLOAD_TIMESTAMP): the byte
 * offset of a uint64_t in the mbuf into *@p offset and the ol_flags bit
 * that says it is valid into *@p flag. Natively the timestamp field and
 * DVP_MBUF_F_RX_TIMESTAMP; in a DPDK application, DPDK's rx timestamp
 * dynfield and dynflag, once the host has given them with
 * dvp_mbuf_rx_timestamp_set().
 * @return 0, or -ENOTSUP (hosted, none given yet).
 */
int dvp_mbuf_rx_timestamp_slot(int *offset, uint64_t *flag);

#ifdef DVP_HOST_DPDK
/** The host's rx timestamp dynfield offset and dynflag bit (net_dvp registers them). */
void dvp_mbuf_rx_timestamp_set(int offset, uint64_t flag);
#endif

/**
 * Check an mbuf's header for consistency (@p is_header: it is a packet's
 * first segment, so pkt_len and nb_segs are checked over the chain).
 * @return 0, or -EINVAL with *@p reason (if not NULL) saying what is wrong.
 */
int dvp_mbuf_check(const struct dvp_mbuf *m, int is_header, const char **reason);

/** Print the packet's header fields and up to @p dump_len bytes of data. */
void dvp_pktmbuf_dump(FILE *f, const struct dvp_mbuf *m, unsigned int dump_len);

/* ------------------------------------------------------------------------
 * Data access
 */

/** Pointer to the data of @p m plus @p o bytes, as type @p t. */
#define dvp_pktmbuf_mtod_offset(m, t, o) ((t)(void *)((char *)(m)->buf_addr + (m)->data_off + (o)))
/** Pointer to the data of @p m, as type @p t. */
#define dvp_pktmbuf_mtod(m, t) dvp_pktmbuf_mtod_offset(m, t, 0)
/** Bytes of the whole packet. */
#define dvp_pktmbuf_pkt_len(m) ((m)->pkt_len)
/** Bytes of data in this segment. */
#define dvp_pktmbuf_data_len(m) ((m)->data_len)

/** The private area after the header. */
static inline void *dvp_mbuf_to_priv(struct dvp_mbuf *m)
{
	return (char *)m + sizeof(struct dvp_mbuf);
}

static inline uint16_t dvp_pktmbuf_headroom(const struct dvp_mbuf *m)
{
	return m->data_off;
}

static inline uint16_t dvp_pktmbuf_tailroom(const struct dvp_mbuf *m)
{
	return (uint16_t)(m->buf_len - m->data_off - m->data_len);
}

static inline struct dvp_mbuf *dvp_pktmbuf_lastseg(struct dvp_mbuf *m)
{
	while (m->next != NULL)
		m = m->next;
	return m;
}

static inline bool dvp_pktmbuf_is_contiguous(const struct dvp_mbuf *m)
{
	return m->nb_segs == 1;
}

/* ------------------------------------------------------------------------
 * Reference counts
 */

static __dvp_always_inline uint16_t dvp_mbuf_refcnt_read(const struct dvp_mbuf *m)
{
	/* Relaxed: a snapshot; ordering comes with the update that changes it. */
	return __atomic_load_n(&m->refcnt, __ATOMIC_RELAXED);
}

/** Set the count; only an owner that knows no one else holds @p m may do it. */
static __dvp_always_inline void dvp_mbuf_refcnt_set(struct dvp_mbuf *m, uint16_t value)
{
	__atomic_store_n(&m->refcnt, value, __ATOMIC_RELAXED);
}

/**
 * Add @p value (may be negative) to the count. @return the new count.
 */
static __dvp_always_inline uint16_t dvp_mbuf_refcnt_update(struct dvp_mbuf *m, int16_t value)
{
	/*
	 * At 1 the caller is the only owner: no other thread can change the
	 * count now, so a plain store is enough and saves the locked RMW.
	 */
	if (dvp_likely(dvp_mbuf_refcnt_read(m) == 1)) {
		uint16_t v = (uint16_t)(1 + value);

		dvp_mbuf_refcnt_set(m, v);
		return v;
	}
	/*
	 * Acq_rel: release so this owner's writes to the packet are done
	 * before another owner may see the count drop and free it; acquire so
	 * the owner that frees sees every other owner's writes.
	 */
	return (uint16_t)__atomic_add_fetch(&m->refcnt, (uint16_t)value, __ATOMIC_ACQ_REL);
}

/**
 * Add @p value to the count of every segment of the packet: how a packet
 * (chain included) gets a second owner. Each dvp_pktmbuf_free() then drops
 * one reference of each segment.
 */
static inline void dvp_pktmbuf_refcnt_update(struct dvp_mbuf *m, int16_t value)
{
	for (; m != NULL; m = m->next)
		dvp_mbuf_refcnt_update(m, value);
}

/* ------------------------------------------------------------------------
 * Allocation and freeing
 */

static __dvp_always_inline void dvp_pktmbuf_reset_headroom(struct dvp_mbuf *m)
{
	m->data_off = (uint16_t)DVP_MIN((uint16_t)DVP_PKTMBUF_HEADROOM, m->buf_len);
}

/**
 * Reset the packet fields of a segment as dvp_pktmbuf_alloc() leaves them:
 * no data, default headroom, one segment, no flags, no port. The buffer,
 * pool and reference count are kept.
 */
static __dvp_always_inline void dvp_pktmbuf_reset(struct dvp_mbuf *m)
{
	m->next = NULL;
	m->pkt_len = 0;
	m->tx_offload = 0;
	m->vlan_tci = 0;
	m->vlan_tci_outer = 0;
	m->nb_segs = 1;
	m->port = DVP_MBUF_PORT_INVALID;
	m->ol_flags = 0;
	m->packet_type = 0;
	dvp_pktmbuf_reset_headroom(m);
	m->data_len = 0;
}

/** @return a fresh mbuf from @p mp, or NULL when the pool is empty (dvp_errno untouched). */
static __dvp_always_inline struct dvp_mbuf *dvp_pktmbuf_alloc(struct dvp_mempool *mp)
{
	/*
	 * Set although the get writes it whenever it succeeds: gcc 12 at -O3
	 * cannot always see that once this is inlined into a caller's loop,
	 * and warns (-Wmaybe-uninitialized). It costs nothing: the store
	 * folds away.
	 */
	void *obj = NULL;

	if (dvp_unlikely(dvp_mempool_get(mp, &obj) < 0))
		return NULL;
	dvp_pktmbuf_reset((struct dvp_mbuf *)obj);
	return (struct dvp_mbuf *)obj;
}

/**
 * Allocate @p count fresh mbufs: all of them or none.
 * @return 0, or -ENOENT when the pool has fewer free.
 */
static __dvp_always_inline int dvp_pktmbuf_alloc_bulk(struct dvp_mempool *mp,
						      struct dvp_mbuf **mbufs, unsigned int count)
{
	unsigned int i;

	if (dvp_unlikely(dvp_mempool_get_bulk(mp, (void **)mbufs, count) < 0))
		return -ENOENT;
	for (i = 0; i < count; i++)
		dvp_pktmbuf_reset(mbufs[i]);
	return 0;
}

/*
 * Drop one reference to segment @m. @return @m when it was the last one
 * (the segment is then ready to go back to its pool, invariants restored),
 * else NULL.
 */
static __dvp_always_inline struct dvp_mbuf *dvp_pktmbuf_prefree_seg(struct dvp_mbuf *m)
{
	if (dvp_likely(dvp_mbuf_refcnt_read(m) == 1)) {
		/* Sole owner: restore the free-mbuf invariants, no atomics. */
		if (m->next != NULL) {
			m->next = NULL;
			m->nb_segs = 1;
		}
		return m;
	}
	/* Acq_rel: see dvp_mbuf_refcnt_update(). */
	if (__atomic_sub_fetch(&m->refcnt, 1, __ATOMIC_ACQ_REL) == 0) {
		dvp_mbuf_refcnt_set(m, 1);
		if (m->next != NULL) {
			m->next = NULL;
			m->nb_segs = 1;
		}
		return m;
	}
	return NULL;
}

/** Free one segment (not the chain behind it). */
static __dvp_always_inline void dvp_pktmbuf_free_seg(struct dvp_mbuf *m)
{
	m = dvp_pktmbuf_prefree_seg(m);
	if (dvp_likely(m != NULL))
		dvp_mempool_put(m->pool, m);
}

/** Free a packet: every segment of the chain (NULL is fine). */
static inline void dvp_pktmbuf_free(struct dvp_mbuf *m)
{
	struct dvp_mbuf *next;

	while (m != NULL) {
		next = m->next;
		dvp_pktmbuf_free_seg(m);
		m = next;
	}
}

/**
 * Free @p count packets (chains included; NULL entries are skipped),
 * returning segments to their pools in batches.
 */
static inline void dvp_pktmbuf_free_bulk(struct dvp_mbuf **mbufs, unsigned int count)
{
	enum { PENDING_MAX = 64 };
	void *pending[PENDING_MAX];
	struct dvp_mempool *pool = NULL;
	unsigned int npending = 0, i;
	struct dvp_mbuf *m, *next;

	for (i = 0; i < count; i++) {
		for (m = mbufs[i]; m != NULL; m = next) {
			next = m->next;
			m = dvp_pktmbuf_prefree_seg(m);
			if (dvp_unlikely(m == NULL))
				continue;
			if (dvp_unlikely(m->pool != pool || npending == PENDING_MAX)) {
				if (npending != 0)
					dvp_mempool_put_bulk(pool, pending, npending);
				pool = m->pool;
				npending = 0;
			}
			pending[npending++] = m;
		}
	}
	if (npending != 0)
		dvp_mempool_put_bulk(pool, pending, npending);
}

/* ------------------------------------------------------------------------
 * Editing a packet
 */

/**
 * Add @p len bytes at the end of the packet (in its last segment).
 * @return a pointer to the added bytes, or NULL when the last segment's
 *   tailroom is smaller (nothing changes then).
 */
static inline char *dvp_pktmbuf_append(struct dvp_mbuf *m, uint16_t len)
{
	struct dvp_mbuf *last = dvp_pktmbuf_lastseg(m);
	char *tail;

	if (dvp_unlikely(len > dvp_pktmbuf_tailroom(last)))
		return NULL;
	tail = (char *)last->buf_addr + last->data_off + last->data_len;
	last->data_len = (uint16_t)(last->data_len + len);
	m->pkt_len += len;
	return tail;
}

/**
 * Add @p len bytes in front of the data of the first segment.
 * @return a pointer to the new start of the data, or NULL when the headroom
 *   is smaller (nothing changes then).
 */
static inline char *dvp_pktmbuf_prepend(struct dvp_mbuf *m, uint16_t len)
{
	if (dvp_unlikely(len > dvp_pktmbuf_headroom(m)))
		return NULL;
	m->data_off = (uint16_t)(m->data_off - len);
	m->data_len = (uint16_t)(m->data_len + len);
	m->pkt_len += len;
	return (char *)m->buf_addr + m->data_off;
}

/**
 * Remove @p len bytes from the start of the first segment.
 * @return the new start of the data, or NULL when the first segment holds
 *   fewer bytes (nothing changes then).
 */
static inline char *dvp_pktmbuf_adj(struct dvp_mbuf *m, uint16_t len)
{
	if (dvp_unlikely(len > m->data_len))
		return NULL;
	m->data_len = (uint16_t)(m->data_len - len);
	m->data_off = (uint16_t)(m->data_off + len);
	m->pkt_len -= len;
	return (char *)m->buf_addr + m->data_off;
}

/**
 * Remove @p len bytes from the end of the last segment.
 * @return 0, or -EINVAL when the last segment holds fewer bytes (nothing
 *   changes then).
 */
static inline int dvp_pktmbuf_trim(struct dvp_mbuf *m, uint16_t len)
{
	struct dvp_mbuf *last = dvp_pktmbuf_lastseg(m);

	if (dvp_unlikely(len > last->data_len))
		return -EINVAL;
	last->data_len = (uint16_t)(last->data_len - len);
	m->pkt_len -= len;
	return 0;
}

/**
 * Append packet @p tail to packet @p head: @p tail's segments join the chain
 * and @p tail must no longer be used as a packet of its own.
 * @return 0, or -EOVERFLOW when the chain would pass DVP_MBUF_MAX_NB_SEGS
 *   segments (nothing changes then).
 */
static inline int dvp_pktmbuf_chain(struct dvp_mbuf *head, struct dvp_mbuf *tail)
{
	struct dvp_mbuf *last;

	if (dvp_unlikely((unsigned int)head->nb_segs + tail->nb_segs > DVP_MBUF_MAX_NB_SEGS))
		return -EOVERFLOW;
	last = dvp_pktmbuf_lastseg(head);
	last->next = tail;
	head->nb_segs = (uint16_t)(head->nb_segs + tail->nb_segs);
	head->pkt_len += tail->pkt_len;
	/* tail's pkt_len and nb_segs now mean nothing: make that visible. */
	tail->pkt_len = tail->data_len;
	tail->nb_segs = 1;
	return 0;
}

#ifdef __cplusplus
}
#endif

#endif /* DVP_MBUF_H */
