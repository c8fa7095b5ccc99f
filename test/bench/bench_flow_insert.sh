#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# Flow rules per second: dvpmd's own (bench_flow_insert, dvp_flow_* on the
# mlx5 PMD over the sim) and, beside it, Debian's dpdk-test-flow-perf
# creating and deleting the same rules (ETH / IPV4 dst / QUEUE) through
# rte_flow on a net_dvp port of the same sim. Both sims are stepped
# (mode=step) with no traffic: a rule is made in the verbs call, and a
# device thread polling beside the inserting lcore on this machine's two
# CPUs would be timed with it (a fourth of the rate).
#
# Usage: bench_flow_insert.sh BENCH_FLOW_INSERT WORKDIR [PLUGIN]
# WORKDIR: where the plugin's copy goes (DPDK loads a plugin only from a
# directory below no world-writable one, so not /tmp).
# DVP_BENCH_RULES rules a round (10000), DVP_BENCH_ROUNDS rounds (5).
# Output:
#   PERF flow_insert rules=.. rounds=.. insert_per_s=.. destroy_per_s=.. ...
#   PERF flow_insert_flow_perf rules=.. insert_per_s=.. destroy_per_s=..
# or, when flow-perf cannot run here, one line saying why in its place.
set -u
bench=$1
workdir=$2
plugin=${3:-}
rules=${DVP_BENCH_RULES:-10000}
rounds=${DVP_BENCH_ROUNDS:-5}

"$bench" "$rules" "$rounds" || exit 1

why=
command -v dpdk-test-flow-perf >/dev/null || why="dpdk-test-flow-perf not found (Debian package dpdk-dev)"
[ -z "$why" ] && [ -z "$plugin" ] && why="net_dvp was not built"
[ -z "$why" ] && [ "$(id -u)" != 0 ] && why="not root"
if [ -n "$why" ]; then
	echo "flow_insert_flow_perf: not run: $why"
	exit 0
fi
work=$workdir/flow_perf.work
rm -rf "$work"
mkdir -p "$work" || exit 1
trap '[ -n "${DVP_BENCH_KEEP:-}" ] || rm -rf "$work"; rm -rf "/var/run/dpdk/dvpfp$$"' EXIT
chmod 755 "$work"
cp "$plugin" "$work/"
out=$work/flow-perf.log
timeout 600 dpdk-test-flow-perf -l 0-1 --no-huge -m 512 --no-pci --file-prefix "dvpfp$$" \
	-d "$work/$(basename "$plugin")" --vdev "net_dvp0,sim_mlx5,ports=1,mode=step" -- \
	--ingress --ether --ipv4 --queue --rules-count="$rules" --rules-batch="$rules" \
	--deletion-rate >"$out" 2>&1
rc=$?
# ":: Port 0 :: Core 0 :: Rules insertion rate -> 123.45 K Rule/Sec" and the same for deletion.
ins=$(sed -n 's/.*Total flows insertion rate -> *\([0-9.]*\) K Rules\/Sec.*/\1/p' "$out" | tail -n 1)
del=$(sed -n 's/.*Total deletion rate -> *\([0-9.]*\) K Rules\/Sec.*/\1/p' "$out" | tail -n 1)
if [ $rc != 0 ] || [ -z "$ins" ]; then
	echo "flow_insert_flow_perf: dpdk-test-flow-perf over net_dvp did not run (status $rc): $(grep -E 'Cause|invalid|refused|Error' "$out" | head -n 2 | tr '\n' ' ')"
	exit 0
fi
awk -v r="$rules" -v i="$ins" -v d="${del:-0}" 'BEGIN {
	printf "PERF flow_insert_flow_perf rules=%d insert_per_s=%.0f destroy_per_s=%.0f\n", r, i * 1000, d * 1000 }'
