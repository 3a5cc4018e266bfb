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

The side-by-side table gives, per call, what the issue asks to compare: the program's own
CPU (it reports getrusage(RUSAGE_SELF) at exit, so the tracer's in-process hooks are in it),
the recorder's CPU (the rest of the process tree; for LTTng-UST its session and consumer
daemons, read from /proc around each run), wall time, and bytes written per event, for
calltrace, calltrace --ring, funtrace (ring; with --funtrace DIR, its source), uftrace and
LTTng-UST when installed. It also measures the cost of rdtsc on this machine.

Usage: bench.py [--calltrace build/calltrace] [--n 32] [--runs 5] [--only fib,fib2t]
                [--tools calltrace,calltrace-ring,...] [--funtrace DIR]
"""
import argparse, json, os, re, resource, shutil, statistics, subprocess, sys, tempfile, time

FIB = r'''
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
/* the program's own CPU, for the side-by-side table: all its threads, the tracer's hooks in them */
__attribute__((destructor, no_instrument_function)) static void bench_cpu(void) {
    const char *f = getenv("BENCH_CPU_FILE"); struct rusage u; FILE *o;
    if (!f || getrusage(RUSAGE_SELF, &u) || !(o = fopen(f, "w"))) return;
    fprintf(o, "%ld.%06ld %ld.%06ld\n", (long)u.ru_utime.tv_sec, (long)u.ru_utime.tv_usec,
            (long)u.ru_stime.tv_sec, (long)u.ru_stime.tv_usec);
    fclose(o);
}
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

# rdtsc back to back: what one clock read costs the traced thread
RDTSC = r'''
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + t.tv_nsec * 1e-9; }
int main(void) {
    /* short rounds, the best of many: a round the machine's other load preempts is dropped */
    const long n = 1000000; unsigned long long sum = 0; unsigned aux;
    double best = 1e9, bestp = 1e9;
    for (int r = 0; r < 300; r++) {
        double t0 = now();
        for (long i = 0; i < n; i++) sum += __rdtsc();
        double t1 = now();
        for (long i = 0; i < n; i++) sum += __rdtscp(&aux);
        double t2 = now();
        if ((t1 - t0) / n < best) best = (t1 - t0) / n;
        if ((t2 - t1) / n < bestp) bestp = (t2 - t1) / n;
    }
    printf("%.2f %.2f %llu\n", best * 1e9, bestp * 1e9, sum & 1);
    return 0;
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


def program_cpu(work):
    """What the program said its own CPU was (BENCH_CPU_FILE), or None."""
    try:
        u, s = open(f'{work}/cpu.txt').read().split()
        os.unlink(f'{work}/cpu.txt')
        return float(u) + float(s)
    except (OSError, ValueError):
        return None


def tree_bytes(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    total = 0
    for d, _, files in os.walk(path):
        for f in files:
            try:
                total += os.path.getsize(os.path.join(d, f))
            except OSError:
                pass
    return total


def daemon_cpu(names=('lttng-sessiond', 'lttng-consumerd')):
    """CPU seconds used so far by the processes with these names (LTTng's daemons)."""
    total, hz = 0.0, os.sysconf('SC_CLK_TCK')
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            stat = open(f'/proc/{pid}/stat').read()
        except OSError:
            continue
        comm = stat[stat.index('(') + 1:stat.rindex(')')]
        if comm in names:
            f = stat[stat.rindex(')') + 2:].split()
            total += (int(f[11]) + int(f[12])) / hz  # utime, stime
    return total


def rdtsc_cost(work):
    open(f'{work}/rdtsc.c', 'w').write(RDTSC)
    if subprocess.run(['gcc', '-O2', 'rdtsc.c', '-o', 'rdtsc'], cwd=work).returncode:
        return None
    out = subprocess.run(['./rdtsc'], cwd=work, capture_output=True, text=True).stdout.split()
    return (float(out[0]), float(out[1])) if len(out) >= 2 else None


def funtrace_build(work, src):
    """fib_fi linked with funtrace (its source in src), as ../shared/tools/peers.py builds it."""
    subprocess.run(f'cd {src} && git archive HEAD | tar x -C {work}', shell=True, check=True)
    subprocess.run('cp fib.c fibx.cpp && g++ -O2 -g -pthread -finstrument-functions -c fibx.cpp -o fibx.o && '
                   'g++ -O2 -pthread -c funtrace.cpp -o funtrace.o && '
                   'g++ fibx.o funtrace.o -Wl,--dynamic-list=funtrace.dyn -ldl -pthread -o fib_funtrace',
                   shell=True, cwd=work, check=True)


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
        if l.strip().startswith('liblttng-ust-cyg-profile-fast.so')), None)
    if shutil.which('lttng') and lttng:
        t['lttng-ust'] = (['./fib_fi'] + args, dict(os.environ, LD_PRELOAD=lttng))
    t['calltrace'] = ([ct, 'record', '-o', 'ct.data', '--', './fib_fi'] + args, None)
    t['calltrace-ring'] = ([ct, 'record', '--ring', '1M', '-o', 'ctr.data', '--', './fib_fi'] + args, None)
    t['ct-fentry'] = ([ct, 'record', '-o', 'ctf.data', '--', './fib_fentry'] + args, None)
    t['ct-patchable'] = ([ct, 'record', '-o', 'ctp.data', '--', './fib_patchable'] + args, None)
    t['ct-patch'] = ([ct, 'record', '-o', 'ctd.data', '--', './fib_plain'] + args, None)
    if os.path.exists(f'{work}/fib_funtrace'):
        t['funtrace-ring'] = (['./fib_funtrace'] + args, dict(os.environ, FUNTRACE_FTRACE_EVENTS_IN_BUF='0'))
    if shutil.which('uftrace'):
        t['uftrace-fentry'] = (['uftrace', 'record', '-d', 'uf.data', './fib_fentry'] + args, None)
        t['uftrace-patch'] = (['uftrace', 'record', '-P', '.', '-d', 'uf.data', './fib_plain'] + args, None)
    return t


def lttng_session(work, what):
    """create (stopped), start, stop (flushes the buffers to {work}/lt) or destroy the session"""
    cmd = {'create': f'(pgrep -x lttng-sessiond >/dev/null || lttng-sessiond --daemonize >/dev/null 2>&1); '
                     f'lttng create bench --output={work}/lt && lttng enable-event -u "lttng_ust_cyg_profile_fast:*"',
           'start': 'lttng start bench', 'stop': 'lttng stop bench', 'destroy': 'lttng destroy bench'}[what]
    out = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    # lttng stop warns when its buffers were full: "N events were discarded"
    m = re.search(r'(\d+) events? (?:were|was) discarded', out.stdout + out.stderr)
    n = int(m.group(1)) if m else 0
    return n if n < 2**63 else None  # lttng 2.13 sometimes prints a wrapped count: unknown


# where each tool writes its trace: bytes per event come from its size
TRACE_OF = {'calltrace': 'ct.data', 'calltrace-ring': 'ctr.data', 'ct-fentry': 'ctf.data',
            'ct-patchable': 'ctp.data', 'ct-patch': 'ctd.data', 'uftrace': 'uf.data',
            'uftrace-fentry': 'uf.data', 'uftrace-patch': 'uf.data', 'lttng-ust': 'lt'}


def one_run(k, cmd, env, work):
    """(wall, tree cpu, program cpu, recorder cpu outside the tree, trace bytes, events dropped)"""
    env = dict(env or os.environ, BENCH_CPU_FILE=f'{work}/cpu.txt')
    shutil.rmtree(f'{work}/uf.data', ignore_errors=True)
    outside, size0, dropped = 0.0, 0, 0
    if k == 'lttng-ust':
        size0 = tree_bytes(f'{work}/lt')
        lttng_session(work, 'start')
        outside = daemon_cpu()
    w, c = run(cmd, work, env)
    if k == 'lttng-ust':
        dropped = lttng_session(work, 'stop')  # the consumer writes what the buffers hold
        outside = daemon_cpu() - outside
    prog = program_cpu(work)
    size = tree_bytes(f'{work}/{TRACE_OF[k]}') - size0 if k in TRACE_OF else 0
    return w, c, prog, outside, size, dropped


def bench(name, args, calls, ct, runs, work, only_tools=None):
    tools = tools_for(work, ct, args)
    if only_tools:
        tools = {k: v for k, v in tools.items() if k == 'plain' or k in only_tools}
    if 'lttng-ust' in tools:
        lttng_session(work, 'create')
    res = {k: [] for k in tools}
    side = {k: [] for k in tools}
    details, ring_details, fentry_details, patch_details, dyn_details = [], [], [], [], []
    for i in range(runs + 1):
        for k, (cmd, env) in tools.items():
            w, c, prog, outside, size, dropped = one_run(k, cmd, env, work)
            if i == 0:
                continue  # warm-up round
            res[k].append((w, c))
            side[k].append((prog, outside, size, dropped))
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
        lttng_session(work, 'destroy')
    pw = statistics.median(x[0] for x in res['plain'])
    pc = statistics.median(x[1] for x in res['plain'])
    rows = {}
    for k, v in res.items():
        w = statistics.median(x[0] for x in v)
        c = statistics.median(x[1] for x in v)
        rows[k] = {'wall_s': w, 'cpu_s': c,
                   'wall_ns_per_call': (w - pw) / calls * 1e9, 'cpu_ns_per_call': (c - pc) / calls * 1e9}
        progs = [x[0] for x in side[k] if x[0] is not None]
        pp = statistics.median(x[0] for x in side['plain'] if x[0] is not None) if side['plain'][0][0] is not None else pc
        if progs:
            # per run: the program's own CPU, and the rest (the tree's other processes, LTTng's daemons)
            prog = statistics.median(progs)
            rec = statistics.median(c - p + o for (_, c), (p, o, _, _) in zip(v, side[k]) if p is not None)
            rows[k]['side'] = {'program_cpu_s': prog, 'recorder_cpu_s': rec,
                               'program_ns_per_call': (prog - pp) / calls * 1e9,
                               'recorder_ns_per_call': rec / calls * 1e9,
                               'trace_bytes': statistics.median(x[2] for x in side[k]),
                               'dropped': statistics.median(x[3] for x in side[k] if x[3] is not None)
                               if any(x[3] is not None for x in side[k]) else None}
    d = {k: statistics.median(x[k] for x in details) for k in details[0]} if details else {}
    if d:
        rows['calltrace'].update({
            'program_ns_per_call': (d['program_cpu'] - pc) / calls * 1e9,
            'recorder_ns_per_call': d['recorder_cpu'] / calls * 1e9,
            'bytes_per_event': d['bytes'] / max(d['records'], 1),
            'recorder_events_per_s': d['records'] / d['recorder_cpu'] if d['recorder_cpu'] else 0,
            'recorder_peak_mib': d['recorder_rss_mib'],
            'trace_bytes': d['bytes'],
            'records': d['records'],
        })
    if ring_details:
        rows['calltrace-ring']['program_ns_per_call'] = (
            statistics.median(x['program_cpu'] for x in ring_details) - pc) / calls * 1e9
        rows['calltrace-ring']['records'] = statistics.median(x['records'] for x in ring_details)
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


SIDE_TOOLS = ('calltrace', 'calltrace-ring', 'funtrace-ring', 'uftrace', 'lttng-ust')


def side_by_side(name, calls, runs, rows, funtrace_why):
    """The program's own CPU, the recorder's, wall and bytes per event: per call, one row a tool."""
    print(f'\n{name}: side by side, ns per call above the plain program (median of {runs} runs)')
    print(f"  {'tool':16s} {'program cpu':>12s} {'recorder cpu':>13s} {'total cpu':>10s} {'wall':>8s} {'bytes/event':>12s}")
    for k in SIDE_TOOLS:
        r = rows.get(k)
        if not r or 'side' not in r:
            why = funtrace_why if k == 'funtrace-ring' else 'not installed'
            print(f'  {k:16s} skipped: {why}')
            continue
        sd = r['side']
        events = r.get('records') or 2 * calls  # what the trace holds (calltrace says), else every call's two
        bpe = sd['trace_bytes'] / events if sd['trace_bytes'] else 0.0
        what = f'{bpe:12.2f}' if k != 'funtrace-ring' else f"{'(in memory)':>12s}"
        if sd.get('dropped'):
            what += f"  ({sd['dropped']:,.0f} events dropped: buffers full)"
        print(f"  {k:16s} {sd['program_ns_per_call']:12.1f} {sd['recorder_ns_per_call']:13.1f} "
              f"{sd['program_ns_per_call'] + sd['recorder_ns_per_call']:10.1f} {r['wall_ns_per_call']:8.1f} {what}")
    print('  program cpu: getrusage(RUSAGE_SELF) of the traced process at exit, less the plain program\'s;'
          ' recorder cpu: the rest of the process tree, and LTTng\'s session and consumer daemons')


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
    ap.add_argument('--tools', help='only these tools (comma-separated; the plain program always runs), '
                    'e.g. the side-by-side set: ' + ','.join(SIDE_TOOLS))
    ap.add_argument('--funtrace', help="funtrace's source (a git checkout), for its ring-only row")
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
        funtrace_why = 'no source: pass --funtrace DIR (a checkout of funtrace)'
        if a.funtrace:
            try:
                funtrace_build(work, os.path.abspath(a.funtrace))
            except subprocess.CalledProcessError as e:
                funtrace_why = f'building it from {a.funtrace} failed ({e})'
        print(f'machine: {os.cpu_count()} cpus, {open("/proc/cpuinfo").read().split("model name")[1].split(":")[1].splitlines()[0].strip()}, '
              f'load average {" ".join(open("/proc/loadavg").read().split()[:3])}')
        tsc = rdtsc_cost(work)
        if tsc:
            print(f'rdtsc: {tsc[0]:.1f} ns, rdtscp: {tsc[1]:.1f} ns (back to back, best of 300 rounds of 1 M)')
        out = {}
        for w in a.only.split(','):
            if w == 'fib':
                args, calls = [str(a.n), '1'], fib_calls(a.n)
            elif w == 'fib2t':
                args, calls = [str(a.n - 1), '2'], 2 * fib_calls(a.n - 1)
            else:
                sys.exit(f'unknown workload {w}')
            rows = bench(w, args, calls, ct, a.runs, work, a.tools.split(',') if a.tools else None)
            report(w, calls, a.runs, rows)
            side_by_side(w, calls, a.runs, rows, funtrace_why)
            out[w] = {'calls': calls, 'tools': rows}
        if tsc:
            out['rdtsc_ns'], out['rdtscp_ns'] = tsc
        if a.json:
            json.dump(out, open(a.json, 'w'), indent=2)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()
