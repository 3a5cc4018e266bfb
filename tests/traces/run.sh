#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Hostile traces: a good trace made to lie as an attacker would (sizes that
# overflow 32 bits, counts that would allocate GiBs, strings with no end, a
# module path that names a FIFO; tests/lib/craft.py), fed to every reader.
# Each command must refuse it in one line with exit 2, or read it (exit 0)
# when it does not need the damaged part; never die of a signal, run out of
# memory (the readers run under a 1.5 GB address-space limit, or ASan's
# allocation limit when make check built the sanitized tool: CT_SAN), or hang.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite traces
OUT=$OUT/traces
T=30
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 2

# The readers: the sanitized tool when make check built one (CT_SAN), else $CT.
# Memory: a limit no honest reading of these small traces comes near (ASan's
# own allocation limit under ASan, which cannot run under ulimit -v).
sanitized() { [ -x "$1" ] && nm "$1" 2>/dev/null | grep -q __asan_init; }
R=$CT
[ -n "${CT_SAN:-}" ] && sanitized "$CT_SAN" && R=$CT_SAN
if sanitized "$R"; then
	mkdir -p "$OUT/san"
	export ASAN_OPTIONS=max_allocation_size_mb=1024:allocator_may_return_null=0:detect_leaks=1:log_path=$OUT/san/asan
	export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1:log_path=$OUT/san/ubsan
	limit() { "$@"; }
else
	limit() { (ulimit -v 1500000 && exec "$@"); }
fi

command -v zstd >/dev/null || bad tools "the zstd command is missing (scripts/install-deps.sh --test)"
cat >prog.c <<'EOF'
#include <pthread.h>
#include <stdio.h>
__attribute__((noinline)) static int leaf(int x) { return x * 3 + 1; }
__attribute__((noinline)) static int mid(int x)
{
	int s = 0;
	for (int i = 0; i < 20; i++)
		s += leaf(x + i);
	return s;
}
static void *run(void *a) { long s = 0; for (int i = 0; i < 3000; i++) s += mid(i); return (void *)s; }
int main(void)
{
	pthread_t t;
	pthread_create(&t, 0, run, 0);
	run(0);
	pthread_join(t, 0);
	puts("done");
	return 0;
}
EOF
if ! gcc -g -O1 -finstrument-functions -pthread prog.c -o prog 2>build.err ||
	! timeout -k 5 60 "$CT" record -o good.data ./prog >/dev/null 2>record.err; then
	bad good-trace "could not build and record the program to damage" record.err
	finish
fi
ok good-trace
mkfifo fifo

# run NAME ATTACK CMD...: status 0 or 2, one stderr line on 2, within the deadline.
run() {
	local name=$1 st
	shift
	limit timeout -k 5 "$T" "$R" "$@" >out 2>err </dev/null
	st=$?
	if [ $st = 124 ] || [ $st = 137 ]; then
		bad "$name" "still running after $T s (a hang)"
	elif [ $st != 0 ] && [ $st != 2 ]; then
		bad "$name" "exit status $st (a signal, or out of memory): expected 2 or 0" err
	elif [ $st = 2 ] && { [ "$(wc -l <err)" != 1 ] || ! grep -q '^calltrace: ' err; }; then
		bad "$name" "refused, but not in one line starting \"calltrace: \"" err
	else
		ok "$name"
	fi
	return $st
}

readers() { # ATTACK FILE: every reader on it; replay's status is returned
	local a=$1 f=$2 st
	run "$a/replay" replay -i "$f"
	st=$?
	run "$a/replay-srcline" replay --srcline -i "$f"
	run "$a/report" report --json -i "$f"
	run "$a/info" info -i "$f"
	run "$a/dump" dump -i "$f"
	for fmt in chrome perfetto folded; do
		run "$a/export-$fmt" export --format=$fmt -o /dev/null -i "$f"
	done
	run "$a/flame" flame -o /dev/null -i "$f"
	return $st
}

for a in $("$PY" "$ROOT/tests/lib/craft.py" list); do
	if ! "$PY" "$ROOT/tests/lib/craft.py" "$a" good.data "$a.data" 2>craft.err; then
		bad "$a/craft" "tests/lib/craft.py could not make it" craft.err
		continue
	fi
	readers "$a" "$a.data"
	# The damage is in what replay reads: it must be refused, not read past.
	if [ $? = 2 ]; then
		ok "$a/refused"
	else
		bad "$a/refused" "replay read a trace with a lying block (expected exit 2)" err
	fi
done

# A module path naming a FIFO (or a device): read without opening it.
"$PY" "$ROOT/tests/lib/craft.py" module-path good.data fifo.data "$OUT/fifo" 2>craft.err ||
	bad fifo/craft "tests/lib/craft.py could not make it" craft.err
readers fifo fifo.data
[ $? = 0 ] && ok fifo/read || bad fifo/read "replay of a trace naming a FIFO failed" err
"$PY" "$ROOT/tests/lib/craft.py" module-path good.data zero.data /dev/zero 2>craft.err
run zero/replay-srcline replay --srcline -i zero.data

if sanitized "$R"; then
	if [ -z "$(ls -A "$OUT/san")" ]; then
		ok "sanitizer-clean ($R)"
	else
		cat "$OUT"/san/* >"$OUT/san.txt"
		bad sanitizer-clean "a sanitizer report from a reader" "$OUT/san.txt"
	fi
fi
finish
