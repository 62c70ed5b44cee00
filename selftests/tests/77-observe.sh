#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 600
# Seeing inside siw (Documentation/debugging.rst), between two namespaces
# over a veth pair. Tracepoints (siw/trace.h): every event is there; an
# rping of 10 verified iterations of 4 KiB, traced, shows the connection's
# states and MPA frames, its 10 RDMA Reads at every level (work request,
# Read Request both ways, FPDUs, completion), the QP's states and the
# flush at its end, in exact counts where rping fixes them; remote access
# violations (siw_conn_test access) show their Terminates sent and
# received; with the events off, nothing is recorded. Counters (`rdma
# statistic show link`, stats.c): the same rping moves each message
# counter of both devices by exactly what rping sends, the payload bytes
# by exactly its bytes, the FPDU counters by exactly the FPDUs the trace
# saw, and the connection counters by one; the Terminates by layer.
. "$(dirname "$0")/lib.sh"
plan 54
require rping rdma python3
at_exit 'echo 0 > "$T/events/siw/enable" 2>/dev/null; echo "$saved_kb" > "$T/buffer_size_kb" 2>/dev/null; pkill -9 -x rping; cleanup_netns'

T=/sys/kernel/tracing
prog=$SIW_DIR/userspace/siw_conn_test
addr=192.0.2.1

load_siw
check "veth pair between two namespaces" setup_veth_pair
check "siw on $IF1" n1 rdma link add siw_a type siw netdev "$IF1"
check "siw on $IF2" n2 rdma link add siw_b type siw netdev "$IF2"
mountpoint -q $T || mount -t tracefs nodev $T 2>/dev/null
check "tracefs at $T" test -w $T/trace
saved_kb=$(cat $T/buffer_size_kb 2>/dev/null)

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

stats() { siw_stats "$1"; }
stat() { siw_stats "$1" | awk -v n="$2" '$1 == n { print $2 }'; }
stats_save() { siw_stats "$1" > "$2"; }
# delta DESC DEV NAME N: the counter moved by exactly N since stats_save.
delta() {
	local desc=$1 dev=$2 name=$3 n=$4 before now
	before=$(awk -v n="$name" '$1 == n { print $2 }' "/tmp/stats-$dev.$$")
	now=$(stat "$dev" "$name")
	if [ -n "$before" ] && [ -n "$now" ] && [ $((now - before)) = "$n" ]; then
		ok "$desc: $dev $name +$n"
	else
		fail "$desc: $dev $name +$n" "before '${before}', now '${now}'" \
			"$(rdma statistic show link "$dev/1" 2>&1)"
	fi
}

# delta_min DESC DEV NAME N: the counter moved by at least N since stats_save.
delta_min() {
	local desc=$1 dev=$2 name=$3 n=$4 before now
	before=$(awk -v n="$name" '$1 == n { print $2 }' "/tmp/stats-$dev.$$")
	now=$(stat "$dev" "$name")
	if [ -n "$before" ] && [ -n "$now" ] && [ $((now - before)) -ge "$n" ]; then
		ok "$desc: $dev $name +$((now - before)) (at least $n)"
	else
		fail "$desc: $dev $name at least +$n" "before '${before}', now '${now}'" \
			"$(rdma statistic show link "$dev/1" 2>&1)"
	fi
}

check "rdma statistic lists siw's counters" \
	sh -c "rdma statistic show link siw_a/1 | grep -q 'fpdus_sent [0-9]'"
# As many as siw/stats.h names (its lists' X(ID, "name") lines).
want=$(grep -cE '^	X\([A-Z0-9_]+,[[:space:]]+"[a-z0-9_]+"\)' "$SIW_DIR/siw/stats.h")
n=$(stats siw_a | wc -l)
if [ "$n" = "$want" ] && [ "$want" -gt 0 ]; then
	ok "rdma -j statistic gives all $want counters siw/stats.h names"
else
	fail "rdma -j statistic gives all ${want:-?} counters siw/stats.h names" "$n: $(stats siw_a | tr '\n' ' ')"
fi

# 1. rping: 10 iterations of 4 KiB. Its client sends twice per
# iteration (16-byte buffer descriptions), its server twice, and the
# server reads the client's buffer once and writes it once.
tr=/tmp/trace-rping.$$
stats_save siw_a /tmp/stats-siw_a.$$
stats_save siw_b /tmp/stats-siw_b.$$
trace_start
client_server "traced: rping -V -C 10 -S 4096" 240 \
	"rping -s -a $addr -V -C 10 -S 4096" "rping -c -a $addr -V -C 10 -S 4096"
# The connection ends after both programs did: let the teardown trace.
wait_for 20 sh -c "! rdma resource show qp 2>/dev/null | grep -q siw_"
trace_stop "$tr"

count "active side: IDLE -> CONNECTING" "$tr" \
	'siw_cep_state: siw_b cep [0-9]+ qp [0-9]+ IDLE -> CONNECTING' -eq 1
count "active side: CONNECTING -> AWAIT_REPLY" "$tr" \
	'siw_cep_state: siw_b .* CONNECTING -> AWAIT_REPLY' -eq 1
count "passive side: AWAIT_REQUEST -> REQUEST_DELIVERED" "$tr" \
	'siw_cep_state: siw_a .* AWAIT_REQUEST -> REQUEST_DELIVERED' -eq 1
for d in siw_a siw_b; do
	count "$d reaches ESTABLISHED, with the server's address" "$tr" \
		"siw_cep_state: $d .* -> ESTABLISHED .*192\.0\.2\.1:7174" -eq 1
done
count "MPA request sent, revision 2" "$tr" \
	'siw_mpa_frame: siw_b cep [0-9]+ sent MPA request rev 2' -eq 1
count "MPA request received" "$tr" 'siw_mpa_frame: siw_a .* received MPA request' -eq 1
count "MPA reply sent" "$tr" 'siw_mpa_frame: siw_a .* sent MPA reply ' -eq 1
count "MPA reply received" "$tr" 'siw_mpa_frame: siw_b .* received MPA reply ' -eq 1
count "both ends established with revision 2 and their FPDU size" "$tr" \
	'siw_cm_established: .* rev 2 .* mulpdu [1-9][0-9]*' -eq 2
count "both QPs went to RTS when connected" "$tr" \
	'siw_qp_state: siw_[ab] qp [0-9]+ [A-Z]+ -> RTS \(connected\)' -eq 2
count "10 RDMA Read work requests of 4096 bytes started" "$tr" \
	'siw_wqe_start: siw_a qp [0-9]+ SQ\[[0-9]+\] wr_id 0x[0-9a-f]+ READ len 4096' -eq 10
count "10 Read Requests sent" "$tr" \
	'siw_read_request: siw_a qp [0-9]+ sent size 4096 ' -eq 10
count "10 Read Requests received" "$tr" \
	'siw_read_request: siw_b qp [0-9]+ received size 4096 ' -eq 10
count "10 READ_REQ FPDUs sent, untagged on queue 1" "$tr" \
	'siw_fpdu_tx: siw_a qp [0-9]+ READ_REQ untagged .* qn 1 ' -eq 10
count "10 Read Responses ended (L) on each side" "$tr" \
	'siw_fpdu_(tx: siw_b|rx: siw_a) qp [0-9]+ READ_RESP tagged .* L$' -eq 20
count "10 Read completions, successful, 4096 bytes" "$tr" \
	'siw_cqe: siw_a cq [0-9]+ qp [0-9]+ wr_id 0x[0-9a-f]+ READ SUCCESS bytes 4096' -eq 10
count "Sends received into receives (RQ work requests started)" "$tr" \
	'siw_wqe_start: siw_[ab] qp [0-9]+ RQ\[[0-9]+\] .* RECEIVE ' -ge 40
count "both QPs went to ERR at the end" "$tr" \
	'siw_qp_state: siw_[ab] qp [0-9]+ [A-Z]+ -> ERR ' -ge 2
count "the receives left posted were flushed" "$tr" \
	'siw_flush: siw_[ab] qp [0-9]+ RQ: [1-9][0-9]* flushed' -ge 1

# The same run in the counters: siw_a is the server's device, siw_b the
# client's.
for d in siw_a siw_b; do
	delta "rping" $d sends_sent 20
	delta "rping" $d sends_received 20
	delta "rping" $d connections_established 1
	delta "rping" $d mpa_rev2_connections 1
	delta "rping" $d payload_bytes_sent $((20 * 16 + 10 * 4096))
done
delta "rping" siw_a read_requests_sent 10
delta "rping" siw_a writes_sent 10
delta "rping" siw_a read_responses_received 10
delta "rping" siw_b read_requests_received 10
delta "rping" siw_b read_responses_sent 10
delta "rping" siw_b writes_received 10
# rping waits for each Read before the next: the socket is idle when a
# Read Request comes, so the receive softirq answers it (all but the
# first, which sets up the QP's pages in the worker).
delta_min "rping: Read Responses from the receive softirq" siw_b tx_softirq_runs 1
# FPDUs: counters and tracepoints must agree, both devices together.
fpdus() { # NAME: the sum of both devices' deltas
	local a b
	a=$(( $(stat siw_a "$1") - $(awk -v n="$1" '$1 == n { print $2 }' /tmp/stats-siw_a.$$) ))
	b=$(( $(stat siw_b "$1") - $(awk -v n="$1" '$1 == n { print $2 }' /tmp/stats-siw_b.$$) ))
	echo $((a + b))
}
for dir in sent:tx received:rx; do
	n=$(fpdus "fpdus_${dir%%:*}")
	t=$(grep -c "siw_fpdu_${dir##*:}:" "$tr")
	if [ "$n" = "$t" ] && [ "$n" -gt 0 ]; then
		ok "fpdus_${dir%%:*} moved by the FPDUs traced ($n)"
	else
		fail "fpdus_${dir%%:*} moved by the FPDUs traced" "counters $n, trace $t"
	fi
done

# 2. Remote access violations end in Terminates, both ways.
tr2=/tmp/trace-access.$$
stats_save siw_a /tmp/stats-siw_a.$$
stats_save siw_b /tmp/stats-siw_b.$$
trace_start
tap_prog "traced: siw_conn_test access" \
	timeout 240 "$prog" -a $addr -S "$NS1" -C "$NS2" access
trace_stop "$tr2"
count "Terminates sent, RDMAP layer, with the offending header" "$tr2" \
	'siw_terminate: siw_[ab] qp [0-9]+ sent RDMAP type [0-9] code 0x[0-9a-f]{2} \(.+\) hdr [0-9a-f]{8,}' -ge 1
count "Terminates received" "$tr2" \
	'siw_terminate: siw_[ab] qp [0-9]+ received RDMAP ' -ge 1
# Each Terminate traced is counted once, by its layer, on one device.
for dir in sent received; do
	n=$(( $(fpdus terminates_${dir}_rdmap) + $(fpdus terminates_${dir}_ddp) +
	      $(fpdus terminates_${dir}_mpa) ))
	t=$(grep -c "siw_terminate: siw_[ab] qp [0-9]* $dir " "$tr2")
	if [ "$n" = "$t" ] && [ "$n" -gt 0 ]; then
		ok "terminates_${dir}_* moved by the Terminates traced ($n)"
	else
		fail "terminates_${dir}_* moved by the Terminates traced" "counters $n, trace $t"
	fi
done

# 3. Events off: the same kind of traffic records nothing.
echo 0 > $T/events/siw/enable
echo > $T/trace
client_server "untraced: rping -V -C 2" 240 \
	"rping -s -a $addr -V -C 2" "rping -c -a $addr -V -C 2"
count "with the events off, no siw event is recorded" $T/trace ' siw_' -eq 0
rm -f "$tr" "$tr2" /tmp/stats-siw_a.$$ /tmp/stats-siw_b.$$
