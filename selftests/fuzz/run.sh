#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# run.sh SECONDS WORKDIR TARGET...: for each target, replay its seed
# corpus, then fuzz for SECONDS from the seeds plus what earlier runs
# found (WORKDIR/<target>). Prints KTAP; a crash, leak or sanitizer report
# is a failure, with the input left in WORKDIR/<target>/.
set -uo pipefail
secs=$1 work=$2
shift 2
. "$(dirname "$0")/../lib/ktap.sh"
ktap_header
for t in "$@"; do
	mkdir -p "$work/$t"
	log=$work/$t.log
	if ./"$t" -runs=0 corpus/"$t" > "$log" 2>&1 &&
	   ./"$t" corpus/"$t"/* >> "$log" 2>&1; then
		ktap_pass "$t: the $(ls corpus/"$t" | wc -l) seed inputs replay clean"
	else
		ktap_fail "$t: seed replay (see $log)" "$(tail -20 "$log")"
	fi
	if ./"$t" -max_total_time="$secs" -print_final_stats=1 \
		-artifact_prefix="$work/$t/" "$work/$t" corpus/"$t" > "$log" 2>&1; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		ktap_pass "$t: ${secs}s of fuzzing, ${runs:-?} inputs, no finding"
	else
		ktap_fail "$t: fuzzing found a problem (see $log)" \
			"$(grep -E 'ERROR|SUMMARY|runtime error|deadly' "$log" | head -5)"
	fi
done
ktap_finished
