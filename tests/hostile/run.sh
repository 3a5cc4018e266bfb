#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A hostile program: the pool is the traced program's to write, and the
# recorder must survive whatever it writes there.
#  - tests/hostile/hostile.c, built with gcc and clang (-finstrument-functions),
#    writes over the pool half-way through its work (random bytes over the first
#    page, the first page of descriptors, the first chunk, all of it; fake FULL descriptors; geometry raised;
#    a loop and an out-of-range head in the free stack; a truncation), in
#    streaming, lossy and flight-recorder modes. Recorded by a tool built with
#    ASan+UBSan (CT_SAN, else $BUILD-san/calltrace, else $CT if it is one):
#    no sanitizer report, record exits with the program's own status, the
#    program's stdout is what it is without calltrace, info and replay read the
#    trace, and info counts refused chunks where the scribble hit descriptors;
#  - calltrace snapshot PID on processes that name a short file, a foreign file,
#    a FIFO or a path that is no pool: one error line, exit 2, no signal, no hang;
#    and, run as nobody, on a process it may not read or whose pool is root's.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite hostile
here=$HERE build=$B
out=$OUT/hostile
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1

sanitized() { [ -x "$1" ] && nm "$1" 2>/dev/null | grep -q __asan_init; }
SAN=${CT_SAN:-}
if [ -z "$SAN" ]; then
	if sanitized "$build-san/calltrace"; then
		SAN=$build-san/calltrace
	else
		SAN=$CT
	fi
fi
if ! [ -x "$SAN" ]; then
	fail tool "no calltrace at $SAN (run make)"
	finish
fi
if sanitized "$SAN"; then
	pass sanitized-tool
else
	fail sanitized-tool "$SAN is not built with ASan (make SANITIZE=address,undefined BUILD=...; or CT_SAN=)"
fi
# the recorder needs its runtime: the sanitized build has its own (plain)
export CALLTRACE_RUNTIME=${CALLTRACE_RUNTIME:-$(dirname "$SAN")/libcalltrace.so}

# ---- the program, with each compiler ---------------------------------------------
compilers=()
for cc in gcc clang; do
	if ! command -v $cc >/dev/null; then
		fail build-$cc "$cc is missing (scripts/install-deps.sh)"
		continue
	fi
	if timeout -k 5 120 $cc -O1 -g -finstrument-functions -pthread "$here/hostile.c" \
		-o hostile-$cc 2>build-$cc.err; then
		compilers+=($cc)
		pass build-$cc
	else
		fail build-$cc "does not compile" build-$cc.err
	fi
done

# scenario [record options]: what it wrote over, whether descriptors were hit
# (the first page is the control block: the descriptors start after its ring of started images)
descriptors=" descs all fakefull plausible counts "

# check CC SCENARIO NAME [RECORD OPTIONS...]
check() {
	local cc=$1 how=$2 name=$3
	shift 3
	local d=$out/$name prog=$out/hostile-$cc st nst
	mkdir -p "$d/san"
	timeout -k 5 60 "$prog" "$how" 42 >"$d/native.out" 2>"$d/native.err"
	nst=$?
	ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:log_path=$d/san/asan \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$d/san/ubsan \
		timeout -k 5 120 "$SAN" record -o "$d/t.data" "$@" -- "$prog" "$how" 42 \
		>"$d/rec.out" 2>"$d/rec.err"
	st=$?
	if [ -n "$(ls -A "$d/san")" ]; then
		cat "$d"/san/* >"$d/san.txt"
		fail "$name" "sanitizer report" "$d/san.txt"
		return
	fi
	if [ "$st" != "$nst" ]; then
		fail "$name" "record exited $st, the program alone $nst" "$d/rec.err"
		return
	fi
	if ! cmp -s "$d/native.out" "$d/rec.out"; then
		diff "$d/native.out" "$d/rec.out" >"$d/diff"
		fail "$name" "the program's output changed" "$d/diff"
		return
	fi
	if [ "$how" != none ] && ! grep -q "^hostile: $how: wrote" "$d/rec.err"; then
		fail "$name" "the program did not find the pool" "$d/rec.err"
		return
	fi
	if [ "$how" = shrink ] && ! grep -q "truncate refused" "$d/rec.err"; then
		fail "$name" "the program could truncate the pool" "$d/rec.err"
		return
	fi
	local tool
	for tool in info replay; do
		if ! ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:log_path=$d/san/asan-$tool \
			UBSAN_OPTIONS=halt_on_error=1:log_path=$d/san/ubsan-$tool \
			timeout -k 5 120 "$SAN" $tool -i "$d/t.data" >"$d/$tool.out" 2>"$d/$tool.err"; then
			fail "$name" "$tool does not read the trace" "$d/$tool.err"
			return
		fi
	done
	if [ -n "$(ls -A "$d/san")" ]; then
		cat "$d"/san/* >"$d/san.txt"
		fail "$name" "sanitizer report from a reader" "$d/san.txt"
		return
	fi
	if ! grep -q "^exit: *status $nst" "$d/info.out"; then
		fail "$name" "info does not say the program's status $nst" "$d/info.out"
		return
	fi
	local refused
	refused=$(sed -n 's/^refused: *\([0-9,]*\) chunks refused: damaged by the program$/\1/p' \
		"$d/info.out" | tr -d ,)
	case "$descriptors" in
	*" $how "*)
		if [ -z "$refused" ] || [ "$refused" = 0 ]; then
			fail "$name" "descriptors were hit, info counts no refused chunk" "$d/info.out"
			return
		fi
		;;
	none | shrink)
		if [ -n "$refused" ]; then
			fail "$name" "$refused chunks refused in a run that damaged no descriptor" \
				"$d/info.out"
			return
		fi
		;;
	esac
	pass "$name"
}

for cc in "${compilers[@]}"; do
	for how in none page descs chunk all fakefull plausible counts freeloop freebad shrink; do
		check $cc $how $cc/$how
	done
	for how in all fakefull freeloop freebad; do
		check $cc $how $cc/lossy-$how --lossy
		check $cc $how $cc/ring-$how --ring 256K
	done
done

# ---- calltrace snapshot PID ------------------------------------------------------
# snap NAME EXPECTED-STATUS PID [RUN-AS...]: one line on stderr, no signal, no hang
snap() {
	local name=$1 want=$2 pid=$3 st
	shift 3
	timeout -k 5 20 "$@" "$SAN" snapshot "$pid" >"snap-$name.out" 2>"snap-$name.err"
	st=$?
	if [ "$st" != "$want" ]; then
		fail "snapshot-$name" "exit $st, expected $want" "snap-$name.err"
	elif [ "$want" != 0 ] && { [ "$(wc -l <"snap-$name.err")" != 1 ] ||
		! grep -q '^calltrace: ' "snap-$name.err"; }; then
		fail "snapshot-$name" "not one calltrace: line" "snap-$name.err"
	else
		pass "snapshot-$name"
	fi
}
# a process that names FILE as its pool; its pid in $named
name_pool() {
	CALLTRACE_POOL=$1 timeout -k 5 30 "${@:2}" sleep 20 &
	named=$!
	sleep 0.3
	named=$(pgrep -P "$named" sleep || echo "$named")
}

printf 'short' >short
head -c 1048576 /dev/urandom >foreign
"${PY:-python3}" - <<'EOF'
import struct
# the magic and version of a pool, a geometry that does not add up to the size
hdr = struct.pack('<QIIII', 0x4c4f4f5054435443, 4, 4096, 65536, 1000000)
open('forged', 'wb').write(hdr + b'\0' * (1048576 - len(hdr)))
EOF
mkfifo fifo
exec 7<>short 8<>foreign 9<>forged 6<>fifo
for f in short:7 foreign:8 forged:9 fifo:6; do
	name_pool "/proc/$$/fd/${f#*:}"
	snap "${f%:*}" 2 "$named"
	kill "$named" 2>/dev/null
done
name_pool /etc/passwd
snap not-proc 2 "$named"
kill "$named" 2>/dev/null
exec 6>&- 7>&- 8>&- 9>&-

# a flight recorder that may be asked: root may, nobody may not
if [ ${#compilers[@]} -gt 0 ]; then
	timeout -k 5 60 "$SAN" record --ring 256K -o ring.data -- "./hostile-${compilers[0]}" wait 1 \
		>/dev/null 2>ring.err &
	rec=$!
	prog=
	for _ in $(seq 50); do
		prog=$(pgrep -x "hostile-${compilers[0]}" | head -n 1)
		[ -n "$prog" ] && grep -q calltrace-pool "/proc/$prog/maps" 2>/dev/null && break
		sleep 0.1
	done
	if [ -z "$prog" ]; then
		fail snapshot-ring "the recorded program did not start" ring.err
	else
		snap ring 0 "$prog"
		if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
			snap nobody-on-root 2 "$prog" setpriv --reuid=nobody --regid=nogroup --clear-groups
			# nobody's own process naming root's pool: the kernel says no
			pool=$(tr '\0' '\n' <"/proc/$prog/environ" | sed -n 's/^CALLTRACE_POOL=//p')
			CALLTRACE_POOL=$pool setpriv --reuid=nobody --regid=nogroup --clear-groups \
				timeout -k 5 30 sleep 20 &
			sleep 0.3
			own=$(pgrep -P $! sleep || echo $!)
			snap nobody-root-pool 2 "$own" setpriv --reuid=nobody --regid=nogroup --clear-groups
			grep -q 'Permission denied' snap-nobody-root-pool.err ||
				fail snapshot-nobody-root-pool-why "not refused by the kernel" \
					snap-nobody-root-pool.err
			kill "$own" 2>/dev/null
		fi
	fi
	wait "$rec"
fi
finish
