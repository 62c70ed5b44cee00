#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# kernel.sh KVER CACHE
# kernel.sh --version KVER
#
# Makes sure CACHE/<abi>/ holds Debian's kernel image, modules and build
# headers for the newest Debian kernel of series KVER (6.1: bookworm,
# 6.12: bookworm-backports), unpacked with dpkg -x and never installed on
# this host. Prints the ABI name (e.g. 6.1.0-57-amd64) on stdout.
#
# Layout of CACHE/<abi>/root: boot/vmlinuz-<abi>, lib/modules/<abi>/,
# usr/src/linux-headers-<abi>/ (a usable KDIR).
#
# With --version it only prints the Debian version of that image (e.g.
# 6.1.192-3) and fetches nothing: debug-kernel.sh builds the same version.
set -euo pipefail

version_only=0
if [ "${1:-}" = --version ]; then
	version_only=1
	shift
fi
kver=${1:?usage: kernel.sh KVER CACHE | kernel.sh --version KVER}
cache=
[ $version_only = 1 ] || cache=${2:?usage: kernel.sh KVER CACHE}

die() { echo "kernel.sh: $*" >&2; exit 1; }

# The meta-package version of that series, newest first in madison's list.
# (The awk programs read their whole input: one that exits early may kill
# apt-cache with SIGPIPE, which pipefail and set -e turn into a silent
# exit of this script.)
meta_version=$(apt-cache madison linux-image-amd64 |
	awk -v k="$kver." '!v && index($3, k) == 1 { v = $3; print v }')
[ -n "$meta_version" ] ||
	die "no linux-image-amd64 of series $kver in the apt lists (is bookworm-backports configured for 6.12? run scripts/deps.sh)"

image_pkg=$(apt-cache depends "linux-image-amd64=$meta_version" |
	awk '!p && /Depends: linux-image-[0-9]/ { p = $2; print p }')
[ -n "$image_pkg" ] || die "cannot resolve the image package of linux-image-amd64=$meta_version"
abi=${image_pkg#linux-image-}
image_version=$(apt-cache madison "$image_pkg" | awk 'NR == 1 { print $3 }')
[ -n "$image_version" ] || die "cannot resolve the version of $image_pkg"
if [ $version_only = 1 ]; then
	echo "$image_version"
	exit 0
fi

dir=$cache/$abi
if [ -f "$dir/.complete" ]; then
	echo "$abi"
	exit 0
fi

echo "kernel.sh: fetching Debian kernel $abi ($image_version)" >&2
rm -rf "$dir"
mkdir -p "$dir/debs"
# The headers package of 6.12 names the common headers and kbuild
# packages it needs; take them from its dependencies.
headers_deps=$(apt-cache depends "linux-headers-$abi=$image_version" |
	awk '/Depends: linux-(headers|kbuild)-/ { print $2 }')
(
	cd "$dir/debs"
	# apt's sandbox user must be able to write here.
	chmod 0777 .
	apt-get download -q "$image_pkg=$image_version" \
		"linux-headers-$abi=$image_version" $headers_deps >&2
)
for deb in "$dir"/debs/*.deb; do
	dpkg -x "$deb" "$dir/root"
done
rm -rf "$dir/debs"

[ -f "$dir/root/boot/vmlinuz-$abi" ] || die "no vmlinuz in $image_pkg"
[ -f "$dir/root/usr/src/linux-headers-$abi/Makefile" ] || die "no headers for $abi"
# The headers' Makefile includes the common part by its installed path;
# point it at the unpacked copy so that nothing under /usr/src is needed.
root_abs=$(cd "$dir/root" && pwd)
sed -i "s|^include /usr/src/|include $root_abs/usr/src/|" \
	"$dir/root/usr/src/linux-headers-$abi/Makefile"
touch "$dir/.complete"
echo "$abi"
