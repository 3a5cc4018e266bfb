#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One job of tests/run.sh: build one test program with one compiler and
# optimisation level, run it alone, record it with calltrace, check the
# results. Writes its result lines to $OUT/results/PROG.COMBO.
#
#   job.sh PROG COMBO        e.g. job.sh longjmp clang-O2, job.sh fib gcc-O2-fentry
#
# COMBO is COMPILER-OPT[-METHOD]: METHOD finstrument (the default) builds with
# -finstrument-functions; fentry and patchable through calltrace-cc
# --method=METHOD (-pg -mfentry without gprof's start files;
# -fpatchable-function-entry=5,0); mcount with plain -pg, as for gprof;
# patch builds with nothing special and lets calltrace patch the functions in
# memory (and those of the program's own libraries, by -P 'lib.so:*'), all
# but those the program marks NOTRACE (truth.h), by -P '!name'.
#
# Environment (set by run.sh): ROOT, OUT, CT (path of calltrace, or empty
# when it is not built: the record checks are then left out), PY (python3).
set -u
PY=${PY:-python3}
prog=$1 combo=$2
IFS=- read -r family opt method <<<"$combo"
method=${method:-finstrument}
# patchlc: patch, and record --libcalls; the library calls are not counted by the programs
# ptrace: built and selected as for patch, traced by record --method=ptrace
libcalls=0 use_ptrace=0
if [ "$method" = patchlc ]; then
	method=patch libcalls=1
fi
if [ "$method" = ptrace ]; then
	# CT-METHODS may leave ptrace out; otherwise it sees what patch sees
	methods=$(sed -n 's/^.*CT-METHODS:[[:space:]]*\(.*\)$/\1/p' "$ROOT/tests/programs/$prog".c* | sed 's/[[:space:]]*\*\/[[:space:]]*$//')
	if [ -n "$methods" ] && ! [[ " $methods " == *" ptrace "* ]]; then
		mkdir -p "$OUT/results"
		echo "ok $prog/$combo/build # SKIP not for ptrace (CT-METHODS: $methods)" >"$OUT/results/$prog.$combo"
		exit 0
	fi
	method=patch use_ptrace=1
fi
P=$ROOT/tests/programs
LIB=$ROOT/tests/lib
BIN=$OUT/bin/$combo
R=$OUT/run/$prog.$combo
RES=$OUT/results/$prog.$combo
T_BUILD=${T_BUILD:-300} T_RUN=${T_RUN:-120} T_READ=${T_READ:-60}
mkdir -p "$BIN" "$OUT/results"
rm -rf "$R"
mkdir -p "$R"
: >"$RES"

src=$P/$prog.c lang=c
[ -f "$src" ] || src=$P/$prog.cpp lang=c++
if [ "$lang" = c ]; then
	cc=$family std=-std=gnu11
else
	cc=${family/gcc/g++} cc=${cc/clang/clang++} std=-std=gnu++17
fi

pass() { echo "ok $prog/$combo/$1" >>"$RES"; }
# fail CHECK REASON [DETAILS-FILE]
fail() {
	echo "FAIL $prog/$combo/$1: $2" >>"$RES"
	if [ -n "${3:-}" ] && [ -s "$3" ]; then
		head -n 40 "$3" | sed 's/^/    /' >>"$RES"
		[ "$(wc -l <"$3")" -le 40 ] || echo "    ..." >>"$RES"
	fi
}
# Where to look, on failures that involve calltrace.
where() { echo "    trace: $R/trace.data  (replay: $R/replay.txt, report: $R/report.json)" >>"$RES"; }

# Directives: "CT-NAME: value" anywhere in the program's source, one per line.
directive() {
	sed -n "s/^.*CT-$1:[[:space:]]*\(.*\)\$/\1/p" "$src" | sed 's/[[:space:]]*\*\/[[:space:]]*$//; s/[[:space:]]*$//'
}

# Explain a status: timeouts and signals.
status_text() {
	case $1 in
	124) echo "timed out (hang guard: ${2}s)" ;;
	13[0-9] | 14[0-9] | 15[0-9]) echo "status $1 (signal $(($1 - 128)))" ;;
	*) echo "status $1" ;;
	esac
}

# CT-METHODS: the methods that can see all the program's calls (default: all)
methods=$(directive METHODS)
if [ -n "$methods" ] && ! [[ " $methods " == *" $method "* ]]; then
	echo "ok $prog/$combo/build # SKIP not for $method (CT-METHODS: $methods)" >>"$RES"
	exit 0
fi

# ---- build -----------------------------------------------------------------
flags=(-g -finstrument-functions "-$opt" -Wall -pthread "-I$P" "$std")
rec_opts=()
if [ "$method" = mcount ]; then
	flags=(-g -pg "-$opt" -Wall -pthread "-I$P" "$std") # gprof's build, gmon.out and all
elif [ "$method" = patch ]; then
	flags=(-g "-$opt" -Wall -pthread "-I$P" "$std")
elif [ "$method" != finstrument ]; then
	# the compiler wrapper knows each compiler's flags for the method
	if [ "$lang" = c ]; then
		export CALLTRACE_CC=$cc
		cc=$(dirname "$CT")/calltrace-cc
	else
		export CALLTRACE_CXX=$cc
		cc=$(dirname "$CT")/calltrace-c++
	fi
	flags=(--method="$method" -g "-$opt" -Wall -pthread "-I$P" "$std")
fi
build_log=$R/build.log
built=1
link=()
while read -r lib libsrc; do
	[ -n "${lib:-}" ] || continue
	if ! timeout "$T_BUILD" "$cc" "${flags[@]}" -fPIC -shared "$P/$libsrc" -o "$BIN/$lib" >>"$build_log" 2>&1; then
		built=0
	fi
	name=${lib#lib}
	link+=("-L$BIN" "-l${name%.so}" "-Wl,-rpath,\$ORIGIN")
done < <(directive SHLIB)
while read -r lib libsrc; do
	[ -n "${lib:-}" ] || continue
	timeout "$T_BUILD" "$cc" "${flags[@]}" -fPIC -shared "$P/$libsrc" -o "$BIN/$lib" >>"$build_log" 2>&1 || built=0
done < <(directive DLOPEN)
extra=()
for s in $(directive SOURCES); do extra+=("$P/$s"); done
# shellcheck disable=SC2207
ldlibs=($(directive LDLIBS))
if [ $built = 1 ] && timeout "$T_BUILD" "$cc" "${flags[@]}" "$src" "${extra[@]}" -o "$BIN/$prog" \
	"${link[@]}" "${ldlibs[@]}" >>"$build_log" 2>&1; then
	pass build
else
	fail build "$cc -$opt failed" "$build_log"
	exit 0
fi

if [ "$method" = patch ]; then
	srcs=("$src" "${extra[@]}" "$P/truth.h")
	while read -r lib libsrc; do
		[ -n "${lib:-}" ] || continue
		rec_opts+=(-P "$lib:*")
		srcs+=("$P/$libsrc")
	done < <(directive SHLIB; directive DLOPEN)
	# libc's own functions linked into the program (libc_nonshared.a): real calls, but
	# not the program's, and not seen by the other methods
	rec_opts+=(-P '!atexit' -P '!at_quick_exit' -P '!pthread_atfork')
	[ $libcalls = 1 ] && rec_opts+=(--libcalls)
	[ $use_ptrace = 1 ] && rec_opts+=(--method=ptrace)
	for f in $(sed -n 's/^.*NOTRACE[^(]*[ *]\([A-Za-z_][A-Za-z_0-9]*\)(.*$/\1/p' "${srcs[@]}" | sort -u); do
		rec_opts+=(-P "!$f")
	done
fi

# ---- expectations ------------------------------------------------------------
want=$(directive EXIT)
want=${want:-0}
# shellcheck disable=SC2206
args=($(directive ARGS))
static_truth=
[ -f "$P/$prog.truth" ] && static_truth=$P/$prog.truth
tree=
[ -f "$P/$prog.tree" ] && tree=$P/$prog.tree
ignore=()
while read -r re; do [ -n "$re" ] && ignore+=(--ignore "$re"); done < <(directive IGNORE)
while read -r re; do [ -n "$re" ] && ignore+=(--at-least "$re"); done < <(directive AT-LEAST)
if [ $libcalls = 1 ]; then
	ignore+=(--ignore '@')
	export CT_DROP_LIBCALLS=1
fi

# ---- the program alone -------------------------------------------------------
(cd "$R" && CT_TRUTH=$R/truth.native timeout -k 5 "$T_RUN" "$BIN/$prog" "${args[@]}" \
	>native.out 2>native.err) 2>/dev/null
st=$?
if [ $st != "$want" ]; then
	fail native "the program alone exits with $(status_text $st "$T_RUN"), expected $want" "$R/native.err"
elif [ -z "$static_truth" ] && [ ! -s "$R/truth.native" ]; then
	fail native "the program alone wrote no truth file"
else
	pass native
fi

[ -n "$CT" ] || exit 0

# ---- record ------------------------------------------------------------------
(cd "$R" && CT_TRUTH=$R/truth.traced timeout -k 5 "$T_RUN" "$CT" record -o "$R/trace.data" "${rec_opts[@]}" -- \
	"$BIN/$prog" "${args[@]}" >record.out 2>record.err) 2>/dev/null
st=$?
if [ $st != "$want" ]; then
	fail record "calltrace record exits with $(status_text $st "$T_RUN"), expected $want" "$R/record.err"
	echo "    command: cd $R && $CT record -o trace.data ${rec_opts[*]} -- $BIN/$prog ${args[*]}" >>"$RES"
else
	pass record
fi
if [ ! -s "$R/trace.data" ]; then
	fail trace "no trace written ($R/trace.data)"
	exit 0
fi

if [ -z "$static_truth" ] && [ -z "$(directive VARIES)" ]; then
	if ! [ -s "$R/truth.traced" ]; then
		fail same-run "the traced program wrote no truth file"
	elif ! cmp -s <(sort "$R/truth.native") <(sort "$R/truth.traced"); then
		diff <(sort "$R/truth.native") <(sort "$R/truth.traced") >"$R/truth.diff"
		fail same-run "the program counted different calls when traced (< alone, > traced)" "$R/truth.diff"
	else
		pass same-run
	fi
fi

# ---- replay, report, info -----------------------------------------------------
(cd "$R" && timeout -k 5 "$T_READ" "$CT" replay -i trace.data >replay.txt 2>replay.err)
st=$?
replay_ok=0
if [ $st != 0 ]; then
	fail replay "calltrace replay exits with $(status_text $st "$T_READ")" "$R/replay.err"
	where
else
	replay_ok=1
fi

(cd "$R" && timeout -k 5 "$T_READ" "$CT" report -i trace.data --json >report.json 2>report.err)
st=$?
report_ok=0
if [ $st != 0 ]; then
	fail report "calltrace report --json exits with $(status_text $st "$T_READ")" "$R/report.err"
	where
elif ! "$PY" "$LIB/ctcheck.py" check-report "$R/report.json" >"$R/check.out" 2>&1; then
	fail report "$(head -n1 "$R/check.out")"
	where
else
	pass report
	report_ok=1
fi

(cd "$R" && timeout -k 5 "$T_READ" "$CT" info -i trace.data >info.txt 2>info.err)
st=$?
if [ $st != 0 ]; then
	fail info "calltrace info exits with $(status_text $st "$T_READ")" "$R/info.err"
elif ! [ -s "$R/info.txt" ]; then
	fail info "calltrace info printed nothing"
else
	pass info
fi

# check NAME ctcheck-args...: one test from one ctcheck.py check.
check() {
	local name=$1
	shift
	if "$PY" "$LIB/ctcheck.py" "$@" >"$R/check.out" 2>&1; then
		pass "$name"
	else
		tail -n +2 "$R/check.out" >"$R/check.details"
		fail "$name" "$(head -n1 "$R/check.out")" "$R/check.details"
		where
	fi
}

# CT-OPTIMISED-AWAY: yes: the program lets the compiler inline or drop calls
# (a verbatim sample, const functions). -finstrument-functions still sees
# them; a method that instruments the optimised code (fentry) sees only the
# calls the compiler kept, so above -O0 its counts and tree are not compared.
if [ "$method" != finstrument ] && [ "$opt" != O0 ] && [ "$(directive OPTIMISED-AWAY)" = yes ]; then
	tree= optimised_away=1
	echo "ok $prog/$combo/counts # SKIP the compiler drops calls at -$opt" >>"$RES"
	report_ok=0
fi

if [ $report_ok = 1 ]; then
	truth=${static_truth:-$R/truth.traced}
	if [ -s "$truth" ]; then
		check counts check-counts "$R/report.json" "$truth" "${ignore[@]}"
	else
		fail counts "no truth file to compare with"
	fi
fi

if [ $replay_ok = 1 ]; then
	opts=()
	if [ -n "$tree" ]; then
		opts+=(--tree "$tree")
		if [ "$(directive UNWOUND)" = clang ] && [ "$family" != clang ]; then
			opts+=(--strip-unwound)
		fi
	elif [ -n "$(directive MARKS)" ]; then
		opts+=(--marks-allow "$(directive MARKS)")
	elif [ -n "${optimised_away:-}" ]; then
		opts+=(--marks-allow unwound)
	else
		opts+=(--marks)
	fi
	n=$(directive THREADS)
	[ -z "$n" ] || opts+=(--threads "$n")
	while read -r fn depth; do
		[ -n "${fn:-}" ] && opts+=(--maxdepth "$fn" "$depth")
	done < <(directive MAXDEPTH)
	"$PY" "$LIB/ctcheck.py" replay-checks "$prog/$combo" "$R/replay.txt" "${opts[@]}" >"$R/checks.out" 2>&1
	if grep -q '^FAIL ' "$R/checks.out"; then
		cat "$R/checks.out" >>"$RES"
		where
	elif grep -q '^ok ' "$R/checks.out"; then
		cat "$R/checks.out" >>"$RES"
	else
		fail replay "tests/lib/ctcheck.py failed" "$R/checks.out"
	fi
	# CT-GREP: FILE ERE -- a line of calltrace's output (replay.txt, info.txt, record.err) must match
	k=0
	while read -r file re; do
		[ -n "${file:-}" ] || continue
		k=$((k + 1))
		if grep -Eq -- "$re" "$R/$file"; then
			pass "grep$k"
		else
			fail "grep$k" "no line of $file matches: $re"
			where
		fi
	done < <(directive GREP)
	# A replay 20000 calls deep is 800 MB: keep its beginning only.
	if [ "$(stat -c %s "$R/replay.txt")" -gt 50000000 ]; then
		head -c 1000000 "$R/replay.txt" >"$R/replay.head" && rm -f "$R/replay.txt"
	fi
fi
exit 0
