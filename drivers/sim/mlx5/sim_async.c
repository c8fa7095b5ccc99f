/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * Async events as the device raises them: to the context that owns the
 * object an event is about (a CQ's overrun), or to every open context, as
 * the kernel sends port and device events; and the link changes of a port,
 * which raise PORT_ACTIVE and PORT_ERR. Each goes into the context's async
 * queue (sim_event.c), where get_async_event reads it.
 */

#include <string.h>

#include "sim_dev.h"
#include "sim_event.h"
#include "sim_obj.h"

void sim_async_event(struct sim_ctx *ctx, const struct ibv_async_event *ev)
{
	struct sim_ev e = { .async = *ev };

	if (sim_evq_push(&ctx->async, &e) != 0) {
		SIM_LOG(ERR, ctx->dev, "async event %s lost: out of memory",
			ibv_event_type_str(ev->event_type));
		return;
	}
	__atomic_fetch_add(&ctx->dev->st.async_events, 1, __ATOMIC_RELAXED);
}

/* A port or device event goes to every open context, as the kernel does. */
void sim_async_event_all(struct sim_mlx5_dev *dev, enum ibv_event_type type, unsigned int port)
{
	struct ibv_async_event ev;
	struct sim_ctx *ctx;

	memset(&ev, 0, sizeof(ev));
	ev.event_type = type;
	ev.element.port_num = (int)port + 1;
	TAILQ_FOREACH(ctx, &dev->ctxs, next)
		sim_async_event(ctx, &ev);
}

void sim_link_change(struct sim_port *port, bool up)
{
	if (port->link_up == up)
		return;
	port->link_up = up;
	SIM_LOG(INFO, port->dev, "port %u link %s", port->idx, up ? "up" : "down");
	sim_async_event_all(port->dev, up ? IBV_EVENT_PORT_ACTIVE : IBV_EVENT_PORT_ERR, port->idx);
}
