#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Instructions per traced call: the hooks' hot path, counted as it runs, on
# x86-64 and aarch64 alike (issue 25). Per-call times under qemu-user are not
# hardware figures; instruction counts are the same on any machine.
#
#   bench/hook_insns.sh [x86_64|aarch64 ...]   default: both
#
# A loop calls an empty function N and 2N times; the program runs under
# qemu-user (qemu-ARCH-static, which ignores LD_PRELOAD itself and hands it to
# the program) with calltrace record around it (through sh), and qemu's log of the blocks
# it executed gives the instructions (bench/qemu_insns.py). Per call: the
# difference over N, less the same loop built without tracing. Methods:
# finstrument (-finstrument-functions: enter and exit hooks), patchable
# (-fpatchable-function-entry: the entry stub and the return trampoline) and
# pg (plain -pg, compiled so but linked without gprof's start files: mcount,
# _mcount on aarch64, after the prologue, and the return trampoline; the
# function's own frame and call count too).
# Needs: make (host) and make ARCH=aarch64, qemu-user-static.
# BUILD_x86_64=build BUILD_aarch64=build-aarch64 pick the builds.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=${BENCH_DIR:-/tmp/calltrace-hook-insns}
N=${N:-2000}
rm -rf "$W"
mkdir -p "$W"
cat >"$W/loop.c" <<'C'
#include <stdlib.h>
__attribute__((noinline)) void empty(void) { __asm__ volatile(""); }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1;
	for (int i = 0; i < n; i++)
		empty();
	return 0;
}
C
# insns ARCH LABEL CMD...: instructions the program ran (qemu log of its run)
insns() {
	local arch=$1 label=$2
	shift 2
	rm -f "$W/$label.log"
	"$@" >/dev/null 2>"$W/$label.err" || { echo "$label failed:" >&2; cat "$W/$label.err" >&2; exit 1; }
	python3 "$ROOT/bench/qemu_insns.py" "$W/$label.log"
}
for arch in "${@:-x86_64 aarch64}"; do
	for arch1 in $arch; do
		case $arch1 in
		x86_64) cc=gcc b=${BUILD_x86_64:-build} nops=5,0 ;;
		aarch64) cc=aarch64-linux-gnu-gcc b=${BUILD_aarch64:-build-aarch64} nops=2,0 ;;
		*) echo "unknown architecture $arch1" >&2; exit 2 ;;
		esac
		case $b in /*) ;; *) b=$ROOT/$b ;; esac
		q=qemu-$arch1-static
		$cc -O2 "$W/loop.c" -o "$W/plain.$arch1"
		$cc -O2 -finstrument-functions "$W/loop.c" -o "$W/finstrument.$arch1"
		$cc -O2 "-fpatchable-function-entry=$nops" "$W/loop.c" -o "$W/patchable.$arch1"
		$cc -O2 -pg -c "$W/loop.c" -o "$W/pg.$arch1.o"
		$cc "$W/pg.$arch1.o" -o "$W/pg.$arch1"
		declare -A per
		for k in plain finstrument patchable pg; do
			for n in $N $((2 * N)); do
				log="$W/$k.$arch1.$n"
				if [ $k = plain ]; then
					c=$(insns "$arch1" "$k.$arch1.$n" $q -d in_asm,exec,nochain -D "$log.log" "$W/$k.$arch1" $n)
				else
					# through sh: record refuses the static qemu (the runtime cannot load
					# into it), and qemu hands the environment on to the program
					c=$(insns "$arch1" "$k.$arch1.$n" "$b/calltrace" record -o "$log.data" -- \
						/bin/sh -c 'exec "$@"' sh \
						$q -d in_asm,exec,nochain -D "$log.log" "$W/$k.$arch1" $n)
				fi
				per[$k.$n]=$c
			done
		done
		base=$(((per[plain.$((2 * N))] - per[plain.$N]) / N))
		for k in finstrument patchable pg; do
			total=$(((per[$k.$((2 * N))] - per[$k.$N]) / N))
			echo "$arch1 $k: $((total - base)) instructions per call in the hooks ($total per loop turn, $base untraced)"
		done
		unset per
	done
done
