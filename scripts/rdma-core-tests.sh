#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# rdma-core-tests.sh ROOT CACHE
#
# rdma-core's own test suite (its tests/ directory) at exactly the version
# of python3-pyverbs installed in the release tree ROOT (scripts/chroot.sh),
# unpacked, unmodified, from the upstream tarball of Debian's source
# package, which that release's apt downloads. Cached as
# CACHE/rdma-core-VERSION/tests; prints that path. 88-rdma-core.sh runs it
# (RDMA_CORE_TESTS) in a guest booted into ROOT.
set -euo pipefail

root=${1:?usage: rdma-core-tests.sh ROOT CACHE}
cache=${2:?usage: rdma-core-tests.sh ROOT CACHE}
die() { echo "rdma-core-tests.sh: $*" >&2; exit 1; }

ver=$(chroot "$root" dpkg-query -W -f='${Version}' python3-pyverbs 2>/dev/null) ||
	die "python3-pyverbs is not installed in $root"
upstream=${ver#*:}
upstream=${upstream%-*}
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
dir=$cache/rdma-core-$upstream
if [ -f "$dir/tests/run_tests.py" ]; then
	echo "$dir/tests"
	exit 0
fi

# The source archive's lines, beside the binary ones.
src=$root/etc/apt/sources.list.d/siw-sources.list
if [ ! -f "$src" ]; then
	lists=()
	for f in "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && lists+=("$f")
	done
	[ ${#lists[@]} -gt 0 ] || die "no apt sources in $root"
	sed -n 's/^deb /deb-src /p' "${lists[@]}" | sort -u > "$src.tmp"
	mv "$src.tmp" "$src"
	chroot "$root" apt-get -q update >&2 || die "apt-get update in $root failed"
fi
work=$root/tmp/siw-rdma-core-src
rm -rf "$work"
mkdir -p "$work"
chmod 0777 "$work"
# Only the upstream tarball is used: a mirror that lacks the .dsc (seen:
# 404) fails apt-get as a whole, and that is not a failure here.
chroot "$root" sh -c "cd /tmp/siw-rdma-core-src && apt-get source -q --download-only 'rdma-core=$ver'" >&2 ||
	echo "rdma-core-tests.sh: apt-get source reported an error; using the tarball if it came" >&2
tarball=$(ls "$work"/rdma-core_"$upstream".orig.tar.* 2>/dev/null | head -1)
[ -n "$tarball" ] || die "apt-get source rdma-core=$ver brought no upstream tarball (see above)"
rm -rf "$dir.tmp"
mkdir -p "$dir.tmp"
tar -xf "$tarball" -C "$dir.tmp" --strip-components=1 --wildcards '*/tests/*' ||
	die "unpacking tests/ from $tarball failed"
[ -f "$dir.tmp/tests/run_tests.py" ] || die "no tests/run_tests.py in $tarball"
rm -rf "$work" "$dir"
mv "$dir.tmp" "$dir"
echo "$dir/tests"
