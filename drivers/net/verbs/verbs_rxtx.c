/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * net_verbs' datapath: rx and tx bursts over ibv_poll_cq, ibv_post_recv
 * and ibv_post_send, and the lib/rxwait hooks of rx queues.
 *
 * Rx: the receives posted to the QP complete in order, so the ring is a
 * FIFO: [head, tail) are posted, wr_id is the posting index, and a
 * completion whose wr_id is not head means the device broke that rule.
 * Taken frames are replaced in batches, by a burst that found nothing or
 * when half the ring is empty; when the pool is empty the frame
 * is still delivered and its slot posted again later (rx_nombuf counts the
 * failed allocations), so no slot is lost and the sender is slowed by
 * RNR retries rather than losing frames.
 *
 * Tx: a completion is asked for every `signal` sends (and errors always
 * complete); a completion for index i frees every frame up to i.
 *
 * Errors: a completion with a status other than success (only wr_id,
 * status, qp_num and vendor_err are valid then) gives its buffer back,
 * counts the status, and marks the queue BROKEN; the next burst tears the
 * queue down (verbs_queue.c) and the interrupt thread connects it again.
 * The tx watchdog does the same to a queue whose sends stop completing
 * with no error at all (rxe after a link flap): checked when a reap finds
 * nothing, one TSC read, no system call.
 */

#include <errno.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <dvp_cycles.h>

#include "verbs_private.h"

/* ------------------------------------------------------------------------
 * Rx
 */

unsigned int verbs_rxq_refill(struct verbs_rxq *rxq, uint32_t max)
{
	struct dvp_mbuf *mbufs[VERBS_RX_POLL];
	struct ibv_recv_wr *first = NULL, *last = NULL, *bad;
	uint32_t want = DVP_MIN(max, rxq->nb_desc - (rxq->tail - rxq->head));
	uint32_t start = rxq->tail, grh = rxq->grh, posted = 0;
	uint32_t chunk, i, slot, lkey;
	uintptr_t addr;

	while (posted < want) {
		chunk = DVP_MIN(want - posted, (uint32_t)VERBS_RX_POLL);
		if (dvp_unlikely(dvp_pktmbuf_alloc_bulk(rxq->mp, mbufs, chunk) != 0)) {
			/* The slots stay empty until a later burst finds mbufs. */
			dvp_counter_add(&rxq->st.nombuf, chunk);
			break;
		}
		for (i = 0; i < chunk; i++) {
			struct dvp_mbuf *m = mbufs[i];

			slot = rxq->tail & rxq->mask;
			/* UD: the GRH lands in the headroom, the frame at data_off. */
			addr = (uintptr_t)m->buf_addr + m->data_off - grh;
			lkey = verbs_mrc_lkey(&rxq->mrc, addr, rxq->buf_len + grh);
			if (dvp_unlikely(lkey == UINT32_MAX))
				lkey = verbs_mrc_miss(&rxq->mrc, rxq->vp->dev, m, addr,
						      rxq->buf_len + grh, rxq->vp->name);
			rxq->ring[slot] = m;
			rxq->sges[slot].addr = addr;
			rxq->sges[slot].length = rxq->buf_len + grh;
			rxq->sges[slot].lkey = lkey;
			rxq->wrs[slot].wr_id = rxq->tail;
			rxq->wrs[slot].next = NULL;
			if (last != NULL)
				last->next = &rxq->wrs[slot];
			else
				first = &rxq->wrs[slot];
			last = &rxq->wrs[slot];
			verbs_idx_set(&rxq->tail, rxq->tail + 1);
		}
		posted += chunk;
	}
	if (first == NULL)
		return 0;
	if (dvp_unlikely(ibv_post_recv(rxq->qp, first, &bad) != 0)) {
		/* Only a QP in a state that takes no receives refuses: give them back. */
		uint32_t from = (uint32_t)bad->wr_id;

		while (rxq->tail != from) {
			verbs_idx_set(&rxq->tail, rxq->tail - 1);
			dvp_pktmbuf_free(rxq->ring[rxq->tail & rxq->mask]);
		}
		verbs_rxq_break(rxq, DVP_PORT_CAUSE_DRIVER);
		return from - start;
	}
	return posted;
}

static __dvp_cold void rx_wc_error(struct verbs_rxq *rxq, const struct ibv_wc *wc,
				   struct dvp_mbuf *m)
{
	/* Only wr_id, status, qp_num and vendor_err are valid here. */
	if (rxq->wc_status == IBV_WC_SUCCESS) {
		rxq->wc_status = wc->status;
		rxq->vendor_err = wc->vendor_err;
	}
	dvp_counter_add(&rxq->st.wc_err[verbs_wc_status_index(wc->status)], 1);
	dvp_counter_add(&rxq->st.errors, 1);
	dvp_pktmbuf_free(m);
	/* Any error leaves the QP in the error state: rebuild it. */
	verbs_rxq_break(rxq, DVP_PORT_CAUSE_DRIVER);
}

/* The device completed receives out of order, or the CQ failed: rebuild. */
static __dvp_cold void rx_broken(struct verbs_rxq *rxq)
{
	verbs_rxq_break(rxq, DVP_PORT_CAUSE_DRIVER);
}

static __dvp_cold __dvp_noinline uint16_t rx_not_live(struct verbs_rxq *rxq)
{
	uint32_t broken = VERBS_Q_BROKEN;

	/*
	 * The interrupt thread handed the queue over for its overrun CQ to be
	 * replaced: the CQ is this lcore's (its events are acked here).
	 * Acquire: pairs with that hand-over.
	 */
	if (dvp_unlikely(__atomic_load_n(&rxq->state, __ATOMIC_ACQUIRE) == VERBS_Q_RENEW)) {
		verbs_rxq_cq_renew(rxq);
		/* Release: the interrupt thread creates the next QP on the new CQ. */
		__atomic_store_n(&rxq->state, VERBS_Q_DOWN, __ATOMIC_RELEASE);
		(void)eventfd_write(rxq->vp->wake_fd, 1);
		return 0;
	}
	/* Acquire: the breaker's cause (and, for BROKEN, nothing else) is visible. */
	if (__atomic_compare_exchange_n(&rxq->state, &broken, VERBS_Q_TEARING, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		verbs_rxq_teardown(rxq, true);
		/* The interrupt thread connects the queue again. */
		(void)eventfd_write(rxq->vp->wake_fd, 1);
	}
	return 0;
}

uint16_t verbs_rx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct verbs_rxq *rxq = q;
	uint32_t grh = rxq->grh, free_slots;
	uint64_t bytes = 0;
	uint16_t k = 0;
	bool more = true;
	int n;

	/*
	 * Acquire: pairs with the release of the interrupt thread that made
	 * the queue LIVE, so its QP and the receives it posted are visible.
	 */
	if (dvp_unlikely(__atomic_load_n(&rxq->state, __ATOMIC_ACQUIRE) != VERBS_Q_LIVE))
		return rx_not_live(rxq);
	while (k < nb) {
		if (rxq->wc_pos == rxq->wc_n) {
			uint16_t want = (uint16_t)DVP_MIN(nb - k, VERBS_RX_POLL);

			if (!more)
				break; /* the last poll emptied the CQ */
			n = ibv_poll_cq(rxq->cq, want, rxq->wc);
			if (dvp_unlikely(n < 0))
				rx_broken(rxq);
			if (n <= 0)
				break;
			more = n == want;
			rxq->wc_pos = 0;
			rxq->wc_n = (uint16_t)n;
		}
		while (rxq->wc_pos < rxq->wc_n && k < nb) {
			const struct ibv_wc *wc = &rxq->wc[rxq->wc_pos++];
			struct dvp_mbuf *m;
			uint32_t len;

			if (dvp_unlikely((uint32_t)wc->wr_id != rxq->head)) {
				rx_broken(rxq);
				rxq->wc_pos = rxq->wc_n = 0;
				goto out;
			}
			m = rxq->ring[rxq->head & rxq->mask];
			verbs_idx_set(&rxq->head, rxq->head + 1);
			if (dvp_unlikely(wc->status != IBV_WC_SUCCESS)) {
				rx_wc_error(rxq, wc, m);
				continue;
			}
			len = wc->byte_len - grh;
			m->data_len = (uint16_t)len;
			m->pkt_len = len;
			m->port = rxq->port_id;
			bytes += len;
			pkts[k++] = m;
		}
	}
out:
	/*
	 * Replace off the path of the frames: a few at a time in a burst
	 * that found nothing (the lcore is waiting anyway), everything once
	 * half the ring is empty (a busy queue must not run dry). Replacing
	 * in the burst that took a frame puts the batch's cost on that frame,
	 * and a frame that lands during an idle burst's replacement waits for
	 * it: small idle batches keep both out of a ping-pong's latency.
	 */
	free_slots = rxq->nb_desc - (rxq->tail - rxq->head);
	if (k == 0 ? free_slots >= rxq->idle_refill : free_slots >= rxq->nb_desc / 2) {
		if (dvp_likely(__atomic_load_n(&rxq->state, __ATOMIC_RELAXED) == VERBS_Q_LIVE))
			verbs_rxq_refill(rxq, k == 0 ? rxq->idle_refill : free_slots);
	}
	if (k > 0) {
		dvp_counter_add(&rxq->st.packets, k);
		dvp_counter_add(&rxq->st.bytes, bytes);
	}
	return k;
}

/* ------------------------------------------------------------------------
 * Tx
 */

unsigned int verbs_txq_free_upto(struct verbs_txq *txq, uint32_t last)
{
	struct dvp_mbuf *batch[64];
	unsigned int n = 0, total = 0;
	uint32_t end = last + 1;

	for (; txq->head != end; verbs_idx_set(&txq->head, txq->head + 1), total++) {
		struct dvp_mbuf *m = txq->ring[txq->head & txq->mask];

		/* An inline-sent frame left its slot at the post: a send all the same. */
		if (m == NULL)
			continue;
		verbs_slot_set(&txq->ring[txq->head & txq->mask], NULL);
		batch[n++] = m;
		if (n == DVP_DIM(batch)) {
			dvp_pktmbuf_free_bulk(batch, n);
			n = 0;
		}
	}
	if (n > 0)
		dvp_pktmbuf_free_bulk(batch, n);
	return total;
}

/*
 * The first error completion of @p n in @p wc: the queue breaks. Sends
 * complete in order, so those before it were delivered and are freed; it
 * and every later one were not, as far as anyone knows: they stay in the
 * ring for the teardown, which frees them and counts them lost
 * (tx_dropped_on_reset, errors), however many of them asked for no
 * completion. Only wr_id, status, qp_num and vendor_err are valid here.
 */
static __dvp_cold __dvp_noinline void tx_reap_failed(struct verbs_txq *txq, const struct ibv_wc *wc,
						     int n)
{
	int i;

	verbs_txq_free_upto(txq, (uint32_t)wc->wr_id - 1);
	if (txq->wc_status == IBV_WC_SUCCESS) {
		txq->wc_status = wc->status;
		txq->vendor_err = wc->vendor_err;
	}
	for (i = 0; i < n; i++)
		if (wc[i].status != IBV_WC_SUCCESS && wc[i].wr_id != VERBS_WR_DRAIN)
			dvp_counter_add(&txq->st.wc_err[verbs_wc_status_index(wc[i].status)], 1);
	verbs_txq_break(txq, DVP_PORT_CAUSE_DRIVER);
}

/* Read send completions and free what they cover. */
static void tx_reap(struct verbs_txq *txq)
{
	int n, i;

	n = ibv_poll_cq(txq->cq, VERBS_TX_POLL, txq->wc);
	if (dvp_unlikely(n < 0)) {
		verbs_txq_break(txq, DVP_PORT_CAUSE_DRIVER);
		return;
	}
	for (i = 0; i < n; i++) {
		const struct ibv_wc *wc = &txq->wc[i];
		uint32_t idx = (uint32_t)wc->wr_id, cnt = idx - txq->head + 1;

		if (dvp_unlikely(cnt > txq->tail - txq->head)) {
			/* A drain marker that came back after its QP was gone. */
			if (wc->wr_id == VERBS_WR_DRAIN)
				continue;
			verbs_txq_break(txq, DVP_PORT_CAUSE_DRIVER);
			return;
		}
		if (dvp_unlikely(wc->status != IBV_WC_SUCCESS)) {
			tx_reap_failed(txq, &txq->wc[i], n - i);
			return;
		}
		verbs_txq_free_upto(txq, idx);
	}
}

static __dvp_cold __dvp_noinline uint16_t tx_not_live(struct verbs_txq *txq)
{
	uint32_t broken = VERBS_Q_BROKEN;

	if (__atomic_compare_exchange_n(&txq->state, &broken, VERBS_Q_TEARING, false,
					__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
		verbs_txq_teardown(txq, true);
		(void)eventfd_write(txq->vp->wake_fd, 1);
	}
	return 0;
}

/*
 * Sends in flight, none completing for tx_timeout ms, no error either:
 * rebuilt like a queue that failed. Inside the burst (in_burst set) no
 * other thread tears the queue down, so timed_out is ours to write; the
 * break's seq_cst CAS publishes it to whoever tears down.
 */
static __dvp_cold __dvp_noinline void tx_timeout(struct verbs_txq *txq)
{
	txq->timed_out = true;
	if (!verbs_txq_break(txq, DVP_PORT_CAUSE_DRIVER)) {
		txq->timed_out = false; /* broken already, for another reason */
		return;
	}
	dvp_counter_add(&txq->st.timeouts, 1);
}

/* A frame the receiving end cannot take, or memory the device cannot reach: dropped. */
static __dvp_cold void tx_drop(struct verbs_txq *txq, struct dvp_mbuf *m, uint64_t *why)
{
	dvp_counter_add(why, 1);
	dvp_counter_add(&txq->st.errors, 1);
	dvp_pktmbuf_free(m);
}

/* Post @nb frames (room is checked): @return frames posted (the others were dropped). */
static uint16_t tx_post(struct verbs_txq *txq, struct dvp_mbuf **pkts, uint16_t nb, bool last_burst,
			uint64_t *bytes)
{
	struct dvp_mbuf *inl[VERBS_TX_BURST];
	struct ibv_send_wr *bad, *prev = NULL;
	uint16_t i, nw = 0, ninl = 0;
	uint32_t s, first_tail = txq->tail;

	for (i = 0; i < nb; i++) {
		struct dvp_mbuf *m = pkts[i], *seg;
		struct ibv_send_wr *wr = &txq->wrs[nw];
		struct ibv_sge *sge = wr->sg_list;
		unsigned int flags = 0;
		bool inline_it;

		if (dvp_unlikely(m->pkt_len > txq->max_len)) {
			tx_drop(txq, m, &txq->st.too_long);
			continue;
		}
		if (dvp_unlikely(m->nb_segs > txq->max_sge)) {
			tx_drop(txq, m, &txq->st.bad_segs);
			continue;
		}
		inline_it = m->pkt_len <= txq->max_inline;
		for (s = 0, seg = m; seg != NULL; seg = seg->next, s++) {
			uintptr_t addr = (uintptr_t)seg->buf_addr + seg->data_off;
			uint32_t lkey = 0;

			if (!inline_it) {
				lkey = verbs_mrc_lkey(&txq->mrc, addr, seg->data_len);
				if (dvp_unlikely(lkey == UINT32_MAX)) {
					dvp_counter_add(&txq->st.mr_misses, 1);
					lkey = verbs_mrc_miss(&txq->mrc, txq->vp->dev, seg, addr,
							      seg->data_len, txq->vp->name);
					if (lkey == UINT32_MAX)
						break;
				}
			}
			sge[s].addr = addr;
			sge[s].length = seg->data_len;
			sge[s].lkey = lkey;
		}
		if (dvp_unlikely(seg != NULL)) {
			tx_drop(txq, m, &txq->st.no_mr);
			continue;
		}
		wr->num_sge = (int)s;
		wr->wr_id = txq->tail;
		if (inline_it)
			flags |= IBV_SEND_INLINE;
		if (++txq->unsignaled >= txq->signal) {
			flags |= IBV_SEND_SIGNALED;
			txq->unsignaled = 0;
		}
		wr->send_flags = flags;
		if (txq->ud) {
			wr->wr.ud.ah = txq->ah;
			wr->wr.ud.remote_qpn = txq->remote_qpn;
			wr->wr.ud.remote_qkey = txq->remote_qkey;
		}
		wr->next = NULL;
		if (prev != NULL)
			prev->next = wr;
		prev = wr;
		/*
		 * Inline data is copied by the post: the mbuf is free right
		 * after it. (Keeping it in its slot until a completion covers
		 * it was tried: a send that asked for no completion and whose
		 * QP then went away gets none, so a clean disconnect counted
		 * the last few as lost.)
		 */
		verbs_slot_set(&txq->ring[txq->tail & txq->mask], inline_it ? NULL : m);
		if (inline_it)
			inl[ninl++] = m;
		verbs_idx_set(&txq->tail, txq->tail + 1);
		*bytes += m->pkt_len;
		nw++;
	}
	if (nw == 0)
		return 0;
	/* The receiving end sleeps for solicited completions: wake it at the end of a burst. */
	if (txq->solicited && last_burst)
		prev->send_flags |= IBV_SEND_SOLICITED;
	if (dvp_unlikely(ibv_post_send(txq->qp, &txq->wrs[0], &bad) != 0)) {
		/*
		 * A QP refusing sends is broken: the frames not posted are
		 * freed as errors (the burst took them), and the queue rebuilt.
		 */
		uint32_t from = (uint32_t)bad->wr_id;
		uint16_t lost = (uint16_t)(txq->tail - from);

		while (txq->tail != from) {
			verbs_idx_set(&txq->tail, txq->tail - 1);
			if (txq->ring[txq->tail & txq->mask] != NULL)
				dvp_pktmbuf_free(txq->ring[txq->tail & txq->mask]);
			verbs_slot_set(&txq->ring[txq->tail & txq->mask], NULL);
		}
		dvp_counter_add(&txq->st.errors, lost);
		nw = (uint16_t)(from - first_tail);
		verbs_txq_break(txq, DVP_PORT_CAUSE_DRIVER);
	}
	if (ninl > 0)
		dvp_pktmbuf_free_bulk(inl, ninl);
	return nw;
}

uint16_t verbs_tx_burst(void *q, struct dvp_mbuf **pkts, uint16_t nb)
{
	struct verbs_txq *txq = q;
	uint32_t room, inflight;
	uint64_t bytes = 0;
	uint16_t n, done = 0, posted = 0;

	/*
	 * Seq_cst store, then seq_cst load of the state: the lcore's half of
	 * the Dekker pair with verbs_txq_try_teardown() (one xchg on x86).
	 */
	__atomic_store_n(&txq->in_burst, 1, __ATOMIC_SEQ_CST);
	if (dvp_unlikely(__atomic_load_n(&txq->state, __ATOMIC_SEQ_CST) != VERBS_Q_LIVE))
		goto not_live;
	inflight = txq->tail - txq->head;
	if (inflight >= txq->signal || inflight + nb > txq->nb_desc) {
		uint32_t head = txq->head;
		bool progress;

		tx_reap(txq);
		progress = txq->head != head;
		/* At least @signal in flight: one of them asked for a completion. */
		if (txq->wd_cycles != 0 && inflight >= txq->signal &&
		    dvp_unlikely(verbs_tx_watchdog_expired(
			    &txq->wd_since, progress, progress ? 0 : dvp_rdtsc(), txq->wd_cycles)))
			tx_timeout(txq);
	}
	if (dvp_unlikely(__atomic_load_n(&txq->state, __ATOMIC_RELAXED) != VERBS_Q_LIVE))
		goto not_live;
	room = txq->nb_desc - (txq->tail - txq->head);
	nb = (uint16_t)DVP_MIN((uint32_t)nb, room);
	while (done < nb) {
		n = (uint16_t)DVP_MIN(nb - done, VERBS_TX_BURST);
		posted += tx_post(txq, pkts + done, n, done + n == nb, &bytes);
		done += n;
		if (dvp_unlikely(__atomic_load_n(&txq->state, __ATOMIC_RELAXED) != VERBS_Q_LIVE))
			break;
	}
	if (posted > 0) {
		dvp_counter_add(&txq->st.packets, posted);
		dvp_counter_add(&txq->st.bytes, bytes);
	}
	/* Release: our use of the QP and ring is done before a teardown may start. */
	__atomic_store_n(&txq->in_burst, 0, __ATOMIC_RELEASE);
	return done;

not_live:
	__atomic_store_n(&txq->in_burst, 0, __ATOMIC_RELEASE);
	return tx_not_live(txq);
}

/* ------------------------------------------------------------------------
 * lib/rxwait hooks (on the polling lcore)
 */

static int verbs_intr_arm(void *ctx, bool solicited)
{
	struct verbs_rxq *rxq = ctx;
	int ret;

	if (rxq->cq == NULL)
		return 0;
	ret = ibv_req_notify_cq(rxq->cq, solicited);
	return ret ? -ret : 0;
}

static int verbs_intr_consume(void *ctx)
{
	struct verbs_rxq *rxq = ctx;
	struct ibv_cq *cq;
	void *cq_ctx;
	int n = 0;

	/* Non-blocking channel: read until EAGAIN. */
	while (ibv_get_cq_event(rxq->ch, &cq, &cq_ctx) == 0) {
		rxq->unacked++;
		n++;
	}
	if (errno != EAGAIN && errno != EWOULDBLOCK)
		return -errno;
	return n;
}

static void verbs_intr_ack(void *ctx, unsigned int n)
{
	struct verbs_rxq *rxq = ctx;
	unsigned int k = DVP_MIN(n, rxq->unacked);

	/* Events read before a CQ was replaced were acked then (verbs_rxq_cq_renew()). */
	if (k > 0) {
		ibv_ack_cq_events(rxq->cq, k);
		rxq->unacked -= k;
	}
}

static bool verbs_intr_has_work(void *ctx)
{
	struct verbs_rxq *rxq = ctx;
	uint32_t s = __atomic_load_n(&rxq->state, __ATOMIC_ACQUIRE);
	int n;

	/*
	 * A broken queue is work: the lcore must burst to tear it down; so is
	 * one handed over for a new CQ (RENEW), which only a burst replaces.
	 */
	if (s == VERBS_Q_BROKEN || s == VERBS_Q_RENEW)
		return true;
	if (s != VERBS_Q_LIVE)
		return false;
	if (rxq->wc_pos < rxq->wc_n)
		return true;
	/* Verbs cannot peek: poll into the stash the next burst returns first. */
	n = ibv_poll_cq(rxq->cq, VERBS_RX_POLL, rxq->wc);
	if (n < 0) {
		rx_broken(rxq);
		return true;
	}
	rxq->wc_pos = 0;
	rxq->wc_n = (uint16_t)n;
	return n > 0;
}

const struct dvp_rxwait_queue_ops verbs_intr_ops = {
	.arm = verbs_intr_arm,
	.consume = verbs_intr_consume,
	.ack = verbs_intr_ack,
	.has_work = verbs_intr_has_work,
	.flags = DVP_RXWAIT_QUEUE_F_SOLICITED | DVP_RXWAIT_QUEUE_F_ONESHOT,
};
