#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1500
#
# One guest of the interoperability run (run.sh interop): guest 1 runs
# upstream siw, built out of tree from Debian's linux-source of the same
# kernel (scripts/upstream-siw-src.sh; SIW_UPSTREAM is the directory with
# siw.ko and siw-gso.ko), guest 2 this siw. Over the two-VM topology of
# guest-peer.sh they run rping with verification, perftest's Write, Read
# and Send bandwidth over rdma_cm and ucmatose, each side in turn the
# server, in four settings:
#   default     both at their defaults (MPA revision 2, no CRC asked for)
#   crc-req     this siw requires CRC (mpa/crc 2)
#   rev1        this siw speaks MPA revision 1 (mpa/rev 1)
#   up-gso      upstream built with try_gso set (it offers GSO-sized FPDUs)
# Every cell is one case in each guest: it passes if both sides did (each
# reads the other's status from the share). A cell listed in
# interop-expect.txt with a reason is upstream's behaviour
# (Documentation/protocol.rst): it is shown, not counted, and fails the
# run if it passes.
. "$SIW_DIR/selftests/tests/lib.sh"
. "$SIW_DIR/selftests/vm/peer-lib.sh"

settings="default crc-req rev1 up-gso"
progs="rping write_bw read_bw send_bw ucmatose"
expect=$SIW_DIR/selftests/vm/interop-expect.txt
# 11 cases to start; setting changes: 4 here in guest 2, 1 in guest 1
# (upstream reloaded); 2 x 5 cells per setting; 3 at the end.
if [ "$me" = 1 ]; then
	plan $((11 + 1 + 4 * 2 * 5 + 3))
else
	plan $((11 + 4 + 4 * 2 * 5 + 3))
fi

peer_net_up
up=${SIW_UPSTREAM:-}
. "$SIW_DIR/selftests/lib/upstream.sh"
if [ "$me" = 1 ]; then
	check "upstream siw built for $(uname -r): $up/siw.ko" \
		sh -c "test -f '$up/siw.ko' && modinfo -F vermagic '$up/siw.ko' | grep -q '^$(uname -r) '" || exit 1
	check "upstream siw loaded (insmod after its dependencies)" upstream_load "$up/siw.ko"
else
	check "this siw's module exists" modinfo -n siw
	check "this siw loaded" modprobe siw
fi
check "rdma link add siw0 on eth0" rdma link add siw0 type siw netdev eth0
check_wait "siw0 port active" 10 port_state_is siw0 PORT_ACTIVE
check "siw0 is iWARP through the stock provider" \
	sh -c "ibv_devinfo -d siw0 | grep -Eq 'transport:[[:space:]]+iWARP'"
if [ "$me" = 1 ]; then
	check "siw0 is upstream's (no mpa/ settings directory)" \
		sh -c "! test -e /sys/class/infiniband/siw0/mpa"
else
	check "siw0 is this siw's (its mpa/ settings directory)" \
		test -d /sys/class/infiniband/siw0/mpa
fi
barrier siw-up

# expected_fail CELL: the reason upstream cannot pass CELL here, or
# nothing. A line's cell may end in @CODENAME,... (the guest userland's
# Debian releases, VERSION_CODENAME of /etc/os-release) where the
# outcome depends on the release's programs.
release=$(. /etc/os-release 2>/dev/null && echo "$VERSION_CODENAME")
expected_fail() {
	[ -f "$expect" ] || return 0
	awk -v c="$1" -v r="$release" '
		/^#/ { next }
		{ n = split($1, a, "@") }
		a[1] == c && (n == 1 || index("," a[2] ",", "," r ",")) {
			$1 = ""; sub(/^ +/, ""); print; exit
		}' "$expect"
}

# perftest's options (PERFTEST: selftests/lib/perftest.sh says why -F).
pt="$PERFTEST -s 65536 -n 200"

# upstream_left_unread NAME: pair NAME, upstream serving, ran into its
# timeout in guest 1 with bytes from this siw's guest unread in
# upstream's socket (Recv-Q of an established connection to 192.0.2.12,
# ten seconds before the timeout), while its server waited for them.
# That is upstream's responder, not this siw: siw_accept() sends the MPA
# reply, then hands the socket's receive callback from the connection
# endpoint to the QP; the endpoint's callback ignores data in RDMA mode
# and nothing reads what came in between, so an initiator's first FPDU
# that arrives in that window (as soon as it has the reply, which RFC
# 5044 allows) waits until more data comes, and a client that waits for
# an answer never sends more (protocol.rst, Upstream siw as a peer).
# Both guests read the same files, so they agree.
upstream_left_unread() {
	local rc snap
	rc=$(cat "$(pair_rc_file "$1" 1)" 2>/dev/null)
	snap=$(pair_snap_file "$1" 1)
	[ "$rc" = 124 ] && [ -f "$snap" ] &&
		awk '$1 == "ESTAB" && $2 > 0 && $5 ~ /^192\.0\.2\.12:/ { f = 1 }
			END { exit !f }' "$snap"
}

# cell SETTING PROG SERVER_VM: one cell of the matrix.
cell() {
	local s=$1 p=$2 srv=$3 a="192.0.2.1$3" name why sc cc other both
	local secs=120 run
	local who=upstream
	[ "$srv" = 2 ] && who=this
	name="$s: $p, $who siw serving"
	case $p in
	rping)    sc="rping -s -a $a -V -C 50 -S 4096"
	          cc="rping -c -a $a -V -C 50 -S 4096" ;;
	write_bw) sc="ib_write_bw $pt"
	          cc="ib_write_bw $pt $a" ;;
	read_bw)  sc="ib_read_bw $pt"
	          cc="ib_read_bw $pt $a" ;;
	send_bw)  sc="ib_send_bw $pt"
	          cc="ib_send_bw $pt $a" ;;
	ucmatose) sc="ucmatose -b $a -c 4 -C 20"
	          cc="ucmatose -s $a -c 4 -C 20" ;;
	esac
	why=$(expected_fail "$s/$p/$who")
	# The cell is the pair's: it passes only if both sides did. Once,
	# and only for upstream's lost first FPDU (above), it runs again.
	for run in "$name" "$name, again"; do
		pair_run "$run" $secs "$srv" "$sc" "$cc"
		other=$(cat "$(pair_rc_file "$run" "$peer")" 2>/dev/null)
		[ "$pair_rc" = 0 ] && [ "$other" = 0 ] && break
		[ "$run" = "$name" ] && [ -z "$why" ] && [ "$srv" = 1 ] &&
			upstream_left_unread "$run" || break
		echo "# $run: upstream's server waited $secs s with this siw's bytes unread in its socket (upstream's responder lost its first FPDU's wakeup: upstream_left_unread); once more"
		grep -A12 '^ss -tni:' "$(pair_snap_file "$run" 1)" | sed 's/^/#   | /'
	done
	both="this side: $(status_of "$pair_rc" $secs); the other: $(status_of "$other" $secs)"
	if [ "$pair_rc" = 0 ] && [ "$other" = 0 ]; then
		if [ -n "$why" ]; then
			fail "$name passes, but interop-expect.txt says it cannot: $why"
		else
			ok "$name"
		fi
	elif [ -n "$why" ]; then
		# Shown, counted neither way.
		tail -40 "$pair_log" | sed 's/^/#   | /'
		ktap_skip "$name" "upstream's behaviour: $why ($both)"
	else
		fail "$name" "$(tail -40 "$pair_log"; echo "($both)")"
	fi
}

mpa=/sys/class/infiniband/siw0/mpa
for s in $settings; do
	case $s in
	default) [ "$me" = 2 ] && desc="this siw: MPA revision 2, CRC 0" ;;
	crc-req) [ "$me" = 2 ] && desc="this siw requires CRC (mpa/crc 2)" ;;
	rev1) [ "$me" = 2 ] && desc="this siw at MPA revision 1, CRC 0" ;;
	up-gso) [ "$me" = 2 ] && desc="this siw back at MPA revision 2" ;;
	esac
	[ "$me" = 1 ] && desc="upstream siw with try_gso set"
	barrier "setting-$s"
	if [ "$me" = 2 ]; then
		case $s in
		default) check "$s: $desc" sh -c "echo 2 > $mpa/rev && echo 0 > $mpa/crc" ;;
		crc-req) check "$s: $desc" sh -c "echo 2 > $mpa/crc" ;;
		rev1) check "$s: $desc" sh -c "echo 0 > $mpa/crc && echo 1 > $mpa/rev" ;;
		up-gso) check "$s: $desc" sh -c "echo 2 > $mpa/rev" ;;
		esac
	elif [ "$s" = up-gso ]; then
		check "$s: $desc (siw0 deleted, upstream unloaded, siw-gso.ko loaded, siw0 added)" sh -c "
			rdma link delete siw0 && rmmod siw && insmod '$up/siw-gso.ko' &&
			rdma link add siw0 type siw netdev eth0" &&
			wait_for 10 port_state_is siw0 PORT_ACTIVE
	fi
	barrier "set-$s"
	for p in $progs; do
		cell "$s" "$p" 1
		cell "$s" "$p" 2
	done
done

barrier done
check_wait "no siw resources left" 10 no_siw_resources
check "rdma link delete siw0" rdma link delete siw0
check "siw unloads" rmmod siw
