#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# verbs-two-hosts.sh: net_verbs against perftest across two hosts: two
# Soft-RoCE guests (usertools/dvp-rxe-vm --wire) facing each other on a
# virtual wire, each with its own kernel and rxe0, one vCPU each.
#
#   test/bench/verbs-two-hosts.sh DVP_RXE_VM DVP_PERF
#   meson test -C build --benchmark --suite bench rxe-two-hosts -v
#
# Guest s (10.9.0.2) runs the servers, guest c (10.9.0.1) the clients, the
# same sequence of cases on both (this script with --guest in each), each
# case on a port of its own: dvp-perf --test lat (rx modes poll and intr)
# and --test bw (poll) over net_verbs, and right beside each the perftest
# case it is compared with (ib_send_lat, ib_send_lat -e, ib_send_bw), dvp
# first in odd runs and perftest first in even ones. A client that finds
# no server yet tries again (perftest) or connects again (net_verbs) for up
# to 60 s. Output, from guest c, medians of the runs:
#   VS-PERFTEST-2HOSTS <case> dvp=<value> perftest=<value> ratio=<dvp/perftest>
# for lat_poll_p50, lat_poll_p99, lat_intr_p50, lat_intr_p99 (one-way µs,
# below 1 favours dvpmd) and bw_poll (MB/s, above 1 favours dvpmd).
# DVP_PERFTEST_RUNS (3), DVP_PERFTEST_ITERS (5000 round trips),
# DVP_PERFTEST_BW_ITERS (10000 messages), DVP_PERFTEST_SIZE (64).
set -u -o pipefail

here=$(dirname "$(readlink -f "$0")")
runs=${DVP_PERFTEST_RUNS:-3}
iters=${DVP_PERFTEST_ITERS:-5000}
bw_iters=${DVP_PERFTEST_BW_ITERS:-10000}
size=${DVP_PERFTEST_SIZE:-64}
server_ip=10.9.0.2 client_ip=10.9.0.1
base_port=18900
steps=(lat:poll:lat_poll lat:intr:lat_event bw:poll:bw_poll)
. "$here/perftest_lib.sh"

# ------------------------------------------------------------------ in a guest
# guest ROLE PERF: every case of every run, in order, as server or client.
guest() {
	local role=$1 perf=$2 r step test mode pcase n k=0 first
	for r in $(seq 1 "$runs"); do
		for step in "${steps[@]}"; do
			IFS=: read -r test mode pcase <<<"$step"
			n=$iters
			[ "$test" = bw ] && n=$bw_iters
			for first in dvp pt; do
				if [ $((r % 2)) = 0 ]; then
					[ $first = dvp ] && first=pt || first=dvp
				fi
				k=$((k + 1))
				if [ $first = dvp ]; then
					dvp_case "$role" "$perf" "$r" "$test" "$mode" "$n" $((base_port + k))
				else
					pt_case "$role" "$r" "$pcase" "$n" $((base_port + k))
				fi
			done
		done
	done
	[ "$role" = client ] || return 0
	status=0
	vs VS-PERFTEST-2HOSTS lat_poll_p50 dvp.lat_poll.p50 pt.lat_poll.p50
	vs VS-PERFTEST-2HOSTS lat_poll_p99 dvp.lat_poll.p99 pt.lat_poll.p99
	vs VS-PERFTEST-2HOSTS lat_intr_p50 dvp.lat_intr.p50 pt.lat_event.p50
	vs VS-PERFTEST-2HOSTS lat_intr_p99 dvp.lat_intr.p99 pt.lat_event.p99
	vs VS-PERFTEST-2HOSTS bw_poll dvp.bw_poll pt.bw_poll
	return $status
}

# dvp_case ROLE PERF RUN TEST MODE N PORT
dvp_case() {
	local role=$1 perf=$2 r=$3 test=$4 mode=$5 n=$6 port=$7 out ep
	if [ "$role" = server ]; then
		timeout 120 "$perf" --no-huge -m 128 -l 0 --file-prefix v2s$port \
			--vdev "net_verbs0,dev=$DVP_RXE_DEV,listen=$server_ip:$port" -- \
			--role server --test "$test" --rx-mode "$mode" --size "$size" --timeout 60 \
			>/dev/null 2>&1
		return 0
	fi
	ep="net_verbs0,dev=$DVP_RXE_DEV,connect=$server_ip:$port"
	out=$(timeout 120 "$perf" --no-huge -m 128 -l 0 --file-prefix v2c$port --vdev "$ep" -- \
		--role client --test "$test" --rx-mode "$mode" --size "$size" --iters "$n" \
		--timeout 60 2>&1) || {
		echo "verbs-two-hosts: dvp-perf $test $mode (run $r) failed: $(tail -n 2 <<<"$out" | tr '\n' ' ')" >&2
		return 0
	}
	grep -E '^(LAT|BW) ' <<<"$out" | sed "s/^/run $r: /"
	if [ "$test" = lat ]; then
		add "dvp.lat_$mode.p50" "$(field "$(grep '^LAT ' <<<"$out")" p50_us)"
		add "dvp.lat_$mode.p99" "$(field "$(grep '^LAT ' <<<"$out")" p99_us)"
	else
		add "dvp.bw_$mode" "$(field "$(grep '^BW ' <<<"$out")" mb_s)"
	fi
}

# pt_case ROLE RUN CASE N PORT
pt_case() {
	local role=$1 r=$2 c=$3 n=$4 port=$5 tool=ib_send_lat flags=() out fig i
	[ "${c%%_*}" = bw ] && tool=ib_send_bw
	[ "${c#*_}" = event ] && flags=(-e)
	local args=(-d "$DVP_RXE_DEV" -x "$DVP_RXE_GID_INDEX" -s "$size" -n "$n" -F -p "$port" "${flags[@]}")
	if [ "$role" = server ]; then
		timeout 120 "$tool" "${args[@]}" >/dev/null 2>&1
		return 0
	fi
	out=$(mktemp)
	# The client fails outright while the server does not listen yet.
	for i in $(seq 1 120); do
		timeout 120 "$tool" "${args[@]}" "$server_ip" >"$out" 2>&1 && break
		sleep 0.5
	done
	if fig=$(perftest_row "$out" "$size" $([ $tool = ib_send_lat ] && echo 1 || echo 0)); then
		echo "run $r: PERFTEST $c ${fig% }"
		if [ $tool = ib_send_lat ]; then
			add "pt.$c.p50" "${fig% *}"
			add "pt.$c.p99" "${fig#* }"
		else
			add "pt.$c" "${fig%% *}"
		fi
	else
		echo "verbs-two-hosts: $tool ${flags[*]} (run $r) gave no figure: $(tail -n 2 "$out" | tr '\n' ' ')" >&2
	fi
	rm -f "$out"
}

if [ "${1:-}" = --guest ]; then
	[ -n "${DVP_RXE_VM:-}" ] || { echo "SKIP: --guest runs in a dvp-rxe-vm guest"; exit 77; }
	guest "$2" "$3"
	exit $?
fi

# ------------------------------------------------------------------ on the host
vm=${1:?usage: verbs-two-hosts.sh DVP_RXE_VM DVP_PERF}
perf=${2:?usage: verbs-two-hosts.sh DVP_RXE_VM DVP_PERF}
"$vm" --prepare >/dev/null
rc=$?
[ $rc = 77 ] && exec "$vm" --prepare
[ $rc = 0 ] || { echo "verbs-two-hosts: dvp-rxe-vm --prepare: exit $rc"; exit 1; }
for p in ib_send_lat ib_send_bw; do
	command -v $p >/dev/null || { echo "SKIP: $p not found (usertools/install-deps installs perftest)"; exit 77; }
done
wa=$((30000 + $$ % 20000))
wb=$((wa + 1))
out=$(mktemp)
trap 'pkill -KILL -f "local.port=$wb,"; rm -f "$out"' EXIT
echo "VS-PERFTEST-2HOSTS-CONFIG size=$size runs=$runs iters=$iters bw_iters=$bw_iters guests=2 vcpus_each=1"
"$vm" --cpus 1 --mem 1024 --hugepages 64 --timeout 1800 --wire "$wb:$wa" --ip $server_ip \
	--env DVP_PERFTEST_RUNS="$runs" --env DVP_PERFTEST_ITERS="$iters" \
	--env DVP_PERFTEST_BW_ITERS="$bw_iters" --env DVP_PERFTEST_SIZE="$size" \
	-- "$here/verbs-two-hosts.sh" --guest server "$perf" >"$out" 2>&1 &
server=$!
"$vm" --cpus 1 --mem 1024 --hugepages 64 --timeout 1800 --wire "$wa:$wb" --ip $client_ip \
	--env DVP_PERFTEST_RUNS="$runs" --env DVP_PERFTEST_ITERS="$iters" \
	--env DVP_PERFTEST_BW_ITERS="$bw_iters" --env DVP_PERFTEST_SIZE="$size" \
	-- "$here/verbs-two-hosts.sh" --guest client "$perf"
rc=$?
wait $server || echo "verbs-two-hosts: the server guest: exit $?"
exit $rc
