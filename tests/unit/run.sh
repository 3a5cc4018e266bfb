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
status=0
for src in "$root"/tests/unit/test_*.c; do
	name=$(basename "$src" .c)
	# shellcheck disable=SC2086 # CT_SAN_FLAGS: the sanitizers the objects were built with
	if ! gcc -std=gnu11 -O1 -g -Wall -Wextra -D_GNU_SOURCE ${CT_SAN_FLAGS:-} -I"$root" -o "$out/$name" "$src" $objs $libs -lZydis -lstdc++ -lm -ldl 2>"$out/$name.log"; then
		echo "FAIL unit/$name: does not build"
		sed 's/^/    /' "$out/$name.log" | head -20
		status=1
		continue
	fi
	"$out/$name" || status=1
done
exit $status
