#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench scale): many RC QPs connected at once, on the
# veth between two namespaces (paths.sh), for siw and rdma_rxe in one
# boot. For each count N of BENCH_SCALE_COUNTS (default "1000 2000 5000
# 10000"), userspace/qp_scale connects N QPs (the server's N more), sends
# a 64-byte message each way on each and checks it, holds them all while
# the guest's memory is read, then disconnects them all: setup, exchange
# and teardown times, and what the 2N QPs hold: slab, vmalloc, the
# memory no longer available, TCP sockets (siw's are kernel sockets).
# Raw lines go to $SIW_OUT/bench-scale.tsv:
#   transport n setup_ms exchange_ms teardown_ms slab_kb vmalloc_kb used_kb sockets
# and the table to $SIW_OUT/bench-scale.md: per QP (each end counted),
# and the setup time per QP at each N against the smallest N's, which
# stays near 1 when setup grows linearly.
set -u
counts=${BENCH_SCALE_COUNTS:-"1000 2000 5000 10000"}
counts=${counts//,/ }	# the kernel command line carries commas
out=${SIW_OUT:-/tmp}
raw=$out/bench-scale.tsv
bench_name=scale
. "$SIW_DIR/selftests/bench/paths.sh"
qps=$SIW_DIR/userspace/qp_scale
[ -x "$qps" ] || die "$qps not built (make -C userspace)"
topo=veth port=18517
hold=/tmp/qp-scale.hold

kb() { awk -v k="$1:" '$1 == k { print $2 }' /proc/meminfo; }
sockets() { # TCP sockets in use in both namespaces
	local n=0 ns
	for ns in $NS1 $NS2; do
		n=$((n + $(ip netns exec $ns awk '$1 == "TCP:" { print $3 }' /proc/net/sockstat)))
	done
	echo $n
}
sample() { echo "$(kb Slab) $(kb VmallocUsed) $(($(kb MemTotal) - $(kb MemAvailable))) $(sockets)"; }

# run TRANSPORT N: one pass; appends a raw line, or fails with the logs.
run() {
	local a i spid cpid rc src line before during
	a=$(addr "$topo" "$1")
	rm -f "$hold"
	sync; echo 3 > /proc/sys/vm/drop_caches
	before=$(sample)
	sx timeout 1200 "$qps" -s -a "$a" -p $port -n "$2" > /tmp/scale-srv.log 2>&1 &
	spid=$!
	for ((i = 0; i < 300; i++)); do
		listening && break
		sleep 0.1
	done
	cx timeout 1200 "$qps" -c "$a" -p $port -n "$2" -w "$hold" > /tmp/scale-cli.log 2>&1 &
	cpid=$!
	while [ ! -e "$hold" ] && kill -0 $cpid 2>/dev/null; do
		sleep 0.2
	done
	during=$(sample)
	rm -f "$hold"
	wait $cpid
	rc=$?
	wait $spid
	src=$?
	line=$(grep '^conns=' /tmp/scale-cli.log)
	if [ $rc != 0 ] || [ $src != 0 ] || [ -z "$line" ]; then
		echo "bench scale: $1 with $2 QPs failed (client $rc, server $src):" >&2
		cat /tmp/scale-cli.log /tmp/scale-srv.log >&2
		return 1
	fi
	# The slab figure's difference, not the figure: what the QPs hold.
	echo "$1 $2 $(echo "$line" | sed 's/[a-z_]*=//g; s/^[0-9]* //') $(
		paste -d' ' <(echo "$during" | tr ' ' '\n') <(echo "$before" | tr ' ' '\n') |
		awk '{ printf "%d ", $1 - $2 }')" >> "$raw"
	log "$1 $2 QPs: $line"
}

: > "$raw"
failed=0
transports=(siw)
if [ "$rxe_veth" = 1 ] && rdma_works rxe; then
	transports+=(rxe)
else
	log "rdma_rxe carries no rdma_cm traffic on the veth here: siw alone"
fi
for n in $counts; do
	for t in "${transports[@]}"; do
		log "$t: $n QPs"
		run "$t" "$n" || failed=1
	done
done

python3 - "$raw" > "$out/bench-scale.md" <<'EOF'
import sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
print("QPs connected at once over the veth between two namespaces "
      "(userspace/qp_scale: a 64-byte message each way on each, checked). "
      "N connections are 2N QPs; memory per QP is what the guest lost "
      "while all were held, over 2N. Setup per QP against the smallest "
      "N's: near 1.00 when setup grows linearly.\n")
print("| transport | N | setup ms | setup / QP vs smallest | exchange ms "
      "| teardown ms | slab KiB / QP | vmalloc KiB / QP | used KiB / QP "
      "| TCP sockets |")
print("|---|---|---|---|---|---|---|---|---|---|")
first = {}
for tr, n, setup, exch, tear, slab, vm, used, socks in rows:
    n = int(n)
    per = float(setup) / n
    first.setdefault(tr, per)
    q = 2 * n
    print(f"| {tr} | {n} | {float(setup):.0f} | {per / first[tr]:.2f} "
          f"| {float(exch):.0f} | {float(tear):.0f} | {int(slab) / q:.1f} "
          f"| {int(vm) / q:.1f} | {int(used) / q:.1f} | {socks} |")
EOF
cat "$out/bench-scale.md"
[ $failed = 0 ] || die "some runs failed (above)"
