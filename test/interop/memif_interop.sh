#!/bin/bash
# One memif interop case against unmodified dpdk-testpmd.
# Usage: memif_interop.sh MEMIF_PEER CASE no-huge|huge
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
# Results are counts (packets, sequence numbers, connections, mbufs in use);
# timeouts only bound a hung peer. testpmd needs two lcores: on a 2-CPU
# machine it runs as --lcores 0@0,1@1 and our side shares the CPUs.
set -u
peer=$1
case_=$2
mem=$3
count=${DVP_INTEROP_COUNT:-20000}

skip() { echo "SKIP: $*"; exit 77; }
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk-dev)"
[ "$(id -u)" = 0 ] || skip "not root: DPDK's testpmd needs root"

work=$(mktemp -d /tmp/memif-interop.XXXXXX)
sock=$work/memif.sock
tp_pid=
cleanup() {
	[ -n "$tp_pid" ] && kill -INT "$tp_pid" 2>/dev/null && wait "$tp_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

if [ "$mem" = huge ]; then
	total=$(awk '/^HugePages_Total/ {print $2}' /proc/meminfo)
	if [ "${total:-0}" -lt 256 ]; then
		echo 512 >/proc/sys/vm/nr_hugepages 2>/dev/null || true
		total=$(awk '/^HugePages_Total/ {print $2}' /proc/meminfo)
	fi
	[ "${total:-0}" -ge 256 ] || skip "fewer than 256 2 MiB hugepages and none could be reserved"
	grep -q hugetlbfs /proc/mounts || { mkdir -p /dev/hugepages && mount -t hugetlbfs nodev /dev/hugepages; } ||
		skip "no hugetlbfs mount"
	tp_mem="-m 256"
	our_eal="-l 0 --file-prefix dvp$$ -m 128"
else
	tp_mem="--no-huge -m 512"
	our_eal="-l 0 --file-prefix dvp$$ --no-huge -m 128"
fi

# testpmd ROLE FWD EXTRA_DEVARGS [EXTRA_EAL]: start it in the background.
testpmd() {
	local role=$1 fwd=$2 devx=$3 ealx=${4:-}
	dpdk-testpmd --lcores 0@0,1@1 --no-pci --file-prefix=tp$$ $tp_mem $ealx \
		--log-level=pmd.net.memif:info \
		--vdev=net_memif0,role=$role,socket=$sock,socket-abstract=no$devx \
		-- --forward-mode=$fwd --total-num-mbufs=16384 --stats-period 1 --no-lsc-interrupt --txd=1024 --rxd=1024 \
		</dev/null >>"$work/testpmd.log" 2>&1 &
	tp_pid=$!
}

# Wait (bounded) until testpmd's memif is listening or connected.
wait_log() {
	local pat=$1 file=$2 i
	for i in $(seq 1 300); do
		grep -q "$pat" "$file" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

testpmd_stop() {
	[ -n "$tp_pid" ] || return 0
	kill -INT "$tp_pid" 2>/dev/null
	wait "$tp_pid" 2>/dev/null
	tp_pid=
}

# The sum of RX-packets over testpmd's final per-port statistics.
testpmd_rx() {
	awk '/Forward statistics for port/ {p=1} p && /RX-packets:/ {print $2; exit}' "$work/testpmd.log"
}

run_peer() {
	"$peer" $our_eal -- "$@" --socket "$sock" --abstract no --timeout 60 >"$work/peer.log" 2>&1
}

show() {
	echo "---- our side"; cat "$work/peer.log"
	echo "---- testpmd (last 40 lines)"; tail -40 "$work/testpmd.log"
}

fail() { echo "FAIL: $*"; show; exit 1; }

case $case_ in
testpmd-server-txonly-our-client-rx)
	testpmd server txonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	run_peer rx --role client --count "$count" || fail "our client did not receive $count packets"
	;;
our-client-txonly-testpmd-server-rxonly)
	testpmd server rxonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	"$peer" $our_eal -- tx --role client --socket "$sock" --abstract no --count "$count" \
		--hold --timeout 60 >"$work/peer.log" 2>&1 &
	ppid_=$!
	wait_log "DONE sending" "$work/peer.log" || fail "our client could not send"
	testpmd_stop # while we are connected: its final counters are whole
	wait "$ppid_" || fail "our client failed"

	sent=$(awk '/^RESULT tx/ {sub("sent=", "", $3); print $3}' "$work/peer.log")
	got=$(testpmd_rx)
	[ -n "$got" ] && [ "$got" = "$sent" ] || fail "we sent $sent, testpmd received ${got:-?}"
	echo "testpmd received $got of $sent"
	;;
testpmd-client-txonly-our-server-rx)
	"$peer" $our_eal -- rx --role server --socket "$sock" --abstract no --count "$count" \
		--timeout 60 >"$work/peer.log" 2>&1 &
	ppid_=$!
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client txonly ""
	wait "$ppid_" || fail "our server did not receive $count packets"
	;;
our-server-txonly-testpmd-client-rxonly)
	"$peer" $our_eal -- tx --role server --socket "$sock" --abstract no --count "$count" \
		--hold --timeout 60 >"$work/peer.log" 2>&1 &
	ppid_=$!
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client rxonly ""
	wait_log "DONE sending" "$work/peer.log" || fail "our server could not send"
	testpmd_stop
	wait "$ppid_" || fail "our server failed"

	sent=$(awk '/^RESULT tx/ {sub("sent=", "", $3); print $3}' "$work/peer.log")
	got=$(testpmd_rx)
	[ -n "$got" ] && [ "$got" = "$sent" ] || fail "we sent $sent, testpmd received ${got:-?}"
	echo "testpmd received $got of $sent"
	;;
testpmd-server-io-fwd-our-client-seq)
	testpmd server io ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	run_peer seq --role client --count "$count" || fail "sequence check failed"
	;;
testpmd-zero-copy-client-our-server-seq)
	[ "$mem" = huge ] || skip "DPDK's zero-copy client exposes hugepage files: needs hugepages"
	"$peer" $our_eal -- seq --role server --socket "$sock" --abstract no --count "$count" \
		--timeout 60 >"$work/peer.log" 2>&1 &
	ppid_=$!
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client io ",zero-copy=yes" "--single-file-segments"
	wait "$ppid_" || fail "sequence check through the zero-copy client failed"
	;;
testpmd-server-restart-our-client-reconnects)
	testpmd server rxonly ""
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	"$peer" $our_eal -- tx --role client --socket "$sock" --abstract no --count "$count" \
		--connects 2 --timeout 90 >"$work/peer.log" 2>&1 &
	ppid_=$!
	wait_log "connected to" "$work/peer.log" || fail "our client did not connect"
	testpmd_stop
	wait_log "disconnected" "$work/peer.log" || fail "our client did not see the disconnect"
	testpmd server rxonly ""
	wait "$ppid_" || fail "our client did not reconnect and send $count packets"
	grep -q "connects=2" "$work/peer.log" || fail "expected two connections"
	;;
bad-secret-our-client)
	testpmd server rxonly ",secret=right"
	wait_log "Port 0:" "$work/testpmd.log" || fail "testpmd did not start"
	run_peer reject --role client --secret wrong --expect "Incorrect secret" ||
		fail "our client was not refused with 'Incorrect secret'"
	grep -q "Incorrect secret" "$work/peer.log" || fail "our log does not name the reason"
	;;
bad-secret-testpmd-client)
	"$peer" $our_eal -- reject --role server --socket "$sock" --abstract no --secret right \
		--expect "Incorrect secret" --timeout 60 >"$work/peer.log" 2>&1 &
	ppid_=$!
	wait_log READY "$work/peer.log" || fail "our server did not start"
	testpmd client rxonly ",secret=wrong"
	wait "$ppid_" || fail "our server did not refuse the client"
	wait_log "Incorrect secret" "$work/testpmd.log" ||
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
