#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks on calltrace's output, for tests/run.sh.

    ctcheck.py tree REPLAY                      print the normalised call tree
    ctcheck.py replay-checks PREFIX REPLAY [--tree EXPECTED [--strip-unwound]]
               [--marks] [--threads N] [--maxdepth NAME N]...
                                                one ok/FAIL line per check
    ctcheck.py check-report REPORT_JSON         the report has the expected keys
    ctcheck.py check-counts REPORT_JSON TRUTH [--ignore REGEX]...

replay-checks: `replay` (the output parses), `tree` (the normalised tree is
EXPECTED; --strip-unwound removes ` [unwound]` from both first), `marks`
(no call unwound, unfinished or returning without its call), `threads` (N
thread sections, main in the first), `maxdepth` (the deepest call of NAME is
at depth N). check-report and check-counts print nothing and exit 0 when the
check passes; otherwise a one-line reason, then details, and exit 1.

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

    with open(path, encoding='utf-8', errors='replace') as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if line.startswith('#'):
                continue
            if not line.strip():
                finish()
                continue

            def where():
                return 'line %d: %r' % (no, line if len(line) < 200 else line[:60] + '...' + line[-100:])

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
            depth = indent // 2
            if cur is None:
                cur = [tid, [], [], 0]
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
    traces 20000 calls deep would overflow Python's stack."""
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


def check_marks(threads, allowed=()):
    bad = [l for l in normalise(threads)
           if re.search(r' \[(unwound|unfinished|before tracing)\]$', l)
           and not any(l.endswith('[%s]' % a) for a in allowed)]
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


def cmd_check_counts(args):
    report = load_report(args[0])
    ignore = [DROP, re.compile(r'^\[')]  # pseudo frames: [signal SIGINT]
    at_least = []
    rest = args[2:]
    while rest:
        if rest[0] == '--ignore' and len(rest) > 1:
            ignore.append(re.compile(rest[1]))
            rest = rest[2:]
        elif rest[0] == '--at-least' and len(rest) > 1:
            at_least.append(re.compile(rest[1]))
            rest = rest[2:]
        else:
            fail('usage: check-counts REPORT TRUTH [--ignore REGEX]... [--at-least REGEX]...')
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
        if got.get(name, 0) != truth[name]:
            problems.append('%s: %d calls in report, %d really' % (name, got.get(name, 0), truth[name]))
        elif name in modules and truth[name] and got_mod.get(name, set()) - modules[name]:
            problems.append('%s: module %s in report, expected %s' % (
                name, ', '.join(sorted(got_mod[name])), ', '.join(sorted(modules[name]))))
    for name in sorted(got):
        if name not in truth and not any(r.search(name) for r in ignore):
            problems.append('%s: %d calls in report, not a function of the program' % (name, got[name]))
    if problems:
        fail('%d function counts wrong' % len(problems), problems[:40])


COMMANDS = {
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
