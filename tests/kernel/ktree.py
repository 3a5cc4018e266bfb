#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Reads `calltrace replay` output for tests/kernel (no colour).

    ktree.py count FILE FUNC REGEX   kernel lines matching REGEX inside FUNC's calls
                                     (any depth under it), in every thread
    ktree.py offcpu FILE FUNC        "OFF TOTAL": ms off the CPU inside FUNC's calls,
                                     and ms FUNC's calls lasted
    ktree.py top FILE REGEX          kernel lines matching REGEX outside every call
"""
import re
import sys

UNITS = {'ns': 1e-6, 'us': 1e-3, 'ms': 1.0, 's': 1e3}
LINE = re.compile(r'^(.*?)\[\s*\d+\] \| (\s*)(.*)$')
OFF = re.compile(r'\[off-cpu ([0-9.]+) (ns|us|ms|s):')


def ms(text):
    m = re.match(r'\s*([0-9.]+)\s*(ns|us|ms|s)\b', text)
    return float(m.group(1)) * UNITS[m.group(2)] if m else 0.0


def walk(path):
    """yields (stack of open function names, duration column, text) per line"""
    stack = []
    for raw in open(path, encoding='utf-8', errors='replace'):
        if raw.startswith('# thread'):
            stack = []
            continue
        m = LINE.match(raw.rstrip('\n'))
        if not m:
            continue
        col, indent, text = m.group(1), len(m.group(2)), m.group(3)
        depth = indent // 2
        del stack[depth:]
        if text.endswith('{'):
            yield stack, col, text
            stack.append(text.split('(')[0])
            continue
        yield stack, col, text


def is_kernel(text):
    return '[syscall ' in text or text.startswith('[off-cpu ')


def main(argv):
    cmd, path = argv[1], argv[2]
    if cmd == 'count':
        func, pat = argv[3], re.compile(argv[4])
        print(sum(1 for st, _, t in walk(path) if func in st and is_kernel(t) and pat.search(t)))
    elif cmd == 'offcpu':
        func = argv[3]
        off = total = 0.0
        for st, col, t in walk(path):
            m = OFF.search(t)
            if m and func in st:
                off += float(m.group(1)) * UNITS[m.group(2)]
            if t.startswith('}') and t.endswith('/* %s */' % func):
                total += ms(col)
        print('%.3f %.3f' % (off, total))
    elif cmd == 'top':
        pat = re.compile(argv[3])
        print(sum(1 for st, _, t in walk(path) if not st and is_kernel(t) and pat.search(t)))
    else:
        sys.exit('ktree.py: unknown command ' + cmd)


if __name__ == '__main__':
    main(sys.argv)
