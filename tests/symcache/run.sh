#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The symbol table cache (src/record/symcache.c): the first recording of a
# program writes its module's SYMTAB block into $XDG_CACHE_HOME/calltrace/symtab,
# the next ones copy it from there. A trace made from the cache must hold the
# very same block (byte for byte) as one made from the ELF file, and whatever
# the file holds, nothing wrong gets in. CALLTRACE_CACHE_DEBUG=1 makes the
# recorder say what it did with each file ("written", "used", "ignored (...)").
#   first, second  written, then used; dir 0700, file 0600; blocks identical;
#                  info says "(1 from the cache)" of the second
#   no-cache       record --no-cache and CALLTRACE_NO_CACHE=1: the file untouched
#   corrupt        a byte flipped, the file cut short, another key's file under
#                  this name: ignored, written anew, blocks identical
#   not-ours       a file others may write, a file of another user, a symbolic
#                  link, a directory others may write (the cache's or its
#                  parent's): never read
#   no-home        HOME unset: no cache at all
#   rebuilt        the program rebuilt at the same path: a file of its own, the
#                  new build's names in the trace
#   stripped       stripped in place, then the full file put back (the build-id
#                  stays): read again each time, each with its own names
#   prune          a recording that writes a file prunes the directory (256 files)
# Environment: BUILD, CALLTRACE (or CT), PY, as for tests/run.sh.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite symcache
T=60
run() { timeout -k 5 $T "$@"; }

suite_needs gcc "$PY"
suite_workdir
suite_cache_dir
DIR=$XDG_CACHE_HOME/calltrace/symtab

# prog.c NAME: a program whose functions are leaf_NAME and twice
program() {
	cat >"$W/prog.c" <<EOF
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) int leaf_$1(int x) { return x * 3 + 1; }
__attribute__((noinline)) int twice(int x) { return leaf_$1(leaf_$1(x)); }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 10, s = 0;
	for (int i = 0; i < n; i++)
		s += twice(i);
	printf("%d\n", s);
	return 0;
}
EOF
	gcc -O1 -g -finstrument-functions "$W/prog.c" -o "$W/prog" 2>"$W/build.err"
}
if ! program one; then
	bad setup "build failed" "$W/build.err"
	finish
fi

# trace NAME [record options]: NAME.err holds the recorder's lines
trace() {
	local name=$1
	shift
	run "$CT" record "$@" -o "$W/$name.data" "$W/prog" 100 >"$W/$name.out" 2>"$W/$name.err"
}

# said NAME WORD: the recorder said WORD about a symbol table file
said() {
	if grep -q "^calltrace: symbol cache .*: $2" "$W/$1.err"; then
		ok "$1/$2"
	else
		bad "$1/$2" "the recorder did not say '$2'" "$W/$1.err"
	fi
}

# silent NAME CHECK: the recorder said nothing of the cache
silent() {
	if ! grep -q 'symbol cache' "$W/$1.err"; then
		ok "$2"
	else
		bad "$2" "the cache was used" "$W/$1.err"
	fi
}

# blocks NAME: the SYMTAB blocks of NAME.data (type 6), each whole and hashed
blocks() {
	"$PY" - "$W/$1.data" <<'PY'
import hashlib, struct, sys
d = open(sys.argv[1], 'rb').read()
off = struct.unpack_from('<I', d, 12)[0]
while off + 16 <= len(d):
    magic, typ, flags, length, crc = struct.unpack_from('<IHHII', d, off)
    if typ == 6:
        print(flags, length, hashlib.sha1(d[off:off + 16 + length]).hexdigest())
    off += 16 + length
PY
}

# same NAME: NAME.data holds first.data's symbol tables, and its report names the same
same() {
	blocks "$1" >"$W/$1.blocks"
	run "$CT" report -i "$W/$1.data" --json >"$W/$1.json" 2>"$W/$1.rerr"
	if [ -s "$W/first.blocks" ] && cmp -s "$W/first.blocks" "$W/$1.blocks" &&
		grep -q '"leaf_one"' "$W/$1.json" && grep -q '"twice"' "$W/$1.json"; then
		ok "$1/same-symbols"
	else
		diff "$W/first.blocks" "$W/$1.blocks" >"$W/$1.diff" 2>&1
		bad "$1/same-symbols" "the symbol tables differ from the first recording's" "$W/$1.diff"
	fi
}

cache_file() { ls "$DIR"/*.symtab 2>/dev/null | head -n 1; }

# first: read and written; second: from the cache
trace first && said first written || bad first/record "record failed" "$W/first.err"
blocks first >"$W/first.blocks"
FILE=$(cache_file)
if [ -n "$FILE" ] && [ "$(stat -c %a "$DIR")" = 700 ] && [ "$(stat -c %a "$FILE")" = 600 ] &&
	[ -s "$W/first.blocks" ]; then
	ok first/modes
else
	ls -la "$DIR" >"$W/ls" 2>&1
	bad first/modes "no 0600 file in a 0700 directory, or no symbol table in the trace" "$W/ls"
fi
cp "$FILE" "$W/good.symtab" 2>/dev/null
trace second && said second used || bad second/record "record failed" "$W/second.err"
if grep -q 'symbol cache .*: written' "$W/second.err"; then
	bad second/not-written "the second recording wrote the file again" "$W/second.err"
else
	ok second/not-written
fi
same second
for pair in "first:1 with symbols" "second:1 with symbols (1 from the cache)"; do
	name=${pair%%:*}
	if run "$CT" info -i "$W/$name.data" >"$W/$name.info" 2>&1 &&
		grep -qx "modules: *${pair#*:}" "$W/$name.info"; then
		ok "info/$name"
	else
		bad "info/$name" "no line 'modules: ${pair#*:}'" "$W/$name.info"
	fi
done

# no cache when asked
before=$(stat -c %Y.%i "$FILE")
trace optout --no-cache
silent optout no-cache/option
CALLTRACE_NO_CACHE=1 trace envout
silent envout no-cache/env
[ "$(stat -c %Y.%i "$FILE")" = "$before" ] && ok no-cache/untouched ||
	bad no-cache/untouched "the file changed"
same optout

# damaged files are ignored, and replaced by a good one
"$PY" - "$FILE" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[len(b) // 2] ^= 0x40
open(sys.argv[1], 'wb').write(b)
PY
trace flipped && grep -q 'symbol cache .*: ignored (not well-formed)' "$W/flipped.err" &&
	grep -q 'symbol cache .*: written' "$W/flipped.err" && ok corrupt/flipped-ignored ||
	bad corrupt/flipped-ignored "a flipped byte was not refused" "$W/flipped.err"
same flipped
head -c 100 "$W/good.symtab" >"$FILE"
trace cut && grep -q 'symbol cache .*: ignored' "$W/cut.err" && ok corrupt/cut-ignored ||
	bad corrupt/cut-ignored "a file cut short was not refused" "$W/cut.err"
same cut
# well-formed, checksum and all, but for another key (one byte of it changed)
"$PY" - "$W/good.symtab" "$FILE" <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[24 + 10] ^= 0x01 # in the key's text
h = 0xcbf29ce484222325
for x in b[:-8]:
    h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
struct.pack_into('<Q', b, len(b) - 8, h)
open(sys.argv[2], 'wb').write(b)
PY
trace otherkey && grep -q 'symbol cache .*: ignored (not well-formed)' "$W/otherkey.err" &&
	ok corrupt/other-key-ignored || bad corrupt/other-key-ignored "another key's table was used" "$W/otherkey.err"
same otherkey

# files and directories others could write are not read
cp "$W/good.symtab" "$FILE"
chmod 666 "$FILE"
trace open666 && grep -q 'symbol cache .*: ignored (not a file of the user' "$W/open666.err" &&
	ok not-ours/file-mode || bad not-ours/file-mode "a file others may write was read" "$W/open666.err"
same open666
if [ "$(id -u)" = 0 ]; then
	cp "$W/good.symtab" "$FILE" && chmod 600 "$FILE" && chown 65534 "$FILE"
	trace owner && grep -q 'symbol cache .*: ignored (not a file of the user' "$W/owner.err" &&
		ok not-ours/owner || bad not-ours/owner "another user's file was read" "$W/owner.err"
	same owner
else
	skip not-ours/owner "needs root to give a file away"
fi
rm -f "$FILE"
cp "$W/good.symtab" "$W/target.symtab"
ln -s "$W/target.symtab" "$FILE"
trace link && grep -q 'symbol cache .*: written' "$W/link.err" && ! grep -q ': used' "$W/link.err" &&
	[ ! -L "$FILE" ] && cmp -s "$W/target.symtab" "$W/good.symtab" && ok not-ours/symlink ||
	bad not-ours/symlink "a symbolic link was followed" "$W/link.err"
chmod 777 "$DIR"
trace opendir
silent opendir not-ours/dir-mode
chmod 700 "$DIR"
chmod 777 "$XDG_CACHE_HOME/calltrace"
trace openparent
silent openparent not-ours/parent-mode
chmod 700 "$XDG_CACHE_HOME/calltrace"

# without HOME, nothing
env -u HOME timeout -k 5 $T "$CT" record -o "$W/nohome.data" "$W/prog" 100 >/dev/null 2>"$W/nohome.err"
silent nohome no-home

# the program rebuilt where it was: its own file, its own names
if program two; then
	trace rebuilt && said rebuilt written
	run "$CT" report -i "$W/rebuilt.data" --json >"$W/rebuilt.json" 2>&1
	trace rebuilt2 && said rebuilt2 used
	run "$CT" report -i "$W/rebuilt2.data" --json >"$W/rebuilt2.json" 2>&1
	if [ "$(ls "$DIR"/*.symtab | wc -l)" = 2 ] && grep -q '"leaf_two"' "$W/rebuilt2.json" &&
		! grep -q '"leaf_one"' "$W/rebuilt2.json"; then
		ok rebuilt/own-names
	else
		bad rebuilt/own-names "not two files, or the old build's names" "$W/rebuilt2.json"
	fi
else
	bad rebuilt/build "build failed" "$W/build.err"
fi

# stripped in place (the build-id stays), then put back: read again each time
if command -v strip >/dev/null 2>&1; then
	cp -p "$W/prog" "$W/prog.full"
	strip "$W/prog"
	trace stripped && said stripped written
	run "$CT" report -i "$W/stripped.data" --json >"$W/stripped.json" 2>&1
	cp "$W/prog.full" "$W/prog"
	trace restored && said restored written
	run "$CT" report -i "$W/restored.data" --json >"$W/restored.json" 2>&1
	if ! grep -q '"leaf_two"' "$W/stripped.json" && grep -q '"leaf_two"' "$W/restored.json"; then
		ok stripped/own-names
	else
		bad stripped/own-names "the stripped file's names, or the full one's, came from the other" \
			"$W/restored.json"
	fi
else
	skip stripped "no strip (binutils)"
fi

# pruning: 300 tables of the last 10 days; the one written stays, 256 in all
rm -f "$DIR"/*.symtab
now=$(date +%s)
for i in $(seq 1 300); do
	f=$(printf '%s/%040x-%016x.symtab' "$DIR" "$i" "$i")
	echo x >"$f" && chmod 600 "$f" && touch -d "@$((now - 864000 + i * 60))" "$f"
done
trace prune && said prune written
if [ "$(ls "$DIR" | grep -c '\.symtab$')" = 256 ] && [ -n "$(cache_file)" ] &&
	! [ -e "$(printf '%s/%040x-%016x.symtab' "$DIR" 1 1)" ]; then
	ok prune/count
else
	ls -la "$DIR" >"$W/prune.ls" 2>&1
	bad prune/count "not 256 files, or the oldest kept" "$W/prune.ls"
fi
finish
