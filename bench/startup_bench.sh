#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Start-up cost of dynamic patching: a generated program with N functions
# (default 50000), built plain (gcc -O2 -g), prints the time at the top of
# main; the figure is exec to main, alone and under `calltrace record`
# (which patches every function first), median of RUNS.
#
#   bench/startup_bench.sh [N] [RUNS]
set -eu
N=${1:-50000} RUNS=${2:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CT=${CALLTRACE:-$root/build/calltrace}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
python3 - "$N" <<'PY'
import sys
n = int(sys.argv[1])
with open('big.c', 'w') as f:
    f.write('#include <stdio.h>\n#include <time.h>\nvolatile long sink;\n')
    for i in range(n):
        f.write(f'__attribute__((noinline)) long f{i}(long x) {{ sink += x; if (x & {i % 7 + 1}) sink ^= {i}; return x + {i}; }}\n')
    f.write('typedef long (*fn)(long);\nfn table[] = {' + ','.join(f'f{i}' for i in range(n)) + '};\n')
    f.write('int main(void) { struct timespec ts; clock_gettime(CLOCK_REALTIME, &ts);'
            ' printf("%ld.%09ld\\n", (long)ts.tv_sec, ts.tv_nsec); return (int)(table[0](1) & 0); }\n')
PY
echo "building $N functions (gcc -O2 -g; minutes for 50000)..." >&2
gcc -O2 -g big.c -o big
python3 - "$CT" "$RUNS" <<'PY'
import statistics, subprocess, sys, time
ct, runs = sys.argv[1], int(sys.argv[2])
def exec_to_main(cmd):
    t0 = time.time()
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout.split()[0]
    return (float(out) - t0) * 1000
plain = statistics.median(exec_to_main(['./big']) for _ in range(runs))
traced = statistics.median(exec_to_main([ct, 'record', '-o', 'b.data', './big']) for _ in range(runs))
info = subprocess.run([ct, 'info', '-i', 'b.data'], capture_output=True, text=True).stdout
patched = next((l for l in info.splitlines() if l.startswith('patched:')), 'patched: ?')
print(f'exec to main, median of {runs}: alone {plain:.1f} ms, under calltrace record {traced:.1f} ms ({patched.strip()})')
PY
