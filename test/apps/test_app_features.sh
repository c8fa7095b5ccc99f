#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# doc/features.md against the drivers: each row marked (checked) against
# the capabilities `dvp-info --json` reports for a port of each driver this
# machine can make (mlx5 on the simulated HCA, net_ring, net_memif, and
# net_af_xdp on a veth pair in a namespace of the test's own when root),
# each row marked (ops) against the driver's ops table in the sources. Both
# directions: a Y the port does not back and a capability the table leaves
# blank both fail, with the row and the driver named.
#
#   test_app_features.sh DVP_INFO SOURCE_ROOT
set -u
info=$1
src=$2
. "$(dirname "$0")/app_lib.sh"

doc=$src/doc/features.md
[ -f "$doc" ] || fail "no $doc"
work=$(mktemp -d)
ns=
veth=
at_exit 'rm -rf "$work"; [ -n "$ns" ] && ip netns del "$ns" 2>/dev/null'

# port_json DRIVER VDEV...: the first port of dvp-info --json into $work/DRIVER.json.
port_json() {
	local drv=$1
	shift
	run "$@"
	[ "$rc" = 0 ] || fail "$drv: dvp-info exit $rc"
	printf '%s\n' "$out" | grep '^{' >"$work/$drv.json" || fail "$drv: no JSON from dvp-info"
}

port_json mlx5 "$info" --no-huge $LCORES --vdev sim_mlx5 -- --json
port_json ring "$info" --no-huge $LCORES --vdev net_ring0 -- --json
port_json memif "$info" --no-huge $LCORES \
	--vdev "net_memif0,role=server,socket=$work/memif.sock,socket-abstract=no" -- --json
if [ "$(id -u)" = 0 ] && ip netns add "dvpfeat$$" 2>/dev/null; then
	ns=dvpfeat$$
	veth=fx$$
	ip -n "$ns" link add "${veth}a" type veth peer name "${veth}b" &&
		ip -n "$ns" link set "${veth}a" up && ip -n "$ns" link set "${veth}b" up ||
		fail "af_xdp: cannot make a veth pair in namespace $ns"
	port_json af_xdp ip netns exec "$ns" "$info" --no-huge $LCORES \
		--vdev "net_af_xdp0,iface=${veth}a" -- --json
else
	echo "note: not root or no network namespaces: the af_xdp column is checked against its ops only"
fi

python3 - "$doc" "$work" "$src" <<'EOF' || exit 1
import json, os, re, sys

doc, work, src = sys.argv[1:4]
rows, cols = {}, None
for line in open(doc):
    if not line.startswith('|'):
        continue
    cells = [c.strip() for c in line.strip().strip('|').split('|')]
    if cells[0] == 'Feature':
        cols = cells[1:]
        continue
    if cols is None or set(cells[0]) <= set('-'):
        continue
    if len(cells) != len(cols) + 1:
        sys.exit('FAIL: features.md: row "%s" has %d cells, not %d' % (cells[0], len(cells), len(cols) + 1))
    for mark in cells[1:]:
        if mark not in ('Y', 'P', ''):
            sys.exit('FAIL: features.md: row "%s": mark "%s" (valid: Y, P or blank)' % (cells[0], mark))
    rows[cells[0]] = dict(zip(cols, cells[1:]))
if cols != ['mlx5', 'verbs', 'memif', 'ring', 'af_xdp']:
    sys.exit('FAIL: features.md: columns %s' % cols)

def any_of(*names):
    return lambda p: any(n in p['rx_offloads'] + p['tx_offloads'] for n in names)

checked = {
    'Link status event': lambda p: 'lsc' in p['interrupts'],
    'Removal event': lambda p: 'rmv' in p['interrupts'],
    'Queue error event': lambda p: 'queue_error' in p['interrupts'],
    'Rx interrupt': lambda p: 'rxq' in p['interrupts'],
    'Rx interrupt, solicited only': lambda p: 'rxq_solicited' in p['interrupts'],
    'Scattered Rx': lambda p: 'scatter' in p['rx_offloads'],
    'Multi-segment Tx': lambda p: 'multi_segs' in p['tx_offloads'],
    'Fast mbuf free': lambda p: 'mbuf_fast_free' in p['tx_offloads'],
    'RSS hash': lambda p: 'rss_hash' in p['rx_offloads'],
    'RSS key update': lambda p: p['rss']['key_size'] > 0,
    'RSS reta update': lambda p: p['rss']['reta_size'] > 0,
    'L3 checksum offload': any_of('ipv4_cksum'),
    'L4 checksum offload': any_of('udp_cksum', 'tcp_cksum'),
    'VLAN offload': any_of('vlan_strip', 'vlan_insert'),
    'VLAN filter': lambda p: 'vlan_filter' in p['rx_offloads'],
    'TSO': lambda p: 'tcp_tso' in p['tx_offloads'],
    'Timestamp offload': lambda p: 'timestamp' in p['rx_offloads'],
    'CRC offload': lambda p: 'keep_crc' in p['rx_offloads'],
}

# The driver's ops table: op name -> the function it points to.
def ops(drv):
    table = {}
    d = os.path.join(src, 'drivers', 'net', drv)
    for f in sorted(os.listdir(d)):
        if f.endswith('.c'):
            for m in re.finditer(r'^\s*\.(\w+)\s*=\s*(\w+),', open(os.path.join(d, f)).read(), re.M):
                table.setdefault(m.group(1), m.group(2))
    return table

def by_op(op, nop=None):
    def mark(table):
        fn = table.get(op)
        return '' if fn is None else 'P' if fn == nop else 'Y'
    return mark

by_ops = {
    'Power mgmt address monitor': by_op('get_monitor_addr'),
    'Queue restart after an error': by_op('queue_restart'),
    'Device reset': by_op('reset'),
    'Flow API': by_op('flow_validate'),
    'MTU update': by_op('mtu_set', 'dvp_port_op_mtu_set_nop'),
    'Promiscuous mode': by_op('promiscuous_enable', 'dvp_port_op_promisc_nop'),
    'Unicast MAC filter': by_op('mac_addr_set', 'dvp_port_op_mac_addr_set_nop'),
}

bad, seen = [], 0
for name in list(checked) + list(by_ops):
    tag = '*(checked)*' if name in checked else '*(ops)*'
    row = rows.get('%s %s' % (name, tag))
    if row is None:
        bad.append('features.md has no row "%s %s"' % (name, tag))
        continue
    for drv in cols:
        if name in by_ops:
            want = by_ops[name](ops(drv))
        else:
            path = os.path.join(work, drv + '.json')
            if not os.path.exists(path):
                continue
            ports = json.load(open(path))['ports']
            if not ports:
                bad.append('%s: dvp-info made no port' % drv)
                continue
            want = 'Y' if checked[name](ports[0]) else ''
        seen += 1
        if row[drv] != want:
            bad.append('"%s", %s: the table says "%s", the driver "%s"' % (name, drv, row[drv] or 'blank', want or 'blank'))
for b in bad:
    print('FAIL: ' + b)
if bad:
    sys.exit(1)
print('features.md: %d cells checked, all true' % seen)
EOF
echo PASS
