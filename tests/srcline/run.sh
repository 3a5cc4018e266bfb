#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Source lines for replay --srcline, the symbol side: ct_symbols_defline
# (where a function is defined) and ct_symbols_callline (the line of a call,
# from its return address). The test programs mark definitions DEF:name and
# calls CALL:site in their source; grep finds the lines, so the source is the
# expectation. They are built with gcc and clang at -O0 and -O2, PIE and not,
# DWARF 4 and 5, split DWARF (.dwo files, and with them deleted), compressed
# debug sections, in C (with a shared library, a function in a header, an
# assembly function) and C++ (methods, a constructor, a template). Each prints
# its modules and, from inside each callee, its return address;
# srcline_check (built against $BUILD/obj) turns that into a trace in memory
# and prints the answers, which check.py compares with the markers. Then the
# cost of a cache hit. BUILD and TEST_OUT as for tests/run.sh (CALLTRACE is not
# used: nothing is recorded); JOBS=2 variants at a time. Everything stays in
# $TEST_OUT/srcline/VARIANT/ (answers, *.diff).
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite srcline
here=$HERE root=$ROOT build=$B
out=$OUT/srcline
rm -rf "$out"
mkdir -p "$out"
suite_tally "$out/.tally" # the variants run in the background
JOBS=${JOBS:-2}

# ---- the driver, against the tool's objects (an archive: only what it needs) ----------
build_driver() {
	local objs
	objs=$(tool_objects)
	if [ -z "$objs" ]; then
		fail driver "no objects in $build/obj: run make first"
		return 1
	fi
	ar rcs "$out/libct.a" $objs
	# shellcheck disable=SC2086 # CT_SAN_FLAGS: the sanitizers the objects were built with
	if ! gcc -std=gnu11 -O2 -g -Wall -Wextra -D_GNU_SOURCE ${CT_SAN_FLAGS:-} -I"$root" -o "$out/srcline_check" \
		"$here/srcline_check.c" "$out/libct.a" $(pkg-config --libs libdw libelf libzstd) \
		-lstdc++ -lm 2>"$out/driver.log" || [ -s "$out/driver.log" ]; then
		fail driver "srcline_check does not build cleanly" "$out/driver.log"
		return 1
	fi
	pass driver
}

# ---- building the programs -----------------------------------------------------------
# build DIR CC FLAGS... : the C program, its library and the assembly function,
# compiled one unit at a time in DIR (split DWARF puts the .dwo files there).
# With $rel set, the sources are named by a relative path (src/prog.c).
build_c() {
	local d=$1 cc=$2
	shift 2
	local src=$here
	[ -n "$rel" ] && ln -s "$here" "$d/src" && src=src
	(cd "$d" &&
		$cc "$@" -fPIC -c "$src/libsl.c" -o libsl.o &&
		$cc "$@" -shared libsl.o -o libsl.so &&
		$cc "$@" -c "$src/prog.c" -o prog.o &&
		$cc "$@" -c "$src/asm_func.S" -o asm_func.o &&
		$cc "$@" prog.o asm_func.o -L. -lsl -Wl,-rpath,"$d" -o prog) >"$d/build.log" 2>&1
}

build_cxx() {
	local d=$1 cc=$2
	shift 2
	(cd "$d" && $cc "$@" -c "$here/method.cpp" -o method.o && $cc "$@" method.o -o prog) \
		>"$d/build.log" 2>&1
}

# What the build should be, to be sure each variant tests what it says.
verify_build() { # DIR KIND...
	local d=$1 k type
	shift
	type=$(readelf -h "$d/prog" | awk '/Type:/ {print $2}')
	for k in "$@"; do
		case $k in
		pie) [ "$type" = DYN ] || echo "prog is $type, not a PIE" ;;
		nopie) [ "$type" = EXEC ] || echo "prog is $type, not a fixed-address executable" ;;
		split) ls "$d"/*.dwo >/dev/null 2>&1 || echo "no .dwo files" ;;
		gz | zstd)
			readelf -S -W "$d/prog" | grep -q '\.debug_info .* C ' ||
				echo "prog's .debug_info is not compressed"
			[ $k = zstd ] && { readelf -t "$d/prog" | grep -q ZSTD ||
				echo "prog's debug sections are not zstd-compressed"; } ;;
		dwarf4)
			readelf --debug-dump=info "$d/prog" 2>/dev/null | grep -m1 'Version:' |
				grep -q '4$' || echo "prog's first unit is not DWARF 4" ;;
		esac
	done
}

# ---- checking the answers ----------------------------------------------------------
# answers NAME LANG: the driver's answers for the program in $d, against the markers
answers() {
	local name=$1 lang=$2 st
	"$out/srcline_check" "$d/prog.out" >"$d/answers" 2>&1
	st=$?
	grep '^error' "$d/answers" >"$d/errors"
	[ $st = 0 ] && [ ! -s "$d/errors" ] && pass "$name/consistent" ||
		fail "$name/consistent" "the answers differ between the caches and the ELF level (status $st)" "$d/errors"
	local defs=(method.cpp) calls=(method.cpp)
	[ $lang = c ] && defs=(prog.c hdr.h libsl.c asm_func.S) calls=(prog.c libsl.c)
	# without the .dwo files, the line table's line of a function's first instruction
	"$PY" "$here/check.py" defs "$d/answers" ${nodwo:+--next-line-too} "${defs[@]/#/$here/}" \
		>"$d/defs.diff" 2>&1
	"$PY" "$here/check.py" calls "$d/answers" "${calls[@]/#/$here/}" >"$d/calls.diff" 2>&1
	[ -s "$d/defs.diff" ] && fail "$name/defs" "wrong definition lines" "$d/defs.diff" || pass "$name/defs"
	[ -s "$d/calls.diff" ] && fail "$name/calls" "wrong call lines" "$d/calls.diff" || pass "$name/calls"
}

# variant NAME LANG KINDS CC FLAGS...: build, run, check definitions and calls; with
# KINDS "nodwo", again once the .dwo files are deleted (as NAME-nodwo)
variant() {
	local name=$1 lang=$2 kinds=$3 cc=$4 nodwo=
	shift 4
	d=$out/$name
	mkdir -p "$d"
	if [ $lang = c ]; then
		build_c "$d" "$cc" "$@"
	else
		build_cxx "$d" "$cc" "$@"
	fi || { fail "$name/build" "the test program does not build" "$d/build.log"; return; }
	verify_build "$d" $kinds >"$d/verify.log"
	[ -s "$d/verify.log" ] && { fail "$name/build" "not the intended build" "$d/verify.log"; return; }
	"$d/prog" >"$d/prog.out" 2>&1 || { fail "$name/run" "the program failed" "$d/prog.out"; return; }
	answers "$name" $lang
	if [[ " $kinds " = *" nodwo "* ]]; then
		rm -f "$d"/*.dwo
		nodwo=1
		answers "$name-nodwo" $lang
	fi
}

# spawn NAME ...: variant NAME ... in the background, $JOBS at a time
names=()
spawn() {
	while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do
		wait -n
	done
	variant "$@" >"$out/$1.result" 2>&1 &
	names+=("$1")
}

# The cost of a cache hit, reported (never asserted: machines are shared and noisy);
# the check is that repeated lookups keep working.
cache_hit() {
	local d=$out/gcc-O2 ns
	[ -s "$d/prog.out" ] || return
	"$out/srcline_check" "$d/prog.out" -b 2000000 >"$d/bench" 2>&1
	ns=$(awk '$1 == "bench" { print $2 }' "$d/bench")
	if [ -n "$ns" ]; then
		ok "cache-hit # $ns ns per lookup"
	else
		fail cache-hit "the repeated lookups did not run" "$d/bench"
	fi
}

main() {
	build_driver || return
	rel=
	for cc in gcc clang; do
		for opt in O0 O2; do
			spawn $cc-$opt c pie $cc -g -$opt -Wall -Wextra
			cxx=clang++
			[ $cc = gcc ] && cxx=g++
			spawn $cc-$opt-cxx cxx pie $cxx -g -$opt -Wall -Wextra
		done
	done
	spawn gcc-O2-nopie-dwarf4 c "nopie dwarf4" gcc -gdwarf-4 -O2 -fno-pie -no-pie
	spawn clang-O0-nopie-dwarf4-gz c "nopie dwarf4 gz" clang -gdwarf-4 -O0 -gz -fno-pie -no-pie
	spawn gcc-O0-split-dwarf4 c "split dwarf4" gcc -gdwarf-4 -O0 -gsplit-dwarf
	spawn clang-O2-split c split clang -g -O2 -gsplit-dwarf
	spawn clang++-O2-split cxx split clang++ -g -O2 -gsplit-dwarf
	rel=1
	spawn gcc-O2-gz-relative c gz gcc -g -O2 -gz
	spawn gcc-O2-split-relative c "split nodwo" gcc -g -O2 -gsplit-dwarf
	spawn clang-O2-split-relative c split clang -g -O2 -gsplit-dwarf
	rel=
	if echo 'int main(void){return 0;}' | gcc -x c -g -gz=zstd -o "$out/zstd-probe" - 2>/dev/null &&
		readelf -t "$out/zstd-probe" | grep -q ZSTD; then
		spawn gcc-O2-zstd c zstd gcc -g -O2 -gz=zstd
	else
		skip gcc-O2-zstd "the toolchain cannot compress debug sections with zstd"
	fi
	wait
	for n in "${names[@]}"; do
		cat "$out/$n.result"
	done
	cache_hit
}

main | tee "$out/log"
finish
