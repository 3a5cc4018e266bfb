#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# calltrace's fault scenarios: the traced program killed (by itself, from
# outside), the recorder killed, a full disk, a full pool (lossless and
# lossy), the flight recorder (ring contents, snapshots, `calltrace
# snapshot`), crashes. tests/run.sh runs it; alone:
#
#   tests/faults.sh [REGEX]     REGEX selects scenarios by name (default: all):
#                               kill9-self kill9-outside recorder-killed
#                               disk-full pressure lossy lossy-kill9
#                               ring-tail ring-snapshots snapshot-command
#                               crash crash-lossy
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT) as for run.sh.
# The programs are tests/programs/scenarios/*.c, built here with gcc (and
# clang where it is cheap); each knows its own truth (see their comments).
# Checks are in tests/lib/faults.py. Prints `ok faults/...` or
# `FAIL faults/...: REASON` (details indented), then `N passed, N failed`;
# exit status 0 iff nothing failed. Everything stays in $OUT/faults/:
# bin/COMBO/ the programs, run/SCENARIO.COMBO/ the traces and outputs.
#
# No check depends on how fast things run: the sleeps only make sure the
# program is under way (or a snapshot had time to be taken) before the next
# step.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/lib/suite.sh"
suite faults
FILTER=${1:-}
F=$OUT/faults
SRC=$ROOT/tests/programs/scenarios
CHECK=$ROOT/tests/lib/faults.py
T=60 # hang guard of each command, in seconds
ulimit -c 0 # crash scenarios: no core dumps

# verdict NAME CONDITION-STATUS REASON [DETAILS-FILE]: ok if the status is 0.
verdict() {
	if [ "$2" = 0 ]; then ok "$1"; else bad "$1" "$3" "${4:-}"; fi
}
want() { [ -z "$FILTER" ] || [[ $1 =~ $FILTER ]]; }

if ! [ -x "$CT" ]; then
	bad calltrace "$CT is missing: run make"
	finish
fi
rm -rf "$F/run"
mkdir -p "$F/bin" "$F/run"

# ---- build -----------------------------------------------------------------------
# build PROG COMBO...: tests/programs/scenarios/PROG.c to $F/bin/COMBO/PROG, in
# the background; built() says whether it worked (after wait).
build() {
	local p=$1 c
	shift
	for c in "$@"; do
		mkdir -p "$F/bin/$c"
		rm -f "$F/bin/$c/$p"
		timeout 300 "${c%-*}" -g -finstrument-functions "-${c#*-}" -Wall -std=gnu11 -pthread \
			"-I$ROOT/tests/programs" "$SRC/$p.c" -o "$F/bin/$c/$p" >"$F/bin/$c/$p.log" 2>&1 &
	done
}
declare -A told # the builds already reported
built() {
	local st=0
	[ -x "$F/bin/$2/$1" ] || st=1
	if [ -z "${told[$1/$2]:-}" ]; then
		told[$1/$2]=1
		verdict "$1/$2/build" $st "${2%-*} -${2#*-} failed" "$F/bin/$2/$1.log"
	fi
	return $st
}
O2="gcc-O2 clang-O2"
O0="gcc-O0 clang-O0"
build kill9 $O2
build recorder_killed gcc-O2
build disk_full gcc-O2
build pressure $O2
build lossy_fib $O2
build ring_pattern $O2
build ring_snapshots gcc-O2
build crashes $O0 gcc-O2
build follow gcc-O2
# gprof's profiling timer needs -pg instead of -finstrument-functions
mkdir -p "$F/bin/gcc-O2-mcount"
timeout 300 gcc -pg -O2 -Wall -std=gnu11 "$SRC/prof_exec.c" -o "$F/bin/gcc-O2-mcount/prof_exec" \
	>"$F/bin/gcc-O2-mcount/prof_exec.log" 2>&1 &
wait

# ---- helpers -------------------------------------------------------------------------
# newdir NAME: a fresh $D for one scenario run.
newdir() {
	D=$F/run/$1
	rm -rf "$D"
	mkdir -p "$D"
}
# record_st NAME STATUS WANT [CMD]: the record check.
record_st() {
	if [ "$2" = "$3" ]; then
		ok "$1/record"
	else
		echo "command: ${4:-}" >>"$D/record.err"
		bad "$1/record" "calltrace record exits with status $2, expected $3 (trace: $D/trace.data)" "$D/record.err"
	fi
}
# keep_head FILE: the first $KEEP bytes of stdin (all if KEEP is empty) to
# FILE, the rest read and dropped (replays of millions of calls are big).
keep_head() {
	if [ -z "${KEEP:-}" ]; then
		cat >"$1"
	else
		head -c "$KEEP" >"$1"
		cat >/dev/null
	fi
}
KEEP=4000000
# read_all NAME TRACE [warn]: info, replay, report (text and --json) exit 0
# (and, with warn, say something on stderr starting "calltrace: "); their
# outputs go to $D/info.txt replay.txt (the first $KEEP bytes) report.txt
# report.json (*.err).
read_all() {
	local name=$1 trace=$2 warn=${3:-} cmd st
	for cmd in info replay report report-json; do
		case $cmd in
		report-json) timeout -k 5 $T "$CT" report --json -i "$trace" >"$D/report.json" 2>"$D/report-json.err" ;;
		replay)
			timeout -k 5 $T "$CT" replay -i "$trace" 2>"$D/replay.err" | keep_head "$D/replay.txt"
			(exit "${PIPESTATUS[0]}")
			;;
		*) timeout -k 5 $T "$CT" $cmd -i "$trace" >"$D/$cmd.txt" 2>"$D/$cmd.err" ;;
		esac
		st=$?
		if [ $st != 0 ]; then
			bad "$name/$cmd" "calltrace ${cmd/-json/ --json} -i $trace exits with status $st, expected 0" "$D/$cmd.err"
		elif [ -n "$warn" ] && ! head -n1 "$D/$cmd.err" | grep -q '^calltrace: '; then
			bad "$name/$cmd" "calltrace ${cmd/-json/ --json} -i $trace: no warning on stderr starting \"calltrace: \""
		elif [ $cmd = report-json ] && ! "$PY" "$ROOT/tests/lib/ctcheck.py" check-report "$D/report.json" >"$D/check.out" 2>&1; then
			bad "$name/$cmd" "$(head -n1 "$D/check.out")"
		else
			ok "$name/$cmd"
		fi
	done
}
# check NAME faults.py-ARGS...: one test from a faults.py check.
check() {
	local name=$1
	shift
	"$PY" "$CHECK" "$@" >"$D/check.out" 2>&1
	local st=$?
	tail -n +2 "$D/check.out" >"$D/check.details"
	verdict "$name" $st "$(head -n1 "$D/check.out") (in $D)" "$D/check.details"
}
# wait_file PATH PID SECONDS: until PATH is non-empty (0), PID is gone or
# the time is up (1).
wait_file() {
	local i
	for ((i = 0; i < $3 * 50; i++)); do
		[ -s "$1" ] && return 0
		kill -0 "$2" 2>/dev/null || { [ -s "$1" ]; return; }
		sleep 0.02
	done
	return 1
}
# alive PID: the process exists and is not a zombie.
alive() {
	[ -e "/proc/$1/stat" ] && ! grep -q '^[0-9]* ([^)]*) Z' "/proc/$1/stat" 2>/dev/null
}
# one_line FILE: exactly one line, starting "calltrace: ".
one_line() {
	[ "$(wc -l <"$1")" = 1 ] && head -n1 "$1" | grep -q '^calltrace: '
}

# ---- 1. SIGKILL salvage: the program kills itself --------------------------------------
# Main and 3 workers count their calls in a shared file; main kills the
# process while the workers run. Every event written is in the trace.
if want kill9-self; then
	for c in $O2; do
		built kill9 $c || continue
		n=kill9-self/$c
		newdir kill9-self.$c
		CT_COUNTS=$D/counts timeout -k 5 $T "$CT" record -o "$D/trace.data" -- \
			"$F/bin/$c/kill9" self >"$D/record.out" 2>"$D/record.err"
		record_st $n $? 137 "CT_COUNTS=$D/counts $CT record -o $D/trace.data -- $F/bin/$c/kill9 self"
		read_all $n "$D/trace.data"
		grep -q '^exit: *killed by signal 9$' "$D/info.txt"
		verdict $n/info-exit $? "info does not say \"exit:       killed by signal 9\"" "$D/info.txt"
		check $n/counts shared-counts "$D/report.json" "$D/counts" --exact-main
	done
fi

# ---- 2. SIGKILL from outside -------------------------------------------------------------
if want kill9-outside && built kill9 gcc-O2; then
	n=kill9-outside/gcc-O2
	newdir kill9-outside.gcc-O2
	CT_COUNTS=$D/counts CT_PIDFILE=$D/pid timeout -k 5 $T "$CT" record -o "$D/trace.data" -- \
		"$F/bin/gcc-O2/kill9" outside >"$D/record.out" 2>"$D/record.err" &
	bg=$!
	if wait_file "$D/pid" $bg 20; then
		sleep 0.2
		kill -KILL "$(cat "$D/pid")"
	else
		bad $n/started "the program wrote no pid to $D/pid within 20 s"
	fi
	wait $bg
	record_st $n $? 137 "CT_COUNTS=$D/counts CT_PIDFILE=$D/pid $CT record -o $D/trace.data -- $F/bin/gcc-O2/kill9 outside; kill -9 \$(cat $D/pid)"
	read_all $n "$D/trace.data"
	check $n/counts shared-counts "$D/report.json" "$D/counts"
fi

# ---- 3. The recorder killed ---------------------------------------------------------------
# The program goes on untraced to its normal end; the trace reads back to its
# last whole block, with a warning.
if want recorder-killed && built recorder_killed gcc-O2; then
	n=recorder-killed/gcc-O2
	newdir recorder-killed.gcc-O2
	CT_TRUTH=$D/truth CT_DONE=$D/done CT_PIDFILE=$D/pid "$CT" record -o "$D/trace.data" -- \
		"$F/bin/gcc-O2/recorder_killed" >"$D/record.out" 2>"$D/record.err" &
	ctpid=$!
	if wait_file "$D/pid" $ctpid 20; then
		sleep 0.3
		kill -KILL $ctpid
		wait $ctpid 2>/dev/null
		prog=$(cat "$D/pid")
		# It runs for about 1.5 s: give it much longer.
		for ((i = 0; i < 1000; i++)); do
			alive "$prog" || break
			sleep 0.02
		done
		if alive "$prog"; then
			bad $n/program-ends "the program (pid $prog) still runs 20 s after its recorder was killed (killed now)"
			kill -KILL "$prog" 2>/dev/null
		elif [ "$(cat "$D/done" 2>/dev/null)" = "done $(sed -n 's/^step \([0-9]*\) .*/\1/p' "$D/truth" 2>/dev/null)" ]; then
			ok $n/program-ends
		else
			{ echo "done file:"; cat "$D/done"; echo "truth file:"; cat "$D/truth"; } >"$D/done.details" 2>&1
			bad $n/program-ends "the program did not reach its normal end with the right counts" "$D/done.details"
		fi
		read_all $n "$D/trace.data" warn
		check $n/counts at-most "$D/report.json" "$D/truth"
	else
		kill -KILL $ctpid 2>/dev/null
		wait $ctpid 2>/dev/null
		bad $n/started "the program wrote no pid to $D/pid within 20 s" "$D/record.err"
	fi
fi

# ---- 4. Disk full ---------------------------------------------------------------------------
# A 1 MiB tmpfs for a ~12 MB trace: one error line, the program goes on,
# calltrace exits with its status, what was written is readable.
if want disk-full && built disk_full gcc-O2; then
	n=disk-full/gcc-O2
	newdir disk-full.gcc-O2
	MNT=$D/mnt
	mkdir -p "$MNT"
	# mounting needs root with CAP_SYS_ADMIN (bit 21 of CapEff): without them, a skip
	if [ "$(id -u)" != 0 ] || ! (($(sed -n 's/^CapEff:[[:space:]]*/0x/p' /proc/self/status) & (1 << 21))); then
		skip disk-full "not root with CAP_SYS_ADMIN: cannot mount a 1 MiB tmpfs"
	elif ! mount -t tmpfs -o size=1m tmpfs "$MNT" 2>"$D/mount.err"; then
		bad disk-full "root with CAP_SYS_ADMIN, but the 1 MiB tmpfs cannot be mounted on $MNT" "$D/mount.err"
	else
		trap 'umount "$MNT" 2>/dev/null' EXIT
		CT_DONE=$D/done.native timeout -k 5 $T "$F/bin/gcc-O2/disk_full" >/dev/null 2>&1
		st=$?
		verdict $n/native "$([ $st = 23 ] && [ -s "$D/done.native" ]; echo $?)" \
			"the program alone exits with status $st (expected 23) or wrote no $D/done.native"
		CT_DONE=$D/done timeout -k 5 $T "$CT" record -o "$MNT/trace.data" -- \
			"$F/bin/gcc-O2/disk_full" >"$D/record.out" 2>"$D/record.err"
		record_st $n $? 23 "$CT record -o $MNT/trace.data -- $F/bin/gcc-O2/disk_full  (on a 1 MiB tmpfs)"
		if cmp -s "$D/done" "$D/done.native"; then
			ok $n/program-ends
		else
			{ echo "traced:"; cat "$D/done"; echo "alone:"; cat "$D/done.native"; } >"$D/done.details" 2>&1
			bad $n/program-ends "the traced program did not reach its normal end with the same result as alone" "$D/done.details"
		fi
		if one_line "$D/record.err" && grep -q 'No space left on device' "$D/record.err"; then
			ok $n/one-error-line
		else
			bad $n/one-error-line "record's stderr is not exactly one line \"calltrace: ...No space left on device...\"" "$D/record.err"
		fi
		read_all $n "$MNT/trace.data"
		umount "$MNT" 2>/dev/null
		trap - EXIT
	fi
fi

# ---- 5. Back-pressure: a tiny pool, lossless ------------------------------------------------
if want pressure; then
	for c in $O2; do
		built pressure $c || continue
		n=pressure/$c
		newdir pressure.$c
		CT_TRUTH=$D/truth timeout -k 5 $T "$CT" record -b 256K --chunk-size 4K -o "$D/trace.data" -- \
			"$F/bin/$c/pressure" >"$D/record.out" 2>"$D/record.err"
		record_st $n $? 0 "$CT record -b 256K --chunk-size 4K -o $D/trace.data -- $F/bin/$c/pressure"
		read_all $n "$D/trace.data"
		grep -q '^lost: *0 events (complete)$' "$D/info.txt"
		verdict $n/complete $? "info does not say \"lost:       0 events (complete)\"" "$D/info.txt"
		grep -q '^threads: *9$' "$D/info.txt"
		verdict $n/threads $? "info does not list 9 threads" "$D/info.txt"
		"$PY" "$ROOT/tests/lib/ctcheck.py" check-counts "$D/report.json" "$D/truth" >"$D/check.out" 2>&1
		st=$?
		tail -n +2 "$D/check.out" >"$D/check.details"
		verdict $n/counts $st "$(head -n1 "$D/check.out")" "$D/check.details"
	done
fi

# ---- 6. Lossy: events dropped, and counted exactly ------------------------------------------
if want lossy; then
	for c in $O2; do
		built lossy_fib $c || continue
		n=lossy/$c
		newdir lossy.$c
		# The recorder cannot keep up with a 256K pool; should it, by luck, try again.
		for attempt in 1 2 3; do
			rm -f "$D/truth"
			CT_TRUTH=$D/truth timeout -k 5 $T "$CT" record --lossy -b 256K --chunk-size 4K -o "$D/trace.data" -- \
				"$F/bin/$c/lossy_fib" >"$D/record.out" 2>"$D/record.err"
			st=$?
			[ $st = 0 ] || break
			"$CT" info -i "$D/trace.data" 2>/dev/null | grep -q '^lost: *[1-9][0-9,]* events\( (.*)\)\?$' && break
		done
		record_st $n $st 0 "$CT record --lossy -b 256K --chunk-size 4K -o $D/trace.data -- $F/bin/$c/lossy_fib"
		KEEP= read_all $n "$D/trace.data" # the whole replay, for its lost lines
		check $n/exact lossy "$D/info.txt" "$D/replay.txt" "$D/report.txt" "$D/truth"
		if one_line "$D/report-json.err" && grep -q '^calltrace: warning: .*events lost in thread' "$D/report-json.err"; then
			ok $n/report-json-warning
		else
			bad $n/report-json-warning "report --json: stderr is not one line \"calltrace: warning: N events lost in thread ...\"" "$D/report-json.err"
		fi
	done
fi

# ---- 6b. Lossy and killed: the lost events are still counted ---------------------------------
# kill9 self in lossy mode with a tiny pool: threads are dropping events when
# main kills the process; recorded + lost must still be the program's events.
if want lossy-kill9 && built kill9 gcc-O2; then
	n=lossy-kill9/gcc-O2
	newdir lossy-kill9.gcc-O2
	CT_COUNTS=$D/counts timeout -k 5 $T "$CT" record --lossy -b 256K --chunk-size 4K -o "$D/trace.data" -- \
		"$F/bin/gcc-O2/kill9" self >"$D/record.out" 2>"$D/record.err"
	record_st $n $? 137 "CT_COUNTS=$D/counts $CT record --lossy -b 256K --chunk-size 4K -o $D/trace.data -- $F/bin/gcc-O2/kill9 self"
	read_all $n "$D/trace.data"
	check $n/exact lossy-killed "$D/info.txt" "$D/counts"
	check $n/lost-per-thread lost-per-thread "$D/info.txt"
fi

# ---- 7. The ring keeps exactly the newest events -------------------------------------------
if want ring-tail; then
	for c in $O2; do
		built ring_pattern $c || continue
		n=ring-tail/$c
		newdir ring-tail.$c
		timeout -k 5 $T "$CT" record -o "$D/full.data" -- "$F/bin/$c/ring_pattern" >"$D/full.out" 2>"$D/full.err"
		st=$?
		verdict $n/record-full $st "calltrace record exits with status $st" "$D/full.err"
		timeout -k 5 $T "$CT" record --ring 64K --chunk-size 16K -o "$D/trace.data" -- \
			"$F/bin/$c/ring_pattern" >"$D/record.out" 2>"$D/record.err"
		record_st $n $? 0 "$CT record --ring 64K --chunk-size 16K -o $D/trace.data -- $F/bin/$c/ring_pattern"
		read_all $n "$D/trace.data"
		timeout -k 5 $T "$CT" dump -i "$D/full.data" >"$D/full.dump" 2>"$D/full-dump.err" &&
			timeout -k 5 $T "$CT" dump -i "$D/trace.data" >"$D/ring.dump" 2>"$D/dump.err"
		verdict $n/dump $? "calltrace dump failed" "$D/dump.err"
		# 4 chunks of 1024 records: at least 3 whole ones kept.
		check $n/newest ring-tail "$D/full.dump" "$D/ring.dump" "$D/info.txt" 3072
	done
fi

# ---- 8. Snapshots: SIGUSR2 raised by the program, and `calltrace snapshot PID` ---------------
if want ring-snapshots && built ring_snapshots gcc-O2; then
	n=ring-snapshots/gcc-O2
	newdir ring-snapshots.gcc-O2
	timeout -k 5 $T "$CT" record --ring 64K --chunk-size 16K -o "$D/trace.data" -- \
		"$F/bin/gcc-O2/ring_snapshots" raise >"$D/record.out" 2>"$D/record.err"
	record_st $n $? 0 "$CT record --ring 64K --chunk-size 16K -o $D/trace.data -- $F/bin/gcc-O2/ring_snapshots raise"
	read_all $n "$D/trace.data"
	timeout -k 5 $T "$CT" dump -i "$D/trace.data" >"$D/dump.txt" 2>"$D/dump.err"
	verdict $n/dump $? "calltrace dump failed" "$D/dump.err"
	check $n/last-calls snapshots "$D/dump.txt" "$D/info.txt" phase_1 phase_2 phase_3 finish
	[ "$(grep -c '^# thread .*, snapshot [1-4]$' "$D/replay.txt")" = 4 ]
	verdict $n/replay-headers $? "replay has not 4 thread headers ending \", snapshot N\" (N = 1 to 4)" "$D/replay.txt"
fi

if want snapshot-command && built ring_snapshots gcc-O2; then
	n=snapshot-command/gcc-O2
	newdir snapshot-command.gcc-O2
	CT_PIDFILE=$D/pid CT_RELEASE=$D/release timeout -k 5 $T "$CT" record --ring 64K --chunk-size 16K \
		-o "$D/trace.data" -- "$F/bin/gcc-O2/ring_snapshots" wait >"$D/record.out" 2>"$D/record.err" &
	bg=$!
	if wait_file "$D/pid" $bg 20; then
		timeout -k 5 $T "$CT" snapshot "$(cat "$D/pid")" >"$D/snapshot.out" 2>"$D/snapshot.err"
		st=$?
		verdict $n/snapshot $st "calltrace snapshot $(cat "$D/pid") exits with status $st, expected 0" "$D/snapshot.err"
		sleep 0.3 # the recorder copies the ring while the program waits
	else
		bad $n/started "the program wrote no pid to $D/pid within 20 s" "$D/record.err"
	fi
	touch "$D/release"
	wait $bg
	record_st $n $? 0 "$CT record --ring 64K --chunk-size 16K -o $D/trace.data -- $F/bin/gcc-O2/ring_snapshots wait"
	read_all $n "$D/trace.data"
	timeout -k 5 $T "$CT" dump -i "$D/trace.data" >"$D/dump.txt" 2>"$D/dump.err"
	check $n/last-calls snapshots "$D/dump.txt" "$D/info.txt" phase_1 phase_2

	# Errors: exit 2 and one line "calltrace: ...".
	# expect_error NAME CMD...
	expect_error() {
		local name=$1 st
		shift
		timeout -k 5 $T "$@" >"$D/err.out" 2>"$D/err.err" </dev/null
		st=$?
		if [ $st != 2 ]; then
			bad "$name" "$* exits with status $st, expected 2" "$D/err.err"
		elif ! one_line "$D/err.err"; then
			bad "$name" "$*: stderr is not exactly one line starting \"calltrace: \"" "$D/err.err"
		else
			ok "$name"
		fi
	}
	sleep 0 &
	gone=$!
	wait $gone
	expect_error snapshot-command/no-process "$CT" snapshot $gone
	sleep 30 &
	untraced=$!
	expect_error snapshot-command/untraced-process "$CT" snapshot $untraced
	kill $untraced
	wait $untraced 2>/dev/null
	rm -f "$D/pid" "$D/release"
	CT_PIDFILE=$D/pid CT_RELEASE=$D/release timeout -k 5 $T "$CT" record -o "$D/full.data" -- \
		"$F/bin/gcc-O2/ring_snapshots" wait >"$D/full.out" 2>"$D/full.err" &
	bg=$!
	if wait_file "$D/pid" $bg 20; then
		expect_error snapshot-command/not-a-ring "$CT" snapshot "$(cat "$D/pid")"
	else
		bad snapshot-command/not-a-ring "the program wrote no pid to $D/pid within 20 s" "$D/full.err"
	fi
	touch "$D/release"
	wait $bg
	st=$?
	verdict snapshot-command/not-a-ring-record $st "the recording (in full) snapshot was asked of exits with status $st, expected 0" "$D/full.err"
fi

# ---- 9, 10. Crashes ------------------------------------------------------------------------------
# mode:status:signal:where the crash is (empty: anywhere, e.g. in libc):calls open (outermost first)
if want crash; then
	for c in $O0; do
		built crashes $c || continue
		for spec in segv:139:SIGSEGV:bad+0x:main,mid,bad \
			abort:134:SIGABRT::main,mid,bail \
			fpe:136:SIGFPE:divide+0x:main,mid,divide \
			bus:135:SIGBUS:touch+0x:main,mid,touch \
			ill:132:SIGILL:trap_here+0x:main,mid,trap_here \
			thread:139:SIGSEGV:w_bad+0x:worker,w_mid,w_bad \
			handler:3:::; do
			IFS=: read -r mode status sig where chain <<<"$spec"
			n=crash/$mode/$c
			newdir crash-$mode.$c
			CT_TIDFILE=$D/tid CT_MARKER=$D/marker CT_TMPDIR=$D timeout -k 5 $T "$CT" record -o "$D/trace.data" -- \
				"$F/bin/$c/crashes" $mode >"$D/record.out" 2>"$D/record.err"
			record_st $n $? $status "$CT record -o $D/trace.data -- $F/bin/$c/crashes $mode"
			read_all $n "$D/trace.data"
			if [ $mode = handler ]; then
				# The program's own handler runs; calltrace records no crash.
				[ "$(cat "$D/marker" 2>/dev/null)" = handled ]
				verdict $n/own-handler $? "the program's SIGSEGV handler did not write \"handled\" to $D/marker"
				! grep -q '^crashed:' "$D/info.txt" && grep -q '^exit: *status 3$' "$D/info.txt"
				verdict $n/no-crash $? "info has a \"crashed:\" line, or no \"exit:       status 3\"" "$D/info.txt"
				continue
			fi
			read -r tid pid <"$D/tid" 2>/dev/null || { tid=? pid=?; }
			if [ $mode = thread ] && [ "$tid" = "$pid" ]; then
				bad $n/worker-tid "the worker's tid is its pid ($tid)?"
			fi
			case $sig in
			SIGSEGV | SIGBUS) addr=', address 0x[0-9a-f]+' ;;
			SIGILL) addr='(, address 0x[0-9a-f]+)?' ;;
			*) addr='' ;;
			esac
			if [ -n "$where" ]; then loc="${where//+/\\+}[0-9a-f]+"; else loc='[^ ,]+'; fi
			loc="$loc( \\([^)]*\\))?" # file:line, with -g
			re="^crashed: +thread $tid \\(pid $pid\\) of $sig at $loc$addr\$"
			[ "$(grep -c '^crashed:' "$D/info.txt")" = 1 ] && grep -Eq "$re" "$D/info.txt" &&
				grep -q "^exit: *killed by signal $((status - 128))\$" "$D/info.txt"
			verdict $n/crashed "$?" "info has not exactly one line matching /$re/ (and \"exit: killed by signal $((status - 128))\")" "$D/info.txt"
			check $n/replay-crash crash "$D/replay.txt" "$tid" $sig "$where" $chain
			"$PY" "$ROOT/tests/lib/ctcheck.py" tree "$D/replay.txt" >"$D/tree.txt" 2>&1
			verdict $n/replay-format $? "the replay does not follow the format (tests/lib/ctcheck.py)" "$D/tree.txt"
		done
	done
fi

# ---- 9b. A crash while events are being dropped (lossy mode, pool full) ------------------------
# 3 threads keep the pool full while main crashes: the crash must be told
# all the same. Whether main is dropping events at that moment depends on
# timing (about 1 run in 4): 24 runs, each must have its "crashed:" line.
if want crash-lossy && built crashes gcc-O2; then
	n=crash-lossy/gcc-O2
	problems=0
	for i in $(seq 1 24); do
		newdir crash-lossy.gcc-O2
		CT_TIDFILE=$D/tid timeout -k 5 $T "$CT" record --lossy -b 256K --chunk-size 4K -o "$D/trace.data" -- \
			"$F/bin/gcc-O2/crashes" lossy >"$D/record.out" 2>"$D/record.err"
		st=$?
		timeout -k 5 $T "$CT" info -i "$D/trace.data" >"$D/info.txt" 2>"$D/info.err"
		read -r tid pid <"$D/tid" 2>/dev/null || { tid=? pid=?; }
		if [ $st != 139 ]; then
			bad $n/crash-told "run $i: calltrace record exits with status $st, expected 139" "$D/record.err"
			problems=1
			break
		elif ! grep -Eq "^crashed: +thread $tid \(pid $pid\) of SIGSEGV at bad\+0x[0-9a-f]+( \([^)]*\))?, address 0x0\$" "$D/info.txt"; then
			grep -E '^(exit|crashed|lost|records|  tid)' "$D/info.txt" >"$D/info.details"
			bad $n/crash-told "run $i of 24: no \"crashed:    thread $tid (pid $pid) of SIGSEGV at bad+...\" line in info (the program died of it; trace: $D/trace.data)" "$D/info.details"
			problems=1
			break
		fi
	done
	[ $problems = 1 ] || ok $n/crash-told
fi

# ---- 10. --no-follow: only the program started -----------------------------------------------
if want no-follow && built follow gcc-O2; then
	for mode in follow no-follow; do
		n=$mode/gcc-O2
		newdir $mode.gcc-O2
		opt=()
		[ $mode = no-follow ] && opt=(--no-follow)
		timeout -k 5 $T "$CT" record "${opt[@]}" -o "$D/trace.data" -- "$F/bin/gcc-O2/follow" \
			>"$D/record.out" 2>"$D/record.err"
		record_st $n $? 0 "$CT record ${opt[*]} -o $D/trace.data -- $F/bin/gcc-O2/follow"
		read_all $n "$D/trace.data"
		want_procs=2 want_calls=1
		[ $mode = no-follow ] && want_procs=1 want_calls=0
		grep -q "^processes: *$want_procs ($want_procs traced, 0 ran no traced code)\$" "$D/info.txt"
		verdict $n/processes $? "info does not say \"processes:  $want_procs\"" "$D/info.txt"
		[ "$(grep -c 'child_work();' "$D/replay.txt")" = $want_calls ]
		verdict $n/child-calls $? "replay does not show child_work() $want_calls time(s)" "$D/replay.txt"
	done
fi

# ---- 12. gprof's timer across exec ---------------------------------------------------------
# ITIMER_PROF outlives exec and SIGPROF kills a new image that has no handler
# yet: our start-up must not widen that window (4 chains of 40 execs at once,
# which killed 2 in 3 before the timer was paused across our start-up), and
# the timer must reach the program armed, our variable gone.
if want prof-timer && built prof_exec gcc-O2-mcount; then
	for i in 1 2 3 4; do
		newdir prof-timer.$i
		(cd "$D" && timeout -k 5 $T "$CT" record -o trace.data -- "$F/bin/gcc-O2-mcount/prof_exec" 40 \
			>record.out 2>record.err; echo $? >status) &
	done
	wait
	for i in 1 2 3 4; do
		D=$F/run/prof-timer.$i
		record_st prof-timer/chain$i "$(cat "$D/status")" 0 "$CT record -o trace.data -- prof_exec 40"
	done
fi

finish
