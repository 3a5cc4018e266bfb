#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Patched calls against hooked ones on real code (issue 21 item 11): Lua 5.4 and
# sqlite3 3.40 from Debian's sources (and bench.py's fib(32), for comparison), each
# built plain -O2 -g (traced by dynamic patching) and -O2 -g -finstrument-functions
# (traced by the hooks), run under one
# or more calltrace builds, the variants interleaved so they share the machine's
# load. The figure is the traced program's own CPU (`calltrace info`'s cpu: line)
# above the untraced plain build's, a run of a near-empty workload subtracted from
# each (start-up, patching), divided by the calls the trace counts (the hooks also
# count inlined functions), median of RUNS runs; and the same from each variant's
# quickest run (on a loaded machine the medians drift with the load).
#
# Usage: bench/patchcost_bench.sh [--runs N] [--only lua,sqlite3,fib] [CALLTRACE...]
#                                 (default $BUILD/calltrace)
# Each CALLTRACE (a build's calltrace, its runtime beside it) gets both rows, so
# builds before and after a change are compared in one run.
# Sources and builds are kept in $PATCHCOST_DIR (default /tmp/calltrace-patchcost);
# they come from `apt-get source lua5.4 sqlite3` (a deb-src line for bookworm in
# /etc/apt/sources.list.d/ is needed) and sqlite3's amalgamation needs tclsh.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD:-build}
case $build in /*) ;; *) build=$root/$build ;; esac
dir=${PATCHCOST_DIR:-/tmp/calltrace-patchcost}
runs=5 only=lua,sqlite3,fib
cts=()
while [ $# -gt 0 ]; do
	case $1 in
	--runs) runs=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	-*) echo "usage: $0 [--runs N] [--only lua,sqlite3,fib] [CALLTRACE...]" >&2; exit 2 ;;
	*) cts+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"); shift ;;
	esac
done
[ ${#cts[@]} -gt 0 ] || cts=("$build/calltrace")
mkdir -p "$dir"
cd "$dir"

fetch() { # PACKAGE: its Debian source, unpacked once into src-PACKAGE
	[ -d "src-$1" ] && return
	mkdir -p "dl-$1"
	(cd "dl-$1" && apt-get source --download-only "$1" >/dev/null 2>&1) || {
		echo "patchcost_bench: apt-get source $1 failed (add a deb-src line)" >&2
		exit 1
	}
	mkdir -p "src-$1"
	tar -xf "dl-$1"/*.orig.tar.* -C "src-$1" --strip-components=1
}

# Lua 5.4: every file of src/ but luac.c; fib(24), 200,000 string.format, a sort.
build_lua() {
	fetch lua5.4
	local srcs
	srcs=$(ls src-lua5.4/src/*.c | grep -v '/luac\.c$')
	[ -x lua_plain ] || gcc -O2 -g -DLUA_USE_LINUX -o lua_plain $srcs -lm -ldl
	[ -x lua_fi ] || gcc -O2 -g -finstrument-functions -DLUA_USE_LINUX -o lua_fi $srcs -lm -ldl
	cat >work.lua <<'EOF'
local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end
local t = {}
for i = 1, 200000 do t[#t+1] = string.format("%d:%s", i, tostring(i*3)) end
table.sort(t)
local s = 0
for i = 1, #t do s = s + #t[i] end
print(fib(24), s)
EOF
	echo 'print(1)' >empty.lua
}

# sqlite3 3.40: the amalgamation and its shell; an in-memory table of 200,000 rows,
# an index, a GROUP BY and a join.
build_sqlite3() {
	fetch sqlite3
	if [ ! -f src-sqlite3/sqlite3.c ]; then
		(cd src-sqlite3 && ./configure >/dev/null && make sqlite3.c shell.c >/dev/null)
	fi
	local flags="-O2 -g -DSQLITE_THREADSAFE=0 -DSQLITE_OMIT_LOAD_EXTENSION"
	[ -x sqlite3_plain ] || gcc $flags -o sqlite3_plain src-sqlite3/sqlite3.c src-sqlite3/shell.c -lm
	[ -x sqlite3_fi ] || gcc $flags -finstrument-functions -o sqlite3_fi \
		src-sqlite3/sqlite3.c src-sqlite3/shell.c -lm
	cat >work.sql <<'EOF'
CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT, c REAL);
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200000)
INSERT INTO t SELECT i, printf('row %d', i * 7 % 1000), i * 0.5 FROM n;
CREATE INDEX tb ON t(b);
SELECT b, count(*), sum(c) FROM t GROUP BY b ORDER BY 2 DESC LIMIT 3;
SELECT count(*) FROM t x JOIN t y ON x.a = y.a + 1 WHERE x.b < 'row 5';
EOF
	echo 'SELECT 1;' >empty.sql
}

# fib(32) as bench.py builds it: 7,049,155 calls of one small recursive function.
build_fib() {
	cat >fib.c <<'END'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
int main(int argc, char **argv) { printf("%ld\n", fib(argc > 1 ? atoi(argv[1]) : 30)); return 0; }
END
	[ -x fib_plain ] || gcc -O2 -g -o fib_plain fib.c
	[ -x fib_fi ] || gcc -O2 -g -finstrument-functions -o fib_fi fib.c
}

case ,$only, in *,fib,*) build_fib ;; esac
case ,$only, in *,lua,*) build_lua ;; esac
case ,$only, in *,sqlite3,*) build_sqlite3 ;; esac

python3 - "$runs" "$only" "${cts[@]}" <<'EOF'
import os, re, resource, statistics, subprocess, sys
runs, only, cts = int(sys.argv[1]), sys.argv[2].split(','), sys.argv[3:]
work = {'lua': (['./lua_plain', 'work.lua'], ['./lua_fi', 'work.lua'],
                ['./lua_plain', 'empty.lua'], ['./lua_fi', 'empty.lua']),
        'sqlite3': (['./sqlite3_plain', ':memory:', '.read work.sql'],
                    ['./sqlite3_fi', ':memory:', '.read work.sql'],
                    ['./sqlite3_plain', ':memory:', '.read empty.sql'],
                    ['./sqlite3_fi', ':memory:', '.read empty.sql']),
        'fib': (['./fib_plain', '32'], ['./fib_fi', '32'], ['./fib_plain', '1'], ['./fib_fi', '1'])}

def cpu_of(cmd):
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)

def info(ct, data):
    out = subprocess.run([ct, 'info', '-i', data], capture_output=True, text=True).stdout
    cpu = float(re.search(r'cpu:\s+program ([\d.]+) s', out).group(1))
    rec = int(re.search(r'records:\s+([\d,]+)', out).group(1).replace(',', ''))
    return cpu, rec

def traced(ct, cmd):
    subprocess.run([ct, 'record', '-o', 'pc.data', '--'] + cmd, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=True)
    return info(ct, 'pc.data')

med = statistics.median
for name in only:
    plain_w, fi_w, plain_e, fi_e = work[name]
    res = {}
    for _ in range(runs):  # interleaved: every variant sees the same load
        res.setdefault('base', []).append(cpu_of(plain_w) - cpu_of(plain_e))
        for i, ct in enumerate(cts):
            for kind, w, e in (('patched', plain_w, plain_e), ('hooked', fi_w, fi_e)):
                (cw, rw), (ce, re_) = traced(ct, w), traced(ct, e)
                res.setdefault((i, kind), []).append((cw - ce, (rw - re_) / 2))
    base, best = med(res['base']), min(res['base'])
    print(f'{name}: untraced {base * 1e3:.1f} ms CPU (start-up subtracted), median of {runs} '
          f'(best {best * 1e3:.1f})')
    for i, ct in enumerate(cts):
        row, low = {}, {}
        print(f'  {ct}')
        for kind in ('patched', 'hooked'):
            calls = med(x[1] for x in res[(i, kind)])
            row[kind] = (med(x[0] for x in res[(i, kind)]) - base) / calls * 1e9
            low[kind] = (min(x[0] for x in res[(i, kind)]) - best) / calls * 1e9
            print(f'    {kind:7} {calls:12,.0f} calls {row[kind]:6.1f} ns/call (best runs: {low[kind]:.1f})')
        print(f'    patched / hooked = {row["patched"] / row["hooked"]:.2f} '
              f'(best runs: {low["patched"] / low["hooked"]:.2f})')
EOF
