#!/bin/bash
# dvp's memif inside Debian's dpdk-testpmd through net_dvp, against dvp's
# memif in a native program: memif_peer (server) sends COUNT numbered
# frames; testpmd (client, --vdev net_dvp0,net_memif0,...) io-forwards
# them back on the same port; memif_peer checks every one came back, in
# order, and that its mbufs are all back.
#
# Usage: net_dvp_memif.sh MEMIF_PEER PLUGIN WORKDIR MEM
#   MEM  huge: both sides on hugepages, testpmd with DPDK's defaults (IOVA
#        PA as root, its default pool); no-huge: both with --no-huge
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
set -u
peer=$1
plugin=$2
mem=$4
work=$3/net_dvp_memif.$mem
count=${DVP_NET_DVP_COUNT:-10000}

skip() {
	echo "SKIP: $*"
	exit 77
}
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk-dev)"
[ "$(id -u)" = 0 ] || skip "not root: DPDK's testpmd needs root"
# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
prefix=ndvpm$$
tp_pid=
peer_pid=
cleanup() {
	[ -n "$peer_pid" ] && kill "$peer_pid" 2>/dev/null && wait "$peer_pid" 2>/dev/null
	if [ -n "$tp_pid" ]; then
		kill -INT "$tp_pid" 2>/dev/null
		wait "$tp_pid" 2>/dev/null
	fi
	ndvp_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM
rm -rf "$work"
mkdir -p "$work" || exit 1
ndvp_plugin_copy "$plugin" "$work"
# testpmd's default pool (about 400 MB) and memif_peer's 128 MB.
ndvp_mem "$mem" 1024
tp_mem=$ndvp_eal_mem
peer_mem="-m 128"
[ "$mem" = no-huge ] && peer_mem="--no-huge -m 128"
ndvp_dpdk_prefix "$prefix"
ndvp_dpdk_prefix "${prefix}p"
sock=$work/memif.sock

# shellcheck disable=SC2086
"$peer" $peer_mem -l 0 --file-prefix "${prefix}p" --vdev "net_memif0,role=server,socket=$sock,socket-abstract=no" \
	-- seq --count "$count" --timeout 120 >"$work/peer.log" 2>&1 &
peer_pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.1; done
[ -S "$sock" ] || { cat "$work/peer.log"; echo "FAIL: memif_peer made no socket"; exit 1; }

# One port: testpmd pairs it with itself, so io forwarding sends back what came
# in; --no-flush-rx keeps what the peer sent before forwarding started.
# shellcheck disable=SC2086
dpdk-testpmd -l 0-1 $tp_mem --no-pci --file-prefix "$prefix" \
	-d "$ndvp_plugin" --vdev "net_dvp0,net_memif0,role=client,socket=$sock,socket-abstract=no" \
	-- --forward-mode=io --no-flush-rx --stats-period 1 </dev/null >"$work/testpmd.log" 2>&1 &
tp_pid=$!

wait "$peer_pid"
rc=$?
peer_pid=
kill -INT "$tp_pid" 2>/dev/null
wait "$tp_pid"
tp_rc=$?
tp_pid=
grep -a "RESULT" "$work/peer.log"
if [ $rc != 0 ]; then
	echo "---- memif_peer:"
	tail -n 20 "$work/peer.log"
	echo "---- testpmd:"
	grep -av '^ *$' "$work/testpmd.log" | grep -v "Port statistics\|^  " | tail -n 20
	echo "FAIL: memif_peer's seq exchange through testpmd over net_dvp(memif) failed (status $rc)"
	exit 1
fi
[ $tp_rc = 0 ] || { echo "FAIL: testpmd exited with status $tp_rc"; exit 1; }
grep -q "still held by the application" "$work/testpmd.log" && { echo "FAIL: net_dvp buffers still held"; exit 1; }
echo "PASS: $count numbered frames went through testpmd ($mem) over dvp's memif (net_dvp) and came back in order"
