#!/bin/bash
# memif forwarding against DPDK, and our memif rx interrupts (doc/perf.md).
#
# Usage: bench_memif_fwd.sh DVP_FWD [BENCH_MEMIF_INTR [NET_DVP_PLUGIN]]
#
# Pipeline, over two memif links (sockets in a temporary directory), with
# three CPUs or more (the open topology):
#
#   A: dpdk-testpmd txonly, client --link 1--> M: the middle box, server on
#   both links, io forwarding port 0 -> 1 --link 2--> C: dpdk-testpmd rxonly,
#   client
#
# With two CPUs (the loop topology; DVP_BENCH_TOPOLOGY=open|loop forces
# one), one dpdk-testpmd E is both ends, on CPU 0:
#
#   E port 0 --link 1--> M --link 2--> E port 1, and back the other way
#
# E io-forwards between its links, as M does, so the frames circle; it
# starts them with --tx-first, 128 a link (testpmd's --burst, which its
# forwarding takes too: more frames in flight, fewer bursts a frame for
# E; M keeps its bursts of 32). Its links are
# zero-copy clients (rsize=12), so E's side copies nothing and M's copies
# are the copies of the loop; E's cost per frame is still about M's, so the
# loop's rate is set by both: a faster M makes it faster, not by all of its
# lead. The sink figure is E's received frames per second over both links.
#
# With NET_DVP_PLUGIN (librte_net_dvp.so), a third middle box: dpdk-testpmd
# again, over dvpmd's memif through net_dvp (--vdev net_dvp0,net_memif0,...),
# so dvp's memif and DPDK's are compared inside the same application:
#   VS-DPDK testpmd_memif dvp_mpps=<x> dpdk_mpps=<y> ratio=<x/y>  (sink, medians)
# (copy mode only: hosted memory has no fd for zero-copy to share).
#
# M is dpdk-testpmd (io forwarding) in one case and dvp-fwd in the other,
# with the same command-line meaning: poll mode, burst 32, what link 2 does
# not take dropped at once (testpmd's io mode without retry; dvp-fwd
# --tx-retry 0). The cases alternate, ROUNDS times each (DVP_BENCH_ROUNDS,
# default 3), each measured for DVP_BENCH_SECONDS (8) after 2 s of warm-up.
#
# Pinning: M's forwarding lcore alone on CPU 1, A's (or E's) on CPU 0, C's
# on CPU 2; the main lcores on CPU 0 (they sleep between stats lines). The
# open topology forced on two CPUs puts A's and C's forwarding lcores on
# CPU 0, where they take turns in scheduler ticks: while A runs, M fills
# link 2 and drops the rest, and C then drains one ring in its turn. The
# sink's rate is then C's ring per two ticks (16384 descriptors, rsize=14,
# the largest DPDK allows, per 8 ms at HZ=250: 2.05 Mpps) whatever the
# middle box, and a middle that drops later (a slower one) leaves more in
# link 1 for C's turn: that pipeline line compares nothing, and says so
# (sink-bound, no ratio). The loop has no turns: one process, one lcore.
#
# E, DPDK 22.11's zero-copy client, may die on SIGSEGV when its server
# leaves first (seen with a testpmd server in most rounds, with dvp-fwd's
# in a few); M must leave first, while its links are up, for its
# counters, and E's figures are its periodic lines: the bench says how E
# ended and goes on.
#
# Two figures per case:
#   sink_mpps   C's (or E's, both links) received packets per second over
#               the window: what went through the pipeline (testpmd's
#               Rx-pps lines, averaged);
#   busy_mpps   M's packets received per second of busy time: TSC cycles of
#               its bursts that brought packets (--record-core-cycles, the
#               same option and count in testpmd and dvp-fwd), so the middle
#               box's own cost whatever limits the pipeline.
#
# DVP_BENCH_MIDDLE=zero-copy turns the links round: M is the client on both
# with zero-copy=yes (testpmd with --single-file-segments, as DPDK's
# zero-copy needs), A and C are servers; the middles ask for rings of 2^13
# (the sink's ring is what it can take while the source has CPU 0) and have
# 40960 mbufs each, since a zero-copy client's rings hold mbufs (up to 4
# rings of 8192). The default is the copy-mode pipeline above.
#
# Memory: 2 MiB hugepages for all four programs when 448 free ones can be
# had (reserved here if need be, and given back), else --no-huge for all.
# The sources' and sinks' -m 128 and a middle's -m 256 make 256 pages, but
# -m is what DPDK maps at start, not a limit: testpmd over net_dvp grows
# to about 400 MB with the pools and queues net_dvp makes, which left the
# source started after it short of 5 pages with 320;
# DVP_BENCH_MEM=huge|no-huge forces one. Every /var/run/dpdk/<prefix> and
# hugepage file of the run is removed at the end.
#
# Output:
#   MEMIF_FWD middle=dpdk|dvp round=N sink_mpps=.. busy_mpps=.. cycles_per_pkt=..
#             middle_rx=.. middle_tx=.. middle_drop=..
#   VS-DPDK memif_fwd dvp_mpps=<x> dpdk_mpps=<y> ratio=<x/y> topology=open|loop
#     (sink, medians) or, open on two CPUs, ... sink-bound cpus=2 in place
#     of the ratio
#   VS-DPDK memif_fwd_busy dvp_mpps=<x> dpdk_mpps=<y> ratio=<x/y>   (busy, medians)
#   then bench_memif_intr's MEMIF intr line, when given.
# Exit 77 (skipped) without dpdk-testpmd or root.
set -u
fwd=$1
intr_bench=${2:-}
plugin=${3:-}
rounds=${DVP_BENCH_ROUNDS:-3}
middle=${DVP_BENCH_MIDDLE:-copy}
topology=${DVP_BENCH_TOPOLOGY:-}
secs=${DVP_BENCH_SECONDS:-8}
warm=2

skip() {
	echo "SKIP: $*"
	exit 77
}
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk-dev)"
[ "$(id -u)" = 0 ] || skip "not root: DPDK's testpmd needs root"

work=$(mktemp -d /tmp/memif-bench.XXXXXX)
base=mb$$
prefixes="${base}a ${base}c ${base}m ${base}d"
pids=
saved_nr_huge=
huge_dir=$(awk '$3 == "hugetlbfs" {print $2; exit}' /proc/mounts)

# testpmd keeps its runtime directory and its hugepage files after it exits.
clean_prefixes() {
	local p
	for p in $prefixes; do
		rm -rf "/var/run/dpdk/$p"
		[ -n "$huge_dir" ] && rm -f "$huge_dir/${p}map_"* "$huge_dir/${p}map.lock"
	done
}
cleanup() {
	local p
	for p in $pids; do
		kill -INT "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	clean_prefixes
	[ -n "$saved_nr_huge" ] && echo "$saved_nr_huge" >/proc/sys/vm/nr_hugepages
	rm -rf "$work"
}
trap cleanup EXIT

free_pages() { awk '/^HugePages_Free/ {print $2}' /proc/meminfo; }
mem=${DVP_BENCH_MEM:-huge}
if [ "$mem" = huge ]; then
	if [ "$(free_pages)" -lt 448 ]; then
		saved_nr_huge=$(cat /proc/sys/vm/nr_hugepages)
		echo $((saved_nr_huge + 448 - $(free_pages))) >/proc/sys/vm/nr_hugepages 2>/dev/null || true
	fi
	if [ "$(free_pages)" -lt 448 ] || [ -z "$huge_dir" ]; then
		echo "bench_memif_fwd: fewer than 448 free 2 MiB hugepages (or no hugetlbfs mount): --no-huge for all"
		mem=no-huge
	fi
fi
if [ "$mem" = huge ]; then
	tp_mem="-m 128"
	mid_mem="-m 256"
else
	tp_mem="--no-huge -m 256"
	mid_mem="--no-huge -m 512"
fi

# testpmd NAME PREFIX LCORES FWD EAL_ARGS... : start one in the background.
testpmd() {
	local name=$1 prefix=$2 lcores=$3 fwd=$4
	shift 4
	dpdk-testpmd --lcores "$lcores" --no-pci --file-prefix="$prefix" "$@" \
		-- --forward-mode="$fwd" --record-core-cycles --stats-period 1 --no-lsc-interrupt \
		--total-num-mbufs=${tp_mbufs:-16384} ${tp_app:-} </dev/null >"$work/$name.log" 2>&1 &
	pids="$pids $!"
	eval "${name}_pid=$!"
}

# stop PID: SIGINT, and its exit status in $stopped_rc.
stop() {
	local pid=$1
	kill -INT "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	stopped_rc=$?
	pids=$(echo "$pids" | sed "s/ $pid\b//")
}

wait_log() {
	local pat=$1 file=$2 i
	for i in $(seq 1 200); do
		grep -aq -- "$pat" "$file" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

fail() {
	echo "FAIL: $*"
	for f in "$work"/*.log; do
		echo "---- $f"
		grep -av -e '^ ' -e '^$' "$f" | tail -15
	done
	exit 1
}

cpus=$(nproc)
sink_cpu=0
[ "$cpus" -ge 3 ] && sink_cpu=2
if [ -z "$topology" ]; then
	topology=open
	[ "$cpus" -lt 3 ] && [ "$middle" = copy ] && topology=loop
fi
case $topology/$middle in
open/* | loop/copy) ;;
loop/*) fail "DVP_BENCH_TOPOLOGY=loop needs the copy-mode middle (its ends are the zero-copy clients)" ;;
*) fail "DVP_BENCH_TOPOLOGY=$topology: expected open or loop" ;;
esac

# The sink C, then the source A: clients of the middle's servers, or servers.
start_ends() {
	testpmd C "${base}c" "0@0,1@$sink_cpu" rxonly $tp_mem \
		--vdev="net_memif0,role=$peer_role,socket=$work/l2.sock,socket-abstract=no$peer_x"
	wait_log "Port 0:" "$work/C.log" || fail "testpmd rxonly did not start"
	testpmd A "${base}a" 0@0,1@0 txonly $tp_mem \
		--vdev="net_memif0,role=$peer_role,socket=$work/l1.sock,socket-abstract=no$peer_x"
	wait_log "Port 0:" "$work/A.log" || fail "testpmd txonly did not start"
}

# The loop's one end, E: both links, zero-copy clients, frames started by
# --tx-first and forwarded back into the loop.
start_loop_end() {
	local x=",rsize=12,zero-copy=yes"

	tp_mbufs=32768 tp_app="--tx-first --burst=128" testpmd E "${base}a" 0@0,1@0 io $tp_mem \
		--single-file-segments \
		--vdev="net_memif0,role=client,socket=$work/l1.sock,socket-abstract=no$x" \
		--vdev="net_memif1,role=client,socket=$work/l2.sock,socket-abstract=no$x"
	wait_log "Port 1:" "$work/E.log" || fail "testpmd (the loop's end) did not start"
}

# Run one case: the middle box $1 (dpdk or dvp), round $2.
run_case() {
	local mid=$1 round=$2 n1 n2 sink cyc tot pkts mhz rx tx drop busy
	local dev1="role=server,socket=$work/l1.sock,socket-abstract=no"
	local dev2="role=server,socket=$work/l2.sock,socket-abstract=no"
	local peer_role=client peer_x=",rsize=14" mid_eal= mid_app=

	rm -f "$work"/*.log
	if [ "$middle" = zero-copy ]; then
		# The ends are servers, started first; the middle connects to both.
		dev1="role=client,socket=$work/l1.sock,socket-abstract=no,rsize=13,zero-copy=yes"
		dev2="role=client,socket=$work/l2.sock,socket-abstract=no,rsize=13,zero-copy=yes"
		peer_role=server
		peer_x=
		mid_eal=--single-file-segments
		mid_app=--total-num-mbufs=40960
		# A server's socket file left by the previous round would fail its bind.
		rm -f "$work/l1.sock" "$work/l2.sock"
		start_ends
	fi
	if [ "$mid" = dpdk ]; then
		tp_mbufs=${mid_app#--total-num-mbufs=} testpmd M "${base}m" 0@0,1@1 io $mid_mem \
			$mid_eal --vdev="net_memif0,$dev1" --vdev="net_memif1,$dev2"
		wait_log "Port 1:" "$work/M.log" || fail "testpmd (middle) did not start"
	elif [ "$mid" = net_dvp ]; then
		testpmd M "${base}m" 0@0,1@1 io $mid_mem -d "$plugin" \
			--vdev="net_dvp0,net_memif0,$dev1" --vdev="net_dvp1,net_memif1,$dev2"
		wait_log "Port 1:" "$work/M.log" || fail "testpmd over net_dvp (middle) did not start"
	else
		"$fwd" --lcores 0@0,1@1 --file-prefix "${base}d" $mid_mem \
			--vdev "net_memif0,$dev1" --vdev "net_memif1,$dev2" -- \
			--forward-mode io --rx-mode poll --tx-retry 0 --record-core-cycles \
			--stats-period 1 --max-loss 100 $mid_app </dev/null >"$work/M.log" 2>&1 &
		M_pid=$!
		pids="$pids $M_pid"
		wait_log "lcore 1 (CPU" "$work/M.log" || fail "dvp-fwd did not start"
	fi
	local sink_log=$work/C.log links=1
	if [ "$topology" = loop ]; then
		start_loop_end
		sink_log=$work/E.log
		links=2
	elif [ "$middle" != zero-copy ]; then
		start_ends
	fi
	sleep $warm
	n1=$(grep -ac "Rx-pps" "$sink_log")
	sleep "$secs"
	n2=$(grep -ac "Rx-pps" "$sink_log")
	# The middle stops first, while both links are up: DPDK's memif counts
	# only while connected, and testpmd's totals come from those counters.
	stop "$M_pid"
	if [ "$topology" = loop ]; then
		stop "$E_pid"
		[ "$stopped_rc" -le 128 ] ||
			echo "bench_memif_fwd: $mid round $round: testpmd (the loop's end) ended on signal $((stopped_rc - 128)) after its middle box left (its figures were read before)"
	else
		stop "$A_pid"
		stop "$C_pid"
	fi
	clean_prefixes

	# Each Rx-pps line is one link's: a period's figure is the sum over the links.
	sink=$(grep -a "Rx-pps" "$sink_log" | awk -v a="$n1" -v b="$n2" -v l="$links" \
		'NR > a && NR <= b {s += $2; n++} END {if (n) printf "%.4f", s * l / n / 1e6}')
	read -r cyc tot pkts mhz < <(sed -n 's/.*CPU cycles\/packet=\([0-9.]*\) (total cycles=\([0-9]*\) \/ total io packets=\([0-9]*\)) at \([0-9]*\) MHz.*/\1 \2 \3 \4/p' "$work/M.log" | tail -1)
	if [ "$mid" != dvp ]; then
		read -r tx drop < <(awk '/Accumulated forward statistics/ {p = 1}
			p && /TX-packets:/ {print $2, $4; exit}' "$work/M.log")
		rx=$pkts
	else
		read -r rx tx drop < <(awk '$1 == 1 && $2 == "poll" {print $3, $4, $5}' "$work/M.log")
	fi
	[ -n "$sink" ] && [ -n "$cyc" ] && [ -n "${pkts:-}" ] && [ "$pkts" -gt 0 ] ||
		fail "$mid round $round: no figures (window $n1..$n2, cycles '${cyc:-}')"
	# A pipeline that delivered nothing (a link that never came up) is no measurement.
	awk -v s="$sink" 'BEGIN {exit !(s > 0)}' || fail "$mid round $round: nothing reached the sink"
	if [ "$mid" = dvp ]; then
		grep -q "^pool: \([0-9]*\) of \1 mbufs back" "$work/M.log" || fail "dvp-fwd lost mbufs"
	fi
	busy=$(awk -v t="$tot" -v p="$pkts" -v mhz="$mhz" 'BEGIN {printf "%.4f", p * mhz / t}')
	echo "MEMIF_FWD middle=$mid round=$round sink_mpps=$sink busy_mpps=$busy cycles_per_pkt=$cyc middle_rx=$rx middle_tx=$tx middle_drop=$drop"
	eval "sink_$mid=\"\${sink_$mid:-} $sink\""
	eval "busy_$mid=\"\${busy_$mid:-} $busy\""
}

median() {
	echo "$@" | tr ' ' '\n' | grep . | sort -g | awk '{v[NR] = $1} END {
		if (NR % 2) print v[(NR + 1) / 2]; else printf "%.4f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

if [ "$topology" = loop ]; then
	ends="one testpmd as both ends, on CPU 0 of $cpus"
else
	ends="sink on CPU $sink_cpu of $cpus"
fi
echo "bench_memif_fwd: $rounds rounds of each middle box, ${secs} s windows, memory: $mem, middle: $middle, topology: $topology, $ends"
middles="dpdk dvp"
[ -n "$plugin" ] && [ "$middle" = copy ] && middles="$middles net_dvp"
for r in $(seq 1 "$rounds"); do
	for mid in $middles; do
		run_case "$mid" "$r"
	done
done
sd=$(median $sink_dvp)
sp=$(median $sink_dpdk)
bd=$(median $busy_dvp)
bp=$(median $busy_dpdk)
# Dividing two sink rates: a ratio, or why there is none.
sink_ratio() {
	if [ "$topology" = open ] && [ "$sink_cpu" = 0 ]; then
		echo "sink-bound cpus=$cpus"
	else
		awk -v x="$1" -v y="$2" -v t="$topology" 'BEGIN {printf "ratio=%.3f topology=%s", x / y, t}'
	fi
}
echo "VS-DPDK memif_fwd dvp_mpps=$sd dpdk_mpps=$sp $(sink_ratio "$sd" "$sp")"
echo "VS-DPDK memif_fwd_busy dvp_mpps=$bd dpdk_mpps=$bp ratio=$(awk -v x="$bd" -v y="$bp" 'BEGIN {printf "%.3f", x / y}')"
if [ -n "${sink_net_dvp:-}" ]; then
	sn=$(median $sink_net_dvp)
	bn=$(median $busy_net_dvp)
	echo "VS-DPDK testpmd_memif dvp_mpps=$sn dpdk_mpps=$sp $(sink_ratio "$sn" "$sp")"
	echo "VS-DPDK testpmd_memif_busy dvp_mpps=$bn dpdk_mpps=$bp ratio=$(awk -v x="$bn" -v y="$bp" 'BEGIN {printf "%.3f", x / y}')"
fi
if [ -n "$intr_bench" ]; then
	"$intr_bench" || fail "bench_memif_intr failed"
fi
exit 0
