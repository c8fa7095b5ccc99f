/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The traffic source and sink at the far end of a port's cable
 * (cable=traffic), and the capture of sent frames.
 *
 * Source frames are Ethernet/IPv4/UDP with valid checksums, from
 * 198.18.0.0 + flow to 198.19.0.1 (the RFC 2544 benchmark range), or with
 * ip=6 Ethernet/IPv6/UDP from 2001:db8::<flow> to 2001:db8:1::1 (the
 * documentation prefix), and a payload of a magic, the flow, its sequence
 * number within the flow and a pattern derived from them (by the byte's
 * place in the frame). The sink checks all of it and counts per flow:
 * gaps as loss (taken back when a late frame fills them), late frames as
 * reordered, repeats as duplicates, any damage as corruption.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <dvp_byteorder.h>
#include <dvp_errno.h>

#include "sim_dev.h"
#include "sim_pkt.h"
#include "sim_traffic.h"
#include "sim_wq.h"

#define GEN_MAGIC 0x44565053u /* "DVPS" */
#define GEN_HDR_LEN 42u /* Ethernet + IPv4 + UDP */
#define GEN_HDR6_LEN 62u /* Ethernet + IPv6 + UDP */
#define GEN_PAYLOAD_HDR 16u /* magic, flow, sequence */
#define SOURCE_BURST 64

static uint8_t pattern_byte(uint32_t flow, uint64_t seq, uint32_t i)
{
	return (uint8_t)(seq * 31u + flow * 7u + i);
}

/* The payload of source frame @p seq of @p flow, after @p hdr bytes of headers. */
static void payload_put(uint8_t *f, uint32_t hdr, size_t len, uint32_t flow, uint64_t seq)
{
	dvp_be32_put(f + hdr, GEN_MAGIC);
	dvp_be32_put(f + hdr + 4, flow);
	dvp_be32_put(f + hdr + 8, (uint32_t)(seq >> 32));
	dvp_be32_put(f + hdr + 12, (uint32_t)seq);
	for (uint32_t i = hdr + GEN_PAYLOAD_HDR; i < len; i++)
		f[i] = pattern_byte(flow, seq, i);
}

int sim_mlx5_frame_build(void *buf, size_t len, uint32_t flow, uint64_t seq,
			 const uint8_t dst_mac[6])
{
	static const uint8_t src_mac[6] = { 0x02, 0x53, 0x47, 0x45, 0x4e, 0x00 };
	uint8_t *f = buf;
	struct sim_pkt p;

	if (buf == NULL || dst_mac == NULL || len < SIM_FRAME_MIN || len > SIM_FRAME_MAX ||
	    flow >= SIM_MAX_FLOWS_PER_SOURCE)
		return dvp_err(EINVAL);
	memcpy(f, dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	dvp_be16_put(f + 12, 0x0800);
	f[14] = 0x45;
	f[15] = 0;
	dvp_be16_put(f + 16, (uint16_t)(len - 14));
	dvp_be16_put(f + 18, (uint16_t)seq);
	dvp_be16_put(f + 20, 0x4000); /* DF */
	f[22] = 64;
	f[23] = 17; /* UDP */
	dvp_be32_put(f + 26, 0xc6120000u + flow); /* 198.18.0.0 + flow */
	dvp_be32_put(f + 30, 0xc6130001u); /* 198.19.0.1 */
	dvp_be16_put(f + 34, (uint16_t)(0xc000u | (flow & 0x3fffu)));
	dvp_be16_put(f + 36, 9); /* discard */
	dvp_be16_put(f + 38, (uint16_t)(len - 34));
	payload_put(f, GEN_HDR_LEN, len, flow, seq);
	sim_pkt_parse(f, (uint32_t)len, &p);
	sim_pkt_fill_ipv4_csum(f, &p);
	sim_pkt_fill_l4_csum(f, &p);
	return (int)len;
}

int sim_mlx5_frame_build6(void *buf, size_t len, uint32_t flow, uint64_t seq,
			  const uint8_t dst_mac[6])
{
	static const uint8_t src_mac[6] = { 0x02, 0x53, 0x47, 0x45, 0x4e, 0x00 };
	static const uint8_t net[4] = { 0x20, 0x01, 0x0d, 0xb8 }; /* 2001:db8::/32 */
	uint8_t *f = buf;
	struct sim_pkt p;

	if (buf == NULL || dst_mac == NULL || len < SIM_MLX5_FRAME6_MIN || len > SIM_FRAME_MAX ||
	    flow >= SIM_MAX_FLOWS_PER_SOURCE)
		return dvp_err(EINVAL);
	memset(f, 0, GEN_HDR6_LEN);
	memcpy(f, dst_mac, 6);
	memcpy(f + 6, src_mac, 6);
	dvp_be16_put(f + 12, 0x86dd);
	f[14] = 0x60;
	dvp_be16_put(f + 18, (uint16_t)(len - 54));
	f[20] = 17; /* UDP */
	f[21] = 64;
	memcpy(f + 22, net, 4);
	dvp_be32_put(f + 34, flow);
	memcpy(f + 38, net, 4);
	f[43] = 1; /* 2001:db8:1:: */
	f[53] = 1;
	dvp_be16_put(f + 54, (uint16_t)(0xc000u | (flow & 0x3fffu)));
	dvp_be16_put(f + 56, 9);
	dvp_be16_put(f + 58, (uint16_t)(len - 54));
	payload_put(f, GEN_HDR6_LEN, len, flow, seq);
	sim_pkt_parse(f, (uint32_t)len, &p);
	sim_pkt_fill_l4_csum(f, &p);
	return (int)len;
}

int sim_traffic_init(struct sim_port *port)
{
	if (port->source.frame == NULL) {
		port->source.frame = malloc(SIM_FRAME_MAX);
		if (port->source.frame == NULL)
			return -ENOMEM;
	}
	return 0;
}

void sim_traffic_fini(struct sim_port *port)
{
	free(port->source.frame);
	port->source.frame = NULL;
	free(port->sink.flows);
	port->sink.flows = NULL;
	port->sink.nflows = 0;
}

/* Frames the source may still send in the current on-phase, at its rate. */
static uint64_t source_allowance(struct sim_source *s, uint64_t now)
{
	const struct sim_mlx5_source_conf *c = &s->conf;
	uint64_t t = now - s->start_ns, phase = s->start_ns, due;

	if (c->off_ns != 0) {
		uint64_t cycle = c->on_ns + c->off_ns;

		if (t % cycle >= c->on_ns)
			return 0;
		phase = s->start_ns + t / cycle * cycle;
	}
	if (phase != s->phase_start) {
		s->phase_start = phase;
		s->phase_sent = 0;
	}
	if (c->rate_pps == 0)
		return SOURCE_BURST;
	/* Frame k of the phase is due at k / rate: 128 bits keep hours at Gpps exact. */
	due = (uint64_t)((__uint128_t)(now - phase) * c->rate_pps / 1000000000u) + 1;
	return due > s->phase_sent ? due - s->phase_sent : 0;
}

static void source_build(struct sim_port *port)
{
	struct sim_source *s = &port->source;
	const struct sim_mlx5_source_conf *c = &s->conf;
	uint32_t len = c->sizes[s->next % c->nsizes];

	(c->ipv6 ? sim_mlx5_frame_build6 : sim_mlx5_frame_build)(
		s->frame, len, (uint32_t)(s->next % c->flows), s->next / c->flows, port->mac);
	if (c->vlan) {
		/* The buffer holds SIM_FRAME_MAX: a frame of MTU + 14 and a tag fit. */
		memmove(s->frame + 16, s->frame + 12, len - 12);
		dvp_be16_put(s->frame + 12, 0x8100);
		dvp_be16_put(s->frame + 14, c->nvlan_tcis > 0 ?
						    c->vlan_tcis[s->next % c->nvlan_tcis] :
						    c->vlan_tci);
		len += 4;
	}
	s->frame_len = len;
	s->pending = true;
}

int sim_source_poll(struct sim_port *port, uint64_t now)
{
	struct sim_source *s = &port->source;
	uint64_t allowed;
	int n = 0;

	if (!s->running || port->cable != SIM_CABLE_TRAFFIC)
		return 0;
	if (s->conf.count != 0 && s->st.sent >= s->conf.count) {
		s->st.done = true;
		return 0;
	}
	/*
	 * As a generator waits for its link partner: nothing until the port
	 * receives, and the schedule starts over when it does.
	 */
	if (TAILQ_EMPTY(&port->flows) || !port->link_up) {
		s->scheduled = false;
		return 0;
	}
	if (!s->scheduled) {
		s->start_ns = s->phase_start = now;
		s->phase_sent = 0;
		s->scheduled = true;
	}
	allowed = DVP_MIN(source_allowance(s, now), (uint64_t)SOURCE_BURST);
	while ((uint64_t)n < allowed && (s->conf.count == 0 || s->st.sent < s->conf.count)) {
		if (!s->pending) {
			source_build(port);
			/* The wire's faults strike once per frame, before flow control. */
			if (!sim_wire_pass(port->dev, port, s->frame, s->frame_len)) {
				s->pending = false;
				goto sent;
			}
		}
		if (sim_rx_frame(port, s->frame, s->frame_len, true) == SIM_RX_HOLD) {
			s->st.paused++;
			break;
		}
		s->pending = false;
sent:
		s->st.sent++;
		s->st.bytes += s->frame_len;
		s->phase_sent++;
		s->next++;
		n++;
	}
	return n;
}

static struct sim_sink_flow *sink_flow(struct sim_sink *k, uint32_t flow)
{
	if (flow >= k->nflows) {
		uint32_t n = dvp_align32pow2(flow + 1);
		struct sim_sink_flow *f = realloc(k->flows, (size_t)n * sizeof(*f));

		if (f == NULL)
			return NULL;
		memset(f + k->nflows, 0, (size_t)(n - k->nflows) * sizeof(*f));
		k->flows = f;
		k->nflows = n;
	}
	return &k->flows[flow];
}

static bool frame_intact(const uint8_t *f, uint32_t len, const struct sim_pkt *p, uint32_t hdr,
			 uint32_t flow, uint64_t seq)
{
	if (p->l4_proto != 17 || p->l3_end != len || p->l4_off + 8 != hdr ||
	    (p->l3 == 4 ? !sim_pkt_ipv4_csum_ok(p) : p->l3 != 6) || !sim_pkt_l4_csum_ok(p))
		return false;
	for (uint32_t i = hdr + GEN_PAYLOAD_HDR; i < len; i++)
		if (f[i] != pattern_byte(flow, seq, i))
			return false;
	return true;
}

void sim_sink_frame(struct sim_port *port, const uint8_t *f, uint32_t len)
{
	struct sim_sink *k = &port->sink;
	struct sim_sink_flow *sf;
	struct sim_pkt p;
	uint32_t flow;
	uint64_t seq, d;
	uint8_t untagged[SIM_FRAME_MAX];
	uint32_t hdr;
	int tci = -1;

	/* A tag inserted on the way (tx VLAN insertion): checked as the frame without it. */
	if (len >= GEN_HDR_LEN + GEN_PAYLOAD_HDR + 4 && f[12] == 0x81 && f[13] == 0x00) {
		tci = f[14] << 8 | f[15];
		memcpy(untagged, f, 12);
		memcpy(untagged + 12, f + 16, len - 16);
		f = untagged;
		len -= 4;
	}

	hdr = len >= 14 && f[12] == 0x86 && f[13] == 0xdd ? GEN_HDR6_LEN : GEN_HDR_LEN;
	if (len < hdr + GEN_PAYLOAD_HDR || dvp_be32_get(f + hdr) != GEN_MAGIC) {
		k->st.foreign++;
		return;
	}
	flow = dvp_be32_get(f + hdr + 4);
	seq = (uint64_t)dvp_be32_get(f + hdr + 8) << 32 | dvp_be32_get(f + hdr + 12);
	sim_pkt_parse(f, len, &p);
	if (flow >= SIM_MAX_FLOWS_PER_SOURCE || !frame_intact(f, len, &p, hdr, flow, seq) ||
	    (sf = sink_flow(k, flow)) == NULL) {
		k->st.corrupt++;
		return;
	}
	if (seq >= sf->next) {
		d = seq - sf->next;
		k->st.lost += d;
		sf->window = d + 1 >= 64 ? 1 : sf->window << (d + 1) | 1;
		sf->next = seq + 1;
	} else {
		d = sf->next - 1 - seq;
		if (d < 64 && (sf->window & (1ull << d))) {
			k->st.duplicates++;
			return;
		}
		if (d < 64)
			sf->window |= 1ull << d;
		k->st.reordered++;
		if (k->st.lost > 0)
			k->st.lost--;
	}
	sf->unique++;
	k->st.received++;
	k->st.bytes += len;
	if (tci >= 0) {
		k->st.vlan++;
		k->st.vlan_tci = (uint64_t)tci;
	}
}

/* --- Capture ------------------------------------------------------------------ */

void sim_capture_frame(struct sim_port *port, const uint8_t *frame, uint32_t len)
{
	struct sim_capture *c = &port->cap;
	uint32_t slot = (c->head + c->count) % c->depth;
	uint8_t *dst = c->frames + (size_t)slot * (4 + SIM_FRAME_MAX);

	memcpy(dst, &len, 4);
	memcpy(dst + 4, frame, len);
	if (c->count < c->depth)
		c->count++;
	else
		c->head = (c->head + 1) % c->depth; /* the oldest is overwritten */
}

void sim_capture_fini(struct sim_port *port)
{
	free(port->cap.frames);
	memset(&port->cap, 0, sizeof(port->cap));
}

int sim_mlx5_capture(struct sim_mlx5_dev *dev, unsigned int port, unsigned int depth)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);
	uint8_t *frames = NULL;

	if (p == NULL)
		return -dvp_errno;
	if (depth > 4096) {
		SIM_LOG(ERR, dev, "capture: depth %u; valid is 0..4096", depth);
		return dvp_err(EINVAL);
	}
	if (depth > 0) {
		frames = malloc((size_t)depth * (4 + SIM_FRAME_MAX));
		if (frames == NULL)
			return dvp_err(ENOMEM);
	}
	pthread_mutex_lock(&dev->lock);
	sim_capture_fini(p);
	p->cap.frames = frames;
	p->cap.depth = depth;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_mlx5_capture_pop(struct sim_mlx5_dev *dev, unsigned int port, void *buf, size_t size)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);
	struct sim_capture *c;
	uint32_t len = 0;

	if (p == NULL)
		return -dvp_errno;
	if (buf == NULL)
		return dvp_err(EINVAL);
	c = &p->cap;
	pthread_mutex_lock(&dev->lock);
	if (c->count > 0) {
		const uint8_t *src = c->frames + (size_t)c->head * (4 + SIM_FRAME_MAX);

		memcpy(&len, src, 4);
		memcpy(buf, src + 4, DVP_MIN((size_t)len, size));
		c->head = (c->head + 1) % c->depth;
		c->count--;
	}
	pthread_mutex_unlock(&dev->lock);
	return (int)len;
}

/* --- Source and sink API --------------------------------------------------- */

static struct sim_port *traffic_port(struct sim_mlx5_dev *dev, unsigned int port, const char *fn)
{
	struct sim_port *p = sim_port_get(dev, port, fn);

	if (p != NULL && p->cable != SIM_CABLE_TRAFFIC) {
		SIM_LOG(ERR, dev,
			"%s: port %u is not cabled to its traffic source and sink "
			"(cable=traffic or sim_mlx5_cable_traffic())",
			fn, port);
		dvp_errno = ENOTCONN;
		return NULL;
	}
	return p;
}

int sim_mlx5_source_set(struct sim_mlx5_dev *dev, unsigned int port,
			const struct sim_mlx5_source_conf *conf)
{
	struct sim_port *p = traffic_port(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	if (conf == NULL || conf->nsizes < 1 || conf->nsizes > SIM_MLX5_MAX_SIZES ||
	    conf->flows < 1 || conf->flows > SIM_MAX_FLOWS_PER_SOURCE ||
	    (conf->off_ns != 0 && conf->on_ns == 0)) {
		SIM_LOG(ERR, dev,
			"source_set: need 1..%u sizes, 1..%u flows, and an on time with "
			"an off time",
			SIM_MLX5_MAX_SIZES, SIM_MAX_FLOWS_PER_SOURCE);
		return dvp_err(EINVAL);
	}
	for (unsigned int i = 0; i < conf->nsizes; i++) {
		/*
		 * The source is the link partner: its frames may be longer than
		 * the port's MTU (then dropped on arrival, and counted), up to
		 * what the wire carries.
		 */
		uint32_t min = conf->ipv6 ? SIM_MLX5_FRAME6_MIN : SIM_FRAME_MIN;

		if (conf->sizes[i] < min || conf->sizes[i] > SIM_MTU_MAX + 14u) {
			SIM_LOG(ERR, dev, "source_set: frame size %u; valid is %u..%u%s",
				conf->sizes[i], min, SIM_MTU_MAX + 14u,
				conf->ipv6 ? " for IPv6 frames" : "");
			return dvp_err(EINVAL);
		}
	}
	pthread_mutex_lock(&dev->lock);
	/* A new run counts from 0; the port's counters go on from the totals. */
	p->source.past.sent += p->source.st.sent;
	p->source.past.bytes += p->source.st.bytes;
	p->source.past.paused += p->source.st.paused;
	memset(&p->source.st, 0, sizeof(p->source.st));
	p->source.conf = *conf;
	p->source.next = 0;
	p->source.pending = false;
	p->source.scheduled = false;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

static int source_run(struct sim_mlx5_dev *dev, unsigned int port, bool run, const char *fn)
{
	struct sim_port *p = traffic_port(dev, port, fn);

	if (p == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&dev->lock);
	if (run && !p->source.running)
		p->source.scheduled = false;
	p->source.running = run;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_mlx5_source_start(struct sim_mlx5_dev *dev, unsigned int port)
{
	return source_run(dev, port, true, __func__);
}

int sim_mlx5_source_stop(struct sim_mlx5_dev *dev, unsigned int port)
{
	return source_run(dev, port, false, __func__);
}

int sim_mlx5_source_stats(struct sim_mlx5_dev *dev, unsigned int port,
			  struct sim_mlx5_source_stats *st)
{
	struct sim_port *p = sim_port_lock_out(dev, port, st, __func__);

	if (p == NULL)
		return -dvp_errno;
	*st = p->source.st;
	st->done = p->source.conf.count != 0 && st->sent >= p->source.conf.count;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

void sim_traffic_totals(struct sim_port *p, struct sim_mlx5_source_stats *src,
			struct sim_mlx5_sink_stats *sink)
{
	pthread_mutex_lock(&p->dev->lock);
	*src = p->source.st;
	src->sent += p->source.past.sent;
	src->bytes += p->source.past.bytes;
	src->paused += p->source.past.paused;
	*sink = p->sink.st;
	sink->received += p->sink.past.received;
	sink->bytes += p->sink.past.bytes;
	sink->lost += p->sink.past.lost;
	sink->reordered += p->sink.past.reordered;
	sink->duplicates += p->sink.past.duplicates;
	sink->corrupt += p->sink.past.corrupt;
	sink->foreign += p->sink.past.foreign;
	sink->vlan += p->sink.past.vlan;
	pthread_mutex_unlock(&p->dev->lock);
}

int sim_mlx5_sink_stats(struct sim_mlx5_dev *dev, unsigned int port, struct sim_mlx5_sink_stats *st)
{
	struct sim_port *p = sim_port_lock_out(dev, port, st, __func__);

	if (p == NULL)
		return -dvp_errno;
	*st = p->sink.st;
	pthread_mutex_unlock(&dev->lock);
	return 0;
}

int sim_mlx5_sink_reset(struct sim_mlx5_dev *dev, unsigned int port)
{
	struct sim_port *p = sim_port_get(dev, port, __func__);

	if (p == NULL)
		return -dvp_errno;
	pthread_mutex_lock(&dev->lock);
	p->sink.past.received += p->sink.st.received;
	p->sink.past.bytes += p->sink.st.bytes;
	p->sink.past.lost += p->sink.st.lost;
	p->sink.past.reordered += p->sink.st.reordered;
	p->sink.past.duplicates += p->sink.st.duplicates;
	p->sink.past.corrupt += p->sink.st.corrupt;
	p->sink.past.foreign += p->sink.st.foreign;
	p->sink.past.vlan += p->sink.st.vlan;
	memset(&p->sink.st, 0, sizeof(p->sink.st));
	if (p->sink.flows != NULL)
		memset(p->sink.flows, 0, (size_t)p->sink.nflows * sizeof(*p->sink.flows));
	pthread_mutex_unlock(&dev->lock);
	return 0;
}
