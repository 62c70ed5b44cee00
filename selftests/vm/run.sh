#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# run.sh [options] MODE [TEST...]
#
# Boots throwaway QEMU guests (software emulation) on a Debian kernel with
# the freshly built siw.ko, and runs MODE inside:
#   test    the in-VM tests (all, or the TEST names given); prints TAP
#   shell   an interactive shell on this terminal
#   demo    the README's demo
#   twovm   two guests joined by QEMU stream networking over a Unix socket
#           (with NAMEs: the benchmarks selftests/bench/NAME.sh in both)
#   bench   the benchmarks named (selftests/bench/NAME.sh); each writes
#           its report into the output directory
#   interop two guests as for twovm: guest 1 runs upstream siw (--upstream),
#           guest 2 this one (guest-interop.sh)
#
# Options:
#   --abi ABI        Debian kernel ABI (from scripts/kernel.sh)
#   --kcache DIR     where kernel.sh unpacked it
#   --module PATH    siw.ko built for ABI
#   --out DIR        output directory (console logs, TAP, dmesg)
#   --root DIR       the guests' root filesystem, read-only: / (this
#                    host's, with scripts/guest-pkgs.sh's packages laid
#                    over it; the default) or a release's tree
#                    (scripts/chroot.sh) with everything installed
#   --timeout SECS   wall-clock limit of the whole boot (default: for
#                    test, the sum of the tests' own timeouts plus 300;
#                    otherwise 1500; times SIW_TIMEOUT_SCALE)
#   --upstream DIR   for interop: upstream siw built for ABI, DIR/siw.ko
#                    and DIR/siw-gso.ko; for bench: the scale pass
#                    measures DIR/siw.ko too (SIW_UPSTREAM in the guest)
#   --mem SIZE       the guest's memory (default 2G, 3G with --debug)
#   --debug          ABI is the debug kernel (scripts/debug-kernel.sh):
#                    the guest panics on a WARN (panic_on_warn=1), uses
#                    4-level paging (no5lvl, see boot_guest), loads
#                    nvme_core without multipath (see boot_guest), has 3
#                    GiB, waits and timeouts take SIW_TIMEOUT_SCALE (3)
#                    times longer, and tests with a "# debug-skip:"
#                    header are skipped
#
# Exit status: 0 when the guest(s) ran MODE to the end and reported
# success (exit status 0, or kselftest's 4: every case skipped) and the
# console log holds no kernel warning; 1 otherwise.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
abi= kcache= module= out= timeout_s= debug=0 root=/ upstream= mem_opt=
while [ $# -gt 0 ]; do
	case "$1" in
	--abi) abi=$2; shift 2 ;;
	--kcache) kcache=$2; shift 2 ;;
	--module) module=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--root) root=$2; shift 2 ;;
	--upstream) upstream=$2; shift 2 ;;
	--mem) mem_opt=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--debug) debug=1; shift ;;
	-*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
mode=${1:-}
shift || true
case "$mode" in
test|shell|demo|twovm|bench|interop) ;;
*) echo "usage: run.sh --abi ABI --kcache DIR --module siw.ko --out DIR test|shell|demo|twovm|bench|interop [NAME...]" >&2
   exit 2 ;;
esac
for v in abi kcache module out; do
	[ -n "${!v}" ] || { echo "run.sh: --$v is required" >&2; exit 2; }
done
[ -f "$module" ] || { echo "run.sh: no module at $module" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null ||
	{ echo "run.sh: qemu-system-x86_64 missing: apt-get install qemu-system-x86" >&2; exit 2; }

# Everything is slower under KASAN and lockdep.
mem=2G
if [ $debug = 1 ]; then
	mem=3G
	SIW_TIMEOUT_SCALE=${SIW_TIMEOUT_SCALE:-3}
fi
mem=${mem_opt:-$mem}
scale=${SIW_TIMEOUT_SCALE:-1}

kroot=$kcache/$abi/root
vmlinuz=$kroot/boot/vmlinuz-$abi
mkdir -p "$out"
out=$(cd "$out" && pwd)
root=$(cd "$root" && pwd) || { echo "run.sh: no root tree at $root" >&2; exit 2; }
third=${SIW_THIRD_PARTY:-$top/../shared/third-party}
[ -d "$third" ] && third=$(cd "$third" && pwd)
module=$(cd "$(dirname "$module")" && pwd)/$(basename "$module")

# The guest's /lib/modules: the Debian kernel's modules (hard links, no
# copy) plus siw.ko, indexed by depmod.
modroot=$top/build/vm/modroot-$abi
if [ ! -d "$modroot/lib/modules/$abi/kernel" ]; then
	rm -rf "$modroot"
	mkdir -p "$modroot/lib/modules"
	cp -al "$kroot/lib/modules/$abi" "$modroot/lib/modules/$abi"
fi
mkdir -p "$modroot/lib/modules/$abi/updates"
cp "$module" "$modroot/lib/modules/$abi/updates/siw.ko"
depmod -b "$modroot" "$abi" || { echo "run.sh: depmod failed" >&2; exit 1; }

initrd=$top/build/vm/initramfs-$abi.cpio.gz
if [ ! -f "$initrd" ] || [ "$here/init-stage1" -nt "$initrd" ] ||
   [ "$here/mkinitramfs.sh" -nt "$initrd" ]; then
	"$here/mkinitramfs.sh" "$modroot" "$abi" "$initrd" || exit 1
fi

# boot_guest NAME OUTDIR GUEST_MODE EXTRA_ENV [QEMU ARGS...]
# The output share is OUTDIR, or $share when set.
boot_guest() {
	local name=$1 gout=$2 gmode=$3 genv=$4
	shift 4
	local gshare=${share:-$gout}
	mkdir -p "$gout"
	rm -f "$gout"/{exit-code,results.tap,dmesg.txt,console.log,booted}
	local append="console=ttyS0 panic=-1 oops=panic softlockup_panic=1"
	append+=" hung_task_panic=1 tsc=reliable no_timer_check mitigations=off"
	append+=" SIW_DIR=$top SIW_OUT=$gout SIW_SHARE=$gshare SIW_MODROOT=$modroot"
	append+=" SIW_KBOOT=$(realpath "$kroot/boot")"
	append+=" SIW_MODE=$gmode SIW_DEBUG=$debug SIW_TIMEOUT_SCALE=$scale"
	# This host's tree lacks what only guests may run; a release's tree
	# has it installed.
	[ "$root" = / ] && append+=" SIW_GUEST_PKGS=$top/build/guest-pkgs/root"
	# The debug kernel's checkers mostly WARN: the first one ends the
	# guest, with its report on the console.
	[ $debug = 1 ] && append+=" panic_on_warn=1"
	# 4-level paging for the KASAN kernel: with QEMU's LA57 CPU, 6.1's
	# identify_cpu() clears the CPU's feature bits for a moment at boot,
	# KASAN then takes a 5-level kernel address for a wild one, and an
	# interrupt in that window paniced a guest ("KASAN: wild-memory-access
	# in do_raw_spin_lock", from handle_edge_irq under identify_cpu).
	[ $debug = 1 ] && append+=" no5lvl"
	# NVMe without native multipath on the debug kernel: 6.1.192's
	# nvme_core flushes a namespace head's partition-scan work from
	# nvme_mpath_remove_disk() under the disk's open_mutex, which that
	# work takes, and lockdep reports the cycle ("possible circular
	# locking dependency", nvme_put_ns_head <- blkdev_put) on an ordinary
	# `nvme disconnect` while nvme-cli has the device open. No siw frame
	# is involved, but lockdep turns itself off after that report. Without
	# multipath there is no head disk and no such work; the RDMA traffic
	# is the same.
	[ $debug = 1 ] && append+=" nvme_core.multipath=N"
	append+=" $genv"
	# The third-party suites (../shared/third-party, or SIW_THIRD_PARTY),
	# read-only at a path of their own: a release's tree does not have
	# the host's.
	local third_args=()
	if [ -d "$third" ]; then
		third_args=(-fsdev "local,id=third,path=$third,readonly=on,security_model=none,multidevs=remap"
			-device virtio-9p-pci,fsdev=third,mount_tag=thirdparty)
		append+=" SIW_THIRD_PARTY=/run/third-party"
	fi
	local serial="file:$gout/console.log"
	[ "$gmode" = shell ] && serial=mon:stdio
	# exec: the caller's $! is then qemu itself, which a timeout kills.
	exec qemu-system-x86_64 -name "$name" -machine q35 -cpu max -smp 2 -m "$mem" \
		-nodefaults -no-reboot -display none -vga none \
		-kernel "$vmlinuz" -initrd "$initrd" -append "$append" \
		-fsdev local,id=hostroot,path="$root",readonly=on,security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
		-fsdev local,id=siwtree,path="$top",readonly=on,security_model=none,multidevs=remap \
		-device virtio-9p-pci,fsdev=siwtree,mount_tag=siwtree \
		-fsdev local,id=out,path="$gshare",security_model=none \
		-device virtio-9p-pci,fsdev=out,mount_tag=out \
		"${third_args[@]}" -serial "$serial" "$@"
}

# The console log is scanned for what must never happen in the guest
# kernel, with the patterns the guest uses for each test (log-scan.sh).
. "$here/log-scan.sh"
log_clean() {
	local report
	report=$(log_trouble "$1") || return 0
	echo "run.sh: kernel trouble in $1:" >&2
	echo "$report" >&2
	return 1
}

# A single guest's one NIC, a virtio-net PCI device on a QEMU hub. It is
# there for what needs siw on a NIC with a bus device behind it, as on a
# real machine (/sys/class/infiniband/<dev>/device/net: rdma-core's tests
# find their IP address that way); tests give it 192.0.2.0/24 addresses.
# Whatever it sends goes nowhere, but must be taken: a hub with no other
# port takes nothing, the NIC's transmit queue fills and the guest logs
# "NETDEV WATCHDOG: transmit queue 0 timed out" (seen on 6.12 under
# rdma-core's tests). The hub's other port is a datagram socket that
# sends to a Unix socket path nobody binds: every frame is dropped there,
# no traffic leaves QEMU.
lone_nic=(-netdev "dgram,id=sink,local.type=unix,local.path=$out/sink.sock,remote.type=unix,remote.path=$out/no-such-socket"
	-netdev hubport,id=sinkport,hubid=0,netdev=sink
	-netdev hubport,id=nic0,hubid=0
	-device virtio-net-pci,netdev=nic0,mac=52:54:00:00:01:01)
rm -f "$out/sink.sock" "$out/no-such-socket"

case "$mode" in
shell)
	boot_guest siw-shell "$out" shell "" "${lone_nic[@]}"
	exit 0
	;;
test|demo|bench)
	# The benchmarks' knobs reach the guest on the kernel command line.
	genv="SIW_TESTS=$(IFS=,; echo "$*")"
	for v in BENCH_REPS BENCH_SECS BENCH_MIB BENCH_SMOKE BENCH_PROFILE_SECS; do
		[ -n "${!v:-}" ] && genv+=" $v=${!v}"
	done
	for v in BLKTESTS BLKTESTS_GROUPS BLKTESTS_TESTS RDMA_CORE_TESTS BENCH_SCALE_COUNTS; do
		[ -n "${!v:-}" ] && genv+=" $v=${!v// /,}"
	done
	[ -n "$upstream" ] && genv+=" SIW_UPSTREAM=$(cd "$upstream" && pwd)"
	# A scratch disk for what needs a real filesystem (blktests): a
	# sparse file, so it costs only what the guest writes.
	start_single() {
		rm -f "$out/scratch.img"
		truncate -s 8G "$out/scratch.img"
		boot_guest "siw-$mode" "$out" "$mode" "$genv" "${lone_nic[@]}" \
			-drive file="$out/scratch.img",if=none,id=scratch,format=raw \
			-device virtio-blk-pci,drive=scratch,serial=siw-scratch &
		qemu=$!
	}
	start_single
	;;
twovm|interop)
	# Without names each guest runs guest-peer.sh (the tests); with
	# names, the benchmarks selftests/bench/NAME.sh in both guests;
	# interop: guest-interop.sh, upstream siw in guest 1.
	gmode=peer genv=
	if [ "$mode" = interop ]; then
		[ -f "$upstream/siw.ko" ] && [ -f "$upstream/siw-gso.ko" ] ||
			{ echo "run.sh: interop needs --upstream DIR with siw.ko and siw-gso.ko" >&2; exit 2; }
		gmode=interop genv="SIW_UPSTREAM=$(cd "$upstream" && pwd)"
	elif [ $# -gt 0 ]; then
		gmode=bench
		genv="SIW_TESTS=$(IFS=,; echo "$*")"
		for v in BENCH_REPS BENCH_SECS BENCH_MIB BENCH_TWOVM_SCALE; do
			[ -n "${!v:-}" ] && genv+=" $v=${!v}"
		done
	fi
	sock=$out/net.sock
	share=$out
	start_twovm() {
		rm -f "$sock" "$out"/vm*/done "$out"/barrier-* "$out"/vm*/barrier-* \
			"$out"/vm*/rc-*
		boot_guest siw-vm1 "$out/vm1" $gmode "SIW_VM=1 $genv" \
			-netdev stream,id=n0,server=on,addr.type=unix,addr.path="$sock" \
			-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:01 &
		qemu=$!
		# Guest 2's netdev connects once, at start: wait for guest
		# 1's socket (seconds, on a loaded machine).
		for _ in $(seq 600); do [ -S "$sock" ] && break; sleep 0.1; done
		boot_guest siw-vm2 "$out/vm2" $gmode "SIW_VM=2 $genv" \
			-netdev stream,id=n0,server=off,addr.type=unix,addr.path="$sock" \
			-device virtio-net-pci,netdev=n0,mac=52:54:00:00:02:02 &
		qemu2=$!
	}
	start_twovm
	;;
esac

# The whole boot's limit: each test runs under its own timeout (its
# "# timeout: N" header, else 300 s, as guest-run-tests.sh does), all
# times SIW_TIMEOUT_SCALE; tests the debug kernel skips do not count.
if [ -z "$timeout_s" ]; then
	timeout_s=1500
	if [ "$mode" = test ]; then
		timeout_s=300
		if [ $# -eq 0 ]; then
			files=("$top"/selftests/tests/[0-9]*.sh)
		else
			files=()
			for t in "$@"; do
				files+=("$top"/selftests/tests/[0-9]*-"$t".sh)
			done
		fi
		for f in "${files[@]}"; do
			[ $debug = 1 ] && grep -q '^# debug-skip:' "$f" 2>/dev/null && continue
			t=$(sed -n 's/^# timeout: *\([0-9]*\).*/\1/p' "$f" 2>/dev/null | head -1)
			timeout_s=$((timeout_s + ${t:-300}))
		done
	fi
	timeout_s=$((timeout_s * scale))
fi

echo "run.sh: whole-boot limit ${timeout_s}s" >&2

# Bounded wait: a hung guest is killed and counted as a failure; its
# console log stays in $out for reading.
#
# A boot that stalls before the guest's init (the debug kernel has hung
# in its early RCU self-tests, once in a few boots on a loaded machine)
# would otherwise hold the whole-boot limit, hours for the debug kernel.
# Each guest's stage 1 writes "booted" into its output directory; guests
# without it after SIW_BOOT_LIMIT seconds (300, times the timeout scale)
# are booted once more. So are guests whose emulator ended before they
# all booted, before siw was loaded anywhere: QEMU 7.2's TCG has
# segfaulted once while a second guest probed its PCI devices, and sid's
# 7.2.13 kernel has panicked once 1.2 s into its boot, in
# enqueue_task_fair with RIP inside a 5-byte NOP (code being patched),
# both in CI runs. The first boot's console log is kept as
# console-first-boot.log. A crash after boot is never retried: it fails.
boot_limit=$((${SIW_BOOT_LIMIT:-300} * scale))
# Two guests (twovm, interop) each have their own output directory.
gouts=$out
case $mode in twovm|interop) gouts="$out/vm1 $out/vm2" ;; esac
markers=
for g in $gouts; do markers+=" $g/booted"; done
kill_guest() {
	kill "$1" 2>/dev/null
	sleep 1
	kill -9 "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}
booted() {
	local m
	for m in $markers; do [ -f "$m" ] || return 1; done
}
boot_retries=1
timed_out=0 stalled=0 crashed=0
# again: kill every guest, then boot them once more if a retry is left
# (restart=1), else mark the run with flag $1 (stalled or crashed).
again() {
	local p g
	for p in $qemu ${qemu2:-}; do kill_guest "$p"; done
	for g in $gouts; do
		[ -f "$g/console.log" ] && mv "$g/console.log" "$g/console-first-boot.log"
	done
	if [ $boot_retries -gt 0 ]; then
		boot_retries=$((boot_retries - 1))
		echo "run.sh: booting again" >&2
		restart=1
	else
		eval "$1=1"
	fi
}
while :; do
	deadline=$((SECONDS + timeout_s))
	boot_deadline=$((SECONDS + boot_limit))
	restart=0
	live="$qemu ${qemu2:-}"
	# All guests are watched at once: one whose emulator dies is seen
	# at once, whichever it is.
	while [ -n "$live" ]; do
		still=
		for pid in $live; do
			if kill -0 "$pid" 2>/dev/null; then
				still+=" $pid"
				continue
			fi
			wait "$pid" 2>/dev/null
			qrc=$?
			# A guest that ends before every guest's init ran: its
			# kernel panicked (QEMU exits, -no-reboot) or QEMU died.
			if ! booted; then
				echo "run.sh: QEMU (pid $pid) ended (status $qrc) before every guest's init ran; last console lines:" >&2
				for g in $gouts; do
					tail -25 "$g/console.log" >&2
				done
				again crashed
				break 2
			fi
			# 128+N: QEMU died of signal N.
			[ $qrc -gt 128 ] || continue
			echo "run.sh: QEMU (pid $pid) died of signal $((qrc - 128))" >&2
			crashed=1
		done
		live=$still
		[ -n "$live" ] || break
		if [ $SECONDS -ge $deadline ]; then
			timed_out=1
			for pid in $live; do kill_guest "$pid"; done
			break
		fi
		if [ $SECONDS -ge $boot_deadline ] && ! booted; then
			echo "run.sh: no guest init after ${boot_limit}s: the boot stalled; last console lines:" >&2
			for m in $markers; do
				tail -3 "$(dirname "$m")/console.log" >&2
			done
			again stalled
			break
		fi
		sleep 1
	done
	[ $restart = 1 ] || break
	case $mode in
	twovm|interop) start_twovm ;;
	*) start_single ;;
	esac
done

rm -f "$out/scratch.img"
rc=0
if [ $timed_out = 1 ]; then
	echo "run.sh: guest timed out after ${timeout_s}s; console log in $out" >&2
	rc=1
fi
if [ $crashed = 1 ]; then
	echo "run.sh: QEMU crashed; console log in $out" >&2
	rc=1
fi
if [ $stalled = 1 ]; then
	echo "run.sh: the guest's boot stalled; console log in $out" >&2
	rc=1
fi
for g in $gouts; do
	log_clean "$g/console.log" || rc=1
	if [ ! -f "$g/exit-code" ]; then
		echo "run.sh: guest in $g did not finish (crash or timeout); last console lines:" >&2
		tail -30 "$g/console.log" >&2
		rc=1
	else
		# kselftest's 4: every case was skipped, none failed.
		case $(cat "$g/exit-code") in
		0|4) ;;
		*) rc=1 ;;
		esac
	fi
done
exit $rc
