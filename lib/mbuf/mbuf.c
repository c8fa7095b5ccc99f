/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* Mbuf pools: creation, the object constructor, checks and dumps. */

#include <ctype.h>
#include <inttypes.h>
#include <string.h>

#include <dvp_errno.h>
#include <dvp_log.h>
#include <dvp_mbuf.h>

#ifdef DVP_HOST_DPDK
#include <rte_errno.h>
#include <rte_mbuf.h>
#endif

DVP_LOG_REGISTER(dvp_logtype_mbuf, "mbuf", NOTICE);

#define MBUF_LOG(level, fmt, ...) \
	DVP_LOG_LINE(level, dvp_logtype_mbuf, "MBUF: ", fmt, ##__VA_ARGS__)

#ifdef DVP_HOST_DPDK
/* The header is DPDK's: its constructor sets DPDK's fields too (buf_iova). */
void dvp_pktmbuf_init(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int obj_idx)
{
	rte_pktmbuf_init(mp, opaque, obj, obj_idx);
}
#else
void dvp_pktmbuf_init(struct dvp_mempool *mp, void *opaque, void *obj, unsigned int obj_idx)
{
	const struct dvp_pktmbuf_pool_private *priv =
		opaque != NULL ? opaque : dvp_mempool_get_priv(mp);
	struct dvp_mbuf *m = obj;

	(void)obj_idx;
	memset(m, 0, sizeof(*m));
	m->priv_size = priv->mbuf_priv_size;
	m->buf_addr = (char *)m + sizeof(*m) + priv->mbuf_priv_size;
	m->buf_len = priv->mbuf_data_room_size;
	m->pool = mp;
	m->nb_segs = 1;
	m->port = DVP_MBUF_PORT_INVALID;
	dvp_mbuf_refcnt_set(m, 1);
	dvp_pktmbuf_reset_headroom(m);
}
#endif

struct dvp_mempool *dvp_pktmbuf_pool_create(const char *name, unsigned int n,
					    unsigned int cache_size, uint16_t priv_size,
					    uint16_t data_room_size, int socket_id)
{
	struct dvp_pktmbuf_pool_private priv = { 0 };
	struct dvp_mempool *mp;

	if (priv_size % DVP_MBUF_PRIV_ALIGN != 0) {
		MBUF_LOG(ERR,
			 "mbuf pool %s: private size %u is invalid: it must be a multiple of %d",
			 name ? name : "(null)", priv_size, DVP_MBUF_PRIV_ALIGN);
		dvp_errno = EINVAL;
		return NULL;
	}
#ifdef DVP_HOST_DPDK
	/* A DPDK mbuf pool, made as DPDK makes one (its ops, its constructor). */
	(void)priv;
	mp = rte_pktmbuf_pool_create(name, n, cache_size, priv_size, data_room_size, socket_id);
	if (mp == NULL) {
		MBUF_LOG(ERR, "mbuf pool %s: %s", name ? name : "(null)", rte_strerror(rte_errno));
		dvp_errno = rte_errno;
	}
#else
	priv.mbuf_data_room_size = data_room_size;
	priv.mbuf_priv_size = priv_size;
	mp = dvp_mempool_create(name, n,
				(unsigned int)sizeof(struct dvp_mbuf) + priv_size + data_room_size,
				cache_size, sizeof(priv), dvp_pktmbuf_init, &priv, socket_id, 0);
	if (mp == NULL)
		return NULL;
	memcpy(dvp_mempool_get_priv(mp), &priv, sizeof(priv));
#endif
	return mp;
}

int dvp_mbuf_check(const struct dvp_mbuf *m, int is_header, const char **reason)
{
	const struct dvp_mbuf *s;
	const char *why = NULL;
	unsigned int nb_segs, max = DVP_MBUF_MAX_NB_SEGS;
	uint64_t pkt_len;

	if (m == NULL) {
		why = "mbuf is NULL";
		goto bad;
	}
	if (m->pool == NULL) {
		why = "bad mbuf pool";
		goto bad;
	}
	if (m->buf_addr == NULL) {
		why = "bad buffer address";
		goto bad;
	}
	if (dvp_mbuf_refcnt_read(m) == 0) {
		why = "bad reference count (0: the mbuf is freed)";
		goto bad;
	}
	if ((unsigned int)m->data_off + m->data_len > m->buf_len) {
		why = "data_off + data_len past the end of the buffer";
		goto bad;
	}
	if (!is_header)
		return 0;
	nb_segs = 0;
	pkt_len = 0;
	for (s = m; s != NULL; s = s->next) {
		if ((unsigned int)s->data_off + s->data_len > s->buf_len) {
			why = "a segment's data_off + data_len is past the end of its buffer";
			goto bad;
		}
		pkt_len += s->data_len;
		if (++nb_segs > max) {
			why = "segment chain too long (a loop?)";
			goto bad;
		}
	}
	if (nb_segs != m->nb_segs) {
		why = "nb_segs differs from the segments in the chain";
		goto bad;
	}
	if (pkt_len != m->pkt_len) {
		why = "pkt_len differs from the sum of the segments' data_len";
		goto bad;
	}
	return 0;
bad:
	if (reason != NULL)
		*reason = why;
	return dvp_err(EINVAL);
}

void dvp_pktmbuf_dump(FILE *f, const struct dvp_mbuf *m, unsigned int dump_len)
{
	unsigned int i, len;
	const uint8_t *d;

	f = dvp_dump_stream(f, "mbuf", m);
	if (f == NULL)
		return;
	fprintf(f, "dump mbuf at %p, buf_addr=%p, buf_len=%u\n", (const void *)m, m->buf_addr,
		m->buf_len);
	fprintf(f,
		"  pkt_len=%" PRIu32 ", ol_flags=0x%" PRIx64
		", nb_segs=%u, port=%u, ptype=0x%" PRIx32 "\n",
		m->pkt_len, m->ol_flags, m->nb_segs, m->port, m->packet_type);
	for (; m != NULL && dump_len > 0; m = m->next) {
		fprintf(f, "  segment at %p, data=%p, data_off=%u, data_len=%u, refcnt=%u\n",
			(const void *)m, (const void *)((const char *)m->buf_addr + m->data_off),
			m->data_off, m->data_len, dvp_mbuf_refcnt_read(m));
		len = DVP_MIN(dump_len, (unsigned int)m->data_len);
		d = (const uint8_t *)m->buf_addr + m->data_off;
		for (i = 0; i < len; i++)
			fprintf(f, "%s%02x%s", i % 16 == 0 ? "    " : " ", d[i],
				i % 16 == 15 || i + 1 == len ? "\n" : "");
		dump_len -= len;
	}
}

#ifdef DVP_HOST_DPDK
/* Set once by the host before its ports' queues are set up; read at queue setup. */
static int rx_ts_offset = -1;
static uint64_t rx_ts_flag;

void dvp_mbuf_rx_timestamp_set(int offset, uint64_t flag)
{
	rx_ts_flag = flag;
	rx_ts_offset = offset;
}

int dvp_mbuf_rx_timestamp_slot(int *offset, uint64_t *flag)
{
	if (rx_ts_offset < 0)
		return dvp_err(ENOTSUP);
	*offset = rx_ts_offset;
	*flag = rx_ts_flag;
	return 0;
}
#else
int dvp_mbuf_rx_timestamp_slot(int *offset, uint64_t *flag)
{
	*offset = (int)offsetof(struct dvp_mbuf, timestamp);
	*flag = DVP_MBUF_F_RX_TIMESTAMP;
	return 0;
}
#endif
