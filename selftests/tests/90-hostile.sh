#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 600
# A hostile peer: userspace/siw_hostile completes the MPA exchange with a
# siw server over plain TCP and sends crafted frames; for each, the
# Terminate siw sends back, the server's async event and completions,
# guard bytes around its memory, and the connection's end are checked.
# In every MPA mode: revision 2 and 1, CRC off and required, peer-to-peer
# with each RTR type, p2p with a first frame that is not the RTR, and
# (-e) asking for RFC 7306, which a user QP's siw refuses. The kernel log
# must stay clean (rate limited lines about the peer only) and siw must
# unload afterwards.
. "$(dirname "$0")/lib.sh"
# 4 cases of set-up, 2 per MPA mode (the cases, the counters) and 5 more
# per captured mode, 2 for siw as the initiator against a reply that drips,
# 3 for the many peers that keep their windows shut, 2
# for the peer that never reads, 2 for the Read Responses whose source goes
# away, 2 at the end.
plan 49
require rdma tcpdump python3
addr=192.0.2.1
. "$(dirname "$0")/capture.sh"
require_output_share
at_exit 'stop_capture >/dev/null; cleanup_netns'
prog=$SIW_DIR/userspace/siw_hostile
out=/tmp/hostile.$$.out

load_siw
check "veth pair between two namespaces" setup_veth_pair
check "siw on $IF1 (the server's side only)" n1 rdma link add siw_a type siw netdev "$IF1"
# At its defaults the server's device answers peer-to-peer mode with any
# RTR; the attacker asks for it only in the p2p modes.
check "siw_a answers p2p with every RTR type by default" sh -c \
	'[ "$(cat /sys/class/infiniband/siw_a/mpa/p2p_accept)" = 1 ] && [ "$(cat /sys/class/infiniband/siw_a/mpa/rtr)" = 7 ]'
# The attacker sends its first FPDU at once; a slow guest must not let the
# responder's hold run out before it (speaks-second sets its own).
check "siw_a waits up to 10 s for the initiator's first FPDU" sh -c \
	'echo 10000 > /sys/class/infiniband/siw_a/mpa/first_fpdu_wait_ms'
# Revision 2 with CRC off and on is also captured: the host decodes each
# Terminate siw sent with tshark and compares its layer, error type and
# code with what the case expects (selftests/wire-check.sh), from the
# "# expect-terminate" lines siw_hostile prints.
for mode in "" "-c" "-1" "-1 -c" "-p 2" "-p 4" "-p 1" "-p 4 -c" \
	    "-p 2 -n" "-p 4 -n" "-p 1 -n -c" "-e"; do
	name=
	case "$mode" in
	"") name=hostile-rev2-crc-off ;;
	"-c") name=hostile-rev2-crc ;;
	esac
	if [ -n "$name" ]; then
		rm -f "/tmp/$name.pcap" "$SIW_OUT/$name.pcap" "$SIW_OUT/$name.expect"
		start_capture "$name" "/tmp/$name.pcap"
	fi
	siw_stats siw_a > /tmp/hostile-stats.$$
	tap_prog "siw_hostile${mode:+ $mode}" \
		timeout 300 "$prog" -a $addr -S "$NS1" -C "$NS2" $mode
	cp "$TAP_LOG" "$out"
	# siw_a's counters: one Terminate per case that expects one, by
	# layer, and one CRC error per case that expects that Terminate.
	bad=
	for l in 0:rdmap 1:ddp 2:mpa; do
		want=$(grep -c "^# expect-terminate .* layer ${l%%:*} " "$out")
		got=$(stats_delta /tmp/hostile-stats.$$ siw_a terminates_sent_${l##*:})
		[ "$want" = "$got" ] || bad="$bad terminates_sent_${l##*:} +$got, expected +$want;"
	done
	want=$(grep -c "^# expect-terminate .* layer 2 etype 0 code 2 " "$out")
	got=$(stats_delta /tmp/hostile-stats.$$ siw_a crc_errors)
	[ "$want" = "$got" ] || bad="$bad crc_errors +$got, expected +$want;"
	# The responder's hold ran out only where a case let it.
	want=$(grep -c "^# expect-first-fpdu-wait-expired" "$out")
	got=$(stats_delta /tmp/hostile-stats.$$ siw_a first_fpdu_waits_expired)
	[ "$want" = "$got" ] || bad="$bad first_fpdu_waits_expired +$got, expected +$want;"
	if [ -z "$bad" ]; then
		ok "siw_hostile${mode:+ $mode}: siw_a's Terminate, CRC and first-FPDU-wait counters moved as the cases expect"
	else
		fail "siw_hostile${mode:+ $mode}: siw_a's Terminate, CRC and first-FPDU-wait counters moved as the cases expect" "$bad"
	fi
	if [ -n "$name" ]; then
		finish_capture "$name" "/tmp/$name.pcap"
		check "$name: capture and expected Terminates copied to the output share" \
			sh -c "cp /tmp/$name.pcap $SIW_OUT/$name.pcap && grep '^# expect-terminate ' $out > $SIW_OUT/$name.expect"
		rm -f "/tmp/$name.pcap"
	fi
done
rm -f "$out" /tmp/hostile-stats.$$
# siw as the initiator: the peer drips its MPA reply a byte per segment
# (the class of CVE-2022-50136); the connection comes up once and works.
tap_prog "siw_hostile -A: siw connects, the MPA reply comes a byte at a time" \
	timeout 120 "$prog" -a $addr -S "$NS1" -C "$NS2" -A 192.0.2.2
tap_prog "siw_hostile -A -c: the same with MPA CRC" \
	timeout 120 "$prog" -a $addr -S "$NS1" -C "$NS2" -A 192.0.2.2 -c
# More peers than siw_tx runs work items at once keep their windows shut
# while their Read Responses wait; one more, which reads, must get its
# response at once. Their connections must outlive the case, so the
# timeout that would end them (mpa/user_timeout_ms) is 10 minutes here.
check "mpa/user_timeout_ms of siw_a is 60000 by default; set to 600000" sh -c \
	'[ "$(cat /sys/class/infiniband/siw_a/mpa/user_timeout_ms)" = 60000 ] && echo 600000 > /sys/class/infiniband/siw_a/mpa/user_timeout_ms'
tap_prog "siw_hostile -W: 300 peers keep their windows shut, one reads" \
	timeout 600 "$prog" -a $addr -S "$NS1" -C "$NS2" -W
check_wait "no QP, CQ, MR or PD is left after -W" 60 no_siw_resources
# A peer that never reads: its window stays shut; the connection must end
# after siw_a's mpa/user_timeout_ms (TCP_USER_TIMEOUT), set low here.
check "mpa/user_timeout_ms of siw_a set to 2000" sh -c \
	'echo 2000 > /sys/class/infiniband/siw_a/mpa/user_timeout_ms'
tap_prog "siw_hostile -w: a peer that keeps its window shut" \
	timeout 120 "$prog" -a $addr -S "$NS1" -C "$NS2" -w
# A Read Response whose source region is deregistered while the send
# waits for the peer's window: no byte written after the deregistration
# may leave; the response stops with a Terminate (invalid STag).
tap_prog "siw_hostile -r: a Read's source deregistered mid-response" \
	timeout 120 "$prog" -a $addr -S "$NS1" -C "$NS2" -r
tap_prog "siw_hostile -r -c: the same with MPA CRC" \
	timeout 120 "$prog" -a $addr -S "$NS1" -C "$NS2" -r -c
check_wait "no QP, CQ, MR or PD is left" 10 no_siw_resources
check "modprobe -r siw" modprobe -r siw
