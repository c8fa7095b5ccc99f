#!/bin/bash
# The MTU through net_dvp in Debian's dpdk-testpmd, on the simulated HCA:
# the device's MTU (the sim's netdev, mtu=) and the application's (testpmd's
# --max-pkt-len) in all four combinations of 1500 and 9000, with and without
# rx scatter, on testpmd's default mbufs (2 KB of data). The sources send
# frames up to the device's MTU; testpmd forwards port 0 to port 1 and back.
#
# Usage: net_dvp_mtu.sh PLUGIN WORKDIR MEM
#   MEM  huge | no-huge (as net_dvp_testpmd.sh)
# Exit 0 pass, 1 fail, 77 skipped (the one line printed says why).
#
# Each combination passes when every frame is accounted for and no queue
# broke: each port took its source's COUNT frames (received, or dropped by
# the device for being longer than the MTU: rx_errors = rx_length_errors,
# as many as the frames above the application's MTU), no rx queue restarted
# and no error CQE came, and the other port's sink got every frame received
# that testpmd did not drop, intact. An application MTU of 9000 on 2 KB
# mbufs without scatter must be refused at queue setup, with the numbers.
set -u
plugin=$1
work=$2
mem=$3
count=${DVP_NET_DVP_COUNT:-2000}

# shellcheck source=net_dvp_lib.sh
. "$(dirname "$0")/net_dvp_lib.sh"
# shellcheck source=net_dvp_testpmd_lib.sh
. "$(dirname "$0")/net_dvp_testpmd_lib.sh"

tp_case net_dvp_mtu ndvpmtu

# One combination: device MTU @1, application MTU @2, scatter @3 (on|off).
run() {
	local dev=$1 app=$2 sg=$3 out sizes n_sizes long=0 extra=
	out=$dir/testpmd.$dev.$app.$sg.log
	# 64 and 1514 bytes, and a frame of the device's MTU where it is larger.
	sizes="64,1514"
	[ "$dev" -gt 1500 ] && sizes="$sizes,$((dev + 14))"
	n_sizes=$(echo "$sizes" | tr ',' '\n' | wc -l)
	# Frames of the cycle longer than the application's MTU + 18.
	for s in ${sizes//,/ }; do
		[ "$s" -gt $((app + 18)) ] && long=$((long + 1))
	done
	[ "$sg" = on ] && extra="--enable-scatter --tx-offloads=0x8000"
	# shellcheck disable=SC2086
	tp_start "$out" "$dir/cmd" -l 0-1 $ndvp_eal_mem --no-pci --file-prefix "$prefix" \
		-d "$ndvp_plugin" \
		--vdev "net_dvp0,sim_mlx5,ports=2,cable=traffic,count=$count,mtu=$dev,sizes=[$sizes]" \
		-- -i --forward-mode=io --no-flush-rx --max-pkt-len=$((app + 18)) $extra
	wait_for 1 'testpmd> ' 60 || fail "dev $dev, app $app, scatter $sg: testpmd did not start"
	if [ "$app" -gt 1500 ] && [ "$sg" = off ]; then
		# 2 KB mbufs cannot hold a 9018-byte frame: refused, with the numbers.
		grep -q "too small for frames of MTU $app ($((app + 18)) bytes)" "$tp_out" ||
			fail "dev $dev, app $app, no scatter: the queue setup was not refused with the numbers"
		tp_quit
		echo "dev $dev, app $app, no scatter: refused at queue setup, as it must"
		return
	fi
	grep -qE 'Start ports failed|Fail to (start|configure) port' "$tp_out" &&
		fail "dev $dev, app $app, scatter $sg: testpmd could not start its ports"
	cmd "set fwd io retry"
	cmd "start"
	local s0 s1 i0 i1 snap= now same=0
	for _ in $(seq 240); do
		cmd "show port xstats all"
		sleep 0.5
		s0=$(xstat sim_source_sent 0) s1=$(xstat sim_source_sent 1)
		i0=$(($(xstat rx_good_packets 0) + $(xstat rx_errors 0)))
		i1=$(($(xstat rx_good_packets 1) + $(xstat rx_errors 1)))
		now="$s0/$s1/$i0/$i1/$(xstat sim_sink_received 0)/$(xstat sim_sink_received 1)"
		[ "$s0/$s1/$i0/$i1" = "$count/$count/$count/$count" ] && [ "$now" = "$snap" ] && break
		if [ "$now" = "$snap" ]; then
			same=$((same + 1))
			[ $same -ge 40 ] && break
		else
			same=0
		fi
		snap=$now
	done
	cmd "stop"
	cmd "show port xstats all"
	sleep 1
	tp_quit
	local bad= p q rx err len_err got want_long
	# The long frame is the last of the cycle: count / n of them.
	want_long=$((count / n_sizes * long))
	for p in 0 1; do
		q=$((1 - p))
		rx=$(xstat rx_good_packets $p)
		err=$(xstat rx_errors $p)
		len_err=$(xstat rx_length_errors $p)
		got=$(xstat sim_sink_received $q)
		[ "$(xstat sim_source_sent $p)" = "$count" ] || bad="$bad port $p's source sent $(xstat sim_source_sent $p);"
		[ $((rx + err)) = "$count" ] || bad="$bad port $p took $rx + $err errors of $count;"
		[ "$err" = "$len_err" ] || bad="$bad port $p rx_errors $err, rx_length_errors $len_err;"
		[ "$len_err" = "$want_long" ] || bad="$bad port $p dropped $len_err long frames, $want_long were longer than MTU $app;"
		for x in rx_q0_restarts rx_q0_cqe_errors rx_missed_errors rx_mbuf_allocation_errors \
			sim_sink_corrupt sim_sink_duplicates; do
			v=$(xstat $x $p)
			[ "$v" = 0 ] || bad="$bad port $p $x=$v;"
		done
		[ $((got + $(tp_dropped $q))) = "$rx" ] ||
			bad="$bad port $q's sink got $got + testpmd dropped $(tp_dropped $q), port $p received $rx;"
	done
	grep -q 'error recovering event' "$tp_out" && bad="$bad a queue broke (error recovering event);"
	grep -q "still held by the application" "$tp_out" && bad="$bad net_dvp buffers still held at close;"
	[ -z "$bad" ] || { tp_out=$out; fail "dev $dev, app $app, scatter $sg:$bad"; }
	echo "dev $dev, app $app, scatter $sg: 2 x $count frames ($sizes), $(xstat rx_length_errors 0) + $(xstat rx_length_errors 1) longer than the MTU dropped by the device and counted, the rest forwarded intact"
}

for dev in 1500 9000; do
	for app in 1500 9000; do
		for sg in off on; do
			run $dev $app $sg
		done
	done
done
echo "PASS: the MTU on the device and in testpmd, 1500 and 9000 each way, with and without scatter ($mem): every frame delivered or counted, no queue broke"
