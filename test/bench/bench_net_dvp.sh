#!/bin/bash
# net_dvp against native dvpmd: what hosting a dvp port in a DPDK
# application costs per forwarded packet (doc/dpdk.md, doc/perf.md).
#
# Usage: bench_net_dvp.sh DVP_FWD PLUGIN WORKDIR
#
# The same simulated HCA in both cases (two ports, each with a traffic
# source of COUNT frames and a sink), forwarded in io mode, poll mode,
# burst 32, 1024 rx and tx descriptors, a pool of 8192 mbufs with a
# 256-mbuf lcore cache (dvp-fwd's), by one lcore:
#   native  dvp-fwd on dvpmd's EAL;
#   hosted  Debian's dpdk-testpmd with net_dvp loaded (-d).
# Each runs under callgrind; counted are the instructions executed inside
# the burst functions only (each call's inclusive cost, from a caller that
# is none of them): mlx5's rx and tx bursts for dvp-fwd; for testpmd,
# net_dvp's tx burst (which calls mlx5's) and the rx burst ethdev calls
# (mlx5's itself where the ethdev and dvp port numbers agree, as here,
# else net_dvp's, which calls it). Valgrind runs one
# thread at a time, so the sim's thread fills the rx rings while the
# forwarder waits, and bursts come full: the count is the forwarding work
# per packet, not the cost of polling faster than a slow source.
#
# The forwarder still polls empty rings between the sim's turns. An empty
# poll runs the same instructions every time, so the run is dumped every
# few seconds until a dump has no tx burst (the sources are done); that
# dump, all empty polls, gives the cost of one, and the instructions of
# the polls that brought nothing (rx calls less tx calls: io forwarding
# sends once per non-empty rx burst) are taken off the rest:
#   per packet = (rx + tx instructions - empty polls x cost of one) / packets
# With hundreds of polls a packet, this holds only while an empty poll
# costs the same whatever the queues hold (mlx5's rx stop check has no
# branch on the CQE it stopped at for this reason; doc/perf.md says how
# to check it with per-line counts).
#
# The same run also gives the whole io forwarding function's instructions
# per packet, end to end (the bursts, the mbufs' way back to the pool, the
# application's loop and counters): the function that calls both bursts,
# inclusive, its empty polls taken off in the same way with the cost of
# one from the quiet dump. For dvp-fwd that is fwd_lcore_main (its poll
# loop inlined, the loop's own instructions counted); for testpmd
# pkt_burst_io_forward, one call per stream and poll (Debian's binary is
# stripped: callgrind names it by its address), testpmd's loop around it
# not counted. No cycles: the device runs on its own thread, and a TSC
# count cannot leave its work out (bench_fwd_e2e steps the device instead).
#
# DVP_BENCH_COUNT frames per source (default 50000). Prints a
# NET_DVP_FWD and a FWD_E2E line per case and, last:
#   VS-NATIVE net_dvp_fwd ratio=<hosted / native instructions per packet>
#   PERF fwd_e2e_hosted instr_per_pkt=<n>
#   PERF fwd_e2e_native_thread instr_per_pkt=<n>
#   VS-NATIVE fwd_e2e ratio=<hosted / native> hosted=<n> native=<n>
# The goal of net_dvp_fwd is at most 1.03 (doc/perf.md).
set -u
fwd=$1
plugin=$2
work=$3/bench_net_dvp
count=${DVP_BENCH_COUNT:-50000}
step=10
limit=900

skip() {
	echo "SKIP: $*"
	exit 77
}
command -v dpdk-testpmd >/dev/null || skip "dpdk-testpmd not found (Debian package dpdk-dev)"
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null ||
	skip "valgrind not found (Debian package valgrind)"
command -v python3 >/dev/null || skip "python3 not found"
[ "$(id -u)" = 0 ] || skip "not root"
[ -f "$plugin" ] || skip "no net_dvp plugin at $plugin"
rm -rf "$work"
mkdir -p "$work/pmd"
chmod 755 "$work" "$work/pmd"
cp "$plugin" "$work/pmd/"
sim="sim_mlx5,ports=2,cable=traffic,count=$count"
pid=
trap '[ -n "$pid" ] && kill -KILL $pid 2>/dev/null; rm -rf /var/run/dpdk/nbench$$' EXIT

fail() {
	echo "FAIL: $*" >&2
	[ -n "$pid" ] && kill -KILL $pid 2>/dev/null
	exit 1
}

# cg MODE FILE PATTERN... (callgrind format; patterns as fnmatch):
#   sum      "calls inclusive_ir" of the functions matching a pattern, as
#            called from functions that match none;
#   callers  the functions that call one matching a pattern and match none
#            themselves, one a line;
#   fn       "calls inclusive_ir" of the functions matching a pattern, the
#            inclusive cost taken as their own instructions plus those of
#            their calls to functions that match none: right for a function
#            still running at the dump (dvp-fwd's lcore loop), whose call
#            line is written only when it returns.
cg() {
	python3 - "$@" <<'EOF'
import fnmatch, re, sys
mode, path, pats = sys.argv[1], sys.argv[2], sys.argv[3:]
names, calls, incl, callers = {}, 0, 0, set()
def name(tok):
    m = re.match(r'\((\d+)\)(?:\s+(.*))?', tok)
    if not m:
        return tok
    if m.group(2):
        names[m.group(1)] = m.group(2)
    return names.get(m.group(1), tok)
def ours(f):
    return any(fnmatch.fnmatch(f, p) for p in pats)
fn = cfn = None
call = False
for line in open(path):
    if line.startswith('fn='):
        fn, cfn = name(line[3:].strip()), None
    elif line.startswith('cfn='):
        cfn = name(line[4:].strip())
    elif line.startswith('calls='):
        call = True
        if ours(cfn) and not ours(fn):
            calls += int(line[6:].split()[0])
            callers.add(fn)
    elif line[:1] in '0123456789+-*':
        parts = line.split()
        ir = int(parts[1]) if len(parts) > 1 else 0
        if call:
            if mode == 'sum' and ours(cfn) and not ours(fn):
                incl += ir
            elif mode == 'fn' and ours(fn) and not ours(cfn):
                incl += ir
        elif mode == 'fn' and ours(fn):
            incl += ir
        call = False
if mode == 'callers':
    if callers:
        print('\n'.join(sorted(callers)))
else:
    print(calls, incl)
EOF
}

# cg_sum FILE PATTERN...: cg sum.
cg_sum() {
	cg sum "$@"
}

# run KIND: the case under callgrind, dumped every $step s until the
# sources are done; prints "packets polls bursts rx_ir tx_ir empty_ir_per_poll"
run() {
	local kind=$1 log=$work/$1.log out=$work/$1.cg rx tx
	if [ "$kind" = native ]; then
		rx=('mlx5_rx_burst*')
		tx=('mlx5_tx_burst*')
		valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$out" \
			"$fwd" --lcores 0@0,1@1 --no-huge --vdev "$sim" -- --forward-mode io \
			--rx-mode poll --rxd 1024 --txd 1024 --total-num-mbufs 8192 \
			--duration 100000 --stats-period 0 --max-loss 100 </dev/null >"$log" 2>&1 &
	else
		# Where the ethdev and dvp port numbers agree (here), ethdev calls
		# mlx5's rx burst itself; else net_dvp's, which calls it.
		rx=('net_dvp_rx_burst*' 'mlx5_rx_burst*')
		tx=('net_dvp_tx_burst*')
		valgrind --tool=callgrind --fair-sched=yes --callgrind-out-file="$out" \
			dpdk-testpmd --lcores 0@0,1@1 --no-huge -m 512 --no-pci --file-prefix nbench$$ \
			-d "$work/pmd/$(basename "$plugin")" --vdev "net_dvp0,$sim" -- \
			--forward-mode=io --no-lsc-interrupt --no-flush-rx --stats-period 100000 \
			--rxd=1024 --txd=1024 --total-num-mbufs=8192 --mbcache=256 \
			</dev/null >"$log" 2>&1 &
	fi
	pid=$!
	local part=0 t=0 busy=0 r x quiet=
	while [ -z "$quiet" ]; do
		sleep $step
		t=$((t + step))
		kill -0 $pid 2>/dev/null || { tail -n 20 "$log" >&2; fail "$kind exited early (log $log)"; }
		[ $t -le $limit ] || fail "$kind: the sources were not done after $limit s (log $log)"
		callgrind_control -d $pid >/dev/null 2>&1 || continue
		part=$((part + 1))
		[ -f "$out.$part" ] || fail "$kind: no callgrind dump $out.$part"
		x=$(cg_sum "$out.$part" "${tx[@]}")
		if [ "${x%% *}" != 0 ]; then
			busy=1
		elif [ $busy = 1 ]; then
			quiet=$part
		fi
	done
	kill -INT $pid
	wait $pid
	pid=
	local calls=0 rx_ir=0 tx_ir=0 bursts=0 c i p q packets
	[ -f "$out" ] || fail "$kind: no callgrind output $out at exit"
	# Every part, the quiet one and the last (written at exit) too: all of
	# the work is counted, whatever came after a quiet spell.
	for p in $(seq "$quiet") ""; do
		p=$out${p:+.$p}
		read -r c i < <(cg_sum "$p" "${rx[@]}")
		calls=$((calls + c))
		rx_ir=$((rx_ir + i))
		read -r c i < <(cg_sum "$p" "${tx[@]}")
		bursts=$((bursts + c))
		tx_ir=$((tx_ir + i))
	done
	read -r q i < <(cg_sum "$out.$quiet" "${rx[@]}")
	# The forwarding function: the one that calls the tx burst, which must
	# call the rx burst too (io forwarding; port start calls rx too).
	local f g fwd_ir=0 fq
	f=$(for p in $(seq "$quiet") ""; do cg callers "$out${p:+.$p}" "${tx[@]}"; done | sort -u)
	g=$(for p in $(seq "$quiet") ""; do cg callers "$out${p:+.$p}" "${rx[@]}"; done | sort -u)
	[ -n "$f" ] && [ "$(echo "$f" | wc -l)" = 1 ] && echo "$g" | grep -qxF "$f" ||
		fail "$kind: not one function calls both bursts (tx from: $f; rx from: $g)"
	for p in $(seq "$quiet") ""; do
		read -r c x < <(cg fn "$out${p:+.$p}" "$f")
		fwd_ir=$((fwd_ir + x))
	done
	read -r c fq < <(cg fn "$out.$quiet" "$f")
	if [ "$kind" = native ]; then
		packets=$(awk '/^lcore/ { getline; print $3; exit }' "$log")
	else
		packets=$(sed -n 's/^ *RX-packets: *\([0-9]*\).*/\1/p' "$log" | tail -n 1)
	fi
	[ "$packets" = $((2 * count)) ] || fail "$kind forwarded ${packets:-?} packets, not $((2 * count)) (log $log)"
	echo "$packets $calls $bursts $rx_ir $tx_ir $(awk -v i="$i" -v q="$q" 'BEGIN { printf "%.3f", i / q }')" \
		"$fwd_ir $(awk -v i="$fq" -v q="$q" 'BEGIN { printf "%.3f", i / q }') $f"
}

for kind in native hosted; do
	set -- $(run $kind) || exit 1
	[ $# = 9 ] || exit 1
	awk -v k=$kind -v p="$1" -v r="$2" -v b="$3" -v rx="$4" -v tx="$5" -v e="$6" 'BEGIN {
		w = rx + tx - (r - b) * e
		printf "NET_DVP_FWD case=%s packets=%d bursts=%d pkts_per_burst=%.1f polls=%d empty_poll_ir=%s rx_ir_per_pkt=%.1f tx_ir_per_pkt=%.1f ir_per_pkt=%.1f\n",
			k, p, b, p / b, r, e, (rx - (r - b) * e) / p, tx / p, w / p
	}'
	eval "${kind}_ir=$(awk -v p="$1" -v r="$2" -v b="$3" -v rx="$4" -v tx="$5" -v e="$6" 'BEGIN { printf "%.3f", (rx + tx - (r - b) * e) / p }')"
	# The forwarding function whole, its empty polls taken off the same way.
	eval "${kind}_fwd_ir=$(awk -v p="$1" -v r="$2" -v b="$3" -v f="$7" -v e="$8" 'BEGIN { printf "%.3f", (f - (r - b) * e) / p }')"
	echo "FWD_E2E case=$kind function=$9 empty_poll_ir=$8"
done
awk -v h="$hosted_ir" -v n="$native_ir" 'BEGIN { printf "VS-NATIVE net_dvp_fwd ratio=%.3f\n", h / n }'
# End to end: the io forwarding function's inclusive instructions per
# forwarded packet (testpmd's pkt_burst_io_forward, stripped in Debian's
# binary so named by its address; dvp-fwd's fwd_lcore_main, where the poll
# loop is inlined). No cycles: with the device on its own thread they
# cannot leave the device's work out (bench_fwd_e2e steps it instead).
awk -v h="$hosted_fwd_ir" 'BEGIN { printf "PERF fwd_e2e_hosted instr_per_pkt=%.1f\n", h }'
awk -v n="$native_fwd_ir" 'BEGIN { printf "PERF fwd_e2e_native_thread instr_per_pkt=%.1f\n", n }'
awk -v h="$hosted_fwd_ir" -v n="$native_fwd_ir" 'BEGIN { printf "VS-NATIVE fwd_e2e ratio=%.3f hosted=%.1f native=%.1f\n", h / n, h, n }'
echo "(no cycles for fwd_e2e_hosted: the device runs on its own thread and its work cannot be left out of a TSC count; bench_fwd_e2e gives native cycles with the device stepped)"
