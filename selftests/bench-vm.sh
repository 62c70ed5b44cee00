#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# selftests/bench-vm.sh NAME...: boots the test VM once and runs the named
# benchmarks (selftests/bench/NAME.sh) in it, one after the other; each
# report lands in build/vm/bench-<abi>/. KVER picks the kernel series.
# When perf ran, selftests/bench/report.py writes bench/results.md and
# bench/bandwidth.png from that boot's figures (BENCH_OUT: elsewhere).
. "$(dirname "$0")/prepare.sh"
[ $# -gt 0 ] || { echo "usage: $0 NAME... (from selftests/bench/)" >&2; exit 2; }
for b in "$@"; do
	[ -x "$top/selftests/bench/$b.sh" ] ||
		{ echo "$0: no benchmark selftests/bench/$b.sh" >&2; exit 2; }
done
prepare || exit 1
out=build/vm/bench-$abi
rm -f "$out"/bench-*.tsv "$out"/bench-*.md
# A whole make bench takes about 45 minutes without KVM; a hung guest
# still ends (BENCH_TIMEOUT seconds).
run_vm --out "$out" --timeout "${BENCH_TIMEOUT:-7200}" bench "$@"
rc=$?
for b in "$@"; do
	echo "== $b ($out/bench-$b.log)"
	cat "$out/bench-$b.md" 2>/dev/null || tail -20 "$out/bench-$b.log"
done
if [ -s "$out/bench-perf.tsv" ]; then
	title="Kernel $abi, $(date -u +%Y-%m-%d); host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), QEMU without KVM, guest with 2 vCPUs."
	python3 selftests/bench/report.py "${BENCH_OUT:-$top/bench}" "$out" "$title" || rc=1
fi
exit $rc
