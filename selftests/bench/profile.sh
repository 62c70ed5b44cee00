#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench profile): where the CPU time goes while siw,
# raw TCP and rdma_rxe move data, on the paths of paths.sh. Each case runs
# its client under a system-wide sampled profile (perf record -a -g,
# cpu-clock: QEMU without KVM has no hardware counters);
# selftests/bench/profile.py sorts the samples into idle, user space,
# copies, CRC, siw, the network stack, scheduling and so on, and lists the
# top symbols and who asked for the copies. The sections go to
# $SIW_OUT/bench-profile.md, the perf data files stay in /tmp.
#
# BENCH_PROFILE_SECS (default 8) per case; BENCH_SMOKE=1: one short case
# (for make check). perftest runs in its duration mode (-D), so latency
# figures here are its averages over the run, not the medians of perf.sh.
set -u
secs=${BENCH_PROFILE_SECS:-8}
smoke=${BENCH_SMOKE:-0}
out=${SIW_OUT:-/tmp}
md=$out/bench-profile.md
bench_name=profile
. "$SIW_DIR/selftests/bench/paths.sh"
command -v perf >/dev/null || die "perf is not installed (linux-perf)"
pyprof=$SIW_DIR/selftests/bench/profile.py
# No build-ids (-B, -N): at its end perf would read every module and
# binary that was sampled to collect them, over 9p, which on a loaded host
# took minutes; perf script finds the symbols without them.
perf_opts="-q -B -N -e cpu-clock -F 499 -a -g"

# profile NAME TOPO TRANSPORT TITLE TOOL ARGS...: TOOL is tcp_bench or a
# perftest program; ARGS are the client's and server's options.
profile() {
	local name=$1 title=$4 tool=$5 data=/tmp/profile-$1.data res a
	topo=$2
	a=$(addr "$topo" "$3")
	shift 5
	log "$name: $title"
	if [ "$tool" = tcp_bench ]; then
		res=$(bench_pair "$tcpb" -s -p $port -- \
			perf record $perf_opts -o "$data" -- \
			"$tcpb" -c "$a" -p $port "$@" -t "$secs") || return 1
		res=$(echo "$res" | sed -n 's/.*mibps=\([0-9.]*\).*/\1 MiB\/s/p')
		[ -n "$res" ] || { echo "bench profile: $name printed no figure" >&2; return 1; }
	else
		res=$(bench_pair "$tool" $PERFTEST -D "$secs" -p $port "$@" -- \
			perf record $perf_opts -o "$data" -- \
			"$tool" $PERFTEST -D "$secs" -p $port "$@" "$a") || return 1
		res=$(echo "$res" |
			awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { v = $1 } END { print v }')
		[ -n "$res" ] || { echo "bench profile: $name printed no figure" >&2; return 1; }
		case $tool in
		*_lat) res="$res us" ;;
		*) res="$res MiB/s" ;;
		esac
	fi
	perf script -i "$data" -F comm,pid,ip,sym,dso 2>/dev/null |
		python3 "$pyprof" "$topo: $title: $res" >> "$md" ||
		{ echo "bench profile: no samples for $name" >&2; return 1; }
}

# profile_connect NAME TOPO TRANSPORT: rdma_cm connection setup,
# cm_bench's rounds of 100 connections at once against one cm_bench
# server, for BENCH_PROFILE_SECS; its figure is the median connect step.
# The samples cover every step of a round (address and route resolution,
# QP creation, connect, disconnect, destroy), the inclusive table tells
# them apart. The server serves until it is stopped.
profile_connect() {
	local name=$1 data=/tmp/profile-$1.data a spid i res
	topo=$2
	a=$(addr "$topo" "$3")
	log "$name: $3 rdma_cm connection setup (cm_bench -n 100, repeated)"
	sx timeout 300 "$cmb" -s -a "$a" -p $port > /tmp/bench-cm-srv.log 2>&1 &
	spid=$!
	for ((i = 0; i < 300; i++)); do
		listening && break
		sleep 0.1
	done
	cx perf record $perf_opts -o "$data" -- \
		timeout 200 "$cmb" -c "$a" -p $port -n 100 -t "$secs" \
		> /tmp/profile-$name.out 2>&1
	i=$?
	pkill -x cm_bench
	wait $spid 2>/dev/null
	if [ $i != 0 ]; then
		echo "bench profile: $name: cm_bench failed ($i):" >&2
		tail -20 /tmp/profile-$name.out /tmp/bench-cm-srv.log >&2
		return 1
	fi
	res=$(sed -n 's/.*connect_ms=\([0-9.]*\).*/\1/p' /tmp/profile-$name.out)
	[ -n "$res" ] || { echo "bench profile: $name printed no figure" >&2; return 1; }
	perf script -i "$data" -F comm,pid,ip,sym,dso 2>/dev/null |
		python3 "$pyprof" "$topo: $3 rdma_cm connection setup, 100 at once: connect step $res ms (median)" >> "$md" ||
		{ echo "bench profile: no samples for $name" >&2; return 1; }
}

cat > "$md" <<EOF
Sampled with \`perf record -a -g -e cpu-clock -F 499\` over the client's
run of $secs s (both vCPUs, so 100% is two CPUs busy). perftest
busy-polls its completion queue, so its user-space share is mostly
spinning, not work.

EOF
failed=0
port=18515
if [ "$smoke" = 1 ]; then
	profile write64k veth siw "siw ib_write_bw 64 KiB" ib_write_bw \
		-s 65536 --output=bandwidth || failed=1
else
	profile tcp64k veth tcp "TCP stream, 64 KiB writes" tcp_bench \
		-m stream -l 65536 || failed=1
	profile write64k veth siw "siw ib_write_bw 64 KiB" ib_write_bw \
		-s 65536 --output=bandwidth || failed=1
	profile read64k veth siw "siw ib_read_bw 64 KiB" ib_read_bw \
		-s 65536 --output=bandwidth || failed=1
	profile write4k veth siw "siw ib_write_bw 4 KiB" ib_write_bw \
		-s 4096 --output=bandwidth || failed=1
	profile write64kq8 veth siw "siw ib_write_bw 64 KiB, 8 QPs" ib_write_bw \
		-s 65536 -q 8 --output=bandwidth || failed=1
	profile writelat veth siw "siw ib_write_lat 8 B" ib_write_lat \
		-s 8 --output=latency || failed=1
	profile readlat veth siw "siw ib_read_lat 8 B" ib_read_lat \
		-s 8 --output=latency || failed=1
	profile_connect connect veth siw || failed=1
	port=18516
	profile lo-writelat lo siw "siw ib_write_lat 8 B" ib_write_lat \
		-s 8 --output=latency || failed=1
	profile lo-rxe-writelat lo rxe "rxe ib_write_lat 8 B" ib_write_lat \
		-s 8 --output=latency || failed=1
fi
log "profiles in $md"
[ $failed = 0 ] || die "some cases failed (above)"
