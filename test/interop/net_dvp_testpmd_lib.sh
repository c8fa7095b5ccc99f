# Sourced by the interop scripts that drive Debian's dpdk-testpmd with the
# net_dvp plugin (after net_dvp_lib.sh): one testpmd session, fed commands
# through a FIFO, its output in a log the functions below read.
#
# tp_start LOG FIFO EAL_AND_APP_ARGS...
#   Start testpmd (-l 0-1 and the plugin's copy are the caller's to give),
#   with the sanitizer runtimes preloaded when the plugin needs them, its
#   output line-buffered into LOG. Sets tp_pid and tp_out.
# cmd TEXT      a testpmd command
# fail TEXT     FAIL, the end of testpmd's output, exit 1
# wait_for N RE SECONDS   until LOG has N lines matching RE (false if testpmd ended)
# xstat NAME PORT         the last value of an xstat `show port xstats` printed (-1: none)
# tp_dropped PORT         testpmd's TX-dropped of PORT over every forwarding session
# tp_fwd_rx PORT          its RX-packets of PORT over every forwarding session (the
#                         lines of each stream, with several queues, are no port's)
# tp_quit       stop, quit, wait (30 s at most); fails on a hang or a bad status
# tp_cleanup    from the caller's EXIT trap: ends a testpmd still running
# tp_case NAME PREFIX
#   The start of a case script (with $plugin, $work and $mem set): skip
#   (77) without dpdk-testpmd or root; $dir = WORKDIR/NAME.MEM made afresh,
#   $prefix = PREFIX<pid>, testpmd and the plugin's copy cleaned up at exit,
#   the plugin copied, memory and DPDK's prefix set up (net_dvp_lib.sh).

tp_pid=
tp_out=

tp_start() {
	local fifo=$2 preload= lib stdbuf_lib
	tp_out=$1
	shift 2
	# A plugin built with ASan+UBSan (the sanitizer build) needs their runtimes
	# loaded first into testpmd, which was built without them. Leak checking is
	# off: testpmd itself does not free everything at exit.
	for lib in $(readelf -d "$ndvp_plugin" | sed -n 's/.*NEEDED.*\[\(lib\(asan\|ubsan\)\.so[.0-9]*\)\]/\1/p'); do
		preload="$preload:$(gcc -print-file-name="$lib")"
	done
	if [ -n "$preload" ]; then
		export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:halt_on_error=1
		export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
		echo "plugin built with sanitizers: preloading${preload//:/ }"
	fi
	# testpmd's output line by line into its log, as stdbuf -oL does (by hand,
	# so that the sanitizer runtimes come first in the preload list).
	stdbuf_lib=$(ls /usr/libexec/coreutils/libstdbuf.so /usr/lib/*/coreutils/libstdbuf.so 2>/dev/null | head -n 1)
	[ -n "$stdbuf_lib" ] || skip "coreutils' libstdbuf.so not found"
	rm -f "$fifo"
	mkfifo "$fifo" || exit 1
	LD_PRELOAD="${preload#:}${preload:+:}$stdbuf_lib" _STDBUF_O=L _STDBUF_E=L \
		dpdk-testpmd "$@" <"$fifo" >"$tp_out" 2>&1 &
	tp_pid=$!
	exec 3>"$fifo"
}

cmd() { echo "$*" >&3; }

fail() {
	echo "FAIL: $*"
	echo "---- the end of testpmd's output ($tp_out):"
	tail -n 40 "$tp_out"
	exit 1
}

wait_for() {
	local want=$1 re=$2 tmo=$3 i
	for i in $(seq $((tmo * 10))); do
		[ "$(grep -cE "$re" "$tp_out")" -ge "$want" ] && return 0
		kill -0 "$tp_pid" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

xstat() {
	awk -v name="$1" -v port="$2" '
		/NIC extended statistics for port/ { p = $NF }
		p == port && $1 == name ":" { v = $2 }
		END { print v == "" ? -1 : v }' "$tp_out"
}

tp_dropped() {
	awk -v port="$1" '
		BEGIN { p = -1 }
		/Forward statistics for port/ { p = $(NF - 1); next }
		/Forward Stats for RX Port|Accumulated forward statistics/ { p = -1 }
		p == port && /TX-dropped:/ { s += $4 }
		END { print s + 0 }' "$tp_out"
}

tp_fwd_rx() {
	awk -v port="$1" '
		BEGIN { p = -1 }
		/Forward statistics for port/ { p = $(NF - 1); next }
		/Forward Stats for RX Port|Accumulated forward statistics/ { p = -1 }
		p == port && /RX-packets:/ { s += $2 }
		END { print s + 0 }' "$tp_out"
}

tp_quit() {
	local rc
	cmd "quit"
	for _ in $(seq 300); do kill -0 "$tp_pid" 2>/dev/null || break; sleep 0.1; done
	kill -0 "$tp_pid" 2>/dev/null && fail "testpmd did not quit within 30 s"
	wait "$tp_pid"
	rc=$?
	tp_pid=
	exec 3>&-
	[ $rc = 0 ] || fail "testpmd exited with status $rc"
}

tp_cleanup() {
	exec 3>&- 2>/dev/null
	if [ -n "$tp_pid" ] && kill -0 "$tp_pid" 2>/dev/null; then
		kill -INT "$tp_pid" 2>/dev/null
		for _ in $(seq 50); do kill -0 "$tp_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$tp_pid" 2>/dev/null
	fi
	tp_pid=
}

tp_case() {
	if ! command -v dpdk-testpmd >/dev/null; then
		echo "SKIP: dpdk-testpmd not found (Debian package dpdk-dev)"
		exit 77
	fi
	if [ "$(id -u)" != 0 ]; then
		echo "SKIP: not root: DPDK's testpmd needs root"
		exit 77
	fi
	dir=$work/$1.$mem
	prefix=$2$$
	trap 'tp_cleanup; ndvp_cleanup' EXIT
	trap 'exit 130' INT TERM
	rm -rf "$dir"
	mkdir -p "$dir" || exit 1
	ndvp_plugin_copy "$plugin" "$work"
	ndvp_mem "$mem" 1024
	ndvp_dpdk_prefix "$prefix"
}
