#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only OR BSD-3-Clause
"""walkthrough.py DIR (--check | --write) [--docs DIR]

The host half of selftests/tests/81-walkthrough.sh: from the capture
(DIR/walk.pcap, decoded here by tshark) and the trace (DIR/walk-trace.txt)
of one connection and one RDMA Read, and the traces of three worked
examples (DIR/walk-NAME-trace.txt), makes the excerpts that
Documentation/protocol.rst and debugging.rst show. Each one there is the
literal block that follows a comment line ".. walkthrough: NAME".

--write  rewrites those blocks (make walkthrough);
--check  prints verdicts, one a line ("pass<TAB>DESC", "fail<TAB>DESC" and
         indented details), that check.sh prints as KTAP cases with
         selftests/lib/ktap.sh's ktap_verdicts: the run has every line the
         excerpts need, and each
         block of protocol.rst reads the same as the fresh excerpt in all
         but what changes from run to run: STags, tagged offsets and other
         memory addresses, CRCs (they cover both), the client's TCP port,
         TCP timestamps and windows. Trace lines are compared one device at
         a time, since the two devices' lines interleave by timing. In
         debugging.rst's examples the lines their prose relies on are
         compared (DEBUG).
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
    # Up to the client's FIN: what the server's end sends after it (a
    # FIN, a reset) depends on when it is destroyed.
    fin = next((i for i, f in enumerate(frames) if '[FIN' in f['info']),
               len(frames) - 1)
    return frames[:fin + 1]


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


# The worked examples of debugging.rst: (trace file, where the excerpt
# starts, the lines its prose relies on). An excerpt starts at the first
# line matching its start pattern (None: the trace's first line). Only
# the lines the prose relies on are compared, by how many of each there
# are: the rest (an endpoint closing, say) may or may not come before the
# trace stopped.
DEBUG = {
    'debug-reject': ('walk-reject-trace.txt', None, [
        r'^siw_cep_state: siw_a cep \d+ qp 0 AWAIT_REQUEST -> '
        r'REQUEST_DELIVERED ',
        r'^siw_mpa_frame: siw_a cep \d+ received MPA request ',
        r'^siw_mpa_frame: siw_a cep \d+ sent MPA reject .* pdata 24$',
        r'^siw_mpa_frame: siw_b cep \d+ sent MPA request ',
        r'^siw_mpa_frame: siw_b cep \d+ received MPA reject ',
    ]),
    'debug-access': ('walk-access-trace.txt',
                     r'^siw_wqe_start: siw_b .* READ ', [
        r'^siw_wqe_start: siw_b qp \d+ SQ\[\d+\] wr_id 0x77 READ len 4096$',
        r'^siw_terminate: siw_a qp \d+ sent RDMAP type \d+ code 0x[0-9a-f]+ '
        r'\(.+\) hdr [0-9a-f]+$',
        r'^siw_terminate: siw_b qp \d+ received RDMAP ',
        r'^siw_cqe: siw_b cq \d+ qp \d+ wr_id 0x77 READ REM_ACCESS_ERR ',
        r'^siw_flush: siw_a qp \d+ RQ: 2 flushed$',
        r'^siw_qp_state: siw_a qp \d+ RTS -> ERR \(terminate\)$',
        r'^siw_qp_state: siw_b qp \d+ RTS -> ERR \(fatal\)$',
        r'^siw_cqe: siw_a cq \d+ qp \d+ wr_id 0x[0-9a-f]+ RECEIVE '
        r'WR_FLUSH_ERR ',
    ]),
    'debug-disconnect': ('walk-disconnect-trace.txt',
                         r'^siw_qp_state: .* -> (ERR|SQD)', [
        r'^siw_qp_state: siw_b qp \d+ RTS -> SQD \(modify_qp\)$',
        r'^siw_qp_state: siw_a qp \d+ RTS -> ERR \(closed\)$',
        r'^siw_flush: siw_a qp \d+ RQ: 5 flushed$',
        r'^siw_cqe: siw_a cq \d+ qp \d+ wr_id 0x[0-9a-f]+ RECEIVE '
        r'WR_FLUSH_ERR ',
    ]),
}


def make_debug_excerpts(d):
    ex = {}
    for name, (fname, start, keys) in DEBUG.items():
        lines = trace_lines(os.path.join(d, fname))
        if start:
            at = next((i for i, l in enumerate(lines)
                       if re.search(start, l)), None)
            if at is None:
                raise Missing('%s has no line matching %s' % (fname, start))
            lines = lines[at:]
        for k in keys:
            if not any(re.search(k, l) for l in lines):
                raise Missing('%s has no line matching %s' % (fname, k))
        ex[name] = '\n'.join(lines) + '\n'
    return ex


def compare_keys(name, fresh, old):
    bad = []
    for k in DEBUG[name][2]:
        a = sum(1 for l in old.splitlines() if re.search(k, l))
        b = sum(1 for l in fresh.splitlines() if re.search(k, l))
        if a != b:
            bad.append('%d lines in the document, %d in the run: %s'
                       % (a, b, k))
    return '\n'.join(bad) + '\n' if bad else None


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


DOCS = ('protocol.rst', 'debugging.rst')
MARK = re.compile(r'^(?P<ind> *)\.\. walkthrough: (?P<name>[\w-]+)\s*$')


def doc_blocks(lines):
    """{NAME: (first, end, indent)}: the line range of each marked literal
    block's text in lines (end exclusive) and the indent of its text: the
    marker's and 4 more."""
    blocks = {}
    for i, line in enumerate(lines):
        m = MARK.match(line)
        if not m:
            continue
        ind = ' ' * (len(m['ind']) + 4)
        j = i + 1
        while j < len(lines) and not lines[j].rstrip().endswith('::'):
            j += 1
        j += 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        first = j
        while j < len(lines) and (not lines[j].strip() or
                                  lines[j].startswith(ind)):
            j += 1
        while j > first and not lines[j - 1].strip():
            j -= 1
        if m['name'] in blocks:
            raise SystemExit('walkthrough.py: the excerpt %s is marked twice'
                             % m['name'])
        blocks[m['name']] = (first, j, ind)
    return blocks


def block_text(lines, blk):
    first, end, ind = blk
    return ''.join(l[len(ind):] if l.strip() else '\n'
                   for l in lines[first:end])


def indent(text, ind):
    return [(ind + l if l.strip() else '') + '\n'
            for l in text.splitlines()]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('dir')
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument('--check', action='store_true')
    mode.add_argument('--write', action='store_true')
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument('--docs', default=os.path.join(here, '..',
                                                   'Documentation'))
    o = ap.parse_args()
    pcap = os.path.join(o.dir, 'walk.pcap')
    trace = os.path.join(o.dir, 'walk-trace.txt')

    n = failed = 0

    # A verdict a line, for ktap_verdicts (selftests/lib/ktap.sh), which
    # check.sh prints the KTAP cases with.
    def tap(good, desc, detail=''):
        nonlocal n, failed
        n += 1
        failed += not good
        print('%s\twalkthrough (host): %s' % ('pass' if good else 'fail',
                                               desc))
        for d in (detail.splitlines() if not good else []):
            print('  ' + d)

    def done():
        return 1 if failed else 0

    need = [pcap, trace] + [os.path.join(o.dir, v[0]) for v in DEBUG.values()]
    for f in need:
        if not os.path.isfile(f):
            msg = '%s is missing (81-walkthrough did not run or failed)' % f
            if o.write:
                sys.exit('walkthrough.py: ' + msg)
            tap(False, 'the run left %s' % os.path.basename(f), msg)
    if failed:
        return done()
    try:
        ex = make_excerpts(pcap, trace)
        ex.update(make_debug_excerpts(o.dir))
    except Missing as e:
        if o.write:
            sys.exit('walkthrough.py: ' + str(e))
        tap(False, 'the run has every line the excerpts show', str(e))
        return done()
    if o.check:
        tap(True, 'the run has every line the excerpts show')
    shown = set()
    for doc in DOCS:
        path = os.path.join(o.docs, doc)
        with open(path) as f:
            lines = f.readlines()
        blocks = doc_blocks(lines)
        shown |= set(blocks)
        unknown = sorted(set(blocks) - set(ex))
        if o.write:
            if unknown:
                sys.exit('walkthrough.py: %s marks unknown excerpts: %s'
                         % (doc, ' '.join(unknown)))
            # From the end, so that earlier ranges stay where they are.
            for name, blk in sorted(blocks.items(), key=lambda b: -b[1][0]):
                lines[blk[0]:blk[1]] = indent(ex[name], blk[2])
            with open(path, 'w') as f:
                f.writelines(lines)
            print('walkthrough.py: rewrote %d excerpts in %s'
                  % (len(blocks), path))
            continue
        tap(not unknown, '%s marks only excerpts this script makes' % doc,
            'unknown: ' + ' '.join(unknown))
        for name in sorted(set(blocks) & set(ex)):
            old = block_text(lines, blocks[name])
            if name in DEBUG:
                diff = compare_keys(name, ex[name], old)
            else:
                diff = compare(name, ex[name], old)
            tap(diff is None, '%s: the excerpt %s is current' % (doc, name),
                (diff or '') + ('make walkthrough rewrites it from a fresh '
                                'run' if diff else ''))
    if o.check:
        unused = sorted(set(ex) - shown)
        tap(not unused, 'the documents show every excerpt',
            'not shown: ' + ' '.join(unused))
    return done()


if __name__ == '__main__':
    sys.exit(main())
