#!/usr/bin/env bash
# The cost of calltrace-cc's methods on inline-heavy code (tests/wrappers/inline.c:
# a loop over static inline helpers): untraced user CPU time, best of 3, of 20,000
# rounds, and the records one traced run of 100 rounds writes, per compiler
# and method, next to the plain build. BUILD as for make (default build).
# Usage: bench/inline_bench.sh [CC...]   (default: gcc clang)
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
best_of_3() { # PROG ARGS...: the least user CPU seconds of three runs
	local best=999 t
	for _ in 1 2 3; do
		t=$({ /usr/bin/time -f %U "$@" >/dev/null; } 2>&1)
		best=$(echo "$t $best" | awk '{ print ($1 < $2) ? $1 : $2 }')
	done
	echo "$best"
}
echo "| compiler | build | untraced CPU, 20,000 rounds | records, 100 rounds traced |"
echo "|---|---|---|---|"
[ $# -gt 0 ] || set -- gcc clang
for cc in "$@"; do
	for m in plain patchable fentry finstrument; do
		bin=$tmp/$cc-$m
		if [ $m = plain ]; then
			$cc -O2 -g "$root/tests/wrappers/inline.c" -o "$bin"
		else
			CALLTRACE_CC=$cc XDG_CACHE_HOME=$tmp "$build/calltrace-cc" --method=$m -O2 \
				"$root/tests/wrappers/inline.c" -o "$bin"
		fi
		t=$(best_of_3 "$bin" 20000)
		(cd "$tmp" && "$build/calltrace" record -o "$m.data" "$bin" 100 >/dev/null 2>&1)
		r=$("$build/calltrace" info -i "$tmp/$m.data" | sed -n 's/^records: *\([0-9,]*\).*/\1/p')
		echo "| $cc | $m | $t s | $r |"
	done
done
