#!/bin/bash
# VLAN stripping and rx timestamps through net_dvp in Debian's dpdk-testpmd,
# on the simulated HCA: two ports whose sources send COUNT 802.1Q-tagged
# frames each (vlan=), testpmd in rxonly mode with `set verbose 1` and
# --enable-rx-timestamp, its ports left stopped at start
# (--disable-device-start) so that `vlan set strip on 0` comes first.
#
# Usage: net_dvp_rx_offload.sh PLUGIN WORKDIR MEM
#   MEM  huge | no-huge (as net_dvp_testpmd.sh)
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# Pass: testpmd printed every frame of both ports; port 0's (stripping)
# as IPv4 with "VLAN tci=" the sources' TCI, port 1's (not stripping) with
# the tag still in the frame (type 0x8100) and no TCI; every frame with a
# timestamp, never decreasing on a port, and net_dvp gave every buffer back
# at close (testpmd quits cleanly).
set -u
plugin=$1
work=$2
mem=$3
count=${DVP_NET_DVP_COUNT:-64}
tci=0x6064

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
# shellcheck source=net_dvp_testpmd_lib.sh
. "$(dirname "$0")/net_dvp_testpmd_lib.sh"

tp_case net_dvp_rx_offload ndvprxo
out=$dir/testpmd.log

# shellcheck disable=SC2086
tp_start "$out" "$dir/cmd" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	-d "$ndvp_plugin" \
	--vdev "net_dvp0,sim_mlx5,ports=2,cable=traffic,count=$count,vlan=$tci" \
	-- -i --forward-mode=rxonly --enable-rx-timestamp --disable-device-start
wait_for 1 'testpmd> ' 60 || fail "testpmd did not start"
cmd "show port info 0"
wait_for 1 '  strip off' 20 || fail "show port info gave no VLAN strip state"
cmd "vlan set strip on 0"
cmd "show port info 0"
wait_for 1 '  strip on' 20 || fail "vlan set strip on 0 did not take: $(grep -E 'net_dvp|mlx5' "$out" | tail -n 3 | tr '\n' '|')"
cmd "set verbose 1"
cmd "port start all"
cmd "start"
# One "src=" line a frame.
wait_for $((2 * count)) ' src=' 60 ||
	fail "testpmd printed $(grep -c ' src=' "$out") frames of $((2 * count))"
cmd "stop"
tp_quit

# Per port: frames, those with the TCI (and IPv4 after it), those still tagged, timestamps in order.
read -r n0 tci0 tagged0 ts0 bad0 < <(awk -v port=0 -v tci="$tci" -f - "$out" <<'EOF'
/received [0-9]+ packets/ { split($2, a, "/"); p = a[1] + 0 }
/ src=/ && p == port {
	n++
	if (index($0, "VLAN tci=" tci " ") && index($0, "type=0x0800")) v++
	if (index($0, "type=0x8100")) t++
	if (match($0, /timestamp [0-9]+/)) {
		s = substr($0, RSTART + 10, RLENGTH - 10) + 0
		ts++
		if (s < last) bad++
		last = s
	}
}
END { print n + 0, v + 0, t + 0, ts + 0, bad + 0 }
EOF
)
read -r n1 tci1 tagged1 ts1 bad1 < <(awk -v port=1 -v tci="$tci" -f - "$out" <<'EOF'
/received [0-9]+ packets/ { split($2, a, "/"); p = a[1] + 0 }
/ src=/ && p == port {
	n++
	if (index($0, "VLAN tci=")) v++
	if (index($0, "type=0x8100")) t++
	if (match($0, /timestamp [0-9]+/)) {
		s = substr($0, RSTART + 10, RLENGTH - 10) + 0
		ts++
		if (s < last) bad++
		last = s
	}
}
END { print n + 0, v + 0, t + 0, ts + 0, bad + 0 }
EOF
)
echo "port 0 (strip on): $n0 frames, $tci0 stripped with TCI $tci, $tagged0 still tagged, $ts0 timestamps ($bad0 out of order)"
echo "port 1 (strip off): $n1 frames, $tci1 with a TCI, $tagged1 still tagged, $ts1 timestamps ($bad1 out of order)"
[ "$n0" = "$count" ] && [ "$tci0" = "$count" ] && [ "$tagged0" = 0 ] ||
	fail "port 0 did not strip every tag into vlan_tci"
[ "$n1" = "$count" ] && [ "$tci1" = 0 ] && [ "$tagged1" = "$count" ] ||
	fail "port 1 changed its frames without stripping"
[ "$ts0" = "$count" ] && [ "$ts1" = "$count" ] && [ "$bad0" = 0 ] && [ "$bad1" = 0 ] ||
	fail "frames without a timestamp, or timestamps out of order"
echo "PASS"
