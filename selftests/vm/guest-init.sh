#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Stage 2 of the guest, PID 1, running on the root tree run.sh --root
# gave (this host's or a release's, read-only over 9p) with tmpfs where
# programs write. Runs what SIW_MODE asks for, writes the verdict into the
# output share, and powers off.
#
#   SIW_MODE=test   run the in-VM tests named in SIW_TESTS (or all)
#   SIW_MODE=shell  an interactive shell on the console
#   SIW_MODE=demo   the README's demo
#   SIW_MODE=bench  the benchmarks named in SIW_TESTS (selftests/bench/)
#   SIW_MODE=peer   one guest of the two-VM topology (SIW_VM=1 or 2)
#   SIW_MODE=interop  one guest of the interoperability run with upstream
#                   siw (guest-interop.sh)
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=${TERM:-linux} LANG=C.UTF-8
cd /

poweroff_now() {
	sync
	# PID 1 must not exit while the power-off runs (that panics the
	# kernel: "Attempted to kill init"), and once the power-off has shut
	# the virtio devices down no program can be started from the 9p root
	# (the debug kernel's slow power-off lost that race to a sleep): it
	# waits in a builtin, reading a FIFO on tmpfs that nobody writes.
	mkfifo /tmp/poweroff.fifo
	exec 8<> /tmp/poweroff.fifo
	echo o > /proc/sysrq-trigger
	read -r -t 30 -u 8
}

mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts 2>/dev/null
ln -sf /proc/self/fd /dev/fd 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# POSIX shared memory (Python's multiprocessing, used by rdma-core's
# rdma_cm tests) lives in /dev/shm, which devtmpfs does not provide.
mkdir -p /dev/shm && mount -t tmpfs -o mode=1777 tmpfs /dev/shm
hostname "siw-guest${SIW_VM:-}"
ip link set lo up
# The first TCP connection of each family seeds the kernel's hash secrets
# (net_get_random_once) and then rewrites a static key in the TCP lookup
# path from a work item. Under TCG that live code patching, racing a
# packet on the other vCPU, once killed a guest with a stray int3 in
# inet6_ehashfn. Trigger it here, while nothing else runs, and let the
# work item finish: two refused connects over loopback are enough. That
# work item leaves no trace user space can poll for, so this waits a
# second instead.
for a in 127.0.0.1 ::1; do
	(exec 3<>"/dev/tcp/$a/9") 2>/dev/null
done
sleep 1
echo 1 > /proc/sys/kernel/sysrq
# Tracing flips static keys in the scheduler's hot path: enabling or
# disabling any trace event (81-walkthrough's siw events, trace-cmd)
# registers or drops ftrace's sched_switch and sched_wakeup probes (it
# records task names), and the kernel patches __schedule live. Under TCG
# that patching raced the other vCPU and killed a 6.12 guest with a stray
# int3 in __schedule, as above. Those events, enabled for the guest's
# whole life in a tracing instance of their own that records nothing,
# keep the keys on: nothing in __schedule is patched again.
tr=/sys/kernel/tracing
mountpoint -q $tr || mount -t tracefs tracefs $tr 2>/dev/null
if mkdir $tr/instances/siw-keys 2>/dev/null; then
	echo 0 > $tr/instances/siw-keys/tracing_on
	for e in sched_switch sched_wakeup sched_wakeup_new; do
		echo 1 > $tr/instances/siw-keys/events/sched/$e/enable
	done
fi
# On this host's tree, the programs scripts/guest-pkgs.sh unpacked
# (iscsiadm, multipathd, pyverbs...) appear at their usual paths: its
# /usr laid over ours, read-only, and its /etc under ours (below). A
# release's tree has them installed.
pkgs=${SIW_GUEST_PKGS:-}
etc_lower=/etc
if [ -n "$pkgs" ] && [ -d "$pkgs/usr" ]; then
	# /lib is /usr/lib: the overlay hides stage 1's bind of the guest
	# kernel's modules, so bind them again on top.
	if mount -t overlay overlay -o "ro,lowerdir=$pkgs/usr:/usr" /usr; then
		mount --bind "$SIW_MODROOT/lib/modules" /usr/lib/modules ||
			echo "guest: binding the modules over the overlay failed" > /dev/console
	else
		echo "guest: laying $pkgs/usr over /usr failed" > /dev/console
	fi
	etc_lower=$pkgs/etc:/etc
fi
# /etc and /var writable, in memory: daemons and tests write there
# (iscsid's node records under /var/lib/iscsi or /etc/iscsi, its
# initiator name, blktests' configuration, nfsd's state).
for d in etc var; do
	mkdir -p /run/$d/upper /run/$d/work
	lower=/$d
	[ $d = etc ] && lower=$etc_lower
	mount -t overlay overlay \
		-o "lowerdir=$lower,upperdir=/run/$d/upper,workdir=/run/$d/work" /$d ||
		echo "guest: a writable /$d over $lower failed" > /dev/console
done
# /boot as for the kernel running: its config-$(uname -r) is where tests
# (blktests) look for the kernel's configuration.
[ -d "${SIW_KBOOT:-}" ] && mount --bind "$SIW_KBOOT" /boot
# Every message reaches the console log the host scans.
echo 8 > /proc/sys/kernel/printk

out=$SIW_OUT
echo "guest: kernel $(uname -r), mode ${SIW_MODE}" > /dev/console

case "$SIW_MODE" in
test)
	"$SIW_DIR/selftests/vm/guest-run-tests.sh" ${SIW_TESTS//,/ } > "$out/results.tap" 2>"$out/tests.stderr"
	echo $? > "$out/exit-code"
	;;
demo)
	"$SIW_DIR/selftests/demo.sh" 2>&1 | tee "$out/demo.log" > /dev/console
	echo "${PIPESTATUS[0]}" > "$out/exit-code"
	;;
bench)
	rc=0
	for b in ${SIW_TESTS//,/ }; do
		"$SIW_DIR/selftests/bench/$b.sh" > "$out/bench-$b.log" 2>&1 || rc=1
	done
	echo $rc > "$out/exit-code"
	;;
peer|interop)
	"$SIW_DIR/selftests/vm/guest-run-tests.sh" "$SIW_DIR/selftests/vm/guest-$SIW_MODE.sh" \
		> "$out/results.tap" 2>"$out/tests.stderr"
	echo $? > "$out/exit-code"
	;;
shell)
	echo "guest: interactive shell; the siw tree is $SIW_DIR; 'exit' powers off" > /dev/console
	setsid bash -c "exec bash -i </dev/ttyS0 >/dev/ttyS0 2>&1"
	echo 0 > "$out/exit-code"
	;;
*)
	echo "guest: unknown SIW_MODE '$SIW_MODE'" > /dev/console
	echo 2 > "$out/exit-code"
	;;
esac
dmesg > "$out/dmesg.txt" 2>&1
poweroff_now
