#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# A mutation campaign (issue 20): deliberate bugs put into calltrace's source
# one at a time, each built and run against the part of the suite that should
# catch it. Not run by make check (minutes per mutation on 2 cores).
#
#   tests/mutate/run-mutations.sh [REGEX]    only the mutations whose name matches
#
# It works in a git worktree of HEAD (MUTANTS=/tmp/mutants, made if missing),
# never in the tree it is run from; builds into $MUTANTS/build-mutant; restores
# each mutated file (git checkout in the worktree) before the next. Each
# mutation is a perl substitution on one file that must change it (else
# "not applied": the source moved, update the pattern). A mutation is caught
# when the suite's command exits non-zero, with at least one FAIL line. The
# unmutated tree is run first with every suite command, and must pass.
# Prints one line per mutation and a table at the end; logs in
# $MUTANTS/build-mutant/mutations/NAME.log.
#
# Environment: MUTANTS (the worktree), JOBS (make -j, default 2).
set -u
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
M=${MUTANTS:-/tmp/mutants}
FILTER=${1:-}
JOBS=${JOBS:-2}
B=build-mutant

if ! [ -d "$M/.git" ] && ! [ -f "$M/.git" ]; then
	git -C "$ROOT" worktree add --detach "$M" HEAD >/dev/null 2>&1 || {
		echo "cannot make the worktree $M" >&2
		exit 2
	}
fi
if [ -n "$(git -C "$M" status --porcelain --untracked-files=no)" ]; then
	echo "$M has changes: not a clean worktree, refusing" >&2
	exit 2
fi
L=$M/$B/mutations
mkdir -p "$L"

# The suites, by name. Each a command run in the worktree under a deadline;
# BUILD and the combos chosen to keep each run to a minute or two (a REGEX
# that names a sub-suite runs it too: threads is avoided, its stress takes long).
suite() {
	local opts="OPTIONS_CCS=gcc"
	case $1 in
	counts) echo "COMBOS=gcc-O2 tests/run.sh '^(callbacks|threads8)\$'" ;;
	longjmp) echo "COMBOS=gcc-O2 tests/run.sh '^(longjmp|coroutines)\$'" ;;
	threads) echo "COMBOS=gcc-O2 tests/run.sh '^(threads8|thread_names)\$'" ;;
	exits) echo "COMBOS=gcc-O2 tests/run.sh '^(crash|killed|exit_deep)\$'" ;;
	fork) echo "COMBOS=gcc-O2 tests/run.sh '^(fork|spawn)\$'" ;;
	bad) echo "COMBOS=gcc-O2 tests/run.sh '^bad\$'" ;;
	args) echo "COMBOS=gcc-O2 tests/run.sh '^args\$'" ;;
	options) echo "$opts tests/run.sh '^options\$'" ;;
	export) echo "$opts tests/run.sh '^(export|options)\$'" ;;
	esac
}

# name ~ file ~ perl substitution ~ suite
MUTATIONS=$(
	cat <<'EOF'
count-off-by-one~src/output/report.c~s/\tf->calls\+\+;/\tf->calls++;\n\tif (f->calls == 3)\n\t\tf->calls++;/~counts
dropped-exit-record~src/runtime/hotpath/hooks.c~s/(\tct_shadow_exit\(t, \(uintptr_t\)fn, sp\);\n)(\tct_emit\(ct_ev_word1\(CT_EV_EXIT)/$1\tstatic __thread unsigned mut_n;\n\tif (++mut_n == 7)\n\t\treturn;\n$2/~counts
longjmp-depth~src/analysis/builder.c~s/if \(d <= 0 && d >= -CT_SP_WINDOW\)/if (d < 0 \&\& d >= -CT_SP_WINDOW)/~longjmp
chrome-ts-dur-swapped~src/output/export_chrome.c~s/p = ct_put_us\(p, fr->ts\);\n(\tCT_PUT_LIT\(p, ",\\"dur\\":"\);\n)\tp = ct_put_us\(p, end - fr->ts\);/p = ct_put_us(p, end - fr->ts);\n$1\tp = ct_put_us(p, fr->ts);/~export
lost-thread~src/analysis/walk.c~s/for \(size_t i = 0; i < w->t->nthreads; i\+\+\) \{/for (size_t i = 0; i < w->t->nthreads - (w->t->nthreads > 1); i++) {/~threads
truncated-string~src/runtime/args/capture.c~s/uint32_t max = ct_str_max < budget \? ct_str_max : budget;/uint32_t max = (ct_str_max < budget ? ct_str_max : budget) - 1;/~args
timestamp-unit~src/output/out.c~s/uint64_t nano = ct_sat_u64\(ns \+ 0\.5\);/uint64_t nano = ct_sat_u64(ns \/ 1000 + 0.5);/~options
exit-status-signal~src/record/record.c~s/return 128 \+ WTERMSIG\(st\);/return WTERMSIG(st);/~exits
missed-fork-child~src/runtime/init.c~s/if \(ct_no_follow\) \{ \/\* --no-follow/if (1) { \/* --no-follow/~fork
skipped-crc~src/format/reader.c~s/ct_crc32c\(ct_crc32c\(0, &h, 12\), payload\.data, h\.length\) != h\.crc \|\|/0 ||/~bad
no-color-ignored~src/output/fmt.c~s/if \(no && \*no\)\n\t\treturn 0;/if (0)\n\t\treturn 0;/~options
no-demangle-ignored~src/cli/common.c~s/case 1000:\n\t\to->demangle = 0;/case 1000:\n\t\to->demangle = 1;/~options
pid-filter-ignored~src/analysis/walk.c~s/ok = \*p == th->pid;/ok = 1;/~options
sort-reversed~src/output/report.c~s/return u > v \? -1 : 1;/return u > v ? 1 : -1;/~options
clock-env-ignored~src/record/pool.c~s/if \(force && !strcmp\(force, "monotonic"\)\)/if (0)/~options
standalone-lossy-ignored~src/cli/cmd_serve.c~s/o\.lossy = lossy && \*lossy && strcmp\(lossy, "0"\);/o.lossy = 0;/~options
standalone-disabled-ignored~src/runtime/init.c~s/if \(d && \*d && strcmp\(d, "0"\)\)\n(\t\t__atomic_store_n\(&ct_paused_all)/if (0)\n$1/~options
EOF
)

# run_suite NAME LOG: 0 if the suite passed
run_suite() {
	local cmd
	cmd=$(suite "$1")
	(cd "$M" && eval "BUILD=$B T_SUITE=900 timeout -k 10 1200 env $cmd") >"$2" 2>&1
}

echo "building the unmutated tool in $M/$B"
if ! make -C "$M" -j"$JOBS" BUILD=$B >"$L/build.log" 2>&1; then
	echo "the unmutated tree does not build: $L/build.log" >&2
	exit 2
fi
declare -A baseline=()
while IFS='~' read -r name file expr s; do
	[ -z "$FILTER" ] || [[ $name =~ $FILTER ]] || continue
	[ -n "${baseline[$s]:-}" ] && continue
	if run_suite "$s" "$L/baseline-$s.log"; then
		baseline[$s]=pass
		echo "baseline $s: passes ($(tail -n1 "$L/baseline-$s.log"))"
	else
		baseline[$s]=FAIL
		echo "baseline $s: FAILS unmutated: its mutations are not judged ($L/baseline-$s.log)"
	fi
done <<<"$MUTATIONS"

table=()
caught=0 missed=0 other=0
while IFS='~' read -r name file expr s; do
	[ -z "$FILTER" ] || [[ $name =~ $FILTER ]] || continue
	log=$L/$name.log
	verdict=
	if [ "${baseline[$s]}" != pass ]; then
		verdict="not judged (suite $s fails unmutated)"
	elif ! perl -0pi -e "$expr" "$M/$file" || git -C "$M" diff --quiet -- "$file"; then
		verdict="not applied (pattern not found in $file)"
	elif ! make -C "$M" -j"$JOBS" BUILD=$B >"$log" 2>&1; then
		verdict="does not build"
	else
		git -C "$M" diff -- "$file" >>"$log"
		if run_suite "$s" "$log.suite"; then
			verdict="NOT CAUGHT"
		elif grep -q '^FAIL' "$log.suite"; then
			verdict="caught: $(grep -m1 '^FAIL' "$log.suite" | cut -c1-110)"
		else
			verdict="suite failed without a FAIL line (see $log.suite)"
		fi
	fi
	git -C "$M" checkout -q -- "$file"
	case $verdict in
	caught*) caught=$((caught + 1)) ;;
	NOT*) missed=$((missed + 1)) ;;
	*) other=$((other + 1)) ;;
	esac
	echo "$name ($file, suite $s): $verdict"
	table+=("| $name | $file | $s | ${verdict%%:*} |")
done <<<"$MUTATIONS"
# leave the build unmutated
make -C "$M" -j"$JOBS" BUILD=$B >"$L/build.log" 2>&1

echo
echo "| mutation | file | suite | verdict |"
echo "| --- | --- | --- | --- |"
printf '%s\n' "${table[@]}"
echo "$caught caught, $missed not caught, $other not judged"
[ "$missed" = 0 ] && [ "$other" = 0 ]
