#!/bin/bash
# net_dvp inside Debian's unmodified dpdk-testpmd (DPDK 22.11): the plugin
# loaded with -d, two ethdev ports on the simulated HCA whose traffic
# cable gives each port a source and a sink.
#
# Usage: net_dvp_testpmd.sh PLUGIN WORKDIR CASE MEM
#   CASE  io | macswap | restart | lsc | rmv | queue-error | bad-devargs | telemetry
#         | defaults | rss | offload
#   MEM   huge: DPDK's defaults on 2 MB hugepages (no -m, no --iova-mode:
#         IOVA PA as root without an IOMMU), reserved here when short;
#         no-huge: --no-huge -m 1024. Either way testpmd makes its default
#         mbuf pool (no --total-num-mbufs: about 160k mbufs).
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# defaults: testpmd as a user starts it, `-- -i` and nothing more (io
# forwarding, rx flushed at start, no retry): the ports start and every
# frame is counted: each source's COUNT frames are received by its port
# (rx_good_packets), and each one not at the other port's sink is one
# testpmd flushed at start or dropped on tx (its forward statistics).
#
# io, macswap: each source sends COUNT frames; testpmd forwards port 0 to
# port 1 and back. Pass: every sink received COUNT intact (lost, corrupt,
# duplicates, foreign 0, read with `show port xstats`), testpmd counted no
# drop, and net_dvp gave every buffer back at close.
# restart: the same after `port stop all` and `port start all` in the middle.
# lsc: a link flap on the sim (flap=) reaches testpmd as link state events.
# rmv: a device fatal error of the sim (fatal=) reaches testpmd as a removal
#   event; testpmd then detaches the device, and nothing is left behind.
# queue-error: the sim answers one receive WQE as if its lkey were invalid;
#   the queue is restarted, testpmd gets the error-recovering and recovery
#   events, and forwarding goes on: every frame but the one is delivered.
# bad-devargs: a net_dvp vdev with a bad dvp device fails its probe with
#   one line naming it, and testpmd goes on with the other vdev's ports.
# telemetry: Debian's dpdk-telemetry.py lists the net_dvp ports of the
#   running testpmd with their stats and xstats.
# rss: io forwarding on two rx queues a port, each source sending 64 flows;
#   while testpmd forwards, `port config all rss none` (every frame to
#   table entry 0: queue 0 alone takes frames), `port config 0 rss reta
#   (0,1)` (queue 1 alone), `port config all rss ip` (both again), `port
#   config all rss udp` (UDP over IPv4 and IPv6, _EX included, taken whole:
#   testpmd reports no type dropped, `show port 0 rss-hash` lists ipv6-udp;
#   both queues), a new key (`show port 0 rss-hash key` gives it back):
#   after each, over the next 3000 frames of port 0's source, its queues'
#   counts (rx_q0_packets, rx_q1_packets) follow the new rules; then the io
#   checks.
# offload: macswap forwarding with `tx_vlan set 1 100` (the ports stopped
#   for it, and started again) and `tso set 800 0` accepted: every frame
#   port 1's sink receives came with the tag, TCI 100, and is intact once
#   it is taken off; port 0's come untagged; none corrupt or foreign.
#   Frames the sources sent while the ports were stopped are the device's
#   drops, not counted against the sinks.
#
# Results are counts; the time limits only bound a hung process, so a
# loaded machine makes the test slower, not failed.
set -u
plugin=$1
work=$2
case_=$3
mem=$4
count=${DVP_NET_DVP_COUNT:-10000}
# rss watches four stretches of traffic while the sources send (30 s).
[ "$case_" = rss ] && count=${DVP_NET_DVP_COUNT:-150000}

skip() {
	echo "SKIP: $*"
	exit 77
}
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk-dev)"
[ "$(id -u)" = 0 ] || skip "not root: DPDK's testpmd needs root"
# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
# shellcheck source=net_dvp_testpmd_lib.sh
. "$(dirname "$0")/net_dvp_testpmd_lib.sh"

dir=$work/net_dvp_testpmd.$case_.$mem
prefix=ndvp$$
cleanup() {
	tp_cleanup
	ndvp_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$dir"
mkdir -p "$dir" || exit 1
ndvp_plugin_copy "$plugin" "$work"
# testpmd's default pool is about 400 MB.
ndvp_mem "$mem" 1024
ndvp_dpdk_prefix "$prefix"
fifo=$dir/cmd
out=$dir/testpmd.log

sim="sim_mlx5,ports=2,cable=traffic,count=$count"
fwd=io
extra_vdev=
[ "$case_" = bad-devargs ] && extra_vdev="--vdev net_dvp1,no_such_device0,key=1"
case $case_ in
io | restart | defaults) ;;
macswap | offload) fwd=macswap ;;
lsc) sim="sim_mlx5,ports=2,cable=traffic,rate=20000,flap=[at:16s,down:300ms]" ;;
rmv) sim="sim_mlx5,ports=2,cable=traffic,rate=20000,fatal=16s" ;;
queue-error) sim="sim_mlx5,ports=2,cable=traffic,count=$count,bad_lkey=5000" ;;
bad-devargs | telemetry) ;;
rss) sim="sim_mlx5,ports=2,cable=traffic,count=$count,rate=5000,flows=64" ;;
*) echo "net_dvp_testpmd.sh: unknown case '$case_'; valid: io, macswap, restart, lsc, rmv, queue-error, bad-devargs, telemetry, defaults, rss, offload" >&2; exit 2 ;;
esac

# testpmd needs two lcores; on a 2-CPU machine they share the CPUs with the rest.
app_args="--forward-mode=$fwd --no-flush-rx"
[ "$case_" = defaults ] && app_args=
[ "$case_" = rss ] && app_args="$app_args --rxq=2 --txq=2"
# The flap and the fatal error are timed from the device's creation, 16 s
# on: testpmd's ports must be started by then, which on a machine busy with
# builds took over 8 s. A pool of 16384 mbufs instead of testpmd's default
# (155456 without hugepages) shortens that; these cases are about events,
# not pools.
case $case_ in lsc | rmv) app_args="$app_args --total-num-mbufs=16384" ;; esac
# shellcheck disable=SC2086
tp_start "$out" "$fifo" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	--log-level=pmd.net.dvp*:info -d "$ndvp_plugin" \
	$extra_vdev --vdev "net_dvp0,$sim" -- -i $app_args

wait_for 1 'testpmd> ' 60 || fail "testpmd did not start"
grep -q "net_dvp0: sim_mlx5 gives 2 port" "$out" || fail "net_dvp did not make two ports"
# A machine so loaded that testpmd was not up 16 s after the device came
# cannot tell these cases anything (the ports may even fail to start).
before_prompt() { awk -v re="$1" '/testpmd> / { exit } $0 ~ re { f = 1; exit } END { exit !f }' "$out"; }
[ "$case_" = rmv ] && before_prompt 'device fatal error' &&
	skip "the fatal error came before testpmd was up (a very loaded machine)"
[ "$case_" = lsc ] && before_prompt 'link down' &&
	skip "the flap came before testpmd was up (a very loaded machine)"
grep -qE 'Start ports failed|Fail to (start|configure) port' "$out" &&
	fail "testpmd could not start its ports: $(grep -E 'net_dvp|net_mlx5|mlx5:|Fail|failed' "$out" | head -n 8 | tr '\n' '|')"
iova=$(sed -n "s/.*Selected IOVA mode '\([A-Z]*\)'.*/\1/p" "$out" | head -n 1)
cmd "show port info 0"
wait_for 1 'Driver name: net_dvp' 20 || fail "show port info names no net_dvp port"
# Retry a burst the tx queue did not take whole, as a careful application
# does; what testpmd still drops it counts (TX-dropped), and the check below
# holds it to that count. The defaults case leaves testpmd as it starts.
if [ "$case_" = offload ]; then
	# testpmd's macswap engine asks for the tag (RTE_MBUF_F_TX_VLAN, vlan_tci)
	# on port 1's frames; both commands want the ports stopped.
	cmd "port stop all"
	cmd "tx_vlan set 1 100"
	cmd "tso set 800 0"
	cmd "port start all"
	wait_for 1 'TSO segment size for non-tunneled packets is 800' 20 ||
		fail "tso set 800 0 was refused: $(grep -iE 'tso|error' "$out" | tail -n 3 | tr '\n' '|')"
	grep -qiE 'vlan insert is not supported|Please stop port' "$out" && fail "tx_vlan set 1 100 was refused"
fi
[ "$case_" = defaults ] || cmd "set fwd $fwd retry"
if [ "$case_" = defaults ]; then
	# How DPDK laid out the default pool (rte_mempool_dump: nb_mem_chunks).
	cmd "dump_mempool"
	wait_for 1 'nb_mem_chunks=' 20 || fail "dump_mempool printed no pool"
	chunks=$(awk -F= '/mempool <mb_pool_0>/ { f = 1 } f && /nb_mem_chunks=/ { print $2; exit }' "$out")
fi
cmd "start"

if [ "$case_" = lsc ]; then
	# Each port's link goes down and comes back: four events after those of
	# the start (testpmd reports every RTE_ETH_EVENT_INTR_LSC it gets).
	re='Port [01]: link state change event'
	before=$(grep -cE "$re" "$out")
	wait_for $((before + 4)) "$re" 60 ||
		fail "$(($(grep -cE "$re" "$out") - before)) of 4 link state change events reached testpmd"
	cmd "show port info 0"
	cmd "stop"
	cmd "quit"
	wait "$tp_pid"
	tp_pid=
	grep -q 'Link status: up' "$out" || fail "the link is not up again after the flap"
	echo "PASS: the sim's link flap reached testpmd as $(($(grep -cE "$re" "$out") - before)) link state change events"
	exit 0
fi

if [ "$case_" = rmv ]; then
	# testpmd answers a removal by closing the port and detaching the device.
	wait_for 1 'Port [01]: device removal event' 60 || fail "no removal event reached testpmd"
	# Two ports, two removal events: the first closes its port, the second
	# detaches the device. testpmd runs them from its alarm thread and does
	# not order them against quit (a quit during the detach crashes it), so
	# quit only once the device is gone.
	wait_for 1 'Device is detached' 30 ||
		fail "testpmd did not detach the removed device"
	cmd "quit"
	for _ in $(seq 300); do kill -0 "$tp_pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$tp_pid" 2>/dev/null && fail "testpmd did not quit within 30 s after the removal"
	wait "$tp_pid"
	rc=$?
	tp_pid=
	[ $rc = 0 ] || fail "testpmd exited with status $rc after the removal"
	grep -q "still held by the application" "$out" && fail "net_dvp buffers still held after the removal"
	grep -q "Device is detached" "$out" || fail "the device was not detached"
	echo "PASS: the sim's device fatal error reached testpmd as a removal event; the device was detached cleanly"
	exit 0
fi

if [ "$case_" = telemetry ]; then
	command -v dpdk-telemetry.py >/dev/null || skip "dpdk-telemetry.py not found (Debian package dpdk-dev)"
	sleep 1
	tel=$dir/telemetry.out
	printf '/ethdev/list\n/ethdev/info,0\n/ethdev/stats,1\n/ethdev/xstats,1\n' |
		timeout 30 dpdk-telemetry.py -f "$prefix" >"$tel" 2>&1 || fail "dpdk-telemetry.py failed: $(tail -n 5 "$tel")"
	grep -q '"/ethdev/list": \[0, 1\]' "$tel" || fail "/ethdev/list does not list ports 0 and 1: $(head -c 400 "$tel")"
	grep -q '"name": "net_dvp0_sim_mlx5_0_p1"' "$tel" || fail "/ethdev/info,0 does not name the net_dvp port"
	grep -q '"ipackets": [1-9]' "$tel" || fail "/ethdev/stats,1 shows no packets received"
	grep -q '"sim_source_sent": [1-9]' "$tel" || fail "/ethdev/xstats,1 lacks the sim's counters"
	cmd "stop"
	cmd "quit"
	wait "$tp_pid"
	tp_pid=
	echo "PASS: dpdk-telemetry.py lists the net_dvp ports with their info, stats and xstats"
	exit 0
fi

# Port 0's rx_q0_packets, rx_q1_packets and sim_source_sent now, into q0, q1 and sent.
snap0() {
	local n
	n=$(grep -cE '^ *sim_source_sent: ' "$out")
	cmd "show port xstats 0"
	# The sim's counters come last: once one more is shown, the queues' are too.
	wait_for $((n + 1)) '^ *sim_source_sent: ' 30 || fail "testpmd showed no xstats of port 0"
	q0=$(xstat rx_q0_packets 0) q1=$(xstat rx_q1_packets 0) sent=$(xstat sim_source_sent 0)
}

# After the RSS change @1 (testpmd's command): port 0's queue @2 (0, 1, or
# "none") takes no frame from now on, the other one (or each) some. Frames
# steered before the change may still wait in the idle queue: it is let
# drain (its count stops moving) before 3000 frames are watched.
rss_expect() {
	local what=$1 idle=$2 a0 a1 as d0 d1
	cmd "$what"
	snap0
	for _ in $(seq 40); do
		[ "$idle" = none ] && break
		a0=$q0 a1=$q1
		sleep 0.5
		snap0
		{ [ "$idle" = 0 ] && [ "$q0" = "$a0" ]; } || { [ "$idle" = 1 ] && [ "$q1" = "$a1" ]; } && break
	done
	a0=$q0 a1=$q1 as=$sent
	while [ "$sent" -lt $((as + 3000)) ]; do
		[ "$sent" -ge "$count" ] &&
			skip "port 0's source ended before '$what' could be watched (a very loaded machine)"
		sleep 0.2
		snap0
	done
	d0=$((q0 - a0)) d1=$((q1 - a1))
	echo "after '$what': port 0's queue 0 took $d0 and queue 1 took $d1 of its next $((sent - as)) frames"
	case $idle in
	0) [ $d0 = 0 ] && [ $d1 -gt 0 ] || fail "after '$what' queue 0 took $d0 and queue 1 $d1: queue 1 alone should" ;;
	1) [ $d1 = 0 ] && [ $d0 -gt 0 ] || fail "after '$what' queue 0 took $d0 and queue 1 $d1: queue 0 alone should" ;;
	*) [ $d0 -gt 0 ] && [ $d1 -gt 0 ] || fail "after '$what' queue 0 took $d0 and queue 1 $d1: both should" ;;
	esac
}

if [ "$case_" = rss ]; then
	grep -q 'Configuration of RSS hash at ethernet port' "$out" && fail "testpmd could not set RSS at start"
	# testpmd hashes on IP by default, over both queues. No field: every
	# frame hashes to 0, table entry 0, queue 0.
	rss_expect "port config all rss none" 1
	rss_expect "port config 0 rss reta (0,1)" 0
	rss_expect "port config all rss ip" none
	# UDP over both IP versions: the types are the device's, none dropped.
	rss_expect "port config all rss udp" none
	grep -q 'modified RSS hash function based on hardware support' "$out" &&
		fail "testpmd dropped RSS types the device lacks: $(grep -m1 'modified RSS hash function' "$out")"
	cmd "show port 0 rss-hash"
	wait_for 1 '^RSS functions:' 20 || fail "show port 0 rss-hash gave no functions"
	sleep 0.5
	grep -A1 '^RSS functions:' "$out" | grep -q 'ipv6-udp' ||
		fail "port 0 does not hash UDP over IPv6: $(grep -A1 '^RSS functions:' "$out" | tail -n 1)"
	key=3b1e5f0c7a2d9e44b6c01f8a275d3e9c41b0a6f2d8c35e7190ab4cf2e6d1087a5c3f9b2e41d07c68
	rss_expect "port config 0 rss-hash-key ipv4 $key" none
	cmd "show port 0 rss-hash key"
	wait_for 1 '^RSS key:' 20 || fail "show port 0 rss-hash key gave no key"
	sleep 0.5
	grep -qi "^$key\$" "$out" || fail "show port 0 rss-hash key does not give back the key set: $(grep -A1 '^RSS key:' "$out" | tail -n 1)"
	grep -q 'Configuration of RSS hash at ethernet port\|Bad redirection table parameter' "$out" &&
		fail "testpmd reports a refused RSS change: $(grep -m1 'Configuration of RSS hash\|Bad redirection' "$out")"
fi

if [ "$case_" = bad-devargs ]; then
	grep -q 'no_such_device0' "$out" || fail "no line names the bad dvp device"
	grep -q 'net_dvp1: cannot attach dvp device' "$out" || fail "net_dvp1's failed probe is not reported"
fi

# Poll the counters until every source is done, each port has taken its
# source's frames in (received, or dropped and counted by the device), the
# sinks have everything each port sent, and nothing moved over the last
# poll; or nothing moves for 20 s (a stall, not a slow machine).
# Port @1's frames in: received, missed, in error, or dropped by the device.
taken_in() {
	echo $(($(xstat rx_good_packets $1) + $(xstat rx_missed_errors $1) + $(xstat rx_errors $1) +
		$(xstat sim_rx_dropped $1)))
}
snap=
same=0
restarted=0
for _ in $(seq 600); do
	cmd "show port xstats all"
	sleep 0.5
	s0=$(xstat sim_source_sent 0) s1=$(xstat sim_source_sent 1)
	r0=$(xstat sim_sink_received 0) r1=$(xstat sim_sink_received 1)
	t0=$(xstat tx_good_packets 0) t1=$(xstat tx_good_packets 1)
	i0=$(taken_in 0) i1=$(taken_in 1)
	if [ "$case_" = restart ] && [ $restarted = 0 ] && [ "$s0" -ge $((count / 2)) ]; then
		cmd "stop"
		cmd "port stop all"
		cmd "port start all"
		cmd "set fwd $fwd retry"
		cmd "start"
		restarted=1
	fi
	[ "$s0" = "$count" ] && [ "$s1" = "$count" ] && [ "$r0" = "$count" ] && [ "$r1" = "$count" ] && break
	now="$s0/$s1/$r0/$r1/$t0/$t1/$i0/$i1"
	[ "$now" = "$snap" ] && [ "$s0/$s1/$i0/$i1" = "$count/$count/$count/$count" ] &&
		[ "$t0" = "$r0" ] && [ "$t1" = "$r1" ] && break
	if [ "$now" = "$snap" ]; then
		same=$((same + 1))
		[ $same -ge 40 ] && break
	else
		same=0
	fi
	snap=$now
done
cmd "stop"
cmd "show port xstats all"
sleep 1
cmd "quit"
for _ in $(seq 300); do kill -0 "$tp_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$tp_pid" 2>/dev/null && fail "testpmd did not quit within 30 s"
wait "$tp_pid"
rc=$?
tp_pid=
[ $rc = 0 ] || fail "testpmd exited with status $rc"
[ "$case_" = restart ] && [ $restarted = 0 ] && fail "the sources never reached the middle: no restart was made"

if [ "$case_" = queue-error ]; then
	grep -q 'Port [01]: error recovering event' "$out" || fail "no error-recovering event reached testpmd"
	grep -q 'Port [01]: error recovery successful event' "$out" || fail "no recovery event reached testpmd"
	grep -q "still held by the application" "$out" && fail "net_dvp buffers still held at close"
	# Nothing lost unseen: what a sink misses, testpmd dropped or its port
	# failed to send (testpmd's TX-dropped adds the port's oerrors: a broken
	# send queue), or the other port's device dropped (the queue down,
	# sim_rx_dropped) or answered with an error CQE (rx_errors).
	for p in 0 1; do
		q=$((1 - p))
		got=$(xstat sim_sink_received $p)
		# Missing, not the sink's "lost": a gap at the end has no later frame to show it.
		missing=$((count - got))
		seen=$(($(tp_dropped $p) + $(xstat sim_rx_dropped $q) + $(xstat rx_errors $q)))
		echo "port $p: sink received $got of $count; $missing missing: testpmd dropped $(tp_dropped $p), port $q's device dropped $(xstat sim_rx_dropped $q), rx errors $(xstat rx_errors $q)"
		[ "$missing" = "$seen" ] || fail "port $p's sink misses $missing frames, the counters account for $seen"
		[ "$(xstat sim_sink_corrupt $p)" = 0 ] || fail "port $p's sink got corrupt frames"
	done
	echo "PASS: an invalid lkey broke a queue; it was restarted, testpmd got the recovery events, and every frame lost is counted"
	exit 0
fi

if [ "$case_" = offload ]; then
	bad=
	for p in 0 1; do
		got=$(xstat sim_sink_received $p)
		vlan=$(xstat sim_sink_vlan $p)
		for x in sim_sink_corrupt sim_sink_duplicates sim_sink_foreign tx_errors; do
			v=$(xstat $x $p)
			[ "$v" = 0 ] || bad="$bad port $p $x=$v;"
		done
		[ "$got" -gt $((count / 2)) ] || bad="$bad port $p's sink received only $got of $count;"
		echo "port $p: sink received $got intact, $vlan of them tagged (TCI $(xstat sim_sink_vlan_tci $p))"
	done
	[ "$(xstat sim_sink_vlan 1)" = "$(xstat sim_sink_received 1)" ] || bad="$bad port 1 sent frames without the tag;"
	[ "$(xstat sim_sink_vlan_tci 1)" = 100 ] || bad="$bad port 1's tag is not TCI 100;"
	[ "$(xstat sim_sink_vlan 0)" = 0 ] || bad="$bad port 0 sent tagged frames;"
	grep -q "still held by the application" "$out" && bad="$bad net_dvp buffers still held at close;"
	[ -z "$bad" ] || fail "$bad"
	echo "PASS: tx_vlan set 1 100 over net_dvp ($mem): port 1's frames left tagged and intact, port 0's untagged; tso set accepted"
	exit 0
fi

if [ "$case_" = defaults ]; then
	bad=
	# Port p receives its own source's frames; testpmd sends them out of
	# port q, to q's sink.
	for p in 0 1; do
		q=$((1 - p))
		sent=$(xstat sim_source_sent $p)
		rx=$(xstat rx_good_packets $p)
		fwd_rx=$(tp_fwd_rx $p)
		flushed=$((rx - fwd_rx))
		dropped=$(tp_dropped $q)
		got=$(xstat sim_sink_received $q)
		lost=$(xstat sim_sink_lost $q)
		[ "$sent" = "$count" ] || bad="$bad port $p's source sent $sent of $count;"
		[ "$rx" = "$count" ] || bad="$bad port $p received $rx of $count (rx_good_packets);"
		for x in rx_missed_errors rx_errors rx_mbuf_allocation_errors sim_rx_out_of_buffer \
			sim_rx_dropped tx_errors tx_copied; do
			v=$(xstat $x $p)
			[ "$v" = 0 ] || bad="$bad port $p $x=$v;"
		done
		for x in sim_sink_corrupt sim_sink_duplicates sim_sink_foreign; do
			v=$(xstat $x $q)
			[ "$v" = 0 ] || bad="$bad port $q $x=$v;"
		done
		[ $((got + flushed + dropped)) = "$count" ] ||
			bad="$bad port $q's sink received $got + flushed $flushed + dropped $dropped: not $count;"
		[ "$lost" -le $((flushed + dropped)) ] || bad="$bad port $q's sink lost $lost, more than flushed + dropped;"
		echo "port $p -> $q: source sent $sent, port $p received $rx ($flushed flushed at start), testpmd dropped $dropped on tx, sink received $got intact"
	done
	grep -q "still held by the application" "$out" && bad="$bad net_dvp buffers still held at close;"
	grep -q "Port 0 is closed" "$out" && grep -q "Port 1 is closed" "$out" || bad="$bad ports not closed;"
	[ -z "$bad" ] || fail "$bad"
	echo "PASS: testpmd with its defaults ($mem, IOVA ${iova:-?}, default pool) started both net_dvp ports (its pool in $chunks memory chunks); 2 x $count frames, every one counted"
	exit 0
fi

bad=
for p in 0 1; do
	sent=$(xstat sim_source_sent $p)
	got=$(xstat sim_sink_received $p)
	lost=$(xstat sim_sink_lost $p)
	dropped=$(tp_dropped $p)
	for x in sim_sink_corrupt sim_sink_duplicates sim_sink_foreign rx_mbuf_allocation_errors \
		rx_missed_errors tx_errors tx_copied; do
		v=$(xstat $x $p)
		[ "$v" = 0 ] || bad="$bad port $p $x=$v;"
	done
	[ "$sent" = "$count" ] || bad="$bad port $p source sent $sent of $count;"
	# Every frame arrived, or was dropped by testpmd and counted: none lost
	# unseen (the sink's own count of gaps is checked too, for frames that
	# went missing before the end).
	[ $((got + dropped)) = "$count" ] || bad="$bad port $p sink received $got + testpmd dropped $dropped of $count;"
	[ "$lost" -le "$dropped" ] || bad="$bad port $p: the sink lost $lost, testpmd dropped $dropped;"
	echo "port $p: source sent $sent, sink received $got intact, testpmd dropped $dropped"
done
grep -q "still held by the application" "$out" && bad="$bad net_dvp buffers still held at close;"
grep -q "Port 0 is closed" "$out" && grep -q "Port 1 is closed" "$out" || bad="$bad ports not closed;"
[ -z "$bad" ] || fail "$bad"
[ "$case_" = rss ] && echo "PASS: RSS changed while testpmd forwarded: table entry, fields and key followed by the queues' counts"
echo "PASS: $fwd forwarding over net_dvp ($mem, IOVA ${iova:-?}): 2 x $count frames, none lost unseen, 0 corrupt; every buffer back"
