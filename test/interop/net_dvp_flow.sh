#!/bin/bash
# rte_flow through net_dvp in Debian's dpdk-testpmd (DPDK 22.11), on the
# simulated HCA: two rx queues a port, the traffic cable's source sending
# 64 flows (198.18.0.0 + flow -> 198.19.0.1, UDP). testpmd's `flow`
# commands validate, create, list, query and destroy a rule steering flow
# 5 to queue 1 with MARK 42 and COUNT; with `set verbose 1` in rxonly forwarding, every
# packet testpmd prints with "FDIR matched ID=0x2a" must be on port 0's
# queue 1, and some must be; an RSS rule whose types lack the pattern's IP
# version is refused with a reason; `flow query` counts as many frames as
# testpmd printed marked, 60 bytes each; after the destroy, no packet is
# marked. Then an IPv6 session, the sources sending IPv6/UDP (ip=6:
# 2001:db8::<flow> -> 2001:db8:1::1, 78 bytes): a rule on
# `ipv6 src is 2001:db8::5 / udp` to queue 1 with MARK 43 and COUNT, and
# the same checks (marks on port 0's queue 1 only, counted, 78 bytes each).
# Then a session, its source sending for 10 s: `flow isolate 0 1`
# is refused on the started port with a reason, taken on the stopped one,
# and with the rule again port 0 receives flow 5 alone, every packet
# marked, while port 1 still gets every flow.
#
# Usage: net_dvp_flow.sh PLUGIN WORKDIR MEM
#   MEM  huge | no-huge (as net_dvp_testpmd.sh)
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
set -u
plugin=$1
work=$2
mem=$3
count=${DVP_NET_DVP_COUNT:-3000}

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
# shellcheck source=net_dvp_testpmd_lib.sh
. "$(dirname "$0")/net_dvp_testpmd_lib.sh"

tp_case net_dvp_flow ndvpflow
fifo=$dir/cmd
out=$dir/testpmd.log

sim="sim_mlx5,ports=2,cable=traffic,count=$count,rate=2000,flows=64"

# @1 log: the marked packets (ID @2) on port 0's queue 1 alone, some of
# them, and `flow query` of rule 0 counting them at @3 bytes each (and any
# the source sent since the stop, waiting in the queue). A packet's header
# line in the log reads "port P/queue Q: received N packets".
marks_check() {
	local log=$1 id=$2 size=$3 bad wrongq
	bad=$(awk '/port [0-9]+\/queue [0-9]+: received/ { pq = $2 }
		/FDIR matched/ && pq != "0/queue" { n++ } END { print n + 0 }' "$log")
	[ "$bad" = 0 ] || fail "$bad marked packets on a port other than 0 ($log)"
	wrongq=$(awk '/port [0-9]+\/queue [0-9]+: received/ { q = $3 }
		/FDIR matched/ && q != "1:" { n++ } END { print n + 0 }' "$log")
	[ "$wrongq" = 0 ] || fail "$wrongq marked packets on a queue other than 1 ($log)"
	marked=$(grep -c "FDIR matched ID=$id" "$log")
	cmd "flow query 0 0 count"
	wait_for 1 'hits: ' 20 || fail "flow query gave no counts ($log)"
	hits=$(sed -n 's/^ *hits: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	bytes=$(sed -n 's/^ *bytes: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	[ "${hits:-0}" -ge "$marked" ] || fail "flow query: $hits hits, testpmd received $marked marked packets ($log)"
	[ "${bytes:-0}" = "$((hits * size))" ] || fail "flow query: $bytes bytes for $hits frames of $size ($log)"
}

# shellcheck disable=SC2086
tp_start "$out" "$fifo" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	-d "$ndvp_plugin" --vdev "net_dvp0,$sim" -- -i --rxq=2 --txq=2 --forward-mode=rxonly

wait_for 1 'testpmd> ' 60 || fail "testpmd did not start"
rule="ingress pattern eth / ipv4 src is 198.18.0.5 / udp / end actions queue index 1 / mark id 42 / count / end"
cmd "flow validate 0 $rule"
wait_for 1 'Flow rule validated' 20 || fail "flow validate did not pass"
cmd "flow validate 0 ingress pattern eth / ipv4 / end actions rss types ipv6 end queues 0 1 end / end"
wait_for 1 'Caught PMD error type' 20 || fail "RSS on IPv6 for an IPv4 pattern was not refused"
grep -q "without a type of the rule's IP version" "$out" || fail "the RSS refusal does not say why"
cmd "flow create 0 $rule"
wait_for 1 'Flow rule #0 created' 20 || fail "flow create did not pass"
cmd "flow list 0"
wait_for 1 'ETH IPV4 UDP => QUEUE MARK COUNT' 20 || fail "flow list does not show the rule"
cmd "set verbose 1"
cmd "start"
# Flow 5 is one frame in 64 of port 0's source: wait for a few of them.
wait_for 5 'FDIR matched ID=0x2a' 60 || fail "no packet arrived marked 42"
cmd "stop"
wait_for 1 'Accumulated forward statistics' 20 || fail "testpmd did not stop"
marks_check "$out" 0x2a 60
cmd "flow destroy 0 rule 0"
wait_for 1 'Flow rule #0 destroyed' 20 || fail "flow destroy did not pass"
cmd "start"
sleep 2
cmd "stop"
wait_for 2 'Accumulated forward statistics' 20 || fail "testpmd did not stop again"
[ "$(grep -c 'FDIR matched' "$out")" = "$marked" ] || fail "packets still marked after the destroy"
tp_quit
marked4=$marked hits4=$hits bytes4=$bytes

out=$dir/testpmd-ipv6.log
# shellcheck disable=SC2086
tp_start "$out" "$fifo" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	-d "$ndvp_plugin" --vdev "net_dvp0,$sim,ip=6" -- -i --rxq=2 --txq=2 --forward-mode=rxonly
wait_for 1 'testpmd> ' 60 || fail "testpmd did not start for IPv6"
rule6="ingress pattern eth / ipv6 src is 2001:db8::5 / udp / end actions queue index 1 / mark id 43 / count / end"
cmd "flow create 0 $rule6"
wait_for 1 'Flow rule #0 created' 20 || fail "flow create of an IPv6 rule did not pass"
cmd "flow list 0"
wait_for 1 'ETH IPV6 UDP => QUEUE MARK COUNT' 20 || fail "flow list does not show the IPv6 rule"
cmd "set verbose 1"
cmd "start"
wait_for 5 'FDIR matched ID=0x2b' 60 || fail "no IPv6 packet arrived marked 43"
cmd "stop"
wait_for 1 'Accumulated forward statistics' 20 || fail "testpmd did not stop (IPv6)"
grep -q 'type=0x86dd\|L3_IPV6' "$out" || fail "testpmd printed no IPv6 packet"
marks_check "$out" 0x2b 78
marked6=$marked hits6=$hits
tp_quit

out=$dir/testpmd-isolate.log
# shellcheck disable=SC2086
tp_start "$out" "$fifo" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	-d "$ndvp_plugin" --vdev "net_dvp0,${sim/count=$count/count=20000}" -- -i --rxq=2 --txq=2 \
	--forward-mode=rxonly
wait_for 1 'testpmd> ' 60 || fail "testpmd did not start again"
cmd "set verbose 1"
cmd "flow isolate 0 1"
wait_for 1 'Caught PMD error type' 20 || fail "flow isolate on a started port was not refused"
grep -q 'the port is started; stop it' "$out" || fail "the refusal of isolate does not say why"
cmd "port stop 0"
cmd "flow isolate 0 1"
wait_for 1 'port 0 is now restricted' 20 || fail "flow isolate 0 1 did not take"
cmd "flow create 0 $rule"
wait_for 1 'Flow rule #0 created' 20 || fail "flow create in isolated mode did not pass"
cmd "port start 0"
cmd "start"
wait_for 5 'FDIR matched ID=0x2a' 60 || fail "no marked packet in isolated mode"
cmd "stop"
wait_for 1 'Accumulated forward statistics' 20 || fail "testpmd did not stop in isolated mode"
# From the isolate on: port 0's packets all marked, and port 1 still receiving.
set -- $(awk '/port 0 is now restricted/ { on = 1 }
	on && /port [0-9]+\/queue [0-9]+: received/ { p = $2 }
	on && / src=/ { if (p == "0/queue") { n0++; if ($0 !~ /FDIR matched/) u++ } else n1++ }
	END { print n0 + 0, u + 0, n1 + 0 }' "$out")
[ "$1" -gt 0 ] && [ "$2" = 0 ] || fail "isolated port 0 received $1 packets, $2 of them not the rule's"
[ "$3" -gt 0 ] || fail "port 1 (not isolated) received nothing meanwhile"
tp_quit
echo "PASS: $marked4 packets marked 42 on port 0 queue 1, counted $hits4 ($bytes4 bytes); rule validated, created, listed, queried, destroyed; IPv6: $marked6 packets marked 43 on port 0 queue 1, counted $hits6; isolated: $1 packets on port 0, all the rule's, $3 on port 1"
