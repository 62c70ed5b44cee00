#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1800
# rdma-core's own test suite over siw: tests/run_tests.py at the version
# of the guest's python3-pyverbs, unmodified: v44.0 from ../shared/
# third-party on bookworm's tree; on another release's tree the tests/
# of the rdma-core that release ships (scripts/rdma-core-tests.sh, given
# as RDMA_CORE_TESTS, as a checkout's tests/ may be). Run as
# `run_tests.py --dev siw0 -v` against siw on the
# guest's NIC: a virtio-net device, so that
# /sys/class/infiniband/siw0/device/net names it and the suite finds the
# IP address its rdma_cm tests use.
#
# Every test the suite runs is one case (rdma-core-tap.py), except those
# rdma-core-expect.txt lists as unable to pass on any iWARP device, each
# with its reason (shown, neither passed nor failed), and those the suite
# skips itself (shown with its reason, not counted).
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
third=${SIW_THIRD_PARTY:-$SIW_DIR/../shared/third-party}
tarball=$third/rdma-core-tests-v44.0.tar.gz
work=/tmp/rdma-core-tests
addr=192.0.2.60
nic=

teardown() {
	rdma link delete siw0 2>/dev/null
	[ -n "$nic" ] && ip addr flush dev "$nic" 2>/dev/null
	[ -n "$nic" ] && ip link set "$nic" down 2>/dev/null
	rm -rf "$work"
}
at_exit teardown

plan 7
require python3 rdma
src=${RDMA_CORE_TESTS:-}
if [ -n "$src" ]; then
	check "the suite: $src (RDMA_CORE_TESTS)" test -r "$src/run_tests.py" || exit 1
	check "copied to $work" sh -c "mkdir -p $work && cp -a '$src' $work/tests" || exit 1
else
	check "the suite: $tarball" test -r "$tarball" || exit 1
	check "unpacked into $work" sh -c \
		"mkdir -p $work && tar -xzf '$tarball' -C $work --strip-components=1 && test -r $work/tests/run_tests.py" ||
		exit 1
fi
check "Debian's pyverbs imports" python3 -c 'import pyverbs.device' || exit 1

nic=$(guest_nic)
check "the guest's NIC ${nic:-(none found)} up with $addr" sh -c \
	"[ -n '$nic' ] && ip addr add $addr/24 dev '$nic' && ip link set '$nic' up" || exit 1
load_siw
check "rdma link add siw0 on $nic" rdma link add siw0 type siw netdev "$nic" || exit 1
siw0_ready() {
	port_state_is siw0 PORT_ACTIVE && [ -e "/sys/class/infiniband/siw0/device/net/$nic" ]
}
check_wait "siw0's port is active, its device names $nic" 10 siw0_ready || exit 1

log=/tmp/rdma-core-tests.log
echo "+ python3 $work/tests/run_tests.py --dev siw0 -v"
(cd "$work/tests" && timeout $((1500 * SIW_TIMEOUT_SCALE)) python3 run_tests.py --dev siw0 -v) > "$log" 2>&1
rc=$?
cp "$log" "$SIW_OUT/rdma-core-tests.log" 2>/dev/null
echo "# run_tests.py: $(ktap_status_text "$rc"); $(grep -E '^Ran [0-9]+ tests' "$log")"
# rdma_core_cases LOG (an argument: subtest has a local of that name)
rdma_core_cases() {
	python3 "$here/rdma-core-tap.py" "$here/rdma-core-expect.txt" "$1" |
		ktap_verdicts
	return "${PIPESTATUS[0]}"
}
subtest "rdma-core's tests over siw0: every test that applies to iWARP passes" \
	rdma_core_cases "$log"
