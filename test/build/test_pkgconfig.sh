#!/bin/sh
# An outside program builds against dvpmd each way an outside project would,
# and runs: it probes the simulated HCA and sends frames through it, so a
# program whose drivers were dropped by the linker fails.
#   shared:     pkg-config --libs libdvp, against `meson install --destdir`
#   static:     pkg-config --static --libs libdvp, same install; no libdvp
#               shared object may be loaded
#   configure:  -Ddefault_library=shared and =static, each installed and
#               linked with pkg-config (only the libraries are built)
#   subproject: a meson project with dvpmd under subprojects/: tests, apps
#               and docs are off by default, and werror stays dvpmd's own
# Usage: test_pkgconfig.sh BUILD_ROOT SOURCE_DIR TEST_DIR [SANITIZERS]
set -eu
build=$1 src=$2 tdir=$3
# A sanitizer build's libraries need the program built with the same runtime.
san=
case "${4:-none}" in none | "") ;; *) san="-fsanitize=$4" ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# No real RDMA device is scanned: the sim's ports are the only ones.
export DVP_SYSFS_ROOT=/nonexistent/dvp-test-sysfs
eal="--no-huge -m 128 --vdev sim_mlx5,ports=2,cable=loop --log-level=notice"

# run NAME PROGRAM [ENV...]: it must report every frame received.
run() {
	name=$1 prog=$2
	shift 2
	out=$(env "$@" "$prog" $eal 2>&1) || { echo "$out"; fail "$name: the program failed"; }
	echo "$out" | grep -q "hello from outside" || { echo "$out"; fail "$name: no greeting"; }
	echo "$out" | grep -q "sent 8, received 8 frames" || { echo "$out"; fail "$name: frames lost"; }
	echo "$name: ok"
}

# install BUILD DEST: the pkg-config function pc() for that install.
install_tree() {
	meson install -C "$1" --no-rebuild --quiet --destdir "$2" >/dev/null
	pcdir=$(dirname "$(find "$2" -name libdvp.pc | head -1)")
	[ -n "$pcdir" ] && [ -f "$pcdir/libdvp-libs.pc" ] || fail "libdvp.pc and libdvp-libs.pc not installed"
	export PKG_CONFIG_PATH="$pcdir"
	# The tree is installed under a destdir: move the prefix there.
	prefix="$2$(pkg-config --variable=prefix libdvp)"
}
pc() { pkg-config --define-variable=prefix="$prefix" "$@" libdvp; }

# 1. shared and static links against this build's install (both kinds of library).
install_tree "$build" "$tmp/dest"
libdir=$(pc --variable=libdir)
cc $san -o "$tmp/app_shared" "$tdir/outside_app.c" $(pc --cflags --libs)
run shared "$tmp/app_shared" LD_LIBRARY_PATH="$libdir"
if [ -f "$libdir/libdvp_eal.a" ]; then
	cc $san -o "$tmp/app_static" "$tdir/outside_app.c" $(pc --cflags --static --libs)
	ldd "$tmp/app_static" | grep -q libdvp_ && fail "static: a libdvp shared object is linked: $(ldd "$tmp/app_static" | grep libdvp_)"
	# No libdvp shared object is at hand: everything is in the program.
	run static "$tmp/app_static"
fi

# 2. Configured with each kind of library alone; only the libraries are built.
for kind in shared static; do
	meson setup "$tmp/b_$kind" "$src" -Ddefault_library=$kind -Dtests=false -Dapps=false \
		-Ddocs=false -Ddpdk=disabled -Ddpdk_pmd=disabled --prefix=/usr >"$tmp/setup_$kind.log" 2>&1 ||
		{ cat "$tmp/setup_$kind.log"; fail "default_library=$kind: setup failed"; }
	ninja -C "$tmp/b_$kind" -j2 >"$tmp/build_$kind.log" 2>&1 ||
		{ tail -30 "$tmp/build_$kind.log"; fail "default_library=$kind: build failed"; }
	install_tree "$tmp/b_$kind" "$tmp/dest_$kind"
	cc -o "$tmp/app_$kind" "$tdir/outside_app.c" $(pc --cflags --libs)
	run "default_library=$kind" "$tmp/app_$kind" LD_LIBRARY_PATH="$(pc --variable=libdir)"
done

# 3. A meson subproject.
mkdir -p "$tmp/parent/subprojects"
ln -s "$src" "$tmp/parent/subprojects/dvpmd"
cp "$tdir/outside_app.c" "$tmp/parent/"
cat >"$tmp/parent/meson.build" <<'MESON'
project('parent', 'c', default_options: ['default_library=static'])
dvp = dependency('libdvp', fallback: ['dvpmd', 'libdvp_dep'])
executable('outside_app', 'outside_app.c', dependencies: dvp)
MESON
meson setup "$tmp/b_sub" "$tmp/parent" --force-fallback-for=libdvp -Ddvpmd:dpdk=disabled -Ddvpmd:dpdk_pmd=disabled \
	>"$tmp/setup_sub.log" 2>&1 || { cat "$tmp/setup_sub.log"; fail "subproject: setup failed"; }
ninja -C "$tmp/b_sub" -j2 >"$tmp/build_sub.log" 2>&1 ||
	{ tail -30 "$tmp/build_sub.log"; fail "subproject: build failed"; }
[ -d "$tmp/b_sub/subprojects/dvpmd/test" ] && fail "subproject: dvpmd's tests were configured"
[ -d "$tmp/b_sub/subprojects/dvpmd/apps" ] && fail "subproject: dvpmd's apps were configured"
# werror and warning_level=3 are dvpmd's own: the parent's file is compiled without them.
grep '"file": ".*parent/outside_app.c"' -B3 "$tmp/b_sub/compile_commands.json" | grep -q -- "-Werror" &&
	fail "subproject: -Werror forced on the parent"
run subproject "$tmp/b_sub/outside_app"
