#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# The first-contact check on the simulated HCA, as a ConnectX owner runs it
# on an adapter: dvp-info --check (its --json read back: every check of
# both port pairs passing with what they sent, received and counted), then
# usertools/dvp-hwcheck --sim over every datapath, on the default profile
# and on a ConnectX-4 Lx (eMPW not offered there: said, not failed). A
# check that must fail does: frames lost on the wire fail the rx path.
set -u
info=$1
hwcheck=$2
. "$(dirname "$0")/app_lib.sh"

sim="sim_mlx5,ports=2,cable=loop"
run "$info" --no-huge $LCORES --vdev "$sim" -- --check --frames 2000 --json
[ "$rc" = 0 ] || fail "dvp-info --check: exit $rc"
json_check 'doc["pass"] is True and len(doc["pairs"]) == 2' \
	'all(p["part_id"] == 0x101d and p["devx"] and p["inline_mode"] == "none" for p in doc["pairs"])' \
	'all(c["result"] == "pass" for p in doc["pairs"] for c in p["checks"])' \
	'[c["check"] for c in doc["pairs"][0]["checks"]] == ["rx", "tx", "interrupt", "async"]' \
	'all(c["sent"] == 2000 and c["received"] == 2000 and c["counted"] == 2000 and c["errors"] == 0 for p in doc["pairs"] for c in p["checks"][:2])' \
	'all(p["checks"][2]["received"] >= 1 and p["checks"][3]["received"] == 2 for p in doc["pairs"])' \
	'doc["pairs"][0]["tx_port"] == "sim_mlx5_0_p1" and doc["pairs"][0]["rx_port"] == "sim_mlx5_0_p2"'

# Lost frames: the rx path fails, and the check says so in its status.
run "$info" --no-huge $LCORES --vdev "$sim,drop=5" -- --check --frames 2000 --json
[ "$rc" = 1 ] || fail "dvp-info --check over a lossy wire: exit $rc, expected 1"
json_check 'doc["pass"] is False' 'doc["pairs"][0]["checks"][0]["result"] == "fail"' \
	'doc["pairs"][0]["checks"][0]["received"] < 2000'

run "$hwcheck" --info "$info" --eal "--no-huge $LCORES" --sim --frames 1000
[ "$rc" = 0 ] || fail "dvp-hwcheck --sim: exit $rc"
for p in "vector (SSE4.2), compressed CQEs" "scalar, compressed CQEs" "multi-packet" \
	"  SEND  " "eMPW with inline frames" "  scalar  " "  scatter" "arm, event, ack" \
	"link down and up"; do
	grep -q -- "$p" <<<"$out" || [ "$p" = "vector (SSE4.2), compressed CQEs" ] ||
		fail "dvp-hwcheck --sim: no path '$p' in its report"
done
grep -q "== dvp-hwcheck: PASS" <<<"$out" || fail "dvp-hwcheck --sim: no PASS"
[ "$(grep -c '^PASS$' <<<"$out")" = 8 ] || fail "dvp-hwcheck --sim: not 8 runs passed"
grep -q "in chains of mbufs" <<<"$out" && ! grep -q "; 0 in chains of mbufs" <<<"$(sed -n '/rx scatter/,$p' <<<"$out")" ||
	fail "dvp-hwcheck --sim: the scatter run received no chain"

run "$hwcheck" --info "$info" --eal "--no-huge $LCORES" --sim=profile=cx4lx --frames 500
[ "$rc" = 0 ] || fail "dvp-hwcheck --sim=profile=cx4lx: exit $rc"
grep -q "PCI id 0x1015, inline L2 (18 bytes), DevX" <<<"$out" || fail "cx4lx: no device line"
grep -q "not offered by this device: asked for eMPW with inline frames, ran: SEND" <<<"$out" ||
	fail "cx4lx: eMPW not said to be missing"
echo "OK"
