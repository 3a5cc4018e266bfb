#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Cost of a traced library call: a plain program (gcc -O2 -g) that calls
# strlen N times (default 2,000,000; a new string each time, so none is
# folded), alone, under `calltrace record --libcalls`, `uftrace record`
# (which hooks the PLT of a program built without -pg only with --force),
# and ltrace (N/100 calls: it stops the program twice per call). CPU time
# of the traced process and of the tracer, per call, median of RUNS.
#
#   bench/libcalls_bench.sh [N] [RUNS]
set -eu
N=${1:-2000000} RUNS=${2:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CT=${CALLTRACE:-$root/build/calltrace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
cat >lc.c <<'C'
#include <stdlib.h>
#include <string.h>
static char text[64] = "a string of some length, to measure";
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, sum = 0;
	for (long i = 0; i < n; i++)
		sum += (long)strlen(text + (i & 15));
	return sum == 42;
}
C
gcc -O2 -g lc.c -o lc
python3 - "$CT" "$N" "$RUNS" <<'PY'
import os, shutil, statistics, subprocess, sys
ct, n, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])

def cpu(cmd):
    """CPU seconds of the command and everything it started (tracer and program)."""
    before = os.times()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    after = os.times()
    return (after.children_user - before.children_user) + (after.children_system - before.children_system)

def per_call(cmd, calls):
    return statistics.median(cpu(cmd) for _ in range(runs)) / calls * 1e9

alone = per_call(['./lc', str(n)], n)
rows = [('alone', alone)]
rows.append(('calltrace --libcalls', per_call([ct, 'record', '-o', 'c.data', '--libcalls', './lc', str(n)], n)))
if shutil.which('uftrace'):
    rows.append(('uftrace record --force', per_call(['uftrace', 'record', '--force', '-d', 'u.data', './lc', str(n)], n)))
if shutil.which('ltrace'):
    m = max(n // 100, 1000)
    rows.append(('ltrace -e strlen', per_call(['ltrace', '-e', 'strlen', '-o', '/dev/null', './lc', str(m)], m)))
print(f'strlen called {n:,} times (ltrace: {max(n // 100, 1000):,}), CPU ns per call, median of {runs}:')
for name, ns in rows:
    extra = '' if name == 'alone' else f'   (+{ns - alone:.1f} ns over the call itself)'
    print(f'  {name:24s} {ns:10.1f}{extra}')
PY
"$CT" info -i c.data 2>/dev/null | grep '^libcalls' || true
