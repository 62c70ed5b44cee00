# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Helpers for in-VM tests. A test sources this file, states its plan (how
# many cases it reports) and reports each case with ok/fail/check, in
# KTAP (selftests/lib/ktap.sh); guest-run-tests.sh numbers the cases of
# all tests in one sequence. Commands are echoed before they run, so a
# failure's log says what was done.
#
# The rules guest-run-tests.sh holds every test to:
#   - "plan N" comes before the first case, and the test reports exactly
#     N cases; a short count fails ("planned N cases, ran M");
#   - a test exits as kselftest's do, 0 when every case passed, 1 when one
#     failed, 4 when all were skipped (lib.sh sees to it: it owns the EXIT
#     trap, and a test's cleanup goes through at_exit); dying by a signal,
#     or exiting non-zero with no case failed, fails the test;
#   - a program that prints KTAP of its own (userspace/siw_*) runs through
#     tap_prog: one case, its lines shown as a subtest.
#
# Topology made by setup_veth_pair:
#
#   netns $NS1                          netns $NS2
#   veth $IF1 -------------------------- veth $IF2
#   192.0.2.1/24, 2001:db8::1/64        192.0.2.2/24, 2001:db8::2/64

SIW_DIR=${SIW_DIR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ktap.sh"
. "$(dirname "${BASH_SOURCE[0]}")/rdma-qp.sh"
. "$(dirname "${BASH_SOURCE[0]}")/../lib/perftest.sh"
NS1=siw-a-$$
NS2=siw-b-$$
IF1=veth-a
IF2=veth-b
# Waits take this many times longer on a slow guest (the debug kernel).
SIW_TIMEOUT_SCALE=${SIW_TIMEOUT_SCALE:-1}

# plan N: the number of cases this test reports, stated before the first.
plan() {
	ktap_header
	ktap_plan "$1"
}

# Each case's time since the case before it (or since the test began),
# shown when it is long: where a test's minutes go.
LIB_CASE_T=$SECONDS
case_time() {
	local t=$((SECONDS - LIB_CASE_T))
	LIB_CASE_T=$SECONDS
	[ $t -lt 5 ] || ktap_diag "(${t} s)"
}

ok() { ktap_pass "$*"; case_time; }

# fail DESC [DETAIL...]: a failed case, with its details as diagnostics.
fail() {
	# What the kernel said last: often the why of a failure, and the
	# only part of the guest's console a CI log shows.
	local kernel
	kernel=$(dmesg 2>/dev/null | tail -n 12 | sed 's/^/kernel: /')
	ktap_fail "$@" ${kernel:+"$kernel"}
	case_time
}

# at_exit CMD: CMD runs when the test exits, however it exits (in place
# of trap CMD EXIT: lib.sh holds that trap).
LIB_AT_EXIT=
at_exit() { LIB_AT_EXIT=$1; }

# The test's exit status: its own when non-zero, else kselftest's for its
# cases (ktap_exit_code).
lib_exit() {
	local rc=$?
	trap - EXIT
	[ -n "$LIB_AT_EXIT" ] && eval "$LIB_AT_EXIT"
	rm -f "$TAP_LOG"
	if [ "$rc" = 0 ]; then
		ktap_exit_code
		rc=$?
	fi
	exit "$rc"
}
trap lib_exit EXIT

# run CMD...: echo, then run a command, keeping its output in $OUT.
run() {
	echo "+ $*"
	OUT=$("$@" 2>&1)
	local rc=$?
	[ -n "$OUT" ] && echo "$OUT" | sed 's/^/  | /'
	return $rc
}

# check DESC CMD...: a case that passes when CMD succeeds. Like the
# other checks, returns non-zero when the case failed.
check() {
	local desc=$1
	shift
	if run "$@"; then
		ok "$desc"
	else
		fail "$desc" "command failed: $*"
		return 1
	fi
}

# check_fails DESC CMD...: a case that passes when CMD fails.
check_fails() {
	local desc=$1
	shift
	if run "$@"; then
		fail "$desc" "command succeeded but must fail: $*"
		return 1
	else
		ok "$desc"
	fi
}

# wait_for SECONDS CMD...: poll CMD until it succeeds or time runs out
# (SECONDS times SIW_TIMEOUT_SCALE).
wait_for() {
	local deadline=$((SECONDS + $1 * SIW_TIMEOUT_SCALE))
	shift
	while ! "$@" >/dev/null 2>&1; do
		[ $SECONDS -ge $deadline ] && return 1
		sleep 0.2
	done
}

# check_wait DESC SECONDS CMD...: a case that passes once CMD succeeds.
check_wait() {
	local desc=$1 secs=$2
	shift 2
	echo "+ (waiting up to $((secs * SIW_TIMEOUT_SCALE))s) $*"
	if wait_for "$secs" "$@"; then
		ok "$desc"
	else
		run "$@"
		fail "$desc" "still failing after $((secs * SIW_TIMEOUT_SCALE))s: $*"
		return 1
	fi
}

# tap_prog DESC CMD...: one case for a program that prints KTAP of its own
# (userspace/siw_*), its lines shown indented below it (a subtest). The
# case passes when the program printed N case lines, none "not ok", then
# its plan "1..N", and exited 0: a program that crashed or was killed
# after some "ok" lines fails. Its output stays in $TAP_LOG.
TAP_LOG=/tmp/tap.$$.log
tap_prog() {
	local desc=$1 rc n plan bad
	shift
	echo "+ $*"
	"$@" 2>&1 | tee "$TAP_LOG" | ktap_nest
	rc=${PIPESTATUS[0]}
	n=$(grep -Ec '^(not )?ok ' "$TAP_LOG")
	plan=$(sed -n 's/^1\.\.\([0-9][0-9]*\)$/\1/p' "$TAP_LOG" | tail -1)
	bad=$(grep '^not ok ' "$TAP_LOG")
	if [ "$rc" = 0 ] && [ -z "$bad" ] && [ "$plan" = "$n" ] && [ "$n" -gt 0 ]; then
		ok "$desc ($n cases)"
	else
		fail "$desc" "$(ktap_status_text "$rc"), plan ${plan:-missing}, $n case lines" \
			${bad:+"failed:" "$bad"}
		return 1
	fi
}

# subtest DESC CMD...: one case for a command (often a function) that
# reports a number of cases not known beforehand, shown indented below
# it, numbered from 1 (a subshell: the test's own count goes on after).
# The case passes when at least one ran, none failed and CMD exited 0.
subtest() {
	local desc=$1 log=/tmp/subtest.$$.log rc n bad
	shift
	(ktap_reset; ktap_header; "$@") 2>&1 | tee "$log" | ktap_nest
	rc=${PIPESTATUS[0]}
	n=$(grep -Ec '^(not )?ok ' "$log")
	echo "1..$n" | ktap_nest
	bad=$(grep '^not ok ' "$log")
	rm -f "$log"
	if [ "$rc" = 0 ] && [ -z "$bad" ] && [ "$n" -gt 0 ]; then
		ok "$desc ($n cases)"
	else
		fail "$desc" "$(ktap_status_text "$rc"), $n cases" ${bad:+"failed:" "$bad"}
		return 1
	fi
}

# require CMD...: a missing prerequisite fails the test loudly.
require() {
	local c
	for c in "$@"; do
		if ! command -v "$c" >/dev/null; then
			fail "prerequisite $c is installed" "$c not found in the guest's PATH"
			exit 1
		fi
	done
}

n1() { ip netns exec "$NS1" "$@"; }
n2() { ip netns exec "$NS2" "$@"; }

setup_veth_pair() {
	ip netns add "$NS1" && ip netns add "$NS2" &&
	ip link add "$IF1" netns "$NS1" type veth peer name "$IF2" netns "$NS2" &&
	n1 ip link set lo up && n2 ip link set lo up &&
	n1 ip addr add 192.0.2.1/24 dev "$IF1" &&
	n2 ip addr add 192.0.2.2/24 dev "$IF2" &&
	n1 ip -6 addr add 2001:db8::1/64 dev "$IF1" nodad &&
	n2 ip -6 addr add 2001:db8::2/64 dev "$IF2" nodad &&
	n1 ip link set "$IF1" up && n2 ip link set "$IF2" up
}

cleanup_netns() {
	ip netns del "$NS1" 2>/dev/null
	ip netns del "$NS2" 2>/dev/null
	true
}

# Every siw device the RDMA core knows, one name per line.
siw_devices() {
	rdma link show 2>/dev/null | awk '/ netdev /{ split($2, a, "/"); print a[1] }'
}

has_rdma_dev() { rdma dev show "$1" >/dev/null 2>&1; }
no_rdma_dev() { ! rdma dev show "$1" >/dev/null 2>&1; }

# port_state DEV: PORT_ACTIVE, PORT_DOWN, ... as ibv_devinfo reports it.
port_state() {
	ibv_devinfo -d "$1" 2>/dev/null | awk '/state:/ { print $2; exit }'
}

port_state_is() { [ "$(port_state "$1")" = "$2" ]; }

# virtio_nic: the name of a netdev that virtio_net drives; fails when
# there is none (yet).
virtio_nic() {
	local n
	for n in /sys/class/net/*; do
		[ "$(basename "$(readlink -f "$n/device/driver" 2>/dev/null)")" = virtio_net ] &&
			echo "${n##*/}" && return 0
	done
	return 1
}

# guest_nic: the name of the single guest's virtio-net NIC (run.sh gives
# it one, on a QEMU hub with nothing else on it), loading its driver
# first and waiting for the netdev; empty when there is none.
guest_nic() {
	modprobe virtio_net 2>/dev/null
	wait_for 5 virtio_nic && virtio_nic
}

# lio_rd_disk: /dev/sdX of the SCSI disk that a LIO RAM disk (rd_mcp,
# model "RAMDISK-MCP") appears as; nothing when there is none.
lio_rd_disk() {
	local d
	for d in /sys/block/sd*; do
		[ -e "$d/device/model" ] || continue
		grep -q RAMDISK "$d/device/model" && echo "/dev/${d##*/}" && return
	done
	return 0
}

# mpa_negotiated DEV REV CRC [MIN]: DEV's QPs in RTS, at least MIN of
# them (default two: both ends of a connection on one device), all report
# MPA revision REV and CRC use CRC.
mpa_negotiated() {
	local out n
	out=$(rdma_qp_lines | grep "^link $1/1 " | grep ' state RTS ')
	n=$(echo "$out" | grep -c .)
	echo "$n QPs in RTS"
	[ "$n" -ge "${4:-2}" ] || return 1
	echo "$out" | grep -vE " drv_mpa_rev $2 (.* )?drv_mpa_crc $3( |$)" && return 1
	return 0
}

# siw_on_dummy NETDEV ADDR SIWDEV: a dummy netdev in this namespace with
# ADDR/24, up, and siw device SIWDEV on it: two cases. The kernel ULPs
# (nvmet, LIO, NFS) open their rdma_cm IDs in the initial namespace,
# where the veth pair's namespaces are out of reach.
siw_on_dummy() {
	check "dummy netdev $1 with $2" sh -c \
		"ip link add $1 type dummy && ip addr add $2/24 dev $1 && ip link set $1 up"
	check "rdma link add $3 on $1" rdma link add "$3" type siw netdev "$1"
}

# disk_roundtrip PATTERN DEV: the file PATTERN written over block device
# DEV with O_DIRECT (256 KiB writes), read back (1 MiB reads) and compared.
disk_roundtrip() {
	local back=$1.back rc
	[ -b "$2" ] || { echo "no block device '$2'"; return 1; }
	timeout 300 dd if="$1" of="$2" bs=256k oflag=direct status=none &&
	timeout 300 dd if="$2" of="$back" bs=1M iflag=direct status=none &&
	cmp "$1" "$back"
	rc=$?
	rm -f "$back"
	return $rc
}

# unload_modules MOD...: modprobe -r, in order, those of the modules that
# are loaded. A module this kernel does not build (the debug kernel has no
# target_core_user) is no error. On failure it shows what stays loaded.
unload_modules() {
	local m loaded=()

	for m in "$@"; do
		[ -d "/sys/module/${m//-/_}" ] && loaded+=("$m")
	done
	[ ${#loaded[@]} -eq 0 ] && return 0
	modprobe -r "${loaded[@]}" && return 0
	lsmod | grep -E '^(target|ib_|iscsi|rdma)'
	return 1
}

load_siw() {
	lsmod | grep -q '^siw ' || modprobe siw
}

unload_siw() {
	! lsmod | grep -q '^siw ' || modprobe -r siw
}

# client_server NAME TIMEOUT "SERVER CMD" "CLIENT CMD" [SERVER_NS CLIENT_NS]
# Runs a server, waits until it listens, runs the client against it; the
# case passes when both exit 0. Output goes to logs, shown on failure.
client_server() {
	local name=$1 secs=$2 srv=$3 cli=$4 sns=${5:-$NS1} cns=${6:-$NS2}
	local slog=/tmp/srv.$$.log clog=/tmp/cli.$$.log spid src crc
	local sx="ip netns exec $sns" cx="ip netns exec $cns"

	[ "$sns" = - ] && sx=
	[ "$cns" = - ] && cx=
	local listening
	echo "+ server: $srv"
	echo "+ client: $cli"
	listening=$($sx ss -ltnH | wc -l)
	$sx timeout "$secs" $srv > "$slog" 2>&1 &
	spid=$!
	# The server listens once a new TCP listener shows in its namespace.
	wait_for 20 sh -c "[ \$($sx ss -ltnH | wc -l) -gt $listening ]"
	$cx timeout "$secs" $cli > "$clog" 2>&1
	crc=$?
	wait $spid
	src=$?
	if [ $src = 0 ] && [ $crc = 0 ]; then
		ok "$name"
	else
		fail "$name" "server exit $src, client exit $crc" \
			"server log:" "$(tail -15 "$slog")" \
			"client log:" "$(tail -15 "$clog")"
	fi
	LAST_SERVER_LOG=$(cat "$slog")
	LAST_CLIENT_LOG=$(cat "$clog")
	rm -f "$slog" "$clog"
}

# The kernel knows no siw QP, CQ, MR or PD any more (rdma resource show).
# On failure it prints what is left.
# The CQs of ib_core's shared pool (ib_cq_pool_get, used by nvmet-rdma,
# named after ib_core) stay, unused, until their device goes away: they
# are not left over by anyone.
no_siw_resources() {
	local left
	left=$(for r in qp cq mr pd; do rdma resource show $r 2>/dev/null; done |
		grep siw | grep -Ev ' users 0 .*comm \[ib_core\]')
	[ -z "$left" ] && return 0
	echo "$left"
	return 1
}

# siw_stats DEV: every counter of DEV's port 1 (rdma statistic), one
# "name value" per line.
siw_stats() {
	# rdma's JSON is one flat object per link: split at its punctuation
	# (awk, not python3: its start cost a second or two per call here).
	rdma -j statistic show link "$1/1" 2>/dev/null | tr ',{}[]' '\n' |
		awk -F: 'NF == 2 && $2 ~ /^ *-?[0-9]+ *$/ { gsub(/[" ]/, "", $1)
			gsub(/ /, "", $2)
			if ($1 != "ifindex" && $1 != "port") print $1, $2 }'
}

# stats_delta BEFORE_FILE DEV NAME: how far DEV's counter NAME moved since
# siw_stats wrote BEFORE_FILE.
stats_delta() {
	local before now
	before=$(awk -v n="$3" '$1 == n { print $2 }' "$1")
	now=$(siw_stats "$2" | awk -v n="$3" '$1 == n { print $2 }')
	echo $((${now:-0} - ${before:-0}))
}
