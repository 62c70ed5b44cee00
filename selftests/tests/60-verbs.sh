#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# Verbs objects through the stock provider, without a connection: PD, CQ
# (mapped ring, arming, overflow), QP (limits, states, flush), MR, SRQ;
# and a local user who keeps re-posting into its mapped rings while siw
# flushes them (siw_ring_flush: at most one lap of each ring).
. "$(dirname "$0")/lib.sh"
plan 6
require rdma
prog=$SIW_DIR/userspace/siw_test
[ -x "$prog" ] || { fail "userspace/siw_test is built" "missing: $prog (make -C userspace)"; exit 1; }

load_siw
check "rdma link add siw_lo on lo" rdma link add siw_lo type siw netdev lo
tap_prog "siw_test -d siw_lo" "$prog" -d siw_lo
tap_prog "siw_ring_flush -d siw_lo" timeout 60 "$SIW_DIR/userspace/siw_ring_flush" -d siw_lo
check "rdma resource show: no QP, CQ, PD or MR left" \
	sh -c '! rdma resource show qp | grep -q siw_lo && ! rdma resource show cq | grep -q siw_lo && ! rdma resource show pd | grep -q siw_lo && ! rdma resource show mr | grep -q siw_lo'
check "rdma link delete siw_lo" rdma link delete siw_lo
check "modprobe -r siw" modprobe -r siw
