#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# Bad administrative requests fail with a clear error and leave nothing
# behind; a process cannot bind another's QP, or one already connected,
# by naming its number to rdma_cm (siw_qp_capture).
. "$(dirname "$0")/lib.sh"
plan 22
require rdma ip
at_exit cleanup_netns

load_siw
check "veth pair between two namespaces" setup_veth_pair

check_fails "rdma link add on a missing netdev fails" \
	rdma link add siw_x type siw netdev no-such-if0
if echo "$OUT" | grep -qi 'no such device'; then
	ok "... saying 'No such device'"
else
	fail "... saying 'No such device'" "$OUT"
fi
check "... and leaves no device" no_rdma_dev siw_x

check "rdma link add siw_a on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
check_fails "adding the same name again (on another netdev) fails" \
	n2 rdma link add siw_a type siw netdev "$IF2"
if echo "$OUT" | grep -qi 'exists'; then
	ok "... saying the name exists"
else
	fail "... saying the name exists" "$OUT"
fi
check_fails "a second siw link on the same netdev fails" \
	n1 rdma link add siw_c type siw netdev "$IF1"
if echo "$OUT" | grep -qi 'exists'; then
	ok "... saying it exists"
else
	fail "... saying it exists" "$OUT"
fi
check "the kernel log names the reason" \
	sh -c "dmesg | tail -5 | grep -q 'netdev $IF1 already has siw device siw_a'"
check "... and leaves no device" no_rdma_dev siw_c
check "exactly one siw device remains" \
	sh -c '[ "$(rdma link show | wc -l)" = 1 ]'
check "its peer still gets a link" n2 rdma link add siw_b type siw netdev "$IF2"
check "... on the right netdev" \
	sh -c "ip netns exec $NS2 rdma link show | grep -Eq '^link siw_b/1 .* netdev $IF2( |\$)'"

tap_prog "siw_qp_capture: QPs named by number to rdma_cm" \
	timeout 120 "$SIW_DIR/userspace/siw_qp_capture" -a 192.0.2.1 \
	-d siw_a -D siw_b -S "$NS1" -C "$NS2"

check_fails "rdma link add with an unknown type fails" \
	rdma link add siw_y type no-such-type netdev lo
check_fails "deleting a link that does not exist fails" rdma link delete siw_nope
check "rdma link delete siw_a" rdma link delete siw_a
check_fails "deleting it twice fails" rdma link delete siw_a
check "rdma link delete siw_b" rdma link delete siw_b
check_wait "nothing is left behind" 5 sh -c '[ -z "$(rdma link show)" ]'
check "modprobe -r siw" modprobe -r siw
