#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# usertools/dvp-devices on a fake sysfs tree: an mlx5 HCA with its netdev
# (claimed by net_mlx5) and a Soft-RoCE device (net_verbs); none at all.
set -u
devices=$1
fail() { echo "FAIL: $*"; [ -n "${out:-}" ] && printf '%s\n' "$out"; exit 1; }

root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
pci=$root/devices/pci0000:00/0000:03:00.0
mkdir -p "$root/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs" "$root/class/net/eth7" \
	"$root/bus/pci/drivers/mlx5_core" "$pci" "$root/class/infiniband/rxe0/ports/1"
ln -s "$pci" "$root/class/infiniband/mlx5_0/device"
ln -s "$root/bus/pci/drivers/mlx5_core" "$pci/driver"
echo 1 >"$pci/numa_node"
echo 16.35.2000 >"$root/class/infiniband/mlx5_0/fw_ver"
echo "4: ACTIVE" >"$root/class/infiniband/mlx5_0/ports/1/state"
echo Ethernet >"$root/class/infiniband/mlx5_0/ports/1/link_layer"
echo eth7 >"$root/class/infiniband/mlx5_0/ports/1/gid_attrs/ndevs/0"
echo up >"$root/class/net/eth7/operstate"
echo 0c:42:a1:00:00:01 >"$root/class/net/eth7/address"
echo "1: DOWN" >"$root/class/infiniband/rxe0/ports/1/state"
echo Ethernet >"$root/class/infiniband/rxe0/ports/1/link_layer"

out=$(DVP_SYSFS_ROOT=$root "$devices" 2>&1) || fail "exit $?"
printf '%s\n' "$out" | grep -qx "mlx5_0: provider mlx5 (kernel driver mlx5_core, 0000:03:00.0), node 1, firmware 16.35.2000" ||
	fail "no mlx5_0 line"
printf '%s\n' "$out" | grep -qx "  port 1: ACTIVE, Ethernet, netdev eth7 (up, 0c:42:a1:00:00:01)" || fail "no port line"
printf '%s\n' "$out" | grep -qx "  dvpmd driver: net_mlx5 (direct verbs); use -a mlx5_0" || fail "no claim by net_mlx5"
printf '%s\n' "$out" | grep -qx "rxe0: provider rxe (software device), node -1" || fail "no rxe0 line"
printf '%s\n' "$out" | grep -qx "  dvpmd driver: net_verbs (plain verbs); use --vdev net_verbs0,dev=rxe0,listen=IP:PORT on one end, connect=IP:PORT on the other" ||
	fail "no claim by net_verbs, or not as a --vdev"
printf '%s\n' "$out" | grep -q "^  locked memory (ulimit -l): " || fail "no memlock line"

empty=$(mktemp -d)
out=$(DVP_SYSFS_ROOT=$empty "$devices" 2>&1) || fail "no devices: exit $?"
rmdir "$empty"
printf '%s\n' "$out" | grep -q "^no RDMA device in .* (the simulated HCA is --vdev sim_mlx5)" || fail "no-device line"

out=$("$devices" --bogus 2>&1) && fail "--bogus accepted"
[ $? = 2 ] || true
out=$("$devices" --bogus 2>&1; echo "rc=$?")
printf '%s\n' "$out" | grep -q "unknown argument '--bogus'" || fail "bad argument not named"
printf '%s\n' "$out" | grep -q "^rc=2$" || fail "bad argument: exit status not 2"
"$devices" --help | grep -q "^Usage: dvp-devices" || fail "--help"
echo "dvp-devices: ok"
