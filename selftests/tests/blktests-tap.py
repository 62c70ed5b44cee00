#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""blktests-tap.py [-x EXPECT] RESULTS LOG [BLKTESTS WHAT...]

Turns the output of blktests' ./check (read from LOG) into verdicts, one
a line, that ktap_verdicts (selftests/lib/ktap.sh) prints as KTAP cases:
a test that passed is "pass<TAB>NAME", one that failed "fail<TAB>NAME"
with the end of its .out.bad difference and .full log (under RESULTS,
blktests' results directory) as indented details, and one blktests did not run is a comment with
each reason blktests gave, "# not run: nvme/068 (...): reason", not a
case. The last line sums up: "# blktests: P passed, F failed, N not run".
Exit status 0 when nothing failed and at least one test passed.

With BLKTESTS (the blktests tree) and WHAT (the groups and tests given to
./check), every test asked for must have a verdict: a group that blktests
did not run at all ("srp/*** [not run]") lists each of its tests as not
run with the group's reasons; a device test (one that defines
test_device(), run only on the devices of TEST_DEVS, of which the guest
has none) that blktests passed over without a word is listed as not run
with that reason; and any other test with no line at all (./check
stopped before it) fails.

With -x EXPECT (blktests-expect.txt), a failed test that EXPECT lists for
the running kernel's series is "not applicable", shown with EXPECT's
reason and counted neither way; one that EXPECT lists but passes fails.
"""
import glob
import os
import re
import sys

STATUS = re.compile(r"^(\S+/(?:\d+|\*\*\*))(?:\s|$)(.*?)\s*\[(passed|failed|not run)\]\s*$")


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


def expectations(path):
    """EXPECT's entries for the running kernel's series: test -> reason."""
    release = os.uname().release
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            test, series, reason = line.split(None, 2)
            for s in series.split(","):
                if release == s or release.startswith(s + ".") or \
                        release.startswith(s + "-"):
                    out[test] = reason
    return out


def device_test(tree, test):
    """Does the test run on TEST_DEVS (it defines test_device())?"""
    try:
        with open(os.path.join(tree, "tests", test), encoding="utf-8",
                  errors="replace") as f:
            return any(l.startswith("test_device()") for l in f)
    except OSError:
        return False


def expected(tree, what):
    """The tests WHAT names, in order: a group stands for all its tests."""
    tests = []
    for item in what:
        if "/" in item:
            tests.append(item)
            continue
        for path in sorted(glob.glob(os.path.join(tree, "tests", item, "[0-9]*"))):
            name = os.path.basename(path)
            if re.fullmatch(r"\d+", name):
                tests.append(f"{item}/{name}")
    return tests


def main():
    args = sys.argv[1:]
    expect = {}
    if len(args) >= 2 and args[0] == "-x":
        expect = expectations(args[1])
        args = args[2:]
    if len(args) < 2 or len(args) == 3:
        print("usage: blktests-tap.py [-x EXPECT] RESULTS LOG [BLKTESTS WHAT...]",
              file=sys.stderr)
        return 2
    results, log = args[0], args[1]
    tree = args[2] if len(args) > 3 else None
    want = expected(tree, args[3:]) if tree else []
    na = 0
    with open(log, encoding="utf-8", errors="replace") as f:
        lines = f.read().splitlines()
    passed = failed = notrun = 0
    seen = set()
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
        # Runtime lines ("runtime ... 1.2s") are not reasons.
        reasons = "; ".join(e for e in extra if not e.startswith("runtime"))
        if test.endswith("/***"):
            group = test[:-4]
            members = [t for t in want if t.startswith(group + "/")] or [test]
            for t in members:
                seen.add(t)
                notrun += 1
                print(f"# not run: {t} (the whole group): "
                      f"{reasons or '(no reason given)'}")
            continue
        seen.add(test)
        if status == "passed" and test in expect:
            failed += 1
            print(f"fail\t{name}: passed, but blktests-expect.txt says it "
                  f"cannot on this kernel ({expect[test]}): update the list")
        elif status == "passed":
            passed += 1
            print(f"pass\t{name}")
        elif status == "failed" and test in expect:
            na += 1
            print(f"# not applicable: {name} (failed): {expect[test]}")
        elif status == "not run":
            notrun += 1
            print(f"# not run: {name}: {reasons or '(no reason given)'}")
        else:
            failed += 1
            print(f"fail\t{name}")
            for line in details(results, test):
                print("  " + line)
    for t in want:
        if t in seen:
            continue
        if device_test(tree, t) and not os.environ.get("TEST_DEVS"):
            notrun += 1
            print(f"# not run: {t}: a device test (test_device()): blktests "
                  f"runs it only on the block devices in TEST_DEVS (a local "
                  f"NVMe drive), and this guest has none")
            continue
        failed += 1
        print(f"fail\t{t}: asked for, but blktests printed no result "
              f"for it (./check stopped before it?)")
    print(f"# blktests: {passed} passed, {failed} failed, {na} not applicable, "
          f"{notrun} not run")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
