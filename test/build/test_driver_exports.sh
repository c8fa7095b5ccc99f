#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# A driver's shared object exports its API and nothing else: the functions
# and objects its API headers declare (its installed dvp_*.h; for a common
# layer, the header its drivers call), every one of them, and no internal
# symbol, which two copies loaded side by side (-d) would share. Drivers are
# built with hidden visibility and their API marked __dvp_export.
# Usage: test_driver_exports.sh LIB.so [HEADER...] [LIB.so [HEADER...]]...
set -u
command -v nm >/dev/null 2>&1 || { echo "SKIP: no nm (binutils)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The names a header declares at file scope: a function (the identifier
# before the first parenthesis of a declaration starting in column 0) or
# an extern object. Comments, preprocessor lines, inline functions,
# typedefs and what type bodies hold are not declarations of a symbol.
declared() {
	awk '
	{
		line = $0
		out = ""
		while (line != "") {
			if (incomment) {
				i = index(line, "*/")
				if (i == 0) { line = ""; break }
				line = substr(line, i + 2)
				incomment = 0
			}
			i = index(line, "/*")
			if (i == 0) { out = out line; break }
			out = out substr(line, 1, i - 1)
			line = substr(line, i + 2)
			incomment = 1
		}
		if (out ~ /^[ \t]/ || out ~ /^#/ || out ~ /^(static|typedef)[ \t]/ || out ~ /"/)
			next
		if (out ~ /^[A-Za-z_].*\(/) {
			sub(/[ \t]*\(.*/, "", out)
			n = split(out, w, /[^A-Za-z0-9_]+/)
			if (w[n] != "") print w[n]
		} else if (out ~ /^(__dvp_export[ \t]+)?extern[ \t].*;/) {
			sub(/[ \t]*(\[[^]]*\])?[ \t]*;.*/, "", out)
			n = split(out, w, /[^A-Za-z0-9_]+/)
			if (w[n] != "") print w[n]
		}
	}' "$@"
}

bad=0
# check LIB: against the headers listed in $tmp/headers.
check() {
	lib=$1
	name=$(basename "$lib")
	# ASan defines an __odr_asan.<name> indicator beside each exported
	# global; it follows the global's visibility and is not API of its own.
	nm -D --defined-only "$lib" | awk 'NF >= 3 && $3 !~ /^__odr_asan\./ { print $3 }' |
		sort -u >"$tmp/exported" ||
		{ echo "FAIL: nm -D $lib"; bad=1; return; }
	while IFS= read -r h; do
		cat "$h" || echo "FAIL: cannot read $h" >&2
	done <"$tmp/headers" | declared | sort -u >"$tmp/declared"
	leaked=$(comm -23 "$tmp/exported" "$tmp/declared" | tr '\n' ' ')
	missing=$(comm -13 "$tmp/exported" "$tmp/declared" | tr '\n' ' ')
	if [ -n "$leaked" ]; then
		echo "FAIL: $name exports what no API header declares: $leaked(drivers build with -fvisibility=hidden and mark only their API __dvp_export)"
		bad=1
	fi
	if [ -n "$missing" ]; then
		echo "FAIL: $name does not export its API: $missing(mark the declarations __dvp_export)"
		bad=1
	fi
	[ -z "$leaked$missing" ] && echo "ok: $name: $(wc -l <"$tmp/exported") symbols, its API"
}

[ $# -gt 0 ] || { echo "usage: $0 LIB.so [HEADER...]..."; exit 2; }
lib=
for a in "$@"; do
	case "$a" in
	*.so | *.so.*)
		[ -n "$lib" ] && check "$lib"
		lib=$a
		: >"$tmp/headers"
		;;
	*) printf '%s\n' "$a" >>"$tmp/headers" ;;
	esac
done
[ -n "$lib" ] || { echo "usage: $0 LIB.so [HEADER...]..."; exit 2; }
check "$lib"
exit $bad
