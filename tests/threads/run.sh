#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Many threads and processes (issue 19: lossless never means a hang). Alone:
#
#   BUILD=build tests/threads/run.sh
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT), PY, as for run.sh;
# CT_SAN: a tool built with ASan+UBSan (default $BUILD-san/calltrace if there
# is one) that runs the barrier checks again.
# tests/threads/threads.c, built with gcc and clang (-finstrument-functions),
# counts its own calls:
#   barrier-1000/*   1,000 threads at a pthread_barrier, default options: the
#                    recording ends, every call is in the report, nothing lost
#   barrier-small/*  100 threads, -b 256K --chunk-size 4K (every chunk held while
#                    threads wait): it ends, recorded + lost = every event, and
#                    info says why ("buffer full ... raise --buffer-size")
#   short/*          10,000 short-lived threads: exact counts
#   fork/*           200 processes forked at once: exact counts
#   ring/*, lossy/*  the barriers with --ring 1M and with --lossy: they end, and
#                    (lossy) recorded + lost = every event
#   recorder-zombie  the recorder SIGKILLed and never reaped while the program
#                    waits for chunks: the program runs on (tests/threads/zombie.py)
#   late/*           tests/threads/late.c (-pg -mfentry) and late_deep.c
#                    (-finstrument-functions): calls 40 deep in a pthread key's
#                    destructor that runs after the runtime ended the thread: the
#                    program runs to its end (the TLS frames are not overrun), exact
#   ptrace/*         the barriers with --method=ptrace (the tracer holds a chunk
#                    per thread): exact with 1,000; accounted with 100 and 4K chunks
# Every command has a deadline: a hang is a FAIL, and its processes are killed.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite threads
CHECK=$ROOT/tests/lib/ctcheck.py
OUT=$OUT/threads
T=${THREADS_DEADLINE:-60} # seconds for each command
# bad NAME REASON [DETAILS-FILE]

rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT" || exit 1
if ! [ -x "$CT" ]; then
	bad tool "no calltrace at $CT (run make)"
	finish
fi

# run DIR [RECORD OPTIONS...] -- PROGRAM ARGS: record under a deadline (timeout
# kills its whole process group: the recorder and the program)
run() {
	local d=$1
	shift
	mkdir -p "$d"
	CT_TRUTH=$d/truth timeout -k 5 $T "$TOOL" record -o "$d/t.data" "$@" \
		>"$d/out" 2>"$d/err"
	echo $? >"$d/status"
}

# events DIR: recorded calls and returns + lost events, from info
events() {
	timeout -k 5 $T "$TOOL" info -i "$1/t.data" >"$1/info" 2>&1 || return 1
	local rec lost
	rec=$(sed -n 's/^records: .*(\([0-9,]*\) calls and returns.*/\1/p' "$1/info" | tr -d ,)
	lost=$(sed -n 's/^lost: *\([0-9,]*\) events.*/\1/p' "$1/info" | tr -d ,)
	[ -n "$rec" ] && [ -n "$lost" ] && echo "$rec $lost"
}

# truth_events DIR: twice the calls the program counted (a call and its return)
truth_events() {
	awk '{ n += $2 } END { print 2 * n }' "$1/truth"
}

# ended NAME DIR: the recording ended, with the program's status 0
ended() {
	local st
	st=$(cat "$2/status")
	if [ "$st" = 0 ]; then
		ok "$1/ends"
		return 0
	fi
	[ "$st" = 124 ] || [ "$st" = 137 ] && bad "$1/ends" "still running after ${T}s: killed" "$2/err" ||
		bad "$1/ends" "exit status $st" "$2/err"
	return 1
}

# exact NAME DIR: every call the program counted is in the report, nothing lost
exact() {
	if timeout -k 5 $T "$TOOL" report -i "$2/t.data" --json >"$2/report.json" 2>"$2/report.err" &&
		"$PY" "$CHECK" check-counts "$2/report.json" "$2/truth" >"$2/counts" 2>&1; then
		ok "$1/counts"
	else
		cat "$2/report.err" >>"$2/counts"
		bad "$1/counts" "the report's counts are not the program's" "$2/counts"
	fi
	local e
	e=$(events "$2")
	if [ -n "$e" ] && [ "${e#* }" = 0 ]; then
		ok "$1/complete"
	else
		bad "$1/complete" "info: events lost (recorded, lost: ${e:-?})" "$2/info"
	fi
}

# accounted NAME DIR: recorded + lost = every event the program made
accounted() {
	local e want
	e=$(events "$2")
	want=$(truth_events "$2")
	if [ -n "$e" ] && [ $((${e% *} + ${e#* })) = "$want" ]; then
		ok "$1/accounted"
	else
		bad "$1/accounted" "recorded + lost = ${e:-?} (recorded, lost), the program made $want" "$2/info"
	fi
}

check_barriers() { # TAG: the barrier checks with $TOOL and $PROG
	local tag=$1 d
	d=$OUT/$tag/barrier-1000
	run "$d" -- "$PROG" barrier 1000 10
	ended "$tag/barrier-1000" "$d" && exact "$tag/barrier-1000" "$d"

	d=$OUT/$tag/barrier-small
	run "$d" -b 256K --chunk-size 4K -- "$PROG" barrier 100 10
	if ended "$tag/barrier-small" "$d"; then
		accounted "$tag/barrier-small" "$d"
		if grep -q '^lost: *[1-9].*buffer full.*raise --buffer-size' "$d/info"; then
			ok "$tag/barrier-small/cause"
		else
			bad "$tag/barrier-small/cause" "info does not say the buffer was full" "$d/info"
		fi
		if timeout -k 5 $T "$TOOL" replay -i "$d/t.data" 2>&1 | grep -q 'events lost (buffer full'; then
			ok "$tag/barrier-small/replay-cause"
		else
			bad "$tag/barrier-small/replay-cause" "replay does not say why events were lost"
		fi
	fi

	for mode in ring lossy; do
		local opt=(--lossy)
		[ $mode = ring ] && opt=(--ring 1M)
		d=$OUT/$tag/$mode-1000
		run "$d" "${opt[@]}" -- "$PROG" barrier 1000 10
		ended "$tag/$mode-1000" "$d" && [ $mode = lossy ] && accounted "$tag/$mode-1000" "$d"
		d=$OUT/$tag/$mode-small
		run "$d" "${opt[@]}" -b 256K --chunk-size 4K -- "$PROG" barrier 100 10
		ended "$tag/$mode-small" "$d" && [ $mode = lossy ] && accounted "$tag/$mode-small" "$d"
	done
}

TOOL=$CT
for cc in gcc clang; do
	if ! command -v $cc >/dev/null; then
		bad build-$cc "$cc is missing (scripts/install-deps.sh)"
		continue
	fi
	PROG=$OUT/threads-$cc
	if ! timeout -k 5 120 $cc -O1 -g -finstrument-functions -pthread "$HERE/threads.c" \
		-o "$PROG" 2>"$OUT/build-$cc.err"; then
		bad build-$cc "does not compile" "$OUT/build-$cc.err"
		continue
	fi
	ok build-$cc
	check_barriers $cc

	d=$OUT/$cc/short
	run "$d" -- "$PROG" short 10000
	ended "$cc/short" "$d" && exact "$cc/short" "$d"

	d=$OUT/$cc/fork
	run "$d" -- "$PROG" fork 200
	ended "$cc/fork" "$d" && exact "$cc/fork" "$d"
done

# --method=ptrace: the tracer holds a chunk for each thread it traces
if [ -x "$OUT/threads-gcc" ]; then
	PROG=$OUT/threads-plain
	# the counted functions only: the program's helpers are no_instrument_function,
	# which breakpoints do not know
	only=(-P main -P leaf -P barrier_worker)
	if timeout -k 5 120 gcc -O1 -g -pthread "$HERE/threads.c" -o "$PROG" 2>"$OUT/build-plain.err"; then
		d=$OUT/ptrace/barrier-1000
		run "$d" --method=ptrace "${only[@]}" -- "$PROG" barrier 1000 10
		ended ptrace/barrier-1000 "$d" && exact ptrace/barrier-1000 "$d"
		d=$OUT/ptrace/barrier-small
		run "$d" --method=ptrace "${only[@]}" -b 256K --chunk-size 4K -- "$PROG" barrier 100 10
		ended ptrace/barrier-small "$d" && accounted ptrace/barrier-small "$d"
	else
		bad build-plain "does not compile" "$OUT/build-plain.err"
	fi
fi

# a recorder killed and never reaped (a zombie): a waiting thread sees it is gone
if [ -x "$OUT/threads-gcc" ]; then
	mkdir -p "$OUT/zombie"
	if (cd "$OUT/zombie" && timeout -k 5 $T "$PY" "$HERE/zombie.py" "$CT" "$OUT/threads-gcc") \
		>"$OUT/zombie/out" 2>&1; then
		ok recorder-zombie
	else
		bad recorder-zombie "$(head -n1 "$OUT/zombie/out")" "$OUT/zombie/out"
	fi
fi

# ---- calls after a thread's end, fentry over finstrument: the TLS frames' bound ----
if timeout -k 5 $T gcc -O1 -finstrument-functions -c "$HERE/late_deep.c" -o late_deep.o \
	2>late.err && timeout -k 5 $T gcc -O1 -pg -mfentry -c "$HERE/late.c" -o late.o 2>>late.err &&
	timeout -k 5 $T gcc late.o late_deep.o -o late -pthread 2>>late.err; then
	if timeout -k 5 $T "$CT" record -o late.data -- ./late 40 >late.out 2>>late.err &&
		grep -qx done late.out; then
		ok late/runs
		got=$(timeout -k 5 $T "$CT" report --json -i late.data 2>/dev/null | "$PY" -c '
import json, sys
print(" ".join(str(r["calls"]) for r in sorted(json.load(sys.stdin), key=lambda r: r["name"])
               if r["name"] in ("deep", "from_fentry", "later_end")))')
		# deep 2 x 40 + 9, from_fentry 2, later_end 1
		if [ "$got" = "89 2 1" ]; then
			ok late/counts
		else
			bad late/counts "calls of deep, from_fentry, later_end: $got (89 2 1)"
		fi
	else
		bad late/runs "the program failed under calltrace (exit $?)" late.err
	fi
else
	bad late/built "late.c or late_deep.c does not build" late.err
fi

# the sanitized tool, if there is one: the same barriers
sanitized() { [ -x "$1" ] && nm "$1" 2>/dev/null | grep -q __asan_init; }
SAN=${CT_SAN:-$B-san/calltrace}
if sanitized "$SAN" && [ -x "$OUT/threads-gcc" ]; then
	TOOL=$SAN PROG=$OUT/threads-gcc
	export CALLTRACE_RUNTIME=${CALLTRACE_RUNTIME:-$(dirname "$SAN")/libcalltrace.so}
	check_barriers sanitized
	if grep -rlE 'runtime error|Sanitizer' "$OUT/sanitized" >"$OUT/sanitizer.files"; then
		bad sanitized/clean "sanitizer reports" "$OUT/sanitizer.files"
	else
		ok sanitized/clean
	fi
fi

# nothing of ours left running
if pgrep -af "$OUT/threads-" >"$OUT/left" 2>/dev/null; then
	bad no-process-left "processes still running" "$OUT/left"
	while read -r pid _; do kill -KILL "$pid" 2>/dev/null; done <"$OUT/left"
else
	ok no-process-left
fi
finish
