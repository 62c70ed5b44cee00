#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 600
# siw's tracepoints (siw/trace.h, Documentation/debugging.rst), between
# two namespaces over a veth pair: every event is there; an rping of 10
# verified iterations of 4 KiB, traced, shows the connection's states and
# MPA frames, its 10 RDMA Reads at every level (work request, Read Request
# both ways, FPDUs, completion), the QP's states and the flush at its end,
# in exact counts where rping fixes them; remote access violations
# (siw_conn_test access) show their Terminates sent and received; with
# the events off, nothing is recorded.
. "$(dirname "$0")/lib.sh"
plan 30
require rping rdma
at_exit 'echo 0 > "$T/events/siw/enable" 2>/dev/null; pkill -9 -x rping; cleanup_netns'

T=/sys/kernel/tracing
prog=$SIW_DIR/userspace/siw_conn_test
addr=192.0.2.1

load_siw
check "veth pair between two namespaces" setup_veth_pair
check "siw on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
check "siw on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"
mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null
check "tracefs at $T" test -w $T/trace

events="siw_cep_state siw_mpa_frame siw_cm_established siw_wqe_start siw_cqe
siw_fpdu_tx siw_fpdu_rx siw_read_request siw_terminate siw_qp_state siw_flush"
missing=
for e in $events; do
	[ -d "$T/events/siw/$e" ] || missing="$missing $e"
done
if [ -z "$missing" ]; then
	ok "all 11 siw events are in $T/events/siw"
else
	fail "all 11 siw events are in $T/events/siw" "missing:$missing" \
		"present: $(ls "$T/events/siw" 2>&1 | tr '\n' ' ')"
fi

# trace_start: an empty buffer, large enough, with siw's events on.
trace_start() {
	echo 0 > $T/tracing_on
	echo 8192 > $T/buffer_size_kb
	echo > $T/trace
	echo 1 > $T/events/siw/enable
	echo 1 > $T/tracing_on
}
# trace_stop FILE: events off, the buffer saved to FILE.
trace_stop() {
	echo 0 > $T/events/siw/enable
	cat $T/trace > "$1"
}

# count DESC FILE REGEX OP N: a case on how many lines of FILE match REGEX
# (grep -E), compared with test's OP (-eq, -ge).
count() {
	local desc=$1 file=$2 re=$3 op=$4 n=$5 got
	got=$(grep -cE -- "$re" "$file")
	if [ "$got" "$op" "$n" ]; then
		ok "$desc ($got)"
	else
		fail "$desc" "$got lines match '$re', expected $op $n" \
			"siw events in the trace:" "$(grep -c ' siw_' "$file")" \
			"first lines:" "$(grep ' siw_' "$file" | head -20)"
	fi
}

# 1. rping: 10 iterations of 4 KiB; its server reads 10 times.
tr=/tmp/trace-rping.$$
trace_start
client_server "traced: rping -V -C 10 -S 4096" 240 \
	"rping -s -a $addr -V -C 10 -S 4096" "rping -c -a $addr -V -C 10 -S 4096"
# The connection ends after both programs did: let the teardown trace.
wait_for 20 sh -c "! rdma resource show qp 2>/dev/null | grep -q siw_"
trace_stop "$tr"

count "active side: IDLE -> CONNECTING" "$tr" \
	'siw_cep_state: cep [0-9]+ qp [0-9]+ IDLE -> CONNECTING' -eq 1
count "active side: CONNECTING -> AWAIT_REPLY" "$tr" \
	'siw_cep_state: .* CONNECTING -> AWAIT_REPLY' -eq 1
count "passive side: AWAIT_REQUEST -> REQUEST_DELIVERED" "$tr" \
	'siw_cep_state: .* AWAIT_REQUEST -> REQUEST_DELIVERED' -eq 1
count "both sides reach ESTABLISHED, with the server's address" "$tr" \
	"siw_cep_state: .* -> ESTABLISHED .*192\.0\.2\.1:7174" -eq 2
count "MPA request sent, revision 2" "$tr" \
	'siw_mpa_frame: cep [0-9]+ sent MPA request rev 2' -eq 1
count "MPA request received" "$tr" 'siw_mpa_frame: .* received MPA request' -eq 1
count "MPA reply sent" "$tr" 'siw_mpa_frame: .* sent MPA reply ' -eq 1
count "MPA reply received" "$tr" 'siw_mpa_frame: .* received MPA reply ' -eq 1
count "both ends established with revision 2 and their FPDU size" "$tr" \
	'siw_cm_established: .* rev 2 .* mulpdu [1-9][0-9]*' -eq 2
count "both QPs went to RTS when connected" "$tr" \
	'siw_qp_state: qp [0-9]+ [A-Z]+ -> RTS \(connected\)' -eq 2
count "10 RDMA Read work requests of 4096 bytes started" "$tr" \
	'siw_wqe_start: qp [0-9]+ SQ\[[0-9]+\] wr_id 0x[0-9a-f]+ READ len 4096' -eq 10
count "10 Read Requests sent" "$tr" \
	'siw_read_request: qp [0-9]+ sent size 4096 ' -eq 10
count "10 Read Requests received" "$tr" \
	'siw_read_request: qp [0-9]+ received size 4096 ' -eq 10
count "10 READ_REQ FPDUs sent, untagged on queue 1" "$tr" \
	'siw_fpdu_tx: qp [0-9]+ READ_REQ untagged .* qn 1 ' -eq 10
count "10 Read Responses ended (L) on each side" "$tr" \
	'siw_fpdu_(tx|rx): qp [0-9]+ READ_RESP tagged .* L$' -eq 20
count "10 Read completions, successful, 4096 bytes" "$tr" \
	'siw_cqe: cq [0-9]+ qp [0-9]+ wr_id 0x[0-9a-f]+ READ SUCCESS bytes 4096' -eq 10
count "Sends received into receives (RQ work requests started)" "$tr" \
	'siw_wqe_start: qp [0-9]+ RQ\[[0-9]+\] .* RECEIVE ' -ge 40
count "both QPs went to ERR at the end" "$tr" \
	'siw_qp_state: qp [0-9]+ [A-Z]+ -> ERR ' -ge 2
count "the receives left posted were flushed" "$tr" \
	'siw_flush: qp [0-9]+ RQ: [1-9][0-9]* flushed' -ge 1

# 2. Remote access violations end in Terminates, both ways.
tr2=/tmp/trace-access.$$
trace_start
tap_prog "traced: siw_conn_test access" \
	timeout 240 "$prog" -a $addr -S "$NS1" -C "$NS2" access
trace_stop "$tr2"
count "Terminates sent, RDMAP layer, with the offending header" "$tr2" \
	'siw_terminate: qp [0-9]+ sent RDMAP type [0-9] code 0x[0-9a-f]{2} \(.+\) hdr [0-9a-f]{8}' -ge 1
count "Terminates received" "$tr2" \
	'siw_terminate: qp [0-9]+ received RDMAP ' -ge 1

# 3. Events off: the same kind of traffic records nothing.
echo 0 > $T/events/siw/enable
echo > $T/trace
client_server "untraced: rping -V -C 2" 240 \
	"rping -s -a $addr -V -C 2" "rping -c -a $addr -V -C 2"
count "with the events off, no siw event is recorded" $T/trace ' siw_' -eq 0
rm -f "$tr" "$tr2"
