#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 600
# A hostile peer: userspace/siw_hostile completes the MPA exchange with a
# siw server over plain TCP and sends crafted frames; for each, the
# Terminate siw sends back, the server's async event and completions,
# guard bytes around its memory, and the connection's end are checked.
# With MPA CRC off and required. The kernel log must stay clean (rate
# limited lines about the peer only) and siw must unload afterwards.
. "$(dirname "$0")/lib.sh"
require rdma
trap cleanup_netns EXIT
prog=$SIW_DIR/userspace/siw_hostile

load_siw
check "veth pair between two namespaces" setup_veth_pair
check "siw on $IF1 (the server's side only)" n1 rdma link add siw_a type siw netdev "$IF1"
for crc in "" -c; do
	echo "+ $prog -a 192.0.2.1 -S $NS1 -C $NS2 $crc"
	timeout 300 "$prog" -a 192.0.2.1 -S "$NS1" -C "$NS2" $crc
	[ $? = 0 ] || fail "siw_hostile $crc: exit status"
done
check_wait "no QP, CQ, MR or PD is left" 10 no_siw_resources
check "modprobe -r siw" modprobe -r siw
