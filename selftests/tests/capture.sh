# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Packet capture for in-VM tests that leave a pcap for the host to decode
# (80-wire, 90-hostile). Sourced after lib.sh; the caller sets addr, the
# address the end marker is sent to from $NS2. tcpdump runs on $IF2.
#
# The capture must neither hang nor lose its end: tcpdump hands on and
# writes every packet at once, the traffic is followed by a marker that
# must reach the file before tcpdump is stopped, and stopping it is
# SIGINT, then TERM and KILL, each after a bounded wait.

# require_output_share: the captures go to the output share; without it
# the test fails at once.
require_output_share() {
	if [ -z "${SIW_OUT:-}" ] || [ ! -d "$SIW_OUT" ] || [ ! -w "$SIW_OUT" ]; then
		fail "the output share is writable" "SIW_OUT='${SIW_OUT:-}' is not a writable directory"
		exit 1
	fi
}

# tcpdump ends by itself after this many packets, whatever happens.
max_packets=50000

dump_pid=
dump_log=/tmp/tcpdump.$$.log

# exited PID: the process is gone or a zombie (kill -0 succeeds on both).
exited() {
	local st
	st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
	[ -z "$st" ] || [ "${st%% *}" = Z ]
}

# start_capture NAME FILE: tcpdump on $IF2 into FILE. Each packet is handed
# over as it arrives (--immediate-mode; otherwise the kernel passes them
# on in blocks, and the last block is lost when tcpdump stops) and written
# at once (-U). As root (-Z root): it would drop to user tcpdump before
# opening FILE. `ip netns exec` execs tcpdump, so $! is tcpdump itself.
start_capture() {
	echo "+ tcpdump -i $IF2 -w $2 (in $NS2)"
	ip netns exec "$NS2" tcpdump -i "$IF2" -nn --immediate-mode -U \
		-Z root -B 32768 -s 0 -c "$max_packets" -w "$2" tcp \
		> "$dump_log" 2>&1 &
	dump_pid=$!
	check_wait "$1: tcpdump listens on $IF2" 30 grep -q 'listening on' "$dump_log"
}

# marker_written FILE: FILE holds the end marker, the RST that answers a
# SYN to port 9, where nothing listens.
marker_written() {
	tcpdump -nn -r "$1" 'tcp src port 9 and tcp[tcpflags] & tcp-rst != 0' \
		2>/dev/null | grep -q .
}

# end_capture NAME FILE: sends the end marker and waits until tcpdump
# has written it. Packets are written in the order they were seen, so
# then all the traffic before it is in FILE too.
end_capture() {
	echo "+ end marker: SYN to $addr port 9 (from $NS2)"
	n2 bash -c "exec 3<>/dev/tcp/$addr/9" 2>/dev/null
	check_wait "$1: tcpdump wrote the end marker" 30 marker_written "$2"
}

# stop_capture: SIGINT makes tcpdump close the file and print its
# counts. A background job of a script may have inherited SIGINT ignored,
# so TERM, then KILL follow, each after a bounded wait: never hangs.
stop_capture() {
	local sig pid=$dump_pid

	[ -n "$pid" ] || return 0
	dump_pid=
	for sig in INT TERM KILL; do
		exited "$pid" && break
		echo "+ kill -$sig tcpdump ($pid)"
		kill -"$sig" "$pid" 2>/dev/null
		wait_for 10 exited "$pid" && break
	done
	wait "$pid"
	local rc=$?
	sed 's/^/  | /' "$dump_log"
	[ "$sig" = INT ] && [ "$rc" = 0 ]
}

# finish_capture NAME FILE: the end marker, then tcpdump stopped by SIGINT
# and its counts checked: a packet the kernel dropped (its 32 MiB buffer
# overran while the guest was busy) would make the host's decode miss what
# the test expects there, so it fails here, with its cause.
finish_capture() {
	end_capture "$1" "$2"
	if stop_capture >/dev/null; then
		ok "$1: tcpdump stopped on SIGINT"
	else
		fail "$1: tcpdump stopped on SIGINT" "$(cat "$dump_log")"
	fi
	if grep -qx '0 packets dropped by kernel' "$dump_log"; then
		ok "$1: tcpdump dropped no packet"
	else
		fail "$1: tcpdump dropped no packet" "$(cat "$dump_log")"
	fi
}
