#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# dvp-fwd as users run it: test_app_fwd.sh DVP_FWD CASE
#
#   args          bad arguments: one clear line, exit 2, the usage hint
#   ring-io       io forwarding on two net_ring ports in each rx mode
#   ring-mac      mac and macswap in each rx mode
#   ring-gen      rxonly, txonly and flowgen
#   signal        SIGINT while forwarding, SIGTERM while asleep: exit 0, pool full
#   sim-MODE      the default simulated HCA in forward mode MODE (each rx mode
#                 where it receives): the sink sees every frame, exit 0
#   sim-loss      the sim's wire drops 1%: the sink's verdict fails the run, exit 1
#   sim-stop      sends held in a tx ring at the final stop: all counted, exit 1
#   sim-text      the default run's text output: stats lines, summary, verdict
#   memif-stop    frames left on a memif ring at the stop (a peer that does not
#                 read): counted lost, exit 1
#   memif-tx-first  --tx-first waits for a memif link to come up (client and
#                 server), or says after 9 s that it sent nothing
set -u
fwd=$1
case_=$2
build=${DVP_BUILD_ROOT:-$(cd "$(dirname "$fwd")/.." && pwd)}
. "$(dirname "$0")/app_lib.sh"
ring="--no-huge $LCORES --vdev net_ring0 --vdev net_ring1"
# No real RDMA device may change what the default run picks.
nosys=$(mktemp -d)
at_exit 'rm -rf "$nosys"'

# expect_usage_error WHAT-STDERR-SAYS ARGS...: exit 2, the line, the hint.
expect_usage_error() {
	local says=$1
	shift
	run "$fwd" "$@"
	[ "$rc" = 2 ] || fail "dvp-fwd $*: exit $rc, expected 2"
	printf '%s\n' "$err" | grep -qF -- "$says" || fail "dvp-fwd $*: no line saying: $says"
	printf '%s\n' "$err" | grep -q "^Try 'dvp-fwd" || fail "dvp-fwd $*: no usage hint"
}

case_args() {
	local a=(--no-huge $LCORES)

	expect_usage_error "--forward-mode 'foo': unknown value; valid: io, mac, macswap, rxonly, txonly, flowgen" \
		"${a[@]}" -- --forward-mode foo
	expect_usage_error "--rx-mode 'sleepy': unknown value; valid: poll, intr, adaptive" \
		"${a[@]}" -- --rx-mode sleepy
	expect_usage_error "--rxq '0': expected a number from 1 to 128" "${a[@]}" -- --rxq 0
	expect_usage_error "--burst '9999': expected a number from 1 to 512" "${a[@]}" -- --burst 9999
	expect_usage_error "--nb-cores 'x': expected a number" "${a[@]}" -- --nb-cores x
	expect_usage_error "--duration '-1': expected seconds" "${a[@]}" -- --duration -1
	expect_usage_error "--stats-period '0.001': too short" "${a[@]}" -- --stats-period 0.001
	expect_usage_error "--txpkts '10': expected frame lengths from 60 to 9014 bytes" \
		"${a[@]}" -- --txpkts 10
	expect_usage_error "--txpkts '64,': a length is missing" "${a[@]}" -- --txpkts 64,
	expect_usage_error "--eth-peer '0,zz': 'zz' is not a MAC address" "${a[@]}" -- --eth-peer 0,zz
	expect_usage_error "--max-loss '101': expected a percentage from 0 to 100" \
		"${a[@]}" -- --max-loss 101
	expect_usage_error "--tx-retry 'lots': expected a number of retries" "${a[@]}" -- --tx-retry lots
	# Numbers: one parser for options and devargs (no NaN or infinity, times
	# bounded before they become nanoseconds, no octal).
	expect_usage_error "--max-loss 'nan': expected a percentage" "${a[@]}" -- --max-loss nan
	expect_usage_error "--duration 'inf': expected seconds" "${a[@]}" -- --duration inf
	expect_usage_error "devargs drop: 'nan' is not a percentage" "${a[@]}" -- --sim drop=nan
	expect_usage_error "devargs corrupt: 'nan' is not a percentage" "${a[@]}" -- --sim corrupt=nan
	expect_usage_error "devargs fatal: 'infs' is not a time" "${a[@]}" -- --sim fatal=infs
	expect_usage_error "devargs fatal: '20000000000s' is not a time" \
		"${a[@]}" -- --sim fatal=20000000000s
	expect_usage_error "devargs fatal: '1e300s' is not a time" "${a[@]}" -- --sim fatal=1e300s
	expect_usage_error "unknown level '4294967297'" --no-huge --log-level 4294967297
	expect_usage_error "--sim: with the simulated HCA's defaults its devargs take more than 511 bytes" \
		"${a[@]}" -- --sim "count=$(printf '0%.0s' $(seq 600))1"
	run "$fwd" $ring -- --burst 010 --duration 0.1
	[ "$rc" = 0 ] || fail "--burst 010: exit $rc"
	printf '%s\n' "$out" | grep -q "burst 10," || fail "--burst 010 is not ten (octal?)"
	run "$fwd" $ring -- --burst 08 --duration 0.1
	[ "$rc" = 0 ] || fail "--burst 08: exit $rc"
	printf '%s\n' "$out" | grep -q "burst 8," || fail "--burst 08 is not eight"
	expect_usage_error "--bogus: unknown option" "${a[@]}" -- --bogus
	# Grouped short options: the unknown one is named, not the argument before it.
	expect_usage_error "dvp-fwd: -x: unknown option (long options take two dashes)" \
		"${a[@]}" -- --duration 1 -xv
	expect_usage_error "--duration: needs a value" "${a[@]}" -- --duration
	# An option is named by its own long name, never by its short one or as unknown.
	expect_usage_error "dvp-fwd: --verbose: takes no value (given '--verbose=2')" \
		"${a[@]}" -- --verbose=2
	for o in help json promisc tx-first record-core-cycles; do
		expect_usage_error "dvp-fwd: --$o: takes no value (given '--$o=1')" "${a[@]}" -- --$o=1
	done
	expect_usage_error "dvp-fwd: --verbose: takes no value (given '--verb=2')" \
		"${a[@]}" -- --verb=2
	expect_usage_error "dvp-fwd: --duration: needs a value" "${a[@]}" -- --dur
	expect_usage_error "dvp-fwd: --rx: ambiguous: --rxq, --rxd, --rx-mode" "${a[@]}" -- --rx=1
	expect_usage_error "dvp-fwd: -x: unknown option" "${a[@]}" -- --json -xz
	expect_usage_error "unexpected argument 'stray'" "${a[@]}" -- stray
	expect_usage_error "--txq 1 is fewer than --rxq 2" "${a[@]}" -- --rxq 2
	expect_usage_error "--tx-first starts forwarding modes (io, mac, macswap), not txonly" \
		"${a[@]}" -- --forward-mode txonly --tx-first
	# Found when the ports are known, still the command line's fault.
	expect_usage_error "--portmask 0x4: port 2 does not exist" $ring -- --portmask 0x4
	expect_usage_error "--nb-cores 4 needs 4 worker lcores" $ring -- --nb-cores 4
	expect_usage_error "--sim adds to the default simulated HCA" $ring -- --sim drop=1
	# The EAL's own: its line, then where to look.
	expect_usage_error "unknown EAL option" --no-huge --bogus-eal
	# A file prefix is a name: none that puts the runtime directory elsewhere.
	for p in .. . .hidden /tmp a/b; do
		expect_usage_error "--file-prefix '$p': a prefix is a name, not a path" \
			--no-huge --file-prefix "$p"
	done
	# Devargs the driver refuses are bad arguments too.
	expect_usage_error "net_ring0: unknown devargs key 'bogus'" --no-huge $LCORES \
		--vdev net_ring0,bogus=1
	expect_usage_error "net_ring0: devargs queues=99: expected a number from 1 to 16" \
		--no-huge $LCORES --vdev net_ring0,queues=99
	# Bad input found when the devices are made: exit 2 as well.
	expect_usage_error "--vdev 'net_ring0': a device named net_ring0 exists already" \
		--no-huge $LCORES --vdev net_ring0 --vdev net_ring0
	expect_usage_error "net_ring0: peer=nosuch: no such net_ring vdev port" \
		--no-huge $LCORES --vdev net_ring0,peer=nosuch
	expect_usage_error "net_ring2: peer=net_ring0: that port is cabled to another already" \
		--no-huge $LCORES --vdev net_ring0 --vdev net_ring1,peer=net_ring0 \
		--vdev net_ring2,peer=net_ring0
	expect_usage_error "net_memif1: id 3 is taken on socket" --no-huge $LCORES \
		--vdev net_memif0,role=server,socket=/dvp-test-$$,id=3 \
		--vdev net_memif1,role=server,socket=/dvp-test-$$,id=3
	expect_usage_error "net_memif0: cannot listen on /nonexistent/m.sock" --no-huge $LCORES \
		--vdev net_memif0,role=server,socket=/nonexistent/m.sock,socket-abstract=no
	expect_usage_error "--vdev 'net_sim0,ports=0': no virtual device driver for net_sim0" \
		--no-huge $LCORES --vdev net_sim0,ports=0
	expect_usage_error "asked at start is above its limit of 1 MB" \
		--no-huge $LCORES --socket-limit 1
	expect_usage_error "--huge-dir '/nonexistent': not a hugetlbfs mount point" \
		$LCORES --huge-dir /nonexistent
	# The offending token is named whatever --log-level hides.
	expect_usage_error "net_ring0: peer=nosuch: no such net_ring vdev port" \
		--no-huge --log-level 1 $LCORES --vdev net_ring0,peer=nosuch
	expect_usage_error "-l '9999'" --no-huge --log-level 1 -l 9999
	# -d takes a dvpmd driver, once: a system library, DPDK's net_dvp plugin
	# and a driver the program has already are refused.
	run "$fwd" --no-huge $LCORES -d "$build/drivers/libdvp_net_ring.so" -- --duration 0.1
	if printf '%s\n' "$err" | grep -q "linked in statically"; then
		echo "(dvp-fwd has the EAL linked in statically: -d is not checked)"
	else
		expect_usage_error "libdvp_net_ring.so': " --no-huge $LCORES \
			-d "$build/drivers/libdvp_net_ring.so"
		printf '%s\n' "$err" | grep -q "give each driver once" || fail "-d net_ring twice: $err"
		libz=$(ldconfig -p 2>/dev/null | awk '/libz\.so\.1 / { print $NF; exit }')
		[ -n "$libz" ] && expect_usage_error "-d '$libz': registers no dvp driver" \
			--no-huge $LCORES -d "$libz"
		plugin=$build/drivers/dpdk/net_dvp/librte_net_dvp.so
		[ -f "$plugin" ] && expect_usage_error "-d '$plugin': registers no dvp driver" \
			--no-huge $LCORES -d "$plugin"
	fi
	# -a naming no device: a warning, but its devargs are still checked.
	expect_usage_error "-a mlx5_99,key=banana: unknown devargs key 'key': no ib driver" \
		--no-huge $LCORES -a mlx5_99,key=banana
	run "$fwd" --no-huge -- --help
	[ "$rc" = 0 ] || fail "-- --help: exit $rc"
	printf '%s\n' "$out" | grep -q "^Usage: dvp-fwd \[EAL options\] -- \[options\]" || fail "no usage"
	printf '%s\n' "$out" | grep -q "^Exit status:" || fail "help says nothing of the exit status"
	run "$fwd" -h
	[ "$rc" = 0 ] || fail "-h: exit $rc"
	printf '%s\n' "$out" | grep -q "dvp-fwd -- --help" || fail "-h does not point at the app's help"
}

# ring_run ARGS...: a short JSON run on two net_ring ports; checks follow.
ring_run() {
	# Long enough for a stats line and forwarded packets on a loaded machine.
	run timeout 60 "$fwd" $ring -- --duration 1 --stats-period 0.2 --json "$@"
}

check_clean() {
	json_check 'summary is not None' 'summary["pool"]["in_use"] == 0' \
		'summary["errors"] == 0' 'config is not None' 'len(stats) >= 2'
}

case_ring_io() {
	for rx in poll intr adaptive; do
		ring_run --rx-mode $rx --tx-first
		[ "$rc" = 0 ] || fail "io $rx: exit $rc"
		check_clean
		json_check 'summary["result"] == "pass"' 'summary["lost"] == 0' \
			'all(p["rx_packets"] > 0 and p["tx_packets"] > 0 for p in summary["ports"])' \
			'all(l["rx_mode"] == "'$rx'" for l in summary["lcores"])' \
			'config["ports"][0]["peer"] == 1 and config["ports"][1]["peer"] == 0' \
			'"busy_cycles" not in summary'
	done
	# --record-core-cycles: the busy cycles of the packets received
	for rx in poll intr; do
		ring_run --rx-mode $rx --tx-first --record-core-cycles
		[ "$rc" = 0 ] || fail "io $rx --record-core-cycles: exit $rc"
		check_clean
		json_check 'summary["busy_cycles"] > 0' 'summary["cycles_per_packet"] > 0' \
			'summary["cycles_packets"] == sum(l["rx_packets"] for l in summary["lcores"])' \
			'summary["tsc_hz"] > 0'
	done
}

case_ring_mac() {
	for mode in mac macswap; do
		for rx in poll intr adaptive; do
			ring_run --forward-mode $mode --rx-mode $rx --tx-first \
				--eth-peer 1,02:00:00:00:00:aa
			[ "$rc" = 0 ] || fail "$mode $rx: exit $rc"
			check_clean
			json_check 'summary["result"] == "pass"' \
				'summary["forward_mode"] == "'$mode'"' \
				'all(p["rx_packets"] > 0 for p in summary["ports"])'
		done
	done
}

case_ring_gen() {
	# Nothing sends to rxonly's ports: it must still start, sleep and stop.
	for rx in poll intr adaptive; do
		ring_run --forward-mode rxonly --rx-mode $rx
		[ "$rc" = 0 ] || fail "rxonly $rx: exit $rc"
		check_clean
	done
	# Looped back with nobody receiving, the rings fill and net_ring counts
	# what it refuses as tx errors: loss, which --max-loss allows here.
	for mode in txonly flowgen; do
		ring_run --forward-mode $mode --txpkts 64,128,1514 --max-loss 100
		[ "$rc" = 0 ] || fail "$mode: exit $rc"
		check_clean
		json_check 'all(p["tx_packets"] > 0 for p in summary["ports"])' \
			'summary["lcores"][0]["rx_mode"] == "poll"'
		ring_run --forward-mode $mode
		[ "$rc" = 1 ] || fail "$mode with tx errors and --max-loss 0: exit $rc, expected 1"
		json_check 'summary["result"] == "fail"' 'summary["lost"] > 0'
	done
}

# Start dvp-fwd in the background, signal it once @2 holds (a shell
# command; $o is its stdout, $pid its pid), and collect it.
signal_run() {
	local sig=$1 ready=$2 o e pid t=0
	shift 2
	o=$(mktemp)
	e=$(mktemp)
	"$fwd" "$@" >"$o" 2>"$e" &
	pid=$!
	if ! eval "$ready"; then
		kill -9 $pid
		out=$(cat "$o") err=$(cat "$e")
		rm -f "$o" "$e"
		fail "SIG$sig: dvp-fwd never got to the state the test signals it in ($ready)"
	fi
	kill -"$sig" $pid
	while kill -0 $pid 2>/dev/null && [ $t -lt 100 ]; do
		sleep 0.1
		t=$((t + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		kill -9 $pid
		out=$(cat "$o") err=$(cat "$e")
		rm -f "$o" "$e"
		fail "SIG$sig: still running 10 s later"
	fi
	wait $pid && rc=0 || rc=$?
	out=$(cat "$o") err=$(cat "$e")
	rm -f "$o" "$e"
}

case_signal() {
	# Forwarding at full speed when SIGINT comes: both ports have received.
	signal_run INT 'wait_file "$o" "\"port\":1,.*\"rx_packets\":[1-9]"' \
		$ring -- --tx-first --json --stats-period 0.2
	[ "$rc" = 0 ] || fail "SIGINT while forwarding: exit $rc"
	printf '%s\n' "$err" | grep -q "SIGINT: stopping" || fail "SIGINT not acknowledged"
	check_clean
	json_check 'summary["result"] == "pass"' \
		'all(p["rx_packets"] > 0 for p in summary["ports"])'
	# Asleep in intr mode with no traffic (no timeout): the stop must wake it.
	signal_run TERM "wait_file \"\$o\" '\"type\":\"stats\",.*\"port\":1' && wait_thread_asleep \$pid 'dvp-worker-*'" \
		$ring -- --rx-mode intr --json --stats-period 0.2
	[ "$rc" = 0 ] || fail "SIGTERM while asleep: exit $rc"
	printf '%s\n' "$err" | grep -q "SIGTERM: stopping" || fail "SIGTERM not acknowledged"
	check_clean
	json_check 'summary["lcores"][0]["sleeps"] >= 1'
}

# The default device: the simulated HCA, when this build has the mlx5 driver.
sim_run() {
	run env DVP_SYSFS_ROOT="$nosys" timeout 60 "$fwd" --no-huge $LCORES -- "$@"
	if printf '%s\n' "$err" | grep -q "has no mlx5 driver"; then
		skip "this build has no mlx5 driver, so no simulated HCA to run on"
	fi
}

case_sim_mode() {
	local mode=$1 rxs=adaptive
	case $mode in
	io) rxs="poll intr adaptive" ;;
	rxonly) rxs="poll intr" ;;
	esac
	for rx in $rxs; do
		sim_run --forward-mode $mode --rx-mode $rx --duration 1 --stats-period 0.25 --json
		printf '%s\n' "$err" | grep -q "no device given and no RDMA adapter found: running on the simulated HCA" ||
			fail "$mode $rx: the default device is not announced"
		[ "$rc" = 0 ] || fail "$mode $rx: exit $rc"
		check_clean
		json_check 'summary["result"] == "pass"' 'summary["drained"]'
		case $mode in
		io | mac | macswap)
			# Every frame the source sent reached the sink intact.
			json_check '"sink" in summary' 'summary["sink"]["sent"] > 0' \
				'summary["sink"]["received"] == summary["sink"]["sent"]' \
				'summary["sink"]["missing"] == 0 and summary["sink"]["corrupt"] == 0' \
				'summary["sink"]["uncounted"] == 0' \
				'summary["sink"]["reordered"] == 0 and summary["sink"]["duplicates"] == 0' \
				'summary["ports"][1]["tx_packets"] == summary["sink"]["received"]'
			;;
		rxonly)
			json_check 'summary["ports"][0]["rx_packets"] > 0' \
				'summary["ports"][1]["tx_packets"] == 0'
			;;
		txonly | flowgen)
			# The sink takes them as foreign frames (not the source's).
			json_check '"sink" in summary' 'summary["sink"]["foreign"] > 0' \
				'all(p["tx_packets"] > 0 for p in summary["ports"])'
			;;
		esac
		if [ $rx != poll ] && [ $mode != txonly ] && [ $mode != flowgen ]; then
			# 10 ms bursts every 100 ms: the rx queue sleeps in between.
			json_check 'summary["ports"][0]["wakeups"] > 0' \
				'summary["ports"][0]["asleep_pct"] > 10' \
				'any(s["port"] == 0 and "wakeups_per_s" in s for s in stats)'
		fi
	done
}

case_sim_loss() {
	sim_run --duration 1 --json --sim drop=1
	[ "$rc" = 1 ] || fail "1% wire loss: exit $rc, expected 1"
	json_check 'summary["result"] == "fail"' 'summary["sink"]["missing"] > 0' \
		'summary["sink"]["wire_drops"] > 0' 'summary["lost"] > 0' \
		'summary["sink"]["uncounted"] == 0' \
		'summary["pool"]["in_use"] == 0'
	# Allowed by --max-loss: passes.
	sim_run --duration 1 --json --sim drop=1 --max-loss 5
	[ "$rc" = 0 ] || fail "1% wire loss with --max-loss 5: exit $rc"
	json_check 'summary["result"] == "pass"' 'summary["lost"] > 0'
}

# Frames in flight at the final stop: port 1's link partner pauses it for
# good (the sim's tx_hold), so its tx ring holds frames never sent when the
# ports stop. The driver counts them while stopping, and the summary is read
# after the stop: the ports' loss counters add up to exactly what the sink
# misses (sent = received + every loss counter), and the sink's verdict
# finds no frame seen by no counter.
case_sim_stop() {
	sim_run --duration 1 --json --sim tx_hold=on --tx-retry 0
	[ "$rc" = 1 ] || fail "sends held at the stop: exit $rc, expected 1"
	json_check 'summary["result"] == "fail"' 'summary["sink"]["sent"] > 0' \
		'summary["sink"]["received"] == 0' \
		'summary["sink"]["missing"] == summary["sink"]["sent"]' \
		'sum(p["imissed"] + p["rx_nombuf"] + p["errors"] + p["fwd_dropped"] for p in summary["ports"]) == summary["sink"]["missing"]' \
		'summary["ports"][1]["errors"] > 0' \
		'summary["sink"]["uncounted"] == 0' 'not summary["drained"]' \
		'summary["lost"] == summary["sink"]["missing"]' \
		'summary["pool"]["in_use"] == 0'
}

case_sim_text() {
	sim_run --duration 1.2 --stats-period 0.5
	[ "$rc" = 0 ] || fail "default run: exit $rc"
	printf '%s\n' "$out" | grep -q "^ *0.5s port 0  rx .* Mpps .* Gbit/s | tx .* | drops: imissed [0-9]* rx_nombuf [0-9]* errors [0-9]* fwd [0-9]* | [0-9]* wakeups/s, [0-9.]*% asleep$" ||
		fail "no stats line for port 0"
	printf '%s\n' "$out" | grep -q "^Summary after" || fail "no summary"
	printf '%s\n' "$out" | grep -q "^sink: source sent [1-9][0-9]*, sink received [1-9][0-9]* intact: missing 0" ||
		fail "no sink verdict"
	printf '%s\n' "$out" | grep -q "^result: PASS" || fail "no PASS"
	# Not a terminal: no colour codes.
	printf '%s\n' "$out" | grep -q $'\033' && fail "colour codes in output that is not a terminal"
	true
}

# Two dvp-fwd joined by memif (each its own file prefix, an abstract socket
# named after this test): memif_server ARGS... starts the server in the
# background (pid in $srv_pid) and waits until it forwards; memif_server_end
# stops it with SIGINT and collects it.
memif_sock=dvp-test-fwd-$$
memif_server() {
	local t=0
	srv_out=$(mktemp)
	"$fwd" --no-huge $LCORES --file-prefix fs$$ \
		--vdev net_memif0,role=server,socket=$memif_sock -- "$@" >"$srv_out" 2>&1 &
	srv_pid=$!
	at_exit '[ -n "${srv_pid:-}" ] && kill -KILL $srv_pid 2>/dev/null; rm -f "${srv_out:-}"'
	while ! grep -q "forwarding, " "$srv_out" && [ $t -lt 200 ]; do
		sleep 0.05
		t=$((t + 1))
	done
	grep -q "forwarding, " "$srv_out" || { out=$(cat "$srv_out"); fail "the memif server did not start"; }
}
memif_server_end() {
	kill -INT $srv_pid 2>/dev/null
	wait $srv_pid && srv_rc=0 || srv_rc=$?
	srv_pid=
	srv_log=$(cat "$srv_out")
	rm -f "$srv_out"
}
memif_client() {
	run timeout 60 "$fwd" --no-huge $LCORES --file-prefix fc$$ \
		--vdev net_memif0,role=client,socket=$memif_sock -- "$@"
}

# Frames still on a memif ring when the sender stops are lost, and the
# verdict says so: the server sends only (txonly) and never reads what the
# client sends, so the client's ring is full when it stops; the stop waits
# for a peer that takes nothing, then counts them (oerrors): exit 1.
case_memif_stop() {
	memif_server --forward-mode txonly --stats-period 0
	memif_client --forward-mode txonly --duration 1 --stats-period 0 --json
	memif_server_end
	[ "$rc" = 1 ] || fail "frames left on the ring at the stop: exit $rc, expected 1"
	printf '%s\n' "$err" | grep -q "frames the peer had not taken when the connection went down" ||
		fail "no line for the frames left on the ring"
	json_check 'summary["result"] == "fail"' 'summary["ports"][0]["tx_packets"] > 0' \
		'summary["ports"][0]["errors"] >= 1024' 'summary["lost"] >= 1024' \
		'summary["pool"]["in_use"] == 0'
}

# --tx-first sends on links that are up: the memif client's comes up after
# it connects, the server's when a client comes. The first burst waits for
# them (io forwarding both ways then keeps it going); with no peer at all it
# gives up after 9 s with a line, and sends nothing.
case_memif_tx_first() {
	memif_server --stats-period 0
	memif_client --tx-first --duration 1 --stats-period 0 --json
	memif_server_end
	[ "$rc" = 0 ] || fail "client --tx-first: exit $rc"
	json_check 'summary["result"] == "pass"' 'summary["ports"][0]["rx_packets"] > 0' \
		'summary["ports"][0]["tx_packets"] > 32'
	# The server waits for its client, saying so.
	srv_out=$(mktemp)
	"$fwd" --no-huge $LCORES --file-prefix fs$$ --vdev net_memif0,role=server,socket=$memif_sock \
		-- --tx-first --duration 2 --stats-period 0 --json >"$srv_out" 2>&1 &
	srv_pid=$!
	# Its socket listens before it says so: our client connects at once.
	wait_file "$srv_out" "waiting up to 9 s for the link" ||
		{ out=$(cat "$srv_out"); fail "the --tx-first server did not say it waits"; }
	memif_client --duration 1 --stats-period 0 --json
	wait $srv_pid && srv_rc=0 || srv_rc=$?
	srv_pid=
	srv_log=$(cat "$srv_out")
	rm -f "$srv_out"
	# A failure shows the server's lines under the client's.
	err=$(printf '%s\n---- the server:\n%s' "$err" "$srv_log")
	[ "$rc" = 0 ] || fail "client of a --tx-first server: exit $rc"
	json_check 'summary["ports"][0]["rx_packets"] > 0'
	printf '%s\n' "$srv_log" | grep -q "waiting up to 9 s for the link of 1 port to come up" ||
		{ out=$srv_log; fail "the server's --tx-first line is not whole"; }
	# Nobody to connect to: a line after the wait, nothing sent.
	memif_client --tx-first --duration 0.2 --stats-period 0 --json
	printf '%s\n' "$err" | grep -q "port 0 (net_memif0): link still down after 9 s: no first burst sent on it" ||
		fail "no line for a link that never came up"
	json_check 'summary["ports"][0]["tx_packets"] == 0'
}

case $case_ in
args) case_args ;;
ring-io) case_ring_io ;;
ring-mac) case_ring_mac ;;
ring-gen) case_ring_gen ;;
signal) case_signal ;;
sim-loss) case_sim_loss ;;
sim-stop) case_sim_stop ;;
sim-text) case_sim_text ;;
memif-stop) case_memif_stop ;;
memif-tx-first) case_memif_tx_first ;;
sim-*) case_sim_mode "${case_#sim-}" ;;
*) echo "unknown case '$case_'"; exit 2 ;;
esac
echo "dvp-fwd $case_: ok"
