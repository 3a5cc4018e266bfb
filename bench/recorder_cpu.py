#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The recorder's CPU against the program's, as `calltrace info` reports them
for the same run (issue 23): fib(32), 64 threads x 200 k calls and, given its
Debian source (apt-get source yaml-cpp), a yaml-cpp 0.7 parser, all built
with gcc -O2 -finstrument-functions. Several calltrace builds are run
interleaved, round by round; medians are printed.

  bench/recorder_cpu.py [--rounds 5] [--yaml-cpp SRC] NAME=CALLTRACE[:RECORD-OPTION...] ...

e.g. bench/recorder_cpu.py old=/tmp/old/build/calltrace new=build/calltrace \\
       jobs2=build/calltrace:--jobs:2 --yaml-cpp /tmp/yaml-cpp-0.7.0+dfsg
"""
import argparse, glob, json, os, re, statistics, subprocess, sys, tempfile

FIB = r'''#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { printf("%ld\n", fib(argc > 1 ? atoi(argv[1]) : 32)); return 0; }
'''
THREADS = r'''#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static long calls;
__attribute__((noinline)) long leaf(long x) { return x * 3 + 1; }
__attribute__((noinline)) long mid(long x) { return leaf(x) + leaf(x + 1); }
static void *run(void *p) { long s = 0; for (long i = 0; i < calls / 3; i++) s += mid(i); return (void *)s; }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 64;
	calls = argc > 2 ? atol(argv[2]) : 200000;
	pthread_t t[256];
	for (int i = 0; i < n; i++) pthread_create(&t[i], 0, run, 0);
	for (int i = 0; i < n; i++) pthread_join(t[i], 0);
	return 0;
}
'''
YAML = r'''#include <yaml-cpp/yaml.h>
#include <iostream>
#include <sstream>
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 107;
	std::ostringstream s;
	for (int i = 0; i < n; i++)
		s << "- name: \"value " << i << "\"\n  id: " << i << "\n  list: [1, 2.5, three, " << i
		  << "]\n  map: {a: x, b: 'y z'}\n";
	YAML::Node doc = YAML::Load(s.str());
	long total = 0;
	for (auto it = doc.begin(); it != doc.end(); ++it)
		total += (*it)["list"].size() + (*it)["id"].as<long>();
	std::cout << total << "\n";
	return 0;
}
'''


def build(work, yaml_src):
    progs = {}
    for name, src, args in (('fib', FIB, ['32']), ('threads64', THREADS, ['64', '200000'])):
        with open(f'{work}/{name}.c', 'w') as f:
            f.write(src)
        subprocess.run(['gcc', '-O2', '-pthread', '-finstrument-functions', f'{work}/{name}.c',
                        '-o', f'{work}/{name}'], check=True)
        progs[name] = [f'{work}/{name}'] + args
    if yaml_src:
        inc = f'{yaml_src}/include'
        objs = []
        for cpp in sorted(glob.glob(f'{yaml_src}/src/*.cpp')):
            o = f'{work}/{os.path.basename(cpp)}.o'
            subprocess.run(['g++', '-O2', '-finstrument-functions', '-I', inc, '-c', cpp, '-o', o],
                           check=True)
            objs.append(o)
        with open(f'{work}/yaml.cpp', 'w') as f:
            f.write(YAML)
        subprocess.run(['g++', '-O2', '-finstrument-functions', '-I', inc, f'{work}/yaml.cpp'] +
                       objs + ['-o', f'{work}/yaml'], check=True)
        progs['yaml-cpp'] = [f'{work}/yaml', '107']
    return progs


def run(ct, opts, prog, out):
    # the round before's trace goes first: kept, the recorder would rename it to .old and
    # delete the .old before that, a deletion of megabytes charged to its CPU
    for old in (out, out + '.old'):
        if os.path.exists(old):
            os.unlink(old)
    subprocess.run([ct, 'record', *opts, '-o', out, '--', *prog], stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, timeout=600)
    info = subprocess.run([ct, 'info', '-i', out], capture_output=True, text=True).stdout
    m = re.search(r'cpu:\s+program ([\d.]+) s, recorder ([\d.]+) s', info)
    n = int(re.search(r'^records:\s+([\d,]+)', info, re.M).group(1).replace(',', ''))
    return float(m.group(1)), float(m.group(2)), os.path.getsize(out) / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--rounds', type=int, default=5)
    ap.add_argument('--yaml-cpp', help='yaml-cpp 0.7 source tree (apt-get source yaml-cpp)')
    ap.add_argument('--raw', help='write every run (program s, recorder s, bytes an event) to this JSON file')
    ap.add_argument('variants', nargs='+', help='NAME=CALLTRACE[:RECORD-OPTION...]')
    a = ap.parse_args()
    variants = []
    for v in a.variants:
        name, spec = v.split('=', 1)
        ct, *opts = spec.split(':')
        variants.append((name, os.path.abspath(ct), opts))
    with tempfile.TemporaryDirectory() as work:
        progs = build(work, a.yaml_cpp)
        res = {}
        for _ in range(a.rounds):
            for w, prog in progs.items():
                for name, ct, opts in variants:
                    res.setdefault((w, name), []).append(run(ct, opts, prog, f'{work}/t.data'))
    if a.raw:
        with open(a.raw, 'w') as f:
            json.dump({f'{w} {name}': v for (w, name), v in res.items()}, f, indent=1)
    print(f'{"workload":10} {"variant":8} {"program":>9} {"recorder":>9} {"ratio":>6} {"B/event":>8}'
          f'   (medians of {a.rounds}; ratio: the median of each run\'s)')
    for (w, name), v in res.items():
        print(f'{w:10} {name:8} {statistics.median(x[0] for x in v):8.3f}s '
              f'{statistics.median(x[1] for x in v):8.3f}s '
              f'{statistics.median(x[1] / x[0] for x in v):6.2f} '
              f'{statistics.median(x[2] for x in v):8.3f}')


if __name__ == '__main__':
    sys.exit(main())
