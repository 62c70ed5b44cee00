#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# run.sh SECONDS WORKDIR TARGET...: for each target, replay its seed
# corpus, then fuzz for SECONDS from the seeds plus what earlier runs
# found (WORKDIR/<target>). Prints TAP; a crash, leak or sanitizer report
# is a failure, with the input left in WORKDIR/<target>/.
set -uo pipefail
secs=$1 work=$2
shift 2
n=0 failed=0
echo "TAP version 13"
for t in "$@"; do
	mkdir -p "$work/$t"
	log=$work/$t.log
	n=$((n + 1))
	if ./"$t" -runs=0 corpus/"$t" > "$log" 2>&1 &&
	   ./"$t" corpus/"$t"/* >> "$log" 2>&1; then
		echo "ok $n - $t: the $(ls corpus/"$t" | wc -l) seed inputs replay clean"
	else
		echo "not ok $n - $t: seed replay (see $log)"
		tail -20 "$log" | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
	n=$((n + 1))
	if ./"$t" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$work/$t/" "$work/$t" corpus/"$t" > "$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "ok $n - $t: ${secs}s of fuzzing, ${runs:-?} inputs, no finding"
	else
		echo "not ok $n - $t: fuzzing found a problem (see $log)"
		grep -E 'ERROR|SUMMARY|runtime error|deadly' "$log" | head -5 | sed 's/^/#   /'
		failed=$((failed + 1))
	fi
done
echo "1..$n"
[ $failed = 0 ]
