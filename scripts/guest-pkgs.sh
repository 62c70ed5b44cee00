#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# guest-pkgs.sh OUTDIR
#
# Programs the in-VM tests need but the host must not run: the initiators,
# daemons and tools of the third-party suites and ULP tests (open-iscsi's
# iscsiadm and iscsid, multipathd, sg3-utils, xfsprogs, rdma-core's
# pyverbs). Installing them on the host would start their services there
# (iscsid, multipathd and its device-mapper modules), so they are
# downloaded and unpacked under OUTDIR/root instead, together with every
# dependency the host lacks; the guest lays OUTDIR/root/usr and
# OUTDIR/root/etc over its own /usr and /etc (guest-init.sh), and sees
# them at their usual paths. Nothing is installed on the host.
#
# Reuses OUTDIR when its stamp names the same packages at the same
# versions. Needs the apt lists (deps.sh refreshes them) and the network
# on a first run. Prints nothing but errors on success.
set -euo pipefail

out=${1:?usage: guest-pkgs.sh OUTDIR}
. "$(dirname "$0")/packages.sh"
packages=("${siw_guest_only_packages[@]}")

die() { echo "guest-pkgs.sh: $*" >&2; exit 1; }

# What apt would install on this host for them: the packages themselves
# and the dependencies the host lacks, with versions.
sim=$(LC_ALL=C apt-get -s -o Debug::NoLocking=1 install "${packages[@]}" 2>&1) ||
	die "apt-get cannot resolve ${packages[*]}: $sim"
want=$(sed -n 's/^Inst \([^ ]*\) (\([^ ]*\) .*/\1=\2/p' <<< "$sim" | sort)

stamp="$out/stamp"
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -d "$out/root" ]; then
	exit 0
fi

tmp=$out.tmp
rm -rf "$tmp"
mkdir -p "$tmp/debs" "$tmp/root"
if [ -n "$want" ]; then
	# shellcheck disable=SC2086 # one package=version per word
	(cd "$tmp/debs" && apt-get download -q=2 -o APT::Sandbox::User=root $want) ||
		die "downloading $(tr '\n' ' ' <<< "$want")failed"
	for deb in "$tmp/debs"/*.deb; do
		dpkg -x "$deb" "$tmp/root" || die "unpacking $deb failed"
	done
fi
rm -rf "$tmp/debs"
# Debian 12 merged /usr: a package's /lib, /bin and /sbin are /usr's.
for d in bin sbin lib lib64; do
	[ -d "$tmp/root/$d" ] || continue
	[ -L "$tmp/root/$d" ] && continue
	mkdir -p "$tmp/root/usr/$d"
	cp -a "$tmp/root/$d/." "$tmp/root/usr/$d/"
	rm -rf "$tmp/root/$d"
done
mkdir -p "$tmp/root/usr" "$tmp/root/etc"
echo "$want" > "$tmp/stamp"
rm -rf "$out"
mv "$tmp" "$out"
