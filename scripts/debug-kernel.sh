#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# debug-kernel.sh CACHE
#
# Makes sure CACHE/<abi>/ holds a debug guest kernel (lockdep, KASAN,
# kmemleak, debug objects, UBSAN, KFENCE...) built from Debian's
# linux-source of exactly the version of the 6.1 image that kernel.sh
# fetches, with selftests/vm/debug.config. Prints the ABI (the kernel's
# release string, e.g. 6.1.192-3-dbg-0123abcd) on stdout.
#
# The layout is kernel.sh's, so run.sh and the module build need no
# change: CACHE/<abi>/root/boot/vmlinuz-<abi>, root/lib/modules/<abi>/,
# root/usr/src/linux-headers-<abi> (the build tree: a usable KDIR).
#
# The ABI carries a hash of the config fragment and of the recipe version
# (SIW_DEBUG_RECIPE below), so a change to either builds a new kernel; an
# unchanged one is reused.
# Sources are unpacked once per Debian version under CACHE/src-<version>.
# DEBUG_KERNEL_JOBS sets make's -j (default: CPUs + 1).
set -euo pipefail

cache=${1:?usage: debug-kernel.sh CACHE}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
fragment=$top/selftests/vm/debug.config

die() { echo "debug-kernel.sh: $*" >&2; exit 1; }
log() { echo "debug-kernel.sh: $*" >&2; }

for tool in flex bison gcc make bc; do
	command -v "$tool" >/dev/null ||
		die "$tool missing: run scripts/deps.sh 6.1 debug (as root)"
done
[ -f /usr/include/libelf.h ] || die "libelf-dev missing: run scripts/deps.sh 6.1 debug (as root)"
[ -f /usr/include/openssl/ssl.h ] || die "libssl-dev missing: run scripts/deps.sh 6.1 debug (as root)"

# The version of the image the 6.1 suite boots: kernel.sh's choice.
image_version=$("$here/kernel.sh" --version 6.1) || exit 1
# grep reads all of apt-cache's output (no -q): a reader that stops early
# can kill the writer with SIGPIPE, a failure under pipefail.
apt-cache madison linux-source-6.1 | awk '{ print $3 }' |
	grep -x "$image_version" > /dev/null ||
	die "linux-source-6.1 $image_version (the 6.1 image's version) is not in the apt lists"

# What decides the kernel: the fragment, and the recipe below. Bump
# SIW_DEBUG_RECIPE when a change to this script changes what is built;
# other edits (comments, checks) reuse the cached kernel.
SIW_DEBUG_RECIPE=1
upstream=${image_version%%-*}     # 6.1.192
debrev=${image_version#*-}        # 3
key=$({ cat "$fragment"; echo "recipe $SIW_DEBUG_RECIPE"; } | sha256sum | cut -c1-8)
abi=$upstream-$debrev-dbg-$key
dir=$cache/$abi
if [ -f "$dir/.complete" ]; then
	echo "$abi"
	exit 0
fi

src=$cache/src-$image_version
if [ ! -f "$src/.complete" ]; then
	log "fetching linux-source-6.1 $image_version"
	rm -rf "$src"
	mkdir -p "$src/debs"
	chmod 0777 "$src/debs"   # apt's sandbox user writes here
	(cd "$src/debs" && apt-get download -q "linux-source-6.1=$image_version" >&2)
	dpkg -x "$src"/debs/linux-source-6.1_*.deb "$src/pkg"
	tar -xJf "$src"/pkg/usr/src/linux-source-6.1.tar.xz -C "$src"
	rm -rf "$src/debs" "$src/pkg"
	[ -f "$src/linux-source-6.1/Makefile" ] || die "no kernel tree in linux-source-6.1"
	touch "$src/.complete"
fi
ksrc=$src/linux-source-6.1

log "building $abi (about 40 minutes on 2 CPUs; log in $dir/build.log)"
rm -rf "$dir"
obj=$dir/root/usr/src/linux-headers-$abi
mkdir -p "$obj" "$dir/root/boot"
start=$SECONDS
jobs=${DEBUG_KERNEL_JOBS:-$(($(nproc) + 1))}
kmake() { make -C "$ksrc" O="$obj" -j"$jobs" "$@" >> "$dir/build.log" 2>&1; }

# defconfig, the guest basics, this project's fragment, and the release
# name; merge_config.sh then runs olddefconfig.
printf 'CONFIG_LOCALVERSION="-%s-dbg-%s"\n' "$debrev" "$key" > "$dir/localversion.config"
kmake defconfig || die "defconfig failed (see $dir/build.log)"
(cd "$ksrc" && scripts/kconfig/merge_config.sh -m -O "$obj" "$obj/.config" \
	kernel/configs/kvm_guest.config "$fragment" "$dir/localversion.config" \
	>> "$dir/build.log" 2>&1) || die "merge_config.sh failed (see $dir/build.log)"
kmake olddefconfig || die "olddefconfig failed (see $dir/build.log)"

# Every option the fragment names must have survived olddefconfig.
bad=0
while IFS= read -r line; do
	case "$line" in CONFIG_*=*) ;; *) continue ;; esac
	opt=${line%%=*} val=${line#*=}
	if [ "$val" = n ]; then
		grep -q "^$opt=" "$obj/.config" && { log "$opt should be off"; bad=1; }
	else
		grep -qx "$opt=$val" "$obj/.config" ||
			{ log "$opt=$val was dropped ($(grep "^$opt=\|^# $opt is" "$obj/.config" || echo absent))"; bad=1; }
	fi
done < "$fragment"
[ $bad = 0 ] || die "the configuration lost options (dependencies?); see above"

kmake bzImage modules || die "build failed (see the end of $dir/build.log)"
release=$(cat "$obj/include/config/kernel.release")
[ "$release" = "$abi" ] || die "kernel release is '$release', expected '$abi'"
kmake INSTALL_MOD_PATH="$dir/root" modules_install ||
	die "modules_install failed (see $dir/build.log)"
cp "$obj/arch/x86/boot/bzImage" "$dir/root/boot/vmlinuz-$abi"
cp "$obj/.config" "$dir/root/boot/config-$abi"
# modules_install links build/ and source/ to where it was built from.
rm -f "$dir/root/lib/modules/$abi/build" "$dir/root/lib/modules/$abi/source"
log "built $abi in $(((SECONDS - start) / 60)) min $(((SECONDS - start) % 60)) s"
echo "$((SECONDS - start))" > "$dir/build-seconds"
touch "$dir/.complete"
echo "$abi"
