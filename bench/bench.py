#!/usr/bin/env python3
"""Record overhead of calltrace side by side with its peers, in one run.

Workloads (built -O2 -g -finstrument-functions, as in ../shared/tools/peers.py, and
-O2 -g -pg -mfentry for the fentry rows: calltrace's __fentry__, uftrace's):
  fib     fib(N) in one thread, 2*fib(N+1)-1 calls
  fib2t   fib(N-1) in each of two threads

For each tool the figure is (traced - plain) / calls from the median of interleaved runs:
wall time, and CPU time (user + system) of the whole process tree. For calltrace the trace
also tells the traced program's CPU and the recorder's apart, the bytes written per event,
the recorder's event rate and its peak memory.

Usage: bench.py [--calltrace build/calltrace] [--n 32] [--runs 5] [--only fib,fib2t]
"""
import argparse, json, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

FIB = r'''
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n){ return n<2?n:fib(n-1)+fib(n-2); }
static void *run(void *p){ long n = (long)p; long *r = malloc(sizeof *r); *r = fib((int)n); return r; }
int main(int argc,char**argv){
    int n = argc>1?atoi(argv[1]):30, threads = argc>2?atoi(argv[2]):1;
    if (threads <= 1) { printf("%ld\n", fib(n)); return 0; }
    pthread_t t[16]; long sum = 0;
    for (int i = 0; i < threads; i++) pthread_create(&t[i], 0, run, (void *)(long)n);
    for (int i = 0; i < threads; i++) { void *r; pthread_join(t[i], &r); sum += *(long *)r; free(r); }
    printf("%ld\n", sum); return 0;
}
'''

NOP = r'''
void __attribute__((no_instrument_function)) __cyg_profile_func_enter(void*a,void*b){}
void __attribute__((no_instrument_function)) __cyg_profile_func_exit(void*a,void*b){}
'''


def fib_calls(n):
    a, b = 1, 1
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b if n > 0 else 1


def run(cmd, cwd, env=None):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    t1 = time.perf_counter()
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    if p.returncode != 0:
        sys.stderr.write(f"warning: {' '.join(cmd)} exited {p.returncode}: {p.stderr.decode()[-300:]}\n")
    return t1 - t0, cpu


def calltrace_details(ct, data, cwd):
    out = subprocess.run([ct, 'info', '-i', data], cwd=cwd, capture_output=True, text=True).stdout
    d = {}
    m = re.search(r'cpu:\s+program ([\d.]+) s, recorder ([\d.]+) s \(peak memory ([\d.]+) (\w+)\)', out)
    if m:
        d['program_cpu'] = float(m.group(1))
        d['recorder_cpu'] = float(m.group(2))
        scale = {'B': 1 / 2**20, 'KiB': 1 / 1024, 'MiB': 1, 'GiB': 1024}[m.group(4)]
        d['recorder_rss_mib'] = float(m.group(3)) * scale
    m = re.search(r'records:\s+([\d,]+)', out)
    if m:
        d['records'] = int(m.group(1).replace(',', ''))
    d['bytes'] = os.path.getsize(os.path.join(cwd, data))
    return d


def tools_for(work, ct, args):
    t = {'plain': (['./fib_plain'] + args, None),
         'nop-hooks': (['./fib_fi'] + args, dict(os.environ, LD_PRELOAD=f'{work}/libnop.so'))}
    if shutil.which('uftrace'):
        t['uftrace'] = (['uftrace', 'record', '-d', 'uf.data', './fib_fi'] + args, None)
    lttng = next((l.split('=>')[-1].strip() for l in subprocess.run(
        ['ldconfig', '-p'], capture_output=True, text=True).stdout.splitlines()
        if 'liblttng-ust-cyg-profile-fast.so ' in l or l.strip().startswith('liblttng-ust-cyg-profile-fast.so (')), None)
    if shutil.which('lttng') and lttng:
        t['lttng-ust'] = (['./fib_fi'] + args, dict(os.environ, LD_PRELOAD=lttng))
    t['calltrace'] = ([ct, 'record', '-o', 'ct.data', '--', './fib_fi'] + args, None)
    t['calltrace-ring'] = ([ct, 'record', '--ring', '1M', '-o', 'ctr.data', '--', './fib_fi'] + args, None)
    t['ct-fentry'] = ([ct, 'record', '-o', 'ctf.data', '--', './fib_fentry'] + args, None)
    t['ct-patchable'] = ([ct, 'record', '-o', 'ctp.data', '--', './fib_patchable'] + args, None)
    t['ct-patch'] = ([ct, 'record', '-o', 'ctd.data', '--', './fib_plain'] + args, None)
    if shutil.which('uftrace'):
        t['uftrace-fentry'] = (['uftrace', 'record', '-d', 'uf.data', './fib_fentry'] + args, None)
        t['uftrace-patch'] = (['uftrace', 'record', '-P', '.', '-d', 'uf.data', './fib_plain'] + args, None)
    return t


def lttng_session(work, start):
    if start:
        cmd = (f'(lttng-sessiond --daemonize >/dev/null 2>&1 || true); lttng create bench --output={work}/lt && '
               'lttng enable-event -u "lttng_ust_cyg_profile_fast:*" && lttng start')
    else:
        cmd = 'lttng stop; lttng destroy bench'
    subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def bench(name, args, calls, ct, runs, work):
    tools = tools_for(work, ct, args)
    if 'lttng-ust' in tools:
        lttng_session(work, True)
    res = {k: [] for k in tools}
    details, ring_details, fentry_details, patch_details, dyn_details = [], [], [], [], []
    for i in range(runs + 1):
        for k, (cmd, env) in tools.items():
            shutil.rmtree(f'{work}/uf.data', ignore_errors=True)
            w, c = run(cmd, work, env)
            if i == 0:
                continue  # warm-up round
            res[k].append((w, c))
            if k == 'calltrace':
                details.append(calltrace_details(ct, 'ct.data', work))
            if k == 'calltrace-ring':
                ring_details.append(calltrace_details(ct, 'ctr.data', work))
            if k == 'ct-fentry':
                fentry_details.append(calltrace_details(ct, 'ctf.data', work))
            if k == 'ct-patchable':
                patch_details.append(calltrace_details(ct, 'ctp.data', work))
            if k == 'ct-patch':
                dyn_details.append(calltrace_details(ct, 'ctd.data', work))
    if 'lttng-ust' in tools:
        lttng_session(work, False)
    pw = statistics.median(x[0] for x in res['plain'])
    pc = statistics.median(x[1] for x in res['plain'])
    rows = {}
    for k, v in res.items():
        w = statistics.median(x[0] for x in v)
        c = statistics.median(x[1] for x in v)
        rows[k] = {'wall_s': w, 'cpu_s': c,
                   'wall_ns_per_call': (w - pw) / calls * 1e9, 'cpu_ns_per_call': (c - pc) / calls * 1e9}
    d = {k: statistics.median(x[k] for x in details) for k in details[0]} if details else {}
    if d:
        rows['calltrace'].update({
            'program_ns_per_call': (d['program_cpu'] - pc) / calls * 1e9,
            'recorder_ns_per_call': d['recorder_cpu'] / calls * 1e9,
            'bytes_per_event': d['bytes'] / max(d['records'], 1),
            'recorder_events_per_s': d['records'] / d['recorder_cpu'] if d['recorder_cpu'] else 0,
            'recorder_peak_mib': d['recorder_rss_mib'],
            'trace_bytes': d['bytes'],
        })
    if ring_details:
        rows['calltrace-ring']['program_ns_per_call'] = (
            statistics.median(x['program_cpu'] for x in ring_details) - pc) / calls * 1e9
    # -pg -mfentry and patchable entries see only the calls the optimised code
    # makes (gcc makes a loop of one of fib's two calls): per call is per call
    # the trace counts, for calltrace and for uftrace on the same binary
    for key, det, peer in (('ct-fentry', fentry_details, 'uftrace-fentry'),
                           ('ct-patchable', patch_details, None),
                           ('ct-patch', dyn_details, 'uftrace-patch')):
        if not det:
            continue
        seen = statistics.median(x['records'] for x in det) / 2
        for k in (key, peer):
            if k in rows:
                rows[k]['calls'] = seen
                rows[k]['wall_ns_per_call'] = (rows[k]['wall_s'] - pw) / seen * 1e9
                rows[k]['cpu_ns_per_call'] = (rows[k]['cpu_s'] - pc) / seen * 1e9
        rows[key]['program_ns_per_call'] = (
            statistics.median(x['program_cpu'] for x in det) - pc) / seen * 1e9
    return rows


def report(name, calls, runs, rows):
    print(f'\n{name}: {calls:,} calls, median of {runs} runs, ns per call above the plain program')
    print(f"  {'tool':14s} {'wall':>9s} {'cpu':>9s} {'wall ns/call':>13s} {'cpu ns/call':>12s}")
    for k, r in rows.items():
        print(f"  {k:14s} {r['wall_s']:8.3f}s {r['cpu_s']:8.3f}s {r['wall_ns_per_call']:13.1f} {r['cpu_ns_per_call']:12.1f}")
    c = rows.get('calltrace', {})
    if 'program_ns_per_call' in c:
        print(f"  calltrace: program {c['program_ns_per_call']:.1f} ns/call, recorder {c['recorder_ns_per_call']:.1f} ns/call, "
              f"{c['bytes_per_event']:.2f} bytes/event on disk, recorder {c['recorder_events_per_s']/1e6:.0f} M events/s, "
              f"recorder peak {c['recorder_peak_mib']:.1f} MiB")
    r = rows.get('calltrace-ring', {})
    if 'program_ns_per_call' in r:
        print(f"  calltrace --ring 1M: program {r['program_ns_per_call']:.1f} ns/call (streaming: {c.get('program_ns_per_call', 0):.1f})")
    for peer in ('uftrace', 'lttng-ust'):
        if peer in rows and rows[peer]['cpu_ns_per_call'] > 0:
            print(f"  calltrace / {peer}: total CPU per call {c['cpu_ns_per_call'] / rows[peer]['cpu_ns_per_call']:.3f}, "
                  f"wall per call {c['wall_ns_per_call'] / rows[peer]['wall_ns_per_call']:.3f}")
    f = rows.get('ct-fentry', {})
    if 'program_ns_per_call' in f:
        print(f"  calltrace, -pg -mfentry build ({f['calls']:,.0f} calls made): program {f['program_ns_per_call']:.1f} ns/call")
    p = rows.get('ct-patchable', {})
    if 'program_ns_per_call' in p:
        print(f"  calltrace, -fpatchable-function-entry build ({p['calls']:,.0f} calls made): program {p['program_ns_per_call']:.1f} ns/call")
    d = rows.get('ct-patch', {})
    if 'program_ns_per_call' in d:
        print(f"  calltrace, plain build patched in memory ({d['calls']:,.0f} calls made): program {d['program_ns_per_call']:.1f} ns/call")
    for mine, peer, what in ((f, 'uftrace-fentry', 'both -pg -mfentry'), (d, 'uftrace-patch', 'both patching the plain build (uftrace -P .)')):
        u = rows.get(peer, {})
        if mine and u.get('cpu_ns_per_call', 0) > 0:
            print(f"  calltrace / uftrace, {what}: total CPU per call {mine['cpu_ns_per_call'] / u['cpu_ns_per_call']:.3f}, "
                  f"wall per call {mine['wall_ns_per_call'] / u['wall_ns_per_call']:.3f}; uftrace {u['cpu_ns_per_call']:.1f} ns/call")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--calltrace', default=os.path.join(os.path.dirname(__file__), '..', 'build', 'calltrace'))
    ap.add_argument('--n', type=int, default=32)
    ap.add_argument('--runs', type=int, default=5)
    ap.add_argument('--only', default='fib,fib2t')
    ap.add_argument('--json', help='also write the figures to this file')
    a = ap.parse_args()
    ct = os.path.abspath(a.calltrace)
    work = tempfile.mkdtemp(prefix='ct-bench-')
    try:
        open(f'{work}/fib.c', 'w').write(FIB)
        open(f'{work}/nop.c', 'w').write(NOP)
        # -pg to the compiler only (as calltrace-cc does): no gprof start files
        for out, flags in (('fib_plain', []), ('fib_fi', ['-finstrument-functions']),
                           ('fib_fentry', ['-Wp,-p', '-mfentry']),
                           ('fib_patchable', ['-fpatchable-function-entry=5,0'])):
            subprocess.run(['gcc', '-O2', '-g', '-pthread', *flags, 'fib.c', '-o', out], cwd=work, check=True)
        subprocess.run(['gcc', '-O2', '-shared', '-fPIC', 'nop.c', '-o', 'libnop.so'], cwd=work, check=True)
        print(f'machine: {os.cpu_count()} cpus, {open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].splitlines()[0].strip()}')
        out = {}
        for w in a.only.split(','):
            if w == 'fib':
                args, calls = [str(a.n), '1'], fib_calls(a.n)
            elif w == 'fib2t':
                args, calls = [str(a.n - 1), '2'], 2 * fib_calls(a.n - 1)
            else:
                sys.exit(f'unknown workload {w}')
            rows = bench(w, args, calls, ct, a.runs, work)
            report(w, calls, a.runs, rows)
            out[w] = {'calls': calls, 'tools': rows}
        if a.json:
            json.dump(out, open(a.json, 'w'), indent=2)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
