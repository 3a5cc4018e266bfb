#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The fuzzers as a test (tests/run.sh runs it; alone: tests/fuzz/run.sh).
#
# Environment: BUILD, OUT (or TEST_OUT), as for tests/run.sh; FUZZ_BUDGET
# (seconds of fuzzing in all, default 50, split between the harnesses);
# FUZZ_SEED (libFuzzer's -seed, default 1; 0 for a new one each run).
#
# Builds the libFuzzer harnesses (tests/fuzz/fuzz.mk, clang), runs each on
# every regression input of tests/fuzz/regress/HARNESS/ (none may crash),
# then fuzzes each for its share of the budget from the committed seeds.
# Prints `ok fuzz/...` or `FAIL fuzz/...: REASON` with the head of the
# sanitizer's report and where the input was saved (tests/fuzz/findings/),
# then `N passed, N failed`. Nothing checks how long anything took.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite fuzz
F=$OUT/fuzz
FINDINGS=$ROOT/tests/fuzz/findings
BUDGET=${FUZZ_BUDGET:-50}
SEED=${FUZZ_SEED:-1}
HARNESSES="fuzz_events fuzz_reader fuzz_encode"
# fuzz_reader does far more per input: it gets most of the time
declare -A SHARE=([fuzz_events]=2 [fuzz_reader]=3 [fuzz_encode]=2)
# bad NAME REASON [DETAILS-FILE]
# The head of a sanitizer's or libFuzzer's report: the error line and the first frames.
report_head() {
	grep -E '^==[0-9]+==ERROR|^SUMMARY|^ +#[0-9] |runtime error|out-of-memory|malloc\(|Test unit written|^artifact_prefix|ALARM|Timeout' "$1" |
		grep -v 'in __sanitizer\|in __asan\|in __interceptor\|in fuzzer::' | head -n 20
}

mkdir -p "$F" "$FINDINGS"
cd "$ROOT" || exit 1

if ! command -v clang >/dev/null; then
	bad build "clang is missing: run scripts/install-deps.sh --test"
	finish
fi
if timeout -k 10 1200 make -j2 --no-print-directory -f tests/fuzz/fuzz.mk BUILD="$BUILD" harnesses \
	>"$F/build.log" 2>&1; then
	ok build
else
	tail -n 20 "$F/build.log" >"$F/build.tail"
	bad build "make -f tests/fuzz/fuzz.mk harnesses failed" "$F/build.tail"
	finish
fi

export ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
OPTS=(-rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=20 -max_len=65536)

# ---- regression inputs: each found a bug once ----
for h in $HARNESSES; do
	dir=$ROOT/tests/fuzz/regress/${h#fuzz_}
	inputs=()
	[ -d "$dir" ] && mapfile -t inputs < <(find "$dir" -type f | sort)
	if [ ${#inputs[@]} = 0 ]; then
		ok "$h/regress (no inputs)"
		continue
	fi
	log=$F/$h.regress.log
	if timeout -k 5 300 "$B/fuzz/$h" "${OPTS[@]}" "${inputs[@]}" >"$log" 2>&1; then
		ok "$h/regress (${#inputs[@]} inputs)"
	else
		# the input it was on: libFuzzer prints "Running: FILE" before each
		last=$(grep '^Running: ' "$log" | tail -n 1 | sed 's/^Running: //')
		report_head "$log" >"$log.head"
		bad "$h/regress" "crashed on ${last#"$ROOT"/}" "$log.head"
	fi
done

# ---- a short run of each, from the seeds ----
total=0
for h in $HARNESSES; do total=$((total + SHARE[$h])); done
for h in $HARNESSES; do
	secs=$((BUDGET * SHARE[$h] / total))
	work=$F/corpus-$h
	rm -rf "$work"
	mkdir -p "$work"
	log=$F/$h.log
	seeds=$ROOT/tests/fuzz/corpus/${h#fuzz_}
	timeout -k 5 $((secs + 120)) "$B/fuzz/$h" "${OPTS[@]}" -seed="$SEED" -max_total_time="$secs" \
		-print_final_stats=1 -artifact_prefix="$FINDINGS/$h-" "$work" "$seeds" >"$log" 2>&1
	st=$?
	stats=$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}')
	if [ $st = 0 ] && grep -q 'Done [0-9]* runs\|^#[0-9]* *DONE' "$log"; then
		ok "$h ($secs s, ${stats:-?} inputs)"
	else
		report_head "$log" >"$log.head"
		saved=$(grep -o 'Test unit written to .*' "$log" | tail -n 1 | sed 's/Test unit written to //')
		bad "$h" "a finding (exit $st) after ${stats:-?} inputs; input saved: ${saved#"$ROOT"/}" \
			"$log.head"
	fi
done
finish
