/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * A DPDK application of our own over net_dvp, for what testpmd cannot show:
 *
 *  - a received rte_mbuf's data is where the device wrote it: the mbuf is
 *    from the application's pool and direct, its buffer is its own (the one
 *    the dvp rx queue posted to the device from that pool: there is no
 *    other buffer a copy could have come from), and the frame in it is the
 *    sim source's, intact;
 *  - rx interrupts by DPDK's API: the lcore sleeps in rte_epoll_wait on the
 *    queue's fd and wakes for the next burst of the source;
 *  - tx takes the application's mbufs as they are, from the rx pool and
 *    from a pool made after the port started (registered with the device
 *    when it was made), and copies only what dvpmd cannot send as it is
 *    (clones: indirect mbufs, external buffers, chains the queue was not
 *    set up for), also in the middle of a burst, as the tx_copied xstat
 *    shows, and the sink gets every frame;
 *  - every rte_mbuf is back in the application's pools after close;
 *  - with --chunks N, all of the above with an rx pool of N memory chunks
 *    apart (one mbuf per 4 KB page, a page left out between two), where
 *    DPDK's own pools come in as many chunks as their memory has
 *    IOVA-contiguous runs: the device must receive into and send from
 *    any of them;
 *  - with --monitor, the power monitor: between the source's bursts the
 *    lcore sleeps as DPDK's power management does, on the address
 *    rte_eth_get_monitor_addr() gives, until the check of the value there
 *    says the queue has work (with UMWAIT/MONITORX where the CPU has them;
 *    where not, by reading the address until the check says so), and each
 *    time it says so a burst returns packets;
 *  - with --secondary, as a secondary process beside a primary that
 *    forwards on net_dvp ports: the ports are there with their info, link,
 *    stats and xstats read from the primary; configuration ops answer
 *    -ENOTSUP and change nothing; rx and tx bursts are refused (0, the
 *    mbufs stay ours) and counted in rx_secondary_refused and
 *    tx_secondary_refused; the power monitor is refused too.
 *
 * The first net_dvp port is used; with another driver's port before it,
 * its ethdev and dvp port numbers differ and rx rewrites each mbuf's port.
 *
 * Usage: net_dvp_app <EAL args: -d PLUGIN --vdev net_dvp0,sim_mlx5,...> -- [--intr] [--port N]
 *                    [--chunks N] [--monitor]
 *        net_dvp_app <EAL args: -d PLUGIN --proc-type=secondary --file-prefix P> -- --secondary
 *   --port N    fail unless the net_dvp port is ethdev port N
 *   --chunks N  the rx pool in N memory chunks (N mbufs)
 * Exit 0 pass, 1 fail.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_interrupts.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_power_intrinsics.h>

#define NB_MBUF 4096
#define BURST 32

static struct rte_mempool *mp;
static struct rte_mempool *tx_pools[2]; /* check_tx()'s, emptied at close */
static void *scattered_area; /* the memory of a --chunks pool */

#define CHECK(cond, ...)                                                   \
	do {                                                               \
		if (!(cond)) {                                             \
			fprintf(stderr, "FAIL: " __VA_ARGS__);             \
			fprintf(stderr, " (%s:%d)\n", __FILE__, __LINE__); \
			exit(1);                                           \
		}                                                          \
	} while (0)

struct range_check {
	const void *p;
	bool inside;
};

static void in_chunk(struct rte_mempool *m, void *opaque, struct rte_mempool_memhdr *hdr,
		     unsigned int idx)
{
	struct range_check *rc = opaque;

	(void)m;
	(void)idx;
	if ((const char *)rc->p >= (const char *)hdr->addr &&
	    (const char *)rc->p < (const char *)hdr->addr + hdr->len)
		rc->inside = true;
}

static bool in_pool(const void *p)
{
	struct range_check rc = { p, false };

	rte_mempool_mem_iter(mp, in_chunk, &rc);
	return rc.inside;
}

/* A sim source frame: Ethernet, IPv4, UDP (drivers/sim/mlx5/sim_pkt.c). */
static bool looks_like_source_frame(const struct rte_mbuf *m)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	return m->data_len >= 60 && d[12] == 0x08 && d[13] == 0x00 && (d[14] >> 4) == 4 &&
	       d[23] == 17;
}

static void check_received(struct rte_mbuf *m, uint16_t port)
{
	char *own = (char *)m + sizeof(*m) + rte_pktmbuf_priv_size(mp);

	CHECK(m->port == port, "an rx mbuf of port %u says port %u", port, m->port);
	CHECK(m->pool == mp, "an rx mbuf from pool %s, not the application's",
	      m->pool ? m->pool->name : "?");
	CHECK(RTE_MBUF_DIRECT(m), "an rx mbuf with an attached buffer (ol_flags 0x%llx)",
	      (unsigned long long)m->ol_flags);
	CHECK(m->buf_addr == own && in_pool(m->buf_addr),
	      "the rx buffer is not the mbuf's own buffer in the application's pool");
	CHECK(rte_mbuf_refcnt_read(m) == 1, "an rx mbuf with refcnt %u", rte_mbuf_refcnt_read(m));
	CHECK(m->buf_iova != RTE_BAD_IOVA && m->buf_iova != 0, "no IOVA for the rx buffer");
	CHECK(rte_pktmbuf_mtod(m, char *) >= (char *)m->buf_addr &&
		      rte_pktmbuf_mtod(m, char *) + m->data_len <= (char *)m->buf_addr + m->buf_len,
	      "data outside its buffer");
	CHECK(looks_like_source_frame(m), "not the source's frame (len %u)", m->data_len);
	CHECK(m->pkt_len == m->data_len && m->nb_segs == 1, "bad lengths %u/%u", m->pkt_len,
	      m->data_len);
}

static uint64_t xstat(uint16_t port, const char *name)
{
	uint64_t id, v;

	CHECK(rte_eth_xstats_get_id_by_name(port, name, &id) == 0, "no xstat %s", name);
	CHECK(rte_eth_xstats_get_by_id(port, &id, &v, 1) == 1, "xstat %s unreadable", name);
	return v;
}

/* Send all of @p pkts, waiting for room: the sim's sink takes them. */
static void send_all(uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t done = 0;
	long spins;

	for (spins = 0; done < n && spins < 100000000; spins++)
		done += rte_eth_tx_burst(port, 0, pkts + done, n - done);
	CHECK(done == n, "sent %u of %u", done, n);
}

static void fill_frame(struct rte_mbuf *m)
{
	uint8_t *d = (uint8_t *)rte_pktmbuf_append(m, 60);

	CHECK(d != NULL, "no room for a frame");
	memset(d, 0, 60);
	memset(d, 0xff, 6); /* broadcast */
	d[12] = 0x08; /* IPv4 */
}

#define TX_N 64

static unsigned int ext_freed;

static void ext_free(void *addr, void *opaque)
{
	(void)opaque;
	rte_free(addr);
	ext_freed++;
}

/* A frame in a buffer of the application's own, attached to an mbuf of mp. */
static struct rte_mbuf *ext_frame(void)
{
	uint16_t len = 256;
	struct rte_mbuf_ext_shared_info *shinfo;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	void *buf = rte_malloc("app_ext", len, RTE_CACHE_LINE_SIZE);

	CHECK(m != NULL && buf != NULL, "alloc for an external buffer");
	shinfo = rte_pktmbuf_ext_shinfo_init_helper(buf, &len, ext_free, NULL);
	CHECK(shinfo != NULL, "external buffer's shared info");
	rte_pktmbuf_attach_extbuf(m, buf, rte_malloc_virt2iova(buf), len, shinfo);
	rte_pktmbuf_reset_headroom(m);
	fill_frame(m);
	CHECK(RTE_MBUF_HAS_EXTBUF(m), "external buffer");
	return m;
}

/* A frame in two segments of mp, which the queue (no MULTI_SEGS) does not send. */
static struct rte_mbuf *chained_frame(void)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp), *tail = rte_pktmbuf_alloc(mp);

	CHECK(m != NULL && tail != NULL, "alloc for a chain");
	fill_frame(m);
	rte_pktmbuf_trim(m, 30);
	CHECK(rte_pktmbuf_append(tail, 30) != NULL, "room in a chain's tail");
	memset(rte_pktmbuf_mtod(tail, char *), 0, 30);
	CHECK(rte_pktmbuf_chain(m, tail) == 0 && m->nb_segs == 2, "chain");
	return m;
}

/*
 * Bursts of direct mbufs with a clone, an external buffer and a chain in
 * the middle: those three are sent as copies, the others as they are, and
 * the sink gets every frame.
 */
static void check_tx_mixed(uint16_t port, struct rte_mempool *clones, uint64_t sunk)
{
	uint64_t copied = xstat(port, "tx_copied");
	struct rte_mbuf *pkts[TX_N], *base;
	unsigned int i, odd = 0, rounds, spins;

	for (rounds = 0; rounds < 8; rounds++) {
		base = rte_pktmbuf_alloc(mp);
		CHECK(base != NULL, "alloc");
		fill_frame(base);
		for (i = 0; i < TX_N; i++) {
			switch ((i + rounds) % 8) {
			case 3:
				pkts[i] = rte_pktmbuf_clone(base, clones);
				CHECK(pkts[i] != NULL && RTE_MBUF_CLONED(pkts[i]), "clone");
				break;
			case 5:
				pkts[i] = ext_frame();
				break;
			case 6:
				pkts[i] = chained_frame();
				break;
			default:
				pkts[i] = rte_pktmbuf_alloc(mp);
				CHECK(pkts[i] != NULL, "alloc");
				fill_frame(pkts[i]);
				continue;
			}
			odd++;
		}
		rte_pktmbuf_free(base);
		send_all(port, pkts, TX_N);
	}
	CHECK(xstat(port, "tx_copied") == copied + odd, "%llu copied, expected %u",
	      (unsigned long long)(xstat(port, "tx_copied") - copied), odd);
	CHECK(ext_freed == odd / 3, "%u external buffers freed, expected %u", ext_freed, odd / 3);
	/*
	 * The sim's thread sinks what the device sent, these and the 3 x TX_N
	 * of check_tx() before: wait for it, however slowly.
	 */
	for (spins = 0; spins < 6000 && xstat(port, "sim_sink_foreign") < sunk + 11 * TX_N; spins++)
		rte_delay_ms(10);
	CHECK(xstat(port, "sim_sink_foreign") == sunk + 11 * TX_N, "the sink got %llu frames of %u",
	      (unsigned long long)(xstat(port, "sim_sink_foreign") - sunk), 11 * TX_N);
}

/* What tx copies and what it sends as it is. */
static void check_tx(uint16_t port)
{
	int socket = rte_eth_dev_socket_id(port);
	struct rte_mempool *late, *clones;
	struct rte_mbuf *pkts[TX_N], *base;
	uint64_t copied = xstat(port, "tx_copied"), sunk = xstat(port, "sim_sink_foreign");
	unsigned int i;

	late = rte_pktmbuf_pool_create("app_late", 256, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, socket);
	clones = rte_pktmbuf_pool_create("app_clones", 256, 0, 0, 0, socket);
	CHECK(late != NULL && clones != NULL, "pools: %s", rte_strerror(rte_errno));
	CHECK(rte_pktmbuf_alloc_bulk(mp, pkts, TX_N) == 0, "alloc from the rx pool");
	for (i = 0; i < TX_N; i++)
		fill_frame(pkts[i]);
	send_all(port, pkts, TX_N);
	CHECK(xstat(port, "tx_copied") == copied, "mbufs of the rx pool were copied");
	CHECK(rte_pktmbuf_alloc_bulk(late, pkts, TX_N) == 0, "alloc from the late pool");
	for (i = 0; i < TX_N; i++)
		fill_frame(pkts[i]);
	send_all(port, pkts, TX_N);
	CHECK(xstat(port, "tx_copied") == copied,
	      "mbufs of a pool made after start were copied: the pool was not registered");
	base = rte_pktmbuf_alloc(mp);
	CHECK(base != NULL, "alloc");
	fill_frame(base);
	for (i = 0; i < TX_N; i++) {
		pkts[i] = rte_pktmbuf_clone(base, clones);
		CHECK(pkts[i] != NULL && RTE_MBUF_CLONED(pkts[i]), "clone");
	}
	rte_pktmbuf_free(base);
	send_all(port, pkts, TX_N);
	CHECK(xstat(port, "tx_copied") == copied + TX_N, "%llu clones copied, expected %u",
	      (unsigned long long)(xstat(port, "tx_copied") - copied), TX_N);
	tx_pools[0] = late;
	tx_pools[1] = clones;
	check_tx_mixed(port, clones, sunk);
}

#define PAGE 4096u

/*
 * An mbuf pool of @p chunks memory chunks: each 4 KB page of every other
 * one of an rte_malloc area holds one mbuf and is given to the pool as a
 * chunk of its own, with its IOVA, so that no two chunks touch.
 */
static struct rte_mempool *scattered_pool(unsigned int chunks, int socket)
{
	unsigned int data_room = RTE_MBUF_DEFAULT_BUF_SIZE, i;
	struct rte_mempool *m;
	char *area;
	int ret;

	m = rte_mempool_create_empty("app_scattered", chunks, sizeof(struct rte_mbuf) + data_room,
				     0, sizeof(struct rte_pktmbuf_pool_private), socket, 0);
	CHECK(m != NULL, "empty pool: %s", rte_strerror(rte_errno));
	CHECK(rte_mempool_calc_obj_size(m->elt_size, 0, NULL) <= PAGE,
	      "an mbuf of %u bytes does not fit in a page", m->elt_size);
	CHECK(rte_mempool_set_ops_byname(m, rte_mbuf_best_mempool_ops(), NULL) == 0, "pool ops");
	rte_pktmbuf_pool_init(m, NULL);
	area = rte_malloc_socket("app_scattered", (size_t)chunks * 2 * PAGE, PAGE, socket);
	CHECK(area != NULL, "%u KB for the pool", chunks * 2 * PAGE / 1024);
	for (i = 0; i < chunks; i++) {
		char *page = area + (size_t)i * 2 * PAGE;

		ret = rte_mempool_populate_iova(m, page, rte_mem_virt2iova(page), PAGE, NULL, NULL);
		CHECK(ret == 1, "chunk %u took %d mbufs, not 1", i, ret);
	}
	CHECK(m->nb_mem_chunks == chunks && m->populated_size == chunks,
	      "%u chunks, %u mbufs: not %u", m->nb_mem_chunks, m->populated_size, chunks);
	rte_mempool_obj_iter(m, rte_pktmbuf_init, NULL);
	scattered_area = area;
	return m;
}

/* The pmc->size bytes at pmc->addr, as rte_power_monitor() reads them. */
static uint64_t monitored_value(const struct rte_power_monitor_cond *pmc)
{
	switch (pmc->size) {
	case 1:
		return *(const volatile uint8_t *)pmc->addr;
	case 2:
		return *(const volatile uint16_t *)pmc->addr;
	case 4:
		return *(const volatile uint32_t *)pmc->addr;
	default:
		CHECK(pmc->size == 8, "a monitor condition of %u bytes", pmc->size);
		return *(const volatile uint64_t *)pmc->addr;
	}
}

/*
 * Sleep as DPDK's power management does when a queue runs dry: on the
 * address the driver gives, until the check says the queue has work.
 * @return whether it does (false: 5 s passed).
 */
static bool monitor_sleep(uint16_t port, bool cpu_monitor)
{
	uint64_t hz = rte_get_tsc_hz(), deadline = rte_get_tsc_cycles() + 5 * hz;
	struct rte_power_monitor_cond pmc;
	int ret;

	while (rte_get_tsc_cycles() < deadline) {
		ret = rte_eth_get_monitor_addr(port, 0, &pmc);
		CHECK(ret == 0, "rte_eth_get_monitor_addr: %s", rte_strerror(-ret));
		CHECK(pmc.addr != NULL && pmc.fn != NULL, "an empty monitor condition");
		if (pmc.fn(monitored_value(&pmc), pmc.opaque) != 0)
			return true;
		if (cpu_monitor) {
			/* Wakes when the line is written, or at the deadline; then check again. */
			rte_power_monitor(&pmc, deadline);
			continue;
		}
		/* No UMWAIT/MONITORX: watch the address the way the CPU would. */
		while (pmc.fn(monitored_value(&pmc), pmc.opaque) == 0 &&
		       rte_get_tsc_cycles() < deadline)
			rte_pause();
	}
	return false;
}

/* The source sends bursts with silences between: sleep on the monitor in each silence. */
static uint64_t check_monitor(uint16_t port)
{
	struct rte_cpu_intrinsics intr;
	struct rte_mbuf *pkts[BURST];
	uint64_t got = 0, sleeps = 0;
	uint16_t n, i;

	rte_cpu_get_intrinsics_support(&intr);
	printf("power monitor: %s\n",
	       intr.power_monitor ?
		       "the CPU's (UMONITOR/UMWAIT)" :
		       "this CPU has no UMWAIT or MONITORX: the sleeps read the monitored address");
	while (got < 2000) {
		n = rte_eth_rx_burst(port, 0, pkts, BURST);
		for (i = 0; i < n; i++)
			check_received(pkts[i], port);
		rte_pktmbuf_free_bulk(pkts, n);
		got += n;
		if (n != 0)
			continue;
		CHECK(monitor_sleep(port, intr.power_monitor),
		      "the monitor said no work for 5 s after %llu packets",
		      (unsigned long long)got);
		sleeps++;
		/* The check said work: a burst takes it now. */
		n = rte_eth_rx_burst(port, 0, pkts, BURST);
		CHECK(n > 0, "woken by the monitor with nothing to receive (after %llu packets)",
		      (unsigned long long)got);
		for (i = 0; i < n; i++)
			check_received(pkts[i], port);
		rte_pktmbuf_free_bulk(pkts, n);
		got += n;
	}
	CHECK(sleeps >= 3, "only %llu sleeps: the lcore never waited between bursts",
	      (unsigned long long)sleeps);
	return sleeps;
}

/*
 * A secondary beside a primary forwarding on net_dvp ports: what it reads
 * comes from the primary, what it may not do is refused and changes
 * nothing there.
 */
static void check_secondary(void)
{
	struct rte_mbuf *pkts[BURST];
	struct rte_eth_dev_info info;
	struct rte_eth_stats st0, st1;
	struct rte_eth_link link;
	struct rte_eth_conf conf = { 0 };
	struct rte_power_monitor_cond pmc;
	struct rte_mempool *pool;
	char fw[128];
	uint16_t port, nports = 0, i;
	int ret;

	pool = rte_pktmbuf_pool_create("sec_pool", 512, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	CHECK(pool != NULL, "a pool in the secondary: %s", rte_strerror(rte_errno));
	RTE_ETH_FOREACH_DEV(port)
	{
		CHECK(rte_eth_dev_info_get(port, &info) == 0, "info of port %u", port);
		CHECK(strcmp(info.driver_name, "net_dvp") == 0, "port %u is %s", port,
		      info.driver_name);
		CHECK(info.max_rx_queues > 0 && info.max_mtu > 0, "port %u: empty info", port);
		CHECK(rte_eth_link_get(port, &link) == 0 && link.link_status == RTE_ETH_LINK_UP,
		      "port %u: link not up", port);
		CHECK(rte_eth_dev_fw_version_get(port, fw, sizeof(fw)) == 0 && strstr(fw, "dvpmd"),
		      "port %u: firmware version '%s'", port, fw);
		CHECK(rte_eth_stats_get(port, &st0) == 0 && st0.ipackets > 0,
		      "port %u: no packets received in the primary's stats", port);
		CHECK(xstat(port, "sim_source_sent") > 0, "port %u: the sim's xstats", port);

		/* The configuration is the primary's. */
		CHECK(rte_eth_dev_configure(port, 1, 1, &conf) == -ENOTSUP, "configure");
		CHECK(rte_eth_dev_stop(port) == -ENOTSUP, "stop");
		CHECK(rte_eth_dev_set_mtu(port, 1400) == -ENOTSUP, "set mtu");
		CHECK(rte_eth_promiscuous_disable(port) == -ENOTSUP, "promiscuous disable");
		CHECK(rte_eth_promiscuous_get(port) == 1, "promiscuous mode changed");

		/* The queues are the primary's: refused, counted, the mbufs still ours. */
		for (i = 0; i < 3; i++)
			CHECK(rte_eth_rx_burst(port, 0, pkts, BURST) == 0, "rx_burst received");
		CHECK(rte_pktmbuf_alloc_bulk(pool, pkts, 8) == 0, "alloc");
		for (i = 0; i < 8; i++)
			fill_frame(pkts[i]);
		CHECK(rte_eth_tx_burst(port, 0, pkts, 8) == 0, "tx_burst took mbufs");
		rte_pktmbuf_free_bulk(pkts, 8);
		CHECK(xstat(port, "rx_secondary_refused") == 3, "rx_secondary_refused %llu, not 3",
		      (unsigned long long)xstat(port, "rx_secondary_refused"));
		CHECK(xstat(port, "tx_secondary_refused") == 8, "tx_secondary_refused %llu, not 8",
		      (unsigned long long)xstat(port, "tx_secondary_refused"));
		ret = rte_eth_get_monitor_addr(port, 0, &pmc);
		CHECK(ret == -ENOTSUP, "rte_eth_get_monitor_addr: %d", ret);

		/* The primary forwards on, unchanged. */
		rte_delay_ms(300);
		CHECK(rte_eth_stats_get(port, &st1) == 0 && st1.ipackets > st0.ipackets,
		      "port %u: the primary stopped receiving (%llu then %llu)", port,
		      (unsigned long long)st0.ipackets, (unsigned long long)st1.ipackets);
		nports++;
	}
	CHECK(nports == 2, "%u net_dvp ports, expected the primary's 2", nports);
	CHECK(rte_mempool_in_use_count(pool) == 0, "mbufs of the secondary's pool not back");
	RTE_ETH_FOREACH_DEV(port)
	CHECK(rte_eth_dev_close(port) == 0, "close (this process's view) of port %u", port);
	rte_mempool_free(pool);
	printf("PASS: a secondary process attached the primary's %u net_dvp ports: info, link, firmware, stats and xstats from the primary; configure, stop, MTU, promiscuous and the power monitor refused; rx and tx bursts refused and counted, the mbufs kept\n",
	       nports);
}

int main(int argc, char **argv)
{
	struct rte_eth_conf conf = { 0 };
	struct rte_mbuf *pkts[BURST];
	struct rte_epoll_event ev[1];
	uint64_t got = 0, wakeups = 0;
	bool intr = false, monitor = false;
	int want_port = -1, chunks = 0;
	uint64_t sleeps = 0;
	uint16_t port = 0, n, i;
	int ret, spins;

	ret = rte_eal_init(argc, argv);
	CHECK(ret >= 0, "rte_eal_init: %s", rte_strerror(rte_errno));
	argc -= ret;
	argv += ret;
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--intr") == 0)
			intr = true;
		else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc)
			want_port = atoi(argv[++i]);
		else if (strcmp(argv[i], "--chunks") == 0 && i + 1 < argc)
			chunks = atoi(argv[++i]);
		else if (strcmp(argv[i], "--monitor") == 0)
			monitor = true;
		else if (strcmp(argv[i], "--secondary") == 0) {
			CHECK(rte_eal_process_type() == RTE_PROC_SECONDARY,
			      "--secondary needs --proc-type=secondary");
			check_secondary();
			rte_eal_cleanup();
			return 0;
		} else
			CHECK(false,
			      "unknown argument %s: valid are --intr, --port N, --chunks N, --monitor, --secondary",
			      argv[i]);
	}
	/* The first net_dvp port (another driver's may come before it: case port-numbers). */
	RTE_ETH_FOREACH_DEV(port)
	{
		struct rte_eth_dev_info info;

		if (rte_eth_dev_info_get(port, &info) == 0 &&
		    strcmp(info.driver_name, "net_dvp") == 0)
			break;
	}
	CHECK(port < RTE_MAX_ETHPORTS && rte_eth_dev_is_valid_port(port),
	      "no net_dvp port: the plugin made none");
	CHECK(want_port < 0 || port == want_port, "the net_dvp port is %u, expected %d", port,
	      want_port);

	CHECK(chunks == 0 || chunks >= 1024, "--chunks %d: 1024 at least (the rx queue and tx)",
	      chunks);
	if (chunks != 0)
		mp = scattered_pool((unsigned int)chunks, (int)rte_socket_id());
	else
		mp = rte_pktmbuf_pool_create("app_pool", NB_MBUF, 128, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					     (int)rte_socket_id());
	CHECK(mp != NULL, "pool: %s", rte_strerror(rte_errno));
	conf.intr_conf.rxq = intr;
	CHECK(rte_eth_dev_configure(port, 1, 1, &conf) == 0, "configure");
	ret = rte_eth_rx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port), NULL, mp);
	CHECK(ret == 0, "rx queue setup with pool %s (%u memory chunks): %s", mp->name,
	      mp->nb_mem_chunks, rte_strerror(-ret));
	CHECK(rte_eth_tx_queue_setup(port, 0, 512, rte_eth_dev_socket_id(port), NULL) == 0,
	      "tx queue setup");
	CHECK(rte_eth_dev_start(port) == 0, "start");
	/* As with DPDK's own drivers, the queues' fds exist once the port is started. */
	if (intr)
		CHECK(rte_eth_dev_rx_intr_ctl_q(port, 0, RTE_EPOLL_PER_THREAD, RTE_INTR_EVENT_ADD,
						NULL) == 0,
		      "rx_intr_ctl_q: %s", rte_strerror(rte_errno));

	if (monitor)
		got = 2000, sleeps = check_monitor(port);
	/* The source sends its bursts; poll each dry, then sleep on the interrupt. */
	for (spins = 0; spins < 2000000 && got < 2000; spins++) {
		n = rte_eth_rx_burst(port, 0, pkts, BURST);
		for (i = 0; i < n; i++)
			check_received(pkts[i], port);
		rte_pktmbuf_free_bulk(pkts, n);
		got += n;
		if (n != 0 || !intr)
			continue;
		/* As l3fwd-power: arm, then sleep with no poll in between. */
		CHECK(rte_eth_dev_rx_intr_enable(port, 0) == 0, "rx_intr_enable");
		ret = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, 1, 5000);
		CHECK(ret == 1,
		      "rte_epoll_wait returned %d after %llu packets: no wake-up within 5 s", ret,
		      (unsigned long long)got);
		rte_eth_dev_rx_intr_disable(port, 0);
		wakeups++;
	}
	CHECK(got >= 2000, "received %llu packets, expected 2000", (unsigned long long)got);
	if (intr)
		CHECK(wakeups >= 3, "only %llu wake-ups: the lcore never slept between bursts",
		      (unsigned long long)wakeups);
	if (!intr && !monitor)
		check_tx(port);
	CHECK(rte_eth_dev_stop(port) == 0, "stop");
	CHECK(rte_eth_dev_close(port) == 0, "close");
	CHECK(rte_mempool_in_use_count(mp) == 0, "%u rte_mbufs not back in the pool",
	      rte_mempool_in_use_count(mp));
	for (i = 0; i < 2; i++) {
		if (tx_pools[i] == NULL)
			continue;
		CHECK(rte_mempool_in_use_count(tx_pools[i]) == 0, "%u rte_mbufs not back in %s",
		      rte_mempool_in_use_count(tx_pools[i]), tx_pools[i]->name);
		rte_mempool_free(tx_pools[i]);
	}
	printf("PASS: %llu packets received zero-copy in rte_mbufs of the application's pool (%u memory chunks, IOVA %s)%s%llu wake-ups; every mbuf back\n",
	       (unsigned long long)got, mp->nb_mem_chunks,
	       rte_eal_iova_mode() == RTE_IOVA_PA ? "PA" : "VA",
	       intr    ? ", interrupt mode: " :
	       monitor ? ", power monitor: each wake-up had packets to take; " :
			 "; tx: own mbufs sent as they are, clones copied; ",
	       (unsigned long long)(monitor ? sleeps : wakeups));
	rte_mempool_free(mp);
	rte_free(scattered_area);
	rte_eal_cleanup();
	return 0;
}
