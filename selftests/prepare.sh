# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
#
# Sourced by check.sh, demo-vm.sh and shell-vm.sh: install what is missing,
# fetch the Debian kernel of series $KVER, and build siw.ko against exactly
# that kernel. Sets $top, $kver and $abi; returns non-zero on failure.
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
kver=${KVER:-6.1}

prepare() {
	cd "$top" || return 1
	scripts/deps.sh "$kver" || return 1
	abi=$(scripts/kernel.sh "$kver" build/kernels) || return 1
	echo "== building siw.ko for $abi"
	make -s modules KDIR="$top/build/kernels/$abi/root/usr/src/linux-headers-$abi" \
		KCFLAGS=-Werror W=1 || return 1
	echo "== building the kernel verbs test module"
	make -s kverbs KDIR="$top/build/kernels/$abi/root/usr/src/linux-headers-$abi" \
		KCFLAGS=-Werror W=1 || return 1
	echo "== building the test programs"
	make -s -C userspace
}

# run_vm ARGS...: selftests/vm/run.sh for the prepared kernel and module.
run_vm() {
	selftests/vm/run.sh --abi "$abi" --kcache build/kernels --module siw/siw.ko "$@"
}
