#!/bin/sh
# The generic layers must not drag libibverbs along: each library given
# must not have it as a NEEDED entry (readelf -d). Verbs belong to
# drivers/bus/ib, drivers/common/mlx5 and the drivers over them.
# Usage: test_no_verbs.sh LIBRARY...
set -u
command -v readelf >/dev/null 2>&1 || { echo "SKIP: no readelf"; exit 77; }
bad=0
for lib in "$@"; do
	case "$lib" in *.so | *.so.*) ;; *) continue ;; esac
	needed=$(readelf -d "$lib") || { echo "FAIL: readelf -d $lib"; bad=1; continue; }
	if printf '%s\n' "$needed" | grep -q 'NEEDED.*libibverbs'; then
		echo "FAIL: $(basename "$lib") links libibverbs:"
		printf '%s\n' "$needed" | grep NEEDED
		bad=1
	else
		echo "ok: $(basename "$lib")"
	fi
done
exit $bad
