#!/bin/sh
# The mlx5 PMD's rx_burst and tx_burst at a burst of 32 (doc/perf.md):
# instructions per packet from callgrind (repeatable), cycles per packet
# from the TSC (best of five runs). Usage: bench_mlx5_burst.sh <bench_mlx5_burst>
set -eu
exe=$1
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind is not installed (usertools/install-deps): no instruction counts"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in rx tx txff; do
	native=$("$exe" "$mode" 200)
	valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/cg.$mode" \
		"$exe" "$mode" 20 >"$tmp/out.$mode" 2>"$tmp/err.$mode" ||
		{ cat "$tmp/err.$mode"; exit 1; }
	pk=$(sed -n 's/^packets=\([0-9]*\).*/\1/p' "$tmp/out.$mode")
	ir=$(sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$tmp/cg.$mode" | tail -1)
	cyc=$(echo "$native" | sed -n 's/.*cycles_x1000=\([0-9]*\).*/\1/p')
	name=${mode}_burst
	[ "$mode" = txff ] && name=tx_burst_fast_free
	awk -v m="$name" -v ir="$ir" -v pk="$pk" -v c="$cyc" 'BEGIN {
		printf "PERF %s instr_per_pkt=%.1f cycles_per_pkt=%.1f\n", m, ir / pk, c / 1000 }'
done
