#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Privileges and files (issue 19). tests/run.sh runs it; alone, as root:
#
#   tests/privilege/run.sh
#
# Environment: BUILD, CALLTRACE (or CT), TEST_OUT (or OUT), as for run.sh.
# Runs as root and, for what a second user changes, as `nobody` (setpriv).
# Everything such a user must reach is copied into a mktemp -d under /tmp
# (mode 755): the tool, the runtime, test programs built with gcc and clang.
#   secure/*   a setuid-root program linked with -lcalltrace, run by the user
#              with CALLTRACE_RECORDER and CALLTRACE_OUTPUT pointing at harm:
#              the recorder is not run, the file is untouched; run by root it
#              traces itself (standalone mode) as usual
#   record/*   record of a setuid, setgid, file-capability program by a user
#              who cannot trace it: one line, exit 2, the program not run;
#              by root, or by the owner, it is traced
#   files/*    traces, exports, flame pages: 0600, a planted link never
#              followed, an existing trace moved to PATH.old
#   attach/*   attach to root's process as the user: the EPERM message
# Prints `ok privilege/...` or `FAIL privilege/...: REASON`, then
# `N passed, N failed`. No check depends on time.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite privilege
B=$(cd "$(dirname "$CT")" && pwd) # the runtime is beside the tool
T=60
NOBODY=65534
# bad NAME REASON [DETAILS-FILE]
one_line() { [ "$(wc -l <"$1")" = 1 ]; }
mode() { stat -c %a "$1" 2>/dev/null; }
# as the unprivileged user, under a deadline
asuser() { timeout -k 5 $T setpriv --reuid=$NOBODY --regid=$NOBODY --clear-groups "$@"; }

if [ "$(id -u)" != 0 ]; then
	bad setup "runs as root (it makes setuid programs and a second user)"
	finish
fi
for tool in setpriv setcap gcc clang; do
	command -v $tool >/dev/null 2>&1 || bad setup "$tool is missing (scripts/install-deps.sh --test)"
done
if ! [ -x "$CT" ] || ! [ -f "$B/libcalltrace.so" ]; then
	bad setup "$CT or $B/libcalltrace.so is missing: run make"
	finish
fi

W=$(mktemp -d /tmp/ct-privilege.XXXXXX) || exit 1
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
mkdir -p "$W/bin" "$W/u" "$W/shared"
cp "$B"/calltrace "$B"/libcalltrace*.so "$W/bin/"
chmod 755 "$W/bin" "$W"/bin/*
chown $NOBODY:$NOBODY "$W/u" # the user's own directory
chmod 777 "$W/shared"        # shared, not sticky: links planted there are followed by the kernel
CT=$W/bin/calltrace
umask 022

cat >"$W/prog.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
__attribute__((noinline)) int leaf(int x) { return x * 2; }
__attribute__((noinline)) int middle(int x) { return leaf(x) + 1; }
int main(void)
{
	int s = 0;
	for (int i = 0; i < 3; i++)
		s += middle(i);
	printf("ran s=%d euid=%d\n", s, (int)geteuid());
	return 0;
}
EOF
# a "recorder" that leaves its effective uid where anyone can see it (a
# program, not a script: the shell would drop a setuid caller's privileges)
cat >"$W/evil.c" <<EOF
#include <stdio.h>
#include <unistd.h>
int main(void)
{
	FILE *f = fopen("$W/shared/evil-ran", "w");
	if (f)
		fprintf(f, "ran with euid %d\\n", (int)geteuid());
	return 1;
}
EOF
gcc -o "$W/evil" "$W/evil.c" || bad setup "cannot build $W/evil.c"
chmod 755 "$W/evil"
echo "root's secret" >"$W/rootfile"
chmod 600 "$W/rootfile"
cp -p "$W/rootfile" "$W/rootfile.orig"

# traced NAME TRACE: the trace reads and holds the program's calls
traced() {
	timeout -k 5 $T "$CT" replay -i "$2" >"$W/$1.replay" 2>&1 && grep -q middle "$W/$1.replay"
}

# ---- secure execution: a setuid-root program linked with the runtime ----------
for cc in gcc clang; do
	p=$W/linked-$cc
	if ! $cc -g -O1 -finstrument-functions "$W/prog.c" -o "$p" -L"$W/bin" -lcalltrace \
		-Wl,-rpath,"$W/bin" 2>"$W/build-$cc.err"; then
		bad "secure/$cc/build" "cannot build with -lcalltrace" "$W/build-$cc.err"
		continue
	fi
	chmod 4755 "$p"
	rm -f "$W/shared/evil-ran"
	(cd "$W/u" && asuser env CALLTRACE_RECORDER="$W/evil" "$p") >"$W/s-$cc.out" 2>"$W/s-$cc.err"
	st=$?
	(cd "$W/u" && asuser env CALLTRACE_OUTPUT="$W/rootfile" "$p") >>"$W/s-$cc.out" 2>>"$W/s-$cc.err"
	st=$((st + $?))
	if [ $st != 0 ] || [ "$(grep -c 'euid=0' "$W/s-$cc.out")" != 2 ]; then
		bad "secure/$cc/runs" "exit $st, or the program did not run setuid" "$W/s-$cc.err"
	elif [ -e "$W/shared/evil-ran" ]; then
		bad "secure/$cc/recorder-not-run" "CALLTRACE_RECORDER $(cat "$W/shared/evil-ran")"
	elif ! cmp -s "$W/rootfile" "$W/rootfile.orig" || [ "$(mode "$W/rootfile")" != 600 ]; then
		bad "secure/$cc/output-untouched" "CALLTRACE_OUTPUT=$W/rootfile was replaced"
	elif [ "$(grep -c '^calltrace: a setuid.*ignores CALLTRACE_' "$W/s-$cc.err")" != 2 ] ||
		[ "$(wc -l <"$W/s-$cc.err")" != 2 ]; then
		bad "secure/$cc/said" "not one line each time saying the variables are ignored" "$W/s-$cc.err"
	elif [ -n "$(ls -A "$W/u")" ]; then
		bad "secure/$cc/no-file" "files written: $(ls -A "$W/u")"
	else
		ok "secure/$cc/ignores-environment"
	fi
	# no variable at all: nothing written in the user's directory, nothing said
	(cd "$W/u" && asuser "$p") >"$W/s2-$cc.out" 2>"$W/s2-$cc.err"
	if [ $? = 0 ] && [ -z "$(ls -A "$W/u")" ] && ! [ -s "$W/s2-$cc.err" ]; then
		ok "secure/$cc/no-recorder"
	else
		bad "secure/$cc/no-recorder" "a trace appeared in the user's directory, or a message" "$W/s2-$cc.err"
	fi
	# root runs it: not AT_SECURE (real and effective uid agree), traced as usual
	rm -f "$W/root-$cc.data"
	if (cd "$W" && timeout -k 5 $T env CALLTRACE_OUTPUT="$W/root-$cc.data" "$p") >/dev/null 2>"$W/r-$cc.err" &&
		traced "r-$cc" "$W/root-$cc.data" && [ "$(mode "$W/root-$cc.data")" = 600 ]; then
		ok "secure/$cc/root-traced"
	else
		bad "secure/$cc/root-traced" "no 0600 trace with the calls" "$W/r-$cc.err"
	fi
done

# ---- record of a program that gains privileges ---------------------------------
gcc -g -O0 "$W/prog.c" -o "$W/plain" || bad setup "cannot build $W/prog.c"
install -m 4755 "$W/plain" "$W/suid"
install -m 2755 -g "$NOBODY" "$W/plain" "$W/sgid-nogroup"
install -m 2755 -g 0 "$W/plain" "$W/sgid-root"
install -m 755 "$W/plain" "$W/fcaps"
setcap cap_net_raw+ep "$W/fcaps" 2>"$W/setcap.err" || bad setup "setcap failed" "$W/setcap.err"
install -m 4755 -o $NOBODY "$W/plain" "$W/suid-nobody"

# refused NAME PATTERN CMD...: exit 2, one line matching PATTERN, the program not run, no trace
refused() {
	local name=$1 pattern=$2
	shift 2
	rm -f "$W/u/r.data"
	"$@" >"$W/$name.out" 2>"$W/$name.err"
	local st=$?
	if [ $st != 2 ] || ! one_line "$W/$name.err" || ! grep -q "$pattern" "$W/$name.err"; then
		bad "record/$name" "exit $st, expected 2 and one line matching '$pattern'" "$W/$name.err"
	elif grep -q ran "$W/$name.out" || [ -e "$W/u/r.data" ]; then
		bad "record/$name" "the program ran, or a trace was written"
	else
		ok "record/$name"
	fi
}
refused user-setuid "^calltrace: record: $W/suid is setuid root: .*run calltrace as root" \
	asuser "$CT" record -o "$W/u/r.data" "$W/suid"
refused user-setuid-ptrace "^calltrace: record: $W/suid is setuid root: under --method=ptrace" \
	asuser "$CT" record --method=ptrace -o "$W/u/r.data" "$W/suid"
refused user-setgid "^calltrace: record: $W/sgid-root is setgid root: " \
	asuser "$CT" record -o "$W/u/r.data" "$W/sgid-root"
refused user-fcaps "^calltrace: record: $W/fcaps is a program with file capabilities: " \
	asuser "$CT" record -o "$W/u/r.data" "$W/fcaps"
refused root-setgid-other "^calltrace: record: $W/sgid-nogroup is setgid nogroup: .*--method=ptrace" \
	timeout -k 5 $T "$CT" record -o "$W/u/r.data" "$W/sgid-nogroup"
refused user-setuid-by-path "is setuid root" \
	asuser env PATH="$W:/usr/bin:/bin" "$CT" record -o "$W/u/r.data" suid

# traced NAME OUT CMD...: runs, and the trace holds the calls
record_ok() {
	local name=$1 out=$2
	shift 2
	rm -f "$out"
	if "$@" >"$W/$name.out" 2>"$W/$name.err" && grep -q ran "$W/$name.out" && traced "$name" "$out"; then
		ok "record/$name"
	else
		bad "record/$name" "not traced" "$W/$name.err"
	fi
}
record_ok root-setuid "$W/root-suid.data" timeout -k 5 $T "$CT" record -o "$W/root-suid.data" "$W/suid"
record_ok root-fcaps "$W/root-fcaps.data" timeout -k 5 $T "$CT" record -o "$W/root-fcaps.data" "$W/fcaps"
record_ok root-setgid-ptrace "$W/root-sgid.data" \
	timeout -k 5 $T "$CT" record --method=ptrace -o "$W/root-sgid.data" "$W/sgid-nogroup"
record_ok owner-setuid "$W/u/own.data" asuser "$CT" record -o "$W/u/own.data" "$W/suid-nobody"

# ---- files ----------------------------------------------------------------------
cd "$W" || finish
timeout -k 5 $T "$CT" record -o t.data ./plain >/dev/null 2>t.err
if [ "$(mode t.data)" = 600 ] && traced t t.data; then
	ok files/trace-0600
else
	bad files/trace-0600 "mode $(mode t.data) under umask 022, or no calls" t.err
fi
cp t.data first.data
timeout -k 5 $T "$CT" record -o t.data ./plain >/dev/null 2>t2.err
if cmp -s t.data.old first.data && traced t2 t.data && [ "$(mode t.data)" = 600 ]; then
	ok files/trace-old
else
	bad files/trace-old "the earlier trace is not t.data.old, or the new one is wrong" t2.err
fi
# a launch that fails leaves the earlier trace where it was
cp t.data second.data
timeout -k 5 $T "$CT" record -o t.data ./no-such-program >/dev/null 2>t3.err
if cmp -s t.data second.data && cmp -s t.data.old first.data; then
	ok files/trace-kept-on-failure
else
	bad files/trace-kept-on-failure "a failed record moved or replaced the earlier trace" t3.err
fi
# a link the user planted where root will write: not followed, moved aside
asuser ln -s "$W/rootfile" "$W/shared/trace.data"
timeout -k 5 $T "$CT" record -o "$W/shared/trace.data" ./plain >/dev/null 2>t4.err
if ! cmp -s rootfile rootfile.orig; then
	bad files/trace-symlink "the link's target was written" t4.err
elif [ -L shared/trace.data ] || [ "$(mode shared/trace.data)" != 600 ] || ! [ -L shared/trace.data.old ] ||
	! traced t4 shared/trace.data; then
	bad files/trace-symlink "the trace is not a new 0600 file with the link at trace.data.old" t4.err
else
	ok files/trace-symlink
fi
# the same for a standalone program's CALLTRACE_OUTPUT
install -m 755 "$W/linked-gcc" "$W/linked-plain" 2>/dev/null || cp "$W/plain" "$W/linked-plain"
asuser ln -s "$W/rootfile" "$W/shared/standalone.data"
timeout -k 5 $T env CALLTRACE_OUTPUT="$W/shared/standalone.data" ./linked-plain >/dev/null 2>t5.err
if cmp -s rootfile rootfile.orig && ! [ -L shared/standalone.data ] &&
	[ "$(mode shared/standalone.data)" = 600 ] && traced t5 shared/standalone.data; then
	ok files/standalone-symlink
else
	bad files/standalone-symlink "the link was followed, or no 0600 trace" t5.err
fi

# exports and flame pages: whole new 0600 files, a planted link replaced, not followed
for kind in export flame; do
	case $kind in
	export) cmd=("$CT" export --format chrome -i t.data -o) ;;
	flame) cmd=("$CT" flame -i t.data -o) ;;
	esac
	rm -f "$kind.out"
	if timeout -k 5 $T "${cmd[@]}" "$kind.out" 2>"$kind.err" && [ "$(mode "$kind.out")" = 600 ] &&
		[ -z "$(ls -A | grep -F "$kind.out.")" ]; then
		ok "files/$kind-0600"
	else
		bad "files/$kind-0600" "mode $(mode "$kind.out"), or a temporary file left" "$kind.err"
	fi
	asuser ln -s "$W/rootfile" "$W/shared/$kind.out"
	timeout -k 5 $T "${cmd[@]}" "$W/shared/$kind.out" 2>"$kind-l.err"
	if cmp -s rootfile rootfile.orig && ! [ -L "shared/$kind.out" ] &&
		[ "$(mode "shared/$kind.out")" = 600 ] && [ -z "$(ls -A shared | grep -F "$kind.out.")" ]; then
		ok "files/$kind-symlink"
	else
		bad "files/$kind-symlink" "the planted link was followed, or the output is not a new 0600 file" \
			"$kind-l.err"
	fi
done
# a device is still written in place (and stays a device)
if timeout -k 5 $T "$CT" export --format chrome -i t.data -o /dev/null 2>dn.err && [ -c /dev/null ]; then
	ok files/export-device
else
	bad files/export-device "-o /dev/null failed or replaced it" dn.err
fi

# ---- attach to another user's process ---------------------------------------------
sleep 300 &
SLEEPER=$!
asuser "$CT" attach -p $SLEEPER --duration 1s -o "$W/u/a.data" >/dev/null 2>attach.err
st=$?
if [ $st = 1 ] && one_line attach.err &&
	grep -q "^calltrace: attach: not permitted to trace process $SLEEPER (owned by another user; see .*ptrace_scope)" attach.err; then
	ok attach/another-user
else
	bad attach/another-user "exit $st, expected 1 (as for every refusal) and the one-line EPERM message" attach.err
fi
finish
