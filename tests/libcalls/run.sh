#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record --libcalls: calls.c (libc, a library of its own without symbol
# versions, a qsort callback, a longjmp out of it, threads) and throws.cpp
# (exceptions thrown inside libstdc++, caught in the program), built with
# gcc and clang, -O0 and -O2, with lazy binding, -z now and -fno-plt (and
# IBT's .plt.sec), traced by patching and with -finstrument-functions:
# the program's output unchanged, every library call counted exactly and
# named name@library, and the expected trees. Then -P 'func@lib' patterns.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite libcalls
here=$HERE root=$ROOT
out=$OUT/libcalls
CHECK="$root/tests/lib/ctcheck.py"
rm -rf "$out"
mkdir -p "$out"
suite_tally "$out/.tally"
cd "$out" || exit 1

# the program's own library, unversioned: its calls are named after the file defining them
if ! gcc -O2 -g -shared -fPIC "$here/lcdep.c" -o "$out/liblcdep.so" 2>"$out/lib.err"; then
	fail build-lib "liblcdep.so did not build" "$out/lib.err"
	finish
fi

# traced NAME DIR ARGS...: record, same output as alone, counts and tree as expected;
# $tree is the expected tree, $ignore a regex of names the program does not count,
# $hide a glob of calls left out of the tree
traced() {
	local name=$1 d=$2
	shift 2
	"$d/prog" "$@" >"$d/native.out" 2>"$d/native.err"
	if ! "$CT" record -o "$d/t.data" --libcalls "$d/prog" "$@" >"$d/traced.out" 2>"$d/traced.err"; then
		fail "$name/record" "calltrace record failed" "$d/traced.err"
		return
	fi
	cmp -s "$d/native.out" "$d/traced.out" && cmp -s "$d/native.err" "$d/traced.err" &&
		pass "$name/same-output" ||
		fail "$name/same-output" "the program's output changed when traced" "$d/traced.err"
	"$CT" report -i "$d/t.data" --json >"$d/report.json" 2>"$d/err" &&
		"$PY" "$CHECK" check-counts "$d/report.json" "$d/native.out" \
			--ignore '^(printf|puts|putchar)@' ${ignore:+--ignore "$ignore"} >"$d/counts" 2>&1 &&
		pass "$name/counts" || fail "$name/counts" "counts differ" "$d/counts"
	"$CT" replay -i "$d/t.data" -N 'printf@*' -N 'puts@*' -N '__errno_location@*' \
		-N 'strlen@*' -N 'memcpy@*' -N 'memmove@*' ${hide:+-N "$hide"} 2>"$d/err" |
		"$PY" "$CHECK" tree /dev/stdin >"$d/tree" 2>>"$d/err"
	if diff -u "$here/$tree" "$d/tree" >"$d/tree.diff"; then
		pass "$name/tree"
	else
		fail "$name/tree" "the tree differs from $tree" "$d/tree.diff"
	fi
}

for cc in gcc clang; do
	for opt in O0 O2; do
		for link in lazy now noplt ibt; do
			[ $link = ibt ] && [ $cc = clang ] && continue
			for method in patch finstrument; do
				[ $link = ibt ] && [ $method = finstrument ] && continue
				name=calls-$cc-$opt-$link-$method d=$out/$name tree=calls.tree args=3 ignore= hide=
				mkdir -p "$d"
				flags=(-g "-$opt" -pthread)
				case $link in
				now) flags+=(-Wl,-z,now) ;;
				noplt) flags+=(-fno-plt) ;;
				ibt) flags+=(-fcf-protection=full -Wl,-z,ibtplt) ;;
				esac
				[ $method = finstrument ] && flags+=(-finstrument-functions)
				if ! $cc "${flags[@]}" "$here/calls.c" -o "$d/prog" -L"$out" -llcdep \
					-Wl,-rpath,"$out" 2>"$d/build.err"; then
					fail "$name" "build failed" "$d/build.err"
					continue
				fi
				traced "$name" "$d" $args
			done
		done
	done
done

for cc in g++ clang++; do
	for opt in O0 O2; do
		for link in lazy noplt; do
			name=throws-$cc-$opt-$link d=$out/$name tree=throws.tree args= ignore=@ hide='strtol@*'
			mkdir -p "$d"
			flags=(-g "-$opt")
			[ $link = noplt ] && flags+=(-fno-plt)
			if ! $cc "${flags[@]}" "$here/throws.cpp" -o "$d/prog" 2>"$d/build.err"; then
				fail "$name" "build failed" "$d/build.err"
				continue
			fi
			traced "$name" "$d" $args
		done
	done
done

# ---- patterns: only some library calls, some left out ------------------------------
d=$out/calls-gcc-O2-lazy-patch
names() { "$CT" report -i "$1" --json | "$PY" -c 'import json,sys; print(" ".join(sorted(e["name"] for e in json.load(sys.stdin) if "@" in e["name"])))'; }
if [ -x "$d/prog" ]; then
	"$CT" record -o "$d/p.data" -P 'str*@libc*' -P '*@liblcdep.so' "$d/prog" 3 >/dev/null 2>&1
	got=$(names "$d/p.data")
	[ "$got" = "lc_twice@liblcdep.so strlen@libc.so.6 strtol@libc.so.6" ] && pass pattern ||
		fail pattern "-P 'str*@libc*' -P '*@liblcdep.so' traced: $got"
	"$CT" record -o "$d/n.data" --libcalls -P '!*@libc.so.6' "$d/prog" 3 >/dev/null 2>&1
	got=$(names "$d/n.data")
	[ "$got" = "lc_twice@liblcdep.so" ] && pass pattern-exclude ||
		fail pattern-exclude "--libcalls -P '!*@libc.so.6' traced: $got"
	"$CT" info -i "$d/t.data" >"$d/info" 2>&1
	grep -q '^libcalls: *calls to [1-9][0-9]* library functions traced' "$d/info" &&
		pass info || fail info "info does not count the library calls" "$d/info"
	"$CT" report -i "$d/t.data" -F 'qsort' --json | grep -q '"cmp"' &&
		pass filter-bare-name || fail filter-bare-name "-F qsort does not take qsort@libc.so.6"
fi
finish
