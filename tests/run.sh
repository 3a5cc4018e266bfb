#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# calltrace's test suite (`make check` runs it after building).
#
#   tests/run.sh [REGEX]     REGEX selects test programs by name (default: all),
#                            and the sub-suites, the bad-input tests (bad) and the
#                            unit tests (unit) whose name it matches
#
# Environment:
#   BUILD=build              build directory, relative to the repository root
#                            (or absolute); calltrace is $BUILD/calltrace
#   CALLTRACE=path           the calltrace binary to test (default $BUILD/calltrace)
#   TEST_OUT=dir             where the tests build and run (default $BUILD/tests)
#   COMBOS="gcc-O0 ..."      compiler/optimisation[/method] combinations
#                            (default: gcc-O0 gcc-O2 clang-O0 clang-O2, the same
#                            with -fentry (built with -pg -mfentry), and
#                            gcc-O2-patchable clang-O0-patchable gcc-O2-mcount
#                            clang-O0-mcount (plain -pg), gcc-O2-patch
#                            clang-O0-patch (built plain, patched in memory),
#                            gcc-O2-patchlc (the same with record --libcalls))
#   JOBS=2                   programs built and checked in parallel
#   SUITE_JOBS=2             sub-suites run at a time
#   T_SUITE=600              seconds a sub-suite may take (then stopped: a FAIL)
#
# Prints one line per test as it finishes, `ok NAME` or `FAIL NAME: REASON`
# with details indented below, `ok NAME # SKIP WHY` for a test that cannot run
# here (WHY is required), `# ...` lines when nothing else was printed for 30 s,
# and last `N passed, N failed, N skipped`. Exit status 0 iff no test failed.
# Every job of the matrix and every sub-suite must reach its end (the job's end
# marker, the sub-suite's closing `N passed, N failed` line): one that died
# part-way is a FAIL. Everything a test made stays in $TEST_OUT (run/PROG.COMBO/
# holds the trace, replay and report of each program) for a look after a failure.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) B=$BUILD ;;
*) B=$ROOT/$BUILD ;;
esac
OUT=${TEST_OUT:-$B/tests}
CT=${CALLTRACE:-$B/calltrace}
JOBS=${JOBS:-2}
COMBOS=${COMBOS:-gcc-O0 gcc-O2 clang-O0 clang-O2 gcc-O2-fentry clang-O0-fentry gcc-O2-patchable clang-O0-patchable gcc-O2-mcount clang-O0-mcount gcc-O2-patch clang-O0-patch gcc-O2-patchlc}
FILTER=${1:-}
selected() { [ -z "$FILTER" ] || [[ $1 =~ $FILTER ]]; }
LIB=$ROOT/tests/lib
T_READ=${T_READ:-60}
T_SUITE=${T_SUITE:-600} # seconds a sub-suite may take before it is stopped as hung
# The interpreter itself, not a wrapper script (pyenv's shims cost 0.3 s a run).
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
PY=${PY:-python3}
export ROOT OUT PY
# the runtime's patch plans (src/runtime/methods/plancache.c) go under the run's output,
# not ~/.cache
export XDG_CACHE_HOME=$OUT/cache

passed=0 failed=0 skipped=0
ok() {
	echo "ok $1"
	passed=$((passed + 1))
}
# skip NAME WHY: a test that cannot run on this platform, counted apart
skip() {
	echo "ok $1 # SKIP $2"
	skipped=$((skipped + 1))
}
# bad NAME REASON [DETAILS-FILE]
bad() {
	echo "FAIL $1: $2"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		head -n 20 "$3" | sed 's/^/    /'
	fi
	failed=$((failed + 1))
}
finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
}
# tally FILE: adds FILE's lines to the totals: `ok NAME` passed, `FAIL NAME`
# failed, `ok NAME # SKIP WHY` skipped; a skip that does not say why fails.
tally() {
	local n m k name
	read -r n m k < <(awk '/^ok .* # SKIP [^ ]/ { k++; next } /^ok .* # SKIP *$/ { next }
		/^ok / { n++ } /^FAIL / { m++ } END { print n + 0, m + 0, k + 0 }' "$1")
	passed=$((passed + n))
	failed=$((failed + m))
	skipped=$((skipped + k))
	while read -r name; do
		bad "$name" "skipped without saying why (ok NAME # SKIP WHY)"
	done < <(sed -n 's/^ok \(.*\) # SKIP *$/\1/p' "$1")
}
# heartbeat LABEL PATH: while it runs, a line every 30 s in which PATH (a file
# or directory the work writes to) has not changed: a person sees the run move.
heartbeat() {
	local start=$SECONDS said=$SECONDS
	while sleep 5 >/dev/null; do
		[ $((SECONDS - said)) -ge 30 ] || continue
		[ $(($(date +%s) - $(stat -c %Y "$2" 2>/dev/null || echo 0))) -ge 30 ] || continue
		echo "# $1: still running after $((SECONDS - start)) s"
		said=$SECONDS
	done
}

mkdir -p "$OUT"
rm -rf "$OUT/results" "$OUT/bad"

# A sanitized tool (make check SANITIZE=..., which sets CT_SAN_FLAGS): every
# report goes to a file under $OUT/sanitizer, also from a command whose stderr
# a test throws away, and the run fails if there is any (sanitizer/clean).
SAN_LOGS=
if [ -n "${CT_SAN_FLAGS:-}" ]; then
	SAN_LOGS=$OUT/sanitizer
	rm -rf "$SAN_LOGS"
	mkdir -p "$SAN_LOGS"
	export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}:halt_on_error=1:log_path=$SAN_LOGS/asan
	export UBSAN_OPTIONS=${UBSAN_OPTIONS:-}:halt_on_error=1:print_stacktrace=1:log_path=$SAN_LOGS/ubsan
fi

if [ -x "$CT" ]; then
	ok calltrace-built
	export CT
else
	bad calltrace-built "$CT is missing: run make (only the test programs are checked)"
	CT=
	export CT
fi

# ---- test programs -------------------------------------------------------------
progs=()
for f in "$ROOT"/tests/programs/*.c "$ROOT"/tests/programs/*.cpp; do
	[ -f "$f" ] || continue
	p=$(basename "${f%.*}")
	selected "$p" && progs+=("$p")
done
# The bad-input tests damage a trace of callbacks: built with the first combo
# when the filter leaves it out.
extra_job=
if selected bad && ! selected callbacks; then
	extra_job="callbacks ${COMBOS%% *}"
fi
# The slowest jobs first (recursion.c: a 74 MB replay 6000 calls deep), for packing.
{
	for p in "${progs[@]}"; do
		for c in $COMBOS; do
			echo "$p $c"
		done
	done
	[ -z "$extra_job" ] || echo "$extra_job"
} | awk '$1 == "recursion" { print; next } { rest[n++] = $0 }
	END { for (i = 0; i < n; i++) print rest[i] }' >"$OUT/jobs"
# Each job prints its lines when it ends (whole, under the lock); the totals
# come from the result files, each of which must end with the job's marker.
mkdir -p "$OUT/results"
if [ -s "$OUT/jobs" ]; then
	matrix_start=$SECONDS
	heartbeat "the test programs ($(wc -l <"$OUT/jobs") jobs)" "$OUT/results" &
	hb=$!
	# (through sh: xargs would stop all the jobs at one killed by a signal)
	JOB_STREAM=$OUT/results/.lock xargs -r -P "$JOBS" -n 2 sh -c '"$0" "$@" || exit 1' "$LIB/job.sh" <"$OUT/jobs"
	st=$?
	kill "$hb" 2>/dev/null
	wait "$hb" 2>/dev/null
	echo "# the test programs: $((SECONDS - matrix_start)) s"
	[ $st = 0 ] || bad matrix/jobs "xargs exits with status $st: a job died or was killed (job.sh always exits 0)"
fi
# builds not used for a week (their sources changed), and those left half made
find "$OUT/bin/.cache" -mindepth 1 -maxdepth 1 -type d \( -name 'tmp.*' -mmin +60 -o \
	! -name 'tmp.*' ! -newermt '-7 days' \) -exec rm -rf {} + 2>/dev/null
while read -r p c; do
	if "$LIB/job.sh" --result "$p" "$c" >"$OUT/result.txt"; then
		tally "$OUT/result.txt"
	else
		# it printed nothing when it died: its lines, and the FAIL, now
		cat "$OUT/result.txt"
		tally "$OUT/result.txt"
	fi
done <"$OUT/jobs"

# ---- bad input, errors, help ------------------------------------------------------
# Each error must be exactly one line on stderr, starting "calltrace: ".
one_line() {
	[ "$(wc -l <"$1")" = 1 ] && head -n1 "$1" | grep -q '^calltrace: '
}
# expect_error NAME STATUS CMD...: CMD must exit STATUS ("nonzero": any but 0)
# with exactly one line on stderr starting "calltrace: ".
expect_error() {
	local name=$1 want=$2 st
	shift 2
	timeout -k 5 "$T_READ" "$@" >"$D/out" 2>"$D/err" </dev/null
	st=$?
	if [ "$want" = nonzero ] && [ $st = 0 ]; then
		bad "$name" "exit status 0, expected an error" "$D/err"
	elif [ "$want" != nonzero ] && [ $st != "$want" ]; then
		bad "$name" "exit status $st, expected $want" "$D/err"
	elif ! one_line "$D/err"; then
		bad "$name" "stderr is not exactly one line starting \"calltrace: \"" "$D/err"
	else
		ok "$name"
	fi
}
# expect_help NAME CMD...: exit 0, something on stdout.
expect_help() {
	local name=$1 st
	shift
	timeout -k 5 "$T_READ" "$@" >"$D/out" 2>"$D/err" </dev/null
	st=$?
	if [ $st != 0 ]; then
		bad "$name" "exit status $st, expected 0" "$D/err"
	elif ! [ -s "$D/out" ]; then
		bad "$name" "printed nothing on stdout"
	else
		ok "$name"
	fi
}
# expect_torn NAME CMD...: exit 0, a warning on stderr, output on stdout.
expect_torn() {
	local name=$1 st
	shift
	timeout -k 5 "$T_READ" "$@" >"$D/out" 2>"$D/err" </dev/null
	st=$?
	if [ $st != 0 ]; then
		bad "$name" "exit status $st, expected 0 (a torn last block is readable)" "$D/err"
	elif ! [ -s "$D/err" ] || ! head -n1 "$D/err" | grep -q '^calltrace: '; then
		bad "$name" "no warning on stderr starting \"calltrace: \"" "$D/err"
	elif ! [ -s "$D/out" ]; then
		bad "$name" "printed nothing on stdout"
	else
		ok "$name"
		return 0
	fi
	return 1
}

if [ -n "$CT" ] && selected bad; then
	D=$OUT/bad
	mkdir -p "$D/empty-cwd"
	cd "$D" || exit 2
	# A good trace to damage: the callbacks program, 9000 calls in 5 blocks.
	good=$D/good.data
	src_prog=
	for c in $COMBOS; do
		[ -x "$OUT/bin/$c/callbacks" ] && src_prog=$OUT/bin/$c/callbacks && break
	done
	if [ -n "$src_prog" ] && timeout -k 5 120 "$CT" record -o "$good" -- "$src_prog" >/dev/null 2>"$D/record.err" &&
		[ -s "$good" ]; then
		ok bad/good-trace
	else
		bad bad/good-trace "could not record $src_prog for the bad-input tests" "$D/record.err"
		good=
	fi

	: >"$D/empty.data"
	for i in $(seq 1 200); do echo "this is not a calltrace trace, line $i"; done >"$D/text.data"
	head -c 100000 /dev/urandom >"$D/random.data"
	good_tree=
	if [ -n "$good" ]; then
		: >"$D/tear.err"
		for op in "tear torn-last-block" "tear-mid torn-mid-file" "flip corrupt"; do
			set -- $op
			timeout -k 5 "$T_READ" "$PY" "$LIB/tracefile.py" "$1" "$good" "$D/$2.data" 2>>"$D/tear.err" ||
				echo "tracefile.py $1: status $?" >>"$D/tear.err"
		done
		if [ -s "$D/tear.err" ]; then
			bad bad/trace-layout "tests/lib/tracefile.py does not know this trace layout (tests cut/flip blindly)" "$D/tear.err"
		fi
		# the whole trace's tree, for the torn ones to be a beginning of
		if timeout -k 5 "$T_READ" "$CT" replay -i "$good" >"$D/good.replay" 2>"$D/good.err" &&
			timeout -k 5 "$T_READ" "$PY" "$LIB/ctcheck.py" tree "$D/good.replay" >"$D/good.tree" 2>>"$D/good.err" &&
			[ -s "$D/good.tree" ]; then
			sed -i 's/ \[[a-z ]*\]$//' "$D/good.tree"
			good_tree=$D/good.tree
		else
			cat "$D/good.tree" >>"$D/good.err" 2>/dev/null
			bad bad/good-replay "replay of the good trace, or its tree (tests/lib/ctcheck.py tree), failed" "$D/good.err"
		fi
	fi

	for cmd in replay report info; do
		expect_error "bad/$cmd/missing-file" 2 "$CT" $cmd -i "$D/no-such-file.data"
		expect_error "bad/$cmd/empty-file" 2 "$CT" $cmd -i "$D/empty.data"
		expect_error "bad/$cmd/text-file" 2 "$CT" $cmd -i "$D/text.data"
		expect_error "bad/$cmd/random-bytes" 2 "$CT" $cmd -i "$D/random.data"
		expect_error "bad/$cmd/unknown-option" 2 "$CT" $cmd --no-such-option
		(cd "$D/empty-cwd" && expect_error "bad/$cmd/no-trace-in-cwd" 2 "$CT" $cmd) >"$D/sub.out"
		cat "$D/sub.out"
		if grep -q '^ok ' "$D/sub.out"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
		expect_help "bad/$cmd/help" "$CT" $cmd --help
		[ -n "$good" ] || continue
		expect_error "bad/$cmd/flipped-byte" 2 "$CT" $cmd -i "$D/corrupt.data"
		extra=()
		[ $cmd = report ] && extra=(--json)
		for torn in torn-last-block torn-mid-file; do
			expect_torn "bad/$cmd/$torn" "$CT" $cmd -i "$D/$torn.data" "${extra[@]}" || continue
			if [ $cmd = replay ] && [ -n "$good_tree" ]; then
				# Every call before the tear is shown: the normalised tree (marks
				# aside: frames open at the tear may show as unfinished) is a
				# beginning of the whole trace's; both must read.
				cp "$D/out" "$D/$torn.replay"
				if ! timeout -k 5 "$T_READ" "$PY" "$LIB/ctcheck.py" tree "$D/$torn.replay" \
					>"$D/$torn.tree" 2>"$D/$torn.tree.err"; then
					cat "$D/$torn.tree" >>"$D/$torn.tree.err"
					bad "bad/replay/$torn-shows-calls-before-tear" \
						"the replay of the torn trace does not read (tests/lib/ctcheck.py tree)" "$D/$torn.tree.err"
					continue
				fi
				sed -i 's/ \[[a-z ]*\]$//' "$D/$torn.tree"
				n=$(wc -l <"$D/$torn.tree")
				if [ "$n" -gt 0 ] && head -n "$n" "$D/good.tree" | cmp -s - "$D/$torn.tree"; then
					ok "bad/replay/$torn-shows-calls-before-tear"
				else
					diff "$D/good.tree" "$D/$torn.tree" | head -n 20 >"$D/torn.diff"
					bad "bad/replay/$torn-shows-calls-before-tear" \
						"the calls shown for the torn trace are not those of the whole trace up to the tear ($n lines)" \
						"$D/torn.diff"
				fi
			elif [ $cmd = report ]; then
				if timeout -k 5 "$T_READ" "$PY" "$LIB/ctcheck.py" check-report "$D/out" >"$D/check.out" 2>&1; then
					ok "bad/report/$torn-json"
				else
					bad "bad/report/$torn-json" "$(head -n1 "$D/check.out")"
				fi
			fi
		done
	done

	expect_help bad/help "$CT" --help
	expect_help bad/record/help "$CT" record --help
	expect_error bad/unknown-command 2 "$CT" no-such-command
	expect_error bad/record/unknown-option 2 "$CT" record --no-such-option -o "$D/x.data" -- /bin/true
	expect_error bad/record/no-program 2 "$CT" record -o "$D/x.data"
	expect_error bad/record/program-not-found 127 "$CT" record -o "$D/x.data" -- "$D/no-such-program"
	expect_error bad/record/program-not-in-path 127 "$CT" record -o "$D/x.data" -- no-such-program-in-path-ct
	printf '#!/bin/sh\nexit 0\n' >"$D/not-executable"
	chmod 644 "$D/not-executable"
	expect_error bad/record/program-not-executable 126 "$CT" record -o "$D/x.data" -- "$D/not-executable"

	# The program's exit status comes through, instrumented or not.
	for spec in "7:exit 7" "143:kill -TERM \$\$"; do
		want=${spec%%:*}
		timeout -k 5 "$T_READ" "$CT" record -o "$D/sh.data" -- /bin/sh -c "${spec#*:}" >"$D/out" 2>"$D/err" </dev/null
		st=$?
		if [ $st = "$want" ]; then
			ok "bad/record/uninstrumented-status-$want"
		else
			bad "bad/record/uninstrumented-status-$want" "record of sh -c '${spec#*:}' exits $st, expected $want" "$D/err"
		fi
	done

	# An unwritable output: reported before the program starts.
	rm -f "$D/marker"
	expect_error bad/record/unwritable-output nonzero "$CT" record -o /nonexistent-dir/x.data -- touch "$D/marker"
	if [ -e "$D/marker" ]; then
		bad bad/record/unwritable-output-program-not-run "the program ran although the output could not be written"
	else
		ok bad/record/unwritable-output-program-not-run
	fi
	rm -f "$D/marker"
	mkdir -p "$D/a-directory"
	expect_error bad/record/output-is-a-directory nonzero "$CT" record -o "$D/a-directory" -- touch "$D/marker"
	if [ -e "$D/marker" ]; then
		bad bad/record/output-is-a-directory-program-not-run "the program ran although the output could not be written"
	else
		ok bad/record/output-is-a-directory-program-not-run
	fi

	# Without -o and -i, record and the readers agree on a file in the cwd.
	if [ -n "$src_prog" ]; then
		rm -rf "$D/default" && mkdir -p "$D/default"
		(cd "$D/default" && timeout -k 5 120 "$CT" record -- "$src_prog" >/dev/null 2>"$D/err")
		st=$?
		files=$(cd "$D/default" && ls -A)
		if [ $st != 0 ] || [ "$(echo "$files" | grep -c .)" != 1 ]; then
			bad bad/record/default-output "record without -o: status $st, files made in the cwd: ${files:-none}" "$D/err"
		elif ! (cd "$D/default" && timeout -k 5 "$T_READ" "$CT" replay >"$D/out" 2>"$D/err"); then
			bad bad/record/default-output "replay without -i does not read the trace record made in the cwd ($files)" "$D/err"
		elif ! (cd "$D/default" && timeout -k 5 "$T_READ" "$CT" replay -i "$files" 2>/dev/null | cmp -s - "$D/out"); then
			bad bad/record/default-output "replay without -i differs from replay -i $files"
		else
			ok bad/record/default-output
		fi
	fi
	cd "$ROOT" || exit 2
fi

# ---- sub-suites: tests/faults.sh, tests/NAME/run.sh for every NAME, tests/unit ----
# (faults: kills, crashes, full disk, full pool, ring; filters; export; flame ...)
# Each prints ok/FAIL lines, shown as they come and counted here, and last its
# closing line `N passed, N failed`. With a REGEX, a sub-suite runs only if its
# name matches (tests/run.sh faults: that one alone). SUITE_JOBS of them run at
# a time (most of them wait more than they compute), the longest of the last
# run first ($OUT/suites.times); their lines then interleave, each named.
CLOSING='^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$'
SUITE_JOBS=${SUITE_JOBS:-2}
# run_suite NAME SCRIPT (in the background): the sub-suite, its lines shown as
# they come; "STATUS SECONDS" in $OUT/NAME.st when it ends.
run_suite() {
	local name=$1 script=$2 so=$OUT/$1.out st pid hb start=$SECONDS
	# A sub-suite that hangs must not hang the whole run: it is stopped after
	# T_SUITE seconds, and what it printed so far still counts. Its output goes
	# to a file (a process it leaves behind cannot hold the run's pipe), which
	# tail follows until the sub-suite ends (made empty first: tail must find it,
	# and not show the last run's).
	: >"$so"
	(cd "$ROOT" && OUT=$OUT CT=$CT PY=$PY BUILD=$BUILD CALLTRACE=$CT TEST_OUT=$OUT \
		exec timeout -k 10 "$T_SUITE" bash "$script") >>"$so" 2>&1 </dev/null &
	pid=$!
	heartbeat "$name" "$so" &
	hb=$!
	tail -n +1 -s 0.5 --pid="$pid" -f "$so" | grep -Ev --line-buffered "$CLOSING"
	wait "$pid"
	st=$?
	kill "$hb" 2>/dev/null
	wait "$hb" 2>/dev/null
	echo "$st $((SECONDS - start))" >"$OUT/$name.st"
}
# end_suite NAME SCRIPT: its lines counted, and how it ended checked
end_suite() {
	local name=$1 script=$2 so=$OUT/$1.out st=255 secs=0
	[ -s "$OUT/$name.st" ] && read -r st secs <"$OUT/$name.st"
	echo "# $name: $secs s"
	echo "$name $secs" >>"$OUT/suites.times.new"
	tally "$so"
	if [ "$st" = 124 ] || { [ "$st" = 137 ] && [ "$secs" -ge "$T_SUITE" ]; }; then
		bad "$name/finished" "stopped after ${T_SUITE} s (a hang)"
	elif ! tail -n 1 "$so" | grep -Eq "$CLOSING"; then
		tail -n 5 "$so" >"$so.tail"
		bad "$name/finished" "$script ended (status $st) without its closing line \"N passed, N failed\": it died part-way" \
			"$so.tail"
	elif [ "$st" != 0 ] && ! grep -q '^FAIL ' "$so"; then
		bad "$name" "$script exited with status $st" "$so"
	elif ! grep -q '^ok \|^FAIL ' "$so"; then
		bad "$name" "$script printed no ok/FAIL line" "$so"
	fi
}
suites=()
[ -z "$CT" ] || suites+=("faults tests/faults.sh")
for s in "$ROOT"/tests/*/run.sh; do
	d=$(basename "$(dirname "$s")")
	[ -n "$CT" ] || [ "$d" = unit ] || continue
	suites+=("$d tests/$d/run.sh")
done
# the longest first: by the last run's times, else those known to take a minute
order() {
	local line
	for line in "${suites[@]}"; do
		set -- $line
		selected "$1" || continue
		t=$(awk -v n="$1" '$1 == n { t = $2 } END { print t + 0 }' "$OUT/suites.times" 2>/dev/null)
		case " ptrace fuzz faults " in *" $1 "*) [ -s "$OUT/suites.times" ] || t=100 ;; esac
		echo "${t:-0} $1 $2"
	done | sort -s -k1,1 -rn | cut -d' ' -f2-
}
: >"$OUT/suites.times.new"
declare -A running=()
while read -r name script; do
	rm -f "$OUT/$name.st"
	while [ ${#running[@]} -ge "$SUITE_JOBS" ]; do
		done_pid=
		wait -n -p done_pid "${!running[@]}"
		[ -n "$done_pid" ] && [ -n "${running[$done_pid]:-}" ] || continue
		end_suite ${running[$done_pid]}
		unset "running[$done_pid]"
	done
	run_suite "$name" "$script" &
	running[$!]="$name $script"
done < <(order)
for p in "${!running[@]}"; do
	wait "$p"
	end_suite ${running[$p]}
done
[ -s "$OUT/suites.times.new" ] && [ -z "$FILTER" ] && mv "$OUT/suites.times.new" "$OUT/suites.times"

if [ -n "$SAN_LOGS" ]; then
	if [ -z "$(ls -A "$SAN_LOGS")" ]; then
		ok sanitizer/clean
	else
		for f in "$SAN_LOGS"/*; do
			bad "sanitizer/clean" "a report in $f" "$f"
		done
	fi
fi
finish
