#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# verbs-vs-perftest.sh: net_verbs against perftest on the same Soft-RoCE
# device, in the same VM boot (issue 8's benchmark).
#
#   usertools/dvp-rxe-vm test/bench/verbs-vs-perftest.sh build/apps/dvp-perf [--size B] [--runs N]
#       [--iters N] [--bw-iters N]
#   meson test -C build --benchmark --suite bench rxe-verbs-perftest -v
#
# Each run measures, case by case, dvp-perf and the perftest case it is
# compared with one right after the other (dvp first in odd runs, perftest
# first in even ones), so that each pair sees the same state of the host:
#   dvp-perf --test lat and --test bw over net_verbs with --rx-mode poll,
#   intr and adaptive (server and client both in the mode), the adaptive
#   client then idle for 2 s (--idle) to measure the CPU it uses waiting;
#   perftest's ib_send_lat, ib_send_lat -e, ib_send_bw, ib_send_bw -e
#   (test/rxe/perftest-baseline.sh --cases, one run each).
# Latency is one-way (half the round trip) for both, as ib_send_lat reports
# it; bandwidth is MB/s with MB = 2^20 bytes, as perftest prints it.
#
# Output, medians of the runs:
#   VS-PERFTEST <case> dvp=<value> perftest=<value> ratio=<dvp/perftest>
# for lat_poll_p50, lat_poll_p99 (against ib_send_lat), lat_intr_p50,
# lat_intr_p99 (against ib_send_lat -e), lat_adaptive_p50, lat_adaptive_p99
# (against ib_send_lat), bw_poll, bw_adaptive (against ib_send_bw), bw_intr
# (against ib_send_bw -e): latency ratios below 1 and bandwidth ratios above
# 1 favour dvpmd. Then
#   ADAPTIVE lat_p50_vs_poll=<adaptive p50 / dvp poll p50> idle_cpu_pct=<%>
# (issue 8's targets: at most 1.2, under 5).
# Defaults: DVP_PERFTEST_SIZE (64); DVP_PERFTEST_RUNS (5: the host under
# the VM flips between a fast and a slow state lasting seconds, and with
# three runs the median mostly told which program's runs the fast state
# fell on); DVP_PERFTEST_ITERS (30000 round trips for latency: 5000 took
# 0.1-0.25 s in poll mode, less than a host state lasts, so a run's p50
# was the fast or the slow state's; 30000 take 0.6-1.5 s and average over
# them);
# DVP_PERFTEST_BW_ITERS (20000 messages for bandwidth: at 64 bytes 5000 take
# 0.1-0.3 s here, and one run's rate swung 0.45-1.77 against the perftest
# run beside it). Exit status: 0, 1 when a case had no valid run, 2 on bad
# arguments, 77 outside the VM.
set -u -o pipefail

perf=${1:-}
[ $# -gt 0 ] && shift
size=${DVP_PERFTEST_SIZE:-64}
runs=${DVP_PERFTEST_RUNS:-5}
iters=${DVP_PERFTEST_ITERS:-30000}
bw_iters=${DVP_PERFTEST_BW_ITERS:-20000}
while [ $# -gt 0 ]; do
	case "$1" in
	--size) size=$2; shift ;;
	--runs) runs=$2; shift ;;
	--iters) iters=$2; shift ;;
	--bw-iters) bw_iters=$2; shift ;;
	*) echo "verbs-vs-perftest: unknown argument '$1'; valid: --size, --runs, --iters, --bw-iters" >&2; exit 2 ;;
	esac
	shift
done
if [ -z "$perf" ] || [ ! -x "$perf" ]; then
	echo "verbs-vs-perftest: the first argument must be the dvp-perf program (build/apps/dvp-perf)" >&2
	exit 2
fi
for v in size runs iters bw_iters; do
	case "${!v}" in '' | *[!0-9]* | 0)
		echo "verbs-vs-perftest: --${v/_/-} '${!v}': expected a positive whole number" >&2
		exit 2
		;;
	esac
done
if [ -z "${DVP_RXE_VM:-}" ]; then
	echo "SKIP: not in the Soft-RoCE VM: run it with usertools/dvp-rxe-vm $0 $perf"
	exit 77
fi
baseline=$(dirname "$0")/../rxe/perftest-baseline.sh
. "$(dirname "$0")/perftest_lib.sh"
for p in ib_send_lat ib_send_bw; do
	command -v $p >/dev/null || { echo "SKIP: $p not found (usertools/install-deps installs perftest)"; exit 77; }
done

dev=$DVP_RXE_DEV ip=$DVP_RXE_IP
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=18800
# Each end on a CPU of its own, as the EAL pins lcores (perftest does not pin).
eal=(--no-huge -m 128)

# One dvp-perf server/client pair: prints the client's LAT, BW and IDLE lines.
dvp_run() { # test mode iters extra-client-args...
	local test=$1 mode=$2 n=$3 rc_s rc_c
	shift 3
	port=$((port + 1))
	timeout 120 "$perf" "${eal[@]}" -l 1 --file-prefix vbs$port \
		--vdev "net_verbs0,dev=$dev,listen=$ip:$port" -- \
		--role server --test "$test" --rx-mode "$mode" --size "$size" >"$work/server" 2>&1 &
	local spid=$!
	timeout 120 "$perf" "${eal[@]}" -l 0 --file-prefix vbc$port \
		--vdev "net_verbs0,dev=$dev,connect=$ip:$port" -- \
		--role client --test "$test" --rx-mode "$mode" --size "$size" --iters "$n" "$@" \
		>"$work/client" 2>&1
	rc_c=$?
	wait $spid
	rc_s=$?
	if [ $rc_c != 0 ] || [ $rc_s != 0 ]; then
		echo "verbs-vs-perftest: dvp-perf $test $mode: client exit $rc_c, server exit $rc_s" >&2
		tail -n 4 "$work/client" | sed 's/^/  client: /' >&2
		tail -n 4 "$work/server" | sed 's/^/  server: /' >&2
		return 1
	fi
	grep -E '^(LAT|BW|IDLE|INTR) ' "$work/client"
}

echo "VS-PERFTEST-CONFIG dev=$dev size=$size runs=$runs iters=$iters bw_iters=$bw_iters cpus=$(nproc)" \
	"active_mtu=$(ibv_devinfo -d "$dev" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')"
dvp_step() { # run test mode
	local r=$1 test=$2 mode=$3 out extra=() n=$iters
	[ "$test/$mode" = lat/adaptive ] && extra=(--idle 2)
	[ "$test" = bw ] && n=$bw_iters
	out=$(dvp_run "$test" "$mode" "$n" "${extra[@]}") || return 0
	echo "$out" | sed "s/^/run $r: /"
	if [ "$test" = lat ]; then
		add "dvp.lat_$mode.p50" "$(field "$(grep '^LAT ' <<<"$out")" p50_us)"
		add "dvp.lat_$mode.p99" "$(field "$(grep '^LAT ' <<<"$out")" p99_us)"
		[ "$mode" = adaptive ] && add dvp.idle_cpu "$(field "$(grep '^IDLE ' <<<"$out")" cpu_pct)"
	else
		add "dvp.bw_$mode" "$(field "$(grep '^BW ' <<<"$out")" mb_s)"
	fi
}

pt_step() { # run case (none: nothing)
	local r=$1 c=$2 out line n=$iters
	[ -n "$c" ] || return 0
	[ "${c%%_*}" = bw ] && n=$bw_iters
	out=$("$baseline" --size "$size" --runs 1 --iters "$n" --cases "$c" 2>&1)
	line=$(grep "^PERFTEST $c " <<<"$out") || {
		echo "verbs-vs-perftest: perftest $c gave no figure:" >&2
		tail -n 4 <<<"$out" | sed 's/^/  /' >&2
		return 0
	}
	echo "run $r: $line"
	case "$c" in
	lat_*)
		add "pt.$c.p50" "$(field "$line" p50_us)"
		add "pt.$c.p99" "$(field "$line" p99_us)"
		;;
	*) add "pt.$c" "$(field "$line" mb_s)" ;;
	esac
}

# Each dvp case and its perftest case back to back; adaptive mode is
# compared with the poll-mode perftest case measured just before it.
for r in $(seq 1 "$runs"); do
	for step in lat:poll:lat_poll lat:adaptive: lat:intr:lat_event bw:poll:bw_poll bw:adaptive: \
		bw:intr:bw_event; do
		IFS=: read -r test mode pcase <<<"$step"
		if [ $((r % 2)) = 1 ]; then
			dvp_step "$r" "$test" "$mode"
			pt_step "$r" "$pcase"
		else
			pt_step "$r" "$pcase"
			dvp_step "$r" "$test" "$mode"
		fi
	done
done

status=0
vs VS-PERFTEST lat_poll_p50 dvp.lat_poll.p50 pt.lat_poll.p50
vs VS-PERFTEST lat_poll_p99 dvp.lat_poll.p99 pt.lat_poll.p99
vs VS-PERFTEST lat_intr_p50 dvp.lat_intr.p50 pt.lat_event.p50
vs VS-PERFTEST lat_intr_p99 dvp.lat_intr.p99 pt.lat_event.p99
vs VS-PERFTEST lat_adaptive_p50 dvp.lat_adaptive.p50 pt.lat_poll.p50
vs VS-PERFTEST lat_adaptive_p99 dvp.lat_adaptive.p99 pt.lat_poll.p99
vs VS-PERFTEST bw_poll dvp.bw_poll pt.bw_poll
vs VS-PERFTEST bw_intr dvp.bw_intr pt.bw_event
vs VS-PERFTEST bw_adaptive dvp.bw_adaptive pt.bw_poll
# shellcheck disable=SC2086
if a=$(median ${all[dvp.lat_adaptive.p50]:-}) && p=$(median ${all[dvp.lat_poll.p50]:-}) &&
	c=$(median ${all[dvp.idle_cpu]:-}); then
	echo "ADAPTIVE lat_p50_vs_poll=$(awk -v a="$a" -v b="$p" 'BEGIN { printf "%.2f", a / b }') idle_cpu_pct=$c" \
		"idle_cpu_all=$(tr ' ' ',' <<<"${all[dvp.idle_cpu]# }")"
else
	echo "ADAPTIVE FAILED: no valid run"
	status=1
fi
exit $status
