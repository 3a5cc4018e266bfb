#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# calltrace flame's tests. tests/run.sh runs them; alone:
#
#   tests/flame/run.sh
#
# - known.c (a known call tree, three threads) recorded, then its page: the
#   data embedded in the HTML parses, totals add up (children inside their
#   parent, the sum of self times is the root's total), calls per function
#   are `report --json`'s, the stacks are the known ones (merged, --per-thread,
#   -F); the page is self-contained, titles are escaped, -o - writes the same
#   page, errors are one line and exit 2, a failed write keeps the earlier page.
# - big.c: 111,150 distinct stacks (over 100,000).
# - Both pages in headless Chromium (browser.py, DevTools protocol over a pipe):
#   it renders, hover shows a tooltip, a click zooms, Escape and the root reset,
#   search highlights and gives the share, icicle mode, no console errors; for
#   the big page, what loading and drawing took (printed as `# ...`, not checked).
#   Without Chromium (Debian: apt-get install chromium): `FAIL flame/browser`;
#   with CHROMIUM=none, `ok flame/browser # SKIP`.
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT) as for tests/run.sh;
# CHROMIUM=path the browser (default: Debian's chromium, else one on PATH;
# CHROMIUM=none skips the browser tests).
# Prints `ok flame/...` or `FAIL flame/...: REASON` (details indented), then
# `N passed, N failed`; exit status 0 iff nothing failed. Everything stays in
# $OUT/flame/ (the pages, traces, outputs; shots/ has the browser's screenshots).
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
HERE=$ROOT/tests/flame
F=$OUT/flame
T=60 # hang guard of each command, in seconds

passed=0 failed=0
ok() {
	echo "ok flame/$1"
	passed=$((passed + 1))
}
# bad NAME REASON [DETAILS-FILE]
bad() {
	echo "FAIL flame/$1: $2"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		head -n 20 "$3" | sed 's/^/    /'
	fi
	failed=$((failed + 1))
}
# count the ok/FAIL lines of a checker's output file, and show them
tally() {
	cat "$1"
	passed=$((passed + $(grep -c '^ok ' "$1")))
	failed=$((failed + $(grep -c '^FAIL ' "$1")))
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}
# one_line FILE: exactly one line, starting "calltrace: "
one_line() {
	[ "$(wc -l <"$1")" = 1 ] && head -n1 "$1" | grep -q '^calltrace: '
}
# expect_error NAME CMD...: exit status 2, one line on stderr
expect_error() {
	local name=$1 st
	shift
	timeout -k 5 $T "$@" >"$F/err.out" 2>"$F/err.txt" </dev/null
	st=$?
	if [ $st != 2 ]; then
		bad "$name" "exit status $st, expected 2" "$F/err.txt"
	elif ! one_line "$F/err.txt"; then
		bad "$name" "stderr is not one line starting \"calltrace: \"" "$F/err.txt"
	else
		ok "$name"
		return 0
	fi
	return 1
}

rm -rf "$F"
mkdir -p "$F/shots"
cd "$F" || exit 2

if ! [ -x "$CT" ]; then
	bad built "$CT is missing: run make"
	finish
fi

if "$PY" "$HERE/gen_page.py" --check >"$F/gen.txt" 2>&1; then
	ok page-generated
else
	bad page-generated "$(head -n1 "$F/gen.txt")"
fi

for p in known big; do
	if ! gcc -g -O0 -finstrument-functions -pthread "$HERE/$p.c" -o "$F/$p" 2>"$F/$p.build"; then
		bad "build-$p" "gcc failed on tests/flame/$p.c" "$F/$p.build"
		finish
	fi
done
arg=threads
for p in known big; do
	if ! timeout -k 5 $T "$CT" record -o "$F/$p.data" -- "$F/$p" $arg >/dev/null 2>"$F/$p.rec"; then
		bad "record-$p" "calltrace record -o $F/$p.data -- $F/$p $arg failed" "$F/$p.rec"
		finish
	fi
	arg=
done
ok record

if timeout -k 5 $T "$CT" flame --help >"$F/help.txt" 2>&1 && grep -q -- '--per-thread' "$F/help.txt"; then
	ok help
else
	bad help "calltrace flame --help failed or does not list its options" "$F/help.txt"
fi

# ---- the data -----------------------------------------------------------------------
timeout -k 5 $T "$CT" report -i known.data --json >known.report.json 2>report.err ||
	bad report "calltrace report --json -i $F/known.data failed" report.err
# flame NAME ARGS...: write NAME.html, ok/FAIL flame/NAME/runs
flame() {
	local name=$1
	shift
	if timeout -k 5 $T "$CT" flame -o "$F/$name.html" "$@" >"$F/$name.out" 2>"$F/$name.err" &&
		[ -s "$F/$name.html" ] && [ -z "$(ls -A "$F" | grep -F "$name.html.")" ]; then
		ok "$name/runs"
		return 0
	fi
	bad "$name/runs" "calltrace flame -o $F/$name.html $* failed (or left a temporary $name.html.*)" "$F/$name.err"
	return 1
}
check() {
	"$PY" "$HERE/check.py" "$@" >"$F/check.txt" 2>&1
	tally "$F/check.txt"
	if ! grep -q '^\(ok\|FAIL\) ' "$F/check.txt"; then
		bad "check.py-$2" "check.py $1 printed no verdict" "$F/check.txt"
	fi
	return 0
}

flame merged -i known.data &&
	check data merged merged.html --report known.report.json --expect merged &&
	check page merged merged.html --title "$F/known threads"
flame per-thread -i known.data --per-thread &&
	check data per-thread per-thread.html --report known.report.json --expect per-thread
flame filter -i known.data -F work &&
	check data filter filter.html --expect filter-work
title='a </script><b>"title"</b> & <!-- more'
flame title -i known.data --title "$title" && check page title title.html --title "$title"

timeout -k 5 $T "$CT" flame -i known.data -o - >stdout.html 2>stdout.err
check same-data stdout stdout.html merged.html

# no -o: flame.html in the current directory
mkdir -p default && (cd default && timeout -k 5 $T "$CT" flame -i ../known.data >/dev/null 2>../default.err)
if [ -s default/flame.html ] && [ "$(ls default)" = flame.html ]; then
	ok default-output
else
	bad default-output "without -o: $(ls default | tr '\n' ' ')" default.err
fi

# a filter that leaves nothing: still a page, with an empty tree
if flame empty -i known.data -F no_such_function_anywhere; then
	if "$PY" -c 'import sys; sys.path.insert(0, sys.argv[1]); from check import extract
d = extract(sys.argv[2])[1]; sys.exit(0 if len(d["nodes"]) == 5 and d["nodes"][2] == 0 else 1)' \
		"$HERE" empty.html; then
		ok empty/data
	else
		bad empty/data "the page of an empty selection does not hold just the root"
	fi
fi

# ---- errors ---------------------------------------------------------------------------
expect_error error/missing-trace "$CT" flame -i "$F/no-such.data" -o "$F/x.html"
expect_error error/unknown-option "$CT" flame --no-such-option
expect_error error/bad-regex "$CT" flame -i known.data --regex -F '(' -o "$F/x.html"
expect_error error/unexpected-argument "$CT" flame -i known.data extra
if expect_error error/unwritable "$CT" flame -i known.data -o /nonexistent-dir/x.html; then
	grep -q '^calltrace: cannot write /nonexistent-dir/x.html: ' err.txt ||
		bad error/unwritable-message "not 'calltrace: cannot write FILE: reason'" err.txt
fi
mkdir -p a-directory
expect_error error/output-is-a-directory "$CT" flame -i known.data -o "$F/a-directory"
# not a regular file: written in place, never replaced (FILE.tmp would be renamed over it)
if [ -c /dev/full ]; then
	expect_error error/device-full "$CT" flame -i known.data -o /dev/full
	[ -c /dev/full ] || bad error/device-kept "/dev/full is no longer a device"
	expect_error error/stdout-full sh -c 'exec "$0" flame -i known.data -o - >/dev/full' "$CT"
fi
# a symbolic link at the path is replaced by the page, never written through
cp merged.html target.html && ln -sf target.html link.html
if timeout -k 5 $T "$CT" flame -i known.data -o link.html --title through-a-link >/dev/null 2>link.err &&
	! [ -L link.html ] && grep -q through-a-link link.html && cmp -s target.html merged.html &&
	[ "$(stat -c %a link.html)" = 600 ] && [ -z "$(ls -A | grep '^link\.html\.')" ]; then
	ok symlink-output
else
	bad symlink-output "-o LINK wrote through the link (or left a temporary file, or the page is not 0600)" link.err
fi
# a write that fails half-way (file size limit): the earlier page stays, no .tmp is left
cp merged.html kept.html
(
	trap '' XFSZ
	ulimit -f 4
	exec timeout -k 5 $T "$CT" flame -i "$F/big.data" -o "$F/kept.html"
) >/dev/null 2>kept.err
st=$?
if [ $st != 2 ] || ! one_line kept.err; then
	bad error/write-fails "exit status $st, expected 2 and one line" kept.err
elif ! cmp -s kept.html merged.html || [ -n "$(ls -A | grep '^kept\.html\.')" ]; then
	bad error/write-fails "the earlier page was changed, or a temporary kept.html.* was left"
else
	ok error/write-fails
fi

# ---- 100,000 stacks -------------------------------------------------------------------
s=$(date +%s.%N)
if flame big -i big.data; then
	e=$(date +%s.%N)
	n=$("$PY" "$HERE/check.py" stacks big.html)
	if [ "${n:-0}" -ge 100000 ]; then
		ok big/stacks
	else
		bad big/stacks "$n distinct stacks, expected 100000 or more"
	fi
	check data big big.html
	echo "# calltrace flame -i big.data -o big.html: $n stacks, $(stat -c %s big.html) bytes," \
		"$(awk -v s="$s" -v e="$e" 'BEGIN { printf "%.2f", e - s }') s" \
		"(trace $(stat -c %s big.data) bytes)"
fi

# ---- in a browser -----------------------------------------------------------------------
if [ -s merged.html ]; then
	big=
	[ -s big.html ] && big=big.html
	timeout -k 5 90 "$PY" "$HERE/browser.py" merged.html $big --empty empty.html \
		--shots "$F/shots" >browser.txt 2>&1
	st=$?
	tally browser.txt
	if [ $st = 124 ] || [ $st = 137 ]; then
		bad browser "browser.py timed out (see $F/shots/chromium.log)"
	elif [ $st != 0 ] || ! grep -q '^ok \|^FAIL ' browser.txt; then
		bad browser "browser.py exited with status $st" browser.txt
	fi
fi

finish
