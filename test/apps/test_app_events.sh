#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# dvp-events: its --json event lines read back. net_ring ports raise a
# link-up event each when started; the simulated HCA's link flap (when the
# build has the mlx5 driver) gives down then up with the speed, its bad
# lkey a queue error, its fatal error a removal. Also
# --count, --timeout, SIGINT and bad arguments.
set -u
events=$1
. "$(dirname "$0")/app_lib.sh"
ring="--no-huge $LCORES --vdev net_ring0 --vdev net_ring1"
nosys=$(mktemp -d)
at_exit 'rm -rf "$nosys"'

run timeout 30 "$events" $ring -- --json --count 2 --timeout 10
[ "$rc" = 0 ] || fail "--count 2: exit $rc"
json_check 'len(lines) == 2' \
	'all(l["event"] == "LINK_STATUS_CHANGE" and l["link"]["up"] and l["link"]["speed_mbps"] > 0 for l in lines)' \
	'sorted(l["port"] for l in lines) == [0, 1]' \
	'sorted(l["name"] for l in lines) == ["net_ring0", "net_ring1"]' \
	'all("T" in l["time"] and l["t"] >= 0 for l in lines)'
printf '%s\n' "$err" | grep -q "watching port 0 (net_ring0)" || fail "no watching line on stderr"

# Fewer events than --count before --timeout: status 1.
run timeout 30 "$events" $ring -- --json --count 10 --timeout 0.5
[ "$rc" = 1 ] || fail "--timeout before --count: exit $rc, expected 1"
# Two link events come; on a loaded machine the half second may end first.
printf '%s\n' "$err" | grep -qE "[012] of 10 events came" || fail "no line saying how many came"

# Text lines, and SIGINT ends a run with no --count.
o=$(mktemp)
"$events" $ring -- --rx >"$o" 2>&1 &
pid=$!
wait_file "$o" "port 1 \(net_ring1\) LINK_STATUS_CHANGE" || { kill -9 $pid; fail "no event line within 60 s"; }
kill -INT $pid
wait $pid && rc=0 || rc=$?
out=$(cat "$o")
rm -f "$o"
[ "$rc" = 0 ] || fail "SIGINT: exit $rc"
printf '%s\n' "$out" | grep -q "^20[0-9-]*T[0-9:.]* port 1 (net_ring1) LINK_STATUS_CHANGE: Link up at 10000 Mbps" ||
	fail "no text event line"
printf '%s\n' "$out" | grep -q "SIGINT: stopping" || fail "SIGINT not acknowledged"

# The simulated HCA's link goes down 2 s after the device is made, for 200
# ms: time enough for dvp-events to be watching on a loaded machine.
run env DVP_SYSFS_ROOT="$nosys" timeout 60 "$events" --no-huge $LCORES \
	--vdev "sim_mlx5,ports=1,flap=[at:2s,down:200ms]" -- --json --count 3 --timeout 30
if [ "$rc" = 2 ] && printf '%s\n' "$err" | grep -q "no port to watch"; then
	echo "(no mlx5 driver in this build: the sim's link flap is not checked)"
else
	[ "$rc" = 0 ] || fail "sim link flap: exit $rc"
	json_check 'len(lines) == 3' 'all(l["event"] == "LINK_STATUS_CHANGE" for l in lines)' \
		'[l["link"]["up"] for l in lines] == [True, False, True]' \
		'lines[2]["link"]["speed_mbps"] > 0' 'lines[2]["t"] - lines[1]["t"] > 0.1' \
		'[l["cause"] for l in lines[1:]] == ["LINK_DOWN", "LINK_UP"]'
	# A bad lkey on the 100th receive WQE: the rx queue errors and is restarted.
	run env DVP_SYSFS_ROOT="$nosys" timeout 30 "$events" --no-huge $LCORES \
		--vdev "sim_mlx5,ports=1,cable=traffic,bad_lkey=100" -- --rx --json --count 2 --timeout 10
	[ "$rc" = 0 ] || fail "sim bad lkey: exit $rc"
	json_check 'lines[1]["event"] == "QUEUE_ERROR"' \
		'lines[1]["queue"] == 0 and lines[1]["tx"] is False' \
		'"error CQE" in lines[1]["reason"]' 'lines[1]["cause"] == "DRIVER"'
	# A device fatal error: the port is removed.
	run env DVP_SYSFS_ROOT="$nosys" timeout 60 "$events" --no-huge $LCORES \
		--vdev "sim_mlx5,ports=1,fatal=2s" -- --json --count 2 --timeout 30
	[ "$rc" = 0 ] || fail "sim device fatal: exit $rc"
	json_check 'lines[1]["event"] == "REMOVAL" and lines[1]["t"] > 1' \
		'lines[1]["cause"] == "DEVICE_FATAL"'
fi

for bad in "--count 0|--count '0': expected a number of events from 1" \
	"--timeout x|--timeout 'x': expected seconds above 0" \
	"--rx --no-start|--rx empties started queues: not with --no-start" \
	"--bogus|--bogus: unknown option" "stray|unexpected argument 'stray'" \
	"--count 5 -xv|dvp-events: -x: unknown option" "--count nan|--count 'nan'" \
	"--timeout inf|--timeout 'inf'" \
	"--rx=1|dvp-events: --rx: takes no value (given '--rx=1')" \
	"--timeout|dvp-events: --timeout: needs a value"; do
	a=${bad%%|*} says=${bad#*|}
	run "$events" $ring -- $a
	[ "$rc" = 2 ] || fail "dvp-events $a: exit $rc, expected 2"
	printf '%s\n' "$err" | grep -qF -- "$says" || fail "dvp-events $a: no line saying: $says"
	printf '%s\n' "$err" | grep -q "^Try 'dvp-events" || fail "dvp-events $a: no usage hint"
done
run env DVP_SYSFS_ROOT="$nosys" "$events" --no-huge $LCORES
[ "$rc" = 2 ] && printf '%s\n' "$err" | grep -q "no port to watch" || fail "no ports: exit $rc, expected 2"
echo "dvp-events: ok"
