#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 600
# siw's bytes on the wire, checked by an independent implementation:
# tshark's iWARP dissectors (MPA, DDP/RDMAP) decode a capture of rping and
# perftest traffic, with MPA CRC off and required, without a malformed
# frame. The decoded capture is kept in the output share.
. "$(dirname "$0")/lib.sh"
require tcpdump tshark rping ib_read_bw
trap 'kill $dump 2>/dev/null; cleanup_netns' EXIT

capture() { # NAME CRC
	local name=$1 crc=$2 cap=/tmp/$1.pcap out
	load_siw
	echo "$crc" > /sys/module/siw/parameters/mpa_crc
	n2 tcpdump -i "$IF2" -U -s 0 -w "$cap" tcp > /tmp/tcpdump.log 2>&1 &
	dump=$!
	wait_for 10 grep -q 'listening on' /tmp/tcpdump.log
	client_server "$name: rping -V -C 3 -S 4096" 60 \
		"rping -s -a 192.0.2.1 -V -C 3 -S 4096" \
		"rping -c -a 192.0.2.1 -V -C 3 -S 4096"
	client_server "$name: ib_read_bw -R" 60 "ib_read_bw -R -s 20000 -n 4" \
		"ib_read_bw -R -s 20000 -n 4 192.0.2.1"
	sleep 1
	kill -INT $dump
	wait $dump
	out=$(tshark -r "$cap" -o tcp.desegment_tcp_streams:TRUE 2>&1)
	[ -n "${SIW_OUT:-}" ] && [ -d "$SIW_OUT" ] && echo "$out" > "$SIW_OUT/wire-$name.txt"
	check "$name: tshark recognises the MPA exchange" \
		sh -c "tshark -r $cap -Y 'iwarp_mpa.key.req' | grep -q MPA"
	check "$name: tshark decodes RDMAP Send, Read Request, Read Response and Write" \
		sh -c "out=\$(tshark -r $cap -T fields -e iwarp_rdma.opcode -Y iwarp_ddp_rdmap 2>/dev/null | tr ',' '\n' | sort -u); for o in 0x00 0x01 0x02 0x03; do echo \"\$out\" | grep -qx \$o || exit 1; done"
	check "$name: no malformed frame" \
		sh -c "[ -z \"\$(tshark -r $cap -Y '_ws.malformed || _ws.expert.severity == error' 2>/dev/null)\" ]"
	rm -f "$cap"
	check "$name: modprobe -r siw" modprobe -r siw
}

check "veth pair between two namespaces" setup_veth_pair
siw_links() {
	n1 rdma link add siw_a type siw netdev "$IF1" &&
	n2 rdma link add siw_b type siw netdev "$IF2"
}
load_siw && siw_links
capture crc-off 0
load_siw && siw_links
capture crc-required 2
