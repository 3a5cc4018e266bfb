#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One job of tests/run.sh: build one test program with one compiler and
# optimisation level, run it alone, record it with calltrace, check the
# results. Writes its result lines to $OUT/results/PROG.COMBO, the last one
# the marker "# end PROG/COMBO": a job that died part-way has none.
#
#   job.sh PROG COMBO        e.g. job.sh longjmp clang-O2, job.sh fib gcc-O2-fentry
#   job.sh --result PROG COMBO
#                            print the job's result lines; a result without the
#                            marker gets a FAIL line PROG/COMBO/finished (exit 1)
#
# COMBO is COMPILER-OPT[-METHOD]: METHOD finstrument (the default) builds with
# -finstrument-functions; fentry and patchable through calltrace-cc
# --method=METHOD (-pg -mfentry without gprof's start files;
# -fpatchable-function-entry=5,0); mcount with plain -pg, as for gprof
# (mcountpac: with -mbranch-protection=standard too, aarch64's pac-ret);
# patch builds with nothing special and lets calltrace patch the functions in
# memory (and those of the program's own libraries, by -P 'lib.so:*'), all
# but those the program marks NOTRACE (truth.h), by -P '!name'.
#
# Environment (set by run.sh): ROOT, OUT, CT (path of calltrace, or empty
# when it is not built: the record checks are then left out), PY (python3);
# JOB_STREAM=FILE: print the result lines when the job ends, holding a lock on
# FILE (jobs running in parallel print whole results, one after another).
#
# A program is built again only when its sources, flags or compiler changed:
# $OUT/bin/COMBO/.PROG.key holds what the last build was made from.
set -u
PY=${PY:-python3}

# result PROG COMBO: the lines of a finished job, without the marker; a FAIL
# line when the marker is missing (the job died, or is still running).
result() {
	local res=$OUT/results/$1.$2
	if [ "$(tail -n 1 "$res" 2>/dev/null)" = "# end $1/$2" ]; then
		sed '$d' "$res"
		return 0
	fi
	if [ -f "$res" ]; then
		cat "$res"
		echo "FAIL $1/$2/finished: the job died before its end (no end marker in $res)"
	else
		echo "FAIL $1/$2/finished: the job did not run (no $res)"
	fi
	return 1
}
if [ "${1:-}" = --result ]; then
	result "$2" "$3"
	exit
fi

prog=$1 combo=$2
job_start=$EPOCHREALTIME
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
		{
			echo "ok $prog/$combo/build # SKIP not for ptrace (CT-METHODS: $methods)"
			echo "# end $prog/$combo"
		} >"$OUT/results/$prog.$combo"
		[ -z "${JOB_STREAM:-}" ] || flock "$JOB_STREAM" "$0" --result "$prog" "$combo"
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
# The end of the job, wherever it ends: the marker, then the lines for a person.
end_job() {
	# how long each job took, for finding the slow ones: $OUT/results/.times
	echo "$prog $combo $(awk -v s="$job_start" -v e="$EPOCHREALTIME" 'BEGIN { printf "%.2f", e - s }')" >>"$OUT/results/.times"
	echo "# end $prog/$combo" >>"$RES"
	[ -z "${JOB_STREAM:-}" ] || flock "$JOB_STREAM" "$0" --result "$prog" "$combo"
	exit 0
}

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
	end_job
fi

# ---- build -----------------------------------------------------------------
flags=(-g -finstrument-functions "-$opt" -Wall -pthread "-I$P" "$std")
rec_opts=()
if [ "$method" = mcount ] || [ "$method" = mcountpac ]; then
	flags=(-g -pg "-$opt" -Wall -pthread "-I$P" "$std") # gprof's build, gmon.out and all
	[ "$method" = mcount ] || flags+=(-mbranch-protection=standard)
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
# The commands, one a line (words separated by tabs): the libraries, then the program.
cmds=()
link=()
libs=()
while read -r lib libsrc; do
	[ -n "${lib:-}" ] || continue
	cmds+=("$(printf '%s\t' "${flags[@]}" -fPIC -shared "$P/$libsrc" -o "$lib")")
	libs+=("$lib")
	name=${lib#lib}
	link+=("-L." "-l${name%.so}" "-Wl,-rpath,\$ORIGIN")
done < <(directive SHLIB)
while read -r lib libsrc; do
	[ -n "${lib:-}" ] || continue
	cmds+=("$(printf '%s\t' "${flags[@]}" -fPIC -shared "$P/$libsrc" -o "$lib")")
	libs+=("$lib")
done < <(directive DLOPEN)
extra=()
for s in $(directive SOURCES); do extra+=("$P/$s"); done
# shellcheck disable=SC2207
ldlibs=($(directive LDLIBS))
cmds+=("$(printf '%s\t' "${flags[@]}" "$src" "${extra[@]}" -o "$prog" "${link[@]}" "${ldlibs[@]}")")

# What the build is made from: the compiler (and the wrapper), the commands,
# every source and header of the test programs. The same for two combos that
# build alike (gcc-O2-patch, gcc-O2-patchlc, gcc-O2-ptrace): built once.
build_key() {
	{
		echo "$cc"
		if [ "$method" = fentry ] || [ "$method" = patchable ]; then
			cksum <"$cc"
			"${CALLTRACE_CC:-$CALLTRACE_CXX}" --version 2>&1 | head -n 1
		else
			"$cc" --version 2>&1 | head -n 1
		fi
		printf '%s\n' "${cmds[@]}"
		cat "$src" "${extra[@]}" "$P"/*.h "$P"/parts/*
	} 2>&1 | sha1sum | cut -c1-40
}
CACHE=$OUT/bin/.cache
key=$(build_key)
if ! [ -f "$CACHE/$key/.built" ]; then
	tmp=$CACHE/tmp.$prog.$combo.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	built=1
	for c in "${cmds[@]}"; do
		IFS=$'\t' read -r -a words <<<"$c"
		if ! (cd "$tmp" && timeout -k 5 "$T_BUILD" "$cc" "${words[@]}") >>"$build_log" 2>&1; then
			built=0
			break
		fi
	done
	if [ $built = 0 ]; then
		rm -rf "$tmp"
		fail build "$cc -$opt failed" "$build_log"
		end_job
	fi
	: >"$tmp/.built"
	# another job may have built the same at the same time: its copy is as good
	mv -T "$tmp" "$CACHE/$key" 2>/dev/null || rm -rf "$tmp"
fi
touch "$CACHE/$key" # in use: tests/run.sh removes builds unused for a week
for f in "${libs[@]}" "$prog"; do
	ln -f "$CACHE/$key/$f" "$BIN/$f" 2>/dev/null || cp -f "$CACHE/$key/$f" "$BIN/$f" || {
		fail build "cannot copy $CACHE/$key/$f to $BIN"
		end_job
	}
done
pass build

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

[ -n "$CT" ] || end_job

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
	end_job
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
else
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

# ---- the checks of the outputs: one ctcheck.py job (one Python start) ----------
checks=()
# CT-OPTIMISED-AWAY: yes: the program lets the compiler inline or drop calls
# (a verbatim sample, const functions). -finstrument-functions still sees
# them; a method that instruments the optimised code (fentry) sees only the
# calls the compiler kept: above -O0 its counts may only be lower than the
# program's (counts-kept), and its tree is the expected one with calls taken
# out (tree-kept).
kept=0
if [ "$method" != finstrument ] && [ "$opt" != O0 ] && [ "$(directive OPTIMISED-AWAY)" = yes ]; then
	kept=1
fi
if [ $report_ok = 1 ]; then
	checks+=(--report "$R/report.json")
	truth=${static_truth:-$R/truth.traced}
	if [ -s "$truth" ]; then
		checks+=(--truth "$truth" "${ignore[@]}")
		[ $kept = 0 ] || checks+=(--kept)
	else
		fail counts "no truth file to compare with"
	fi
fi
if [ $replay_ok = 1 ]; then
	checks+=(--replay "$R/replay.txt")
	if [ -n "$tree" ] && [ $kept = 1 ]; then
		checks+=(--tree-kept "$tree" --marks-allow unwound)
	elif [ -n "$tree" ]; then
		checks+=(--tree "$tree")
		if [ "$(directive UNWOUND)" = clang ] && [ "$family" != clang ]; then
			checks+=(--strip-unwound)
		fi
	elif [ -n "$(directive MARKS)" ]; then
		checks+=(--marks-allow "$(directive MARKS)")
	elif [ $kept = 1 ]; then
		checks+=(--marks-allow unwound)
	else
		checks+=(--marks)
	fi
	n=$(directive THREADS)
	[ -z "$n" ] || checks+=(--threads "$n")
	while read -r fn depth; do
		[ -n "${fn:-}" ] && checks+=(--maxdepth "$fn" "$depth")
	done < <(directive MAXDEPTH)
fi
if [ ${#checks[@]} -gt 0 ]; then
	timeout -k 5 "$T_READ" "$PY" "$LIB/ctcheck.py" job "$prog/$combo" "${checks[@]}" >"$R/checks.out" 2>&1
	st=$?
	if [ $st != 0 ] || ! grep -q '^ok \|^FAIL ' "$R/checks.out"; then
		fail checks "tests/lib/ctcheck.py job $(status_text $st "$T_READ")" "$R/checks.out"
	else
		cat "$R/checks.out" >>"$RES"
		! grep -q '^FAIL ' "$R/checks.out" || where
	fi
fi

if [ $replay_ok = 1 ]; then
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
	# A replay 6000 calls deep (recursion.c) is 74 MB: keep its beginning only.
	if [ "$(stat -c %s "$R/replay.txt")" -gt 50000000 ]; then
		head -c 1000000 "$R/replay.txt" >"$R/replay.head" && rm -f "$R/replay.txt"
	fi
fi
end_job
