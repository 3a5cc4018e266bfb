#!/usr/bin/env bash
# Build and run the C unit tests against the tool's objects; prints ok/FAIL lines.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite unit
out=$B/unit
mkdir -p "$out"
objs=$(tool_objects)
libs=$(pkg-config --libs libdw libelf libzstd)
for src in "$ROOT"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086 # CT_SAN_FLAGS: the sanitizers the objects were built with
	if ! gcc -std=gnu11 -O1 -g -Wall -Wextra -D_GNU_SOURCE ${CT_SAN_FLAGS:-} -I"$ROOT" -o "$out/$name" "$src" $objs $libs -lZydis -lstdc++ -lm -ldl 2>"$out/$name.log"; then
		bad "$name" "does not build" "$out/$name.log"
		continue
	fi
	timeout -k 5 120 "$out/$name" >"$out/$name.out" 2>&1
	st=$?
	cat "$out/$name.out"
	passed=$((passed + $(grep -c '^ok ' "$out/$name.out")))
	failed=$((failed + $(grep -c '^FAIL ' "$out/$name.out")))
	if [ $st != 0 ] && ! grep -q '^FAIL ' "$out/$name.out"; then
		bad "$name" "exits with status $st (124: stopped after 120 s)"
	fi
done
finish
