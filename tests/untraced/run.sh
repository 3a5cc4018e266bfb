#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Nothing untraced without a word; the program sees what it would see (issue 19,
# items 3 and 5). tests/run.sh runs it; alone, as root:
#
#   tests/untraced/run.sh
#
# Environment: BUILD, CALLTRACE (or CT), as for run.sh. Programs are built with
# gcc and clang (-finstrument-functions) into a mktemp -d under /tmp (mode 755,
# so that `nobody` can run them).
#   setuid/*   root's program becomes nobody and execs itself: it stays traced
#              (the pool's descriptor travels), 300 calls exactly; the same
#              after closing every descriptor: "ran untraced: permission
#              denied" in info and replay, info not "complete", 100 calls
#   static/*   a traced image execs a static one: "ran untraced: statically
#              linked"
#   secure/*   nobody records a program that execs a setuid-root one: "ran
#              untraced: setuid or setgid"
#   seccomp/*  a filter makes read-write opens and memfd_create fail: the
#              exec'd image stays traced (300 calls); with its descriptors
#              closed too, "ran untraced: operation not permitted"
#   env/*      a program that clears its environment (or keeps one variable,
#              or its own LD_PRELOAD) and execs itself finds exactly that,
#              traced as plain
#   unmap/*    a program that unmaps or write-protects every shared mapping
#              (one thread, and two) exits 0 with its output unchanged, and
#              the trace says tracing stopped
# Prints `ok untraced/...` or `FAIL untraced/...: REASON`, then `N passed, N failed`.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite untraced
B=$(cd "$(dirname "$CT")" && pwd) # the runtime is beside the tool
T=60
NOBODY=65534
run() { timeout -k 5 $T "$@"; }
asuser() { timeout -k 5 $T setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }

if [ "$(id -u)" != 0 ]; then
	bad setup "runs as root (it changes users and makes a setuid program)"
	finish
fi
for tool in setpriv gcc clang; do
	command -v $tool >/dev/null 2>&1 || bad setup "$tool is missing (scripts/install-deps.sh --test)"
done
if ! [ -x "$CT" ] || ! [ -f "$B/libcalltrace.so" ]; then
	bad setup "$CT or $B/libcalltrace.so is missing: run make"
	finish
fi

W=$(mktemp -d /tmp/ct-untraced.XXXXXX) || exit 1
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin" "$W/u"
cp "$B"/calltrace "$B"/libcalltrace*.so "$W/bin/"
chmod 755 "$W/bin" "$W"/bin/*
chown $NOBODY:$NOBODY "$W/u"
CT=$W/bin/calltrace

# calls NAME TRACE FUNC: how many calls of FUNC the trace's replay shows
calls() { run "$CT" replay -i "$2" 2>/dev/null | grep -c " $3()"; }
# info/replay name the process: untraced NAME TRACE PATTERN
says_untraced() {
	local name=$1 data=$2 pat=$3
	local f=$W/$(echo "$name" | tr / -)
	run "$CT" info -i "$data" >"$f.info" 2>&1
	run "$CT" replay -i "$data" >"$f.replay" 2>&1
	if ! grep -Eq "^untraced:   process [0-9]+ \(/[^)]*\) $pat" "$f.info"; then
		bad "$name/info" "no 'untraced: process P (/path) $pat' line" "$f.info"
	elif grep -q "(complete)" "$f.info"; then
		bad "$name/info" "info says complete" "$f.info"
	else
		ok "$name/info"
	fi
	if grep -Eq "\+\+\+ process [0-9]+ \(/[^)]*\) $pat.* \+\+\+" "$f.replay"; then
		ok "$name/replay"
	else
		bad "$name/replay" "no '+++ process P (/path) $pat +++' line" "$f.replay"
	fi
}
complete() { run "$CT" info -i "$1" 2>&1 | grep -q "^lost:       0 events (complete)$"; }

gcc -O1 -shared -fPIC "$HERE/preload_lib.c" -o "$W/libuser.so" || bad setup "cannot build the user's library"
gcc -O1 -static "$HERE/child.c" -o "$W/static_child" 2>"$W/static.err" ||
	bad static/build "cannot link statically (libc6-dev's libc.a)" "$W/static.err"

for cc in gcc clang; do
	d=$W/$cc
	mkdir -p "$d"
	chmod 755 "$d"
	okb=1
	for p in usr statexec child seccomp envexec unmap; do
		if ! $cc -O1 -finstrument-functions "$HERE/$p.c" -o "$d/$p" -lpthread 2>"$d/$p.err"; then
			bad "$cc/build" "cannot build $p.c" "$d/$p.err"
			okb=0
		fi
	done
	[ $okb = 1 ] || continue
	cp "$d/child" "$d/suid_child"
	chmod 4755 "$d/suid_child"
	cd "$d" || exit 1

	# ---- a user change, then exec ----------------------------------------------
	run "$CT" record -o keep.data ./usr >keep.out 2>keep.err
	st=$?
	n=$(calls x keep.data leaf)
	if [ $st != 0 ] || ! grep -q "child uid=65534 s=20100" keep.out; then
		bad "setuid/$cc/runs" "exit $st" keep.err
	elif [ "$n" != 300 ]; then
		bad "setuid/$cc/stays-traced" "$n calls of leaf, not 300"
	elif ! complete keep.data; then
		bad "setuid/$cc/stays-traced" "info does not say complete"
	else
		ok "setuid/$cc/stays-traced"
	fi
	run "$CT" record -o closed.data ./usr closeall >closed.out 2>closed.err
	st=$?
	n=$(calls x closed.data leaf)
	if [ $st != 0 ] || ! grep -q "child uid=65534 s=20100" closed.out; then
		bad "setuid/$cc/closed-runs" "exit $st" closed.err
	elif [ "$n" != 100 ]; then
		bad "setuid/$cc/closed-counts" "$n calls of leaf, not the 100 before the exec"
	else
		ok "setuid/$cc/closed-counts"
	fi
	says_untraced "setuid/$cc/closed" closed.data "ran untraced: permission denied"

	# ---- a static image ---------------------------------------------------------
	if [ -x "$W/static_child" ]; then
		run "$CT" record -o static.data ./statexec "$W/static_child" >static.out 2>static.err
		st=$?
		if [ $st != 0 ] || ! grep -q "child ran" static.out; then
			bad "static/$cc/runs" "exit $st" static.err
		else
			says_untraced "static/$cc" static.data "ran untraced: statically linked"
		fi
	fi

	# ---- a setuid image, recorded by an ordinary user ----------------------------
	rm -f "$W/u/"*
	(cd "$W/u" && asuser "$CT" record -o secure.data "$d/statexec" "$d/suid_child") \
		>secure.out 2>secure.err
	st=$?
	if [ $st != 0 ] || ! grep -q "child ran euid=0" secure.out; then
		bad "secure/$cc/runs" "exit $st" secure.err
	else
		says_untraced "secure/$cc" "$W/u/secure.data" "ran untraced: setuid or setgid"
	fi

	# ---- a seccomp filter ---------------------------------------------------------
	run "$CT" record -o sec.data ./seccomp >sec.out 2>sec.err
	st=$?
	n=$(calls x sec.data leaf)
	if [ $st != 0 ] || ! grep -q "child s=20100 open-rw=EPERM" sec.out; then
		bad "seccomp/$cc/runs" "exit $st" sec.err
	elif [ "$n" != 300 ] || ! complete sec.data; then
		bad "seccomp/$cc/stays-traced" "$n calls of leaf, not 300, or not complete"
	else
		ok "seccomp/$cc/stays-traced"
	fi
	run "$CT" record -o sec2.data ./seccomp closeall >sec2.out 2>sec2.err
	st=$?
	if [ $st != 0 ] || ! grep -q "child s=20100" sec2.out; then
		bad "seccomp/$cc/closed-runs" "exit $st" sec2.err
	else
		says_untraced "seccomp/$cc/closed" sec2.data "ran untraced: operation not permitted"
	fi

	# ---- the environment the program chose ------------------------------------------
	for how in empty one "preload $W/libuser.so"; do
		name=${how%% *}
		./envexec $how >"env-$name.plain" 2>&1
		run "$CT" record -o "env-$name.data" ./envexec $how >"env-$name.traced" 2>"env-$name.err"
		st=$?
		if [ $st != 0 ]; then
			bad "env/$cc/$name" "exit $st" "env-$name.err"
		elif ! cmp -s "env-$name.plain" "env-$name.traced"; then
			diff "env-$name.plain" "env-$name.traced" >"env-$name.diff"
			bad "env/$cc/$name" "the child's environment differs traced" "env-$name.diff"
		elif [ "$(calls x "env-$name.data" count_env)" != 1 ]; then
			bad "env/$cc/$name" "the exec'd image was not traced"
		else
			ok "env/$cc/$name"
		fi
	done
	grep -q "env empty=1" env-empty.traced || bad "env/$cc/empty-line" "no 'env empty=1'" env-empty.traced

	# ---- the program takes the shared memory away ---------------------------------------
	for how in unmap protect "unmap threads" "protect threads"; do
		name=$(echo "$how" | tr ' ' -)
		./unmap $how >"$name.plain" 2>&1
		run "$CT" record -o "$name.data" ./unmap $how >"$name.traced" 2>"$name.err"
		st=$?
		if [ $st != 0 ]; then
			bad "unmap/$cc/$name" "exit $st (the plain run: $(cat "$name.plain"))" "$name.err"
			continue
		elif ! cmp -s "$name.plain" "$name.traced"; then
			bad "unmap/$cc/$name" "the output differs traced" "$name.traced"
			continue
		fi
		run "$CT" info -i "$name.data" >"$name.info" 2>&1
		run "$CT" replay -i "$name.data" >"$name.replay" 2>&1
		if ! grep -Eq "^untraced:   process [0-9]+ \(/.*/unmap\) stopped being traced: the program (unmapped|write-protected)" "$name.info"; then
			bad "unmap/$cc/$name" "info does not say tracing stopped" "$name.info"
		elif ! grep -q "+++ tracing stopped: the program" "$name.replay"; then
			bad "unmap/$cc/$name" "replay does not say tracing stopped" "$name.replay"
		elif [ "$(grep -c ' work()\| work() {' "$name.replay")" -lt 1 ]; then
			bad "unmap/$cc/$name" "the calls before it are missing" "$name.replay"
		else
			ok "unmap/$cc/$name"
		fi
	done
	cd "$W" || exit 1
done
finish
