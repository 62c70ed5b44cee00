#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# report_test.sh: selftests/bench/report.py's targets on made-up runs, so
# that `make bench`'s "met" means what performance.rst says: yes only when
# the ratio meets the target in every round, no when in none, unclear
# otherwise; and each figure's spread is shown. Prints KTAP.
set -uo pipefail

. "$(dirname "$0")/../lib/ktap.sh"
report=$(cd "$(dirname "$0")/../bench" && pwd)/report.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_header
ktap_plan 9

# runs TOPO TRANSPORT TEST SIZE QPS VALUE...: one line a round, as
# perf.sh writes them (value, unit, kernel CPU seconds, bytes moved).
runs() {
	local topo=$1 tr=$2 test=$3 size=$4 qps=$5 v
	shift 5
	for v in "$@"; do
		echo "$topo $tr $test $size $qps $v MiB/s 1.0 1073741824"
	done
}

# Three rounds. Write 64 KiB against TCP: 1.10, 1.05, 1.20 (met in every
# round); Read 64 KiB against Write: 0.80, 0.95, 0.85 around a goal of
# 0.9 (unclear); Write 4 KiB against TCP: 0.5, 0.6, 0.7 (missed in every
# round). The TCP stream drifts; the ratios are per round.
{
	runs veth tcp stream 65536 1 100 200 100
	runs veth siw write_bw 65536 1 110 210 120
	runs veth siw read_bw 65536 1 88 199.5 102
	runs veth tcp stream 4096 1 100 100 100
	runs veth siw write_bw 4096 1 50 60 70
} > "$tmp/bench-perf.tsv"
if python3 "$report" "$tmp/out" "$tmp" > "$tmp/log" 2>&1 && [ -s "$tmp/out/results.md" ]; then
	ktap_pass "report.py writes results.md from made-up runs"
else
	ktap_fail "report.py writes results.md from made-up runs" "$(cat "$tmp/log")"
fi

# row TARGET-PREFIX WANT DESC: the target's row ends in "| WANT |".
row() {
	local line
	line=$(grep -F "| $1" "$tmp/out/results.md" | head -1)
	case $line in
	*"$2") ktap_pass "$3" ;;
	*) ktap_fail "$3" "want a row ending in \"$2\", it is: ${line:-(none)}" ;;
	esac
}
row "WRITE 64 KiB ≥ 1.0" "| 1.10 (1.05–1.20) | yes |" \
	"met in every round: yes, the median of the rounds' ratios and their range"
row "READ 64 KiB ≥ 0.9" "| 0.85 (0.80–0.95) | unclear |" \
	"the goal inside the rounds' range: unclear"
row "WRITE 4 KiB ≥ 1.0" "| 0.60 (0.50–0.70) | no |" \
	"missed in every round: no"
row "SEND 4 KiB ≥ 1.0" "| not measured | – |" \
	"a figure that did not run: not measured"
# The spread of siw's Write at 4 KiB: 70 / 50 - 1 = 40 %.
if grep -qE '^\| write \| 4 KiB \| 1 \| 60\.0 \| 40% \|' "$tmp/out/results.md"; then
	ktap_pass "a figure's spread over its runs"
else
	ktap_fail "a figure's spread over its runs" "$(grep '^| write | 4 KiB' "$tmp/out/results.md")"
fi
# Event-driven runs (TEST_ev) are a table of their own, beside polling:
# Write 64 KiB by events 88, 99.5, 102 (median 99.5) against the 110,
# 210, 120 polling above (median 120): 0.83; absent without _ev runs.
if ! grep -q "Completions as events" "$tmp/out/results.md"; then
	ktap_pass "no events table without event-driven runs"
else
	ktap_fail "no events table without event-driven runs" "$(grep -A3 'Completions as events' "$tmp/out/results.md")"
fi
runs veth siw write_bw_ev 65536 1 88 99.5 102 >> "$tmp/bench-perf.tsv"
python3 "$report" "$tmp/out" "$tmp" > "$tmp/log" 2>&1
if grep -qE '^\| Write 64 KiB, MiB/s \| 99\.50 \| 16% \| 120\.00 \| 0\.83 \|' "$tmp/out/results.md"; then
	ktap_pass "event-driven figures beside the polling ones, with their ratio"
else
	ktap_fail "event-driven figures beside the polling ones, with their ratio" \
		"$(grep -A8 'Completions as events' "$tmp/out/results.md")"
fi
# A failed run: counts differ, the interval is the widest the runs allow.
{
	runs lo tcp stream 65536 1 100 100 100
	runs lo siw write_bw 65536 1 110 130
} > "$tmp/bench-perf.tsv"
python3 "$report" "$tmp/out" "$tmp" > "$tmp/log" 2>&1
row "WRITE 64 KiB ≥ 1.0" "| 1.20 (1.10–1.30) | yes |" \
	"rounds that do not line up: the unpaired interval"
ktap_finished
