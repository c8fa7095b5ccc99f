/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * What a DPDK secondary process asks of the primary about net_dvp ports,
 * over DPDK's multi-process channel (rte_mp), and the primary's answers.
 *
 * dvpmd's runtime runs in the primary only: its port registry, the
 * drivers' device contexts (verbs contexts, mapped doorbell pages, fds)
 * and the sim's device thread are that process's. So a secondary does not
 * read dvp's state itself: each of its ethdev ops that reads a port (info,
 * link, stats, xstats, firmware version, RSS configuration) sends one
 * request, and the primary runs net_dvp's own op on its port (on DPDK's
 * multi-process thread) and answers. What the op reads and writes travels
 * in a buffer the secondary allocates in DPDK's shared memory, mapped at
 * the same address in both processes (rte_mp's messages carry 256 bytes);
 * the primary checks that it is there before it touches it.
 *
 * The primary's control ops that free or rebuild what such a request reads
 * (configure, queue setup and release, reset, close, and the xstats name
 * map) hold the control lock, as the requests do, so a request never
 * reads a port or queue while it goes. Requests name an ethdev port the
 * primary made, and carry the plugin's build id: a secondary that loaded
 * another build of net_dvp is refused rather than answered with structures
 * it would read differently.
 */

#include <assert.h>
#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_fbarray.h>
#include <rte_malloc.h>
#include <rte_memory.h>

#include "net_dvp.h"

static_assert(sizeof(struct net_dvp_mp_req) <= RTE_MP_MAX_PARAM_LEN &&
		      sizeof(struct net_dvp_mp_rep) <= RTE_MP_MAX_PARAM_LEN,
	      "a request or reply longer than rte_mp carries");

/* Recursive: an op called under it calls others that take it (setup calls release). */
static pthread_mutex_t ctrl_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;
/* The primary's ports requests may name: set once made, cleared when close starts. */
static bool served[RTE_MAX_ETHPORTS];
static bool action_on;

void net_dvp_ctrl_lock(void)
{
	pthread_mutex_lock(&ctrl_lock);
}

void net_dvp_ctrl_unlock(void)
{
	pthread_mutex_unlock(&ctrl_lock);
}

void net_dvp_mp_serve(uint16_t port_id, bool on)
{
	if (port_id >= RTE_MAX_ETHPORTS)
		return;
	net_dvp_ctrl_lock();
	served[port_id] = on;
	net_dvp_ctrl_unlock();
}

/* ------------------------------------------------------------------------
 * The plugin's build id: the GNU build-id note of the object this code is in
 */

static uint8_t build_id[NET_DVP_BUILD_ID_LEN];
static pthread_once_t build_id_once = PTHREAD_ONCE_INIT;

/* The build-id note in the notes of @p seg, @p len bytes. */
static bool note_build_id(const uint8_t *seg, size_t len)
{
	size_t off = 0;

	while (off + sizeof(ElfW(Nhdr)) <= len) {
		const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)(const void *)(seg + off);
		size_t name_off = off + sizeof(*n), desc_off = name_off + RTE_ALIGN(n->n_namesz, 4);

		if (desc_off + n->n_descsz > len)
			return false;
		if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
		    memcmp(seg + name_off, "GNU", 4) == 0) {
			memcpy(build_id, seg + desc_off,
			       RTE_MIN((size_t)n->n_descsz, sizeof(build_id)));
			return true;
		}
		off = desc_off + RTE_ALIGN(n->n_descsz, 4);
	}
	return false;
}

static int object_build_id(struct dl_phdr_info *info, size_t size, void *arg)
{
	uintptr_t me = (uintptr_t)(void *)object_build_id;
	bool mine = false;
	ElfW(Half) i;

	(void)size;
	(void)arg;
	for (i = 0; i < info->dlpi_phnum && !mine; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		mine = ph->p_type == PT_LOAD && me >= info->dlpi_addr + ph->p_vaddr &&
		       me < info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (!mine)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_NOTE &&
		    note_build_id((const uint8_t *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz))
			return 1;
	}
	NET_DVP_LOG(
		WARNING,
		"the plugin has no build id: a secondary process cannot check that it loaded the primary's build");
	return 1;
}

static void build_id_find(void)
{
	dl_iterate_phdr(object_build_id, NULL);
}

static const uint8_t *build_id_get(void)
{
	pthread_once(&build_id_once, build_id_find);
	return build_id;
}

/* ------------------------------------------------------------------------
 * The primary: requests served on DPDK's multi-process thread
 */

/* Every page of [@p addr, + @p len) is DPDK memory in use (mapped here too). */
static bool in_dpdk_memory(uint64_t addr, uint64_t len)
{
	const struct rte_memseg_list *msl;
	uint64_t base, page;

	if (len == 0)
		return addr == 0;
	msl = rte_mem_virt2memseg_list((const void *)(uintptr_t)addr);
	if (msl == NULL || addr + len < addr)
		return false;
	base = (uintptr_t)msl->base_va;
	if (addr + len > base + msl->len)
		return false;
	for (page = (addr - base) / msl->page_sz; page <= (addr + len - 1 - base) / msl->page_sz;
	     page++)
		if (rte_fbarray_is_used((struct rte_fbarray *)(uintptr_t)&msl->memseg_arr,
					(unsigned int)page) != 1)
			return false;
	return true;
}

/* The primary's ethdev of a port it made and has not closed, or NULL (under ctrl_lock). */
static struct rte_eth_dev *served_port(uint16_t port_id)
{
	return port_id < RTE_MAX_ETHPORTS && served[port_id] ? &rte_eth_devices[port_id] : NULL;
}

/* The names of vdev @p name's ports requests may name, into @p names (room for @p max). */
static int attach(const char *name, char (*names)[RTE_ETH_NAME_MAX_LEN], unsigned int max)
{
	uint16_t ports[RTE_MAX_ETHPORTS];
	int i, n = net_dvp_dev_ports(name, ports, RTE_MAX_ETHPORTS);
	unsigned int k = 0;

	for (i = 0; i < n && k < max; i++) {
		const struct rte_eth_dev *eth = served_port(ports[i]);

		if (eth != NULL)
			snprintf(names[k++], RTE_ETH_NAME_MAX_LEN, "%s", eth->data->name);
	}
	return n < 0 ? n : (int)k;
}

/* Run request @p req's op on its port; what the op reads and writes is at @p buf. */
static int serve(const struct net_dvp_mp_req *req, void *buf)
{
	struct rte_eth_dev *eth;
	struct net_dvp_mp_rss *rss = buf;
	char name[sizeof(req->name)];

	if (req->op == NET_DVP_MP_ATTACH) {
		snprintf(name, sizeof(name), "%.*s", (int)sizeof(req->name) - 1, req->name);
		return attach(name, buf, (unsigned int)(req->len / RTE_ETH_NAME_MAX_LEN));
	}
	eth = served_port(req->port_id);
	if (eth == NULL)
		return -ENODEV;
	switch (req->op) {
	case NET_DVP_MP_INFOS_GET:
		if (req->len != sizeof(struct rte_eth_dev_info))
			return -EPROTO;
		return net_dvp_ops.dev_infos_get(eth, buf);
	case NET_DVP_MP_LINK_UPDATE:
		/*
		 * The link goes into the port's shared data, where the secondary
		 * reads it; never a wait here (sec_link_update() waits).
		 */
		return net_dvp_ops.link_update(eth, 0);
	case NET_DVP_MP_STATS_GET:
		if (req->len != sizeof(struct rte_eth_stats))
			return -EPROTO;
		return net_dvp_ops.stats_get(eth, buf);
	case NET_DVP_MP_STATS_RESET:
		return net_dvp_ops.stats_reset(eth);
	case NET_DVP_MP_XSTATS_GET_NAMES:
		if (req->len != (uint64_t)req->arg * sizeof(struct rte_eth_xstat_name))
			return -EPROTO;
		return net_dvp_ops.xstats_get_names(eth, buf, req->arg);
	case NET_DVP_MP_XSTATS_GET:
		if (req->len != (uint64_t)req->arg * sizeof(struct rte_eth_xstat))
			return -EPROTO;
		return net_dvp_ops.xstats_get(eth, buf, req->arg);
	case NET_DVP_MP_XSTATS_RESET:
		return net_dvp_ops.xstats_reset(eth);
	case NET_DVP_MP_FW_VERSION_GET:
		if (req->len != req->arg)
			return -EPROTO;
		return net_dvp_ops.fw_version_get(eth, buf, req->arg);
	case NET_DVP_MP_RSS_HASH_CONF_GET:
		if (req->len != sizeof(*rss))
			return -EPROTO;
		/* The secondary's key pointer means "the key too": here, the buffer's. */
		if (rss->conf.rss_key != NULL) {
			rss->conf.rss_key = rss->key;
			rss->conf.rss_key_len = RTE_MIN(rss->conf.rss_key_len, sizeof(rss->key));
		}
		return net_dvp_ops.rss_hash_conf_get(eth, &rss->conf);
	case NET_DVP_MP_RETA_QUERY:
		if (req->len != (uint64_t)RTE_ALIGN_CEIL(req->arg, RTE_ETH_RETA_GROUP_SIZE) /
					RTE_ETH_RETA_GROUP_SIZE *
					sizeof(struct rte_eth_rss_reta_entry64))
			return -EPROTO;
		return net_dvp_ops.reta_query(eth, buf, (uint16_t)req->arg);
	default:
		return -ENOTSUP;
	}
}

static int mp_action(const struct rte_mp_msg *msg, const void *peer)
{
	const struct net_dvp_mp_req *req = (const void *)msg->param;
	struct rte_mp_msg reply;
	struct net_dvp_mp_rep *rep = (void *)reply.param;
	int ret;

	memset(&reply, 0, sizeof(reply));
	snprintf(reply.name, sizeof(reply.name), "%s", msg->name);
	reply.len_param = sizeof(*rep);
	if (msg->len_param != sizeof(*req)) {
		NET_DVP_LOG(ERR,
			    "a secondary's request of %d bytes, not %zu: another net_dvp build",
			    msg->len_param, sizeof(*req));
		ret = -EPROTO;
	} else if (memcmp(req->build_id, build_id_get(), NET_DVP_BUILD_ID_LEN) != 0) {
		NET_DVP_LOG(
			ERR,
			"a secondary process loaded another build of net_dvp than this primary: refused (load the same librte_net_dvp.so)");
		ret = -EPROTO;
	} else if (!in_dpdk_memory(req->buf, req->len)) {
		NET_DVP_LOG(
			ERR,
			"a secondary's request (op %u) with a buffer outside DPDK's memory: refused",
			req->op);
		ret = -EFAULT;
	} else {
		net_dvp_ctrl_lock();
		ret = serve(req, (void *)(uintptr_t)req->buf);
		net_dvp_ctrl_unlock();
	}
	rep->ret = ret;
	return rte_mp_reply(&reply, peer);
}

void net_dvp_mp_start(void)
{
	if (action_on)
		return;
	build_id_get();
	if (rte_mp_action_register(NET_DVP_MP_NAME, mp_action) == 0) {
		action_on = true;
		return;
	}
	/* --in-memory, --no-shconf: no secondary can come. */
	if (rte_errno == ENOTSUP)
		NET_DVP_LOG(DEBUG, "no multi-process channel: secondary processes cannot attach");
	else
		NET_DVP_LOG(WARNING, "cannot serve secondary processes: %s",
			    rte_strerror(rte_errno));
}

void net_dvp_mp_stop(void)
{
	if (!action_on)
		return;
	rte_mp_action_unregister(NET_DVP_MP_NAME);
	action_on = false;
}

/* ------------------------------------------------------------------------
 * A secondary: the request
 */

int net_dvp_mp_request(enum net_dvp_mp_op op, uint16_t port_id, uint32_t arg, const char *name,
		       void *data, size_t len)
{
	/* A link update may wait up to 9 s in the primary for a link coming up. */
	struct timespec ts = { .tv_sec = op == NET_DVP_MP_LINK_UPDATE && arg ? 15 : 5 };
	struct rte_mp_msg msg;
	struct rte_mp_reply reply = { 0 };
	struct net_dvp_mp_req *req = (void *)msg.param;
	void *buf = NULL;
	int ret;

	if (len > 0) {
		buf = rte_malloc("net_dvp_mp", len, 0);
		if (buf == NULL) {
			NET_DVP_LOG(
				ERR,
				"port %u: no %zu bytes of DPDK memory for a request to the primary",
				port_id, len);
			return -ENOMEM;
		}
		memcpy(buf, data, len);
	}
	memset(&msg, 0, sizeof(msg));
	snprintf(msg.name, sizeof(msg.name), "%s", NET_DVP_MP_NAME);
	msg.len_param = sizeof(*req);
	memcpy(req->build_id, build_id_get(), NET_DVP_BUILD_ID_LEN);
	req->op = op;
	req->port_id = port_id;
	req->arg = arg;
	req->buf = (uintptr_t)buf;
	req->len = len;
	if (name != NULL)
		snprintf(req->name, sizeof(req->name), "%s", name);
	if (rte_mp_request_sync(&msg, &reply, &ts) != 0 || reply.nb_received != 1) {
		/* The primary may still write the buffer: leave it to it rather than free it. */
		NET_DVP_LOG(
			ERR,
			"port %u: the primary process did not answer net_dvp's request (op %u): %s",
			port_id, op,
			reply.nb_sent == 0 ? rte_strerror(rte_errno) :
					     "no answer in time (a primary without net_dvp?)");
		free(reply.msgs);
		return -EIO;
	}
	ret = ((const struct net_dvp_mp_rep *)(const void *)reply.msgs[0].param)->ret;
	free(reply.msgs);
	if (ret == -EPROTO)
		NET_DVP_LOG(
			ERR,
			"the primary process runs another build of net_dvp than this process loaded: load the same librte_net_dvp.so");
	if (len > 0) {
		if (ret >= 0)
			memcpy(data, buf, len);
		rte_free(buf);
	}
	return ret;
}
