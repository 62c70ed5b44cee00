# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# KTAP output (the kernel's Documentation/dev-tools/ktap.rst) for the
# shell tests, in the guest (through selftests/tests/lib.sh, and
# selftests/vm/guest-run-tests.sh) and on the host (wire-check.sh,
# host/lock_lint.sh, fuzz/run.sh): one "ok N DESC" or "not ok N DESC"
# line per case, numbered from 1, "# " diagnostics, kselftest's exit
# codes. The C programs have the same in ktap.h.
#
#	ktap_header
#	ktap_result "$good" "lock $name is initialised"
#	ktap_finished; exit $?
#
# With the number of cases known, ktap_plan N comes after the header;
# otherwise ktap_finished prints the plan last.

# kselftest's exit codes
KTAP_EXIT_PASS=0
KTAP_EXIT_FAIL=1
KTAP_EXIT_SKIP=4

ktap_cases=0 ktap_failed=0 ktap_skipped=0 ktap_planned=

ktap_header() { echo "KTAP version 1"; }

# ktap_plan N: the number of cases to come.
ktap_plan() {
	ktap_planned=$1
	echo "1..$1"
}

# ktap_pass DESC...: a case that passed.
ktap_pass() {
	ktap_cases=$((ktap_cases + 1))
	echo "ok $ktap_cases $*"
}

# ktap_fail DESC [DETAIL...]: a case that failed, what went wrong below
# it as diagnostics.
ktap_fail() {
	local d
	ktap_cases=$((ktap_cases + 1))
	ktap_failed=$((ktap_failed + 1))
	echo "not ok $ktap_cases $1"
	shift
	for d in "$@"; do
		printf '%s\n' "$d" | sed 's/^/#   /'
	done
}

# ktap_skip DESC REASON: a case not run; neither passed nor failed.
ktap_skip() {
	ktap_cases=$((ktap_cases + 1))
	ktap_skipped=$((ktap_skipped + 1))
	echo "ok $ktap_cases $1 # SKIP $2"
}

# ktap_result GOOD DESC [DETAIL...]: passed when GOOD is 1; the details
# are shown when it failed.
ktap_result() {
	local good=$1
	shift
	if [ "$good" = 1 ]; then ktap_pass "$1"; else ktap_fail "$@"; fi
}

# ktap_diag TEXT...: each line of each TEXT as a diagnostic.
ktap_diag() {
	local t
	for t in "$@"; do
		printf '%s\n' "$t" | sed 's/^/# /'
	done
}

# ktap_nest: a subtest's lines (standard input), one level below its case.
ktap_nest() { sed 's/^/  /'; }

# ktap_reset: counting starts again (a nested test's own numbering).
ktap_reset() {
	ktap_cases=0 ktap_failed=0 ktap_skipped=0 ktap_planned=
}

# ktap_exit_code: 1 if a case failed, 4 if every case was skipped, else 0.
ktap_exit_code() {
	if [ "$ktap_failed" -gt 0 ]; then
		return $KTAP_EXIT_FAIL
	elif [ "$ktap_cases" -gt 0 ] && [ "$ktap_skipped" = "$ktap_cases" ]; then
		return $KTAP_EXIT_SKIP
	fi
	return $KTAP_EXIT_PASS
}

# ktap_finished: the plan, unless stated before; returns the exit code.
ktap_finished() {
	[ -n "$ktap_planned" ] || ktap_plan "$ktap_cases"
	ktap_exit_code
}

# ktap_status_text RC: a command's exit status in words.
ktap_status_text() {
	if [ "$1" = 124 ]; then
		echo "timed out (status 124)"
	elif [ "$1" -gt 128 ]; then
		echo "killed by signal $(kill -l $(($1 - 128)) 2>/dev/null || echo $(($1 - 128)))"
	else
		echo "exit status $1"
	fi
}

# ktap_verdicts: cases that a checker in another language (the Python
# ones under selftests/) decided, read from standard input one a line,
# printed as KTAP cases here: "pass<TAB>DESC", "fail<TAB>DESC", then
# its details each on a line of their own starting with two spaces, and
# "skip<TAB>DESC<TAB>REASON". Lines starting with "#" pass through as
# diagnostics; anything else is a diagnostic too.
ktap_verdicts() {
	local line verdict desc reason
	while IFS= read -r line; do
		case $line in
		pass$'\t'*)
			ktap_pass "${line#pass$'\t'}" ;;
		fail$'\t'*)
			ktap_fail "${line#fail$'\t'}" ;;
		skip$'\t'*)
			line=${line#skip$'\t'}
			desc=${line%%$'\t'*}
			reason=${line#*$'\t'}
			[ "$reason" = "$line" ] && reason="not run"
			ktap_skip "$desc" "$reason" ;;
		'  '*)
			printf '#   %s\n' "${line#  }" ;;
		'#'*)
			printf '%s\n' "$line" ;;
		*)
			printf '# %s\n' "$line" ;;
		esac
	done
}
