#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1200
# RDMA traffic through stock rdma-core tools between two namespaces over a
# veth pair (and, with SIW_TOPO=lo, on loopback in the initial namespace,
# on a dummy netdev and on lo itself with 127.0.0.1 and ::1):
# rping with validation, perftest over rdma_cm, ucmatose, rstream,
# rdma_server/rdma_client.
. "$(dirname "$0")/lib.sh"
# 28 cases after the topology's set-up on veth (2 set-up cases on
# loopback, 3 on veth); on loopback 10 of them fewer (the perftest runs
# below that veth has already run) and 14 for siw on lo itself.
if [ "${SIW_TOPO:-veth}" = lo ]; then
	plan 34
else
	plan 31
fi
require python3 rping ib_send_bw ib_write_bw ib_read_bw ib_send_lat ib_write_lat \
	ib_read_lat ucmatose rstream rdma_server rdma_client
at_exit cleanup_netns

load_siw
if [ "${SIW_TOPO:-veth}" = lo ]; then
	# Loopback: client and server on one host, one netdev in the initial
	# namespace; rdma_cm needs the address of the netdev siw is on.
	at_exit 'ip link del siwlo0 2>/dev/null'
	check "dummy netdev siwlo0 with 192.0.2.100 and 2001:db8::100" \
		sh -c "ip link add siwlo0 type dummy && ip addr add 192.0.2.100/24 dev siwlo0 && ip -6 addr add 2001:db8::100/64 dev siwlo0 nodad && ip link set siwlo0 up"
	check "rdma link add siw_lo on siwlo0" rdma link add siw_lo type siw netdev siwlo0
	addr=192.0.2.100 addr6=2001:db8::100
	sns=- cns=-
	where="loopback"
else
	check "veth pair between two namespaces" setup_veth_pair
	check "siw on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
	check "siw on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"
	addr=192.0.2.1 addr6=2001:db8::1
	sns=$NS1 cns=$NS2
	where="veth"
fi
cs() { client_server "$where: $1" "$2" "$3" "$4" "$sns" "$cns"; }

# rping: 100 iterations with data validation at its smallest, a page, largest.
for size in 23 4096 65535; do
	cs "rping -V -C 100 -S $size" 240 \
		"rping -s -a $addr -V -C 100 -S $size" \
		"rping -c -a $addr -V -C 100 -S $size"
done

# IPv6 to a specific address, and servers on each family's wildcard.
cs "rping -V -C 100 over IPv6" 240 \
	"rping -s -a $addr6 -V -C 100 -S 4096" \
	"rping -c -a $addr6 -V -C 100 -S 4096"
cs "rping, server on 0.0.0.0" 240 "rping -s -a 0.0.0.0 -V -C 20" \
	"rping -c -a $addr -V -C 20"
cs "rping, server on ::, client over IPv6" 240 "rping -s -a :: -V -C 20" \
	"rping -c -a $addr6 -V -C 20"

# perftest over rdma_cm, every bandwidth tool over all sizes (-a). On
# veth also bidirectional (-b), with four QPs (-q 4), the latency tools
# over all sizes and a send queue of one slot. On loopback those ten
# would run the same paths again (perftest verifies no data): what lo
# changes, 64 KiB segments and pages shared by sender and receiver, is
# met by the sweeps here and by rping, rstream and siw_conn_test, which
# verify their data. -n keeps the emulated guest's run short.
for t in ib_send_bw ib_write_bw ib_read_bw; do
	cs "$t -R -a" 300 "$t $PERFTEST -a -n 5" "$t $PERFTEST -a -n 5 $addr"
	[ "$where" = veth ] || continue
	cs "$t -R -b -s 65536" 120 "$t $PERFTEST -b -s 65536 -n 50" \
		"$t $PERFTEST -b -s 65536 -n 50 $addr"
	cs "$t -R -q 4" 120 "$t $PERFTEST -q 4 -s 65536 -n 50" \
		"$t $PERFTEST -q 4 -s 65536 -n 50 $addr"
done
if [ "$where" = veth ]; then
	for t in ib_send_lat ib_write_lat ib_read_lat; do
		cs "$t -R -a" 300 "$t $PERFTEST -a -n 5" "$t $PERFTEST -a -n 5 $addr"
	done
	# Many Reads through a send queue of one slot: the Read in flight
	# keeps its slot VALID until its response, and the transmitter must
	# not take that slot for a new element when its counter wraps onto
	# it (a duplicate Read Request that completed the next Read early,
	# then a hang).
	cs "ib_read_lat -R -n 2000 (a send queue of one slot)" 300 \
		"ib_read_lat $PERFTEST -n 2000 -s 8" \
		"ib_read_lat $PERFTEST -n 2000 -s 8 $addr"
fi

cs "ucmatose with 64 connections" 240 "ucmatose -c 64" "ucmatose -c 64 -s $addr"
cs "rstream with data verification" 120 "rstream -T v -S 65536 -C 100" \
	"rstream -T v -S 65536 -C 100 -s $addr"
cs "rdma_server / rdma_client" 60 "rdma_server" "rdma_client -s $addr"

# The cases of our own test program, both ends in one process; then its
# data cases again over IPv6.
prog=$SIW_DIR/userspace/siw_conn_test
conn_test() { # ADDR CASE...
	local a=$1 ns=()
	shift
	[ "$sns" = - ] || ns=(-S "$sns" -C "$cns")
	tap_prog "$where: siw_conn_test -a $a${*:+ $*}" \
		timeout 240 "$prog" -a "$a" "${ns[@]}" "$@"
}
conn_test "$addr"
conn_test "$addr6" send rdma mpa

# siw on lo itself: 127.0.0.1 and ::1 (protocol.rst, "siw on lo"). rdma_cm
# finds a device by its netdev's hardware address, all zeroes on lo until
# siw gives it one; siw takes it back when its device goes.
lo_gid_is_mac() {
	local mac gid
	mac=$(tr -d : < /sys/class/net/lo/address)
	gid=$(tr -d : < /sys/class/infiniband/siw_lo1/ports/1/gids/0)
	echo "# lo: $mac, siw_lo1 GID 0: $gid"
	# Unicast, locally administered, and GID 0 is that address padded.
	[ $((0x${mac:0:2} & 3)) = 2 ] && [ "$gid" = "${mac}00000000000000000000" ]
}
# A TCP connection over lo each to 127.0.0.1 and ::1 carries a message.
lo_tcp_echo() {
	python3 - <<'PY'
import socket
for fam, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
    srv = socket.socket(fam, socket.SOCK_STREAM)
    srv.bind((host, 0))
    srv.listen(1)
    cli = socket.create_connection((host, srv.getsockname()[1]), timeout=5)
    conn, _ = srv.accept()
    cli.sendall(b"siw on lo")
    got = conn.recv(64)
    assert got == b"siw on lo", got
    print("# TCP over", host, "ok")
PY
}
lo_counted() {
	local n
	n=$(stats_delta /tmp/lo.$$ siw_lo1 connections_established)
	echo "# siw_lo1: $n connections established"
	[ "$n" -ge 6 ]
}
if [ "$where" = loopback ]; then
	# First siw on lo alone: a client connecting to a loopback address
	# takes the first RDMA device whose port is up, so siw_lo would
	# otherwise carry it.
	check "rdma link del siw_lo (for now)" rdma link del siw_lo
	check "lo's hardware address is all zeroes before siw" \
		grep -qx 00:00:00:00:00:00 /sys/class/net/lo/address
	check "rdma link add siw_lo1 on lo" rdma link add siw_lo1 type siw netdev lo
	check "lo has a locally administered address, siw_lo1's GID 0" lo_gid_is_mac
	siw_stats siw_lo1 > /tmp/lo.$$
	cs "127.0.0.1 on lo: rping -V -C 100 -S 4096" 60 \
		"rping -s -a 127.0.0.1 -V -C 100 -S 4096" \
		"rping -c -a 127.0.0.1 -V -C 100 -S 4096"
	cs "::1 on lo: rping -V -C 100 -S 4096" 60 \
		"rping -s -a ::1 -V -C 100 -S 4096" "rping -c -a ::1 -V -C 100 -S 4096"
	conn_test 127.0.0.1 send rdma
	conn_test ::1 send rdma
	check "the connections above went through siw_lo1" lo_counted
	check "TCP over lo still flows (127.0.0.1 and ::1)" lo_tcp_echo
	# Two siw devices: rdma_cm listens on both for a loopback address;
	# their listeners share the port.
	check "rdma link add siw_lo on siwlo0 again" \
		rdma link add siw_lo type siw netdev siwlo0
	cs "127.0.0.1 with siw on lo and on siwlo0: rping -V -C 20" 60 \
		"rping -s -a 127.0.0.1 -V -C 20" "rping -c -a 127.0.0.1 -V -C 20"
	check "rdma link del siw_lo1" rdma link del siw_lo1
	check "lo's hardware address is all zeroes again" \
		grep -qx 00:00:00:00:00:00 /sys/class/net/lo/address
fi

# A peer that vanishes: the client is killed mid-run; the server sees the
# connection end (it does not hang) and nothing is left behind.
sx= cx=
[ "$sns" = - ] || sx="ip netns exec $sns" cx="ip netns exec $cns"
$sx timeout 120 rping -s -a "$addr" -C 1000000 -S 4096 > /tmp/vanish-srv.log 2>&1 &
srv_pid=$!
wait_for 20 sh -c "$sx ss -ltnH | grep -q ':7174 '"
$cx rping -c -a "$addr" -C 1000000 -S 4096 > /dev/null 2>&1 &
check_wait "vanishing peer: the rping pair is moving data" 30 \
	sh -c "rdma resource show qp | grep -c 'state RTS' | grep -qx 2"
pkill -9 -f "rping -c -a $addr -C 1000000"
start=$SECONDS
wait $srv_pid
echo "# server ended with status $? after $((SECONDS - start))s"
check "vanishing peer: the server's rping ends within 60 s" \
	test $((SECONDS - start)) -lt 60
check_wait "no QP, CQ, MR or PD is left" 10 no_siw_resources
check "modprobe -r siw" modprobe -r siw
