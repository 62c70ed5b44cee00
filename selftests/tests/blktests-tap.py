#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""blktests-tap.py RESULTS LOG

Turns the output of blktests' ./check (read from LOG) into TAP: a test
that passed is "ok", one that failed is "not ok" with the end of its
.out.bad difference and .full log (under RESULTS, blktests' results
directory) as comments, and one blktests did not run is a comment with
each reason blktests gave, "# not run: nvme/068 (...): reason", not a
case. The last line sums up: "# blktests: P passed, F failed, N not run".
Exit status 0 when nothing failed and at least one test passed.
"""
import glob
import os
import re
import sys

STATUS = re.compile(r"^(\S+/\d+)\b(.*?)\s*\[(passed|failed|not run)\]\s*$")


def details(results, test):
    """The tail of what blktests kept about a failed test."""
    lines = []
    for pattern in (f"*/{test}.out.bad", f"*/{test}.full"):
        for path in sorted(glob.glob(os.path.join(results, pattern))):
            try:
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read().splitlines()
            except OSError:
                continue
            lines.append(f"{os.path.relpath(path, results)}:")
            lines.extend("  " + line for line in text[-20:])
    return lines


def main():
    if len(sys.argv) != 3:
        print("usage: blktests-tap.py RESULTS LOG", file=sys.stderr)
        return 2
    results, log = sys.argv[1], sys.argv[2]
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    passed = failed = notrun = 0
    i = 0
    while i < len(lines):
        m = STATUS.match(lines[i])
        i += 1
        if not m:
            continue
        test, desc, status = m.group(1), m.group(2).strip(), m.group(3)
        name = f"{test} {desc}".strip()
        extra = []
        while i < len(lines) and lines[i].startswith("    "):
            extra.append(lines[i].strip())
            i += 1
        if status == "passed":
            passed += 1
            print(f"ok - {name}")
        elif status == "not run":
            notrun += 1
            # Runtime lines ("runtime ... 1.2s") are not reasons.
            reasons = [e for e in extra if not e.startswith("runtime")]
            print(f"# not run: {name}: {'; '.join(reasons) or '(no reason given)'}")
        else:
            failed += 1
            print(f"not ok - {name}")
            for line in details(results, test):
                print("    " + line)
    print(f"# blktests: {passed} passed, {failed} failed, {notrun} not run")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
