#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""profile.py TITLE < perf-script-output: one markdown section from a
system-wide sampled profile (perf record -a -g; perf script -F
comm,pid,ip,sym,dso).

Each sample's own frame (where the CPU was) is put in one category:
idle, user space, CRC, data copies, siw's own code, the RDMA core
modules, the network stack, memory management, scheduling and wake-ups,
interrupts and timers, system call entry, or other kernel code. Copies
are also split by who asked for them: the nearest siw function on the
stack, or the socket call that did. The section gives the shares, the
top symbols, and how much of all time had siw anywhere on its stack.
"""
import re
import sys
from collections import Counter

TOP = 12

# perf names a module's symbols [kernel.kallsyms] when it does not find
# the module's file (the guest's modules are not where it looks); the
# names still tell. Every function of siw starts with siw_.
RDMA_CORE = re.compile(r"^_*(ib_|rdma_|iw_|uverbs_|rxe_|cma_|ucma_)")


def is_siw(sym, dso):
    """Kernel code of siw (the user-space provider's siw_* are not)."""
    return dso == "[siw]" or (dso.startswith("[") and sym.startswith("siw_"))


# (category, test on (sym, dso)); the first that matches wins.
RULES = [
    ("idle", lambda s, d: re.search(
        r"(safe_halt|default_idle|cpuidle|do_idle|mwait|acpi_idle|"
        r"poll_idle|cpu_startup_entry)", s)),
    ("user space (perftest, tcp_bench, providers)",
     lambda s, d: not d.startswith("[")),
    ("CRC32c", lambda s, d: re.search(r"crc32|crc_pcl", s)),
    ("data copies", lambda s, d: re.search(
        r"(copy_user|rep_movs|memcpy|memmove|copy_page|_copy_to_iter|"
        r"_copy_from_iter|copy_to_user|copy_from_user|csum_partial_copy|"
        r"copyout|copyin|rep_stos|memset|clear_page)", s)),
    ("siw (own code)", lambda s, d: is_siw(s, d)),
    ("RDMA core modules, rxe", lambda s, d: d in (
        "[ib_core]", "[ib_uverbs]", "[rdma_cm]", "[iw_cm]", "[rdma_ucm]",
        "[rdma_rxe]") or RDMA_CORE.match(s)),
    ("network stack", lambda s, d: re.search(
        r"^_*(tcp|ip|inet|sk_|sock|skb|kfree_skb|consume_skb|alloc_skb|"
        r"build_skb|veth|net|napi|dev_|loopback|nf_|ipv4|ipv6|ip6|"
        r"lock_sock|release_sock|csum|raw_|eth_|validate_xmit|neigh|dst_|"
        r"fib|page_frag|qdisc|sch_|pfifo|gro|rps|xmit|bpf)", s)),
    ("memory management", lambda s, d: re.search(
        r"(kmalloc|kfree|kmem_cache|slab|slub|page|folio|alloc|free|gup|"
        r"pin_user|get_user|mm_|vm_|vma|memcg|lru|mod_node|mod_lruvec|"
        r"pte|pmd|tlb)", s)),
    ("scheduling, locks, wake-ups", lambda s, d: re.search(
        r"(schedul|switch|wake|ttwu|enqueue|dequeue|pick_next|update_curr|"
        r"update_load|select_task|finish_task|balance|mutex|rwsem|futex|"
        r"spin_|raw_spin|_raw_|queue_work|process_one_work|worker_thread|"
        r"kthread|prepare_to_wait|finish_wait|complete|sched|yield)", s)),
    ("interrupts, timers", lambda s, d: re.search(
        r"(irq|apic|timer|tick|clock|rcu|ktime|hrtimer)", s)),
    ("system call entry/exit", lambda s, d: re.search(
        r"(entry_|syscall|__x64_sys|exit_to_user|fget|fput|fdget|"
        r"security_|apparmor|fpregs|fpu|ioctl|write$|read$|vfs_)", s)),
    ("other kernel", lambda s, d: True),
]

# Who asked for a copy when no siw function is on the stack.
SOCKET_CALLERS = re.compile(
    r"^(tcp_sendmsg|tcp_recvmsg|skb_copy_datagram_iter|tcp_rcv_established|"
    r"ib_uverbs_write|rxe_\w+|__sys_\w+|__x64_sys_\w+)")


# Inclusive shares: the functions of siw, the RDMA core and the system
# call layer found anywhere on a sample's stack, to tell which verb or
# work item the time went to (connection setup spreads thin over many
# leaves).
INCLUSIVE = re.compile(
    r"^(siw_\w+|iw_cm\w*|cm_work_handler|cma_\w+|rdma_\w+|ucma_\w+|"
    r"ib_uverbs_\w+|ib_\w+|__x64_sys_\w+|inet_\w*accept|tcp_v[46]_connect|"
    r"process_one_work)$")


def samples(lines):
    """Yields (comm, [(sym, dso), ...] leaf first)."""
    comm, stack = None, []
    for line in lines:
        line = line.rstrip("\n")
        if not line.strip():
            if comm is not None:
                yield comm, stack
            comm, stack = None, []
            continue
        if not line[0].isspace():
            if comm is not None:
                yield comm, stack
            comm, stack = line.split()[0], []
            continue
        m = re.match(r"\s*[0-9a-f]+\s+(.*?)\s+\((.*)\)\s*$", line)
        if m:
            sym = re.sub(r"\+0x[0-9a-f]+$", "", m.group(1))
            dso = m.group(2)
            if dso.startswith("/"):
                dso = dso.rsplit("/", 1)[1]
            stack.append((sym, dso))
    if comm is not None:
        yield comm, stack


def category(sym, dso):
    for name, test in RULES:
        if test(sym, dso):
            return name
    return "other kernel"


def pct(n, total):
    return f"{100.0 * n / total:.1f}%" if total else "-"


def main():
    title = sys.argv[1] if len(sys.argv) > 1 else "profile"
    cats, syms, copiers, incl = Counter(), Counter(), Counter(), Counter()
    total = in_siw = 0
    for comm, stack in samples(sys.stdin):
        if not stack:
            continue
        total += 1
        sym, dso = stack[0]
        c = category(sym, dso)
        cats[c] += 1
        if c != "idle":
            syms[(sym, dso)] += 1
        if any(is_siw(s, d) for s, d in stack):
            in_siw += 1
        if c != "idle":
            for f in {s for s, d in stack
                      if d.startswith("[") and INCLUSIVE.match(s)}:
                incl[f] += 1
        if c in ("data copies", "CRC32c"):
            who = next((s for s, d in stack[1:] if is_siw(s, d)), None)
            if who is None:
                who = next((s for s, _ in stack[1:]
                            if SOCKET_CALLERS.match(s)), f"{comm} (other)")
            copiers[(c, who)] += 1

    print(f"### {title}\n")
    if not total:
        print("No samples were recorded.\n")
        return 1
    idle = cats["idle"]
    print(f"{total} samples over both vCPUs; busy {pct(total - idle, total)}"
          f" of the time; siw anywhere on the kernel stack: "
          f"{pct(in_siw, total)}.\n")
    print("| where the CPUs were | share |\n|---|---|")
    for name, _ in RULES:
        if cats[name]:
            print(f"| {name} | {pct(cats[name], total)} |")
    print("\n| top symbols (not idle) | module | share |\n|---|---|---|")
    for (sym, dso), n in syms.most_common(TOP):
        print(f"| `{sym}` | {dso} | {pct(n, total)} |")
    if incl:
        print("\n| on the stack (inclusive), siw, RDMA core, system calls"
              " | share |\n|---|---|")
        for f, n in incl.most_common(TOP + 4):
            print(f"| `{f}` | {pct(n, total)} |")
    if copiers:
        print("\n| copies and CRC, by caller | kind | share |\n|---|---|---|")
        for (c, who), n in copiers.most_common(8):
            print(f"| `{who}` | {c} | {pct(n, total)} |")
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
