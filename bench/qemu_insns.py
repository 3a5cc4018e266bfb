#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Guest instructions a qemu-user run executed, from its log (-d in_asm,exec,nochain).

in_asm prints each translation block once, its instructions one a line; exec
prints a "Trace" line each time a block runs (nochain: every time). The sum of
the blocks' sizes over the Trace lines is the count of instructions executed:
the disassembly qemu made, counted as it ran.

    qemu_insns.py LOG       prints the count
"""
import re
import sys

TB_INSN = re.compile(r'^0x([0-9a-f]+):')
TRACE = re.compile(r'^Trace \d+: 0x[0-9a-f]+ \[[0-9a-f]+/([0-9a-f]+)/')


def count(path):
    sizes, total = {}, 0
    block_pc, block_n = None, 0
    with open(path, errors='replace') as f:
        for line in f:
            m = TB_INSN.match(line)
            if m:
                if block_pc is None:
                    block_pc = int(m.group(1), 16)
                block_n += 1
                continue
            if block_pc is not None and not line.strip():
                sizes[block_pc] = block_n
                block_pc, block_n = None, 0
            m = TRACE.match(line)
            if m:
                total += sizes.get(int(m.group(1), 16), 0)
    return total


if __name__ == '__main__':
    print(count(sys.argv[1]))
