#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ptrace method side by side with ltrace and bpftrace (when installed):
# fib(N) built plain -O2, every call of fib traced; wall time per call made.
#   bench/ptrace_bench.sh [N] [RUNS]      (default 24 3)
set -u
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
CT=${CALLTRACE:-$root/build/calltrace}
N=${1:-24} RUNS=${2:-3}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/fib.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { printf("%ld\n", fib(atoi(argv[1]))); return 0; }
C
gcc -O2 -g -o "$dir/fib" "$dir/fib.c"
"$CT" record --method=ptrace -o "$dir/t.data" "$dir/fib" "$N" >/dev/null
calls=$("$CT" report -i "$dir/t.data" --json | python3 -c 'import json,sys; print(sum(e["calls"] for e in json.load(sys.stdin) if e["name"]=="fib"))')
best() { # best wall seconds of RUNS runs of CMD
	local b=
	for _ in $(seq "$RUNS"); do
		local s e
		s=$(date +%s.%N)
		"$@" >/dev/null 2>&1
		e=$(date +%s.%N)
		b=$(python3 -c "print(min(float('${b:-1e9}'), $e - $s))")
	done
	echo "$b"
}
# A tool's cost per call: its run of fib(N) minus its run of fib(1) (one call: what
# starting the tool and the program costs, bpftrace's 0.5 s of compiling among it).
row() { # NAME CMD... (the program's argument last)
	local name=$1 full once
	shift
	full=$(best "$@" "$N")
	once=$(best "$@" 1)
	python3 -c "print('%-34s %8.3f s %8.3f s %10.2f us/call' % ('$name', $full, $once, ($full - $once) * 1e6 / ($calls - 1)))"
}
echo "fib($N) built plain -O2: $calls calls of fib; best of $RUNS"
printf '%-34s %10s %10s\n' "" "fib($N)" "fib(1)"
row "alone" "$dir/fib"
row "calltrace record --method=ptrace" "$CT" record --method=ptrace -o "$dir/t.data" "$dir/fib"
row "calltrace record (patch)" "$CT" record -o "$dir/t.data" "$dir/fib"
if command -v ltrace >/dev/null; then
	row "ltrace -x fib" ltrace -x fib -o /dev/null "$dir/fib"
fi
if command -v bpftrace >/dev/null; then
	bt() { bpftrace -e "uprobe:$dir/fib:fib { @c++ } uretprobe:$dir/fib:fib { @r++ }" -c "$dir/fib $1"; }
	row "bpftrace uprobe+uretprobe" bt
fi
