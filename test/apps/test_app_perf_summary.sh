#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# usertools/dvp-perf-summary on a bench log made here: every kind of result
# line becomes its row with the right figures, ratio and verdict (met, not
# met, too noisy, sink bound), lines of figures only are left out, --update
# replaces doc/perf.md's block and nothing else, and each bad input gives
# its exit status and a line.
set -u
summary=$1
src=$2
command -v python3 >/dev/null || { echo "SKIP: python3 not found"; exit 77; }
fail() { echo "FAIL: $*"; [ -n "${out:-}" ] && printf '%s\n' "$out"; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/log" <<'EOF'
Log of Meson test suite run on 2026-01-02T03:04:05.000006

==================================== 1/3 ====================================
test:         dvpmd:bench / ring_mempool
RATIO ring_spsc_b8 ours=1.49 dpdk=2.40 ratio=0.621 spread_ours=3.0 spread_dpdk=2.0
RATIO ring2_spsc_b1 ours=115.85 dpdk=40.35 too-noisy spread_ours=41.0 spread_dpdk=12.0
RATIO geomean=0.726 cases=17 too_noisy=1
VS-DPDK wakeup_interrupt_p50 dvp=6236 dpdk=5946 ratio=1.05 dvp_syscalls=3.00 dpdk_syscalls=3.00
RATIO interrupt_vs_epoll_raw_p50=1.07 adaptive_vs_poll_p50=17.30
VS-DPDK memif_fwd dvp_mpps=12.3 dpdk_mpps=11.0 ratio=1.118
VS-DPDK testpmd_memif dvp_mpps=2.08 dpdk_mpps=2.10 sink-bound cpus=2
NET_DVP_FWD case=native packets=100000 bursts=3200 pkts_per_burst=31.2 polls=9000 empty_poll_ir=20 rx_ir_per_pkt=30.1 tx_ir_per_pkt=37.2 ir_per_pkt=67.3
NET_DVP_FWD case=hosted packets=100000 bursts=3200 pkts_per_burst=31.2 polls=9000 empty_poll_ir=20 rx_ir_per_pkt=30.1 tx_ir_per_pkt=41.2 ir_per_pkt=71.3
VS-NATIVE net_dvp_fwd ratio=1.059
FWD_E2E case=native function=fwd_lcore_main empty_poll_ir=224.000
VS-NATIVE fwd_e2e ratio=1.062 hosted=74.5 native=70.1
VS-PERFTEST bw_poll dvp=400 perftest=380 ratio=1.053
PERF rx_burst instr_per_pkt=37.9 cycles_per_pkt=25.9 bus_bytes_per_pkt=80.0
PERF fwd_e2e_native instr_per_pkt=90.1 cycles_per_pkt=21.0 target_cycles=18 pkts=100000
EOF

out=$("$summary" "$work/log" 2>&1) || fail "exit $? on a good log"
row() { printf '%s\n' "$out" | grep -qxF "$1" || fail "no row: $1"; }
row "| RATIO ring_spsc_b8 | cycles | 1.49 | DPDK | 2.40 | 0.621 | <= 1.00 | yes |"
row "| RATIO ring2_spsc_b1 | cycles | 116 | DPDK | 40.4 |  | <= 1.00 | too noisy |"
row "| RATIO geomean |  |  | DPDK |  | 0.726 | <= 0.70 | **no** |"
row "| VS-DPDK wakeup_interrupt_p50 | ns | 6236 | DPDK | 5946 | 1.05 | <= 0.95 | **no** |"
row "| VS-DPDK memif_fwd | Mpps | 12.3 | DPDK | 11.0 | 1.118 | >= 1.10 | yes |"
row "| VS-DPDK testpmd_memif | Mpps | 2.08 | DPDK | 2.10 |  | >= 1.10 | sink bound |"
row "| VS-NATIVE net_dvp_fwd | instructions | 71.3 | native dvpmd | 67.3 | 1.059 | <= 1.03 | **no** |"
row "| VS-NATIVE fwd_e2e | instructions | 74.5 | native dvpmd | 70.1 | 1.062 | <= 1.03 | **no** |"
row "| VS-PERFTEST bw_poll | MiB/s | 400 | perftest | 380 | 1.053 | >= 1.00 | yes |"
row "| fwd_e2e_native | instr_per_pkt 90.1, cycles_per_pkt 21.0, pkts 100000 | target_cycles 18 |"
printf '%s\n' "$out" | grep -q "interrupt_vs_epoll_raw" && fail "a line of figures only became a row"
printf '%s\n' "$out" | grep -q "on 2026-01-02T03:04:05" || fail "the run's date is not named"

# --update: the block between the markers, nothing else.
grep -c "^<!-- perf-summary begin -->$" "$src/doc/perf.md" | grep -qx 1 ||
	fail "doc/perf.md has not exactly one begin marker"
grep -c "^<!-- perf-summary end -->$" "$src/doc/perf.md" | grep -qx 1 ||
	fail "doc/perf.md has not exactly one end marker"
cp "$src/doc/perf.md" "$work/perf.md"
out=$("$summary" --update "$work/perf.md" "$work/log" 2>&1) || fail "--update: exit $?"
outside() { sed '/^<!-- perf-summary begin -->$/,/^<!-- perf-summary end -->$/d' "$1"; }
[ "$(outside "$work/perf.md")" = "$(outside "$src/doc/perf.md")" ] ||
	fail "--update changed doc/perf.md outside its block"
grep -qxF "| RATIO ring_spsc_b8 | cycles | 1.49 | DPDK | 2.40 | 0.621 | <= 1.00 | yes |" \
	"$work/perf.md" || fail "--update did not write the table into the block"

# Bad input: status and a line naming the problem.
bad() {
	local want=$1 msg=$2 got
	shift 2
	out=$("$summary" "$@" 2>&1)
	got=$?
	[ "$got" = "$want" ] || fail "$* exited $got, not $want"
	printf '%s\n' "$out" | grep -qF -- "$msg" || fail "$*: no '$msg' line"
}
bad 2 "--nosuch: unknown option; valid are --update DOC and --help" --nosuch
bad 2 "--update needs a file" --update
bad 2 "one log at most, 2 given" "$work/log" "$work/log"
bad 1 "No such file or directory" "$work/nosuch"
echo "no results here" >"$work/empty"
bad 1 "has no RATIO, VS- or PERF line" "$work/empty"
echo "# a doc with no block" >"$work/plain.md"
bad 1 "has no '<!-- perf-summary begin -->'" --update "$work/plain.md" "$work/log"
out=$("$summary" --help) || fail "--help: exit $?"
printf '%s\n' "$out" | grep -q "^Usage: usertools/dvp-perf-summary" || fail "--help has no usage"
echo "PASS"
