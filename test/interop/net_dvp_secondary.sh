#!/bin/bash
# DPDK secondary processes on net_dvp ports: Debian's dpdk-proc-info and
# dpdk-dumpcap, and our own application, against a running dpdk-testpmd
# (the primary) that forwards between two net_dvp ports on the sim.
#
# Usage: net_dvp_secondary.sh APP PLUGIN WORKDIR PMD_DIR MEM
#   APP      net_dvp_app (its --secondary mode)
#   PMD_DIR  DPDK's plugin directory (/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0)
#   MEM      huge | no-huge (testpmd's memory, as net_dvp_lib.sh's ndvp_mem)
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# With --no-huge, DPDK 22.11's secondary EAL cannot map the primary's
# memory: rte_eal_init panics (no hugepage_data in the runtime directory)
# before any driver loads. So the no-huge case checks what is net_dvp's
# part there: our application and proc-info started as secondaries end in
# DPDK's refusal, and testpmd forwards on over net_dvp untouched and quits
# cleanly. Should a secondary start (another DPDK), the case goes on with
# every check of the hugepage case.
#
# - our application as a secondary (-d, --proc-type=secondary): the two
#   ports with info, link, stats and xstats read from the primary,
#   configuration refused, rx and tx bursts refused and counted, the
#   primary forwarding on (net_dvp_app.c says what it checks);
# - dpdk-proc-info --stats and --xstats: both ports, the sim's counters;
#   once testpmd has stopped forwarding and nothing moves, every xstat
#   proc-info shows equals what testpmd shows;
# - dpdk-dumpcap -i 0 -c 1000: the capture holds 1000 frames of port 0,
#   each byte for byte the sim's frame (net_dvp_pcapng.py): those received
#   in the order port 0's source sent them, those sent (forwarded from
#   port 1) in the order port 1's source sent them, no frame missing but
#   those dumpcap counts as dropped.
#
# dumpcap has no -d: it loads DPDK's plugins from PMD_DIR only. So, for the
# proc-info and dumpcap runs, a copy of the plugin goes into PMD_DIR, named
# librte_net_dvp-test-<pid>.so, and is removed after them (and by the EXIT
# trap). DPDK loads every .so there, so two copies would both load: the
# runs hold a lock on PMD_DIR (flock) meanwhile and remove any such copy
# they find there (one a killed run left). A primary started with -d meanwhile loads its
# own copy first, and a second net_dvp that loads after it never probes.
set -u
app=$1
plugin=$2
work=$3
pmd_dir=$4
mem=$5
count=1000
# What DPDK's secondary EAL says when it cannot map a --no-huge primary's memory.
eal_refused='Cannot get hugepage information|Cannot init memory'

skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: DPDK needs root"
for t in dpdk-testpmd dpdk-proc-info dpdk-dumpcap; do
	command -v $t >/dev/null || skip "$t not found (Debian package dpdk-dev)"
done
command -v python3 >/dev/null || skip "no python3 to read the capture"
command -v nm >/dev/null || skip "no nm (binutils) to find DPDK's mempool drivers"
[ -d "$pmd_dir" ] || skip "no DPDK plugin directory $pmd_dir"
# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
# shellcheck source=net_dvp_testpmd_lib.sh
. "$(dirname "$0")/net_dvp_testpmd_lib.sh"

dir=$work/net_dvp_secondary
prefix=ndvpsec$$
auto=$pmd_dir/librte_net_dvp-test-$$.so
cleanup() {
	rm -f "$auto"
	tp_cleanup
	ndvp_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$dir"
mkdir -p "$dir" || exit 1
ndvp_plugin_copy "$plugin" "$work"
ndvp_mem "$mem" 1024
ndvp_dpdk_prefix "$prefix"

# Frames of three lengths and three flows, 2000 a second from each port's source.
sizes=60,512,1514
flows=3
# shellcheck disable=SC2086 # ndvp_eal_mem is several arguments, or none
tp_start "$dir/testpmd.log" "$dir/cmd" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
	--log-level=pmd.net.dvp*:info -d "$ndvp_plugin" \
	--vdev "net_dvp0,sim_mlx5,ports=2,cable=traffic,rate=2000,sizes=[$sizes],flows=$flows" \
	-- -i --forward-mode=io --no-flush-rx
wait_for 1 'testpmd> ' 60 || fail "testpmd did not start"
grep -q "net_dvp0: sim_mlx5 gives 2 port" "$tp_out" || fail "net_dvp did not make two ports"
mac0=$(sed -n 's/^Port 0: \([0-9A-F:]\{17\}\)$/\1/p' "$tp_out" | head -n 1)
mac1=$(sed -n 's/^Port 1: \([0-9A-F:]\{17\}\)$/\1/p' "$tp_out" | head -n 1)
[ -n "$mac0" ] && [ -n "$mac1" ] || fail "testpmd printed no MAC address for its ports"
cmd "start"
wait_for 1 'packet forwarding - ports=' 30 || fail "testpmd did not start forwarding"

# testpmd's RX-packets of port $1 now (show port stats).
tp_rx_now() {
	local before
	before=$(grep -c 'NIC statistics for port' "$tp_out")
	cmd "show port stats $1"
	wait_for $((before + 1)) 'NIC statistics for port' 10 || fail "testpmd did not show its stats"
	sleep 0.2
	awk '/RX-packets:/ { v = $2 } END { print v + 0 }' "$tp_out"
}

# --no-huge: DPDK's secondary EAL refused to start (our application's log
# says so); proc-info's is refused as well, and testpmd forwards on.
no_huge_refused() {
	local rx0 rx1
	echo "net_dvp_app: $(grep -m1 -E "$eal_refused" "$dir/app.log")"
	rx0=$(tp_rx_now 0)
	# DPDK's refusal is a panic (abort): no core file of it.
	(ulimit -c 0; exec timeout -k 5 60 dpdk-proc-info --file-prefix "$prefix" -d "$ndvp_plugin" -- --stats) \
		>"$dir/proc-info-stats.log" 2>&1 && fail "dpdk-proc-info started as a secondary of a --no-huge primary: run every check (this script's no-huge case expects DPDK's refusal)"
	grep -qE "$eal_refused" "$dir/proc-info-stats.log" ||
		fail "dpdk-proc-info failed otherwise than by DPDK's refusal: $(tail -n 5 "$dir/proc-info-stats.log")"
	grep -q '^net_dvp: ' "$dir/proc-info-stats.log" "$dir/app.log" &&
		fail "net_dvp ran in a secondary that DPDK refused"
	sleep 1
	rx1=$(tp_rx_now 0)
	[ "$rx1" -gt "$rx0" ] || fail "testpmd stopped receiving on port 0 after the secondaries' attempts ($rx0 then $rx1)"
	tp_quit
	echo "PASS: --no-huge: DPDK's secondary EAL refuses to attach (our application and dpdk-proc-info: '$(grep -m1 -oE "$eal_refused" "$dir/app.log")'), testpmd forwards on over net_dvp (port 0 RX-packets $rx0 then $rx1) and quits cleanly"
	exit 0
}

# Our application as a secondary: loads the plugin with -d, as the primary did.
echo "== net_dvp_app --secondary"
timeout -k 5 60 "$app" -l 1 --proc-type=secondary --file-prefix "$prefix" --no-pci \
	-d "$ndvp_plugin" --log-level=pmd.net.dvp*:info -- --secondary >"$dir/app.log" 2>&1
rc=$?
if [ $rc != 0 ] && [ "$mem" = no-huge ] && grep -qE "$eal_refused" "$dir/app.log"; then
	no_huge_refused
fi
[ $rc = 0 ] || { tail -n 20 "$dir/app.log"; fail "net_dvp_app --secondary failed (status $rc)"; }
grep 'PASS' "$dir/app.log"
grep -q 'tx_burst in a secondary process: refused' "$dir/app.log" ||
	fail "no line said the secondary's tx_burst was refused"
kill -0 "$tp_pid" 2>/dev/null || fail "testpmd ended while the secondary ran"

# DPDK's mempool ops are numbered in the order a process registers them, and
# a pool carries its number: testpmd registers those of the mempool drivers
# it is linked with (Debian's: librte_mempool_dpaa) before the plugins, and
# dumpcap does not, so dumpcap's capture pool would be another pool's ops in
# testpmd, which could not allocate from it (every frame counted dropped).
# dumpcap gets the same drivers preloaded, in the same order.
ops_libs() {
	ldd "$1" | awk '/=>/ { print $3 }' | while read -r l; do
		nm -D "$l" 2>/dev/null | grep -qE ' U rte_mempool_register_ops(@|$)' && echo "$l"
	done
}
preload=
for l in $(ops_libs "$(command -v dpdk-testpmd)"); do
	ops_libs "$(command -v dpdk-dumpcap)" | grep -qxF "$l" || preload="$preload:$l"
done
preload=${preload#:}

# The plugin where dumpcap and proc-info find it, alone, for as long as they run.
exec 9<"$pmd_dir"
flock -w 300 9 || skip "another run kept $pmd_dir locked for 300 s"
for f in "$pmd_dir"/librte_net_dvp-test-*.so; do
	[ -e "$f" ] || continue
	echo "removing $f: a copy a killed run left"
	rm -f "$f"
done
for f in "$pmd_dir"/librte_net_dvp*.so*; do
	[ -e "$f" ] || continue
	cmp -s "$f" "$ndvp_plugin" ||
		skip "$f (installed) is another build of net_dvp: a secondary would load both; uninstall it or install this build"
done
cp "$ndvp_plugin" "$auto" && chmod 0644 "$auto" || fail "cannot copy the plugin to $pmd_dir"
echo "the plugin's copy for dumpcap and proc-info: $auto"

echo "== dpdk-proc-info -- --stats"
timeout -k 5 60 dpdk-proc-info --file-prefix "$prefix" --log-level=pmd.net.dvp*:info -- --stats \
	>"$dir/proc-info-stats.log" 2>&1 || fail "dpdk-proc-info --stats failed: $(tail -n 5 "$dir/proc-info-stats.log")"
for p in 0 1; do
	rx=$(awk -v p=$p '/NIC statistics for port/ { cur = $(NF - 1) } cur == p && /RX-packets:/ { print $2; exit }' \
		"$dir/proc-info-stats.log")
	[ -n "$rx" ] && [ "$rx" -gt 0 ] || fail "proc-info shows no packets received on port $p: $(head -n 20 "$dir/proc-info-stats.log")"
	echo "port $p: RX-packets $rx"
done

echo "== dpdk-dumpcap -i 0 -c $count${preload:+ (preloaded: $preload)}"
LD_PRELOAD=$preload timeout -k 5 60 dpdk-dumpcap -i 0 -c $count -w "$dir/capture.pcapng" \
	--file-prefix "$prefix" >"$dir/dumpcap.log" 2>&1 ||
	fail "dpdk-dumpcap failed: $(tail -n 5 "$dir/dumpcap.log")"
grep 'received/dropped' "$dir/dumpcap.log"
dropped=$(sed -n "s|.*received/dropped on interface '[^']*': [0-9]*/\([0-9]*\).*|\1|p" "$dir/dumpcap.log")
[ -n "$dropped" ] || fail "dumpcap printed no received/dropped line"

# Nothing moves once testpmd stops forwarding: the sources wait for room
# (pause=on) and the queues are idle. Then proc-info must show what testpmd shows.
cmd "stop"
wait_for 1 'Done\.' 30 || fail "testpmd did not stop forwarding"
same=0
for _ in $(seq 30); do
	cmd "show port xstats all"
	sleep 0.5
	timeout -k 5 60 dpdk-proc-info --file-prefix "$prefix" -- --xstats >"$dir/proc-info-xstats.log" 2>&1 ||
		fail "dpdk-proc-info --xstats failed: $(tail -n 5 "$dir/proc-info-xstats.log")"
	mismatch=$(awk '
		/NIC extended statistics for port/ { p = $(NF - 1); next }
		p != "" && $1 ~ /:$/ && $1 !~ /_secondary_refused:$/ { print p, $1, $2 }' "$dir/proc-info-xstats.log" |
		while read -r p name v; do
			t=$(xstat "${name%:}" "$p")
			[ "$t" = "$v" ] || echo "port $p ${name%:} proc-info $v testpmd $t"
		done | head -n 3)
	n=$(grep -cE 'sim_source_sent: [1-9]' "$dir/proc-info-xstats.log")
	if [ -z "$mismatch" ] && [ "$n" = 2 ]; then
		same=1
		break
	fi
done
exec 9<&-
rm -f "$auto"
[ $same = 1 ] || fail "proc-info's xstats differ from testpmd's after forwarding stopped: $mismatch"
echo "proc-info --xstats: every value testpmd's ($(grep -cE '^[a-z0-9_]+: [0-9]+$' "$dir/proc-info-xstats.log") counters of the two ports)"

python3 "$(dirname "$0")/net_dvp_pcapng.py" "$dir/capture.pcapng" --iface 0 --in-mac "$mac0" \
	--out-mac "$mac1" --sizes $sizes --flows $flows --count $count --dropped "$dropped" || exit 1

tp_quit
grep -q 'secondary process loaded another build\|with a buffer outside DPDK' "$tp_out" &&
	fail "testpmd refused a request of a secondary"
echo "PASS: dpdk-proc-info and dpdk-dumpcap as secondaries of testpmd on two net_dvp ports; net_dvp_app's secondary checks"
