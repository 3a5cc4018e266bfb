#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The aarch64 ptrace tracer where qemu-user can check it: it has no ptrace for
# its guests, so record --method=ptrace and attach cannot run here.
#
#   - tests/cross/ptrace_aarch64.c: src/arch/aarch64/ptrace_arch.h's parts
#     (registers, the system-call stub, calls of ours, brk breakpoints run out
#     of line, returns matched to calls, the jmp_buf's stack pointer), with a
#     signal handler's ucontext in place of the tracee's registers;
#   - record --method=ptrace and attach on the aarch64 build: the line saying
#     they are not tested on aarch64, then one error line (qemu answers ptrace
#     with ENOSYS), an exit status, no hang, no crash.
#
# Run by tests/cross/check.sh (make check ARCH=aarch64), or alone:
#   BUILD=build-aarch64 tests/cross/ptrace.sh
# Environment: BUILD (the aarch64 build), TEST_OUT (default $BUILD/tests),
# CROSS_CC (default aarch64-linux-gnu-gcc).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build-aarch64}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
OUT=${TEST_OUT:-$B/tests}/ptrace-cross
CT=$B/calltrace
CROSS_CC=${CROSS_CC:-aarch64-linux-gnu-gcc}
unset QEMU_LD_PREFIX # see check.sh
passed=0 failed=0
ok() { echo "ok $1"; passed=$((passed + 1)); }
bad() {
	echo "FAIL $1: $2"
	[ -z "${3:-}" ] || [ ! -s "$3" ] || head -n 20 "$3" | sed 's/^/    /'
	failed=$((failed + 1))
}
finish() {
	echo "$passed passed, $failed failed"
	[ "$failed" = 0 ]
	exit
}
rm -rf "$OUT"
mkdir -p "$OUT"
cd "$OUT" || exit 1

# ---- the arch header's parts, under qemu ---------------------------------------------
src=$ROOT/src
if ! command -v "$CROSS_CC" >/dev/null; then
	bad cross/ptrace/build "$CROSS_CC is missing: scripts/install-deps.sh --aarch64"
elif ! "$CROSS_CC" -std=gnu11 -D_GNU_SOURCE -O2 -g -Wall -Wextra -Werror -I"$src" \
	"$ROOT/tests/cross/ptrace_aarch64.c" "$src/ptrace/proc.c" "$src/arch/aarch64/relocate.c" \
	"$src/arch/aarch64/decode.c" -o parts 2>build.err; then
	bad cross/ptrace/build "tests/cross/ptrace_aarch64.c does not build" build.err
else
	timeout -k 5 60 ./parts >parts.out 2>parts.err
	st=$?
	cat parts.out
	read -r n m < <(awk '/^ok / { n++ } /^FAIL / { m++ } END { print n + 0, m + 0 }' parts.out)
	passed=$((passed + n)) failed=$((failed + m))
	if [ $st != 0 ] && [ "$m" = 0 ]; then
		bad cross/ptrace/parts "it ended with status $st after $n checks" parts.err
	elif ! grep -q '^ok cross/ptrace/blr-relocated$' parts.out && [ "$m" = 0 ]; then
		bad cross/ptrace/parts "it stopped after $n checks" parts.err
	fi
fi

# ---- record --method=ptrace and attach: one line saying so, one error, no hang --------
# refused CHECK STATUS ERRFILE WARNING: status 1-127 (not timeout's), the warning then one error
refused() {
	local name=$1 st=$2 err=$3 warning=$4
	if [ "$st" = 0 ] || [ "$st" -ge 124 ]; then
		bad "$name" "exit status $st (an error was expected, not a hang or a crash)" "$err"
	elif [ "$(sed -n 1p "$err")" != "calltrace: warning: $warning is not tested on aarch64 yet" ]; then
		bad "$name" "the first line is not the not-tested warning" "$err"
	elif [ "$(wc -l <"$err")" != 2 ] || ! sed -n 2p "$err" | grep -q '^calltrace: .*ptrace'; then
		bad "$name" "not one error line about ptrace after the warning" "$err"
	else
		ok "$name"
	fi
}
printf '#include <unistd.h>\nint main(int c, char **v) { if (c > 1) sleep(30); return 3; }\n' >prog.c
if [ ! -x "$CT" ]; then
	bad cross/ptrace/refusals "$CT is missing: make ARCH=aarch64"
elif ! "$CROSS_CC" prog.c -o prog 2>prog.err; then
	bad cross/ptrace/refusals "the cross gcc cannot build a program" prog.err
else
	timeout -k 5 60 "$CT" record --method=ptrace -o rec.data -- ./prog >rec.out 2>rec.err
	refused cross/ptrace/record-refused $? rec.err "the ptrace method"
	./prog wait &
	pid=$!
	timeout -k 5 60 "$CT" attach -p $pid -o att.data >att.out 2>att.err
	refused cross/ptrace/attach-refused $? att.err attach
	timeout -k 5 60 "$CT" attach --method=ptrace -p $pid -o att2.data >att2.out 2>att2.err
	refused cross/ptrace/attach-ptrace-refused $? att2.err attach
	if kill -0 $pid 2>/dev/null; then ok cross/ptrace/attach-left-it-running
	else bad cross/ptrace/attach-left-it-running "the process is gone"; fi
	kill $pid 2>/dev/null
	wait $pid 2>/dev/null
fi
finish
