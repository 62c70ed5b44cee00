#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 600
# RFC 7306 from a hostile peer. siw negotiates Immediate Data and atomics
# for kernel QPs only, so the victim is selftests/kverbs/siw_kverbs.ko
# loaded with victim=1: it serves kernel QPs on siw_kvv (a veth end in
# this namespace, 192.0.2.70). userspace/siw_hostile -k, in $NS2 across
# the veth, asks for RFC 7306 and sends valid and malformed Immediate
# Data and Atomic Requests, one connection per case: each draws the
# Terminate RFC 5040/5041 (as protocol.rst maps them) assign, or a valid
# one its Atomic Response. On unload the victim logs, per connection,
# whether its QP failed and the 8-byte target's value: both must be what
# the attacker expected (a refused atomic changes nothing). The last
# case reads the victim's big fast-register MR while a Send with
# Invalidate of it arrives: the victim poisons and frees its pages at
# once, and no byte of them may leave (on DEBUG=1, KASAN watches the
# pages). Without CRC and with, each run captured for the host's tshark
# (wire-check.sh).
. "$(dirname "$0")/lib.sh"
# 4 of set-up; per mode 12 (victim, attacker, rmmod, its log, 3 about
# receives, capture 5); 2 at the end.
plan 30
require rdma tcpdump
addr=192.0.2.70
port=19876
IF2=kvv-b
. "$(dirname "$0")/capture.sh"
require_output_share
ko=$SIW_DIR/selftests/kverbs/siw_kverbs.ko
prog=$SIW_DIR/userspace/siw_hostile
out=/tmp/hostile-rfc7306.$$.out

teardown() {
	stop_capture >/dev/null
	rmmod siw_kverbs 2>/dev/null
	rdma link delete siw_kvv 2>/dev/null
	ip link del kvv-a 2>/dev/null
	cleanup_netns
	rm -f "$out"
}
at_exit teardown

if [ ! -f "$ko" ]; then
	fail "the test module is built" "$ko missing: prepare builds it (make kverbs)"
	exit 1
fi
load_siw
check "veth kvv-a ($addr) to kvv-b in $NS2 (192.0.2.71)" sh -c \
	"ip netns add $NS2 && ip link add kvv-a type veth peer name kvv-b netns $NS2 &&
	 ip addr add $addr/24 dev kvv-a && ip link set kvv-a up &&
	 ip netns exec $NS2 ip link set lo up &&
	 ip netns exec $NS2 ip addr add 192.0.2.71/24 dev kvv-b &&
	 ip netns exec $NS2 ip link set kvv-b up"
check "rdma link add siw_kvv on kvv-a" rdma link add siw_kvv type siw netdev kvv-a
check "mpa/rfc7306 is 0 by default; siw_kvv takes RFC 7306 once set to 1" sh -c \
	'[ "$(cat /sys/class/infiniband/siw_kvv/mpa/rfc7306)" = 0 ] && echo 1 > /sys/class/infiniband/siw_kvv/mpa/rfc7306 && [ "$(cat /sys/class/infiniband/siw_kvv/mpa/rfc7306)" = 1 ]'
check "modprobe rdma_cm" modprobe rdma_cm

# compare_victim LOG: each "# expect-victim N target V fatal F" line of
# the attacker against the victim's "victim N: established 1 qp_error F
# target V" line on unload (F: the QP reported a fatal or access error).
compare_victim() {
	local log=$1 line n target fatal name have
	while read -r line; do
		set -- $line
		n=$3 target=$5 fatal=$7 name=${line##* }
		have=$(echo "$log" | sed -n "s/^# victim $n: established \([01]\) qp_error \([01]\) target \(0x[0-9a-f]*\)$/\1 \2 \3/p")
		if [ "$have" = "1 $fatal $target" ]; then
			ktap_pass "victim $n ($name): QP failed $fatal, target $target"
		else
			ktap_fail "victim $n ($name): expected established 1, QP failed $fatal, target $target; it logged: ${have:-nothing}"
		fi
	done < <(grep '^# expect-victim ' "$out")
}

for mode in "" "-c"; do
	name=hostile-rfc7306${mode:+-crc}
	rm -f "/tmp/$name.pcap" "$SIW_OUT/$name.pcap" "$SIW_OUT/$name.expect"
	start_capture "$name" "/tmp/$name.pcap"
	before=$(dmesg | wc -l)
	check "insmod siw_kverbs victim=1 ($name)" \
		insmod "$ko" dev=siw_kvv addr=$addr port=$port victim=1
	tap_prog "siw_hostile -k $port${mode:+ $mode}" \
		timeout 300 "$prog" -a $addr -k $port -C "$NS2" $mode
	cp "$TAP_LOG" "$out"
	check "$name: rmmod siw_kverbs (the victim logs what it saw)" rmmod siw_kverbs
	log=$(dmesg | tail -n +"$((before + 1))" | sed -n 's/^\[[^]]*\] siw_kverbs: //p')
	echo "$log" | grep '^# victim' | sed 's/^/    /'
	subtest "$name: each connection's QP state and target as the attacker expected" \
		compare_victim "$log"
	# The Write with immediate (case 3): its receive completed as
	# IB_WC_RECV_RDMA_WITH_IMM (129) with IB_WC_WITH_IMM (0x2), the
	# immediate and the Write's 64 bytes.
	check "$name: the victim's receive after the Write: RECV_RDMA_WITH_IMM, immediate 0xbeef, 64 bytes" \
		grep -q '^# victim 3: receive success opcode 129 wc_flags 0x2 imm 0xbeef byte_len 64$' <<< "$log"
	check "$name: the immediate without a receive completed the 4 posted ones (case 14)" \
		test "$(grep -c '^# victim 14: receive success opcode 128 wc_flags 0x2 imm ' <<< "$log")" = 4
	check "$name: the victim freed its big MR when the peer's Send with Invalidate came (case 16)" \
		grep -q '^# victim 16: the big MR was invalidated by the peer: poisoned and freed$' <<< "$log"
	finish_capture "$name" "/tmp/$name.pcap"
	check "$name: capture and expectations copied to the output share" \
		sh -c "cp /tmp/$name.pcap $SIW_OUT/$name.pcap && grep '^# expect-' $out > $SIW_OUT/$name.expect"
	rm -f "/tmp/$name.pcap"
done
check_wait "no QP, CQ, MR or PD is left" 20 no_siw_resources
teardown
check "modprobe -r siw" modprobe -r siw
