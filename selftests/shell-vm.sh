#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# make shell: an interactive shell in the test VM, for debugging. The host's
# root filesystem is there read-only, the siw tree at its host path, siw.ko
# loadable with modprobe. 'exit' powers the guest off; Ctrl-a x kills QEMU.
. "$(dirname "$0")/prepare.sh"
prepare || exit 1
run_vm --out "build/vm/shell-$abi" --timeout 86400 shell
