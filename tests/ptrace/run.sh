#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ptrace method and attach.
#  - test programs (tests/programs, the seed's samples among them) traced by
#    record --method=ptrace, gcc -O2 and clang -O0: same checks as every
#    other method (exact counts, expected trees), through tests/lib/job.sh;
#  - a static binary and a PIE: output unchanged, exact counts;
#  - a program that execs itself and then runs threads: every call seen, no
#    breakpoint stepped over in place (info's breakpoints line);
#  - attach: a multi-threaded program that checks its own results is
#    attached to and detached from 20 times; it must finish with every
#    result right, no int3 left at any function, no mapping of ours left,
#    no tracer; a program that forks; threads stopped a few bytes into a
#    function the runtime patches (entry_window.c); the errors (no such
#    process, already traced, not permitted, bad options).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite ptrace
here=$HERE root=$ROOT
out=$OUT/ptrace
rm -rf "$out"
mkdir -p "$out"
suite_tally "$out/.tally"
cd "$out" || exit 1
# ct ARGS: calltrace, stopped if it hangs (the whole suite must end); where each of its
# processes was stuck goes to stderr first (gdb), for the failure's report
ct() {
	local pid n=$((${T_CMD:-120} * 10)) st
	"$CT" "$@" &
	pid=$!
	while [ $n -gt 0 ] && kill -0 "$pid" 2>/dev/null &&
		[ "$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null | cut -c1)" != Z ]; do
		sleep 0.1
		n=$((n - 1))
	done
	if [ $n = 0 ]; then
		echo "calltrace $* hung; its stacks:" >&2
		for p in $pid $(pgrep -P "$pid"); do
			command -v gdb >/dev/null &&
				timeout 30 gdb -q -batch -p "$p" -ex 'thread apply all bt' 2>&1 | grep '^#' >&2
		done
		kill -TERM $pid $(pgrep -P "$pid") 2>/dev/null
		sleep 2
		kill -KILL $pid $(pgrep -P "$pid") 2>/dev/null
	fi
	wait "$pid"
}
# reap PID [SECONDS]: wait for a program started in the background; one that is
# still there after SECONDS (stopped by a tracer that left, say) is killed
reap() {
	local pid=$1 n=$((${2:-120} * 10)) state
	while [ $n -gt 0 ]; do
		state=$(sed 's/.*) //' "/proc/$pid/stat" 2>/dev/null) || break
		[ "${state%% *}" = Z ] && break
		sleep 0.1
		n=$((n - 1))
	done
	if [ $n = 0 ]; then
		echo "ptrace/run.sh: pid $pid still running after ${2:-120} s, killed" >&2
		kill -9 "$pid" 2>/dev/null
	fi
	wait "$pid"
}

# ---- test programs through the common job ---------------------------------------
progs="recursion threads fork exec_chain longjmp exceptions signal_handler crash dlopen_runpath
	plugin_swap thread_names sample_thread sample_throw static_funcs"
for p in $progs; do
	for c in gcc-O2-ptrace clang-O0-ptrace; do echo "$p $c"; done
done | OUT=$out ROOT=$root CT=$CT PY=$PY xargs -P "${JOBS:-2}" -n 2 "$root/tests/lib/job.sh"
st=${PIPESTATUS[1]}
[ "$st" = 0 ] || fail jobs "xargs exits with status $st: a job died or was killed (job.sh always exits 0)"
# each job must reach its end (job.sh --result: a FAIL line for one that died)
for p in $progs; do
	for c in gcc-O2-ptrace clang-O0-ptrace; do
		OUT=$out "$root/tests/lib/job.sh" --result "$p" "$c" | sed 's/^\(ok\|FAIL\) /\1 ptrace\//' >"$out/result.txt"
		cat "$out/result.txt"
		awk '/^ok .* # SKIP / { print "SKIP"; next } /^ok / { print "ok" } /^FAIL / { print "FAIL" }' \
			"$out/result.txt" >>"$out/.tally"
	done
done

# ---- a static binary and a PIE ------------------------------------------------------
for kind in static pie; do
	flag=-static
	[ $kind = pie ] && flag=-pie
	if ! gcc -O0 -g $flag -fPIE -o "counted-$kind" "$here/counted.c" 2>"$kind.build"; then
		fail "$kind/build" "gcc $flag failed" "$kind.build"
		continue
	fi
	"./counted-$kind" >"$kind.native"
	if ! ct record --method=ptrace -o "$kind.data" "./counted-$kind" >"$kind.out" 2>"$kind.err"; then
		fail "$kind/record" "record --method=ptrace failed" "$kind.err"
		continue
	fi
	cmp -s "$kind.native" "$kind.out" && pass "$kind/same-output" ||
		fail "$kind/same-output" "output differs when traced" "$kind.out"
	ct report -i "$kind.data" --json >"$kind.json" 2>>"$kind.err"
	if "$PY" - "$kind.native" "$kind.json" >"$kind.check" 2>&1 <<'PY'; then
import json, sys
truth = {l.split()[0]: int(l.split()[1]) for l in open(sys.argv[1]) if l.split()[0] in ('leaf', 'mid')}
got = {e['name']: e['calls'] for e in json.load(open(sys.argv[2]))}
bad = ['%s: %s traced, %d made' % (n, got.get(n), v) for n, v in truth.items() if got.get(n) != v]
if got.get('main') != 1:
    bad.append('main: %s traced' % got.get('main'))
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
		pass "$kind/counts"
	else
		fail "$kind/counts" "counts differ" "$kind.check"
	fi
	ct info -i "$kind.data" | grep -q '^method: *ptrace' && pass "$kind/info-method" ||
		fail "$kind/info-method" "info does not say ptrace"
done

# ---- an exec, then threads: the new image's breakpoints each get an out-of-line copy ------
# The exec's stop is inside execve; a call of ours made there (the mmap for the copies)
# came back as execve's result, and the first breakpoint of the new image was stepped over
# in place at every hit, lifted meanwhile: the other threads' calls through it went unseen.
if gcc -O1 -g -pthread -o exec_threads "$here/exec_threads.c" 2>exec_threads.build; then
	timeout -k 5 60 ./exec_threads >exec_threads.native 2>&1
	if ct record --method=ptrace -o exec_threads.data ./exec_threads >exec_threads.out \
		2>exec_threads.err; then
		cmp -s exec_threads.native exec_threads.out && pass exec-threads/same-output ||
			fail exec-threads/same-output "output differs when traced" exec_threads.out
		ct info -i exec_threads.data >exec_threads.info 2>&1
		grep -q '^breakpoints: .* set, each with an out-of-line copy$' exec_threads.info &&
			pass exec-threads/no-step-in-place ||
			fail exec-threads/no-step-in-place "a breakpoint had no out-of-line copy" \
				exec_threads.info
		ct report -i exec_threads.data --json >exec_threads.json 2>>exec_threads.err
		if "$PY" - exec_threads.native exec_threads.json >exec_threads.check 2>&1 <<'PY'; then
import json, sys
truth = {l.split()[0]: int(l.split()[1]) for l in open(sys.argv[1]) if l.split()[0] in ('leaf', 'mid')}
got = {e['name']: e['calls'] for e in json.load(open(sys.argv[2]))}
bad = ['%s: %s traced, %d made' % (n, got.get(n), v) for n, v in truth.items() if got.get(n) != v]
if len(truth) != 2:
    bad.append('the program did not print its counts')
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
			pass exec-threads/every-call-seen
		else
			fail exec-threads/every-call-seen "calls went unseen" exec_threads.check
		fi
	else
		fail exec-threads/record "record --method=ptrace failed" exec_threads.err
	fi
else
	fail exec-threads/build "gcc failed" exec_threads.build
fi

# ---- attach and detach, again and again ---------------------------------------------
gcc -O1 -g -pthread -o worker "$here/worker.c" || fail worker/build "gcc failed"
# no_trace_left PID: every function of worker starts with the bytes of the file (no int3,
# no patch), no tracer
no_trace_left() {
	"$PY" - "$1" "$out/worker" <<'PY'
import struct, subprocess, sys
pid, exe = int(sys.argv[1]), sys.argv[2]
data = open(exe, 'rb').read()
base = None
for l in open('/proc/%d/maps' % pid):
    f = l.split()
    if len(f) >= 6 and f[5] == exe and int(f[2], 16) == 0:
        base = int(f[0].split('-')[0], 16)
        break
pie = data[16] == 3
phoff, = struct.unpack_from('<Q', data, 32)
phentsize, phnum = struct.unpack_from('<HH', data, 54)
loads = []
for i in range(phnum):
    ptype, flags, off, vaddr, _, filesz = struct.unpack_from('<IIQQQQ', data, phoff + i * phentsize)
    if ptype == 1:
        loads.append((vaddr, off, filesz))
syms = subprocess.run(['nm', '-S', '--defined-only', exe], capture_output=True, text=True).stdout
changed = []
with open('/proc/%d/mem' % pid, 'rb') as mem:
    for l in syms.splitlines():
        f = l.split()
        if len(f) < 4 or f[2] not in 'Tt':
            continue
        a, n = int(f[0], 16), min(int(f[1], 16), 16)
        for vaddr, off, filesz in loads:
            if vaddr <= a and a + n <= vaddr + filesz:
                mem.seek(a + (base if pie else 0))
                if mem.read(n) != data[a - vaddr + off:a - vaddr + off + n]:
                    changed.append(f[3])
tracer = [l.split()[1] for l in open('/proc/%d/status' % pid) if l.startswith('TracerPid')][0]
if changed or tracer != '0':
    print('code changed at %s; tracer %s' % (changed, tracer))
    sys.exit(1)
PY
}
# mappings PID: the process's mappings, but those of calltrace's runtime (it stays loaded, inert)
mappings() {
	grep -cv -e libcalltrace -e libZydis "/proc/$1/maps"
}

# attach_runs METHOD: attach and detach 20 times to a program that checks its own results
attach_runs() {
	local m=$1 wpid maps_before maps_after maps_first maps_rt ok_runs=0 i st threads
	./worker 60000 >"worker-$m.out" 2>&1 & # ended by SIGUSR1 once the runs are done
	wpid=$!
	sleep 0.3
	maps_before=$(wc -l <"/proc/$wpid/maps")
	for i in $(seq 1 20); do
		if ct attach --method="$m" -p "$wpid" --duration 100ms -o "attach-$m$i.data" \
			2>"attach-$m$i.err"; then
			ok_runs=$((ok_runs + 1))
		else
			fail "attach-$m/run$i" "calltrace attach failed" "attach-$m$i.err"
		fi
		[ "$i" = 1 ] && maps_first=$(mappings "$wpid")
		[ "$m" = runtime ] && sleep 0.35 # the zeroed stand-in for a pool goes after 0.3 s
	done
	[ $ok_runs = 20 ] && pass "attach-$m/20-runs"
	if no_trace_left "$wpid" >"left-$m.out" 2>&1; then
		pass "attach-$m/nothing-left"
	else
		fail "attach-$m/nothing-left" "the process still shows our traces" "left-$m.out"
	fi
	maps_after=$(wc -l <"/proc/$wpid/maps")
	maps_rt=$(mappings "$wpid")
	kill -USR1 "$wpid"
	if [ "$m" = ptrace ]; then
		[ "$maps_before" = "$maps_after" ] && pass "attach-$m/scratch-unmapped" ||
			fail "attach-$m/scratch-unmapped" "$maps_before mappings before, $maps_after after"
	else # the first attach leaves the runtime and a stand-in for the pool; no more after
		# (give or take the kernel merging or splitting neighbouring areas)
		[ "$maps_rt" -le $((maps_first + 4)) ] && pass "attach-$m/memory-settles" ||
			fail "attach-$m/memory-settles" "$maps_first mappings after one attach, $maps_rt after 20"
	fi
	# the calls and threads seen: in the run that saw most (on a loaded machine the first
	# attach's 100 ms may go by before a thread runs again)
	local best=1 most=-1 recs
	for i in $(seq 1 20); do
		recs=$(ct info -i "attach-$m$i.data" 2>/dev/null | sed -n 's/^records: *\([0-9,]*\).*/\1/p' |
			tr -d ,)
		[ "${recs:-0}" -gt "$most" ] && most=${recs:-0} best=$i
	done
	ct report -i "attach-$m$best.data" --json >"attach-$m.json" 2>/dev/null
	if "$PY" -c '
import json, sys
got = {e["name"]: e["calls"] for e in json.load(open(sys.argv[1]))}
sys.exit(0 if got.get("step", 0) > 0 and got.get("work", 0) > got.get("step", 0) else 1)
' "attach-$m.json"; then
		pass "attach-$m/calls-seen"
	else
		fail "attach-$m/calls-seen" "step/work not in the attached trace" "attach-$m.json"
	fi
	threads=$(ct info -i "attach-$m$best.data" 2>/dev/null | sed -n 's/^threads: *//p')
	[ "${threads:-0}" -ge 3 ] && pass "attach-$m/all-threads" ||
		fail "attach-$m/all-threads" "$threads threads traced, expected 3"
	method=$(ct info -i "attach-${m}1.data" 2>/dev/null | sed -n 's/^method: *\([a-z]*\).*/\1/p')
	want=$([ "$m" = runtime ] && echo patch || echo ptrace)
	[ "$method" = "$want" ] && pass "attach-$m/method" ||
		fail "attach-$m/method" "info says method $method, expected $want"
	reap "$wpid"
	st=$?
	[ $st = 0 ] && grep -q '^bad=0$' "worker-$m.out" && pass "attach-$m/program-results-right" ||
		fail "attach-$m/program-results-right" "status $st" "worker-$m.out"
}

# attach_fork METHOD: the children a traced process forks are traced too
attach_fork() {
	local m=$1 fpid procs st
	./worker 2500 fork >"fork-$m.out" 2>&1 &
	fpid=$!
	sleep 0.3
	ct attach --method="$m" -p "$fpid" --duration 1500ms -o "fork-$m.data" 2>"fork-$m.err" ||
		fail "attach-$m/fork" "attach failed" "fork-$m.err"
	procs=$(ct info -i "fork-$m.data" 2>/dev/null | sed -n 's/^processes: *\([0-9]*\).*/\1/p')
	[ "${procs:-0}" -ge 2 ] && pass "attach-$m/fork-children-traced" ||
		fail "attach-$m/fork-children-traced" "${procs:-0} processes in the trace" "fork-$m.err"
	reap "$fpid"
	st=$?
	[ $st = 0 ] && grep -q '^bad=0$' "fork-$m.out" && pass "attach-$m/fork-results-right" ||
		fail "attach-$m/fork-results-right" "status $st" "fork-$m.out"
}

for m in ptrace runtime; do
	attach_runs $m
	attach_fork $m
done

# ---- threads stopped inside the bytes a patch's jump covers ---------------------------------
# entry_window.c: two threads spend their time a few bytes into slow_entry (a push and two
# CPUIDs). Before the runtime patches it, such a thread is stepped past those bytes: else it
# would go on in the middle of the jump (SIGSEGV at the first attach, before the fix).
if [ "$(uname -m)" = x86_64 ] && gcc -O2 -g -pthread -o entry_window "$here/entry_window.c"; then
	./entry_window >entry-window.out 2>&1 &
	epid=$!
	sleep 0.3
	ok_runs=0
	for i in 1 2 3 4 5; do
		ct attach -q --method=runtime -p "$epid" --duration 50ms -o "entry-window$i.data" \
			2>>entry-window.err && ok_runs=$((ok_runs + 1))
		sleep 0.35
	done
	kill -USR1 "$epid" 2>/dev/null
	reap "$epid"
	st=$?
	[ $st = 0 ] && grep -q '^bad=0$' entry-window.out && [ $ok_runs = 5 ] &&
		pass attach/entry-window-results-right ||
		fail attach/entry-window-results-right "$ok_runs of 5 attaches, status $st" \
			entry-window.err
	n=$(ct report -i entry-window5.data --json 2>/dev/null | "$PY" -c '
import json, sys
print(sum(e["calls"] for e in json.load(sys.stdin) if e["name"] == "slow_entry"))' 2>/dev/null)
	[ "${n:-0}" -gt 0 ] && pass attach/entry-window-traced ||
		fail attach/entry-window-traced "slow_entry not in the last attach's trace"
fi

# ---- calls under way at the attach: their returns are shown ------------------------------
gcc -O2 -g -o before_attach "$here/before_attach.c" || fail before_attach/build "gcc failed"
for m in ptrace runtime; do
	./before_attach 1 >"before-$m.out" 2>&1 &
	bpid=$!
	sleep 0.3
	ct attach --method="$m" -p "$bpid" -o "before-$m.data" 2>"before-$m.err" ||
		fail "attach-$m/before-attach" "attach failed" "before-$m.err"
	reap "$bpid" && grep -q '^r=3$' "before-$m.out" || fail "attach-$m/before-attach-result" "wrong result"
	ct replay -i "before-$m.data" >"before-$m.tree" 2>&1
	if grep -q 'leafwork();' "before-$m.tree" &&
		grep -q '} /\* waiter: entered before attach \*/' "before-$m.tree" &&
		grep -q '} /\* outer: entered before attach \*/' "before-$m.tree" &&
		grep -q '} /\* main: entered before attach \*/' "before-$m.tree"; then
		pass "attach-$m/entered-before-attach"
	else
		fail "attach-$m/entered-before-attach" "returns of calls under way not shown" "before-$m.tree"
	fi
done

# ---- the runtime attached to C++ that throws and longjmps through patched frames --------
# The unwinder must see real return addresses: the GOT slots of _Unwind_RaiseException & co
# lead to the runtime's wrappers, which put them back first.
for cxx in "g++ -O2" "clang++ -O0"; do
	tag=${cxx%% *}${cxx##* }
	$cxx -g -o "thrower-$tag" "$here/thrower.cpp" || { fail "throw-$tag/build" "$cxx failed"; continue; }
	"./thrower-$tag" 60000 >"thrower-$tag.out" 2>&1 & # ended by SIGUSR1 after the attaches
	tpid=$!
	sleep 0.3
	ok=1
	for i in 1 2 3 4 5 6 7 8; do # a thread may be stopped anywhere in the unwinder
		ct attach -p "$tpid" --duration 100ms -o "throw-$tag$i.data" 2>"throw-$tag.err" || ok=0
		sleep 0.05
	done
	[ $ok = 1 ] && pass "throw-$tag/attach" || fail "throw-$tag/attach" "attach failed" "throw-$tag.err"
	kill -USR1 "$tpid"
	reap "$tpid"
	st=$?
	[ $st = 0 ] && grep -q '^bad=0 ' "thrower-$tag.out" && pass "throw-$tag/results-right" ||
		fail "throw-$tag/results-right" "status $st" "thrower-$tag.out"
	# the attach that saw most: on a loaded machine the first 100 ms may see no call
	most=$(ls -S throw-"$tag"[1-8].data 2>/dev/null | head -n1)
	ct replay -i "${most:-throw-${tag}1.data}" >"throw-$tag.tree" 2>&1
	grep -q 'leaf(); /\* unwound \*/' "throw-$tag.tree" && grep -q 'jumper(); /\* unwound \*/' "throw-$tag.tree" &&
		pass "throw-$tag/unwound-frames-shown" ||
		fail "throw-$tag/unwound-frames-shown" "no unwound leaf/jumper" "throw-$tag.tree"
done

# ---- the registers and errno of the thread that runs our calls: as they were -----------
# (a thread stopped with live values in its vector registers, or just after a failed call
# and before it reads errno, must find them unchanged: dlopen and the runtime use both)
gcc -O2 -g -o regs "$here/regs.c" || fail regs/build "gcc failed"
for m in runtime ptrace; do
	./regs 60000 >"regs-$m.out" 2>&1 & # ended by SIGUSR1 after the attaches
	rpid=$!
	sleep 0.2
	ok=1
	for i in 1 2 3 4 5 6; do
		ct attach --method="$m" -p "$rpid" --duration 50ms -o "regs-$m.data" 2>"regs-$m.err" || ok=0
	done
	[ $ok = 1 ] || fail "attach-$m/regs-attach" "attach failed" "regs-$m.err"
	kill -USR1 "$rpid"
	reap "$rpid" && grep -q '^bad=0 ' "regs-$m.out" && pass "attach-$m/registers-and-errno-kept" ||
		fail "attach-$m/registers-and-errno-kept" "changed" "regs-$m.out"
done

# ---- attach while another thread holds the loader's lock: no hang ----------------------
gcc -shared -fPIC -O0 -o libslowctor.so "$here/slowctor.c" &&
	gcc -O2 -g -pthread -o locker "$here/locker.c" -ldl || fail locker/build "gcc failed"
./locker 3 "$out/libslowctor.so" >locker.out 2>&1 &
lpid=$!
sleep 0.4
if timeout -k 5 30 "$CT" attach -p "$lpid" --duration 300ms -o locker.data 2>locker.err; then
	pass attach/loader-lock-held-no-hang
else
	fail attach/loader-lock-held-no-hang "attach failed or hung" locker.err
fi
reap "$lpid" && grep -q '^bad=0$' locker.out && pass attach/loader-lock-results-right ||
	fail attach/loader-lock-results-right "wrong results" locker.out

# ---- the leader exits (a zombie until the others end): attach neither hangs nor harms ------
gcc -O2 -g -pthread -o leader_exit "$here/leader_exit.c" || fail leader_exit/build "gcc failed"
for m in runtime ptrace; do
	# before the attach (the leader is a zombie already), and during it
	for when in before during; do
		if [ $when = before ]; then args="200 3" pause=0.6; else args="700 3" pause=0.3; fi
		# shellcheck disable=SC2086
		./leader_exit $args >"leader-$m-$when.out" 2>&1 &
		xpid=$!
		sleep $pause
		T_CMD=40 ct attach --method=$m -p "$xpid" --duration 1s -o "leader-$m-$when.data" \
			2>"leader-$m-$when.err"
		st=$?
		# it may trace (0) or refuse in one line (the leader cannot run our calls): never hang
		if [ $st -ge 124 ] || { [ $st != 0 ] && [ "$(grep -c '^calltrace: ' "leader-$m-$when.err")" = 0 ]; }; then
			fail "attach-$m/leader-exited-$when-no-hang" "status $st" "leader-$m-$when.err"
		else
			pass "attach-$m/leader-exited-$when-no-hang"
		fi
		reap "$xpid" 30 && grep -q '^bad=0$' "leader-$m-$when.out" &&
			pass "attach-$m/leader-exited-$when-results-right" ||
			fail "attach-$m/leader-exited-$when-results-right" "wrong results" "leader-$m-$when.out"
	done
done

# ---- errors ---------------------------------------------------------------------------
# expect_error NAME CMD...: non-zero exit, exactly one line on stderr starting "calltrace: "
expect_error() {
	local name=$1
	shift
	timeout -k 5 30 "$@" >err.out 2>err.txt </dev/null && {
		fail "$name" "exit status 0, expected an error"
		return
	}
	[ "$(wc -l <err.txt)" = 1 ] && grep -q '^calltrace: ' err.txt && pass "$name" ||
		fail "$name" "stderr is not one line starting \"calltrace: \"" err.txt
}
expect_error errors/no-such-process "$CT" attach -p 999999999
expect_error errors/no-pid "$CT" attach
expect_error errors/bad-duration "$CT" attach -p 1 --duration soon
expect_error errors/bad-method "$CT" attach -p 1 --method=patch
# a static program has no dlopen: --method=runtime says so, the default uses breakpoints
gcc -O1 -g -static -pthread -o worker-static "$here/worker.c" || fail worker-static/build "gcc failed"
./worker-static 3000 >static.out 2>&1 &
stpid=$!
sleep 0.2
expect_error errors/runtime-into-static "$CT" attach --method=runtime -p "$stpid" -o static.data
grep -q 'no dlopen' err.txt || fail errors/runtime-into-static-says-why "$(cat err.txt)"
if ct attach -p "$stpid" --duration 200ms -o static.data 2>static.err &&
	grep -q 'tracing through breakpoints' static.err &&
	ct info -i static.data 2>/dev/null | grep -q '^method: *ptrace'; then
	pass attach/static-falls-back-to-breakpoints
else
	fail attach/static-falls-back-to-breakpoints "no fallback" static.err
fi
reap "$stpid" && grep -q '^bad=0$' static.out && pass attach/static-results-right ||
	fail attach/static-results-right "wrong results" static.out
expect_error errors/ptrace-with-args "$CT" record --method=ptrace -a ./worker 10
expect_error errors/missing-program "$CT" record --method=ptrace ./no-such-program
sleep 30 &
spid=$!
ct attach -p "$spid" --duration 3s -o first.data 2>first.err &
apid=$!
sleep 0.5
expect_error errors/already-traced "$CT" attach -p "$spid" -o second.data
grep -q 'already traced' err.txt || fail errors/already-traced-says-why "$(cat err.txt)"
reap "$apid"
if [ "$(id -u)" != 0 ]; then
	skip errors/not-permitted "not root: cannot run calltrace as another user"
elif ! command -v setpriv >/dev/null; then
	fail errors/not-permitted "setpriv is missing (util-linux; scripts/install-deps.sh --test)"
else
	expect_error errors/not-permitted setpriv --reuid=65534 --regid=65534 --clear-groups \
		"$CT" attach -p "$spid" -o /tmp/ct-not-permitted.data
fi
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null

# ---- nothing left behind: no program of this suite, no calltrace of ours ------------------
# (ours: run in $out; other sub-suites run the same calltrace at the same time)
left=
for p in /proc/[0-9]*; do
	pid=${p#/proc/}
	exe=$(readlink "$p/exe" 2>/dev/null) || continue
	case $exe in
	"$out"/*) ;;
	"$(readlink -f "$CT")") case $(readlink "$p/cwd" 2>/dev/null) in "$out" | "$out"/*) ;; *) continue ;; esac ;;
	*) continue ;;
	esac
	left="$left $pid($exe)"
	kill -9 "$pid" 2>/dev/null
done
[ -z "$left" ] && pass no-process-left || fail no-process-left "still running, killed:$left"
finish
