#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench scale): many RC QPs connected at once, on the
# veth between two namespaces (paths.sh), for siw, rdma_rxe and, when
# SIW_UPSTREAM names a directory with upstream siw's siw.ko built for this
# kernel (bench-vm.sh builds it), upstream siw, loaded in this siw's
# place after the others ran and this siw loaded again at the end; all
# in one boot. For each count N of BENCH_SCALE_COUNTS (default "1000 2000 5000
# 10000"), userspace/qp_scale connects N QPs (the server's N more), sends
# a 64-byte message each way on each and checks it, holds them all while
# the guest's memory is read, then disconnects them all: setup, exchange
# and teardown times, and what the 2N QPs hold: slab, vmalloc, the
# memory no longer available, TCP sockets (siw's are kernel sockets).
# N runs from small to large for each transport in turn.
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

. "$SIW_DIR/selftests/lib/memsample.sh"
# Bytes in each slab cache (active objects times object size).
slab_bytes() { awk 'NR > 2 { print $1, $2 * $4 }' /proc/slabinfo; }

# run TRANSPORT N: one pass; appends a raw line, or fails with the logs.
run() {
	local a i spid cpid rc src line before during
	a=$(addr "$topo" "$1")
	rm -f "$hold"
	# The neighbour first: rdma_cm's address resolution does not see a
	# fresh ARP entry until its timeout (qp_scale's 5 s), which would
	# land in the first run's setup time.
	cx ping -c1 -W2 "$a" > /dev/null
	sync; echo 3 > /proc/sys/vm/drop_caches
	before=$(mem_sample $NS1 $NS2)
	slab_bytes > /tmp/scale-slab.before
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
	during=$(mem_sample $NS1 $NS2)
	slab_bytes > /tmp/scale-slab.during
	rm -f "$hold"
	wait $cpid
	rc=$?
	# A client that failed leaves a server waiting for its connections.
	[ $rc = 0 ] || kill $spid 2>/dev/null
	wait $spid
	src=$?
	line=$(grep '^conns=' /tmp/scale-cli.log)
	if [ $rc != 0 ] || [ $src != 0 ] || [ -z "$line" ]; then
		echo "bench scale: $1 with $2 QPs failed (client $rc, server $src):" >&2
		cat /tmp/scale-cli.log /tmp/scale-srv.log >&2
		# The table says so, with the client's first complaint.
		echo "$1 $2 failed: $(grep -m1 'qp_scale:' /tmp/scale-cli.log)" >> "$fails"
		return 1
	fi
	# The slab figure's difference, not the figure: what the QPs hold.
	echo "$1 $2 $(echo "$line" | sed 's/[a-z_]*=//g; s/^[0-9]* //') $(mem_delta "$before" "$during")" >> "$raw"
	log "$1 $2 QPs: $line"
	# The caches that grew most, per QP (2N of them).
	awk -v t="$1" -v n="$2" 'NR == FNR { b[$1] = $2; next }
		{ d = ($2 - b[$1]) / (2 * n) / 1024; if (d >= 0.5) printf "%s %s %s %.1f\n", t, n, $1, d }' \
		/tmp/scale-slab.before /tmp/scale-slab.during | sort -k4 -rn | head -8 >> "$slabs"
}

fails=$out/bench-scale.failed slabs=$out/bench-scale.slabs
: > "$raw"
: > "$fails"
: > "$slabs"
failed=0
transports=(siw)
if [ "$rxe_veth" = 1 ] && rdma_works rxe; then
	transports+=(rxe)
else
	log "rdma_rxe carries no rdma_cm traffic on the veth here: siw alone"
fi
for t in "${transports[@]}"; do
	for n in $counts; do
		log "$t: $n QPs"
		run "$t" "$n" || failed=1
	done
done

# siw_links add|delete: the siw devices of paths.sh, whichever siw.ko.
siw_links() {
	if [ "$1" = add ]; then
		ip netns exec $NS1 rdma link add bsiw_a type siw netdev bveth-a &&
			ip netns exec $NS2 rdma link add bsiw_b type siw netdev bveth-b &&
			rdma link add bsiw type siw netdev bsiw0
	else
		rdma link delete bsiw_a && rdma link delete bsiw_b &&
			rdma link delete bsiw
	fi
}
. "$SIW_DIR/selftests/lib/upstream.sh"
up=${SIW_UPSTREAM:-}
if [ -z "$up" ]; then
	log "no upstream siw given (SIW_UPSTREAM): siw and rxe only"
elif ! modinfo -F vermagic "$up/siw.ko" 2>/dev/null | grep -q "^$(uname -r) "; then
	log "upstream siw at $up/siw.ko is not built for $(uname -r)"
	failed=1
elif siw_links delete && rmmod siw && upstream_load "$up/siw.ko" &&
	siw_links add; then
	# Upstream siw's failures are figures (the table shows them), not
	# the benchmark's: the first one ends its series.
	for n in $counts; do
		log "upstream siw: $n QPs"
		run upstream "$n" || break
	done
	siw_links delete && rmmod siw && modprobe siw && siw_links add ||
		die "this siw could not be loaded again after upstream siw"
else
	log "upstream siw could not take this siw's place (above)"
	failed=1
fi

python3 - "$raw" "$fails" "$slabs" > "$out/bench-scale.md" <<'EOF'
import sys
rows = [line.split() for line in open(sys.argv[1]) if line.strip()]
fails = [line.strip().split(None, 2) for line in open(sys.argv[2]) if line.strip()]
print("QPs connected at once over the veth between two namespaces "
      "(userspace/qp_scale: a 64-byte message each way on each, checked). "
      "N connections are 2N QPs; memory per QP is what the guest lost "
      "while all were held, over 2N. Setup and teardown per connection "
      "against the smallest N's: near 1.00 when they grow linearly.\n")
print("| transport | N | setup ms | setup / N vs smallest | exchange ms "
      "| teardown ms | teardown / N vs smallest | slab KiB / QP "
      "| vmalloc KiB / QP | used KiB / QP | TCP sockets |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
first = {}
for tr, n, setup, exch, tear, slab, vm, used, socks in rows:
    n = int(n)
    per = (float(setup) / n, max(float(tear), 1.0) / n)
    base = first.setdefault(tr, per)
    q = 2 * n
    print(f"| {tr} | {n} | {float(setup):.0f} | {per[0] / base[0]:.2f} "
          f"| {float(exch):.0f} | {float(tear):.0f} | {per[1] / base[1]:.2f} "
          f"| {int(slab) / q:.1f} | {int(vm) / q:.1f} | {int(used) / q:.1f} "
          f"| {socks} |")
for tr, n, why in fails:
    print(f"| {tr} | {n} | {why} |||||||||")
# The slab caches that grew most, at each transport's largest N.
slabs = [line.split() for line in open(sys.argv[3]) if line.strip()]
top = {}
for tr, n, cache, kib in slabs:
    top.setdefault(tr, {}).setdefault(int(n), []).append((cache, kib))
if top:
    print("\nSlab caches that grew most, KiB per QP, at each transport's "
          "largest N (/proc/slabinfo, active objects times object size):\n")
    print("| transport | N | caches |\n|---|---|---|")
    for tr, by_n in top.items():
        n = max(by_n)
        print(f"| {tr} | {n} | "
              + ", ".join(f"{c} {k}" for c, k in by_n[n]) + " |")
EOF
cat "$out/bench-scale.md"
[ $failed = 0 ] || die "some runs failed (above)"
