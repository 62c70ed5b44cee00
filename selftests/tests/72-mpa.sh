#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 900
# The MPA knobs: module parameters and their per-device twins in sysfs
# (/sys/class/infiniband/<dev>/mpa/), and connections between two siw
# devices configured differently: revision 1 and 2 (either side lower),
# CRC off/offered/required in every pairing, peer-to-peer mode with each
# ready-to-receive message, p2p on one side only, an initiator asking for
# p2p against a responder at its defaults (answered, each RTR type) and
# one that refuses it (p2p_accept 0), no common RTR (refused),
# revision 1 with and without [MS-SMBD]'s legacy IRD/ORD words (the
# negotiated IRD/ORD checked), GSO-sized FPDUs (upstream siw's flag) on
# both sides, one side and with
# revision 1, and 64 KiB rping traffic over them.
# Each connection moves a Send, a Write and a Read with their data checked,
# and both QPs report what was negotiated (rdma resource show qp -dd).
# Also: a silent peer cannot hold a connection attempt past the timeout.
# The connection counters (rdma statistic) follow: a refused connection is
# counted on both devices, a timed-out one on the device that waited.
. "$(dirname "$0")/lib.sh"
# 34 cases of parameters and knobs, 41 connections, 11 more.
plan 86
require rdma rping busybox python3
at_exit cleanup_netns

prog=$SIW_DIR/userspace/siw_conn_test
expect=$SIW_DIR/selftests/tests/mpa-expect.sh
knob() { echo "$3" > "/sys/class/infiniband/$1/mpa/$2"; }
knob_rejects() { ! knob "$@" 2>/dev/null; }
param_rejects() { ! echo "$2" > "/sys/module/siw/parameters/$1" 2>/dev/null; }
reads() { [ "$(cat "$1")" = "$2" ]; }

load_siw
check "modinfo siw lists the eight MPA parameters" sh -c \
	'[ "$(modinfo -p siw | grep -cE "^mpa_(rev|crc|p2p|p2p_accept|rtr|timeout_ms|gso|legacy_ird_ord):")" = 8 ]'
for bad in "mpa_rev 3" "mpa_rev 0" "mpa_crc 3" "mpa_p2p 2" "mpa_p2p_accept 2" "mpa_rtr 0" \
	   "mpa_rtr 8" "mpa_timeout_ms 0" "mpa_rev x" "mpa_gso 2" "mpa_legacy_ird_ord 3" \
	   "mpa_first_fpdu_wait_ms -1" "mpa_first_fpdu_wait_ms 60001"; do
	check "module parameter refuses ${bad/ /=}" param_rejects $bad
done
check "veth pair between two namespaces" setup_veth_pair
check "module parameter mpa_crc=2 is taken" sh -c 'echo 2 > /sys/module/siw/parameters/mpa_crc'
check "siw on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
check "a new device takes the module parameters" reads /sys/class/infiniband/siw_a/mpa/crc 2
check "module parameter mpa_crc=0 again" sh -c 'echo 0 > /sys/module/siw/parameters/mpa_crc'
check "siw on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"
check "siw_b has crc 0, siw_a still 2" sh -c \
	'[ "$(cat /sys/class/infiniband/siw_b/mpa/crc)" = 0 ] && [ "$(cat /sys/class/infiniband/siw_a/mpa/crc)" = 2 ]'
check "GSO-sized FPDUs are on by default" reads /sys/class/infiniband/siw_b/mpa/gso 1
check "a responder waits 500 ms at most for the initiator's first FPDU by default" \
	reads /sys/class/infiniband/siw_b/mpa/first_fpdu_wait_ms 500
check "by default p2p is answered (p2p_accept 1, rtr 7) but not asked for" sh -c \
	'cd /sys/class/infiniband/siw_b/mpa && [ "$(cat p2p_accept) $(cat rtr) $(cat p2p)" = "1 7 0" ]'
for bad in "rev 3" "crc -1" "p2p 5" "p2p_accept 2" "rtr 9" "timeout_ms 50" "rev two" "gso 2" \
	   "legacy_ird_ord 3" "first_fpdu_wait_ms 60001"; do
	check "sysfs mpa/${bad% *} refuses ${bad#* }" knob_rejects siw_a $bad
done
check "sysfs mpa/rtr takes 5" sh -c 'echo 5 > /sys/class/infiniband/siw_a/mpa/rtr && [ "$(cat /sys/class/infiniband/siw_a/mpa/rtr)" = 5 ]'

# set DEV REV CRC P2P RTR [GSO [P2P_ACCEPT]]: GSO-sized FPDUs on and p2p
# requests answered (the defaults) unless given.
set_dev() {
	knob "$1" rev "$2" && knob "$1" crc "$3" && knob "$1" p2p "$4" &&
	knob "$1" rtr "$5" && knob "$1" gso "${6:-1}" &&
	knob "$1" p2p_accept "${7:-1}"
}
# conn NAME "A: rev crc p2p rtr [gso [accept]]" "B: ..." EXPECT (REV CRC RTR [GSO],
# or refused)
# siw_a (server, NS1) responds; siw_b (client, NS2) initiates.
conn() {
	local name=$1 a=$2 b=$3 want=$4
	set_dev siw_a $a && set_dev siw_b $b || { fail "$name: set knobs"; return; }
	echo "# $name: responder siw_a rev/crc/p2p/rtr $a, initiator siw_b $b, want $want"
	if [ "$want" = refused ]; then
		tap_prog "$name: refused" \
			timeout 60 "$prog" -a 192.0.2.1 -S "$NS1" -C "$NS2" -r mpa
	else
		tap_prog "$name: rev/crc/rtr $want" \
			timeout 60 "$prog" -a 192.0.2.1 -S "$NS1" -C "$NS2" \
			-x "$expect $want" mpa
	fi
}

conn "rev 2 both"            "2 0 0 6" "2 0 0 6" "2 0 none"
conn "rev 1 initiator"       "2 0 0 6" "1 0 0 6" "1 0 none"
conn "rev 1 responder"       "1 0 0 6" "2 0 0 6" "1 0 none"
conn "rev 1 both"            "1 0 0 6" "1 0 0 6" "1 0 none"
conn "rev 1 crc required"    "1 2 0 6" "1 0 0 6" "1 1 none"
for rc in 0 1 2; do
	for ic in 0 1 2; do
		want=1
		[ $rc = 0 ] && [ $ic = 0 ] && want=0
		conn "crc responder $rc initiator $ic" "2 $rc 0 6" "2 $ic 0 6" "2 $want none"
	done
done
conn "p2p rtr write"         "2 0 1 2" "2 0 1 2" "2 0 write"
conn "p2p rtr read"          "2 0 1 4" "2 0 1 4" "2 0 read"
conn "p2p rtr send"          "2 0 1 1" "2 0 1 1" "2 0 send"
conn "p2p write preferred"   "2 0 1 7" "2 0 1 6" "2 0 write"
conn "p2p read of 7 and 4"   "2 0 1 7" "2 0 1 4" "2 0 read"
conn "p2p send of 1 and 7"   "2 0 1 1" "2 0 1 7" "2 0 send"
conn "p2p read, crc required" "2 2 1 4" "2 0 1 4" "2 1 read"
# An initiator asking for p2p (as iw_cxgb4 does by default) against a
# responder at the defaults: each RTR type it offers alone is answered.
conn "p2p asked, default responder, write" "2 0 0 7" "2 0 1 2" "2 0 write"
conn "p2p asked, default responder, read"  "2 0 0 7" "2 0 1 4" "2 0 read"
conn "p2p asked, default responder, send"  "2 0 0 7" "2 0 1 1" "2 0 send"
conn "p2p asked, responder refuses"  "2 0 0 7 1 0" "2 0 1 6" "2 0 none"
conn "p2p responder only"    "2 0 1 6" "2 0 0 6" "2 0 none"
conn "p2p with a rev 1 peer" "2 0 1 6" "1 0 1 6" "1 0 none"
siw_stats siw_a > /tmp/mpa-a.$$
siw_stats siw_b > /tmp/mpa-b.$$
conn "p2p no common rtr"     "2 0 1 4" "2 0 1 1" refused
refused_counted() {
	[ "$(stats_delta /tmp/mpa-a.$$ siw_a connections_rejected)" = 1 ] &&
	[ "$(stats_delta /tmp/mpa-b.$$ siw_b connections_rejected)" = 1 ] &&
	[ "$(stats_delta /tmp/mpa-a.$$ siw_a connections_established)" = 0 ]
}
check "refused: connections_rejected +1 on both devices, none established" \
	refused_counted
conn "gso both"              "2 0 0 6 1" "2 0 0 6 1" "2 0 none 1"
conn "gso responder off"     "2 0 0 6 0" "2 0 0 6 1" "2 0 none 0"
conn "gso initiator off"     "2 0 0 6 1" "2 0 0 6 0" "2 0 none 0"
conn "gso with a rev 1 peer" "2 0 0 6 1" "1 0 0 6 1" "1 0 none 0"
conn "gso, crc required"     "2 2 0 6 1" "2 0 0 6 1" "2 1 none 1"
# 64 KiB messages in GSO-sized FPDUs with CRC, each verified by rping
# (Send, RDMA Read and Write of the buffer).
set_dev siw_a 2 2 0 6 1
set_dev siw_b 2 0 0 6 1
client_server "gso, crc required: rping -V -C 50 -S 65535" 120 \
	"rping -s -a 192.0.2.1 -V -C 50 -S 65535" "rping -c -a 192.0.2.1 -V -C 50 -S 65535"
set_dev siw_a 2 0 0 6
set_dev siw_b 2 0 0 6

# [MS-SMBD] 6.1's legacy IRD/ORD words in revision 1 (protocol.rst): the
# server accepts with IRD 2 and ORD 4, the client connects with 16 and 16.
# Exchanged, the client's ORD drops to the server's IRD; not exchanged, it
# stays 16, more Reads than the server takes.
# REV: both devices' revision, or A_REV/B_REV; the lower is expected.
# WANT: A_IRD A_ORD B_IRD B_ORD, or refused (by the responder's siw), or
# refused-late (by the initiator's siw, after the server accepted).
legacy() { # NAME A_KNOB B_KNOB PORT REV WANT
	local name=$1 ka=$2 kb=$3 port=$4 ra=${5%/*} rb=${5#*/} want=$6 rev
	rev=$(( ra < rb ? ra : rb ))
	set_dev siw_a "$ra" 0 0 7 && set_dev siw_b "$rb" 0 0 7 &&
		knob siw_a legacy_ird_ord "$ka" &&
		knob siw_b legacy_ird_ord "$kb" || { fail "$name: set knobs"; return; }
	if [ "$want" = refused ] || [ "$want" = refused-late ]; then
		tap_prog "$name: $want" timeout 60 "$prog" -a 192.0.2.1 \
			-S "$NS1" -C "$NS2" -p "$port" -o 2,4 \
			"$([ "$want" = refused ] && echo -r || echo -R)" mpa
	else
		tap_prog "$name: rev $rev, IRD/ORD $want" timeout 60 "$prog" \
			-a 192.0.2.1 -S "$NS1" -C "$NS2" -p "$port" -o 2,4 \
			-x "MPA_EXPECT_IRDORD='$want' $expect $rev 0 none" mpa
	fi
}
legacy "legacy IRD/ORD on both (2)"           2 2 7471 1 "2 4 16 2"
legacy "rev 1, no legacy IRD/ORD"             0 0 7471 1 "2 4 16 16"
legacy "legacy IRD/ORD on port 5445 (1)"      1 1 5445 1 "2 4 16 2"
legacy "legacy IRD/ORD (1), not port 5445"    1 1 7471 1 "2 4 16 16"
legacy "legacy IRD/ORD set, rev 2 uses S"     2 2 7471 2 "2 4 16 2"
legacy "legacy IRD/ORD on the responder only" 2 0 7471 1 refused
# The responder takes the words for ULP data and replies without any:
# the initiator, which asked for them, fails the connect.
legacy "legacy IRD/ORD on the initiator only" 0 2 7471 1 refused-late
# A revision 2 request carries no words: the reply needs none either.
legacy "legacy on both, initiator at rev 2"   2 2 7471 1/2 "2 4 16 16"
knob siw_a legacy_ird_ord 0
knob siw_b legacy_ird_ord 0
set_dev siw_a 2 0 0 6
set_dev siw_b 2 0 0 6

# A silent responder: TCP accepts, no MPA reply ever comes. (The sleep
# only holds nc's input open: nc answers nothing while it waits.)
knob siw_b timeout_ms 2000
siw_stats siw_b > /tmp/mpa-b.$$
n1 sh -c 'sleep 100 | busybox nc -l -p 7999' > /dev/null 2>&1 &
nc_pid=$!
wait_for 10 sh -c "ip netns exec $NS1 ss -ltnH | grep -q ':7999 '"
start=$(date +%s)
check_fails "a silent responder: the connect fails (rping -c)" \
	n2 timeout 60 rping -c -a 192.0.2.1 -p 7999 -C 1
took=$(( $(date +%s) - start ))
check "... within the 2 s timeout plus slack (took ${took}s)" test "$took" -lt 30
check "... counted: siw_b connections_timed_out +1" \
	test "$(stats_delta /tmp/mpa-b.$$ siw_b connections_timed_out)" = 1
pkill -9 -f 'sleep 100' 2>/dev/null
pkill -9 -f 'busybox nc' 2>/dev/null
wait $nc_pid 2>/dev/null

# A silent initiator: TCP connects to a siw listener and sends nothing
# (the sleep holds nc's input open); the listener's side closes it once
# the timeout has passed.
knob siw_a timeout_ms 5000
siw_stats siw_a > /tmp/mpa-a.$$
n1 rping -s -a 192.0.2.1 -p 7998 -C 1 > /dev/null 2>&1 &
rp_pid=$!
wait_for 10 sh -c "ip netns exec $NS1 ss -ltnH | grep -q ':7998 '"
n2 sh -c 'sleep 100 | busybox nc 192.0.2.1 7998' > /dev/null 2>&1 &
nc_pid=$!
silent_conn() { ip netns exec "$NS2" ss -tnH state established dst 192.0.2.1:7998 | grep -q .; }
check_wait "a silent initiator's TCP connection is up" 10 silent_conn
start=$(date +%s)
check_wait "... and closed by the listener's 5 s timeout (30 s allowed)" 30 \
	sh -c "! ip netns exec $NS2 ss -tnH state established dst 192.0.2.1:7998 | grep -q ."
echo "# closed after $(( $(date +%s) - start ))s"
check "... counted: siw_a connections_timed_out +1" \
	test "$(stats_delta /tmp/mpa-a.$$ siw_a connections_timed_out)" = 1
# n1/n2 are functions: $! is a subshell, so end the programs by name.
pkill -9 -f 'rping -s -a 192.0.2.1 -p 7998' 2>/dev/null
pkill -9 -f 'sleep 100' 2>/dev/null
pkill -9 -f 'busybox nc' 2>/dev/null
wait $rp_pid $nc_pid 2>/dev/null
knob siw_a timeout_ms 10000
knob siw_b timeout_ms 10000
rm -f /tmp/mpa-a.$$ /tmp/mpa-b.$$

check_wait "no QP, CQ, MR or PD is left" 10 no_siw_resources
check "modprobe -r siw" modprobe -r siw
