#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""rdma-core-tap.py EXPECT LOG

Turns the verbose output of rdma-core's tests/run_tests.py (unittest's
"test_x (module.Class.test_x) ... ok" lines, read from LOG) into verdicts,
one a line, that ktap_verdicts (selftests/lib/ktap.sh) prints as KTAP
cases:

  - a test that passed is "pass<TAB>ID";
  - a test that failed or raised is "fail<TAB>ID", with unittest's report
    for it as indented details; unless EXPECT lists it, with the reason it cannot
    pass on an iWARP device: then it is a comment line, "# not
    applicable", and not a case (it neither passes nor fails);
  - a test EXPECT lists that passed after all fails: the list is stale
    and must lose it;
  - a skipped test is a comment, "# not run: ID: REASON", not a case.

EXPECT has one test per line, "module.Class.test  reason", and # comments.
The last line is a summary: "# rdma-core: P passed, F failed, N not
applicable, S not run". Exit status 0 when nothing failed and at least
one test passed.
"""
import re
import sys

def load_expect(path):
    expect = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            test, _, reason = line.partition(" ")
            expect[test] = reason.strip() or "(no reason given)"
    return expect


VERDICT = re.compile(r"^(ok|FAIL|ERROR|skipped\b.*|expected failure|"
                     r"unexpected success)$")
HEADER = re.compile(r"^(test\w*) \(([\w.]+)\)(.*)$")


def parse(text):
    """[(id, verdict, detail)] in order; verdict ok|fail|error|skip.

    unittest prints "test_x (m.C.test_x) ... ok". A docstring may put
    " ... ok" on the next line, and what a test prints while it runs
    (rdma_cm's tests print from their processes) comes between " ... "
    and the verdict, on as many lines as it takes: that output is the
    detail.
    """
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = HEADER.match(lines[i])
        i += 1
        if not m:
            continue
        name, ident, tail = m.groups()
        # Python 3.11 prints module.Class.test; older ones module.Class.
        if not ident.endswith("." + name):
            ident = ident + "." + name
        if " ... " not in tail and i < len(lines) and \
                " ... " in lines[i] and not HEADER.match(lines[i]):
            tail = lines[i]
            i += 1
        if " ... " not in tail:
            continue
        rest = tail.split(" ... ", 1)[1].strip()
        printed = []
        while not VERDICT.match(rest):
            printed.append(rest)
            if i >= len(lines) or HEADER.match(lines[i]):
                rest = None
                break
            rest = lines[i].strip()
            i += 1
        detail = " / ".join(x for x in printed if x)
        if rest is None:
            out.append((ident, "error", "no verdict; printed: " + detail))
        elif rest == "ok":
            out.append((ident, "ok", detail))
        elif rest.startswith("skipped"):
            reason = rest[len("skipped"):].strip().strip("'\"")
            out.append((ident, "skip", reason))
        elif rest in ("FAIL", "unexpected success"):
            out.append((ident, "fail", detail))
        else:
            out.append((ident, "error", detail))
    return out


def reports(text):
    """unittest's report for each failed test: {id: text}."""
    found = {}
    blocks = re.split(r"^={50,}$", text, flags=re.M)
    for b in blocks[1:]:
        m = re.match(r"\s*(?:FAIL|ERROR): (test\w*) \(([\w.]+)\)", b)
        if not m:
            continue
        name, ident = m.groups()
        if not ident.endswith("." + name):
            ident = ident + "." + name
        body = b.split("-" * 70, 1)[-1]
        body = re.split(r"^-{50,}$", body, flags=re.M)[0]
        found[ident] = body.strip()
    return found


def main():
    if len(sys.argv) != 3:
        print("usage: rdma-core-tap.py EXPECT LOG", file=sys.stderr)
        return 2
    expect = load_expect(sys.argv[1])
    with open(sys.argv[2], encoding="utf-8", errors="replace") as f:
        text = f.read()
    why = reports(text)
    passed = failed = na = skipped = 0
    for ident, verdict, detail in parse(text):
        if verdict == "ok":
            if ident in expect:
                failed += 1
                print(f"fail\t{ident}: passes, but the list of tests "
                      f"that cannot pass on iWARP has it ({expect[ident]})")
            else:
                passed += 1
                print(f"pass\t{ident}")
        elif verdict == "skip":
            skipped += 1
            print(f"# not run: {ident}: {detail}")
        elif ident in expect:
            na += 1
            print(f"# not applicable: {ident} ({verdict}): {expect[ident]}")
        else:
            failed += 1
            print(f"fail\t{ident} ({verdict}{': ' + detail if detail else ''})")
            for line in why.get(ident, "").splitlines()[-15:]:
                print("  " + line)
    print(f"# rdma-core: {passed} passed, {failed} failed, "
          f"{na} not applicable, {skipped} not run")
    return 0 if failed == 0 and passed > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
