#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# record --kernel's cost (issue 24): a program doing N getppid() (tests/kernel/kprog.c),
# untraced, recorded, and recorded with --kernel. CPU times, not wall times: a shared
# machine's wall time says more about its other users. Prints, per run, the program's
# CPU (user + system) and the recorder's (from the trace's END block), and the medians.
#
#   BUILD=build bench/kernel_bench.sh [N] [RUNS]     (as root)
set -eu
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
CT=${CT:-$B/calltrace}
N=${1:-1000000}
RUNS=${2:-5}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
gcc -O1 -g -pthread -o "$W/kprog" "$ROOT/tests/kernel/kprog.c"
cd "$W"

# cpu MODE: "PROGRAM_S RECORDER_S" of one run
cpu() {
	case $1 in
	plain)
		/usr/bin/time -f '%U %S' -o t ./kprog getppid "$N"
		awk '{ print $1 + $2, 0 }' t
		;;
	*)
		local opt=""
		[ "$1" = kernel ] && opt=--kernel
		"$CT" record $opt -o t.data ./kprog getppid "$N" 2>/dev/null
		"$CT" info -i t.data | awk '/^cpu:/ { print $3, $6 }'
		;;
	esac
}
median() { sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

for mode in plain record kernel; do
	: >"$mode.prog"
	: >"$mode.rec"
	for _ in $(seq "$RUNS"); do
		read -r p r < <(cpu $mode)
		echo "$p" >>"$mode.prog"
		echo "$r" >>"$mode.rec"
	done
	p=$(median <"$mode.prog")
	r=$(median <"$mode.rec")
	awk -v m=$mode -v p="$p" -v r="$r" -v n="$N" 'BEGIN {
		printf "%-7s program %.3f s CPU (%.0f ns per getppid)  recorder %.3f s CPU\n",
			m, p, p * 1e9 / n, r }'
done
