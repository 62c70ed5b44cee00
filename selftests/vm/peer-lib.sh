# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by the scripts of the two-guest topology (guest-peer.sh,
# guest-interop.sh), after selftests/tests/lib.sh. SIW_VM is 1 or 2; the
# guests are 192.0.2.11 and 192.0.2.12 on eth0 (and 2001:db8::11, ::12),
# and meet at barriers: files in the output share they both mount.
me=$SIW_VM
peer=$((3 - me))
share=$SIW_SHARE

# barrier NAME [SECS]: wait until the peer reached the same point. A peer
# that never comes fails its own run (it crashed or hung); here the
# cases that needed it fail.
barrier() {
	touch "$share/vm$me/barrier-$1"
	wait_for "${2:-120}" test -e "$share/vm$peer/barrier-$1" ||
		echo "# barrier $1: the other guest did not arrive"
}

# eth0 up with this guest's addresses, and the peer reachable: 5 cases.
peer_net_up() {
	check "virtio_net loads" modprobe virtio_net
	check_wait "eth0 appears" 10 test -e /sys/class/net/eth0
	check "eth0 addresses" sh -c "ip addr add 192.0.2.1$me/24 dev eth0 &&
		ip -6 addr add 2001:db8::1$me/64 dev eth0 nodad && ip link set eth0 up"
	check_wait "IPv4 path to the peer" 60 ping -c1 -W1 "192.0.2.1$peer"
	check_wait "IPv6 path to the peer" 30 ping -6 -c1 -W1 "2001:db8::1$peer"
}

# RDMA between the guests: the server guest starts SERVER_CMD, the other
# runs CLIENT_CMD once the server listens (a new TCP listener: the siw
# kernel socket).
listeners() { ss -ltnH | wc -l; }
more_listeners() { [ "$(listeners)" -gt "$1" ]; }
# pair_run NAME SECS SERVER_VM SERVER_CMD CLIENT_CMD: runs this guest's
# side and writes no case: its exit status in $pair_rc (124: timed out),
# what it printed in $pair_log (standard output, then standard error
# under a heading: a program's stdout to a file is flushed only at exit,
# so interleaved, its error message would sit above everything it
# printed, out of sight of the log's tail). Ten seconds before the
# timeout, the guest's TCP sockets (ss -tni) and RDMA QPs go to the log
# too: a run that hangs shows which side still holds unread or unsent
# data. The status and that snapshot also go to the share (vm<N>/rc-NAME,
# vm<N>/snap-NAME), for the other guest to read after barrier end-NAME.
pair_log=/tmp/peer.$$.log
pair_rc=
pair_run() {
	local before spid wpid out=/tmp/peer.$$.out err=/tmp/peer.$$.err
	local snap
	snap=$(pair_snap_file "$1" "$me")
	barrier "start-$1"
	rm -f "$snap"
	# Away from the test's output: a sleep left over once the pair
	# ended would hold that pipe open (and the harness waiting).
	(exec > /dev/null 2>&1
	 sleep $(($2 > 20 ? $2 - 10 : $2 / 2)) &&
		{ echo "ss -tni:"; ss -tni; echo "rdma resource show qp:"
		  rdma resource show qp; } > "$snap" 2>&1) &
	wpid=$!
	if [ "$me" = "$3" ]; then
		before=$(listeners)
		echo "+ server: $4"
		timeout "$2" $4 > "$out" 2> "$err" &
		spid=$!
		wait_for 30 more_listeners "$before" ||
			echo "# the server is not listening after 30 s"
		barrier "listening-$1"
		wait $spid
		pair_rc=$?
	else
		barrier "listening-$1"
		echo "+ client: $5"
		timeout "$2" $5 > "$out" 2> "$err"
		pair_rc=$?
	fi
	kill "$wpid" 2>/dev/null
	wait "$wpid" 2>/dev/null
	{
		cat "$out"
		[ -s "$err" ] && { echo "--- its standard error:"; cat "$err"; }
		[ -s "$snap" ] && { echo "--- 10 s before the timeout:"; cat "$snap"; }
	} > "$pair_log"
	rm -f "$out" "$err"
	echo "$pair_rc" > "$(pair_rc_file "$1" "$me")"
	barrier "end-$1"
}
# pair_rc_file NAME VM: where guest VM left its status for pair NAME.
pair_rc_file() { echo "$share/vm$2/rc-${1//\//_}"; }
# pair_snap_file NAME VM: guest VM's socket snapshot of a pair that ran
# into its timeout (none if it ended in time).
pair_snap_file() { echo "$share/vm$2/snap-${1//\//_}"; }
# status_of RC SECS: an exit status in words.
status_of() {
	case $1 in
	0) echo "exit status 0" ;;
	124) echo "timed out after $2 s" ;;
	"") echo "no status (the other guest did not get there)" ;;
	*) echo "exit status $1" ;;
	esac
}
# rdma_pair NAME SECS SERVER_VM SERVER_CMD CLIENT_CMD: one case in each
# guest, with its own side's outcome.
rdma_pair() {
	pair_run "$@"
	if [ "$pair_rc" = 0 ]; then
		ok "$1"
	else
		fail "$1" "$(tail -40 "$pair_log"; echo "($(status_of "$pair_rc" "$2"))")"
	fi
}
# rdma_between NAME SECS SERVER_CMD CLIENT_CMD: guest 1 serves.
rdma_between() { rdma_pair "$1" "$2" 1 "$3" "$4"; }
