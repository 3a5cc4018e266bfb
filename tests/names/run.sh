#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Names and reading as a newcomer meets them (issue 21, items 1, 8, 9, 10):
#  - clones g++ -O2 makes for real (ns::scale.constprop.0 beside ns::scale,
#    ns::total.isra.0, ns::check.part.0, a long template's .constprop.0; nm
#    checks they exist) show under their function's short name, with the
#    program's own counts merged, in replay, report, folded and flame;
#    report --json keeps each full symbol; --no-demangle keeps them apart;
#  - every suffix form (.lto_priv.N, .localalias, .constprop.N.isra.N) by
#    assembler names, and a suffix that is no clone (.omp_fn.N) kept;
#  - a signal handler's frame in report's "Not a function" table, kind
#    "signal" in --json and --csv;
#  - record says in one line that the previous trace is now PATH.old, and only then;
#  - the progress line of long reads appears on a terminal (script(1) gives
#    one; CALLTRACE_PROGRESS_AFTER=0 forces it on a small trace), never in a
#    pipe, never in stdout, never when replay's stdout is the terminal.
# BUILD, CALLTRACE/CT, TEST_OUT and PY as for tests/run.sh.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite names
here=$HERE
out=$OUT/names
rm -rf "$out"
mkdir -p "$out"
t() { timeout -k 5 60 "$@"; }
for tool in g++ gcc nm script; do
	command -v $tool >/dev/null || bad "tools" "$tool is missing (scripts/install-deps.sh --test)"
done
[ -x "$CT" ] || {
	bad tools "no calltrace at $CT: run make first"
	finish
}

# ---- clones of g++ -O2 ----------------------------------------------------------------
c=$out/clones
if ! t g++ -O2 -fipa-cp-clone -g -o "$c" "$here/clones.cpp" 2>"$c.build"; then
	bad clones/build "g++ failed" "$c.build"
else
	nm "$c" >"$c.nm"
	missing=
	for re in '_ZN2nsL5scaleERKNS_1SEi$' '_ZN2nsL5scaleERKNS_1SEi\.constprop\.[0-9]*$' \
		'_ZN2nsL5totalERKNS_1SEl\.isra\.[0-9]*$' '_ZN2nsL5checkEl\.part\.[0-9]*$' \
		'_ZN2ns5buildI.*\.constprop\.[0-9]*$'; do
		grep -Eq " [tT] $re" "$c.nm" || missing="$missing $re"
	done
	if [ -n "$missing" ]; then
		bad clones/nm "g++ -O2 made none of:$missing (this compiler clones otherwise)" "$c.nm"
	else
		ok clones/nm
	fi
	if ! (cd "$out" && CT_TRUTH=$c.truth t "$CT" record -o "$c.data" "$c" >"$c.out" 2>"$c.err"); then
		bad clones/record "record failed" "$c.err"
	else
		t "$CT" report -i "$c.data" --json >"$c.json" 2>"$c.rerr"
		if "$PY" "$here/check.py" clones "$c.json" "$c.truth" >"$c.why" 2>&1; then
			ok clones/report-json
		else
			bad clones/report-json "$(head -n1 "$c.why")" "$c.why"
		fi
		t "$CT" report -i "$c.data" >"$c.report" 2>&1
		n=$(grep -c ' ns::scale$' "$c.report")
		if [ "$n" = 1 ] && ! grep -q '\[clone' "$c.report" && grep -q ' 8  *[0-9.]* [num]*s .* ns::scale$' "$c.report"; then
			ok clones/report-text
		else
			bad clones/report-text "ns::scale on $n rows (expected one, of 8 calls), or a clone note shown" "$c.report"
		fi
		t "$CT" replay -i "$c.data" >"$c.replay" 2>&1
		checks=$(awk '$1 == "ns::check" {print $2}' "$c.truth")
		if [ "$(grep -c '| *ns::scale();$' "$c.replay")" = 8 ] && ! grep -q '\[clone\|ns::scale(ns' "$c.replay" &&
			[ "$(grep -c '| *ns::check() *[{;]$' "$c.replay")" = "$checks" ]; then
			ok clones/replay
		else
			bad clones/replay "ns::scale() not 8 times, ns::check() not $checks times, or a clone's signature shown" "$c.replay"
		fi
		long=$(grep -o '| *ns::build<.*() *[{;]$' "$c.replay" | head -n1 | sed 's/^| *//; s/() *[{;]$//')
		want=$(awk '/^ns::build</ {$NF=""; $(NF-1)=""; print}' "$c.truth" | sed 's/ *$//')
		if [ -n "$want" ] && [ "$long" = "$want" ]; then
			ok clones/long-template
		else
			echo "$long" >"$c.long"
			bad clones/long-template "the template is not shown as the program names it (no return type, parameters or clone note)" "$c.long"
		fi
		t "$CT" export -i "$c.data" --format folded -o "$c.folded" 2>&1
		if [ "$(grep -c '^main;ns::scale ' "$c.folded")" = 1 ] && ! grep -q '\[clone' "$c.folded"; then
			ok clones/folded
		else
			bad clones/folded "main;ns::scale is not one line" "$c.folded"
		fi
		t "$CT" flame -i "$c.data" -o "$c.html" >"$c.flame.err" 2>&1
		if [ "$(grep -o '"ns::scale"' "$c.html" | wc -l)" = 1 ] && [ "$(grep -o '"ns::total"' "$c.html" | wc -l)" = 1 ]; then
			ok clones/flame
		else
			bad clones/flame "ns::scale or ns::total is not one function of the page" "$c.flame.err"
		fi
		t "$CT" report -i "$c.data" --no-demangle --json >"$c.raw.json" 2>&1
		if grep -q '"name": "_ZN2nsL5scaleERKNS_1SEi.constprop.[0-9]*"' "$c.raw.json" &&
			grep -q '"name": "_ZN2nsL5scaleERKNS_1SEi"' "$c.raw.json"; then
			ok clones/no-demangle
		else
			bad clones/no-demangle "--no-demangle does not keep the clone and the function apart under their symbols" "$c.raw.json"
		fi
	fi
fi

# ---- every suffix, and a signal's frame ---------------------------------------------------
s=$out/suffixes
if ! t gcc -O2 -g -o "$s" "$here/suffixes.c" 2>"$s.build"; then
	bad suffixes/build "gcc failed" "$s.build"
elif ! (cd "$out" && CT_TRUTH=$s.truth t "$CT" record -o "$s.data" "$s" >"$s.out" 2>"$s.err"); then
	bad suffixes/record "record failed" "$s.err"
else
	t "$CT" report -i "$s.data" --json >"$s.json" 2>&1
	if "$PY" "$here/check.py" suffixes "$s.json" "$s.truth" >"$s.why" 2>&1; then
		ok suffixes/report-json
	else
		bad suffixes/report-json "$(head -n1 "$s.why")" "$s.why"
	fi
	t "$CT" report -i "$s.data" --csv >"$s.csv" 2>&1
	if "$PY" "$here/check.py" csv "$s.csv" >"$s.why" 2>&1; then
		ok signal/report-csv
	else
		bad signal/report-csv "$(head -n1 "$s.why")" "$s.why"
	fi
	t "$CT" report -i "$s.data" >"$s.report" 2>&1
	# the signal's row comes after the "Not a function" heading, every function before it
	if "$PY" - "$s.report" <<'PYEOF'; then
import sys
lines = open(sys.argv[1]).read().split('\n')
head = [i for i, l in enumerate(lines) if l.rstrip().endswith('Not a function')]
sig = [i for i, l in enumerate(lines) if l.endswith('[signal SIGUSR1]')]
fn = [i for i, l in enumerate(lines) if l.endswith('  on_signal') or l.endswith('  work')]
sys.exit(not (len(head) == 1 and len(sig) == 1 and sig[0] > head[0] and len(fn) == 2 and max(fn) < head[0]))
PYEOF
		ok signal/report-text
	else
		bad signal/report-text "[signal SIGUSR1] is not alone under a 'Not a function' heading" "$s.report"
	fi
fi

# ---- calltrace.data.old said once ---------------------------------------------------------
d=$out/old
mkdir -p "$d"
m=$out/many
t gcc -O2 -o "$m" "$here/many.c"
(cd "$d" && t "$CT" record "$m" 10 >/dev/null 2>"$d/first.err")
(cd "$d" && t "$CT" record "$m" 10 >/dev/null 2>"$d/second.err")
(cd "$d" && t "$CT" record -o x.data "$m" 10 >/dev/null 2>"$d/third.err")
(cd "$d" && t "$CT" record -o x.data "$m" 10 >/dev/null 2>"$d/fourth.err")
if [ ! -s "$d/first.err" ] && [ ! -s "$d/third.err" ] &&
	[ "$(cat "$d/second.err")" = "calltrace: the previous calltrace.data is now calltrace.data.old" ] &&
	[ "$(cat "$d/fourth.err")" = "calltrace: the previous x.data is now x.data.old" ] &&
	[ -f "$d/calltrace.data.old" ] && [ -f "$d/x.data.old" ]; then
	ok old/said-once
else
	cat "$d"/*.err >"$d/all.err"
	bad old/said-once "record's stderr: not silent the first time, or not the one line the second" "$d/all.err"
fi

# ---- progress on a terminal only ----------------------------------------------------------
p=$out/progress
t "$CT" record -o "$p.data" "$m" 20000 >/dev/null 2>&1
pty() { CALLTRACE_PROGRESS_AFTER=0 t script -qfec "$1" /dev/null; }
pty "$CT report -i $p.data >$p.report" >"$p.tty" 2>&1
if grep -q 'report: [0-9]*%' "$p.tty" && ! grep -q '%' "$p.report" && grep -q ' mid$' "$p.report" &&
	[ "$(tail -c 2 "$p.tty" | od -An -c | tr -d ' ')" = '\r' ]; then
	ok progress/report-terminal
else
	bad progress/report-terminal "no 'report: N%' line on the terminal, not cleared, or in stdout" "$p.tty"
fi
pty "$CT replay -i $p.data >$p.replay" >"$p.tty2" 2>&1
pty "$CT replay -i $p.data | tail -n 1" >"$p.tty3" 2>&1
pty "$CT flame -i $p.data -o $p.html" >"$p.tty4" 2>&1
if grep -q 'replay: [0-9]*%' "$p.tty2" && grep -q 'replay: [0-9]*%' "$p.tty3" && grep -q 'flame: [0-9]*%' "$p.tty4" &&
	! grep -q '%' "$p.replay"; then
	ok progress/replay-flame-terminal
else
	cat "$p.tty2" "$p.tty3" "$p.tty4" >"$p.ttys"
	bad progress/replay-flame-terminal "no progress line for replay or flame on a terminal" "$p.ttys"
fi
pty "$CT replay -i $p.data" >"$p.tty5" 2>&1
if ! grep -q 'replay: [0-9]*%' "$p.tty5" && grep -q 'leaf();' "$p.tty5"; then
	ok progress/replay-on-terminal-quiet
else
	bad progress/replay-on-terminal-quiet "a progress line among replay's own lines on the terminal" "$p.tty5"
fi
CALLTRACE_PROGRESS_AFTER=0 t "$CT" report -i "$p.data" >"$p.pipe.out" 2>"$p.pipe.err"
CALLTRACE_PROGRESS_AFTER=0 t "$CT" replay -i "$p.data" 2>&1 | grep -c '%' >"$p.pipe.n"
if [ ! -s "$p.pipe.err" ] && ! grep -q '%' "$p.pipe.out" && [ "$(cat "$p.pipe.n")" = 0 ]; then
	ok progress/pipe-quiet
else
	bad progress/pipe-quiet "a progress line when stderr is no terminal" "$p.pipe.err"
fi

finish
