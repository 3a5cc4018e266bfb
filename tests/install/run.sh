#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make install / make uninstall, calltrace.pc and the man pages. tests/run.sh
# runs it; alone (after `make`):
#
#   tests/install/run.sh
#
# Environment: BUILD, CALLTRACE, TEST_OUT, as for tests/run.sh. Installs into
# prefixes under $TEST_OUT/install (PREFIX=, DESTDIR=, other LIBDIR/MANDIR/
# PKGCONFIGDIR), checks every file is there, builds tests/install/api.c
# (every API function) with the installed pkg-config file as C and C++, runs it
# without calltrace and under the installed `calltrace record`, renders every
# man page (no groff warning) and checks they cover every command and option
# of `--help`, uninstalls and checks nothing is left but what was not ours.
# Prints `ok install/NAME` or `FAIL install/NAME: REASON`. No check depends on
# time.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite install
here=$HERE root=$ROOT build=$B build_arg=$BUILD
out=$OUT/install
rm -rf "$out"
mkdir -p "$out"
suite_tally "$out/.tally"
cd "$out" || exit 2
# make in the repository, without the jobserver of an outer make (make check).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$root" --no-print-directory BUILD="$build_arg" "$@"; }
# Every file and symbolic link under a directory, relative to it, sorted.
files_under() { (cd "$1" 2>/dev/null && find . \( -type f -o -type l \) | sed 's|^\./||' | sort); }

version=$("$CT" --version 2>/dev/null | sed -n 's/^calltrace //p')
commands=$("$CT" --help 2>/dev/null | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\)  .*/\1/p')
functions=$(sed -n 's/^CALLTRACE_API [^(]*[ *]\(calltrace_[a-z_]*\)(.*/\1/p' "$root/include/calltrace.h")
wrappers=
[ -x "$build/calltrace-cc" ] && wrappers=1
[ -n "$version" ] || fail version "$CT --version printed no version"
[ -n "$commands" ] || fail commands "no command listed by $CT --help"
[ -n "$functions" ] || fail functions "no CALLTRACE_API function found in include/calltrace.h"

# What make install must put under PREFIX (default directories).
expected() {
	local c f
	echo bin/calltrace
	if [ -n "$wrappers" ]; then
		echo bin/calltrace-cc
		echo bin/calltrace-c++
		echo share/man/man1/calltrace-cc.1
		echo share/man/man1/calltrace-c++.1
	fi
	echo lib/libcalltrace.so
	echo lib/libcalltrace-attach.so
	echo lib/libcalltrace-api.so
	echo lib/libcalltrace-dwarf.so
	echo include/calltrace.h
	echo lib/pkgconfig/calltrace.pc
	echo share/man/man1/calltrace.1
	for c in $commands; do echo "share/man/man1/calltrace-$c.1"; done
	echo share/man/man3/calltrace.3
	for f in $functions; do echo "share/man/man3/$f.3"; done
}
expected | sort >"$out/expected.txt"

# check_tree NAME DIR: DIR holds exactly the expected files, each right.
check_tree() {
	local name=$1 p=$2 why=
	files_under "$p" >"$out/$name.files"
	if ! diff "$out/expected.txt" "$out/$name.files" >"$out/$name.diff"; then
		fail "$name" "the installed files are not the expected ones (< missing, > extra)" "$out/$name.diff"
		return 1
	fi
	cmp -s "$build/calltrace" "$p/bin/calltrace" || why="bin/calltrace is not build/calltrace"
	cmp -s "$build/libcalltrace.so" "$p/lib/libcalltrace.so" || why="lib/libcalltrace.so is not the built one"
	cmp -s "$build/libcalltrace-api.so" "$p/lib/libcalltrace-api.so" || why="lib/libcalltrace-api.so is not the built one"
	cmp -s "$build/libcalltrace-dwarf.so" "$p/lib/libcalltrace-dwarf.so" || why="lib/libcalltrace-dwarf.so is not the built one"
	cmp -s "$root/include/calltrace.h" "$p/include/calltrace.h" || why="include/calltrace.h differs"
	[ "$(stat -c %a "$p/bin/calltrace")" = 755 ] || why="bin/calltrace is not mode 755"
	[ "$(stat -c %a "$p/include/calltrace.h")" = 644 ] || why="include/calltrace.h is not mode 644"
	[ "$(stat -c %a "$p/share/man/man1/calltrace.1")" = 644 ] || why="man1/calltrace.1 is not mode 644"
	if [ -n "$wrappers" ]; then
		[ -x "$p/bin/calltrace-cc" ] && [ ! -L "$p/bin/calltrace-cc" ] || why="bin/calltrace-cc is not an executable file"
		[ "$(readlink "$p/bin/calltrace-c++")" = calltrace-cc ] || why="bin/calltrace-c++ is not a symbolic link to calltrace-cc"
	fi
	if [ -n "$why" ]; then
		fail "$name" "$why"
		return 1
	fi
	pass "$name"
}

# ---- make install PREFIX=... -------------------------------------------------------
prefix=$out/prefix
if mk install PREFIX="$prefix" >"$out/install.log" 2>&1; then
	pass make-install
else
	fail make-install "make install PREFIX=$prefix failed" "$out/install.log"
fi
if grep -q "^install -m 755 .*calltrace" "$out/install.log"; then
	pass make-install-prints-commands
else
	fail make-install-prints-commands "make install did not print its install -m commands" "$out/install.log"
fi
check_tree files "$prefix"

# Installing again over the same prefix works and changes nothing.
if mk install PREFIX="$prefix" >"$out/install2.log" 2>&1; then
	check_tree reinstall "$prefix"
else
	fail reinstall "a second make install failed" "$out/install2.log"
fi

# ---- calltrace.pc ------------------------------------------------------------------
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
unset PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR
flags=$(pkg-config --cflags --libs calltrace 2>"$out/pkg-config.err")
if [ $? != 0 ]; then
	fail pkg-config "pkg-config --cflags --libs calltrace failed" "$out/pkg-config.err"
elif [ "$(echo $flags)" != "-I$prefix/include -L$prefix/lib -lcalltrace-api" ]; then
	fail pkg-config "pkg-config --cflags --libs calltrace gives '$flags', expected -I$prefix/include -L$prefix/lib -lcalltrace-api"
else
	pass pkg-config
fi
pcver=$(pkg-config --modversion calltrace 2>/dev/null)
if [ -n "$version" ] && [ "$pcver" = "$version" ]; then
	pass pkg-config-version
else
	fail pkg-config-version "pkg-config --modversion says '$pcver', calltrace --version '$version'"
fi

# ---- a program using the API, built against the installed files -------------------
api_ok=
if gcc -O2 -Wall -Werror -o "$out/api_c" "$here/api.c" $(pkg-config --cflags --libs calltrace) 2>"$out/api_c.err"; then
	pass build-c
	api_ok=1
else
	fail build-c "gcc with the installed pkg-config flags failed" "$out/api_c.err"
fi
if g++ -x c++ -O2 -Wall -Werror -o "$out/api_cxx" "$here/api.c" $(pkg-config --cflags --libs calltrace) 2>"$out/api_cxx.err"; then
	pass build-c++
else
	fail build-c++ "g++ with the installed header and pkg-config flags failed (extern \"C\"?)" "$out/api_cxx.err"
fi
if gcc -g -O0 -finstrument-functions -o "$out/api_inst" "$here/api.c" $(pkg-config --cflags --libs calltrace) 2>"$out/api_inst.err"; then
	pass build-instrumented
else
	fail build-instrumented "gcc -finstrument-functions with the installed pkg-config flags failed" "$out/api_inst.err"
fi

# Without calltrace: the stubs answer (not active, no backtrace, no snapshot).
noct() { env -u LD_PRELOAD -u CALLTRACE_POOL -u CALLTRACE_OUTPUT -u CALLTRACE_RING LD_LIBRARY_PATH="$prefix/lib" "$@"; }
for v in c cxx inst; do
	[ -x "$out/api_$v" ] || continue
	noct "$out/api_$v" >"$out/api_$v.out" 2>"$out/api_$v.run.err"
	st=$?
	if [ $st != 0 ]; then
		fail "run-without-calltrace-$v" "exit status $st" "$out/api_$v.run.err"
	elif [ "$(cat "$out/api_$v.out")" != "active=0 backtrace=0 snapshot=-1 sum=91 api=1" ]; then
		fail "run-without-calltrace-$v" "printed '$(cat "$out/api_$v.out")', expected 'active=0 backtrace=0 snapshot=-1 sum=91 api=1'"
	else
		pass "run-without-calltrace-$v"
	fi
done
if [ -n "$api_ok" ]; then
	lib=$(noct ldd "$out/api_c" 2>/dev/null | sed -n 's/.*libcalltrace-api\.so => \([^ ]*\).*/\1/p')
	if [ "$lib" = "$prefix/lib/libcalltrace-api.so" ]; then
		pass links-installed-api-library
	else
		fail links-installed-api-library "the program loads libcalltrace-api.so from '$lib', expected $prefix/lib"
	fi
fi

# ---- the installed calltrace finds its installed runtime --------------------------
if [ -x "$out/api_inst" ]; then
	mkdir -p "$out/rec"
	(cd "$out/rec" && env -u CALLTRACE_RUNTIME LD_LIBRARY_PATH="$prefix/lib" \
		timeout -k 5 120 "$prefix/bin/calltrace" record -o rec.data ../api_inst \
		>"$out/rec/record.out" 2>"$out/rec/record.err")
	st=$?
	if [ $st != 0 ]; then
		fail record-installed "$prefix/bin/calltrace record exited $st (again: cd $out/rec && LD_LIBRARY_PATH=$prefix/lib $prefix/bin/calltrace record -o rec.data ../api_inst)" "$out/rec/record.err"
	elif ! grep -q 'sum=91 api=1$' "$out/rec/record.out"; then
		fail record-installed "the program's output under record is not right" "$out/rec/record.out"
	else
		pass record-installed
	fi
	if "$prefix/bin/calltrace" replay -i "$out/rec/rec.data" >"$out/rec/replay.txt" 2>"$out/rec/replay.err"; then
		if grep -q 'ct_inst_compute' "$out/rec/replay.txt" && grep -q 'ct_inst_leaf' "$out/rec/replay.txt" &&
			grep -q '| main() {' "$out/rec/replay.txt"; then
			pass replay-installed
		else
			fail replay-installed "main, ct_inst_compute or ct_inst_leaf missing from the replay" "$out/rec/replay.txt"
		fi
		if grep -q 'ct_inst_quiet' "$out/rec/replay.txt"; then
			fail no-trace-macro "a CALLTRACE_NO_TRACE function is in the trace" "$out/rec/replay.txt"
		else
			pass no-trace-macro
		fi
	else
		fail replay-installed "replay of the installed calltrace's trace failed" "$out/rec/replay.err"
	fi
	# Without the installed runtime, the installed calltrace finds none (so it
	# was the one found above, not the build tree's).
	mv "$prefix/lib/libcalltrace.so" "$prefix/lib/libcalltrace.so.moved"
	(cd "$out/rec" && env -u CALLTRACE_RUNTIME "$prefix/bin/calltrace" record -o none.data ../api_inst \
		>/dev/null 2>"$out/rec/none.err")
	st=$?
	mv "$prefix/lib/libcalltrace.so.moved" "$prefix/lib/libcalltrace.so"
	if [ $st != 0 ] && grep -q 'libcalltrace.so' "$out/rec/none.err"; then
		pass runtime-from-prefix
	else
		fail runtime-from-prefix "with PREFIX/lib/libcalltrace.so moved away, record exited $st (expected an error naming libcalltrace.so)" "$out/rec/none.err"
	fi
fi

# Standalone: linked with the installed runtime (-lcalltrace), the program writes its
# own trace, the runtime starting the installed calltrace (PREFIX/lib/../bin).
mkdir -p "$out/standalone"
if gcc -g -O0 -finstrument-functions -o "$out/standalone/api_sa" "$here/api.c" \
	$(pkg-config --cflags calltrace) -L"$prefix/lib" -lcalltrace -Wl,-rpath,"$prefix/lib" 2>"$out/standalone/build.err"; then
	(cd "$out/standalone" && env -u CALLTRACE_RECORDER -u CALLTRACE_OUTPUT -u CALLTRACE_POOL -u CALLTRACE_STANDALONE \
		-u CALLTRACE_NO_FOLLOW -u LD_PRELOAD timeout -k 5 120 ./api_sa >run.out 2>run.err)
	st=$?
	if [ $st != 0 ] || ! grep -q 'sum=91 api=1$' "$out/standalone/run.out"; then
		fail standalone-installed "the program linked with -lcalltrace exited $st or printed the wrong result" "$out/standalone/run.err"
	elif ! "$prefix/bin/calltrace" replay -i "$out/standalone/calltrace.data" 2>"$out/standalone/replay.err" |
		grep -q ct_inst_compute; then
		fail standalone-installed "no calltrace.data with ct_inst_compute in the program's directory" "$out/standalone/run.err"
	else
		pass standalone-installed
	fi
else
	fail standalone-installed "cannot link with the installed -lcalltrace" "$out/standalone/build.err"
fi

# The installed compiler wrappers build a program the installed calltrace traces.
if [ -n "$wrappers" ]; then
	for w in calltrace-cc calltrace-c++; do
		x=$out/api_$w
		mkdir -p "$out/rec"
		if ! (cd "$out" && env -u CALLTRACE_METHOD XDG_CACHE_HOME="$out/cache" "$prefix/bin/$w" -O1 -x $([ $w = calltrace-cc ] && echo c || echo c++) \
			"$here/api.c" -x none $(pkg-config --cflags --libs calltrace) -o "$x") >"$x.err" 2>&1; then
			fail "wrapper/$w" "$prefix/bin/$w failed to build api.c" "$x.err"
		elif ! (cd "$out/rec" && env -u CALLTRACE_RUNTIME LD_LIBRARY_PATH="$prefix/lib" \
			timeout -k 5 120 "$prefix/bin/calltrace" record -o "$w.data" "$x" >/dev/null 2>"$x.err") ||
			! "$prefix/bin/calltrace" replay -i "$out/rec/$w.data" 2>>"$x.err" | grep -q 'ct_inst_leaf'; then
			fail "wrapper/$w" "the program built by the installed $w is not traced (ct_inst_leaf missing)" "$x.err"
		else
			pass "wrapper/$w"
		fi
	done
fi

# ---- man pages -----------------------------------------------------------------------
# Every page of man/ renders without a warning; the link pages (.so) from the
# installed tree, where their target is.
mandir=$prefix/share/man
for f in "$root"/man/*.[0-9]; do
	b=$(basename "$f")
	if grep -q '^\.so ' "$f"; then
		continue
	fi
	if groff -man -Tutf8 -ww -z "$f" >"$out/groff.$b" 2>&1 && ! [ -s "$out/groff.$b" ]; then
		pass "groff/$b"
	else
		fail "groff/$b" "groff -man -Tutf8 -ww -z warns or fails" "$out/groff.$b"
	fi
done
for f in $(cd "$mandir" 2>/dev/null && grep -l '^\.so ' man*/*); do
	if (cd "$mandir" && groff -man -Tutf8 -ww -z "$f") >"$out/groff.link" 2>&1 && ! [ -s "$out/groff.link" ]; then
		pass "groff/link/$(basename "$f")"
	else
		fail "groff/link/$(basename "$f")" "the link page does not render from $mandir" "$out/groff.link"
	fi
done
if command -v man >/dev/null; then
	bad=
	for f in $(cd "$mandir" && ls man1/* man3/*); do
		# from the top of the tree, as man does: a .so link names its page from there
		(cd "$mandir" && MANPAGER=cat PAGER=cat MANWIDTH=80 man -l "$f") >"$out/man.out" 2>"$out/man.err"
		st=$?
		if [ $st != 0 ] || [ -s "$out/man.err" ] || ! grep -q '^NAME' "$out/man.out"; then
			bad="$bad $f"
			cp "$out/man.err" "$out/man.err.bad"
		fi
	done
	if [ -z "$bad" ]; then
		pass man-l
	else
		fail man-l "man -l fails, warns or shows no NAME for:$bad" "$out/man.err.bad"
	fi
	# man -w names the page a link (.so) leads to.
	bad=
	for p in calltrace $(for c in $commands; do echo "calltrace-$c"; done) ${wrappers:+calltrace-cc calltrace-c++}; do
		w=$(man -M "$mandir" -w 1 "$p" 2>/dev/null)
		[ "$w" = "$mandir/man1/$p.1" ] || [ "$p:$w" = "calltrace-c++:$mandir/man1/calltrace-cc.1" ] ||
			bad="$bad $p(1)"
	done
	for p in calltrace $functions; do
		w=$(man -M "$mandir" -w 3 "$p" 2>/dev/null)
		[ "$w" = "$mandir/man3/$p.3" ] || [ "$w" = "$mandir/man3/calltrace.3" ] || bad="$bad $p(3)"
	done
	if [ -z "$bad" ]; then
		pass man-finds-installed-pages
	else
		fail man-finds-installed-pages "man -M $mandir does not find:$bad"
	fi
else
	fail man-l "man is missing (man-db; scripts/install-deps.sh --test)"
fi

# The pages say what the tool does: a page per command of `calltrace --help`, each
# long option of `calltrace CMD --help` in it, every API function in calltrace.3,
# the version of `calltrace --version` in each title line.
man_text() { sed 's/\\-/-/g; s/\\%//g' "$1"; }
for c in $commands; do
	page=$root/man/calltrace-$c.1
	if ! [ -f "$page" ]; then
		fail "man-covers/$c" "no man/calltrace-$c.1 for the command $c"
		continue
	fi
	missing=
	for o in $("$CT" "$c" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		man_text "$page" | grep -q -e "$o\\b" || missing="$missing $o"
	done
	man_text "$root/man/calltrace.1" | grep -q "calltrace-$c (1)" || missing="$missing (not in calltrace(1))"
	if [ -z "$missing" ]; then
		pass "man-covers/$c"
	else
		fail "man-covers/$c" "man/calltrace-$c.1 misses:$missing"
	fi
done
if [ -n "$wrappers" ]; then
	missing=
	for o in $("$build/calltrace-cc" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		man_text "$root/man/calltrace-cc.1" | grep -q -e "$o\\b" || missing="$missing $o"
	done
	for v in $(grep -rho 'getenv("CALLTRACE_[A-Z_]*")' "$root/src/wrapper" 2>/dev/null | sed 's/getenv("\(.*\)")/\1/' | sort -u); do
		grep -q "$v" "$root/man/calltrace-cc.1" || missing="$missing $v"
	done
	if [ -z "$missing" ]; then
		pass man-covers/calltrace-cc
	else
		fail man-covers/calltrace-cc "man/calltrace-cc.1 misses:$missing"
	fi
fi
missing=
for f in $functions CALLTRACE_NO_TRACE CALLTRACE_API_VERSION; do
	grep -q "$f" "$root/man/calltrace.3" || missing="$missing $f"
done
if [ -z "$missing" ]; then
	pass man-covers/api
else
	fail man-covers/api "man/calltrace.3 misses:$missing"
fi
bad=
for f in "$root"/man/*.[0-9]; do
	grep -q '^\.so ' "$f" && continue
	grep -q "^\.TH .* \"calltrace $version\" " "$f" || bad="$bad $(basename "$f")"
done
if [ -z "$bad" ]; then
	pass man-version
else
	fail man-version "the .TH line does not say \"calltrace $version\" in:$bad"
fi

# ---- make uninstall ---------------------------------------------------------------------
# Files that are not calltrace's stay.
echo keep >"$prefix/bin/not-calltrace"
echo keep >"$prefix/lib/pkgconfig/other.pc"
if mk uninstall PREFIX="$prefix" >"$out/uninstall.log" 2>&1; then
	left=$(files_under "$prefix" | tr '\n' ' ')
	if [ "$left" = "bin/not-calltrace lib/pkgconfig/other.pc " ]; then
		pass uninstall
	else
		fail uninstall "left in the prefix: $left (expected only bin/not-calltrace lib/pkgconfig/other.pc)"
	fi
else
	fail uninstall "make uninstall PREFIX=$prefix failed" "$out/uninstall.log"
fi
# Again, with nothing installed: nothing to do, no error.
if mk uninstall PREFIX="$prefix" >"$out/uninstall2.log" 2>&1; then
	pass uninstall-twice
else
	fail uninstall-twice "make uninstall on an empty prefix failed" "$out/uninstall2.log"
fi

# ---- DESTDIR: staged, the paths inside say PREFIX ----------------------------------
stage=$out/stage
if mk install DESTDIR="$stage" PREFIX=/opt/calltrace-test >"$out/destdir.log" 2>&1; then
	pass make-install-destdir
	check_tree destdir-files "$stage/opt/calltrace-test"
	pc=$stage/opt/calltrace-test/lib/pkgconfig/calltrace.pc
	if grep -q '^prefix=/opt/calltrace-test$' "$pc" && ! grep -q "$stage" "$pc" &&
		[ "$(PKG_CONFIG_PATH=${pc%/*} pkg-config --variable=libdir calltrace)" = /opt/calltrace-test/lib ]; then
		pass destdir-pc
	else
		fail destdir-pc "calltrace.pc under DESTDIR does not name PREFIX, or names DESTDIR" "$pc"
	fi
	if [ "$(ls -A "$stage")" = opt ]; then
		pass destdir-only
	else
		fail destdir-only "DESTDIR holds more than opt/: $(ls -A "$stage" | tr '\n' ' ')"
	fi
	if mk uninstall DESTDIR="$stage" PREFIX=/opt/calltrace-test >"$out/destdir-un.log" 2>&1 &&
		[ -z "$(files_under "$stage")" ]; then
		pass uninstall-destdir
	else
		fail uninstall-destdir "make uninstall DESTDIR=... left: $(files_under "$stage" | tr '\n' ' ')" "$out/destdir-un.log"
	fi
else
	fail make-install-destdir "make install DESTDIR=$stage PREFIX=/opt/calltrace-test failed" "$out/destdir.log"
fi

# ---- other directories: LIBDIR lib64, MANDIR, PKGCONFIGDIR, INCLUDEDIR ---------------
p3=$out/custom
dirs=(LIBDIR="$p3/lib64" MANDIR="$p3/man" PKGCONFIGDIR="$p3/share/pkgconfig" INCLUDEDIR="$p3/inc")
if mk install PREFIX="$p3" "${dirs[@]}" >"$out/custom.log" 2>&1; then
	sed -e 's|^lib/pkgconfig/|share/pkgconfig/|; s|^lib/|lib64/|; s|^share/man/|man/|; s|^include/|inc/|' \
		"$out/expected.txt" | sort >"$out/custom.expected"
	files_under "$p3" >"$out/custom.files"
	if ! diff "$out/custom.expected" "$out/custom.files" >"$out/custom.diff"; then
		fail custom-dirs "the files are not where LIBDIR, MANDIR, PKGCONFIGDIR, INCLUDEDIR say (< missing, > extra)" "$out/custom.diff"
	elif [ "$(PKG_CONFIG_PATH=$p3/share/pkgconfig pkg-config --cflags --libs calltrace | xargs)" != "-I$p3/inc -L$p3/lib64 -lcalltrace-api" ]; then
		fail custom-dirs "calltrace.pc does not point to LIBDIR and INCLUDEDIR" "$p3/share/pkgconfig/calltrace.pc"
	else
		pass custom-dirs
	fi
	if [ -x "$out/api_inst" ]; then
		mkdir -p "$out/rec64"
		if (cd "$out/rec64" && env -u CALLTRACE_RUNTIME LD_LIBRARY_PATH="$p3/lib64" \
			timeout -k 5 120 "$p3/bin/calltrace" record -o rec.data ../api_inst >/dev/null 2>record.err) &&
			"$p3/bin/calltrace" replay -i "$out/rec64/rec.data" 2>/dev/null | grep -q ct_inst_compute; then
			pass runtime-from-lib64
		else
			fail runtime-from-lib64 "the calltrace installed with LIBDIR=PREFIX/lib64 cannot record" "$out/rec64/record.err"
		fi
	fi
	# record -a: the installed runtime finds its DWARF reader beside it
	printf '%s\n' '__attribute__((noinline)) int twice(int n) { return 2 * n + (n > 100); }' \
		'int main(void) { return twice(21) != 42; }' >"$out/args_inst.c"
	if gcc -g -O0 "$out/args_inst.c" -o "$out/args_inst" 2>/dev/null; then
		mkdir -p "$out/args64"
		if (cd "$out/args64" && env -u CALLTRACE_RUNTIME timeout -k 5 120 "$p3/bin/calltrace" \
			record -a -o rec.data ../args_inst >/dev/null 2>record.err) &&
			"$p3/bin/calltrace" replay -i "$out/args64/rec.data" 2>/dev/null | grep -qF 'twice(n=21) = 42;'; then
			pass args-from-lib64
		else
			fail args-from-lib64 "the calltrace installed with LIBDIR=PREFIX/lib64 does not show arguments" "$out/args64/record.err"
		fi
	fi
	if mk uninstall PREFIX="$p3" "${dirs[@]}" >"$out/custom-un.log" 2>&1 && [ -z "$(files_under "$p3")" ]; then
		pass uninstall-custom-dirs
	else
		fail uninstall-custom-dirs "make uninstall with the same directories left: $(files_under "$p3" | tr '\n' ' ')" "$out/custom-un.log"
	fi
else
	fail custom-dirs "make install with LIBDIR, MANDIR, PKGCONFIGDIR, INCLUDEDIR failed" "$out/custom.log"
fi

# ---- an unwritable prefix: a clear error, nothing installed -----------------------
: >"$out/a-file"
mk install PREFIX="$out/a-file/prefix" >"$out/unwritable.out" 2>"$out/unwritable.err"
st=$?
if [ $st != 0 ] && grep -q '^calltrace: cannot install into ' "$out/unwritable.err" &&
	! grep -q '^install ' "$out/unwritable.out"; then
	pass unwritable-prefix
else
	fail unwritable-prefix "make install into $out/a-file/prefix: exit $st, expected an error line 'calltrace: cannot install into ...' before any install command" "$out/unwritable.err"
fi
finish
