#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# net_verbs between two hosts: two Soft-RoCE guests (usertools/dvp-rxe-vm),
# each with its own kernel and rxe0, joined by a virtual wire that runs
# through test/rxe/wire_relay.py on this machine:
#
#   guest a 10.9.0.1 (listen=)  <== wire (relay: can be cut) ==>  guest b 10.9.0.2 (connect=)
#
# Both run test_rxe_two_hosts: frames both ways at a steady pace, every
# one checked, the status in a shared directory. In order:
#   1. the link comes up and frames flow both ways;
#   2. partition: the wire cut for 5 s (every frame dropped) and joined:
#      both links go down, come back, traffic resumes, and every frame one
#      end misses is counted lost by the other (tx_dropped_on_reset);
#   3. one side's link down: b's eth0 down for 5 s, then up: b sees its
#      link go, a sees the connection break, both come back;
#   4. the peer killed: b's VM killed (SIGKILL to its qemu) under traffic:
#      a reports its link down; a new b is booted and connects, and a
#      follows the new peer's frames;
#   5. stop: no bad frame on either end, every mbuf back in its pool.
#
#   two_hosts.sh DVP_RXE_VM TEST_RXE_TWO_HOSTS
#
# Exit 77 where the VM cannot run (as dvp-rxe-vm says). Nothing leaves
# 127.0.0.1: the wire is UDP on loopback, the guests' addresses are theirs.
set -u
vm=$1
prog=$2
here=$(dirname "$(readlink -f "$0")")

"$vm" --prepare >/dev/null
rc=$?
[ $rc = 77 ] && exec "$vm" --prepare
[ $rc = 0 ] || { echo "FAIL: dvp-rxe-vm --prepare: exit $rc"; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 not found (the wire's relay)"; exit 77; }

sync=$(mktemp -d /var/tmp/dvp-two-hosts.XXXXXX)
chmod 755 "$sync"
base=$((20000 + $$ % 20000))
a_port=$base a_relay=$((base + 1)) b_port=$((base + 2)) b_relay=$((base + 3))
relay= vm_a= vm_b=
phase_t0=$(date +%s)

cleanup() {
	[ -n "$vm_b" ] && pkill -KILL -f "local.port=$b_port,"
	[ -n "$vm_a" ] && pkill -KILL -f "local.port=$a_port,"
	[ -n "$relay" ] && kill "$relay" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$sync"
}
trap cleanup EXIT

say() { echo "# [$(($(date +%s) - phase_t0)) s] $*"; }

fail() {
	echo "FAIL: $*"
	for f in "$sync"/*.status; do [ -f "$f" ] && echo "# $(basename "$f"): $(cat "$f")"; done
	for f in "$sync"/*.out "$sync"/relay.log; do
		[ -f "$f" ] && { echo "# ---- $(basename "$f") (last 25 lines)"; tail -n 25 "$f"; }
	done
	exit 1
}

# check EXPR: a Python expression over a and b, the status dicts of guest a
# and of the current b ({} until one is written).
check() {
	python3 - "$sync" "$b_name" "$1" <<'EOF'
import json, sys
d, bn, expr = sys.argv[1:4]
def load(n):
    try:
        return json.load(open('%s/%s.status' % (d, n)))
    except (OSError, ValueError):
        return {}
a, b = load('a'), load(bn)
try:
    sys.exit(0 if eval(expr) else 1)
except (KeyError, TypeError):
    sys.exit(1)
EOF
}

# wait_until SECONDS WHAT EXPR: poll the statuses until EXPR holds.
wait_until() {
	local end=$(($(date +%s) + $1))
	until check "$3"; do
		[ "$(date +%s)" -lt $end ] || fail "$2: not within $1 s"
		kill -0 "$vm_a" 2>/dev/null || fail "$2: guest a's VM ended (see a.out)"
		sleep 1
	done
	say "$2"
}

# field NAME KEY: one value of a status.
field() {
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' \
		"$sync/$1.status" "$2"
}

# boot NAME IP PORT RELAY ARGS...: a guest running test_rxe_two_hosts.
boot() {
	local name=$1 ip=$2 port=$3 rel=$4
	shift 4
	"$vm" --cpus 1 --mem 1024 --hugepages 64 --timeout 900 --wire "$port:$rel" --ip "$ip" \
		--rw "$sync" -- "$prog" --sync "$sync" --name "$name" "$@" \
		>"$sync/$name.out" 2>&1 &
}

python3 "$here/wire_relay.py" $a_port $a_relay $b_port $b_relay >"$sync/relay.log" 2>&1 &
relay=$!
b_name=b1
boot a 10.9.0.1 $a_port $a_relay --role listen
vm_a=$!
boot b1 10.9.0.2 $b_port $b_relay --role connect --peer 10.9.0.1
vm_b=$!
say "booting guest a (10.9.0.1, listens) and b1 (10.9.0.2, connects), wire through the relay"

# 1. Up, and frames both ways.
wait_until 300 "link up, 2000 frames each way" \
	'a["link_up"] and b["link_up"] and a["rx_ok"] >= 2000 and b["rx_ok"] >= 2000'

# Nothing lost unseen: every frame missing from what an end received was
# counted as not delivered, by the sender (sent without a successful
# completion when its queue was torn down) or by the receiver itself
# (received, not yet delivered when its queue was torn down).
no_unseen_loss='(a["rx_gaps"] <= b["tx_dropped_on_reset"] + a["rx_dropped_on_reset"] and
	b["rx_gaps"] <= a["tx_dropped_on_reset"] + b["rx_dropped_on_reset"])'

# 2. Partition: every frame dropped on the wire for 5 s.
downs=$(field a link_downs)
kill -USR1 $relay
say "wire cut"
wait_until 60 "a's link down in the partition" "a['link_downs'] > $downs and not a['link_up']"
sleep 5
kill -USR2 $relay
say "wire joined"
rx_a=$(field a rx_ok) rx_b=$(field b1 rx_ok)
wait_until 180 "links up again, traffic resumed both ways" \
	"a['link_up'] and b['link_up'] and a['rx_ok'] >= $rx_a + 2000 and b['rx_ok'] >= $rx_b + 2000"
check "$no_unseen_loss" ||
	fail "frames lost in the partition that no counter shows"
check 'a["rx_bad"] == 0 and b["rx_bad"] == 0' || fail "bad frames after the partition"
say "partition: a missed $(field a rx_gaps) frames, b $(field b1 rx_gaps): all counted"


# 3. One side's link down: b's eth0 for 5 s.
downs_a=$(field a link_downs) downs_b=$(field b1 link_downs)
echo 5 >"$sync/b1.linkdown"
wait_until 60 "b's link down (its eth0)" "b['link_downs'] > $downs_b"
wait_until 60 "a's link down (the connection broke)" "a['link_downs'] > $downs_a"
rx_a=$(field a rx_ok) rx_b=$(field b1 rx_ok)
wait_until 180 "b's eth0 up: links up again, traffic resumed both ways" \
	"a['link_up'] and b['link_up'] and a['rx_ok'] >= $rx_a + 2000 and b['rx_ok'] >= $rx_b + 2000"
check "$no_unseen_loss" ||
	fail "frames lost with b's link down that no counter shows"

# 4. The peer host killed under traffic, then a new one.
downs=$(field a link_downs) runs=$(field a rx_runs)
pkill -KILL -f "local.port=$b_port," || fail "no qemu for guest b1 to kill"
wait "$vm_b" 2>/dev/null
vm_b=
say "guest b1 killed (qemu SIGKILL)"
wait_until 60 "a's link down (the peer host is gone)" "a['link_downs'] > $downs and not a['link_up']"
say "a after the kill: sent $(field a sent), received $(field a rx_ok), counted not delivered $(field a tx_dropped_on_reset)"
b_name=b2
boot b2 10.9.0.2 $b_port $b_relay --role connect --peer 10.9.0.1
vm_b=$!
rx_a=$(field a rx_ok)
wait_until 300 "a new peer host: link up, a follows its frames" \
	"a['link_up'] and b['link_up'] and a['rx_runs'] > $runs and a['rx_ok'] >= $rx_a + 2000 and b['rx_ok'] >= 2000"

# 5. Stop both: no bad frame, every mbuf back.
touch "$sync/stop"
for v in "$vm_a" "$vm_b"; do
	wait "$v"
	rc=$?
	[ $rc = 0 ] || fail "a guest's program ended with exit status $rc"
done
vm_a= vm_b=
kill $relay
wait $relay
relay=
check 'a["rx_bad"] == 0 and b["rx_bad"] == 0 and a["link_ups"] >= 4 and a["link_downs"] >= 3' ||
	fail "the final counts"
say "done: $(cat "$sync/a.status")"
grep '^wire: end' "$sync/relay.log"
echo PASS
