#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# wire-check.sh DIR [wire] [hostile] [hostile-rfc7306]
#
# The host half of the in-VM tests 80-wire.sh, 90-hostile.sh and
# 91-hostile-rfc7306.sh: decodes
# the captures they left in DIR (the guest's output share) with tshark's
# iWARP dissectors and prints KTAP. tshark runs here because under
# emulation it is slow. Without a part named, both are checked.
#
# For each capture, wire-<name>.pcap:
#   - it exists (a missing capture fails, it is never skipped), and
#     tshark reads it to its end;
#   - every TCP connection in it carries an MPA request that tshark
#     recognises (iwarp_mpa.key.req), and a recognised reply
#     (iwarp_mpa.key.rep);
#   - the C flag of every request and reply is what mpa_crc asked for,
#     and the one rejected connection's reply has R set;
#   - the RDMAP opcodes Write, Read Request, Read Response, Send and
#     Terminate all appear (iwarp_rdma.opcode);
#   - every TCP segment that carries data (retransmissions aside) decodes
#     as MPA. tshark follows the FPDUs through the byte stream by their
#     length fields: one that lied would throw it off, and the segments
#     after it would show as "TCP segment of a reassembled PDU". With the
#     veths' segmentation offloads off, it also says that each segment
#     starts with an FPDU, the alignment RFC 5044 recommends;
#   - with CRC, tshark finds every FPDU's CRC good; without, the CRC
#     field is zero;
#   - no frame is malformed or carries an expert error.
#
# For each capture of 90-hostile.sh, hostile-<mode>.pcap with its
# hostile-<mode>.expect (one "# expect-terminate port P layer L etype T
# code C case ..." line per case that must draw a Terminate):
#   - tshark finds siw's Terminate on the attacker's connection (TCP port
#     P) and decodes its layer, error type and error code as expected:
#     an independent reading of the Terminate Control field's layout
#     (RFC 5040 section 4.8);
#   - no frame siw sent there is malformed or has an expert error (the
#     attacker's frames are malformed on purpose).
#
# For each capture of 91-hostile-rfc7306.sh (a kernel QP of siw_kverbs.ko
# on port 19876 that negotiated RFC 7306), hostile-rfc7306[-crc].pcap:
#   - the Terminates as above;
#   - tshark decodes the attacker's valid Atomic Requests (opcode 0x0a:
#     AtomicOp, Request Identifier: exactly one per connection) and
#     siw's Atomic Responses (0x0b:
#     Original Request Identifier, Original Remote Data Value) as
#     expected ("# expect-atomic-response port P id I value V" lines):
#     an independent reading of RFC 7306's Atomic headers as siw encodes
#     them. tshark 4.0 does not know Immediate Data (0x8, 0x9).
# Exit status: 0 when every case passed.
set -uo pipefail

dir=${1:?usage: wire-check.sh DIR [wire] [hostile] [hostile-rfc7306]}
shift
parts=${*:-wire hostile hostile-rfc7306}
# name:C flag expected; the names are the captures 80-wire.sh writes.
captures="crc-off:0 crc-required:1 gso:1"
opcodes="0x00:Write 0x01:Read-Request 0x02:Read-Response 0x03:Send 0x07:Terminate"

. "$(dirname "$0")/lib/ktap.sh"
# Every case says it is the host's half of the wire tests.
ok() { ktap_pass "wire (host): $*"; }
not_ok() {
	local desc=$1
	shift
	ktap_fail "wire (host): $desc" "$@"
}
# verdict DESC DETAIL CONDITION...: ok when the test(1) condition holds.
verdict() {
	local desc=$1 detail=$2
	shift 2
	if [ "$@" ] 2>/dev/null; then ok "$desc"; else not_ok "$desc" "$detail"; fi
}

ktap_header
if ! command -v tshark >/dev/null; then
	not_ok "tshark is installed" "tshark not found: apt-get install tshark (scripts/deps.sh)"
	ktap_finished
	exit
fi
echo "# $(tshark --version 2>/dev/null | head -1)"

# No personal preferences: the dissectors' defaults only.
cfg=$(mktemp -d)
err=$cfg/stderr
trap 'rm -rf "$cfg"' EXIT
export WIRESHARK_CONFIG_DIR=$cfg

# The payload of a Send belongs to the application. tshark tries its
# RPC-over-RDMA and SMB Direct dissectors on every one, and perftest's
# 4-byte handshake Sends throw "[Malformed Packet: RPCoRDMA]" there: a
# verdict on the application's bytes, not on siw's framing. Neither
# protocol runs in this test, so both are off.
#
# A veth can deliver two segments of one stream out of order (they enter
# different CPUs' backlogs; seen on the debug kernel): TCP sorts them out,
# and so must tshark, or it loses the FPDU boundaries for the rest of the
# connection.
#
# MPA is found by a heuristic, and tshark tries a dissector registered for
# a TCP port first: a connection whose ephemeral port happens to be one
# (48898 is Beckhoff's ADS/AMS, seen on trixie) was read as that
# protocol, and its Terminate was "missing". Heuristics go first here.
ts=(tshark -n --disable-protocol rpcordma --disable-protocol smb_direct
    -o tcp.reassemble_out_of_order:TRUE -o tcp.try_heuristic_first:TRUE)

# field FILTER FIELD: FIELD of each frame of $pcap that matches the
# display filter, one a line; fails when tshark does.
field() {
	"${ts[@]}" -r "$pcap" -Y "$1" -T fields -e "$2" 2>"$err"
}

# count FILTER: how many frames match; "error" when tshark failed (which
# no test condition accepts).
count() {
	local out
	out=$(field "$1" frame.number) || { echo error; return 1; }
	echo "$out" | grep -c '^[0-9]'
}

# values FILTER FIELD: every occurrence of FIELD in the matching frames,
# one a line (a frame may hold several FPDUs); fails when tshark does.
values() {
	local out
	out=$(field "$1" "$2") || return 1
	echo "$out" | tr ',' '\n' | grep . || true
}

# streams FILTER: the TCP streams (connections) with a matching frame, as
# one sorted line; "error" when tshark failed.
streams() {
	local out
	out=$(field "$1" tcp.stream) || { echo error; return 1; }
	echo "$out" | grep '^[0-9]' | sort -nu | tr '\n' ' '
}

# check_wire: the captures of 80-wire.sh.
check_wire() {
for c in $captures; do
	name=${c%%:*} crc=${c#*:}
	pcap=$dir/wire-$name.pcap
	if [ ! -s "$pcap" ]; then
		not_ok "$name: capture wire-$name.pcap exists" \
			"missing or empty: $pcap (did 80-wire.sh run? see its results)"
		continue
	fi
	ok "$name: capture wire-$name.pcap exists"
	# A capture tshark cannot read to its end fails once, here.
	if ! "${ts[@]}" -r "$pcap" -q 2>"$err"; then
		not_ok "$name: tshark reads the whole capture" \
			"$(grep -v 'Running as user' "$err")"
		continue
	fi
	ok "$name: tshark reads the whole capture ($(capinfos -c -M "$pcap" 2>/dev/null | sed -n 's/^Number of packets: *//p') packets)"

	# Connections are TCP streams that got as far as a SYN-ACK.
	conns=$(streams 'tcp.flags.syn == 1 && tcp.flags.ack == 1')
	reqs=$(streams 'iwarp_mpa.key.req')
	reps=$(streams 'iwarp_mpa.key.rep')
	nconns=$(echo $conns | wc -w)
	verdict "$name: every TCP connection ($nconns) carries an MPA request tshark recognises" \
		"TCP streams with a SYN-ACK: $conns; with an MPA request: $reqs" \
		"$nconns" -gt 0 -a "$conns" = "$reqs"
	verdict "$name: every MPA request is answered by a recognised MPA reply" \
		"TCP streams with an MPA request: $reqs; with an MPA reply: $reps" \
		"$nconns" -gt 0 -a "$reqs" = "$reps"

	rej=$(count 'iwarp_mpa.key.rep && iwarp_mpa.rej_flag == 1')
	verdict "$name: the rejected connection's MPA reply has R set ($rej)" \
		"MPA replies with R set: $rej (siw_conn_test reject makes one)" \
		"$rej" = 1

	other=$(count "(iwarp_mpa.key.req || iwarp_mpa.key.rep) && iwarp_mpa.crc_flag != $crc")
	verdict "$name: every MPA request and reply has C=$crc" \
		"frames with another C flag: $other" "$other" = 0

	for o in $opcodes; do
		code=${o%%:*} what=${o#*:}
		m=$(count "iwarp_rdma.opcode == $code")
		verdict "$name: RDMAP ${what/-/ } ($code) decoded ($m frames)" \
			"frames with iwarp_rdma.opcode == $code: $m" "${m:-0}" -gt 0
	done

	# A retransmission repeats bytes already decoded; tshark does not
	# hand it to the dissectors again. A segment that arrived before the
	# one in front of it is decoded in the frame that fills the gap: it
	# counts when that frame's reassembled MPA data lists it.
	undecoded='tcp.len > 0 && !iwarp_mpa && !tcp.analysis.retransmission && !tcp.analysis.spurious_retransmission'
	if u=$(field "$undecoded" frame.number) &&
	   r=$(field 'iwarp_mpa && tcp.segment' tcp.segment); then
		# comm wants both lists in its own (byte) order, not sort -n's.
		late=$(echo "$r" | tr ',' '\n' | grep . | LC_ALL=C sort -u)
		lost=$(echo "$u" | grep . | LC_ALL=C sort -u | LC_ALL=C comm -23 - <(echo "$late") | sort -n)
		bad=$(echo "$lost" | grep -c . || true)
		nlate=$(echo "$u" | grep . | LC_ALL=C sort -u | LC_ALL=C comm -12 - <(echo "$late") | grep -c . || true)
	else
		bad=error nlate=0 lost=
	fi
	late=
	[ "$nlate" = 0 ] || late=" ($nlate decoded in a later frame: reordered, or inside a longer FPDU)"
	verdict "$name: every TCP segment with data decodes as MPA$late" \
		"segments tshark did not decode as MPA: $bad ($(echo $lost | head -c 200)) (tshark -o tcp.reassemble_out_of_order:TRUE -r $pcap -Y '$undecoded')" \
		"$bad" = 0

	# FPDUs, not frames: one ULPDU length each.
	if v=$(values 'iwarp_mpa.fpdu' iwarp_mpa.ulpdulength); then
		fpdus=$(echo "$v" | grep -c .)
	else
		fpdus=error
	fi
	if [ "$crc" = 1 ]; then
		# The dissector's verdict is only in its text: "(Good CRC32)".
		if "${ts[@]}" -r "$pcap" -V -O iwarp_mpa > "$cfg/v.txt" 2>"$err"; then
			good=$(grep -c '(Good CRC32)' "$cfg/v.txt")
			badcrc=$(grep -c 'Bad CRC32' "$cfg/v.txt")
		else
			good=error badcrc=error
		fi
		verdict "$name: tshark finds the CRC of every FPDU good ($good of $fpdus)" \
			"FPDUs: $fpdus, good CRC: $good, bad CRC: $badcrc" \
			"${fpdus:-0}" -gt 0 -a "$good" = "$fpdus" -a "$badcrc" = 0
	else
		# iwarp_mpa.crc (not crc_check): tshark also saw CRC off.
		if v=$(values 'iwarp_mpa.crc' iwarp_mpa.crc); then
			zero=$(echo "$v" | grep -cx '0x00000000')
		else
			zero=error
		fi
		verdict "$name: without CRC the CRC field of every FPDU is zero ($zero of $fpdus)" \
			"FPDUs: $fpdus, with a CRC field of zero: $zero" \
			"${fpdus:-0}" -gt 0 -a "$zero" = "$fpdus"
	fi

	malformed=$(count '_ws.malformed || _ws.expert.severity == error')
	if [ "$malformed" = 0 ]; then
		ok "$name: no frame is malformed or has an expert error"
	else
		not_ok "$name: no frame is malformed or has an expert error" \
			"$malformed frames (tshark -r $pcap -Y '_ws.malformed || _ws.expert.severity == error'); the first:" \
			"$("${ts[@]}" -r "$pcap" -Y '_ws.malformed || _ws.expert.severity == error' 2>&1 | grep -v 'Running as user' | head -5)"
	fi
done
}

# check_hostile NAME [PORT]: one capture of 90-hostile.sh (or of
# 91-hostile-rfc7306.sh, siw on PORT) against its expectations.
check_hostile() {
	local name=$1 pcap=$dir/$1.pcap expect=$dir/$1.expect got line
	local sport=${2:-7480}
	local port layer etype code what want have bad

	if [ ! -s "$pcap" ] || [ ! -s "$expect" ]; then
		not_ok "$name: capture and expectations exist" \
			"missing or empty: $pcap or $expect (did 90-hostile.sh run? see its results)"
		return
	fi
	ok "$name: capture and expectations exist"
	# Every Terminate siw (port 7480) sent: attacker's port, layer,
	# error type, error code. The dissector has a field per layer for
	# type and code; the one that is set is the one that counts.
	if ! got=$("${ts[@]}" -r "$pcap" \
		-Y "tcp.srcport == $sport && iwarp_rdma.opcode == 0x07" \
		-T fields -E separator=, -e tcp.dstport -e iwarp_rdma.term_layer \
		-e iwarp_rdma.term_etype_rdma -e iwarp_rdma.term_etype_ddp \
		-e iwarp_rdma.term_etype_llp -e iwarp_rdma.term_errcode_rdma \
		-e iwarp_rdma.term_errcode_ddp_tagged \
		-e iwarp_rdma.term_errcode_ddp_untagged \
		-e iwarp_rdma.term_errcode_llp 2>"$err"); then
		not_ok "$name: tshark reads the capture" "$(grep -v 'Running as user' "$err")"
		return
	fi
	# Port, layer, type, code in decimal (bash reads the 0x values).
	got=$(echo "$got" | while IFS=, read -r p l t1 t2 t3 c1 c2 c3 c4; do
		[ -n "$p" ] && printf '%d %d %d %d\n' "$p" "$l" "$t1$t2$t3" "$c1$c2$c3$c4"
	done)
	while read -r line; do
		set -- $line
		# "# expect-terminate port P layer L etype T code C case MODE... NAME"
		port=$4 layer=$6 etype=$8 code=${10}
		what=${line##* }
		want="$layer/$etype/$(printf 0x%02x "$code")"
		have=$(echo "$got" | awk -v p="$port" '$1 == p {
			printf "%d/%d/0x%02x ", $2, $3, $4 }')
		have=${have% }
		verdict "$name: $what: tshark decodes siw's Terminate as $want" \
			"Terminates tshark found on port $port: ${have:-none}" \
			"$have" = "$want"
	done < <(grep '^# expect-terminate ' "$expect")
	# tshark sizes a Terminate's copy of the offending DDP header by
	# the error type: 14 bytes (tagged) for type 1, else 18. RFC 5040
	# copies the segment's own header, so an RDMAP-layer Terminate of
	# another type about a tagged segment (a Write with a bad RDMAP
	# version, say) carries 14 bytes where tshark reads 18 and calls
	# the frame malformed. Those frames are left out of this verdict;
	# their control field was checked above.
	local filter="tcp.srcport == $sport && (_ws.malformed || _ws.expert.severity == error) && !(iwarp_rdma.opcode == 0x07 && iwarp_rdma.term_layer == 0 && iwarp_rdma.term_etype_rdma != 1)"
	bad=$(count "$filter")
	verdict "$name: no frame siw sent is malformed or has an expert error" \
		"$bad frames (tshark -r $pcap -Y '$filter')" "$bad" = 0
}

# check_atomics NAME: RFC 7306's Atomic Request and Response as tshark
# reads them, against "# expect-atomic-response" lines.
check_atomics() {
	local name=$1 pcap=$dir/$1.pcap expect=$dir/$1.expect reqs resps line
	local port id value what have

	[ -s "$pcap" ] && [ -s "$expect" ] || return
	if ! reqs=$("${ts[@]}" -r "$pcap" \
		-Y 'tcp.dstport == 19876 && iwarp_rdma.opcode == 0x0a' \
		-T fields -E separator=, -e tcp.srcport \
		-e iwarp_rdma.atomic.opcode \
		-e iwarp_rdma.atomic.request_identifier 2>"$err") ||
	   ! resps=$("${ts[@]}" -r "$pcap" \
		-Y 'tcp.srcport == 19876 && iwarp_rdma.opcode == 0x0b' \
		-T fields -E separator=, -e tcp.dstport \
		-e iwarp_rdma.atomic.original_request_identifier \
		-e iwarp_rdma.atomic.original_remote_data_value 2>"$err"); then
		not_ok "$name: tshark reads the atomics" "$(grep -v 'Running as user' "$err")"
		return
	fi
	while read -r line; do
		set -- $line
		# "# expect-atomic-response port P id I value V op O case MODE... NAME"
		port=$4 id=$6 value=$8 op=${10}
		what=${line##* }
		have=$(echo "$reqs" | while IFS=, read -r p o i; do
			[ -n "$p" ] && [ "$p" = "$port" ] &&
				printf '%d/%d ' "$o" "$i"
		done)
		have=${have% }
		verdict "$name: $what: tshark decodes the Atomic Request as AtomicOp $op, identifier $id" \
			"Atomic Requests on port $port (op/id): ${have:-none}" \
			"$have" = "$op/$id"
		have=$(echo "$resps" | while IFS=, read -r p i v; do
			[ -n "$p" ] && [ "$p" = "$port" ] &&
				printf '%d/%d ' "$i" "$v"
		done)
		have=${have% }
		verdict "$name: $what: tshark decodes siw's Atomic Response as identifier $id, value $value" \
			"Atomic Responses on port $port (id/value): ${have:-none}" \
			"$have" = "$id/$value"
	done < <(grep '^# expect-atomic-response ' "$expect")
}

for part in $parts; do
	case $part in
	wire) check_wire ;;
	hostile)
		for name in hostile-rev2-crc-off hostile-rev2-crc; do
			pcap=$dir/$name.pcap
			check_hostile "$name"
		done
		;;
	hostile-rfc7306)
		for name in hostile-rfc7306 hostile-rfc7306-crc; do
			check_hostile "$name" 19876
			check_atomics "$name"
		done
		;;
	*) not_ok "part $part is known" "wire-check.sh: unknown part '$part' (wire, hostile, hostile-rfc7306)" ;;
	esac
done
ktap_finished
