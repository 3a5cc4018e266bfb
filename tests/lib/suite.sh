# SPDX-License-Identifier: MIT
# What every sub-suite shares, in one place. Source it first (after set -u):
#
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
#   suite NAME
#
# Sourcing it sets where things are, the same way for every sub-suite
# (tests/run.sh exports CT, CALLTRACE, OUT, TEST_OUT and PY; alone, BUILD says
# where the build is):
#
#   ROOT  the repository            HERE  the sub-suite's folder (tests/NAME)
#   BUILD the build directory (default build), B the same from ROOT unless absolute
#   CT    the calltrace to test: CT, else CALLTRACE, else $B/calltrace
#   OUT   where the tests write: OUT, else TEST_OUT, else $B/tests
#   PY    the python interpreter itself (pyenv's shims cost 0.3 s a run)
#
# and what every sub-suite prints:
#
#   ok CHECK  (or pass)             ok NAME/CHECK
#   bad CHECK REASON [FILE]  (fail) FAIL NAME/CHECK: REASON, FILE's head indented below
#   skip CHECK WHY                  ok NAME/CHECK # SKIP WHY (tests/run.sh counts it apart)
#   finish                          the closing line tests/run.sh requires,
#                                   "N passed, N failed, N skipped"; exits 0 iff none failed
#   suite_tally FILE                count in FILE too, for checks run in subshells
#                                   (FILE emptied; call it once the folder is there)
#   suite_needs TOOL...             a FAIL for each tool missing; finish if $CT is not built
#   suite_workdir                   W, a fresh /tmp/ct-NAME.XXXXXX, removed by finish
#                                   (unless KEEP is set)
#   suite_cache_dir                 calltrace's cache under W (XDG_CACHE_HOME), what it does
#                                   said (CALLTRACE_CACHE_DEBUG=1), no --no-cache inherited
#
# A suite that must clean up defines its own finish after this file, ending with
# suite_close.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
HERE=$(cd "$(dirname "${BASH_SOURCE[1]}")" && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) B=$BUILD ;;
*) B=$ROOT/$BUILD ;;
esac
CT=${CT:-${CALLTRACE:-$B/calltrace}}
OUT=${OUT:-${TEST_OUT:-$B/tests}}
if [ -z "${PY:-}" ]; then
	PY=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null)
	PY=${PY:-python3}
fi

# tool_objects: the tool's objects under $B/obj but the command line's (main) and
# the wrappers', for programs linked against them; only those whose source is
# still there (a renamed or removed source leaves its object in old build folders)
tool_objects() {
	local o s
	find "$B/obj" -name '*.o' ! -path '*/cli/*' ! -path '*/wrapper/*' 2>/dev/null | sort |
		while read -r o; do
			s=${o#"$B"/obj/}
			[ -f "$ROOT/src/${s%.o}.c" ] && echo "$o"
		done
}

suite() {
	SUITE_NAME=$1
	SUITE_TALLY=
	passed=0 failed=0 skipped=0
}
suite_tally() {
	SUITE_TALLY=$1
	: >"$SUITE_TALLY"
}
# count ok|FAIL|SKIP: in the shell's counters, and in the tally file if there is one
suite_count() {
	case $1 in
	ok) passed=$((passed + 1)) ;;
	FAIL) failed=$((failed + 1)) ;;
	SKIP) skipped=$((skipped + 1)) ;;
	esac
	[ -z "$SUITE_TALLY" ] || echo "$1" >>"$SUITE_TALLY"
}
ok() {
	echo "ok $SUITE_NAME/$1"
	suite_count ok
}
bad() {
	echo "FAIL $SUITE_NAME/$1: $2"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		head -n 20 "$3" | cut -c1-300 | sed 's/^/    /'
	fi
	suite_count FAIL
	return 0
}
skip() {
	echo "ok $SUITE_NAME/$1 # SKIP $2"
	suite_count SKIP
}
pass() { ok "$@"; }
fail() { bad "$@"; }
suite_close() {
	if [ -n "$SUITE_TALLY" ]; then
		passed=$(grep -c '^ok$' "$SUITE_TALLY")
		failed=$(grep -c '^FAIL$' "$SUITE_TALLY")
		skipped=$(grep -c '^SKIP$' "$SUITE_TALLY")
	fi
	echo "$passed passed, $failed failed, $skipped skipped"
	[ "$failed" = 0 ]
}
finish() {
	suite_close
	exit
}

# suite_needs TOOL...: a FAIL for each tool missing, and finish if calltrace is not built
suite_needs() {
	local tool
	for tool in "$@"; do
		command -v "$tool" >/dev/null 2>&1 || bad setup "$tool is missing (scripts/install-deps.sh --test)"
	done
	if ! [ -x "$CT" ]; then
		bad setup "$CT is missing: run make"
		finish
	fi
}

# suite_workdir: W, a fresh /tmp/ct-SUITE.XXXXXX that finish removes (unless KEEP is set)
suite_workdir() {
	W=$(mktemp -d "/tmp/ct-$SUITE_NAME.XXXXXX") || exit 1
	finish() {
		[ -n "${KEEP:-}" ] || rm -rf "$W"
		suite_close
		exit
	}
}

# suite_cache_dir: calltrace's cache directory under W, what is done with its files said
suite_cache_dir() {
	export XDG_CACHE_HOME=$W/cache CALLTRACE_CACHE_DEBUG=1
	unset CALLTRACE_NO_CACHE
}
