#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# In the guest (run.sh bench ab, from selftests/bench-ab.sh): two builds of
# siw.ko, $SIW_DIR/build/ab/siw-base.ko and siw-new.ko, loaded in turn in
# one boot (REPS rounds, their order rotated), each running the same
# perftest cases on both paths of paths.sh. Every run goes to
# $SIW_OUT/bench-ab.tsv, the report with each case's verdict
# (ab_report.py) to bench-ab.md.
#
# BENCH_REPS (default 7: ab_report.py calls a change from 6 rounds on);
# BENCH_AB_MIB: MiB a bandwidth run moves (default 32, at most 8000
# messages); BENCH_AB_LAT: latency iterations (default 2000).
set -u
reps=${BENCH_REPS:-7}
mib=${BENCH_AB_MIB:-32}
lat_iters=${BENCH_AB_LAT:-2000}
out=${SIW_OUT:-/tmp}
raw=$out/bench-ab.tsv
bench_name=ab
ab=$SIW_DIR/build/ab
for b in base new; do
	[ -r "$ab/siw-$b.ko" ] || { echo "bench ab: $ab/siw-$b.ko missing (run selftests/bench-ab.sh)" >&2; exit 1; }
done
. "$SIW_DIR/selftests/bench/paths.sh"

# load BUILD: siw's links down, BUILD's module in, the links back.
load() {
	ip netns exec $NS1 rdma link delete bsiw_a 2>/dev/null
	ip netns exec $NS2 rdma link delete bsiw_b 2>/dev/null
	rdma link delete bsiw 2>/dev/null
	rmmod siw || die "rmmod siw"
	insmod "$ab/siw-$1.ko" || die "insmod siw-$1.ko"
	ip netns exec $NS1 rdma link add bsiw_a type siw netdev bveth-a &&
		ip netns exec $NS2 rdma link add bsiw_b type siw netdev bveth-b &&
		rdma link add bsiw type siw netdev bsiw0 || die "siw links with siw-$1.ko"
}

# bw TOOL SIZE [ARG...]: one bandwidth run; prints MiB/s. A run that ends
# well without a positive figure is shown and run once more.
bw() {
	local tool=$1 size=$2 n out v a attempt
	shift 2
	a=$(addr "$topo" siw)
	n=$((mib * 1048576 / size))
	[ $n -le 8000 ] || n=8000
	for attempt in 1 2; do
		out=$(bench_pair "$tool" $PERFTEST -s "$size" -n $n -p $port "$@" --output=bandwidth -- \
			"$tool" $PERFTEST -s "$size" -n $n -p $port "$@" --output=bandwidth "$a") || return 1
		v=$(echo "$out" | awk 'NF == 1 && $1 ~ /^[0-9.]+$/ && $1 > 0 { v = $1 } END { print v }')
		[ -z "$v" ] || break
		echo "bench ab: $tool -s $size $*: attempt $attempt printed no positive bandwidth:" >&2
		echo "$out" >&2
	done
	echo "$v"
}

# lat TOOL: one 8-byte latency run; prints microseconds.
lat() {
	local v a
	a=$(addr "$topo" siw)
	v=$(bench_pair "$1" $PERFTEST -s 8 -n "$lat_iters" -p $port --output=latency -- \
		"$1" $PERFTEST -s 8 -n "$lat_iters" -p $port --output=latency "$a") || return 1
	echo "$v" | awk 'NF == 1 && $1 ~ /^[0-9.]+$/ { v = $1 } END { print v }'
}

# NAME UNIT COMMAND...: the cases, in the order of the report.
cases=(
	"read-4k MiB/s bw ib_read_bw 4096"
	"read-64k MiB/s bw ib_read_bw 65536"
	"read-4k-bidir MiB/s bw ib_read_bw 4096 -b"
	"write-64k MiB/s bw ib_write_bw 65536"
	"send-4k MiB/s bw ib_send_bw 4096"
	"read-lat us lat ib_read_lat"
	"write-lat us lat ib_write_lat"
)
: > "$raw"
failed=0
builds=(base new)
for ((r = 0; r < reps; r++)); do
	for ((k = 0; k < 2; k++)); do
		b=${builds[$(((r + k) % 2))]}
		load "$b"
		for topo in veth lo; do
			[ $topo = veth ] && port=18515 || port=18516
			log "round $((r + 1))/$reps: siw-$b.ko on $topo"
			for c in "${cases[@]}"; do
				set -- $c
				name=$1 unit=$2
				shift 2
				v=$("$@")
				if [ -z "$v" ]; then
					echo "bench ab: $name on $topo with siw-$b.ko gave no figure" >&2
					failed=1
					continue
				fi
				echo "$topo $((r + 1)) $b $name $unit $v" >> "$raw"
			done
		done
	done
done
load new

names=$(for c in "${cases[@]}"; do echo "${c%% *}"; done)
python3 "$SIW_DIR/selftests/bench/ab_report.py" "$raw" \
	"$(cat "$ab/base-rev" 2>/dev/null)" $names > "$out/bench-ab.md"
[ $failed = 0 ] || die "some runs gave no figure (above)"
