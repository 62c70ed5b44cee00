#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
# make demo: boot a throwaway VM and run selftests/demo.sh inside.
. "$(dirname "$0")/prepare.sh"
prepare || exit 1
echo "== booting the demo VM (software emulation, ~30 s)"
# The guest writes its narration to the shared output directory as it
# goes: follow it here while the VM runs.
log=build/vm/demo-$abi/demo.log
mkdir -p "build/vm/demo-$abi" && rm -f "$log" && : > "$log"
tail -n +1 -F "$log" 2>/dev/null &
tailer=$!
run_vm --out "build/vm/demo-$abi" --timeout 600 demo
rc=$?
sleep 1	# the last lines
kill $tailer 2>/dev/null
wait $tailer 2>/dev/null
[ $rc = 0 ] && echo "== demo finished" || echo "== demo FAILED (console log: build/vm/demo-$abi/console.log)"
exit $rc
