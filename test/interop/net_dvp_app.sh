#!/bin/bash
# Run net_dvp_app (our DPDK application over net_dvp) on the simulated HCA.
# Usage: net_dvp_app.sh APP PLUGIN WORKDIR CASE MEM
#   CASE  zero-copy | tx-send | port-numbers | rx-intr | many-chunks | monitor
#         | monitor-port-numbers | tso (APP: net_dvp_tso)
#   MEM   huge (DPDK's defaults on hugepages: IOVA PA as root) | no-huge
# Exit 0 pass, 1 fail, 77 skipped.
set -u
app=$1
plugin=$2
work=$3
case_=$4
mem=$5
skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: DPDK needs root"
# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
prefix=ndvpapp$$
first=
trap ndvp_cleanup EXIT
trap 'exit 130' INT TERM
ndvp_plugin_copy "$plugin" "$work"
ndvp_mem "$mem" 256
ndvp_dpdk_prefix "$prefix"
case $case_ in
zero-copy)
	sim="sim_mlx5,ports=1,cable=traffic,count=4000"
	extra= ;;
tx-send)
	# No eMPW on the sim: mlx5's SEND burst, which stops where it cannot
	# send as it is, as the eMPW one does.
	sim="sim_mlx5,ports=1,cable=traffic,count=4000,empw=off"
	extra= ;;
port-numbers)
	# DPDK's net_null, probed first, takes ethdev port 0: dvp port 0 is ethdev port 1.
	sim="sim_mlx5,ports=1,cable=traffic,count=4000"
	first="--vdev net_null0"
	extra="--port 1" ;;
rx-intr)
	# Bursts of 200 frames every 100 ms: the lcore sleeps between them.
	sim="sim_mlx5,ports=1,cable=traffic,rate=20000,pattern=[on:10ms,off:90ms],count=4000"
	extra=--intr ;;
many-chunks)
	# Rx into, and tx from, a pool of 1500 memory chunks apart.
	sim="sim_mlx5,ports=1,cable=traffic,count=4000"
	extra="--chunks 1500" ;;
monitor)
	# Bursts of 200 frames every 100 ms: the lcore sleeps on the monitor between them.
	sim="sim_mlx5,ports=1,cable=traffic,rate=20000,pattern=[on:10ms,off:90ms],count=4000"
	extra=--monitor ;;
monitor-port-numbers)
	# The same with ethdev and dvp port numbers apart: DPDK gives the op net_dvp's rx queue.
	sim="sim_mlx5,ports=1,cable=traffic,rate=20000,pattern=[on:10ms,off:90ms],count=4000"
	first="--vdev net_null0"
	extra="--monitor --port 1" ;;
tso)
	# Port 0's TSO segments straight into port 1.
	sim="sim_mlx5,ports=2,cable=loop"
	extra= ;;
*) echo "net_dvp_app.sh: unknown case '$case_'; valid: zero-copy, tx-send, port-numbers, rx-intr, many-chunks, monitor, monitor-port-numbers, tso" >&2; exit 2 ;;
esac
# Not exec: the EXIT trap removes the plugin's copy and DPDK's files.
# shellcheck disable=SC2086
timeout -k 5 100 "$app" -l 0 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	-d "$ndvp_plugin" $first --vdev "net_dvp0,$sim" -- $extra
