#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# guest-run-tests.sh [NAME...]
#
# Runs the in-VM tests selftests/tests/NN-NAME.sh (all, or those named, or
# scripts given by absolute path) and prints one KTAP stream
# (selftests/lib/ktap.sh): every case of every test, numbered in order,
# plus the harness's own cases:
#
#   - per test, that the kernel log stayed clean while it ran (the
#     patterns of bad-log.patterns);
#   - per test, only when something is wrong: no plan ("1..N" before the
#     first case), fewer or more cases than planned, a timeout, death by a
#     signal, or an exit status that disagrees with its cases (a test
#     exits 0 exactly when every case passed, or 4 when every case was
#     skipped, as kselftest's do);
#   - at the end, on a kernel with kmemleak, that no unreferenced object
#     was allocated through siw or the kverbs test module.
#
# Each test runs under its own timeout ("# timeout: N" in its header,
# else 300 s), times SIW_TIMEOUT_SCALE. With SIW_DEBUG=1 (the debug
# kernel) a test with a "# debug-skip: REASON" header is not run: it is
# one case, skipped ("ok N NAME # SKIP ..."), which the harness counts
# neither passed nor failed.
here=$(cd "$(dirname "$0")" && pwd)
tests_dir=$(cd "$here/../tests" && pwd)
timeout_s=${SIW_TEST_TIMEOUT:-300}
scale=${SIW_TIMEOUT_SCALE:-1}
. "$here/../lib/ktap.sh"
. "$here/log-scan.sh"
. "$here/kmemleak.sh"

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

ktap_header
kmemleak_present && kmemleak_watch
rcfile=/tmp/guest-run-tests.$$.rc
logfile=/tmp/guest-run-tests.$$.log
for t in "${selected[@]}"; do
	if [ "${t#missing:}" != "$t" ]; then
		ktap_fail "${t#missing:}: no such test in $tests_dir"
		continue
	fi
	name=$(basename "$t" .sh)
	name=${name#[0-9][0-9]-}
	echo "# test: $name (at $(cut -d' ' -f1 /proc/uptime) s of uptime)"
	skip=$(sed -n 's/^# debug-skip: *//p' "$t" | head -1)
	if [ "${SIW_DEBUG:-0}" = 1 ] && [ -n "$skip" ]; then
		ktap_skip "$name" "not run on the debug kernel: $skip"
		continue
	fi
	# A test may ask for more time with a "# timeout: SECONDS" line.
	t_secs=$(sed -n 's/^# timeout: *\([0-9][0-9]*\).*/\1/p' "$t" | head -1)
	t_secs=$((${t_secs:-$timeout_s} * scale))
	log_before=$(dmesg | wc -l)
	cases=0 bad=0 skipped=0 plan=
	rm -f "$rcfile"
	while IFS= read -r line; do
		case "$line" in
		"ok "*|"not ok "*)
			cases=$((cases + 1))
			# "ok 7 d" (or TAP's "ok - d", "ok 7 - d"): the run
			# numbers the case anew.
			desc=${line#ok }
			[ "${line#not ok }" != "$line" ] && desc=${line#not ok }
			desc=${desc#"${desc%%[!0-9]*}"}
			desc=${desc# }
			desc=${desc#- }
			if [ "${line#not ok }" != "$line" ]; then
				bad=$((bad + 1))
				ktap_fail "$name: $desc"
			elif [ "${desc%%# SKIP*}" != "$desc" ]; then
				skipped=$((skipped + 1))
				reason=${desc#*# SKIP}
				desc=${desc%%# SKIP*}
				ktap_skip "$name: ${desc% }" "${reason# }"
			else
				ktap_pass "$name: $desc"
			fi
			;;
		1..*)
			# The plan counts only before the first case; a "1..N"
			# after cases is not one (a program's own, say).
			if [ -z "$plan" ] && [ $cases = 0 ]; then
				plan=${line#1..}
			fi
			echo "# $line"
			;;
		*)
			echo "# $line"
			;;
		esac
	done < <(cd "$tests_dir" && timeout -k 10 "$t_secs" bash "$t" 2>&1; echo $? > "$rcfile")
	rc=$(cat "$rcfile" 2>/dev/null || echo 255)

	# How the test ended, against its cases.
	if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		ktap_fail "$name: timed out after ${t_secs}s (status $rc)"
	elif [ "$rc" -gt 128 ]; then
		ktap_fail "$name: $(ktap_status_text "$rc")"
	elif [ "$rc" = "$KTAP_EXIT_SKIP" ] && [ $bad = 0 ] && [ $cases -gt 0 ] &&
	     [ $skipped = $cases ]; then
		echo "# $name: every case skipped (exit status $rc)"
	elif [ "$rc" != 0 ] && [ $bad = 0 ]; then
		ktap_fail "$name: exit status $rc although no case failed"
	elif [ "$rc" = 0 ] && [ $bad != 0 ]; then
		ktap_fail "$name: exit status 0 although $bad of its cases failed"
	elif [ "$rc" != 0 ]; then
		echo "# $name: exit status $rc, after $bad failed cases"
	fi
	if [ -z "$plan" ]; then
		ktap_fail "$name: no plan (1..N) before its first case; ran $cases"
	elif [ "$plan" != "$cases" ]; then
		ktap_fail "$name: planned $plan cases, ran $cases"
	fi

	dmesg | tail -n +"$((log_before + 1))" > "$logfile"
	# A user program's crash ("traps: prog[pid] general protection
	# fault ip:... in lib.so") is the kernel reporting a user fault, not
	# kernel trouble: show it, and leave the verdict to the test's cases.
	log_allowed "$logfile" | sed 's/^/# user-space fault: /'
	if report=$(log_trouble "$logfile"); then
		ktap_fail "$name: kernel log clean"
		echo "$report" | sed 's/^/# /'
	else
		ktap_pass "$name: kernel log clean"
	fi
done
rm -f "$rcfile" "$logfile"

# kmemleak, once every test has ended: an object allocated through siw or
# the kverbs test module that nothing references any more fails the run;
# the others are shown (the kernel's own, or a module's of no concern
# here). The whole report goes to the output share.
if kmemleak_present; then
	kmemleak_unwatch
	echo "# test: kmemleak (at $(cut -d' ' -f1 /proc/uptime) s of uptime)"
	out=${SIW_OUT:-/tmp}/kmemleak.txt
	cp "$kmemleak_mods" "${SIW_OUT:-/tmp}/kmemleak-modules.txt" 2>/dev/null
	if ! kmemleak_scan "$out"; then
		ktap_fail "kmemleak: scan and report (see the kernel log)"
	elif [ "$kmemleak_ours_n" -gt 0 ]; then
		ktap_fail "kmemleak: $kmemleak_ours_n unreferenced objects allocated through siw"
		sed 's/^/# /' "$kmemleak_ours_file"
	else
		ktap_pass "kmemleak: no unreferenced object allocated through siw"
	fi
	if [ "$kmemleak_other_n" -gt 0 ]; then
		echo "# kmemleak: $kmemleak_other_n unreferenced objects not through siw (not judged here; the first 20 below, all in kmemleak.txt):"
		awk '/^unreferenced object / { n++ } n <= 20' "$kmemleak_other_file" | sed 's/^/#   /'
	fi
	rm -f "$kmemleak_ours_file" "$kmemleak_other_file" "$kmemleak_mods"
else
	ktap_skip kmemleak "no kmemleak on this kernel (/sys/kernel/debug/kmemleak)"
fi
ktap_finished
