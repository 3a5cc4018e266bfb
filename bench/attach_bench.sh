#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# What tracing costs a process calltrace attaches to: fib(N) built plain -O2
# waits on its stdin, gets attached to there (inside a blocking read), then
# times its own fib(N) (wall clock, as the program sees it). Per call made:
# the time over the untraced run, for attach (runtime loaded, functions
# patched), attach --method=ptrace (breakpoints), and record --method=patch.
#   bench/attach_bench.sh [N] [RUNS] [N_PTRACE]     (default 30 3 22)
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CT=${CALLTRACE:-$root/build/calltrace}
N=${1:-30} RUNS=${2:-3} NP=${3:-22}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/fib.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv)
{
	char c;
	if (read(0, &c, 1) < 0) /* attached to here */
		return 1;
	struct timespec a, z;
	clock_gettime(CLOCK_MONOTONIC, &a);
	long r = fib(atoi(argv[1]));
	clock_gettime(CLOCK_MONOTONIC, &z);
	printf("%ld %.0f\n", r, (z.tv_sec - a.tv_sec) * 1e9 + (z.tv_nsec - a.tv_nsec));
	return 0;
}
C
gcc -O2 -g -o "$dir/fib" "$dir/fib.c"
# calls of fib in a trace (the compiler folds some: what runs is what counts)
traced() { "$CT" report -i "$1" --json | python3 -c 'import json,sys; print(sum(e["calls"] for e in json.load(sys.stdin) if e["name"]=="fib"))'; }

# ns the fib took, best of RUNS: alone, under record, or attached to (METHOD)
alone() { echo | "$dir/fib" "$1" | cut -d' ' -f2; }
recorded() { echo | "$CT" record --method=patch -o "$dir/r.data" "$dir/fib" "$1" 2>/dev/null | cut -d' ' -f2; }
attached() {
	local n=$1 m=$2 pid apid
	rm -f "$dir/in" && mkfifo "$dir/in"
	"$dir/fib" "$n" <"$dir/in" >"$dir/out" &
	pid=$!
	exec 7>"$dir/in" # the program blocks in read until we write
	"$CT" attach --method="$m" -p "$pid" -o "$dir/a.data" 2>"$dir/a.err" &
	apid=$!
	until grep -q '^TracerPid:[[:space:]]*[1-9]' "/proc/$pid/status" 2>/dev/null; do sleep 0.01; done
	until [ "$m" = ptrace ] || grep -q libcalltrace "/proc/$pid/maps"; do sleep 0.01; done
	echo >&7 # it is stopped until tracing runs: it starts traced
	exec 7>&-
	wait "$pid"
	wait "$apid"
	cut -d' ' -f2 "$dir/out"
}
best() {
	local b=
	for _ in $(seq "$RUNS"); do
		local v
		v=$("$@")
		b=$(python3 -c "print(min(float('${b:-1e18}'), float('${v:-1e18}')))")
	done
	echo "$b"
}
report() { # NAME CALLS NS ALONE_NS
	python3 -c "c=$2; print('%-34s %10.3f s %10.2f ns/call' % ('$1', $3 / 1e9, ($3 - $4) / c))"
}
a=$(best alone "$N")
p=$(best recorded "$N")
r=$(best attached "$N" runtime)
c=$(traced "$dir/r.data")
[ "$c" = "$(traced "$dir/a.data")" ] || echo "warning: attach saw $(traced "$dir/a.data") calls"
echo "fib($N) built plain -O2: $c calls of fib"
report "alone" "$c" "$a" "$a"
report "calltrace record --method=patch" "$c" "$p" "$a"
report "calltrace attach (runtime)" "$c" "$r" "$a"
python3 -c "print('attach / patch, per call: %.2f' % (($r - $a) / ($p - $a)))"
if [ "$NP" -gt 0 ]; then
	ap=$(best alone "$NP")
	pp=$(best attached "$NP" ptrace)
	c=$(traced "$dir/a.data")
	echo "fib($NP): $c calls of fib"
	report "alone" "$c" "$ap" "$ap"
	report "calltrace attach --method=ptrace" "$c" "$pp" "$ap"
fi
