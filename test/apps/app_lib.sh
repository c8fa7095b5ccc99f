# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# Shared by the app-level tests (sourced): lcores, failing with context,
# skipping, and checks on the programs' JSON output.

# Two lcores on the CPUs this process may use: two CPUs when there are,
# else both on the one (the EAL floats them).
app_lcores() {
	local cpus
	cpus=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
	set -- $(echo "$cpus" | awk -F, '{ for (i = 1; i <= NF; i++) { n = split($i, r, "-");
		if (n == 1) print r[1]; else for (c = r[1]; c <= r[2]; c++) print c } }' | head -n2)
	if [ $# -ge 2 ]; then
		echo "-l $1,$2 --main-lcore $1"
	else
		echo "--lcores (0-1)@$1"
	fi
}
LCORES=$(app_lcores)

# The programs' runtime directories (dpdk/<file-prefix>, where the telemetry
# socket is) go under one of this test's own: RUNTIME_DIRECTORY, which
# dvpmd, DPDK and dpdk-telemetry.py honour. A clean exit removes what it
# made, so when the test ends nothing may be left there: what the test
# kills it removes itself (at_exit). Tests running side by side never see
# each other's.
app_rundir=$(mktemp -d)
export RUNTIME_DIRECTORY=$app_rundir
app_exit_cmds=()

# at_exit COMMAND: run COMMAND (eval'd) when the test ends, before the check.
at_exit() {
	app_exit_cmds+=("$1")
}

app_on_exit() {
	local rc=$? c left
	for c in "${app_exit_cmds[@]}"; do
		eval "$c"
	done
	left=$(ls -A "$app_rundir/dpdk" 2>/dev/null | tr '\n' ' ')
	rm -rf "$app_rundir"
	if [ "$rc" = 0 ] && [ -n "$left" ]; then
		echo "FAIL: runtime directories left behind by programs that exited: $left"
		exit 1
	fi
	exit $rc
}
trap app_on_exit EXIT

fail() {
	echo "FAIL: $*"
	[ -n "${out:-}" ] && printf '%s\n' "$out" | tail -n 40
	[ -n "${err:-}" ] && printf 'stderr:\n%s\n' "$err" | tail -n 20
	exit 1
}

skip() {
	echo "SKIP: $*"
	exit 77
}

command -v python3 >/dev/null || skip "python3 is needed to read the programs' JSON (usertools/install-deps)"

# Run a command with stdout in $out, stderr in $err, status in $rc.
run() {
	local e
	e=$(mktemp)
	out=$("$@" 2>"$e") && rc=0 || rc=$?
	err=$(cat "$e")
	rm -f "$e"
}

# json_check PYTHON-EXPRESSION...: each must hold for the JSON lines of
# $out, bound as `lines` (every object), `summary` (the last of type
# summary), `stats` (those of type stats), `config` and `doc` (the first
# object, for programs printing one).
json_check() {
	printf '%s\n' "$out" | python3 -c '
import json, sys
lines = [json.loads(l) for l in sys.stdin if l.strip()]
summary = next((l for l in reversed(lines) if l.get("type") == "summary"), None)
stats = [l for l in lines if l.get("type") == "stats"]
config = next((l for l in lines if l.get("type") == "config"), None)
doc = lines[0] if lines else None
for expr in sys.argv[1:]:
    try:
        ok = eval(expr)
    except Exception as e:
        print("check %r raised %r" % (expr, e)); sys.exit(1)
    if not ok:
        print("check failed: %s" % expr); sys.exit(1)
' "$@" || fail "JSON checks"
}

# wait_file FILE REGEX [SECONDS]: until FILE has a line matching REGEX (60 s
# by default: a loaded machine makes a program slow, not wrong).
wait_file() {
	local f=$1 re=$2 i
	for i in $(seq $((${3:-60} * 10))); do
		grep -qE -- "$re" "$f" 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

# wait_thread_asleep PID COMM-GLOB [SECONDS]: until a thread of PID named
# COMM-GLOB sleeps in epoll_wait (its wchan): what shows that an lcore is
# asleep on its queues.
wait_thread_asleep() {
	local pid=$1 comm=$2 i t c
	for i in $(seq $((${3:-60} * 10))); do
		for t in /proc/"$pid"/task/*; do
			c=$(cat "$t/comm" 2>/dev/null)
			# shellcheck disable=SC2053
			[[ $c == $comm ]] || continue
			case $(cat "$t/wchan" 2>/dev/null) in
			*ep_poll* | *epoll_wait*) return 0 ;;
			esac
		done
		sleep 0.1
	done
	return 1
}
