#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Checks of the data calltrace flame embeds in its page (no browser).

    check.py data NAME PAGE [--report REPORT.json] [--expect TREE]
        the JSON parses and is well formed, totals add up, calls per function
        are the report's, and (--expect) the stacks and their calls are TREE's:
        merged, per-thread or filter-work (see EXPECT below)
    check.py page NAME PAGE [--title TEXT]
        self-contained (nothing fetched), the title where it belongs
    check.py same-data NAME PAGE1 PAGE2
        both pages carry the same data
    check.py stacks PAGE        print the number of distinct stacks (nodes but the root)

Prints `ok flame/NAME/...` or `FAIL flame/NAME/...: reason` lines.
"""
import html
import json
import re
import sys

# The known program (known.c): stack -> calls. Threads merge under the root,
# or with --per-thread each thread is a "thread TID (known)" frame.
MAIN = {
    "main": 1,
    "main;other": 1,
    "main;other;leaf_a": 1,
    "main;work": 3,
    "main;work;leaf_a": 6,
    "main;work;leaf_b": 3,
}
WORKER = {
    "worker": 1,
    "worker;work": 2,
    "worker;work;leaf_a": 4,
    "worker;work;leaf_b": 2,
}
EXPECT = {
    "merged": dict(MAIN, **{k: v * 2 for k, v in WORKER.items()}),
    "single": MAIN,
    # -F work: each call of work is a root of its own
    "filter-work": {"work": 7, "work;leaf_a": 14, "work;leaf_b": 7},
}


def extract(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="flame-data">(.*?)</script>', text, re.S)
    if not m:
        raise ValueError("no <script id=flame-data> element in the page")
    return text, json.loads(m.group(1))


class Tree:
    def __init__(self, d):
        raw = d["nodes"]
        if len(raw) % 5:
            raise ValueError("nodes is not a multiple of 5 numbers long (%d)" % len(raw))
        n = len(raw) // 5
        if n < 1:
            raise ValueError("no root node")
        self.n = n
        self.parent = raw[0::5]
        self.fn = raw[1::5]
        self.total = raw[2::5]
        self.self = raw[3::5]
        self.calls = raw[4::5]
        self.funcs = d["funcs"]
        self.mods = d["modules"]
        self.kids = [[] for _ in range(n)]
        if self.parent[0] != -1:
            raise ValueError("node 0 is not the root (parent %r)" % self.parent[0])
        for i in range(n):
            if not (0 <= self.fn[i] < len(self.funcs)):
                raise ValueError("node %d: function %r out of range" % (i, self.fn[i]))
            m = self.funcs[self.fn[i]][1]
            if not (m in (-1, -2) or 0 <= m < len(self.mods)):
                raise ValueError("function %d: module %r out of range" % (self.fn[i], m))
            for k in (self.total, self.self, self.calls):
                if not isinstance(k[i], int) or k[i] < 0:
                    raise ValueError("node %d: %r is not a count" % (i, k[i]))
            if i:
                p = self.parent[i]
                if not (0 <= p < i):
                    raise ValueError("node %d: parent %d does not come before it" % (i, p))
                self.kids[p].append(i)
        # depth-first order: a subtree is the range [i, end(i))
        end = list(range(1, n + 1))
        for i in range(n - 1, 0, -1):
            end[self.parent[i]] = max(end[self.parent[i]], end[i])
        for i in range(n):
            for a, b in zip(self.kids[i], self.kids[i][1:]):
                if end[a] != b:
                    raise ValueError("nodes are not in depth-first order (node %d)" % a)
        self.end = end

    def name(self, i):
        return self.funcs[self.fn[i]][0]

    def path(self, i):
        names = []
        while i > 0:
            names.append(self.name(i))
            i = self.parent[i]
        return ";".join(reversed(names))


def say(ok, name, reason=""):
    print(("ok flame/%s" % name) if ok else ("FAIL flame/%s: %s" % (name, reason)))
    return ok


def check_data(name, page, report=None, expect=None):
    try:
        _, d = extract(page)
        t = Tree(d)
    except (OSError, ValueError) as e:
        say(False, name + "/json", str(e))
        return
    say(True, name + "/json")

    # totals: children inside their parent, self the rest, all of it the root's
    bad = []
    for i in range(t.n):
        ct = sum(t.total[k] for k in t.kids[i])
        if ct > t.total[i]:
            bad.append("%s: children total %d > total %d" % (t.path(i) or "all", ct, t.total[i]))
        if t.self[i] > t.total[i]:
            bad.append("%s: self %d > total %d" % (t.path(i) or "all", t.self[i], t.total[i]))
    ssum = sum(t.self)
    if ssum != t.total[0]:
        bad.append("sum of self %d != root total %d" % (ssum, t.total[0]))
    if t.total[0] <= 0:
        bad.append("root total is %d" % t.total[0])
    say(not bad, name + "/totals", "; ".join(bad[:3]))

    if report:
        with open(report) as f:
            rep = json.load(f)
        want = {}
        for r in rep:
            want[r["name"]] = want.get(r["name"], 0) + r["calls"]
        got = {}
        for i in range(1, t.n):
            if t.funcs[t.fn[i]][1] != -2:
                got[t.name(i)] = got.get(t.name(i), 0) + t.calls[i]
        diff = ["%s: flame %s, report %s" % (k, got.get(k), want.get(k))
                for k in sorted(set(got) | set(want)) if got.get(k, 0) != want.get(k, 0)]
        say(not diff, name + "/calls-match-report", "; ".join(diff[:4]))

    if expect:
        per_thread = expect == "per-thread"
        want = EXPECT["merged" if per_thread else expect]
        got, threads, why = {}, 0, []
        for i in range(1, t.n):
            p = t.path(i)
            if per_thread:
                first, _, rest = p.partition(";")
                if t.parent[i] == 0:
                    threads += 1
                    if not re.fullmatch(r"thread \d+ \(known\)", first):
                        why.append("root child %r is not a thread frame" % first)
                    if t.calls[i] != 0 or t.self[i] != 0:
                        why.append("thread frame %r has calls or self time" % first)
                    ct = sum(t.total[k] for k in t.kids[i])
                    if ct != t.total[i]:
                        why.append("thread frame %r: total %d, its calls %d"
                                   % (first, t.total[i], ct))
                    continue
                p = rest
            got[p] = got.get(p, 0) + t.calls[i]
        if per_thread and threads != 3:
            why.append("%d thread frames, expected 3" % threads)
        for k in sorted(set(got) | set(want)):
            if got.get(k, 0) != want.get(k, 0):
                why.append("%s: %s calls, expected %s" % (k, got.get(k, 0), want.get(k, 0)))
        say(not why, name + "/known-tree", "; ".join(why[:4]))


def check_page(name, page, title=None):
    try:
        text, d = extract(page)
    except (OSError, ValueError) as e:
        say(False, name + "/page", str(e))
        return
    # nothing that a browser would fetch
    outside = re.findall(r'(?i)(?:\b(?:src|href)\s*=|url\(|@import|https?://|//[a-z0-9.-]+\.[a-z]{2,}/)',
                         text)
    say(not outside, name + "/self-contained", "refers to outside resources: %s" % outside[:3])
    if title is not None:
        m = re.search(r"<title>(.*?)</title>", text, re.S)
        got = html.unescape(m.group(1)) if m else None
        why = []
        if got != title:
            why.append("<title> is %r" % got)
        if d.get("title") != title:
            why.append("data title is %r" % d.get("title"))
        if text.count("</script>") != 2:
            why.append("%d </script> tags (the title escaped its element?)" % text.count("</script>"))
        say(not why, name + "/title", "; ".join(why))


def main(argv):
    cmd = argv[1]
    if cmd == "stacks":
        _, d = extract(argv[2])
        print(len(d["nodes"]) // 5 - 1)
        return 0
    name, page = argv[2], argv[3]
    opts = dict(zip(argv[4::2], argv[5::2]))
    if cmd == "data":
        check_data(name, page, opts.get("--report"), opts.get("--expect"))
    elif cmd == "page":
        check_page(name, page, opts.get("--title"))
    elif cmd == "same-data":
        try:
            a, b = extract(page)[1], extract(argv[4])[1]
            say(a == b, name, "the pages' data differ")
        except (OSError, ValueError) as e:
            say(False, name, str(e))
    else:
        print("check.py: unknown command %r" % cmd, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
