#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# usertools/dvp-hugepages: --help explains every action and option, --show
# reads the real sysfs without changing anything, bad arguments are named.
# (Reserving and mounting are exercised by test_hugepages, as root.)
set -u
tool=$1
fail() { echo "FAIL: $*"; [ -n "${out:-}" ] && printf '%s\n' "$out"; exit 1; }

[ -d /sys/kernel/mm/hugepages ] || { echo "SKIP: this kernel has no hugepages"; exit 77; }
out=$("$tool" --help) || fail "--help failed"
for w in --show --reserve --mount --umount --clear --size --node "-h, --help"; do
	printf '%s\n' "$out" | grep -q -- "^  $w " || fail "--help does not explain $w"
done
out=$("$tool" --show) || fail "--show failed"
printf '%s\n' "$out" | grep -q "^hugepages (reserved / free / surplus) per node:" || fail "--show"
printf '%s\n' "$out" | grep -q "^hugetlbfs mounts:" || fail "--show has no mounts section"
out=$("$tool" --bogus 2>&1) && fail "--bogus accepted"
printf '%s\n' "$out" | grep -q "unknown argument '--bogus'" || fail "--bogus not named"
out=$("$tool" --size 3x 2>&1) && fail "--size 3x accepted"
printf '%s\n' "$out" | grep -q "'3x'" || fail "--size 3x not named"
out=$("$tool" --reserve many 2>&1) && fail "--reserve many accepted"
printf '%s\n' "$out" | grep -q "'many'" || fail "--reserve many not named"
# --show lists the hugepage files of every mount, those of a prefix that
# starts with '.' too: as root, on a hugetlbfs mount of our own in a mount
# namespace of our own (no other process sees it; empty files take no page).
if [ "$(id -u)" = 0 ] && command -v unshare >/dev/null; then
	mnt=$(mktemp -d)
	out=$(unshare --mount --propagation private sh -c '
		mount -t hugetlbfs nodev "$2" || exit 77
		touch "$2/dvpt$3map_0" "$2/.dvpt$3map_1"
		"$1" --show' sh "$tool" "$mnt" $$ 2>&1) && rc=0 || rc=$?
	rmdir "$mnt"
	if [ "$rc" = 77 ]; then
		echo "(no hugetlbfs mount possible: the file listing is not checked)"
	else
		[ "$rc" = 0 ] || fail "--show with a mount of ours: exit $rc"
		printf '%s\n' "$out" | grep -q "^    dvpt$$map_0: 0 MB, stale" || fail "--show misses dvpt$$map_0"
		printf '%s\n' "$out" | grep -q "^    .dvpt$$map_1: 0 MB, stale" || fail "--show misses .dvpt$$map_1"
	fi
else
	echo "(not root: the file listing is not checked)"
fi
echo "dvp-hugepages: ok"
