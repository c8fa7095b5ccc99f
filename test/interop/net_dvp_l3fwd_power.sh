#!/bin/bash
# net_dvp under DPDK's l3fwd-power in --interrupt-only mode (Debian's DPDK
# 22.11, the example built from the dpdk-doc package, unmodified): the
# plugin loaded with -d, two ethdev ports on the simulated HCA whose traffic
# cable gives each port a source and a sink, the source sending in bursts.
#
# Usage: net_dvp_l3fwd_power.sh WORKDIR PLUGIN MEM
#   WORKDIR  where the example is copied and built, and the log kept
#   PLUGIN   build/drivers/dpdk/net_dvp/librte_net_dvp.so (loaded from a
#            private copy: net_dvp_lib.sh)
#   MEM      huge (DPDK's defaults on hugepages: IOVA PA as root) | no-huge
# Environment: DVP_L3FWD_COUNT (frames per source, 3000), DVP_L3FWD_LCORE (0),
#   DVP_L3FWD_SIM_EXTRA (more sim devargs, e.g. ",drop=1" to see a failure),
#   DVP_L3FWD_IDLE_US (the sim thread's idle sleep, 5000; see CPU below),
#   DVP_L3FWD_EXAMPLE (the example's directory), DVP_L3FWD_PARSE_PTYPE=1
#   (l3fwd-power's --parse-ptype: its own ptype callback instead of the
#   plugin's answer and mbuf packet_type, which are tested by default).
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# What it asserts:
#  (a) l3fwd-power's own log shows its lcore arming the rx interrupts and
#      sleeping ("lcore N sleeps until interrupt triggers") and being woken
#      by an rx interrupt of each port ("lcore N is waked up from rx
#      interrupt on port P queue 0"); net_dvp's xstats count the arms and
#      the events;
#  (b) once the sources are done, over an idle stretch of about 5 s,
#      l3fwd-power's threads (all but the sim's device thread) used under
#      2% of a core, in utime + stime (/proc/PID/task/*/stat) and in run
#      time (/proc/PID/task/*/schedstat, ns); no rx interrupt woke the
#      lcore in that stretch. The whole process's share is printed, not
#      held to it: the device thread stands for the adapter, which costs a
#      real host no CPU, and its periodic wake-ups cost more on a loaded
#      machine;
#  (c) every frame was forwarded: each source sent COUNT and each sink
#      received COUNT intact (lost, reordered, duplicates, corrupt, foreign,
#      out-of-buffer, wire drops 0); the ports received and sent COUNT with
#      no imissed, ierrors, oerrors or rx_nombuf; then SIGINT, l3fwd-power
#      exits 0 and net_dvp gets every buffer back at close.
#
# The counters: l3fwd-power prints no statistics, at exit or ever. They are
# read through DPDK's telemetry socket (/ethdev/xstats,P and /ethdev/stats,P
# on <runtime dir>/dpdk_telemetry.v2), which every DPDK 22.11 process opens;
# net_dvp's xstats include the sim's source and sink counters.
#
# Routing: the sim's source frames go from 198.18.0.0 + flow to 198.19.0.1
# (drivers/sim/mlx5/sim_traffic.c); l3fwd-power's LPM table is compiled in
# (1.1.1.0/24 -> port 0 ... 8.1.1.0/24 -> port 7) and neither it nor the
# sim's devargs can change the addresses. The lookup misses and l3fwd-power
# sends the frame back out of the port it came in on (get_ipv4_dst_port()
# returns portid), after its RFC 1812 checks, TTL decrement and checksum
# update: each port's sink receives its own source's frames, which the sink
# checks (IP checksum included). l3fwd-power forwards only frames whose
# mbuf packet_type says IPv4 and frees the others: without --parse-ptype,
# a frame lost that way would show as a loss here. It starts only if the
# plugin's supported ptypes include IPv4 ("PMD can not provide needed
# ptypes" otherwise, reported as a failure).
#
# CPU: l3fwd-power runs on one lcore (a second lcore would leave the main
# one spinning in rte_eal_wait_lcore()). In interrupt mode it wakes every
# 10 ms anyway (rte_epoll_wait timeout). The sim's device thread lives in
# the same process: it stands for the adapter's hardware and at its default
# idle_us=20 costs ~15-20% of a core by itself when idle, so the sim runs
# with idle_us=5000 (a doorbell after an idle spell is seen within 5 ms);
# its share is printed apart.
#
# Results are counts; the time limits only bound a hung process, so a
# loaded machine makes the test slower, not failed.
set -u
work=${1:?usage: net_dvp_l3fwd_power.sh WORKDIR PLUGIN MEM}
plugin=${2:?usage: net_dvp_l3fwd_power.sh WORKDIR PLUGIN MEM}
mem=${3:?usage: net_dvp_l3fwd_power.sh WORKDIR PLUGIN MEM}
count=${DVP_L3FWD_COUNT:-3000}
lcore=${DVP_L3FWD_LCORE:-0}
# shellcheck disable=SC2034 # l3fwd_power_lib.sh reads it
example=${DVP_L3FWD_EXAMPLE:-/usr/share/dpdk/examples/l3fwd-power}
sim_extra=${DVP_L3FWD_SIM_EXTRA:-}
idle_us=${DVP_L3FWD_IDLE_US:-5000}
app_extra=
[ "${DVP_L3FWD_PARSE_PTYPE:-0}" = 1 ] && app_extra=--parse-ptype
case $count in
'' | *[!0-9]* | 0) echo "DVP_L3FWD_COUNT must be a count of frames above 0, not '$count'" >&2; exit 2 ;;
esac

skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: DPDK's l3fwd-power needs root"
# shellcheck source=l3fwd_power_lib.sh
. "$(dirname "$0")/l3fwd_power_lib.sh"
l3fwdp_build

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
prefix=l3fwdp$$
sock=/var/run/dpdk/$prefix/dpdk_telemetry.v2
log=$work/l3fwd-power.$mem.log
stats=$work/stats.$mem.txt
tele_err=$work/tele.$mem.err
pid=
rm -f "$stats" "$stats.new" "$work/stats.final.$mem.txt" "$tele_err"

cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid" 2>/dev/null
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	ndvp_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ndvp_plugin_copy "$plugin" "$work"
ndvp_mem "$mem" 512
ndvp_dpdk_prefix "$prefix"

fail() {
	echo "FAIL: $*"
	echo "---- the end of l3fwd-power's output ($log):"
	grep -v -e 'sleeps until interrupt' -e 'is waked up from rx interrupt' "$log" | tail -n 30
	echo "---- its last interrupt lines:"
	grep -e 'sleeps until interrupt' -e 'is waked up from rx interrupt' "$log" | tail -n 4
	exit 1
}

sim="sim_mlx5,ports=2,cable=traffic,sizes=[60,512,1514],rate=20000"
sim="$sim,pattern=[on:10ms,off:190ms],count=$count,idle_us=$idle_us$sim_extra"
: >"$log"
# stdbuf: l3fwd-power's printf lines reach the log as they are written.
# shellcheck disable=SC2086
stdbuf -oL "$app" -l "$lcore" $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	--log-level="pmd.net.dvp*:info" -d "$ndvp_plugin" --vdev "net_dvp0,$sim" \
	-- -p 0x3 --config="(0,0,$lcore),(1,0,$lcore)" --interrupt-only $app_extra \
	</dev/null >"$log" 2>&1 &
pid=$!
echo "l3fwd-power (pid $pid) on net_dvp0,$sim; log $log"

l3fwdp_wait_loop
grep -q "net_dvp0: sim_mlx5 gives 2 port" "$log" || fail "net_dvp did not make two ports"

# The sources run their bursts: wait until both are done and both sinks
# have everything (or nothing moves for 60 s, or 20 s once the sources are
# done: a stall or a loss, not a slow machine).
snap=
same=0
done_=0
for _ in $(seq 1200); do
	sleep 0.5
	kill -0 "$pid" 2>/dev/null || fail "l3fwd-power exited while forwarding"
	tele_all || continue
	s0=$(val sim_source_sent 0) s1=$(val sim_source_sent 1)
	r0=$(val sim_sink_received 0) r1=$(val sim_sink_received 1)
	if [ "$s0" = "$count" ] && [ "$s1" = "$count" ] && [ "$r0" = "$count" ] && [ "$r1" = "$count" ]; then
		done_=1
		break
	fi
	now="$s0/$s1/$r0/$r1"
	if [ "$now" = "$snap" ]; then
		same=$((same + 1))
		[ $same -ge 120 ] && break
		[ $same -ge 40 ] && [ "$s0" = "$count" ] && [ "$s1" = "$count" ] && break
	else
		same=0
	fi
	snap=$now
done
[ -s "$stats" ] || fail "no answer on DPDK's telemetry socket $sock: $(cat "$tele_err")"
# Sources done but sinks short: go on, the checks below say what was lost.
[ $done_ = 1 ] || { [ "$(val sim_source_sent 0)" = "$count" ] && [ "$(val sim_source_sent 1)" = "$count" ]; } ||
	fail "the sources stalled: they sent $(val sim_source_sent 0)/$(val sim_source_sent 1) of $count each, sinks received $(val sim_sink_received 0)/$(val sim_sink_received 1)"

# The idle stretch: nothing arrives any more. The sim's device thread
# stands for the adapter: its share is printed apart.
l3fwdp_idle_stretch 'dvp-sim*'
cpu_sim=$(awk -v a="$cpu_all" -v b="$cpu_app" 'BEGIN { printf "%.2f", a - b }')

# The counters, once more after the idle stretch, then SIGINT.
tele_all || fail "no answer on DPDK's telemetry socket after the idle stretch: $(cat "$tele_err")"
cp "$stats" "$work/stats.final.$mem.txt"
l3fwdp_stop

bad=
# (a) asleep on the rx interrupt, and woken by it, on both ports.
l3fwdp_check_sleeps
[ "$wake_idle" = 0 ] || bad="$bad $wake_idle rx interrupt wake-ups with no traffic (idle stretch);"
# (b) under 2% of a core while idle, l3fwd-power's own threads.
awk -v c="$cpu_app" 'BEGIN { exit !(c < 2) }' || bad="$bad l3fwd-power's threads used $cpu_app% of a core while idle;"
awk -v c="$ns_app" 'BEGIN { exit !(c < 2) }' || bad="$bad l3fwd-power's threads ran $ns_app% of the idle stretch (schedstat);"
# (c) every frame forwarded, nothing dropped anywhere.
for p in 0 1; do
	for x in sim_sink_lost sim_sink_reordered sim_sink_duplicates sim_sink_corrupt sim_sink_foreign \
		sim_rx_out_of_buffer sim_rx_wire_drops stats_imissed stats_ierrors stats_oerrors \
		stats_rx_nombuf tx_dropped_too_long; do
		v=$(val $x $p)
		[ "$v" = 0 ] || bad="$bad port $p $x=$v;"
	done
	for x in sim_source_sent sim_sink_received stats_ipackets stats_opackets; do
		v=$(val $x $p)
		[ "$v" = "$count" ] || bad="$bad port $p $x=$v, not $count;"
	done
done
[ $rc = 0 ] || bad="$bad l3fwd-power exited with status $rc;"
grep -q "still held by the application" "$log" && bad="$bad net_dvp buffers still held at close;"
grep -q "rte_eth_dev_stop: err" "$log" && bad="$bad a port did not stop;"

for p in 0 1; do
	echo "port $p: source sent $(val sim_source_sent $p), l3fwd-power rx $(val stats_ipackets $p) tx $(val stats_opackets $p), sink received $(val sim_sink_received $p) intact (lost $(val sim_sink_lost $p), corrupt $(val sim_sink_corrupt $p)); rx interrupt arms $(val rx_q0_intr_arms $p), events $(val rx_q0_intr_events $p)"
done
echo "lcore $lcore: $sleeps sleeps on the rx interrupt logged, woken by port 0 $w0 times, port 1 $w1 times, $wake_idle while idle"
echo "idle ${idle_s} s: process ${cpu_all}% of a core (l3fwd-power's threads ${cpu_app}%, sim device thread ${cpu_sim}%) in utime+stime at CLK_TCK $hz; run time (schedstat) ${ns_all}% (l3fwd-power's threads ${ns_app}%)"
[ -z "$bad" ] || fail "${bad# }"
echo "PASS: l3fwd-power --interrupt-only over net_dvp ($mem): 2 x $count frames forwarded, 0 lost; slept on rx interrupts ($sleeps sleeps, $((w0 + w1)) wake-ups); idle ${cpu_app}% of a core over ${idle_s} s (the process with the sim device thread ${cpu_all}%)"
exit 0
