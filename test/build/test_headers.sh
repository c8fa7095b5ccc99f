#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# Every header dvpmd installs compiles alone, as the first and only include
# of a file, and twice in a row (its guard holds), with the warnings of a
# careful outside project: an application may include any of them first.
# The headers are laid out as `meson install` puts them (meson introspect
# --installed), so a header that needs another not installed fails here.
# Usage: test_headers.sh BUILD_ROOT CC [CC_ARGS...]
set -eu
build=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
inc=$tmp/include/dvp
mkdir -p "$inc"
command -v python3 >/dev/null || { echo "SKIP: python3 is needed to read meson's list of installed files"; exit 77; }

# The installed headers: "source destination" per line.
meson introspect --installed "$build" | python3 -c '
import json, sys
for src, dst in json.load(sys.stdin).items():
    if dst.endswith(".h") and "/include/dvp/" in dst:
        print(src, dst)
' >"$tmp/list" || { echo "FAIL: meson introspect --installed $build"; exit 1; }
[ -s "$tmp/list" ] || { echo "FAIL: no installed header found in $build"; exit 1; }

n=0 bad=""
while read -r src dst; do
	cp "$src" "$inc/$(basename "$dst")"
done <"$tmp/list"
while read -r src dst; do
	h=$(basename "$dst")
	printf '#include <%s>\n#include <%s>\n' "$h" "$h" >"$tmp/t.c"
	if ! "$@" -fsyntax-only -std=c11 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes \
		-Wmissing-prototypes -Wundef -Wpointer-arith -D_GNU_SOURCE -I"$inc" \
		"$tmp/t.c" >"$tmp/err" 2>&1; then
		echo "FAIL: <$h> does not compile alone:"
		grep -m 5 "error" "$tmp/err" | sed "s|$tmp/||g"
		bad="$bad $h"
	fi
	n=$((n + 1))
done <"$tmp/list"
[ -z "$bad" ] || { echo "FAIL: not self-contained:$bad"; exit 1; }
echo "$n installed headers compile alone: ok"
