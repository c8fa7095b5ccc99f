#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# DPDK's l3fwd-power in --interrupt-only mode (Debian's DPDK 22.11, the
# example built from dpdk-doc, unmodified) on two AF_XDP ports through
# net_dvp: --vdev net_dvp0,net_af_xdp0,iface=<S>b and net_dvp1 on <S>c, the
# two inner ends of veth pairs in namespaces made here. DPDK's own
# net_af_xdp has no rx interrupts; through net_dvp the lcore sleeps on the
# AF_XDP sockets.
#
#   <S>s:<S>a ==veth== <S>b  l3fwd-power (ns <S>f)  <S>c ==veth== <S>e:<S>d
#
# Usage: net_dvp_l3fwd_power_af_xdp.sh WORKDIR PLUGIN AF_XDP_PEER MEM
#   WORKDIR      where the example is copied and built and the logs kept
#   PLUGIN       build/drivers/dpdk/net_dvp/librte_net_dvp.so (loaded from a
#                private copy: net_dvp_lib.sh)
#   AF_XDP_PEER  build/test/af_xdp/af_xdp_peer
#   MEM          huge (DPDK's defaults on hugepages: IOVA PA as root, so
#                l3fwd-power's pool is in many chunks and net_af_xdp copies
#                through an own UMEM) | no-huge (one chunk: the pool is the
#                UMEM, frames land in l3fwd-power's mbufs)
# Environment: DVP_L3FWD_COUNT (UDP datagrams each way, 3000),
#   DVP_L3FWD_EXAMPLE (the example's directory).
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# Traffic: UDP from the kernel's stack on each side, in small bursts (100
# datagrams every 200 ms, well inside l3fwd-power's rx rings of 1024 even
# when a loaded machine keeps its lcore off a CPU for a while): from <S>s to 2.1.1.1, which l3fwd-power's compiled-in LPM table
# routes to port 1 (so out of <S>c to <S>e), and from <S>d to 1.1.1.1,
# routed to port 0. af_xdp_peer checks every datagram where it arrives
# (payload and length: l3fwd-power rewrites MACs, TTL and IP checksum only).
# l3fwd-power runs with --parse-ptype: net_af_xdp gives no packet types.
#
# What it asserts, as net_dvp_l3fwd_power.sh does on the sim:
#  (a) l3fwd-power's log shows its lcore sleeping on the rx interrupts and
#      woken by each port's; net_dvp's xstats count arms and events;
#  (b) over an idle stretch of about 5 s, l3fwd-power used under 2 % of a
#      core (utime + stime; run time from schedstat) and no rx interrupt
#      woke it;
#  (c) every datagram arrived whole each way, and the ports' counters say
#      the same: each received and sent COUNT, imissed, ierrors, oerrors
#      and rx_nombuf 0 (DPDK's telemetry socket); SIGINT, exit 0, every
#      buffer back at close.
set -u
work=${1:?usage: net_dvp_l3fwd_power_af_xdp.sh WORKDIR PLUGIN AF_XDP_PEER MEM}
plugin=${2:?usage: net_dvp_l3fwd_power_af_xdp.sh WORKDIR PLUGIN AF_XDP_PEER MEM}
peer=${3:?usage: net_dvp_l3fwd_power_af_xdp.sh WORKDIR PLUGIN AF_XDP_PEER MEM}
mem=${4:?usage: net_dvp_l3fwd_power_af_xdp.sh WORKDIR PLUGIN AF_XDP_PEER MEM}
count=${DVP_L3FWD_COUNT:-3000}
# shellcheck disable=SC2034 # l3fwd_power_lib.sh reads it
example=${DVP_L3FWD_EXAMPLE:-/usr/share/dpdk/examples/l3fwd-power}
lcore=0

skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: l3fwd-power, namespaces and XDP programs need root"
command -v ip >/dev/null || skip "no ip command (iproute2)"
"$peer" --check-xdp || skip "this kernel has no AF_XDP sockets (CONFIG_XDP_SOCKETS)"
# shellcheck source=l3fwd_power_lib.sh
. "$(dirname "$0")/l3fwd_power_lib.sh"
l3fwdp_build

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"

S=lx$$
NS_S=${S}s NS_F=${S}f NS_D=${S}d
A=${S}a B=${S}b C=${S}c E=${S}e
sock=/var/run/dpdk/$S/dpdk_telemetry.v2
log=$work/l3fwd-power-af_xdp.$mem.log
stats=$work/stats-af_xdp.$mem.txt
tele_err=$work/tele-af_xdp.$mem.err
pid= p1= p2=

cleanup() {
	local p n
	for p in $p1 $p2; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill -INT "$pid" 2>/dev/null
		for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	fi
	for n in $NS_S $NS_F $NS_D; do
		ip netns del "$n" 2>/dev/null
	done
	ndvp_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM
ndvp_plugin_copy "$plugin" "$work"
ndvp_mem "$mem" 512
ndvp_dpdk_prefix "$S"

fail() {
	echo "FAIL: $*"
	echo "---- the end of l3fwd-power's output ($log):"
	grep -v -e 'sleeps until interrupt' -e 'is waked up from rx interrupt' "$log" | tail -n 30
	for f in "$work"/peer-af_xdp-*.out; do
		[ -s "$f" ] && echo "---- $f: $(cat "$f")"
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
for x in "$NS_S $A" "$NS_F $B" "$NS_F $C" "$NS_D $E"; do
	set -- $x
	ip -n "$1" link set "$2" up
done
# Each side reaches the far one's l3fwd-power route through its veth.
ip -n "$NS_S" addr add 198.18.0.1/24 dev "$A"
ip -n "$NS_S" route add 2.1.1.0/24 dev "$A"
ip -n "$NS_S" neigh add 2.1.1.1 lladdr 02:00:00:00:00:02 dev "$A" nud permanent
ip -n "$NS_D" addr add 198.19.0.1/24 dev "$E"
ip -n "$NS_D" route add 1.1.1.0/24 dev "$E"
ip -n "$NS_D" neigh add 1.1.1.1 lladdr 02:00:00:00:00:02 dev "$E" nud permanent

: >"$log"
rm -f "$stats"
ip netns exec "$NS_F" stdbuf -oL "$app" -l "$lcore" $ndvp_eal_mem --no-pci --file-prefix "$S" \
	--log-level="pmd.net.dvp*:info" -d "$ndvp_plugin" \
	--vdev "net_dvp0,net_af_xdp0,iface=$B" --vdev "net_dvp1,net_af_xdp1,iface=$C" \
	-- -p 0x3 --config="(0,0,$lcore),(1,0,$lcore)" --interrupt-only --parse-ptype \
	</dev/null >"$log" 2>&1 &
pid=$!
echo "l3fwd-power (pid $pid) on net_af_xdp through net_dvp ($mem); log $log"
l3fwdp_wait_loop

# Both ways at once, each in bursts.
"$peer" --tx "$NS_S:$A" --rx "$NS_D:$E" --udp 198.18.0.1,2.1.1.1 --flows 8 --count "$count" \
	--rate 10000 --on 10 --off 190 --settle 3000 >"$work/peer-af_xdp-01.out" 2>&1 &
p1=$!
"$peer" --tx "$NS_D:$E" --rx "$NS_S:$A" --udp 198.19.0.1,1.1.1.1 --flows 8 --count "$count" \
	--rate 10000 --on 10 --off 190 --settle 3000 >"$work/peer-af_xdp-10.out" 2>&1 &
p2=$!
wait "$p1"
r1=$?
wait "$p2"
r2=$?
p1= p2=
# The ports' counters now, so that a loss says where it happened.
tele_all || fail "no answer on DPDK's telemetry socket: $(cat "$tele_err")"
if [ $r1 != 0 ] || [ $r2 != 0 ]; then
	echo "---- the ports' counters that are not zero:"
	awk '$3 != 0' "$stats"
	[ $r1 = 0 ] || fail "port 0 -> 1: $(cat "$work/peer-af_xdp-01.out")"
	fail "port 1 -> 0: $(cat "$work/peer-af_xdp-10.out")"
fi

# The idle stretch.
l3fwdp_idle_stretch

tele_all || fail "no answer on DPDK's telemetry socket: $(cat "$tele_err")"
l3fwdp_stop

bad=
l3fwdp_check_sleeps
for p in 0 1; do
	for x in stats_imissed stats_ierrors stats_oerrors stats_rx_nombuf; do
		v=$(val $x $p)
		[ "$v" = 0 ] || bad="$bad port $p $x=$v;"
	done
	for x in stats_ipackets stats_opackets; do
		v=$(val $x $p)
		[ "$v" = "$count" ] || bad="$bad port $p $x=$v, not $count;"
	done
done
[ "$wake_idle" = 0 ] || bad="$bad $wake_idle rx interrupt wake-ups with no traffic;"
awk -v c="$cpu_app" 'BEGIN { exit !(c < 2) }' || bad="$bad l3fwd-power used $cpu_app% of a core while idle;"
awk -v c="$ns_app" 'BEGIN { exit !(c < 2) }' || bad="$bad l3fwd-power ran $ns_app% of the idle stretch (schedstat);"
[ $rc = 0 ] || bad="$bad l3fwd-power exited with status $rc;"
grep -q "still held by the application" "$log" && bad="$bad net_dvp buffers still held at close;"

echo "0 -> 1: $(cat "$work/peer-af_xdp-01.out")"
echo "1 -> 0: $(cat "$work/peer-af_xdp-10.out")"
echo "lcore $lcore: $sleeps sleeps logged, woken by port 0 $w0 times, port 1 $w1 times, $wake_idle while idle; idle ${cpu_app}% of a core (schedstat ${ns_app}%)"
[ -z "$bad" ] || fail "${bad# }"
umem=$(grep -o '[a-z]* UMEM' "$log" | sort -u | tr '\n' ' ')
echo "PASS: l3fwd-power --interrupt-only on net_af_xdp through net_dvp ($mem; ${umem% }): 2 x $count datagrams forwarded, 0 lost; slept on AF_XDP rx interrupts"
exit 0
