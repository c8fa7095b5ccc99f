#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# dvp-perf: a server and a client over a memif link (two processes, as
# over net_verbs, without a device): latency in each rx mode with its
# percentile line, the histogram as CSV, throughput with every frame
# received, the idle-CPU line; --role pair, both ends in one process over
# two cabled net_ring ports and over the sim's looped ports; and bad
# arguments (exit 2, one line, the usage hint). The net_verbs runs against perftest are the benchmark
# (test/bench/verbs-vs-perftest.sh).
set -u
perf=$1
. "$(dirname "$0")/app_lib.sh"
dir=$(mktemp -d)
at_exit 'rm -rf "$dir"'
cpu=$(awk '/^Cpus_allowed_list/ { split($2, a, "[-,]"); print a[1] }' /proc/self/status)
n=0

# pair TEST MODE CLIENT-ARGS...: a server and a client on one memif socket.
pair() {
	local test=$1 mode=$2 sock
	shift 2
	n=$((n + 1))
	sock=$dir/memif$n.sock
	timeout 60 "$perf" --no-huge -m 64 --lcores "0@$cpu" --file-prefix ps$$n \
		--vdev "net_memif0,role=server,socket=$sock" -- \
		--role server --test "$test" --rx-mode "$mode" --timeout 10 >"$dir/server" 2>&1 &
	spid=$!
	run timeout 60 "$perf" --no-huge -m 64 --lcores "0@$cpu" --file-prefix pc$$n \
		--vdev "net_memif0,role=client,socket=$sock" -- \
		--role client --test "$test" --rx-mode "$mode" --timeout 10 "$@"
	wait $spid && src=0 || src=$?
	[ "$rc" = 0 ] || fail "$test $mode: client exit $rc"
	[ "$src" = 0 ] || { err=$(cat "$dir/server"); fail "$test $mode: server exit $src"; }
}

# The value of KEY= on the line starting with TAG.
field() {
	printf '%s\n' "$out" | sed -n "s/^$1 .* $2=\([^ ]*\).*/\1/p"
}

for mode in poll intr adaptive; do
	pair lat $mode --iters 2000 --warmup 50
	for k in p50_us p90_us p99_us p999_us max_us; do
		v=$(field LAT $k)
		[ -n "$v" ] || fail "lat $mode: no $k on the LAT line"
	done
	python3 -c "import sys; v = [float(x) for x in sys.argv[1:]]; sys.exit(not (0 < v[0] <= v[1] <= v[2] <= v[3] <= v[4]))" \
		"$(field LAT p50_us)" "$(field LAT p90_us)" "$(field LAT p99_us)" \
		"$(field LAT p999_us)" "$(field LAT max_us)" ||
		fail "lat $mode: percentiles out of order"
	[ "$(field LAT iters)" = 2000 ] || fail "lat $mode: iters is not 2000"
	if [ $mode != poll ]; then
		printf '%s\n' "$out" | grep -q "^INTR rx_mode=$mode sleeps=" || fail "lat $mode: no INTR line"
	fi
done

# Throughput: every frame reaches the server, in sequence.
pair bw poll --iters 20000 --burst 32
[ "$(field BW received)" = 20000 ] || fail "bw: received $(field BW received) of 20000"
grep -q "PERF-SERVER test=bw received=20000 errors=0" "$dir/server" || { err=$(cat "$dir/server"); fail "bw: the server's count"; }

# The histogram as CSV: cumulative up to 1, counts summing to the samples.
pair lat poll --iters 1000 --csv "$dir/lat.csv" --idle 0.5
python3 - "$dir/lat.csv" <<'PY' || fail "--csv: bad histogram"
import csv, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1]) if not l.startswith("#"))]
assert rows[0] == ["lo_ns", "hi_ns", "count", "cumulative"], rows[0]
data = [(int(a), int(b), int(c), float(d)) for a, b, c, d in rows[1:]]
assert sum(r[2] for r in data) == 1000, sum(r[2] for r in data)
assert abs(data[-1][3] - 1.0) < 1e-9 and all(r[0] <= r[1] for r in data)
assert all(x[1] < y[0] for x, y in zip(data, data[1:]))
PY
printf '%s\n' "$out" | grep -Eq '^IDLE rx_mode=poll seconds=[0-9.]+ cpu_pct=[0-9.]+' || fail "--idle: no IDLE line"

# --plot: a PNG with gnuplot, one clear line without it.
if command -v gnuplot >/dev/null; then
	pair lat poll --iters 500 --plot "$dir/lat.png"
	head -c 8 "$dir/lat.png" | od -An -c | grep -q 'P   N   G' || fail "--plot: not a PNG"
fi

# --role pair: one process, the client on port 0, the server on port 1 (a
# worker lcore), the ports cabled to each other.
pair1() { # label vdevs... -- args...
	local label=$1
	shift
	n=$((n + 1))
	run timeout 60 "$perf" --no-huge -m 128 --lcores "(0-1)@$cpu" --file-prefix pp$$n "$@"
	[ "$rc" = 0 ] || fail "pair $label: exit $rc"
	printf '%s\n' "$out" | grep -q "^PERF-CONFIG role=server port=1 " || fail "pair $label: no server line"
	printf '%s\n' "$out" | grep -q "^PERF-CONFIG role=client test=[a-z]* port=0 " || fail "pair $label: no client line"
}
ringpair=(--vdev net_ring0 --vdev net_ring1,peer=net_ring0)
for mode in poll intr adaptive; do
	idle=()
	[ $mode = adaptive ] && idle=(--idle 0.3)
	pair1 "ring lat $mode" "${ringpair[@]}" -- --role pair --rx-mode $mode --iters 2000 --warmup 50 --timeout 10 "${idle[@]}"
	[ "$(field LAT iters)" = 2000 ] || fail "pair ring lat $mode: iters is not 2000"
	python3 -c "import sys; v = [float(x) for x in sys.argv[1:]]; sys.exit(not (0 < v[0] <= v[1] <= v[2] <= v[3] <= v[4]))" \
		"$(field LAT p50_us)" "$(field LAT p90_us)" "$(field LAT p99_us)" \
		"$(field LAT p999_us)" "$(field LAT max_us)" ||
		fail "pair ring lat $mode: percentiles out of order"
	printf '%s\n' "$out" | grep -q "^PERF-SERVER test=lat received=2050 errors=0" || fail "pair ring lat $mode: the server's count"
	if [ $mode = intr ]; then
		# On one CPU either end may find every reply already there on its
		# final poll (the other ran in between), but both cannot: one
		# must have slept for the other to run.
		[ $(($(field INTR wakeups) + $(field INTR-SERVER wakeups))) -ge 1 ] 2>/dev/null ||
			fail "pair ring lat $mode: neither end slept and woke"
	elif [ $mode = adaptive ]; then
		# While frames flow the governor may never sleep (another
		# program's wake-ups can hand the CPU between the two ends faster
		# than its polling budget runs out); with none it must.
		[ "$(field IDLE sleeps)" -ge 1 ] 2>/dev/null ||
			fail "pair ring lat adaptive: no sleep in 0.3 s without traffic"
	fi
done
pair1 "ring bw" "${ringpair[@]}" -- --role pair --test bw --rx-mode intr --iters 50000 --timeout 10
[ "$(field BW received)" = 50000 ] || fail "pair ring bw: received $(field BW received) of 50000"
printf '%s\n' "$out" | grep -q "^PERF-SERVER test=bw received=50000 errors=0" || fail "pair ring bw: the server's count"
# The simulated HCA's two ports looped (when this build has the mlx5 driver).
run timeout 60 "$perf" --no-huge -m 128 --lcores "(0-1)@$cpu" --file-prefix pps$$ \
	--vdev sim_mlx5,ports=2,cable=loop -- --role pair --rx-mode adaptive --iters 2000 --timeout 10 --idle 0.5
if printf '%s\n' "$err" | grep -q "no virtual device driver for sim_mlx5"; then
	echo "# no mlx5 driver in this build: the sim's pair case is not run"
else
	[ "$rc" = 0 ] || fail "pair sim: exit $rc"
	[ "$(field LAT iters)" = 2000 ] || fail "pair sim: iters is not 2000"
	printf '%s\n' "$out" | grep -q "^PERF-SERVER test=lat received=2100 errors=0" || fail "pair sim: the server's count"
	printf '%s\n' "$out" | grep -Eq '^IDLE rx_mode=adaptive seconds=[0-9.]+ cpu_pct=[0-9.]+ sleeps=[1-9]' || fail "pair sim: no IDLE line with sleeps"
fi
# A pair needs a worker lcore and a second port.
run "$perf" --no-huge -m 64 --lcores "0@$cpu" --file-prefix ppx$$ "${ringpair[@]}" -- --role pair
[ "$rc" = 2 ] && printf '%s\n' "$err" | grep -q "give two lcores" || fail "pair, one lcore: exit $rc, expected 2"
run "$perf" --no-huge -m 64 --lcores "(0-1)@$cpu" --file-prefix ppy$$ --vdev net_ring0 -- --role pair
[ "$rc" = 2 ] && printf '%s\n' "$err" | grep -q "peer-port 1 does not exist" || fail "pair, one port: exit $rc, expected 2"

# Bad arguments: exit 2, a line naming the problem, the usage hint.
bad() { # expected-text args...
	local want=$1
	shift
	run "$perf" --no-huge -m 64 --lcores "0@$cpu" -- "$@"
	[ "$rc" = 2 ] || fail "'$*': exit $rc, expected 2"
	printf '%s\n' "$err" | grep -qF -- "$want" || fail "'$*': no '$want' in the error"
	printf '%s\n' "$err" | grep -qF -- "Try 'dvp-perf -- --help'." || fail "'$*': no usage hint"
}
bad "no --role given" --test lat
bad "--role 'peer': expected server, client or pair" --role peer
bad "--port and --peer-port are the same" --role pair --peer-port 0
bad "--rx-mode 'sleep': expected poll, intr or adaptive" --role client --rx-mode sleep
bad "--size '10': expected a whole number from 46 to 9000" --role client --size 10
bad "--iters '0'" --role client --iters 0
bad "--burst '100'" --role client --burst 100
bad "--frobnicate: unknown option" --role client --frobnicate
bad "-x: unknown option (long options take two dashes)" --role client -xv
# Each option by its own long name, whatever was typed.
bad "--help: takes no value (given '--help=1')" --help=1
bad "--size: needs a value" --role client --si
bad "--csv, --plot and --idle are for the client" --role server --csv x
# Numbers: one parser (no NaN, no empty, no octal surprise, the range before any cast).
bad "--idle 'nan': expected seconds from 0 to 3600" --role client --idle nan
bad "--idle '': expected seconds from 0 to 3600" --role client --idle ''
bad "--size '4294967360': expected a whole number from 46 to 9000" --role client --size 4294967360
run "$perf" --no-huge -m 64 --lcores "0@$cpu" -- --help
[ "$rc" = 0 ] && printf '%s\n' "$out" | grep -q "^Usage: dvp-perf" || fail "--help"
# No port: one line saying so and the hint; the command line's fault, exit 2.
run "$perf" --no-huge -m 64 --lcores "0@$cpu" -- --role client
[ "$rc" = 2 ] && printf '%s\n' "$err" | grep -q "port 0 does not exist" || fail "no port: exit $rc, expected 2"
printf '%s\n' "$err" | grep -qF -- "Try 'dvp-perf -- --help'." || fail "no port: no usage hint"
echo "dvp-perf: all cases passed"
