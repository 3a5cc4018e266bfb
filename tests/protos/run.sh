#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Prototypes from DWARF (src/symbols/protos.c): sigs.c and sigs_cpp.cpp,
# every kind of parameter and return value, built with gcc and clang at -O0
# and -O2, and with DWARF 4, split DWARF (.dwo beside the program, moved away
# from where it was built; .dwp when llvm-dwp can make one) and compressed
# debug sections. dump_protos (built against build/obj) prints each
# function's prototype; every function NAME.protos lists must have exactly
# the prototype written there ('*' matches anything; a name may be a glob,
# and two lines for one name are alternatives), the same for every build.
# Functions are found by their symbol's address, so a clone gcc makes
# (foo.isra.0) is never taken for the function; moved.c checks what such
# clones, and clang's changed signatures, get: "|".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite protos
here=$HERE root=$ROOT build=$B
out=$OUT/protos
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1

# ---- the driver, against the tool's objects ----------------------------------------
objs=$(tool_objects)
DUMP=$out/dump_protos
# shellcheck disable=SC2086 # CT_SAN_FLAGS: the sanitizers the objects were built with
if [ -z "$objs" ] || ! gcc -std=gnu11 -O1 -g -Wall -Wextra -D_GNU_SOURCE ${CT_SAN_FLAGS:-} -I"$root" -o "$DUMP" \
	"$here/dump_protos.c" $objs $(pkg-config --libs libdw libelf libzstd) -lZydis -lstdc++ -lm -ldl \
	2>"$out/dump.err"; then
	fail dump_protos "the driver does not build (run make first)" "$out/dump.err"
	finish
fi
pass dump_protos

# check NAME BINARY EXPECTED: the prototypes of BINARY's functions against EXPECTED
check() {
	local name=$1 bin=$2 want=$3 d
	d=$(dirname "$bin")
	if ! "$DUMP" -a "$bin" >"$d/protos" 2>"$d/dump.err"; then
		fail "$name" "dump_protos found no DWARF" "$d/dump.err"
		return
	fi
	nm --defined-only "$bin" >"$d/nm" 2>&1
	if "$PY" - "$want" "$d/protos" "$d/nm" >"$d/check" 2>&1 <<'PY'; then
import fnmatch, sys
want = {}  # symbol name or glob -> the prototypes it may have
for l in open(sys.argv[1]):
    if l.strip() and l[0] != '#':
        name, proto = l.rstrip('\n').split('\t', 1)
        want.setdefault(name, []).append(proto)
got = {}  # address -> [(dwarf name, proto, flags)]
for l in open(sys.argv[2]):
    f = l.rstrip('\n').split('\t')
    got.setdefault(int(f[0], 16), []).append((f[1], f[2], f[3:]))
syms = {}
for l in open(sys.argv[3]):
    f = l.split()
    if len(f) == 3 and f[1] in 'TtWw':
        syms.setdefault(f[2], int(f[0], 16))
bad = []
cut = lambda s: s if len(s) < 300 else s[:300] + '...'
for addr, entries in got.items():
    for name, proto, flags in entries:
        if flags:
            bad.append('%s: %s: %s' % (name, ' '.join(flags), cut(proto)))
for name, protos in want.items():
    matched = [s for s in syms if fnmatch.fnmatchcase(s, name)]
    if not matched:
        bad.append('%s: no such function in the program' % name)
    for sym in matched:
        have = [p for _, p, _ in got.get(syms[sym], [])]
        if not have:
            bad.append('%s: no prototype at its address %#x' % (sym, syms[sym]))
        elif not any(fnmatch.fnmatchcase(p, w) for p in have for w in protos):
            bad.append('%s:\n      want %s\n      got  %s' % (sym, cut(' or '.join(protos)),
                                                           cut(' | '.join(have))))
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
		pass "$name"
	else
		fail "$name" "prototypes differ from $(basename "$want")" "$d/check"
	fi
}

# build NAME COMPILER "SOURCES" FLAGS...: into $out/NAME/, built from there (a .dwo lands there)
build() {
	local name=$1 cc=$2 srcs=() s
	for s in $3; do
		srcs+=("$here/$s")
	done
	shift 3
	mkdir -p "$out/$name"
	if ! (cd "$out/$name" && $cc "$@" "${srcs[@]}" -o prog) >"$out/$name/build.err" 2>&1; then
		fail "$name" "build failed: $cc $*" "$out/$name/build.err"
		return 1
	fi
}

for prog in sigs sigs_cpp; do
	src=$prog.c ccs="gcc clang"
	[ $prog = sigs_cpp ] && src=$prog.cpp ccs="g++ clang++"
	for cc in $ccs; do
		for opt in O0 O2; do
			name=$prog-$cc-$opt
			build "$name" $cc "$src" -g -$opt && check "$name" "$out/$name/prog" "$here/$prog.protos"
		done
	done
	# DWARF 4, compressed sections
	for v in "gcc -O2 -gdwarf-4" "clang -O0 -gdwarf-4" "gcc -O2 -gz" "clang -O2 -gz"; do
		set -- $v
		cc=$1 opt=$2 flag=$3
		[ $prog = sigs_cpp ] && cc=${cc/gcc/g++} && cc=${cc/clang/clang++}
		name=$prog-$cc$opt$flag
		build "$name" $cc "$src" -g $opt $flag && check "$name" "$out/$name/prog" "$here/$prog.protos"
	done
	# split DWARF: the program and its .dwo moved together to another directory
	for v in "gcc -O2 -gsplit-dwarf" "clang -O2 -gsplit-dwarf" "gcc -O0 -gsplit-dwarf -gdwarf-4"; do
		set -- $v
		cc=$1
		[ $prog = sigs_cpp ] && cc=${cc/gcc/g++} && cc=${cc/clang/clang++}
		shift
		name=$prog-$cc$(printf '%s' "$@" | tr -d ' ')
		build "$name/built" $cc "$src" -g "$@" || continue
		if ! ls "$out/$name/built/"*.dwo >/dev/null 2>&1; then
			fail "$name" "no .dwo was made"
			continue
		fi
		mv "$out/$name/built/"* "$out/$name/" && rmdir "$out/$name/built"
		check "$name" "$out/$name/prog" "$here/$prog.protos"
	done
done

# ---- signatures the compiler changed: "|", not the declared prototype -----------------
for cc in gcc clang; do
	for opt in O0 O2; do
		name=moved-$cc-$opt want=$here/moved.protos
		[ $opt = O2 ] && want=$here/moved-O2.protos
		build "$name" $cc moved.c -g -$opt && check "$name" "$out/$name/prog" "$want"
	done
done

# ---- a DWARF package (prog.dwp, no .dwo): two units, read through the package's index ----
if command -v llvm-dwp >/dev/null; then
	cat "$here/sigs.protos" "$here/second.protos" >"$out/sigs-second.protos"
	# (llvm-dwp 14 does not take gcc's DWARF 5 split units)
	for v in "clang -O2" "clang -O0 -gdwarf-4" "gcc -O0 -gdwarf-4"; do
		set -- $v
		cc=$1
		shift
		name=dwp-$cc$(printf '%s' "$@" | tr -d ' ')
		build "$name" $cc "second.c sigs.c" -g -gsplit-dwarf "$@" || continue
		if ! (cd "$out/$name" && timeout 60 llvm-dwp -e prog -o prog.dwp) >"$out/$name/dwp.err" 2>&1; then
			fail "$name" "llvm-dwp failed" "$out/$name/dwp.err"
			continue
		fi
		rm -f "$out/$name/"*.dwo
		check "$name" "$out/$name/prog" "$out/sigs-second.protos"
	done
else
	fail dwp "llvm-dwp is missing (llvm; scripts/install-deps.sh --test)"
fi

# ---- no DWARF: -1 ----------------------------------------------------------------------
if [ -x "$out/sigs-gcc-O2/prog" ]; then
	strip -o "$out/stripped" "$out/sigs-gcc-O2/prog"
	"$DUMP" "$out/stripped" >/dev/null 2>&1
	[ $? = 1 ] && pass no-dwarf || fail no-dwarf "a stripped program should give -1"
fi
"$DUMP" "$out/does-not-exist" >/dev/null 2>&1
[ $? = 1 ] && pass no-file || fail no-file "a missing file should give -1"
finish
