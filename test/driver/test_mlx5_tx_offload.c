/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The mlx5 PMD's tx VLAN insertion and TSO on sim_mlx5: the tag inserted
 * on every tx path (SEND, eMPW, eMPW with inline frames), by the device
 * from the Ethernet segment where it has wqe_vlan_insert and by the
 * driver into the inline headers where it has not; TSO messages of
 * several sizes (mss not dividing the payload, payload below mss, the
 * device's largest), IPv4 and IPv6, with and without a tag, headers split across
 * segments; TSO requests the device would refuse dropped and counted,
 * none lost. Every frame the port sends is captured and compared byte for
 * byte with one built here, independently of the sim, checksums and all.
 */

#include "mlx5_fixture.h"

#include <netinet/in.h>

#include "mlx5_tx.h"

#define OFFLOADS                                                                           \
	(DVP_TX_OFFLOAD_VLAN_INSERT | DVP_TX_OFFLOAD_TCP_TSO | DVP_TX_OFFLOAD_IPV4_CKSUM | \
	 DVP_TX_OFFLOAD_TCP_CKSUM | DVP_TX_OFFLOAD_MULTI_SEGS)

/* Room for any frame the sim sends (its largest MTU + 18). */
#define FRAME_MAX 10240u

static uint8_t got[FRAME_MAX];

/* ---- Frames built here ------------------------------------------------- */

static uint32_t csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* A TCP segment's description: what changes from one frame of a message to the next. */
struct tcp_desc {
	bool vlan;
	uint16_t tci;
	uint16_t ip_id;
	uint32_t seq;
	uint8_t flags;
	uint32_t opt_len; /* TCP options, a multiple of 4 */
	bool v6; /* IPv6, else IPv4 */
};

/* Payload byte @p i of every message. */
static uint8_t payload_byte(uint32_t i)
{
	return (uint8_t)(i * 7u + (i >> 8));
}

/* The IP header of a frame of @p d at @p ip, @p l4_bytes after it; the pseudo header's sum. */
static uint32_t ip_header(uint8_t *ip, const struct tcp_desc *d, uint32_t l4_bytes)
{
	uint8_t len[4];

	if (d->v6) {
		memset(ip, 0, 40);
		ip[0] = 0x60;
		put16(ip + 4, (uint16_t)l4_bytes);
		ip[6] = IPPROTO_TCP;
		ip[7] = 64;
		ip[8] = 0xfd; /* fd00::1 to fd00::2 */
		ip[23] = 1;
		ip[24] = 0xfd;
		ip[39] = 2;
		put32(len, l4_bytes);
		return csum_add(csum_add(IPPROTO_TCP, ip + 8, 32), len, 4);
	}
	memset(ip, 0, 20);
	ip[0] = 0x45;
	put16(ip + 2, (uint16_t)(20 + l4_bytes));
	put16(ip + 4, d->ip_id);
	put16(ip + 6, 0x4000); /* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_TCP;
	put32(ip + 12, 0x0a000001);
	put32(ip + 16, 0x0a000002);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	return csum_add(IPPROTO_TCP + l4_bytes, ip + 12, 8);
}

/*
 * A TCP frame over IPv4 or IPv6 into @p buf: the headers of @p d, the
 * payload bytes @p off to @p off + @p n, the IPv4 and TCP checksums right.
 * @return its length.
 */
static uint32_t tcp_frame(uint8_t *buf, const struct tcp_desc *d, uint32_t off, uint32_t n)
{
	static const uint8_t macs[12] = { 2, 0, 0, 0, 0, 9, 2, 0, 0, 0, 0, 1 };
	uint32_t l3 = d->vlan ? 18 : 14, l4 = l3 + (d->v6 ? 40 : 20), thl = 20 + d->opt_len, sum;

	memcpy(buf, macs, 12);
	if (d->vlan) {
		put16(buf + 12, 0x8100);
		put16(buf + 14, d->tci);
	}
	put16(buf + l3 - 2, d->v6 ? 0x86dd : 0x0800);
	sum = ip_header(buf + l3, d, thl + n);
	memset(buf + l4, 0, thl);
	put16(buf + l4, 40000);
	put16(buf + l4 + 2, 80);
	put32(buf + l4 + 4, d->seq);
	put32(buf + l4 + 8, 0x01020304);
	buf[l4 + 12] = (uint8_t)(thl / 4 << 4);
	buf[l4 + 13] = d->flags;
	put16(buf + l4 + 14, 0xffff);
	for (uint32_t i = 0; i < d->opt_len; i++)
		buf[l4 + 20 + i] = i + 4 < d->opt_len ? 1 : 0; /* NOPs, then EOL */
	for (uint32_t i = 0; i < n; i++)
		buf[l4 + thl + i] = payload_byte(off + i);
	put16(buf + l4 + 16, csum_fold(csum_add(sum, buf + l4, thl + n)));
	return l4 + thl + n;
}

/* ---- Ports ---------------------------------------------------------------- */

static struct sim_mlx5_port_stats port_stats(struct mf *f)
{
	struct sim_mlx5_port_stats ps;

	assert_int_equal(sim_mlx5_port_stats(f->sim, 0, &ps), 0);
	return ps;
}

static uint64_t oerrors(struct mf *f)
{
	struct dvp_port_stats st;

	assert_int_equal(dvp_stats_get(f->port[0], &st), 0);
	return st.oerrors;
}

/* A port with the offloads on @p ntx tx queues (8: inline eMPW where the device has eMPW). */
static void open_port(struct mf *f, const char *args, uint16_t ntx)
{
	struct dvp_port_conf conf;

	memset(&conf, 0, sizeof(conf));
	conf.txmode.offloads = OFFLOADS;
	mf_open(f, args, 1024);
	mf_port_start(f, 0, 1, ntx, &conf, 256);
	assert_int_equal(sim_mlx5_capture(f->sim, 0, 512), 0);
}

/* Let the device send everything and give the completions back. */
static void drain(struct mf *f)
{
	dvp_tx_burst(f->port[0], 0, NULL, 0);
	sim_mlx5_step_idle(f->sim, 100);
	dvp_tx_burst(f->port[0], 0, NULL, 0);
}

/* The next captured frame is @p want (@p len bytes). */
static void expect_frame(struct mf *f, const uint8_t *want, uint32_t len)
{
	int n = sim_mlx5_capture_pop(f->sim, 0, got, sizeof(got));

	assert_int_equal(n, (int)len);
	assert_memory_equal(got, want, len);
}

static void expect_no_frame(struct mf *f)
{
	assert_int_equal(sim_mlx5_capture_pop(f->sim, 0, got, sizeof(got)), 0);
}

/* ---- VLAN insertion --------------------------------------------------------- */

/*
 * On each tx path, and with the device inserting or the driver: a burst
 * mixing frames with and without a tag to insert, short ones (the inline
 * fast loop's) among them; each frame captured as it should leave.
 */
static void test_vlan_insert_every_path(void **state)
{
	static const struct {
		const char *args;
		uint16_t ntx;
	} cases[] = {
		{ "ports=1,mode=step", 1 }, /* eMPW (SEND where the device has none) */
		{ "ports=1,mode=step", 8 }, /* eMPW with inline frames */
		{ "ports=1,mode=step,empw=off", 1 }, /* SEND */
		{ "ports=1,mode=step,empw=off", 8 }, /* SEND, frames inline whole */
		{ "ports=1,mode=step,vlan_insert=off", 1 }, /* the driver inserts */
		{ "ports=1,mode=step,vlan_insert=off,empw=off", 8 },
		{ "ports=1,mode=step,inline_mode=l2", 1 }, /* headers inline: the driver */
	};
	static const uint32_t lens[] = { 60, 60, 200, 64, 1000, 1514, 62, 300, 60, 1200 };
	uint8_t frame[2048], want[2048];

	(void)state;
	for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
		struct dvp_mbuf *pkts[DVP_DIM(lens)];
		struct mf f;

		open_port(&f, cases[c].args, cases[c].ntx);
		print_message("%s, %u tx queues: %s\n", cases[c].args, cases[c].ntx,
			      dvp_port_get(f.port[0])->tx_pkt_burst == mlx5_tx_burst_off ?
				      "SEND" :
			      dvp_port_get(f.port[0])->tx_pkt_burst == mlx5_tx_burst_empw_off ?
				      "eMPW" :
				      "eMPW inline");
		for (int round = 0; round < 3; round++) {
			for (unsigned int i = 0; i < DVP_DIM(lens); i++) {
				pkts[i] = mf_frame(&f, lens[i] - (i == 5 ? 4 : 0), 0,
						   round * 100 + i, 2048);
				/* Every other frame, and both of the first two, get a tag. */
				if (i % 2 == 0 || i == 1) {
					pkts[i]->ol_flags |= DVP_MBUF_F_TX_VLAN;
					pkts[i]->vlan_tci = (uint16_t)(0x2000 | (100 + i));
				}
			}
			mf_tx_all(&f, f.port[0], 0, pkts, DVP_DIM(lens));
			drain(&f);
			for (unsigned int i = 0; i < DVP_DIM(lens); i++) {
				uint32_t len = lens[i] - (i == 5 ? 4 : 0);
				bool tag = i % 2 == 0 || i == 1;
				static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 9 };

				assert_int_equal(sim_mlx5_frame_build(frame, len, 0,
								      (uint64_t)(round * 100 + i),
								      dst),
						 (int)len);
				if (!tag) {
					expect_frame(&f, frame, len);
					continue;
				}
				memcpy(want, frame, 12);
				put16(want + 12, 0x8100);
				put16(want + 14, (uint16_t)(0x2000 | (100 + i)));
				memcpy(want + 16, frame + 12, len - 12);
				expect_frame(&f, want, len + 4);
			}
			expect_no_frame(&f);
		}
		assert_int_equal(oerrors(&f), 0);
		mf_close(&f);
	}
}

/* ---- TSO -------------------------------------------------------------------- */

/* A pool of mbufs large enough for the device's largest TSO message in a few segments. */
static struct dvp_mempool *big_pool(void)
{
	static unsigned int pools;
	char name[32];
	struct dvp_mempool *mp;

	snprintf(name, sizeof(name), "tso_pool%u", pools++);
	mp = dvp_pktmbuf_pool_create(name, 64, 0, 0, 32768 + DVP_PKTMBUF_HEADROOM, DVP_SOCKET_ANY);
	assert_non_null(mp);
	return mp;
}

/*
 * A TSO message of @p payload bytes in mbufs of @p mp, the first
 * @p first bytes long (headers may be split), the others @p seg.
 */
static struct dvp_mbuf *tso_message(struct dvp_mempool *mp, const struct tcp_desc *d,
				    uint32_t payload, uint16_t mss, uint32_t first, uint32_t seg)
{
	static uint8_t msg[(1u << 18) + 256];
	struct dvp_mbuf *head = NULL;
	uint32_t len = tcp_frame(msg, d, 0, payload), off = 0;

	while (off < len) {
		struct dvp_mbuf *m = dvp_pktmbuf_alloc(mp);
		uint32_t n = DVP_MIN(off == 0 ? first : seg, len - off);

		assert_non_null(m);
		memcpy(dvp_pktmbuf_append(m, (uint16_t)n), msg + off, n);
		if (head == NULL)
			head = m;
		else
			assert_int_equal(dvp_pktmbuf_chain(head, m), 0);
		off += n;
	}
	/* The tag is the device's to insert: the message has none. */
	head->ol_flags = DVP_MBUF_F_TX_TCP_SEG | DVP_MBUF_F_TX_TCP_CKSUM |
			 (d->v6 ? DVP_MBUF_F_TX_IPV6 : DVP_MBUF_F_TX_IPV4 | DVP_MBUF_F_TX_IP_CKSUM);
	head->tx.l2_len = 14;
	head->tx.l3_len = d->v6 ? 40 : 20;
	head->tx.l4_len = 20 + d->opt_len;
	head->tx.tso_segsz = mss;
	return head;
}

/* The frames a message of @p payload bytes at mss @p mss leaves as, one by one. */
static void expect_segments(struct mf *f, const struct tcp_desc *d, uint32_t payload, uint16_t mss)
{
	static uint8_t want[FRAME_MAX];
	uint32_t i = 0;

	for (uint32_t off = 0; off < payload; off += mss, i++) {
		struct tcp_desc s = *d;
		uint32_t n = DVP_MIN((uint32_t)mss, payload - off);
		bool last = off + n == payload;

		s.ip_id = (uint16_t)(d->ip_id + i);
		s.seq = d->seq + off;
		if (!last)
			s.flags &= (uint8_t)~0x09u; /* FIN and PSH on the last alone */
		expect_frame(f, want, tcp_frame(want, &s, off, n));
	}
}

static void send_one(struct mf *f, struct dvp_mbuf *m)
{
	mf_tx_all(f, f->port[0], 0, &m, 1);
	drain(f);
}

static void test_tso_sizes(void **state)
{
	static const char *const args[] = { "ports=1,mode=step", "ports=1,mode=step,empw=off",
					    "ports=1,mode=step,vlan_insert=off" };
	static const struct {
		uint32_t payload;
		uint16_t mss;
		uint32_t first, seg;
		uint32_t opt_len;
		bool vlan, v6;
	} cases[] = {
		{ 4000, 1000, 2048, 2048, 0, false }, /* mss divides the payload */
		{ 4001, 1000, 30, 1500, 0, true }, /* one byte more: a last frame of 1 */
		{ 10000, 1448, 66, 3000, 12, false }, /* options; headers alone in the first */
		{ 500, 1000, 600, 600, 0, true }, /* payload below mss: one frame */
		{ 65000, 1460, 20, 32768, 0, false }, /* the first segment ends in the IP header */
		{ 1u << 18, 1456, 32768, 32768, 0, true }, /* the device's largest */
		{ 7000, 1000, 74, 2048, 8, false, true }, /* IPv6 */
		{ 999, 1436, 2048, 2048, 0, true, true }, /* IPv6, one frame */
	};

	(void)state;
	for (unsigned int a = 0; a < DVP_DIM(args); a++) {
		struct dvp_mempool *mp = big_pool();
		struct mf f;

		open_port(&f, args[a], 1);
		assert_true(dvp_port_get(f.port[0])->tx_pkt_burst == mlx5_tx_burst_off ||
			    dvp_port_get(f.port[0])->tx_pkt_burst == mlx5_tx_burst_empw_off);
		for (unsigned int c = 0; c < DVP_DIM(cases); c++) {
			struct tcp_desc d = { .vlan = false,
					      .ip_id = (uint16_t)(0xfff0 + c),
					      .seq = 0xfffff000u + c,
					      .flags = 0x19, /* ACK, PSH, FIN */
					      .opt_len = cases[c].opt_len,
					      .v6 = cases[c].v6 };
			struct dvp_mbuf *m;
			uint64_t before = port_stats(&f).tx_lso_wqes;

			m = tso_message(mp, &d, cases[c].payload, cases[c].mss, cases[c].first,
					cases[c].seg);
			if (cases[c].vlan) {
				m->ol_flags |= DVP_MBUF_F_TX_VLAN;
				m->vlan_tci = 0x0123;
				d.vlan = true;
				d.tci = 0x0123;
			}
			send_one(&f, m);
			assert_int_equal(port_stats(&f).tx_lso_wqes, before + 1);
			expect_segments(&f, &d, cases[c].payload, cases[c].mss);
			expect_no_frame(&f);
		}
		assert_int_equal(oerrors(&f), 0);
		mf_close(&f);
		assert_int_equal(dvp_pktmbuf_pool_in_use(mp), 0);
		dvp_mempool_free(mp);
	}
}

/*
 * TSO requests the device would refuse: dropped by the driver and counted
 * in oerrors, nothing sent, every mbuf back; a good one after them goes.
 */
static void test_tso_refused(void **state)
{
	struct dvp_mempool *mp = big_pool();
	struct tcp_desc d = { .ip_id = 1, .seq = 1000, .flags = 0x10 };
	struct dvp_mbuf *pkts[6];
	struct mf f;

	(void)state;
	open_port(&f, "ports=1,mode=step", 1);
	pkts[0] = tso_message(mp, &d, 3000, 0, 2048, 2048); /* mss 0 */
	pkts[1] = tso_message(mp, &d, 3000, 1000, 2048, 2048);
	pkts[1]->tx.l4_len = 200; /* headers too long for a WQE */
	pkts[2] = tso_message(mp, &d, (1u << 18) + 1, 1000, 32768, 32768); /* too large */
	pkts[3] = tso_message(mp, &d, 3000, 1500, 2048, 2048); /* frames above the MTU */
	pkts[4] = tso_message(mp, &d, 3000, 1000, 2048, 2048);
	pkts[4]->tx.l3_len = 0; /* no IP header */
	pkts[5] = tso_message(mp, &d, 3000, 1000, 2048, 2048); /* good */
	mf_tx_all(&f, f.port[0], 0, pkts, 6);
	drain(&f);
	assert_int_equal(oerrors(&f), 5);
	expect_segments(&f, &d, 3000, 1000);
	expect_no_frame(&f);
	assert_int_equal(port_stats(&f).tx_lso_wqes, 1);
	mf_close(&f);
	assert_int_equal(dvp_pktmbuf_pool_in_use(mp), 0);
	dvp_mempool_free(mp);
}

/* Without the offloads asked, the port keeps the bursts that never look for them. */
static void test_offloads_off_keep_bursts(void **state)
{
	struct mf f;
	dvp_tx_burst_fn fn;

	(void)state;
	mf_open(&f, "ports=1,mode=step", 256);
	mf_port_start(&f, 0, 1, 1, NULL, 256);
	fn = dvp_port_get(f.port[0])->tx_pkt_burst;
	assert_true(fn == mlx5_tx_burst || fn == mlx5_tx_burst_empw);
	mf_close(&f);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vlan_insert_every_path),
		cmocka_unit_test(test_tso_sizes),
		cmocka_unit_test(test_tso_refused),
		cmocka_unit_test(test_offloads_off_keep_bursts),
	};

	mf_args(argc, argv);
	return cmocka_run_group_tests(tests, mf_eal_init, mf_eal_cleanup);
}
