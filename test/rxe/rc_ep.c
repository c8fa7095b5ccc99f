/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* A plain-verbs RC endpoint (see rc_ep.h). */

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "rc_ep.h"

double rc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

int rc_set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Wait up to RC_WAIT_MS for the next CM event on @ch and check its type. */
int rc_cm_expect(struct rdma_event_channel *ch, enum rdma_cm_event_type type,
		 struct rdma_cm_id **id)
{
	struct pollfd pfd = { .fd = ch->fd, .events = POLLIN };
	struct rdma_cm_event *ev;
	int r;

	r = poll(&pfd, 1, RC_WAIT_MS);
	if (r <= 0) {
		fprintf(stderr, "no CM event within %d ms (waiting for %s)\n", RC_WAIT_MS,
			rdma_event_str(type));
		return -ETIMEDOUT;
	}
	if (rdma_get_cm_event(ch, &ev))
		return -errno;
	r = 0;
	if (ev->event != type) {
		fprintf(stderr, "CM event %s (status %d), expected %s\n", rdma_event_str(ev->event),
			ev->status, rdma_event_str(type));
		r = -EPROTO;
	} else if (id != NULL) {
		*id = ev->id;
	}
	rdma_ack_cm_event(ev);
	return r;
}

int rc_ep_fail(struct rc_ep *e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(e->err, sizeof(e->err), fmt, ap);
	va_end(ap);
	return -1;
}

static void rc_fill(uint8_t *p, uint32_t seq, uint32_t len)
{
	struct msg_hdr h = { .seq = seq, .len = len };
	uint32_t i;

	memcpy(p, &h, sizeof(h));
	for (i = sizeof(h); i < len; i++)
		p[i] = (uint8_t)(seq * 31u + i);
}

int rc_check(struct rc_ep *e, const uint8_t *p, uint32_t seq, uint32_t len)
{
	struct msg_hdr h;
	uint32_t i;

	memcpy(&h, p, sizeof(h));
	if (h.seq != seq || h.len != len)
		return rc_ep_fail(e, "received seq %u len %u, expected seq %u len %u", h.seq, h.len,
				  seq, len);
	for (i = sizeof(h); i < len; i++)
		if (p[i] != (uint8_t)(seq * 31u + i))
			return rc_ep_fail(e, "seq %u: byte %u is 0x%02x, sent 0x%02x", seq, i, p[i],
					  (uint8_t)(seq * 31u + i));
	return 0;
}

int rc_ep_post_recv(struct rc_ep *e, uint32_t slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(e->buf + (size_t)slot * RC_SLOT_SIZE),
		.length = RC_SLOT_SIZE,
		.lkey = e->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 }, *bad;
	int r = ibv_post_recv(e->id->qp, &wr, &bad);

	return r ? rc_ep_fail(e, "ibv_post_recv: %s", strerror(r)) : 0;
}

/* Resources for one connected id: buffer, MR, CQs (in interrupt mode the
 * receive CQ on a non-blocking completion channel), the QP, and every
 * receive posted. */
int rc_ep_setup(struct rc_ep *e, struct rdma_cm_id *id, bool interrupt)
{
	struct ibv_qp_init_attr qa = { 0 };
	struct epoll_event ev = { .events = EPOLLIN };
	uint32_t i;

	e->id = id;
	e->pd = ibv_alloc_pd(id->verbs);
	if (e->pd == NULL)
		return rc_ep_fail(e, "ibv_alloc_pd: %s", strerror(errno));
	/* The sleeping end's buffer is a hugepage, as the PMD's mempools will be. */
	e->buf = mmap(NULL, RC_BUF_SIZE, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS | (interrupt ? MAP_HUGETLB : 0), -1, 0);
	if (e->buf == MAP_FAILED) {
		e->buf = NULL;
		return rc_ep_fail(e, "mmap of %u bytes%s: %s", RC_BUF_SIZE,
				  interrupt ? " (MAP_HUGETLB)" : "", strerror(errno));
	}
	e->huge = interrupt;
	e->mr = ibv_reg_mr(e->pd, e->buf, RC_BUF_SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (e->mr == NULL)
		return rc_ep_fail(e, "ibv_reg_mr: %s", strerror(errno));
	if (interrupt) {
		e->comp_ch = ibv_create_comp_channel(id->verbs);
		if (e->comp_ch == NULL)
			return rc_ep_fail(e, "ibv_create_comp_channel: %s", strerror(errno));
		/* The fd is waited on with epoll and drained until EAGAIN. */
		if (rc_set_nonblock(e->comp_ch->fd))
			return rc_ep_fail(e, "O_NONBLOCK on the channel: %s", strerror(errno));
		e->epfd = epoll_create1(EPOLL_CLOEXEC);
		ev.data.ptr = e;
		if (e->epfd < 0 || epoll_ctl(e->epfd, EPOLL_CTL_ADD, e->comp_ch->fd, &ev))
			return rc_ep_fail(e, "epoll: %s", strerror(errno));
	}
	e->recv_cq = ibv_create_cq(id->verbs, RC_RECV_SLOTS * 2, e, e->comp_ch, 0);
	e->send_cq = ibv_create_cq(id->verbs, RC_RECV_SLOTS * 2, e, NULL, 0);
	if (e->recv_cq == NULL || e->send_cq == NULL)
		return rc_ep_fail(e, "ibv_create_cq: %s", strerror(errno));
	qa.send_cq = e->send_cq;
	qa.recv_cq = e->recv_cq;
	qa.qp_type = IBV_QPT_RC;
	qa.sq_sig_all = 1;
	qa.cap.max_send_wr = RC_RECV_SLOTS;
	qa.cap.max_recv_wr = RC_RECV_SLOTS;
	qa.cap.max_send_sge = 1;
	qa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, e->pd, &qa))
		return rc_ep_fail(e, "rdma_create_qp: %s", strerror(errno));
	for (i = 0; i < RC_RECV_SLOTS; i++)
		if (rc_ep_post_recv(e, i))
			return -1;
	return 0;
}

/* Read the channel until EAGAIN; every event is counted for a batched ack. */
int rc_ep_drain_channel(struct rc_ep *e)
{
	struct ibv_cq *cq;
	void *ctx;

	while (ibv_get_cq_event(e->comp_ch, &cq, &ctx) == 0) {
		if (cq != e->recv_cq || ctx != e)
			return rc_ep_fail(e, "event for CQ %p (context %p), not ours", (void *)cq,
					  ctx);
		e->events++;
		e->unacked++;
	}
	if (errno != EAGAIN)
		return rc_ep_fail(e, "ibv_get_cq_event: %s", strerror(errno));
	if (e->unacked >= RC_ACK_BATCH) {
		ibv_ack_cq_events(e->recv_cq, e->unacked);
		e->unacked = 0;
	}
	return 0;
}

int rc_ep_flush_acks(struct rc_ep *e)
{
	if (e->comp_ch == NULL)
		return 0;
	if (rc_ep_drain_channel(e))
		return -1;
	if (e->unacked) {
		ibv_ack_cq_events(e->recv_cq, e->unacked);
		e->unacked = 0;
	}
	return 0;
}

/*
 * One receive completion, sleeping when there is none: arm, poll once more
 * (a completion that landed before the arm raised no event), sleep on epoll,
 * drain the channel, poll again. An event with no completion behind it is
 * legal and only counted. Returns the completions polled (0 on timeout).
 */
int rc_ep_wait_interrupt(struct rc_ep *e, struct ibv_wc *wc, bool solicited_only)
{
	double deadline = rc_now_ms() + RC_WAIT_MS;
	struct epoll_event ev;
	int n, r;

	for (;;) {
		n = ibv_poll_cq(e->recv_cq, 1, wc);
		if (n != 0)
			return n;
		r = ibv_req_notify_cq(e->recv_cq, solicited_only);
		if (r)
			return rc_ep_fail(e, "ibv_req_notify_cq: %s", strerror(r));
		e->arms++;
		n = ibv_poll_cq(e->recv_cq, 1, wc);
		if (n != 0) {
			e->caught_after_arm++;
			return n;
		}
		r = epoll_wait(e->epfd, &ev, 1, (int)(deadline - rc_now_ms()));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return rc_ep_fail(e, "epoll_wait: %s", strerror(errno));
		if (r == 0)
			return 0;
		e->wakeups++;
		if (rc_ep_drain_channel(e))
			return -1;
		n = ibv_poll_cq(e->recv_cq, 1, wc);
		if (n != 0)
			return n;
		e->empty_wakeups++;
	}
}

int rc_wait_poll(struct ibv_cq *cq, struct ibv_wc *wc)
{
	double deadline = rc_now_ms() + RC_WAIT_MS;
	int n;

	while ((n = ibv_poll_cq(cq, 1, wc)) == 0 && rc_now_ms() < deadline)
		;
	return n;
}

int rc_ep_send(struct rc_ep *e, uint32_t seq, uint32_t len, bool solicited)
{
	uint8_t *p = e->buf + (size_t)RC_RECV_SLOTS * RC_SLOT_SIZE;
	struct ibv_sge sge = { .addr = (uintptr_t)p, .length = len, .lkey = e->mr->lkey };
	struct ibv_send_wr wr = {
		.wr_id = seq,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED | (solicited ? IBV_SEND_SOLICITED : 0),
	};
	struct ibv_send_wr *bad;
	int r;

	rc_fill(p, seq, len);
	r = ibv_post_send(e->id->qp, &wr, &bad);
	return r ? rc_ep_fail(e, "ibv_post_send seq %u: %s", seq, strerror(r)) : 0;
}

/* The send slot is reused: its completion is reaped before the next send. */
int rc_ep_reap_send(struct rc_ep *e, uint32_t seq)
{
	struct ibv_wc wc;

	if (rc_wait_poll(e->send_cq, &wc) != 1)
		return rc_ep_fail(e, "no send completion for seq %u within %d ms", seq, RC_WAIT_MS);
	if (wc.status != IBV_WC_SUCCESS)
		return rc_ep_fail(e, "send seq %u: %s (vendor_err %u)", seq,
				  ibv_wc_status_str(wc.status), wc.vendor_err);
	if (wc.opcode != IBV_WC_SEND || wc.wr_id != seq)
		return rc_ep_fail(e, "send completion opcode %d wr_id %" PRIu64 ", expected seq %u",
				  wc.opcode, (uint64_t)wc.wr_id, seq);
	return 0;
}

int rc_ep_recv(struct rc_ep *e, bool interrupt, uint32_t seq, uint32_t len)
{
	struct ibv_wc wc;
	int n;

	n = interrupt ? rc_ep_wait_interrupt(e, &wc, false) : rc_wait_poll(e->recv_cq, &wc);
	if (n < 0)
		return -1;
	if (n == 0)
		return rc_ep_fail(e, "seq %u not received within %d ms (%s)", seq, RC_WAIT_MS,
				  interrupt ? "interrupt mode" : "polling");
	/* Only wr_id, status, qp_num and vendor_err are valid on an error. */
	if (wc.status != IBV_WC_SUCCESS)
		return rc_ep_fail(e, "receive seq %u: %s (vendor_err %u)", seq,
				  ibv_wc_status_str(wc.status), wc.vendor_err);
	if (wc.opcode != IBV_WC_RECV || wc.byte_len != len || wc.wr_id >= RC_RECV_SLOTS)
		return rc_ep_fail(e, "receive seq %u: opcode %d byte_len %u wr_id %" PRIu64, seq,
				  wc.opcode, wc.byte_len, (uint64_t)wc.wr_id);
	if (rc_check(e, e->buf + wc.wr_id * RC_SLOT_SIZE, seq, len))
		return -1;
	return rc_ep_post_recv(e, (uint32_t)wc.wr_id);
}

/* In reverse order of rc_ep_setup; every step is checked. */
int rc_ep_destroy(struct rc_ep *e)
{
	int bad = 0;

	if (e->id != NULL && e->id->qp != NULL)
		rdma_destroy_qp(e->id);
	/* Destroying a CQ waits until every event it reported was acked: a
	 * missing ack hangs here (and the step's timeout fails the test). */
	if (e->recv_cq != NULL) {
		if (rc_ep_flush_acks(e)) {
			fprintf(stderr, "%s: %s\n", e->name, e->err);
			bad = -1;
		}
		if (ibv_destroy_cq(e->recv_cq))
			bad = -1;
	}
	if (e->send_cq != NULL && ibv_destroy_cq(e->send_cq))
		bad = -1;
	if (e->comp_ch != NULL && ibv_destroy_comp_channel(e->comp_ch))
		bad = -1;
	if (e->epfd >= 0)
		close(e->epfd);
	if (e->mr != NULL && ibv_dereg_mr(e->mr))
		bad = -1;
	if (e->buf != NULL)
		munmap(e->buf, RC_BUF_SIZE);
	if (e->pd != NULL && ibv_dealloc_pd(e->pd))
		bad = -1;
	if (bad)
		fprintf(stderr, "%s: tearing down the endpoint failed\n", e->name);
	return bad;
}
