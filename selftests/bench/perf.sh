#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench perf): siw against raw TCP and rdma_rxe, all
# in one boot, on the two paths of paths.sh (veth between namespaces, MTU
# 1500; loopback on dummy netdevs).
#
# Figures: TCP stream bandwidth with 4 KiB..1 MiB writes, 8-byte
# request/response latency and connect rate (userspace/tcp_bench); for siw
# and rxe, perftest over rdma_cm (-R): ib_{write,read,send}_bw at 4 KiB,
# 64 KiB and 1 MiB, ib_write_bw with 8 QPs at 4 and 64 KiB and 64 QPs
# at 64 KiB,
# ib_{write,send,read}_lat at 8 B, the same with completions as events
# (-e: ib_send_lat, ib_{write,read}_bw at 4 and 64 KiB; recorded as
# TEST_ev), and the rdma_cm connect rate (cm_bench).
# Each runs REPS times, the transports' order rotated. Every bandwidth run
# also records the guest's kernel CPU time (system, irq, softirq on all
# vCPUs: perftest busy-polls its CQ in user space, so user time says
# nothing), and a near-empty perftest run ("setup") records what start-up
# and connection cost, for report.py to take off; for Write at 4 and
# 64 KiB and Read at 64 KiB, a run in duration mode measures the kernel
# CPU of the steady state alone (perftest_cpu), which the report prefers.
# Raw lines go to $SIW_OUT/bench-perf.tsv:
#   topo transport test size qps value unit kernel_cpu_s bytes
# selftests/bench/report.py turns them into the report.
#
# BENCH_REPS (default 5), BENCH_SECS and BENCH_MIB (a bandwidth run moves
# SECS x MIB MiB; default 3 x 16), BENCH_CPU_SECS (the steady-state CPU
# runs' length, default 7), BENCH_CPU_REPS (in how many rounds, default
# 3), BENCH_SMOKE=1 (64 KiB only: for make check).
set -u
reps=${BENCH_REPS:-5}
secs=${BENCH_SECS:-3}
mib_per_sec=${BENCH_MIB:-16}
smoke=${BENCH_SMOKE:-0}
out=${SIW_OUT:-/tmp}
tsv=$out/bench-perf.tsv
bench_name=perf
. "$SIW_DIR/selftests/bench/paths.sh"

# kernel_ticks: system + irq + softirq time of all CPUs, in USER_HZ ticks.
kernel_ticks() { awk '/^cpu /{ print $4 + $7 + $8 }' /proc/stat; }
hz=$(getconf CLK_TCK)

record() { # TEST SIZE QPS VALUE UNIT CPU_TICKS BYTES
	echo "$topo $t $1 $2 $3 $4 $5 $(awk "BEGIN{print $6 / $hz}") $7" >> "$tsv"
}

tcp_runs() {
	local a sz v line t0 t1
	a=$(addr "$topo" tcp)
	for sz in "${bw_sizes[@]}"; do
		t0=$(kernel_ticks)
		line=$(bench_pair "$tcpb" -s -p $port -- \
			"$tcpb" -c "$a" -p $port -m stream -l "$sz" -t "$secs") || return 1
		t1=$(kernel_ticks)
		v=$(echo "$line" | sed -n 's/.*mibps=\([0-9.]*\).*/\1/p')
		record stream "$sz" 1 "$v" MiB/s $((t1 - t0)) \
			"$(echo "$line" | sed -n 's/.*bytes=\([0-9]*\).*/\1/p')"
	done
	if cpu_round; then
		tcp_cpu 4096 || return 1
		tcp_cpu 65536 || return 1
	fi
	line=$(bench_pair "$tcpb" -s -p $port -- \
		"$tcpb" -c "$a" -p $port -m rr -l 8 -n "$lat_iters") || return 1
	record lat 8 1 "$(echo "$line" | sed -n 's/.*lat_us=\([0-9.]*\).*/\1/p')" us 0 0
	record rtt 8 1 "$(echo "$line" | sed -n 's/.*rtt_us=\([0-9.]*\).*/\1/p')" us 0 0
	v=$(tcp_connect_rate "$conns") || return 1
	record connect 0 1 "$v" conn/s 0 0
}

# perftest_bw TOOL SIZE QPS [ev]: a run of BENCH_SECS x BENCH_MIB MiB, but at
# most 1000 x BENCH_SECS messages (small ones are slow under emulation),
# in perftest's iteration mode; its duration mode (-D) miscounts with
# several QPs over rxe.
perftest_bw() {
	local a v t0 t1 n ev= name=${1#ib_}
	# ev: completions as events (perftest -e), as kernel ULPs take them.
	[ "${4:-}" = ev ] && ev=-e name=${1#ib_}_ev
	a=$(addr "$topo" "$t")
	n=$((secs * mib_per_sec * 1048576 / $2))
	[ $n -le $((secs * 1000)) ] || n=$((secs * 1000))
	n=$(perftest_iters $n "$3")
	local out attempt
	# A run that ends well but prints no positive bandwidth is run once
	# more, with what it printed shown (perftest's own arithmetic, not
	# siw's transfer, is then in doubt: its data is not checked here).
	for attempt in 1 2; do
		t0=$(kernel_ticks)
		out=$(bench_pair "$1" $PERFTEST $ev -s "$2" -q "$3" -n $n -p $port --output=bandwidth -- \
			"$1" $PERFTEST $ev -s "$2" -q "$3" -n $n -p $port --output=bandwidth "$a") ||
			return 1
		t1=$(kernel_ticks)
		v=$(echo "$out" | awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { v = $1 } END { print v }')
		awk "BEGIN { exit !(${v:-0} + 0 > 0) }" && break
		echo "bench perf: $1 $ev -s $2 -q $3 -n $n: attempt $attempt failed (no positive bandwidth):" >&2
		echo "$out" >&2
		v=
	done
	[ -n "$v" ] || { echo "bench perf: $1 printed no bandwidth" >&2; return 1; }
	record "$name" "$2" "$3" "$v" MiB/s $((t1 - t0)) $((n * $2 * $3))
}

# perftest_setup: the kernel CPU of a perftest run that moves almost
# nothing (5 Writes of 8 bytes): two processes starting, opening the
# device, registering memory, connecting and tearing down. report.py
# takes it off each bandwidth run's CPU time, which would otherwise be
# mostly this under emulation.
perftest_setup() {
	local a t0 t1
	a=$(addr "$topo" "$t")
	t0=$(kernel_ticks)
	bench_pair ib_write_bw $PERFTEST -s 8 -n 5 -p $port --output=bandwidth -- \
		ib_write_bw $PERFTEST -s 8 -n 5 -p $port --output=bandwidth "$a" \
		>/dev/null || return 1
	t1=$(kernel_ticks)
	record setup 0 1 1 run $((t1 - t0)) 0
}

perftest_lat() { # TOOL [ev]
	local a v ev= name=${1#ib_}
	[ "${2:-}" = ev ] && ev=-e name=${1#ib_}_ev
	a=$(addr "$topo" "$t")
	v=$(bench_pair "$1" $PERFTEST $ev -s 8 -n "$lat_iters" -p $port --output=latency -- \
		"$1" $PERFTEST $ev -s 8 -n "$lat_iters" -p $port --output=latency "$a") ||
		return 1
	v=$(echo "$v" | awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { v = $1 } END { print v }')
	[ -n "$v" ] || { echo "bench perf: $1 $ev printed no latency" >&2; return 1; }
	record "$name" 8 1 "$v" us 0 0
}

# Kernel CPU per byte in the steady state. A short run's kernel time is
# mostly start-up, connection and the harness's own processes
# (perftest_setup costs 0.3-3.6 s here, as much as a whole 48 MiB run),
# so these runs last BENCH_CPU_SECS (default 7) and /proc/stat is sampled
# from 3 s after the client starts to 1 s before its end: perftest's
# margins (2 s) keep that window inside its measured period. Recorded as
# test cpu_<test>: the bandwidth, the window's ticks, and the bytes that
# bandwidth moves in the window.
cpu_secs=${BENCH_CPU_SECS:-7}
[ "$cpu_secs" -ge 6 ] || die "BENCH_CPU_SECS must be at least 6"
# In the first BENCH_CPU_REPS rounds only (default 3), not in the smoke pass.
cpu_reps=${BENCH_CPU_REPS:-3}
cpu_round() { [ "$smoke" != 1 ] && [ "$r" -lt "$cpu_reps" ]; }

# cpu_window TEST SIZE COMMAND...: runs COMMAND (a bench_pair call
# printing the MiB/s on its last numeric line or as mibps=) while sampling.
cpu_window() {
	local test=$1 size=$2 out v s0 s1 win=$((cpu_secs - 4)) sampler rc
	shift 2
	( sleep 3; kernel_ticks; sleep $win; kernel_ticks ) > /tmp/bench-cpu.ticks &
	sampler=$!
	out=$("$@")
	rc=$?
	wait $sampler
	[ $rc = 0 ] || return 1
	v=$(echo "$out" | sed -n 's/.*mibps=\([0-9.]*\).*/\1/p')
	[ -n "$v" ] ||
		v=$(echo "$out" | awk 'NF == 1 && $1 ~ /^[0-9.]+$/ && $1 > 0 { v = $1 } END { print v }')
	[ -n "$v" ] || { echo "bench perf: cpu_$test $size printed no bandwidth:" >&2; echo "$out" >&2; return 1; }
	s0=$(sed -n 1p /tmp/bench-cpu.ticks) s1=$(sed -n 2p /tmp/bench-cpu.ticks)
	[ -n "$s1" ] || { echo "bench perf: no CPU sample for cpu_$test $size" >&2; return 1; }
	record "cpu_$test" "$size" 1 "$v" MiB/s $((s1 - s0)) \
		"$(awk "BEGIN { printf \"%d\", $v * $win * 1048576 }")"
}

perftest_cpu() { # TOOL SIZE: perftest in its duration mode
	local a
	a=$(addr "$topo" "$t")
	cpu_window "${1#ib_}" "$2" bench_pair \
		"$1" $PERFTEST -s "$2" -D "$cpu_secs" -p $port --output=bandwidth -- \
		"$1" $PERFTEST -s "$2" -D "$cpu_secs" -p $port --output=bandwidth "$a"
}

tcp_cpu() { # SIZE: a TCP stream of that many seconds
	local a
	a=$(addr "$topo" tcp)
	cpu_window stream "$1" bench_pair "$tcpb" -s -p $port -- \
		"$tcpb" -c "$a" -p $port -m stream -l "$1" -t "$cpu_secs"
}

# cm_bench: the rdma_cm connect step for $conns connections (paths.sh).
cm_rate() {
	local v
	v=$(cm_connect_rate "$t" "$conns") || return 1
	record connect 0 1 "$v" conn/s 0 0
}

# siw with its transmit left to the worker: Write at 4 KiB (which the
# doorbell sends itself by default) with 1 and 8 QPs, and Write latency;
# selftests/bench/inline.sh sweeps the sizes between.
inline_knob=/sys/module/siw/parameters/tx_inline_bytes
worker_runs() {
	local saved rc=0
	saved=$(cat $inline_knob)
	echo 0 > $inline_knob
	if [ "$smoke" = 1 ]; then
		perftest_bw ib_write_bw 65536 1 || rc=1
	else
		perftest_setup || rc=1
		perftest_bw ib_write_bw 4096 1 || rc=1
		perftest_bw ib_write_bw 4096 8 || rc=1
		perftest_lat ib_write_lat || rc=1
	fi
	echo "$saved" > $inline_knob
	return $rc
}

# siw on the veth with GSO-sized FPDUs off (mpa/gso=0 on both devices:
# one FPDU per TCP segment, as toward a hardware RNIC): the bandwidths at
# 64 KiB and 1 MiB, beside siw at its defaults (GSO-sized FPDUs), to show
# what the large FPDUs give.
gso_knobs="/sys/class/infiniband/bsiw_a/mpa/gso /sys/class/infiniband/bsiw_b/mpa/gso"
mss_runs() {
	local k rc=0 tool saved
	saved=$(cat /sys/class/infiniband/bsiw_a/mpa/gso)
	for k in $gso_knobs; do echo 0 > "$k"; done
	for tool in ib_write_bw ib_read_bw ib_send_bw; do
		perftest_bw $tool 65536 1 || rc=1
	done
	[ "$smoke" = 1 ] || perftest_bw ib_write_bw 1048576 1 || rc=1
	for k in $gso_knobs; do echo "$saved" > "$k"; done
	return $rc
}

# siw with zero-copy transmit on from 64 KiB (tx_zcopy_bytes=65536; off
# by default): those sizes by reference, beside siw copying them.
zc_knob=/sys/module/siw/parameters/tx_zcopy_bytes
zc_runs() {
	local saved rc=0 tool
	saved=$(cat $zc_knob)
	echo 65536 > $zc_knob
	for tool in ib_write_bw ib_send_bw; do
		perftest_bw $tool 65536 1 || rc=1
	done
	perftest_bw ib_write_bw 1048576 1 || rc=1
	perftest_bw ib_write_bw 65536 8 || rc=1
	echo "$saved" > $zc_knob
	return $rc
}

# Every figure of one RDMA transport; a failed one does not stop the rest.
rdma_runs() {
	local tool sz rc=0
	perftest_setup || rc=1
	for tool in ib_write_bw ib_read_bw ib_send_bw; do
		for sz in "${bw_sizes[@]}"; do
			perftest_bw $tool "$sz" 1 || rc=1
		done
		# 8 QPs: Write only, at 4 KiB (inline in the doorbell) and
		# 64 KiB (the worker's); 64 QPs at 64 KiB, against one.
		[ $tool = ib_write_bw ] || continue
		[ "$smoke" = 1 ] || perftest_bw $tool 4096 8 || rc=1
		perftest_bw $tool 65536 8 || rc=1
		[ "$smoke" = 1 ] || perftest_bw $tool 65536 64 || rc=1
	done
	for tool in ib_write_lat ib_send_lat ib_read_lat; do
		perftest_lat $tool || rc=1
	done
	# Completions as events (perftest -e: the CQ armed, the process
	# sleeping in ibv_get_cq_event), as kernel ULPs take them: the Send
	# round trip (perftest's Write and Read latency tests take no -e),
	# Write and Read at 4 and 64 KiB. The smoke pass: one of each kind.
	perftest_lat ib_send_lat ev || rc=1
	if [ "$smoke" = 1 ]; then
		perftest_bw ib_read_bw 65536 1 ev || rc=1
	else
		for tool in ib_write_bw ib_read_bw; do
			for sz in 4096 65536; do
				perftest_bw $tool $sz 1 ev || rc=1
			done
		done
	fi
	cm_rate || rc=1
	if cpu_round; then
		perftest_cpu ib_write_bw 4096 || rc=1
		perftest_cpu ib_write_bw 65536 || rc=1
		perftest_cpu ib_read_bw 65536 || rc=1
	fi
	return $rc
}

if [ "$smoke" = 1 ]; then
	bw_sizes=(65536)
	lat_iters=200 conns=10
else
	bw_sizes=(4096 65536 1048576)
	lat_iters=2000 conns=100
fi

: > "$tsv"
failed=0
transports=(tcp siw rxe)
for topo in veth lo; do
	# A port per path: a listener left in one namespace must not make a
	# wildcard listen fail on the other path (rdma_cm listens on every
	# device, in every namespace, and fails if one device cannot).
	[ $topo = veth ] && port=18515 || port=18516
	runnable=(tcp siw)
	if [ $topo = lo ] || { [ $rxe_veth = 1 ] && rdma_works rxe; }; then
		runnable+=(rxe)
	else
		echo "$topo rxe - 0 0 n/a - 0 0" >> "$tsv"
		log "$topo: rdma_rxe carries no rdma_cm traffic here; its figures are missing"
	fi
	# siw-worker: siw with inline transmit off (tx_inline_bytes=0), a few
	# figures, to show what the doorbell's inline transmit gives and costs.
	[ ! -w $inline_knob ] || runnable+=(siw-worker)
	# siw-mss: on the veth only (loopback's MSS is near 64 KiB anyway).
	[ $topo != veth ] || runnable+=(siw-mss)
	# siw-zc: zero-copy transmit on (not in the smoke pass).
	[ "$smoke" = 1 ] || [ ! -w $zc_knob ] || runnable+=(siw-zc)
	for ((r = 0; r < reps; r++)); do
		for ((k = 0; k < ${#runnable[@]}; k++)); do
			t=${runnable[$(((r + k) % ${#runnable[@]}))]}
			log "$topo round $((r + 1))/$reps: $t"
			case $t in
			tcp) tcp_runs || failed=1 ;;
			siw-worker) worker_runs || failed=1 ;;
			siw-mss) mss_runs || failed=1 ;;
			siw-zc) zc_runs || failed=1 ;;
			*) rdma_runs || failed=1 ;;
			esac
		done
	done
done
log "raw figures in $tsv"
[ $failed = 0 ] || die "some runs failed (above)"
