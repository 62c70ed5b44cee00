#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# deps.sh [KVER] [debug]
#
# Installs what building and testing siw needs on a Debian 12 host, and
# nothing it does not: the guest kernel is unpacked by kernel.sh, never
# installed. With "debug" (make check DEBUG=1) also what building a kernel
# from source takes (scripts/debug-kernel.sh). As root it installs what is
# missing; as a normal user it prints the exact command to run and fails.
set -euo pipefail

kver=${1:-6.1}
debug=${2:-}
case "$debug" in
""|debug) ;;
*) echo "usage: deps.sh [KVER] [debug]" >&2; exit 2 ;;
esac

. "$(dirname "$0")/packages.sh"
# The host's own tools (the guest kernel's initramfs, QEMU, the fuzzers,
# the captures' decoder, plots, the release trees), then what builds siw
# and what the guests run from this host's tree (scripts/packages.sh).
packages=(
	bc cpio xz-utils zstd dwarves clang libclang-rt-14-dev
	qemu-system-x86 tshark debootstrap
	linux-headers-amd64
	"${siw_build_packages[@]}" "${siw_guest_packages[@]}"
)
# The debug kernel is built from Debian's linux-source-6.1.
if [ "$debug" = debug ]; then
	packages+=(flex bison libelf-dev libssl-dev gawk)
fi

# wireshark-common asks whether non-root users may capture; answer "no"
# beforehand, so that installing tshark never waits for a question.
tshark_setuid='wireshark-common wireshark-common/install-setuid boolean false'

missing=()
for p in "${packages[@]}"; do
	status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
	[ "$status" = "install ok installed" ] || missing+=("$p")
done

# The apt lists must know the kernel series, or kernel.sh cannot pick one.
# (grep reads to the end: with -q it could stop early and fail the
# pipeline with apt-cache's SIGPIPE.)
# A series of another release (6.12: trixie, 7.2: sid) is looked up in
# that release's own tree (scripts/chroot.sh), not in this host's lists.
stale_lists=0
case "$kver" in
6.1)
	apt-cache madison linux-image-amd64 2>/dev/null | awk '{ print $3 }' |
		grep "^$kver\." > /dev/null || stale_lists=1 ;;
esac

if [ ${#missing[@]} -eq 0 ] && [ $stale_lists -eq 0 ]; then
	exit 0
fi

if [ "$(id -u)" != 0 ]; then
	echo "deps.sh: missing packages; run as root:" >&2
	if [ ${#missing[@]} -gt 0 ]; then
		case " ${missing[*]} " in *" tshark "*)
			echo "  echo '$tshark_setuid' | debconf-set-selections" >&2 ;;
		esac
		echo "  apt-get update && apt-get install -y ${missing[*]}" >&2
	else
		echo "  apt-get update" >&2
	fi
	exit 1
fi

apt-get update -q >&2
if [ ${#missing[@]} -gt 0 ]; then
	echo "deps.sh: installing: ${missing[*]}" >&2
	echo "$tshark_setuid" | debconf-set-selections
	# The NFS server and rpcbind are for the guests, which run this
	# host's binaries: hold their services off here, unless the host
	# already has a policy of its own.
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d
		chmod 0755 /usr/sbin/policy-rc.d
		trap 'rm -f /usr/sbin/policy-rc.d' EXIT
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
		"${missing[@]}" >&2
fi
