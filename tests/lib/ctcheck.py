#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks on calltrace's output, for tests/run.sh.

    ctcheck.py tree REPLAY                      print the normalised call tree
    ctcheck.py replay-checks PREFIX REPLAY [--tree EXPECTED [--strip-unwound]]
               [--marks] [--threads N] [--maxdepth NAME N]...
                                                one ok/FAIL line per check
    ctcheck.py check-report REPORT_JSON         the report has the expected keys
    ctcheck.py check-counts REPORT_JSON TRUTH [--ignore REGEX]... [--at-least REGEX]...
               [--kept]
    ctcheck.py job PREFIX [--report REPORT_JSON [--truth TRUTH [check-counts options]]]
               [--replay REPLAY [replay-checks options]]
                                                every check of one test job
                                                (tests/lib/job.sh), one process

replay-checks: `replay` (the output parses), `tree` (the normalised tree is
EXPECTED; --strip-unwound removes ` [unwound]` from both first), `marks`
(no call unwound, unfinished or returning without its call), `threads` (N
thread sections, main in the first), `maxdepth` (the deepest call of NAME is
at depth N), `tree-kept` (--tree-kept EXPECTED: the normalised tree is
EXPECTED with some calls taken out, their calls moved up; names only). check-report
and check-counts print nothing and exit 0 when the check passes; otherwise a
one-line reason, then details, and exit 1. check-counts --kept: a program whose
calls the compiler may inline or drop; each count must be at most the program's.

job: `report` (check-report), then with --truth `counts` (`counts-kept` with
--kept), then with --replay the replay-checks; one ok/FAIL line each, and exit 0
(2 on a usage error). One Python start per job instead of one per check.

The replay format (docs: tests/README.md): `#` lines are comments, blank
lines separate threads, every other line is

    <duration: 10 chars> [<tid>] | <2 spaces per depth><text>

with text one of `name();`, `name(); /* unwound */`, `name(); /* unfinished */`,
`name() {`, `} /* name */`, `} /* name: unwound */`, `} /* name: unfinished */`,
`} /* name: entered before tracing */`, and two lines that are not calls:
`*** SIGSEGV at bad+0x26 (crash.c:17), address 0x0 ***` (a crash, inside the frame it
happened in) and `/* lost N events */` (lossy mode); they are not part of
the normalised tree.

Normalisation drops compiler-generated functions (DROP below) and attaches
their children to their parent. A normalised tree has one line per call,
`<2 spaces per depth><name>`, followed by ` [unwound]` or ` [unfinished]` if
the call was marked so; a return whose call was not seen is a line
`} <name> [before tracing]`; threads are separated by a line `--`.
"""
import difflib
import json
import os
import re
import sys

# Compiler-generated functions, and the inline parts of the C++ library.
DROP = re.compile(r'^(_GLOBAL__sub_I_|_GLOBAL__sub_D_|__static_initialization_and_destruction_|'
                  r'__cxx_global_var_init|__cxx_global_array_dtor|__tcf_|__dtor_|std::|__gnu_cxx::'
                  + (r'|.+@[\w.+-]+$' if os.environ.get('CT_DROP_LIBCALLS') else '') + ')')
# CT_DROP_LIBCALLS=1 (record --libcalls of programs that do not count them): library calls,
# "printf@libc.so.6", are dropped too

DURATION = re.compile(r'^( {10}|[ \d]{2}\d\.\d{3} (ns|us|ms| s))$')
LEFT = re.compile(r'^(.{10}) \[ *(\d+)\]$')
CLOSE_MARK = re.compile(r'^\} /\* (.+): (unwound|unfinished|entered before tracing) \*/$')
CLOSE = re.compile(r'^\} /\* (.+) \*/$')
# a function "name()", or a pseudo frame "[signal SIGUSR1]" (no parentheses)
LEAF_MARK = re.compile(r'^(.+?|\[.+\])(?:\(\))?; /\* (unwound|unfinished) \*/$')
LEAF = re.compile(r'^(.+\(\)|\[.+\]);$')
OPEN = re.compile(r'^(.+\(\)|\[.+\]) \{$')
# "+++ fork: process 12 +++", "+++ forked from process 11 +++", "=== exec /path args ==="
PROC_MARK = re.compile(r'^(\+\+\+|===) (.+) (\+\+\+|===)$')
CRASH = re.compile(r'^\*\*\* SIG[A-Z0-9]+ at \S+( \([^)]*\))?(, address 0x[0-9a-f]+)? \*\*\*$')
LOST = re.compile(r'^/\* lost [1-9]\d* events \*/$')
# calltrace_disable/enable and calltrace_mark (include/calltrace.h)
NOTE_MARK = re.compile(r'^/\* (tracing off|tracing on) \*/$')
USER_MARK = re.compile(r'^// (.*)$')


class Bad(Exception):
    pass


class Node:
    __slots__ = ('name', 'mark', 'children', 'orphan')

    def __init__(self, name, mark='', orphan=False):
        self.name = name
        self.mark = mark
        self.children = []
        self.orphan = orphan


def strip_parens(name):
    return name[:-2] if name.endswith('()') else name


def proc_mark(kind, text):
    """A process mark without what changes from run to run (pids, paths)."""
    if kind == '===':
        words = text.split(' ')
        if words[0] == 'exec':  # exec PATH ARGS: the arguments only
            return '=== exec ' + ' '.join(words[2:])
        return '=== ' + text
    return '+++ ' + re.sub(r' ?(: )?process \d+', '', text)


# A whole replay line in one match, for the common case (the checks of
# split_line then only run on lines this does not take).
LINE = re.compile(r'^(?: {10}|[ \d]{2}\d\.\d{3} (?:ns|us|ms| s)) \[( *\d+)\] \| ((?:  )*)(\S.*)$')


def split_line(line, where):
    """(tid, depth, text) of a replay line, or Bad saying what is wrong with it."""
    cut = line.find(' | ')
    if cut < 0:
        raise Bad('not a replay line: ' + where())
    left, right = line[:cut], line[cut + 3:]
    m = LEFT.match(left)
    if not m:
        raise Bad('bad "<duration> [<tid>]" part: ' + where())
    dur, tid = m.group(1), int(m.group(2))
    if not DURATION.match(dur):
        raise Bad('bad duration %r: %s' % (dur, where()))
    if len(left) < 19:
        raise Bad('tid not printed as %6d: ' + where())
    text = right.lstrip(' ')
    indent = len(right) - len(text)
    if indent % 2:
        raise Bad('odd indentation: ' + where())
    return tid, indent // 2, text


def parse_replay(path):
    """Returns a list of threads: (tid, [root Node...], number of lines)."""
    threads = []
    cur = None  # [tid, roots, stack, nlines]

    def finish():
        nonlocal cur
        if cur is not None:
            tid, roots, stack, n = cur
            if stack:
                raise Bad('thread %s ends with %d calls still open (%s)' %
                          (tid, len(stack), ', '.join(s.name for s in stack[-5:])))
            threads.append((tid, roots, n))
        cur = None

    no, line = 0, ''

    def where():
        return 'line %d: %r' % (no, line if len(line) < 200 else line[:60] + '...' + line[-100:])

    tid_text = None  # the tid as printed in the current section's lines
    match_line = LINE.match
    with open(path, encoding='utf-8', errors='replace') as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.startswith('#'):
                continue
            if not line.strip():
                finish()
                continue
            m = match_line(line)
            if m is not None and len(m.group(1)) >= 6:
                tid_field, indent, text = m.groups()
                depth = len(indent) >> 1
                tid = cur[0] if tid_field == tid_text and cur is not None else int(tid_field)
            else:
                tid_field = None
                tid, depth, text = split_line(line, where)
            if cur is None:
                cur = [tid, [], [], 0]
                tid_text = tid_field
            ctid, roots, stack, _ = cur
            if tid != ctid:
                raise Bad('tid %d inside the section of thread %d (no blank line between threads?): %s'
                          % (tid, ctid, where()))
            cur[3] += 1
            parent = stack[-1].children if stack else roots

            if text.endswith('();') and '/*' not in text and text[0] not in '}[':
                # most lines: a leaf call (what LEAF matches), without the regexes
                if depth != len(stack):
                    raise Bad('call at depth %d with %d calls open: %s' % (depth, len(stack), where()))
                parent.append(Node(text[:-3]))
                continue
            if text.endswith('() {') and '/*' not in text and text[0] not in '}[':
                # the next most: a call that has calls (what OPEN matches)
                if depth != len(stack):
                    raise Bad('call at depth %d with %d calls open: %s' % (depth, len(stack), where()))
                node = Node(text[:-4])
                parent.append(node)
                stack.append(node)
                continue
            if text.startswith('} /* ') and text.endswith(' */') and ': ' not in text:
                # and its return (what CLOSE matches, not CLOSE_MARK)
                name = text[5:-3]
                if not stack:
                    raise Bad('return of %s with no open call: %s' % (name, where()))
                if stack[-1].name != name:
                    raise Bad('return of %s closes %s: %s' % (name, stack[-1].name, where()))
                if depth != len(stack) - 1:
                    raise Bad('return at depth %d, its call is at depth %d: %s' %
                              (depth, len(stack) - 1, where()))
                stack.pop().mark = ''
                continue
            m = CLOSE_MARK.match(text)
            if m and m.group(2) == 'entered before tracing':
                parent.append(Node(m.group(1), 'before tracing', orphan=True))
                continue
            if not m:
                m = CLOSE.match(text)
            if m:
                name = m.group(1)
                mark = m.group(2) if m.re is CLOSE_MARK else ''
                if not stack:
                    raise Bad('return of %s with no open call: %s' % (name, where()))
                if stack[-1].name != name:
                    raise Bad('return of %s closes %s: %s' % (name, stack[-1].name, where()))
                if depth != len(stack) - 1:
                    raise Bad('return at depth %d, its call is at depth %d: %s' %
                              (depth, len(stack) - 1, where()))
                stack.pop().mark = mark
                continue
            if CRASH.match(text):
                if depth != len(stack):
                    raise Bad('crash at depth %d with %d calls open: %s' % (depth, len(stack), where()))
                continue
            if LOST.match(text):
                continue
            m = NOTE_MARK.match(text) or USER_MARK.match(text)
            if m:
                if depth != len(stack):
                    raise Bad('mark at depth %d with %d calls open: %s' % (depth, len(stack), where()))
                parent.append(Node(('// ' if m.re is USER_MARK else '/* ') + m.group(1) +
                                   ('' if m.re is USER_MARK else ' */'), 'mark'))
                continue
            m = PROC_MARK.match(text)
            if m:
                if depth != len(stack):
                    raise Bad('mark at depth %d with %d calls open: %s' % (depth, len(stack), where()))
                parent.append(Node(proc_mark(m.group(1), m.group(2)), 'mark'))
                continue
            m = LEAF_MARK.match(text) or LEAF.match(text)
            if m:
                node = Node(strip_parens(m.group(1)), m.group(2) if m.re is LEAF_MARK else '')
            else:
                m = OPEN.match(text)
                if not m:
                    raise Bad('unknown text: ' + where())
                node = Node(strip_parens(m.group(1)))
            if depth != len(stack):
                raise Bad('call at depth %d with %d calls open: %s' % (depth, len(stack), where()))
            parent.append(node)
            if m.re is OPEN:
                stack.append(node)
    finish()
    return threads


def walk(roots):
    """Yields (node, depth) in call order, depth after normalisation: a
    dropped node is not yielded and its children take its depth. Iterative:
    recursion.c's 6000 calls deep would overflow Python's stack."""
    todo = [(iter(roots), 0)]
    while todo:
        it, depth = todo[-1]
        n = next(it, None)
        if n is None:
            todo.pop()
            continue
        if DROP.match(n.name):
            todo.append((iter(n.children), depth))
            continue
        yield n, depth
        todo.append((iter(n.children), depth + 1))


def normalise(threads, strip_unwound=False):
    out = []
    for i, (_, roots, _) in enumerate(threads):
        if i:
            out.append('--')
        for n, depth in walk(roots):
            mark = n.mark
            if strip_unwound and mark == 'unwound':
                mark = ''
            if n.orphan:
                out.append('  ' * depth + '} ' + n.name + ' [before tracing]')
            elif mark == 'mark':
                out.append('  ' * depth + n.name)
            else:
                out.append('  ' * depth + n.name + (' [%s]' % mark if mark else ''))
    return out


class Failed(Exception):
    def __init__(self, reason, details=()):
        Exception.__init__(self, reason)
        self.reason = reason
        self.details = list(details)


def fail(reason, details=()):
    raise Failed(reason, details)


def load_replay(path):
    try:
        return parse_replay(path)
    except Bad as e:
        fail('replay output does not parse: %s' % e)
    except OSError as e:
        fail('cannot read replay output: %s' % e)


def diff(expected, got, name_a='expected', name_b='replay'):
    d = list(difflib.unified_diff(expected, got, name_a, name_b, lineterm='', n=2))
    if len(d) > 60:
        d = d[:60] + ['... (%d more diff lines)' % (len(d) - 60)]
    return d


def check_tree(threads, expected_path, strip):
    got = normalise(threads, strip_unwound=strip)
    with open(expected_path) as f:
        expected = [l.rstrip('\n') for l in f if l.strip() and not l.startswith('#')]
    if strip:
        expected = [l[:-len(' [unwound]')] if l.endswith(' [unwound]') else l for l in expected]
    if got != expected:
        first = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b),
                     min(len(expected), len(got)))
        fail('call tree differs from %s at line %d (%d lines expected, %d seen)' %
             (expected_path.rsplit('/', 1)[-1], first + 1, len(expected), len(got)),
             diff(expected, got))


def forest(threads):
    """The normalised trees, names only: per thread a list of (name, children)."""
    out = []
    for _, roots, _ in threads:
        top = []
        stack = [(-1, top)]  # (depth, children list)
        for n, depth in walk(roots):
            while stack[-1][0] >= depth:
                stack.pop()
            node = (('} ' if n.orphan else '') + n.name, [])
            stack[-1][1].append(node)
            stack.append((depth, node[1]))
        out.append(top)
    return out


def read_forest(path):
    """A .tree file as forest() makes them: marks dropped."""
    out, top, stack = [], [], None
    with open(path) as f:
        lines = [l.rstrip('\n') for l in f if l.strip() and not l.startswith('#')]
    stack = [(-1, top)]
    for l in lines + ['--']:
        if l == '--':
            out.append(top)
            top = []
            stack = [(-1, top)]
            continue
        text = l.lstrip(' ')
        depth = (len(l) - len(text)) // 2
        text = re.sub(r' \[(unwound|unfinished|before tracing)\]$', '', text)
        while stack[-1][0] >= depth:
            stack.pop()
        node = (text, [])
        stack[-1][1].append(node)
        stack.append((depth, node[1]))
    return out


def included(small, big):
    """True if forest `small` is forest `big` with some nodes deleted (a deleted
    node's children take its place among its siblings), order kept. Each node of
    `small` goes, in order, to the matching node of `big` whose subtree ends
    first: what is left after it is then the most that can be left."""
    flat = []  # big in preorder: [name, index past the end of its subtree]

    def flatten(nodes):
        for name, kids in nodes:
            i = len(flat)
            flat.append([name, 0])
            flatten(kids)
            flat[i][1] = len(flat)

    flatten(big)

    def fits(nodes, a, b):  # nodes (a forest of small) inside flat[a:b]
        for name, kids in nodes:
            cands = sorted((flat[i][1], i) for i in range(a, b) if flat[i][0] == name)
            for end, i in cands:
                if fits(kids, i + 1, end):
                    a = end
                    break
            else:
                return False
        return True

    return fits(small, 0, len(flat))


def check_tree_kept(threads, expected_path):
    got = forest(threads)
    expected = read_forest(expected_path)
    if len(got) != len(expected):
        fail('%d thread sections in replay, %d in %s' % (len(got), len(expected),
                                                          expected_path.rsplit('/', 1)[-1]))
    for i, (g, e) in enumerate(zip(got, expected)):
        if not included(g, e):
            fail('call tree of thread section %d is not %s with calls taken out' %
                 (i + 1, expected_path.rsplit('/', 1)[-1]),
                 diff([l.split(' [')[0] for l in read_expected(expected_path, i)],
                      [l.split(' [')[0] for l in normalise([threads[i]])]))


def read_expected(path, section):
    with open(path) as f:
        lines = [l.rstrip('\n') for l in f if l.strip() and not l.startswith('#')]
    parts, cur = [], []
    for l in lines + ['--']:
        if l == '--':
            parts.append(cur)
            cur = []
        else:
            cur.append(l)
    return parts[section] if section < len(parts) else []


def check_marks(threads, allowed=()):
    bad = []
    for _, roots, _ in threads:  # the lines of normalise() that have such a mark
        for n, depth in walk(roots):
            mark = 'before tracing' if n.orphan else n.mark
            if mark in ('unwound', 'unfinished', 'before tracing') and mark not in allowed:
                bad.append('  ' * depth + ('} ' if n.orphan else '') + n.name + ' [%s]' % mark)
    if bad:
        fail('%d calls marked unwound/unfinished/before tracing, none expected%s'
             % (len(bad), ' but ' + ', '.join(allowed) if allowed else ''), bad[:20])


def check_threads(threads, want):
    if len(threads) != want:
        fail('%d thread sections in replay, expected %d' % (len(threads), want),
             ['tids: ' + ' '.join(str(t[0]) for t in threads)])
    if not any(n.name == 'main' for n, _ in walk(threads[0][1])):
        fail('the first thread section (the main thread, first to run) has no call of main')


def check_maxdepth(threads, name, want):
    best = -1
    for _, roots, _ in threads:
        for n, depth in walk(roots):
            if n.name == name and not n.orphan:
                best = max(best, depth)
    if best != want:
        fail('deepest call of %s at depth %d, expected %d' % (name, best, want))


def cmd_tree(args):
    for line in normalise(load_replay(args[0])):
        print(line)


def cmd_replay_checks(args):
    """replay-checks PREFIX REPLAY [--tree FILE] [--strip-unwound] [--marks]
    [--threads N] [--maxdepth NAME N]...: parses REPLAY once, prints one
    ok/FAIL line per check, each named PREFIX/<check>: replay (the output
    parses and shows calls), tree, marks, threads, maxdepth."""
    prefix, path = args[0], args[1]
    opts = args[2:]
    checks = []
    strip = False
    i = 0
    while i < len(opts):
        o = opts[i]
        if o == '--tree':
            checks.append(('tree', lambda t, f=opts[i + 1]: check_tree(t, f, strip)))
            i += 2
        elif o == '--tree-kept':
            checks.append(('tree-kept', lambda t, f=opts[i + 1]: check_tree_kept(t, f)))
            i += 2
        elif o == '--strip-unwound':
            strip = True
            i += 1
        elif o == '--marks':
            checks.append(('marks', check_marks))
            i += 1
        elif o == '--marks-allow':
            checks.append(('marks', lambda t, a=tuple(opts[i + 1].split(',')): check_marks(t, a)))
            i += 2
        elif o == '--threads':
            checks.append(('threads', lambda t, n=int(opts[i + 1]): check_threads(t, n)))
            i += 2
        elif o == '--maxdepth':
            checks.append(('maxdepth', lambda t, a=opts[i + 1], n=int(opts[i + 2]): check_maxdepth(t, a, n)))
            i += 3
        else:
            print('FAIL %s/replay: ctcheck.py: unknown option %s' % (prefix, o))
            return 1
    status = 0

    def report(name, fn):
        nonlocal status
        try:
            fn()
            print('ok %s/%s' % (prefix, name))
        except Failed as e:
            status = 1
            print('FAIL %s/%s: %s' % (prefix, name, e.reason))
            for d in e.details:
                print('    ' + d)

    threads = []

    def parse():
        threads.extend(load_replay(path))
        if not threads:
            fail('replay shows no call at all')

    report('replay', parse)
    if status:
        return status
    for name, fn in checks:
        report(name, lambda fn=fn: fn(threads))
    return status


REPORT_KEYS = {'name': str, 'symbol': str, 'module': str, 'calls': int, 'total_ns': int,
               'self_ns': int, 'avg_ns': int, 'min_ns': int, 'max_ns': int}


def cmd_check_report(args):
    load_report(args[0])


def load_report(path):
    try:
        with open(path, encoding='utf-8') as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        fail('report --json is not JSON: %s' % e)
    if not isinstance(data, list):
        fail('report --json is not a JSON array')
    for i, e in enumerate(data):
        if not isinstance(e, dict):
            fail('report entry %d is not an object' % i)
        for k, t in REPORT_KEYS.items():
            if k not in e:
                fail('report entry %d has no "%s": %s' % (i, k, json.dumps(e)))
            v = e[k]
            if t is int and (isinstance(v, bool) or not isinstance(v, int)):
                fail('report entry %d: "%s" is not an integer: %s' % (i, k, json.dumps(e)))
            if t is str and not isinstance(v, str):
                fail('report entry %d: "%s" is not a string: %s' % (i, k, json.dumps(e)))
        if e['calls'] < 0:
            fail('report entry %d: negative calls: %s' % (i, json.dumps(e)))
        if e['name'].split('@')[0] not in e['symbol']:
            fail('report entry %d: the name is not part of the symbol: %s' % (i, json.dumps(e)))
    return data


def cmd_check_counts(args, report=None):
    if report is None:
        report = load_report(args[0])
    ignore = [DROP, re.compile(r'^\[')]  # pseudo frames: [signal SIGINT]
    at_least = []
    kept = False
    rest = args[2:]
    while rest:
        if rest[0] == '--ignore' and len(rest) > 1:
            ignore.append(re.compile(rest[1]))
            rest = rest[2:]
        elif rest[0] == '--at-least' and len(rest) > 1:
            at_least.append(re.compile(rest[1]))
            rest = rest[2:]
        elif rest[0] == '--kept':
            kept = True
            rest = rest[1:]
        else:
            fail('usage: check-counts REPORT TRUTH [--ignore REGEX]... [--at-least REGEX]... [--kept]')
    truth, modules = {}, {}
    with open(args[1]) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            # "<name> <count> [<module>]"; a name may contain spaces
            # ("Vec2::operator bool", "pair_sum<int, long>").
            m = re.match(r'^(.+) (\d+)(?: (\S+))?$', line)
            if not m:
                fail('bad truth line %d: %r' % (no, line))
            truth[m.group(1)] = truth.get(m.group(1), 0) + int(m.group(2))
            if m.group(3):
                modules.setdefault(m.group(1), set()).add(m.group(3))
    got, got_mod = {}, {}
    for e in report:
        got[e['name']] = got.get(e['name'], 0) + e['calls']
        got_mod.setdefault(e['name'], set()).add(e['module'].rsplit('/', 1)[-1])
    problems = []
    for name in sorted(truth):
        if any(r.search(name) for r in at_least):
            # recorded on entry, the body then jumped out of: at most 1% more
            if not truth[name] <= got.get(name, 0) <= truth[name] + truth[name] // 100 + 10:
                problems.append('%s: %d calls in report, %d really (at least that many expected)'
                                % (name, got.get(name, 0), truth[name]))
            continue
        if kept and got.get(name, 0) > truth[name]:
            problems.append('%s: %d calls in report, %d really (at most that many expected)'
                            % (name, got.get(name, 0), truth[name]))
        elif not kept and got.get(name, 0) != truth[name]:
            problems.append('%s: %d calls in report, %d really' % (name, got.get(name, 0), truth[name]))
        elif name in modules and truth[name] and got_mod.get(name, set()) - modules[name]:
            problems.append('%s: module %s in report, expected %s' % (
                name, ', '.join(sorted(got_mod[name])), ', '.join(sorted(modules[name]))))
    for name in sorted(got):
        if name not in truth and not any(r.search(name) for r in ignore):
            problems.append('%s: %d calls in report, not a function of the program' % (name, got[name]))
    if kept and not any(got.get(name, 0) for name in truth):
        problems.append('no call of any of the program\'s functions in the report')
    if problems:
        fail('%d function counts wrong' % len(problems), problems[:40])


def cmd_job(args):
    """job PREFIX [--report REPORT [--truth TRUTH COUNT-OPTION...]] [--replay REPLAY
    REPLAY-OPTION...]: the checks of one job, one ok/FAIL line each. The options
    after --truth are check-counts', those after --replay replay-checks'."""
    prefix = args[0]
    paths = {'--report': None, '--truth': None, '--replay': None}
    opts = {'--report': [], '--truth': [], '--replay': []}
    section = None
    rest = args[1:]
    while rest:
        if rest[0] in paths and len(rest) > 1:
            section = rest[0]
            paths[section] = rest[1]
            rest = rest[2:]
        elif section in ('--truth', '--replay'):
            opts[section].append(rest[0])
            rest = rest[1:]
        else:
            print('FAIL %s/ctcheck: unknown option %s' % (prefix, rest[0]))
            return 2
    report, truth, replay = paths['--report'], paths['--truth'], paths['--replay']
    if report:
        data = one_check(prefix, 'report', lambda: load_report(report))
        if data is not None and truth:
            name = 'counts-kept' if '--kept' in opts['--truth'] else 'counts'
            one_check(prefix, name, lambda: cmd_check_counts([report, truth] + opts['--truth'], report=data))
    if replay:
        cmd_replay_checks([prefix, replay] + opts['--replay'])
    return 0


def one_check(prefix, name, fn):
    """Runs fn, prints ok/FAIL PREFIX/NAME (details indented); fn's result, None if it failed."""
    try:
        r = fn()
    except Failed as e:
        print('FAIL %s/%s: %s' % (prefix, name, e.reason))
        for d in e.details:
            print('    ' + d)
        return None
    print('ok %s/%s' % (prefix, name))
    return r if r is not None else True


COMMANDS = {
    'job': cmd_job,
    'tree': cmd_tree,
    'replay-checks': cmd_replay_checks,
    'check-counts': cmd_check_counts,
    'check-report': cmd_check_report,
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
