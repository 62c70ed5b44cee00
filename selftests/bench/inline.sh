#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench inline): where transmitting in the user's
# doorbell stops paying. siw's ib_write_bw over rdma_cm at message sizes
# from 2 KiB to 64 KiB, with one QP and with 8 (one perftest thread), each
# with every message transmitted inline in the doorbell
# (tx_inline_bytes=1048576) and with every
# message left to the transmit worker (tx_inline_bytes=0), REPS times with
# the two modes' order rotated, on both paths of paths.sh. Medians, and
# inline / worker, go to $SIW_OUT/bench-inline.md; the default of
# tx_inline_bytes should sit at the largest size where inline still wins.
#
# BENCH_REPS (default 3); BENCH_MIB: MiB a run moves (default 48, at
# most 16000 messages): perf.sh's short runs of small messages are too
# noisy to find a crossover.
set -u
reps=${BENCH_REPS:-3}
mib=${BENCH_MIB:-48}
out=${SIW_OUT:-/tmp}
raw=$out/bench-inline.tsv
bench_name=inline
. "$SIW_DIR/selftests/bench/paths.sh"

knob=/sys/module/siw/parameters/tx_inline_bytes
[ -w $knob ] || die "$knob missing"
saved=$(cat $knob)
sizes=(2048 4096 8192 16384 32768 65536)

# bw SIZE QPS: one ib_write_bw run of BENCH_MIB MiB; prints MiB/s.
bw() {
	local n v
	n=$((mib * 1048576 / $1))
	[ $n -le 16000 ] || n=16000
	n=$(perftest_iters $n "$2")
	v=$(bench_pair ib_write_bw -R -F -s "$1" -q "$2" -n $n -p $port --output=bandwidth -- \
		ib_write_bw -R -F -s "$1" -q "$2" -n $n -p $port --output=bandwidth "$(addr "$topo" siw)") ||
		return 1
	echo "$v" | awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { v = $1 } END { print v }'
}

: > "$raw"
failed=0
modes=(inline worker)
for topo in veth lo; do
	[ $topo = veth ] && port=18515 || port=18516
	for ((r = 0; r < reps; r++)); do
		for ((k = 0; k < 2; k++)); do
			mode=${modes[$(((r + k) % 2))]}
			[ $mode = inline ] && echo 1048576 > $knob || echo 0 > $knob
			log "$topo round $((r + 1))/$reps: $mode"
			for qps in 1 8; do
				for sz in "${sizes[@]}"; do
					v=$(bw "$sz" $qps)
					if [ -z "$v" ]; then
						failed=1
						continue
					fi
					echo "$topo $mode $sz $qps $v" >> "$raw"
				done
			done
		done
	done
done
echo "$saved" > $knob

python3 - "$raw" "$reps" > "$out/bench-inline.md" <<'EOF'
import statistics, sys
from collections import defaultdict
raw, reps = sys.argv[1], sys.argv[2]
runs = defaultdict(list)
for line in open(raw):
    topo, mode, size, qps, v = line.split()
    runs[(topo, mode, int(size), int(qps))].append(float(v))
print(f"siw ib_write_bw, MiB/s, medians of {reps} runs: every message "
      "transmitted in the doorbell (inline) or by the worker.\n")
for topo in ("veth", "lo"):
    print(f"### {topo}\n")
    print("| size | QPs | inline | worker | inline / worker |")
    print("|---|---|---|---|---|")
    for qps in (1, 8):
        for size in sorted({k[2] for k in runs if k[0] == topo}):
            a = runs.get((topo, "inline", size, qps))
            b = runs.get((topo, "worker", size, qps))
            if not a or not b:
                continue
            ma, mb = statistics.median(a), statistics.median(b)
            print(f"| {size // 1024} KiB | {qps} | {ma:.1f} | {mb:.1f} "
                  f"| {ma / mb:.2f} |")
    print()
EOF
cat "$out/bench-inline.md"
[ $failed = 0 ] || die "some runs failed"
