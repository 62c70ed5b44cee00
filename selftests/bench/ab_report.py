#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""ab_report.py RAW REV CASE...: bench-ab.md from bench-ab.tsv (ab.sh).

RAW has one run a line: "TOPO ROUND BUILD CASE UNIT VALUE", BUILD base or
new. Both builds run every case once per round, one right after the
other, so a round's new / base is a paired ratio: the machine's slow
drift (another guest, the host's load) cancels in it, where it would
not between two medians.

For each case and path the report gives both medians, the median of the
paired ratios and their range over the rounds, and the verdict of a sign
test: a change is called only when every round's ratio lies on the same
side of 1 and there are at least MIN_ROUNDS rounds (two-sided p =
2 / 2^rounds: 0.031 at 6 rounds, 0.016 at 7). Otherwise the case is
"within noise", or "too few rounds" below MIN_ROUNDS. The base build's own
spread (max / min - 1 over its rounds) shows how noisy the boot was.
"""
import statistics
import sys
from collections import defaultdict

MIN_ROUNDS = 6
TOPOS = ("veth", "lo")


def load(path):
    """{(topo, case): {round: {build: value}}}, {case: unit}"""
    runs = defaultdict(lambda: defaultdict(dict))
    units = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) != 6:
                sys.exit(f"ab_report.py: {path}:{n}: want 6 fields: {line!r}")
            topo, rnd, build, case, unit, value = fields
            if build not in ("base", "new"):
                sys.exit(f"ab_report.py: {path}:{n}: build {build!r}")
            runs[(topo, case)][int(rnd)][build] = float(value)
            units[case] = unit
    return runs, units


def verdict(ratios, lower_is_better):
    """The sign test's word for a case's paired ratios."""
    if len(ratios) < MIN_ROUNDS:
        return f"too few rounds ({len(ratios)} < {MIN_ROUNDS})"
    if all(r > 1 for r in ratios):
        return "slower" if lower_is_better else "faster"
    if all(r < 1 for r in ratios):
        return "faster" if lower_is_better else "slower"
    return "within noise"


def row(case, unit, rounds):
    """A table row; the rounds where both builds gave a figure count."""
    pairs = [(v["base"], v["new"]) for _, v in sorted(rounds.items())
             if "base" in v and "new" in v and v["base"] > 0]
    if not pairs:
        return f"| {case} | {unit} | – | – | – | – | – | no figure |"
    base = [b for b, _ in pairs]
    new = [n for _, n in pairs]
    ratios = [n / b for b, n in pairs]
    spread = max(base) / min(base) - 1
    return (f"| {case} | {unit} | {statistics.median(base):.2f} | "
            f"{statistics.median(new):.2f} | "
            f"{statistics.median(ratios):.2f} | "
            f"{min(ratios):.2f}–{max(ratios):.2f} | {spread:.0%} | "
            f"{verdict(ratios, unit == 'us')} |")


def main(argv):
    if len(argv) < 4:
        sys.exit("usage: ab_report.py RAW REV CASE...")
    runs, units = load(argv[1])
    rev, cases = argv[2], argv[3:]
    nrounds = max((len(r) for r in runs.values()), default=0)
    print(f"siw.ko of the working tree (new) against {rev or 'the base'} "
          f"(base), {nrounds} rounds in one boot, the two builds run one "
          f"after the other in each round. new / base is the median of "
          f"the rounds' paired ratios, with their range; for latency (us) "
          f"lower is better. A case is called faster or slower only when "
          f"every round agrees and there are at least {MIN_ROUNDS} rounds "
          f"(sign test); \"base spread\" is the base build's max / min - 1.\n")
    for topo in TOPOS:
        print(f"### {topo}\n")
        print("| case | unit | base | new | new / base | range | "
              "base spread | verdict |")
        print("|---|---|---|---|---|---|---|---|")
        for case in cases:
            print(row(case, units.get(case, ""), runs.get((topo, case), {})))
        print()


if __name__ == "__main__":
    main(sys.argv)
