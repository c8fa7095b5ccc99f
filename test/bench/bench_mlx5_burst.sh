#!/bin/sh
# The mlx5 PMD's rx_burst and tx_burst at a burst of 32 (doc/perf.md):
# instructions per packet from callgrind (repeatable), cycles per packet
# from the TSC (best of five runs), each less what the measuring harness
# alone costs (its "cal" run); CQE and WQE bytes per packet from the
# simulated device's bus counters. Usage: bench_mlx5_burst.sh <bench_mlx5_burst>
set -eu
exe=$1
if ! command -v valgrind >/dev/null 2>&1; then
	echo "valgrind is not installed (usertools/install-deps): no instruction counts"
	exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for mode in cal rx rxh rxvec rxcomp rxveccomp rxmprq tx txff txinl txinlsse txsend; do
	"$exe" "$mode" 200 >"$tmp/native.$mode"
	valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$tmp/cg.$mode" \
		"$exe" "$mode" 20 >"$tmp/out.$mode" 2>"$tmp/err.$mode" ||
		{ cat "$tmp/err.$mode"; exit 1; }
	pk=$(sed -n 's/^packets=\([0-9]*\).*/\1/p' "$tmp/out.$mode")
	ir=$(sed -n 's/^\(summary\|totals\): *\([0-9]*\).*/\2/p' "$tmp/cg.$mode" | tail -1)
	cyc=$(sed -n 's/.*cycles_x1000=\([0-9]*\).*/\1/p' "$tmp/native.$mode")
	bus=$(sed -n 's/.*bus_bytes_x1000=\([0-9]*\).*/\1/p' "$tmp/native.$mode")
	cqe=$(sed -n 's/.*cqe_bytes_x1000=\([0-9]*\).*/\1/p' "$tmp/native.$mode")
	if [ "$mode" = cal ]; then
		cal_ir=$(awk -v ir="$ir" -v pk="$pk" 'BEGIN { print ir / pk }')
		cal_cyc=$cyc
		echo "harness alone: $cal_ir instructions, $(awk -v c="$cal_cyc" 'BEGIN { print c / 1000 }') cycles per packet (subtracted)"
		continue
	fi
	name=${mode}_burst
	[ "$mode" = rxh ] && name=rx_burst_rss_hash
	[ "$mode" = rxmprq ] && name=rx_burst_mprq
	[ "$mode" = rxvec ] && name=rx_burst_vec
	[ "$mode" = rxveccomp ] && name=rx_burst_vec_comp
	[ "$mode" = txff ] && name=tx_burst_fast_free
	[ "$mode" = txinl ] && name=tx_burst_inline
	[ "$mode" = txinlsse ] && name=tx_burst_inline_sse
	[ "$mode" = txsend ] && name=tx_burst_send
	[ "$mode" = rxcomp ] && name=rx_burst_comp
	# rx_burst_comp and rx_burst_vec_comp also give the CQE bytes alone (its target is on those).
	awk -v m="$name" -v ir="$ir" -v pk="$pk" -v c="$cyc" -v ci="$cal_ir" -v cc="$cal_cyc" -v b="$bus" -v q="$cqe" 'BEGIN {
		printf "PERF %s instr_per_pkt=%.1f cycles_per_pkt=%.1f bus_bytes_per_pkt=%.1f", m, ir / pk - ci, (c - cc) / 1000, b / 1000
		if (m ~ /_comp$/) printf " cqe_bytes_per_pkt=%.1f", q / 1000
		printf "\n" }'
done
