#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# net_af_xdp against DPDK's net_af_xdp on the same veth pairs, and its rx
# interrupts (doc/af_xdp.md, doc/perf.md).
#
# Usage: bench_af_xdp.sh DVP_FWD BENCH_AF_XDP_INTR
#
# Pipeline, over two veth pairs in namespaces made here (names from the
# pid, removed on any exit):
#
#   A: dpdk-testpmd txonly (DPDK's net_af_xdp on <S>a)  ==veth==  <S>b
#   M: the middle box, io forwarding <S>b -> <S>c (port 0 -> 1)
#   <S>c  ==veth==  C: dpdk-testpmd rxonly (DPDK's net_af_xdp on <S>e)
#
# M is dpdk-testpmd over DPDK's net_af_xdp in one case and dvp-fwd over
# dvpmd's net_af_xdp in the other, with the same meaning: poll mode, burst
# 32, what <S>c does not take dropped at once (testpmd's io mode; dvp-fwd
# --tx-retry 0), each driver with its defaults (native XDP, copy mode on a
# veth; DPDK's busy_budget 64, ours 0). The cases alternate, ROUNDS times
# each (DVP_BENCH_ROUNDS, 3), each measured for DVP_BENCH_SECONDS (8) after
# 2 s of warm-up.
#
# Pinning (2 CPUs): M's forwarding lcore alone on CPU 1; A's and C's share
# CPU 0, as do the main lcores. The kernel's work follows the sender: the
# veth's XDP path into M's socket runs on A's CPU, the one into C's socket
# on M's, alike for both middles.
#
# Figures per case:
#   sink_mpps   C's received packets per second over the window (its Rx-pps
#               lines, averaged): what went through the pipeline;
#   busy_mpps   M's packets per second of busy time (--record-core-cycles,
#               the same option in testpmd and dvp-fwd): the middle's own
#               cost, kernel time in its system calls included.
#
# Then bench_af_xdp_intr in the middle's namespace: wake-up latency of an
# rx queue asleep in interrupt mode, and the CPU of an idle one.
#
# Output:
#   AF_XDP_FWD middle=dpdk|dvp round=N sink_mpps=.. busy_mpps=.. cycles_per_pkt=..
#   VS-DPDK af_xdp_fwd dvp_mpps=<x> dpdk_mpps=<y> ratio=<x/y>        (sink, medians)
#   VS-DPDK af_xdp_fwd_busy dvp_mpps=<x> dpdk_mpps=<y> ratio=<x/y>   (busy, medians)
#   PERF af_xdp_wakeup mode=intr|poll p50_ns=.. p99_ns=.. ...
#   PERF af_xdp_idle_cpu lcore_pct=.. seconds=5 target_pct=1
# and the load average before and after. Exit 77 (skipped) without root,
# dpdk-testpmd or DPDK's net_af_xdp.
set -u
fwd=${1:?usage: bench_af_xdp.sh DVP_FWD BENCH_AF_XDP_INTR}
intr_bench=${2:?usage: bench_af_xdp.sh DVP_FWD BENCH_AF_XDP_INTR}
rounds=${DVP_BENCH_ROUNDS:-3}
secs=${DVP_BENCH_SECONDS:-8}
warm=2

skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: the bench makes network namespaces and veth pairs"
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk)"
ls /usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so >/dev/null 2>&1 ||
	skip "DPDK's net_af_xdp is not installed (Debian package librte-net-af-xdp23)"

S=bx$$
NS_S=${S}s NS_F=${S}f NS_D=${S}d
A=${S}a B=${S}b C=${S}c E=${S}e
work=$(mktemp -d)
pids=

cleanup() {
	local p n
	for p in $pids; do
		kill -INT "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	for n in $NS_S $NS_F $NS_D; do
		ip netns del "$n" 2>/dev/null
	done
	rm -rf /var/run/dpdk/"${S}"* "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL: $*"
	for f in "$work"/*.log; do
		echo "---- $f"
		grep -av -e '^ ' -e '^$' "$f" | tail -15
	done
	exit 1
}

for n in $NS_S $NS_F $NS_D; do
	ip netns add "$n" || skip "cannot make network namespaces here"
	ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
		net.ipv6.conf.default.disable_ipv6=1
	ip -n "$n" link set lo up
done
ip link add "$A" netns "$NS_S" type veth peer name "$B" netns "$NS_F" || skip "cannot make veths"
ip link add "$C" netns "$NS_F" type veth peer name "$E" netns "$NS_D"
ip -n "$NS_S" link set "$A" up
ip -n "$NS_F" link set "$B" up
ip -n "$NS_F" link set "$C" up
ip -n "$NS_D" link set "$E" up

# testpmd NAME NS PREFIX LCORES FWD EAL_ARGS...: one in the background, in NS.
testpmd() {
	local name=$1 ns=$2 prefix=$3 lcores=$4 mode=$5
	shift 5
	ip netns exec "$ns" dpdk-testpmd --lcores "$lcores" --no-pci --no-huge -m 256 \
		--file-prefix="$prefix" "$@" -- --forward-mode="$mode" --record-core-cycles \
		--stats-period 1 --no-lsc-interrupt --total-num-mbufs=16384 \
		$([ "$name" = M ] || echo --port-topology=loop) </dev/null >"$work/$name.log" 2>&1 &
	pids="$pids $!"
	eval "${name}_pid=$!"
}

stop() {
	kill -INT "$1" 2>/dev/null
	wait "$1" 2>/dev/null
	pids=$(echo "$pids" | sed "s/ $1\b//")
}

wait_log() {
	local i
	for i in $(seq 1 600); do
		grep -aq -- "$1" "$2" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

run_case() {
	local mid=$1 round=$2 n1 n2 sink cyc tot pkts mhz busy

	rm -f "$work"/*.log
	testpmd C "$NS_D" "${S}c" 0@0,1@0 rxonly --vdev "net_af_xdp0,iface=$E"
	wait_log "Port statistics" "$work/C.log" || fail "testpmd rxonly did not start"
	if [ "$mid" = dpdk ]; then
		testpmd M "$NS_F" "${S}m" 0@0,1@1 io --vdev "net_af_xdp0,iface=$B" \
			--vdev "net_af_xdp1,iface=$C"
		wait_log "Port statistics" "$work/M.log" || fail "testpmd (middle) did not start"
	else
		ip netns exec "$NS_F" "$fwd" --lcores 0@0,1@1 --no-huge -m 512 --no-telemetry \
			--file-prefix "${S}d" --vdev "net_af_xdp0,iface=$B" \
			--vdev "net_af_xdp1,iface=$C" -- --forward-mode io --rx-mode poll \
			--tx-retry 0 --record-core-cycles --stats-period 1 --max-loss 100 \
			</dev/null >"$work/M.log" 2>&1 &
		M_pid=$!
		pids="$pids $M_pid"
		wait_log "lcore 1 (CPU" "$work/M.log" || fail "dvp-fwd did not start"
	fi
	testpmd A "$NS_S" "${S}a" 0@0,1@0 txonly --vdev "net_af_xdp0,iface=$A"
	wait_log "Port statistics" "$work/A.log" || fail "testpmd txonly did not start"
	sleep $warm
	n1=$(grep -ac "Rx-pps" "$work/C.log")
	sleep "$secs"
	n2=$(grep -ac "Rx-pps" "$work/C.log")
	stop "$M_pid"
	stop "$A_pid"
	stop "$C_pid"
	rm -rf /var/run/dpdk/"${S}"*

	sink=$(grep -a "Rx-pps" "$work/C.log" | awk -v a="$n1" -v b="$n2" \
		'NR > a && NR <= b {s += $2; n++} END {if (n) printf "%.4f", s / n / 1e6}')
	read -r cyc tot pkts mhz < <(sed -n 's/.*CPU cycles\/packet=\([0-9.]*\) (total cycles=\([0-9]*\) \/ total io packets=\([0-9]*\)) at \([0-9]*\) MHz.*/\1 \2 \3 \4/p' "$work/M.log" | tail -1)
	[ -n "$sink" ] && [ -n "${cyc:-}" ] && [ -n "${pkts:-}" ] && [ "$pkts" -gt 0 ] ||
		fail "$mid round $round: no figures (window $n1..$n2, cycles '${cyc:-}')"
	awk -v s="$sink" 'BEGIN {exit !(s > 0)}' || fail "$mid round $round: nothing reached the sink"
	if [ "$mid" = dvp ]; then
		grep -q "^pool: \([0-9]*\) of \1 mbufs back" "$work/M.log" || fail "dvp-fwd lost mbufs"
	fi
	busy=$(awk -v t="$tot" -v p="$pkts" -v mhz="$mhz" 'BEGIN {printf "%.4f", p * mhz / t}')
	echo "AF_XDP_FWD middle=$mid round=$round sink_mpps=$sink busy_mpps=$busy cycles_per_pkt=$cyc"
	eval "sink_$mid=\"\${sink_$mid:-} $sink\""
	eval "busy_$mid=\"\${busy_$mid:-} $busy\""
}

median() {
	echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

echo "bench_af_xdp: $rounds rounds of each middle box, ${secs} s windows; load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for r in $(seq 1 "$rounds"); do
	for mid in dpdk dvp; do
		run_case "$mid" "$r"
	done
done
sd=$(median $sink_dvp)
sp=$(median $sink_dpdk)
bd=$(median $busy_dvp)
bp=$(median $busy_dpdk)
echo "VS-DPDK af_xdp_fwd dvp_mpps=$sd dpdk_mpps=$sp ratio=$(awk -v x="$sd" -v y="$sp" 'BEGIN {printf "%.3f", x / y}')"
echo "VS-DPDK af_xdp_fwd_busy dvp_mpps=$bd dpdk_mpps=$bp ratio=$(awk -v x="$bd" -v y="$bp" 'BEGIN {printf "%.3f", x / y}')"

ip netns exec "$NS_F" "$intr_bench" "$NS_S" "$A" --no-huge -m 256 -l 0-1 --no-telemetry \
	--file-prefix "${S}i" --log-level warning --vdev "net_af_xdp0,iface=$B" ||
	fail "bench_af_xdp_intr failed"
echo "bench_af_xdp: load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit 0
