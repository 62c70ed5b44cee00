#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# ab_report_test.sh: selftests/bench/ab_report.py's verdicts on made-up
# rounds, so that bench-ab's "faster", "slower" and "within noise" mean
# what the script says (a paired sign test over at least 6 rounds).
# Prints KTAP.
set -uo pipefail

. "$(dirname "$0")/../lib/ktap.sh"
report=$(cd "$(dirname "$0")/../bench" && pwd)/ab_report.py
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ktap_header
ktap_plan 7

# rounds TOPO CASE UNIT BASE... -- NEW...: one line a round and build.
rounds() {
	local topo=$1 case=$2 unit=$3 base=() new=() i
	shift 3
	while [ "$1" != -- ]; do base+=("$1"); shift; done
	shift
	new=("$@")
	for i in "${!base[@]}"; do
		echo "$topo $((i + 1)) base $case $unit ${base[i]}"
		echo "$topo $((i + 1)) new $case $unit ${new[i]}"
	done
}

# A slow drift that both builds share, new 5 % ahead in every round: a
# comparison of medians would call it noise (the ranges overlap); the
# paired ratios call it.
{
	rounds veth up MiB/s 100 120 140 160 180 200 -- 105 126 147 168 189 210
	rounds veth down MiB/s 100 120 140 160 180 200 -- 95 114 133 152 171 190
	rounds veth mixed MiB/s 100 100 100 100 100 100 -- 110 90 105 95 101 99
	rounds veth lat us 10 10 10 10 10 10 -- 11 11 11 11 11 11
	rounds lo few MiB/s 100 100 100 -- 200 200 200
} > "$tmp/raw.tsv"
if python3 "$report" "$tmp/raw.tsv" abc123 up down mixed lat few > "$tmp/ab.md" 2> "$tmp/err"; then
	ktap_pass "ab_report.py reads made-up rounds"
else
	ktap_fail "ab_report.py reads made-up rounds" "$(cat "$tmp/err")"
fi

# verdict TOPO CASE WORD DESC
verdict() {
	local line
	line=$(awk -v t="### $1" -v c="| $2 |" '$0 == t { in_t = 1; next }
		/^### / { in_t = 0 } in_t && index($0, c) == 1' "$tmp/ab.md")
	case $line in
	*"| $3 |") ktap_pass "$4" ;;
	*) ktap_fail "$4" "want \"$3\", the row is: ${line:-(none)}" ;;
	esac
}
verdict veth up faster "new ahead in every round of a drifting boot: faster"
verdict veth down slower "new behind in every round: slower"
verdict veth mixed "within noise" "rounds that disagree: within noise"
verdict veth lat slower "latency higher in every round: slower (lower is better)"
verdict lo few "too few rounds (3 < 6)" "3 rounds call nothing, however clear"
if grep -q '| up | MiB/s | 150.00 | 157.50 | 1.05 | 1.05–1.05 | 100% | faster |' "$tmp/ab.md"; then
	ktap_pass "medians, paired ratio, its range and the base spread"
else
	ktap_fail "medians, paired ratio, its range and the base spread" \
		"$(grep '| up |' "$tmp/ab.md")"
fi
ktap_finished
