#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 1300
# debug-skip: a benchmark smoke pass; the debug kernel's figures mean nothing
# A short pass of `make bench` (selftests/bench/perf.sh with BENCH_SMOKE=1,
# one run of each figure, one message size), so that the benchmark keeps
# working: every figure it should produce is there and positive, and the
# report and its plot are written. The figures themselves are not judged
# here (a timed test on a noisy machine proves nothing); make bench does.
. "$(dirname "$0")/lib.sh"
# 1, then 13 cases of figures on veth and 20 on loopback, then 11, then
# the scale pass's 4.
plan 55
require python3 gnuplot perf
raw=/tmp/bench-smoke.$$
mkdir -p "$raw"
at_exit 'rm -rf "$raw"'

echo "+ BENCH_SMOKE=1 BENCH_REPS=1 BENCH_SECS=1 selftests/bench/perf.sh"
if BENCH_SMOKE=1 BENCH_REPS=1 BENCH_SECS=1 SIW_OUT=$raw \
	timeout 800 "$SIW_DIR/selftests/bench/perf.sh" > "$raw/perf.log" 2>&1; then
	ok "perf.sh smoke pass runs to the end"
else
	fail "perf.sh smoke pass runs to the end" "$(tail -30 "$raw/perf.log")"
fi
sed 's/^/  | /' "$raw/bench-perf.tsv" 2>/dev/null
# Runs that failed once and were run again (shown, not judged: a second
# failure fails the pass above).
grep -A8 'attempt 1 failed' "$raw/perf.log" 2>/dev/null | sed 's/^/  retried | /'

# has TOPO TRANSPORT TEST SIZE QPS: a positive figure is recorded; if
# not, what was (and the pass's log lines about that tool).
has() {
	awk -v k="$1 $2 $3 $4 $5" '$1" "$2" "$3" "$4" "$5 == k && $6 + 0 > 0 { f = 1 } END { exit !f }' \
		"$raw/bench-perf.tsv" 2>/dev/null && return 0
	echo "no positive figure for \"$*\"; recorded:"
	grep "^$1 $2 $3 $4 $5 " "$raw/bench-perf.tsv" 2>/dev/null || echo "(nothing)"
	grep -n -- "$3" "$raw/perf.log" 2>/dev/null | tail -20
	return 1
}
# The figures of rxe on the veth path, or the marker that it cannot run
# there (6.1's rxe works only in the initial namespace): one case.
figures="write_bw 65536 1/read_bw 65536 1/send_bw 65536 1/write_bw 65536 8/write_lat 8 1/send_lat 8 1/read_lat 8 1/send_lat_ev 8 1/read_bw_ev 65536 1/connect 0 1"
veth_rxe() {
	local f
	if grep -q '^veth rxe - 0 0 n/a' "$raw/bench-perf.tsv"; then
		echo "veth: rxe marked n/a"
		return 0
	fi
	IFS=/ read -ra all <<< "$figures"
	for f in "${all[@]}"; do
		has veth rxe $f || { echo "missing: veth rxe $f"; return 1; }
	done
}
for topo in veth lo; do
	for f in "stream 65536 1" "lat 8 1" "rtt 8 1" "connect 0 1"; do
		check "$topo: TCP $f recorded" has $topo tcp $f
	done
	transports="siw"
	if [ $topo = veth ]; then
		check "veth: rxe's 10 figures recorded, or rxe marked n/a there" veth_rxe
	else
		transports="siw rxe"
	fi
	for t in $transports; do
		IFS=/ read -ra all <<< "$figures"
		for f in "${all[@]}"; do
			check "$topo: $t $f recorded" has $topo $t $f
		done
	done
done

for topo in veth lo; do
	check "$topo: siw with inline transmit off (siw-worker) recorded" \
		has $topo siw-worker write_bw 65536 1
done
check "tx_inline_bytes is back at its default (8192)" \
	sh -c '[ "$(cat /sys/module/siw/parameters/tx_inline_bytes)" = 8192 ]'

check "report.py writes results.md and bandwidth.png" \
	python3 "$SIW_DIR/selftests/bench/report.py" "$raw/report" "$raw" smoke
check "results.md has the targets and the siw / TCP ratios" \
	sh -c "grep -q '^### Targets' '$raw/report/results.md' && grep -q 'siw / TCP' '$raw/report/results.md'"
check "bandwidth.png is a PNG image" \
	sh -c "head -c 8 '$raw/report/bandwidth.png' | od -An -tx1 | grep -q '89 50 4e 47 0d 0a 1a 0a'"
# The profile pass: one case, sampled; its section must show siw at work.
echo "+ BENCH_SMOKE=1 BENCH_PROFILE_SECS=2 selftests/bench/profile.sh"
if BENCH_SMOKE=1 BENCH_PROFILE_SECS=2 SIW_OUT=$raw \
	timeout 200 "$SIW_DIR/selftests/bench/profile.sh" > "$raw/profile.log" 2>&1; then
	ok "profile.sh smoke pass runs to the end"
else
	fail "profile.sh smoke pass runs to the end" "$(tail -30 "$raw/profile.log")"
fi
sed 's/^/  | /' "$raw/bench-profile.md" 2>/dev/null | head -40
# siw_on_stack: the share of samples with siw on the stack is above 0.
siw_on_stack() {
	sed -n 's/.*siw anywhere on the kernel stack: \([0-9.]*\)%.*/\1/p' \
		"$raw/bench-profile.md" | awk '$1 + 0 > 0 { f = 1 } END { exit !f }'
}
check "the profile saw siw's code on the stack while ib_write_bw ran" siw_on_stack
check "the profile charges the copies to siw's transmit or receive" \
	grep -Eq '^\| `siw_(tx|rx)_[a-z_]*` \| data copies' "$raw/bench-profile.md"
check "report.py puts the profile's case in results.md" \
	sh -c "python3 '$SIW_DIR/selftests/bench/report.py' '$raw/report' '$raw' smoke >/dev/null && grep -q '^### veth: siw ib_write_bw 64 KiB: [0-9.]* MiB/s' '$raw/report/results.md'"

# The scale pass at two small counts: QPs connected at once, each
# message checked by qp_scale; upstream siw is not built here.
echo "+ BENCH_SCALE_COUNTS='20 50' selftests/bench/scale.sh"
if BENCH_SCALE_COUNTS="20 50" SIW_OUT=$raw \
	timeout 300 "$SIW_DIR/selftests/bench/scale.sh" > "$raw/scale.log" 2>&1; then
	ok "scale.sh smoke pass (20 and 50 connections) runs to the end"
else
	fail "scale.sh smoke pass (20 and 50 connections) runs to the end" "$(tail -30 "$raw/scale.log")"
fi
sed 's/^/  | /' "$raw/bench-scale.tsv" 2>/dev/null
# scale_row N: siw's raw line for N connections, with a setup time and
# as many TCP sockets as QPs at least (both ends' kernel sockets).
scale_row() {
	awk -v n="$1" '$1 == "siw" && $2 == n && $3 > 0 && $9 >= 2 * n { f = 1 } END { exit !f }' \
		"$raw/bench-scale.tsv" 2>/dev/null
}
check "scale: siw with 20 connections recorded, 40 sockets held" scale_row 20
check "scale: siw with 50 connections recorded, 100 sockets held" scale_row 50
check "report.py puts the scale table in results.md" \
	sh -c "python3 '$SIW_DIR/selftests/bench/report.py' '$raw/report' '$raw' smoke >/dev/null && grep -q '^| siw | 50 |' '$raw/report/results.md'"

check "no siw QP, CQ, MR or PD left" no_siw_resources
