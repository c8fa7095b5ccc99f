#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# The telemetry socket as a DPDK user reaches it: Debian's unmodified
# dpdk-telemetry.py, fed commands on its stdin, against a running dvp-fwd
# on the simulated HCA. test_app_telemetry.sh DVP_FWD
#
#   - every command's JSON, checked for content: the port counts are those
#     dvp-fwd prints in its summary (the source sends a fixed count first)
#   - 100 clients connecting at once, while one client never reads: all
#     are answered, and forwarding goes on
#   - the socket (and its runtime directory) is gone after SIGINT, replaced
#     after a SIGKILL, not taken from a live process, and absent with
#     --no-telemetry
set -u
fwd=$1
. "$(dirname "$0")/app_lib.sh"
tool=$(command -v dpdk-telemetry.py || true)
[ -n "$tool" ] || skip "dpdk-telemetry.py (Debian package dpdk) is needed to talk to the socket"
prefix=dvptel$$
work=$(mktemp -d)
nosys=$(mktemp -d)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
	rm -rf "$work" "$nosys"
	rm -rf "$rundir"
}
at_exit cleanup

# The runtime directory as dpdk-telemetry.py computes it.
rundir=$(python3 -c '
import os, sys
d = os.environ.get("RUNTIME_DIRECTORY")
if not d:
    d = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
print(os.path.join(d, "dpdk", sys.argv[1]))' "$prefix")
sock=$rundir/dpdk_telemetry.v2

# start_fwd NAME ARGS...: dvp-fwd in the background, its pid in $fwd_pid.
start_fwd() {
	local name=$1
	shift
	DVP_SYSFS_ROOT="$nosys" "$fwd" --no-huge $LCORES --file-prefix $prefix "$@" \
		>"$work/$name.out" 2>"$work/$name.err" &
	fwd_pid=$!
	pids+=("$fwd_pid")
}

# wait_sock PID: until the socket answers with PID's greeting (60 s at most).
wait_sock() {
	local i
	for i in $(seq 600); do
		if [ -S "$sock" ] && out=$(printf '/info\n' | "$tool" -f $prefix 2>/dev/null) &&
			printf '%s\n' "$out" | grep -q "\"pid\": $1,"; then
			return 0
		fi
		kill -0 "$1" 2>/dev/null || { err=$(cat "$work"/*.err); fail "dvp-fwd exited early"; }
		sleep 0.1
	done
	fail "no telemetry socket of pid $1 at $sock"
}

# tel COMMAND...: the tool's output for these commands, one JSON line each, in $out.
tel() {
	out=$(printf '%s\n' "$@" | "$tool" -f $prefix) || fail "dpdk-telemetry.py $*"
}

# stop_fwd PID SIGNAL: signal it and wait; its status in $rc.
stop_fwd() {
	kill -"$2" "$1"
	wait "$1" && rc=0 || rc=$?
}

# --- 1. every command, against a run whose counts are fixed ---------------
count=20000
start_fwd count -- --json --duration 120 --sim count=$count
pid=$fwd_pid
wait_sock $pid
for i in $(seq 600); do
	tel '/dvp/sim,0'
	printf '%s\n' "$out" | grep -q '"done": true' && break
	sleep 0.1
done
printf '%s\n' "$out" | grep -q '"done": true' || fail "the source never finished its $count frames"
# Port 1's send queue may still be completing the last frames: wait until it has them.
for i in $(seq 600); do
	tel '/ethdev/stats,1'
	printf '%s\n' "$out" | grep -q "\"opackets\": $count," && break
	sleep 0.1
done

tel / /info /help /help,/ethdev/stats /eal/params /eal/app_params /ethdev/list \
	/ethdev/info,0 /ethdev/info,1 /ethdev/stats,0 /ethdev/stats,1 /ethdev/xstats,0 \
	/ethdev/link_status,0 /mempool/list /mempool/info,fwd_pool /dvp/intr,0 /dvp/sim,0 \
	/dvp/sim,1 /ethdev/stats,7 /ethdev/stats,x /ethdev/stats /mempool/info,nope /nope \
	/help,/nope /dvp/intr,99
tel_out=$out

# 100 clients at once, and one that asks and never reads.
python3 - "$sock" "$count" <<'PY' || fail "100 clients at once"
import json, socket, sys
path, count = sys.argv[1], int(sys.argv[2])
def conn():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.settimeout(60)
    s.connect(path)
    return s
mute = conn()
mute.setblocking(False)
sent = 0
try:
    for _ in range(100000):
        mute.send(b"/ethdev/xstats,0")
        sent += 1
except BlockingIOError:
    pass
clients = [conn() for _ in range(100)]
for s in clients:
    g = json.loads(s.recv(1024).decode())
    assert g["max_output_len"] == 16384, g
for s in clients:
    s.send(b"/ethdev/stats,0")
for s in clients:
    r = json.loads(s.recv(16384).decode())
    assert r["/ethdev/stats"]["ipackets"] == count, r
    s.close()
print("100 clients answered; the mute one sent %d requests unread" % sent)
mute.close()
PY

stop_fwd $pid INT
out=$(cat "$work/count.out")
err=$(cat "$work/count.err")
[ "$rc" = 0 ] || fail "dvp-fwd after SIGINT: exit $rc"
[ -e "$sock" ] && fail "the socket is still there after SIGINT"
# The directory too, though a killed process made it: a clean exit leaves none.
[ -e "$rundir" ] && fail "the runtime directory $rundir is still there after SIGINT"

# What dvp-fwd printed: its ports and their counts.
printf '%s\n' "$out" >"$work/fwd.json"
printf '%s\n' "$tel_out" >"$work/tel.json"
out=$tel_out
python3 - "$work/fwd.json" "$pid" "$count" "$prefix" "$work/tel.json" <<'PY' || fail "telemetry replies"
import json, sys
fwd = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
pid, count, prefix = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
config = next(l for l in fwd if l.get("type") == "config")
summary = next(l for l in fwd if l.get("type") == "summary")
lines = [l for l in open(sys.argv[5]).read().splitlines() if l.strip()]
r = {}
for l in lines:
    o = json.loads(l)
    assert len(o) == 1, o
    k = next(iter(o))
    r.setdefault(k, []).append(o[k])
def one(k, i=0):
    return r[k][i]
cmds = one("/")
for c in ["/", "/info", "/help", "/eal/params", "/eal/app_params", "/ethdev/list",
          "/ethdev/info", "/ethdev/stats", "/ethdev/xstats", "/ethdev/link_status",
          "/mempool/list", "/mempool/info", "/dvp/intr", "/dvp/sim"]:
    assert c in cmds, (c, cmds)
assert cmds == sorted(cmds), cmds
info = one("/info")
assert info["pid"] == pid and info["max_output_len"] == 16384 and info["version"].startswith("dvpmd"), info
assert one("/help", 0).startswith("Returns help text"), r["/help"]
assert one("/help", 1) == {"/ethdev/stats": "Returns the common stats for a port. Parameters: int port_id"}, r["/help"]
assert one("/help", 2) is None, r["/help"]
params = one("/eal/params")
assert params[params.index("--file-prefix") + 1] == prefix and "--no-huge" in params, params
assert one("/eal/app_params") == ["--json", "--duration", "120", "--sim", "count=%d" % count], r["/eal/app_params"]
ports = [p["port"] for p in config["ports"]]
assert one("/ethdev/list") == ports == [0, 1], (r["/ethdev/list"], ports)
for i, p in enumerate(config["ports"]):
    inf = one("/ethdev/info", i)
    assert inf["name"] == p["name"] and inf["port_id"] == p["port"] and inf["mac_addr"] == p["mac"], (inf, p)
    assert inf["nb_rx_queues"] == p["rxq"] and inf["dev_started"] == 1 and inf["state"] == 1, inf
st0, st1 = one("/ethdev/stats", 0), one("/ethdev/stats", 1)
s0, s1 = summary["ports"][0], summary["ports"][1]
# The counts dvp-fwd prints are those the socket gave: nothing moved after the source's count.
assert st0["ipackets"] == s0["rx_packets"] == count, (st0, s0)
assert st1["opackets"] == s1["tx_packets"] == count, (st1, s1)
assert st0["ibytes"] == s0["rx_bytes"] and st1["obytes"] == s1["tx_bytes"], (st0, st1, s0, s1)
assert len(st0["q_ipackets"]) == 16 and st0["q_ipackets"][0] == count, st0
for k in ["opackets", "imissed", "ierrors", "oerrors", "rx_nombuf"]:
    assert k in st0, k
assert one("/ethdev/stats", 2) is None and one("/ethdev/stats", 3) is None and one("/ethdev/stats", 4) is None, r["/ethdev/stats"]
xs = one("/ethdev/xstats")
assert xs["rx_good_packets"] == count and xs["rx_q0_packets"] == count, xs
assert one("/ethdev/link_status") == {"status": "UP", "speed": 100000, "duplex": "full-duplex"}, r["/ethdev/link_status"]
assert one("/mempool/list") == ["fwd_pool"], r["/mempool/list"]
mp = one("/mempool/info", 0)
assert mp["name"] == "fwd_pool" and mp["size"] == config["mbufs"] and mp["mz_name"] == "MP_fwd_pool", mp
assert one("/mempool/info", 1) == {}, r["/mempool/info"]
intr = one("/dvp/intr", 0)
q = intr["rx_queues"][0]
assert intr["port_id"] == 0 and q["queue"] == 0 and q["mode"] == "interrupt", intr
assert q["sleeps"] >= 1 and q["wakeups"] >= 1 and 0 <= q["asleep_pct"] <= 100 and "spurious" in q, q
assert one("/dvp/intr", 1) is None, r["/dvp/intr"]
sim0, sim1 = one("/dvp/sim", 0), one("/dvp/sim", 1)
assert sim0["cable"] == "traffic" and sim0["source"]["sent"] == count and sim0["source"]["done"], sim0
assert sim1["sink"]["received"] == count and sim1["sink"]["lost"] == 0, sim1
assert sim1["sink"]["received"] == summary["sink"]["received"], (sim1, summary["sink"])
assert sim0["faults"]["wire_drops"] == 0 and sim0["counters"]["rx_frames"] == count, sim0
assert one("/nope") is None, r["/nope"]
print("%d replies checked" % len(lines))
PY

# --- 2. a killed process's socket is replaced; a live one is not taken -------
start_fwd killed -- --duration 120
wait_sock $fwd_pid
# A client that never reads does not stop forwarding.
python3 - "$sock" "$tool" "$prefix" <<'PY' || fail "forwarding with a client that never reads"
import json, socket, subprocess, sys, time
path, tool, prefix = sys.argv[1:4]
mute = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
mute.connect(path)
mute.setblocking(False)
try:
    while True:
        mute.send(b"/ethdev/xstats,0")
except BlockingIOError:
    pass
def ipackets():
    o = subprocess.run([tool, "-f", prefix], input="/ethdev/stats,0\n", capture_output=True,
                       text=True, check=True, timeout=60).stdout
    st = json.loads(o)["/ethdev/stats"]
    # The socket serves before the ports are made: no port 0 yet is no packet yet.
    return st["ipackets"] if st else 0
a = ipackets()
for _ in range(600):
    time.sleep(0.1)
    b = ipackets()
    if b > a:
        break
assert b > a, (a, b)
mute.close()
PY
stop_fwd $fwd_pid KILL
[ -S "$sock" ] || fail "no socket file left by the killed process (the case to test)"
start_fwd again -- --duration 120
pid=$fwd_pid
wait_sock $pid
grep -q "telemetry" "$work/again.err" && { err=$(cat "$work/again.err"); fail "a warning replacing a stale socket"; }
# Another live process with the same prefix: one warning, it runs, the socket stays.
run env DVP_SYSFS_ROOT="$nosys" timeout 60 "$fwd" --no-huge $LCORES --file-prefix $prefix -- --duration 0.5
[ "$rc" = 0 ] || fail "a second process on the same prefix: exit $rc"
[ "$(printf '%s\n' "$err" | grep -c 'no telemetry socket')" = 1 ] || fail "not one warning for a socket in use"
printf '%s\n' "$err" | grep -q "served by another live process" || fail "the warning does not say why"
tel /info
printf '%s\n' "$out" | grep -q "\"pid\": $pid," || fail "the live process's socket was taken: $out"
stop_fwd $pid INT
[ "$rc" = 0 ] || fail "dvp-fwd after SIGINT: exit $rc"
[ -e "$sock" ] && fail "the socket is still there after SIGINT"
# The directory too, though a killed process made it: a clean exit leaves none.
[ -e "$rundir" ] && fail "the runtime directory $rundir is still there after SIGINT"

# --- 3. --no-telemetry ------------------------------------------------------
run env DVP_SYSFS_ROOT="$nosys" timeout 60 "$fwd" --no-huge $LCORES --file-prefix $prefix \
	--no-telemetry -- --duration 1 --stats-period 0.2
[ "$rc" = 0 ] || fail "--no-telemetry: exit $rc"
[ -e "$sock" ] && fail "a socket with --no-telemetry"
echo "telemetry: ok"
