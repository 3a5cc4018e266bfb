#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Make src/output/flame_page.c from src/output/flame_page.html.

    tests/flame/gen_page.py           rewrite flame_page.c
    tests/flame/gen_page.py --check   exit 1 if flame_page.c is not what it would write

The page is edited as HTML (it opens in a browser as it is, placeholders
aside) and compiled into calltrace as one C string, so the build needs
nothing but the C compiler.
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SRC = os.path.join(ROOT, "src", "output", "flame_page.html")
DST = os.path.join(ROOT, "src", "output", "flame_page.c")

HEAD = """/* SPDX-License-Identifier: MIT */
/*
 * The page calltrace flame writes, with @@TITLE@@ and @@DATA@@ where the
 * title and the data go. GENERATED from flame_page.html by
 * tests/flame/gen_page.py: edit the HTML, then run the script.
 */
#include "flame.h"

/* clang-format off */
const char ct_flame_page[] =
"""


def c_line(line):
    out = []
    for ch in line:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ord(ch) < 0x20 or ord(ch) > 0x7E:
            sys.exit("gen_page.py: %s: keep the page ASCII (use \\u escapes or entities): %r"
                     % (SRC, line))
        else:
            out.append(ch)
    return '\t"' + "".join(out) + '"\n'


def generate():
    with open(SRC, encoding="ascii") as f:
        lines = f.read().splitlines(keepends=True)
    body = "".join(c_line(l) for l in lines)
    return HEAD + body.rstrip("\n") + ";\n/* clang-format on */\n"


def main():
    text = generate()
    if sys.argv[1:] == ["--check"]:
        try:
            with open(DST) as f:
                cur = f.read()
        except OSError:
            cur = None
        if cur != text:
            print("src/output/flame_page.c is not generated from flame_page.html: "
                  "run tests/flame/gen_page.py")
            return 1
        return 0
    with open(DST, "w") as f:
        f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
