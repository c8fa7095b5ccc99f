#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# dvp-info: a bad -l fails with one line naming the token; with --no-huge it
# prints the lcores, the memory per node and the devices (here a fake sysfs
# tree's, so the output does not depend on the machine's RDMA devices).
set -u
info=$1
fail() { echo "FAIL: $*"; [ -n "${out:-}" ] && printf '%s\n' "$out"; exit 1; }

out=$("$info" -l 9999 2>&1) && fail "dvp-info -l 9999 succeeded"
printf '%s\n' "$out" | grep -q "^EAL: -l '9999': CPU 9999 does not exist" || fail "no line naming 9999"

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs"
echo "0002:c903:0001:2345" >"$root/class/infiniband/mlx5_0/node_guid"
echo "4: ACTIVE" >"$root/class/infiniband/mlx5_0/ports/1/state"
echo "Ethernet" >"$root/class/infiniband/mlx5_0/ports/1/link_layer"
echo "eth7" >"$root/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"

cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, /[-,]/); print a[1] }' /proc/self/status)
out=$(DVP_SYSFS_ROOT=$root "$info" --no-huge -l "$cpu" -m 8 2>&1) || fail "dvp-info --no-huge failed"
printf '%s\n' "$out" | grep -q "^lcores: 1, main lcore $cpu" || fail "no lcore line"
printf '%s\n' "$out" | grep -q "^  lcore $cpu: CPU $cpu, node [0-9]* (main)" || fail "no main lcore"
printf '%s\n' "$out" | grep -q "^memory: ordinary pages in memfds (--no-huge)" || fail "no memory kind"
printf '%s\n' "$out" | grep -q "^  node [0-9]*: 8.0 MB mapped" || fail "no memory per node"
printf '%s\n' "$out" | grep -q "^  mlx5_0: ib bus, node -1, driver (none)" || fail "no device"
printf '%s\n' "$out" | grep -q "provider mlx5, node GUID 0002c90300012345" || fail "no provider or GUID"
printf '%s\n' "$out" | grep -q "port 1: active, Ethernet, eth7" || fail "no port"

out=$("$info" --no-huge stray 2>&1) && fail "a stray argument was accepted"
printf '%s\n' "$out" | grep -q "unexpected argument 'stray'" || fail "stray argument not named"
"$info" -h >/dev/null || fail "-h did not exit 0"
echo "dvp-info: ok"
