/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright (c) 2026 The dvpmd authors
 */

/*
 * dvp-info --json: the same report as one JSON object, for scripts and
 * tests. Names are JSON strings escaped here; numbers are plain.
 */

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include <infiniband/verbs.h>

#include <dvp_eal.h>
#include <dvp_lcore.h>
#include <dvp_malloc.h>
#include <dvp_port.h>

#include "info.h"

static void jstr(FILE *f, const char *s)
{
	fputc('"', f);
	for (; s != NULL && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void jflags(FILE *f, const struct info_flag *flags, uint64_t v)
{
	bool first = true;

	fputc('[', f);
	for (; flags->name != NULL; flags++) {
		if (v & flags->bit) {
			fprintf(f, "%s", first ? "" : ",");
			jstr(f, flags->name);
			first = false;
		}
	}
	fputc(']', f);
}

static void json_lcores(FILE *f)
{
	unsigned int i;
	bool first = true;

	fprintf(f, "\"main_lcore\":%u,\"lcores\":[", dvp_get_main_lcore());
	DVP_LCORE_FOREACH(i) {
		fprintf(f, "%s{\"lcore\":%u,\"cpu\":%d,\"node\":%d,\"main\":%s}", first ? "" : ",",
			i, dvp_lcore_to_cpu_id(i), dvp_lcore_to_socket_id(i),
			i == dvp_get_main_lcore() ? "true" : "false");
		first = false;
	}
	fprintf(f, "]");
}

static void json_memory(FILE *f)
{
	struct dvp_malloc_socket_stats st;
	unsigned int n;
	bool first = true;

	fprintf(f, "\"memory\":{\"hugepages\":%s,\"nodes\":[",
		dvp_eal_has_hugepages() ? "true" : "false");
	for (n = 0; n < dvp_socket_count(); n++) {
		if (dvp_malloc_get_socket_stats((int)n, &st) != 0)
			continue;
		fprintf(f,
			"%s{\"node\":%u,\"mapped_bytes\":%zu,\"free_bytes\":%zu,\"page_size\":%zu}",
			first ? "" : ",", n, (size_t)st.heap_totalsz_bytes,
			(size_t)st.heap_freesz_bytes, (size_t)st.hugepage_sz);
		first = false;
	}
	fprintf(f, "]}");
}

struct dev_walk {
	FILE *f;
	bool first;
};

static void json_device(struct dvp_device *dev, void *arg)
{
	struct dev_walk *w = arg;
	const struct dvp_ib_device *ib = dev->ib;
	FILE *f = w->f;
	unsigned int p;

	fprintf(f, "%s{\"name\":", w->first ? "" : ",");
	w->first = false;
	jstr(f, dev->name);
	fprintf(f, ",\"bus\":\"%s\",\"node\":%d,\"driver\":", info_bus_name(dev), dev->numa_node);
	if (dev->driver != NULL)
		jstr(f, dev->driver->name);
	else
		fprintf(f, "null");
	if (dev->devargs != NULL && dev->devargs->args != NULL) {
		fprintf(f, ",\"devargs\":");
		jstr(f, dev->devargs->args);
	}
	if (ib != NULL) {
		fprintf(f, ",\"provider\":");
		jstr(f, ib->provider);
		fprintf(f, ",\"node_guid\":\"%016" PRIx64 "\",\"software\":%s,\"ports\":[",
			ib->node_guid,
			ib->ibv_dev == NULL && ib->sw_ops != NULL ? "true" : "false");
		for (p = 0; p < ib->nports; p++) {
			fprintf(f, "%s{\"port\":%u,\"state\":", p ? "," : "",
				ib->ports[p].port_num);
			jstr(f, ibv_port_state_str((enum ibv_port_state)ib->ports[p].state));
			fprintf(f, ",\"link_layer\":");
			jstr(f, info_link_layer_name(ib->ports[p].link_layer));
			fprintf(f, ",\"netdev\":");
			if (ib->ports[p].netdev[0])
				jstr(f, ib->ports[p].netdev);
			else
				fprintf(f, "null");
			fprintf(f, "}");
		}
		fprintf(f, "]");
	}
	fprintf(f, "}");
}

static void jdesc(FILE *f, const char *key, const struct dvp_desc_lim *l, uint16_t def)
{
	fprintf(f, ",\"%s\":{\"min\":%u,\"max\":%u,\"align\":%u,\"default\":%u}", key, l->nb_min,
		l->nb_max, l->nb_align, def);
}

static void json_port(FILE *f, uint16_t p, bool first)
{
	struct dvp_port_info in;
	struct dvp_ether_addr mac;
	struct dvp_link link;
	char macs[24] = "", name[64] = "";
	uint16_t mtu = 0;

	dvp_port_get_name(p, name, sizeof(name));
	fprintf(f, "%s{\"port_id\":%u,\"name\":", first ? "" : ",", p);
	jstr(f, name);
	if (dvp_port_info_get(p, &in) != 0) {
		fprintf(f, ",\"error\":\"cannot read its information\"}");
		return;
	}
	if (dvp_macaddr_get(p, &mac) == 0)
		dvp_ether_format_addr(macs, sizeof(macs), &mac);
	dvp_port_mtu_get(p, &mtu);
	fprintf(f, ",\"driver\":");
	jstr(f, in.driver_name);
	fprintf(f, ",\"device\":");
	jstr(f, in.device_name);
	fprintf(f, ",\"node\":%d,\"mac\":\"%s\"", in.numa_node, macs);
	if (dvp_link_get(p, &link) == 0)
		fprintf(f, ",\"link\":{\"up\":%s,\"speed_mbps\":%" PRId64 ",\"duplex\":\"%s\"}",
			link.link_status ? "true" : "false",
			link.link_speed == DVP_LINK_SPEED_UNKNOWN ? (int64_t)-1 :
								    (int64_t)link.link_speed,
			link.link_duplex ? "full" : "half");
	fprintf(f,
		",\"mtu\":%u,\"min_mtu\":%u,\"max_mtu\":%u,\"max_rx_pktlen\":%u,"
		"\"speed_capa_mbps\":%u,\"max_rx_queues\":%u,\"max_tx_queues\":%u,"
		"\"rx_queues\":%u,\"tx_queues\":%u",
		mtu, in.min_mtu, in.max_mtu, in.max_rx_pktlen, in.speed_capa_mbps, in.max_rx_queues,
		in.max_tx_queues, in.nb_rx_queues, in.nb_tx_queues);
	jdesc(f, "rx_desc", &in.rx_desc_lim, in.default_rxq_size);
	jdesc(f, "tx_desc", &in.tx_desc_lim, in.default_txq_size);
	fprintf(f, ",\"rx_offloads\":");
	jflags(f, info_rx_offloads, in.rx_offload_capa);
	fprintf(f, ",\"tx_offloads\":");
	jflags(f, info_tx_offloads, in.tx_offload_capa);
	fprintf(f, ",\"rss\":{\"key_size\":%u,\"reta_size\":%u,\"fields\":", in.hash_key_size,
		in.reta_size);
	jflags(f, info_rss_fields, in.rss_hf_capa);
	fprintf(f, "},\"interrupts\":");
	jflags(f, info_intr_capa, in.intr_capa);
	fprintf(f, "}");
}

void info_print_json(FILE *f)
{
	struct dev_walk w = { f, true };
	bool first = true;
	uint16_t p;

	fprintf(f, "{\"version\":");
	jstr(f, dvp_version());
	fprintf(f, ",");
	json_lcores(f);
	fprintf(f, ",");
	json_memory(f);
	fprintf(f, ",\"devices\":[");
	dvp_dev_foreach(json_device, &w);
	fprintf(f, "],\"ports\":[");
	DVP_PORT_FOREACH(p) {
		json_port(f, p, first);
		first = false;
	}
	fprintf(f, "]}\n");
}
