#!/bin/sh
# A forwarded packet end to end natively (doc/perf.md): dvp-fwd's io
# forwarding pass between two ports of a stepped sim_mlx5, the device's
# steps excluded. Instructions per packet from callgrind (repeatable),
# cycles per packet from the TSC (best of five runs), each less what the
# measuring harness alone costs (its "cal" run).
# Usage: bench_fwd_e2e.sh <bench_fwd_e2e>
set -eu
exe=$1
frames=${DVP_BENCH_COUNT:-32768}
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind is not installed (usertools/install-deps): no instruction counts"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in cal fwd; do
	"$exe" "$mode" "$frames" >"$tmp/native.$mode"
	valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/cg.$mode" \
		"$exe" "$mode" "$frames" >"$tmp/out.$mode" 2>"$tmp/err.$mode" ||
		{ cat "$tmp/err.$mode"; exit 1; }
	pk=$(sed -n 's/^packets=\([0-9]*\).*/\1/p' "$tmp/out.$mode")
	ir=$(sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$tmp/cg.$mode" | tail -1)
	cyc=$(sed -n 's/.*cycles_x1000=\([0-9]*\).*/\1/p' "$tmp/native.$mode")
	if [ "$mode" = cal ]; then
		cal_ir=$(awk -v ir="$ir" -v pk="$pk" 'BEGIN { print ir / pk }')
		cal_cyc=$cyc
		echo "harness alone: $cal_ir instructions, $(awk -v c="$cal_cyc" 'BEGIN { print c / 1000 }') cycles per packet (subtracted)"
		continue
	fi
	awk -v ir="$ir" -v pk="$pk" -v c="$cyc" -v ci="$cal_ir" -v cc="$cal_cyc" 'BEGIN {
		printf "PERF fwd_e2e_native instr_per_pkt=%.1f cycles_per_pkt=%.1f target_cycles=18 pkts=%d\n", ir / pk - ci, (c - cc) / 1000, pk }'
done
