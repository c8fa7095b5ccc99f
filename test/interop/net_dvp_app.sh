#!/bin/bash
# Run net_dvp_app (our DPDK application over net_dvp) on the simulated HCA.
# Usage: net_dvp_app.sh APP PLUGIN WORKDIR zero-copy|tx-send|port-numbers|rx-intr
# Exit 0 pass, 1 fail, 77 skipped.
set -u
app=$1
plugin=$2
work=$3
case_=$4
[ "$(id -u)" = 0 ] || { echo "SKIP: not root: DPDK needs root"; exit 77; }
# DPDK loads no plugin from under a world-writable directory (/tmp).
dir=$work/net_dvp_app.$case_
rm -rf "$dir"
mkdir -p "$dir"
chmod 755 "$dir"
cp "$plugin" "$dir/"
prefix=ndvpapp$$
first=
trap 'rm -rf "/var/run/dpdk/$prefix"' EXIT
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
*) echo "net_dvp_app.sh: unknown case '$case_'; valid: zero-copy, tx-send, port-numbers, rx-intr" >&2; exit 2 ;;
esac
# shellcheck disable=SC2086
exec timeout -k 5 100 "$app" -l 0 --no-huge -m 256 --no-pci --file-prefix "$prefix" \
	-d "$dir/$(basename "$plugin")" $first --vdev "net_dvp0,$sim" -- $extra
