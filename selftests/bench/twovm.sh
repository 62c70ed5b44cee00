#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In each guest of the two-VM topology (run.sh twovm twovm; SIW_VM is 1
# or 2): siw against raw TCP between two guests joined by QEMU stream
# networking over a Unix socket on the host (virtio-net, MTU 1500):
#
#   guest 1 eth0 192.0.2.11/24 (servers) ---- guest 2 eth0 192.0.2.12/24 (clients)
#
# Figures, each BENCH_REPS (5) times with the transports' order rotated:
# TCP stream with 4 KiB and 64 KiB writes and 8-byte request/response
# latency (userspace/tcp_bench); siw Write, Read and Send at 4 KiB and
# 64 KiB and Write and Read latency at 8 B (perftest over rdma_cm, -R);
# siw's Write and Send at 64 KiB again with zero-copy transmit on.
# Then, once, BENCH_TWOVM_SCALE (1000) connections at once
# (userspace/qp_scale, a 64-byte message each way on each, checked):
# setup, exchange and teardown times, and what the N QPs hold in each
# guest while all are connected.
# The guests meet at barriers, files in the output share both mount.
# Guest 2 writes the raw lines to bench-twovm.tsv and the medians, with
# siw's ratios to TCP and the two-VM target, to bench-twovm.md.
set -u
reps=${BENCH_REPS:-5}
secs=${BENCH_SECS:-3}
mib_per_sec=${BENCH_MIB:-16}
me=$SIW_VM
peer=$((3 - me))
share=$SIW_SHARE
out=$SIW_OUT
tsv=$out/bench-twovm.tsv
md=$out/bench-twovm.md
. "$SIW_DIR/selftests/lib/perftest.sh"
. "$SIW_DIR/selftests/lib/memsample.sh"
tcpb=$SIW_DIR/userspace/tcp_bench
srv=192.0.2.11
port=18515

die() { echo "bench twovm: $*" >&2; exit 1; }
log() { echo "bench twovm: $*" > /dev/console; echo "# $*"; }

# barrier NAME [SECS]: both guests reached NAME.
barrier() {
	local i
	touch "$share/vm$me/barrier-$1"
	for ((i = 0; i < ${2:-300} * 10; i++)); do
		[ -e "$share/vm$peer/barrier-$1" ] && return 0
		sleep 0.1
	done
	die "the other guest did not reach $1"
}

for c in ib_write_bw ib_read_bw ib_send_bw ib_write_lat ib_read_lat ss; do
	command -v "$c" >/dev/null || die "$c is not installed"
done
[ -x "$tcpb" ] || die "$tcpb not built (make -C userspace)"
modprobe virtio_net || die "modprobe virtio_net"
for ((i = 0; i < 100; i++)); do [ -e /sys/class/net/eth0 ] && break; sleep 0.1; done
ip addr add "192.0.2.1$me/24" dev eth0 && ip link set eth0 up || die "eth0"
for ((i = 0; i < 60; i++)); do ping -c1 -W1 "192.0.2.1$peer" >/dev/null && break; done
ping -c1 -W1 "192.0.2.1$peer" >/dev/null || die "no IPv4 path to the other guest"
modprobe siw && rdma link add bsiw type siw netdev eth0 || die "siw on eth0"
barrier up

# run NAME SERVER_ARGS... -- CLIENT_ARGS...: guest 1 runs the server,
# guest 2 the client once the server listens; guest 2 prints the
# client's output. Fails (in guest 2) when the client fails.
# Runs are numbered in a file: run is called in command substitutions,
# whose variables do not outlive them.
echo 0 > /tmp/twovm-runs
run() {
	local sargs=() cargs=() rc=0 spid i n
	while [ "$1" != -- ]; do sargs+=("$1"); shift; done
	shift
	cargs=("$@")
	n=$(($(cat /tmp/twovm-runs) + 1))
	echo $n > /tmp/twovm-runs
	if [ "$me" = 1 ]; then
		timeout 120 "${sargs[@]}" > /tmp/twovm-srv.log 2>&1 &
		spid=$!
		for ((i = 0; i < 300; i++)); do
			ss -ltnH "sport = :$port" | grep -q . && break
			sleep 0.1
		done
		barrier "ready-$n"
		wait $spid ||
			{ echo "bench twovm: server failed: ${sargs[*]}" >&2; cat /tmp/twovm-srv.log >&2; }
		barrier "done-$n"
	else
		barrier "ready-$n"
		timeout 120 "${cargs[@]}" 2>/tmp/twovm-cli.err
		rc=$?
		[ $rc = 0 ] || { echo "bench twovm: failed ($rc): ${cargs[*]}" >&2; cat /tmp/twovm-cli.err >&2; }
		barrier "done-$n"
	fi
	return $rc
}

record() { # TRANSPORT TEST SIZE VALUE UNIT
	[ "$me" = 2 ] || return 0
	if [ -z "$4" ]; then
		echo "bench twovm: $1 $2 $3 printed no figure" >&2
		failed=1
		return
	fi
	echo "twovm $1 $2 $3 1 $4 $5" >> "$tsv"
}

last_number() { awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { v = $1 } END { print v }'; }

tcp_runs() {
	local sz line
	for sz in 4096 65536; do
		line=$(run "$tcpb" -s -p $port -- \
			"$tcpb" -c $srv -p $port -m stream -l $sz -t "$secs") || failed=1
		record tcp stream $sz "$(echo "$line" | sed -n 's/.*mibps=\([0-9.]*\).*/\1/p')" MiB/s
	done
	line=$(run "$tcpb" -s -p $port -- "$tcpb" -c $srv -p $port -m rr -l 8 -n 2000) ||
		failed=1
	record tcp lat 8 "$(echo "$line" | sed -n 's/.*lat_us=\([0-9.]*\).*/\1/p')" us
}

siw_runs() {
	local tool sz n v
	for tool in ib_write_bw ib_read_bw ib_send_bw; do
		for sz in 4096 65536; do
			n=$((secs * mib_per_sec * 1048576 / sz))
			[ $n -le $((secs * 1000)) ] || n=$((secs * 1000))
			v=$(run $tool $PERFTEST -s $sz -n $n -p $port --output=bandwidth -- \
				$tool $PERFTEST -s $sz -n $n -p $port --output=bandwidth $srv |
				last_number)
			record siw "${tool#ib_}" $sz "$v" MiB/s
		done
	done
	for tool in ib_write_lat ib_read_lat; do
		v=$(run $tool $PERFTEST -s 8 -n 2000 -p $port --output=latency -- \
			$tool $PERFTEST -s 8 -n 2000 -p $port --output=latency $srv | last_number)
		record siw "${tool#ib_}" 8 "$v" us
	done
}

# siw with zero-copy transmit on (tx_zcopy_bytes=65536 in both guests;
# off by default): Write and Send at 64 KiB by reference.
zc_knob=/sys/module/siw/parameters/tx_zcopy_bytes
siw_zc_runs() {
	local tool n v saved
	saved=$(cat $zc_knob)
	echo 65536 > $zc_knob
	for tool in ib_write_bw ib_send_bw; do
		n=$((secs * mib_per_sec * 1048576 / 65536))
		v=$(run $tool $PERFTEST -s 65536 -n $n -p $port --output=bandwidth -- \
			$tool $PERFTEST -s 65536 -n $n -p $port --output=bandwidth $srv |
			last_number)
		record siw-zc "${tool#ib_}" 65536 "$v" MiB/s
	done
	echo "$saved" > $zc_knob
}

# The scale step: guest 1 serves, guest 2 connects N QPs and holds them
# while both guests read their memory. Each guest writes its figures
# (slab, vmalloc, MemTotal less MemAvailable in KiB, TCP sockets, all
# differences from before the step) to its scale-mem file; guest 2 adds
# qp_scale's line and writes the step's table to bench-twovm-scale.md.
scale_step() {
	local n=${BENCH_TWOVM_SCALE:-1000} qps=$SIW_DIR/userspace/qp_scale
	local sport=18517 hold=/tmp/twovm-scale.hold before during spid cpid rc=0 i
	[ -x "$qps" ] || { echo "bench twovm: $qps not built" >&2; return 1; }
	sync; echo 3 > /proc/sys/vm/drop_caches
	before=$(mem_sample)
	if [ "$me" = 1 ]; then
		timeout 900 "$qps" -s -a $srv -p $sport -n "$n" > /tmp/twovm-scale-srv.log 2>&1 &
		spid=$!
		for ((i = 0; i < 300; i++)); do
			ss -ltnH "sport = :$sport" | grep -q . && break
			sleep 0.1
		done
		barrier scale-ready
		barrier scale-held 600
		during=$(mem_sample)
	else
		barrier scale-ready
		rm -f "$hold"
		timeout 900 "$qps" -c $srv -p $sport -n "$n" -w "$hold" > /tmp/twovm-scale-cli.log 2>&1 &
		cpid=$!
		while [ ! -e "$hold" ] && kill -0 $cpid 2>/dev/null; do
			sleep 0.2
		done
		barrier scale-held 600
		during=$(mem_sample)
	fi
	mem_delta "$before" "$during" > "$out/scale-mem"
	barrier scale-sampled 600
	if [ "$me" = 1 ]; then
		wait $spid || { rc=1; echo "bench twovm: qp_scale server failed:" >&2; cat /tmp/twovm-scale-srv.log >&2; }
		barrier scale-done 900
		return $rc
	fi
	rm -f "$hold"
	wait $cpid || rc=1
	barrier scale-done 900
	local line
	line=$(grep '^conns=' /tmp/twovm-scale-cli.log)
	if [ $rc != 0 ] || [ -z "$line" ]; then
		echo "bench twovm: qp_scale with $n connections failed:" >&2
		cat /tmp/twovm-scale-cli.log >&2
		return 1
	fi
	python3 - "$n" "$line" "$share/vm1/scale-mem" "$out/scale-mem" > "$out/bench-twovm-scale.md" <<'EOF'
import sys
n = int(sys.argv[1])
f = dict(kv.split("=") for kv in sys.argv[2].split())
print(f"{n} connections at once between the guests (`userspace/qp_scale`, a "
      f"64-byte message each way on each, checked): setup {float(f['setup_ms']):.0f} ms, "
      f"exchange {float(f['exchange_ms']):.0f} ms, teardown {float(f['teardown_ms']):.0f} ms. "
      f"Per QP, what each guest lost while all were held:\n")
print("| guest | slab KiB / QP | vmalloc KiB / QP | used KiB / QP | TCP sockets |")
print("|---|---|---|---|---|")
for name, path in (("1 (server)", sys.argv[3]), ("2 (client)", sys.argv[4])):
    slab, vm, used, socks = (int(x) for x in open(path).read().split())
    print(f"| {name} | {slab / n:.1f} | {vm / n:.1f} | {used / n:.1f} | {socks} |")
print()
EOF
}

failed=0
[ "$me" = 1 ] || : > "$tsv"
transports=(tcp siw siw_zc)
for ((r = 0; r < reps; r++)); do
	for ((k = 0; k < ${#transports[@]}; k++)); do
		t=${transports[$(((r + k) % ${#transports[@]}))]}
		log "guest $me, round $((r + 1))/$reps: $t"
		${t}_runs
	done
done
log "guest $me: ${BENCH_TWOVM_SCALE:-1000} connections at once"
scale_step || failed=1
barrier finished
rdma link delete bsiw || failed=1
modprobe -r siw || failed=1

if [ "$me" = 2 ]; then
	python3 - "$tsv" "$reps" > "$md" <<'EOF' || failed=1
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows.setdefault((f[1], f[2], f[3]), []).append(float(f[5]))
med = {k: statistics.median(v) for k, v in rows.items()}
print(f"Two guests (2 vCPUs each, QEMU without KVM on one host) joined by "
      f"QEMU stream networking (virtio-net, MTU 1500); guest 2 runs the "
      f"clients. Medians of {sys.argv[2]} runs; bandwidth in MiB/s, "
      f"latency in µs. TCP: `tcp_bench`; siw: perftest over rdma_cm (`-R`). "
      f"rdma_rxe is not measured between the guests.\n")
print("| figure | siw | TCP | siw / TCP |\n|---|---|---|---|")
def fig(name, test, size, tcp_test):
    s = med.get(("siw", test, size))
    t = med.get(("tcp", tcp_test, size))
    r = f"{s / t:.2f}" if s and t else "–"
    fs = f"{s:.1f}" if s else "–"
    ft = f"{t:.1f}" if t else "–"
    print(f"| {name} | {fs} | {ft} | {r} |")
    return s / t if s and t else None
w64 = fig("Write 64 KiB", "write_bw", "65536", "stream")
fig("Read 64 KiB", "read_bw", "65536", "stream")
fig("Send 64 KiB", "send_bw", "65536", "stream")
fig("Write 4 KiB", "write_bw", "4096", "stream")
fig("Read 4 KiB", "read_bw", "4096", "stream")
fig("Send 4 KiB", "send_bw", "4096", "stream")
fig("Write latency 8 B", "write_lat", "8", "lat")
fig("Read latency 8 B", "read_lat", "8", "lat")
def zc(name, test):
    z = med.get(("siw-zc", test, "65536"))
    c = med.get(("siw", test, "65536"))
    if z and c:
        print(f"| {name}: zero-copy / copied ({z:.1f} / {c:.1f}) | | | {z / c:.2f} |")
zc("Write 64 KiB", "write_bw")
zc("Send 64 KiB", "send_bw")
met = "not measured" if w64 is None else ("yes" if w64 >= 0.8 else "no")
print(f"\nTarget: Write 64 KiB ≥ 0.8 × the TCP stream between the guests: "
      f"{'–' if w64 is None else f'{w64:.2f}'}, met: {met}.\n")
EOF
	cat "$out/bench-twovm-scale.md" >> "$md" 2>/dev/null
fi
[ $failed = 0 ] || die "some runs failed (above)"
