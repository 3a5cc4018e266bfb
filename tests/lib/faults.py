#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of tests/faults.sh (scenarios with kills, crashes, full disks,
full pools and flight recorders) on calltrace's output.

    faults.py shared-counts REPORT_JSON COUNTS [--exact-main]
    faults.py at-most REPORT_JSON TRUTH
    faults.py lossy INFO REPLAY REPORT_TXT TRUTH
    faults.py ring-tail FULL_DUMP RING_DUMP RING_INFO MIN_RECORDS
    faults.py snapshots DUMP INFO NAME...
    faults.py crash REPLAY TID SIGNAL WHERE CHAIN
    faults.py lossy-killed INFO COUNTS
    faults.py lossy-crashed INFO TRUTH OPEN
    faults.py lost-per-thread INFO

Each prints nothing and exits 0 when the check passes; otherwise a one-line
reason, then details, and exits 1.

shared-counts: COUNTS is the file tests/programs/scenarios/kill9.c counts in
(a thread killed between a function's enter hook and its counter increment
has one call more in the trace than in the file): for every function, the
report's calls are the file's total, plus at most 1 per thread that called
it; with --exact-main, exactly the file's for the main thread's functions.
at-most: every function of the report is in TRUTH (truth.h format) and has
at most as many calls. lossy: calls and returns recorded + lost = 2 x the
calls of TRUTH, and lost events are told the same way in info, replay and
report. ring-tail: the last snapshot of RING_DUMP (found through RING_INFO,
whose thread lines are in the same order as dump's sections) is exactly the
last records of FULL_DUMP (kind and function), and has at least MIN_RECORDS.
snapshots: one snapshot per NAME, and snapshot N's last call is NAME N.
crash: in thread TID's tree, the line `*** SIGNAL at WHERE...` with exactly
the calls of CHAIN (outermost first, comma-separated) open around it, all
closed right after it as unfinished, and nothing after that in the thread.
lossy-killed: a lossy recording of `kill9 self` (COUNTS as for
shared-counts): calls and returns recorded + lost = the program's events
(2 per counted call, less main's 2 open frames, less 0 to 3 per worker: the
frames open when it was killed, give or take a call entered and not yet
counted). lossy-crashed: recorded + lost = 2 x the calls of TRUTH - OPEN
(the frames open at the crash), and the crash is told (a "crashed:" line).
lost-per-thread: the threads' lost counts in INFO add up to the total.
"""
import os
import re
import struct
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from ctcheck import Failed, fail, load_report  # noqa: E402


def report_calls(path):
    got = {}
    for e in load_report(path):
        got[e['name']] = got.get(e['name'], 0) + e['calls']
    return got


def number(s):
    return int(s.replace(',', ''))


def read_truth(path):
    truth = {}
    with open(path) as f:
        for line in f:
            m = re.match(r'^(.+) (\d+)(?: (\S+))?$', line.rstrip('\n'))
            if m:
                truth[m.group(1)] = truth.get(m.group(1), 0) + int(m.group(2))
    if not truth:
        fail('%s: no counts in the truth file' % path)
    return truth


def cmd_shared_counts(args):
    exact_main = '--exact-main' in args
    args = [a for a in args if a != '--exact-main']
    got = report_calls(args[0])
    with open(args[1], 'rb') as f:
        data = f.read()
    nthreads, nfuncs = struct.unpack_from('<qq', data, 0)
    names = [data[16 + 32 * i:48 + 32 * i].split(b'\0')[0].decode() for i in range(nfuncs)]
    base = 16 + 32 * nfuncs
    counts = [struct.unpack_from('<%dq' % nfuncs, data, base + 8 * nfuncs * t) for t in range(nthreads)]
    problems = []
    for i, name in enumerate(names):
        total = sum(c[i] for c in counts)
        callers = [t for t in range(nthreads) if counts[t][i] > 0]
        if exact_main and callers == [0]:
            slack = 0
        else:
            slack = len(callers)
        n = got.get(name, 0)
        if not total <= n <= total + slack:
            problems.append('%s: %d calls in report, %d counted by the program (%s), %s' % (
                name, n, total, ' + '.join('%d' % c[i] for c in counts),
                'exactly that expected' if not slack else
                'expected %d to %d (+1 for each of its %d threads)' % (total, total + slack, slack)))
    for name in sorted(set(got) - set(names)):
        problems.append('%s: %d calls in report, not a function of the program' % (name, got[name]))
    if problems:
        fail('%d function counts wrong' % len(problems), problems)


def cmd_at_most(args):
    got = report_calls(args[0])
    truth = read_truth(args[1])
    problems = []
    for name in sorted(got):
        if name not in truth:
            problems.append('%s: %d calls in report, not a function of the program' % (name, got[name]))
        elif got[name] > truth[name]:
            problems.append('%s: %d calls in report, more than the %d the program made' % (
                name, got[name], truth[name]))
    if not got:
        fail('the report of the partial trace is empty')
    if problems:
        fail('%d function counts wrong' % len(problems), problems)


def cmd_lossy(args):
    info, replay, report_txt = (open(p).read() for p in args[:3])
    truth = read_truth(args[3])
    want = 2 * sum(truth.values())
    m = re.search(r'^records: +[\d,]+ \(([\d,]+) calls and returns', info, re.M)
    if not m:
        fail('info has no "records:    N (N calls and returns, ...)" line')
    recorded = number(m.group(1))
    # the count, and maybe its cause in parentheses ("--lossy: dropped while ..."), never "complete"
    m = re.search(r'^lost: +([\d,]+) events(?: \((?!complete)[^\n]*\))?$', info, re.M)
    if not m:
        fail('info has no "lost:       N events" line (or says "complete")',
             [l for l in info.splitlines() if l.startswith('lost')])
    lost = number(m.group(1))
    if lost <= 0:
        fail('info says no event was lost')
    if recorded + lost != want:
        fail('calls and returns recorded + lost = %d + %d = %d, the program made %d events'
             % (recorded, lost, recorded + lost, want))
    tl = re.findall(r'^  tid (\d+) +pid (\d+) +[\d,]+ records, ([\d,]+) lost', info, re.M)
    if len(tl) != 1 or number(tl[0][2]) != lost:
        fail('info\'s thread line does not say ", %d lost"' % lost,
             [l for l in info.splitlines() if l.startswith('  tid')])
    tid, pid = tl[0][0], tl[0][1]
    heads = re.findall(r'^# thread %s, process %s \(.*\), ([\d,]+) events lost$' % (tid, pid), replay, re.M)
    if len(heads) != 1 or number(heads[0]) != lost:
        fail('replay\'s thread header does not end with ", %s events lost"' % format(lost, ','),
             [l for l in replay.splitlines() if l.startswith('# thread')])
    marks = re.findall(r'\| *(.*lost.*)$', replay, re.M)
    bad = [x for x in marks if not re.match(r'^/\* lost [1-9]\d* events \*/$', x)]
    if bad:
        fail('replay has malformed lost lines', bad[:10])
    total = sum(int(re.search(r'\d+', x).group(0)) for x in marks)
    if total != lost:
        fail('the replay\'s "/* lost N events */" lines add up to %d, info says %d lost'
             % (total, lost))
    line = '# %s events lost in thread %s (pid %s): its counts and times are short' % (
        format(lost, ','), tid, pid)
    if line not in report_txt.splitlines():
        fail('report has no line "%s"' % line,
             [l for l in report_txt.splitlines() if 'lost' in l])


def dump_sections(path):
    """dump's sections: [(header, [(kind, name)...])], enter/exit records only."""
    sections = []
    with open(path) as f:
        for line in f:
            if line.startswith('# thread '):
                m = re.match(r'^# thread (\d+), process (\d+), image (\d+): (\d+) records$', line)
                if not m:
                    fail('dump: bad section header: %r' % line)
                sections.append((line.strip(), int(m.group(4)), []))
                continue
            parts = line.split(None, 5)
            if len(parts) < 4 or not sections:
                fail('dump: bad line: %r' % line)
            if parts[2] in ('enter', 'exit'):
                if len(parts) < 6:
                    fail('dump: bad record: %r' % line)
                sections[-1][2].append((parts[2], parts[5].rstrip('\n')))
    return sections


def snapshot_numbers(info_path, nsections):
    """Each thread line of info, in order: its snapshot number."""
    snaps = []
    with open(info_path) as f:
        for line in f:
            if line.startswith('  tid '):
                m = re.search(r' records in snapshot (\d+)', line)
                if not m:
                    fail('info: a thread of a ring trace is in no snapshot: %r' % line.rstrip())
                snaps.append(int(m.group(1)))
    if len(snaps) != nsections:
        fail('info lists %d threads, dump %d sections' % (len(snaps), nsections))
    return snaps


def cmd_ring_tail(args):
    full = dump_sections(args[0])
    ring = dump_sections(args[1])
    snaps = snapshot_numbers(args[2], len(ring))
    least = int(args[3])
    if len(full) != 1:
        fail('the full trace has %d thread sections, expected 1' % len(full))
    last = max(snaps)
    mine = [s for s, n in zip(ring, snaps) if n == last]
    if len(mine) != 1:
        fail('the ring trace\'s last snapshot (%d) has %d thread sections, expected 1'
             % (last, len(mine)))
    whole, tail = full[0][2], mine[0][2]
    if mine[0][1] != len(tail):
        fail('dump: the section says %d records, %d enter/exit records listed' % (mine[0][1], len(tail)))
    m = len(tail)
    if m < least:
        fail('the ring kept %d records, expected at least %d' % (m, least))
    if m > len(whole):
        fail('the ring kept %d records, the full trace has %d' % (m, len(whole)))
    if whole[-m:] != tail:
        first = next(i for i in range(m) if whole[len(whole) - m + i] != tail[i])
        fail('the ring\'s %d records are not the last %d of the full trace: they differ from '
             'record %d of the ring on (full / ring)' % (m, m, first),
             ['%s %s  /  %s %s' % (whole[len(whole) - m + i] + tail[i])
              for i in range(first, min(m, first + 10))])


def cmd_snapshots(args):
    secs = dump_sections(args[0])
    snaps = snapshot_numbers(args[1], len(secs))
    want = args[2:]
    if sorted(set(snaps)) != list(range(1, len(want) + 1)):
        fail('snapshots %s in the trace, expected 1 to %d' % (sorted(set(snaps)), len(want)))
    problems = []
    for n, name in enumerate(want, 1):
        mine = [s for s, k in zip(secs, snaps) if k == n]
        if len(mine) != 1:
            problems.append('snapshot %d has %d thread sections, expected 1' % (n, len(mine)))
            continue
        enters = [f for k, f in mine[0][2] if k == 'enter']
        if not enters or enters[-1] != name:
            problems.append('snapshot %d: the last call is %s, expected %s' % (
                n, enters[-1] if enters else 'none', name))
    if problems:
        fail('%d snapshots wrong' % len(problems), problems)


def cmd_crash(args):
    path, tid, sig, where, chain = args[0], args[1], args[2], args[3], args[4].split(',')
    lines, inside = [], False
    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if line.startswith('# thread '):
                inside = line.startswith('# thread %s,' % tid)
                continue
            if inside and line and not line.startswith('#'):
                lines.append(line.split('| ', 1)[1] if '| ' in line else line)
    if not lines:
        fail('the replay has no thread %s' % tid)
    crash = re.compile(r'^( *)\*\*\* %s at %s\S*( \([^)]*\))?(, address 0x[0-9a-f]+)? \*\*\*$'
                       % (re.escape(sig), re.escape(where)))
    hits = [i for i, l in enumerate(lines) if crash.match(l)]
    anycrash = [l for l in lines if '***' in l]
    if len(hits) != 1 or len(anycrash) != 1:
        fail('thread %s: %d lines "*** %s at %s... ***", expected 1' % (tid, len(hits), sig, where),
             anycrash[:5] or lines[-10:])
    i = hits[0]
    stack = []
    for l in lines[:i]:
        s = l.strip()
        m = re.match(r'^(.+)\(\) \{$', s)
        if m:
            stack.append(m.group(1))
        elif s.startswith('}'):
            if stack:
                stack.pop()
    if stack != chain:
        fail('thread %s: the crash line is inside %s, expected %s' % (
            tid, ' > '.join(stack) or 'nothing', ' > '.join(chain)), lines[max(0, i - 5):i + 1])
    indent = len(crash.match(lines[i]).group(1))
    if indent != 2 * len(chain):
        fail('thread %s: the crash line is indented %d, expected %d' % (tid, indent, 2 * len(chain)))
    want = ['%s} /* %s: unfinished */' % ('  ' * d, chain[d]) for d in reversed(range(len(chain)))]
    got = lines[i + 1:]
    if got != want:
        fail('thread %s: after the crash line, expected the frames closed as unfinished' % tid,
             ['expected:'] + want + ['got:'] + got[:10])


def lossy_totals(info):
    """(calls and returns recorded, lost in total, lost per thread added up)."""
    m = re.search(r'^records: +[\d,]+ \(([\d,]+) calls and returns', info, re.M)
    if not m:
        fail('info has no "records:    N (N calls and returns, ...)" line')
    recorded = number(m.group(1))
    m = re.search(r'^lost: +([\d,]+) events', info, re.M)
    if not m:
        fail('info has no "lost:       N events" line')
    lost = number(m.group(1))
    per = sum(number(x) for x in re.findall(r'^  tid .* records, ([\d,]+) lost', info, re.M))
    return recorded, lost, per


def cmd_lost_per_thread(args):
    info = open(args[0]).read()
    _, lost, per = lossy_totals(info)
    if per != lost:
        fail('the threads\' lost events add up to %d, info says %d lost in all (%d not told in '
             'any thread)' % (per, lost, lost - per),
             [l for l in info.splitlines() if l.startswith(('  tid', 'lost'))])


def cmd_lossy_killed(args):
    info = open(args[0]).read()
    with open(args[1], 'rb') as f:
        data = f.read()
    nthreads, nfuncs = struct.unpack_from('<qq', data, 0)
    base = 16 + 32 * nfuncs
    counts = [sum(struct.unpack_from('<%dq' % nfuncs, data, base + 8 * nfuncs * t)) for t in range(nthreads)]
    hi = 2 * sum(counts) - 2
    lo = hi - 3 * (nthreads - 1)
    recorded, lost, per = lossy_totals(info)
    if not lo <= recorded + lost <= hi:
        fail('calls and returns recorded + lost = %d + %d = %d, the program made %s events '
             '(%d missing)' % (recorded, lost, recorded + lost,
                               '%d' % hi if lo == hi else '%d to %d' % (lo, hi), lo - recorded - lost))


def cmd_lossy_crashed(args):
    info = open(args[0]).read()
    want = 2 * sum(read_truth(args[1]).values()) - int(args[2])
    recorded, lost, per = lossy_totals(info)
    problems = []
    if recorded + lost != want:
        problems.append('calls and returns recorded + lost = %d + %d = %d, the program made %d events'
                        % (recorded, lost, recorded + lost, want))
    if not re.search(r'^crashed: ', info, re.M):
        problems.append('info has no "crashed:" line: the crash was not recorded')
    if problems:
        fail('; '.join(problems), [l for l in info.splitlines()
                                   if l.startswith(('  tid', 'lost', 'records', 'exit', 'crashed'))])


COMMANDS = {
    'shared-counts': cmd_shared_counts,
    'at-most': cmd_at_most,
    'lossy': cmd_lossy,
    'ring-tail': cmd_ring_tail,
    'snapshots': cmd_snapshots,
    'crash': cmd_crash,
    'lossy-killed': cmd_lossy_killed,
    'lossy-crashed': cmd_lossy_crashed,
    'lost-per-thread': cmd_lost_per_thread,
}

if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        sys.exit(2)
    try:
        sys.exit(COMMANDS[sys.argv[1]](sys.argv[2:]) or 0)
    except Failed as e:
        print(e.reason)
        for d in e.details:
            print(d)
        sys.exit(1)
    except (OSError, ValueError, IndexError, struct.error) as e:
        print('%s: %s' % (type(e).__name__, e))
        sys.exit(1)
