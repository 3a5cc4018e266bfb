#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The in-process API (include/calltrace.h) and standalone mode. Programs
# built with -finstrument-functions against libcalltrace-api.so (the no-op
# stubs): under calltrace record the runtime answers the API instead.
#   gate.c        calltrace_disable/enable(_all), calltrace_mark: gate.tree
#   backtrace.cpp calltrace_backtrace in handlers, after jumps and throws,
#                 in threads, deep; and the stubs without calltrace
#   ring.c        calltrace_snapshot under record --ring
#   disabled.c    record --disabled: disabled.tree
#   standalone.c  no recorder: the program writes its own trace
# Prints ok/FAIL lines.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite api
here=$HERE root=$ROOT build=$B
out=$OUT/api
COMBOS=${COMBOS:-gcc-O0 gcc-O2 clang-O0 clang-O2 gcc-O2-fentry clang-O2-fentry gcc-O2-patchable gcc-O2-patch clang-O0-patch}
rm -rf "$out"
mkdir -p "$out"
suite_tally "$out/.tally"
cd "$out" || exit 1 # what the programs leave (a -pg build's gmon.out) stays here

# build SRC OUT COMBO [extra flags]: with the API's stubs, like a user would.
# COMBO is COMPILER-OPT[-METHOD]; a method other than finstrument builds
# through calltrace-cc; patch builds with nothing special.
build() {
	local src=$1 bin=$2 cc opt method
	IFS=- read -r cc opt method <<<"$3"
	shift 3
	case $src in *.cpp) cc=$([ "$cc" = gcc ] && echo g++ || echo clang++) ;; esac
	local inst=(-finstrument-functions)
	if [ "$method" = mcount ]; then
		inst=(-pg)
	elif [ "$method" = patch ] || [ "$method" = patchlc ]; then
		inst=() # built as it is: calltrace patches it in memory
	elif [ -n "$method" ] && [ "$method" != finstrument ]; then
		inst=(--method="$method")
		case $src in
		*.cpp) export CALLTRACE_CXX=$cc && cc=$build/calltrace-c++ ;;
		*) export CALLTRACE_CC=$cc && cc=$build/calltrace-cc ;;
		esac
	fi
	$cc -g "-$opt" "${inst[@]}" -I"$root/include" "$here/$src" -o "$bin" \
		-L"$build" -lcalltrace-api -Wl,-rpath,"$build" -lpthread "$@" 2>"$bin.build.err"
}

# tree NAME DATA EXPECTED: the replay's normalised tree is the expected one
tree() {
	local name=$1 data=$2 want=$3
	if ! "$CT" replay -i "$data" >"$data.replay" 2>"$data.replay.err"; then
		fail "$name" "replay failed" "$data.replay.err"
		return
	fi
	"$PY" "$root/tests/lib/ctcheck.py" tree "$data.replay" >"$data.tree" 2>&1
	if grep -v '^#' "$want" | diff - "$data.tree" >"$data.diff"; then
		pass "$name"
	else
		fail "$name" "call tree differs from $(basename "$want") ($data.replay)" "$data.diff"
	fi
}

for combo in $COMBOS; do
	d=$out/$combo
	mkdir -p "$d"
	if build gate.c "$d/gate" "$combo" && "$CT" record -o "$d/gate.data" "$d/gate" >"$d/gate.out" 2>&1; then
		tree "gate.$combo" "$d/gate.data" "$here/gate.tree"
	else
		fail "gate.$combo" "build or record failed" "$d/gate.out"
	fi
	if [[ $combo == *-mcount ]]; then
		# -pg alone: calls are known by a place inside the function, not its entry
		skip "backtrace.$combo" "mcount gives no entry addresses"
		continue
	fi
	if ! build backtrace.cpp "$d/backtrace" "$combo"; then
		fail "backtrace.$combo" "build failed" "$d/backtrace.build.err"
		continue
	fi
	"$d/backtrace" >"$d/stubs.out" 2>&1
	if [ "$(cat "$d/stubs.out")" = "ok stubs" ]; then
		pass "stubs.$combo"
	else
		fail "stubs.$combo" "without calltrace the API must do nothing" "$d/stubs.out"
	fi
	"$CT" record -o "$d/backtrace.data" "$d/backtrace" >"$d/backtrace.out" 2>&1
	if [ "$(grep -c '^ok ' "$d/backtrace.out")" = 7 ] && ! grep -q FAIL "$d/backtrace.out"; then
		pass "backtrace.$combo"
	else
		fail "backtrace.$combo" "calltrace_backtrace gave wrong frames" "$d/backtrace.out"
	fi
done

# ---- gcc -fno-pie -mfentry: nops listed in __mcount_loc, patched at start -----------
d=$out/nop-mcount
mkdir -p "$d"
if CALLTRACE_CC=gcc "$build/calltrace-cc" --method=fentry -O2 -fno-pie -no-pie -I"$root/include" \
	"$here/gate.c" -o "$d/gate" -L"$build" -lcalltrace-api -Wl,-rpath,"$build" -lpthread 2>"$d/build.err" &&
	"$CT" record -o "$d/gate.data" "$d/gate" >"$d/gate.out" 2>&1; then
	tree nop-mcount "$d/gate.data" "$here/gate.tree"
	"$CT" info -i "$d/gate.data" >"$d/info" 2>&1
	grep -q '^patched: *[1-9]' "$d/info" || fail nop-mcount/info "info does not say entries were patched" "$d/info"
else
	fail nop-mcount "build or record failed" "$d/build.err"
fi

# ---- markers in the exports --------------------------------------------------
d=$out/once
mkdir -p "$d"
if build gate.c "$d/gate" gcc-O2 && "$CT" record -o "$d/gate.data" "$d/gate" >/dev/null 2>&1; then
	"$CT" export -i "$d/gate.data" --format=chrome -o "$d/gate.json" 2>"$d/export.err"
	if "$PY" - "$d/gate.json" >"$d/chrome.check" 2>&1 <<'PYEOF'; then
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev['traceEvents'] if isinstance(ev, dict) else ev
names = [e.get('name') for e in ev if e.get('ph') in ('i', 'I')]
for want in ('step 1 of marks', 'done', 'tracing off', 'tracing on'):
    assert want in names, '%r not among the instant events %r' % (want, names[:20])
assert 'never seen' not in names, 'a mark made while tracing was off was exported'
PYEOF
		pass markers-chrome
	else
		fail markers-chrome "calltrace_mark not exported as instant events" "$d/chrome.check"
	fi
	"$CT" export -i "$d/gate.data" --format=perfetto -o "$d/gate.pftrace" 2>>"$d/export.err"
	if grep -q "step 1 of marks" "$d/gate.pftrace" && grep -q "tracing on" "$d/gate.pftrace"; then
		pass markers-perfetto
	else
		fail markers-perfetto "the marks' text is not in the Perfetto trace" "$d/export.err"
	fi
else
	fail markers "could not build or record gate.c"
fi

# ---- calltrace_snapshot ---------------------------------------------------------------
if build ring.c "$d/ring" gcc-O2 && "$CT" record --ring=64K -o "$d/ring.data" "$d/ring" >"$d/ring.out" 2>&1 &&
	grep -q "snapshot 0 0" "$d/ring.out"; then
	"$CT" replay -i "$d/ring.data" >"$d/ring.replay" 2>&1
	n=$(grep -c '^# thread .*, snapshot [0-9]' "$d/ring.replay")
	if [ "$n" -ge 3 ] && grep -q ', snapshot 1' "$d/ring.replay" && grep -q ', snapshot 2' "$d/ring.replay"; then
		pass snapshot
	else
		fail snapshot "expected snapshots 1 and 2 and the one at exit, got $n sections" "$d/ring.replay"
	fi
else
	fail snapshot "calltrace_snapshot() did not return 0 under record --ring" "$d/ring.out"
fi

# ---- record --disabled -------------------------------------------------------------
if build disabled.c "$d/disabled" gcc-O2 && "$CT" record --disabled -o "$d/disabled.data" "$d/disabled" >/dev/null 2>&1; then
	tree disabled "$d/disabled.data" "$here/disabled.tree"
else
	fail disabled "build or record --disabled failed"
fi

# ---- standalone ---------------------------------------------------------------------
s=$out/standalone
mkdir -p "$s/cwd"
gcc -g -O1 -finstrument-functions "$here/standalone.c" -o "$s/plain" 2>"$s/build.err" &&
	gcc -g -O1 -finstrument-functions "$here/standalone.c" -o "$s/linked" -L"$build" -lcalltrace \
		-Wl,-rpath,"$build" 2>>"$s/build.err" || fail standalone/build "cannot build" "$s/build.err"
want="count 4, waited for the child: yes, status 3, no other child: yes"

# run NAME EXPECTED-STATUS CMD...: the program's own output and status, untouched
run() {
	local name=$1 st=$2
	shift 2
	"$@" >"$s/$name.out" 2>"$s/$name.err"
	local got=$?
	if [ "$got" != "$st" ] || [ "$(cat "$s/$name.out")" != "$want" ]; then
		fail "standalone/$name" "exit status $got (expected $st) or output changed" "$s/$name.out"
		return 1
	fi
}
# traced NAME DATA: the trace is whole as soon as the program has ended
traced() {
	local name=$1 data=$2
	if ! "$CT" info -i "$data" >"$s/$name.info" 2>&1 ||
		! grep -q 'standalone' "$s/$name.info" || ! grep -q 'processes:  2' "$s/$name.info"; then
		fail "standalone/$name" "no whole trace of both processes in $data" "$s/$name.info"
		return 1
	fi
	"$CT" report -i "$data" --json >"$s/$name.json" 2>&1
	if ! "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); c={f["name"]: f["calls"] for f in r}; sys.exit(0 if c.get("count")==8 and c.get("child")==1 else 1)' "$s/$name.json"; then
		fail "standalone/$name" "count() and child() calls are not 8 and 1" "$s/$name.json"
		return 1
	fi
	pass "standalone/$name"
}

if run preload 5 env LD_PRELOAD="$build/libcalltrace.so" CALLTRACE_OUTPUT="$s/preload.data" "$s/plain"; then
	traced preload "$s/preload.data"
fi
if (cd "$s/cwd" && run linked 5 "$s/linked"); then
	traced linked "$s/cwd/calltrace.data"
fi
if run ring 5 env CALLTRACE_RING=64K CALLTRACE_OUTPUT="$s/ring.data" "$s/linked"; then
	# info must read the trace (its error would name ring.data) and say flight recorder
	if ! timeout -k 5 60 "$CT" info -i "$s/ring.data" >"$s/ring.info" 2>"$s/ring.info.err"; then
		fail standalone/ring "calltrace info cannot read the trace" "$s/ring.info.err"
	elif grep -q '^method: .*flight recorder keeping the newest 64.0 KiB' "$s/ring.info"; then
		pass standalone/ring
	else
		fail standalone/ring "CALLTRACE_RING did not make a flight recorder of 64K" "$s/ring.info"
	fi
fi
# the program's pipe closes when it ends: the recorder holds none of its files
if timeout 20 sh -c "CALLTRACE_OUTPUT='$s/pipe.data' '$s/linked' | cat >'$s/pipe.out'" &&
	[ "$(cat "$s/pipe.out")" = "$want" ]; then
	pass standalone/pipe
else
	fail standalone/pipe "the reader of the program's output did not see it end"
fi
for bad in unwritable:CALLTRACE_OUTPUT=/nonexistent/dir/x.data recorder-missing:CALLTRACE_RECORDER=/nonexistent/calltrace; do
	name=${bad%%:*}
	if run "$name" 5 env "${bad#*:}" "$s/linked"; then
		if [ "$(wc -l <"$s/$name.err")" = 1 ] && grep -q '^calltrace: ' "$s/$name.err"; then
			pass "standalone/$name"
		else
			fail "standalone/$name" "expected one line from calltrace on stderr" "$s/$name.err"
		fi
	fi
done
rm -f "$s/cwd/calltrace.data"
if (cd "$s/cwd" && run off 5 env CALLTRACE_STANDALONE=0 "$s/linked") && [ ! -e "$s/cwd/calltrace.data" ]; then
	pass standalone/off
else
	fail standalone/off "CALLTRACE_STANDALONE=0 still wrote a trace"
fi
if run crash 139 env CALLTRACE_OUTPUT="$s/crash.data" "$s/linked" crash 2>/dev/null; then
	if "$CT" info -i "$s/crash.data" 2>&1 | grep -q 'SIGSEGV'; then
		pass standalone/crash
	else
		fail standalone/crash "the crash is not in the trace"
	fi
fi
# SIGKILL: nobody says goodbye; the recorder sees the processes gone
CALLTRACE_OUTPUT="$s/killed.data" "$s/linked" sleep >/dev/null 2>&1 &
pid=$!
sleep 0.5
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
for _ in $(seq 1 50); do
	"$CT" info -i "$s/killed.data" 2>/dev/null | grep -q 'not known' && break
	sleep 0.2
done
if "$CT" info -i "$s/killed.data" 2>&1 | grep -q 'not known'; then
	pass standalone/killed
else
	fail standalone/killed "the trace of a killed program was not finished"
fi
finish
