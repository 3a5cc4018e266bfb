#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of `calltrace export` output, for tests/export/run.sh.

    check.py perfetto FILE REPORT.json REPLAY.txt [COUNTS.json]
    check.py chrome   FILE REPORT.json REPLAY.txt [COUNTS.json]
    check.py folded   FILE REPORT.json time|calls
    check.py same-counts A.json B.json        calls per (tid, name) agree
    check.py protoc   FILE                    protoc --decode_raw agrees on the packets
    check.py roots    FORMAT FILE NAME...     every call/stack is under one of NAME
    check.py tids     FORMAT FILE TID...      the calls are in these threads only
    check.py crash    FORMAT FILE             the SIGSEGV of prog.c crash: instant + unfinished frames
    check.py synth    FORMAT FILE             the output of synth.c (made-up walk), exactly

REPORT.json is `calltrace report --json` of the same trace, REPLAY.txt its
`calltrace replay` (for the "# thread T, process P (exe)" headers). Exit 0 and
silent if the check holds, else one line saying why (and exit 1).

The Perfetto trace is decoded here (a small varint / length-delimited
parser), not with Perfetto's libraries: the checks are structural (packets,
sequences, incremental state, descriptors, interning, begin/end pairs per
track, timestamps monotonic per sequence).
"""
import collections
import decimal
import json
import os
import re
import shutil
import subprocess
import sys


class Bad(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise Bad(msg)


# ---- protobuf wire format ----------------------------------------------------

def varint(b, i):
    v = shift = 0
    while True:
        need(i < len(b), 'truncated varint')
        c = b[i]
        i += 1
        v |= (c & 0x7f) << shift
        if not c & 0x80:
            return v, i
        shift += 7
        need(shift < 70, 'varint longer than 10 bytes')


def fields(b):
    """[(field, wire, value)]: value an int (varint, fixed) or bytes (length-delimited)."""
    out, i = [], 0
    while i < len(b):
        key, i = varint(b, i)
        f, w = key >> 3, key & 7
        need(f > 0, 'field number 0')
        if w == 0:
            v, i = varint(b, i)
        elif w == 1:
            need(i + 8 <= len(b), 'truncated fixed64')
            v, i = int.from_bytes(b[i:i + 8], 'little'), i + 8
        elif w == 2:
            n, i = varint(b, i)
            need(i + n <= len(b), f'field {f}: length {n} runs past the message')
            v, i = b[i:i + n], i + n
        elif w == 5:
            need(i + 4 <= len(b), 'truncated fixed32')
            v, i = int.from_bytes(b[i:i + 4], 'little'), i + 4
        else:
            raise Bad(f'field {f}: wire type {w} is not used by Perfetto')
        out.append((f, w, v))
    return out


def msg(b):
    """field -> [values], in order."""
    d = collections.defaultdict(list)
    for f, _, v in fields(b):
        d[f].append(v)
    return d


def one(d, f, default=None):
    v = d.get(f)
    if not v:
        return default
    return v[-1]


def sint32(v):
    v &= (1 << 64) - 1
    return v - (1 << 64) if v >> 63 else v


# TracePacket fields (see the table in src/output/export_perfetto.c)
P_CLOCK_SNAPSHOT, P_TIMESTAMP, P_SEQ, P_TRACK_EVENT, P_INTERNED, P_FLAGS = 6, 8, 10, 11, 12, 13
P_CLOCK_ID, P_DEFAULTS, P_TRACK_DESCRIPTOR = 58, 59, 60
CLEARED, NEEDS = 1, 2
BOOTTIME = 6
SLICE_BEGIN, SLICE_END, INSTANT = 1, 2, 3


def decode_perfetto(path):
    """Everything the checks need, or Bad."""
    data = open(path, 'rb').read()
    need(data, 'empty file')
    packets = []
    for f, w, v in fields(data):
        need(f == 1 and w == 2, f'top-level field {f} (wire {w}): a Trace has only packet = 1')
        packets.append(msg(v))
    tracks = {}   # uuid -> descriptor dict
    seqs = {}     # seq id -> state
    names = {}    # iid -> name (must agree across sequences)
    slices = collections.defaultdict(list)  # uuid -> open stack of names
    calls = collections.Counter()           # (tid, name)
    instants = []                           # (uuid, name, ts)
    events = 0
    for n, p in enumerate(packets):
        where = f'packet {n}'
        seq = one(p, P_SEQ, 0)
        flags = one(p, P_FLAGS, 0)
        st = seqs.get(seq)
        if seq:
            if st is None:
                need(flags & CLEARED, f'{where}: first packet of sequence {seq} without SEQ_INCREMENTAL_STATE_CLEARED')
                st = seqs[seq] = {'names': set(), 'clock': None, 'track': None, 'inc': {}, 'last': None}
            elif flags & CLEARED:
                st.update(names=set(), clock=None, track=None, inc={})
        if P_DEFAULTS in p:
            need(seq, f'{where}: trace_packet_defaults outside a sequence')
            d = msg(one(p, P_DEFAULTS))
            st['clock'] = one(d, 58)
            ted = one(d, 11)
            st['track'] = one(msg(ted), 11) if ted is not None else None
        if P_TRACK_DESCRIPTOR in p:
            td = msg(one(p, P_TRACK_DESCRIPTOR))
            uuid = one(td, 1)
            need(uuid, f'{where}: track descriptor without uuid')
            need(uuid not in tracks, f'{where}: track {uuid} described twice')
            t = {'uuid': uuid, 'parent': one(td, 5), 'name': one(td, 2, b'').decode()}
            if 3 in td:
                pd = msg(one(td, 3))
                t['kind'] = 'process'
                t['pid'] = sint32(one(pd, 1, 0))
                t['pname'] = one(pd, 6, b'').decode()
                t['cmdline'] = [c.decode() for c in pd.get(2, [])]
            if 4 in td:
                thd = msg(one(td, 4))
                t['kind'] = 'thread'
                t['pid'] = sint32(one(thd, 1, 0))
                t['tid'] = sint32(one(thd, 2, 0))
                t['tname'] = one(thd, 5, b'').decode()
            tracks[uuid] = t
        if P_CLOCK_SNAPSHOT in p:
            cs = msg(one(p, P_CLOCK_SNAPSHOT))
            clocks = {}
            for c in cs.get(1, []):
                cm = msg(c)
                clocks[one(cm, 1)] = (one(cm, 2, 0), one(cm, 3, 0))
            need(BOOTTIME in clocks, f'{where}: clock snapshot without BOOTTIME')
            boot = clocks[BOOTTIME][0]
            for cid, (ts, inc) in clocks.items():
                if 64 <= cid < 128:
                    need(seq, f'{where}: sequence-scoped clock {cid} outside a sequence')
                    # the clock's value ts is BOOTTIME's boot: offset boot - ts
                    st['inc'][cid] = {'incremental': bool(inc), 'offset': boot - ts, 'value': ts}
        if P_INTERNED in p:
            need(seq, f'{where}: interned data outside a sequence')
            need(flags & NEEDS, f'{where}: interned data without SEQ_NEEDS_INCREMENTAL_STATE')
            idata = msg(one(p, P_INTERNED))
            for en in idata.get(2, []):
                e = msg(en)
                iid, name = one(e, 1), one(e, 2, b'').decode()
                need(iid, f'{where}: event name without iid')
                need(names.get(iid, name) == name, f'{where}: iid {iid} is "{names.get(iid)}" and "{name}"')
                names[iid] = name
                st['names'].add(iid)
        if P_TRACK_EVENT not in p:
            continue
        events += 1
        te = msg(one(p, P_TRACK_EVENT))
        need(seq, f'{where}: track event outside a sequence')
        need(P_TIMESTAMP in p, f'{where}: track event without a timestamp')
        # the timestamp, through the sequence's clock
        cid = one(p, P_CLOCK_ID, st['clock'])
        ts = one(p, P_TIMESTAMP)
        if cid is not None and 64 <= cid < 128:
            need(flags & NEEDS, f'{where}: uses the sequence clock {cid} without SEQ_NEEDS_INCREMENTAL_STATE')
            c = st['inc'].get(cid)
            need(c, f'{where}: sequence clock {cid} has no snapshot on sequence {seq}')
            if c['incremental']:
                c['value'] += ts
                ts = c['value']
            ts += c['offset']
        else:
            need(cid in (None, BOOTTIME), f'{where}: clock {cid}')
        need(st['last'] is None or ts >= st['last'], f'{where}: time goes back on sequence {seq} ({st["last"]} -> {ts})')
        st['last'] = ts
        uuid = one(te, 11, st['track'])
        need(uuid in tracks, f'{where}: event on track {uuid}, never described')
        if st['track'] is not None and uuid == st['track']:
            need(flags & NEEDS, f'{where}: relies on the default track without SEQ_NEEDS_INCREMENTAL_STATE')
        typ = one(te, 9)
        name = None
        if 10 in te:
            iid = one(te, 10)
            need(flags & NEEDS, f'{where}: name_iid without SEQ_NEEDS_INCREMENTAL_STATE')
            need(iid in st['names'], f'{where}: name_iid {iid} not interned on sequence {seq}')
            name = names[iid]
        elif 23 in te:
            name = one(te, 23).decode()
        t = tracks[uuid]
        tid = t.get('tid', t['name'])
        if typ == SLICE_BEGIN:
            need(name, f'{where}: slice begin without a name')
            slices[uuid].append(name)
            calls[(tid, name)] += 1
        elif typ == SLICE_END:
            need(slices[uuid], f'{where}: slice end on track {uuid} with no slice open')
            slices[uuid].pop()
        elif typ == INSTANT:
            need(name, f'{where}: instant without a name')
            instants.append((uuid, name, ts))
        else:
            raise Bad(f'{where}: track event of type {typ}')
    for uuid, stack in slices.items():
        if stack:
            raise Bad(f'track {uuid}: {len(stack)} slices never end ({stack[-1]} ...)')
    for t in tracks.values():
        if t.get('parent') is not None:
            need(t['parent'] in tracks and tracks[t['parent']].get('kind') in ('process', 'thread'),
                 f'track {t["uuid"]}: parent {t["parent"]} is not a process or thread track')
            need(t.get('kind') != 'thread' or tracks[t['parent']].get('kind') == 'process',
                 f'thread track {t["uuid"]}: parent {t["parent"]} is not a process track')
            if t.get('kind') == 'thread':
                need(tracks[t['parent']]['pid'] == t['pid'], f'thread track {t["uuid"]}: pid differs from its process track')
    return {'packets': len(packets), 'events': events, 'tracks': tracks, 'calls': calls,
            'instants': instants}


# ---- shared expectations ----------------------------------------------------

def report_calls(path):
    c = collections.Counter()
    for e in json.load(open(path)):
        c[e['name']] += e['calls']
    return c


def report_self(path):
    c = collections.Counter()
    for e in json.load(open(path)):
        c[e['name']] += e['self_ns']
    return c


def replay_threads(path):
    """[(tid, pid, exe)] from the replay's thread headers."""
    out = []
    for line in open(path, errors='replace'):
        m = re.match(r'# thread (-?\d+), process (-?\d+)(?: \((.*)\))?', line)
        if m:
            out.append((int(m.group(1)), int(m.group(2)), m.group(3)))
    return out


def thread_name(tid, pid, exe):
    base = os.path.basename(exe) if exe else None
    if not base:
        return f'{"process" if tid == pid else "thread"} {tid}'
    return base if tid == pid else f'{base}/{tid}'


def by_name(calls):
    c = collections.Counter()
    for (_, name), n in calls.items():
        c[name] += n
    return c


def same_counter(got, want, what):
    if got != want:
        diff = sorted(set(got) | set(want))
        d = [f'{k}: {got.get(k, 0)} vs {want.get(k, 0)}' for k in diff if got.get(k, 0) != want.get(k, 0)]
        raise Bad(f'{what} differ (export vs report): ' + ', '.join(d[:6]))


def save_counts(calls, path):
    json.dump([[str(t), n, c] for (t, n), c in sorted(calls.items(), key=str)], open(path, 'w'))


# ---- formats ----------------------------------------------------------------

def check_perfetto(path, report, replay, counts=None):
    p = decode_perfetto(path)
    sections = replay_threads(replay)
    threads = sorted(set(sections))  # a thread comes once per snapshot
    need(threads, f'{replay}: no thread headers')
    thr = {t['tid']: t for t in p['tracks'].values() if t.get('kind') == 'thread'}
    procs = {t['pid']: t for t in p['tracks'].values() if t.get('kind') == 'process'}
    need(len(thr) == len(threads), f'{len(thr)} thread tracks, the replay has {len(threads)} threads')
    for tid, pid, exe in threads:
        need(tid in thr, f'no thread track for tid {tid}')
        t = thr[tid]
        need(t['pid'] == pid, f'thread {tid}: pid {t["pid"]}, expected {pid}')
        want = thread_name(tid, pid, exe)
        need(t['tname'] == want, f'thread {tid}: name "{t["tname"]}", expected "{want}"')
        need(pid in procs, f'no process track for pid {pid}')
        if exe:
            need(procs[pid]['pname'] == os.path.basename(exe),
                 f'process {pid}: name "{procs[pid]["pname"]}", expected "{os.path.basename(exe)}"')
        need(procs[pid]['uuid'] == t['parent'], f'thread {tid}: parent is not its process track')
    same_counter(by_name(p['calls']), report_calls(report), 'calls per function')
    # a packet per begin and end, plus a few per thread (sequence, descriptors, clock)
    ncalls = sum(p['calls'].values())
    need(p['events'] == 2 * ncalls + len(p['instants']), f'{p["events"]} track events for {ncalls} calls')
    extra = p['packets'] - p['events']
    need(extra <= 4 * len(sections), f'{extra} packets besides the events for {len(sections)} threads')
    if counts:
        save_counts(p['calls'], counts)


def load_chrome(path):
    try:
        d = json.load(open(path, 'rb'), parse_float=decimal.Decimal)
    except ValueError as e:
        raise Bad(f'not valid JSON: {e}')
    need(isinstance(d, dict) and isinstance(d.get('traceEvents'), list), 'no traceEvents array')
    need(d.get('displayTimeUnit') == 'ns', 'displayTimeUnit is not "ns"')
    return d['traceEvents']


def ns(v):
    """µs (a JSON number, 3 decimals) to integer ns."""
    need(isinstance(v, (int, decimal.Decimal)), f'time {v!r} is not a number')
    n = decimal.Decimal(v) * 1000
    need(n == n.to_integral_value(), f'time {v} is not a whole number of ns')
    return int(n)


def chrome_nesting(events):
    """Per thread, what a viewer does: sort by ts (stably), nest by containment."""
    per = collections.defaultdict(list)
    for i, e in enumerate(events):
        if e.get('ph') == 'X':
            per[(e['pid'], e['tid'])].append((ns(e['ts']), i, ns(e['ts']) + ns(e['dur']), e['name']))
    for key, evs in per.items():
        evs.sort(key=lambda x: (x[0], x[1]))
        stack = []
        for ts, i, end, name in evs:
            while stack and stack[-1][0] <= ts:  # ended by then
                stack.pop()
            if stack:
                need(end <= stack[-1][0], f'thread {key[1]}: {name} [{ts}, {end}] overlaps {stack[-1][2]} '
                     f'ending at {stack[-1][0]} (file order or times do not nest)')
            stack.append((end, ts, name))


def check_chrome(path, report, replay, counts=None):
    events = load_chrome(path)
    calls = collections.Counter()
    meta = {}
    for e in events:
        ph = e.get('ph')
        need(ph in ('X', 'M', 'i'), f'event of phase {ph!r}')
        need(isinstance(e.get('pid'), int) and isinstance(e.get('tid'), int), f'{e}: pid/tid not integers')
        if ph == 'M':
            meta[(e['name'], e['pid'], e['tid'] if e['name'] == 'thread_name' else None)] = e['args']['name']
            continue
        need((e['pid'], e['tid']) in {(p, t) for (k, p, t) in meta if k == 'thread_name'},
             f'event before the thread_name of {e["tid"]}')
        ns(e['ts'])
        if ph == 'X':
            need(ns(e['dur']) >= 0, f'negative dur {e}')
            calls[(e['tid'], e['name'])] += 1
    same_counter(by_name(calls), report_calls(report), 'calls per function')
    chrome_nesting(events)
    for tid, pid, exe in replay_threads(replay):
        want = thread_name(tid, pid, exe)
        got = meta.get(('thread_name', pid, tid))
        need(got == want, f'thread {tid}: thread_name {got!r}, expected {want!r}')
        if exe:
            got = meta.get(('process_name', pid, None))
            need(got == os.path.basename(exe), f'process {pid}: process_name {got!r}')
    if counts:
        save_counts(calls, counts)


def read_folded(path):
    lines = []
    for n, line in enumerate(open(path, encoding='utf-8'), 1):
        need(line.endswith('\n'), f'line {n} does not end with a newline')
        stack, _, w = line[:-1].rpartition(' ')
        need(stack and w.isdigit(), f'line {n} is not "a;b;c N": {line!r}')
        lines.append((stack.split(';'), int(w)))
    return lines


def check_folded(path, report, weight):
    lines = read_folded(path)
    need(lines, 'no stacks')
    stacks = [';'.join(s) for s, _ in lines]
    need(len(set(stacks)) == len(stacks), 'a stack appears on two lines')
    leaf = collections.Counter()
    nlines = collections.Counter()
    for s, w in lines:
        leaf[s[-1]] += w
        nlines[s[-1]] += 1
    if weight == 'calls':
        same_counter(leaf, report_calls(report), 'calls per leaf function')
        return
    want = report_self(report)
    for name in set(leaf) | set(want):
        tol = nlines[name] + 1  # each line and the report round to the ns
        need(abs(leaf[name] - want[name]) <= tol,
             f'{name}: self time {leaf[name]} ns in the folded lines, {want[name]} in the report')
    total, wtotal = sum(leaf.values()), sum(want.values())
    need(abs(total - wtotal) <= len(lines) + len(want), f'total {total} ns, report says {wtotal}')


def load_any(fmt, path):
    """[(tid, stack-or-None, name)] for each call, for the filter checks."""
    if fmt == 'chrome':
        return [(e['tid'], None, e['name']) for e in load_chrome(path) if e.get('ph') == 'X']
    if fmt == 'perfetto':
        p = decode_perfetto(path)
        return [(tid, None, name) for (tid, name), n in p['calls'].items() for _ in range(n)]
    return [(None, s, s[-1]) for s, _ in read_folded(path)]


def check_roots(fmt, path, roots):
    calls = load_any(fmt, path)
    need(calls, 'nothing exported')
    if fmt == 'folded':
        for s, _ in read_folded(path):
            need(s[0] in roots, f'stack {";".join(s)} is not under {roots}')
        return
    # without stacks: the names are the roots and what they call (prog.c's tree)
    below = {'work': {'work', 'mid', 'leaf'}, 'mid': {'mid', 'leaf'}, 'leaf': {'leaf'}}
    allowed = set().union(*(below.get(r, {r}) for r in roots))
    bad = {n for _, _, n in calls} - allowed
    need(not bad, f'calls outside {roots}: {sorted(bad)}')


def check_tids(fmt, path, tids):
    calls = load_any(fmt, path)
    need(calls, 'nothing exported')
    got = {t for t, _, _ in calls}
    need(got <= set(tids), f'calls in threads {sorted(got)}, expected only {tids}')


def check_crash(fmt, path):
    if fmt == 'chrome':
        events = load_chrome(path)
        inst = [e for e in events if e.get('ph') == 'i']
        need(any(e['name'].startswith('SIGSEGV at crash_inner') for e in inst),
             f'no "SIGSEGV at crash_inner..." instant event: {[e["name"] for e in inst]}')
        closes = {e['name']: e.get('args', {}).get('close') for e in events if e.get('ph') == 'X'
                  and e['name'] in ('crash_inner', 'crash_outer', 'main')}
        need(closes == {'crash_inner': 'unfinished', 'crash_outer': 'unfinished', 'main': 'unfinished'},
             f'frames open at the crash: {closes}')
    else:
        p = decode_perfetto(path)
        names = [n for _, n, _ in p['instants']]
        need(any(n.startswith('SIGSEGV at crash_inner') for n in names),
             f'no "SIGSEGV at crash_inner..." instant event: {names}')
        need(p['calls'] and any(n == 'crash_inner' for (_, n) in p['calls']), 'crash_inner missing')


SYNTH_CALLS = {(100, 'main'): 1, (100, 'a'): 1, (100, 'b'): 1, (100, 'c'): 1,
               (100, 'weird;name\n"q"\\'): 1, (100, 'caf\u00e9::\u20ac'): 1, (100, 'bad\ufffd\ufffd'): 1,
               (101, 'a'): 1, (101, 'main'): 1, (200, 'main'): 1, ('snapshot 2', 'a'): 1}
SYNTH_INSTANTS = ['lost 7 events', 'x returned (entered before tracing)', 'SIGSEGV at a+0x10, address 0x0']
SYNTH_FOLDED = {
    'folded': 'a 103\nmain 84\nmain;a 5\nmain;a;b 5\nmain;caf\u00e9::\u20ac 2\n'
              'main;caf\u00e9::\u20ac;bad\ufffd\ufffd 4\nmain;weird:name "q"\\ 10\n',
    'calls': 'a 2\nmain 3\nmain;a 1\nmain;a;b 1\nmain;a;c 1\nmain;caf\u00e9::\u20ac 1\n'
             'main;caf\u00e9::\u20ac;bad\ufffd\ufffd 1\nmain;weird:name "q"\\ 1\n',
}


def check_synth(fmt, path):
    if fmt in SYNTH_FOLDED:
        got = open(path, encoding='utf-8').read()
        need(got == SYNTH_FOLDED[fmt], f'folded output differs: {got!r}')
        return
    if fmt == 'chrome':
        events = load_chrome(path)
        chrome_nesting(events)
        snap = 2 << 22 | 100
        calls = collections.Counter(('snapshot 2' if e['tid'] == snap else e['tid'], e['name'])
                                    for e in events if e['ph'] == 'X')
        need(calls == SYNTH_CALLS, f'calls {dict(calls)}')
        inst = [e['name'] for e in events if e['ph'] == 'i']
        need(inst == SYNTH_INSTANTS, f'instants {inst}')
        close = {(e['tid'], e['name']): e.get('args', {}).get('close') for e in events if e['ph'] == 'X'}
        need(close[(100, 'main')] == 'unfinished' and close[(101, 'main')] == 'unfinished'
             and close[(100, 'weird;name\n"q"\\')] == 'unwound' and close[(100, 'a')] is None,
             f'closes {close}')
        meta = {(e['name'], e['pid'], e['tid']): e['args']['name'] for e in events if e['ph'] == 'M'}
        need(meta == {('process_name', 100, 100): 'synth', ('thread_name', 100, 100): 'synth',
                      ('thread_name', 100, 101): 'synth/101', ('process_name', 200, 200): 'other',
                      ('thread_name', 200, 200): 'other', ('thread_name', 100, snap): 'synth (snapshot 2)'},
             f'metadata {meta}')
        # parent before child when they start in the same ns
        order = [e['name'] for e in events if e['ph'] == 'X' and e['tid'] == 100 and ns(e['ts']) == 1000]
        need(order == ['main', 'a', 'b'], f'calls starting at 1000 ns in file order: {order}')
        return
    p = decode_perfetto(path)
    need(dict(p['calls']) == SYNTH_CALLS, f'calls {dict(p["calls"])}')
    inst = [n for _, n, _ in p['instants']]
    need(inst == SYNTH_INSTANTS, f'instants {inst}')
    ts = [t for _, _, t in p['instants']]
    need(ts == [1012, 1035, 700], f'instant times {ts}')
    tr = sorted(((t.get('kind') or '', t.get('pid') or 0, t.get('tid') or 0,
                  t.get('tname') or t.get('pname') or t['name'], tuple(t.get('cmdline', ())))
                 for t in p['tracks'].values()), key=str)
    need(tr == [('', 0, 0, 'snapshot 2', ()),
                ('process', 100, 0, 'synth', ('./synth', '"quoted"')),
                ('process', 200, 0, 'other', ('child',)),
                ('thread', 100, 100, 'synth', ()), ('thread', 100, 101, 'synth/101', ()),
                ('thread', 200, 200, 'other', ())], f'tracks {tr}')
    snap = [t for t in p['tracks'].values() if t['name'] == 'snapshot 2'][0]
    need(p['tracks'][snap['parent']].get('tid') == 100, 'the snapshot 2 track is not under thread 100')


def check_protoc(path):
    protoc = shutil.which('protoc')
    need(protoc, 'protoc missing')
    r = subprocess.run([protoc, '--decode_raw'], stdin=open(path, 'rb'), capture_output=True, text=True)
    need(r.returncode == 0, f'protoc --decode_raw failed: {r.stderr.strip()[:200]}')
    top = sum(1 for line in r.stdout.splitlines() if line == '1 {')
    p = decode_perfetto(path)
    need(top == p['packets'], f'protoc sees {top} packets, the checker {p["packets"]}')


def main(argv):
    kind, args = argv[1], argv[2:]
    try:
        if kind == 'perfetto':
            check_perfetto(*args)
        elif kind == 'chrome':
            check_chrome(*args)
        elif kind == 'folded':
            check_folded(*args)
        elif kind == 'same-counts':
            a, b = (json.load(open(x)) for x in args)
            need(a == b, 'the formats disagree on calls per thread and function')
        elif kind == 'protoc':
            check_protoc(*args)
        elif kind == 'roots':
            check_roots(args[0], args[1], args[2:])
        elif kind == 'tids':
            check_tids(args[0], args[1], [int(x) for x in args[2:]])
        elif kind == 'crash':
            check_crash(*args)
        elif kind == 'synth':
            check_synth(*args)
        else:
            raise Bad(f'unknown check {kind}')
    except Bad as e:
        print(e)
        return 1
    except (OSError, KeyError, TypeError, ValueError, IndexError) as e:
        print(f'{type(e).__name__}: {e}')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
