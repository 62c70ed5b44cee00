#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# The module: metadata, load, unload, reload.
. "$(dirname "$0")/lib.sh"
plan 10
require modprobe modinfo rdma

unload_siw
check "modinfo names the rdma-link-siw alias" \
	sh -c 'modinfo siw | grep -Eq "^alias: +rdma-link-siw$"'
check "modinfo states the license" \
	sh -c 'modinfo siw | grep -Eq "^license: +Dual BSD/GPL$"'
check "the module is built for the running kernel" \
	sh -c 'modinfo -F vermagic siw | grep -q "^$(uname -r) "'
check "modprobe siw loads it" modprobe siw
check "the module is listed as loaded" sh -c 'lsmod | grep -q "^siw "'
check "ib_core knows the siw link type (module alias autoload)" \
	sh -c 'modprobe -r siw && rdma link add siw-auto type siw netdev lo && rdma link delete siw-auto && lsmod | grep -q "^siw "'
check "modprobe -r siw unloads it" modprobe -r siw
check "the module is gone" sh -c '! lsmod | grep -q "^siw "'
check "it loads again" modprobe siw
check "and unloads again" modprobe -r siw
