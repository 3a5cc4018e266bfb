#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record --kernel (issue 24): system calls and off-CPU intervals in the tree.
# Alone (as root: perf_event_open on tracepoints):
#
#   BUILD=build tests/kernel/run.sh
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT), PY, as for run.sh.
# tests/kernel/kprog.c, one mode per check (tests/kernel/ktree.py reads replay):
#   sleep/*     4 x 50 ms nanosleep in sleeper(): its 4 clock_nanosleep calls
#               inside it, >= 180 ms off the CPU inside it
#   spin/*      100 ms on the CPU in spinner(): < 10% of it blocked; the off-CPU
#               time recorded is what the kernel says (wall - thread CPU time,
#               the program's own measure)
#   mutex       waiter() blocked in pthread_mutex_lock while another thread
#               holds the lock 100 ms: >= 50 ms off the CPU in futex inside it
#   pipe        read(fd, count=4096) = 4096 three times in pipe_reader(), then 0
#   fork, exec  the forked child's getppid() calls in forked_child(), the exec'd
#               image's in exec_child()
#   threads     4 threads x 10 getppid() in thread_work()
#   clock       2,000 getppid() all inside getppid_loop(), none outside: the
#               kernel's times are on the trace's clock
#   clock/between  1,000 x { tick_a(); getppid(); tick_b(); }: each system call
#               between the calls around it, in that order
#   args/*      openat's path, clock_nanosleep's req: read from the program while
#               the call was in progress (a FIFO's open blocked 100 ms, the
#               50 ms sleeps), else the pointer; never a later call's path
#   live/*      live --kernel shows each thread's kernel lines in place: the same
#               tree as replay's of its trace (sleep, mutex, fork and exec); -N
#   attach      attach --kernel to a process in a loop of getppid() and 20 ms
#               sleeps: both in their functions, from the attach on
#   info        tells the system calls, off-CPU intervals and pointer arguments
#               read the trace holds
#   filters/*   --no-kernel hides them, -D hides them below the depth, -t the
#               short ones, report --no-kernel has no kernel columns' worth
#   report/*    oncpu/offcpu per function (text and --json), --sort offcpu,
#               --syscalls rows
#   export/*    Perfetto: well formed, read [syscall] and off-CPU slices, the
#               sleeps as sched_switch events (thread states); Chrome:
#               pipe_reader's 4 reads nested in its event
#   flame/weights  flame --weight: on-CPU + off-CPU = wall, off-CPU >= 180 ms
#   unprivileged  as nobody (perf_event_paranoid 2): one line says what is
#               missing, exit 0, the calls are recorded; /paranoid: the same
#               with tracefs readable (a copy), refused by perf_event_paranoid
#   filters/hide  -N hides a function's system calls with it; report and flame
#               count its off-CPU time (and -D's, -t's) in its caller
#   arch        an aarch64 trace's system calls named by the generic table
#   hostile/*   KERNEL and KARGS blocks that lie: refused in one line (exit 2) or
#               read
#   clock/tsc-arith  the perf clock's own TSC conversion, by arithmetic
#               (tests/unit/test_kclock.c: this machine's perf clock has none)
#   old-trace   a version 2 trace (no KERNEL block) still reads
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$ROOT/tests/kernel
BUILD=${BUILD:-build}
case $BUILD in
/*) B=$BUILD ;;
*) B=$ROOT/$BUILD ;;
esac
CT=${CT:-${CALLTRACE:-$B/calltrace}}
PY=${PY:-python3}
OUT=${TEST_OUT:-${OUT:-$B/tests}}/kernel
T=60

. "$ROOT/tests/lib/suite.sh"
suite kernel

rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT" || exit 1
if ! [ -x "$CT" ]; then
	bad tool "no calltrace at $CT (run make)"
	finish
fi
if ! gcc -O1 -g -pthread -o kprog "$HERE/kprog.c" 2>cc.err; then
	bad build "kprog.c does not build" cc.err
	finish
fi
if [ "$(id -u)" != 0 ]; then
	bad root "these checks record the kernel's side: run them as root"
	finish
fi

# rec NAME MODE [ARGS]: record --kernel, replay into NAME.txt (no colour)
rec() {
	local name=$1
	shift
	timeout -k 5 $T "$CT" record --kernel -o "$name.data" ./kprog "$@" >"$name.out" \
		2>"$name.err"
	echo $? >"$name.status"
	timeout -k 5 $T "$CT" replay -i "$name.data" --color=never >"$name.txt" 2>"$name.rerr"
}
tree() { "$PY" "$HERE/ktree.py" "$@"; }
# recorded NAME: the record and the replay went well, nothing on stderr
recorded() {
	[ "$(cat "$1.status")" = 0 ] && ! [ -s "$1.err" ] && [ -s "$1.txt" ]
}

rec sleep sleep
if ! recorded sleep; then
	bad sleep/record "record --kernel failed or said something" sleep.err
else
	n=$(tree count sleep.txt sleeper '^clock_nanosleep\(.*\) = 0  \[syscall ')
	[ "$n" = 4 ] && ok sleep/nanosleep-inside ||
		bad sleep/nanosleep-inside "$n clock_nanosleep calls in sleeper(), not 4" sleep.txt
	read -r off total < <(tree offcpu sleep.txt sleeper)
	awk -v o="$off" 'BEGIN { exit !(o >= 180) }' && ok sleep/offcpu ||
		bad sleep/offcpu "sleeper() off the CPU $off ms of $total, not >= 180" sleep.txt
	n=$(tree count sleep.txt sleeper 'off-cpu .*: blocked in clock_nanosleep\]')
	[ "$n" -ge 4 ] && ok sleep/offcpu-cause ||
		bad sleep/offcpu-cause "$n intervals blocked in clock_nanosleep, not >= 4" sleep.txt
fi

rec spin spin
if ! recorded spin; then
	bad spin/record "record --kernel failed" spin.err
else
	read -r off total < <(tree offcpu spin.txt spinner)
	read -r _ wall cpu <spin.out
	# preempted (the machine is shared): fine; blocked: the spin does not block.
	# In every unit: under load most preemptions are short ("412.3 us"), and
	# dropping them counted them as blocked.
	pre=$(sed -n '/spinner() {/,/\/\* spinner \*\//p' spin.txt |
		grep -oE 'off-cpu [0-9.]+ (ns|us|ms|s): preempted' |
		awk '{ u = $3; sub(":", "", u)
			s += $2 * (u == "s" ? 1000 : u == "ms" ? 1 : u == "us" ? 1e-3 : 1e-6) }
			END { print s + 0 }')
	awk -v o="$off" -v p="$pre" -v t="$total" 'BEGIN { exit !(o - p < t / 10) }' &&
		ok spin/blocked-under-10pc ||
		bad spin/blocked-under-10pc "spinner() blocked $off - $pre ms of $total ms" spin.txt
	# what the kernel itself says: off-CPU = wall - CPU time, within 3 ms + 5%
	awk -v o="$off" -v t="$total" -v c="$cpu" \
		'BEGIN { d = o - (t - c); if (d < 0) d = -d; exit !(d <= 3 + t / 20) }' &&
		ok spin/offcpu-truth ||
		bad spin/offcpu-truth "recorded $off ms off-CPU; wall $total - CPU $cpu says otherwise" spin.txt
fi

rec mutex mutex
n=$(tree count mutex.txt waiter 'off-cpu [0-9.]+ ms: blocked in futex\]')
read -r off total < <(tree offcpu mutex.txt waiter)
if recorded mutex && [ "$n" -ge 1 ] && awk -v o="$off" 'BEGIN { exit !(o >= 50) }'; then
	ok mutex
else
	bad mutex "waiter(): $n futex waits, $off ms off the CPU (want >= 50)" mutex.txt
fi

rec pipe pipe
n=$(tree count pipe.txt pipe_reader '^read\(fd=[0-9]+, count=4096\) = 4096  ')
z=$(tree count pipe.txt pipe_reader '^read\(fd=[0-9]+, count=4096\) = 0  ')
w=$(tree count pipe.txt pipe_reader 'off-cpu .*: blocked in read\]')
if recorded pipe && [ "$n" = 3 ] && [ "$z" = 1 ] && [ "$w" -ge 1 ]; then
	ok pipe
else
	bad pipe "pipe_reader(): $n reads of 4096, $z of 0, $w blocked in read" pipe.txt
fi

rec fork fork
n=$(tree count fork.txt forked_child '^getppid\(\) = [0-9]+  ')
[ "$n" = 5 ] && ok fork || bad fork "$n getppid() in forked_child(), not 5" fork.txt
n=$(tree count fork.txt exec_child '^getppid\(\) = [0-9]+  ')
[ "$n" = 3 ] && ok exec || bad exec "$n getppid() in exec_child(), not 3" fork.txt

rec threads threads
n=$(tree count threads.txt thread_work '^getppid\(\) = [0-9]+  ')
[ "$n" = 40 ] && ok threads || bad threads "$n getppid() in thread_work(), not 40" threads.txt

rec clock getppid 2000
rec clock0 getppid 0
n=$(tree count clock.txt getppid_loop '^getppid\(\) = ')
o=$(tree top clock.txt '^getppid\(\) = ')
o0=$(tree top clock0.txt '^getppid\(\) = ') # the runtime's own, before main
if recorded clock && [ "$n" = 2000 ] && [ "$o" = "$o0" ]; then
	ok clock
else
	bad clock "$n getppid() in getppid_loop() (want 2000), $o outside (want $o0)" clock.txt
fi

# each getppid() between the two calls around it: the clocks agree within the
# syscall's own entry and exit (~0.3 us here); a preemption may come anywhere
# (inside a tick, it opens the tick's frame: its off-cpu line and closing } go)
rec ticks clock 1000
seq=$(sed -n '/clock_loop() {/,/\/\* clock_loop \*\//p' ticks.txt | sed '1d;$d' |
	sed 's/.*| *//; s/[(;].*//' | grep -v '^\[off-cpu' | grep -v '^}' | tr '\n' ' ')
want=$(for _ in $(seq 1000); do printf 'tick_a getppid tick_b '; done)
if recorded ticks && [ "$seq" = "$want" ]; then
	ok clock/between
else
	bad clock/between "the getppid() calls are not each between tick_a() and tick_b()" ticks.txt
fi

# ---- what a system call's pointer pointed to: read while the call was in progress, or not shown ----
rec fifo fifo
n=$(tree count fifo.txt fifo_opener '^openat\(dfd=AT_FDCWD, path="kfifo", flags=(0|0x[0-9a-f]+)\) = [0-9]+  ')
if recorded fifo && [ "$n" = 1 ]; then
	ok args/path
else
	bad args/path "fifo_opener(): $n openat with path=\"kfifo\" (blocked 100 ms: read in time), not 1" fifo.txt
fi
n=$(tree count sleep.txt sleeper 'req=0\.050000000 s\) = 0')
o=$(grep 'clock_nanosleep(' sleep.txt | grep -vcE 'req=(0\.050000000 s|0x[0-9a-f]+)\)')
if [ "$n" -ge 1 ] && [ "$o" = 0 ]; then
	ok args/timespec
else
	bad args/timespec "$n of sleeper's 50 ms sleeps say req=0.050000000 s; $o say another value" sleep.txt
fi
# a path read after its call returned would be the next one's: never shown as the call's
rec reuse reuse 2000
sed -n '/reuse_loop() {/,/\/\* reuse_loop \*\//p' reuse.txt | grep -o '^.*| *openat(.*' |
	sed 's/.*openat(//' >reuse.calls
if recorded reuse && [ "$(wc -l <reuse.calls)" = 2000 ] &&
	awk '{ want = sprintf("path=\"nope-%04d\"", NR - 1) }
		/path="/ && index($0, want) == 0 { bad++ } END { exit bad > 0 }' reuse.calls; then
	ok args/no-stale-path
else
	bad args/no-stale-path "an openat in reuse_loop() shows another call's path (or not 2000 calls)" reuse.calls
fi

# ---- live --kernel: the system calls and off-CPU intervals in place, as replay shows them ----
# each thread's lines in the same order as replay's of the same trace (times and durations
# aside: live's clock rate is its first estimate); live holds a thread's calls back until the
# recorder has written its kernel records up to them. (live closes what a thread left open,
# "} /* main: unfinished */", at the end of the run only: not compared.)
kseq() { # FILE: "tid text" of each tree line, threads apart, each in its order
	grep '] | ' "$1" | grep -v ': unfinished \*/$' | sed 's/\[syscall [^]]*\]/[syscall]/; s/off-cpu [0-9.]* [mun]*s/off-cpu/' |
		sed -E 's/^[^[]*\[ *([0-9]+)\] \| /\1 /' | sort -s -n -k1,1
}
for m in sleep mutex fork; do
	rm -f "live-$m.data"
	timeout -k 5 $T "$CT" live --kernel --color=never --data "live-$m.data" ./kprog $m \
		>"live-$m.txt" 2>"live-$m.err"
	st=$?
	timeout -k 5 $T "$CT" replay -i "live-$m.data" --color=never >"live-$m.replay" 2>&1
	kseq "live-$m.txt" >"live-$m.seq"
	kseq "live-$m.replay" >"live-$m.want"
	k=$(grep -cE '\[syscall\]|off-cpu' "live-$m.seq")
	if [ "$st" = 0 ] && [ "$k" -gt 10 ] && diff "live-$m.want" "live-$m.seq" >"live-$m.diff"; then
		ok "live/$m"
	else
		bad "live/$m" "status $st, $k kernel lines; live's tree differs from replay's (< replay, > live)" \
			"live-$m.diff"
	fi
done
# -N in live as in replay: nap_ms's sleeps hidden with it
timeout -k 5 $T "$CT" live --kernel -N nap_ms --color=never ./kprog sleep >live-hide.txt 2>&1
n=$(grep -c 'clock_nanosleep' live-hide.txt)
if grep -q 'sleeper()' live-hide.txt && ! grep -q nap_ms live-hide.txt && [ "$n" = 0 ]; then
	ok live/hide
else
	bad live/hide "live -N nap_ms: $n clock_nanosleep lines shown" live-hide.txt
fi
n=$(tree count live-sleep.txt sleeper '^clock_nanosleep\(.*\) = 0  \[syscall ')
[ "$n" = 4 ] && ok live/nanosleep-inside ||
	bad live/nanosleep-inside "$n clock_nanosleep calls in sleeper() in live's tree, not 4" live-sleep.txt

# ---- attach --kernel: the threads of a running process, from the attach on ----
./kprog loop 100 >/dev/null &
lp=$!
sleep 0.3
timeout -k 5 $T "$CT" attach -q -p $lp --kernel --duration 1s -o attach.data >attach.out 2>attach.err
st=$?
wait $lp
timeout -k 5 $T "$CT" replay -i attach.data --color=never >attach.txt 2>&1
n=$(tree count attach.txt looper '^getppid\(\) = ')
w=$(tree count attach.txt nap_ms 'off-cpu .*: blocked in clock_nanosleep\]')
if [ "$st" = 0 ] && ! [ -s attach.err ] && [ "$n" -ge 10 ] && [ "$w" -ge 10 ]; then
	ok attach
else
	bad attach "status $st; $n getppid() in looper(), $w sleeps in nap_ms() (want >= 10)" attach.err
fi

timeout -k 5 $T "$CT" info -i sleep.data >info.txt 2>&1
if grep -qE '^kernel: +[0-9,]+ system calls, [0-9,]+ off-CPU intervals .*; [1-9][0-9,]* pointer arguments read' info.txt; then
	ok info
else
	bad info "info does not tell the kernel's side" info.txt
fi

# ---- filters ----
timeout -k 5 $T "$CT" replay -i sleep.data --color=never --no-kernel >nk.txt 2>&1
if grep -q 'sleeper() {' nk.txt && ! grep -q 'syscall \|off-cpu ' nk.txt; then
	ok filters/no-kernel
else
	bad filters/no-kernel "--no-kernel still shows kernel lines (or no sleeper)" nk.txt
fi
timeout -k 5 $T "$CT" replay -i sleep.data --color=never -D 2 >d2.txt 2>&1
n=$(grep -c 'clock_nanosleep' d2.txt)
if grep -q 'sleeper()' d2.txt && ! grep -q 'nap_ms' d2.txt && [ "$n" = 0 ]; then
	ok filters/depth
else
	bad filters/depth "-D 2: $n clock_nanosleep lines (made at depth 2), want 0" d2.txt
fi
timeout -k 5 $T "$CT" replay -i sleep.data --color=never -t 10ms >t.txt 2>&1
short=$(grep -cE '\[(syscall|off-cpu) [0-9.]+ (ns|us)' t.txt)
n=$(tree count t.txt sleeper '^clock_nanosleep\(')
if [ "$short" = 0 ] && [ "$n" = 4 ]; then
	ok filters/min-time
else
	bad filters/min-time "-t 10ms: $short short kernel lines, $n clock_nanosleep" t.txt
fi
timeout -k 5 $T "$CT" replay -i sleep.data --color=never -F nap_ms >f.txt 2>&1
o=$(tree top f.txt 'syscall |off-cpu ')
n=$(tree count f.txt nap_ms '^clock_nanosleep\(')
if [ "$o" = 0 ] && [ "$n" = 4 ]; then
	ok filters/only
else
	bad filters/only "-F nap_ms: $o kernel lines outside it, $n clock_nanosleep in it" f.txt
fi

# -N hides a function with what it calls: its system calls and off-CPU time too
# (made in nap_ms); report and flame count them where they count its time, in
# the nearest shown call (sleeper's own time)
timeout -k 5 $T "$CT" replay -i sleep.data --color=never -N nap_ms >hide.txt 2>&1
n=$(grep -c 'clock_nanosleep' hide.txt)
if grep -q 'sleeper()' hide.txt && ! grep -q 'nap_ms' hide.txt && [ "$n" = 0 ]; then
	ok filters/hide
else
	bad filters/hide "-N nap_ms: $n kernel lines of nap_ms still shown" hide.txt
fi
# (-D and -t too: report counts a dropped call's time in its caller; its off-CPU time with it;
# its system calls' rows go with it)
timeout -k 5 $T "$CT" report -i sleep.data -N nap_ms --syscalls --json >hide.json 2>&1
timeout -k 5 $T "$CT" report -i sleep.data -D 2 --json >hide-d.json 2>&1
timeout -k 5 $T "$CT" report -i sleep.data -t 60ms --json >hide-t.json 2>&1
if "$PY" - hide.json hide-d.json hide-t.json <<'EOF'; then
import json, sys
for i, path in enumerate(sys.argv[1:]):
    rows = json.load(open(path))
    rows = rows.get('functions', rows) if isinstance(rows, dict) else rows
    assert not [r for r in rows if r.get('name') == 'nap_ms'], (path, 'nap_ms shown')
    s = [r for r in rows if r.get('name') == 'sleeper'][0]
    assert s['offcpu_ns'] >= 180e6 and s['oncpu_ns'] < 20e6, (path, s)
    if i == 0:
        assert not [r for r in rows if r.get('name') == 'clock_nanosleep [syscall]'], 'row'
EOF
	ok filters/hide-report
else
	bad filters/hide-report "report -N/-D/-t: sleeper's off-CPU time is not its dropped callee's" hide.json
fi

timeout -k 5 $T "$CT" report -i sleep.data --color=never --no-kernel >rnk.txt 2>&1
if grep -q ' sleeper$' rnk.txt && ! grep -qi 'off-cpu' rnk.txt; then
	ok filters/report-no-kernel
else
	bad filters/report-no-kernel "report --no-kernel still has off-CPU columns" rnk.txt
fi

# ---- report ----
timeout -k 5 $T "$CT" report -i sleep.data --color=never >rep.txt 2>&1
if grep -qi 'off-cpu' rep.txt && awk '/ sleeper$/ { found = 1 } END { exit !found }' rep.txt; then
	ok report/columns
else
	bad report/columns "no off-CPU column or no sleeper row" rep.txt
fi
timeout -k 5 $T "$CT" report -i sleep.data --json >rep.json 2>&1
if "$PY" - rep.json <<'EOF'; then
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows.get('functions', rows) if isinstance(rows, dict) else rows
s = [r for r in rows if r.get('name') == 'sleeper'][0]
assert s['offcpu_ns'] >= 180e6, s
assert 0 <= s['oncpu_ns'] < s['offcpu_ns'], s
EOF
	ok report/json
else
	bad report/json "sleeper's oncpu_ns/offcpu_ns wrong or missing" rep.json
fi
timeout -k 5 $T "$CT" report -i sleep.data --sort offcpu --color=never >so.txt 2>&1
first=$(awk '/^ *[0-9]/ { print $NF; exit }' so.txt)
case $first in
main | sleeper | nap_ms) ok report/sort-offcpu ;;
*) bad report/sort-offcpu "first row '$first', not one that slept" so.txt ;;
esac
timeout -k 5 $T "$CT" report -i sleep.data --syscalls --color=never >sc.txt 2>&1
if awk '$NF == "[syscall]" && $(NF - 1) == "clock_nanosleep" && $3 == 4 { f = 1 }
	END { exit !f }' sc.txt; then
	ok report/syscalls
else
	bad report/syscalls "no 'clock_nanosleep [syscall]' row with 4 calls" sc.txt
fi

# ---- exports ----
timeout -k 5 $T "$CT" export -i pipe.data --format perfetto -o pipe.pftrace 2>pf.err
if "$PY" - "$ROOT/tests/export" pipe.pftrace <<'EOF' 2>>pf.err; then
import sys
sys.path.insert(0, sys.argv[1])
import check
d = check.decode_perfetto(sys.argv[2])  # well formed: slices nest, time never goes back
n = sum(v for (_, name), v in d['calls'].items() if name == 'read [syscall]')
o = sum(v for (_, name), v in d['calls'].items() if name == '[off-cpu: blocked in read]')
assert n >= 4 and o >= 1, (n, o)
# the off-CPU intervals as sched_switch events, for the threads' states
outs = ins = 0
for f, w, v in check.fields(open(sys.argv[2], 'rb').read()):
    p = check.msg(v)
    if 1 in p:  # ftrace_events
        for ev in check.msg(check.one(p, 1)).get(2, []):
            sw = check.msg(check.one(check.msg(ev), 4))
            if check.one(sw, 6, 0) == 0 and check.one(sw, 4, 0) == 1:
                outs += 1  # a thread goes to sleep (S), the idle task comes in
            elif check.one(sw, 2, 0) == 0:
                ins += 1
assert outs >= 3 and ins >= 3, (outs, ins)
EOF
	ok export/perfetto
else
	bad export/perfetto "no read [syscall] or off-CPU slices, or a bad trace" pf.err
fi
timeout -k 5 $T "$CT" export -i pipe.data --format chrome -o pipe.json 2>cr.err
if "$PY" - pipe.json <<'EOF' 2>>cr.err; then
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
fn = [e for e in ev if e.get('ph') == 'X' and e['name'] == 'pipe_reader'][0]
inside = [e for e in ev if e.get('cat') == 'kernel' and e['tid'] == fn['tid'] and
          fn['ts'] <= e['ts'] and e['ts'] + e['dur'] <= fn['ts'] + fn['dur']]
reads = [e for e in inside if e['name'] == 'read [syscall]']
assert len(reads) == 4 and all('count=4096' in e['args']['call'] for e in reads), reads
EOF
	ok export/chrome
else
	bad export/chrome "pipe_reader's 4 reads not nested in it" cr.err
fi

# ---- flame by wall, on-CPU, off-CPU time ----
for w in wall oncpu offcpu; do
	timeout -k 5 $T "$CT" flame -i sleep.data --weight=$w -o "flame-$w.html" 2>>flame.err
done
if "$PY" - <<'EOF' 2>>flame.err; then
import json, re
def root(w):
    page = open('flame-%s.html' % w).read()
    d = json.loads(re.search(r'(\{"version":1,.*?\]\})</script>', page, re.S).group(1))
    assert d['weight'] == w, d['weight']
    return d['nodes'][2] * d['nsPerTick']
wall, on, off = root('wall'), root('oncpu'), root('offcpu')
assert abs(wall - on - off) <= wall / 1000, (wall, on, off)
assert off >= 180e6 and on < off, (on, off)
EOF
	ok flame/weights
else
	bad flame/weights "on-CPU + off-CPU is not the wall time, or off-CPU < 180 ms" flame.err
fi

# ---- without privileges: one line, the rest recorded ----
mkdir -p np && chmod 0777 np && cp kprog np/ && chmod 0755 np/kprog
if ! command -v setpriv >/dev/null; then
	bad unprivileged "no setpriv (util-linux) to run as nobody"
else
	(cd np && timeout -k 5 $T setpriv --reuid=nobody --regid=nogroup --clear-groups \
		"$CT" record --kernel -o t.data ./kprog sleep >out 2>err)
	st=$?
	timeout -k 5 $T "$CT" replay -i np/t.data --color=never >np/t.txt 2>&1
	if [ "$st" = 0 ] && [ "$(wc -l <np/err)" = 1 ] &&
		grep -q '^calltrace: --kernel needs root' np/err &&
		grep -q 'sleeper() {' np/t.txt && ! grep -q 'syscall ' np/t.txt; then
		ok unprivileged
	else
		bad unprivileged "status $st; want one line naming what is missing, and the calls" np/err
	fi
fi

# the next refusal, for a user who can read tracefs: perf_event_paranoid's. tracefs is
# root's here, so the tool reads a copy of the format files (CALLTRACE_TEST_TRACEFS, a
# hook for this suite only, ignored in setuid processes); the kernel refuses the events
level=$(cat /proc/sys/kernel/perf_event_paranoid)
mkdir -p np/tracefs
for e in raw_syscalls/sys_enter raw_syscalls/sys_exit sched/sched_switch; do
	mkdir -p "np/tracefs/events/$e"
	cat "/sys/kernel/tracing/events/$e/format" >"np/tracefs/events/$e/format" 2>/dev/null
done
chmod -R a+rX np/tracefs
if ! command -v setpriv >/dev/null; then
	bad unprivileged/paranoid "no setpriv (util-linux) to run as nobody"
elif [ "$level" -le 1 ]; then
	bad unprivileged/paranoid "perf_event_paranoid is $level here: nobody may record"
else
	(cd np && CALLTRACE_TEST_TRACEFS=$OUT/np/tracefs timeout -k 5 $T setpriv --reuid=nobody \
		--regid=nogroup --clear-groups "$CT" record --kernel -o p.data ./kprog sleep \
		>pout 2>perr)
	st=$?
	timeout -k 5 $T "$CT" replay -i np/p.data --color=never >np/p.txt 2>&1
	want="calltrace: --kernel needs root, CAP_PERFMON or kernel.perf_event_paranoid <= 1 (it is $level): recording without the kernel's side"
	if [ "$st" = 0 ] && [ "$(cat np/perr)" = "$want" ] && grep -q 'sleeper() {' np/p.txt &&
		! grep -q 'syscall ' np/p.txt; then
		ok unprivileged/paranoid
	else
		bad unprivileged/paranoid "status $st; want the one line: $want" np/perr
	fi
fi

# ---- hostile KERNEL blocks ----
for a in count recsize recsize-huge short zstd-huge lying-records kargs-past-end kargs-lying; do
	"$PY" "$HERE/kcraft.py" "$a" sleep.data "h-$a.data" 2>"h-$a.cerr" ||
		{ bad "hostile/$a" "kcraft.py failed" "h-$a.cerr"; continue; }
	# a memory limit no honest reading comes near (ASan has its own, and cannot run under one)
	(grep -q __asan_init "$CT" || ulimit -v 1500000
		timeout -k 5 $T "$CT" replay -i "h-$a.data" --color=never >"h-$a.txt" 2>"h-$a.err")
	st=$?
	if [ "$a" = lying-records ] || [ "$a" = kargs-lying ]; then
		[ "$st" = 0 ] && ok "hostile/$a" || bad "hostile/$a" "status $st, want 0" "h-$a.err"
	elif [ "$st" = 2 ] && [ "$(wc -l <"h-$a.err")" = 1 ]; then
		ok "hostile/$a"
	else
		bad "hostile/$a" "status $st, want 2 and one line" "h-$a.err"
	fi
done

# ---- system call names by the trace's architecture (META arch), not the reader's ----
# sleep.data made an aarch64 trace: clock_nanosleep is 115 there (getgroups on x86_64)
"$PY" "$HERE/kcraft.py" aarch64 sleep.data a64.data 2>a64.err
timeout -k 5 $T "$CT" replay -i a64.data --color=never >a64.txt 2>>a64.err
timeout -k 5 $T "$CT" report -i a64.data --syscalls --color=never >a64-rep.txt 2>>a64.err
n=$(tree count a64.txt sleeper '^clock_nanosleep\(clock=CLOCK_REALTIME, flags=0, req=[^)]*\) = 0  ')
w=$(tree count a64.txt sleeper 'off-cpu .*: blocked in clock_nanosleep\]')
if [ "$n" = 4 ] && [ "$w" -ge 4 ] &&
	awk '$NF == "[syscall]" && $(NF - 1) == "clock_nanosleep" && $3 == 4 { f = 1 }
		END { exit !f }' a64-rep.txt; then
	ok arch/aarch64-names
else
	bad arch/aarch64-names "$n clock_nanosleep calls, $w sleeps named in an aarch64 trace" a64.txt
fi

# ---- a flight recorder has no ring for the kernel's side: refused, one line ----
timeout -k 5 $T "$CT" record --kernel --ring 1M -o ring.data ./kprog sleep >ring.out 2>ring.err
st=$?
if [ "$st" = 2 ] && [ "$(wc -l <ring.err)" = 1 ] && grep -q -- '--kernel' ring.err; then
	ok ring-refused
else
	bad ring-refused "status $st, want 2 and one line" ring.err
fi

# ---- the perf clock's own conversion to the TSC (time_zero, cap_user_time_zero), by its
# arithmetic with known mult/shift/zero: this machine's perf clock publishes none ----
# shellcheck disable=SC2046,SC2086 # word lists: the objects, the libraries, the sanitizers
if gcc -std=gnu11 -O1 -g -Wall -Wextra -D_GNU_SOURCE ${CT_SAN_FLAGS:-} -I"$ROOT" -o kclock \
	"$ROOT/tests/unit/test_kclock.c" $(tool_objects) \
	$(pkg-config --libs libdw libelf libzstd) -lZydis -lstdc++ -lm -ldl 2>kclock.err; then
	timeout -k 5 $T ./kclock >kclock.out 2>&1
	st=$?
	if [ "$st" = 0 ] && [ "$(grep -c '^ok ' kclock.out)" = 3 ]; then
		ok clock/tsc-arith
	else
		bad clock/tsc-arith "status $st" kclock.out
	fi
else
	bad clock/tsc-arith "tests/unit/test_kclock.c does not build" kclock.err
fi

# ---- a version 2 trace still reads ----
timeout -k 5 $T "$CT" record -o old.data ./kprog threads >/dev/null 2>old.err
printf '\002' | dd of=old.data bs=1 seek=8 conv=notrunc status=none
if timeout -k 5 $T "$CT" replay -i old.data --color=never >old.txt 2>>old.err &&
	grep -q 'thread_work' old.txt; then
	ok old-trace
else
	bad old-trace "a version 2 trace does not read" old.err
fi
v=$(od -An -tu4 -j8 -N4 sleep.data | tr -d ' ')
[ "$v" -ge 3 ] && ok version || bad version "the trace says version $v, not 3 or later"

finish
