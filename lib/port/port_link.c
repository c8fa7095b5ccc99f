/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * The link state: what a driver records (dvp_port_link_set(), or a reading
 * of its device with dvp_port_link_report()), what applications read, and
 * the LINK_STATUS_CHANGE event a change raises.
 *
 * The state is eight bytes exchanged whole, so a reader never takes a lock
 * or sees half of it. Writers take the port's link lock: a driver's
 * interrupt thread and a control thread may both read the device, and the
 * reading recorded last must be the one made last.
 */

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "port_private.h"

/* Under the slot's link_lock. */
static int link_record(struct dvp_port *port, const struct dvp_link *link,
		       enum dvp_port_event_cause cause)
{
	struct dvp_port_event_info info = { .event = DVP_PORT_EVENT_LINK_STATUS_CHANGE,
					    .cause = cause };
	struct dvp_link old, now = *link;

	now.reserved = 0;
	now.reserved2 = 0;
	/* Eight bytes, exchanged whole: readers never see half a state. */
	__atomic_exchange(&port->link, &now, &old, __ATOMIC_RELAXED);
	if (memcmp(&old, &now, sizeof(now)) == 0)
		return 0;
	if (__atomic_load_n(&port->event_flags, __ATOMIC_RELAXED) & DVP_PORT_INTR_LSC) {
		info.link = now;
		dvp_port_event_raise(port->port_id, &info);
	}
	return 1;
}

int dvp_port_link_set(struct dvp_port *port, const struct dvp_link *link,
		      enum dvp_port_event_cause cause)
{
	struct port_slot *s = port_slot_of(port);
	int changed;

	pthread_mutex_lock(&s->link_lock);
	changed = link_record(port, link, cause);
	pthread_mutex_unlock(&s->link_lock);
	return changed;
}

int dvp_port_link_report(struct dvp_port *port, dvp_port_link_read_t read, void *arg,
			 enum dvp_port_event_cause cause)
{
	struct port_slot *s = port_slot_of(port);
	struct dvp_link link;
	int ret;

	memset(&link, 0, sizeof(link));
	pthread_mutex_lock(&s->link_lock);
	ret = read(port, &link, &cause, arg);
	if (ret == 0)
		ret = link_record(port, &link, cause);
	pthread_mutex_unlock(&s->link_lock);
	return ret;
}

int dvp_link_get_nowait(uint16_t port_id, struct dvp_link *link)
{
	struct dvp_port *port =
		port_get_checked_out(port_id, "link get", link, "nowhere to put it");

	if (port == NULL)
		return -EINVAL;
	__atomic_load(&port->link, link, __ATOMIC_RELAXED);
	return 0;
}

int dvp_link_get(uint16_t port_id, struct dvp_link *link)
{
	struct dvp_port *port = port_get_checked(port_id, "link get");
	int ret;

	if (port == NULL)
		return -EINVAL;
	if (port->ops->link_update != NULL) {
		ret = port->ops->link_update(port, true);
		if (ret < 0) {
			PORT_LOG(ERR, "link get: port %u: %s failed: %s", port_id,
				 port->driver_name, dvp_strerror(-ret));
			return dvp_err(-ret);
		}
	}
	return dvp_link_get_nowait(port_id, link);
}

int dvp_link_to_str(char *buf, size_t len, const struct dvp_link *link)
{
	int n;

	if (buf == NULL || len == 0 || link == NULL)
		return dvp_err(EINVAL);
	if (!link->link_status)
		n = snprintf(buf, len, "Link down");
	else if (link->link_speed == DVP_LINK_SPEED_UNKNOWN)
		n = snprintf(buf, len, "Link up at unknown speed %s %s",
			     link->link_duplex ? "FDX" : "HDX",
			     link->link_autoneg ? "Autoneg" : "Fixed");
	else
		n = snprintf(buf, len, "Link up at %u Mbps %s %s", link->link_speed,
			     link->link_duplex ? "FDX" : "HDX",
			     link->link_autoneg ? "Autoneg" : "Fixed");
	return n;
}
