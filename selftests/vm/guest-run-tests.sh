#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# guest-run-tests.sh [NAME...]
#
# Runs the in-VM tests selftests/tests/NN-NAME.sh (all, or those named, or
# scripts given by absolute path) and
# prints one TAP stream: every case of every test, numbered in order, plus
# one case per test that the kernel log stayed clean while it ran (the
# patterns of bad-log.patterns, through log-scan.sh). Each test runs under
# its own timeout.
here=$(cd "$(dirname "$0")" && pwd)
tests_dir=$(cd "$here/../tests" && pwd)
timeout_s=${SIW_TEST_TIMEOUT:-300}
. "$here/log-scan.sh"
logfile=/tmp/guest-run-tests.$$.log

selected=()
if [ $# -eq 0 ]; then
	selected=("$tests_dir"/[0-9]*.sh)
else
	for name in "$@"; do
		match=("$tests_dir"/[0-9]*-"$name".sh)
		if [ "${name#/}" != "$name" ] && [ -f "$name" ]; then
			selected+=("$name")
		elif [ -f "${match[0]}" ]; then
			selected+=("${match[0]}")
		else
			selected+=("missing:$name")
		fi
	done
fi

n=0
failed=0
echo "TAP version 13"
for t in "${selected[@]}"; do
	if [ "${t#missing:}" != "$t" ]; then
		n=$((n + 1))
		echo "not ok $n - ${t#missing:}: no such test in $tests_dir"
		failed=$((failed + 1))
		continue
	fi
	name=$(basename "$t" .sh)
	name=${name#[0-9][0-9]-}
	echo "# test: $name"
	# A test may ask for more time with a "# timeout: SECONDS" line.
	t_secs=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -1)
	t_secs=${t_secs:-$timeout_s}
	log_before=$(dmesg | wc -l)
	cases=0
	rc=
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			n=$((n + 1))
			cases=$((cases + 1))
			# "ok - d", "ok 7 - d" or "not ok ...": renumber.
			status=ok
			case "$line" in "not ok"*) status="not ok" ;; esac
			[ "$status" = ok ] || failed=$((failed + 1))
			echo "$status $n - $name: ${line#* - }"
			;;
		"exit-status "*)
			rc=${line#exit-status }
			;;
		*)
			echo "# $line"
			;;
		esac
	done < <(cd "$tests_dir" && timeout -k 10 "$t_secs" bash "$t" 2>&1; echo "exit-status $?")
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		n=$((n + 1))
		echo "not ok $n - $name: timed out after ${t_secs}s"
		failed=$((failed + 1))
	fi
	n=$((n + 1))
	dmesg | tail -n +"$((log_before + 1))" > "$logfile"
	# A user program's crash ("traps: prog[pid] general protection
	# fault ip:... in lib.so") is the kernel reporting a user fault, not
	# kernel trouble: show it, and leave the verdict to the test's cases.
	log_allowed "$logfile" | sed 's/^/# user-space fault: /'
	if report=$(log_trouble "$logfile"); then
		echo "not ok $n - $name: kernel log clean"
		failed=$((failed + 1))
		echo "$report" | sed 's/^/# /'
	elif [ "$cases" -eq 0 ]; then
		echo "not ok $n - $name: ran no case (crashed or timed out after ${t_secs}s?)"
		failed=$((failed + 1))
	else
		echo "ok $n - $name: kernel log clean"
	fi
done
rm -f "$logfile"
echo "1..$n"
[ "$failed" -eq 0 ]
