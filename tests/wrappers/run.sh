#!/usr/bin/env bash
# The compiler wrappers calltrace-cc and calltrace-c++: a multi-file C++/C
# project built with make and with CMake, traced with exact counts; an
# autoconf configure giving the same answers as the plain compiler; the
# default (patchable) and finstrument methods on inline-heavy code; the
# functions of system headers left unpatched by default (section_syshdr); the
# fentry and patchable methods' markers; the wrapper's options, pass-through
# cases and errors. Prints ok/FAIL lines (tests/run.sh counts them). Outputs
# stay in $TEST_OUT/wrappers.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite wrappers
here=$HERE build=$B
out=$OUT/wrappers
WCC=$build/calltrace-cc
WCXX=$build/calltrace-c++
CHECK="$here/check.py"

# Nothing from the caller's environment may steer the wrappers; the cache
# starts empty (and is tested) under $out.
unset CALLTRACE_CC CALLTRACE_CXX CALLTRACE_METHOD CALLTRACE_EXCLUDE_PATH CALLTRACE_CC_VERBOSE
export XDG_CACHE_HOME=$out/cache
rm -rf "$out"
mkdir -p "$out"
suite_tally "$out/.tally" # the slow sections run in the background

if ! [ -x "$WCC" ] || ! [ -x "$WCXX" ]; then
	fail built "$WCC or $WCXX is missing: run make"
	finish
fi

# ---- the project, traced: counts as the program printed them ------------------
# trace NAME DIR MODE: run DIR/inventory, record it, check the report (check.py counts).
trace() {
	local name=$1 dir=$2 mode=$3
	if ! (cd "$dir" && ./inventory >run.out 2>&1); then
		fail "$name" "the program failed" "$dir/run.out"
		return 1
	fi
	if ! (cd "$dir" && "$CT" record -o t.data ./inventory >/dev/null 2>record.err); then
		fail "$name" "calltrace record failed" "$dir/record.err"
		return 1
	fi
	"$CT" report -i "$dir/t.data" --json >"$dir/report.json" 2>"$dir/report.err"
	if "$PY" "$CHECK" counts "$dir/run.out" "$dir/report.json" "$mode" >"$dir/check.out" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(head -n1 "$dir/check.out")" "$dir/check.out"
		return 1
	fi
}

# --no-std leaves exactly the project's functions, with their counts (with
# clang and --method=finstrument the standard library is traced too: README).
trace_clang_nostd() {
	local name=$1 dir=$2
	"$CT" report -i "$dir/t.data" --json --no-std >"$dir/nostd.json" 2>"$dir/nostd.err"
	if "$PY" "$CHECK" counts "$dir/run.out" "$dir/nostd.json" exact >"$dir/nostd.out" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(head -n1 "$dir/nostd.out")" "$dir/nostd.out"
	fi
}

make_project() { # NAME [ENV...]: copy the project, build it with make and the wrappers
	local name=$1 dir=$out/$1
	shift
	cp -r "$here/project" "$dir"
	if env "$@" make -j2 -C "$dir" CC="$WCC" CXX="$WCXX" >"$dir/build.log" 2>&1; then
		pass "$name/build"
		return 0
	fi
	fail "$name/build" "make failed" "$dir/build.log"
	return 1
}

# method_is NAME DIR METHOD: info says the trace in DIR was taken with METHOD
method_is() {
	if "$CT" info -i "$2/t.data" 2>&1 | grep -q "^method: *$3,"; then
		pass "$1"
	else
		fail "$1" "info does not say 'method: $3'" "$2/record.err"
	fi
}
section_make() {
	# the default, patchable entries: the standard library left unpatched
	make_project make-gcc && trace make-gcc/trace "$out/make-gcc" exact &&
		method_is make-gcc/method "$out/make-gcc" patchable
	make_project make-gcc-finstrument CALLTRACE_METHOD=finstrument &&
		trace make-gcc-finstrument/trace "$out/make-gcc-finstrument" exact &&
		method_is make-gcc-finstrument/method "$out/make-gcc-finstrument" finstrument
	if command -v clang >/dev/null && command -v clang++ >/dev/null; then
		make_project make-clang CALLTRACE_CC=clang &&
			trace make-clang/trace "$out/make-clang" exact &&
			method_is make-clang/method "$out/make-clang" patchable
		make_project make-clang-finstrument CALLTRACE_CC=clang CALLTRACE_METHOD=finstrument &&
			trace make-clang-finstrument/trace "$out/make-clang-finstrument" std &&
			trace_clang_nostd make-clang-finstrument/no-std "$out/make-clang-finstrument"
	else
		fail make-clang "clang is missing (scripts/install-deps.sh)"
	fi
}

# ---- the same with CMake, out of tree ---------------------------------------------
cmake_project() { # NAME MODE [ENV...]
	local name=$1 mode=$2 dir=$out/$1
	shift 2
	mkdir -p "$dir"
	if ! (cd "$dir" && env "$@" cmake -DCMAKE_BUILD_TYPE=Release \
		-DCMAKE_C_COMPILER="$WCC" -DCMAKE_CXX_COMPILER="$WCXX" "$here/project" \
		>configure.log 2>&1); then
		fail "$name/configure" "cmake failed" "$dir/configure.log"
		return 1
	fi
	pass "$name/configure"
	if ! (cd "$dir" && env "$@" cmake --build . >build.log 2>&1); then
		fail "$name/build" "cmake --build failed" "$dir/build.log"
		return 1
	fi
	pass "$name/build"
	trace "$name/trace" "$dir" "$mode"
}
compiler_id() { # NAME ID: CMake identified the wrappers as the compiler underneath them
	if grep -q "CMAKE_CXX_COMPILER_ID \"$2\"" "$out/$1"/CMakeFiles/*/CMakeCXXCompiler.cmake 2>/dev/null &&
		grep -q "CMAKE_C_COMPILER_ID \"$2\"" "$out/$1"/CMakeFiles/*/CMakeCCompiler.cmake 2>/dev/null; then
		pass "$1/compiler-id"
	else
		fail "$1/compiler-id" "CMake did not identify the wrappers as $2"
	fi
}
section_cmake() {
	if ! command -v cmake >/dev/null; then
		fail cmake "cmake is missing (scripts/install-deps.sh --test)"
		return
	fi
	# Release is -O3, where std::sort inlines shop::by_length: only finstrument
	# sees calls that are no longer calls, as the program counts them
	cmake_project cmake-gcc exact CALLTRACE_METHOD=finstrument && compiler_id cmake-gcc GNU
}

# ---- autoconf: the same answers as the plain compilers -----------------------------
autoconf_test() {
	local d=$out/autoconf
	mkdir -p "$d/src" "$d/plain" "$d/wrapped"
	cp "$here/configure.ac" "$d/src/"
	if ! (cd "$d/src" && autoheader >autoconf.log 2>&1 && autoconf >>autoconf.log 2>&1); then
		fail autoconf/generate "autoconf failed" "$d/src/autoconf.log"
		return
	fi
	# both at once: each is a few seconds of process creation
	(cd "$d/plain" && ../src/configure -C CC=gcc CXX=g++ >configure.log 2>&1) &
	local plain=$!
	(cd "$d/wrapped" && ../src/configure -C CC="$WCC" CXX="$WCXX" >configure.log 2>&1)
	local st=$?
	wait $plain
	local st_plain=$?
	if [ $st != 0 ] || [ $st_plain != 0 ]; then
		fail autoconf/configure "configure exits $st with the wrappers, $st_plain with gcc" "$d/wrapped/config.log"
		return
	fi
	pass autoconf/configure
	if diff -u "$d/plain/config.h" "$d/wrapped/config.h" >"$d/config.h.diff"; then
		pass autoconf/config.h
	else
		fail autoconf/config.h "config.h differs from gcc's" "$d/config.h.diff"
	fi
	# The cached answers, less those that name the compiler itself.
	for v in plain wrapped; do
		grep '^ac_cv_' "$d/$v/config.cache" |
			grep -v -E '^ac_cv_(env_|prog_(ac_ct_)?(CC|CXX|CPP)=)' >"$d/$v.cache"
	done
	if [ -s "$d/plain.cache" ] && diff -u "$d/plain.cache" "$d/wrapped.cache" >"$d/cache.diff"; then
		pass autoconf/cache-values
	else
		fail autoconf/cache-values "configure's cached answers differ from gcc's" "$d/cache.diff"
	fi
	if grep -q '^#define RUN_OK 1' "$d/wrapped/config.h" && grep -q '^#define EXIT3_FAILS 1' "$d/wrapped/config.h" &&
		grep -q '^#define CXX_RUN_OK 1' "$d/wrapped/config.h" && ! grep -q '^#define HAVE_NO_SUCH' "$d/wrapped/config.h"; then
		pass autoconf/answers
	else
		fail autoconf/answers "run checks or missing headers/functions answered wrong" "$d/wrapped/config.h"
	fi
}
section_autoconf() {
	if command -v autoconf >/dev/null; then
		autoconf_test
	else
		fail autoconf "autoconf is missing (scripts/install-deps.sh --test)"
	fi
}

# ---- inline-heavy code: the default marks real functions only ----------------------
# records DATA: the number of records info counts in a trace
records() {
	"$CT" info -i "$1" 2>/dev/null | sed -n 's/^records: *\([0-9,]*\).*/\1/p' | tr -d ,
}
# inline_build NAME CC [ENV...]: inline.c built the default way and with
# --method=finstrument, each traced for 100 rounds: hash_block called 100 times
# either way, the helpers only with finstrument, which records far more.
inline_build() {
	local name=$1 cc=$2 dir=$out/inline-$1 m rec_def rec_fin
	shift 2
	mkdir -p "$dir"
	for m in default finstrument; do
		local opt=()
		[ $m = finstrument ] && opt=(--method=finstrument)
		if ! (cd "$dir" && timeout -k 5 60 env "$@" "$cc" "${opt[@]}" -O2 "$here/inline.c" -o "$m" &&
			timeout -k 5 60 "$CT" record -o "$m.data" "./$m" 100 >"$m.out" &&
			timeout -k 5 60 "$CT" report -i "$m.data" --csv >"$m.csv") >"$dir/$m.log" 2>&1; then
			fail "inline/$name/$m" "build, record or report failed" "$dir/$m.log"
			return
		fi
	done
	if "$PY" - "$dir/default.csv" >"$dir/counts.out" 2>&1 <<'PYEOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
calls = [h.lower() for h in rows[0]].index('calls')
got = {r[0]: int(r[calls]) for r in rows[1:]}
assert got == {'main': 1, 'hash_block': 100}, got
PYEOF
	then
		pass "inline/$name/default-counts"
	else
		fail "inline/$name/default-counts" "the default build's trace is not main and hash_block x100" "$dir/counts.out"
	fi
	if grep -q '^"\?mix"\?,' "$dir/finstrument.csv"; then
		pass "inline/$name/finstrument-selectable"
	else
		fail "inline/$name/finstrument-selectable" "--method=finstrument did not trace the inlined helper mix" "$dir/finstrument.csv"
	fi
	rec_def=$(records "$dir/default.data")
	rec_fin=$(records "$dir/finstrument.data")
	if [ -n "$rec_def" ] && [ -n "$rec_fin" ] && [ "$rec_def" -le 300 ] && [ "$rec_fin" -ge $((rec_def * 1000)) ]; then
		pass "inline/$name/fewer-events"
	else
		fail "inline/$name/fewer-events" "records: default '$rec_def' (want <= 300), finstrument '$rec_fin' (want >= 1000x)"
	fi
}
section_inline() {
	inline_build gcc "$WCC"
	if command -v clang >/dev/null; then
		inline_build clang "$WCC" CALLTRACE_CC=clang
	else
		fail inline/clang "clang is missing (scripts/install-deps.sh)"
	fi
}

# ---- system headers: their functions left unpatched at record time -------------------
# names NAME DATA: the functions report --json lists, one a line, in NAME.names
names_of() {
	"$CT" report -i "$2" --json 2>"$1.err" |
		"$PY" -c 'import json,sys
for r in json.load(sys.stdin): print(r["name"], r["calls"])' >"$1.names" 2>>"$1.err"
}
# mutex.cc at -O0 (default build: patchable entries) calls gthr-default.h's
# __gthread_* helpers, declared in a system header: the recorder's DWARF list
# keeps them unpatched, on a first run, from the cache, and with --no-cache;
# bump's and main's counts exact. --method=patch still takes them (they exist).
section_syshdr() {
	local d=$out/syshdr run
	mkdir -p "$d" && cp "$here/mutex.cc" "$d/"
	if ! (cd "$d" && "$WCXX" -O0 -g -o mutex mutex.cc -pthread) >"$d/build.log" 2>&1; then
		fail syshdr/build "calltrace-c++ failed" "$d/build.log"
		return
	fi
	for run in first cached no-cache; do
		local opt=
		[ "$run" = no-cache ] && opt=--no-cache
		timeout -k 5 60 "$CT" record $opt -o "$d/$run.data" "$d/mutex" >"$d/$run.out" 2>&1
		names_of "$d/$run" "$d/$run.data"
		if grep -q '^__gthread' "$d/$run.names"; then
			fail "syshdr/$run" "a function from a system header was patched" "$d/$run.names"
		elif ! grep -qx 'bump 5' "$d/$run.names" || ! grep -qx 'main 1' "$d/$run.names"; then
			fail "syshdr/$run" "bump or main not counted exactly" "$d/$run.names"
		else
			pass "syshdr/$run"
		fi
	done
	if [ "$(ls "$XDG_CACHE_HOME/calltrace" | grep -c '\.syshdr$')" -ge 1 ]; then
		pass syshdr/list-kept
	else
		fail syshdr/list-kept "no .syshdr list kept in the cache"
	fi
	timeout -k 5 60 "$CT" record --method=patch -o "$d/patch.data" "$d/mutex" >"$d/patch.out" 2>&1
	names_of "$d/patch" "$d/patch.data"
	if grep -q '^__gthread_mutex_lock 5$' "$d/patch.names"; then
		pass syshdr/patch-method-takes-them
	else
		fail syshdr/patch-method-takes-them "the helpers are not there to leave out" "$d/patch.names"
	fi
}

# ---- fentry and patchable: markers, a normal run, no gmon.out -------------------------
# runs NAME DIR PROG: PROG prints 42 and exits 0 in DIR, leaving no gmon.out.
runs() {
	local name=$1 dir=$2 prog=$3 got
	got=$(cd "$dir" && "./$prog" 2>&1)
	if [ $? != 0 ] || [ "$got" != 42 ]; then
		fail "$name" "$prog printed '$got'"
	elif [ -e "$dir/gmon.out" ]; then
		fail "$name" "$prog wrote gmon.out (gprof's machinery was linked)"
	else
		pass "$name"
	fi
}
# marker NAME CHECK-ARGS...: check.py passes.
marker() {
	local name=$1
	shift
	if "$PY" "$CHECK" "$@" >"$out/methods.out" 2>&1; then
		pass "$name"
	else
		fail "$name" "$(head -n1 "$out/methods.out")" "$out/methods.out"
	fi
}
# methods NAME CC [ENV...]: build markers.c every way with --method=fentry and patchable.
methods() {
	local name=$1 cc=$2 dir=$out/$1
	shift 2
	mkdir -p "$dir"
	cp "$here/markers.c" "$dir/"
	(
		cd "$dir" || exit 1
		set -ex
		env "$@" "$cc" --method=fentry -ffunction-sections -c markers.c -o fentry.o
		env "$@" "$cc" fentry.o -o fentry-linked
		env "$@" "$cc" --method=fentry -ffunction-sections markers.c -o fentry-onestep
		env "$@" "$cc" --method=fentry -fno-pie -ffunction-sections -c markers.c -o fentry-nopie.o
		# gcc's driver refuses -pg with -fomit-frame-pointer; -mfentry does not need it
		env "$@" "$cc" --method=fentry -O2 -fomit-frame-pointer -c markers.c -o fentry-omitfp.o
		env "$@" "$cc" -no-pie fentry-nopie.o -o fentry-nopie
		env "$@" "$cc" --method=patchable -ffunction-sections -c markers.c -o patchable.o
		env "$@" "$cc" patchable.o -o patchable-linked
		env "$@" "$cc" --method=patchable -ffunction-sections markers.c -o patchable-onestep
	) >"$dir/build.log" 2>&1
	if [ $? != 0 ]; then
		fail "$name/build" "a build failed" "$dir/build.log"
		return
	fi
	if grep -qi 'warning' "$dir/build.log"; then
		fail "$name/build" "warnings while building" "$dir/build.log"
	else
		pass "$name/build"
	fi
	for p in fentry-linked fentry-onestep fentry-nopie patchable-linked patchable-onestep; do
		runs "$name/run-$p" "$dir" "$p"
	done
	marker "$name/patchable-nops" entry "$dir/patchable.o" nops add twice main
	marker "$name/patchable-section" section "$dir/patchable.o" __patchable_function_entries
}
section_methods() {
	methods gcc "$WCC"
	# gcc: position-independent code (Debian's default) calls __fentry__ first
	# thing; other code has nops recorded in __mcount_loc (-mnop-mcount -mrecord-mcount).
	marker gcc/fentry-pic-call entry "$out/gcc/fentry.o" fentry-call add twice main
	marker gcc/fentry-nopie-nops entry "$out/gcc/fentry-nopie.o" nops add twice main
	marker gcc/fentry-nopie-mcount-loc section "$out/gcc/fentry-nopie.o" __mcount_loc
	if command -v clang >/dev/null; then
		methods clang "$WCC" CALLTRACE_CC=clang
		# clang 14 on x86-64: a call to __fentry__, no nops, no __mcount_loc
		marker clang/fentry-call entry "$out/clang/fentry.o" fentry-call add twice main
		marker clang/fentry-nopie-call entry "$out/clang/fentry-nopie.o" fentry-call add twice main
	fi
}

# ---- the wrapper's options -----------------------------------------------------------
d=$out/options
# verbose CC ARGS...: run in $d with --calltrace-verbose, the command line in $d/cmd
verbose() {
	local cc=$1 st
	shift
	(cd "$d" && "$cc" --calltrace-verbose "$@" >out 2>err)
	st=$?
	# the command line is the wrapper's last line (a cache warning may come first)
	sed -n 's/^calltrace-c[c+]*: //p' "$d/err" | tail -n1 >"$d/cmd"
	return $st
}
one_line_err() { # FILE PREFIX: exactly one line in FILE, starting PREFIX
	[ "$(wc -l <"$1")" = 1 ] && head -n1 "$1" | grep -q "^$2"
}
names() { # PROG: the functions a trace of $d/PROG shows, sorted, on one line
	(cd "$d" && "$CT" record -o "$1.data" "./$1" >/dev/null 2>&1 &&
		"$CT" report -i "$1.data" --csv | sed 1d | cut -d, -f1 | tr -d '"' | sort | tr '\n' ' ')
}
section_options() {
	local st want got missing added args cxxinc v fb spec w c
	mkdir -p "$d"
	printf 'int f(void) { return 1; }\n' >"$d/x.c"
	printf 'int f() { return 1; }\n' >"$d/x.cpp"
	printf 'int f(void) { return 1 }\n' >"$d/bad.c"
	printf '\t.text\n' >"$d/x.s"
	printf 'int main(void) { return 0; }\n' >"$d/m.c"
	(cd "$d" && gcc -c x.c -o x.o && gcc -c m.c -o m.o)

	# unknown method: one line, exit 2, the same from the environment
	(cd "$d" && "$WCC" --method=bogus -c x.c >out 2>err)
	st=$?
	if [ $st = 2 ] && one_line_err "$d/err" 'calltrace-cc: ' && grep -q bogus "$d/err"; then
		pass unknown-method
	else
		fail unknown-method "exit $st, expected 2 and one line naming the method" "$d/err"
	fi
	(cd "$d" && CALLTRACE_METHOD=nope "$WCC" -c x.c >out 2>err)
	st=$?
	if [ $st = 2 ] && one_line_err "$d/err" 'calltrace-cc: '; then
		pass unknown-method-env
	else
		fail unknown-method-env "exit $st, expected 2 and one line" "$d/err"
	fi

	# --help: the wrapper's own usage on stdout, with the environment variables
	"$WCC" --help >"$d/help" 2>"$d/help.err"
	st=$?
	missing=
	for w in --method=METHOD --exclude-path --calltrace-verbose CALLTRACE_CC CALLTRACE_CXX \
		CALLTRACE_METHOD CALLTRACE_EXCLUDE_PATH CALLTRACE_CC_VERBOSE finstrument fentry patchable clang; do
		grep -q -- "$w" "$d/help" || missing="$missing $w"
	done
	if [ $st = 0 ] && [ -z "$missing" ] && ! [ -s "$d/help.err" ]; then
		pass help
	else
		fail help "exit $st, or the usage lacks:$missing" "$d/help.err"
	fi

	# verbose: -finstrument-functions and the exclude list with the C++ system include dir
	cxxinc=$(g++ -x c++ -E -v - </dev/null 2>&1 | sed -n '/^#include <...> search starts here:/,/^End of search list/p' |
		grep -m1 'c++' | sed 's/^ *//')
	verbose "$WCXX" --method=finstrument -c x.cpp
	if grep -q -- ' -finstrument-functions ' "$d/cmd" &&
		grep -q -- "-finstrument-functions-exclude-file-list=[^ ]*$cxxinc" "$d/cmd" && [ -n "$cxxinc" ]; then
		pass verbose-exclude-list
	else
		fail verbose-exclude-list "no -finstrument-functions or no '$cxxinc' in the exclude list" "$d/err"
	fi
	(cd "$d" && CALLTRACE_CC_VERBOSE=1 "$WCC" -c x.c >out 2>err)
	if grep -q -- '^calltrace-cc: gcc -g -fpatchable-function-entry=5,0 ' "$d/err"; then
		pass verbose-env
	else
		fail verbose-env "CALLTRACE_CC_VERBOSE=1 printed no command line" "$d/err"
	fi

	# pass-through: the command line is the user's, the output the compiler's
	for args in "--version" "-v" "-dumpversion" "-dumpmachine" "-print-search-dirs" \
		"-print-prog-name=ld" "-E x.c" "-M x.c" "-MM x.c" "x.o m.o -o x" "-c x.s"; do
		# shellcheck disable=SC2086
		verbose "$WCC" $args
		if [ "$(cat "$d/cmd")" = "gcc $args" ]; then
			pass "pass-through/$args"
		else
			fail "pass-through/$args" "the command became: $(cat "$d/cmd")"
		fi
	done
	(cd "$d" && "$WCC" --version >w.out 2>&1 && gcc --version >g.out 2>&1 && "$WCC" -E x.c >we.out 2>&1 &&
		gcc -E x.c >ge.out 2>&1)
	if cmp -s "$d/w.out" "$d/g.out" && cmp -s "$d/we.out" "$d/ge.out"; then
		pass pass-through/same-output
	else
		fail pass-through/same-output "--version or -E output differs from gcc's"
	fi

	# -g: added unless the user chose (-g0 respected); a modifier alone does not choose
	for spec in "-c x.c:yes" "-g0 -c x.c:no" "-ggdb3 -c x.c:no" "-gdwarf-4 -c x.c:no" "-gsplit-dwarf -c x.c:yes"; do
		args=${spec%:*}
		# shellcheck disable=SC2086
		verbose "$WCC" $args
		if grep -q -- ' -g ' "$d/cmd"; then added=yes; else added=no; fi
		if [ "$added" = "${spec#*:}" ]; then
			pass "debug/$args"
		else
			fail "debug/$args" "-g added: $added, expected ${spec#*:}: $(cat "$d/cmd")"
		fi
	done

	# the user's -fno-instrument-functions or -fpatchable-function-entry=0 comes after ours, and wins
	(cd "$d" && "$WCC" --method=finstrument -fno-instrument-functions -c x.c -o noinst.o &&
		"$WCC" -fpatchable-function-entry=0 -c x.c -o nopatch.o)
	if readelf -sW "$d/noinst.o" | grep -q __cyg_profile_func_enter || ! [ -f "$d/nopatch.o" ] ||
		readelf -SW "$d/nopatch.o" | grep -q __patchable_function_entries; then
		fail user-flags-win "-fno-instrument-functions or -fpatchable-function-entry=0 did not win"
	else
		pass user-flags-win
	fi

	# a response file is read to classify the command
	printf -- '-c x.c\n-o rsp.o\n' >"$d/args.rsp"
	verbose "$WCC" @args.rsp
	if grep -q -- '-fpatchable-function-entry' "$d/cmd" && [ -f "$d/rsp.o" ]; then
		pass response-file
	else
		fail response-file "no flags added for @args.rsp ($(cat "$d/cmd"))" "$d/err"
	fi

	# a compile error: the compiler's status and message, untouched
	(cd "$d" && gcc -c bad.c -o bad.o >/dev/null 2>&1)
	want=$?
	(cd "$d" && "$WCC" -c bad.c -o bad.o >out 2>err)
	st=$?
	if [ $st = "$want" ] && [ $st != 0 ] && grep -q 'error' "$d/err"; then
		pass compile-error-status
	else
		fail compile-error-status "exit $st, expected $want with gcc's message" "$d/err"
	fi

	# a compiler that cannot be run: one line, exit 127
	for spec in "$WCC:CALLTRACE_CC=$d/no-such-cc" "$WCXX:CALLTRACE_CXX=no-such-cxx-ct" "$WCC:CALLTRACE_CC=$WCC"; do
		(cd "$d" && env "${spec#*:}" "${spec%%:*}" -c x.c >out 2>err)
		st=$?
		if [ $st = 127 ] && one_line_err "$d/err" "calltrace-c[c+]*: cannot run '"; then
			pass "cannot-run/${spec#*:}"
		else
			fail "cannot-run/${spec#*:}" "exit $st, expected 127 and one line" "$d/err"
		fi
	done

	# the C++ compiler follows CALLTRACE_CC: fake compilers that print their name
	fb=$d/fakebin
	mkdir -p "$fb"
	for c in gcc-12 g++-12 clang-14 clang++-14 clang clang++ mycc g++; do
		printf '#!/bin/sh\necho %s\n' "$c" >"$fb/$c"
		chmod +x "$fb/$c"
	done
	for spec in "$fb/gcc-12:g++-12" "clang-14:clang++-14" "clang:clang++" "mycc:g++"; do
		got=$(cd "$d" && PATH="$fb:$PATH" CALLTRACE_CC=${spec%:*} "$WCXX" --version 2>&1)
		if [ "$got" = "${spec#*:}" ]; then
			pass "cxx-sibling/${spec%:*}"
		else
			fail "cxx-sibling/${spec%:*}" "ran '$got', expected ${spec#*:}"
		fi
	done

	# the wrapper installed as "gcc"/"g++" first in PATH runs the real ones further on
	mkdir -p "$d/mq"
	ln -sf "$WCC" "$d/mq/gcc"
	ln -sf "$WCC" "$d/mq/g++"
	if (cd "$d" && PATH="$d/mq:$PATH" gcc -c x.c -o mq.o && PATH="$d/mq:$PATH" g++ -c x.cpp -o mqxx.o) >"$d/mq.log" 2>&1 &&
		readelf -SW "$d/mq.o" | grep -q __patchable_function_entries &&
		readelf -SW "$d/mqxx.o" | grep -q __patchable_function_entries; then
		pass masquerade
	else
		fail masquerade "calltrace-cc as gcc in PATH did not compile with the real gcc" "$d/mq.log"
	fi

	# --exclude-path (also from the environment): functions of that directory not
	# traced, with a comma in its name (gcc wants it escaped); finstrument's
	export CALLTRACE_METHOD=finstrument
	v="$d/we,ird vendor"
	mkdir -p "$v"
	printf '__attribute__((noinline)) static int vendor_twice(int x) { return 2 * x; }\n' >"$v/vendor.h"
	printf '#include "vendor.h"\n__attribute__((noinline)) int own(int x) { return vendor_twice(x); }\nint main(void) { return own(2) - 4; }\n' >"$d/ex.c"
	(cd "$d" && "$WCC" -I "$v" ex.c -o ex-all && "$WCC" --exclude-path="$v" -I "$v" ex.c -o ex-cmd &&
		CALLTRACE_EXCLUDE_PATH="/nonexistent:$v" "$WCC" -I "$v" ex.c -o ex-env) >"$d/ex.log" 2>&1
	if [ "$(names ex-all)" = "main own vendor_twice " ] && [ "$(names ex-cmd)" = "main own " ] &&
		[ "$(names ex-env)" = "main own " ]; then
		pass exclude-path
	else
		fail exclude-path "traced: all: $(names ex-all)/ option: $(names ex-cmd)/ env: $(names ex-env)" "$d/ex.log"
	fi
	unset CALLTRACE_METHOD

	# the probe cache: written under XDG_CACHE_HOME; one that cannot be written breaks nothing
	if ls "$XDG_CACHE_HOME"/calltrace/probe-* >/dev/null 2>&1; then
		pass cache-written
	else
		fail cache-written "no probe-* file under $XDG_CACHE_HOME/calltrace"
	fi
	: >"$d/not-a-dir"
	verbose "$WCXX" -c x.cpp -o cached.o
	cp "$d/cmd" "$d/cmd.cached"
	(cd "$d" && XDG_CACHE_HOME=$d/not-a-dir "$WCXX" --calltrace-verbose -c x.cpp -o nocache.o >out 2>err)
	st=$?
	sed -n 's/^calltrace-c[c+]*: //p' "$d/err" | tail -n1 | sed 's/nocache/cached/' >"$d/cmd.nocache"
	if [ $st = 0 ] && cmp -s "$d/cmd.cached" "$d/cmd.nocache" && [ -f "$d/nocache.o" ]; then
		pass cache-unwritable
	else
		fail cache-unwritable "exit $st, or other flags without the cache" "$d/err"
	fi
}

# ---- run: the slow sections (configure runs, CMake) in the background ---------------
section_autoconf >"$out/s-autoconf.txt" 2>&1 &
section_cmake >"$out/s-cmake.txt" 2>&1 &
section_make >"$out/s-make.txt" 2>&1
section_methods >"$out/s-methods.txt" 2>&1
section_inline >"$out/s-inline.txt" 2>&1
section_syshdr >"$out/s-syshdr.txt" 2>&1
section_options >"$out/s-options.txt" 2>&1
wait
cat "$out"/s-make.txt "$out"/s-cmake.txt "$out"/s-autoconf.txt \
	"$out"/s-inline.txt "$out"/s-syshdr.txt "$out"/s-methods.txt "$out"/s-options.txt
finish
