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
[ -f "$example/main.c" ] && [ -f "$example/Makefile" ] ||
	skip "DPDK's example $example not found (Debian package dpdk-doc: apt-get install dpdk-doc)"
[ "$(id -u)" = 0 ] || skip "not root: DPDK's l3fwd-power needs root"
command -v make >/dev/null && command -v cc >/dev/null || skip "no make or cc to build l3fwd-power"
pkg-config --exists libdpdk 2>/dev/null || skip "pkg-config finds no libdpdk (Debian package libdpdk-dev)"
py=$(command -v python3) || skip "no python3 to read DPDK's telemetry socket"

mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd -P)

# The example, copied (only what changed, so that make rebuilds only then)
# and built with its own Makefile against the installed DPDK.
src=$work/l3fwd-power
mkdir -p "$src"
for f in "$example"/*; do
	[ -f "$f" ] || continue
	cmp -s "$f" "$src/${f##*/}" || cp -p "$f" "$src/" || exit 1
done
if ! make -C "$src" PKGCONF=pkg-config >"$work/build.log" 2>&1; then
	echo "FAIL: l3fwd-power did not build (make -C $src):"
	tail -n 30 "$work/build.log"
	exit 1
fi
app=$src/build/l3fwd-power
[ -x "$app" ] || { echo "FAIL: make left no $app"; exit 1; }

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
prefix=l3fwdp$$
sock=/var/run/dpdk/$prefix/dpdk_telemetry.v2
log=$work/l3fwd-power.$mem.log
stats=$work/stats.$mem.txt
pid=
rm -f "$stats" "$stats.new" "$work/stats.final.$mem.txt" "$work/tele.$mem.err"

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

# Telemetry: each command's numbers as "PORT NAME VALUE" lines
# (/ethdev/xstats,P and the scalars of /ethdev/stats,P, these as stats_NAME).
tele_py='
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(10)
s.connect(sys.argv[1])
s.recv(16384)
for cmd in sys.argv[2:]:
    s.send(cmd.encode())
    reply = json.loads(s.recv(1 << 20).decode())
    name, port = cmd.split(",")
    what = name.rsplit("/", 1)[1]
    body = reply.get(name)
    if not isinstance(body, dict):
        sys.exit("telemetry: no answer to " + cmd)
    for k, v in body.items():
        if isinstance(v, int):
            print(port, k if what == "xstats" else "stats_" + k, v)
'
tele_all() {
	"$py" -c "$tele_py" "$sock" /ethdev/xstats,0 /ethdev/xstats,1 /ethdev/stats,0 /ethdev/stats,1 \
		>"$stats.new" 2>"$work/tele.$mem.err" && mv "$stats.new" "$stats"
}
# The value of @1 of port @2 in the last telemetry answer (-1: none).
val() {
	awk -v p="$2" -v n="$1" '$1 == p && $2 == n { v = $3 } END { print v == "" ? -1 : v }' "$stats"
}
# utime + stime (clock ticks) of the process and of its threads but the
# sim's, then the same threads' run time in ns (schedstat, 0 if absent).
cpu_ticks() {
	local t all=0 app=0 v ns all_ns=0 app_ns=0
	all=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) || return 1
	for t in /proc/$pid/task/*; do
		v=$(awk '{ print $14 + $15 }' "$t/stat" 2>/dev/null) || continue
		ns=$(awk '{ print $1 }' "$t/schedstat" 2>/dev/null) || ns=0
		all_ns=$((all_ns + ns))
		case $(cat "$t/comm" 2>/dev/null) in
		dvp-sim*) ;;
		*) app=$((app + v)) app_ns=$((app_ns + ns)) ;;
		esac
	done
	echo "$all $app $all_ns $app_ns"
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

# Up and in its interrupt loop (EAL and port start may be slow on a loaded machine).
for _ in $(seq 1200); do
	grep -q "entering main interrupt loop on lcore $lcore" "$log" && break
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
grep -q "PMD can not provide needed ptypes" "$log" &&
	fail "l3fwd-power found no IPv4 ptype in net_dvp's rte_eth_dev_get_supported_ptypes() answer"
kill -0 "$pid" 2>/dev/null || fail "l3fwd-power exited during start-up"
grep -q "entering main interrupt loop on lcore $lcore" "$log" || fail "l3fwd-power did not reach its interrupt loop in 120 s"
grep -q "Selected operation mode: interrupt-only" "$log" || fail "l3fwd-power is not in interrupt-only mode"
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
[ -s "$stats" ] || fail "no answer on DPDK's telemetry socket $sock: $(cat "$work/tele.$mem.err")"
# Sources done but sinks short: go on, the checks below say what was lost.
[ $done_ = 1 ] || { [ "$(val sim_source_sent 0)" = "$count" ] && [ "$(val sim_source_sent 1)" = "$count" ]; } ||
	fail "the sources stalled: they sent $(val sim_source_sent 0)/$(val sim_source_sent 1) of $count each, sinks received $(val sim_sink_received 0)/$(val sim_sink_received 1)"

# The idle stretch: nothing arrives any more. Let the lcore go back to
# sleep, then measure about 5 s. No telemetry call inside it.
sleep 1
wake_before=$(grep -c 'is waked up from rx interrupt' "$log")
hz=$(getconf CLK_TCK)
t0=$(date +%s%N)
c0=$(cpu_ticks) || fail "l3fwd-power is gone"
sleep 5
c1=$(cpu_ticks) || fail "l3fwd-power exited during the idle stretch"
t1=$(date +%s%N)
wake_idle=$(($(grep -c 'is waked up from rx interrupt' "$log") - wake_before))
read -r all0 app0 all0_ns app0_ns <<<"$c0"
read -r all1 app1 all1_ns app1_ns <<<"$c1"
# Percent of one core, to 0.01: of clock ticks, of nanoseconds.
pct() { awk -v t="$1" -v hz="$hz" -v ns="$((t1 - t0))" 'BEGIN { printf "%.2f", t / hz / (ns / 1e9) * 100 }'; }
pct_ns() { awk -v t="$1" -v ns="$((t1 - t0))" 'BEGIN { printf "%.2f", t / ns * 100 }'; }
idle_s=$(awk -v ns="$((t1 - t0))" 'BEGIN { printf "%.2f", ns / 1e9 }')
cpu_all=$(pct $((all1 - all0)))
cpu_app=$(pct $((app1 - app0)))
cpu_sim=$(pct $((all1 - all0 - (app1 - app0))))
ns_all=$(pct_ns $((all1_ns - all0_ns)))
ns_app=$(pct_ns $((app1_ns - app0_ns)))

# The counters, once more after the idle stretch, then SIGINT.
tele_all || fail "no answer on DPDK's telemetry socket after the idle stretch: $(cat "$work/tele.$mem.err")"
cp "$stats" "$work/stats.final.$mem.txt"
kill -INT "$pid"
for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && fail "l3fwd-power did not exit within 30 s of SIGINT"
wait "$pid"
rc=$?
pid=

bad=
# (a) asleep on the rx interrupt, and woken by it, on both ports.
sleeps=$(grep -c "lcore $lcore sleeps until interrupt triggers" "$log")
w0=$(grep -c "lcore $lcore is waked up from rx interrupt on port 0 queue 0" "$log")
w1=$(grep -c "lcore $lcore is waked up from rx interrupt on port 1 queue 0" "$log")
[ "$sleeps" -ge 1 ] || bad="$bad l3fwd-power never logged its lcore going to sleep on the rx interrupt;"
[ "$w0" -ge 1 ] || bad="$bad no rx interrupt of port 0 woke the lcore;"
[ "$w1" -ge 1 ] || bad="$bad no rx interrupt of port 1 woke the lcore;"
for p in 0 1; do
	[ "$(val rx_q0_intr_arms $p)" -ge 1 ] || bad="$bad port $p: net_dvp counted no rx interrupt arm;"
	[ "$(val rx_q0_intr_events $p)" -ge 1 ] || bad="$bad port $p: net_dvp counted no rx interrupt event;"
done
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
