#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks for tests/wrappers/run.sh. Each prints nothing and exits 0 when the
check passes, else a one-line reason (then details) and exits 1.

    check.py counts PROGRAM_OUTPUT REPORT_JSON MODE
        The report's call counts equal the "count NAME N" lines the project
        printed. MODE says what else may be in the report:
          exact  only the project's functions (and compiler-generated ones);
                 no std::, __gnu_cxx:: or other libstdc++ function
          std    the same, plus C++ standard library functions, at least one
                 (clang: no compile-time exclusion, see README)
    check.py entry OBJ KIND FUNC...
        Each FUNC (compiled with -ffunction-sections) starts as KIND says:
          nops        5 bytes of nops (five 1-byte or one 5-byte nop)
          fentry-call a call to __fentry__ (a relocation at offset 1 or 2)
    check.py section OBJ NAME
        The object has a section NAME (readelf -S).
"""
import json
import re
import subprocess
import sys

GENERATED = re.compile(r'^(_GLOBAL__sub_I_|_GLOBAL__sub_D_|__static_initialization_and_destruction_|'
                       r'__cxx_global_var_init|__cxx_global_array_dtor|__tcf_|_sub_I_)')
STDLIB = re.compile(r'^(std::|__gnu_cxx::|__cxxabiv1::|__gnu_debug::|__detail::)')


def fail(reason, details=()):
    print(reason)
    for d in details:
        print('    ' + d)
    sys.exit(1)


def readelf(*args):
    return subprocess.run(['readelf', '-W'] + list(args), check=True, capture_output=True,
                          text=True).stdout


def truth_of(path):
    truth = {}
    for line in open(path):
        m = re.match(r'^count (\S+) (\d+)$', line.strip())
        if m:
            truth[m.group(1)] = int(m.group(2))
    if not truth:
        fail('the program printed no "count NAME N" line')
    return truth


def counts(out_path, json_path, mode):
    truth = truth_of(out_path)
    got = {}
    for e in json.load(open(json_path)):
        got[e['name']] = got.get(e['name'], 0) + e['calls']
    wrong = ['%s: %d in the trace, %d by the program' % (n, got.get(n, 0), c)
             for n, c in sorted(truth.items()) if got.get(n, 0) != c]
    if wrong:
        fail('%d of the project\'s counts differ' % len(wrong), wrong)
    extra = [n for n in got if n not in truth and not GENERATED.match(n)]
    std = [n for n in extra if STDLIB.match(n)]
    other = [n for n in extra if not STDLIB.match(n)]
    if other:
        fail('functions that are neither the project\'s nor the library\'s', other[:10])
    if mode == 'exact' and std:
        fail('%d standard library functions traced' % len(std), [n[:120] for n in std[:5]])
    if mode == 'std' and not std:
        fail('no standard library function traced: is clang excluding headers now? '
             'update the README')


def hexdump(obj, section):
    data = ''
    for line in readelf('-x', section, obj).splitlines():
        m = re.match(r'^\s+0x[0-9a-f]+ ((?:[0-9a-f]{2,8} ){1,4})', line + ' ')
        if m:
            data += ''.join(m.group(1).split())
    return data


def fentry_call(obj, func):
    rela = readelf('-r', obj)
    sect = None
    for line in rela.splitlines():
        m = re.match(r"^Relocation section '\.rela([^']+)'", line)
        if m:
            sect = m.group(1)
            continue
        f = line.split()
        if sect == '.text.' + func and len(f) >= 5 and f[4].startswith('__fentry__'):
            return int(f[0], 16) in (1, 2)
    return False


def entry(obj, kind, funcs):
    bad = []
    for func in funcs:
        if kind == 'nops':
            code = hexdump(obj, '.text.' + func)
            if not (code.startswith('9090909090') or code.startswith('0f1f44')):
                bad.append('%s starts with %s' % (func, code[:16] or 'nothing'))
        elif not fentry_call(obj, func):
            bad.append('%s: no relocation for __fentry__ at offset 1 or 2' % func)
    if bad:
        fail('functions without the %s marker' % kind, bad)


def section(obj, name):
    if not re.search(r'\] %s\s' % re.escape(name), readelf('-S', obj)):
        fail('no section %s in %s' % (name, obj))


def main():
    cmd = sys.argv[1]
    if cmd == 'counts':
        counts(sys.argv[2], sys.argv[3], sys.argv[4])
    elif cmd == 'entry':
        entry(sys.argv[2], sys.argv[3], sys.argv[4:])
    elif cmd == 'section':
        section(sys.argv[2], sys.argv[3])
    else:
        fail('unknown check ' + cmd)


if __name__ == '__main__':
    main()
