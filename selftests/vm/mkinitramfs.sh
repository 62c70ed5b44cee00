#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# mkinitramfs.sh MODROOT ABI OUTPUT
#
# A minimal initramfs: static busybox, the few modules needed to mount the
# host's root filesystem over virtio-9p (taken from the guest kernel's own
# module tree MODROOT/lib/modules/ABI, decompressed), and init-stage1.
set -euo pipefail

modroot=${1:?usage}
abi=${2:?usage}
out=${3:?usage}
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "mkinitramfs.sh: $*" >&2; exit 1; }
[ -x /bin/busybox ] || die "/bin/busybox missing: apt-get install busybox-static"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work"/{bin,dev,proc,sys,newroot,modules}
cp /bin/busybox "$work/bin/busybox"
ldd /bin/busybox >/dev/null 2>&1 && die "/bin/busybox is not static: install busybox-static"

# Modules in load order, dependencies first; built-in ones need nothing.
: > "$work/modules/order"
modprobe -d "$modroot" -S "$abi" --show-depends -a \
	virtio_pci 9pnet_virtio 9p 2>/dev/null |
while read -r kind path _; do
	[ "$kind" = insmod ] || continue
	name=$(basename "$path")
	name=${name%.xz}
	name=${name%.zst}
	grep -qx "$name" "$work/modules/order" && continue
	case "$path" in
	*.xz) xz -dc "$path" > "$work/modules/$name" ;;
	*.zst) zstd -qdc "$path" > "$work/modules/$name" ;;
	*) cp "$path" "$work/modules/$name" ;;
	esac
	echo "$name" >> "$work/modules/order"
done
grep -q '^9p.ko$' "$work/modules/order" || die "9p module not found for $abi under $modroot"

cp "$here/init-stage1" "$work/init"
chmod 0755 "$work/init"
(cd "$work" && find . | cpio -o -H newc --quiet) | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
