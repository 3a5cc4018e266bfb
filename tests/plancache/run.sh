#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The patch plan cache (src/runtime/methods/plancache.c, issue 21 item 5): the first
# dynamically patched run writes the plan of tests/patch/shapes.c (gcc -O2)
# into $XDG_CACHE_HOME/calltrace, the second uses it; every run's counts are
# exact (the program's own), with and without the cache. CALLTRACE_CACHE_DEBUG=1
# makes the runtime say what it did with the file ("written", "used",
# "ignored (...)").
#   first, second  written, then used; dir 0700, file 0600; counts exact (the
#                  recorder's symbol tables go to the subdirectory symtab/:
#                  tests/symcache)
#   no-cache       record --no-cache and CALLTRACE_NO_CACHE=1: the file untouched
#   corrupt        a byte flipped, the file cut short: ignored, counts exact
#   forged         well-formed (checksum recomputed) but a function's bytes
#                  differ from the code: ignored, counts exact
#   other-build    another build's plan under this build's name: ignored
#   not-ours       a file others may write, a directory others may write, a
#                  file of another user: ignored (and never written there)
#   no-home        HOME unset: no cache at all
#   info           info's "patch plans:" line: planned and cached, from the
#                  cache, planned and not cached (--no-cache)
#   prune          a run that writes a plan prunes the cache: unused for 30
#                  days, beyond 256 files or 64 MiB (least recently used
#                  first), stale temporary files; a plan used gets its time set
# Environment: BUILD, CALLTRACE (or CT), PY, as for tests/run.sh.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite plancache
T=60
run() { timeout -k 5 $T "$@"; }

suite_needs gcc "$PY"
suite_workdir
suite_cache_dir
DIR=$XDG_CACHE_HOME/calltrace

if ! gcc -O2 -g "$ROOT/tests/patch/shapes.c" -o "$W/shapes" 2>"$W/build.err" ||
	! gcc -O2 -g -fcf-protection=full "$ROOT/tests/patch/shapes.c" -o "$W/other" 2>>"$W/build.err"; then
	bad setup "build failed" "$W/build.err"
	finish
fi
run "$W/shapes" 300 >"$W/native.out" 2>/dev/null

# trace NAME PROG [record options]: record PROG 300; NAME.err holds the runtime's lines
trace() {
	local name=$1 prog=$2
	shift 2
	run "$CT" record "$@" -o "$W/$name.data" "$prog" 300 >"$W/$name.out" 2>"$W/$name.err"
}

# exact NAME: every function patched has the program's count, no other shows up
exact() {
	run "$CT" report -i "$W/$1.data" --json >"$W/$1.json" 2>"$W/$1.rerr" &&
		run "$CT" info --skipped -i "$W/$1.data" >"$W/$1.skipped" 2>>"$W/$1.rerr" || {
		bad "$1/exact" "report or info failed" "$W/$1.rerr"
		return
	}
	if "$PY" - "$W/native.out" "$W/$1.json" "$W/$1.skipped" >"$W/$1.check" 2>&1 <<'PY'; then
import json, sys
truth = dict(l.split() for l in open(sys.argv[1]))
got = {e['name']: e['calls'] for e in json.load(open(sys.argv[2]))}
skipped = {l.split('\t')[0] for l in open(sys.argv[3]) if '\t' in l}
bad = []
for name, n in truth.items():
    want = 0 if name in skipped else int(n)
    if got.get(name, 0) != want:
        bad.append('%s: %d in report, %d expected' % (name, got.get(name, 0), want))
for name in got:
    if name not in truth:
        bad.append('%s: in the report, not a function of the program' % name)
if sum(got.values()) == 0:
    bad.append('nothing traced')
print('\n'.join(bad))
sys.exit(1 if bad else 0)
PY
		ok "$1/exact"
	else
		bad "$1/exact" "counts differ" "$W/$1.check"
	fi
}

# said NAME WORD: the runtime said WORD about the plan file (and nothing else about it)
said() {
	local lines
	lines=$(grep -c '^calltrace: plan cache ' "$W/$1.err")
	if grep -q "^calltrace: plan cache .*: $2" "$W/$1.err" && [ "$lines" = 1 ]; then
		ok "$1/$2"
	else
		bad "$1/$2" "the runtime did not say '$2' once" "$W/$1.err"
	fi
}

plan_file() { ls "$DIR"/*.plan 2>/dev/null | head -n 1; }

# first run: planned and written; second: read back
trace first "$W/shapes" && said first written || bad first/record "record failed" "$W/first.err"
exact first
PLAN=$(plan_file)
if [ -n "$PLAN" ] && [ "$(stat -c %a "$DIR")" = 700 ] && [ "$(stat -c %a "$PLAN")" = 600 ] &&
	[ -z "$(ls -A "$DIR" | grep -v -e '\.plan$' -e '^symtab$')" ]; then
	ok first/modes
else
	ls -la "$DIR" >"$W/ls" 2>&1
	bad first/modes "the plan is not one 0600 file in a 0700 directory" "$W/ls"
fi
cp "$PLAN" "$W/good.plan" 2>/dev/null
trace second "$W/shapes" && said second used || bad second/record "record failed" "$W/second.err"
exact second
if cmp -s <("$PY" -c 'import json,sys; print(sorted((e["name"], e["calls"]) for e in json.load(open(sys.argv[1]))))' "$W/first.json") \
	<("$PY" -c 'import json,sys; print(sorted((e["name"], e["calls"]) for e in json.load(open(sys.argv[1]))))' "$W/second.json"); then
	ok second/same-as-first
else
	bad second/same-as-first "the counts differ from the first run's"
fi
run "$CT" info -i "$W/first.data" | grep '^patched:' >"$W/first.patched"
run "$CT" info -i "$W/second.data" | grep '^patched:' >"$W/second.patched"
if [ -s "$W/first.patched" ] && cmp -s "$W/first.patched" "$W/second.patched"; then
	ok second/same-skips
else
	bad second/same-skips "info's patched line differs" "$W/second.patched"
fi

# no cache when asked
before=$(stat -c %Y.%i "$PLAN")
trace optout "$W/shapes" --no-cache
if ! grep -q 'plan cache' "$W/optout.err" && [ "$(stat -c %Y.%i "$PLAN")" = "$before" ]; then
	ok no-cache/option
else
	bad no-cache/option "--no-cache still used the cache" "$W/optout.err"
fi
exact optout
CALLTRACE_NO_CACHE=1 trace envout "$W/shapes"
if ! grep -q 'plan cache' "$W/envout.err"; then
	ok no-cache/env
else
	bad no-cache/env "CALLTRACE_NO_CACHE=1 still used the cache" "$W/envout.err"
fi

# corrupt files are ignored, and replaced by a good one
"$PY" - "$PLAN" <<'PY'
import sys
b = bytearray(open(sys.argv[1], 'rb').read())
b[len(b) // 2] ^= 0x40
open(sys.argv[1], 'wb').write(b)
PY
trace flipped "$W/shapes" && grep -q 'plan cache .*: ignored (not well-formed)' "$W/flipped.err" &&
	grep -q 'plan cache .*: written' "$W/flipped.err" && ok corrupt/flipped-ignored ||
	bad corrupt/flipped-ignored "a flipped byte was not refused" "$W/flipped.err"
exact flipped
head -c 100 "$W/good.plan" >"$PLAN"
trace cut "$W/shapes" && grep -q 'plan cache .*: ignored' "$W/cut.err" && ok corrupt/cut-ignored ||
	bad corrupt/cut-ignored "a file cut short was not refused" "$W/cut.err"
exact cut

# well-formed, checksum and all, but one function's bytes are not the code's
if "$PY" - "$W/good.plan" "$PLAN" <<'PY' 2>"$W/forge.err"; then
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
magic, key_len, count, rec_size = struct.unpack_from('<8sIII', b, 0)
at = 40 + ((key_len + 7) & ~7)
for i in range(count):
    r = at + i * rec_size
    reason, patch_off, moved = b[r + 12], b[r + 13], b[r + 14]
    if reason == 0 and moved:
        b[r + 16 + patch_off] ^= 0xff
        break
else:
    sys.exit('no patched function in the plan')
h = 0xcbf29ce484222325
for x in b[:-8]:
    h = ((h ^ x) * 0x100000001b3) & 0xffffffffffffffff
struct.pack_into('<Q', b, len(b) - 8, h)
open(sys.argv[2], 'wb').write(b)
PY
	trace forged "$W/shapes" && grep -q 'plan cache .*: ignored (the code differs)' "$W/forged.err" &&
		ok forged/ignored || bad forged/ignored "a plan whose bytes differ was used" "$W/forged.err"
	exact forged
else
	bad forged/make "could not forge the plan" "$W/forge.err"
fi

# another build's plan under this one's name
trace other1 "$W/other"
OTHER=$(grep -o 'plan cache [^:]*' "$W/other1.err" | head -n 1 | cut -d' ' -f3)
if [ -n "$OTHER" ] && [ "$DIR/$OTHER" != "$PLAN" ]; then
	cp "$W/good.plan" "$DIR/$OTHER"
	trace other2 "$W/other" && grep -q 'plan cache .*: ignored' "$W/other2.err" &&
		ok other-build/ignored || bad other-build/ignored "another build's plan was used" "$W/other2.err"
else
	bad other-build/ignored "the other build wrote no plan of its own name" "$W/other1.err"
fi

# files and directories others could write are not read
cp "$W/good.plan" "$PLAN"
chmod 666 "$PLAN"
trace open666 "$W/shapes" && grep -q 'plan cache .*: ignored (not a file of the user' "$W/open666.err" &&
	ok not-ours/file-mode || bad not-ours/file-mode "a file others may write was read" "$W/open666.err"
exact open666
if [ "$(id -u)" = 0 ]; then
	cp "$W/good.plan" "$PLAN" && chmod 600 "$PLAN" && chown 65534 "$PLAN"
	trace owner "$W/shapes" && grep -q 'plan cache .*: ignored (not a file of the user' "$W/owner.err" &&
		ok not-ours/owner || bad not-ours/owner "another user's file was read" "$W/owner.err"
else
	skip not-ours/owner "needs root to give a file away"
fi
rm -f "$DIR"/*.plan
chmod 777 "$DIR"
trace opendir "$W/shapes"
if ! grep -q 'plan cache' "$W/opendir.err" && [ -z "$(ls -A "$DIR" | grep -v '^symtab$')" ]; then
	ok not-ours/dir-mode
else
	bad not-ours/dir-mode "a directory others may write was used" "$W/opendir.err"
fi
chmod 700 "$DIR"

# without HOME, nothing
env -u HOME timeout -k 5 $T "$CT" record -o "$W/nohome.data" "$W/shapes" 300 >/dev/null 2>"$W/nohome.err"
if ! grep -q 'plan cache' "$W/nohome.err"; then
	ok no-home
else
	bad no-home "the cache was used without HOME" "$W/nohome.err"
fi

# info says where each module's plan came from
for pair in "first:1 module planned and cached" "second:1 module from the cache" \
	"optout:1 module planned, not cached"; do
	name=${pair%%:*}
	if run "$CT" info -i "$W/$name.data" >"$W/$name.info" 2>&1 &&
		grep -qx "patch plans: ${pair#*:}" "$W/$name.info"; then
		ok "info/$name"
	else
		bad "info/$name" "no line 'patch plans: ${pair#*:}'" "$W/$name.info"
	fi
done

# pruning: 300 plans of the last 10 days, 5 unused for 40, temporary files
rm -rf "$DIR" && mkdir -m 700 "$DIR"
now=$(date +%s)
dummy() { printf '%s/%040x-%016x.plan' "$DIR" "$1" "$1"; }
for i in $(seq 1 305); do
	f=$(dummy "$i")
	echo x >"$f" && chmod 600 "$f"
	if [ "$i" -le 300 ]; then
		touch -d "@$((now - 864000 + i * 60))" "$f"
	else
		touch -d "@$((now - 40 * 86400))" "$f"
	fi
done
echo x >"$DIR/.$(basename "$(dummy 1)").123.tmp" && touch -d "@$((now - 7200))" "$DIR/.$(basename "$(dummy 1)").123.tmp"
echo x >"$DIR/.$(basename "$(dummy 2)").124.tmp"
echo x >"$DIR/notes.txt"
trace prune "$W/shapes" && said prune written || bad prune/record "record failed" "$W/prune.err"
left=$(ls "$DIR" | grep -c '\.plan$')
gone=0 kept=0
for i in $(seq 1 305); do [ -e "$(dummy "$i")" ] || gone=$((gone + 1)); done
for i in $(seq 46 300); do [ -e "$(dummy "$i")" ] && kept=$((kept + 1)); done
if [ "$left" = 256 ] && [ -e "$PLAN" ] && [ "$gone" = 50 ] && [ "$kept" = 255 ]; then
	ok prune/count-and-age
else
	ls -la "$DIR" >"$W/prune.ls" 2>&1
	bad prune/count-and-age "$left plans left (want 256, the new one and the 255 newest), $gone removed (want 50)" "$W/prune.ls"
fi
if ! [ -e "$DIR/.$(basename "$(dummy 1)").123.tmp" ] && [ -e "$DIR/.$(basename "$(dummy 2)").124.tmp" ] &&
	[ -e "$DIR/notes.txt" ]; then
	ok prune/other-files
else
	ls -la "$DIR" >"$W/prune.ls" 2>&1
	bad prune/other-files "a stale temporary file kept, or a fresh one or another file removed" "$W/prune.ls"
fi

# a plan used gets its time set (it is the least recently used that go)
touch -d "@$((now - 20 * 86400))" "$PLAN"
trace reused "$W/shapes" && said reused used
if [ "$(stat -c %Y "$PLAN")" -ge "$now" ]; then
	ok prune/used-is-recent
else
	bad prune/used-is-recent "the plan used kept its old time"
fi

# the size bound: two sparse 40 MiB plans, newer than all the rest: one stays
truncate -s 40M "$(dummy 400)" "$(dummy 401)" && chmod 600 "$(dummy 400)" "$(dummy 401)"
touch -d "@$((now - 60))" "$(dummy 400)"
touch -d "@$((now - 120))" "$(dummy 401)"
rm -f "$PLAN"
trace big "$W/shapes" && said big written
if [ -e "$PLAN" ] && [ -e "$(dummy 400)" ] && ! [ -e "$(dummy 401)" ] &&
	[ "$(ls "$DIR" | grep -c '\.plan$')" = 2 ]; then
	ok prune/size
else
	ls -la "$DIR" >"$W/big.ls" 2>&1
	bad prune/size "not the new plan and the newest 40 MiB one alone" "$W/big.ls"
fi
finish
