# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by check.sh, demo-vm.sh, shell-vm.sh and bench-vm.sh: install
# what is missing, fetch the Debian kernel of series $KVER (or, with
# DEBUG=1, build the debug kernel of the 6.1 series), and build siw.ko
# against exactly that kernel. Sets $top, $kver, $debug, $abi,
# $guest_root (the tree the guests boot into: this host's, or for a
# kernel of another release that release's tree) and $siw_module (the
# module they load: DKMS's in a release's tree), $release, $croot and
# $kdir (where and against what modules are built); returns non-zero on
# failure.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kver=${KVER:-6.1}
debug=${DEBUG:-0}

prepare() {
	cd "$top" || return 1
	case $debug in
	0|1) ;;
	*) echo "DEBUG=1 selects the debug kernel, DEBUG=0 (the default) Debian's; not '$debug'" >&2
	   return 1 ;;
	esac
	if [ $debug = 1 ]; then
		# scripts/debug-kernel.sh builds Debian's 6.1 source only.
		if [ "$kver" != 6.1 ]; then
			echo "DEBUG=1 runs on the debug build of the 6.1 kernel only; KVER=$kver is not supported with it" >&2
			return 1
		fi
		scripts/deps.sh "$kver" debug || return 1
		echo "== the debug kernel (scripts/debug-kernel.sh; a first build takes about 40 minutes)"
		abi=$(scripts/debug-kernel.sh build/kernels) || return 1
	else
		scripts/deps.sh "$kver" || return 1
		abi=$(scripts/kernel.sh "$kver" build/kernels) || return 1
	fi
	release=$(scripts/kernel.sh --release "$kver") || return 1
	croot=
	if [ -n "$release" ]; then
		# Built as that release builds it, run on its userland: its
		# headers package, its compiler and libraries, in its own tree
		# (scripts/chroot.sh), which is then the guests' root.
		. scripts/packages.sh
		croot=$(scripts/chroot.sh "$release" build/chroots \
			"${siw_build_packages[@]}" "${siw_guest_packages[@]}" \
			"${siw_guest_only_packages[@]}" "${siw_dkms_packages[@]}" \
			"linux-headers-$abi") || return 1
		# Where the guest binds its kernel's modules.
		mkdir -p "$croot/usr/lib/modules" || return 1
		kdir=/usr/src/linux-headers-$abi
		echo "== building siw.ko for $abi in $release's tree ($(chroot "$croot" gcc --version | head -1))"
		in_tree "$croot" make -s modules KDIR="$kdir" KCFLAGS=-Werror W=1 || return 1
		echo "== building the kernel verbs test module in $release's tree"
		in_tree "$croot" make -s kverbs KDIR="$kdir" KCFLAGS=-Werror W=1 || return 1
		dkms_module "$croot" "$release" || return 1
		echo "== building the test programs in $release's tree"
		userspace_for "$release" && in_tree "$croot" make -s -C userspace || return 1
		guest_root=$croot
		blktests_for "$release" "$croot" || return 1
		# rdma-core's tests at the version of the tree's pyverbs.
		if [ -z "${RDMA_CORE_TESTS:-}" ]; then
			RDMA_CORE_TESTS=$(scripts/rdma-core-tests.sh "$croot" \
				build/rdma-core-tests) || return 1
			export RDMA_CORE_TESTS
		fi
	else
		# What the guest needs and the host must not run (iscsid,
		# multipathd, pyverbs...), unpacked, never installed.
		scripts/guest-pkgs.sh build/guest-pkgs || return 1
		kdir=$top/build/kernels/$abi/root/usr/src/linux-headers-$abi
		echo "== building siw.ko for $abi"
		make -s modules KDIR="$kdir" KCFLAGS=-Werror W=1 || return 1
		echo "== building the kernel verbs test module"
		make -s kverbs KDIR="$kdir" KCFLAGS=-Werror W=1 || return 1
		echo "== building the test programs"
		userspace_for host && make -s -C userspace || return 1
		guest_root=/
		siw_module=siw/siw.ko
		blktests_for host || return 1
		# DKMS as a user of this host's release runs it, in a tree of
		# that release (never on the host's own /lib/modules). The
		# debug kernel has no headers package: its guests load the
		# module built above.
		if [ $debug = 0 ]; then
			. scripts/packages.sh
			local host_release droot
			host_release=$(. /etc/os-release && echo "$VERSION_CODENAME")
			droot=$(scripts/chroot.sh "$host_release" build/chroots \
				"${siw_build_packages[@]}" "${siw_dkms_packages[@]}" \
				"linux-headers-$abi") || return 1
			dkms_module "$droot" "$host_release" || return 1
		fi
	fi
}

# build_upstream: upstream siw of the same kernel (scripts/upstream-siw-
# src.sh), as it is and with try_gso set, built out of tree against it
# where siw.ko was built (this host, or the release's tree), into
# build/upstream-siw-<version>/ko/{siw,siw-gso}.ko ($upstream_ko). After
# prepare.
build_upstream() {
	local src v
	src=$(scripts/upstream-siw-src.sh "$kver" build) || return 1
	for v in siw siw-gso; do
		if [ -n "$croot" ]; then
			in_tree "$croot" make -s -C "$kdir" M="$src/$v" modules || return 1
		else
			make -s -C "$kdir" M="$src/$v" modules || return 1
		fi
	done
	mkdir -p "$src/ko" &&
	cp "$src/siw/siw.ko" "$src/ko/siw.ko" &&
	cp "$src/siw-gso/siw.ko" "$src/ko/siw-gso.ko" || return 1
	upstream_ko=$src/ko
}

# dkms_module ROOT RELEASE: `make install` in the release's tree for the
# guest's kernel, through that release's DKMS, and the module it
# installed becomes the one the guests load ($siw_module).
dkms_module() {
	local root=$1 release=$2 ver ko out=build/dkms-$2
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
	echo "== DKMS in $release's tree ($(chroot "$root" dpkg-query -W -f='dkms ${Version}' dkms)): make install DKMS_KVER=$abi"
	in_tree "$root" sh -c "dkms remove -m siw -v $ver --all >/dev/null 2>&1
		make -s install DKMS_KVER=$abi" > build/dkms-$release.log 2>&1 || {
		cat build/dkms-$release.log
		echo "DKMS failed in $release's tree (above; its make.log under $root/var/lib/dkms/siw/)" >&2
		return 1
	}
	ko=$(ls "$root/lib/modules/$abi/updates/dkms"/siw.ko* 2>/dev/null | head -1)
	if [ -z "$ko" ]; then
		echo "DKMS installed no siw.ko under /lib/modules/$abi/updates/dkms in $release's tree" >&2
		return 1
	fi
	rm -rf "$out" && mkdir -p "$out" || return 1
	case $ko in
	*.ko) cp "$ko" "$out/siw.ko" ;;
	*.ko.xz) xz -dc "$ko" > "$out/siw.ko" ;;
	*.ko.zst) zstd -qdc "$ko" > "$out/siw.ko" ;;
	*.ko.gz) gzip -dc "$ko" > "$out/siw.ko" ;;
	*) echo "DKMS installed $ko: an unknown compression" >&2; return 1 ;;
	esac || return 1
	echo "   the guests load $ko (built by DKMS)"
	siw_module=$out/siw.ko
}

# blktests_for WHERE [ROOT]: blktests (../shared/third-party) unpacked
# into build/blktests and its programs built for the guests' userland (a
# release's tree ROOT, or this host's): 89-blktests copies it from there.
# Built in the guest, under emulation, it took minutes of every run;
# here, seconds. Without the tarball, nothing: 89-blktests says so.
blktests_for() {
	local third=${SIW_THIRD_PARTY:-$top/../shared/third-party}
	local stamp=build/blktests/.siw-built-for tarball want
	tarball=$(ls "$third"/blktests-*.tar.gz 2>/dev/null | head -1)
	[ -n "$tarball" ] || return 0
	want="$1 ${tarball##*/}"
	[ "$(cat "$stamp" 2>/dev/null)" = "$want" ] && return 0
	echo "== building blktests (${tarball##*/}) for $1"
	rm -rf build/blktests && mkdir -p build/blktests &&
		tar -xzf "$tarball" -C build/blktests || return 1
	if [ $# -gt 1 ]; then
		in_tree "$2" make -s -C build/blktests/blktests > /dev/null
	else
		make -s -C build/blktests/blktests > /dev/null
	fi || { echo "blktests did not build" >&2; return 1; }
	echo "$want" > "$stamp"
}

# userspace_for WHERE: the test programs of another tree (this host's, or
# a release's) are cleaned, since make cannot tell they link against
# other libraries.
userspace_for() {
	local stamp=userspace/.siw-built-for
	[ "$(cat "$stamp" 2>/dev/null)" = "$1" ] && return 0
	make -s -C userspace clean && echo "$1" > "$stamp"
}

# in_tree ROOT CMD...: CMD in a release's tree ROOT, run in $top, which is
# bound there at the same path (so kbuild's recorded paths hold on the
# host too), with /proc, /sys and /dev.
in_tree() {
	local root=$1 m rc=0
	shift
	mkdir -p "$root$top" || return 1
	mount --bind "$top" "$root$top" || return 1
	for m in proc sys dev; do
		mount --bind "/$m" "$root/$m" || rc=1
	done
	[ $rc = 0 ] && { chroot "$root" sh -c 'cd "$1" && shift && exec "$@"' \
		sh "$top" "$@" || rc=$?; }
	for m in dev sys proc; do
		umount "$root/$m" 2>/dev/null || umount -l "$root/$m"
	done
	umount "$root$top" 2>/dev/null || umount -l "$root$top"
	return $rc
}

# run_vm ARGS...: selftests/vm/run.sh for the prepared kernel and module.
run_vm() {
	local opts=()
	[ $debug = 1 ] && opts+=(--debug)
	selftests/vm/run.sh --abi "$abi" --kcache build/kernels --module "$siw_module" \
		--root "$guest_root" "${opts[@]}" "$@"
}
