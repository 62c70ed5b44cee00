#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 300
# The traffic Documentation/protocol.rst walks through ("One RDMA Read,
# step by step"): one connection and one RDMA Read of 4 KiB
# (siw_conn_test walk) between siw_a and siw_b on a veth pair, recorded
# twice at once: on the wire by tcpdump, and inside siw by its
# tracepoints. MPA CRC is on and GSO-sized FPDUs are off (one FPDU per
# TCP segment, as a hardware RNIC sees it), and the veths' segmentation
# offloads are off. The trace stops once the Read completed, before the
# disconnect.
#
# Then three more traced runs, the worked examples of debugging.rst: a
# rejected connection (siw_conn_test reject), a Read with a wrong STag
# ending in a Terminate (walkerr) and the flush after a disconnect
# (disconnect), each trace ending where the case runs its -x command.
#
# All records go to the output share (walk.pcap, walk-trace.txt,
# walk-NAME-trace.txt); the host decodes them (selftests/walkthrough.py,
# from check.sh) and checks that the excerpts protocol.rst and
# debugging.rst show still read the same, or writes them anew (make
# walkthrough).
. "$(dirname "$0")/lib.sh"
plan 29
require tcpdump ethtool
prog=$SIW_DIR/userspace/siw_conn_test
[ -x "$prog" ] || { fail "userspace/siw_conn_test is built" "missing: $prog (make -C userspace)"; exit 1; }
addr=192.0.2.1
T=/sys/kernel/tracing
. "$(dirname "$0")/capture.sh"
require_output_share

at_exit 'stop_capture >/dev/null; echo 0 > "$T/events/siw/enable" 2>/dev/null;
	echo 1 > "$T/tracing_on" 2>/dev/null; echo "$saved_kb" > "$T/buffer_size_kb" 2>/dev/null;
	echo "$saved_crc" > /sys/module/siw/parameters/mpa_crc 2>/dev/null;
	echo "$saved_gso" > /sys/module/siw/parameters/mpa_gso 2>/dev/null; cleanup_netns'

check "veth pair between two namespaces" setup_veth_pair
check "segmentation offloads off on $IF1 and $IF2" sh -c \
	"ip netns exec $NS1 ethtool -K $IF1 tso off gso off gro off && ip netns exec $NS2 ethtool -K $IF2 tso off gso off gro off"
# A fresh module: endpoint numbers (cep N) count from 1 again.
check "siw loaded afresh" sh -c "{ ! lsmod | grep -q '^siw ' || modprobe -r siw; } && modprobe siw"
saved_crc=$(cat /sys/module/siw/parameters/mpa_crc)
saved_gso=$(cat /sys/module/siw/parameters/mpa_gso)
check "module parameters mpa_crc=2 mpa_gso=0" sh -c \
	"echo 2 > /sys/module/siw/parameters/mpa_crc && echo 0 > /sys/module/siw/parameters/mpa_gso"
check "siw on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
check "siw on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"

mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null
check "tracefs at $T" test -w $T/trace
saved_kb=$(cat $T/buffer_size_kb 2>/dev/null)
check "trace buffer emptied, siw's events on" sh -c "
	echo 0 > $T/tracing_on && echo 4096 > $T/buffer_size_kb &&
	echo > $T/trace && echo 1 > $T/events/siw/enable && echo 1 > $T/tracing_on"

pcap=/tmp/walk.pcap
rm -f "$pcap" "$SIW_OUT/walk.pcap" "$SIW_OUT/walk-trace.txt"
start_capture walk "$pcap"
# siw_conn_test runs the -x command after the Read completed, before it
# disconnects: the trace ends there.
tap_prog "siw_conn_test walk: one RDMA Read of 4 KiB, data checked" \
	timeout 120 "$prog" -a "$addr" -S "$NS1" -C "$NS2" \
	-x "echo 0 > $T/tracing_on" walk
finish_capture walk "$pcap"
check "capture copied to the output share" cp "$pcap" "$SIW_OUT/walk.pcap"
echo 0 > $T/events/siw/enable
check "trace copied to the output share" sh -c "grep -v '^#' $T/trace > $SIW_OUT/walk-trace.txt"
check "the trace holds the Read's completion at siw_b" \
	grep -qE 'siw_cqe: siw_b cq [0-9]+ qp [0-9]+ wr_id 0x77 READ SUCCESS bytes 4096' "$SIW_OUT/walk-trace.txt"
check "the trace ends before the disconnect" \
	sh -c "! grep -q ' -> ERR \| CLOSED ' $SIW_OUT/walk-trace.txt"
rm -f "$pcap"

# traced NAME CASE: the siw_conn_test case traced, up to where it runs
# its -x command; the trace goes to the output share as
# walk-NAME-trace.txt. The worked examples of debugging.rst.
traced() {
	local out=$SIW_OUT/walk-$1-trace.txt
	rm -f "$out"
	check "$1: trace buffer emptied, siw's events on" sh -c "
		echo 0 > $T/tracing_on && echo > $T/trace &&
		echo 1 > $T/events/siw/enable && echo 1 > $T/tracing_on"
	tap_prog "$1: siw_conn_test $2, traced" \
		timeout 120 "$prog" -a "$addr" -S "$NS1" -C "$NS2" \
		-x "echo 0 > $T/tracing_on" "$2"
	echo 0 > $T/events/siw/enable
	check "$1: trace copied to the output share" sh -c "grep -v '^#' $T/trace > $out"
}
traced reject reject
traced access walkerr
traced disconnect disconnect

check_wait "no QP, CQ, MR or PD is left" 10 no_siw_resources
check "rdma link delete siw_a, siw_b" sh -c \
	"ip netns exec $NS1 rdma link delete siw_a && ip netns exec $NS2 rdma link delete siw_b"
check "module parameters mpa_crc and mpa_gso restored" sh -c \
	"echo $saved_crc > /sys/module/siw/parameters/mpa_crc && echo $saved_gso > /sys/module/siw/parameters/mpa_gso"
