#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# perftest-baseline.sh: perftest's figures on the Soft-RoCE device, the
# baseline the verbs PMD's benchmark is compared with (issue 8).
#
# Runs inside the VM, server and client both in the guest on rxe0:
#   usertools/dvp-rxe-vm test/rxe/perftest-baseline.sh [--size BYTES] [--runs N] [--iters N] [--cases LIST]
#   meson test -C build --benchmark --suite bench rxe-perftest
# Cases: ib_send_lat and ib_send_lat -e (latency: t_typical is the median,
# and the 99% percentile), ib_send_bw and ib_send_bw -e (the client's BW
# average); --cases runs some of them (a comma list of lat_poll, lat_event,
# bw_poll, bw_event). Each case runs N times; a run counts only when both sides exit 0
# and the client printed a finite, positive figure (perftest's event-mode
# reports are sometimes "inf" or 0.00), with two more tries per run.
#
# Output: one line per case, medians of the N runs, then every run's figure:
#   PERFTEST lat_poll size=64 p50_us=20.90 p99_us=35.10 runs=3 p50_all=20.81,20.90,21.30 p99_all=...
#   PERFTEST lat_event ...
#   PERFTEST bw_poll size=64 mb_s=40.12 runs=3 mb_s_all=...
#   PERFTEST bw_event ...
# (lat_* lower is better, bw_* higher.) A dvp side prints, from the same boot,
#   VS-PERFTEST <case> dvp=<v> perftest=<v> ratio=<dvp/perftest>
# with <v> taken from these medians (the res[] array below: res[lat_poll.p50_us]...).
#
# Defaults come from DVP_PERFTEST_SIZE, DVP_PERFTEST_RUNS, DVP_PERFTEST_ITERS
# (the VM runner passes DVP_* variables in), else 64 bytes, 3 runs, 5000 iterations.
# Exit status: 0, 1 when a case had no valid run, 77 outside the VM.
set -u -o pipefail

size=${DVP_PERFTEST_SIZE:-64}
runs=${DVP_PERFTEST_RUNS:-3}
iters=${DVP_PERFTEST_ITERS:-5000}
cases=lat_poll,lat_event,bw_poll,bw_event
while [ $# -gt 0 ]; do
	case "$1" in
	--size) size=$2; shift ;;
	--runs) runs=$2; shift ;;
	--iters) iters=$2; shift ;;
	--cases) cases=$2; shift ;;
	-h | --help) sed -n '5,/^set -u/p' "$0" | grep '^#' | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "perftest-baseline: unknown argument '$1'; valid: --size, --runs, --iters, --cases" >&2; exit 2 ;;
	esac
	shift
done
for v in size runs iters; do
	case "${!v}" in '' | *[!0-9]* | 0)
		echo "perftest-baseline: --$v '${!v}': expected a positive whole number" >&2
		exit 2
		;;
	esac
done
for c in ${cases//,/ }; do
	case "$c" in lat_poll | lat_event | bw_poll | bw_event) ;;
	*)
		echo "perftest-baseline: --cases: unknown case '$c'; valid: lat_poll, lat_event, bw_poll, bw_event" >&2
		exit 2
		;;
	esac
done
if [ -z "${DVP_RXE_VM:-}" ]; then
	echo "SKIP: not in the Soft-RoCE VM: run it with usertools/dvp-rxe-vm $0"
	exit 77
fi
for p in ib_send_lat ib_send_bw ss; do
	command -v $p >/dev/null || { echo "SKIP: $p not found (usertools/install-deps installs perftest, iproute2)"; exit 77; }
done

dev=$DVP_RXE_DEV gid=$DVP_RXE_GID_INDEX ip=$DVP_RXE_IP
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
port=18515
mtu=$(ibv_devinfo -d "$dev" 2>/dev/null | awk '/active_mtu/ { print $2; exit }')
echo "PERFTEST-CONFIG dev=$dev gid_index=$gid active_mtu=${mtu:-?} size=$size runs=$runs iters=$iters" \
	"cpus=$(nproc) perftest=$(ib_send_lat --version 2>/dev/null | awk '{ print $NF; exit }')"

# One server/client pair; prints the client's figures ("p50 p99" or "mb_s").
one_run() { # tool extra-flags...
	local tool=$1 rc_s rc_c
	shift
	port=$((port + 1))
	local args=(-d "$dev" -x "$gid" -s "$size" -n "$iters" -F -p "$port" "$@")
	timeout 120 "$tool" "${args[@]}" >"$work/server" 2>&1 &
	local spid=$!
	# The client fails outright if the server does not listen yet.
	for _ in $(seq 1 200); do
		ss -Hltn "sport = :$port" 2>/dev/null | grep -q . && break
		kill -0 $spid 2>/dev/null || break
		sleep 0.05
	done
	timeout 120 "$tool" "${args[@]}" "$ip" >"$work/client" 2>&1
	rc_c=$?
	wait $spid
	rc_s=$?
	if [ $rc_c != 0 ] || [ $rc_s != 0 ]; then
		echo "perftest-baseline: $tool $*: client exit $rc_c, server exit $rc_s" >&2
		sed 's/^/  client: /' "$work/client" | tail -n 5 >&2
		return 1
	fi
	# The figures row starts with the message size; columns as perftest 4.5
	# prints them: lat: bytes iters t_min t_max t_typical t_avg t_stdev 99% 99.9%;
	# bw: bytes iters BW_peak BW_average MsgRate.
	local lat=0
	[ "$tool" = ib_send_lat ] && lat=1
	awk -v s="$size" -v lat=$lat '
		$1 == s && NF >= 5 {
			ok = 1
			if (lat) { v1 = $5; v2 = $8 } else { v1 = $4; v2 = "" }
			if (v1 !~ /^[0-9.]+$/ || v1 + 0 <= 0) ok = 0
			if (lat && (v2 !~ /^[0-9.]+$/ || v2 + 0 <= 0)) ok = 0
			if (ok) { print v1, v2; found = 1; exit }
		}
		END { exit found ? 0 : 1 }' "$work/client" && return 0
	echo "perftest-baseline: $tool $*: no valid figure in the client's report:" >&2
	sed 's/^/  client: /' "$work/client" | tail -n 5 >&2
	return 1
}

median() { # numbers...
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

declare -A res
status=0
run_case() { # case tool flags...
	local name=$1 tool=$2 fig a=() b=()
	shift 2
	for _ in $(seq 1 "$runs"); do
		fig=
		for _ in 1 2 3; do
			fig=$(one_run "$tool" "$@") && break
			fig=
		done
		[ -n "$fig" ] || continue
		read -r x y <<<"$fig"
		a+=("$x")
		[ -n "$y" ] && b+=("$y")
	done
	if [ ${#a[@]} = 0 ]; then
		echo "PERFTEST $name size=$size FAILED: no valid run"
		status=1
		return
	fi
	local all1 all2
	all1=$(IFS=,; echo "${a[*]}")
	if [ "$tool" = ib_send_lat ]; then
		all2=$(IFS=,; echo "${b[*]}")
		res[$name.p50_us]=$(median "${a[@]}")
		res[$name.p99_us]=$(median "${b[@]}")
		echo "PERFTEST $name size=$size p50_us=${res[$name.p50_us]} p99_us=${res[$name.p99_us]}" \
			"runs=${#a[@]} p50_all=$all1 p99_all=$all2"
	else
		res[$name.mb_s]=$(median "${a[@]}")
		echo "PERFTEST $name size=$size mb_s=${res[$name.mb_s]} runs=${#a[@]} mb_s_all=$all1"
	fi
}

wanted() { [[ ",$cases," == *",$1,"* ]]; }
wanted lat_poll && run_case lat_poll ib_send_lat
wanted lat_event && run_case lat_event ib_send_lat -e
wanted bw_poll && run_case bw_poll ib_send_bw
wanted bw_event && run_case bw_event ib_send_bw -e
exit $status
