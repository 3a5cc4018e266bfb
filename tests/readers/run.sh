#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Readers on several threads (report, replay, export, flame --jobs N): the output is
# byte for byte the one-thread output. Alone:
#
#   BUILD=build tests/readers/run.sh
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT), as for run.sh.
# Traces, each recorded once (gcc -O0 -finstrument-functions unless said):
#   fib        one thread, fib(24): 150,000 records, several blocks and many of
#              the pipeline's chunks; above the size where the default is parallel
#   threads8   nine threads (tests/programs/threads8.c)
#   fork       a forked child inherits its parent's open calls (fork.c)
#   signal     signal handlers' frames (signal_handler.c), siglongjmp (siglongjmp.c)
#   exceptions unwound frames (exceptions.cpp)
#   args       record -a on a plain -O0 build: captured values (args.c)
#   wide       5,000 functions in a block and calls that sleep 2 ms, 150 ms and
#              1.2 s: the pipeline's ops too wide for one word or two
# For each: report (text, --json, --csv, --per-thread, --diff with -N), replay
# (plain, -t 1us, -D 3, --no-std, -F with --until), export chrome, perfetto and
# folded, flame; with --jobs 2 and 3 against --jobs 1, and without --jobs (the
# default) too; the progress line with --jobs 2 on a terminal; bad --jobs values.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
PROGS=$ROOT/tests/programs
BUILD=${BUILD:-build}
case $BUILD in
/*) B=$BUILD ;;
*) B=$ROOT/$BUILD ;;
esac
CT=${CT:-${CALLTRACE:-$B/calltrace}}
OUT=${TEST_OUT:-${OUT:-$B/tests}}/readers
T=60 # seconds for each command

. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite readers
rm -rf "$OUT"
mkdir -p "$OUT"

cat >"$OUT/fib.c" <<'C'
#include <stdio.h>
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(void) { printf("%ld\n", fib(24)); return 0; }
C

# wide.c: more functions than a one-word call op indexes, and clock gaps past its bits
{
	echo '#include <unistd.h>'
	for i in $(seq 0 4999); do
		echo "__attribute__((noinline)) int f$i(int x) { return x + $i; }"
	done
	echo '__attribute__((noinline)) void nap(unsigned us) { usleep(us); }'
	echo 'int main(void) { int s = 0; for (int r = 0; r < 2; r++) {'
	for i in $(seq 0 4999); do echo "s += f$i(s);"; done
	echo '} nap(2000); nap(150000); nap(1200000); return s == 1; }'
} >"$OUT/wide.c"

# trace NAME COMPILER SOURCE [RECORD-OPTIONS...]: build and record NAME.data
trace() {
	local name=$1 cc=$2 src=$3 flags=(-g -O0 -finstrument-functions -pthread)
	shift 3
	[ "$name" = args ] && flags=(-g -O0)
	if ! timeout -k 5 $T "$cc" "${flags[@]}" "$src" -o "$OUT/$name" 2>"$OUT/$name.cc.err"; then
		bad "$name/build" "$cc failed" "$OUT/$name.cc.err"
		return 1
	fi
	if ! (cd "$OUT" && timeout -k 5 $T "$CT" record "$@" -o "$name.data" -- "./$name" one two \
		three >/dev/null 2>"$name.record.err") && [ ! -s "$OUT/$name.data" ]; then
		bad "$name/record" "record failed" "$OUT/$name.record.err"
		return 1
	fi
	return 0
}

# same NAME LABEL COMMAND...: COMMAND -i NAME.data with --jobs 2, 3 and none as with --jobs 1
same() {
	local name=$1 label=$2 j rc1 rc
	shift 2
	local base="$OUT/$name.$label"
	timeout -k 5 $T "$CT" "$@" -i "$OUT/$name.data" --jobs 1 >"$base.j1" 2>"$base.j1.err"
	rc1=$?
	if [ $rc1 != 0 ] || [ ! -s "$base.j1" ]; then
		bad "$name/$label" "--jobs 1 exited $rc1 or wrote nothing" "$base.j1.err"
		return
	fi
	for j in 2 3 default; do
		local opt=(--jobs "$j")
		[ $j = default ] && opt=()
		timeout -k 5 $T "$CT" "$@" -i "$OUT/$name.data" "${opt[@]}" >"$base.j$j" \
			2>"$base.j$j.err"
		rc=$?
		if [ $rc != $rc1 ]; then
			bad "$name/$label" "--jobs $j exited $rc, --jobs 1 $rc1" "$base.j$j.err"
			return
		fi
		if ! cmp -s "$base.j1" "$base.j$j"; then
			diff "$base.j1" "$base.j$j" >"$base.diff" 2>&1
			bad "$name/$label" "--jobs $j differs from --jobs 1" "$base.diff"
			return
		fi
	done
	ok "$name/$label"
}

readers() {
	local name=$1
	same "$name" report report
	same "$name" report-json report --json
	same "$name" report-csv report --csv -s calls
	same "$name" report-per-thread report --per-thread
	same "$name" report-diff report --diff "$OUT/$name.data" -N main
	same "$name" replay replay
	same "$name" replay-t replay -T -t 1us
	same "$name" replay-depth replay -D 3
	same "$name" replay-no-std replay --no-std
	same "$name" replay-only replay -F main --until 1s
	same "$name" chrome export -f chrome -o -
	same "$name" perfetto export -f perfetto -o -
	same "$name" folded export -f folded -o -
	same "$name" flame flame -o -
}

trace fib gcc "$OUT/fib.c" && readers fib
trace threads8 gcc "$PROGS/threads8.c" && readers threads8
trace fork gcc "$PROGS/fork.c" && readers fork
trace signal gcc "$PROGS/signal_handler.c" && readers signal
trace siglongjmp gcc "$PROGS/siglongjmp.c" && readers siglongjmp
trace exceptions g++ "$PROGS/exceptions.cpp" && readers exceptions
trace wide gcc "$OUT/wide.c" && readers wide
trace args gcc "$PROGS/args.c" -a && {
	readers args
	if grep -q '(' "$OUT/args.replay.j1" && grep -q ') = ' "$OUT/args.replay.j1"; then
		ok args/values-shown
	else
		bad args/values-shown "replay shows no captured values" "$OUT/args.replay.j1"
	fi
}

# the progress line on a terminal (script(1) gives one), from the reading thread
if command -v script >/dev/null; then
	CALLTRACE_PROGRESS_AFTER=0 timeout -k 5 $T script -qfec \
		"$CT report -i $OUT/fib.data --jobs 2 >$OUT/progress.out" /dev/null >"$OUT/progress.tty" 2>&1
	if grep -q 'report: [0-9]*%' "$OUT/progress.tty" && ! grep -q '%' "$OUT/progress.out" &&
		cmp -s "$OUT/progress.out" "$OUT/fib.report.j1"; then
		ok progress
	else
		bad progress "no 'report: N%' line on the terminal, or output not --jobs 1's" "$OUT/progress.tty"
	fi
else
	bad progress "script is missing (util-linux)"
fi

# bad values: one line, exit 2
for v in 0 x 257 -1; do
	timeout -k 5 $T "$CT" report -i "$OUT/fib.data" --jobs "$v" >"$OUT/bad.out" 2>"$OUT/bad.err"
	rc=$?
	if [ $rc = 2 ] && [ "$(wc -l <"$OUT/bad.err")" = 1 ] &&
		grep -q '^calltrace: report: --jobs takes' "$OUT/bad.err"; then
		ok "bad-jobs/$v"
	else
		bad "bad-jobs/$v" "exit $rc" "$OUT/bad.err"
	fi
done
finish
