#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Real programs as a new user meets them (issue 21, items 6 and 7). tests/run.sh
# runs it; alone:
#
#   tests/libtool/run.sh
#
# Environment: BUILD, CALLTRACE (or CT), as for run.sh.
#   libtool/*  an autotools + libtool project (built here: autoreconf,
#              configure, make; libtool's default shared build) whose `prog`
#              is libtool's wrapper script around .libs/prog and its own
#              libdemo.so: `record ./prog` traces .libs/prog (no shell listed,
#              "processes: 1 (1 traced, 0 ran no traced code)"), patches
#              libdemo.so by default (exact counts of its functions), and info
#              names libm, left unpatched, with the -P that takes it; -P
#              'libm*:*' then traces it. With the script run as a program
#              (CALLTRACE_NO_LIBTOOL=1) the shell's processes are counted, not
#              listed, and the counts are the same. --method=ptrace patches
#              libdemo by default too; `live ./prog` runs .libs/prog as well.
#   spawn/*    a program that posix_spawns /bin/true and an instrumented child
#              and calls system(): the child's exact counts, the spawn and
#              system marks in the parent's tree, the count line in info; a
#              command line of 3,000 characters is shortened in info.
#   replay/*   no section of replay without a line under it (a process that
#              ran no traced code shows only with its marks).
#   starts/*   system() in two threads while two others posix_spawn: each
#              system mark names the shell that ran its child; 1,100 starts
#              while the recorder is stopped (SIGSTOP): all counted, and info
#              says the ring lost some pids.
# Prints `ok ...` or `FAIL libtool/...: REASON`, then `N passed, N failed`.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite libtool
T=120
run() { timeout -k 5 $T "$@"; }

for tool in autoreconf automake libtoolize gcc make; do
	command -v $tool >/dev/null 2>&1 || bad setup "$tool is missing (scripts/install-deps.sh --test)"
done
if ! [ -x "$CT" ]; then
	bad setup "$CT is missing: run make"
	finish
fi
[ "$failed" = 0 ] || finish

W=$(mktemp -d /tmp/ct-libtool.XXXXXX) || exit 1
trap 'rm -rf "$W"' EXIT

# calls FILE NAME: the calls report --json counts for NAME ("" if none)
calls() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
rows = d["functions"] if isinstance(d, dict) else d
print(sum(r["calls"] for r in rows if r["name"] == sys.argv[2]) or "")' "$1" "$2" 2>/dev/null
}

# expect_calls TEST TRACE NAME=N...: report's counts, exactly
expect_calls() {
	local name=$1 trace=$2 json=$W/${1//\//-}.json want got
	shift 2
	if ! run "$CT" report --json -i "$trace" >"$json" 2>"$json.err"; then
		bad "$name" "report failed" "$json.err"
		return
	fi
	for want in "$@"; do
		got=$(calls "$json" "${want%%=*}")
		if [ "$got" != "${want#*=}" ]; then
			bad "$name" "${want%%=*}: $got calls, expected ${want#*=}" "$json"
			return
		fi
	done
	ok "$name"
}

# ---- a libtool project --------------------------------------------------------
P=$W/proj
mkdir -p "$P"
cp "$HERE"/configure.ac "$HERE"/Makefile.am "$HERE"/demo.c "$HERE"/main.c "$P"/
if ! (cd "$P" && run autoreconf -i && run ./configure CFLAGS="-g -O1" && run make) \
	>"$W/build.log" 2>&1; then
	bad build "autoreconf, configure or make failed" "$W/build.log"
	finish
fi
if ! head -n 5 "$P/prog" | grep -q 'temporary wrapper script for'; then
	bad build "prog is not a libtool wrapper script" "$P/prog"
	finish
fi
ok build

# main calls run once, run calls demo_work and cbrt once, demo_work calls demo_leaf 4 times
COUNTS="main=1 run=1 demo_work=1 demo_leaf=4"
(cd "$P" && run ./prog >"$W/plain.out" 2>&1)
(cd "$P" && run "$CT" record -o "$W/lt.data" ./prog >"$W/lt.out" 2>"$W/lt.err")
if ! [ -s "$W/plain.out" ] || ! cmp -s "$W/plain.out" "$W/lt.out"; then
	bad record "the program's output is '$(cat "$W/lt.out")', not '$(cat "$W/plain.out")'" "$W/lt.err"
elif ! grep -q "is a libtool wrapper script: recording $P/.libs/prog with LD_LIBRARY_PATH=$P/.libs" "$W/lt.err"; then
	bad record "record did not say it runs .libs/prog" "$W/lt.err"
else
	ok record
fi
run "$CT" info -i "$W/lt.data" >"$W/lt.info" 2>&1
if ! grep -qx 'processes:  1 (1 traced, 0 ran no traced code)' "$W/lt.info" ||
	grep -q 'bash\|/bin/sh' "$W/lt.info"; then
	bad info-processes "not one traced process, or a shell listed" "$W/lt.info"
else
	ok info-processes
fi
if ! grep -q "^unpatched:  libm\.so\.6 ([0-9,]* functions): -P 'libm\*:\*' would trace it$" "$W/lt.info"; then
	bad info-unpatched "libm is not named as left unpatched" "$W/lt.info"
elif grep -q '^unpatched:  libdemo\|^unpatched:  libc\.' "$W/lt.info"; then
	bad info-unpatched "libdemo or libc named as left unpatched" "$W/lt.info"
else
	ok info-unpatched
fi
expect_calls own-library "$W/lt.data" $COUNTS

# the ptrace method patches the program's own library by default too
(cd "$P" && run "$CT" record --method=ptrace -o "$W/ltp.data" ./prog >"$W/ltp.out" 2>"$W/ltp.err")
if cmp -s "$W/plain.out" "$W/ltp.out"; then
	expect_calls own-library-ptrace "$W/ltp.data" $COUNTS
else
	bad own-library-ptrace "record --method=ptrace failed or changed the output" "$W/ltp.err"
fi

# live resolves the wrapper as record does: .libs/prog, no shell, libdemo's calls shown
(cd "$P" && run "$CT" live ./prog >"$W/live.out" 2>"$W/live.err")
if ! grep -q "is a libtool wrapper script: recording $P/.libs/prog" "$W/live.err"; then
	bad live "live did not say it runs .libs/prog" "$W/live.err"
elif ! grep -q 'demo_leaf' "$W/live.out" || grep -q 'process .*bash\|/bin/sh' "$W/live.out" ||
	[ "$(grep -c '^# thread' "$W/live.out")" != 1 ]; then
	bad live "not one thread of .libs/prog with libdemo's calls" "$W/live.out"
else
	ok live
fi

(cd "$P" && run "$CT" record -o "$W/ltm.data" -P "libm*:*" ./prog >/dev/null 2>&1)
run "$CT" info -i "$W/ltm.data" >"$W/ltm.info" 2>&1
if grep -q '^unpatched:  libm' "$W/ltm.info"; then
	bad libm-pattern "libm still named as unpatched with -P 'libm*:*'" "$W/ltm.info"
else
	run "$CT" report --json -i "$W/ltm.data" >"$W/ltm.json" 2>&1
	# cbrt is known by one of its aliases (cbrtf64): any function of libm will do
	if python3 -c 'import json,sys
rows = json.load(open(sys.argv[1]))
rows = rows["functions"] if isinstance(rows, dict) else rows
sys.exit(not any(r["module"] == "libm.so.6" and r["calls"] for r in rows))' "$W/ltm.json"; then
		expect_calls libm-pattern "$W/ltm.data" $COUNTS
	else
		bad libm-pattern "no call into libm.so.6 with -P 'libm*:*'" "$W/ltm.json"
	fi
fi

# the script itself run as a program: its shell processes are counted, not listed
(cd "$P" && CALLTRACE_NO_LIBTOOL=1 run "$CT" record -o "$W/sh.data" ./prog >/dev/null 2>&1)
run "$CT" info -i "$W/sh.data" >"$W/sh.info" 2>&1
line=$(grep '^processes:' "$W/sh.info")
shells=$(grep -c '^  pid .*bash' "$W/sh.info")
if ! [[ $line =~ ^processes:\ +([0-9]+)\ \(1\ traced,\ ([0-9]+)\ ran\ no\ traced\ code\)$ ]] ||
	[ "${BASH_REMATCH[2]}" -lt 1 ] || [ "$shells" != 0 ]; then
	bad script-processes "expected 1 traced process and the shells counted: $line" "$W/sh.info"
else
	ok script-processes
fi
expect_calls script-counts "$W/sh.data" $COUNTS

# ---- posix_spawn and system() --------------------------------------------------
S=$W/spawner
if ! run gcc -g -O1 -o "$S" "$HERE"/spawner.c 2>"$W/spawner.err"; then
	bad spawn/build "gcc failed" "$W/spawner.err"
	finish
fi
run "$CT" record -o "$W/sp.data" "$S" >"$W/sp.out" 2>&1
st=$?
if [ $st != 0 ]; then
	bad spawn/record "exit status $st" "$W/sp.out"
else
	ok spawn/record
fi
# the instrumented child runs 3 times (posix_spawn, posix_spawnp, system): 7 work() each
expect_calls spawn/child-counts "$W/sp.data" child_main=3 work=21 parent_done=1
run "$CT" replay -i "$W/sp.data" >"$W/sp.replay" 2>&1
sed -n 's/^.*| *\(+++ \(spawn\|system\): .*\)$/\1/p' "$W/sp.replay" |
	sed -E 's/process [0-9]+/process N/' >"$W/sp.marks"
X=$(printf 'x%.0s' $(seq 186))
printf '%s\n' "+++ spawn: process N (/bin/true) +++" "+++ spawn: process N ($S child) +++" \
	"+++ spawn: process N (spawner child $X… (3,014 characters)) +++" \
	"+++ system: process N (sh -c exec \"\$SPAWNER\" child) +++" \
	"+++ system: process N (sh -c true) +++" >"$W/sp.want"
if ! cmp -s "$W/sp.marks" "$W/sp.want"; then
	bad spawn/marks "the parent's spawn and system marks differ" <(diff "$W/sp.want" "$W/sp.marks")
else
	ok spawn/marks
fi
run "$CT" info -i "$W/sp.data" >"$W/sp.info" 2>&1
# the parent, 3 children (one through a shell that execs it), /bin/true, the shell of "true"
if ! grep -qx 'processes:  6 (4 traced, 2 ran no traced code)' "$W/sp.info"; then
	bad spawn/info-count "expected 'processes:  6 (4 traced, 2 ran no traced code)'" "$W/sp.info"
elif [ "$(grep -c '^  pid ' "$W/sp.info")" != 4 ]; then
	bad spawn/info-count "expected the 4 traced processes listed" "$W/sp.info"
else
	ok spawn/info-count
fi
if ! grep -q "^  pid .* spawner child $X… (3,014 characters)" "$W/sp.info"; then
	bad spawn/info-cmdline "the long command line is not shortened to 200 characters" "$W/sp.info"
else
	ok spawn/info-cmdline
fi

# ---- processes started in a crowd (starts.c) ---------------------------------
ST=$W/starts
if ! run gcc -g -O1 -pthread -o "$ST" "$HERE"/starts.c 2>"$W/starts.err"; then
	bad starts/build "gcc failed" "$W/starts.err"
	finish
fi
# system() in two threads while two others spawn /bin/true: each mark names its own shell
if ! run "$CT" record -o "$W/race.data" "$ST" race >"$W/race.out" 2>&1; then
	bad starts/system-race "record failed" "$W/race.out"
else
	run "$CT" replay -i "$W/race.data" >"$W/race.replay" 2>&1
	grep -oE '\+\+\+ system: process [0-9]+' "$W/race.replay" | grep -oE '[0-9]+$' | sort >"$W/race.marked"
	sed -nE 's/^# thread [0-9]+, process ([0-9]+) .*after exec$/\1/p' "$W/race.replay" | sort >"$W/race.shells"
	if [ "$(wc -l <"$W/race.marked")" = 10 ] && cmp -s "$W/race.marked" "$W/race.shells"; then
		ok starts/system-race
	else
		bad starts/system-race "the system marks do not name the 10 shells that ran the child" \
			<(diff "$W/race.marked" "$W/race.shells")
	fi
fi
# 1,100 starts while the recorder is stopped: more than its ring holds, all counted
if ! run "$CT" record -o "$W/burst.data" "$ST" burst 1100 >"$W/burst.out" 2>&1; then
	bad starts/burst-count "record failed" "$W/burst.out"
else
	run "$CT" info -i "$W/burst.data" >"$W/burst.info" 2>&1
	if grep -qE '^processes:  1,101 \(1 traced, 1,100 ran no traced code; [0-9]+ images started too fast to be identified by pid\)$' "$W/burst.info"; then
		ok starts/burst-count
	else
		bad starts/burst-count "not 1,101 processes, or the pids lost not said" "$W/burst.info"
	fi
fi

# replay: no section without a line under it (an image that ran no traced code
# shows only if it left marks: a fork, an exec); the traced ones all show
for name in sp sh; do
	run "$CT" replay -i "$W/$name.data" >"$W/$name.replay" 2>&1
	empty=$(awk '/^# thread/ { if (h) n++; h = 1; next } /^$/ { next } { h = 0 } END { print n + h }' "$W/$name.replay")
	shown=$(grep -c '^# thread [0-9]*, process [0-9]* ' "$W/$name.replay")
	traced=$(sed -n 's/^processes: *[0-9]* (\([0-9]*\) traced.*/\1/p' "$W/$name.info")
	if [ "$empty" != 0 ]; then
		bad "replay/$name-no-empty-section" "$empty sections with nothing under them" "$W/$name.replay"
	elif [ "$shown" -lt "${traced:-1}" ]; then
		bad "replay/$name-no-empty-section" "$shown sections for $traced traced processes" "$W/$name.replay"
	else
		ok "replay/$name-no-empty-section"
	fi
done
finish
