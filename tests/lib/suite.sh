# SPDX-License-Identifier: MIT
# What every sub-suite prints, in one place. Source it, then `suite NAME`:
#
#   ok CHECK  (or pass)             ok NAME/CHECK
#   bad CHECK REASON [FILE]  (fail) FAIL NAME/CHECK: REASON, FILE's head indented below
#   skip CHECK WHY                  ok NAME/CHECK # SKIP WHY (tests/run.sh counts it apart)
#   finish                          the closing line tests/run.sh requires,
#                                   "N passed, N failed, N skipped"; exits 0 iff none failed
#
# A suite that must clean up defines its own finish after this file, ending with
# suite_close.
suite() {
	SUITE_NAME=$1
	passed=0 failed=0 skipped=0
}
ok() {
	echo "ok $SUITE_NAME/$1"
	passed=$((passed + 1))
}
bad() {
	echo "FAIL $SUITE_NAME/$1: $2"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		head -n 20 "$3" | cut -c1-300 | sed 's/^/    /'
	fi
	failed=$((failed + 1))
	return 0
}
skip() {
	echo "ok $SUITE_NAME/$1 # SKIP $2"
	skipped=$((skipped + 1))
}
pass() { ok "$@"; }
fail() { bad "$@"; }
suite_close() {
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}
finish() {
	suite_close
	exit
}
