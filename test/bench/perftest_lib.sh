# SPDX-License-Identifier: BSD-3-Clause
# Copyright (c) 2026 The dvpmd authors
#
# Sourced by the benchmarks that set dvp-perf beside perftest
# (verbs-vs-perftest.sh, verbs-two-hosts.sh): figures gathered per case,
# their medians and the comparison lines.

# field LINE KEY: the value of KEY= in a line.
field() {
	sed -n "s/.* $2=\([^ ]*\).*/\1/p" <<<"$1"
}

# median NUMBERS...
median() {
	printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) exit 1
		if (NR % 2) printf "%.2f", v[(NR + 1) / 2]; else printf "%.2f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# add NAME VALUE: one more figure for NAME (nothing when VALUE is empty).
declare -A all
add() {
	[ -n "$2" ] && all[$1]="${all[$1]:-} $2"
}

# vs TAG CASE DVP_KEY PERFTEST_KEY: "TAG CASE dvp=<median> perftest=<median>
# ratio=<dvp/perftest> ..." and every figure; a case with no valid run on
# either side is a FAILED line and sets status=1.
vs() {
	local d p
	# shellcheck disable=SC2086
	d=$(median ${all[$3]:-}) && p=$(median ${all[$4]:-}) || {
		echo "$1 $2 FAILED: no valid run (dvp: ${all[$3]:-none}; perftest: ${all[$4]:-none})"
		status=1
		return
	}
	echo "$1 $2 dvp=$d perftest=$p ratio=$(awk -v a="$d" -v b="$p" 'BEGIN { printf "%.2f", a / b }')" \
		"dvp_all=$(tr ' ' ',' <<<"${all[$3]# }") perftest_all=$(tr ' ' ',' <<<"${all[$4]# }")"
}

# perftest_row FILE SIZE LAT: the client's figures row (perftest 4.5's
# columns): "t_typical 99%" for ib_send_lat (LAT=1), "BW_average" for
# ib_send_bw; exit 1 without a valid one.
perftest_row() {
	awk -v s="$2" -v lat="$3" '
		$1 == s && NF >= 5 {
			ok = 1
			if (lat) { v1 = $5; v2 = $8 } else { v1 = $4; v2 = "" }
			if (v1 !~ /^[0-9.]+$/ || v1 + 0 <= 0) ok = 0
			if (lat && (v2 !~ /^[0-9.]+$/ || v2 + 0 <= 0)) ok = 0
			if (ok) { print v1, v2; found = 1; exit }
		}
		END { exit found ? 0 : 1 }' "$1"
}
