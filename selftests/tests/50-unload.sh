#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# modprobe -r with links present removes them cleanly, also while a
# process holds one of them open.
. "$(dirname "$0")/lib.sh"
plan 15
require rdma ip ibv_asyncwatch
at_exit 'kill $holder 2>/dev/null; cleanup_netns'

load_siw
check "veth pair between two namespaces" setup_veth_pair
check "link on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
check "link on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"
check "link on lo" rdma link add siw_lo type siw netdev lo

# A process with an open user context on siw_lo.
ibv_asyncwatch -d siw_lo > /tmp/holder.$$ 2>&1 &
holder=$!
check_wait "a process holds siw_lo open" 5 grep -q 'async event FD' /tmp/holder.$$

check "modprobe -r siw with three links present" timeout 60 modprobe -r siw
check "the module is gone" sh -c '! lsmod | grep -q "^siw "'
check "no device is left" sh -c '[ -z "$(rdma link show)" ] && [ -z "$(ls /sys/class/infiniband 2>/dev/null)" ]'
check_wait "the holder was told its device is gone (IBV_EVENT_DEVICE_FATAL)" 10 \
	grep -q IBV_EVENT_DEVICE_FATAL /tmp/holder.$$
check "the holder is still alive and can be ended normally" kill "$holder"
check "the netdevs are intact" sh -c "ip netns exec $NS1 ip link show $IF1 | grep -q UP"
check "deleting the netdevs does not wait for siw" timeout 20 ip -n "$NS1" link del "$IF1"
check "the module loads again" modprobe siw
check "and takes a new link on lo" rdma link add siw_lo type siw netdev lo
check "modprobe -r siw" modprobe -r siw
