#!/usr/bin/env bash
# Reading a 14-million-event trace: calltrace report and replay against uftrace's, on the
# same calls (fib(N) built -O2 -finstrument-functions), best of R runs: events/s and peak RSS.
#   bench/readers_bench.sh [N] [R]
set -u
N=${1:-32}
R=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
CT=${CALLTRACE:-$root/build/calltrace}
work=$(mktemp -d /tmp/ct-readers-XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/fib.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n){ return n<2?n:fib(n-1)+fib(n-2); }
int main(int argc,char**argv){ printf("%ld\n", fib(argc>1?atoi(argv[1]):30)); return 0; }
C
gcc -O2 -g -finstrument-functions "$work/fib.c" -o "$work/fib"
cd "$work" || exit 1
"$CT" record -o ct.data ./fib "$N" >/dev/null
events=$("$CT" info -i ct.data | sed -n 's/^records: *\([0-9,]*\).*/\1/p' | tr -d ,)
have_uftrace=0
command -v uftrace >/dev/null && uftrace record -d uf.data ./fib "$N" >/dev/null 2>&1 && have_uftrace=1

best() { # command... -> "seconds rss_kb" of the fastest run
	local b=999 rss=0
	for _ in $(seq "$R"); do
		/usr/bin/time -f "%e %M" -o t.out "$@" >/dev/null 2>&1
		read -r s m <t.out
		if awk "BEGIN{exit !($s < $b)}"; then b=$s; rss=$m; fi
	done
	echo "$b $rss"
}
printf 'fib(%s): %s events, best of %s runs\n\n' "$N" "$events" "$R"
printf '  %-28s %8s %12s %10s\n' command wall events/s "peak RSS"
row() { # label seconds rss
	awk -v l="$1" -v s="$2" -v m="$3" -v e="$events" \
		'BEGIN { printf "  %-28s %7.2fs %11.1fM %7.1f MiB\n", l, s, (s > 0 ? e / s / 1e6 : 0), m / 1024 }'
}
read -r s m <<<"$(best "$CT" report -i ct.data)"; row "calltrace report" "$s" "$m"
read -r s m <<<"$(best "$CT" replay -i ct.data)"; row "calltrace replay >/dev/null" "$s" "$m"
if [ $have_uftrace = 1 ]; then
	read -r s m <<<"$(best uftrace report -d uf.data)"; row "uftrace report" "$s" "$m"
	read -r s m <<<"$(best uftrace replay -d uf.data)"; row "uftrace replay >/dev/null" "$s" "$m"
fi
