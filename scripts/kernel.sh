#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# kernel.sh KVER CACHE
# kernel.sh --version KVER
# kernel.sh --release KVER
#
# Makes sure CACHE/<abi>/ holds Debian's kernel image, modules and build
# headers for the newest Debian kernel of series KVER (6.1: bookworm, this
# host's release; 6.12: trixie, Debian 13, with its updates and security
# archive; 7.2, or sid for whatever is newest there: Debian unstable),
# unpacked with dpkg -x and never installed on this host. Prints the ABI
# name (e.g. 6.1.0-57-amd64) on stdout.
#
# Layout of CACHE/<abi>/root: boot/vmlinuz-<abi>, lib/modules/<abi>/,
# usr/src/linux-headers-<abi>/ (a usable KDIR) for the series this host's
# apt knows. A series of another release is looked up and fetched by that
# release's apt in its tree (scripts/chroot.sh, under CACHE/../chroots),
# and only its image and modules are unpacked here: its headers' tools
# are built for that release's libraries, so modules for it are built
# inside its tree (selftests/prepare.sh).
#
# With --version it only prints the Debian version of that image (e.g.
# 6.1.192-3) and fetches nothing: debug-kernel.sh builds the same version.
# With --release it prints the release whose tree builds for KVER, or
# nothing for this host's own.
set -euo pipefail

mode=fetch
case "${1:-}" in
--version) mode=version; shift ;;
--release) mode=release; shift ;;
esac
kver=${1:?usage: kernel.sh KVER CACHE | kernel.sh --version KVER | kernel.sh --release KVER}
cache=
[ $mode = fetch ] && cache=${2:?usage: kernel.sh KVER CACHE}

die() { echo "kernel.sh: $*" >&2; exit 1; }
here=$(cd "$(dirname "$0")" && pwd)

# The release a series comes from, when it is not this host's own, and
# the version prefix to look for (none: the newest there).
# 6.12-rt is trixie's PREEMPT_RT flavour (the linux-image-rt-amd64
# meta-package).
release= prefix=$kver. meta=linux-image-amd64
case "$kver" in
6.1) ;;
6.12|trixie) release=trixie prefix=6.12. ;;
6.12-rt|trixie-rt) release=trixie prefix=6.12. meta=linux-image-rt-amd64 ;;
sid) release=sid prefix= ;;
7.*) release=sid ;;
*) die "unknown kernel series '$kver' (6.1, 6.12 or trixie, 6.12-rt, 7.2 or sid)" ;;
esac
if [ $mode = release ]; then
	echo "$release"
	exit 0
fi
croot=
if [ -n "$release" ]; then
	croot=$("$here/chroot.sh" "$release" "${cache:-build/kernels}/../chroots") ||
		die "no tree of $release (scripts/chroot.sh)"
fi
# apt_cache ARGS...: the apt-cache of the release the series comes from.
apt_cache() {
	if [ -n "$croot" ]; then
		chroot "$croot" apt-cache "$@"
	else
		apt-cache "$@"
	fi
}

# The meta-package version of that series, newest first in madison's list.
# (The awk programs read their whole input: one that exits early may kill
# apt-cache with SIGPIPE, which pipefail and set -e turn into a silent
# exit of this script.)
meta_version=$(apt_cache madison $meta |
	awk -v k="$prefix" '!v && index($3, k) == 1 { v = $3; print v }')
[ -n "$meta_version" ] ||
	die "no $meta of series $kver in the apt lists of ${release:-this host} (run scripts/deps.sh)"

image_pkg=$(apt_cache depends "$meta=$meta_version" |
	awk '!p && /Depends: linux-image-[0-9]/ { p = $2; print p }')
[ -n "$image_pkg" ] || die "cannot resolve the image package of $meta=$meta_version"
abi=${image_pkg#linux-image-}
image_version=$(apt_cache madison "$image_pkg" | awk 'NR == 1 { print $3 }')
[ -n "$image_version" ] || die "cannot resolve the version of $image_pkg"
if [ $mode = version ]; then
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
# The headers package names the common headers and kbuild packages it
# needs; take them from its dependencies.
if [ -n "$croot" ]; then
	# The image alone, by the release's own apt, in its tree. Newer
	# images are split: the package names linux-binary-<abi> (vmlinuz),
	# linux-modules-<abi> and linux-base-<abi>.
	parts=$(apt_cache depends "$image_pkg=$image_version" |
		awk -v a="$abi" '$1 == "Depends:" && ($2 == "linux-binary-" a ||
			$2 == "linux-modules-" a || $2 == "linux-base-" a) { print $2 }' | tr "\n" " ")
	rm -rf "$croot/tmp/siw-debs"
	mkdir -p "$croot/tmp/siw-debs"
	chmod 0777 "$croot/tmp/siw-debs"
	chroot "$croot" sh -c "cd /tmp/siw-debs && apt-get download -q '$image_pkg=$image_version' $parts" >&2
	mv "$croot"/tmp/siw-debs/*.deb "$dir/debs/"
	rm -rf "$croot/tmp/siw-debs"
else
	headers_deps=$(apt-cache depends "linux-headers-$abi=$image_version" |
		awk '/Depends: linux-(headers|kbuild)-/ { print $2 }')
	(
		cd "$dir/debs"
		# apt's sandbox user must be able to write here.
		chmod 0777 .
		apt-get download -q "$image_pkg=$image_version" \
			"linux-headers-$abi=$image_version" $headers_deps >&2
	)
fi
for deb in "$dir"/debs/*.deb; do
	dpkg -x "$deb" "$dir/root"
done
rm -rf "$dir/debs"
# Newer images ship merged-/usr: /usr/lib/modules/<abi>/, the kernel
# itself as vmlinuz in there, its configuration as config and System.map
# beside it. The layout above is what the VM expects, and tools such as
# blktests read /boot/config-<abi>.
if [ -d "$dir/root/usr/lib/modules/$abi" ] && [ ! -e "$dir/root/lib/modules/$abi" ]; then
	mkdir -p "$dir/root/lib/modules"
	mv "$dir/root/usr/lib/modules/$abi" "$dir/root/lib/modules/$abi"
fi
for f in vmlinuz config System.map; do
	if [ ! -f "$dir/root/boot/$f-$abi" ] && [ -f "$dir/root/lib/modules/$abi/$f" ]; then
		mkdir -p "$dir/root/boot"
		ln "$dir/root/lib/modules/$abi/$f" "$dir/root/boot/$f-$abi"
	fi
done

[ -f "$dir/root/boot/vmlinuz-$abi" ] || die "no vmlinuz in $image_pkg"
if [ -n "$croot" ]; then
	touch "$dir/.complete"
	echo "$abi"
	exit 0
fi
[ -f "$dir/root/usr/src/linux-headers-$abi/Makefile" ] || die "no headers for $abi"
# The headers' Makefile includes the common part by its installed path;
# point it at the unpacked copy so that nothing under /usr/src is needed.
root_abs=$(cd "$dir/root" && pwd)
sed -i "s|^include /usr/src/|include $root_abs/usr/src/|" \
	"$dir/root/usr/src/linux-headers-$abi/Makefile"
touch "$dir/.complete"
echo "$abi"
