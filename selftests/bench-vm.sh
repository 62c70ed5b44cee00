#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# selftests/bench-vm.sh NAME...: boots the test VM once and runs the named
# benchmarks (selftests/bench/NAME.sh) in it, one after the other; each
# report lands in build/vm/bench-<abi>/. KVER picks the kernel series.
. "$(dirname "$0")/prepare.sh"
[ $# -gt 0 ] || { echo "usage: $0 NAME... (from selftests/bench/)" >&2; exit 2; }
for b in "$@"; do
	[ -x "$top/selftests/bench/$b.sh" ] ||
		{ echo "$0: no benchmark selftests/bench/$b.sh" >&2; exit 2; }
done
prepare || exit 1
out=build/vm/bench-$abi
run_vm --out "$out" bench "$@"
rc=$?
for b in "$@"; do
	echo "== $b ($out/bench-$b.log)"
	cat "$out/bench-$b.md" 2>/dev/null || tail -20 "$out/bench-$b.log"
done
exit $rc
