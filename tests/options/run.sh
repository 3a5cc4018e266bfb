#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Options and variables no other sub-suite checks, each against a truth that
# does not come from calltrace: programs that count their own calls (truth.h)
# and trees written by hand beside them.
#
#   known.c, known.tree   a thread, a nap, a fork; exit status 5
#   names.cpp             C++ overloads, constructor, const method
#   attachee.c            waits to be patched by an attach, then known calls
#   calc.tree             examples/calc.c's tree for its inputs below
#   opts.py               the checks (exports, dump, -T, report table, names)
#
# Checked: export chrome and folded against the program's counts and tree;
# live's tree (per thread, in order); dump's records; --no-demangle; --color
# and NO_COLOR (on a terminal through script(1), in a pipe); replay -T;
# --pid; report -s for each key and the text table's values; attach -P,
# --no-follow, -b; record --method=finstrument|fentry|patchable; the
# CALLTRACE_CLOCK and CALLTRACE_RUNTIME variables; standalone
# CALLTRACE_DISABLED, CALLTRACE_BUFFER_SIZE, CALLTRACE_LOSSY; examples/.
# gcc and clang where the compiler matters. Every command has a deadline.
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT), PY as for run.sh;
# OPTIONS_CCS="gcc clang" the compilers. Prints `ok options/...` or
# `FAIL options/...: REASON` lines, then `N passed, N failed, N skipped`.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite options
CCS=${OPTIONS_CCS:-gcc clang}
O=$OUT/options
OPTS=$HERE/opts.py
CTCHECK=$ROOT/tests/lib/ctcheck.py
# bad NAME REASON [DETAILS-FILE]
# t CMD...: CMD under the deadline every command has
t() { timeout -k 5 60 "$@"; }
# check NAME OPTS-ARGS...: opts.py must agree
check() {
	local name=$1
	shift
	if t "$PY" "$OPTS" "$@" >"$O/check.out" 2>&1; then
		ok "$name"
	else
		bad "$name" "$(head -n1 "$O/check.out")" "$O/check.out"
	fi
}
# tree_is NAME REPLAY EXPECTED: ctcheck.py's normalised tree of REPLAY is EXPECTED
tree_is() {
	if ! t "$PY" "$CTCHECK" tree "$2" >"$2.tree" 2>&1; then
		bad "$1" "the replay does not parse ($2)" "$2.tree"
	elif diff "$3" "$2.tree" >"$2.diff"; then
		ok "$1"
	else
		bad "$1" "the tree differs from $(basename "$3") ($2)" "$2.diff"
	fi
}
# run_truth NAME DIR STATUS CMD...: CMD (record or live ...) in DIR with DIR/truth
# as CT_TRUTH, output in DIR/BASENAME-OF-NAME.out; exit status STATUS. 0 if it did.
run_truth() {
	local name=$1 dir=$2 want=$3 st
	shift 3
	rm -f "$dir/truth" "$dir/truth.child"
	local f=$dir/${name##*/}
	(cd "$dir" && CT_TRUTH=$dir/truth t "$@" >"$f.out" 2>"$f.err" </dev/null)
	st=$?
	if [ "$st" != "$want" ]; then
		bad "$name" "exit status $st, expected $want: $*" "$f.err"
		return 1
	fi
	return 0
}

if ! [ -x "$CT" ]; then
	bad calltrace "$CT is missing: run make"
	finish
fi
rm -rf "$O"
mkdir -p "$O"
for tool in script c++filt nm; do
	command -v $tool >/dev/null || bad "tool-$tool" "$tool is missing (scripts/install-deps.sh --test)"
done

# ---- the programs, with each compiler ----------------------------------------------------
cxx() { [ "$1" = gcc ] && echo g++ || echo clang++; }
for cc in $CCS; do
	mkdir -p "$O/$cc"
	t $cc -g -O2 -finstrument-functions -pthread "$HERE/known.c" -o "$O/$cc/known" 2>"$O/$cc/build.err" &&
		t "$(cxx $cc)" -g -O2 -finstrument-functions "$HERE/names.cpp" -o "$O/$cc/names" 2>>"$O/$cc/build.err" ||
		bad "build-$cc" "cannot build the programs" "$O/$cc/build.err"
done

for cc in $CCS; do
	d=$O/$cc
	[ -x "$d/known" ] || continue
	# ---- record, and the readers against the truth ----
	run_truth "$cc/record" "$d" 5 "$CT" record -o "$d/k.data" -- "$d/known" || continue
	cp "$d/truth" "$d/k.truth"
	t "$CT" replay -i "$d/k.data" >"$d/k.replay" 2>"$d/k.replay.err" || bad "$cc/replay" "replay failed" "$d/k.replay.err"
	t "$CT" report -i "$d/k.data" --json >"$d/k.json" 2>"$d/k.json.err" || bad "$cc/report" "report failed" "$d/k.json.err"
	check "$cc/counts" counts "$d/k.json" "$d/k.truth"
	tree_is "$cc/tree" "$d/k.replay" "$HERE/known.tree"

	# exports against the program's own counts and tree (not against report.json)
	if t "$CT" export -i "$d/k.data" --format chrome -o "$d/k.chrome.json" 2>"$d/export.err"; then
		check "$cc/export-chrome-truth" chrome "$d/k.chrome.json" "$d/k.truth" "$HERE/known.tree"
	else
		bad "$cc/export-chrome-truth" "export failed" "$d/export.err"
	fi
	if t "$CT" export -i "$d/k.data" --format folded --weight calls -o "$d/k.folded" 2>"$d/export.err"; then
		check "$cc/export-folded-truth" folded "$d/k.folded" "$d/k.truth" "$HERE/known.tree"
	else
		bad "$cc/export-folded-truth" "export failed" "$d/export.err"
	fi

	# dump on its own: its enter/exit records are the program's calls
	if t "$CT" dump -i "$d/k.data" >"$d/k.dump" 2>"$d/dump.err"; then
		check "$cc/dump" dump "$d/k.dump" "$d/k.truth" "$HERE/known.tree"
	else
		bad "$cc/dump" "dump failed" "$d/dump.err"
	fi

	# replay -T: the same lines behind a stamp, in order, inside the trace, nap >= 200 ms
	secs=$(t "$CT" info -i "$d/k.data" 2>/dev/null | sed -n 's/^recorded:.*, for \([0-9.]*\) \(m\?s\)$/\1 \2/p' |
		awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }')
	if t "$CT" replay -T -i "$d/k.data" >"$d/k.replay-T" 2>"$d/T.err" && [ -n "$secs" ]; then
		check "$cc/replay-T" timestamps "$d/k.replay-T" "$d/k.replay" "$secs"
	else
		bad "$cc/replay-T" "replay -T failed, or no duration in info" "$d/T.err"
	fi

	# report -s KEY: the text table has the --json values, in KEY order, calls = truth
	for key in total self calls avg max name; do
		if t "$CT" report -i "$d/k.data" -s $key >"$d/k.report-$key" 2>"$d/report.err"; then
			check "$cc/report-s-$key" report-text "$d/k.report-$key" "$d/k.json" $key "$d/k.truth"
		else
			bad "$cc/report-s-$key" "report -s $key failed" "$d/report.err"
		fi
	done

	# live: its tree, thread by thread, is the program's (not only replay's sorted lines)
	if run_truth "$cc/live" "$d" 5 "$CT" live -o "$d/k.live" -- "$d/known"; then
		t "$PY" "$OPTS" live-split "$d/k.live" >"$d/k.live-replay" 2>&1
		tree_is "$cc/live-tree" "$d/k.live-replay" "$HERE/known.tree"
		check "$cc/live-counts" counts "$d/k.json" "$d/truth"
	fi
	# (a call whose children are all hidden may still print as "{" ... "}": live
	# does not wait for ever to know it is a leaf)
	if run_truth "$cc/live-T" "$d" 5 "$CT" live -T -D 1 -o "$d/k.live-T" -- "$d/known" &&
		! grep -v '^#' "$d/k.live-T" | grep -qvE '^ +[0-9]+\.[0-9]{9} ' &&
		[ "$(grep -v '^#' "$d/k.live-T" | sed 's/.*| //; s/[(].*//; s/^} \/\* //; s/ \*\/$//' | sort -u | tr '\n' ' ')" = "main worker " ]; then
		ok "$cc/live-T-D"
	else
		bad "$cc/live-T-D" "live -T -D 1: expected main and worker only, every line stamped" "$d/k.live-T"
	fi

	# --pid: one process's calls, the child's and the parent's truth apart
	if run_truth "$cc/fork" "$d" 5 "$CT" record -o "$d/f.data" -- "$d/known" fork; then
		child=$(sed -n 's/^child //p' "$d/fork.out")
		parent=$(t "$CT" info -i "$d/f.data" 2>/dev/null | awk '/^  pid / && !/forked/ { print $2; exit }')
		t "$CT" report -i "$d/f.data" --pid "$child" --json >"$d/child.json" 2>&1
		t "$CT" report -i "$d/f.data" --pid "$parent" --json >"$d/parent.json" 2>&1
		# the child's main is the frame it was forked in: no call of its own
		check "$cc/pid-child" counts "$d/child.json" "$d/truth.child" --skip main
		check "$cc/pid-parent" counts "$d/parent.json" "$d/truth"
		t "$CT" replay -i "$d/f.data" --pid "$child" >"$d/child.replay" 2>&1
		if [ "$(grep -c '^# thread' "$d/child.replay")" = 1 ] && grep -q "^# thread $child, process $child " "$d/child.replay"; then
			ok "$cc/replay-pid"
		else
			bad "$cc/replay-pid" "replay --pid $child: expected the child's one thread only" "$d/child.replay"
		fi
	fi

	# --no-demangle: the binary's own symbols, which demangle to the default names
	if [ -x "$d/names" ] && run_truth "$cc/names" "$d" 0 "$CT" record -o "$d/n.data" -- "$d/names"; then
		t "$CT" report -i "$d/n.data" --json >"$d/n.json" 2>&1
		t "$CT" report -i "$d/n.data" --json --no-demangle >"$d/n.raw.json" 2>&1
		nm "$d/names" | awk '{ print $NF }' >"$d/n.syms"
		check "$cc/names-counts" counts "$d/n.json" "$d/truth"
		check "$cc/no-demangle-report" mangled "$d/n.raw.json" "$d/n.json" "$d/n.syms"
		t "$CT" replay -i "$d/n.data" --no-demangle >"$d/n.raw.replay" 2>&1
		t "$CT" replay -i "$d/n.data" >"$d/n.replay" 2>&1
		if grep -q '_ZN3geo5scaleEd();' "$d/n.raw.replay" && ! grep -q 'geo::' "$d/n.raw.replay" &&
			grep -q 'geo::scale();' "$d/n.replay"; then
			ok "$cc/no-demangle-replay"
		else
			bad "$cc/no-demangle-replay" "replay --no-demangle shows demangled names, or replay mangled ones" "$d/n.raw.replay"
		fi
	fi
done

# ---- colour: on a terminal only, never with NO_COLOR or --color=never ---------------------
d=$O/${CCS%% *}
ESC=$(printf '\033')
# on_tty FILE CMD...: CMD's output through a pseudo-terminal (script -qc)
on_tty() {
	local f=$1
	shift
	t script -qfec "$(printf '%q ' "$@")" /dev/null >"$f" 2>&1 </dev/null
}
if [ -s "$d/k.data" ]; then
	# dump takes --color but has nothing to colour: only "never coloured" is checked for it
	for cmd in replay report dump; do
		on_tty "$d/tty.$cmd" env -u NO_COLOR TERM=xterm "$CT" $cmd -i "$d/k.data"
		on_tty "$d/tty-no.$cmd" env NO_COLOR=1 TERM=xterm "$CT" $cmd -i "$d/k.data"
		on_tty "$d/tty-never.$cmd" env -u NO_COLOR TERM=xterm "$CT" $cmd --color=never -i "$d/k.data"
		t env -u NO_COLOR TERM=xterm "$CT" $cmd -i "$d/k.data" >"$d/pipe.$cmd" 2>&1
		t env -u NO_COLOR TERM=xterm "$CT" $cmd --color=always -i "$d/k.data" >"$d/pipe-always.$cmd" 2>&1
		if [ $cmd = dump ]; then
			:
		elif ! grep -q "$ESC\[" "$d/tty.$cmd"; then
			bad "color/$cmd-terminal" "no colour on a terminal" "$d/tty.$cmd"
		else
			ok "color/$cmd-terminal"
		fi
		for v in tty-no tty-never pipe; do
			if ! [ -s "$d/$v.$cmd" ]; then
				bad "color/$cmd-$v" "no output" "$d/$v.$cmd"
			elif grep -q "$ESC\[" "$d/$v.$cmd"; then
				bad "color/$cmd-$v" "colour ($v: NO_COLOR, --color=never or a pipe)" "$d/$v.$cmd"
			else
				ok "color/$cmd-$v"
			fi
		done
		if [ $cmd = dump ]; then
			:
		elif grep -q "$ESC\[" "$d/pipe-always.$cmd"; then
			ok "color/$cmd-always"
		else
			bad "color/$cmd-always" "--color=always in a pipe: no colour" "$d/pipe-always.$cmd"
		fi
		# colour changes nothing but the escapes
		if sed "s/$ESC\[[0-9;]*m//g; s/\r$//" "$d/tty.$cmd" | cmp -s - "$d/pipe.$cmd"; then
			ok "color/$cmd-same-text"
		else
			sed "s/$ESC\[[0-9;]*m//g; s/\r$//" "$d/tty.$cmd" | diff - "$d/pipe.$cmd" | head -n 20 >"$d/color.diff"
			bad "color/$cmd-same-text" "the text on a terminal, escapes removed, differs from the pipe's" "$d/color.diff"
		fi
	done
	(cd "$d" && on_tty "$d/tty.live" env -u NO_COLOR TERM=xterm "$CT" live -- "$d/known")
	(cd "$d" && on_tty "$d/tty-no.live" env NO_COLOR=1 TERM=xterm "$CT" live -- "$d/known")
	if grep -q "$ESC\[" "$d/tty.live" && ! grep -q "$ESC\[" "$d/tty-no.live" && grep -q 'finish();' "$d/tty-no.live"; then
		ok color/live
	else
		bad color/live "live on a terminal: colour expected without NO_COLOR, none with it" "$d/tty-no.live"
	fi
fi

# ---- record --method=finstrument|fentry|patchable, explicitly -------------------------------
for cc in $CCS; do
	for m in finstrument fentry patchable; do
		md=$O/method/$cc-$m
		mkdir -p "$md"
		if [ $m = finstrument ]; then
			t $cc -g -O2 -finstrument-functions -pthread "$HERE/known.c" -o "$md/known" 2>"$md/build.err"
		else
			CALLTRACE_CC=$cc t "$B/calltrace-cc" --method=$m -g -O2 -pthread "$HERE/known.c" -o "$md/known" 2>"$md/build.err"
		fi || {
			bad "method/$cc-$m" "cannot build" "$md/build.err"
			continue
		}
		run_truth "method/$cc-$m" "$md" 5 "$CT" record --method=$m -o "$md/k.data" -- "$md/known" || continue
		t "$CT" report -i "$md/k.data" --json >"$md/k.json" 2>&1
		check "method/$cc-$m-counts" counts "$md/k.json" "$md/truth"
		t "$CT" replay -i "$md/k.data" >"$md/k.replay" 2>&1
		tree_is "method/$cc-$m-tree" "$md/k.replay" "$HERE/known.tree"
		got=$(t "$CT" info -i "$md/k.data" 2>/dev/null | sed -n 's/^method: *\([a-z]*\).*/\1/p')
		[ "$got" = $m ] && ok "method/$cc-$m-info" || bad "method/$cc-$m-info" "info says method '$got'"
	done
	# a method the program does not offer is refused (the positive checks above could pass
	# if --method were ignored)
	md=$O/method/$cc-finstrument
	if [ -x "$md/known" ]; then
		t "$CT" record --method=patchable -o "$md/x.data" -- "$md/known" >/dev/null 2>"$md/refused.err"
		st=$?
		[ $st != 0 ] && [ $st != 5 ] && ok "method/$cc-refused" ||
			bad "method/$cc-refused" "--method=patchable on a -finstrument-functions build: status $st" "$md/refused.err"
	fi
done

# ---- CALLTRACE_CLOCK ----------------------------------------------------------------------
d=$O/${CCS%% *}
for clk in monotonic tsc; do
	[ -x "$d/known" ] || break
	[ $clk = tsc ] && ! grep -q '^flags.* constant_tsc' /proc/cpuinfo && {
		skip clock-tsc "the CPU has no constant TSC"
		continue
	}
	cd=$O/clock-$clk
	mkdir -p "$cd"
	CALLTRACE_CLOCK=$clk run_truth "clock-$clk" "$cd" 5 "$CT" record -o "$cd/k.data" -- "$d/known" || continue
	got=$(t "$CT" info -i "$cd/k.data" 2>/dev/null | sed -n 's/^clock: *\([a-z]*\).*/\1/p')
	[ "$got" = $clk ] && ok "clock-$clk/info" || bad "clock-$clk/info" "info says clock '$got'"
	t "$CT" report -i "$cd/k.data" --json >"$cd/k.json" 2>&1
	check "clock-$clk/counts" counts "$cd/k.json" "$cd/truth"
	t "$CT" replay -i "$cd/k.data" >"$cd/k.replay" 2>&1
	t "$CT" replay -T -i "$cd/k.data" >"$cd/k.replay-T" 2>&1
	secs=$(t "$CT" info -i "$cd/k.data" 2>/dev/null | sed -n 's/^recorded:.*, for \([0-9.]*\) \(m\?s\)$/\1 \2/p' |
		awk '{ print ($2 == "ms") ? $1 / 1000 : $1 }')
	check "clock-$clk/timestamps" timestamps "$cd/k.replay-T" "$cd/k.replay" "${secs:-0}"
done

# ---- CALLTRACE_RUNTIME: a calltrace with no runtime beside it ------------------------------
r=$O/runtime
mkdir -p "$r/bin/x" "$r/elsewhere"
cp "$CT" "$r/bin/x/calltrace" && cp "$B/libcalltrace.so" "$r/elsewhere/libcalltrace.so"
if [ -x "$d/known" ] && [ -x "$r/bin/x/calltrace" ]; then
	t env -u CALLTRACE_RUNTIME "$r/bin/x/calltrace" record -o "$r/x.data" -- "$d/known" >/dev/null 2>"$r/none.err"
	st=$?
	if [ $st != 0 ] && [ $st != 5 ] && [ "$(wc -l <"$r/none.err")" = 1 ] && grep -q '^calltrace: .*CALLTRACE_RUNTIME' "$r/none.err"; then
		ok runtime/missing
	else
		bad runtime/missing "no runtime beside calltrace: status $st, expected one error line naming CALLTRACE_RUNTIME" "$r/none.err"
	fi
	if CALLTRACE_RUNTIME=$r/elsewhere/libcalltrace.so KNOWN_SHOW_RUNTIME=1 \
		run_truth runtime/set "$r" 5 "$r/bin/x/calltrace" record -o "$r/k.data" -- "$d/known"; then
		if grep -qx "$r/elsewhere/libcalltrace.so" "$r/set.out"; then
			ok runtime/loaded
		else
			bad runtime/loaded "the program did not map $r/elsewhere/libcalltrace.so" "$r/set.out"
		fi
		t "$CT" report -i "$r/k.data" --json >"$r/k.json" 2>&1
		check runtime/counts counts "$r/k.json" "$r/truth"
	fi
fi

# ---- standalone: CALLTRACE_DISABLED, CALLTRACE_BUFFER_SIZE, CALLTRACE_LOSSY ------------------
s=$O/standalone
mkdir -p "$s"
if t gcc -g -O1 -finstrument-functions -pthread "$HERE/known.c" -o "$s/known" -L"$B" -lcalltrace \
	-Wl,-rpath,"$B" 2>"$s/build.err"; then
	# standalone DATA NAME STATUS ENV...: the program writes its own trace
	standalone() {
		local data=$1 name=$2 want=$3
		shift 3
		rm -f "$data"
		run_truth "$name" "$s" "$want" env CALLTRACE_OUTPUT="$data" "$@" "$s/known" "${ARGS[@]}" || return 1
		# the recorder ends with the last traced process: wait for the whole trace
		for _ in $(seq 1 100); do
			t "$CT" info -i "$data" 2>/dev/null | grep -q '^exit:' && break
			sleep 0.2
		done
		t "$CT" info -i "$data" >"$data.info" 2>&1
	}
	ARGS=()
	if standalone "$s/plain.data" standalone/plain 5; then
		t "$CT" report -i "$s/plain.data" --json >"$s/plain.json" 2>&1
		check standalone/plain-counts counts "$s/plain.json" "$s/truth"
	fi
	if standalone "$s/off.data" standalone/disabled 5 CALLTRACE_DISABLED=1; then
		t "$CT" report -i "$s/off.data" --json >"$s/off.json" 2>&1
		# as record --disabled (tests/api/disabled.tree): main's entry starts the runtime, then nothing
		t "$CT" replay -i "$s/off.data" >"$s/off.replay" 2>&1
		if [ "$("$PY" -c 'import json,sys; print(" ".join(e["name"] for e in json.load(open(sys.argv[1]))))' "$s/off.json")" = main ] &&
			grep -q '/\* tracing off \*/' "$s/off.replay" && grep -q '^processes: *1' "$s/off.data.info"; then
			ok standalone/disabled
		else
			bad standalone/disabled "CALLTRACE_DISABLED=1: calls after main's entry were recorded, or no trace" "$s/off.replay"
		fi
	fi
	ARGS=(busy 200000)
	if standalone "$s/small.data" standalone/buffer-size 5 CALLTRACE_BUFFER_SIZE=256K; then
		t "$CT" report -i "$s/small.data" --json >"$s/small.json" 2>&1
		if grep -q 'chunks up to 256.0 KiB' "$s/small.data.info" && grep -q '^method:.*lossless' "$s/small.data.info" &&
			grep -q '^lost: *0 events' "$s/small.data.info"; then
			ok standalone/buffer-size
		else
			bad standalone/buffer-size "CALLTRACE_BUFFER_SIZE=256K: info does not say 256 KiB, lossless, nothing lost" "$s/small.data.info"
		fi
		check standalone/buffer-size-counts counts "$s/small.json" "$s/truth"
	fi
	if standalone "$s/lossy.data" standalone/lossy 5 CALLTRACE_LOSSY=1 CALLTRACE_BUFFER_SIZE=256K; then
		# recorded calls and returns + lost = the program's events (2 per call)
		events=$(awk '{ n += $2 } END { print 2 * n }' "$s/truth")
		rec=$(tr -d , <"$s/lossy.data.info" | sed -n 's/^records:.*(\([0-9]*\) calls and returns.*/\1/p')
		lost=$(tr -d , <"$s/lossy.data.info" | sed -n 's/^lost: *\([0-9]*\) events.*/\1/p')
		if grep -q '^method:.*lossy' "$s/lossy.data.info" && [ -n "$rec" ] && [ -n "$lost" ] &&
			[ $((rec + lost)) = "$events" ]; then
			ok "standalone/lossy"
		else
			bad standalone/lossy "CALLTRACE_LOSSY=1: method not lossy, or recorded $rec + lost $lost != $events events" "$s/lossy.data.info"
		fi
	fi
else
	bad standalone/build "cannot build known.c with -lcalltrace" "$s/build.err"
fi

# ---- attach -P, --no-follow, -b --------------------------------------------------------------
a=$O/attach
mkdir -p "$a"
if t gcc -g -O0 "$HERE/attachee.c" -o "$a/attachee" 2>"$a/build.err"; then
	# attach_run NAME ATTACH-OPTIONS...: the attachee, attached to with these options
	attach_run() {
		local name=$1 pid st
		shift
		rm -f "$a/pid" "$a/truth" "$a/truth.child" "$a/$name.data"
		(cd "$a" && CT_TRUTH=$a/truth exec timeout -k 5 60 ./attachee "$a/pid") >"$a/$name.prog" 2>&1 &
		local prog=$!
		for _ in $(seq 1 100); do
			[ -s "$a/pid" ] && break
			sleep 0.1
		done
		pid=$(cat "$a/pid" 2>/dev/null)
		t "$CT" attach -p "${pid:-0}" -o "$a/$name.data" "$@" >"$a/$name.out" 2>"$a/$name.err"
		st=$?
		wait $prog
		local pst=$?
		if [ $st != 0 ] || [ $pst != 0 ]; then
			bad "attach/$name" "attach $* exits $st, the program $pst" "$a/$name.err"
			return 1
		fi
		t "$CT" report -i "$a/$name.data" --json >"$a/$name.json" 2>&1
		t "$CT" info -i "$a/$name.data" >"$a/$name.info" 2>&1
	}
	if attach_run all; then
		cat "$a/truth" "$a/truth.child" >"$a/all.truth"
		check attach/all counts "$a/all.json" "$a/all.truth" --skip ct_truth_write --skip ct_truth_at_exit --skip main
	fi
	if attach_run patch-P -P 'work*'; then
		cat "$a/truth" "$a/truth.child" | grep '^work' >"$a/P.truth"
		check attach/P counts "$a/patch-P.json" "$a/P.truth"
	fi
	if attach_run no-follow --no-follow; then
		if grep -q '^processes: *1\( (1 traced, 0 ran no traced code)\)\?$' "$a/no-follow.info"; then
			check attach/no-follow counts "$a/no-follow.json" "$a/truth" --skip ct_truth_write --skip ct_truth_at_exit --skip main
		else
			bad attach/no-follow "--no-follow: the forked child is in the trace" "$a/no-follow.info"
		fi
	fi
	if attach_run buffer -b 1M; then
		if grep -q 'chunks up to 1.0 MiB' "$a/buffer.info"; then
			ok attach/b-info
		else
			bad attach/b-info "attach -b 1M: info does not say chunks up to 1.0 MiB" "$a/buffer.info"
		fi
		cat "$a/truth" "$a/truth.child" >"$a/b.truth"
		check attach/b-counts counts "$a/buffer.json" "$a/b.truth" --skip ct_truth_write --skip ct_truth_at_exit --skip main
	fi
else
	bad attach/build "cannot build attachee.c" "$a/build.err"
fi

# ---- examples/ ------------------------------------------------------------------------------
e=$O/examples
mkdir -p "$e"
for cc in $CCS; do
	if ! t $cc -g -O2 -finstrument-functions "$ROOT/examples/calc.c" -o "$e/calc-$cc" 2>"$e/build.err"; then
		bad "examples/calc-$cc" "cannot build examples/calc.c" "$e/build.err"
		continue
	fi
	# "1+2*3" evaluates, "(4" fails with a longjmp out of 4 frames: status 1 (one error)
	t "$CT" record -o "$e/calc-$cc.data" -- "$e/calc-$cc" "1+2*3" "(4" >"$e/calc-$cc.out" 2>"$e/calc-$cc.err"
	st=$?
	if [ $st = 1 ] && [ "$(cat "$e/calc-$cc.out")" = "1+2*3 = 7" ] && grep -q "^error: ')' expected" "$e/calc-$cc.err"; then
		ok "examples/calc-$cc-run"
	else
		bad "examples/calc-$cc-run" "status $st (expected 1) or the calculator's output changed" "$e/calc-$cc.out"
	fi
	t "$CT" replay -i "$e/calc-$cc.data" >"$e/calc-$cc.replay" 2>&1
	tree_is "examples/calc-$cc-tree" "$e/calc-$cc.replay" "$HERE/calc.tree"
done
# the examples' own makefile, as the README shows it
if t make -s -C "$ROOT/examples" BUILD="$B" >"$e/make.out" 2>&1 &&
	grep -q '^1+2\*(3-4) = -1$' "$e/make.out" && grep -q 'unwound' "$e/make.out" &&
	grep -q 'evaluate(text="1+2") {' "$e/make.out" && grep -q 'parse_number() = 2;' "$e/make.out"; then
	ok examples/make-demo
else
	bad examples/make-demo "make -C examples: no result, no unwound frame or no arguments shown" "$e/make.out"
fi

finish
