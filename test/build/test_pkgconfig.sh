#!/bin/sh
# An outside program builds with `pkg-config --cflags --libs libdvp` against a
# `meson install --destdir` tree, and runs.
# Usage: test_pkgconfig.sh BUILD_ROOT SOURCE_DIR [SANITIZERS]
set -eu
build=$1 src=$2
# A sanitizer build's libraries need the program built with the same runtime.
san=
case "${3:-none}" in none | "") ;; *) san="-fsanitize=$3" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/dest" >/dev/null
pcdir=$(dirname "$(find "$tmp/dest" -name libdvp.pc | head -1)")
[ -n "$pcdir" ] || { echo "libdvp.pc not installed"; exit 1; }
export PKG_CONFIG_PATH="$pcdir"
# The tree is installed under a destdir: move the prefix there.
prefix="$tmp/dest$(pkg-config --variable=prefix libdvp)"
pc() { pkg-config --define-variable=prefix="$prefix" "$@" libdvp; }
cc $san -o "$tmp/outside_app" "$src/outside_app.c" $(pc --cflags --libs)
out=$(LD_LIBRARY_PATH="$(pc --variable=libdir)" "$tmp/outside_app" 2>&1)
echo "$out"
echo "$out" | grep -q "hello from outside"
