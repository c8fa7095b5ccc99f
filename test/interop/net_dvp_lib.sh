# Sourced by the interop scripts that run a DPDK application (with the
# net_dvp plugin, or testpmd against memif): the plugin's private copy,
# the memory mode, hugepages.
# The caller defines skip() (one line, exit 77) and calls ndvp_cleanup
# from its EXIT trap.
#
# ndvp_plugin_copy PLUGIN WORKDIR
#   DPDK's EAL loads a plugin only if neither its real path nor any
#   directory above it is world-writable (stat's S_IWOTH, sticky bit or
#   not: /tmp, /var/tmp, /dev/shm are refused). The copy goes into a
#   directory of mode 0700 made here: under WORKDIR (the build tree) when
#   its real path has no world-writable component, else under
#   $XDG_RUNTIME_DIR, else /run. Sets ndvp_plugin to the copy.
# ndvp_mem MODE NEED_MB
#   MODE huge: DPDK's defaults on hugepages (no -m, no --iova-mode: as
#   root without an IOMMU, DPDK picks IOVA PA), with at least NEED_MB of
#   2 MB hugepages free, reserved here when short and given back at exit,
#   and a hugetlbfs mount. MODE no-huge: --no-huge -m NEED_MB. Sets
#   ndvp_eal_mem to the EAL arguments.
# ndvp_dpdk_prefix PREFIX
#   Registers a DPDK --file-prefix whose runtime directory and hugepage
#   files ndvp_cleanup removes (DPDK leaves both when killed).
# ndvp_cleanup
#   Undoes all of the above.

ndvp_private_dir=
ndvp_added_pages=0
ndvp_prefixes=
ndvp_huge_dir=

# The first world-writable directory on the real path of @1 (itself included), or nothing.
ndvp_world_writable() {
	local d
	d=$(realpath -m "$1") || return 0
	while :; do
		if [ -e "$d" ] && [ -n "$(find "$d" -maxdepth 0 -perm -o+w 2>/dev/null)" ]; then
			echo "$d"
			return 0
		fi
		[ "$d" = / ] && return 0
		d=$(dirname "$d")
	done
}

ndvp_plugin_copy() {
	local plugin=$1 work=$2 base= b ww
	[ -f "$plugin" ] || skip "no plugin at $plugin (meson: -Ddpdk_pmd, usertools/dvp-dpdk-sdk)"
	for b in "$work" "${XDG_RUNTIME_DIR:-}" /run; do
		[ -n "$b" ] && [ -d "$b" ] && [ -w "$b" ] || continue
		ww=$(ndvp_world_writable "$b")
		if [ -z "$ww" ]; then
			base=$b
			break
		fi
	done
	[ -n "$base" ] ||
		skip "no directory for the plugin's copy without a world-writable parent (tried $work, \$XDG_RUNTIME_DIR, /run): DPDK would refuse it"
	# mktemp makes it 0700, named after the pid: no two runs share it.
	ndvp_private_dir=$(mktemp -d "$(realpath "$base")/dvpmd-plugin.$$.XXXXXX") ||
		skip "cannot make a private directory under $base"
	cp "$plugin" "$ndvp_private_dir/" && chmod 0755 "$ndvp_private_dir/${plugin##*/}" || exit 1
	ndvp_plugin=$ndvp_private_dir/${plugin##*/}
	ww=$(ndvp_world_writable "$ndvp_plugin")
	[ -z "$ww" ] || { echo "FAIL: the plugin's copy $ndvp_plugin is under the world-writable $ww"; exit 1; }
}

ndvp_free_pages() { awk '/^HugePages_Free:/ { f = $2 } /^HugePages_Rsvd:/ { r = $2 } END { print f - r }' /proc/meminfo; }

ndvp_mem() {
	local mode=$1 mb=$2 need short nr tool
	case $mode in
	no-huge)
		ndvp_eal_mem="--no-huge -m $mb"
		return 0
		;;
	huge) ;;
	*) echo "unknown memory mode '$mode'; valid: huge, no-huge" >&2; exit 2 ;;
	esac
	[ "$(awk '/^Hugepagesize:/ { print $2 }' /proc/meminfo)" = 2048 ] ||
		skip "the kernel's default hugepage size is not 2 MB"
	need=$(((mb + 1) / 2))
	short=$((need - $(ndvp_free_pages)))
	if [ $short -gt 0 ]; then
		# Relative to what is there: other runs may hold or add pages meanwhile.
		nr=$(cat /proc/sys/vm/nr_hugepages)
		if echo $((nr + short)) >/proc/sys/vm/nr_hugepages 2>/dev/null; then
			ndvp_added_pages=$(($(cat /proc/sys/vm/nr_hugepages) - nr))
		fi
	fi
	[ "$(ndvp_free_pages)" -ge $need ] ||
		skip "$need free 2 MB hugepages needed, $(ndvp_free_pages) free and no more could be reserved (memory fragmented?)"
	ndvp_huge_dir=$(awk '$3 == "hugetlbfs" && $4 !~ /pagesize=1/ { print $2; exit }' /proc/mounts)
	if [ -z "$ndvp_huge_dir" ]; then
		tool=$(dirname "$(realpath "${BASH_SOURCE[0]}")")/../../usertools/dvp-hugepages
		"$tool" --size 2M --mount /dev/hugepages >/dev/null || skip "no hugetlbfs mount, and none could be made at /dev/hugepages"
		ndvp_huge_dir=/dev/hugepages
	fi
	ndvp_eal_mem=
}

ndvp_dpdk_prefix() { ndvp_prefixes="$ndvp_prefixes $1"; }

ndvp_cleanup() {
	local p nr
	for p in $ndvp_prefixes; do
		rm -rf "/var/run/dpdk/$p"
		[ -n "$ndvp_huge_dir" ] && rm -f "$ndvp_huge_dir/${p}map_"*
	done
	if [ "$ndvp_added_pages" -gt 0 ]; then
		nr=$(cat /proc/sys/vm/nr_hugepages)
		echo $((nr > ndvp_added_pages ? nr - ndvp_added_pages : 0)) >/proc/sys/vm/nr_hugepages 2>/dev/null
		ndvp_added_pages=0
	fi
	[ -n "$ndvp_private_dir" ] && rm -rf "$ndvp_private_dir"
	ndvp_private_dir=
}
