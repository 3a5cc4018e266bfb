#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# calltrace export, side by side with uftrace's dump --chrome, on one trace of
# fib(N) (N=32 by default: about 14 M events), built -O2 -g
# -finstrument-functions as in bench/bench.py.
#
#   bench/export_bench.sh [N] [RUNS]        (RUNS: timed runs per command, best kept)
#
# Environment: BUILD (default build), CALLTRACE (default $BUILD/calltrace),
# WORK (default $BUILD/bench-export: the program, the traces, the outputs;
# the outputs, 1.5 GB for N=32, are removed at the end unless KEEP=1).
# For each format: wall time (best of RUNS) and that run's CPU time, events per
# second (of wall time), output size and bytes per event, peak RSS
# (/usr/bin/time -f %M); then uftrace record and
# uftrace dump --chrome on the same binary, and the ratio of the Perfetto
# export's size to uftrace's Chrome JSON.
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) B=$BUILD ;;
*) B=$ROOT/$BUILD ;;
esac
CT=${CALLTRACE:-$B/calltrace}
WORK=${WORK:-$B/bench-export}
N=${1:-32}
RUNS=${2:-3}
CC=${CC:-gcc}

die() {
	echo "export_bench: $*" >&2
	exit 1
}
[ -x "$CT" ] || die "$CT is missing: run make"
[ -x /usr/bin/time ] || die "/usr/bin/time is missing (Debian package: time)"
mkdir -p "$WORK" && cd "$WORK" || die "cannot use $WORK"

cat >fib.c <<'EOF'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n){ return n<2?n:fib(n-1)+fib(n-2); }
int main(int argc,char**argv){ int n = argc>1?atoi(argv[1]):30; printf("%ld\n", fib(n)); return 0; }
EOF
$CC -O2 -g -finstrument-functions fib.c -o fib_fi || die "cannot build fib.c"

# timed NAME CMD...: best wall time of RUNS runs into T_WALL (s), that run's CPU time (user +
# system) into T_CPU (s) and its peak RSS into T_RSS (KiB)
timed() {
	local name=$1 best= rss= cpu= i tw tm tu ts
	shift
	for i in $(seq 1 "$RUNS"); do
		/usr/bin/time -f '%e %M %U %S' -o time.out "$@" || die "$name failed: $*"
		read -r tw tm tu ts <time.out
		if [ -z "$best" ] || awk -v a="$tw" -v b="$best" 'BEGIN { exit !(a < b) }'; then
			best=$tw rss=$tm cpu=$(awk -v u="$tu" -v s="$ts" 'BEGIN { print u + s }')
		fi
	done
	T_WALL=$best T_RSS=$rss T_CPU=$cpu
}
size() { stat -c %s "$1"; }
mib() { awk -v b="$1" 'BEGIN { if (b < 1048576) printf "%.1f KiB", b / 1024; else printf "%.1f MiB", b / 1048576 }'; }

rm -f ct.data
"$CT" record -o ct.data -- ./fib_fi "$N" >/dev/null || die "calltrace record failed"
events=$("$CT" info -i ct.data | sed -n 's/^records: *\([0-9,]*\).*/\1/p' | tr -d ,)
[ -n "$events" ] || die "no record count in calltrace info"
echo "fib($N): $events events (calltrace record -o ct.data -- ./fib_fi $N), best of $RUNS runs"
echo
printf '  %-34s %8s %7s %11s %12s %9s %10s\n' command wall cpu events/s size bytes/ev "peak RSS"
row() { # NAME WALL CPU RSS FILE EVENTS
	local s
	s=$(size "$5")
	awk -v n="$1" -v w="$2" -v c="$3" -v r="$4" -v s="$s" -v e="$6" -v m="$(mib "$s")" 'BEGIN {
		printf "  %-34s %7.2fs %6.2fs %10.1fM %12s %9.2f %6.1f MiB\n", n, w, c,
			(w > 0 ? e / w / 1e6 : 0), m, s / e, r / 1024 }'
}
for f in perfetto chrome folded; do
	timed "export $f" "$CT" export -i ct.data --format $f -o "out.$f"
	row "calltrace export --format $f" "$T_WALL" "$T_CPU" "$T_RSS" "out.$f" "$events"
	eval "size_$f=\$(size out.$f)"
done

if command -v uftrace >/dev/null; then
	rm -rf uf.data
	/usr/bin/time -f '%e %M' -o time.out uftrace record -d uf.data ./fib_fi "$N" >/dev/null ||
		die "uftrace record failed"
	read -r rec_wall rec_rss <time.out
	timed "uftrace dump" sh -c 'uftrace dump -d uf.data --chrome >uf.json'
	uevents=$(grep -c '"ph":"[BE]"' uf.json)
	row "uftrace dump --chrome" "$T_WALL" "$T_CPU" "$T_RSS" uf.json "$uevents"
	echo "  (uftrace record: ${rec_wall}s, peak RSS $((rec_rss / 1024)) MiB; $uevents events)"
	echo
	awk -v p="$size_perfetto" -v c="$size_chrome" -v u="$(size uf.json)" 'BEGIN {
		printf "perfetto / uftrace chrome JSON size: %.3f (target <= 0.2)\n", p / u
		printf "chrome   / uftrace chrome JSON size: %.3f\n", c / u }'
else
	echo
	echo "uftrace is not installed: no comparison (Debian package: uftrace)"
fi
[ "${KEEP:-0}" = 1 ] || rm -rf out.perfetto out.chrome out.folded uf.json uf.data
