#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests of `calltrace export` (perfetto, chrome, folded). tests/run.sh runs
# it; alone:
#
#   tests/export/run.sh
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT), as for run.sh.
# Records tests/export/prog.c (a known call tree in two threads; its comment
# says which), exports it in each format and checks the files with
# tests/export/check.py, which decodes the Perfetto protobuf itself (protoc,
# if installed, must agree); feeds the exporters a made-up walk
# (tests/export/synth.c, linked with calltrace's objects) for the cases a
# recording does not give on demand; and checks the errors. Prints
# `ok export/...` or `FAIL export/...: REASON`, then `N passed, N failed`;
# exit status 0 iff nothing failed. Everything stays in $OUT/export/.
# No check depends on time.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) B=$BUILD ;;
*) B=$ROOT/$BUILD ;;
esac
OUT=${OUT:-${TEST_OUT:-$B/tests}}
CT=${CT:-${CALLTRACE:-$B/calltrace}}
PY=${PY:-$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)}
PY=${PY:-python3}
CC=${CC:-gcc}
E=$OUT/export
CHECK=$ROOT/tests/export/check.py
T=60 # hang guard of each command, in seconds

passed=0 failed=0
ok() {
	echo "ok export/$1"
	passed=$((passed + 1))
}
# bad NAME REASON [DETAILS-FILE]
bad() {
	echo "FAIL export/$1: $2"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		head -n 20 "$3" | sed 's/^/    /'
	fi
	failed=$((failed + 1))
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}
# check NAME ARGS...: check.py ARGS must hold
check() {
	local name=$1
	shift
	if "$PY" "$CHECK" "$@" >"$E/check.out" 2>&1; then
		ok "$name"
	else
		bad "$name" "$(head -n1 "$E/check.out")" "$E/check.out"
	fi
}
# export NAME ARGS...: calltrace export ARGS must exit 0 with nothing on stderr
# (progress is for terminals only); 0 if it did
run_export() {
	local name=$1
	shift
	timeout -k 5 $T "$CT" export "$@" >"$E/$name.stdout" 2>"$E/$name.stderr" </dev/null
	local st=$?
	if [ $st != 0 ]; then
		bad "$name" "calltrace export $* exits $st" "$E/$name.stderr"
		return 1
	elif [ -s "$E/$name.stderr" ]; then
		bad "$name" "calltrace export $* printed on stderr" "$E/$name.stderr"
		return 1
	fi
	return 0
}
# expect_error NAME CMD...: exit status 2, exactly one line on stderr "calltrace: ..."
expect_error() {
	local name=$1 st
	shift
	timeout -k 5 $T "$@" >"$E/err.stdout" 2>"$E/err.stderr" </dev/null
	st=$?
	if [ $st != 2 ]; then
		bad "$name" "exit status $st, expected 2" "$E/err.stderr"
	elif [ "$(wc -l <"$E/err.stderr")" != 1 ] || ! grep -q '^calltrace: ' "$E/err.stderr"; then
		bad "$name" "stderr is not exactly one line starting \"calltrace: \"" "$E/err.stderr"
	else
		ok "$name"
		return 0
	fi
	return 1
}

if ! [ -x "$CT" ]; then
	bad calltrace "$CT is missing: run make"
	finish
fi
rm -rf "$E"
mkdir -p "$E"

# ---- the recorded program ------------------------------------------------------------
if ! $CC -O2 -g -finstrument-functions -pthread -Wall -o "$E/prog" "$ROOT/tests/export/prog.c" 2>"$E/build.err"; then
	bad build "$CC could not build tests/export/prog.c" "$E/build.err"
	finish
fi
D=$E/prog.data
if ! timeout -k 5 $T "$CT" record -o "$D" -- "$E/prog" >/dev/null 2>"$E/record.err"; then
	bad record "calltrace record -o $D -- $E/prog failed" "$E/record.err"
	finish
fi
"$CT" report -i "$D" --json >"$E/report.json" 2>"$E/report.err" &&
	"$CT" replay -i "$D" >"$E/replay.txt" 2>>"$E/report.err" || {
	bad record "report or replay of $D failed" "$E/report.err"
	finish
}
ok record

# ---- each format -----------------------------------------------------------------------
if run_export perfetto -i "$D" --format perfetto -o "$E/prog.pftrace"; then
	check perfetto perfetto "$E/prog.pftrace" "$E/report.json" "$E/replay.txt" "$E/perfetto.counts"
	if command -v protoc >/dev/null; then
		check perfetto-decode protoc "$E/prog.pftrace"
	else
		bad perfetto-decode "protoc is missing (protobuf-compiler; scripts/install-deps.sh --test)"
	fi
fi
if run_export chrome -i "$D" --format chrome -o "$E/prog.json"; then
	check chrome chrome "$E/prog.json" "$E/report.json" "$E/replay.txt" "$E/chrome.counts"
fi
if [ -s "$E/perfetto.counts" ] && [ -s "$E/chrome.counts" ]; then
	check same-calls same-counts "$E/perfetto.counts" "$E/chrome.counts"
fi
run_export folded -i "$D" --format folded -o "$E/prog.folded" &&
	check folded folded "$E/prog.folded" "$E/report.json" time
run_export folded-calls -i "$D" --format folded --weight calls -o "$E/prog.calls.folded" &&
	check folded-calls folded "$E/prog.calls.folded" "$E/report.json" calls

# -o - writes the same bytes; without --format the -o file's extension says
for spec in perfetto:prog.pftrace chrome:prog.json folded:prog.folded; do
	f=${spec%%:*} file=$E/${spec#*:}
	[ -s "$file" ] || continue
	if run_export "$f-stdout" -i "$D" --format "$f" -o -; then
		if cmp -s "$E/$f-stdout.stdout" "$file"; then
			ok "$f-stdout"
		else
			bad "$f-stdout" "-o - differs from -o $file"
		fi
	fi
done
if run_export format-from-name -i "$D" -o "$E/by-name.json" && cmp -s "$E/by-name.json" "$E/prog.json"; then
	ok format-from-name
elif [ -e "$E/by-name.json" ]; then
	bad format-from-name "-o by-name.json without --format is not the chrome export"
fi
# without -o: calltrace.pftrace, calltrace.json, calltrace.folded in the working directory
mkdir -p "$E/cwd"
for f in perfetto chrome folded; do
	(cd "$E/cwd" && "$CT" export -i "$D" --format $f >/dev/null 2>&1)
done
got=$(cd "$E/cwd" && ls -A | tr '\n' ' ')
if [ "$got" = "calltrace.folded calltrace.json calltrace.pftrace " ]; then
	ok default-names
else
	bad default-names "files made in the working directory: ${got:-none}"
fi

# ---- filters pass through ----------------------------------------------------------------
run_export filter-F-folded -i "$D" --format folded -F work -o "$E/F.folded" &&
	check filter-F-folded roots folded "$E/F.folded" work
run_export filter-F-chrome -i "$D" --format chrome -F mid -o "$E/F.json" &&
	check filter-F-chrome roots chrome "$E/F.json" mid
run_export filter-F-perfetto -i "$D" --format perfetto -F work -o "$E/F.pftrace" &&
	check filter-F-perfetto roots perfetto "$E/F.pftrace" work
wtid=$(sed -n 's/^# thread \([0-9]*\), process.*/\1/p' "$E/replay.txt" | sed -n 2p)
if [ -n "$wtid" ]; then
	run_export filter-tid-chrome -i "$D" --format chrome --tid "$wtid" -o "$E/tid.json" &&
		check filter-tid-chrome tids chrome "$E/tid.json" "$wtid"
	run_export filter-tid-perfetto -i "$D" --format perfetto --tid "$wtid" -o "$E/tid.pftrace" &&
		check filter-tid-perfetto tids perfetto "$E/tid.pftrace" "$wtid"
else
	bad filter-tid "no second thread in $E/replay.txt"
fi

# ---- a crash: an instant event, frames left unfinished --------------------------------------
C=$E/crash.data
timeout -k 5 $T "$CT" record -o "$C" -- "$E/prog" crash >/dev/null 2>"$E/crash.err"
st=$?
if [ $st != 139 ]; then
	bad crash "calltrace record -- prog crash exits $st, expected 139" "$E/crash.err"
else
	run_export crash-chrome -i "$C" --format chrome -o "$E/crash.json" &&
		check crash-chrome crash chrome "$E/crash.json"
	run_export crash-perfetto -i "$C" --format perfetto -o "$E/crash.pftrace" &&
		check crash-perfetto crash perfetto "$E/crash.pftrace"
fi

# ---- a made-up walk: same-ns parent and child, odd names, marks, snapshots ----------------
# the objects of today's sources only: a build directory may keep those of removed files
objs=$(cd "$ROOT/src" && for s in output/export*.c output/out.c output/text.c output/stacks.c output/kernel_text.c output/syscalls.c output/marks.c output/fmt.c output/*values*.c common/proto.c; do
	[ -f "$B/obj/${s%.c}.o" ] && echo "$B/obj/${s%.c}.o"
done | tr '\n' ' ')
# shellcheck disable=SC2086 # CT_SAN_FLAGS: the sanitizers the objects were built with
if [ -n "$objs" ] && [ -f "$B/obj/util/util.o" ] &&
	$CC -std=gnu11 -D_GNU_SOURCE -Wall ${CT_SAN_FLAGS:-} -o "$E/synth" "$ROOT/tests/export/synth.c" $objs "$B/obj/util/util.o" 2>"$E/synth-build.err"; then
	for f in perfetto chrome folded calls; do
		if "$E/synth" $f "$E/synth.$f" 2>"$E/synth.err"; then
			check "synth-$f" synth $f "$E/synth.$f"
		else
			bad "synth-$f" "synth $f failed" "$E/synth.err"
		fi
	done
else
	bad synth "could not link tests/export/synth.c with $B/obj/output/export*.o" "$E/synth-build.err"
fi

# ---- errors: one line, status 2, nothing left behind ---------------------------------------
expect_error bad-missing-trace "$CT" export --format chrome -i "$E/no-such.data" -o "$E/x.json"
expect_error bad-format "$CT" export --format svg -i "$D" -o "$E/x.svg"
expect_error bad-no-format "$CT" export -i "$D" -o "$E/x.out"
expect_error bad-weight "$CT" export --format chrome --weight calls -i "$D" -o "$E/x.json"
expect_error bad-option "$CT" export --format chrome --no-such-option -i "$D"
expect_error bad-filter "$CT" export --format chrome -F '(' --regex -i "$D" -o "$E/x.json"
expect_error bad-unwritable "$CT" export --format chrome -i "$D" -o "$E/no-such-dir/x.json"
mkdir -p "$E/a-directory"
expect_error bad-output-is-a-directory "$CT" export --format chrome -i "$D" -o "$E/a-directory"
if [ -c /dev/full ]; then
	expect_error bad-write-error "$CT" export --format perfetto -i "$D" -o /dev/full
	[ -c /dev/full ] || bad bad-write-error "/dev/full is no longer a device"
fi
# a write that fails midway (the file size limit): no file, no FILE.tmp
(ulimit -f 1 && expect_error bad-file-too-large "$CT" export --format chrome -i "$D" -o "$E/big.json") >"$E/sub.out"
cat "$E/sub.out"
if grep -q '^ok ' "$E/sub.out"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
left=$(ls -A "$E" | grep -E '^(x\.|big\.json|a-directory\.tmp)' | tr '\n' ' ')
if [ -z "$left" ] && [ -z "$(ls -A "$E/a-directory")" ]; then
	ok bad-nothing-left
else
	bad bad-nothing-left "files left by failed exports: $left$(ls -A "$E/a-directory")"
fi
if timeout -k 5 $T "$CT" export --help >"$E/help.out" 2>&1 && grep -q perfetto "$E/help.out"; then
	ok help
else
	bad help "calltrace export --help" "$E/help.out"
fi

finish
