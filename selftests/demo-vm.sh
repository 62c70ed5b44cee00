#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# make demo: boot a throwaway VM and run selftests/demo.sh inside.
. "$(dirname "$0")/prepare.sh"
prepare || exit 1
echo "== booting the demo VM (software emulation, ~30 s)"
run_vm --out "build/vm/demo-$abi" --timeout 600 demo
rc=$?
cat "build/vm/demo-$abi/demo.log" 2>/dev/null
[ $rc = 0 ] && echo "== demo finished" || echo "== demo FAILED (console log: build/vm/demo-$abi/console.log)"
exit $rc
