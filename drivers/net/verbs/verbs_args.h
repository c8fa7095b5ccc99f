/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/* net_verbs devargs: the configuration of a port, parsed at probe (verbs_args.c). */

#ifndef VERBS_ARGS_H
#define VERBS_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <dvp_port_driver.h>

#include "verbs_proto.h"

#define VERBS_TX_SIGNAL_DEFAULT 32
#define VERBS_TX_INLINE_DEFAULT 64
#define VERBS_ACK_TIMEOUT_DEFAULT 14 /* 67 ms, as perftest; rdma_cm gives 19 (2.1 s) on RoCE */
#define VERBS_TX_TIMEOUT_DEFAULT 1000 /* ms: the tx watchdog (tx_timeout=) */

enum verbs_role {
	VERBS_ROLE_LISTEN,
	VERBS_ROLE_CONNECT,
};

struct verbs_cfg {
	char dev[64]; /* dev=: the verbs device */
	enum verbs_role role;
	struct sockaddr_storage addr; /* listen= or connect= */
	char addr_str[80]; /* as given, for logs */
	enum verbs_mode mode;
	bool solicited; /* arm rx CQs for solicited completions only */
	bool reconnect;
	uint32_t tx_signal; /* a completion every N sends */
	uint32_t tx_inline; /* bytes sent inline (0: never) */
	uint32_t rx_cq_size; /* 0: the ring's size; smaller only to test overruns */
	uint8_t ack_timeout; /* RC: 4.096 us << N before a retransmission */
	uint32_t tx_timeout; /* ms without a send completing before a rebuild; 0: never */
	bool mac_set;
	struct dvp_ether_addr mac;
	/* Tests only: DVP_VERBS_TEST_HOLD_ACCEPT_MS (verbs_cm_test_hold_accept()). */
	uint32_t test_hold_accept_ms;
};

extern const struct dvp_devargs_key verbs_devargs_keys[];

/*
 * Fill @cfg from @da for device @name. @return 0, or -EINVAL after one log
 * line naming the key, the value and what would be valid.
 */
int verbs_cfg_parse(const char *name, const struct dvp_devargs *da, struct verbs_cfg *cfg);

/*
 * Parse "a.b.c.d:port" or "[v6addr]:port" (@key names the devarg in the
 * error). @return 0 or -EINVAL after a log line.
 */
int verbs_addr_parse(const char *name, const char *key, const char *s, struct sockaddr_storage *ss);

/* Print @sa as "a.b.c.d:port" / "[v6]:port" into @buf. */
const char *verbs_addr_str(const struct sockaddr *sa, char *buf, size_t len);

#endif /* VERBS_ARGS_H */
