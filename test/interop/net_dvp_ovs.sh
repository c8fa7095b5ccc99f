#!/bin/bash
# net_dvp inside OVS-DPDK (Debian's openvswitch-switch-dpdk: Open vSwitch
# 3.1 on DPDK 22.11), as an OVS user sets it up: the plugin given with
# other_config:dpdk-extra="-d PLUGIN", hugepages with DPDK's defaults (OVS
# adds --in-memory and refuses --no-huge; IOVA PA as root), a bridge of
# datapath_type=netdev with two dpdk ports on the simulated HCA: p0 by the
# vdev's devargs (net_dvp0,sim_mlx5,ports=2,cable=traffic,...), p1, the
# vdev's second port, by class=eth,mac=<its MAC>; an OpenFlow flow each
# way between them. Each sim port's source sends COUNT frames into its
# port; OVS forwards them out of the other port, to that port's sink.
#
# Usage: net_dvp_ovs.sh PLUGIN WORKDIR
# Environment: DVP_NET_DVP_COUNT (frames per source, 10000),
#   DVP_OVS_VSWITCHD (the DPDK build of ovs-vswitchd,
#   /usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk),
#   DVP_OVS_HW_OFFLOAD=1: other_config:hw-offload=true, and the flows must
#   be offloaded (OVS's partial offload: rte_flow rules of MARK + RSS on
#   the net_dvp ports, `dpctl/dump-flows -m` showing them offloaded).
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# Everything is private: ovsdb-server and ovs-vswitchd are started here on
# a database, sockets and logs in WORKDIR/net_dvp_ovs (OVS_RUNDIR,
# OVS_DBDIR, OVS_LOGDIR and OVS_SYSCONFDIR point there), ovs-vswitchd in a
# network namespace of its own (the netdev datapath makes tap devices for
# its internal ports); a system Open vSwitch is never touched. At exit both
# are told to exit (killed if they do not) and the directory's sockets go.
#
# Pass:
#  - both ports are added (no error in the Interface table), link up;
#  - OVS's interface counters agree with the sim: each port received its
#    source's COUNT frames (rx_packets; rx_dropped, rx_errors 0), and each
#    sink received exactly what OVS counted sent out of its port
#    (tx_packets; tx_dropped, tx_errors 0), intact (the sink's corrupt,
#    duplicates, foreign 0);
#  - p1 -> p0 carries all COUNT frames: p1 starts after p0 and the flows,
#    so its source waits for it (the sim's sources send only into a
#    started port, and pause for receive buffers);
#  - p0 -> p1 carries every frame p0 received once p1 was there: p0's
#    source starts with p0, and until OVS adds p1 its flow's output port
#    does not exist; those frames are counted on p0's flow and reported,
#    and the flows' packet counts add up to what the ports received.
#
# Results are counts; time limits only bound a hung process.
set -u
plugin=$1
work=$2/net_dvp_ovs
count=${DVP_NET_DVP_COUNT:-10000}
offload=${DVP_OVS_HW_OFFLOAD:-0}
vswitchd=${DVP_OVS_VSWITCHD:-/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk}
schema=/usr/share/openvswitch/vswitch.ovsschema

skip() {
	echo "SKIP: $*"
	exit 77
}
[ "$(id -u)" = 0 ] || skip "not root: OVS-DPDK needs root"
[ -x "$vswitchd" ] || skip "no $vswitchd (Debian package openvswitch-switch-dpdk; usertools/install-deps installs it)"
for t in ovsdb-server ovsdb-tool ovs-vsctl ovs-ofctl ovs-appctl unshare; do
	command -v $t >/dev/null || skip "$t not found (Debian packages openvswitch-switch, util-linux)"
done
[ -f "$schema" ] || skip "no OVS database schema at $schema (Debian package openvswitch-common)"

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
db_pid=
vs_pid=
cleanup() {
	# Ask each to exit; kill what is still there after 10 s.
	if [ -n "$vs_pid" ] && kill -0 "$vs_pid" 2>/dev/null; then
		timeout 10 ovs-appctl -t "$work/ovs-vswitchd.ctl" exit >/dev/null 2>&1
		for _ in $(seq 100); do kill -0 "$vs_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$vs_pid" 2>/dev/null
	fi
	[ -n "$vs_pid" ] && wait "$vs_pid" 2>/dev/null
	if [ -n "$db_pid" ] && kill -0 "$db_pid" 2>/dev/null; then
		timeout 10 ovs-appctl -t "$work/ovsdb-server.ctl" exit >/dev/null 2>&1
		for _ in $(seq 50); do kill -0 "$db_pid" 2>/dev/null || break; sleep 0.1; done
		kill -KILL "$db_pid" 2>/dev/null
	fi
	[ -n "$db_pid" ] && wait "$db_pid" 2>/dev/null
	rm -f "$work"/*.ctl "$work"/*.sock "$work"/*.mgmt "$work"/*.snoop
	ndvp_cleanup
}
trap cleanup EXIT
trap 'exit 130' INT TERM

rm -rf "$work"
mkdir -p "$work" || exit 1
work=$(cd "$work" && pwd -P)
ndvp_plugin_copy "$plugin" "$2"
# OVS's shared mbuf pool for MTU 1500 is 262144 mbufs (about 700 MB);
# where that fails it halves it. 1 GB leaves room for the rest.
ndvp_mem huge 1024
prefix=ovsdvp$$
ndvp_dpdk_prefix "$prefix"
export OVS_RUNDIR=$work OVS_DBDIR=$work OVS_LOGDIR=$work OVS_SYSCONFDIR=$work
log=$work/ovs-vswitchd.log
vsctl() { ovs-vsctl --db="unix:$work/db.sock" --timeout=120 "$@"; }
br=dvpbr$$
# The sim's MACs: port 0 has mac=, port 1 the next one.
mac0=$(printf '02:dd:%02x:%02x:%02x:00' $(($$ >> 16 & 255)) $(($$ >> 8 & 255)) $(($$ & 255)))
mac1=${mac0%:00}:01

fail() {
	echo "FAIL: $*"
	echo "---- ovs-vswitchd's log ($log), its DPDK and netdev lines:"
	grep -E 'dpdk|netdev|bridge|ERR|WARN' "$log" | grep -vE 'poll interval|faults:|context switches|\|coverage\|' | tail -n 30
	exit 1
}

ovsdb-tool create "$work/conf.db" "$schema" || fail "ovsdb-tool create"
ovsdb-server "$work/conf.db" --remote="punix:$work/db.sock" --unixctl="$work/ovsdb-server.ctl" \
	--log-file="$work/ovsdb-server.log" --no-chdir >"$work/ovsdb-server.out" 2>&1 &
db_pid=$!
for _ in $(seq 100); do [ -S "$work/db.sock" ] && break; sleep 0.1; done
vsctl --no-wait init || fail "ovsdb-server did not come up ($(tail -n 3 "$work/ovsdb-server.log"))"
# --file-prefix: the runtime directory (telemetry socket) is this run's.
# --no-pci: no PCI device of this machine is probed. One PMD thread, on
# core 1, from the start: OVS gives each port a tx queue per thread and
# restarts the ports when the count changes, which would drop what waits
# in their rx rings.
vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true other_config:pmd-cpu-mask=0x2 \
	"other_config:dpdk-extra=-d $ndvp_plugin --no-pci --file-prefix $prefix" || fail "ovs-vsctl set other_config"
if [ "$offload" = 1 ]; then
	vsctl --no-wait set Open_vSwitch . other_config:hw-offload=true || fail "ovs-vsctl set hw-offload"
fi
unshare --net -- "$vswitchd" "unix:$work/db.sock" --unixctl="$work/ovs-vswitchd.ctl" \
	--log-file="$log" --no-chdir -vconsole:off -vnetdev_offload_dpdk:file:dbg \
	-vdpif_netdev:file:dbg >"$work/ovs-vswitchd.out" 2>&1 &
vs_pid=$!
vsctl wait-until Open_vSwitch . dpdk_initialized=true >/dev/null 2>&1 ||
	fail "ovs-vswitchd did not initialize DPDK ($(tail -n 3 "$work/ovs-vswitchd.out"))"
grep -q 'EAL ARGS:.* -d ' "$log" || fail "ovs-vswitchd's EAL arguments lack the plugin"
iova=$(sed -n "s/.*Selected IOVA mode '\([A-Z]*\)'.*/\1/p" "$log" | head -n 1)

# The sim's sources send as soon as their port is started (pausing for rx
# buffers, never dropping), and OVS starts a port when it adds it: p0's
# frames would reach OVS before p1 and the flows exist. So the PMD thread
# is kept from polling p0 and p1 until all is set: a vhost-user port no
# guest connects to has its rx queue pinned to core 1, which isolates that
# PMD (pmd-rxq-isolate, on by default), and p0's and p1's queues are
# pinned to core 0, which has no PMD: OVS leaves them unpolled. Pinning
# them to core 1 then starts forwarding; OVS does not restart a port for a
# pinning, so what waits in the rings is forwarded too.
vsctl add-br "$br" -- set bridge "$br" datapath_type=netdev fail_mode=secure || fail "add-br"
vsctl add-port "$br" hold -- set Interface hold type=dpdkvhostuserclient ofport_request=3 \
	"options:vhost-server-path=$work/hold.sock" other_config:pmd-rxq-affinity=0:1 >/dev/null ||
	fail "OVS could not add the vhost-user port"
# fail_mode=secure: no NORMAL flow; these two are the only ones.
ovs-ofctl del-flows "$br" || fail "ovs-ofctl del-flows"
ovs-ofctl add-flow "$br" "in_port=1,actions=output:2" || fail "ovs-ofctl add-flow"
ovs-ofctl add-flow "$br" "in_port=2,actions=output:1" || fail "ovs-ofctl add-flow"
sim="sim_mlx5,ports=2,cable=traffic,count=$count,mac=$mac0"
vsctl add-port "$br" p0 -- set Interface p0 type=dpdk ofport_request=1 \
	"options:dpdk-devargs=net_dvp0,$sim" other_config:pmd-rxq-affinity=0:0 >"$work/add-p0.out" 2>&1 ||
	fail "OVS could not add p0 (net_dvp0,$sim): $(vsctl get Interface p0 error 2>/dev/null)"
vsctl add-port "$br" p1 -- set Interface p1 type=dpdk ofport_request=2 \
	"options:dpdk-devargs=class=eth,mac=$mac1" other_config:pmd-rxq-affinity=0:0 >"$work/add-p1.out" 2>&1 ||
	fail "OVS could not add p1 (class=eth,mac=$mac1): $(vsctl get Interface p1 error 2>/dev/null)"
# ovs-vsctl only warns when a port fails: the Interface table says.
for p in p0 p1; do
	e=$(vsctl get Interface $p error)
	[ "$e" = "[]" ] || fail "OVS could not add $p: $e"
	[ "$(vsctl get Interface $p ofport)" = "$((${p#p} + 1))" ] || fail "$p has OpenFlow port $(vsctl get Interface $p ofport)"
done

# OpenFlow port stats of port @1 (1 or 2), read from the netdev when asked:
# "rx_pkts rx_drop rx_errs tx_pkts tx_drop tx_errs".
port_stats() {
	ovs-ofctl dump-ports "$br" "$1" | awk '
		/rx pkts=/ { d = "rx" }
		/tx pkts=/ { d = "tx" }
		/[rt]x pkts=/ {
			for (i = 1; i <= NF; i++) {
				split($i, kv, "=")
				sub(/,$/, "", kv[2])
				v[d "_" kv[1]] = kv[2]
			}
		}
		END { print v["rx_pkts"] + 0, v["rx_drop"] + 0, v["rx_errs"] + 0, v["tx_pkts"] + 0, v["tx_drop"] + 0, v["tx_errs"] + 0 }'
}
# The sim's counters: OVS's statistics column leaves them out, DPDK's
# telemetry socket in ovs-vswitchd has them (/ethdev/xstats,P); p0 is
# ethdev port 0, p1 port 1. "PORT NAME VALUE" lines into $work/xstats.
tele_py='
import json, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.settimeout(10)
s.connect(sys.argv[1])
s.recv(16384)
for port in (0, 1):
    s.send(("/ethdev/xstats,%d" % port).encode())
    body = json.loads(s.recv(1 << 20).decode()).get("/ethdev/xstats")
    if not isinstance(body, dict):
        sys.exit("telemetry: no xstats of port %d" % port)
    for k, v in body.items():
        print(port, k, v)
'
xstats_read() { python3 -c "$tele_py" "/var/run/dpdk/$prefix/dpdk_telemetry.v2" >"$work/xstats" 2>"$work/xstats.err"; }
xstat() { awk -v p="$1" -v n="$2" '$1 == p && $2 == n { v = $3 } END { print v == "" ? -1 : v }' "$work/xstats"; }
# n_packets of the flow from OpenFlow port @1.
flow_pkts() {
	ovs-ofctl dump-flows "$br" "in_port=$1" | sed -n 's/.*n_packets=\([0-9]*\).*/\1/p' | head -n 1
}

read -r r1 _ _ _ _ _ <<<"$(port_stats 1)"
read -r r2 _ _ _ _ _ <<<"$(port_stats 2)"
[ "$r1/$r2" = 0/0 ] || fail "OVS polled p0 or p1 before they were pinned to the PMD ($r1/$r2 received)"
vsctl set Interface p0 other_config:pmd-rxq-affinity=0:1 -- set Interface p1 other_config:pmd-rxq-affinity=0:1 ||
	fail "ovs-vsctl: pinning p0 and p1 to the PMD"

# Until both ports received COUNT and nothing moved over a poll (OVS sends
# or drops a burst in the poll that received it); or nothing moves for 20 s.
snap=
same=0
for _ in $(seq 600); do
	sleep 0.5
	read -r r1 _ _ t1 _ _ <<<"$(port_stats 1)"
	read -r r2 _ _ t2 _ _ <<<"$(port_stats 2)"
	now="$r1/$t1/$r2/$t2"
	[ "$now" = "$snap" ] && [ "$r1/$r2" = "$count/$count" ] && break
	if [ "$now" = "$snap" ]; then
		same=$((same + 1))
		[ $same -ge 40 ] && break
	else
		same=0
	fi
	snap=$now
done
# The sinks take what the ports sent on the sim's thread: wait for them.
for _ in $(seq 100); do
	xstats_read || fail "no answer on ovs-vswitchd's DPDK telemetry socket: $(cat "$work/xstats.err")"
	[ "$(xstat 0 sim_sink_received)" = "$t1" ] && [ "$(xstat 1 sim_sink_received)" = "$t2" ] && break
	sleep 0.2
done
# Flow counters reach OpenFlow through the revalidators: wait for them.
timeout 30 ovs-appctl -t "$work/ovs-vswitchd.ctl" revalidator/wait >/dev/null 2>&1

bad=
for p in p0 p1; do
	e=$(vsctl get Interface $p error 2>/dev/null)
	[ "$e" = "[]" ] || bad="$bad $p: $e;"
	[ "$(vsctl get Interface $p link_state)" = up ] || bad="$bad $p link $(vsctl get Interface $p link_state);"
done
for i in 0 1; do
	p=p$i
	read -r rx rxd rxe tx txd txe <<<"$(port_stats $((i + 1)))"
	sent=$(xstat $i sim_source_sent)
	got=$(xstat $i sim_sink_received)
	[ "$sent" = "$count" ] || bad="$bad $p's source sent $sent of $count;"
	[ "$rx" = "$sent" ] || bad="$bad $p: OVS counted $rx received, the source sent $sent;"
	# What OVS could not send (the tx queue full) it drops and counts.
	[ $((tx + txd)) = "$count" ] || bad="$bad $p: OVS counted $tx sent and $txd dropped, not $count;"
	[ "$got" = "$tx" ] || bad="$bad $p: OVS counted $tx sent, the sink received $got;"
	[ "$(xstat $i sim_sink_lost)" -le "$txd" ] || bad="$bad $p: the sink lost $(xstat $i sim_sink_lost), OVS dropped $txd;"
	[ "$rxd/$rxe/$txe" = 0/0/0 ] || bad="$bad $p: OVS counted rx drop/errors $rxd/$rxe, tx errors $txe;"
	for x in sim_sink_corrupt sim_sink_duplicates sim_sink_foreign sim_rx_out_of_buffer \
		sim_rx_dropped tx_copied; do
		v=$(xstat $i $x)
		[ "$v" = 0 ] || bad="$bad $p $x=$v;"
	done
	echo "$p: source sent $sent, OVS received $rx (drop $rxd, errors $rxe) and sent $tx (drop $txd, errors $txe), sink received $got intact"
done
f1=$(flow_pkts 1)
f2=$(flow_pkts 2)
echo "flows: in_port=p0 -> p1 $f1 packets, in_port=p1 -> p0 $f2 packets"
[ "$f1/$f2" = "$count/$count" ] || bad="$bad the flows counted $f1 and $f2 packets, not $count each;"
if [ "$offload" = 1 ]; then
	ovs-appctl -t "$work/ovs-vswitchd.ctl" dpctl/dump-flows -m >"$work/dump-flows" 2>&1
	echo "---- dpctl/dump-flows -m:"
	cat "$work/dump-flows"
	echo "---- ovs-vswitchd's rte_flow lines:"
	grep -E 'netdev_offload_dpdk|rte_flow|offload' "$log" | tail -n 20
	n=$(grep -c 'offloaded:partial' "$work/dump-flows")
	[ "$n" -ge 2 ] || bad="$bad $n of the 2 datapath flows offloaded (offloaded:partial);"
fi
[ -z "$bad" ] || fail "${bad# }"

# A clean exit: OVS closes the ports, net_dvp gets every buffer back.
timeout 30 ovs-appctl -t "$work/ovs-vswitchd.ctl" exit >/dev/null 2>&1
for _ in $(seq 300); do kill -0 "$vs_pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$vs_pid" 2>/dev/null && fail "ovs-vswitchd did not exit within 30 s"
wait "$vs_pid"
rc=$?
vs_pid=
[ $rc = 0 ] || fail "ovs-vswitchd exited with status $rc"
grep -q "still held by the application" "$log" && fail "net_dvp buffers still held at close"
offloaded=
[ "$offload" = 1 ] && offloaded=" (hw-offload: both datapath flows offloaded:partial)"
echo "PASS: OVS-DPDK $("$vswitchd" --version 2>/dev/null | awk 'NR == 1 { print $NF }') (hugepages, IOVA ${iova:-?}) forwarded 2 x $count frames between two net_dvp ports by OpenFlow flows$offloaded; OVS's interface counters agree with the sim's sources and sinks"
