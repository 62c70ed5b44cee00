#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# One guest of the two-VM topology; SIW_VM is 1 or 2. The guests are joined
# by QEMU stream networking over a Unix socket on the host:
#
#   guest 1 eth0 192.0.2.11/24 2001:db8::11/64 ---- guest 2 eth0 192.0.2.12/24 2001:db8::12/64
#
# Both bring up siw on eth0, check what they see of each other, and move
# RDMA traffic between them (rping, ib_write_bw over rdma_cm). The
# guests meet at barriers: files in the output share they both mount.
. "$SIW_DIR/selftests/tests/lib.sh"

me=$SIW_VM
peer=$((3 - me))
share=$SIW_SHARE

# barrier NAME: wait until the peer reached the same point.
barrier() {
	touch "$share/vm$me/barrier-$1"
	wait_for 120 test -e "$share/vm$peer/barrier-$1"
}

check "virtio_net loads" modprobe virtio_net
check_wait "eth0 appears" 10 test -e /sys/class/net/eth0
check "eth0 addresses" sh -c "ip addr add 192.0.2.1$me/24 dev eth0 &&
	ip -6 addr add 2001:db8::1$me/64 dev eth0 nodad && ip link set eth0 up"
check_wait "IPv4 path to the peer" 60 ping -c1 -W1 "192.0.2.1$peer"
check_wait "IPv6 path to the peer" 30 ping -6 -c1 -W1 "2001:db8::1$peer"
check "modprobe siw" modprobe siw
check "rdma link add siw0 on eth0" rdma link add siw0 type siw netdev eth0
check_wait "siw0 port active" 10 port_state_is siw0 PORT_ACTIVE
check "ibv_devinfo through the stock provider: iWARP" \
	sh -c "ibv_devinfo -d siw0 | grep -Eq 'transport:[[:space:]]+iWARP'"
barrier siw-up
check "traffic still flows with siw attached" ping -c3 -i0.2 -W2 "192.0.2.1$peer"

# RDMA between the guests: guest 1 serves, guest 2 connects.
rdma_between() { # NAME SECS SERVER_CMD CLIENT_CMD
	local log=/tmp/peer.$$.log
	barrier "start-$1"
	if [ "$me" = 1 ]; then
		echo "+ server: $3"
		timeout "$2" $3 > "$log" 2>&1
	else
		sleep 2
		echo "+ client: $4"
		timeout "$2" $4 > "$log" 2>&1
	fi
	if [ $? = 0 ]; then
		ok "$1"
	else
		fail "$1" "$(tail -15 "$log")"
	fi
	barrier "end-$1"
}
rdma_between "rping -V -C 100 between the guests" 240 \
	"rping -s -a 192.0.2.11 -V -C 100 -S 4096" \
	"rping -c -a 192.0.2.11 -V -C 100 -S 4096"
rdma_between "ib_write_bw -R between the guests" 240 \
	"ib_write_bw -R -s 65536 -n 200" "ib_write_bw -R -s 65536 -n 200 192.0.2.11"
barrier traffic-done
check "rdma link delete siw0" rdma link delete siw0
check "modprobe -r siw" modprobe -r siw
