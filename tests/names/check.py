#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of tests/names/run.sh; each prints nothing and exits 0, or says why and exits 1.

    check.py clones REPORT.json TRUTH        clones merged under their function's name
    check.py suffixes REPORT.json TRUTH      the assembler-named clones, and the signal's kind
    check.py csv REPORT.csv                  the kind column
"""
import csv
import json
import sys


def need(cond, why, detail=None):
    if not cond:
        print(why)
        for d in (detail or [])[:20]:
            print('    %s' % d)
        sys.exit(1)


def truth(path):
    want = {}
    for line in open(path):
        name, count, _module = line.rstrip('\n').rsplit(' ', 2)
        want[name] = want.get(name, 0) + int(count)
    return want


def counts_match(rows, want):
    got = {e['name']: e['calls'] for e in rows}
    for name, n in want.items():
        need(name in got, 'no row named %r' % name[:120], sorted(got))
        need(got[name] == n, '%s: %d calls in the report, the program counted %d' %
             (name[:120], got[name], n))
    names = [e['name'] for e in rows]
    dup = sorted({n for n in names if names.count(n) > 1})
    need(not dup, 'one function on several rows', dup)


def clones(args):
    rows = json.load(open(args[0]))
    want = truth(args[1])
    counts_match(rows, want)
    for e in rows:
        need('[clone' not in e['name'] and '(' not in e['name'],
             'a name keeps its clone note or parameters: %r' % e['name'][:200])
        need(e['kind'] == 'function', '%s: kind %r' % (e['name'][:80], e['kind']))
    by = {e['name']: e for e in rows}
    scale = by['ns::scale']
    syms = scale.get('symbols', [])
    need(len(syms) == 2, 'ns::scale: %d symbols listed, expected the function and its clone' % len(syms),
         [json.dumps(scale)])
    need(sum(s['calls'] for s in syms) == scale['calls'], 'ns::scale: its symbols\' calls do not add up')
    need(any('[clone .constprop.' in s['symbol'] for s in syms) and
         any(s['symbol'] == 'ns::scale(ns::S const&, int)' for s in syms),
         'ns::scale: not both ns::scale(ns::S const&, int) and its constprop clone', [json.dumps(syms)])
    need('[clone .isra.' in by['ns::total']['symbol'], 'ns::total: the symbol lost its clone note',
         [by['ns::total']['symbol']])
    need('[clone .part.' in by['ns::check']['symbol'], 'ns::check: the symbol lost its clone note',
         [by['ns::check']['symbol']])
    build = [e for e in rows if e['name'].startswith('ns::build<')][0]
    need(len(build['symbol']) > 2 * len(build['name']) and '[clone .constprop.' in build['symbol'],
         'ns::build: the full symbol (return type, parameters, clone note) is not kept in --json',
         [build['symbol']])


def suffixes(args):
    rows = json.load(open(args[0]))
    funcs = [e for e in rows if e['kind'] == 'function']
    counts_match(funcs, truth(args[1]))
    by = {e['name']: e for e in rows}
    syms = sorted(s['symbol'] for s in by['work'].get('symbols', []))
    need(syms == ['work', 'work.localalias', 'work.lto_priv.0'],
         'work: not merged with work.lto_priv.0 and work.localalias', [json.dumps(by['work'])])
    need(by['helper']['symbol'] == 'helper.constprop.0.isra.0', 'helper: symbol %r' % by['helper']['symbol'])
    sig = by.get('[signal SIGUSR1]')
    need(sig and sig['kind'] == 'signal' and sig['calls'] == 3,
         '[signal SIGUSR1]: not a row of kind "signal" with 3 calls', [json.dumps(sig)])
    other = [e['name'] for e in rows if e['kind'] != 'function' and e is not sig]
    need(not other, 'other rows that are no functions', other)


def csv_kind(args):
    rows = list(csv.DictReader(open(args[0])))
    need(rows and 'kind' in rows[0], '--csv: no kind column')
    kinds = {r['name']: r['kind'] for r in rows}
    need(kinds.get('[signal SIGUSR1]') == 'signal' and kinds.get('main') == 'function',
         '--csv: kinds %r' % kinds)


if __name__ == '__main__':
    {'clones': clones, 'suffixes': suffixes, 'csv': csv_kind}[sys.argv[1]](sys.argv[2:])
