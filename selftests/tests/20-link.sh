#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# rdma link add/delete on a veth inside a namespace and on lo, and what the
# stock rdma-core (libibverbs with its siw provider) sees of the devices.
. "$(dirname "$0")/lib.sh"
plan 33
require rdma ibv_devices ibv_devinfo ip
at_exit cleanup_netns

load_siw
check "veth pair between two namespaces" setup_veth_pair

check "rdma link add on a veth inside a namespace" \
	n1 rdma link add siw_a type siw netdev "$IF1"
check "rdma link add on the peer veth in the other namespace" \
	n2 rdma link add siw_b type siw netdev "$IF2"
check "rdma link add on lo" rdma link add siw_lo type siw netdev lo

# The netdev of a link is named only inside the netdev's own namespace.
check "rdma link show in $NS1 lists siw_a on $IF1" \
	sh -c "ip netns exec $NS1 rdma link show | grep -Eq '^link siw_a/1 .* netdev $IF1( |\$)'"
check "rdma link show lists siw_lo on lo" \
	sh -c "rdma link show | grep -Eq '^link siw_lo/1 .* netdev lo( |\$)'"
check "rdma dev show: node type rnic" \
	sh -c "rdma dev show siw_a | grep -q 'node_type rnic'"
check "ibv_devices lists all three" \
	sh -c 'out=$(ibv_devices); for d in siw_a siw_b siw_lo; do echo "$out" | grep -q "$d" || exit 1; done'

for dev in siw_a siw_lo; do
	check "$dev: ibv_devinfo opens it through the stock provider" ibv_devinfo -d "$dev"
	info=$OUT
	if echo "$info" | grep -Eq 'transport:[[:space:]]+iWARP'; then
		ok "$dev: transport iWARP"
	else
		fail "$dev: transport iWARP" "$info"
	fi
	if echo "$info" | grep -Eq 'link_layer:[[:space:]]+Ethernet'; then
		ok "$dev: link layer Ethernet"
	else
		fail "$dev: link layer Ethernet" "$info"
	fi
	check "$dev: ibv_devinfo -v reports device limits" \
		sh -c "ibv_devinfo -v -d $dev | grep -Eq 'max_sge:[[:space:]]+6\$'"
	check "$dev: uverbs ABI version 1" \
		sh -c "grep -qx 1 /sys/class/infiniband_verbs/abi_version 2>/dev/null || \
		       grep -rqx 1 /sys/class/infiniband_verbs/*/abi_version"
done
check "siw_a: port active while the veth is up" port_state_is siw_a PORT_ACTIVE

# The GID is the netdev's MAC address followed by zeroes.
mac=$(n1 cat /sys/class/net/$IF1/address)
want=$(echo "$mac" | awk -F: '{ printf "%s%s:%s%s:%s%s:0000:0000:0000:0000:0000", $1,$2,$3,$4,$5,$6 }')
gid=$(cat /sys/class/infiniband/siw_a/ports/1/gids/0 2>&1)
if [ "$gid" = "$want" ]; then
	ok "siw_a: GID 0 is the MAC of $IF1"
else
	fail "siw_a: GID 0 is the MAC of $IF1" "got $gid, want $want"
fi
# The node GUID is the EUI-64 of the MAC: universal/local bit flipped,
# ff:fe in the middle.
IFS=: read -r m1 m2 m3 m4 m5 m6 <<< "$mac"
guid=$(printf '%02x%s:%sff:fe%s:%s%s' $((0x$m1 ^ 2)) "$m2" "$m3" "$m4" "$m5" "$m6")
got=$(cat /sys/class/infiniband/siw_a/node_guid)
if [ "$got" = "$guid" ]; then
	ok "siw_a: node GUID is the EUI-64 of the MAC"
else
	fail "siw_a: node GUID is the EUI-64 of the MAC" "got $got, want $guid"
fi
# GID 1 is the MAC's IPv6 link-local address, fe80::EUI-64, for consumers
# that ignore a GID whose low 8 bytes are zero.
want1="fe80:0000:0000:0000:$guid"
gid1=$(cat /sys/class/infiniband/siw_a/ports/1/gids/1 2>&1)
if [ "$gid1" = "$want1" ]; then
	ok "siw_a: GID 1 is the link-local address of the MAC"
else
	fail "siw_a: GID 1 is the link-local address of the MAC" "got $gid1, want $want1"
fi
check "siw_a: no GID 2" sh -c '! cat /sys/class/infiniband/siw_a/ports/1/gids/2 2>/dev/null'
check "the uverbs device of siw_a names it" \
	sh -c 'grep -lx siw_a /sys/class/infiniband_verbs/uverbs*/ibdev'

check "rdma link delete siw_a" rdma link delete siw_a
check_wait "siw_a is gone" 5 no_rdma_dev siw_a
check "siw_b is still there" has_rdma_dev siw_b
check "rdma link delete siw_b" rdma link delete siw_b
check "rdma link delete siw_lo" rdma link delete siw_lo
check_wait "no siw device is left" 5 sh -c '[ -z "$(rdma link show)" ]'
check "ibv_devices lists none" sh -c '! ibv_devices | grep -q siw_'
check "a name can be reused after delete" \
	sh -c "n1() { ip netns exec $NS1 \"\$@\"; }; n1 rdma link add siw_a type siw netdev $IF1 && rdma link delete siw_a"
check "modprobe -r siw" modprobe -r siw
