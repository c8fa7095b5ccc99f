/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-info --json: the same report as one JSON object, for scripts and
 * tests, written with the dvp_json writer (names are escaped there).
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include <dvp_bus_ib.h>
#include <dvp_eal.h>
#include <dvp_json.h>
#include <dvp_lcore.h>
#include <dvp_malloc.h>
#include <dvp_port.h>

#include "info.h"

static void jflags(struct dvp_json *w, const char *key, const struct info_flag *flags, uint64_t v)
{
	dvp_json_arr_open(w, key);
	for (; flags->name != NULL; flags++)
		if (v & flags->bit)
			dvp_json_str(w, NULL, flags->name);
	dvp_json_arr_close(w);
}

static void json_lcores(struct dvp_json *w)
{
	unsigned int i;

	dvp_json_u64(w, "main_lcore", dvp_get_main_lcore());
	dvp_json_arr_open(w, "lcores");
	DVP_LCORE_FOREACH(i) {
		dvp_json_obj_open(w, NULL);
		dvp_json_u64(w, "lcore", i);
		dvp_json_i64(w, "cpu", dvp_lcore_to_cpu_id(i));
		dvp_json_i64(w, "node", dvp_lcore_to_socket_id(i));
		dvp_json_bool(w, "main", i == dvp_get_main_lcore());
		dvp_json_obj_close(w);
	}
	dvp_json_arr_close(w);
}

static void json_memory(struct dvp_json *w)
{
	struct dvp_malloc_socket_stats st;
	unsigned int n;

	dvp_json_obj_open(w, "memory");
	dvp_json_bool(w, "hugepages", dvp_eal_has_hugepages());
	dvp_json_arr_open(w, "nodes");
	for (n = 0; n < dvp_socket_count(); n++) {
		if (dvp_malloc_get_socket_stats((int)n, &st) != 0)
			continue;
		dvp_json_obj_open(w, NULL);
		dvp_json_u64(w, "node", n);
		dvp_json_u64(w, "mapped_bytes", st.heap_totalsz_bytes);
		dvp_json_u64(w, "free_bytes", st.heap_freesz_bytes);
		dvp_json_u64(w, "page_size", st.hugepage_sz);
		dvp_json_obj_close(w);
	}
	dvp_json_arr_close(w);
	dvp_json_obj_close(w);
}

static void json_device(struct dvp_device *dev, void *arg)
{
	const struct dvp_ib_device *ib = dev->ib;
	struct dvp_json *w = arg;
	char guid[24];
	unsigned int p;

	dvp_json_obj_open(w, NULL);
	dvp_json_str(w, "name", dev->name);
	dvp_json_str(w, "bus", info_bus_name(dev));
	dvp_json_i64(w, "node", dev->numa_node);
	dvp_json_str(w, "driver", dev->driver != NULL ? dev->driver->name : NULL);
	if (dev->devargs != NULL && dev->devargs->args != NULL)
		dvp_json_str(w, "devargs", dev->devargs->args);
	if (ib != NULL) {
		dvp_json_str(w, "provider", ib->provider);
		snprintf(guid, sizeof(guid), "%016" PRIx64, ib->node_guid);
		dvp_json_str(w, "node_guid", guid);
		dvp_json_bool(w, "software", ib->ibv_dev == NULL && ib->sw_ops != NULL);
		dvp_json_arr_open(w, "ports");
		for (p = 0; p < ib->nports; p++) {
			dvp_json_obj_open(w, NULL);
			dvp_json_u64(w, "port", ib->ports[p].port_num);
			dvp_json_str(w, "state", dvp_ib_port_state_name(ib->ports[p].state));
			dvp_json_str(w, "link_layer",
				     dvp_ib_link_layer_name(ib->ports[p].link_layer));
			dvp_json_str(w, "netdev",
				     ib->ports[p].netdev[0] ? ib->ports[p].netdev : NULL);
			dvp_json_obj_close(w);
		}
		dvp_json_arr_close(w);
	}
	dvp_json_obj_close(w);
}

static void jdesc(struct dvp_json *w, const char *key, const struct dvp_desc_lim *l, uint16_t def)
{
	dvp_json_obj_open(w, key);
	dvp_json_u64(w, "min", l->nb_min);
	dvp_json_u64(w, "max", l->nb_max);
	dvp_json_u64(w, "align", l->nb_align);
	dvp_json_u64(w, "default", def);
	dvp_json_obj_close(w);
}

static void json_port(struct dvp_json *w, uint16_t p)
{
	struct dvp_port_info in;
	struct dvp_ether_addr mac;
	struct dvp_link link;
	char macs[24] = "", name[64] = "";
	uint16_t mtu = 0;

	dvp_port_get_name(p, name, sizeof(name));
	dvp_json_obj_open(w, NULL);
	dvp_json_u64(w, "port_id", p);
	dvp_json_str(w, "name", name);
	if (dvp_port_info_get(p, &in) != 0) {
		dvp_json_str(w, "error", "cannot read its information");
		dvp_json_obj_close(w);
		return;
	}
	if (dvp_macaddr_get(p, &mac) == 0)
		dvp_ether_format_addr(macs, sizeof(macs), &mac);
	dvp_port_mtu_get(p, &mtu);
	dvp_json_str(w, "driver", in.driver_name);
	dvp_json_str(w, "device", in.device_name);
	dvp_json_i64(w, "node", in.numa_node);
	dvp_json_str(w, "mac", macs);
	if (dvp_link_get(p, &link) == 0) {
		dvp_json_obj_open(w, "link");
		dvp_json_bool(w, "up", link.link_status);
		dvp_json_i64(w, "speed_mbps",
			     link.link_speed == DVP_LINK_SPEED_UNKNOWN ? -1 :
									 (int64_t)link.link_speed);
		dvp_json_str(w, "duplex", link.link_duplex ? "full" : "half");
		dvp_json_obj_close(w);
	}
	dvp_json_u64(w, "mtu", mtu);
	dvp_json_u64(w, "min_mtu", in.min_mtu);
	dvp_json_u64(w, "max_mtu", in.max_mtu);
	dvp_json_u64(w, "max_rx_pktlen", in.max_rx_pktlen);
	dvp_json_u64(w, "speed_capa_mbps", in.speed_capa_mbps);
	dvp_json_u64(w, "max_rx_queues", in.max_rx_queues);
	dvp_json_u64(w, "max_tx_queues", in.max_tx_queues);
	dvp_json_u64(w, "rx_queues", in.nb_rx_queues);
	dvp_json_u64(w, "tx_queues", in.nb_tx_queues);
	jdesc(w, "rx_desc", &in.rx_desc_lim, in.default_rxq_size);
	jdesc(w, "tx_desc", &in.tx_desc_lim, in.default_txq_size);
	jflags(w, "rx_offloads", info_rx_offloads, in.rx_offload_capa);
	jflags(w, "tx_offloads", info_tx_offloads, in.tx_offload_capa);
	dvp_json_obj_open(w, "rss");
	dvp_json_u64(w, "key_size", in.hash_key_size);
	dvp_json_u64(w, "reta_size", in.reta_size);
	jflags(w, "fields", info_rss_fields, in.rss_hf_capa);
	dvp_json_obj_close(w);
	jflags(w, "interrupts", info_intr_capa, in.intr_capa);
	dvp_json_obj_close(w);
}

void info_print_json(FILE *f)
{
	struct dvp_json w;
	uint16_t p;

	dvp_json_init_file(&w, f);
	dvp_json_obj_open(&w, NULL);
	dvp_json_str(&w, "version", dvp_version());
	json_lcores(&w);
	json_memory(&w);
	dvp_json_arr_open(&w, "devices");
	dvp_dev_foreach(json_device, &w);
	dvp_json_arr_close(&w);
	dvp_json_arr_open(&w, "ports");
	DVP_PORT_FOREACH(p)
		json_port(&w, p);
	dvp_json_arr_close(&w);
	dvp_json_obj_close(&w);
	fputc('\n', f);
}
