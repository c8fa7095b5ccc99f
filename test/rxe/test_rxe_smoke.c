/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Soft-RoCE smoke test: the device under the verbs PMD, driven with plain
 * libibverbs and librdmacm (no dvpmd code), so that the VM, the device and the
 * event protocol are known good before a driver is blamed.
 *
 * Two RC endpoints in this process, connected with librdmacm over the guest's
 * address: A (the client) always polls; B (the server) polls or sleeps on its
 * completion channel exactly as ibv_get_cq_event(3) says. They exchange SENDs
 * both ways, sequence- and content-checked. Then the port is flapped with
 * `ip link set DEV down; up` and the async events are read from the
 * non-blocking async fd, each acked, and traffic resumes on the same QPs.
 *
 * Lines starting with "FACT " record what the device really does (event
 * order, timings, GID index, MTU) for doc/rxe-vm.md.
 *
 * Runs in the VM (usertools/dvp-rxe-vm, which sets DVP_RXE_*): elsewhere it
 * exits 77.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include <cmocka.h>

#include "rc_ep.h"

#define ROUND_TRIPS 200u
#define EXIT_SKIP 77 /* meson's "skipped" */

extern char **environ;

static struct {
	const char *dev;
	const char *ip;
	const char *netdev;
	int gid_index; /* what the runner found in sysfs */
	struct rdma_cm_id *listen_id;
	struct rc_ep a, b;
} t;

/* RoCE keeps an IPv4 address as an IPv4-mapped IPv6 GID (::ffff:a.b.c.d). */
static bool gid_is_ipv4(const union ibv_gid *g)
{
	static const uint8_t prefix[12] = { [10] = 0xff, [11] = 0xff };

	return memcmp(g->raw, prefix, sizeof(prefix)) == 0;
}

/* Fail the running cmocka test with the endpoint's reason. */
#define ep_ok(e, call)                                                      \
	do {                                                                \
		if ((call) != 0)                                            \
			fail_msg("%s: %s: %s", (e)->name, #call, (e)->err); \
	} while (0)

/* B's side of a ping-pong, on its own thread, so that B is really asleep
 * on its channel (or polling) when A's SEND lands. rxe completes a loopback
 * SEND inside the sender's ibv_post_send: with one thread, B would always
 * find the completion already there and never sleep. */
struct echo_job {
	uint32_t first, n, len;
	bool interrupt;
	int rc;
};

static void *echo_main(void *arg)
{
	struct echo_job *j = arg;
	uint32_t seq;

	j->rc = 0;
	for (seq = j->first; seq < j->first + j->n; seq++)
		if (rc_ep_recv(&t.b, j->interrupt, seq, j->len) ||
		    rc_ep_send(&t.b, seq, j->len, false) || rc_ep_reap_send(&t.b, seq)) {
			j->rc = -1;
			break;
		}
	return NULL;
}

/* A sends seq, B (sleeping or polling) receives and sends it back, A polls
 * for it: @n round trips of @len bytes. Returns microseconds per round trip. */
static double ping_pong(bool b_interrupt, uint32_t first, uint32_t n, uint32_t len)
{
	struct echo_job j = { .first = first, .n = n, .len = len, .interrupt = b_interrupt };
	bool a_ok = true;
	pthread_t th;
	uint32_t seq;
	double t0;

	assert_int_equal(pthread_create(&th, NULL, echo_main, &j), 0);
	t0 = rc_now_ms();
	for (seq = first; seq < first + n && a_ok; seq++)
		a_ok = rc_ep_send(&t.a, seq, len, false) == 0 && rc_ep_reap_send(&t.a, seq) == 0 &&
		       rc_ep_recv(&t.a, false, seq, len) == 0;
	t0 = rc_now_ms() - t0;
	assert_int_equal(pthread_join(th, NULL), 0);
	if (!a_ok)
		fail_msg("A: %s", t.a.err);
	if (j.rc)
		fail_msg("B: %s", t.b.err);
	return t0 * 1e3 / n;
}

static int run_ip(const char *dev, const char *state)
{
	char *argv[] = { "ip", "link", "set", "dev", (char *)dev, (char *)state, NULL };
	pid_t pid;
	int st;

	if (posix_spawnp(&pid, "ip", NULL, NULL, argv, environ))
		return -errno;
	if (waitpid(pid, &st, 0) < 0)
		return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

static void read_sysfs(const char *path, char *out, size_t len)
{
	FILE *f = fopen(path, "r");

	snprintf(out, len, "?");
	if (f == NULL)
		return;
	if (fgets(out, (int)len, f) != NULL)
		out[strcspn(out, "\n")] = '\0';
	fclose(f);
}

static int group_setup(void **state)
{
	struct sockaddr_in addr = { .sin_family = AF_INET };
	struct rdma_conn_param cp = { .retry_count = 7, .rnr_retry_count = 7 };
	struct rdma_cm_id *client, *server;

	(void)state;
	t.a.name = "A";
	t.b.name = "B";
	t.a.epfd = t.b.epfd = -1;
	t.a.cm_ch = rdma_create_event_channel();
	t.b.cm_ch = rdma_create_event_channel();
	if (t.a.cm_ch == NULL || t.b.cm_ch == NULL)
		return -1;
	if (inet_pton(AF_INET, t.ip, &addr.sin_addr) != 1) {
		fprintf(stderr, "DVP_RXE_IP '%s' is not an IPv4 address\n", t.ip);
		return -1;
	}
	/* B listens on the guest's address (any port); A connects to it. */
	if (rdma_create_id(t.b.cm_ch, &t.listen_id, NULL, RDMA_PS_TCP) ||
	    rdma_bind_addr(t.listen_id, (struct sockaddr *)&addr) || rdma_listen(t.listen_id, 1)) {
		perror("rdma listen");
		return -1;
	}
	addr.sin_port = rdma_get_src_port(t.listen_id);
	if (rdma_create_id(t.a.cm_ch, &client, NULL, RDMA_PS_TCP) ||
	    rdma_resolve_addr(client, NULL, (struct sockaddr *)&addr, RC_WAIT_MS)) {
		perror("rdma_resolve_addr");
		return -1;
	}
	if (rc_cm_expect(t.a.cm_ch, RDMA_CM_EVENT_ADDR_RESOLVED, NULL) ||
	    rdma_resolve_route(client, RC_WAIT_MS) ||
	    rc_cm_expect(t.a.cm_ch, RDMA_CM_EVENT_ROUTE_RESOLVED, NULL))
		return -1;
	if (rc_ep_setup(&t.a, client, false)) {
		fprintf(stderr, "A: %s\n", t.a.err);
		return -1;
	}
	if (rdma_connect(client, &cp) ||
	    rc_cm_expect(t.b.cm_ch, RDMA_CM_EVENT_CONNECT_REQUEST, &server))
		return -1;
	if (rc_ep_setup(&t.b, server, true)) {
		fprintf(stderr, "B: %s\n", t.b.err);
		return -1;
	}
	if (rdma_accept(server, &cp) || rc_cm_expect(t.a.cm_ch, RDMA_CM_EVENT_ESTABLISHED, NULL) ||
	    rc_cm_expect(t.b.cm_ch, RDMA_CM_EVENT_ESTABLISHED, NULL))
		return -1;
	return 0;
}

static int group_teardown(void **state)
{
	int bad;

	(void)state;
	bad = rc_ep_destroy(&t.a);
	bad |= rc_ep_destroy(&t.b);
	if (t.a.id != NULL)
		rdma_destroy_id(t.a.id);
	if (t.b.id != NULL)
		rdma_destroy_id(t.b.id);
	if (t.listen_id != NULL)
		rdma_destroy_id(t.listen_id);
	if (t.a.cm_ch != NULL)
		rdma_destroy_event_channel(t.a.cm_ch);
	if (t.b.cm_ch != NULL)
		rdma_destroy_event_channel(t.b.cm_ch);
	return bad;
}

/* What the PMD will meet: limits, MTU, the GID rdma_cm picked, hugepage MRs. */
static void test_device_facts(void **state)
{
	struct ibv_context *ctx = t.b.id->verbs;
	struct ibv_device_attr da;
	struct ibv_port_attr pa;
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;
	struct ibv_gid_entry ge;
	int roce_v2_ipv4 = -1, i;

	(void)state;
	assert_string_equal(ibv_get_device_name(ctx->device), t.dev);
	assert_int_equal(ibv_query_device(ctx, &da), 0);
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	assert_int_equal(pa.link_layer, IBV_LINK_LAYER_ETHERNET);
	printf("FACT device %s: max_qp_wr=%d max_cqe=%d max_sge=%d max_qp=%d max_cq=%d "
	       "num_comp_vectors=%d\n",
	       t.dev, da.max_qp_wr, da.max_cqe, da.max_sge, da.max_qp, da.max_cq,
	       ctx->num_comp_vectors);
	printf("FACT port 1: state=%s active_mtu=%d max_mtu=%d gid_tbl_len=%d\n",
	       ibv_port_state_str(pa.state), 128 << pa.active_mtu, 128 << pa.max_mtu,
	       pa.gid_tbl_len);
	for (i = 0; i < pa.gid_tbl_len; i++) {
		if (ibv_query_gid_ex(ctx, 1, (uint32_t)i, &ge, 0))
			continue;
		printf("FACT gid %d: type=%s %s\n", i,
		       ge.gid_type == IBV_GID_TYPE_ROCE_V2 ? "RoCEv2" :
		       ge.gid_type == IBV_GID_TYPE_ROCE_V1 ? "RoCEv1" :
							     "IB",
		       gid_is_ipv4(&ge.gid) ? "IPv4" : "IPv6");
		if (roce_v2_ipv4 < 0 && ge.gid_type == IBV_GID_TYPE_ROCE_V2 && gid_is_ipv4(&ge.gid))
			roce_v2_ipv4 = i;
	}
	assert_int_equal(roce_v2_ipv4, t.gid_index);
	/* rdma_cm chose the source GID of the connection itself. */
	assert_int_equal(ibv_query_qp(t.a.id->qp, &qa, IBV_QP_AV | IBV_QP_PATH_MTU, &qia), 0);
	printf("FACT rdma_cm connection: sgid_index=%u path_mtu=%d\n", qa.ah_attr.grh.sgid_index,
	       128 << qa.path_mtu);
	assert_int_equal(qa.ah_attr.grh.sgid_index, t.gid_index);
	assert_true(t.b.huge);
	printf("FACT ibv_reg_mr on a MAP_HUGETLB 2 MiB page: ok (lkey 0x%x)\n", t.b.mr->lkey);
}

static void test_send_both_ways_polling(void **state)
{
	double us;

	(void)state;
	us = ping_pong(false, 0, ROUND_TRIPS, 64);
	printf("FACT round trip, 64 B, both polling: %.1f us\n", us);
	us = ping_pong(false, ROUND_TRIPS, ROUND_TRIPS, RC_SLOT_SIZE);
	printf("FACT round trip, %u B (several MTUs), both polling: %.1f us\n", RC_SLOT_SIZE, us);
}

static void test_send_both_ways_interrupt(void **state)
{
	struct rc_ep before = t.b;
	double us;

	(void)state;
	us = ping_pong(true, 0, ROUND_TRIPS, 64);
	printf("FACT round trip, 64 B, B sleeping on its channel: %.1f us\n", us);
	us = ping_pong(true, ROUND_TRIPS, ROUND_TRIPS, RC_SLOT_SIZE);
	printf("FACT round trip, %u B, B sleeping on its channel: %.1f us\n", RC_SLOT_SIZE, us);
	printf("FACT interrupt mode over %u receives: arms=%lu wakeups=%lu events=%lu "
	       "empty_wakeups=%lu caught_by_poll_after_arm=%lu\n",
	       2 * ROUND_TRIPS, t.b.arms - before.arms, t.b.wakeups - before.wakeups,
	       t.b.events - before.events, t.b.empty_wakeups - before.empty_wakeups,
	       t.b.caught_after_arm - before.caught_after_arm);
	/* B really slept: many receives were announced by an event (how many
	 * depends on the race between B re-arming and A's next SEND). */
	assert_true((t.b.wakeups - before.wakeups) - (t.b.empty_wakeups - before.empty_wakeups) >=
		    ROUND_TRIPS / 4);
	/* One-shot arming: never more events than arms. */
	assert_true(t.b.events <= t.b.arms);
}

/* Poll B's receive CQ for the message @seq (already sent) and repost. */
static void b_take(uint32_t seq)
{
	struct ibv_wc wc;

	assert_int_equal(rc_wait_poll(t.b.recv_cq, &wc), 1);
	assert_int_equal(wc.status, IBV_WC_SUCCESS);
	ep_ok(&t.b, rc_check(&t.b, t.b.buf + wc.wr_id * RC_SLOT_SIZE, seq, 64));
	ep_ok(&t.b, rc_ep_post_recv(&t.b, (uint32_t)wc.wr_id));
}

/* Armed solicited-only, an unsolicited SEND completes silently and a
 * solicited one raises the event. */
static void test_solicited_only(void **state)
{
	struct epoll_event ev;
	struct ibv_wc wc;
	uint32_t seq = 1000;

	(void)state;
	/* A next-completion arm may be pending from the last test: one
	 * completion consumes it. */
	ep_ok(&t.a, rc_ep_send(&t.a, seq, 64, false));
	ep_ok(&t.a, rc_ep_reap_send(&t.a, seq));
	b_take(seq++);
	epoll_wait(t.b.epfd, &ev, 1, 100);
	ep_ok(&t.b, rc_ep_flush_acks(&t.b));

	assert_int_equal(ibv_poll_cq(t.b.recv_cq, 1, &wc), 0);
	assert_int_equal(ibv_req_notify_cq(t.b.recv_cq, 1), 0);
	ep_ok(&t.a, rc_ep_send(&t.a, seq, 64, false));
	ep_ok(&t.a, rc_ep_reap_send(&t.a, seq));
	/* The completion is there (an RC send completes once acked)... */
	b_take(seq++);
	/* ...but no event for it. */
	assert_int_equal(epoll_wait(t.b.epfd, &ev, 1, 300), 0);
	ep_ok(&t.a, rc_ep_send(&t.a, seq, 64, true));
	assert_int_equal(epoll_wait(t.b.epfd, &ev, 1, RC_WAIT_MS), 1);
	ep_ok(&t.b, rc_ep_drain_channel(&t.b));
	b_take(seq);
	ep_ok(&t.a, rc_ep_reap_send(&t.a, seq));
	ep_ok(&t.b, rc_ep_flush_acks(&t.b));
	printf("FACT solicited-only arming: an unsolicited SEND gave no event within 300 ms, "
	       "a solicited one did\n");

	/* Not specified by the verbs: does a solicited-only arm narrow a pending
	 * next-completion arm? Recorded, not asserted. */
	seq++;
	assert_int_equal(ibv_req_notify_cq(t.b.recv_cq, 0), 0);
	assert_int_equal(ibv_req_notify_cq(t.b.recv_cq, 1), 0);
	ep_ok(&t.a, rc_ep_send(&t.a, seq, 64, false));
	ep_ok(&t.a, rc_ep_reap_send(&t.a, seq));
	b_take(seq);
	printf("FACT arm(next) then arm(solicited), unsolicited SEND: %s\n",
	       epoll_wait(t.b.epfd, &ev, 1, 300) == 1 ? "event (the wider arm stays)" :
							"no event (the later arm wins)");
	ep_ok(&t.b, rc_ep_flush_acks(&t.b));
}

/* One line with the port's valid GIDs: index:type/family. */
static void print_gids(struct ibv_context *ctx, const char *when)
{
	struct ibv_gid_entry ge[16];
	ssize_t n, i;

	char addr[INET6_ADDRSTRLEN];

	n = ibv_query_gid_table(ctx, ge, 16, 0);
	printf("FACT gid table %s:", when);
	for (i = 0; i < n; i++) {
		if (gid_is_ipv4(&ge[i].gid))
			inet_ntop(AF_INET, ge[i].gid.raw + 12, addr, sizeof(addr));
		else
			inet_ntop(AF_INET6, ge[i].gid.raw, addr, sizeof(addr));
		printf(" %u:%s:%s", ge[i].gid_index,
		       ge[i].gid_type == IBV_GID_TYPE_ROCE_V2 ? "RoCEv2" : "RoCEv1", addr);
	}
	printf("%s\n", n < 0 ? " (query failed)" : n == 0 ? " (empty)" : "");
}

/*
 * Read async events until @want arrives (-1: none awaited) or @ms pass, acking
 * each; prints every event with its time since @t0. Returns whether @want came.
 */
static bool wait_async(struct ibv_context *ctx, int epfd, int want, double t0, int ms)
{
	double deadline = rc_now_ms() + ms;
	struct ibv_async_event ae;
	struct epoll_event ev;
	bool seen = false;
	char oper[32];
	char path[128];

	while (!seen) {
		int left = (int)(deadline - rc_now_ms());

		if (left <= 0 || epoll_wait(epfd, &ev, 1, left) <= 0)
			break;
		while (ibv_get_async_event(ctx, &ae) == 0) {
			snprintf(path, sizeof(path), "/sys/class/net/%s/operstate", t.netdev);
			read_sysfs(path, oper, sizeof(oper));
			printf("FACT async event +%.1f ms: %s (port %d), %s operstate %s\n",
			       rc_now_ms() - t0, ibv_event_type_str(ae.event_type),
			       ae.element.port_num, t.netdev, oper);
			if ((int)ae.event_type == want)
				seen = true;
			ibv_ack_async_event(&ae);
		}
		assert_int_equal(errno, EAGAIN);
	}
	return seen;
}

static void test_port_flap_async_events(void **state)
{
	struct ibv_context *ctx = t.b.id->verbs;
	struct epoll_event ev = { .events = EPOLLIN };
	struct ibv_port_attr pa;
	struct ibv_gid_entry ge;
	double t0;
	int epfd;

	(void)state;
	assert_int_equal(rc_set_nonblock(ctx->async_fd), 0);
	epfd = epoll_create1(EPOLL_CLOEXEC);
	assert_true(epfd >= 0);
	assert_int_equal(epoll_ctl(epfd, EPOLL_CTL_ADD, ctx->async_fd, &ev), 0);
	/* Whatever is pending from before the flap is shown (none is expected). */
	wait_async(ctx, epfd, -1, rc_now_ms(), 1);
	print_gids(ctx, "before the flap");

	t0 = rc_now_ms();
	assert_int_equal(run_ip(t.netdev, "down"), 0);
	printf("FACT 'ip link set %s down' returned after %.1f ms\n", t.netdev, rc_now_ms() - t0);
	if (!wait_async(ctx, epfd, IBV_EVENT_PORT_ERR, t0, RC_WAIT_MS))
		fail_msg("no IBV_EVENT_PORT_ERR within %d ms of 'ip link set %s down'", RC_WAIT_MS,
			 t.netdev);
	wait_async(ctx, epfd, -1, t0, 500);
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	printf("FACT port state after PORT_ERR: %s\n", ibv_port_state_str(pa.state));
	assert_int_not_equal(pa.state, IBV_PORT_ACTIVE);
	print_gids(ctx, "while down");

	t0 = rc_now_ms();
	assert_int_equal(run_ip(t.netdev, "up"), 0);
	printf("FACT 'ip link set %s up' returned after %.1f ms\n", t.netdev, rc_now_ms() - t0);
	if (!wait_async(ctx, epfd, IBV_EVENT_PORT_ACTIVE, t0, RC_WAIT_MS))
		fail_msg("no IBV_EVENT_PORT_ACTIVE within %d ms of 'ip link set %s up'", RC_WAIT_MS,
			 t.netdev);
	assert_int_equal(ibv_query_port(ctx, 1, &pa), 0);
	assert_int_equal(pa.state, IBV_PORT_ACTIVE);
	/* The IPv4 GID (the connection's) is at the same index when the port
	 * is active again. */
	assert_int_equal(ibv_query_gid_ex(ctx, 1, (uint32_t)t.gid_index, &ge, 0), 0);
	assert_true(gid_is_ipv4(&ge.gid));
	/* What follows (the IPv6 link-local GID comes back after DAD). */
	wait_async(ctx, epfd, -1, t0, 3000);
	print_gids(ctx, "3 s after up");
	close(epfd);
}

/* The RC connection survives the flap: no CM event, same QPs, traffic flows. */
static void test_traffic_after_port_flap(void **state)
{
	struct pollfd pfd[2] = { { .fd = t.a.cm_ch->fd, .events = POLLIN },
				 { .fd = t.b.cm_ch->fd, .events = POLLIN } };
	struct ibv_qp_attr qa;
	struct ibv_qp_init_attr qia;

	(void)state;
	assert_int_equal(poll(pfd, 2, 0), 0);
	assert_int_equal(ibv_query_qp(t.a.id->qp, &qa, IBV_QP_STATE, &qia), 0);
	assert_int_equal(qa.qp_state, IBV_QPS_RTS);
	ping_pong(true, 5000, 50, 64);
	ping_pong(false, 6000, 50, RC_SLOT_SIZE);
	printf("FACT after the flap: no rdma_cm event, QPs still RTS, traffic resumed\n");
}

/* A's rdma_disconnect reaches B as RDMA_CM_EVENT_DISCONNECTED: how the PMD
 * learns that its peer went away. */
static void test_disconnect_events(void **state)
{
	double t0 = rc_now_ms();

	(void)state;
	assert_int_equal(rdma_disconnect(t.a.id), 0);
	assert_int_equal(rc_cm_expect(t.b.cm_ch, RDMA_CM_EVENT_DISCONNECTED, NULL), 0);
	printf("FACT rdma_disconnect on A: B got RDMA_CM_EVENT_DISCONNECTED after %.1f ms\n",
	       rc_now_ms() - t0);
	/* A's own DISCONNECTED waits for B's answer (or a long timeout). */
	assert_int_equal(rdma_disconnect(t.b.id), 0);
	assert_int_equal(rc_cm_expect(t.a.cm_ch, RDMA_CM_EVENT_DISCONNECTED, NULL), 0);
	printf("FACT A got RDMA_CM_EVENT_DISCONNECTED once B disconnected too: %.1f ms\n",
	       rc_now_ms() - t0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_device_facts),
		cmocka_unit_test(test_send_both_ways_polling),
		cmocka_unit_test(test_send_both_ways_interrupt),
		cmocka_unit_test(test_solicited_only),
		cmocka_unit_test(test_port_flap_async_events),
		cmocka_unit_test(test_traffic_after_port_flap),
		cmocka_unit_test(test_disconnect_events),
	};
	const char *gid = getenv("DVP_RXE_GID_INDEX");

	setvbuf(stdout, NULL, _IOLBF, 0);
	t.dev = getenv("DVP_RXE_DEV");
	t.ip = getenv("DVP_RXE_IP");
	t.netdev = getenv("DVP_RXE_NETDEV");
	if (getenv("DVP_RXE_VM") == NULL || t.dev == NULL || t.ip == NULL || t.netdev == NULL ||
	    gid == NULL) {
		printf("SKIP: not in the Soft-RoCE VM (DVP_RXE_* unset): "
		       "run it with usertools/dvp-rxe-vm\n");
		return EXIT_SKIP;
	}
	t.gid_index = atoi(gid);
	return cmocka_run_group_tests_name("rxe_smoke", tests, group_setup, group_teardown);
}
