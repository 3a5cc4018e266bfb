#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The recorder's encoder (issue 23): byte planes (format 4, compact codec in format 5, Huffman-coded
# clock plane in format 6, calls made again as bits in format 7, the clock plane split on its
# most frequent bytes in format 8), worker threads (record --jobs N), and old traces. Alone:
#
#   BUILD=build tests/encoder/run.sh
#
#   old-format         a format 2 trace (tests/encoder/v2.data, varint columns,
#                      recorded before format 4) still reads: its records, calls
#   old-format-4       a format 4 trace (tests/encoder/v4.data, byte planes without
#                      format 5's matched returns: work threads 2 300) still reads
#   old-format-5       a format 5 trace (tests/encoder/v5.data, compact planes with
#                      the clock plane raw, before format 6's Huffman codes) still reads
#   old-format-6       a format 6 trace (tests/encoder/v6.data, before format 7's
#                      calls made again) still reads
#   old-format-7       a format 7 trace (tests/encoder/v7.data, before format 8's
#                      split clock plane) still reads
#   jobs-N/counts      8 threads x 20,000 calls with --jobs 1, 2, 4: exact counts,
#                      nothing lost, the same per-thread records whatever N
#   jobs-N/same        ... and the same calls in the same order in each thread
#   escapes/gaps       calls 200 us apart (clock deltas past 16 bits): exact, in order
#   escapes/frames     recursion through 4 KiB frames (stack deltas past 8 bits)
#   escapes/functions  17,000 functions in one block (codes past 16 bits)
#   escapes/functions-default-chunks  ... recorded in 64 KiB chunks: more functions
#                      than a chunk has records (the encoder's dictionary grows)
#   jobs-modes/*       --jobs 2 with --ring and with --lossy: the recording ends,
#                      recorded + lost = every call
#   bad-jobs/*         --jobs 0, 257, x: one line on stderr, exit 2
#   tail-exits/CC/*    gcc's and clang's -O2 tail-called exit hooks (tail.c): each
#                      exit at its call's stack pointer (a bit to the encoder), exact
#   groups/*           a thread's chunks that wait together (the recorder stopped while
#                      the thread fills 70 of them) go into blocks of 64 chunks: exact
# Every command has a deadline.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite encoder
OUT=$OUT/encoder
T=60
rm -rf "$OUT" && mkdir -p "$OUT" && cd "$OUT" || exit 2
if ! [ -x "$CT" ]; then
	bad tool "no calltrace at $CT (run make)"
	finish
fi

# calls FILE NAME: the Calls column of NAME's line in a report
calls() { awk -v f="$2" '$NF == f { print $(NF - 7) }' "$1"; }

# old_format NAME FILE VERSION EXPECTED F1 F2 F3 F4: an old trace reads: its format,
# its records and the calls of four functions as EXPECTED says
old_format() {
	local name=$1 file=$2 version=$3 want=$4 got f
	shift 4
	if timeout -k 5 $T "$CT" info -i "$file" >$name.info 2>&1 &&
		timeout -k 5 $T "$CT" report -i "$file" >$name.report 2>&1; then
		got="$(grep -c "format $version" $name.info) $(grep -o '^records: *[0-9,]*' $name.info | tr -s ' ')"
		for f in "$@"; do
			got="$got $(calls $name.report "$f")"
		done
		if [ "$got" = "$want" ]; then
			ok $name
		else
			bad $name "read as: $got" $name.report
		fi
	else
		bad $name "info or report failed" $name.report
	fi
}

# a trace written before format 4 (varint columns), one of format 4 (codec 3),
# before format 5's compact planes, one of format 5 (codec 7), before format
# 6's Huffman-coded clock plane, one of format 6, before format 7's calls made again, and
# one of format 7, before format 8's split clock plane
old_format old-format "$HERE/v2.data" 2 "1 records: 4,407 1 2 1150 1050" main run rec leaf
old_format old-format-4 "$HERE/v4.data" 4 "1 records: 3,608 1 2 600 1200" main run twice once
old_format old-format-5 "$HERE/v5.data" 5 "1 records: 3,608 1 2 600 1200" main run twice once
old_format old-format-6 "$HERE/v6.data" 6 "1 records: 3,608 1 2 600 1200" main run twice once
old_format old-format-7 "$HERE/v7.data" 7 "1 records: 3,608 1 2 600 1200" main run twice once

cc -O1 -g -pthread -finstrument-functions "$HERE/work.c" -o work 2>build.err ||
	{ bad build "work.c does not build" build.err; finish; }

# ---- --jobs N: the same records whatever N ----
# each thread's calls and returns in its order, thread ids and times left out (and
# the threads in no particular order): what must not change
sequence() {
	timeout -k 5 $T "$CT" dump -i "$1" 2>/dev/null | timeout -k 5 $T $PY -c '
import hashlib, sys
threads, cur = [], None
for line in sys.stdin:
    f = line.split()
    if line.startswith("# thread"):
        cur = hashlib.md5()
        threads.append(cur)
    elif cur and len(f) > 3 and f[2] in ("enter", "exit"):
        cur.update((f[2] + " " + f[-1] + ";").encode())
print(sorted(h.hexdigest() for h in threads))'
}
for j in 1 2 4; do
	d=jobs-$j
	mkdir -p $d
	if ! timeout -k 5 $T "$CT" record --jobs $j -o $d/t.data -- ./work threads 8 20000 \
		>$d/out 2>$d/err; then
		bad $d/counts "record failed" $d/err
		continue
	fi
	timeout -k 5 $T "$CT" report -i $d/t.data >$d/report 2>&1
	timeout -k 5 $T "$CT" info -i $d/t.data >$d/info 2>&1
	got="$(calls $d/report run) $(calls $d/report twice) $(calls $d/report once)"
	lost=$(grep -o '^lost: *[0-9,]*' $d/info | tr -dc 0-9)
	if [ "$got" = "8 160000 320000" ] && [ "$lost" = 0 ] && grep -q 'format 8' $d/info; then
		ok $d/counts
	else
		bad $d/counts "calls run twice once: $got (8 160000 320000), lost $lost" $d/info
	fi
	sequence $d/t.data >$d/seq
done
if [ -s jobs-1/seq ] && cmp -s jobs-1/seq jobs-2/seq && cmp -s jobs-1/seq jobs-4/seq; then
	ok jobs/same
else
	bad jobs/same "the threads' records differ between --jobs 1, 2 and 4"
fi

# ---- consecutive chunks of a thread in one block ----
# The recorder is stopped (SIGSTOP) while the program fills about 70 chunks, so that
# it finds them all waiting: they must go eight to a block, every record exact.
mkdir -p groups
timeout -k 5 $T "$CT" record -o groups/t.data --jobs 1 -- ./work burst groups 200000 \
	>groups/out 2>groups/err &
rec=$!
for _ in $(seq 200); do [ -n "$(pgrep -P $rec)" ] && break; sleep 0.05; done
kill -STOP $rec 2>/dev/null
for _ in $(seq 600); do [ -e groups/done ] && break; sleep 0.05; done
kill -CONT $rec 2>/dev/null
touch groups/go
if wait $rec && timeout -k 5 $T "$CT" report -i groups/t.data >groups/report 2>&1; then
	got="$(calls groups/report twice) $(calls groups/report once)"
	most=$("$PY" -c '
import sys
sys.path.insert(0, sys.argv[1])
import craft
_, blocks = craft.parse(open(sys.argv[2], "rb").read())
print(max(craft.EVH.unpack_from(b[2])[7] for b in blocks if b[0] == craft.EVENTS))' \
		"$ROOT/tests/lib" groups/t.data 2>groups/py.err)
	if [ "$got" = "200000 400000" ] && [ "${most:-0}" -gt 258048 ]; then
		ok groups/exact
	else
		bad groups/exact "calls twice once: $got (200000 400000); most records in a block: ${most:-?} (more than 63 chunks' 258,048 expected)" groups/report
	fi
else
	bad groups/exact "record or report failed" groups/err
fi

# ---- values past the byte planes: escaped, exact ----
esc() { # NAME EXPECTED-CALLS FUNCTION [RECORD OPTIONS] -- PROGRAM ARGS
	local name=$1 want=$2 fn=$3
	shift 3
	mkdir -p escapes
	if timeout -k 5 $T "$CT" record -o escapes/$name.data "$@" >escapes/$name.out \
		2>escapes/$name.err &&
		timeout -k 5 $T "$CT" report -i escapes/$name.data >escapes/$name.report 2>&1 &&
		[ "$(calls escapes/$name.report "$fn")" = "$want" ]; then
		ok escapes/$name
	else
		bad escapes/$name "$fn: '$(calls escapes/$name.report "$fn")' calls, not $want" \
			escapes/$name.report
	fi
}
esc gaps 300 pause_200us -- ./work gaps 300
esc frames 201 deep -- ./work frames 200
# the clock and stack in order: every time after the one before, frames 4 KiB apart
timeout -k 5 $T "$CT" dump -i escapes/frames.data 2>/dev/null |
	awk '$3 == "enter" && $NF == "deep" { sub("sp=0x", "", $4); print $4 }' >escapes/sps
if [ "$(wc -l <escapes/sps)" = 201 ] &&
	$PY -c 'import sys; v=[int(l,16) for l in open(sys.argv[1])]; sys.exit(any(a-b < 4096 for a,b in zip(v,v[1:])))' escapes/sps; then
	ok escapes/frames-sp
else
	bad escapes/frames-sp "stack pointers not 4 KiB apart or more" escapes/sps
fi
timeout -k 5 $T "$CT" dump -i escapes/gaps.data 2>/dev/null |
	awk '$3 == "enter" { print $1 }' >escapes/times
if [ "$(wc -l <escapes/times)" -gt 300 ] &&
	$PY -c 'import sys; v=[float(l) for l in open(sys.argv[1])]; sys.exit(v != sorted(v))' escapes/times; then
	ok escapes/gaps-order
else
	bad escapes/gaps-order "call times out of order" escapes/times
fi
{
	for i in $(seq 0 16999); do echo "__attribute__((noinline)) void f$i(void) { __asm__ volatile(\"\"); }"; done
	echo "typedef void (*fp)(void);"
	echo "static fp t[] = {"
	for i in $(seq 0 16999); do echo "f$i,"; done
	echo "};"
	echo "int main(void) { for (int i = 0; i < 17000; i++) t[i](); return 0; }"
} >many.c
if timeout -k 5 300 cc -O0 -finstrument-functions many.c -o many 2>many.err; then
	# one chunk of 1 MiB holds every record: one block of 17,001 functions
	if timeout -k 5 $T "$CT" record --chunk-size 1M -o escapes/many.data -- ./many \
		>/dev/null 2>escapes/many.err &&
		timeout -k 5 $T "$CT" report -i escapes/many.data >escapes/many.report 2>&1 &&
		[ "$(awk '$NF ~ /^f[0-9]+$/ && $(NF - 7) == 1' escapes/many.report | wc -l)" = 17000 ]; then
		ok escapes/functions
	else
		bad escapes/functions "not 17,000 functions called once each" escapes/many.report
	fi
	# default chunks: blocks name more functions than a chunk has records (the
	# encoder's dictionary, sized for one chunk, grows; full, it hung the recorder)
	if timeout -k 5 $T "$CT" record -o escapes/many-default.data -- ./many \
		>/dev/null 2>escapes/many-default.err &&
		timeout -k 5 $T "$CT" report -i escapes/many-default.data >escapes/many-default.report 2>&1 &&
		[ "$(awk '$NF ~ /^f[0-9]+$/ && $(NF - 7) == 1' escapes/many-default.report | wc -l)" = 17000 ]; then
		ok escapes/functions-default-chunks
	else
		bad escapes/functions-default-chunks "not 17,000 functions called once each" escapes/many-default.report
	fi
else
	bad escapes/functions "many.c does not build" many.err
fi

# ---- --jobs with the flight recorder and lossy mode ----
for mode in ring lossy; do
	d=jobs-modes/$mode
	mkdir -p $d
	opt=--lossy
	[ $mode = ring ] && opt="--ring 1M"
	# shellcheck disable=SC2086
	if timeout -k 5 $T "$CT" record --jobs 2 $opt -o $d/t.data -- ./work threads 4 50000 \
		>$d/out 2>$d/err && timeout -k 5 $T "$CT" info -i $d/t.data >$d/info 2>&1; then
		rec=$(grep -o '^records: *[0-9,]*' $d/info | tr -dc 0-9)
		lost=$(grep -o '^lost: *[0-9,]*' $d/info | tr -dc 0-9)
		if [ $mode = ring ] || [ $((rec + lost)) -ge 1200004 ]; then
			ok $d
		else
			bad $d "records $rec + lost $lost < 1,200,004" $d/info
		fi
	else
		bad $d "record or info failed" $d/err
	fi
done

# ---- exit hooks the compiler tail-called: paired with their calls ----
# Each exit record has the stack pointer of the call it ends (the runtime takes it from
# its shadow stack: the hook itself runs in the caller's frame), so that the encoder
# stores the return as a bit; the counts stay exact.
for cc in gcc clang; do
	d=tail-exits/$cc
	mkdir -p $d
	if ! timeout -k 5 $T $cc -O2 -finstrument-functions "$HERE/tail.c" -o $d/tail 2>$d/build.err; then
		bad $d/built "tail.c does not build with $cc -O2" $d/build.err
		continue
	fi
	# the test means nothing unless the hooks are jumped to
	if [ "$(objdump -d $d/tail | grep -Ec 'jmp .*<__cyg_profile_func_exit@plt>')" -ge 4 ]; then
		ok $d/built
	else
		bad $d/built "$cc did not tail-call the exit hook of leaf, middle, rec and on_usr1"
	fi
	if ! timeout -k 5 $T "$CT" record -o $d/t.data -- $d/tail 100 >$d/out 2>$d/err ||
		! timeout -k 5 $T "$CT" report -i $d/t.data >$d/report 2>&1; then
		bad $d/paired "record or report failed" $d/err
		continue
	fi
	got="$(calls $d/report main) $(calls $d/report middle) $(calls $d/report on_usr1)"
	got="$got $(calls $d/report rec) $(calls $d/report leaf)"
	if [ "$got" = "1 100 10 442 310" ]; then
		ok $d/counts
	else
		bad $d/counts "calls main middle on_usr1 rec leaf: $got (1 100 10 442 310)" $d/report
	fi
	# every exit against its call's stack pointer: how many exits, how many differ
	timeout -k 5 $T "$CT" dump -i $d/t.data 2>/dev/null | $PY -c '
import sys
calls, exits, differ = [], 0, 0
for line in sys.stdin:
    f = line.split()
    if len(f) < 5 or f[0] == "#" or f[2] not in ("enter", "exit"):
        continue
    if f[2] == "enter":
        calls.append((f[-1], f[3]))
        continue
    exits += 1
    while calls and calls[-1][0] != f[-1]:
        calls.pop()
    if calls:
        differ += calls.pop()[1] != f[3]
print(exits, differ)' >$d/pairs
	# main, middle, on_usr1, rec and leaf (clang's build also has library calls')
	if [ "$(cut -d' ' -f2 $d/pairs)" = 0 ] && [ "$(cut -d' ' -f1 $d/pairs)" -ge 863 ]; then
		ok $d/paired
	else
		bad $d/paired "exits, of which at another stack pointer than their call: $(cat $d/pairs) (863 or more, 0)"
	fi
done

# ---- bad --jobs ----
for v in 0 257 x; do
	timeout -k 5 $T "$CT" record --jobs $v -o bad.data -- ./work gaps 1 >bad.out 2>bad.err
	st=$?
	if [ $st = 2 ] && [ "$(wc -l <bad.err)" = 1 ] && grep -q '^calltrace: .*--jobs' bad.err; then
		ok bad-jobs/$v
	else
		bad bad-jobs/$v "exit $st" bad.err
	fi
done
finish
