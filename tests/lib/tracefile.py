#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Damages a trace file on purpose, for the bad-input tests of tests/run.sh.

    tracefile.py blocks FILE           list the blocks: offset type length
    tracefile.py tear FILE OUT         OUT = FILE cut in the middle of its last block
    tracefile.py tear-mid FILE OUT     OUT = FILE cut in the middle of the block
                                       that holds the middle of the file, or of
                                       the EVENTS block after it if that is the
                                       first EVENTS block (some calls must come
                                       before the tear)
    tracefile.py flip FILE OUT         OUT = FILE with one payload byte inverted,
                                       in the block that holds the middle of the file

The layout is the one of src/format/format.h (docs/FORMAT.md): a 32-byte file
header starting "CALLTRCE", then blocks, each a 16-byte header (u32 magic,
u16 type, u16 flags, u32 payload length, u32 crc) and its payload. When the
file does not parse that way (the format changed), tear cuts the last 7
bytes and flip inverts the byte in the middle of the file; both print a
warning on stderr.
"""
import struct
import sys

FILE_HEADER = 32
BLOCK_HEADER = 16
EVENTS = 5


def blocks(data):
    """[(offset, type, length)] or None when the file does not parse."""
    if len(data) < FILE_HEADER or data[:8] != b'CALLTRCE':
        return None
    out, off = [], FILE_HEADER
    while off + BLOCK_HEADER <= len(data):
        magic, btype, flags, length, crc = struct.unpack_from('<IHHII', data, off)
        if off + BLOCK_HEADER + length > len(data):
            return None
        out.append((off, btype, length))
        off += BLOCK_HEADER + length
    if off != len(data) or not out:
        return None
    return out


def main(argv):
    if len(argv) < 3 or argv[1] not in ('blocks', 'tear', 'tear-mid', 'flip'):
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2], 'rb') as f:
        data = bytearray(f.read())
    bl = blocks(data)
    if argv[1] == 'blocks':
        if bl is None:
            print('does not parse', file=sys.stderr)
            return 1
        for off, btype, length in bl:
            print(off, btype, length)
        return 0
    out = argv[3]
    if argv[1] in ('tear', 'tear-mid'):
        if bl is None:
            print('tracefile.py: unknown layout, cutting 7 bytes', file=sys.stderr)
            cut = len(data) - 7
        else:
            if argv[1] == 'tear':
                off, _, length = bl[-1]
            else:
                mid = len(data) // 2
                at = next(i for i, b in enumerate(bl) if b[0] + BLOCK_HEADER + b[2] > mid)
                events = [i for i, b in enumerate(bl) if b[1] == EVENTS]
                if events and at == events[0] and len(events) > 1:
                    at = events[1]
                off, _, length = bl[at]
            cut = off + (BLOCK_HEADER + length) // 2
            if cut <= off:
                cut = off + 1
        data = data[:cut]
    else:
        if bl is None:
            print('tracefile.py: unknown layout, flipping the middle byte', file=sys.stderr)
            pos = len(data) // 2
        else:
            mid = len(data) // 2
            cands = [b for b in bl if b[2] > 0]
            off, _, length = next((b for b in cands if b[0] + BLOCK_HEADER + b[2] > mid), cands[-1])
            pos = off + BLOCK_HEADER + length // 2
        data[pos] ^= 0xff
    with open(out, 'wb') as f:
        f.write(data)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
