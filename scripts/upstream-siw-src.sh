#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# upstream-siw-src.sh KVER CACHE
#
# The upstream siw driver (drivers/infiniband/sw/siw) of exactly the
# Debian kernel of target KVER, out of Debian's linux-source-<series>
# package of the same version, fetched by the apt of that kernel's release
# (this host's, or the tree scripts/chroot.sh keeps) and never installed.
# Two copies, to be built as out-of-tree modules against that kernel for
# the interoperability tests (selftests/vm/guest-interop.sh):
#   CACHE/upstream-siw-VERSION/siw      the source as Debian ships it
#   CACHE/upstream-siw-VERSION/siw-gso  the same with try_gso set (it is a
#                                       constant, false upstream: its GSO
#                                       flag in MPA is otherwise never on)
# Each has a Kbuild file naming the objects. Prints the directory. Nothing
# of it is copied into the tree or installed: it lives under build/.
set -euo pipefail

kver=${1:?usage: upstream-siw-src.sh KVER CACHE}
cache=${2:?usage: upstream-siw-src.sh KVER CACHE}
here=$(cd "$(dirname "$0")" && pwd)
die() { echo "upstream-siw-src.sh: $*" >&2; exit 1; }

version=$("$here/kernel.sh" --version "$kver") || die "no kernel version for $kver"
release=$("$here/kernel.sh" --release "$kver")
series=${version%%.*}.$(echo "$version" | cut -d. -f2)
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
out=$cache/upstream-siw-$version
if [ -f "$out/.complete" ]; then
	echo "$out"
	exit 0
fi

rm -rf "$out" && mkdir -p "$out/debs"
chmod 0777 "$out/debs"
pkg="linux-source-$series=$version"
echo "upstream-siw-src.sh: fetching $pkg" >&2
if [ -n "$release" ]; then
	root=$("$here/chroot.sh" "$release" "$cache/chroots")
	rm -rf "$root/tmp/siw-src-debs" && mkdir -p "$root/tmp/siw-src-debs"
	chmod 0777 "$root/tmp/siw-src-debs"
	chroot "$root" sh -c "cd /tmp/siw-src-debs && apt-get download -q '$pkg'" >&2 ||
		die "apt-get download $pkg in $release failed"
	mv "$root"/tmp/siw-src-debs/*.deb "$out/debs/"
	rm -rf "$root/tmp/siw-src-debs"
else
	(cd "$out/debs" && apt-get download -q "$pkg" >&2) || die "apt-get download $pkg failed"
fi
deb=$(ls "$out"/debs/linux-source-*.deb | head -1)
# The package holds the whole tree as one tarball; only siw is taken out.
dpkg-deb --fsys-tarfile "$deb" |
	tar -xO --wildcards './usr/src/linux-source-*.tar.*' |
	tar -xJ -C "$out" --wildcards '*/drivers/infiniband/sw/siw/*' ||
	die "no drivers/infiniband/sw/siw in $deb"
src=$(echo "$out"/linux-source-*/drivers/infiniband/sw/siw)
[ -f "$src/siw_main.c" ] || die "no siw_main.c in $deb"
mkdir -p "$out/siw"
cp -a "$src"/. "$out/siw/"
rm -rf "$out"/linux-source-* "$out/debs"
# Kbuild of its own: upstream's Makefile builds only with CONFIG_RDMA_SIW.
objs=$(sed -n 's/^[[:space:]]*\(siw_[a-z_]*\.o\).*/\1/p' "$out/siw/Makefile" | tr '\n' ' ')
[ -n "$objs" ] || die "no object list in upstream's Makefile"
printf 'obj-m := siw.o\nsiw-y := %s\n' "$objs" > "$out/siw/Kbuild"
cp -a "$out/siw" "$out/siw-gso"
grep -q '^const bool try_gso;$' "$out/siw-gso/siw_main.c" ||
	die "upstream's siw_main.c has no 'const bool try_gso;' line to set"
sed -i 's/^const bool try_gso;$/const bool try_gso = true;/' "$out/siw-gso/siw_main.c"
touch "$out/.complete"
echo "$out"
