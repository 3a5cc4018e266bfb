#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Dynamic patching of unmodified programs: shapes.c (a jump table, a tail
# call through a pointer, a call in the first instructions, recursion) built
# plain with gcc and clang, -O0 and -O2, as PIE, non-PIE and with
# -fcf-protection (endbr64 first): the same output traced as alone, every
# patched function's count exact, every other one named by info --skipped.
# Then -P patterns, and the methods a program was not built for.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite patch
here=$HERE
out=$OUT/patch
rm -rf "$out"
mkdir -p "$out"
suite_tally "$out/.tally"
cd "$out" || exit 1

# counts NAME DIR: report --json counts equal the program's, for the functions patched
counts() {
	"$CT" report -i "$2/t.data" --json >"$2/report.json" 2>"$2/err" &&
		"$CT" info --skipped -i "$2/t.data" >"$2/skipped" 2>>"$2/err" || {
		fail "$1" "report or info failed" "$2/err"
		return
	}
	if "$PY" - "$2/native.out" "$2/report.json" "$2/skipped" >"$2/check" 2>&1 <<'PY'; then
import json, sys
truth = dict(l.split() for l in open(sys.argv[1]))
got = {e['name']: e['calls'] for e in json.load(open(sys.argv[2]))}
skipped = {l.split('\t')[0] for l in open(sys.argv[3]) if '\t' in l}
bad = []
for name, n in truth.items():
    want = 0 if name in skipped else int(n)
    if got.get(name, 0) != want:
        bad.append('%s: %d in report, %d expected%s' % (name, got.get(name, 0), want,
                   ' (skipped)' if name in skipped else ''))
for name in got:
    if name not in truth:
        bad.append('%s: in the report, not a function of the program' % name)
if 'dispatch' in skipped:
    bad.append('dispatch (a jump table) was left alone')
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
		pass "$1"
	else
		fail "$1" "counts differ" "$2/check"
	fi
}

for cc in gcc clang; do
	for opt in O0 O2; do
		for variant in pie nopie cet; do
			name=$cc-$opt-$variant d=$out/$name
			mkdir -p "$d"
			flags=(-g "-$opt")
			case $variant in
			nopie) flags+=(-fno-pie -no-pie) ;;
			cet) flags+=(-fcf-protection=full) ;;
			esac
			if ! $cc "${flags[@]}" "$here/shapes.c" -o "$d/shapes" 2>"$d/build.err"; then
				fail "$name" "build failed" "$d/build.err"
				continue
			fi
			"$d/shapes" 300 >"$d/native.out" 2>"$d/native.err"
			if ! "$CT" record -o "$d/t.data" "$d/shapes" 300 >"$d/traced.out" 2>"$d/traced.err"; then
				fail "$name/record" "calltrace record failed" "$d/traced.err"
				continue
			fi
			if cmp -s "$d/native.out" "$d/traced.out" && cmp -s "$d/native.err" "$d/traced.err"; then
				pass "$name/same-output"
			else
				fail "$name/same-output" "the program's output changed when traced" "$d/traced.err"
			fi
			"$CT" info -i "$d/t.data" >"$d/info" 2>&1
			if grep -q '^method: *patch' "$d/info" && grep -q '^patched: ' "$d/info"; then
				pass "$name/info"
			else
				fail "$name/info" "info does not say the program was patched" "$d/info"
			fi
			counts "$name/counts" "$d"
		done
	done
done

# ---- a tail call: the callee nests in its caller, and its return ends both --------
# (the callee's return address is its caller's trampoline landing, src/arch/x86_64/relocate.h)
for name in gcc-O2-pie clang-O2-pie; do
	d=$out/$name
	[ -s "$d/t.data" ] || continue
	if timeout -k 5 60 "$CT" replay -i "$d/t.data" >"$d/replay" 2>"$d/replay.err" &&
		"$PY" - "$d/replay" >"$d/tail.check" 2>&1 <<'PY'; then
import re, sys
lines = [re.sub(r'^.*?\| ', '', l.rstrip('\n')) for l in open(sys.argv[1]) if '| ' in l]
indent = lambda s: len(s) - len(s.lstrip())
n = bad = 0
for i, l in enumerate(lines):
    if l.strip() != 'tail() {':
        continue
    n += 1
    inner, end = lines[i + 1:i + 3]
    if (inner.strip() not in ('op_a();', 'op_b();') or indent(inner) != indent(l) + 2 or
            end.strip() != '} /* tail */' or indent(end) != indent(l)):
        bad += 1
        print('after', repr(l), repr(inner), repr(end))
print(n, 'calls of tail,', bad, 'misnested')
sys.exit(1 if bad or n < 300 else 0)
PY
		pass "$name/tail-nesting"
	else
		fail "$name/tail-nesting" "a tail-called function is not nested in its caller" "$d/tail.check"
	fi
done

# ---- -P: only some functions, some left out ------------------------------------
d=$out/gcc-O2-pie
if [ -x "$d/shapes" ]; then
	"$CT" record -o "$d/p.data" -P 'op_*' -P rec "$d/shapes" 10 >/dev/null 2>&1
	got=$("$CT" report -i "$d/p.data" --json | "$PY" -c 'import json,sys; print(" ".join(sorted(e["name"] for e in json.load(sys.stdin))))')
	[ "$got" = "op_a op_b rec" ] && pass pattern || fail pattern "-P 'op_*' -P rec traced: $got"
	"$CT" record -o "$d/n.data" -P '!op_*' -P '!main' "$d/shapes" 10 >/dev/null 2>&1
	got=$("$CT" report -i "$d/n.data" --json | "$PY" -c 'import json,sys; print(" ".join(sorted(e["name"] for e in json.load(sys.stdin))))')
	[ "$got" = "dispatch early loop rec tail tiny" ] && pass pattern-exclude || fail pattern-exclude "-P '!op_*' -P '!main' traced: $got"
fi

# ---- methods the program was not built for: one line, status 2 -------------------
one_line() { # NAME EXPECTED-REGEX CMD...
	local name=$1 re=$2
	shift 2
	"$@" >"$out/$name.out" 2>"$out/$name.err"
	local st=$?
	if [ $st = 2 ] && [ "$(wc -l <"$out/$name.err")" = 1 ] && grep -Eq -- "$re" "$out/$name.err"; then
		pass "$name"
	else
		fail "$name" "expected status 2 and one line matching '$re', got status $st" "$out/$name.err"
	fi
}
one_line method-finstrument 'not built with -finstrument-functions' "$CT" record -o "$out/x.data" --method=finstrument "$out/gcc-O2-pie/shapes"
one_line method-fentry 'not built with -pg' "$CT" record -o "$out/x.data" --method=fentry "$out/gcc-O2-pie/shapes"
one_line method-unknown '--method takes' "$CT" record -o "$out/x.data" --method=magic "$out/gcc-O2-pie/shapes"
gcc -O2 -finstrument-functions "$here/shapes.c" -o "$out/inst" 2>/dev/null
one_line method-patch-instrumented 'would count every call twice' "$CT" record -o "$out/x.data" --method=patch "$out/inst"
if gcc -O2 -static "$here/shapes.c" -o "$out/static" 2>/dev/null; then
	one_line static 'statically linked' "$CT" record -o "$out/x.data" "$out/static"
fi
# a stripped program: nothing to patch, said in one line at the end
cp "$out/gcc-O2-pie/shapes" "$out/stripped" && strip "$out/stripped"
"$CT" record -o "$out/s.data" "$out/stripped" 5 >/dev/null 2>"$out/stripped.err"
if [ $? = 0 ] && grep -q 'no symbol table' "$out/stripped.err"; then
	pass stripped
else
	fail stripped "a stripped program should run and be explained" "$out/stripped.err"
fi
# --method=patch on it: its exported functions only (none here), runs fine
"$CT" record -o "$out/s.data" --method=patch "$out/stripped" 5 >/dev/null 2>&1 && pass stripped-patch || fail stripped-patch "record failed"
# -fipa-ra: main keeps sums in xmm and argument registers across its calls
# to step(); the stubs of the patched step() (their common case saves no
# vector register, the rest of the time all of them) must leave them as they
# were, chunk changes included (each event's slot is 16 bytes)
ipa=$out/ipara
if gcc -O2 -g "$here/ipara.c" -o "$ipa" 2>"$out/ipara.err"; then
	timeout -k 5 60 "$ipa" 400000 >"$out/ipara.native" 2>>"$out/ipara.err"
	timeout -k 5 60 "$CT" record -o "$out/ipara.data" --method=patch -- "$ipa" 400000 \
		>"$out/ipara.traced" 2>>"$out/ipara.err" &&
		"$CT" report -i "$out/ipara.data" --json >"$out/ipara.json" 2>>"$out/ipara.err"
	if [ $? != 0 ]; then
		fail ipa-ra "record or report failed" "$out/ipara.err"
	elif ! cmp -s "$out/ipara.native" "$out/ipara.traced"; then
		diff "$out/ipara.native" "$out/ipara.traced" >>"$out/ipara.err"
		fail ipa-ra "registers the caller keeps across a patched call changed" "$out/ipara.err"
	elif ! "$PY" -c '
import json, sys
r = json.load(open(sys.argv[1]))
rows = r.get("functions", r) if isinstance(r, dict) else r
n = [f.get("calls") for f in rows if f.get("name") == "step"]
sys.exit(0 if n == [400000] else "step: %r calls, not 400000" % n)' "$out/ipara.json" >>"$out/ipara.err" 2>&1; then
		fail ipa-ra "step's calls not all recorded" "$out/ipara.err"
	else
		pass ipa-ra
	fi
else
	fail ipa-ra "gcc failed" "$out/ipara.err"
fi
# the stubs' common case (fasthook.c) must touch no vector or x87 register and
# call nothing (what it called could): its code in the runtime, disassembled
rt=$(dirname "$CT")/libcalltrace.so
if objdump -d --no-show-raw-insn "$rt" >"$out/rt.dis" 2>"$out/fast.err"; then
	awk '/^[0-9a-f]+ <ct_[a-z_]*_fast>:$/ { on = 1; n++; next } /^[0-9a-f]+ </ { on = 0 }
	     on' "$out/rt.dis" >"$out/fast.dis"
	nfast=$(grep -c '_fast>:$' "$out/rt.dis")
	if [ "$nfast" != 6 ]; then
		fail fast-path-registers "expected 6 ct_*_fast functions in $rt, found $nfast" "$out/fast.err"
	elif grep -E '%[xyz]mm|%st|%mm[0-7]|\bcall|\bjmp +\*|\bf[a-z]+ ' "$out/fast.dis" >"$out/fast.bad"; then
		fail fast-path-registers "fasthook.c's code uses a register the stubs do not save, or calls out" "$out/fast.bad"
	else
		pass fast-path-registers
	fi
else
	fail fast-path-registers "objdump failed" "$out/fast.err"
fi
finish
