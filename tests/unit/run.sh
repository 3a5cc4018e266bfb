#!/usr/bin/env bash
# Build and run the C unit tests against the tool's objects; prints ok/FAIL lines.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
out=$build/unit
mkdir -p "$out"
objs=$(find "$build/obj" -name '*.o' ! -path '*/cli/*' ! -path '*/wrapper/*')
libs=$(pkg-config --libs libdw libelf libzstd)
status=0 passed=0 failed=0
for src in "$root"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086 # CT_SAN_FLAGS: the sanitizers the objects were built with
	if ! gcc -std=gnu11 -O1 -g -Wall -Wextra -D_GNU_SOURCE ${CT_SAN_FLAGS:-} -I"$root" -o "$out/$name" "$src" $objs $libs -lZydis -lstdc++ -lm -ldl 2>"$out/$name.log"; then
		echo "FAIL unit/$name: does not build"
		sed 's/^/    /' "$out/$name.log" | head -20
		status=1 failed=$((failed + 1))
		continue
	fi
	timeout -k 5 120 "$out/$name" >"$out/$name.out" 2>&1
	st=$?
	cat "$out/$name.out"
	passed=$((passed + $(grep -c '^ok ' "$out/$name.out")))
	failed=$((failed + $(grep -c '^FAIL ' "$out/$name.out")))
	if [ $st != 0 ]; then
		status=1
		if ! grep -q '^FAIL ' "$out/$name.out"; then
			echo "FAIL unit/$name: exits with status $st (124: stopped after 120 s)"
			failed=$((failed + 1))
		fi
	fi
done
echo "$passed passed, $failed failed"
exit $status
