#!/usr/bin/env bash
# Filters shared by every reading command: each on a program with a known
# tree (filtered.c, expected.txt), the report's options, live against replay,
# and bad values. Prints ok/FAIL lines.
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../lib/suite.sh"
suite filters
here=$HERE root=$ROOT
out=$OUT/filters
mkdir -p "$out"
suite_tally "$out/.tally"

# The tree as lines "<2 spaces per depth><name>", "--" between threads that show something.
tree() {
	python3 -c '
import sys, re
out, cur = [], []
for line in sys.stdin:
    line = line.rstrip("\n")
    if line.startswith("#"):
        if cur: out.append(cur)
        cur = []
        continue
    if " | " not in line:
        continue
    text = line.split(" | ", 1)[1]
    depth = (len(text) - len(text.lstrip(" "))) // 2
    text = text.strip()
    if text.startswith("}") or text.startswith("/*"):
        continue
    cur.append("  " * depth + re.match(r"([^( ]+)", text).group(1))
if cur: out.append(cur)
print("\n--\n".join("\n".join(s) for s in out))
'
}

gcc -g -O0 -finstrument-functions -pthread "$here/filtered.c" -o "$out/filtered" || {
	fail build "gcc failed"
	finish
}
(cd "$out" && "$CT" record -o f.data ./filtered >/dev/null 2>&1) || fail record "record failed"

# Each "== ARGS" section of expected.txt: replay ARGS | tree must be what follows.
python3 - "$here/expected.txt" "$out" <<'PY'
import sys
sections, name = {}, None
order = []
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("== "):
        name = line[3:]
        order.append(name)
        sections[name] = []
    elif name is not None:
        sections[name].append(line)
for i, n in enumerate(order):
    with open("%s/case%02d.args" % (sys.argv[2], i), "w") as f:
        f.write("" if n == "all" else n)
    with open("%s/case%02d.want" % (sys.argv[2], i), "w") as f:
        f.write("\n".join(sections[n]).strip("\n") + "\n")
PY
for args in "$out"/case*.args; do
	base=${args%.args}
	read -r -a a <"$args" || true
	name="replay ${a[*]:-}"
	if ! "$CT" replay -i "$out/f.data" "${a[@]}" >"$base.replay" 2>"$base.err"; then
		fail "$name" "replay failed" "$base.err"
		continue
	fi
	tree <"$base.replay" >"$base.got"
	if diff -u "$base.want" "$base.got" >"$base.diff"; then
		pass "$name"
	else
		fail "$name" "tree differs" "$base.diff"
	fi
done

# report: --tid keeps one thread, --csv and --per-thread, filters apply
tid=$(grep '# thread' "$out/case00.replay" | sed -n 2p | sed 's/# thread \([0-9]*\),.*/\1/')
if "$CT" report -i "$out/f.data" --tid "$tid" --csv >"$out/tid.csv" 2>&1 &&
	[ "$(sed 1d "$out/tid.csv" | cut -d, -f1 | sort | tr '\n' ' ')" = '"parse_b" "worker" ' ]; then
	pass "report --tid --csv"
else
	fail "report --tid --csv" "expected worker and parse_b only" "$out/tid.csv"
fi
if "$CT" report -i "$out/f.data" --per-thread >"$out/per.txt" 2>&1 &&
	[ "$(grep -c '^# thread' "$out/per.txt")" = 2 ]; then
	pass "report --per-thread"
else
	fail "report --per-thread" "expected two thread tables" "$out/per.txt"
fi
if "$CT" report -i "$out/f.data" --json -N 'helper*' >"$out/noh.json" 2>&1 &&
	python3 -c 'import json,sys; r={x["name"]:x["calls"] for x in json.load(open(sys.argv[1]))}; sys.exit(0 if "helper" not in r and r["parse_b"]==3 else 1)' "$out/noh.json"; then
	pass "report -N --json"
else
	fail "report -N --json" "helper still there or parse_b not 3" "$out/noh.json"
fi

# report --diff: the same program with more calls
sed 's/parse_b(); slow();/parse_b(); parse_b(); slow();/' "$here/filtered.c" >"$out/filtered2.c"
gcc -g -O0 -finstrument-functions -pthread "$out/filtered2.c" -o "$out/filtered2" &&
	(cd "$out" && "$CT" record -o f2.data ./filtered2 >/dev/null 2>&1)
if "$CT" report -i "$out/f2.data" --diff "$out/f.data" --csv >"$out/diff.csv" 2>&1 &&
	grep -q '^"parse_b",3,4,' "$out/diff.csv"; then
	pass "report --diff"
else
	fail "report --diff" "parse_b should go from 3 to 4 calls" "$out/diff.csv"
fi

# --no-std: the standard library hidden, a comparator it calls shown in its place
cat >"$out/stdp.cpp" <<'CPP'
#include <algorithm>
#include <vector>
__attribute__((noinline)) bool less_than(int a, int b) { return a < b; }
__attribute__((noinline)) int work() {
	std::vector<int> v;
	for (int i = 0; i < 8; i++) v.push_back(7 * i % 5);
	std::sort(v.begin(), v.end(), less_than);
	return v[0];
}
int main() { return work(); }
CPP
g++ -g -O0 -finstrument-functions "$out/stdp.cpp" -o "$out/stdp" &&
	(cd "$out" && "$CT" record -o s.data ./stdp >/dev/null 2>&1)
"$CT" replay -i "$out/s.data" --no-std >"$out/nostd.replay" 2>&1
tree <"$out/nostd.replay" >"$out/nostd.tree"
if ! grep -q 'std::' "$out/nostd.replay" && grep -q '^    less_than$' "$out/nostd.tree" &&
	[ "$("$CT" report -i "$out/s.data" --no-std --csv | cut -d, -f1 | sort | tr '\n' ' ')" = '"less_than" "main" "work" name ' ]; then
	pass "--no-std"
else
	fail "--no-std" "std:: names left, or less_than not under work" "$out/nostd.replay"
fi

# live prints the tree replay prints: thread by thread (live interleaves their
# lines: regrouped by tid, the main thread first), order and nesting kept, and
# it is the expected one (expected.txt's "all")
(cd "$out" && timeout -k 5 60 "$CT" live -o live.txt ./filtered >/dev/null 2>"$out/live.err")
st=$?
python3 "$root/tests/options/opts.py" live-split "$out/live.txt" | tree >"$out/live.tree"
tree <"$out/case00.replay" >"$out/replay.tree"
if [ $st = 0 ] && diff -u "$out/replay.tree" "$out/live.tree" >"$out/live.diff" &&
	diff -u "$out/case00.want" "$out/live.tree" >>"$out/live.diff"; then
	pass "live = replay"
else
	[ $st = 0 ] || cp "$out/live.err" "$out/live.diff"
	fail "live = replay" "exit $st or a different tree" "$out/live.diff"
fi

# bad values: one line, exit 2
for bad in "-t 10parsecs" "-D 0" "--regex -F (" "--tid abc" "--since yesterday"; do
	read -r -a a <<<"$bad"
	"$CT" replay -i "$out/f.data" "${a[@]}" >/dev/null 2>"$out/bad.err"
	st=$?
	if [ $st = 2 ] && [ "$(wc -l <"$out/bad.err")" = 1 ] && grep -q '^calltrace: ' "$out/bad.err"; then
		pass "bad: replay $bad"
	else
		fail "bad: replay $bad" "exit $st, expected 2 and one line" "$out/bad.err"
	fi
done
finish
