#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench connect): connection setup alone, as perf.sh
# measures it (cm_bench's rdma_cm connect step for BENCH_CONNS connections
# opened at once; tcp_bench's as many TCP connects), but BENCH_REPS times
# (default 7) with the transports' order rotated, so that an A/B of two
# module builds in two boots can compare each boot's siw / TCP. Medians
# go to $SIW_OUT/bench-connect.md.
set -u
reps=${BENCH_REPS:-7}
conns=${BENCH_CONNS:-100}
out=${SIW_OUT:-/tmp}
raw=$out/bench-connect.tsv
bench_name=connect
. "$SIW_DIR/selftests/bench/paths.sh"

: > "$raw"
failed=0
for topo in veth lo; do
	[ $topo = veth ] && port=18515 || port=18516
	transports=(tcp siw)
	# rxe on the veth only where it carries rdma_cm traffic (perf.sh).
	if [ $topo = lo ] || { [ $rxe_veth = 1 ] && rdma_works rxe; }; then
		transports+=(rxe)
	fi
	for ((r = 0; r < reps; r++)); do
		for ((k = 0; k < ${#transports[@]}; k++)); do
			t=${transports[$(((r + k) % ${#transports[@]}))]}
			log "$topo round $((r + 1))/$reps: $t"
			if [ $t = tcp ]; then
				v=$(tcp_connect_rate "$conns")
			else
				v=$(cm_connect_rate "$t" "$conns")
			fi
			if [ -z "$v" ]; then
				failed=1
				continue
			fi
			echo "$topo $t $v" >> "$raw"
		done
	done
done

python3 - "$raw" "$reps" "$conns" > "$out/bench-connect.md" <<'EOF'
import statistics, sys
from collections import defaultdict
raw, reps, conns = sys.argv[1], sys.argv[2], sys.argv[3]
runs = defaultdict(list)
for line in open(raw):
    topo, tr, v = line.split()
    runs[(topo, tr)].append(float(v))
print(f"Connections/s, medians of {reps} runs of {conns} connections "
      "opened at once.\n")
print("| path | siw | rxe | TCP | siw / TCP | siw / rxe |")
print("|---|---|---|---|---|---|")
for topo in ("veth", "lo"):
    m = {tr: statistics.median(runs[(topo, tr)])
         for tr in ("siw", "rxe", "tcp") if runs.get((topo, tr))}
    f = lambda tr: f"{m[tr]:.0f}" if tr in m else "–"
    r = lambda a, b: f"{m[a] / m[b]:.2f}" if a in m and b in m else "–"
    print(f"| {topo} | {f('siw')} | {f('rxe')} | {f('tcp')} "
          f"| {r('siw', 'tcp')} | {r('siw', 'rxe')} |")
EOF
cat "$out/bench-connect.md"
[ $failed = 0 ] || die "some runs failed"
