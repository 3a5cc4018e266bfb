#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# attach as a newcomer meets it (issue 21, items 2 and 3), with both methods:
#  - a server that keeps running (server.c: main -> serve_forever ->
#    handle_request -> work, a ticker thread), attached for 1 s: one line on
#    stderr at the attach (what was patched, how, until when) and one at the
#    detach (events, threads, where); -q says nothing; info says "detached;
#    still running", the CPU it used while attached (checked against
#    /proc/PID/stat read by this script around the window), no salvage; the
#    tree is rooted at main -> serve_forever, which end "still running at
#    detach"; handle_request counted no more often than the program counted it;
#  - a server that exits with status 3 during the window, and one killed by
#    SIGTERM (no --duration: "Ctrl-C to detach"): their end is shown.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite attach
here=$HERE
out=$OUT/attach
rm -rf "$out"
mkdir -p "$out"
cd "$out" || exit 1

# every command under a deadline
t() { timeout -k 5 60 "$@"; }
started= # every process this script starts, killed at the end
finish() {
	for p in $started; do kill -9 "$p" 2>/dev/null; done
	wait 2>/dev/null
	echo "$passed passed, $failed failed, $skipped skipped"
	exit 0
}

# count FILE: the requests the server counted so far (a u64 at the start of FILE)
count() { od -An -t u8 -N 8 "$1" 2>/dev/null | tr -d ' ' || echo 0; }
# cpu PID: user + system time of every thread of PID so far, in clock ticks
cpu() { awk '{ sub(/.*\) /, ""); print $12 + $13 }' "/proc/$1/stat" 2>/dev/null || echo 0; }
# serve NAME [STOP_MS STATUS]: start a server counting into NAME.cnt; its pid in $spid
serve() {
	rm -f "$1.cnt"
	./server "$1.cnt" "${2:-0}" "${3:-0}" &
	spid=$!
	started="$started $spid"
	for _ in $(seq 50); do
		[ "$(count "$1.cnt")" -gt 0 ] 2>/dev/null && return 0
		sleep 0.1
	done
	return 1
}

if ! command -v gcc >/dev/null; then
	fail build "gcc is missing (scripts/install-deps.sh)"
	finish
fi
if ! gcc -O1 -g -pthread -o server "$here/server.c" 2>build.err; then
	fail build "gcc failed on server.c" build.err
	finish
fi
[ -x "$CT" ] || {
	fail build "no calltrace at $CT"
	finish
}
hz=$(getconf CLK_TCK)

# ---- a program that keeps running, attached for 1 s ----------------------------------------
for m in runtime ptrace; do
	if ! serve "$m"; then
		fail "$m/server-runs" "the server counted nothing in 5 s"
		continue
	fi
	before=$(count "$m.cnt") cpu0=$(cpu "$spid")
	t "$CT" attach --method=$m -p "$spid" --duration 1s -o "$m.data" 2>"$m.err"
	st=$?
	after=$(count "$m.cnt") cpu1=$(cpu "$spid")
	if [ $st != 0 ] || ! kill -0 "$spid" 2>/dev/null; then
		fail "$m/attach" "attach exited with status $st, or the server died" "$m.err"
		continue
	fi
	pass "$m/attach"

	# the first and the last line on stderr
	first="^calltrace: attached to process $spid \(server\): [0-9,]+ functions? in [0-9]+ modules? .*\(--method=$m\); detaching after 1\.0 s \(or at Ctrl-C\)$"
	last="^calltrace: detached from process $spid after [0-9.]+ s: [0-9,]+ events in 2 threads written to $m\.data$"
	head -n 1 "$m.err" | grep -Eq "$first" && pass "$m/says-attached" ||
		fail "$m/says-attached" "no first line like: $first" "$m.err"
	tail -n 1 "$m.err" | grep -Eq "$last" && pass "$m/says-detached" ||
		fail "$m/says-detached" "no last line like: $last" "$m.err"

	# info: still running, the CPU of the window, nothing salvaged
	t "$CT" info -i "$m.data" >"$m.info" 2>&1
	grep -q '^exit: *detached; still running$' "$m.info" && pass "$m/info-still-running" ||
		fail "$m/info-still-running" "info does not say 'detached; still running'" "$m.info"
	grep -q '^salvaged:' "$m.info" && fail "$m/info-no-salvage" "no thread ended, yet" "$m.info" ||
		pass "$m/info-no-salvage"
	grep -q 'some salvaged' "$m.info" && fail "$m/threads-not-salvaged" "a thread says salvaged" "$m.info" ||
		pass "$m/threads-not-salvaged"
	said=$(sed -n 's/^cpu: *program \([0-9.]*\) s while attached.*/\1/p' "$m.info")
	# what this script saw around the window holds the window: the tool's figure is at
	# most that (one tick of slack each side), and the server spins on a core meanwhile
	if "$PY" -c '
import sys
said, seen = float(sys.argv[1]), (int(sys.argv[3]) - int(sys.argv[2])) / float(sys.argv[4])
slack = 2 / float(sys.argv[4])
ok = said <= seen + slack and said >= min(0.3, seen / 2)
print("info says %.3f s, /proc/PID/stat %.3f s around it" % (said, seen))
sys.exit(0 if ok else 1)' "${said:-x}" "$cpu0" "$cpu1" "$hz" >"$m.cpu" 2>&1; then
		pass "$m/info-cpu-while-attached"
	else
		fail "$m/info-cpu-while-attached" "$(cat "$m.cpu")" "$m.info"
	fi

	# the tree: rooted at what was under way at the attach, which did not end
	t "$CT" replay -i "$m.data" >"$m.replay" 2>"$m.replay.err"
	sed -n '/^# thread '"$spid"',/,/^# thread /p' "$m.replay" | grep -v '^#' |
		sed 's/.*| //' | grep . >"$m.tree"
	if [ "$(sed -n 1p "$m.tree")" = "main() {" ] &&
		[ "$(sed -n 2p "$m.tree")" = "  serve_forever() {" ] &&
		grep -q '^    handle_request() {$' "$m.tree"; then
		pass "$m/tree-rooted-at-main"
	else
		fail "$m/tree-rooted-at-main" "the tree does not start main -> serve_forever -> handle_request" "$m.tree"
	fi
	if [ "$(tail -n 2 "$m.tree" | tr '\n' '|')" = "  } /* serve_forever: still running at detach */|} /* main: still running at detach */|" ]; then
		pass "$m/tree-still-running"
	else
		tail -n 5 "$m.tree" >"$m.tail"
		fail "$m/tree-still-running" "main and serve_forever do not end 'still running at detach'" "$m.tail"
	fi
	sed 's/.*| //' "$m.replay" | grep -q '^} /\* ticker: still running at detach \*/$' &&
		pass "$m/second-thread" || fail "$m/second-thread" "the ticker thread's frame is not there"

	# no more calls than the program made in the window (and some)
	t "$CT" report -i "$m.data" --json >"$m.json" 2>>"$m.err"
	if "$PY" - "$m.json" "$before" "$after" >"$m.calls" 2>&1 <<'PY'; then
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows.get('functions', rows) if isinstance(rows, dict) else rows
calls = {r['name']: r['calls'] for r in rows if 'name' in r}
made = int(sys.argv[3]) - int(sys.argv[2])
seen = calls.get('handle_request', 0)
print('handle_request: %d traced, %d made around the window' % (seen, made))
# one more: the call under way at the attach
sys.exit(0 if 0 < seen <= made + 1 and calls.get('main') == 1 else 1)
PY
		pass "$m/calls-counted"
	else
		fail "$m/calls-counted" "$(head -n 3 "$m.calls" | tr '\n' ' ')" "$m.json"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
done

# ---- attached again: the second attach traces like the first ------------------------------
# (the runtime stays loaded after a detach: what it kept must not be taken for
# the next recording's; its pool above all, which it must not hold either)
patched() { sed -n 's/^calltrace: attached to process [0-9]* ([^)]*): \([0-9,]* functions\{0,1\} in [0-9]* modules\{0,1\}\) .*/\1/p' "$1"; }
for m in runtime ptrace; do
	if ! serve "again-$m"; then
		fail "again-$m/server-runs" "the server counted nothing in 5 s"
		continue
	fi
	for n in 1 2; do
		t "$CT" attach --method=$m -p "$spid" --duration 500ms -o "again-$m.$n.data" \
			2>"again-$m.$n.err" || break
		ls -l "/proc/$spid/fd" 2>/dev/null | grep calltrace-pool >"again-$m.$n.fds"
	done
	if ! kill -0 "$spid" 2>/dev/null || [ ! -s "again-$m.2.err" ]; then
		fail "again-$m/attach-twice" "an attach failed, or the server died" "again-$m.1.err"
		continue
	fi
	[ ! -s "again-$m.1.fds" ] && pass "again-$m/pool-let-go" ||
		fail "again-$m/pool-let-go" "the process still holds the pool after the detach" \
			"again-$m.1.fds"
	one=$(patched "again-$m.1.err") two=$(patched "again-$m.2.err")
	case $one in
	"" | "0 "*) fail "again-$m/same-functions" "the first attach patched nothing: '$one'" \
		"again-$m.1.err" ;;
	"$two") pass "again-$m/same-functions" ;;
	*) fail "again-$m/same-functions" "first '$one', second '$two'" "again-$m.2.err" ;;
	esac
	t "$CT" report -i "again-$m.2.data" --json >"again-$m.2.json" 2>>"again-$m.2.err"
	if "$PY" - "again-$m.2.json" >"again-$m.2.calls" 2>&1 <<'PY'; then
import json, sys
rows = json.load(open(sys.argv[1]))
rows = rows.get('functions', rows) if isinstance(rows, dict) else rows
calls = {r['name']: r['calls'] for r in rows if 'name' in r}
print('second attach: handle_request %d, work %d, main %d' %
      (calls.get('handle_request', 0), calls.get('work', 0), calls.get('main', 0)))
sys.exit(0 if calls.get('handle_request', 0) > 0 and calls.get('work', 0) > 0 and
         calls.get('main') == 1 else 1)
PY
		pass "again-$m/second-records-calls"
	else
		fail "again-$m/second-records-calls" "$(head -n 3 "again-$m.2.calls" | tr '\n' ' ')" \
			"again-$m.2.err"
	fi
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
done

# ---- -q: nothing on stderr ----------------------------------------------------------------
if serve quiet; then
	t "$CT" attach -q -p "$spid" --duration 200ms -o quiet.data 2>quiet.err
	st=$?
	[ $st = 0 ] && [ ! -s quiet.err ] && pass quiet/nothing-said ||
		fail quiet/nothing-said "status $st, stderr not empty" quiet.err
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
else
	fail quiet/server-runs "the server counted nothing in 5 s"
fi

# ---- a process that ends during the window ------------------------------------------------
for m in runtime ptrace; do
	if ! serve "exit-$m" 1500 3; then
		fail "exit-$m/server-runs" "the server counted nothing in 5 s"
		continue
	fi
	t "$CT" attach --method=$m -p "$spid" --duration 20s -o "exit-$m.data" 2>"exit-$m.err"
	tail -n 1 "exit-$m.err" | grep -Eq "^calltrace: process $spid exited with status 3 after [0-9.]+ s: [0-9,]+ events in [0-9]+ threads? written to exit-$m\.data$" &&
		pass "exit-$m/says-exited" || fail "exit-$m/says-exited" "no line saying it exited with status 3" "exit-$m.err"
	t "$CT" info -i "exit-$m.data" >"exit-$m.info" 2>&1
	grep -q '^exit: *exited with status 3 while attached$' "exit-$m.info" && pass "exit-$m/info-status" ||
		fail "exit-$m/info-status" "info does not say 'exited with status 3 while attached'" "exit-$m.info"
	wait "$spid" 2>/dev/null
done

# killed during the window, no --duration: the first line says how to stop
if serve killed; then
	t "$CT" attach -p "$spid" -o killed.data 2>killed.err &
	apid=$!
	started="$started $apid"
	for _ in $(seq 100); do
		[ -s killed.err ] && break
		sleep 0.1
	done
	sleep 0.3
	kill -TERM "$spid"
	wait "$apid"
	head -n 1 killed.err | grep -q '; Ctrl-C to detach$' && pass killed/says-ctrl-c ||
		fail killed/says-ctrl-c "the first line does not say 'Ctrl-C to detach'" killed.err
	tail -n 1 killed.err | grep -q "^calltrace: process $spid was killed by SIGTERM after " &&
		pass killed/says-killed || fail killed/says-killed "no line saying SIGTERM killed it" killed.err
	t "$CT" info -i killed.data >killed.info 2>&1
	grep -q '^exit: *killed by SIGTERM while attached$' killed.info && pass killed/info-signal ||
		fail killed/info-signal "info does not say 'killed by SIGTERM while attached'" killed.info
	wait "$spid" 2>/dev/null
else
	fail killed/server-runs "the server counted nothing in 5 s"
fi

# ---- nothing left behind ------------------------------------------------------------------
left=
for p in $started; do
	kill -0 "$p" 2>/dev/null && [ "$(sed 's/.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)" != Z ] &&
		left="$left $p"
done
[ -z "$left" ] && pass no-process-left || fail no-process-left "still running (killed):$left"
finish
