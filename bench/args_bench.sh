#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cost of capturing arguments and return values: fib(N) (default 32; one int
# argument, one int returned), built plain (gcc -O2 -g), traced by patching
# without and with `calltrace record -a`, and uftrace the same way
# (`uftrace record -P .` without and with `-a`, which takes arguments from
# DWARF too); plus a function with a string argument, whose bytes are read
# without faulting (process_vm_readv). CPU time of the traced process and of
# the tracer, per call, median of RUNS.
#
#   bench/args_bench.sh [N] [RUNS]
set -eu
N=${1:-32} RUNS=${2:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CT=${CALLTRACE:-$root/build/calltrace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >fib.c <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { printf("%ld\n", fib(argc > 1 ? atoi(argv[1]) : 30)); return 0; }
C
cat >str.c <<'C'
#include <stdlib.h>
#include <string.h>
volatile size_t sink;
__attribute__((noinline)) size_t measure(const char *s, int k) { sink += k; return strlen(s); }
int main(int argc, char **argv)
{
	static const char *words[] = { "alpha", "a somewhat longer string", "" };
	long n = argc > 1 ? atol(argv[1]) : 1000;
	for (long i = 0; i < n; i++)
		sink += measure(words[i % 3], (int)i);
	return 0;
}
C
gcc -O2 -g fib.c -o fib
gcc -O2 -g str.c -o str
python3 - "$CT" "$N" "$RUNS" <<'PY'
import os, shutil, statistics, subprocess, sys
ct, n, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def fib_calls(n):
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b

def cpu(cmd):
    """CPU seconds of the command and everything it started (tracer and program)."""
    before = os.times()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)

def program_cpu(data):
    out = subprocess.run([ct, 'info', '-i', data], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith('cpu:'):
            return float(line.split('program ')[1].split(' s')[0])
    return float('nan')

calls = fib_calls(n)
tools = [('alone', ['./fib', str(n)], None),
         ('calltrace (patch)', [ct, 'record', '-o', 'c0.data', './fib', str(n)], 'c0.data'),
         ('calltrace -a', [ct, 'record', '-a', '-o', 'c1.data', './fib', str(n)], 'c1.data')]
if shutil.which('uftrace'):
    tools += [('uftrace -P .', ['uftrace', 'record', '-P', '.', '-d', 'u0.data', './fib', str(n)], None),
              ('uftrace -a -P .', ['uftrace', 'record', '-a', '-P', '.', '-d', 'u1.data', './fib', str(n)], None)]
res = {name: [] for name, _, _ in tools}
prog = {name: [] for name, _, _ in tools}
for _ in range(runs):  # interleaved, so that noise hits every tool alike
    for name, cmd, data in tools:
        res[name].append(cpu(cmd))
        if data:
            prog[name].append(program_cpu(data))
alone = statistics.median(res['alone'])
print(f'fib({n}): {calls:,} calls, CPU ns per call over the program alone, median of {runs}:')
for name, _, data in tools[1:]:
    total = (statistics.median(res[name]) - alone) / calls * 1e9
    extra = ''
    if data:
        extra = f'   traced process {(statistics.median(prog[name]) - alone) / calls * 1e9:6.1f}'
    print(f'  {name:20s} total {total:7.1f}{extra}')
m = 1000000
s_alone = statistics.median(cpu(['./str', str(m)]) for _ in range(runs))
s_args = statistics.median(cpu([ct, 'record', '-a', '-o', 's.data', './str', str(m)]) for _ in range(runs))
s_plain = statistics.median(cpu([ct, 'record', '-o', 's0.data', './str', str(m)]) for _ in range(runs))
print(f'measure(const char *s, int k), {m:,} calls: calltrace total CPU ns per call over alone: '
      f'{(s_plain - s_alone) / m * 1e9:.1f} without -a, {(s_args - s_alone) / m * 1e9:.1f} with -a (string read)')
PY
