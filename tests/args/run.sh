#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record -a: arguments and return values of every kind (values.c, values_cxx.cpp)
# with gcc and clang, -O0 and -O2, traced by patching, -pg -mfentry and
# patchable entries: replay shows exactly the lines of values*.expect (a glob
# for pointers). The program's output unchanged. -finstrument-functions says
# it cannot. --libcalls with the C library's built-in prototypes (libc.c), -A
# and -R on a binary without DWARF (specs.c), bad -A/-R specs, -s, and
# --srcline's call sites.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite args
here=$HERE root=$ROOT
out=$OUT/args
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1

# check NAME DIR EXPECT [RECORD-OPTIONS...] -- PROG ARGS: record with them, same output, replay matches
check() {
	local name=$1 d=$2 expect=$3
	shift 3
	local opts=()
	while [ "$1" != -- ]; do
		opts+=("$1")
		shift
	done
	shift
	"$@" >"$d/native.out" 2>&1
	if ! "$CT" record -o "$d/t.data" "${opts[@]}" -- "$@" >"$d/traced.out" 2>"$d/record.err"; then
		fail "$name/record" "calltrace record ${opts[*]} failed" "$d/record.err"
		return
	fi
	cmp -s "$d/native.out" "$d/traced.out" && pass "$name/same-output" ||
		fail "$name/same-output" "the program's output changed when traced" "$d/traced.out"
	"$CT" replay -i "$d/t.data" >"$d/replay.txt" 2>"$d/replay.err"
	"$PY" "$here/match.py" "$here/$expect" "$d/replay.txt" >"$d/match.out" 2>&1 &&
		pass "$name/values" || fail "$name/values" "replay does not show the values of $expect" "$d/match.out"
}

build() { # build DIR COMPILER FLAGS... SOURCE
	local d=$1
	shift
	mkdir -p "$d"
	"$@" -o "$d/prog" >"$d/build.log" 2>&1
}

for cc in gcc clang; do
	for opt in O0 O2; do
		for how in patch fentry patchable; do
			case $how in
			patch) flags=() ;;
			fentry) flags=(-pg -mfentry) ;;
			patchable) flags=(-fpatchable-function-entry=5) ;;
			esac
			n=$cc-$opt-$how
			cxx=$([ $cc = gcc ] && echo g++ || echo clang++)
			if build "$out/$n" $cc -g -$opt "${flags[@]}" "$here/values.c"; then
				check "$n" "$out/$n" values.expect -a -- "$out/$n/prog"
			else
				fail "$n/build" "$cc -$opt ${flags[*]} failed" "$out/$n/build.log"
			fi
			if build "$out/$n-cxx" $cxx -g -$opt "${flags[@]}" "$here/values_cxx.cpp"; then
				check "$n-cxx" "$out/$n-cxx" values_cxx.expect -a -- "$out/$n-cxx/prog"
			else
				fail "$n-cxx/build" "$cxx -$opt ${flags[*]} failed" "$out/$n-cxx/build.log"
			fi
		done
	done
done

# the smallest chunks still carry the prototypes and the values
d=$out/chunk4k
if build "$d" gcc -g -O2 "$here/values.c"; then
	check chunk4k "$d" values.expect -a --chunk-size 4K -- "$d/prog"
else
	fail chunk4k/build "gcc failed" "$d/build.log"
fi

# a forked child shows its values too (prototypes told in the parent's image)
d=$out/fork
if build "$d" gcc -g -O0 "$here/fork.c"; then
	check fork "$d" fork.expect -a -- "$d/prog"
else
	fail fork/build "gcc failed" "$d/build.log"
fi

# the exports carry the values: Chrome JSON "args", Perfetto debug annotations
d=$out/gcc-O0-patch
if [ -s "$d/t.data" ] && "$CT" export -f chrome -o "$d/t.json" -i "$d/t.data" 2>"$d/export.err" &&
	"$CT" export -f perfetto -o "$d/t.pftrace" -i "$d/t.data" 2>>"$d/export.err"; then
	"$PY" - "$d/t.json" "$d/t.pftrace" "$root/tests/export" >"$d/export.out" 2>&1 <<'PY' &&
import json, sys
sys.path.insert(0, sys.argv[3])
import check
events = json.load(open(sys.argv[1]))
events = events["traceEvents"] if isinstance(events, dict) else events
add = [e for e in events if e.get("ph") == "X" and e.get("name") == "add"]
assert add and add[0].get("args") == {"args": "a=-5, b=7", "returned": "2"}, add
check.decode_perfetto(sys.argv[2])  # well-formed
data = open(sys.argv[2], "rb").read()
for text in (b"a=-5, b=7", b"returned", b"GREEN"):
    assert text in data, text
PY
		pass exports || fail exports "the exports do not carry add's values" "$d/export.out"
else
	fail exports "calltrace export failed" "$d/export.err"
fi

# -finstrument-functions: the hooks cannot see arguments; info and replay say so
d=$out/finstrument
if build "$d" gcc -g -O0 -finstrument-functions "$here/values.c" &&
	"$CT" record -a -o "$d/t.data" -- "$d/prog" >/dev/null 2>"$d/record.err"; then
	"$CT" info -i "$d/t.data" >"$d/info.txt" 2>&1
	grep -q 'arguments: .*not available with -finstrument-functions' "$d/info.txt" &&
		pass finstrument/info || fail finstrument/info "info does not say arguments are not available" "$d/info.txt"
	"$CT" replay -i "$d/t.data" >"$d/replay.txt" 2>&1
	grep -q '^# arguments and return values are not available with -finstrument-functions' "$d/replay.txt" &&
		grep -q '| *add();' "$d/replay.txt" && pass finstrument/replay ||
		fail finstrument/replay "replay does not say it once, or shows values" "$d/replay.txt"
else
	fail finstrument/record "record -a of a -finstrument-functions build failed" "$d/record.err"
fi

# --libcalls: the C library's functions by their built-in prototypes
d=$out/libc
if build "$d" gcc -g -O2 "$here/libc.c"; then
	CT_ARGS_TEST=yes check libc "$d" libc.expect -a --libcalls -- "$d/prog"
else
	fail libc/build "gcc failed" "$d/build.log"
fi

# -A / -R without DWARF
d=$out/specs
if build "$d" gcc -O2 "$here/specs.c"; then
	check specs "$d" specs.expect -A 'mix@arg1/d32,arg2/s,fparg1' -R 'mix@retval/x' -- "$d/prog"
	for bad in 'mix' '@arg1' 'mix@arg0' 'mix@arg1/q' 'mix@arg1/d12' 'mix@retval'; do
		"$CT" record -o "$d/bad.data" -A "$bad" -- "$d/prog" >/dev/null 2>"$d/bad.err"
		st=$?
		[ $st = 2 ] && [ "$(wc -l <"$d/bad.err")" = 1 ] && grep -q '^calltrace: record: -A takes' "$d/bad.err" &&
			pass "specs/bad-A-${bad//\//_}" || fail "specs/bad-A-${bad//\//_}" "-A '$bad': status $st, expected 2 and one line" "$d/bad.err"
	done
	"$CT" record -o "$d/bad.data" -R 'mix@retval/s,arg1' -- "$d/prog" >/dev/null 2>"$d/bad.err"
	[ $? = 2 ] && grep -q '^calltrace: record: -R takes' "$d/bad.err" && pass specs/bad-R ||
		fail specs/bad-R "-R with an argument is not refused" "$d/bad.err"
else
	fail specs/build "gcc failed" "$d/build.log"
fi

# -s: strings cut at N bytes
d=$out/strsize
if build "$d" gcc -g -O0 "$here/values.c" &&
	"$CT" record -a -s 4 -o "$d/t.data" -- "$d/prog" >/dev/null 2>"$d/record.err" &&
	"$CT" replay -i "$d/t.data" >"$d/replay.txt" 2>&1; then
	grep -qF 'check(s="hell"…) = 1;' "$d/replay.txt" && grep -qF 'check(s="") = 1;' "$d/replay.txt" &&
		pass strsize || fail strsize "-s 4 does not cut strings at 4 bytes" "$d/replay.txt"
else
	fail strsize "record -a -s 4 failed" "$d/record.err"
fi
for bad in 0 1025 x; do
	"$CT" record -s "$bad" -- true >/dev/null 2>"$out/bad-s.err"
	[ $? = 2 ] && grep -q '^calltrace: record: -s takes' "$out/bad-s.err" && pass "bad-s-$bad" ||
		fail "bad-s-$bad" "-s $bad is not refused" "$out/bad-s.err"
done

# --srcline: call sites of every call, definitions from DWARF, patched and with hooks
def=$(grep -n '^KEEP long add(' "$here/values.c" | cut -d: -f1)
call=$(grep -n 'sink = add(-5, 7);' "$here/values.c" | cut -d: -f1)
for how in patch finstrument fentry; do
	d=$out/srcline-$how
	case $how in
	patch) flags=() ;;
	finstrument) flags=(-finstrument-functions) ;;
	fentry) flags=(-pg -mfentry) ;;
	esac
	if build "$d" gcc -g -O0 "${flags[@]}" "$here/values.c" &&
		"$CT" record --srcline -o "$d/t.data" -- "$d/prog" >/dev/null 2>"$d/record.err" &&
		"$CT" replay --srcline -i "$d/t.data" >"$d/replay.txt" 2>&1; then
		grep -qE "\| +add\(\); +/.*/values\.c:$def  <- values\.c:$call\$" "$d/replay.txt" &&
			pass srcline-$how ||
			fail srcline-$how "replay --srcline does not show add at values.c:$def <- values.c:$call" "$d/replay.txt"
	else
		fail srcline-$how "record --srcline failed" "$d/record.err"
	fi
done

finish
