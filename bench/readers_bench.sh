#!/usr/bin/env bash
# Reading a 14-million-event trace: calltrace report and replay against uftrace's, on the
# same calls (fib(N) built -O2 -finstrument-functions), best of R runs: events/s and peak RSS.
# Then the readers on one thread and on two (--jobs 1, --jobs 2), interleaved, on that trace
# and on one of eight threads running fib(N-3) each: wall best and median, and the speedup.
#   bench/readers_bench.sh [N] [R]        JOBS_ONLY=1: only the --jobs table
set -u
N=${1:-32}
R=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
CT=${CALLTRACE:-$root/build/calltrace}
work=$(mktemp -d /tmp/ct-readers-XXXXXX)
trap 'rm -rf "$work"' EXIT
cat >"$work/fib.c" <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
__attribute__((noinline)) long fib(int n){ return n<2?n:fib(n-1)+fib(n-2); }
static void *run(void *p){ fib((int)(long)p); return NULL; }
int main(int argc,char**argv){
	int n = argc>1?atoi(argv[1]):30, threads = argc>2?atoi(argv[2]):1;
	if (threads <= 1) { printf("%ld\n", fib(n)); return 0; }
	pthread_t t[64];
	for (int i = 0; i < threads && i < 64; i++) pthread_create(&t[i], 0, run, (void *)(long)n);
	for (int i = 0; i < threads && i < 64; i++) pthread_join(t[i], NULL);
	return 0;
}
C
gcc -O2 -g -pthread -finstrument-functions "$work/fib.c" -o "$work/fib"
cd "$work" || exit 1
"$CT" record -o ct.data ./fib "$N" >/dev/null || { echo "readers_bench: $CT record failed" >&2; exit 1; }
events=$("$CT" info -i ct.data | sed -n 's/^records: *\([0-9,]*\).*/\1/p' | tr -d ,)
have_uftrace=0
[ "${JOBS_ONLY:-0}" = 1 ] ||
	{ command -v uftrace >/dev/null && uftrace record -d uf.data ./fib "$N" >/dev/null 2>&1 && have_uftrace=1; }

best() { # command... -> "seconds rss_kb" of the fastest run
	local b=999 rss=0
	for _ in $(seq "$R"); do
		/usr/bin/time -f "%e %M" -o t.out "$@" >/dev/null 2>&1
		read -r s m <t.out
		if awk "BEGIN{exit !($s < $b)}"; then b=$s; rss=$m; fi
	done
	echo "$b $rss"
}
[ "${JOBS_ONLY:-0}" = 1 ] || {
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
}

# --jobs: the same command on one thread and on two, interleaved, R runs each
"$CT" record -o ct8.data ./fib $((N - 3)) 8 >/dev/null ||
	{ echo "readers_bench: $CT record failed" >&2; exit 1; }
events8=$("$CT" info -i ct8.data | sed -n 's/^records: *\([0-9,]*\).*/\1/p' | tr -d ,)
jobs() { # label trace command...: wall best and median with --jobs 1 and 2
	local label=$1 trace=$2
	shift 2
	: >j.out
	for _ in $(seq "$R"); do
		for j in 1 2; do
			t0=$EPOCHREALTIME
			"$CT" "$@" -i "$trace" --jobs $j >/dev/null 2>&1
			echo "$j $t0 $EPOCHREALTIME" | awk '{ printf "%s %.4f\n", $1, $3 - $2 }' >>j.out
		done
	done
	awk -v l="$label" '{ w[$1, ++n[$1]] = $2 }
		function med(j,   k, i, t, a) { k = n[j]; for (i = 1; i <= k; i++) a[i] = w[j, i]
			for (i = 1; i <= k; i++) for (t = i + 1; t <= k; t++) if (a[t] < a[i]) { x = a[i]; a[i] = a[t]; a[t] = x }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
		function best(j,   i, b) { b = 1e9; for (i = 1; i <= n[j]; i++) if (w[j, i] < b) b = w[j, i]; return b }
		END { printf "  %-34s %6.3fs %6.3fs   %6.3fs %6.3fs   %5.2fx %5.2fx\n", l, best(1), med(1),
			best(2), med(2), best(1) / best(2), med(1) / med(2) }' j.out
}
printf '\n--jobs 1 against --jobs 2 (%s cpus online, load average %s), %s runs interleaved\n\n' \
	"$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" "$R"
printf '  %-34s %15s   %15s   %13s\n' "" "--jobs 1" "--jobs 2" speedup
printf '  %-34s %7s %7s   %7s %7s   %6s %6s\n' command best median best median best median
for t in ct.data ct8.data; do
	[ $t = ct.data ] && what="fib($N), $events events" || what="8 threads x fib($((N - 3))), $events8 events"
	printf '  %s\n' "$what"
	jobs "report" $t report
	jobs "replay >/dev/null" $t replay
	jobs "export -f perfetto" $t export -f perfetto -o /dev/null
	jobs "flame" $t flame -o /dev/null
done
