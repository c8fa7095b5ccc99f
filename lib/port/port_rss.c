/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * RSS at run time: the hash fields and key, and the indirection table, of a
 * configured port, started or not. Every argument is checked here against
 * what the driver's info_get reports, as configure's are in port_ctrl.c, so
 * a driver's op sees only valid requests and a user one line naming what
 * was wrong. port->conf.rss_conf follows every change made.
 */

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "port_private.h"

/*
 * What every call checks once the port and its argument are known: the
 * driver has the op (@p has_op, else -ENOTSUP), the port is configured
 * when @p configured asks it, and @p info is what the driver offers.
 */
static int rss_check(struct dvp_port *port, const char *func, bool has_op, bool configured,
		     struct dvp_port_info *info)
{
	if (!has_op)
		return port_refuse(port->port_id, ENOTSUP, "%s: %s has no RSS", func,
				   port->driver_name);
	if (configured && !port->configured)
		return port_refuse(
			port->port_id, EINVAL,
			"%s: the port is not configured; call dvp_port_configure() first", func);
	return dvp_port_info_get(port->port_id, info);
}

/* The op's answer: 0, or its error after a line naming the driver. */
static int op_result(const struct dvp_port *port, const char *func, int ret)
{
	if (ret >= 0)
		return 0;
	return port_refuse(port->port_id, -ret, "%s: %s failed: %s", func, port->driver_name,
			   dvp_strerror(-ret));
}

int dvp_port_rss_hash_update(uint16_t port_id, const struct dvp_port_rss_conf *conf)
{
	static const char func[] = "RSS hash update";
	struct dvp_port *port = port_get_checked_out(port_id, func, conf, "no RSS conf given");
	struct dvp_port_info info;
	uint64_t bad;
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = rss_check(port, func, port->ops->rss_hash_update != NULL, true, &info);
	if (ret < 0)
		return ret;
	bad = conf->rss_hf & ~info.rss_hf_capa;
	if (bad != 0)
		return port_refuse(port_id, EINVAL,
				   "%s: hash fields 0x%" PRIx64
				   " not supported; %s hashes on 0x%" PRIx64,
				   func, bad, port->driver_name, info.rss_hf_capa);
	if (conf->rss_key != NULL &&
	    (conf->rss_key_len != info.hash_key_size || conf->rss_key_len > DVP_RSS_KEY_MAX_LEN))
		return port_refuse(port_id, EINVAL, "%s: a key of %u bytes; %s takes %u", func,
				   conf->rss_key_len, port->driver_name, info.hash_key_size);
	ret = op_result(port, func, port->ops->rss_hash_update(port, conf));
	if (ret < 0)
		return ret;
	if (conf->rss_key != NULL) {
		memmove(port->rss_key, conf->rss_key, conf->rss_key_len);
		port->conf.rss_conf.rss_key = port->rss_key;
		port->conf.rss_conf.rss_key_len = conf->rss_key_len;
	}
	port->conf.rss_conf.rss_hf = conf->rss_hf;
	return 0;
}

int dvp_port_rss_hash_conf_get(uint16_t port_id, struct dvp_port_rss_conf *conf)
{
	static const char func[] = "RSS hash conf get";
	struct dvp_port *port =
		port_get_checked_out(port_id, func, conf, "nowhere to put the RSS conf");
	struct dvp_port_info info;
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = rss_check(port, func, port->ops->rss_hash_conf_get != NULL, false, &info);
	if (ret < 0)
		return ret;
	if (conf->rss_key != NULL && conf->rss_key_len < info.hash_key_size)
		return port_refuse(port_id, EINVAL, "%s: room for a key of %u bytes; %s's has %u",
				   func, conf->rss_key_len, port->driver_name, info.hash_key_size);
	ret = op_result(port, func, port->ops->rss_hash_conf_get(port, conf));
	if (ret < 0)
		return ret;
	conf->rss_key_len = info.hash_key_size;
	return 0;
}

/*
 * The table arguments against @p info: @p reta_size is the driver's, some
 * mask bit is set (bits past reta_size are not looked at), and for an
 * update (@p nb_rxq: the port's rx queues) every entry written names a
 * queue of the port.
 */
static int reta_check(const struct dvp_port *port, const char *func,
		      const struct dvp_rss_reta_entry64 *reta, uint16_t reta_size,
		      const struct dvp_port_info *info, bool update)
{
	bool any = false;

	if (reta_size != info->reta_size || reta_size == 0)
		return port_refuse(port->port_id, EINVAL, "%s: a table of %u entries; %s's has %u",
				   func, reta_size, port->driver_name, info->reta_size);
	for (unsigned int i = 0; i < reta_size; i++) {
		const struct dvp_rss_reta_entry64 *g = &reta[i / DVP_RETA_GROUP_SIZE];
		unsigned int k = i % DVP_RETA_GROUP_SIZE;

		if (!(g->mask & (1ull << k)))
			continue;
		any = true;
		if (update && g->reta[k] >= port->nb_rx_queues)
			return port_refuse(port->port_id, EINVAL,
					   "%s: entry %u -> rx queue %u; the port has %u (0 to %d)",
					   func, i, g->reta[k], port->nb_rx_queues,
					   (int)port->nb_rx_queues - 1);
	}
	if (!any)
		return port_refuse(port->port_id, EINVAL,
				   "%s: no mask bit set among the %u entries: nothing to %s", func,
				   reta_size, update ? "write" : "read");
	return 0;
}

int dvp_port_rss_reta_update(uint16_t port_id, const struct dvp_rss_reta_entry64 *reta,
			     uint16_t reta_size)
{
	static const char func[] = "RSS reta update";
	struct dvp_port *port = port_get_checked_out(port_id, func, reta, "no table given");
	struct dvp_port_info info;
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = rss_check(port, func, port->ops->reta_update != NULL, true, &info);
	if (ret == 0)
		ret = reta_check(port, func, reta, reta_size, &info, true);
	if (ret < 0)
		return ret;
	return op_result(port, func, port->ops->reta_update(port, reta, reta_size));
}

int dvp_port_rss_reta_query(uint16_t port_id, struct dvp_rss_reta_entry64 *reta, uint16_t reta_size)
{
	static const char func[] = "RSS reta query";
	struct dvp_port *port =
		port_get_checked_out(port_id, func, reta, "nowhere to put the table");
	struct dvp_port_info info;
	int ret;

	if (port == NULL)
		return -EINVAL;
	ret = rss_check(port, func, port->ops->reta_query != NULL, false, &info);
	if (ret == 0)
		ret = reta_check(port, func, reta, reta_size, &info, false);
	if (ret < 0)
		return ret;
	return op_result(port, func, port->ops->reta_query(port, reta, reta_size));
}
