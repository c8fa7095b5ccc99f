# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# Sourced by the interop scripts that run DPDK's l3fwd-power (the example
# from dpdk-doc, unmodified) in --interrupt-only mode over net_dvp: its
# build, DPDK's telemetry socket, the idle stretch, the stop and the
# checks of its sleeps. The caller defines skip() and fail() (one line,
# exit 77 or 1) and sets these before it calls what uses them:
#   work     the work directory (l3fwdp_build sets it to its real path)
#   example  the example's directory
#   lcore    l3fwd-power's one lcore
#   log      l3fwd-power's output
#   pid      l3fwd-power's pid, empty when it is not running
#   sock     DPDK's telemetry socket of that process
#   stats    where tele_all keeps the last answer
#   tele_err where a failed telemetry call leaves its error
#
# l3fwdp_build
#   The skips that every such test shares (the example, make and cc,
#   pkg-config's libdpdk, python3), then the example copied under $work
#   (only what changed, so that make rebuilds only then) and built with its
#   own Makefile against the installed DPDK. Sets app and py.
# tele_all
#   /ethdev/xstats,P and /ethdev/stats,P of ports 0 and 1 into $stats, as
#   "PORT NAME VALUE" lines (the scalars of stats as stats_NAME); fails
#   (status 1, $stats kept) when the socket does not answer.
# val NAME PORT
#   NAME's value for PORT in the last answer, -1 when it has none.
# l3fwdp_wait_loop
#   Until l3fwd-power says it entered its interrupt loop on $lcore (up to
#   120 s: EAL and port start are slow on a loaded machine), and is in
#   interrupt-only mode; fail() otherwise.
# l3fwdp_idle_stretch [COMM_GLOB]
#   Lets the lcore go back to sleep, then measures about 5 s with no
#   telemetry call inside. Sets idle_s, hz (CLK_TCK), wake_idle (wake-ups
#   by an rx interrupt logged in it), and in percent of one core to 0.01,
#   by utime + stime and by run time (schedstat, ns): cpu_all and ns_all
#   for the whole process, cpu_app and ns_app for its threads but those
#   whose comm matches COMM_GLOB (a device thread standing for hardware).
# l3fwdp_stop
#   SIGINT, up to 30 s for l3fwd-power to exit; sets rc to its status.
# l3fwdp_check_sleeps
#   Sets sleeps, w0, w1 (l3fwd-power's own lines: its lcore went to sleep
#   on the rx interrupts, woken by each port's) and adds to bad what is
#   missing there or in net_dvp's arm and event counters.

l3fwdp_build() {
	local src f
	[ -f "$example/main.c" ] && [ -f "$example/Makefile" ] ||
		skip "DPDK's example $example not found (Debian package dpdk-doc: apt-get install dpdk-doc)"
	command -v make >/dev/null && command -v cc >/dev/null || skip "no make or cc to build l3fwd-power"
	pkg-config --exists libdpdk 2>/dev/null ||
		skip "pkg-config finds no libdpdk (Debian package libdpdk-dev)"
	py=$(command -v python3) || skip "no python3 to read DPDK's telemetry socket"

	mkdir -p "$work" || exit 1
	work=$(cd "$work" && pwd -P)
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
}

l3fwdp_tele_py='
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
	"$py" -c "$l3fwdp_tele_py" "$sock" /ethdev/xstats,0 /ethdev/xstats,1 /ethdev/stats,0 \
		/ethdev/stats,1 >"$stats.new" 2>"$tele_err" && mv "$stats.new" "$stats"
}

val() {
	awk -v p="$2" -v n="$1" '$1 == p && $2 == n { v = $3 } END { print v == "" ? -1 : v }' "$stats"
}

l3fwdp_wait_loop() {
	for _ in $(seq 1200); do
		grep -q "entering main interrupt loop on lcore $lcore" "$log" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -q "PMD can not provide needed ptypes" "$log" &&
		fail "l3fwd-power found no IPv4 ptype in net_dvp's rte_eth_dev_get_supported_ptypes() answer"
	kill -0 "$pid" 2>/dev/null || fail "l3fwd-power exited during start-up"
	grep -q "entering main interrupt loop on lcore $lcore" "$log" ||
		fail "l3fwd-power did not reach its interrupt loop in 120 s"
	grep -q "Selected operation mode: interrupt-only" "$log" ||
		fail "l3fwd-power is not in interrupt-only mode"
}

# utime + stime (clock ticks) and run time (ns, 0 without schedstat) of the
# process, then of its threads but those whose comm matches @1.
l3fwdp_cpu() {
	local t v ns all=0 app=0 all_ns=0 app_ns=0
	all=$(awk '{ print $14 + $15 }' "/proc/$pid/stat" 2>/dev/null) || return 1
	for t in /proc/$pid/task/*; do
		v=$(awk '{ print $14 + $15 }' "$t/stat" 2>/dev/null) || continue
		ns=$(awk '{ print $1 }' "$t/schedstat" 2>/dev/null) || ns=0
		all_ns=$((all_ns + ns))
		# shellcheck disable=SC2053
		[ -n "$1" ] && [[ $(cat "$t/comm" 2>/dev/null) == $1 ]] && continue
		app=$((app + v)) app_ns=$((app_ns + ns))
	done
	echo "$all $app $all_ns $app_ns"
}

l3fwdp_idle_stretch() {
	local skip_comm=${1:-} wake_before t0 t1 c0 c1 all0 app0 all0_ns app0_ns all1 app1 all1_ns app1_ns
	sleep 1
	wake_before=$(grep -c 'is waked up from rx interrupt' "$log")
	hz=$(getconf CLK_TCK)
	t0=$(date +%s%N)
	c0=$(l3fwdp_cpu "$skip_comm") || fail "l3fwd-power is gone"
	sleep 5
	c1=$(l3fwdp_cpu "$skip_comm") || fail "l3fwd-power exited during the idle stretch"
	t1=$(date +%s%N)
	wake_idle=$(($(grep -c 'is waked up from rx interrupt' "$log") - wake_before))
	read -r all0 app0 all0_ns app0_ns <<<"$c0"
	read -r all1 app1 all1_ns app1_ns <<<"$c1"
	idle_s=$(awk -v ns="$((t1 - t0))" 'BEGIN { printf "%.2f", ns / 1e9 }')
	cpu_all=$(l3fwdp_pct "$((all1 - all0))" "$hz" "$((t1 - t0))")
	cpu_app=$(l3fwdp_pct "$((app1 - app0))" "$hz" "$((t1 - t0))")
	ns_all=$(l3fwdp_pct "$((all1_ns - all0_ns))" 1000000000 "$((t1 - t0))")
	ns_app=$(l3fwdp_pct "$((app1_ns - app0_ns))" 1000000000 "$((t1 - t0))")
}

# @1 units of @2 a second over @3 ns, in percent of one core.
l3fwdp_pct() {
	awk -v t="$1" -v hz="$2" -v ns="$3" 'BEGIN { printf "%.2f", t / hz / (ns / 1e9) * 100 }'
}

l3fwdp_stop() {
	kill -INT "$pid"
	for _ in $(seq 300); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$pid" 2>/dev/null && fail "l3fwd-power did not exit within 30 s of SIGINT"
	wait "$pid"
	rc=$?
	pid=
}

l3fwdp_check_sleeps() {
	local p
	sleeps=$(grep -c "lcore $lcore sleeps until interrupt triggers" "$log")
	w0=$(grep -c "lcore $lcore is waked up from rx interrupt on port 0 queue 0" "$log")
	w1=$(grep -c "lcore $lcore is waked up from rx interrupt on port 1 queue 0" "$log")
	[ "$sleeps" -ge 1 ] || bad="$bad l3fwd-power never logged its lcore going to sleep on the rx interrupt;"
	[ "$w0" -ge 1 ] || bad="$bad no rx interrupt of port 0 woke the lcore;"
	[ "$w1" -ge 1 ] || bad="$bad no rx interrupt of port 1 woke the lcore;"
	for p in 0 1; do
		[ "$(val rx_q0_intr_arms $p)" -ge 1 ] || bad="$bad port $p: net_dvp counted no rx interrupt arm;"
		[ "$(val rx_q0_intr_events $p)" -ge 1 ] ||
			bad="$bad port $p: net_dvp counted no rx interrupt event;"
	done
}
