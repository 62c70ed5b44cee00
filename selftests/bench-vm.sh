#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# selftests/bench-vm.sh NAME...: boots the test VM once and runs the named
# benchmarks (selftests/bench/NAME.sh) in it, one after the other; each
# report lands in build/vm/bench-<abi>/. KVER picks the kernel series.
# twovm runs in a second boot, of two guests (run.sh twovm twovm).
# When perf ran, selftests/bench/report.py writes bench/results.md and
# bench/bandwidth.png from that boot's figures (BENCH_OUT: elsewhere).
. "$(dirname "$0")/prepare.sh"
[ $# -gt 0 ] || { echo "usage: $0 NAME... (from selftests/bench/)" >&2; exit 2; }
for b in "$@"; do
	[ -x "$top/selftests/bench/$b.sh" ] ||
		{ echo "$0: no benchmark selftests/bench/$b.sh" >&2; exit 2; }
done
# Figures from the debug kernel would mean nothing.
[ "$debug" = 1 ] && { echo "$0: no benchmarks on the debug kernel (DEBUG=1)" >&2; exit 2; }
prepare || exit 1
out=build/vm/bench-$abi
rm -f "$out"/bench-*.tsv "$out"/bench-*.md
# twovm needs a boot of two guests of its own; the rest share one boot.
single=() pair=()
for b in "$@"; do
	if [ "$b" = twovm ]; then pair+=("$b"); else single+=("$b"); fi
done
# A whole make bench takes about an hour without KVM; a hung guest
# still ends (BENCH_TIMEOUT seconds).
rc=0
if [ ${#single[@]} -gt 0 ]; then
	opts=()
	case " ${single[*]} " in
	*" scale "*)
		# The scale pass measures upstream siw of the guest's kernel
		# too (loaded in place of this one, in the same boot), and
		# 10,000 connections (20,000 QPs of all three) need room.
		if build_upstream; then
			opts+=(--upstream "$upstream_ko")
		else
			echo "$0: upstream siw of $abi not built (above): scale measures this siw and rxe only" >&2
		fi
		opts+=(--mem "${BENCH_SCALE_MEM:-4G}")
		;;
	esac
	run_vm --out "$out" --timeout "${BENCH_TIMEOUT:-7200}" "${opts[@]}" bench "${single[@]}" || rc=1
fi
if [ ${#pair[@]} -gt 0 ]; then
	mkdir -p "$out"
	run_vm --out "$out/twovm" --timeout "${BENCH_TIMEOUT:-7200}" twovm "${pair[@]}" || rc=1
	for f in bench-twovm.md bench-twovm.tsv; do
		cp "$out/twovm/vm2/$f" "$out/" 2>/dev/null
	done
	cat "$out/twovm/vm1/bench-twovm.log" > "$out/bench-twovm.log" 2>/dev/null
	cat "$out/twovm/vm2/bench-twovm.log" >> "$out/bench-twovm.log" 2>/dev/null
fi
for b in "$@"; do
	echo "== $b ($out/bench-$b.log)"
	cat "$out/bench-$b.md" 2>/dev/null || tail -20 "$out/bench-$b.log"
done
if [ -s "$out/bench-perf.tsv" ]; then
	title="Kernel $abi, $(date -u +%Y-%m-%d); host: $(nproc) CPUs, $(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1), QEMU without KVM, guest with 2 vCPUs."
	python3 selftests/bench/report.py "${BENCH_OUT:-$top/bench}" "$out" "$title" || rc=1
fi
exit $rc
