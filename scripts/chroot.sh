#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# chroot.sh RELEASE CACHE [PACKAGE...]
#
# Makes sure CACHE/chroot-RELEASE/ holds a minimal Debian RELEASE
# (bookworm, trixie, sid...) made by debootstrap from deb.debian.org, with
# PACKAGEs installed by that release's own apt, and prints its path. What
# is built or run there sees that release's compiler, headers and
# libraries, as a user of the release does.
#
# The tree is made once per release (debootstrap takes minutes); package
# lists are refreshed once a day, and missing packages are added on each
# call. CACHE/chroot-RELEASE/.siw-packages lists what was asked for.
# Needs root (debootstrap, chroot); never touches the host's own system.
set -euo pipefail

release=${1:?usage: chroot.sh RELEASE CACHE [PACKAGE...]}
cache=${2:?usage: chroot.sh RELEASE CACHE [PACKAGE...]}
shift 2
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}

die() { echo "chroot.sh: $*" >&2; exit 1; }
log() { echo "chroot.sh: $*" >&2; }

[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot)"
case "$release" in
*[!a-z0-9-]*|"") die "not a release name: $release" ;;
esac
command -v debootstrap >/dev/null ||
	die "debootstrap missing: apt-get install debootstrap (scripts/deps.sh installs it)"
mkdir -p "$cache"
cache=$(cd "$cache" && pwd)
root=$cache/chroot-$release

# in_root CMD...: CMD inside the tree, with /proc, /sys and /dev there.
in_root() {
	local m rc=0
	for m in proc sys dev; do
		mountpoint -q "$root/$m" || mount --bind "/$m" "$root/$m"
	done
	LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive chroot "$root" "$@" || rc=$?
	for m in dev sys proc; do
		umount "$root/$m" 2>/dev/null || umount -l "$root/$m" 2>/dev/null || true
	done
	return $rc
}

if [ ! -f "$root/.siw-complete" ]; then
	log "debootstrap $release into $root (once)"
	rm -rf "$root"
	debootstrap --variant=minbase "$release" "$root" "$mirror" >&2 ||
		die "debootstrap $release failed (see above)"
	# No daemon may start inside the tree.
	printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
	chmod 755 "$root/usr/sbin/policy-rc.d"
	# A mirror's Release may be older than its Valid-Until (a frozen
	# mirror, a machine whose clock runs ahead): a build tree, not a
	# system, so take it rather than fail.
	echo 'Acquire::Check-Valid-Until "false";' \
		> "$root/etc/apt/apt.conf.d/99siw-valid-until"
	: > "$root/.siw-packages"
	touch "$root/.siw-complete"
fi

# A stable release as its users have it: with its point-release updates
# and security archive (where its kernel's fixes land first). sid has
# neither.
stamp=$root/.siw-apt-updated
extra=$root/etc/apt/sources.list.d/siw-updates.list
case "$release" in
sid|unstable|experimental) ;;
*)
	if [ ! -f "$extra" ]; then
		printf 'deb %s %s-updates main\ndeb %s-security %s-security main\n' \
			"$mirror" "$release" "$mirror" "$release" > "$extra"
		rm -f "$stamp"
	fi ;;
esac

# The package lists, once a day: a release like sid moves.
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
	in_root apt-get -q update >&2 || die "apt-get update in $release failed"
	touch "$stamp"
fi

missing=()
for p in "$@"; do
	in_root dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
		grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	log "installing in $release: ${missing[*]}"
	in_root apt-get -q -y --no-install-recommends install "${missing[@]}" >&2 ||
		die "apt-get install in $release failed: ${missing[*]}"
	printf '%s\n' "${missing[@]}" >> "$root/.siw-packages"
fi
echo "$root"
