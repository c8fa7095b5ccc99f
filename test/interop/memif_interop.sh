#!/bin/bash
# One memif interop case against unmodified dpdk-testpmd (Debian's 22.11).
# Usage: memif_interop.sh MEMIF_PEER CASE no-huge|huge
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# Results are counts (packets, sequence numbers, connections, mbufs in use);
# timeouts only bound a hung peer. testpmd runs with --no-flush-rx: by
# default it empties its rx queues when forwarding starts, which drops
# whatever we sent between the connection and that moment; without the
# flush, what arrives early waits in the ring and every count is exact.
# testpmd needs two lcores: on a 2-CPU machine it runs as --lcores 0@0,1@1
# and our side shares the CPUs.
set -u
peer=$1
case_=$2
mem=$3
count=${DVP_INTEROP_COUNT:-20000}

skip() {
	echo "SKIP: $*"
	exit 77
}
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk-dev)"
[ "$(id -u)" = 0 ] || skip "not root: DPDK's testpmd needs root"

work=$(mktemp -d /tmp/memif-interop.XXXXXX)
sock=$work/memif.sock
tp_prefix=tp$$
tp_pid=
peer_pid=
huge_dir=$(awk '$3 == "hugetlbfs" {print $2; exit}' /proc/mounts)
# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"

# testpmd leaves its runtime directory and, with hugepages, its page files
# (DPDK keeps them for reuse unless told otherwise): remove both.
testpmd_clean() {
	rm -rf "/var/run/dpdk/$tp_prefix"
	[ -n "$huge_dir" ] && rm -f "$huge_dir/${tp_prefix}map_"*
}
cleanup() {
	[ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null && wait "$peer_pid" 2>/dev/null
	# A peer that exits removes its runtime directory; one killed here leaves it.
	rm -rf "/var/run/dpdk/dvp$$"
	if [ -n "$tp_pid" ]; then
		kill -INT "$tp_pid" 2>/dev/null
		wait "$tp_pid" 2>/dev/null
	fi
	testpmd_clean
	# Give back the hugepages we reserved: other tests count free pages.
	ndvp_cleanup
	rm -rf "$work"
}
trap cleanup EXIT

if [ "$mem" = huge ]; then
	# 256 free pages (reserved here, relative to what is there, when short).
	ndvp_mem huge 512
	huge_dir=$ndvp_huge_dir
	tp_mem="-m 256"
	our_mem="-m 128"
else
	tp_mem="--no-huge -m 512"
	our_mem="--no-huge -m 128"
fi

# testpmd ROLE FWD EXTRA_DEVARGS [EXTRA_EAL [EXTRA_APP]]: start it in the background.
testpmd() {
	local role=$1 fwd=$2 devx=$3 ealx=${4:-} appx=${5:-}
	echo "==== testpmd $role $fwd $devx $ealx" >>"$work/testpmd.log"
	dpdk-testpmd --lcores 0@0,1@1 --no-pci --file-prefix=$tp_prefix $tp_mem $ealx \
		--log-level=pmd.net.memif:info \
		--vdev=net_memif0,role=$role,socket=$sock,socket-abstract=no$devx \
		-- --forward-mode=$fwd --no-flush-rx --total-num-mbufs=16384 --stats-period 1 \
		--no-lsc-interrupt --txd=1024 --rxd=1024 $appx \
		</dev/null >>"$work/testpmd.log" 2>&1 &
	tp_pid=$!
}

testpmd_stop() {
	[ -n "$tp_pid" ] || return 0
	kill -INT "$tp_pid" 2>/dev/null
	wait "$tp_pid" 2>/dev/null
	tp_pid=
	testpmd_clean
}

# ourside ROLE MODE EXTRA_DEVARGS [OPTIONS...]: start memif_peer in the background.
ourside() {
	local role=$1 mode=$2 devx=$3
	shift 3
	"$peer" -l 0 --file-prefix dvp$$ $our_mem \
		--vdev "net_memif0,role=$role,socket=$sock,socket-abstract=no$devx" \
		-- "$mode" --count "$count" --timeout 90 "$@" >>"$work/peer.log" 2>&1 &
	peer_pid=$!
}

ourside_wait() {
	local ret
	wait "$peer_pid"
	ret=$?
	peer_pid=
	return $ret
}

# wait_log PATTERN FILE [N]: wait (bounded) until FILE has N (1) lines matching.
wait_log() {
	local pat=$1 file=$2 n=${3:-1} i
	for i in $(seq 1 300); do
		[ "$(grep -c -- "$pat" "$file" 2>/dev/null)" -ge "$n" ] && return 0
		sleep 0.1
	done
	return 1
}

# RX-packets of testpmd's last forward statistics for port 0.
testpmd_rx() {
	awk '/Forward statistics for port 0/ {p=1} p && /RX-packets:/ {v=$2; p=0} END {print v}' \
		"$work/testpmd.log"
}

# A RESULT field of our side: result_field tx sent_last
result_field() {
	awk -v m="$1" -v k="$2" '$1 == "RESULT" && $2 == m {
		for (i = 3; i <= NF; i++) { split($i, a, "="); if (a[1] == k) print a[2] } }' \
		"$work/peer.log" | tail -1
}

show() {
	echo "---- our side"
	cat "$work/peer.log"
	echo "---- testpmd (without the periodic statistics)"
	grep -v -e '^ ' -e '^$' -e 'Port statistics' -e '#####' -e $'\e' "$work/testpmd.log" | tail -60
}

fail() {
	echo "FAIL: $*"
	show
	exit 1
}

# testpmd stops after we are done, while we are connected: its counters are whole.
check_testpmd_got_ours() {
	local sent got
	wait_log "DONE sending" "$work/peer.log" || fail "our side could not send"
	testpmd_stop
	ourside_wait || fail "our side failed"
	sent=$(result_field "$1" sent_last)
	got=$(testpmd_rx)
	[ -n "$got" ] && [ "$got" = "$sent" ] || fail "we sent $sent, testpmd received ${got:-?}"
	echo "testpmd received $got of $sent"
}

# fwd_tx_first_server SECONDS TESTPMD_FWD [LINE]: dvp-fwd --tx-first as the
# server for SECONDS of forwarding, JSON to fwd.json; a testpmd client in
# TESTPMD_FWD mode once dvp-fwd waits for it; LINE waited for from dvp-fwd
# after that; both stopped, the JSON appended to our side's log.
fwd_tx_first_server() {
	local secs=$1 tp_fwd=$2 line=${3:-}

	"${DVP_BUILD_ROOT:?}/apps/dvp-fwd" -l 0-1 --file-prefix dvp$$ $our_mem \
		--vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" \
		-- --tx-first --duration "$secs" --stats-period 0 --json \
		>"$work/fwd.json" 2>>"$work/peer.log" &
	peer_pid=$!
	wait_log "waiting up to 9 s for the link" "$work/peer.log" || fail "dvp-fwd did not start"
	testpmd client "$tp_fwd" ""
	if [ -n "$line" ]; then
		wait_log "$line" "$work/peer.log" || fail "dvp-fwd did not say: $line"
	fi
	ourside_wait || fail "dvp-fwd failed"
	testpmd_stop
	cat "$work/fwd.json" >>"$work/peer.log"
}

case $case_ in
testpmd-server-txonly-our-client-rx)
	testpmd server txonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client rx ""
	ourside_wait || fail "our client did not receive $count packets"
	;;
testpmd-server-txonly-our-client-rx-intr)
	# Our rx queue sleeps in interrupt mode whenever it finds the ring empty;
	# testpmd writes our eventfd when we unmask (DPDK without a fence: a lost
	# wake-up costs one 100 ms wait, never a hang).
	testpmd server txonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client rx "" --intr
	ourside_wait || fail "our client did not receive $count packets in interrupt mode"
	;;
testpmd-client-txonly-our-server-rx)
	ourside server rx ""
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client txonly ""
	ourside_wait || fail "our server did not receive $count packets"
	;;
our-client-txonly-testpmd-server-rxonly)
	testpmd server rxonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client tx "" --hold
	check_testpmd_got_ours tx
	;;
our-server-txonly-testpmd-client-rxonly)
	ourside server tx "" --hold
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client rxonly ""
	check_testpmd_got_ours tx
	;;
testpmd-server-io-fwd-our-client-seq)
	testpmd server io ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client seq ""
	ourside_wait || fail "sequence check through testpmd's io forwarding failed"
	;;
testpmd-client-io-fwd-our-server-seq)
	ourside server seq ""
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client io ""
	ourside_wait || fail "sequence check through testpmd's io forwarding failed"
	;;
testpmd-zero-copy-client-our-server-seq)
	# DPDK's zero-copy client hands us its own memory (its memseg files) as
	# regions 1..n; the rings stay in region 0.
	ourside server seq ""
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client io ",zero-copy=yes" "--single-file-segments"
	ourside_wait || fail "sequence check through testpmd's zero-copy client failed"
	grep -q "connected to net_memif0" "$work/peer.log" || fail "no connection logged"
	;;
testpmd-server-io-fwd-our-zero-copy-client-seq)
	# Our zero-copy client: its EAL memory (hugepage files, or --no-huge
	# memfds) as regions 1..n, testpmd's io forwarding reading our mbufs and
	# writing into the ones we post; every mbuf back in the pool at the end.
	testpmd server io ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client seq ",zero-copy=yes"
	ourside_wait || fail "sequence check through testpmd with our zero-copy client failed"
	grep -q "RESULT pool in_use=0 " "$work/peer.log" || fail "mbufs not back in the pool"
	;;
our-zero-copy-client-txonly-testpmd-server-rxonly)
	testpmd server rxonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client tx ",zero-copy=yes" --hold
	check_testpmd_got_ours tx
	;;
testpmd-server-restart-our-zero-copy-client-reconnects)
	# testpmd leaves with our mbufs on both rings: they come back; we
	# reconnect and the next testpmd gets exactly what we sent it.
	testpmd server rxonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client tx ",zero-copy=yes" --connects 2 --hold
	wait_log "connected to" "$work/peer.log" || fail "our client did not connect"
	testpmd_stop
	wait_log "disconnected" "$work/peer.log" || fail "our client did not see the disconnect"
	testpmd server rxonly ""
	wait_log "connected to" "$work/peer.log" 2 || fail "our client did not reconnect"
	check_testpmd_got_ours tx
	[ "$(result_field tx connects)" = 2 ] || fail "expected two connections"
	grep -q "RESULT pool in_use=0 " "$work/peer.log" || fail "mbufs not back in the pool"
	;;
testpmd-server-restart-our-client-reconnects)
	# testpmd stops while we send; we reconnect to the next one, and every
	# packet of the second connection arrives.
	testpmd server rxonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client tx "" --connects 2 --hold
	wait_log "connected to" "$work/peer.log" || fail "our client did not connect"
	testpmd_stop
	wait_log "disconnected" "$work/peer.log" || fail "our client did not see the disconnect"
	testpmd server rxonly ""
	wait_log "connected to" "$work/peer.log" 2 || fail "our client did not reconnect"
	check_testpmd_got_ours tx
	[ "$(result_field tx connects)" = 2 ] || fail "expected two connections"
	;;
testpmd-client-restart-our-server-waits)
	# The testpmd client leaves and another comes: our server takes it, and
	# receives from it.
	ourside server rx "" --connects 2
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client txonly ""
	wait_log "connected to" "$work/peer.log" || fail "testpmd did not connect"
	testpmd_stop
	wait_log "disconnected" "$work/peer.log" || fail "our server did not see the disconnect"
	testpmd client txonly ""
	ourside_wait || fail "our server did not receive $count packets from the second client"
	[ "$(result_field rx connects)" = 2 ] || fail "expected two connections"
	;;
our-fwd-server-tx-first-testpmd-client-io)
	# dvp-fwd's --tx-first on a server: the link is up once testpmd's
	# CONNECT is in, but DPDK's client posts its rx buffers at its first rx
	# burst, after its link check: the burst waits for room, then circles.
	fwd_tx_first_server 2 io
	grep -q "first burst's" "$work/peer.log" && fail "the first burst was not taken whole"
	python3 - "$work/fwd.json" <<'PY' || fail "the first burst did not circle"
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
p = s["ports"][0]
print(f"RESULT fwd rx_packets={p['rx_packets']} tx_packets={p['tx_packets']} in_use={s['pool']['in_use']}")
sys.exit(0 if s["result"] == "pass" and p["rx_packets"] > 32 and s["pool"]["in_use"] == 0 else 1)
PY
	;;
our-fwd-server-tx-first-testpmd-client-txonly)
	# A client that never posts rx buffers (testpmd's txonly makes no rx
	# burst): dvp-fwd's first burst waits its 9 s for room and is freed
	# with a line; what testpmd sends then is received, waits in the tx
	# retry for room that never comes, and is dropped at the stop, counted.
	# Every mbuf is back in the pool at the end.
	fwd_tx_first_server 1 txonly "waiting up to 9 s for room"
	grep -q "took 0 of the first burst's 32 frames; the rest are freed" "$work/peer.log" ||
		fail "no line for the freed first burst"
	python3 - "$work/fwd.json" <<'PY' || fail "dvp-fwd's summary is not what a full peer ring gives"
import json, sys
s = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")][-1]
p = s["ports"][0]
dropped = sum(l["fwd_dropped"] + l["stop_dropped"] for l in s["lcores"])
print(f"RESULT fwd rx_packets={p['rx_packets']} tx_packets={p['tx_packets']} dropped={dropped} "
      f"lost={s['lost']} in_use={s['pool']['in_use']}")
sys.exit(0 if p["rx_packets"] > 0 and p["tx_packets"] == 0 and dropped == p["rx_packets"]
         and s["lost"] == 0 and s["pool"]["in_use"] == 0 else 1)
PY
	;;
bad-secret-our-client)
	# No link will come up: testpmd need not wait 9 s for one.
	testpmd server rxonly ",secret=right" "" --disable-link-check
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	ourside client reject ",secret=wrong"
	ourside_wait || fail "our client was not refused"
	grep -q "connection refused: Incorrect secret (said the peer)" "$work/peer.log" ||
		fail "our log does not name the reason"
	;;
bad-secret-testpmd-client)
	ourside server reject ",secret=right"
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client rxonly ",secret=wrong" "" --disable-link-check
	ourside_wait || fail "our server did not refuse the client"
	grep -q "closing the control channel: Incorrect secret" "$work/peer.log" ||
		fail "our log does not name the reason"
	wait_log "Disconnect received: Incorrect secret" "$work/testpmd.log" ||
		fail "testpmd did not report the reason we sent"
	;;
*)
	echo "unknown case $case_"
	exit 2
	;;
esac
echo "PASS: $case_ ($mem)"
grep '^RESULT' "$work/peer.log"
exit 0
