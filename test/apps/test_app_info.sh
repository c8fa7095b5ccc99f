#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# dvp-info: its --json report read back (lcores, memory, devices on both
# buses, ports with their limits and capabilities), the text report of a
# bare EAL (lcores, memory per node, the devices) and of ports, and bad
# arguments (one line naming the token, exit 2, the usage hint). A fake
# sysfs tree holds an mlx5 device, so the result does not depend on the
# machine's RDMA devices.
set -u
info=$1
. "$(dirname "$0")/app_lib.sh"

root=$(mktemp -d)
at_exit 'rm -rf "$root"'
mkdir -p "$root/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs"
echo "0002:c903:0001:2345" >"$root/class/infiniband/mlx5_0/node_guid"
echo "4: ACTIVE" >"$root/class/infiniband/mlx5_0/ports/1/state"
echo "Ethernet" >"$root/class/infiniband/mlx5_0/ports/1/link_layer"
echo "eth7" >"$root/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"
args=(--no-huge $LCORES --vdev net_ring0 --vdev "sim_mlx5,ports=2")

run env DVP_SYSFS_ROOT="$root" "$info" "${args[@]}" -- --json
[ "$rc" = 0 ] || fail "dvp-info --json: exit $rc"
json_check 'doc["version"].startswith("dvpmd ")' \
	'len(doc["lcores"]) == 2 and sum(l["main"] for l in doc["lcores"]) == 1' \
	'doc["memory"]["hugepages"] is False and doc["memory"]["nodes"][0]["mapped_bytes"] > 0' \
	'any(d["name"] == "net_ring0" and d["bus"] == "vdev" and d["driver"] == "net_ring" for d in doc["devices"])' \
	'any(d["name"] == "mlx5_0" and d["bus"] == "ib" and d["provider"] == "mlx5" and d["node_guid"] == "0002c90300012345" and d["ports"][0]["netdev"] == "eth7" and d["ports"][0]["link_layer"] == "Ethernet" for d in doc["devices"])' \
	'any(d["name"] == "sim_mlx5_0" and d["provider"] == "sim_mlx5" and d["software"] and len(d["ports"]) == 2 for d in doc["devices"])' \
	'any(d["name"] == "sim_mlx5" and d["devargs"] == "ports=2" for d in doc["devices"])'
json_check 'doc["ports"][0]["name"] == "net_ring0" and doc["ports"][0]["driver"] == "net_ring"' \
	'doc["ports"][0]["mac"].count(":") == 5 and doc["ports"][0]["max_rx_queues"] >= 1' \
	'doc["ports"][0]["rx_desc"]["max"] >= doc["ports"][0]["rx_desc"]["min"] >= 1' \
	'"rxq" in doc["ports"][0]["interrupts"] and isinstance(doc["ports"][0]["rx_offloads"], list)' \
	'doc["ports"][0]["mtu"] >= doc["ports"][0]["min_mtu"]' \
	'"up" in doc["ports"][0]["link"]' \
	'all(p["driver"] == "net_mlx5" for p in doc["ports"] if p["device"] == "sim_mlx5_0")'

# The text report of an EAL with one lcore and 8 MB of ordinary pages.
cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status)
run env DVP_SYSFS_ROOT="$root" "$info" --no-huge -l "$cpu" -m 8
[ "$rc" = 0 ] || fail "dvp-info --no-huge -l $cpu -m 8: exit $rc"
for line in "^lcores: 1, main lcore $cpu" \
	"^  lcore $cpu: CPU $cpu, node [0-9]* (main)" \
	"^memory: ordinary pages in memfds (--no-huge)" \
	"^  node [0-9]*: 8.0 MB mapped" \
	"^  mlx5_0: ib bus, node -1, driver (none)" \
	"provider mlx5, node GUID 0002c90300012345" \
	"port 1: active, Ethernet, eth7"; do
	printf '%s\n' "$out" | grep -q -- "$line" || fail "dvp-info: no line matching: $line"
done

run env DVP_SYSFS_ROOT="$root" "$info" "${args[@]}"
[ "$rc" = 0 ] || fail "dvp-info: exit $rc"
printf '%s\n' "$out" | grep -q "^ports:$" || fail "no ports section"
printf '%s\n' "$out" | grep -q "^  port 0: net_ring0, driver net_ring, device net_ring0, node -\?[0-9]*$" ||
	fail "no line for port 0"
printf '%s\n' "$out" | grep -q "^    MAC 02:70:63:61:70:00, Link \(up\|down\).*, MTU [0-9]* ([0-9]*\.\.[0-9]*)" ||
	fail "no MAC and link line"
printf '%s\n' "$out" | grep -q "^    interrupts: .*rxq" || fail "no interrupts line"

for bad in "--no-huge $LCORES -- --bogus|--bogus: unknown option; valid: --json, --check, --frames N, --flap, --rx-buf N, --help" \
	"--no-huge $LCORES -- stray|unexpected argument 'stray'" \
	"--no-huge $LCORES -- --json=1|dvp-info: --json: takes no value (given '--json=1')" \
	"--no-huge stray|unexpected argument 'stray'" \
	"--no-huge $LCORES --bogus-eal|unknown EAL option" \
	"-l 9999|EAL: -l '9999': CPU 9999 does not exist"; do
	a=${bad%%|*} says=${bad#*|}
	run "$info" $a
	[ "$rc" = 2 ] || fail "dvp-info $a: exit $rc, expected 2"
	printf '%s\n' "$err" | grep -qF -- "$says" || fail "dvp-info $a: no line saying: $says"
	printf '%s\n' "$err" | grep -q "^Try 'dvp-info" || fail "dvp-info $a: no usage hint"
done
run "$info" --no-huge -- --help
[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q "^Usage: dvp-info" || fail "-- --help"
run "$info" -h
[ "$rc" = 0 ] || fail "dvp-info -h: exit $rc"
echo "dvp-info: ok"
