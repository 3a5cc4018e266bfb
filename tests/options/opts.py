#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks for tests/options/run.sh: calltrace's outputs against a program's own
truth (the `name count module` lines truth.h writes) and a tree written by hand
(two spaces per depth, threads separated by `--`, in order of first event).

    opts.py live-split LIVE              the live output regrouped by thread, as a
                                         replay (for ctcheck.py tree)
    opts.py chrome CHROME_JSON TRUTH TREE  complete events: counts and nesting
    opts.py folded FOLDED TRUTH TREE     folded --weight calls: each stack's calls
    opts.py dump DUMP TRUTH TREE         dump's records: enter/exit pairs, counts, tree
    opts.py timestamps REPLAY_T REPLAY SECONDS  replay -T: the same tree, times in
                                         order, within the trace, nap >= 200 ms
    opts.py report-text TEXT JSON KEY [TRUTH]  the text table: same rows as --json,
                                         sorted by KEY, calls = the truth's
    opts.py mangled REPORT_JSON DEMANGLED_REPORT_JSON SYMBOLS
                                         --no-demangle: names are the binary's symbols,
                                         and demangle to the default names
    opts.py counts REPORT_JSON TRUTH [--skip NAME]...  exact calls for every
                                         truth name (skipping some), nothing else

Each prints nothing and exits 0 when the check holds; otherwise a one-line
reason, then details, and exit 1.
"""
import json
import re
import subprocess
import sys


class Bad(Exception):
    pass


def need(cond, msg, details=()):
    if not cond:
        raise Bad(msg, list(details))


def read_truth(path, skip=()):
    truth = {}
    for line in open(path):
        m = re.match(r'^(.+) (\d+)(?: \S+)?$', line.rstrip('\n'))
        if m and m.group(1) not in skip:
            truth[m.group(1)] = truth.get(m.group(1), 0) + int(m.group(2))
    return {k: v for k, v in truth.items() if v}


def read_tree(path):
    """[[(depth, name)...] per thread]"""
    threads, cur = [], []
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('#') or not line.strip():
            continue
        if line == '--':
            threads.append(cur)
            cur = []
            continue
        text = line.lstrip(' ')
        cur.append(((len(line) - len(text)) // 2, text))
    threads.append(cur)
    return threads


def tree_lines(threads):
    return '\n--\n'.join('\n'.join('  ' * d + n for d, n in t) for t in threads).split('\n')


def diff(want, got):
    import difflib
    return list(difflib.unified_diff(want, got, 'expected', 'got', lineterm='', n=2))[:30]


def same_tree(want_threads, got_threads, what):
    want, got = tree_lines(want_threads), tree_lines(got_threads)
    need(want == got, '%s: the tree is not the expected one' % what, diff(want, got))


def same_counts(truth, got, what):
    bad = ['%s: %d, really %d' % (n, got.get(n, 0), truth.get(n, 0))
           for n in sorted(set(truth) | set(got)) if got.get(n, 0) != truth.get(n, 0)]
    need(not bad, '%s: %d counts differ from the program\'s' % (what, len(bad)), bad)


def live_split(args):
    """Threads in the order of their headers' first appearance, a process's
    main thread (tid = pid) first: live prints a call's line only once it
    knows whether the call is a leaf, so another thread may come out first."""
    order, lines, main = [], {}, set()
    for line in open(args[0]):
        h = re.match(r'^# thread (\d+), process (\d+)', line)
        if h and h.group(1) == h.group(2):
            main.add(h.group(1))
        m = re.match(r'^.{10} \[ *(\d+)\] \| ', line)
        if not m:
            continue
        tid = m.group(1)
        if tid not in lines:
            order.append(tid)
            lines[tid] = []
        lines[tid].append(line.rstrip('\n'))
    order.sort(key=lambda t: t not in main)
    print('\n\n'.join('# thread %s\n' % t + '\n'.join(lines[t]) for t in order))


def nest(events):
    """events: (start, end, index, name) of one thread -> [(depth, name)]"""
    out, stack = [], []
    for start, end, _, name in sorted(events, key=lambda e: (e[0], -e[1], -e[2])):
        while stack and not (start >= stack[-1][0] and end <= stack[-1][1]):
            stack.pop()
        out.append((len(stack), name))
        stack.append((start, end))
    return out


def chrome(args):
    doc = json.load(open(args[0]))
    ev = doc['traceEvents'] if isinstance(doc, dict) else doc
    by_tid, order, counts = {}, [], {}
    for i, e in enumerate(ev):
        if e.get('ph') != 'X':
            continue
        start = round(float(e['ts']) * 1000)
        end = start + round(float(e['dur']) * 1000)
        if e['tid'] not in by_tid:
            by_tid[e['tid']] = []
        by_tid[e['tid']].append((start, end, i, e['name']))
        counts[e['name']] = counts.get(e['name'], 0) + 1
    same_counts(read_truth(args[1]), counts, 'chrome complete events')
    order = sorted(by_tid, key=lambda t: min(s for s, _, _, _ in by_tid[t]))
    same_tree(read_tree(args[2]), [nest(by_tid[t]) for t in order], 'chrome nesting')


def folded(args):
    got, counts = {}, {}
    for line in open(args[0]):
        stack, n = line.rstrip('\n').rsplit(' ', 1)
        got[stack] = got.get(stack, 0) + int(n)
        leafname = stack.split(';')[-1]
        counts[leafname] = counts.get(leafname, 0) + int(n)
    same_counts(read_truth(args[1]), counts, 'folded calls per function')
    want = {}
    for t in read_tree(args[2]):
        path = []
        for d, n in t:
            path[d:] = [n]
            key = ';'.join(path)
            want[key] = want.get(key, 0) + 1
    bad = ['%s: %d, expected %d' % (k, got.get(k, 0), want.get(k, 0))
           for k in sorted(set(want) | set(got)) if got.get(k, 0) != want.get(k, 0)]
    need(not bad, 'folded: %d stacks differ from the expected tree' % len(bad), bad)


def dump(args):
    threads, order, counts = {}, [], {}
    stacks, last_t = {}, {}
    for no, line in enumerate(open(args[0]), 1):
        if line.startswith('#') or not line.strip():
            continue
        f = line.split()
        if len(f) >= 3 and f[2] == 'thread-end':
            continue
        need(len(f) >= 6 and f[3].startswith('sp=0x'), 'line %d: not an enter or exit record: %r' % (no, line))
        t, tid, kind, addr, name = float(f[0]), f[1], f[2], f[4], ' '.join(f[5:])
        need(t >= last_t.get(tid, 0.0), 'line %d: time goes back in thread %s' % (no, tid))
        last_t[tid] = t
        if tid not in threads:
            order.append(tid)
            threads[tid], stacks[tid] = [], []
        if kind == 'enter':
            threads[tid].append((len(stacks[tid]), name))
            stacks[tid].append((addr, name))
            counts[name] = counts.get(name, 0) + 1
        elif kind == 'exit':
            need(stacks[tid] and stacks[tid][-1][0] == addr,
                 'line %d: exit of %s %s, but the open call is %s' %
                 (no, addr, name, stacks[tid][-1] if stacks[tid] else 'none'))
            stacks[tid].pop()
        else:
            raise Bad('line %d: unexpected record kind %r' % (no, kind), [])
    open_ = {t: s for t, s in stacks.items() if s}
    need(not open_, 'calls without an exit record: %r' % open_)
    same_counts(read_truth(args[1]), counts, 'dump enter records')
    same_tree(read_tree(args[2]), [threads[t] for t in order], 'dump records')


def timestamps(args):
    with_t = open(args[0]).read().split('\n')
    plain = open(args[1]).read().split('\n')
    seconds = float(args[2])
    need(len(with_t) == len(plain), '-T: %d lines, without %d' % (len(with_t), len(plain)))
    last, stamp = {}, {}
    for a, b in zip(with_t, plain):
        if a.startswith('#') or not a.strip():
            continue
        m = re.match(r'^ *(\d+\.\d{9}) (.*)$', a)
        need(m, '-T: no "seconds.nanoseconds" stamp first: %r' % a)
        rest = m.group(2)
        need(rest == b, '-T: the line without its stamp differs from replay\'s', [rest, b])
        t = float(m.group(1))
        tid = re.search(r'\[ *(\d+)\]', b).group(1)
        need(t >= last.get(tid, 0), '-T: time goes back in thread %s: %r' % (tid, a))
        need(t <= seconds, '-T: %s is after the end of the trace (%s s)' % (t, seconds))
        last[tid] = t
        name = re.search(r'\| +([a-z_]+)\(', b)
        if name:
            stamp.setdefault(name.group(1), t)
    need('nap' in stamp and 'finish' in stamp, '-T: nap or finish not found')
    # nap sleeps 200 ms: finish starts at least that much later
    need(stamp['finish'] - stamp['nap'] >= 0.2,
         '-T: finish %.9f s is less than 200 ms after nap %.9f s' % (stamp['finish'], stamp['nap']))


UNITS = {'ns': 1e-9, 'us': 1e-6, 'ms': 1e-3, 's': 1.0}


def report_text(args):
    rows = []
    for line in open(args[0]):
        m = re.match(r'^ *([\d.]+) (ns|us|ms|s) +([\d.]+) (ns|us|ms|s) +(\d+) +([\d.]+) (ns|us|ms|s) +'
                     r'([\d.]+) (ns|us|ms|s) +([\d.]+) (ns|us|ms|s)  (.+)$', line.rstrip('\n'))
        if not m:
            continue
        g = m.groups()
        sec = [float(g[i]) * UNITS[g[i + 1]] for i in (0, 2, 5, 7, 9)]
        rows.append({'name': g[11], 'calls': int(g[4]), 'total': sec[0], 'self': sec[1],
                     'avg': sec[2], 'min': sec[3], 'max': sec[4]})
    js = json.load(open(args[1]))
    need(len(rows) == len(js), 'report: %d rows in the table, %d in --json' % (len(rows), len(js)))
    by = {e['name']: e for e in js}
    for r in rows:
        e = by.get(r['name'])
        need(e, 'report: %s in the table, not in --json' % r['name'])
        need(r['calls'] == e['calls'], 'report: %s: %d calls in the table, %d in --json' %
             (r['name'], r['calls'], e['calls']))
        for k in ('total', 'self', 'avg', 'min', 'max'):
            ns = e[k + '_ns']
            # the table shows 3 decimals of the unit it picked
            need(abs(r[k] * 1e9 - ns) <= max(0.0006 * ns, 1.0),
                 'report: %s: %s %.9f s in the table, %d ns in --json' % (r['name'], k, r[k], ns))
    key = args[2]
    desc = key != 'name'
    vals = [r[key] for r in rows]
    srt = sorted(vals, reverse=desc)
    need(vals == srt, 'report -s %s: rows not in %s order' % (key, 'descending' if desc else 'ascending'),
         ['%s %s' % (r['name'], r[key]) for r in rows])
    if len(args) > 3:
        same_counts(read_truth(args[3]), {r['name']: r['calls'] for r in rows}, 'report table calls')


def mangled(args):
    raw = json.load(open(args[0]))
    dem = json.load(open(args[1]))
    syms = set(open(args[2]).read().split())
    names = [e['name'] for e in raw]
    need(any(n.startswith('_Z') for n in names), '--no-demangle: no mangled name in the report', names)
    alien = [n for n in names if n not in syms]
    need(not alien, '--no-demangle: names that are not symbols of the program', alien)
    out = subprocess.run(['c++filt'], input='\n'.join(names) + '\n', capture_output=True, text=True,
                         timeout=60).stdout.split('\n')
    got = {}
    for n, d in zip(names, out):
        # the displayed name: no parameter list, no return type of a template
        base = re.sub(r'\(.*\)( const)?$', '', d)
        got[base] = got.get(base, 0) + [e['calls'] for e in raw if e['name'] == n][0]
    want = {}
    for e in dem:
        want[e['name']] = want.get(e['name'], 0) + e['calls']
    same_counts(want, got, '--no-demangle names, demangled by c++filt')


def counts(args):
    skip = [args[i + 1] for i in range(2, len(args) - 1) if args[i] == '--skip']
    got = {}
    for e in json.load(open(args[0])):
        if e['name'] not in skip:
            got[e['name']] = got.get(e['name'], 0) + e['calls']
    same_counts(read_truth(args[1], skip), got, 'report --json')


COMMANDS = {
    'live-split': live_split, 'chrome': chrome, 'folded': folded, 'dump': dump,
    'timestamps': timestamps, 'report-text': report_text, 'mangled': mangled, 'counts': counts,
}

if __name__ == '__main__':
    if len(sys.argv) < 3 or sys.argv[1] not in COMMANDS:
        sys.exit(__doc__)
    try:
        COMMANDS[sys.argv[1]](sys.argv[2:])
    except Bad as e:
        print(e.args[0])
        for d in e.args[1] if len(e.args) > 1 else ():
            print('  ' + str(d))
        sys.exit(1)
    except (OSError, ValueError, KeyError, IndexError) as e:
        print('cannot check: %s: %s' % (type(e).__name__, e))
        sys.exit(1)
