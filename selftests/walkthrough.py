#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""walkthrough.py DIR (--check | --write) [--doc FILE]

The host half of selftests/tests/81-walkthrough.sh: from the capture
(DIR/walk.pcap, decoded here by tshark) and the trace (DIR/walk-trace.txt)
of one connection and one RDMA Read, makes the excerpts that
Documentation/protocol.rst shows. Each one there is the literal block that
follows a comment line ".. walkthrough: NAME" (NAME: one of the excerpts
make_excerpts() makes).

--write  rewrites those blocks in FILE (make walkthrough);
--check  prints TAP: the run has every line the walk-through needs, and
         each block in FILE reads the same as the fresh excerpt in all but
         what changes from run to run: STags, tagged offsets and other
         memory addresses, CRCs (they cover both), the client's TCP port,
         TCP timestamps and windows. Trace lines are compared one device at
         a time, since the two devices' lines interleave by timing.
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

PORT = 7471          # siw_conn_test's
WR_ID = '0x77'       # its walk case's Read
READ_LEN = 4096
REQUESTER, RESPONDER = 'siw_b', 'siw_a'   # client and server devices


class Missing(Exception):
    """The run lacks a line the walk-through needs."""


def tshark(pcap, *args):
    with tempfile.TemporaryDirectory() as cfg:
        env = dict(os.environ, WIRESHARK_CONFIG_DIR=cfg, HOME=cfg)
        r = subprocess.run(['tshark', '-n', '-r', pcap] + list(args),
                           capture_output=True, text=True, env=env,
                           check=False)
    if r.returncode != 0:
        raise Missing('tshark %s failed: %s' % (' '.join(args),
                                                r.stderr.strip()))
    return r.stdout


def wire_frames(pcap):
    """The connection's frames that carry data, SYN or FIN, in order."""
    out = tshark(pcap, '-Y', 'tcp.port == %d && (tcp.len > 0 || '
                 'tcp.flags.syn == 1 || tcp.flags.fin == 1)' % PORT,
                 '-T', 'fields', '-E', 'separator=/t',
                 '-e', 'frame.number', '-e', 'ip.src', '-e', 'ip.dst',
                 '-e', 'tcp.len', '-e', 'iwarp_rdma.opcode',
                 '-e', 'iwarp_mpa.key.req', '-e', 'iwarp_mpa.key.rep',
                 '-e', '_ws.col.Info')
    frames = []
    for line in out.splitlines():
        num, src, dst, tlen, op, req, rep, info = line.split('\t', 7)
        # TCP's own details that change from run to run or kernel to
        # kernel (window, timestamps, options) are left out.
        info = re.sub(r' (Win|TSval|TSecr|WS)=\d+', '', info)
        info = re.sub(r' SACK_PERM(=1)?', '', info)
        frames.append({'num': int(num), 'src': src, 'dst': dst,
                       'len': int(tlen or 0),
                       'op': int(op.split(',')[0], 0) if op else None,
                       'req': bool(req), 'rep': bool(rep),
                       'info': info.strip()})
    if not frames:
        raise Missing('no frame of the connection to port %d' % PORT)
    return frames


def summary_line(i, f):
    return '%-3d %-10s %-10s %5d  %s' % (i, f['src'], f['dst'], f['len'],
                                         f['info'])


def decode(pcap, num):
    """One frame with the iWARP layers expanded, from TCP's line on."""
    out = tshark(pcap, '-V', '-O', 'iwarp_mpa,iwarp_ddp_rdmap',
                 '-Y', 'frame.number == %d' % num)
    lines = out.rstrip('\n').splitlines()
    for i, line in enumerate(lines):
        if line.startswith('Transmission Control Protocol'):
            return '\n'.join(lines[i:]) + '\n'
    raise Missing('frame %d has no TCP layer' % num)


TRACE_RE = re.compile(r'^\s*(?P<task>.+?)-(?P<pid>\d+)\s+\[\d+\]\s+\S+\s+'
                      r'[\d.]+: (?P<event>siw_\w+): (?P<rest>.*)$')


def trace_lines(path):
    """The trace's siw lines as 'event: rest', without task, CPU, time."""
    lines = []
    with open(path) as f:
        for line in f:
            m = TRACE_RE.match(line.rstrip('\n'))
            if m:
                lines.append('%s: %s' % (m['event'], m['rest']))
    if not lines:
        raise Missing('no siw line in %s' % path)
    return lines


def device(line):
    return line.split(': ', 1)[1].split(' ', 1)[0]


def is_ev(line, event, dev, *words):
    if not line.startswith(event + ': ') or device(line) != dev:
        return False
    return all(w in line.split() for w in words)


def make_excerpts(pcap, trace):
    frames = wire_frames(pcap)
    lines = trace_lines(trace)

    def frame(pred, what):
        for i, f in enumerate(frames, 1):
            if pred(f):
                return i, f
        raise Missing('the capture has no %s' % what)

    _, req = frame(lambda f: f['req'], 'MPA request')
    _, rep = frame(lambda f: f['rep'], 'MPA reply')
    rreq_i, rreq = frame(lambda f: f['op'] == 1, 'Read Request')
    resps = [(i, f) for i, f in enumerate(frames, 1) if f['op'] == 2]
    if len(resps) < 2:
        raise Missing('the capture has %d Read Response frames, not 2 or '
                      'more' % len(resps))

    start = next((i for i, l in enumerate(lines)
                  if is_ev(l, 'siw_wqe_start', REQUESTER, 'READ')), None)
    if start is None:
        raise Missing('the trace has no siw_wqe_start of the READ at %s'
                      % REQUESTER)
    connect, read = lines[:start], lines[start:]

    def pick(what, pred, n=None):
        got = [l for l in read if pred(l)]
        if not got or (n is not None and len(got) != n):
            raise Missing('the trace has %d %s lines, expected %s'
                          % (len(got), what, n or '1 or more'))
        return got

    q, r = REQUESTER, RESPONDER
    nresp = len(resps)
    step1 = (pick('requester READ start',
                  lambda l: is_ev(l, 'siw_wqe_start', q, 'READ'), 1) +
             pick('Read Request sent',
                  lambda l: is_ev(l, 'siw_read_request', q, 'sent'), 1) +
             pick('READ_REQ FPDU sent',
                  lambda l: is_ev(l, 'siw_fpdu_tx', q, 'READ_REQ'), 1))
    step2 = (pick('READ_REQ FPDU received',
                  lambda l: is_ev(l, 'siw_fpdu_rx', r, 'READ_REQ'), 1) +
             pick('Read Request received',
                  lambda l: is_ev(l, 'siw_read_request', r, 'received'), 1))
    step3 = pick('READ_RESP FPDU sent',
                 lambda l: is_ev(l, 'siw_fpdu_tx', r, 'READ_RESP'), nresp)
    step4 = (pick('READ_RESP FPDU received',
                  lambda l: is_ev(l, 'siw_fpdu_rx', q, 'READ_RESP'), nresp) +
             pick('Read completion',
                  lambda l: is_ev(l, 'siw_cqe', q, 'READ', 'SUCCESS',
                                  str(READ_LEN), WR_ID), 1))
    used = set(step1 + step2 + step3 + step4)
    extra = [l for l in read if l not in used]
    if extra:
        raise Missing('the Read traced more than the walk-through shows: '
                      + '; '.join(extra[:3]))

    def wire(items):
        return ['wire   ' + summary_line(i, f) for i, f in items]

    def tr(ls):
        return ['trace  ' + l for l in ls]

    ex = {
        'wire-summary': [summary_line(i, f)
                             for i, f in enumerate(frames, 1)],
        'trace-connect': connect,
        'trace-read': read,
        'step-1-post': tr(step1) + wire([(rreq_i, rreq)]),
        'step-2-request': tr(step2),
        'step-3-responses': tr(step3) + wire(resps),
        'step-4-complete': tr(step4),
    }
    ex = {k: '\n'.join(v) + '\n' for k, v in ex.items()}
    ex['wire-mpa-request'] = decode(pcap, req['num'])
    ex['wire-mpa-reply'] = decode(pcap, rep['num'])
    ex['wire-read-request'] = decode(pcap, rreq['num'])
    ex['wire-read-response-first'] = decode(pcap, resps[0][1]['num'])
    ex['wire-read-response-last'] = decode(pcap, resps[-1][1]['num'])
    return ex


def normalize(text):
    # Memory addresses, tagged offsets, STags and CRCs: 6 or more hex
    # digits (a STag is printed with 8, an address with 12 or 16).
    text = re.sub(r'0x[0-9a-fA-F]{6,}', '0x#', text)
    # Port numbers of the client's end: the ephemeral range.
    text = re.sub(r'\b(3[2-9]\d{3}|[4-6]\d{4})\b', 'PORT', text)
    # The Data Sink/Source STag and offsets in a Read Request's decode
    # are followed by their meaning in some tshark versions.
    return text


def by_device(text):
    groups = {}
    for line in text.splitlines():
        body = line.split('  ', 1)[1] if line.startswith('trace  ') else line
        key = device(body) if ': ' in body and body.startswith('siw_') \
            else 'wire'
        groups.setdefault(key, []).append(line)
    return groups


def compare(name, fresh, old):
    a, b = normalize(old), normalize(fresh)
    if name.startswith(('trace-', 'step-')):
        ga, gb = by_device(a), by_device(b)
        if ga == gb:
            return None
        a = '\n'.join(l for k in sorted(ga) for l in ga[k]) + '\n'
        b = '\n'.join(l for k in sorted(gb) for l in gb[k]) + '\n'
    if a == b:
        return None
    return ''.join(difflib.unified_diff(
        a.splitlines(True), b.splitlines(True),
        'checked in: ' + name, 'fresh run: ' + name, n=1))


MARK = re.compile(r'^\.\. walkthrough: (?P<name>[\w-]+)\s*$')


def doc_blocks(lines):
    """{NAME: (first, end)}: the line range of each marked literal block's
    indented text in lines (end exclusive)."""
    blocks = {}
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        j = i + 1
        while j < len(lines) and not lines[j].rstrip().endswith('::'):
            j += 1
        j += 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        first = j
        while j < len(lines) and (not lines[j].strip() or
                                  lines[j].startswith('    ')):
            j += 1
        while j > first and not lines[j - 1].strip():
            j -= 1
        blocks[m['name']] = (first, j)
    return blocks


def block_text(lines, rng):
    return ''.join(l[4:] if l.strip() else '\n'
                   for l in lines[rng[0]:rng[1]])


def indent(text):
    return [('    ' + l if l.strip() else '') + '\n'
            for l in text.splitlines()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dir')
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument('--check', action='store_true')
    mode.add_argument('--write', action='store_true')
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--doc', default=os.path.join(here, '..', 'Documentation',
                                                  'protocol.rst'))
    o = ap.parse_args()
    pcap = os.path.join(o.dir, 'walk.pcap')
    trace = os.path.join(o.dir, 'walk-trace.txt')
    doc = os.path.basename(o.doc)

    n = failed = 0

    def tap(good, desc, detail=''):
        nonlocal n, failed
        n += 1
        failed += not good
        print('%s %d - walkthrough (host): %s' % ('ok' if good else 'not ok',
                                                   n, desc))
        for d in detail.splitlines():
            print('#     ' + d)

    def done():
        if o.check:
            print('1..%d' % n)
        return 1 if failed else 0

    if o.check:
        print('TAP version 13')
    for f in (pcap, trace):
        if not os.path.isfile(f):
            msg = '%s is missing (81-walkthrough did not run or failed)' % f
            if o.write:
                sys.exit('walkthrough.py: ' + msg)
            tap(False, 'the run left %s' % os.path.basename(f), msg)
    if failed:
        return done()
    try:
        ex = make_excerpts(pcap, trace)
    except Missing as e:
        if o.write:
            sys.exit('walkthrough.py: ' + str(e))
        tap(False, 'the run has every line the walk-through shows', str(e))
        return done()
    with open(o.doc) as f:
        lines = f.readlines()
    blocks = doc_blocks(lines)
    unknown = sorted(set(blocks) - set(ex))
    if o.write:
        if unknown:
            sys.exit('walkthrough.py: %s marks unknown excerpts: %s'
                     % (doc, ' '.join(unknown)))
        # From the end, so that earlier ranges stay where they are.
        for name, rng in sorted(blocks.items(), key=lambda b: -b[1][0]):
            lines[rng[0]:rng[1]] = indent(ex[name])
        with open(o.doc, 'w') as f:
            f.writelines(lines)
        print('walkthrough.py: rewrote %d excerpts in %s'
              % (len(blocks), o.doc))
        return 0
    tap(True, 'the run has every line the walk-through shows')
    tap(not unknown, '%s marks only excerpts this script makes' % doc,
        'unknown: ' + ' '.join(unknown))
    unused = sorted(set(ex) - set(blocks))
    tap(not unused, '%s shows every excerpt' % doc,
        'not shown: ' + ' '.join(unused))
    for name in sorted(set(blocks) & set(ex)):
        diff = compare(name, ex[name], block_text(lines, blocks[name]))
        tap(diff is None, '%s: the excerpt %s is current' % (doc, name),
            (diff or '') + ('make walkthrough rewrites it from a fresh run'
                            if diff else ''))
    return done()


if __name__ == '__main__':
    sys.exit(main())
