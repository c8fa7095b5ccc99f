#!/bin/bash
# net_dvp against native dvpmd: what hosting a dvp port in a DPDK
# application costs per packet (doc/dpdk.md, doc/perf.md).
#
# Usage: bench_net_dvp.sh DVP_FWD PLUGIN WORKDIR
#
# The same simulated HCA in both cases (two ports, each with a traffic
# source and sink at full rate, the device on its own thread), forwarded in
# io mode, poll mode, burst 32, by one lcore:
#   native  dvp-fwd on dvpmd's EAL;
#   hosted  Debian's dpdk-testpmd with net_dvp loaded (-d).
# (testpmd runs with --stats-period: without it, it reads stdin and quits
# at once.) Both count, with --record-core-cycles, the TSC cycles of the bursts that
# brought packets and print "CPU cycles/packet" (testpmd's count, which
# dvp-fwd copies): the forwarding lcore's cost per packet, whatever the
# device thread's share of the CPUs. The cases alternate, ROUNDS times each
# (DVP_BENCH_ROUNDS, default 3), DVP_BENCH_SECONDS (6) each.
#
# Prints one line per run and, last:
#   VS-NATIVE net_dvp_fwd ratio=<median hosted / median native cycles per packet>
# The target is at most 1.10.
set -u
fwd=$1
plugin=$2
work=$3/bench_net_dvp
rounds=${DVP_BENCH_ROUNDS:-3}
secs=${DVP_BENCH_SECONDS:-6}

skip() {
	echo "SKIP: $*"
	exit 77
}
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk-dev)"
[ "$(id -u)" = 0 ] || skip "not root"
[ -f "$plugin" ] || skip "no net_dvp plugin at $plugin"
rm -rf "$work"
mkdir -p "$work/pmd"
chmod 755 "$work" "$work/pmd"
cp "$plugin" "$work/pmd/"
sim="sim_mlx5,ports=2,cable=traffic"
pid=
trap '[ -n "$pid" ] && kill -INT $pid 2>/dev/null; rm -rf /var/run/dpdk/nbench$$' EXIT

cycles_of() {
	sed -n 's/.*CPU cycles\/packet=\([0-9.]*\).*/\1/p' "$1" | tail -n 1
}

run() {
	local kind=$1 round=$2 log=$work/$1.$2.log
	if [ "$kind" = native ]; then
		"$fwd" --lcores 0@0,1@1 --no-huge --vdev "$sim" -- --forward-mode io \
			--rx-mode poll --record-core-cycles --duration "$secs" --max-loss 100 \
			</dev/null >"$log" 2>&1 &
		pid=$!
		wait $pid
	else
		dpdk-testpmd --lcores 0@0,1@1 --no-huge -m 512 --no-pci --file-prefix nbench$$ \
			-d "$work/pmd/$(basename "$plugin")" --vdev "net_dvp0,$sim" -- \
			--forward-mode=io --record-core-cycles --no-lsc-interrupt --stats-period 1 \
			--total-num-mbufs=16384 </dev/null >"$log" 2>&1 &
		pid=$!
		sleep "$secs"
		kill -INT $pid
		wait $pid
	fi
	pid=
	c=$(cycles_of "$log")
	[ -n "$c" ] || { echo "FAIL: $kind round $round printed no cycles per packet (log $log)"; tail -n 20 "$log"; exit 1; }
	echo "NET_DVP_FWD case=$kind round=$round cycles_per_pkt=$c"
	eval "${kind}_c=\"\${${kind}_c:-} $c\""
}

for r in $(seq "$rounds"); do
	if [ $((r % 2)) = 1 ]; then run native "$r"; run hosted "$r"; else run hosted "$r"; run native "$r"; fi
done

median() { tr ' ' '\n' | grep . | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
n=$(echo "$native_c" | median)
h=$(echo "$hosted_c" | median)
echo "median cycles per packet: native $n, hosted $h"
awk -v h="$h" -v n="$n" 'BEGIN { printf "VS-NATIVE net_dvp_fwd ratio=%.3f\n", h / n }'
