#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""match.py EXPECT REPLAY: every line of EXPECT (a glob: * for what varies, such
as pointers) matches a call line of REPLAY, in order. Replay lines are taken
after their "| " column, indentation removed. Exit 1 with the first line
missing, and the calls seen, if not."""
import fnmatch
import sys


def calls(path):
    out = []
    for line in open(path, encoding="utf-8", errors="replace"):
        if "| " not in line:
            continue
        out.append(line.split("| ", 1)[1].strip())
    return out


def main():
    want = [l.rstrip("\n") for l in open(sys.argv[1], encoding="utf-8") if l.strip()]
    seen = calls(sys.argv[2])
    at = 0
    for w in want:
        pat = w.replace("[", "[[]")
        while at < len(seen) and not fnmatch.fnmatchcase(seen[at], pat):
            at += 1
        if at == len(seen):
            print("no call shown as: %s" % w)
            for s in seen[:60]:
                print("  seen: %s" % s)
            return 1
        at += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
