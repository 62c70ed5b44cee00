#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# check.sh: what `make check` runs.
#
#   KVER=6.1|6.12|6.12-rt|7.2|sid   the Debian kernel of the guest
#                   (default 6.1; README, Targets)
#   DEBUG=1         the guests run the debug kernel (scripts/debug-kernel.sh:
#                   lockdep, KASAN, kmemleak, debug objects, UBSAN, KFENCE;
#                   6.1 only), benchmarks skipped
#   FUZZ_TIME=N     seconds of fuzzing per target (default 30)
#   INTEROP=0       the whole suite without the interoperability run
#                   (upstream siw against this one; in it by default,
#                   except on the debug kernel)
#   T="name ..."    run only these in-VM tests (names from selftests/tests,
#                   "twovm" for the two-guest topology, "interop" for
#                   upstream siw against this one, "fuzz")
#
# Installs what is missing (scripts/deps.sh), fetches and unpacks the
# Debian kernel (scripts/kernel.sh), builds siw.ko against exactly that
# kernel, runs the host tests and the in-VM tests, and ends with the line
# "N passed, N failed". Exits non-zero on any failure, including a guest
# that hangs (bounded by the run's timeout) or logs a kernel warning.
# Every part prints KTAP (selftests/lib/ktap.sh and ktap.h); the cases
# counted are the result lines at the start of a line ("ok N ...", "not ok
# N ..."): a subtest's own cases, indented below its case, are not. What
# was not run ("ok N ... # SKIP ...") is listed before the summary and
# counted neither way.
set -uo pipefail

. "$(dirname "$0")/prepare.sh"
. "$(dirname "$0")/lib/ktap.sh"
tests=${T:-}

results=$top/build/results-$kver
[ "$debug" = 1 ] && results+=-debug
mkdir -p "$results"
rm -f "$results"/*.tap

prepare || {
	echo "not ok 1 prepare and build (see above)"
	echo "0 passed, 1 failed"
	exit 1
}

extra_failed=0

echo "== host tests"
if ! make -s -C selftests/host all; then
	echo "not ok 1 host tests build" > "$results/host.tap"
else
	make -s -C selftests/host run > "$results/host.tap"
fi
grep -E '^(not )?ok ' "$results/host.tap" | grep '^not ok' || true

# The short fuzzing pass: the seed corpus replayed, then FUZZ_TIME seconds
# per target (make fuzz runs the same for longer). With T, only if named.
fuzz=0
if [ -z "$tests" ]; then
	fuzz=1
else
	for t in $tests; do [ "$t" = fuzz ] && fuzz=1; done
fi
if [ $fuzz = 1 ]; then
	echo "== fuzzing the protocol core (${FUZZ_TIME:-30}s per target)"
	if ! make -s -C selftests/fuzz all; then
		echo "not ok 1 fuzz targets build" > "$results/fuzz.tap"
	else
		make -s -C selftests/fuzz run FUZZ_TIME="${FUZZ_TIME:-30}" \
			> "$results/fuzz.tap"
	fi
	grep -E '^not ok' -A5 "$results/fuzz.tap" || true
fi

# Split T into single-VM tests and the two-VM topology.
# The interoperability run with upstream siw is part of the whole suite
# (INTEROP=0 leaves it out); not on the debug kernel, for which no
# upstream siw is built.
interop=1
[ "$debug" = 1 ] && interop=0
vm_tests=() twovm=1 interop=${INTEROP:-$interop}
if [ -n "$tests" ]; then
	twovm=0 interop=0
	for t in $tests; do
		case $t in
		twovm) twovm=1 ;;
		interop) interop=1 ;;
		fuzz) ;;
		*) vm_tests+=("$t") ;;
		esac
	done
fi

# The wire test (80-wire.sh) and the hostile peer (90-hostile.sh) leave
# captures for the host to decode.
wire_parts=
if [ -z "$tests" ]; then
	wire_parts="wire hostile hostile-rfc7306"
else
	for t in "${vm_tests[@]}"; do
		case $t in
		wire|hostile|hostile-rfc7306) wire_parts="$wire_parts $t" ;;
		esac
	done
fi

if [ -z "$tests" ] || [ ${#vm_tests[@]} -gt 0 ]; then
	echo "== in-VM tests on $abi (${vm_tests[*]:-all})"
	# No capture of an earlier run may stand in for this one's.
	rm -f "build/vm/test-$abi"/wire-*.pcap "build/vm/test-$abi"/hostile-*.pcap \
		"build/vm/test-$abi"/hostile-*.expect "build/vm/test-$abi"/walk.pcap \
		"build/vm/test-$abi"/walk*-trace.txt
	if ! run_vm --out "build/vm/test-$abi" test "${vm_tests[@]}"; then
		extra_failed=1
	fi
	cp "build/vm/test-$abi/results.tap" "$results/vm.tap" 2>/dev/null ||
		echo "not ok 1 the guest produced no results (see build/vm/test-$abi/console.log)" > "$results/vm.tap"
	grep -E '^not ok' -B12 -A16 "$results/vm.tap" || true
fi

if [ -n "$wire_parts" ]; then
	echo "== captures of the in-VM tests, decoded by tshark on the host ($wire_parts)"
	selftests/wire-check.sh "build/vm/test-$abi" $wire_parts > "$results/wire.tap"
	grep -E '^not ok' -A3 "$results/wire.tap" || true
fi

# 81-walkthrough leaves a capture and traces: the excerpts protocol.rst
# and debugging.rst show must still read the same (make walkthrough
# writes them anew).
walk=0
if [ -z "$tests" ]; then
	walk=1
else
	for t in "${vm_tests[@]}"; do [ "$t" = walkthrough ] && walk=1; done
fi
if [ $walk = 1 ]; then
	if [ "${WALKTHROUGH_WRITE:-0}" = 1 ]; then
		echo "== rewriting the excerpts in Documentation/protocol.rst and debugging.rst from this run"
		# Never from a run that failed.
		if grep -q '^not ok' "build/vm/test-$abi/results.tap" 2>/dev/null ||
		   [ ! -f "build/vm/test-$abi/results.tap" ]; then
			echo "not ok 1 walkthrough (host): 81-walkthrough failed, nothing written" > "$results/walkthrough.tap"
		elif python3 selftests/walkthrough.py "build/vm/test-$abi" --write; then
			echo "ok 1 walkthrough (host): the excerpts are written" > "$results/walkthrough.tap"
		else
			echo "not ok 1 walkthrough (host): the excerpts are written" > "$results/walkthrough.tap"
		fi
	else
		echo "== the walk-through's excerpts against this run"
		{
			ktap_header
			python3 selftests/walkthrough.py "build/vm/test-$abi" \
				--check | ktap_verdicts
			rc=${PIPESTATUS[0]}
		} > "$results/walkthrough.tap"
		# The cases were counted in the pipe's subshell: count them here.
		echo "1..$(grep -Ec '^(not )?ok ' "$results/walkthrough.tap")" \
			>> "$results/walkthrough.tap"
		# A checker that crashed has checked nothing.
		if [ $rc != 0 ] && ! grep -q '^not ok' "$results/walkthrough.tap"; then
			echo "not ok 1 walkthrough (host): walkthrough.py failed (exit $rc)" >> "$results/walkthrough.tap"
		fi
		grep -E '^not ok' -A12 "$results/walkthrough.tap" || true
	fi
fi

# pair_results DIR NAME: the two guests' TAP of a two-guest run in DIR,
# each case prefixed with its guest, into $results/NAME1.tap and NAME2.tap.
pair_results() {
	local i f
	for i in 1 2; do
		f=$1/vm$i/results.tap
		if [ -f "$f" ]; then
			sed -e "s/^\(\(not \)\?ok [0-9]* \)/\1$2 vm$i: /" \
				"$f" > "$results/$2$i.tap"
		else
			echo "not ok 1 $2 vm$i: the guest produced no results (see ${f%/*}/console.log)" > "$results/$2$i.tap"
		fi
		grep -E '^not ok' -B12 -A16 "$results/$2$i.tap" || true
	done
}

if [ $twovm = 1 ]; then
	echo "== two-VM tests on $abi"
	if ! run_vm --out "build/vm/twovm-$abi" twovm; then
		extra_failed=1
	fi
	pair_results "build/vm/twovm-$abi" twovm
fi

# Upstream siw of the same kernel in one guest, this siw in the other.
if [ $interop = 1 ]; then
	echo "== interoperability with upstream siw of $abi (guest 1: upstream, guest 2: this siw)"
	if ! build_upstream; then
		echo "not ok 1 interop: upstream siw of $abi built (see above)" > "$results/interop1.tap"
	else
		if ! run_vm --out "build/vm/interop-$abi" --upstream "$upstream_ko" interop; then
			extra_failed=1
		fi
		pair_results "build/vm/interop-$abi" interop
	fi
fi

# A skipped case is no pass.
skipped=$(cat "$results"/*.tap | grep -E '^ok .*# SKIP')
if [ -n "$skipped" ]; then
	echo "== not run"
	echo "$skipped"
	echo "$(echo "$skipped" | wc -l) not run (skipped)"
fi
passed=$(cat "$results"/*.tap | grep '^ok ' | grep -vc '# SKIP')
failed=$(cat "$results"/*.tap | grep -c '^not ok ')
# A guest that crashed, hung or logged a kernel warning fails the run even
# where every case it printed passed.
if [ $extra_failed = 1 ] && [ "$failed" = 0 ]; then
	echo "not ok 1 guest did not finish cleanly (console logs under build/vm/)"
	failed=1
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
