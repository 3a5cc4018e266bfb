#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make check ARCH=aarch64: calltrace cross-built for aarch64, run under qemu-user.
#
#   tests/cross/check.sh [REGEX]   REGEX selects test programs by name
#
# The test programs (tests/programs) are built for the target with the cross
# gcc and, where it is installed, clang --target=TRIPLE; each runs alone and
# under the cross-built calltrace (binfmt_misc starts qemu for every target
# executable, exec included), and tests/lib/job.sh checks the program's own
# counts and call tree exactly, as on the host. Then the host's calltrace reads
# every trace: its replay, replay --srcline and report --json must be the same
# bytes as the target tool's (an aarch64 trace read on an x86-64 machine).
#
# Then tests/cross/pcrel_aarch64.c: each pc-relative instruction class (adr, adrp,
# ldr literal of each size, cbz, tbz, b) as a function's first instruction, which
# dynamic patching moves: the same results traced as alone, every call in the trace.
# And tests/cross/pg_aarch64.c: -pg functions with each prologue shape _mcount reads
# (pac-ret's too; a probe loop it must leave alone): the same results, each call counted.
#
# And record -a (patchable entries and dynamic patching) on tests/cross/args_cross.c:
# the host's replay shows the arguments and return values the target captured, as
# AAPCS64 places them (x6-x7, the stack, structures, HFAs, long double). And
# --libcalls on tests/libcalls/calls.c built with -fno-plt, and with BTI (and PAC)
# PLT entries (-z force-bti, -z pac-plt).
#
# And tests/unit/test_codec.c built for the target: the recorder's encoding loop
# (its NEON clock pass) byte for byte the generic encoder's, as on the host.
#
# And tests/cross/ptrace.sh: the aarch64 ptrace tracer's own parts, with a signal
# handler's ucontext for the tracee's registers, and record --method=ptrace and
# attach saying they are not tested on aarch64 before they fail in one line.
#
# Not here: ptrace and attach tracing (qemu-user has no ptrace for its guests), the
# sub-suites. Per-call times under qemu are not hardware figures (bench/).
#
# Environment:
#   CROSS_ARCH=aarch64      the target
#   BUILD=build-aarch64     the cross build (calltrace, runtime, wrappers)
#   HOST_BUILD=build        the host's build: its calltrace reads the traces
#   TEST_OUT=dir            default $BUILD/tests
#   COMBOS="gcc-O0 ..."     default: gcc and clang at -O0/-O2 (finstrument),
#                           gcc-O2-patchable clang-O0-patchable, gcc-O2-patch
#                           clang-O0-patch, gcc and clang at -O0/-O2 with plain
#                           -pg (mcount), gcc-O2-mcountpac (-pg with pac-ret
#                           and BTI), gcc-O2-fentry (calltrace-cc
#                           --method=fentry, which is -pg there too)
#   JOBS=2                  jobs at a time
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
ARCH=${CROSS_ARCH:-aarch64}
TRIPLE=$ARCH-linux-gnu
BUILD=${BUILD:-build-$ARCH}
HOST_BUILD=${HOST_BUILD:-build}
case $BUILD in /*) B=$BUILD ;; *) B=$ROOT/$BUILD ;; esac
case $HOST_BUILD in /*) HB=$HOST_BUILD ;; *) HB=$ROOT/$HOST_BUILD ;; esac
OUT=${TEST_OUT:-$B/tests}
CT=$B/calltrace
HOST_CT=$HB/calltrace
JOBS=${JOBS:-2}
FILTER=${1:-}
T_READ=${T_READ:-60}
PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
PY=${PY:-python3}
COMBOS=${COMBOS:-gcc-O0 gcc-O2 clang-O0 clang-O2 gcc-O2-patchable clang-O0-patchable gcc-O2-patch clang-O0-patch
	gcc-O0-mcount gcc-O2-mcount clang-O0-mcount clang-O2-mcount gcc-O2-mcountpac gcc-O2-fentry}
export ROOT OUT PY CT
export XDG_CACHE_HOME=$OUT/cache
# The target's libraries come from the multiarch packages (install-deps.sh
# --aarch64), which its loader finds at their usual paths. QEMU_LD_PREFIX would
# make qemu look up every path under the prefix first; a recorder's child then
# spins for longer than the test's deadline before it runs the program.
unset QEMU_LD_PREFIX

passed=0 failed=0 skipped=0
ok() { echo "ok $1"; passed=$((passed + 1)); }
bad() {
	echo "FAIL $1: $2"
	[ -z "${3:-}" ] || [ ! -s "$3" ] || head -n 20 "$3" | sed 's/^/    /'
	failed=$((failed + 1))
}
finish() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
	exit
}
tally() {
	local n m k
	read -r n m k < <(awk '/^ok .* # SKIP [^ ]/ { k++; next } /^ok / { n++ } /^FAIL / { m++ }
		END { print n + 0, m + 0, k + 0 }' "$1")
	passed=$((passed + n)) failed=$((failed + m)) skipped=$((skipped + k))
}

mkdir -p "$OUT"
rm -rf "$OUT/results" "$OUT/host"
mkdir -p "$OUT/results" "$OUT/host"

# ---- what the run needs ---------------------------------------------------------
for tool in "$CT" "$B/libcalltrace.so" "$B/calltrace-cc" "$HOST_CT"; do
	if [ -e "$tool" ]; then ok "cross/built/$(basename "$(dirname "$tool")")/$(basename "$tool")"
	else bad "cross/built/$(basename "$tool")" "$tool is missing: make ARCH=$ARCH all (and make all for the host)"; fi
done
XBIN=$OUT/xbin
mkdir -p "$XBIN"
# job.sh calls gcc, g++, clang, clang++ by name: here they build for the target
for cc in gcc g++; do
	printf '#!/bin/sh\nexec %s-%s "$@"\n' "$TRIPLE" "$cc" >"$XBIN/$cc"
done
for cc in clang clang++; do
	real=$(PATH=${PATH#"$XBIN:"} command -v "$cc" || echo /nonexistent/$cc)
	printf '#!/bin/sh\nexec %s --target=%s "$@"\n' "$real" "$TRIPLE" >"$XBIN/$cc"
done
chmod +x "$XBIN"/*
export PATH=$XBIN:$PATH
printf 'int main(void) { return 42; }\n' >"$OUT/probe.c"
if ! command -v "$TRIPLE-gcc" >/dev/null; then
	bad cross/compiler "$TRIPLE-gcc is missing: scripts/install-deps.sh --$ARCH"
elif ! "$XBIN/gcc" "$OUT/probe.c" -o "$OUT/probe" 2>"$OUT/probe.err"; then
	bad cross/compiler "$TRIPLE-gcc cannot build a program" "$OUT/probe.err"
else
	timeout -k 5 30 "$OUT/probe"
	st=$?
	if [ $st = 42 ]; then
		ok cross/qemu-user
	else
		bad cross/qemu-user "a $ARCH program does not run here (status $st): scripts/binfmt-$ARCH.sh"
		finish
	fi
fi
# clang is optional for the target (clang --target needs no more than the cross gcc's files)
clang_ok=0
if command -v clang >/dev/null && "$XBIN/clang" "$OUT/probe.c" -o "$OUT/probe.clang" 2>/dev/null; then
	clang_ok=1
fi
[ "$passed" -ge 5 ] || finish

# ---- the test programs, each through job.sh -------------------------------------
combos=()
for c in $COMBOS; do
	if [ "${c%%-*}" = clang ] && [ $clang_ok = 0 ]; then
		echo "ok cross/$c # SKIP clang --target=$TRIPLE cannot build here"
		skipped=$((skipped + 1))
		continue
	fi
	combos+=("$c")
done
progs=()
for f in "$ROOT"/tests/programs/*.c "$ROOT"/tests/programs/*.cpp; do
	p=$(basename "${f%.*}")
	[ -z "$FILTER" ] || [[ $p =~ $FILTER ]] || continue
	progs+=("$p")
done

# host_read PROG COMBO: the host's calltrace reads the target's trace alike
host_read() {
	local prog=$1 combo=$2 R=$OUT/run/$1.$2 H=$OUT/host/$1.$2 what st
	local name=$prog/$combo/host-reader
	[ -s "$R/trace.data" ] && [ -s "$R/replay.txt" ] || return 0
	mkdir -p "$H"
	for what in replay srcline report; do
		case $what in
		replay) set -- replay -i trace.data ;;
		srcline) set -- replay --srcline -i trace.data ;;
		report) set -- report -i trace.data --json ;;
		esac
		(cd "$R" && timeout -k 5 "$T_READ" "$HOST_CT" "$@" >"$H/$what.host" 2>"$H/$what.err")
		st=$?
		if [ $st != 0 ]; then
			echo "FAIL $name/$what: the host's calltrace $1 exits with $st"
			sed 's/^/    /' "$H/$what.err" | head -n 5
			continue
		fi
		if [ $what = replay ]; then
			cp "$R/replay.txt" "$H/$what.target"
		else
			(cd "$R" && timeout -k 5 "$T_READ" "$CT" "$@" >"$H/$what.target" 2>/dev/null)
		fi
		if cmp -s "$H/$what.host" "$H/$what.target"; then
			echo "ok $name/$what"
		else
			echo "FAIL $name/$what: differs from the $ARCH tool's (diff $H/$what.target $H/$what.host)"
			diff "$H/$what.target" "$H/$what.host" | head -n 6 | sed 's/^/    /'
		fi
	done
	grep -q "^arch: *$ARCH\$" <("$HOST_CT" info -i "$R/trace.data" 2>/dev/null) &&
		echo "ok $name/arch" || echo "FAIL $name/arch: info does not say arch: $ARCH"
}
export -f host_read
export HOST_CT ARCH T_READ

run_job() {
	"$ROOT/tests/lib/job.sh" "$1" "$2" >/dev/null 2>&1
	"$ROOT/tests/lib/job.sh" --result "$1" "$2"
	host_read "$1" "$2"
}
export -f run_job

for p in "${progs[@]}"; do
	for c in "${combos[@]}"; do
		echo "$p $c"
	done
done | xargs -r -P "$JOBS" -n 2 bash -c 'run_job "$0" "$1" >"$OUT/results/.lines.$0.$1" 2>&1; cat "$OUT/results/.lines.$0.$1"' |
	tee "$OUT/all.lines" | grep -v '^ok ' || true
tally "$OUT/all.lines"

# same_traced NAME SOURCE WHAT FLAGS...: SOURCE built for the target into
# $OUT/NAME (P), run alone and under record, the trace replayed into
# $P/replay.txt; ok NAME/same-results when both runs print the same (WHAT says
# what differs otherwise). Returns 1 on any failure, told.
same_traced() {
	local name=$1 src=$2 what=$3
	shift 3
	P=$OUT/$name
	mkdir -p "$P"
	if ! "$XBIN/gcc" -g -O2 "$@" "$ROOT/$src" -o "$P/prog" 2>"$P/build.err"; then
		bad cross/$name/build "the cross gcc cannot build $src" "$P/build.err"
	elif ! (cd "$P" && timeout -k 5 60 ./prog >alone.out 2>&1 &&
		timeout -k 5 120 "$CT" record -o p.data -- ./prog >traced.out 2>record.err &&
		timeout -k 5 60 "$CT" replay -i p.data >replay.txt 2>&1); then
		bad cross/$name/run "the program or calltrace failed" "$P/record.err"
	elif ! cmp -s "$P/alone.out" "$P/traced.out"; then
		diff "$P/alone.out" "$P/traced.out" >"$P/out.diff"
		bad cross/$name/same-results "$what (< alone, > traced)" "$P/out.diff"
	else
		ok cross/$name/same-results
		return 0
	fi
	return 1
}

# ---- every pc-relative class as a function's first instruction, patched -------
if [ "$ARCH" = aarch64 ] &&
	same_traced pcrel tests/cross/pcrel_aarch64.c \
		"relocated first instructions computed something else"; then
	missing=
	for f in f_adr f_adrp f_ldr_x f_ldr_w f_ldr_sw f_ldr_d f_ldr_q f_cbz f_tbz f_b f_target; do
		grep -q " $f()" "$P/replay.txt" || missing="$missing $f"
	done
	if [ -z "$missing" ]; then ok cross/pcrel/traced
	else bad cross/pcrel/traced "not in the trace:$missing" "$P/replay.txt"; fi
fi

# ---- -pg: the prologues _mcount reads, and those it leaves alone ----------------
if [ "$ARCH" = aarch64 ] &&
	same_traced pg tests/cross/pg_aarch64.c \
		"traced, the functions computed something else" -pg; then
	wrong=
	for want in p_gcc:3 p_clang:3 p_big:3 p_subs:3 p_tail:3 p_pac:3 p_inner:21 p_probe:0; do
		n=$(grep -c " ${want%:*}()" "$P/replay.txt")
		[ "$n" = "${want#*:}" ] || wrong="$wrong ${want%:*}: $n calls, not ${want#*:};"
	done
	if [ -z "$wrong" ]; then ok cross/pg/counts
	else bad cross/pg/counts "$wrong" "$P/replay.txt"; fi
fi

# ---- the ptrace tracer's parts; its commands refused in one line (no ptrace) ----
if [ "$ARCH" = aarch64 ]; then
	CROSS_CC=$TRIPLE-gcc BUILD=$B TEST_OUT=$OUT "$ROOT/tests/cross/ptrace.sh" >"$OUT/ptrace.lines" 2>&1
	grep -v '^ok ' "$OUT/ptrace.lines" | grep -v '^[0-9]* passed' || true
	tally "$OUT/ptrace.lines"
fi

# ---- record -a on the target, read by the host ----------------------------------
# args_cross.c: each call's arguments and value as AAPCS64 places them; the
# host's replay the same bytes as the target's
A=$OUT/args
mkdir -p "$A"
# the text each call's replay must have: its "want:" comments
mapfile -t args_want < <(sed -n 's|^[[:space:]]*/\* want: \(.*\) \*/$|\1|p' "$ROOT/tests/cross/args_cross.c")
[ "${#args_want[@]}" -ge 10 ] || bad cross/args/wants "tests/cross/args_cross.c has no want: comments"
for how in patchable patch; do
	flags=(-g -O2)
	[ $how = patchable ] && flags+=(-fpatchable-function-entry=2,0)
	[ "$ARCH" = aarch64 ] || flags=(-g -O2)
	if ! "$XBIN/gcc" "${flags[@]}" "$ROOT/tests/cross/args_cross.c" -o "$A/args.$how" 2>"$A/build.err"; then
		bad "cross/args/$how" "the cross gcc cannot build tests/cross/args_cross.c" "$A/build.err"
		continue
	fi
	(cd "$A" && timeout -k 5 120 "$CT" record -a -o "$how.data" -- "./args.$how" >/dev/null 2>"$how.err" &&
		timeout -k 5 60 "$HOST_CT" replay -i "$how.data" >"$how.replay" 2>>"$how.err" &&
		timeout -k 5 60 "$CT" replay -i "$how.data" >"$how.target" 2>>"$how.err")
	missing=
	for w in "${args_want[@]}"; do
		grep -qF -- "$w" "$A/$how.replay" || missing="$missing [$w]"
	done
	if [ -z "$missing" ]; then
		ok "cross/args/$how"
	else
		echo "    missing:$missing" >>"$A/$how.err"
		bad "cross/args/$how" "the host's replay of record -a lacks values" "$A/$how.err"
	fi
	if cmp -s "$A/$how.replay" "$A/$how.target"; then
		ok "cross/args/$how/host-reader"
	else
		diff "$A/$how.target" "$A/$how.replay" >"$A/$how.diff"
		bad "cross/args/$how/host-reader" "the host's replay differs from the target's" "$A/$how.diff"
	fi
done

# -A/-R specs: arg7-arg8 are x6-x7, arg9 on the stack; a long double (f80) is a quad there
if [ "$ARCH" = aarch64 ] && [ -x "$A/args.patch" ]; then
	(cd "$A" && timeout -k 5 120 "$CT" record -a -A 'ten@arg1,arg7,arg8,arg9,arg10' \
		-A 'quad@fparg1/f80' -R 'quad@retval/f80' -o spec.data -- ./args.patch >/dev/null 2>spec.err &&
		timeout -k 5 60 "$HOST_CT" replay -i spec.data >spec.replay 2>>spec.err)
	if grep -qF 'ten(arg1=1, arg7=7, arg8=8, arg9=9, arg10=10) = 55;' "$A/spec.replay" &&
		grep -qF 'quad(fparg1=0.333333333333333333333333333333333317)' "$A/spec.replay" &&
		grep -qF '= 0.333333333333333333333333333333333317' "$A/spec.replay"; then
		ok cross/args/specs
	else
		bad cross/args/specs "the host's replay of record -A/-R lacks the values" "$A/spec.replay"
	fi
fi

# and the other way round: the host's record -a (SysV: x87's long double too) read by the target
if PATH=${PATH#"$XBIN:"} gcc -g -O2 "$ROOT/tests/cross/args_cross.c" -o "$A/args.host" 2>"$A/build.err" &&
	(cd "$A" && timeout -k 5 60 "$HOST_CT" record -a -o host.data -- ./args.host >/dev/null 2>host.err &&
		timeout -k 5 60 "$HOST_CT" replay -i host.data >host.replay 2>>host.err &&
		timeout -k 5 60 "$CT" replay -i host.data >host.target 2>>host.err) &&
	grep -qF 'quad(x=0.33333333333333333334, n=1)' "$A/host.replay" &&
	cmp -s "$A/host.replay" "$A/host.target"; then
	ok cross/args/target-reader
else
	diff "$A/host.replay" "$A/host.target" >>"$A/host.err" 2>&1
	bad cross/args/target-reader "the target's replay of the host's record -a differs (or lacks values)" "$A/host.err"
fi

# ---- --libcalls: -fno-plt call sites, BTI and PAC PLT entries -------------------
# tests/libcalls/calls.c counts its own library calls; traced by patching, each
# one must be in the trace. -z force-bti programs run with QEMU_CPU=cortex-a72:
# the distribution's crt files have no landing pads, which a BTI-enforcing cpu
# (qemu's default) faults on before main.
L=$OUT/libcalls
mkdir -p "$L"
if ! "$XBIN/gcc" -O2 -g -shared -fPIC "$ROOT/tests/libcalls/lcdep.c" -o "$L/liblcdep.so" 2>"$L/lib.err"; then
	bad cross/libcalls/build-lib "liblcdep.so did not build" "$L/lib.err"
else
	for v in noplt-O0 noplt-O2 bti-O2 pac-O2; do
		D=$L/$v
		mkdir -p "$D"
		flags=(-g "-${v#*-}" -pthread)
		case $v in
		noplt-*) flags+=(-fno-plt) ;;
		bti-*) flags+=(-no-pie -mbranch-protection=bti -Wl,-z,force-bti) ;;
		pac-*) flags+=(-no-pie -mbranch-protection=bti -Wl,-z,force-bti,-z,pac-plt) ;;
		esac
		if ! "$XBIN/gcc" "${flags[@]}" "$ROOT/tests/libcalls/calls.c" -o "$D/prog" -L"$L" -llcdep \
			-Wl,-rpath,"$L" 2>"$D/build.err"; then
			bad "cross/libcalls/$v" "build failed" "$D/build.err"
			continue
		fi
		(
			cd "$D" || exit 1
			case $v in bti-* | pac-*) export QEMU_CPU=cortex-a72 ;; esac
			timeout -k 5 60 ./prog 3 >native.out 2>native.err
			timeout -k 5 120 "$CT" record -o t.data --libcalls ./prog 3 >traced.out 2>traced.err
		)
		if ! cmp -s "$D/native.out" "$D/traced.out"; then
			bad "cross/libcalls/$v/same-output" "the program's output changed when traced" "$D/traced.err"
			continue
		fi
		ok "cross/libcalls/$v/same-output"
		if timeout -k 5 60 "$CT" report -i "$D/t.data" --json >"$D/report.json" 2>"$D/err" &&
			"$PY" "$ROOT/tests/lib/ctcheck.py" check-counts "$D/report.json" "$D/native.out" \
				--ignore '^(printf|puts|putchar)@' --ignore '^lc_twice$' >"$D/counts" 2>&1; then
			ok "cross/libcalls/$v/counts"
		else
			bad "cross/libcalls/$v/counts" "library calls missing or miscounted" "$D/counts"
		fi
		timeout -k 5 60 "$CT" replay -i "$D/t.data" >"$D/replay.target" 2>/dev/null
		timeout -k 5 60 "$HOST_CT" replay -i "$D/t.data" >"$D/replay.host" 2>"$D/host.err"
		if cmp -s "$D/replay.target" "$D/replay.host"; then
			ok "cross/libcalls/$v/host-reader"
		else
			bad "cross/libcalls/$v/host-reader" "the host's replay differs from the target's" "$D/host.err"
		fi
	done
fi

# ---- the encoder on the target: its loop (NEON's clock pass) against the generic one ----
# tests/unit/test_codec.c built for the target against its objects: the blocks the
# recorder's loop makes, byte for byte the generic encoder's, and decoded back
U=$OUT/unit
mkdir -p "$U"
uobjs=$(find "$B/obj" -name '*.o' ! -path '*/cli/*' ! -path '*/wrapper/*' | sort |
	while read -r o; do s=${o#"$B"/obj/}; [ -f "$ROOT/src/${s%.o}.c" ] && echo "$o"; done)
# shellcheck disable=SC2086 # the objects, one word each
if "$TRIPLE-gcc" -std=gnu11 -O1 -g -D_GNU_SOURCE -I"$ROOT" -o "$U/test_codec" \
	"$ROOT/tests/unit/test_codec.c" $uobjs -ldw -lelf -lzstd -lstdc++ -lm -ldl 2>"$U/build.err"; then
	timeout -k 5 300 "$U/test_codec" 2>&1 | sed 's|^ok unit/|ok cross/unit/|; s|^FAIL unit/|FAIL cross/unit/|' \
		>"$U/lines"
	grep '^FAIL' "$U/lines" || true
	tally "$U/lines"
	grep -q '^ok cross/unit/test_chunk_loop_exact' "$U/lines" ||
		bad cross/unit/test_codec "it stopped before its loop's test" "$U/lines"
else
	bad cross/unit/test_codec "the cross gcc cannot build tests/unit/test_codec.c" "$U/build.err"
fi
finish
