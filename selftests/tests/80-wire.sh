#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 900
# siw's own bytes on the wire, kept for an independent decoder. tcpdump
# on veth-b records the traffic between the two namespaces three times:
# with MPA CRC off (mpa_crc=0) and with CRC required (mpa_crc=2), both
# with GSO-sized FPDUs off (mpa_gso=0: one FPDU per TCP segment, what a
# hardware RNIC gets), and with CRC required and GSO-sized FPDUs on
# (FPDUs spanning many segments, each CRC over up to 64 KiB). A device
# copies the module parameters when it is added, so each capture gets
# links added after the parameters are set, and deleted after it. Each
# capture goes to the output share as wire-crc-off.pcap,
# wire-crc-required.pcap and wire-gso.pcap;
# after the run the host decodes them with tshark's iWARP dissectors
# (selftests/wire-check.sh, from check.sh), where tshark is fast: this
# guest only captures.
#
# Traffic per capture, small on purpose: rping -V (Send, RDMA Write, RDMA
# Read), ib_read_bw and ib_write_bw over rdma_cm, and siw_conn_test's
# remote access violations (Terminate) and reject (MPA reply with R set
# and private data).
#
# Segmentation offloads are off on both veths, so the capture holds TCP
# segments of at most one MSS, as a NIC would put them on the wire.
#
# The capture must neither hang nor lose its end: tcpdump hands on and
# writes every packet at once, the traffic is followed by a marker that
# must reach the file before tcpdump is stopped, and stopping it is
# SIGINT, then TERM and KILL, each after a bounded wait.
. "$(dirname "$0")/lib.sh"
# 2 cases of set-up, 16 per capture, 2 at the end.
plan 52
require tcpdump ethtool rping ib_read_bw ib_write_bw
prog=$SIW_DIR/userspace/siw_conn_test
[ -x "$prog" ] || { fail "userspace/siw_conn_test is built" "missing: $prog (make -C userspace)"; exit 1; }
addr=192.0.2.1
. "$(dirname "$0")/capture.sh"
require_output_share

at_exit 'stop_capture >/dev/null; cleanup_netns'

cs() { client_server "$1" "$2" "$3" "$4" "$NS1" "$NS2"; }

# capture NAME MPA_CRC MPA_GSO: one capture of the traffic, with the
# module parameters mpa_crc and mpa_gso set before the links are added: a
# device takes its MPA settings from the parameters then (its own copy is
# in sysfs).
capture() {
	local name=$1 crc=$2 gso=$3 pcap=/tmp/wire-$1.pcap n d

	check "$name: module parameters mpa_crc=$crc mpa_gso=$gso" sh -c \
		"echo $crc > /sys/module/siw/parameters/mpa_crc && echo $gso > /sys/module/siw/parameters/mpa_gso"
	check "$name: siw on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
	check "$name: siw on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"
	check "$name: both devices have mpa/crc $crc, mpa/gso $gso" sh -c "
		for d in siw_a siw_b; do
			[ \$(cat /sys/class/infiniband/\$d/mpa/crc) = $crc ] &&
			[ \$(cat /sys/class/infiniband/\$d/mpa/gso) = $gso ] || exit 1
		done"
	rm -f "$pcap" "$SIW_OUT/wire-$name.pcap"
	start_capture "$name" "$pcap"

	cs "$name: rping -V -C 3 -S 4096" 120 \
		"rping -s -a $addr -V -C 3 -S 4096" \
		"rping -c -a $addr -V -C 3 -S 4096"
	cs "$name: ib_read_bw -R -s 20000 -n 5" 120 \
		"ib_read_bw $PERFTEST -s 20000 -n 5" \
		"ib_read_bw $PERFTEST -s 20000 -n 5 $addr"
	cs "$name: ib_write_bw -R -s 20000 -n 5" 120 \
		"ib_write_bw $PERFTEST -s 20000 -n 5" \
		"ib_write_bw $PERFTEST -s 20000 -n 5 $addr"
	tap_prog "$name: siw_conn_test access reject (Terminate, MPA reject)" \
		timeout 300 "$prog" -a "$addr" -S "$NS1" -C "$NS2" access reject

	finish_capture "$name" "$pcap"
	n=$(sed -n 's/^\([0-9]*\) packets\{0,1\} captured$/\1/p' "$dump_log")
	if [ -n "$n" ] && [ "$n" -gt 0 ] && [ "$n" -lt "$max_packets" ]; then
		ok "$name: capture holds $n packets, under the limit of $max_packets"
	else
		fail "$name: capture holds packets, under the limit of $max_packets" \
			"tcpdump reported '${n:-nothing}'"
	fi
	check "$name: capture copied to the output share" \
		cp "$pcap" "$SIW_OUT/wire-$name.pcap"
	rm -f "$pcap"
	check_wait "$name: no QP, CQ, MR or PD is left" 10 no_siw_resources
	check "$name: rdma link delete siw_a, siw_b" sh -c \
		"ip netns exec $NS1 rdma link delete siw_a && ip netns exec $NS2 rdma link delete siw_b"
}

check "veth pair between two namespaces" setup_veth_pair
check "segmentation offloads off on $IF1 and $IF2" sh -c \
	"ip netns exec $NS1 ethtool -K $IF1 tso off gso off gro off && ip netns exec $NS2 ethtool -K $IF2 tso off gso off gro off"
load_siw

capture crc-off 0 0
capture crc-required 2 0
capture gso 2 1

check "module parameters mpa_crc and mpa_gso back to 0 and 1" sh -c \
	"echo 0 > /sys/module/siw/parameters/mpa_crc && echo 1 > /sys/module/siw/parameters/mpa_gso"
check "modprobe -r siw" modprobe -r siw
