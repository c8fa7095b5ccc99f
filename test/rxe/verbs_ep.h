/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * One end of a net_verbs test: the EAL with one net_verbs port, its pool,
 * and a loop that sends sequence-numbered frames and checks the ones that
 * arrive. Used by test_rxe_verbs (the parent) and by the peer processes it
 * starts, so both ends run the same code.
 *
 * A frame carries the sender's run id (random per process), a sequence
 * number and a pattern derived from both: the receiver checks every byte.
 * A new run id starts a new sequence (the peer was restarted); within a
 * run, a frame past the expected one is a gap (frames lost) and one before
 * it a duplicate or a reordering, which RC never allows.
 */

#ifndef VERBS_EP_H
#define VERBS_EP_H

#include <stdbool.h>
#include <stdint.h>

#include <dvp_rxwait.h>
#include <dvp_mbuf.h>
#include <dvp_mempool.h>

struct ep {
	uint16_t port;
	bool intr; /* rx in interrupt mode */
	struct dvp_mempool *mp;
	struct dvp_rxwait_set *set;
	uint32_t run; /* our run id */

	/* tx */
	uint64_t tx_seq; /* next sequence number to send */
	uint64_t tx_limit; /* send up to this sequence number */
	uint64_t tx_start; /* tx_seq when the exchange began */
	/*
	 * The first this many frames of an exchange go one at a time, each
	 * once the peer's frame of the same number has arrived, and this end
	 * waits lockstep_delay_us before sending each: the other end has
	 * nothing to do meanwhile and sleeps, so an interrupt-mode case wakes
	 * on events however rarely the bulk part that follows leaves an end
	 * idle (on rxe the sender's system call may outlast the frame's trip,
	 * so a plain ping-pong rarely finds its receiver asleep).
	 */
	uint64_t lockstep;
	unsigned int lockstep_delay_us;
	/* Every frame this long (both ends must agree); 0: 64 to 511 bytes by number. */
	uint32_t frame_len;
	struct dvp_mbuf *pending[32]; /* built, refused by a full queue, sent next */
	unsigned int npending;

	/* rx */
	uint32_t rx_run; /* the peer's run id we follow (0: none yet) */
	uint64_t rx_expected;
	uint64_t rx_ok; /* frames received in sequence, content checked */
	uint64_t rx_ok_run; /* of which in the current peer run */
	uint64_t rx_gaps; /* frames missing (lost) within a run */
	uint64_t rx_bad; /* corrupt, duplicated or reordered frames */
	uint64_t rx_runs; /* peer runs seen */
	uint64_t rx_run_start; /* the first sequence number of the current run */
	bool fin_seen; /* the peer's end marker arrived */
	uint64_t fins; /* end markers that arrived (the peer repeats its own) */
	/*
	 * The link when our end marker first went: up if traffic resumed. (Read
	 * after the exchange, link_up races with the peer's exit.)
	 */
	bool link_up_at_fin;
	uint64_t sleeps; /* dvp_rx_wait() calls that returned nothing or something */
	/*
	 * The exchange ended cleanly: ep_close() checks that stopping the port
	 * counted no send as lost (every one was acknowledged by then, those
	 * that asked for no completion included).
	 */
	bool clean_end;

	/* Events from the EAL interrupt thread (atomics). */
	uint32_t link_ups;
	uint32_t link_downs;
	uint32_t queue_errors;
	int last_queue_error_cause;
	uint32_t cq_err_events; /* QUEUE_ERROR events caused by CQ_ERROR (IBV_EVENT_CQ_ERR) */
	uint32_t link_up; /* the state after the last event */
};

/*
 * Bring up the EAL with "--vdev net_verbs0,dev=DEV,ROLE=IP:PORT[,extra]"
 * (@listen: listen= else connect=), lcore @lcore, and configure, set up and
 * start the port (rx interrupts if @intr). @return 0 or -errno after a
 * line on stderr.
 */
int ep_open(struct ep *e, const char *name, bool listen, int tcp_port, const char *extra, int lcore,
	    bool intr, uint16_t rxd);

/* Wait up to @ms for the link to be @up (as the events say). @return 0 or -ETIMEDOUT. */
int ep_wait_link(struct ep *e, bool up, unsigned int ms);

/*
 * One round: receive (and check) what is there, send up to a burst while
 * tx_seq < tx_limit, and in interrupt mode sleep when there was nothing
 * to do (at most @sleep_ms). @return frames received, or -errno.
 */
int ep_pump(struct ep *e, unsigned int sleep_ms);

/* Receive only (the lcore polls), sending nothing: what a stalled sender does. */
int ep_rx_only(struct ep *e);

/*
 * Exchange until we sent @count frames and received @count from the
 * current peer run, then trade end markers so neither side stops while the
 * other still waits. @return 0 or -ETIMEDOUT after @idle_ms without progress.
 */
int ep_exchange(struct ep *e, uint64_t count, unsigned int idle_ms);

/*
 * Stop and close the port, then check that every mbuf is back in the pool.
 * @return 0, or -EIO after a line on stderr.
 */
int ep_close(struct ep *e);

/* "rx_ok=... gaps=... bad=..." for logs. */
void ep_print(const struct ep *e, const char *who);

/* Monotonic milliseconds. */
uint64_t ep_now_ms(void);

/* An xstat of the port, or UINT64_MAX when it has none by that name. */
uint64_t ep_xstat(const struct ep *e, const char *name);

#endif /* VERBS_EP_H */
