#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1500
# Faults under load, between two namespaces over a veth pair. Each fault
# strikes while traffic runs and must end with every work request
# completed or flushed, the programs ended (not hung), no siw object left
# (rdma resource show) and no TCP connection of siw left behind:
#   the link goes down and comes back (the transfer survives it),
#   a storm of connects and disconnects beside a running transfer,
#   memory registration churn and a CQ overflow (siw_conn_test cases),
#   packet loss and reordering under zero-copy transmit,
#   the netdev deleted, and `rdma link delete`, with QPs connected.
# (The peer process killed mid-transfer is in 70-traffic.)
. "$(dirname "$0")/lib.sh"
plan 42
require rping ucmatose ss rdma tc
at_exit 'pkill -9 -x rping; pkill -9 -x ucmatose; cleanup_netns'

prog=$SIW_DIR/userspace/siw_conn_test
addr=192.0.2.1

# bring_up: the veth pair with a siw device on each end.
bring_up() {
	check "veth pair between two namespaces" setup_veth_pair
	check "siw on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
	check "siw on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"
}

# rping_start PORT COUNT: a verifying rping pair in the background
# (server in NS1, client in NS2); sets srv_pid and cli_pid.
rping_start() {
	local port=$1 count=$2
	n1 timeout 600 rping -s -a $addr -p "$port" -V -C "$count" -S 4096 \
		> /tmp/faults-srv.$$.log 2>&1 &
	srv_pid=$!
	wait_for 20 sh -c "ip netns exec $NS1 ss -ltnH | grep -q ':$port '"
	n2 timeout 600 rping -c -a $addr -p "$port" -V -C "$count" -S 4096 \
		> /tmp/faults-cli.$$.log 2>&1 &
	cli_pid=$!
}

# rping_moving: the pair's QPs are connected (RTS on both ends).
rping_moving() {
	[ "$(rdma resource show qp | grep -c 'state RTS')" -ge 2 ]
}

# rping_wait SECS: waits up to SECS for both to end (then kills them and
# fails); rc_srv/rc_cli get their exit statuses.
rping_wait() {
	local secs=$1 start=$SECONDS hung=0
	while kill -0 "$cli_pid" 2>/dev/null || kill -0 "$srv_pid" 2>/dev/null; do
		if [ $((SECONDS - start)) -ge "$secs" ]; then
			hung=1
			echo "# rping still running after ${secs}s: killing it"
			pkill -9 -x rping
			break
		fi
		sleep 0.5
	done
	wait "$cli_pid"
	rc_cli=$?
	wait "$srv_pid"
	rc_srv=$?
	echo "# rping ended after $((SECONDS - start))s: server $rc_srv, client $rc_cli"
	[ $hung = 0 ]
}

rping_logs() {
	echo "server log:"
	tail -5 /tmp/faults-srv.$$.log
	echo "client log:"
	tail -5 /tmp/faults-cli.$$.log
}

# No socket on the rping/siw_conn_test ports is still held by siw (or a
# program): every one was released. A released socket (ino:0 in ss -e)
# belongs to TCP alone, which ends it by its own timers (a graceful close
# can leave one in FIN-WAIT for a while); those only show in the log.
no_siw_sockets() {
	local all held
	all=$( (n1 ss -tanHe; n2 ss -tanHe) 2>/dev/null |
		grep -E ':(7174|7175|7471) ' | grep -v TIME-WAIT)
	held=$(echo "$all" | grep -v ' ino:0 ' | grep .)
	[ -n "$all" ] && echo "# released, left to TCP: $all"
	[ -z "$held" ] && return 0
	echo "$held"
	echo "in $NS1:"
	n1 ss -tanoie 2>&1
	echo "in $NS2:"
	n2 ss -tanoie 2>&1
	return 1
}

# rping_verdict DESC SECS: the background pair ends within SECS, both 0.
rping_verdict() {
	if rping_wait "$2" && [ "$rc_srv" = 0 ] && [ "$rc_cli" = 0 ]; then
		ok "$1"
	else
		fail "$1" "server $rc_srv, client $rc_cli" "$(rping_logs)"
	fi
}

load_siw
bring_up

# 1. The link goes down for 3 seconds in the middle of a transfer and
# comes back: TCP carries the connection over the gap, rping's data
# verification passes, and both ends finish normally.
rping_start 7174 3000
check_wait "link down/up: the rping pair is moving data" 30 rping_moving
check "link down/up: ip link set $IF2 down" n2 ip link set "$IF2" down
check_wait "link down/up: port of siw_b down" 5 port_state_is siw_b PORT_DOWN
# The gap under test: the link stays down this long.
sleep 3
check "link down/up: ip link set $IF2 up" n2 ip link set "$IF2" up
check_wait "link down/up: port of siw_b active" 10 port_state_is siw_b PORT_ACTIVE
rping_verdict "link down/up: 3000 verified rping iterations complete across the gap" 400
check_wait "link down/up: no QP, CQ, MR or PD is left" 10 no_siw_resources

# 2. A storm: rounds of 100 connections set up and torn down by ucmatose
# while a verifying rping transfer runs beside them on another port; 3
# rounds, then more while the transfer still runs (up to 7 more: their
# number is not known beforehand, so they are one case).
storm_round() {
	client_server "storm: ucmatose with 100 connections, round $1" 300 \
		"ucmatose -c 100 -C 4" "ucmatose -c 100 -C 4 -s $addr"
}
storm_more() {
	local round=3
	while [ $round -lt 10 ] && kill -0 "$cli_pid" 2>/dev/null; do
		round=$((round + 1))
		storm_round $round
	done
	[ $round -gt 3 ] || ok "storm: the transfer ended with round 3; no more rounds"
}
rping_start 7175 5000
check_wait "storm: the rping pair is moving data" 30 rping_moving
for round in 1 2 3; do
	storm_round $round
done
subtest "storm: more rounds while the transfer runs" storm_more
rping_verdict "storm: the rping transfer beside it completes, verified" 400
check_wait "storm: no QP, CQ, MR or PD is left" 10 no_siw_resources
check_wait "storm: siw holds no TCP socket any more" 30 no_siw_sockets

# 3. MR churn and a CQ overflow, under traffic (siw_conn_test).
tap_prog "churn/overflow: siw_conn_test mrchurn cqoverflow" \
	timeout 300 "$prog" -a $addr -S "$NS1" -C "$NS2" mrchurn cqoverflow
check_wait "churn/overflow: no QP, CQ, MR or PD is left" 10 no_siw_resources
check_wait "churn/overflow: siw holds no TCP socket any more" 30 no_siw_sockets

# 4. Zero-copy transmit on a link that drops, delays and reorders
# packets (netem on both ends of the veth): with every Send and Write of
# 64 KiB and more sent by reference, a buffer overwritten right after its
# completion must never reach the peer changed (a retransmission reads
# the pages again), and the QPs did send zero-copy.
zc_knob=/sys/module/siw/parameters/tx_zcopy_bytes
zc_saved=$(cat $zc_knob)
check "zero-copy: from 64 KiB (tx_zcopy_bytes)" sh -c "echo 65536 > $zc_knob"
netem="netem loss 2% delay 2ms 1ms reorder 10% 50%"
check "zero-copy: netem on both ends ($netem)" sh -c \
	"ip netns exec $NS1 tc qdisc add dev $IF1 root $netem &&
	 ip netns exec $NS2 tc qdisc add dev $IF2 root $netem"
tap_prog "zero-copy: siw_conn_test overwrite (400 messages of 128 KiB, buffers overwritten at completion)" \
	timeout 400 "$prog" -a $addr -S "$NS1" -C "$NS2" \
	-x "rdma resource show qp -dd | grep -q 'tx_zc_msgs [1-9]'" overwrite
n1 tc qdisc del dev "$IF1" root 2>/dev/null
n2 tc qdisc del dev "$IF2" root 2>/dev/null
echo "$zc_saved" > $zc_knob
check_wait "zero-copy: no QP, CQ, MR or PD is left" 10 no_siw_resources
check_wait "zero-copy: siw holds no TCP socket any more" 60 no_siw_sockets

# 5. The netdev is deleted under the transfer: both siw devices go with
# the veth pair, the programs learn of it and end, nothing is left.
rping_start 7174 1000000
check_wait "netdev deleted: the rping pair is moving data" 30 rping_moving
check "netdev deleted: ip link del $IF1 (and its peer)" n1 ip link del "$IF1"
check_wait "netdev deleted: siw_a and siw_b are gone" 30 \
	sh -c '[ -z "$(rdma link show)" ]'
if rping_wait 60; then
	ok "netdev deleted: both rping processes end within 60 s"
else
	fail "netdev deleted: both rping processes end within 60 s" "$(rping_logs)"
fi
check_wait "netdev deleted: no QP, CQ, MR or PD is left" 10 no_siw_resources
cleanup_netns

# 6. rdma link delete with QPs connected.
bring_up
rping_start 7174 1000000
check_wait "link delete: the rping pair is moving data" 30 rping_moving
check "link delete: rdma link delete siw_a" n1 rdma link delete siw_a
check_wait "link delete: siw_a is gone" 30 no_rdma_dev siw_a
if rping_wait 60; then
	ok "link delete: both rping processes end within 60 s"
else
	fail "link delete: both rping processes end within 60 s" "$(rping_logs)"
fi
check_wait "link delete: no QP, CQ, MR or PD is left" 10 no_siw_resources
check_wait "link delete: siw holds no TCP socket any more" 60 no_siw_sockets
check "link delete: siw_b is still there and can be deleted" \
	n2 rdma link delete siw_b
cleanup_netns
rm -f /tmp/faults-srv.$$.log /tmp/faults-cli.$$.log
check "modprobe -r siw" modprobe -r siw
