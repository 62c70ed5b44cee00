#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""report.py OUTDIR RAWDIR [TITLE]: turns the raw figures of one benchmark
boot (RAWDIR/bench-perf.tsv from selftests/bench/perf.sh, and
RAWDIR/bench-nvme.md, bench-twovm.md, bench-scale.md and bench-profile.md when those
benchmarks ran too) into OUTDIR/results.md
and OUTDIR/bandwidth.png (gnuplot). Every siw figure is given as a ratio to
raw TCP and to rdma_rxe from the same boot, and the targets
(Documentation/performance.rst, "The targets") are checked. Exits 1 when the raw figures are missing or malformed."""
import os
import statistics
import subprocess
import sys
from collections import defaultdict

BW_TESTS = ("write_bw", "read_bw", "send_bw")
LAT_TESTS = ("write_lat", "send_lat", "read_lat")
# Documentation/performance.rst, "The targets": 4 KiB against the TCP
# stream with 4 KiB writes.
TARGET_4K = {"write_bw": 1.0, "send_bw": 1.0, "read_bw": 0.6}
TOPOS = {"veth": "veth pair between two namespaces (MTU 1500)",
         "lo": "loopback: both ends in one namespace on a dummy netdev"}


def load(path):
    """{(topo, transport, test, size, qps): [(value, cpu_s, bytes)]}"""
    runs = defaultdict(list)
    missing = set()
    with open(path) as f:
        for n, line in enumerate(f, 1):
            fields = line.split()
            if len(fields) != 9:
                sys.exit(f"report.py: {path}:{n}: want 9 fields: {line!r}")
            topo, tr, test, size, qps, value, _unit, cpu, nbytes = fields
            if value == "n/a":
                missing.add((topo, tr))
                continue
            key = (topo, tr, test, int(size), int(qps))
            runs[key].append((float(value), float(cpu), float(nbytes)))
    return runs, missing


class Figures:
    def __init__(self, runs):
        self.runs = runs

    def values(self, topo, tr, test, size, qps=1):
        """The figure's runs, in the order of perf.sh's rounds."""
        return [v for v, _, _ in self.runs.get((topo, tr, test, size, qps), [])]

    def get(self, topo, tr, test, size, qps=1):
        v = self.values(topo, tr, test, size, qps)
        return statistics.median(v) if v else None

    def spread(self, topo, tr, test, size, qps=1):
        """max / min - 1 over the figure's runs; None below two runs."""
        v = self.values(topo, tr, test, size, qps)
        return max(v) / min(v) - 1 if len(v) > 1 and min(v) > 0 else None

    def cpu_per_gib(self, topo, tr, test, size, qps=1):
        """Kernel CPU seconds per GiB. From perf.sh's steady-state run
        (cpu_<test>) where there is one; else the whole run's, less the
        median cost of a near-empty perftest run on that path, and None
        (shown as "–") where that cost is more than half of the run's:
        the remainder would be noise, not the transfer's."""
        per = self.cpu_per_gib_runs(topo, tr, test, size, qps)
        return statistics.median(per) if per else None

    def cpu_per_gib_runs(self, topo, tr, test, size, qps=1):
        """cpu_per_gib's runs, one figure each ([] where it has none)."""
        steady = self.runs.get((topo, tr, "cpu_" + test, size, qps))
        if steady:
            return [c / (b / 2**30) for _, c, b in steady if b > 0]
        r = self.runs.get((topo, tr, test, size, qps))
        if not r:
            return []
        setup = self.runs.get((topo, tr, "setup", 0, 1))
        fixed = statistics.median(c for _, c, _ in setup) if setup else 0
        per = [(c - fixed) / (b / 2**30) for _, c, b in r
               if b > 0 and c > 2 * fixed]
        return per if len(per) * 2 > len(r) else []

    def count(self):
        return max((len(v) for v in self.runs.values()), default=0)


def fmt(v, digits=1):
    return "–" if v is None else f"{v:.{digits}f}"


def fmt_pct(v):
    """A spread (max / min - 1) in percent; "–" below two runs."""
    return "–" if v is None else f"{100 * v:.0f}%"


def ratio(a, b):
    return None if a is None or not b else a / b


def ratio_runs(a, b):
    """A / B as (median, low, high) over the runs, or None if either has
    none. perf.sh runs every figure once per round, so the i-th runs of
    A and B come from one round and their ratio cancels what drifted
    between rounds; when the counts differ (a run failed) the rounds do
    not line up, and the interval is the widest the runs allow."""
    if not a or not b or min(b) <= 0:
        return None
    if len(a) == len(b):
        r = [x / y for x, y in zip(a, b)]
        return statistics.median(r), min(r), max(r)
    return (statistics.median(a) / statistics.median(b),
            min(a) / max(b), max(a) / min(b))


def verdict(interval, goal, higher_is_better=True):
    """yes when every run's ratio meets the goal, no when none does,
    unclear when the goal lies inside the interval."""
    if interval is None:
        return None
    _, low, high = interval
    if not higher_is_better:
        low, high, goal = -high, -low, -goal
    if low >= goal:
        return "yes"
    if high < goal:
        return "no"
    return "unclear"


def fmt_interval(interval):
    if interval is None:
        return "not measured"
    mid, low, high = interval
    if low == high:
        return f"{mid:.2f}"
    return f"{mid:.2f} ({low:.2f}–{high:.2f})"


def size_name(n):
    if n >= 2**20:
        return f"{n // 2**20} MiB"
    if n >= 1024:
        return f"{n // 1024} KiB"
    return f"{n} B"


def ab_table(fg, topo, out, title, text, a, b, rows):
    """Two siw variants of one boot side by side: A and B are (transport,
    column name); ROWS are (test, size, qps, row name)."""
    out += ["", f"### {title}", "", text, "",
            f"| figure | {a[1]} | {b[1]} | {a[1]} / {b[1]} |",
            "|---|---|---|---|"]
    for test, size, qps, name in rows:
        va = fg.get(topo, a[0], test, size, qps)
        vb = fg.get(topo, b[0], test, size, qps)
        out.append(f"| {name} | {fmt(va)} | {fmt(vb)} | {fmt(ratio(va, vb), 2)} |")


def bw_table(fg, topo, out):
    out.append("| test | size | QPs | siw MiB/s | siw spread | rxe MiB/s | TCP MiB/s "
               "| siw / TCP | siw / rxe | kernel CPU s/GiB: siw | rxe | TCP |")
    out.append("|---|---|---|---|---|---|---|---|---|---|---|---|")
    sizes = sorted({k[3] for k in fg.runs if k[0] == topo and k[2] in BW_TESTS})
    for test in BW_TESTS:
        for size in sizes:
            for qps in (1, 8):
                siw = fg.get(topo, "siw", test, size, qps)
                if siw is None:
                    continue
                rxe = fg.get(topo, "rxe", test, size, qps)
                tcp = fg.get(topo, "tcp", "stream", size)
                out.append(
                    f"| {test.replace('_bw', '')} | {size_name(size)} | {qps} "
                    f"| {fmt(siw)} | {fmt_pct(fg.spread(topo, 'siw', test, size, qps))} "
                    f"| {fmt(rxe)} | {fmt(tcp)} "
                    f"| {fmt(ratio(siw, tcp), 2)} | {fmt(ratio(siw, rxe), 2)} "
                    f"| {fmt(fg.cpu_per_gib(topo, 'siw', test, size, qps), 2)} "
                    f"| {fmt(fg.cpu_per_gib(topo, 'rxe', test, size, qps), 2)} "
                    f"| {fmt(fg.cpu_per_gib(topo, 'tcp', 'stream', size), 2)} |")


def lat_table(fg, topo, out):
    out.append("| test | siw µs | siw spread | rxe µs | TCP µs | siw / TCP | siw / rxe |")
    out.append("|---|---|---|---|---|---|---|")
    for test in LAT_TESTS:
        siw = fg.get(topo, "siw", test, 8)
        rxe = fg.get(topo, "rxe", test, 8)
        # perftest's Read latency is a whole round trip; Send and Write
        # latency are half of one, like TCP's lat (RTT / 2).
        tcp = fg.get(topo, "tcp", "rtt" if test == "read_lat" else "lat", 8)
        out.append(f"| {test.replace('_lat', '')} 8 B | {fmt(siw, 2)} "
                   f"| {fmt_pct(fg.spread(topo, 'siw', test, 8))} "
                   f"| {fmt(rxe, 2)} | {fmt(tcp, 2)} | {fmt(ratio(siw, tcp), 2)} "
                   f"| {fmt(ratio(siw, rxe), 2)} |")


# Completions as events (perftest -e), beside the same test polling.
EV_TESTS = (("send_lat", 8, "Send latency 8 B, µs"),
            ("write_bw", 4096, "Write 4 KiB, MiB/s"),
            ("write_bw", 65536, "Write 64 KiB, MiB/s"),
            ("read_bw", 4096, "Read 4 KiB, MiB/s"),
            ("read_bw", 65536, "Read 64 KiB, MiB/s"))


def ev_table(fg, topo, out):
    """Event-driven figures (TEST_ev) beside polling ones; False if none."""
    rows = [(t, s, label) for t, s, label in EV_TESTS
            if fg.values(topo, "siw", t + "_ev", s)]
    if not rows:
        return False
    out.append("| figure | siw events | siw spread | siw polling "
               "| events / polling | rxe events | siw / rxe (events) |")
    out.append("|---|---|---|---|---|---|---|")
    for test, size, label in rows:
        ev = fg.get(topo, "siw", test + "_ev", size)
        poll = fg.get(topo, "siw", test, size)
        rxe = fg.get(topo, "rxe", test + "_ev", size)
        out.append(f"| {label} | {fmt(ev, 2)} "
                   f"| {fmt_pct(fg.spread(topo, 'siw', test + '_ev', size))} "
                   f"| {fmt(poll, 2)} | {fmt(ratio(ev, poll), 2)} "
                   f"| {fmt(rxe, 2)} | {fmt(ratio(ev, rxe), 2)} |")
    return True


def targets(fg, topo):
    """[(target, figure, met)] for one path: met is yes, no or unclear
    (verdict) from the ratio's interval over the runs, or None."""
    t = []
    v = fg.values

    def add(name, interval, goal, higher_is_better=True):
        t.append((name, fmt_interval(interval),
                  verdict(interval, goal, higher_is_better)))

    def worst(intervals, higher_is_better=True):
        have = [i for i in intervals if i is not None]
        if not have:
            return None
        pick = min if higher_is_better else max
        return pick(have, key=lambda i: i[0])

    add("WRITE 64 KiB ≥ 1.0 × TCP stream (64 KiB writes)",
        ratio_runs(v(topo, "siw", "write_bw", 65536), v(topo, "tcp", "stream", 65536)), 1.0)
    add("READ 64 KiB ≥ 0.9 × WRITE 64 KiB",
        ratio_runs(v(topo, "siw", "read_bw", 65536), v(topo, "siw", "write_bw", 65536)), 0.9)
    for test in BW_TESTS:
        goal = TARGET_4K[test]
        add(f"{test.replace('_bw', '').upper()} 4 KiB ≥ {goal} × TCP stream (4 KiB writes)",
            ratio_runs(v(topo, "siw", test, 4096), v(topo, "tcp", "stream", 4096)), goal)
    add("every bandwidth from 4 KiB ≥ 2 × rxe (lowest ratio)",
        worst(ratio_runs(v(topo, "siw", test, size, qps), v(topo, "rxe", test, size, qps))
              for (tp, tr, test, size, qps) in fg.runs
              if tp == topo and tr == "siw" and test in BW_TESTS and size >= 4096), 2.0)
    add("8 B latencies ≤ rxe's (highest siw / rxe)",
        worst((ratio_runs(v(topo, "siw", test, 8), v(topo, "rxe", test, 8))
               for test in LAT_TESTS), False), 1.0, False)
    add("rdma_cm connect rate ≥ 0.3 × TCP connect rate",
        ratio_runs(v(topo, "siw", "connect", 0), v(topo, "tcp", "connect", 0)), 0.3)
    for test, size in (("write_bw", 4096), ("write_bw", 65536), ("read_bw", 65536)):
        add(f"kernel CPU per GiB, {test.replace('_bw', '').upper()} {size_name(size)} "
            f"≤ TCP stream's (siw / TCP)",
            ratio_runs(fg.cpu_per_gib_runs(topo, "siw", test, size),
                       fg.cpu_per_gib_runs(topo, "tcp", "stream", size)), 1.0, False)
    for qps in (8, 64):
        add(f"WRITE 64 KiB: {qps} QPs ≥ 1 QP",
            ratio_runs(v(topo, "siw", "write_bw", 65536, qps),
                       v(topo, "siw", "write_bw", 65536, 1)), 1.0)
    return t


def plot(fg, outdir):
    """bandwidth.png: MiB/s against message size, one panel per path."""
    dat = os.path.join(outdir, "bandwidth.dat")
    series = [("tcp", "stream", "raw TCP stream"),
              ("siw", "write_bw", "siw WRITE"), ("siw", "read_bw", "siw READ"),
              ("siw", "send_bw", "siw SEND"),
              ("rxe", "write_bw", "rxe WRITE"), ("rxe", "read_bw", "rxe READ"),
              ("rxe", "send_bw", "rxe SEND")]
    blocks, cmds = [], []
    topos = [t for t in TOPOS if any(k[0] == t for k in fg.runs)]
    with open(dat, "w") as f:
        idx = 0
        for topo in topos:
            for tr, test, label in series:
                sizes = sorted(k[3] for k in fg.runs
                               if k[:3] == (topo, tr, test) and k[4] == 1)
                if not sizes:
                    continue
                f.write(f"# {topo} {label}\n")
                for s in sizes:
                    f.write(f"{s // 1024} {fg.get(topo, tr, test, s):.2f}\n")
                f.write("\n\n")
                blocks.append((topo, idx, label))
                idx += 1
    if not blocks:
        return None
    png = os.path.join(outdir, "bandwidth.png")
    cmds = ["set terminal pngcairo size 1200,520 font ',10'",
            f"set output '{png}'", "set logscale x 2", "set grid",
            "set xlabel 'message size (KiB)'", "set ylabel 'MiB/s'",
            "set key top left", f"set multiplot layout 1,{len(topos)}"]
    style = {"raw TCP stream": "lw 3 lc rgb 'black'"}
    for topo in topos:
        parts = []
        for tp, idx, label in blocks:
            if tp != topo:
                continue
            dt = "dt 2" if label.startswith("rxe") else "dt 1"
            extra = style.get(label, "lw 2")
            parts.append(f"'{dat}' index {idx} using 1:2 with linespoints "
                         f"{dt} {extra} title '{label}'")
        cmds.append(f"set title '{topo}'")
        cmds.append("plot " + ", ".join(parts))
    cmds.append("unset multiplot")
    try:
        subprocess.run(["gnuplot"], input="\n".join(cmds), text=True,
                       check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"report.py: gnuplot failed ({e}); apt-get install gnuplot-nox")
    return png


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    outdir, rawdir = sys.argv[1], sys.argv[2]
    title = sys.argv[3] if len(sys.argv) == 4 else ""
    tsv = os.path.join(rawdir, "bench-perf.tsv")
    if not os.path.exists(tsv):
        sys.exit(f"report.py: no {tsv}: the perf benchmark did not run")
    runs, missing = load(tsv)
    if not runs:
        sys.exit(f"report.py: {tsv} holds no figures")
    fg = Figures(runs)
    os.makedirs(outdir, exist_ok=True)
    out = ["# siw against raw TCP and rdma_rxe", ""]
    if title:
        out += [title, ""]
    out += [f"Every figure is the median of {fg.count()} runs in one guest boot "
            "(its spread: the largest run over the smallest, less 1); "
            "ratios compare figures of that boot. Bandwidth is MiB/s of "
            "perftest over rdma_cm (`-R`) and of `tcp_bench -m stream`, "
            "whose writes are the message size. Kernel CPU is the guest's "
            "system, irq and softirq time on all vCPUs per GiB moved "
            "(perftest busy-polls in user space, so user time is left out), "
            "less the median kernel CPU of a perftest run that moves almost "
            "nothing (process start-up, device open, memory registration, "
            "connection): what is left is the transfer's; \"–\" where that "
            "start-up cost is more than half of the run's. Write at 4 and "
            "64 KiB and Read at 64 KiB have a run of their own in "
            "perftest's duration mode, whose kernel CPU is sampled in the "
            "steady state only: those figures are the ones to trust. The "
            "NVMe-oF table's come from 10-second fio runs.",
            ""]
    for topo, what in TOPOS.items():
        if not any(k[0] == topo for k in runs):
            continue
        out += [f"## Path: {topo} ({what})", ""]
        if (topo, "rxe") in missing:
            out += ["rdma_rxe carried no rdma_cm traffic on this path in this "
                    "kernel (6.1's rxe does not work across network "
                    "namespaces): its figures are missing.", ""]
        out += ["### Targets", "",
                "A target is met when the ratio meets it in every round "
                "(\"yes\"), missed when it does in none (\"no\"), and "
                "unclear otherwise. The figure is the median of the rounds' "
                "ratios, with their range in brackets.", "",
                "| target | figure | met |", "|---|---|---|"]
        for name, value, ok in targets(fg, topo):
            out.append(f"| {name} | {value} | {'–' if ok is None else ok} |")
        out += ["", "### Bandwidth", ""]
        bw_table(fg, topo, out)
        out += ["", "### Latency, 8 bytes", ""]
        lat_table(fg, topo, out)
        ev = ["", "### Completions as events (perftest -e)", "",
              "The CQ armed and the process asleep in `ibv_get_cq_event` "
              "until the completion's interrupt, as kernel ULPs take "
              "completions; beside the same test busy-polling. For "
              "latency lower is better.", ""]
        if ev_table(fg, topo, ev):
            out += ev
        if any(k[:2] == (topo, "siw-worker") for k in runs):
            ab_table(fg, topo, out, "Inline transmit against the worker",
                     "siw as above (a user's doorbell transmits up to "
                     "`tx_inline_bytes`, 8 KiB, itself; larger messages go "
                     "to the transmit worker) and with `tx_inline_bytes=0` "
                     "(every message goes through the worker), in the same "
                     "boot. `selftests/bench-vm.sh inline` sweeps the sizes "
                     "from 2 to 64 KiB.",
                     ("siw", "inline"), ("siw-worker", "worker"), (
                         ("write_bw", 4096, 1, "Write 4 KiB, MiB/s"),
                         ("write_bw", 4096, 8, "Write 4 KiB, 8 QPs, MiB/s"),
                         ("write_lat", 8, 1, "Write latency 8 B, µs")))
        if any(k[:2] == (topo, "siw-mss") for k in runs):
            ab_table(fg, topo, out,
                     "GSO-sized FPDUs against one FPDU per segment",
                     "siw as above (`mpa/gso=1`, the default: both devices "
                     "agree on FPDUs as large as a GSO packet, MULPDU near "
                     "64 KiB) and with `mpa/gso=0` on both devices (MULPDU "
                     "from the MSS, as toward a hardware RNIC), in the same "
                     "boot.",
                     ("siw", "GSO FPDUs"), ("siw-mss", "MSS FPDUs"), (
                         ("write_bw", 65536, 1, "Write 64 KiB, MiB/s"),
                         ("read_bw", 65536, 1, "Read 64 KiB, MiB/s"),
                         ("send_bw", 65536, 1, "Send 64 KiB, MiB/s"),
                         ("write_bw", 1048576, 1, "Write 1 MiB, MiB/s")))
        if any(k[:2] == (topo, "siw-zc") for k in runs):
            ab_table(fg, topo, out, "Zero-copy transmit against copying",
                     "siw as above (every message copied into the socket, "
                     "`tx_zcopy_bytes=0`, the default) and with "
                     "`tx_zcopy_bytes=65536` (Sends and Writes of 64 KiB "
                     "and more from user memory go to TCP by reference), in "
                     "the same boot. A peer on the same host (veth, "
                     "loopback) copies zero-copy data on receipt.",
                     ("siw-zc", "zero-copy"), ("siw", "copied"), (
                         ("write_bw", 65536, 1, "Write 64 KiB, MiB/s"),
                         ("send_bw", 65536, 1, "Send 64 KiB, MiB/s"),
                         ("write_bw", 1048576, 1, "Write 1 MiB, MiB/s"),
                         ("write_bw", 65536, 8, "Write 64 KiB, 8 QPs, MiB/s")))
        siw_c = fg.get(topo, "siw", "connect", 0)
        rxe_c = fg.get(topo, "rxe", "connect", 0)
        tcp_c = fg.get(topo, "tcp", "connect", 0)
        out += ["", "### Connection setup", "",
                "rdma_cm: `cm_bench`'s connect step (connect, MPA exchange, "
                "established) for its connections opened at once; TCP: "
                "`tcp_bench -m connect`, the same number of non-blocking "
                "connects, each done when the server's accept has sent a byte.",
                "", "| siw /s | rxe /s | TCP /s | siw / TCP | siw / rxe |",
                "|---|---|---|---|---|",
                f"| {fmt(siw_c)} | {fmt(rxe_c)} | {fmt(tcp_c)} "
                f"| {fmt(ratio(siw_c, tcp_c), 2)} | {fmt(ratio(siw_c, rxe_c), 2)} |",
                ""]
    nvme = os.path.join(rawdir, "bench-nvme.md")
    if os.path.exists(nvme):
        out += ["## NVMe over Fabrics: siw, rxe and nvme-tcp", ""]
        out += [line.rstrip("\n") for line in open(nvme)]
        out.append("")
    twovm = os.path.join(rawdir, "bench-twovm.md")
    if os.path.exists(twovm):
        out += ["## Two guests: siw against TCP between two VMs", ""]
        out += [line.rstrip("\n") for line in open(twovm)]
        out.append("")
    scale = os.path.join(rawdir, "bench-scale.md")
    if os.path.exists(scale):
        out += ["## Scale: many QPs connected at once", ""]
        out += [line.rstrip("\n") for line in open(scale)]
        out.append("")
    prof = os.path.join(rawdir, "bench-profile.md")
    if os.path.exists(prof):
        out += ["## Where the time goes: guest profiles", ""]
        out += [line.rstrip("\n") for line in open(prof)]
        out.append("")
    png = plot(fg, outdir)
    if png:
        out += ["## Bandwidth against message size", "",
                f"![bandwidth]({os.path.basename(png)})", ""]
    with open(os.path.join(outdir, "results.md"), "w") as f:
        f.write("\n".join(out))
    print(os.path.join(outdir, "results.md"))


if __name__ == "__main__":
    main()
