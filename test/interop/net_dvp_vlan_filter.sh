#!/bin/bash
# The VLAN filter through net_dvp in Debian's dpdk-testpmd, on the
# simulated HCA: one port whose source sends COUNT 802.1Q-tagged frames,
# VLANs 100 and 200 in turn (vlan=[...]); testpmd in rxonly mode with
# `set verbose 1`, its port left stopped at start (--disable-device-start)
# so that `vlan set filter on 0` and `rx_vlan add 100 0` come first (and
# `vlan set strip on 0`, so that testpmd prints each frame's TCI), and
# `set promisc 0 off`: promiscuous mode, testpmd's default, takes every
# frame whatever the filter, as on DPDK's mlx5.
#
# Usage: net_dvp_vlan_filter.sh PLUGIN WORKDIR MEM
#   MEM  huge | no-huge (as net_dvp_testpmd.sh)
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# Pass: `show port info 0` says the filter is on; testpmd printed the
# COUNT/2 frames of VLAN 100, each with its TCI, and none of VLAN 200;
# `rx_vlan rm 100 0` and `rx_vlan add 4096 0` answered as DPDK's ethdev
# does; net_dvp gave every buffer back at close (testpmd quits cleanly).
set -u
plugin=$1
work=$2
mem=$3
count=${DVP_NET_DVP_COUNT:-64}

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
# shellcheck source=net_dvp_testpmd_lib.sh
. "$(dirname "$0")/net_dvp_testpmd_lib.sh"

tp_case net_dvp_vlan_filter ndvpvf
out=$dir/testpmd.log

# shellcheck disable=SC2086
tp_start "$out" "$dir/cmd" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	-d "$ndvp_plugin" \
	--vdev "net_dvp0,sim_mlx5,ports=1,cable=traffic,count=$count,vlan=[0x64,0xc8]" \
	-- -i --forward-mode=rxonly --disable-device-start
wait_for 1 'testpmd> ' 60 || fail "testpmd did not start"
cmd "vlan set filter on 0"
cmd "rx_vlan add 100 0"
cmd "vlan set strip on 0"
# testpmd turns promiscuous mode on, which takes every frame (as on DPDK's mlx5).
cmd "set promisc 0 off"
cmd "show port info 0"
wait_for 1 ', filter on,' 20 ||
	fail "vlan set filter on 0 did not take: $(grep -E 'net_dvp|mlx5|VLAN' "$out" | tail -n 3 | tr '\n' '|')"
cmd "set verbose 1"
cmd "port start all"
cmd "start"
# One "src=" line a frame: VLAN 100's half.
wait_for $((count / 2)) ' src=' 60 ||
	fail "testpmd printed $(grep -c ' src=' "$out") frames of VLAN 100's $((count / 2))"
# The source has sent all: any frame of VLAN 200 let through would be printed by now.
sleep 1
cmd "stop"
# Out of range: ethdev's refusal; a removal the port takes.
cmd "rx_vlan add 4096 0"
cmd "rx_vlan rm 100 0"
cmd "show port info 0"
wait_for 2 ', filter on,' 20 || fail "show port info 0 gave no VLAN filter state"
tp_quit

read -r n v100 v200 < <(awk -f - "$out" <<'EOF'
/ src=/ {
	n++
	if (index($0, "VLAN tci=0x64 ")) a++
	if (index($0, "VLAN tci=0xc8 ")) b++
}
END { print n + 0, a + 0, b + 0 }
EOF
)
echo "port 0 (filter on, VLAN 100): $n frames printed, $v100 of VLAN 100, $v200 of VLAN 200"
[ "$n" = $((count / 2)) ] && [ "$v100" = "$n" ] && [ "$v200" = 0 ] ||
	fail "the filter let through other than VLAN 100's $((count / 2)) frames"
grep -q 'rx_vlan_filter(port_pi=0, vlan_id=100, on=0) failed' "$out" &&
	fail "rx_vlan rm 100 0 was refused"
echo "PASS"
