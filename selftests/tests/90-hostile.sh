#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 600
# A hostile peer: userspace/siw_hostile completes the MPA exchange with a
# siw server over plain TCP and sends crafted frames; for each, the
# Terminate siw sends back, the server's async event and completions,
# guard bytes around its memory, and the connection's end are checked.
# In every MPA mode: revision 2 and 1, CRC off and required, peer-to-peer
# with each RTR type, and p2p with a first frame that is not the RTR. The kernel log must stay clean (rate
# limited lines about the peer only) and siw must unload afterwards.
. "$(dirname "$0")/lib.sh"
require rdma
trap cleanup_netns EXIT
prog=$SIW_DIR/userspace/siw_hostile

load_siw
check "veth pair between two namespaces" setup_veth_pair
check "siw on $IF1 (the server's side only)" n1 rdma link add siw_a type siw netdev "$IF1"
# The server's device allows peer-to-peer mode with any RTR; the attacker
# asks for it only in the p2p modes.
check "siw_a allows p2p with every RTR type" sh -c \
	'echo 1 > /sys/class/infiniband/siw_a/mpa/p2p && echo 7 > /sys/class/infiniband/siw_a/mpa/rtr'
for mode in "" "-c" "-1" "-1 -c" "-p 2" "-p 4" "-p 1" "-p 4 -c" \
	    "-p 2 -n" "-p 4 -n" "-p 1 -n -c"; do
	echo "+ $prog -a 192.0.2.1 -S $NS1 -C $NS2 $mode"
	timeout 300 "$prog" -a 192.0.2.1 -S "$NS1" -C "$NS2" $mode
	[ $? = 0 ] || fail "siw_hostile $mode: exit status"
done
check_wait "no QP, CQ, MR or PD is left" 10 no_siw_resources
check "modprobe -r siw" modprobe -r siw
