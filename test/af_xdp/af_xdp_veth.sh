#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# net_af_xdp on real kernel datapaths: veth pairs in network namespaces
# made (and removed) here, dvp-fwd forwarding between two of them, the
# kernel on either side (af_xdp_peer: raw or UDP sockets) sending and
# checking every frame.
#
#   af_xdp_veth.sh DVP_FWD AF_XDP_PEER CASE [AF_XDP_RESTART]
#
#   <S>s:<S>a ==veth== <S>b:<S>f   dvp-fwd   <S>f:<S>c ==veth== <S>e:<S>d
#   (sender side)      port 0 (net_af_xdp0)   port 1 (net_af_xdp1)   (receiver side)
#
# <S> is ax<pid>: namespaces <S>s, <S>f, <S>d and veths <S>a..<S>e are this
# run's alone, and removed on any exit. Traffic stays inside them.
#
# Cases (MODE: native, the veth driver's XDP, or generic, the skb path):
#   fwd-MODE       io forwarding, polling: every frame intact, and the port
#                  counts each one: sent = received + imissed + ierrors
#   own-MODE       the same through an own UMEM (frames copied), adaptive
#   shared-copy    shared_umem=1, force_copy=1, adaptive, two queue pairs
#   xdp-prog       xdp_prog= libxdp's own program object, attached by us
#   intr-MODE      interrupt mode, bursts of 20 ms every 400 ms: every frame
#                  forwarded, the lcore asleep between bursts and then idle
#                  (its CPU over an idle stretch under 5 % of a core)
#   link-flap      interrupt mode; the sender's veth down and up while the
#                  lcore sleeps: link events on port 0, traffic after the
#                  flap forwarded whole
#   peer-gone      traffic from the receiver side through port 1 out of port
#                  0 while <S>s is deleted: port 0's veth goes with it, the
#                  port is removed, dvp-fwd runs on and stops cleanly with
#                  every mbuf back
#   multiqueue     veths with two queues, UDP flows from the sender's IP
#                  stack spread over them by hash: both queues of port 0
#                  receive, every frame intact
#   restart        af_xdp_restart stops and starts a port three times under
#                  traffic (new sockets each start): every mbuf back at each
#                  stop, the counters running on across them
#   testpmd-peer   DPDK's own net_af_xdp in dpdk-testpmd on <S>a (io
#                  forwarding, each frame back out where it came): frames
#                  sent on <S>e go through dvp-fwd to testpmd and back, and
#                  are checked on <S>e again; skipped without dpdk-testpmd
#                  and DPDK's af_xdp driver
#
# Exit 0 pass, 1 fail, 77 skipped (one line says why). Results are counts;
# every time limit only bounds a hung program. The rings are large (8192)
# and the rates modest (10 to 20 kpps) so that a loaded machine, where the
# lcore may wait long for a CPU, delays frames rather than drops them: the
# kernel drops (and the port counts, imissed) only what an rx ring cannot
# hold.
set -u
fwd=${1:?usage: af_xdp_veth.sh DVP_FWD AF_XDP_PEER CASE}
peer=${2:?usage: af_xdp_veth.sh DVP_FWD AF_XDP_PEER CASE}
case_=${3:?usage: af_xdp_veth.sh DVP_FWD AF_XDP_PEER CASE}
restart_app=${4:-}

skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: the test makes network namespaces, veth pairs and XDP programs"
command -v ip >/dev/null || skip "no ip command (Debian package iproute2)"
command -v python3 >/dev/null || skip "python3 is needed to read dvp-fwd's JSON"
"$peer" --check-xdp || skip "this kernel has no AF_XDP sockets (CONFIG_XDP_SOCKETS)"

S=ax$$
NS_S=${S}s NS_F=${S}f NS_D=${S}d
A=${S}a B=${S}b C=${S}c E=${S}e
work=$(mktemp -d)
fwd_pid=

cleanup() {
	if [ -n "$fwd_pid" ] && kill -0 "$fwd_pid" 2>/dev/null; then
		kill -KILL "$fwd_pid" 2>/dev/null
		wait "$fwd_pid" 2>/dev/null
	fi
	for n in $NS_S $NS_F $NS_D; do
		ip netns del "$n" 2>/dev/null
	done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
	echo "FAIL: $*"
	for f in "$work"/fwd.out "$work"/fwd.err "$work"/peer*.out; do
		[ -s "$f" ] || continue
		echo "---- $f"
		tail -n 25 "$f"
	done
	exit 1
}

# setup [QUEUES]: three namespaces, two veth pairs, IPv6 off (no noise).
setup() {
	local q=${1:-1} n
	for n in $NS_S $NS_F $NS_D; do
		ip netns add "$n" || skip "cannot make network namespaces here"
		ip netns exec "$n" sysctl -qw net.ipv6.conf.all.disable_ipv6=1 \
			net.ipv6.conf.default.disable_ipv6=1
		ip -n "$n" link set lo up
	done
	ip link add "$A" netns "$NS_S" numtxqueues "$q" numrxqueues "$q" type veth \
		peer name "$B" netns "$NS_F" numtxqueues "$q" numrxqueues "$q" ||
		skip "cannot make veth pairs here"
	ip link add "$C" netns "$NS_F" numtxqueues "$q" numrxqueues "$q" type veth \
		peer name "$E" netns "$NS_D" numtxqueues "$q" numrxqueues "$q"
	ip -n "$NS_S" link set "$A" up
	ip -n "$NS_F" link set "$B" up
	ip -n "$NS_F" link set "$C" up
	ip -n "$NS_D" link set "$E" up
}

# start_fwd DEVARGS_EXTRA FWD_ARGS...: dvp-fwd in <S>f, JSON on stdout;
# returns once it forwards.
start_fwd() {
	local x=$1 i
	shift
	ip netns exec "$NS_F" "$fwd" --no-huge -l 0-1 --no-telemetry --file-prefix "$S" \
		--log-level=pmd.net.af_xdp:info \
		--vdev "net_af_xdp0,iface=$B$x" --vdev "net_af_xdp1,iface=$C$x" -- \
		--duration 300 --stats-period 0 --rxd 8192 --txd 8192 "$@" </dev/null >"$work/fwd.out" 2>"$work/fwd.err" &
	fwd_pid=$!
	for i in $(seq 1200); do
		grep -q '"type":"config"\|^io forwarding' "$work/fwd.out" 2>/dev/null && return 0
		kill -0 "$fwd_pid" 2>/dev/null || fail "dvp-fwd exited during start-up"
		sleep 0.1
	done
	fail "dvp-fwd did not start in 120 s"
}

# stop_fwd: SIGINT, its exit status in $fwd_rc.
stop_fwd() {
	local i
	kill -INT "$fwd_pid"
	for i in $(seq 600); do
		kill -0 "$fwd_pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$fwd_pid" 2>/dev/null && fail "dvp-fwd did not stop within 60 s of SIGINT"
	wait "$fwd_pid"
	fwd_rc=$?
	fwd_pid=
}

# send NAME PEER_ARGS...: af_xdp_peer, its line in $work/peer-NAME.out; $sent set.
send() {
	local name=$1
	shift
	"$peer" --settle 3000 "$@" >"$work/peer-$name.out" 2>&1
	peer_rc=$?
	sent=$(awk '{ for (i = 1; i < NF; i++) if ($i == "sent") print $(i + 1) }' "$work/peer-$name.out")
	[ -n "$sent" ] || fail "af_xdp_peer ($name) said nothing"
}

# json_check EXPR...: each holds for dvp-fwd's summary (bound as s, ports
# as p0 and p1, its lcore as l), with $sent as sent.
json_check() {
	python3 - "$work/fwd.out" "$sent" "$@" <<'PY' || fail "dvp-fwd's summary: see above"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
s = next((l for l in reversed(lines) if l.get("type") == "summary"), None)
if s is None:
    sys.exit("no summary")
p0, p1 = s["ports"][0], s["ports"][1]
l = s["lcores"][0]
sent = int(sys.argv[2])
bad = [e for e in sys.argv[3:] if not eval(e)]
for e in bad:
    print("does not hold:", e)
if bad:
    print("port 0:", p0)
    print("port 1:", p1)
    print("lcore:", l, "pool:", s["pool"])
sys.exit(1 if bad else 0)
PY
}

# The run ends the same way whatever the case: every mbuf back, counted.
common_checks() {
	json_check 's["pool"]["in_use"] == 0' 's["errors"] == 0' \
		'p0["rx_packets"] + p0["imissed"] + p0["errors"] == sent'
}

# case_fwd MODE DEVARGS_EXTRA RX_MODE [QUEUES]
case_fwd() {
	local mode=$1 x=$2 rx=$3 q=${4:-1}
	setup "$q"
	start_fwd ",xdp_mode=$mode$x" --json --rx-mode "$rx" --rxq "$q" --txq "$q"
	send fwd --tx "$NS_S:$A" --rx "$NS_D:$E" --count 10000 --rate 10000
	stop_fwd
	[ "$peer_rc" = 0 ] || fail "frames lost or changed: $(cat "$work/peer-fwd.out")"
	[ "$fwd_rc" = 0 ] || fail "dvp-fwd exited with $fwd_rc"
	grep -q "$mode XDP" "$work/fwd.err" || fail "the port did not say it runs $mode XDP"
	common_checks
	json_check 'p0["rx_packets"] == sent' 'p1["tx_packets"] == sent' 'p0["imissed"] == 0'
	echo "PASS: $(cat "$work/peer-fwd.out"); $(grep -m1 'socket(s) on' "$work/fwd.err" | sed 's/^AF_XDP: //')"
}

case_intr() {
	local mode=$1 c0 c1 t0 t1 pct
	setup
	start_fwd ",xdp_mode=$mode" --json --rx-mode intr
	# About 15 bursts of 20 ms at 20 kpps: 400 frames each.
	send intr --tx "$NS_S:$A" --rx "$NS_D:$E" --count 6000 --rate 20000 --on 20 --off 380
	[ "$peer_rc" = 0 ] || fail "frames lost or changed: $(cat "$work/peer-intr.out")"
	# The idle stretch: nothing arrives; the lcore must sleep.
	sleep 1
	c0=$(awk '{ print $14 + $15 }' "/proc/$fwd_pid/stat") || fail "dvp-fwd is gone"
	t0=$(date +%s%N)
	sleep 3
	c1=$(awk '{ print $14 + $15 }' "/proc/$fwd_pid/stat") || fail "dvp-fwd is gone"
	t1=$(date +%s%N)
	stop_fwd
	[ "$fwd_rc" = 0 ] || fail "dvp-fwd exited with $fwd_rc"
	pct=$(awk -v t=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v ns=$((t1 - t0)) \
		'BEGIN { printf "%.2f", t / hz / (ns / 1e9) * 100 }')
	common_checks
	json_check 'p0["rx_packets"] == sent' 'p1["tx_packets"] == sent' \
		'l["sleeps"] >= 10' 'l["wakeups"] >= 10' 'l["asleep_s"] > 0.5 * s["elapsed"]'
	awk -v p="$pct" 'BEGIN { exit !(p < 5) }' ||
		fail "dvp-fwd used $pct% of a core over an idle stretch in interrupt mode"
	echo "PASS: $(cat "$work/peer-intr.out"); idle: ${pct}% of a core"
}

case_link_flap() {
	local n
	setup
	start_fwd ",xdp_mode=native" --json --rx-mode intr
	send before --tx "$NS_S:$A" --rx "$NS_D:$E" --count 2000 --rate 20000
	[ "$peer_rc" = 0 ] || fail "frames lost before the flap: $(cat "$work/peer-before.out")"
	local before=$sent
	sleep 0.5
	ip -n "$NS_S" link set "$A" down
	for n in $(seq 100); do
		grep -q "port 0 (net_af_xdp0): Link down" "$work/fwd.err" && break
		sleep 0.1
	done
	grep -q "port 0 (net_af_xdp0): Link down" "$work/fwd.err" ||
		fail "no link down event on port 0 with its veth peer down"
	ip -n "$NS_S" link set "$A" up
	for n in $(seq 100); do
		grep -q "port 0 (net_af_xdp0): Link up" "$work/fwd.err" && break
		sleep 0.1
	done
	grep -q "port 0 (net_af_xdp0): Link up" "$work/fwd.err" ||
		fail "no link up event on port 0 with its veth peer up again"
	send after --tx "$NS_S:$A" --rx "$NS_D:$E" --count 2000 --rate 20000
	[ "$peer_rc" = 0 ] || fail "frames lost after the flap: $(cat "$work/peer-after.out")"
	sent=$((sent + before))
	stop_fwd
	[ "$fwd_rc" = 0 ] || fail "dvp-fwd exited with $fwd_rc"
	common_checks
	json_check 'p0["rx_packets"] == sent' 'l["sleeps"] >= 2'
	echo "PASS: link down and up seen on port 0 while asleep; $before + $((sent - before)) frames forwarded whole"
}

case_peer_gone() {
	setup
	start_fwd ",xdp_mode=native" --json --rx-mode adaptive --max-loss 100
	# From the receiver side in, out of port 0 into <S>s, where nothing listens.
	"$peer" --tx "$NS_D:$E" --rx none --count 200000 --rate 20000 >"$work/peer-bg.out" 2>&1 &
	local bg=$!
	sleep 2
	ip netns del "$NS_S" || fail "cannot delete namespace $NS_S"
	for n in $(seq 200); do
		grep -q "port 0 (net_af_xdp0): device removed" "$work/fwd.err" && break
		sleep 0.1
	done
	grep -q "port 0 (net_af_xdp0): device removed" "$work/fwd.err" ||
		fail "no removal of port 0 once its veth went with namespace $NS_S"
	sleep 1
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	sent=0
	stop_fwd
	[ "$fwd_rc" = 0 ] || fail "dvp-fwd exited with $fwd_rc"
	json_check 's["pool"]["in_use"] == 0' 'p1["rx_packets"] > 0'
	grep -q "is gone from this network namespace" "$work/fwd.err" ||
		fail "net_af_xdp did not say its netdev was gone"
	echo "PASS: port 0 removed when $NS_S was deleted under traffic; dvp-fwd stopped with every mbuf back"
}

case_multiqueue() {
	local q0 q1
	setup 2
	ip -n "$NS_S" addr add 198.18.0.1/24 dev "$A"
	ip -n "$NS_S" neigh add 198.18.0.2 lladdr 02:00:00:00:00:02 dev "$A" nud permanent
	start_fwd ",xdp_mode=native,queue_count=2" --rxq 2 --txq 2 --rx-mode poll -v
	send mq --tx "$NS_S:$A" --rx "$NS_D:$E" --count 10000 --rate 10000 \
		--udp 198.18.0.1,198.18.0.2 --flows 64
	stop_fwd
	[ "$peer_rc" = 0 ] || fail "frames lost or changed: $(cat "$work/peer-mq.out")"
	[ "$fwd_rc" = 0 ] || fail "dvp-fwd exited with $fwd_rc"
	grep -q "^pool: \([0-9]*\) of \1 mbufs back" "$work/fwd.out" || fail "mbufs missing at the end"
	q0=$(grep -o 'port 0 xstats.*' "$work/fwd.out" | grep -o 'rx_q0_packets=[0-9]*' | cut -d= -f2)
	q1=$(grep -o 'port 0 xstats.*' "$work/fwd.out" | grep -o 'rx_q1_packets=[0-9]*' | cut -d= -f2)
	[ "${q0:-0}" -gt 0 ] && [ "${q1:-0}" -gt 0 ] ||
		fail "the flows did not spread over both queues (rx_q0 ${q0:-0}, rx_q1 ${q1:-0})"
	[ $((q0 + q1)) = "$sent" ] || fail "port 0 received $((q0 + q1)) of $sent frames"
	echo "PASS: $(cat "$work/peer-mq.out"); rx queue 0 took $q0, queue 1 $q1"
}

case_testpmd_peer() {
	local tp_pid i rx tx
	command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk)"
	ls /usr/lib/*/dpdk/pmds-*/librte_net_af_xdp.so >/dev/null 2>&1 ||
		skip "DPDK's net_af_xdp is not installed (Debian package librte-net-af-xdp23)"
	setup
	ip netns exec "$NS_S" dpdk-testpmd -l 0-1 --no-pci --no-huge -m 256 --file-prefix "${S}t" \
		--vdev "net_af_xdp0,iface=$A" -- --forward-mode=io --port-topology=loop \
		--stats-period 1 --no-lsc-interrupt --rxd 8192 --txd 8192 --total-num-mbufs=32768 \
		</dev/null >"$work/testpmd.out" 2>&1 &
	tp_pid=$!
	for i in $(seq 1200); do
		grep -aq "Port statistics" "$work/testpmd.out" && break
		kill -0 "$tp_pid" 2>/dev/null || break
		sleep 0.1
	done
	grep -aq "Port statistics" "$work/testpmd.out" || {
		kill -KILL "$tp_pid" 2>/dev/null
		cp "$work/testpmd.out" "$work/fwd.err"
		fail "dpdk-testpmd with DPDK's net_af_xdp on $A did not start"
	}
	start_fwd ",xdp_mode=native" --json --rx-mode adaptive
	# Out on <S>e, through dvp-fwd (port 1 -> port 0) to testpmd and back.
	send tp --tx "$NS_D:$E" --rx "$NS_D:$E" --count 10000 --rate 10000
	stop_fwd
	kill -INT "$tp_pid"
	wait "$tp_pid"
	rm -rf "/var/run/dpdk/${S}t"
	[ "$peer_rc" = 0 ] || fail "frames lost or changed on the way through testpmd: $(cat "$work/peer-tp.out")"
	[ "$fwd_rc" = 0 ] || fail "dvp-fwd exited with $fwd_rc"
	read -r rx tx < <(awk '/Accumulated forward statistics for all ports/ { p = 1 }
		p && /RX-packets:/ { r = $2 } p && /TX-packets:/ { print r, $2; exit }' "$work/testpmd.out")
	[ "${rx:-0}" = "$sent" ] && [ "${tx:-0}" = "$sent" ] ||
		fail "testpmd received ${rx:-?} and sent ${tx:-?} of $sent frames"
	json_check 's["pool"]["in_use"] == 0' 's["errors"] == 0' 'p1["rx_packets"] == sent' \
		'p0["tx_packets"] == sent' 'p0["rx_packets"] == sent' 'p1["tx_packets"] == sent'
	echo "PASS: $(cat "$work/peer-tp.out"); testpmd (DPDK's net_af_xdp) forwarded $rx"
}

case_restart() {
	local bg rc
	[ -n "$restart_app" ] || fail "the restart case needs af_xdp_restart"
	setup
	"$peer" --tx "$NS_S:$A" --rx none --count 1000000 --rate 2000 >"$work/peer-bg.out" 2>&1 &
	bg=$!
	ip netns exec "$NS_F" "$restart_app" --no-huge -l 0 --no-telemetry --file-prefix "$S" \
		--vdev "net_af_xdp0,iface=$B" -- 3 >"$work/fwd.out" 2>"$work/fwd.err"
	rc=$?
	kill "$bg" 2>/dev/null
	wait "$bg" 2>/dev/null
	[ $rc = 0 ] || fail "af_xdp_restart exited with $rc"
	echo "PASS: $(cat "$work/fwd.out")"
}

xsk_prog=/usr/lib/x86_64-linux-gnu/bpf/xsk_def_xdp_prog.o
case $case_ in
fwd-native) case_fwd native "" poll ;;
fwd-generic) case_fwd generic "" poll ;;
own-native) case_fwd native ",umem=own" adaptive ;;
own-generic) case_fwd generic ",umem=own" adaptive ;;
shared-copy) case_fwd native ",shared_umem=1,force_copy=1,queue_count=2" adaptive 2 ;;
xdp-prog)
	[ -f "$xsk_prog" ] || skip "no $xsk_prog (Debian package libxdp1) to attach as xdp_prog"
	case_fwd native ",xdp_prog=$xsk_prog" poll
	grep -q "($xsk_prog)" "$work/fwd.err" || fail "the port did not say it attached $xsk_prog"
	;;
intr-native) case_intr native ;;
intr-generic) case_intr generic ;;
link-flap) case_link_flap ;;
peer-gone) case_peer_gone ;;
multiqueue) case_multiqueue ;;
testpmd-peer) case_testpmd_peer ;;
restart) case_restart ;;
*)
	echo "unknown case '$case_'"
	exit 2
	;;
esac
exit 0
