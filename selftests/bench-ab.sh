#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# selftests/bench-ab.sh REV: the working tree's siw.ko against the one
# built from git revision REV, in one boot of the bench VM
# (selftests/bench/ab.sh swaps them in turn). A change's before/after
# figures for Documentation/performance.rst. KVER picks the kernel series;
# BENCH_REPS the rounds (default 7; selftests/bench/ab_report.py says
# how a change is told from noise).
. "$(dirname "$0")/prepare.sh"
[ $# = 1 ] || { echo "usage: $0 REV (the git revision to compare against)" >&2; exit 2; }
rev=$(git -C "$top" rev-parse --verify -q "$1^{commit}") ||
	{ echo "$0: '$1' is not a git revision here" >&2; exit 2; }
[ "$debug" = 1 ] && { echo "$0: no benchmarks on the debug kernel (DEBUG=1)" >&2; exit 2; }
prepare || exit 1
ab=$top/build/ab
wt=$ab/base-tree
rm -rf "$wt" "$ab"/siw-*.ko
mkdir -p "$ab"
git -C "$top" worktree prune
git -C "$top" worktree add -q --detach "$wt" "$rev" || exit 1
echo "== building siw.ko of ${rev:0:12} for $abi"
# As prepare built the new one: in the release's tree when there is one.
if [ -n "$croot" ]; then
	in_tree "$croot" make -s -C "$wt" modules KDIR="$kdir"
else
	make -s -C "$wt" modules KDIR="$kdir"
fi || { git -C "$top" worktree remove --force "$wt"; exit 1; }
cp "$wt/siw/siw.ko" "$ab/siw-base.ko" && cp "$top/siw/siw.ko" "$ab/siw-new.ko" || exit 1
git -C "$top" worktree remove --force "$wt"
echo "${rev:0:12}" > "$ab/base-rev"
out=build/vm/bench-$abi
rm -f "$out"/bench-ab.*
run_vm --out "$out" --timeout "${BENCH_TIMEOUT:-7200}" bench ab
rc=$?
echo "== ab ($out/bench-ab.log)"
cat "$out/bench-ab.md" 2>/dev/null || tail -20 "$out/bench-ab.log"
exit $rc
