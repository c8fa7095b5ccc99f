#!/bin/bash
# The plugin defines no symbol that one of DPDK's libraries it loads with
# defines too. Its own symbols stay inside it (--exclude-libs), so a
# clash does not fail the load: the plugin's code then silently binds to
# its own definition where DPDK's inlines meant DPDK's. (dvpmd's per-lcore
# id once had DPDK's name, per_lcore__lcore_id: rte_lcore_id() in the
# plugin read dvpmd's variable, never set on DPDK's lcores, and no mempool
# cache was ever used.)
# Usage: net_dvp_symbols.sh PLUGIN
# Exit 0 pass, 1 fail, 77 skipped.
set -u
plugin=$1
command -v nm >/dev/null && command -v ldd >/dev/null ||
	{ echo "SKIP: nm or ldd not found (Debian packages binutils, libc-bin)"; exit 77; }
[ -f "$plugin" ] || { echo "FAIL: no plugin at $plugin"; exit 1; }
libs=$(ldd "$plugin" | awk '$1 ~ /^librte_/ && $3 ~ /^\// { print $3 }')
[ -n "$libs" ] || { echo "FAIL: $plugin loads none of DPDK's libraries (ldd)"; exit 1; }
ours=$(nm --defined-only "$plugin" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u)
[ -n "$ours" ] || { echo "SKIP: $plugin has no symbol table (stripped)"; exit 77; }
# shellcheck disable=SC2086
dpdk=$(for l in $libs; do nm -D --defined-only "$l" | awk 'NF == 3 { sub(/@.*/, "", $3); print $3 }'; done | sort -u)
both=$(comm -12 <(echo "$ours") <(echo "$dpdk"))
if [ -n "$both" ]; then
	echo "FAIL: the plugin defines symbols DPDK's libraries define: $(echo $both)"
	echo "  rename them (dvpmd's symbols are dvp_ or the driver's prefix)"
	exit 1
fi
echo "PASS: none of the plugin's $(echo "$ours" | wc -l) symbols is one of DPDK's $(echo "$dpdk" | wc -l)"
