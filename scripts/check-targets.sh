#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# check-targets.sh TARGET...
#
# Runs `make check` once per TARGET and ends with one combined
# "N passed, N failed". A TARGET is a kernel series (KVER: 6.1, 6.12, 7.2)
# for the whole suite, or KVER=NAME,NAME... for only those in-VM tests
# (T; names as in selftests/tests, "twovm" for the two guests). Each run's
# output is kept in build/check-KVER.log. Used by .ci/run and
# `make check-all`.
set -uo pipefail
cd "$(dirname "$0")/.."

[ $# -gt 0 ] || { echo "usage: check-targets.sh KVER[=TEST,...]..." >&2; exit 2; }
mkdir -p build
total_passed=0 total_failed=0 line=
for target in "$@"; do
	kver=${target%%=*} tests=
	[ "$kver" != "$target" ] && tests=${target#*=}
	tests=${tests//,/ }
	echo "=== make check KVER=$kver${tests:+ T=\"$tests\"}"
	log=build/check-$kver.log
	start=$SECONDS
	make check KVER="$kver" T="$tests" 2>&1 | tee "$log"
	rc=${PIPESTATUS[0]}
	summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed$' "$log" | tail -1)
	if [ -z "$summary" ]; then
		echo "=== make check KVER=$kver printed no summary"
		total_failed=$((total_failed + 1))
		line+=" $kver: no summary;"
		continue
	fi
	p=${summary%% passed*}
	f=${summary#*, }
	f=${f%% failed}
	# A failing run always counts as at least one failure.
	[ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
	total_passed=$((total_passed + p))
	total_failed=$((total_failed + f))
	line+=" $kver${tests:+ (subset)}: $p/$f in $((SECONDS - start))s;"
done
echo "=== per target (passed/failed):$line"
echo "$total_passed passed, $total_failed failed"
[ "$total_failed" = 0 ]
