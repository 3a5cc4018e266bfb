# SPDX-License-Identifier: MIT
"""Check srcline_check's answers against the markers in the test sources.

  check.py defs ANSWERS [--next-line-too] FILE...
      each /* DEF:name */ of the FILEs: every "def name TEXT" answer must be
      the file's absolute path (any spelling of it: compared by realpath) and
      the marker's line; --next-line-too also takes the next line (the line
      table's line of the function's first instruction: its opening brace)
  check.py calls ANSWERS FILE...
      each /* CALL:site */: the "call site TEXT" answer must be "file.c:LINE"

Prints one line per mismatch; exit status 1 if any.
"""
import os
import re
import sys


def markers(path, kind):
    pattern = re.compile(r"/\* %s:(\S+) \*/" % kind)
    with open(path) as f:
        for number, line in enumerate(f, 1):
            for m in pattern.finditer(line):
                yield m.group(1), number


def answers(path, kind):
    found = {}
    with open(path) as f:
        for line in f:
            parts = line.rstrip("\n").split(" ", 2)
            if len(parts) == 3 and parts[0] == kind:
                found.setdefault(parts[1], []).append(parts[2])
    return found


def check_defs(found, files, next_line_too):
    for path in files:
        want = os.path.realpath(path)
        for name, line in markers(path, "DEF"):
            lines = {str(line), str(line + 1)} if next_line_too else {str(line)}
            for got in found.get(name, ["no answer"]):
                file, _, number = got.rpartition(":")
                if not (file.startswith("/") and os.path.realpath(file) == want and number in lines):
                    yield "%s: %s, expected %s:%d" % (name, got, want, line)


def check_calls(found, files):
    for path in files:
        for site, line in markers(path, "CALL"):
            want = "%s:%d" % (os.path.basename(path), line)
            got = found.get(site, ["no answer"])
            if got != [want]:
                yield "%s: %s, expected %s" % (site, " ".join(got), want)


def main(argv):
    mode, answers_path, files = argv[1], argv[2], argv[3:]
    if mode == "defs":
        next_line_too = "--next-line-too" in files
        files = [f for f in files if f != "--next-line-too"]
        wrong = list(check_defs(answers(answers_path, "def"), files, next_line_too))
    else:
        wrong = list(check_calls(answers(answers_path, "call"), files))
    for w in wrong:
        print(w)
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
