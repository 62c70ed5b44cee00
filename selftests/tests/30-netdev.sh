#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# The siw device follows its netdev: port state on down/up with async
# events, MTU changes, address changes, and removal with the netdev.
. "$(dirname "$0")/lib.sh"
plan 31
require rdma ibv_devinfo ibv_asyncwatch ip
at_exit 'kill $watch 2>/dev/null; cleanup_netns'

load_siw
check "veth pair between two namespaces" setup_veth_pair
check "rdma link add siw_a on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
check_wait "port active" 5 port_state_is siw_a PORT_ACTIVE

events=/tmp/asyncwatch.$$
ibv_asyncwatch -d siw_a > "$events" 2>&1 &
watch=$!
check_wait "ibv_asyncwatch is listening" 5 grep -q 'async event FD' "$events"

check "ip link set $IF1 down" n1 ip link set "$IF1" down
check_wait "port down" 5 port_state_is siw_a PORT_DOWN
check_wait "IBV_EVENT_PORT_ERR delivered" 5 grep -q 'IBV_EVENT_PORT_ERR' "$events"
check "ip link set $IF1 up" n1 ip link set "$IF1" up
check_wait "port active again" 5 port_state_is siw_a PORT_ACTIVE
check_wait "IBV_EVENT_PORT_ACTIVE delivered" 5 grep -q 'IBV_EVENT_PORT_ACTIVE' "$events"

check "peer down takes the carrier away" n2 ip link set "$IF2" down
check_wait "port down on lost carrier" 5 port_state_is siw_a PORT_DOWN
check "peer up" n2 ip link set "$IF2" up
check_wait "port active on carrier" 5 port_state_is siw_a PORT_ACTIVE

active_mtu() { ibv_devinfo -d siw_a | awk '/active_mtu:/ { print $2; exit }'; }
mtu_is() { [ "$(active_mtu)" = "$1" ]; }
check_wait "active_mtu 1024 at MTU 1500" 5 mtu_is 1024
check "ip link set mtu 9000" n1 ip link set "$IF1" mtu 9000
check_wait "active_mtu 4096 at MTU 9000" 5 mtu_is 4096
check "ip link set mtu 2100" n1 ip link set "$IF1" mtu 2100
check_wait "active_mtu 2048 at MTU 2100" 5 mtu_is 2048
check "ip link set mtu 1500" n1 ip link set "$IF1" mtu 1500
check_wait "active_mtu 1024 at MTU 1500 again" 5 mtu_is 1024

check "ip link set address (MAC change)" n1 ip link set "$IF1" address 02:00:00:00:00:42
check_wait "GID follows the MAC" 5 grep -q '^0200:0000:0042:0000' /sys/class/infiniband/siw_a/ports/1/gids/0
check_wait "the link-local GID follows the MAC" 5 \
	grep -qx 'fe80:0000:0000:0000:0000:00ff:fe00:0042' /sys/class/infiniband/siw_a/ports/1/gids/1
kill $watch 2>/dev/null
wait $watch 2>/dev/null

check "ip link del $IF1 (and its peer)" n1 ip link del "$IF1"
check_wait "siw_a removed with its netdev" 10 no_rdma_dev siw_a
check_wait "no siw device is left" 5 sh -c '[ -z "$(rdma link show)" ]'

check "a siw device on a netdev in a namespace that is deleted" \
	sh -c "ip netns add $NS1-x && ip -n $NS1-x link add dummy0 type dummy && ip -n $NS1-x link set dummy0 up && ip netns exec $NS1-x rdma link add siw_x type siw netdev dummy0"
check "ip netns del" ip netns del "$NS1-x"
check_wait "siw_x removed with the namespace" 10 no_rdma_dev siw_x
check "modprobe -r siw" modprobe -r siw
