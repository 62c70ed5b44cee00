#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# timeout: 5400
# blktests over siw, unmodified: the suite at the commit pinned in
# ../shared/third-party (or a checkout given as BLKTESTS=/path), its
# groups in BLKTESTS_GROUPS (for example "nvme srp"), or only the tests
# in BLKTESTS_TESTS (for example "nvme/003 srp/002"); with neither, CI's
# subset below. The nvme
# group runs with nvme_trtype=rdma; both groups bind siw themselves
# (`modprobe siw`, `rdma link add` on every netdev with carrier: here the
# guest's NIC, which gets 192.0.2.61) and unload it when done.
#
# blktests and its results live on XFS on the guest's scratch disk (a
# sparse file run.sh attaches): nvmet opens file-backed namespaces with
# O_DIRECT, which tmpfs refuses. Each test blktests runs is one case
# (blktests-tap.py); a test it does not run is listed with its reasons
# and is not a case, and so is a test that blktests-expect.txt says fails
# on this kernel series for a reason that is not siw's.
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")" && pwd)
third=${SIW_THIRD_PARTY:-$SIW_DIR/../shared/third-party}
fs=/tmp/blktests-fs
# Unpacked and built by the host for this guest's userland (prepare.sh).
prebuilt=$SIW_DIR/build/blktests
addr=192.0.2.61
nic= udevd=

teardown() {
	cd /
	[ -n "$udevd" ] && udevadm control --exit 2>/dev/null
	umount "$fs" 2>/dev/null
	umount "/lib/modules/$(uname -r)/kernel/drivers/infiniband/sw" 2>/dev/null
	if [ -n "$bin" ]; then
		umount /boot 2>/dev/null
		umount /lib/modules 2>/dev/null
	fi
	[ -n "$nic" ] && ip addr flush dev "$nic" 2>/dev/null
	[ -n "$nic" ] && ip link set "$nic" down 2>/dev/null
	for l in $(siw_devices); do rdma link delete "$l" 2>/dev/null; done
}
at_exit teardown

# Whether blktests can read this kernel's release (see alias_release).
real=$(uname -r) alias= bin=
if ! [[ $(echo "$real" | sed 's/-.*//;s/[^.0-9]//') =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
	alias=$(echo "$real" | sed 's/+[^-]*//')
	bin=/run/blktests-bin
fi

if [ -n "$bin" ]; then plan 9; else plan 8; fi
require mkfs.xfs gawk fio nvme rdma
src=${BLKTESTS:-}
tarball=$(ls "$third"/blktests-*.tar.gz 2>/dev/null | head -1)
if [ -n "$src" ]; then
	check "blktests: $src (BLKTESTS)" test -x "$src/check" || exit 1
elif [ -n "$tarball" ]; then
	check "blktests: $tarball" test -r "$tarball" || exit 1
else
	fail "blktests: none found" \
		"neither BLKTESTS=/path nor $third/blktests-*.tar.gz: not run"
	exit 1
fi

# The scratch disk: the virtio disk whose serial run.sh set (no udev in
# the guest: its driver is loaded here, and the disk waited for).
scratch_disk() {
	local b
	for b in /sys/block/vd*; do
		[ "$(cat "$b/serial" 2>/dev/null)" = siw-scratch ] &&
			echo "/dev/${b##*/}" && return 0
	done
	return 1
}
modprobe virtio_blk 2>/dev/null
wait_for 5 scratch_disk
scratch=$(scratch_disk)
check "XFS on the scratch disk ${scratch:-(none)}, mounted on $fs" sh -c \
	"[ -n '$scratch' ] && mkfs.xfs -q -f $scratch && mkdir -p $fs && mount $scratch $fs" || exit 1
if [ -n "$src" ]; then
	check "blktests copied and built" sh -c \
		"cp -a '$src' $fs/blktests && make -s -C $fs/blktests" || exit 1
elif [ "$(cut -d' ' -f2 "$prebuilt/.siw-built-for" 2>/dev/null)" = "${tarball##*/}" ]; then
	check "blktests as the host built it for this userland ($prebuilt), copied" \
		cp -a "$prebuilt/blktests" $fs/blktests || exit 1
else
	check "blktests unpacked and built" sh -c \
		"tar -xzf '$tarball' -C $fs && make -s -C $fs/blktests" || exit 1
fi

nic=$(guest_nic)
check "the guest's NIC ${nic:-(none found)} up with $addr" sh -c \
	"[ -n '$nic' ] && ip addr add $addr/24 dev '$nic' && ip link set '$nic' up" || exit 1
modprobe configfs 2>/dev/null
mountpoint -q /sys/kernel/config || mount -t configfs none /sys/kernel/config
# blktests loads a module a test asks for and unloads it after the test;
# nvme/047 and nvme/051 call losetup without asking for loop, which
# Debian builds as a module ("losetup: cannot find an unused loop
# device"). Loaded here, it stays for every test.
check "the loop module is loaded (nvme/047 and nvme/051 use it unasked)" modprobe loop
# blktests binds siw itself and refuses to run with siw already loaded.
unload_siw
# The srp group first checks the kernel's version (_have_kver), reading
# the third field of `uname -r` up to its first "-" as a number, with only
# one other character removed. Debian's "6.12.118+deb13-amd64" leaves
# "118deb13": bash stops ./check there ("value too great for base"),
# before any srp test and before the tests after them. blktests itself is
# not changed; the environment it reads is: for ./check, `uname -r` (a
# program first on its PATH) names the release without Debian's "+debNN"
# ("6.12.118-amd64"), and that name leads, through symbolic links in
# overlays, to the kernel's modules and configuration, which blktests
# looks up by it. modprobe and everything else ask the kernel itself.
# (Before the overlay below: one over /lib/modules hides mounts under it.)
alias_release() {
	mkdir -p $bin /run/blktests-mod/upper /run/blktests-mod/work \
		/run/blktests-boot/upper /run/blktests-boot/work || return 1
	cat > $bin/uname <<-EOS || return 1
	#!/bin/sh
	[ "\$*" = -r ] && exec echo $alias
	exec /usr/bin/uname "\$@"
	EOS
	chmod 755 $bin/uname &&
	ln -s "$real" "/run/blktests-mod/upper/$alias" &&
	mount -t overlay overlay -o lowerdir=/lib/modules,upperdir=/run/blktests-mod/upper,workdir=/run/blktests-mod/work /lib/modules &&
	ln -s "config-$real" "/run/blktests-boot/upper/config-$alias" &&
	mount -t overlay overlay -o lowerdir=/boot,upperdir=/run/blktests-boot/upper,workdir=/run/blktests-boot/work /boot &&
	[ "$(PATH=$bin:$PATH uname -r | sed 's/-.*//;s/[^.0-9]//')" = "${alias%%-*}" ] &&
	test -d "/lib/modules/$alias/kernel" && test -f "/boot/config-$alias"
}
if [ -n "$bin" ]; then
	check "blktests reads kernel release $alias for $real (uname first on its PATH; /lib/modules/$alias and /boot/config-$alias lead to $real's)" \
		alias_release || exit 1
fi

# blktests looks for a module's file under /lib/modules/$(uname -r)/kernel
# only, while siw, as DKMS installs it, is under updates/: without a name
# under kernel/ its srp group is "not run" ("module siw is not
# available"). The guest's module tree is read-only; a symbolic link in
# an overlay gives siw that name (a DKMS user makes the same link).
sw=/lib/modules/$(uname -r)/kernel/drivers/infiniband/sw
siwko=$(modinfo -n siw 2>/dev/null)
check "siw.ko ($siwko) also named under $sw, as blktests expects" sh -c "
	mkdir -p /run/blktests-sw/upper/siw /run/blktests-sw/work &&
	ln -sf '$siwko' /run/blktests-sw/upper/siw/siw.ko &&
	mount -t overlay overlay -o lowerdir=$sw,upperdir=/run/blktests-sw/upper,workdir=/run/blktests-sw/work $sw &&
	test -e $sw/siw/siw.ko" || exit 1

# blktests' srp group finds its multipath devices by the links udev makes
# (/dev/disk/by-id/dm-uuid-mpath-*): udevd runs for this stage, with the
# host's rules and multipath-tools' (guest-pkgs.sh), for block devices
# only (a rule renaming the NIC would pull it from under the test).
udevd=
if [ -x /lib/systemd/systemd-udevd ]; then
	/lib/systemd/systemd-udevd --daemon && udevd=1 &&
		udevadm trigger --subsystem-match=block --action=add &&
		udevadm settle -t 30
fi
check "udevd runs for the srp group's multipath links" test -n "$udevd"

# Lists reach the guest with commas for spaces (run.sh).
# Without either, CI's subset: the whole groups take longer than CI has
# (about 55 minutes under emulation); see testing.rst.
ci_subset="nvme/003 nvme/004 nvme/006 nvme/008 srp/001"
what=${BLKTESTS_TESTS:-${BLKTESTS_GROUPS:-$ci_subset}}
what=${what//,/ }
log=/tmp/blktests.log
echo "+ (cd $fs/blktests && ${bin:+PATH=$bin:\$PATH }nvme_trtype=rdma ./check $what)"
(cd "$fs/blktests" && PATH=${bin:+$bin:}$PATH nvme_trtype=rdma \
	timeout $((5100 * SIW_TIMEOUT_SCALE)) ./check $what) > "$log" 2>&1
rc=$?
cp "$log" "$SIW_OUT/blktests.log" 2>/dev/null
tar -czf "$SIW_OUT/blktests-results.tar.gz" -C "$fs/blktests" results 2>/dev/null
echo "# ./check: $(ktap_status_text "$rc")"
# blktests_cases LOG (an argument: subtest has a local of that name)
blktests_cases() {
	python3 "$here/blktests-tap.py" -x "$here/blktests-expect.txt" \
		"$fs/blktests/results" "$1" "$fs/blktests" $what | ktap_verdicts
	return "${PIPESTATUS[0]}"
}
subtest "blktests $what over siw: every test that runs passes" \
	blktests_cases "$log"
