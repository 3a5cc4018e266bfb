#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Regenerates the fuzzers' seed corpus: small real traces made by calltrace.
#
#   tests/fuzz/make-corpus.sh
#
# Environment: BUILD (default build; calltrace is $BUILD/calltrace, or CT),
# OUT (where the programs are built; default $BUILD/fuzz/progs).
#
# Builds tiny programs of tests/programs/ and records each with one of the
# features a trace can carry (threads, fork, exec, crash, longjmp, exceptions,
# -a, --srcline, --libcalls, --ring, --lossy), writing
#   tests/fuzz/corpus/reader/NAME.ct   whole traces, for fuzz_reader
#   tests/fuzz/corpus/events/NAME.N    EVENTS payloads, for fuzz_events
# A trace over 64 KiB is an error: the seeds must stay small for the fuzzers
# to mutate them quickly. The corpus is committed (a fuzz run is then
# reproducible); run this again when the format changes. Seeds named planes_*
# (format 4), compact_* (format 5) and huff_* (format 6) are kept as they are,
# so that the readers of older formats are fuzzed too.
set -eu
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) B=$BUILD ;;
*) B=$ROOT/$BUILD ;;
esac
CT=${CT:-$B/calltrace}
OUT=${OUT:-$B/fuzz/progs}
P=$ROOT/tests/programs
C=$ROOT/tests/fuzz/corpus
PY=${PY:-python3}
MAX=65536

[ -x "$CT" ] || { echo "make-corpus.sh: $CT is missing: run make" >&2; exit 1; }
mkdir -p "$OUT" "$C/reader" "$C/events"
# older formats' seeds (planes_*: format 4, compact_*: format 5, huff_*: format 6) are kept
find "$C/reader" "$C/events" -type f ! -name 'planes_*' ! -name 'compact_*' ! -name 'huff_*' \
	-delete

# build NAME SRC CC FLAGS...: the program $OUT/NAME
build() {
	local name=$1 src=$2 cc=$3
	shift 3
	timeout -k 5 120 "$cc" -g -Wall -pthread "-I$P" "$@" "$P/$src" -o "$OUT/$name"
}

# rec NAME PROG-ARGS... (after --), record options before: rec NAME [OPTS] -- PROG ARGS
rec() {
	local name=$1 t=$C/reader/$1.ct
	shift
	# the programs exit with their own status (crash: 139): only the trace counts
	(cd "$OUT" && CT_TRUTH=/dev/null timeout -k 5 60 "$CT" record -o "$t" "$@") \
		>/dev/null 2>&1 </dev/null || true
	if [ ! -s "$t" ]; then
		echo "make-corpus.sh: no trace for $name" >&2
		exit 1
	fi
	if [ "$(stat -c %s "$t")" -gt $MAX ]; then
		echo "make-corpus.sh: $name: $(stat -c %s "$t") bytes, over $MAX" >&2
		exit 1
	fi
}

ins=(-finstrument-functions -O0)
build threads threads.c gcc "${ins[@]}" -DITERS=20
build fork fork.c gcc "${ins[@]}"
build exec_chain exec_chain.c gcc "${ins[@]}"
build crash crash.c gcc "${ins[@]}"
build longjmp longjmp.c gcc "${ins[@]}"
build exceptions exceptions.cpp g++ "${ins[@]}" -std=gnu++17
build args args.c gcc -O0 -fpatchable-function-entry=5
build libcalls fork.c gcc -O0 -fpatchable-function-entry=5
# busy enough that a 256 KiB buffer in lossy mode drops events
build busy threads.c gcc "${ins[@]}" -DITERS=3000 -DNTHREADS=4

rec threads -- ./threads
rec fork -- ./fork
rec exec_chain -- ./exec_chain 0 2
rec crash -- ./crash
rec longjmp -- ./longjmp
rec exceptions -- ./exceptions
rec args -a -- ./args one two three
rec srcline --srcline -- ./args one two three
rec libcalls --libcalls -- ./libcalls
rec ring --ring=256K --chunk-size=4K -- ./threads
rec lossy --lossy -b 256K --chunk-size=4K -- ./busy
rec args_libcalls -a --libcalls -- ./args one two three

# fuzz_events takes a sequence of [u32 length][EVENTS payload]: each trace's
# blocks of one thread in order, so the decoder also sees a second block.
"$PY" - "$C/reader" "$C/events" <<'EOF'
import os, struct, sys
src, dst = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(src)):
    if name.startswith(('planes_', 'compact_')):
        continue
    data = open(os.path.join(src, name), 'rb').read()
    off, by_thread = 32, {}
    while off + 16 <= len(data):
        magic, btype, flags, length, crc = struct.unpack_from('<IHHII', data, off)
        payload = data[off + 16:off + 16 + length]
        if btype == 5 and len(payload) >= 12:
            key = struct.unpack_from('<Iii', payload, 0)[::2]
            by_thread.setdefault(key, []).append(payload)
        off += 16 + length
    for n, blocks in enumerate(by_thread.values()):
        seq = b''.join(struct.pack('<I', len(b)) + b for b in blocks[:3])
        if len(seq) <= 65536:
            with open(os.path.join(dst, '%s.%d' % (name[:-3], n)), 'wb') as f:
                f.write(seq)
EOF
ls -l "$C/reader" | awk 'NR > 1 { print $5, $9 }'
echo "$(ls "$C/events" | wc -l) event seeds"
