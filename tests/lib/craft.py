#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Makes hostile traces out of a good one, as an attacker would: blocks whose
sizes, counts and strings lie, with valid CRCs so that they reach the parsers.

    craft.py list                      the names of the attacks
    craft.py NAME GOOD OUT [ARG]       OUT = GOOD with attack NAME applied

The layout is that of docs/FORMAT.md (src/format/format.h). zstd frames are
made and read with the zstd command (Debian's zstd package).
"""
import struct
import subprocess
import sys

FILE_HEADER = 32
BLOCK = struct.Struct('<IHHII')  # magic, type, flags, length, crc
MAGIC = 0x4b425443
EVENTS, SYMTAB, PROCESS, MODULE, PROTOS = 5, 6, 3, 4, 11
ZSTD = 1
# struct ct_events_hdr: instance pid tid flags thread_seq first last nrecords
# nfuncs codec raw_len col_len[4] lost snapshot reserved
EVH = struct.Struct('<IiiIQQQIIII4IQII')
SYMH = struct.Struct('<IIB7s32s')  # nsyms path_len build_id_len reserved build_id
MODH = struct.Struct('<IB3sQQQ32s')


def _crc_table():
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1
        table.append(c)
    return table


TABLE = _crc_table()


def crc32c(data, crc=0):
    crc ^= 0xffffffff
    for b in data:
        crc = TABLE[(crc ^ b) & 0xff] ^ (crc >> 8)
    return crc ^ 0xffffffff


def block(btype, flags, payload):
    head = struct.pack('<IHHI', MAGIC, btype, flags, len(payload))
    return head + struct.pack('<I', crc32c(payload, crc32c(head))) + payload


def parse(data):
    """(file header, [(type, flags, payload)])"""
    if data[:8] != b'CALLTRCE':
        sys.exit('craft.py: not a calltrace trace')
    out, off = [], FILE_HEADER
    while off + BLOCK.size <= len(data):
        magic, btype, flags, length, _ = BLOCK.unpack_from(data, off)
        if magic != MAGIC or off + BLOCK.size + length > len(data):
            break
        out.append((btype, flags, bytes(data[off + BLOCK.size:off + BLOCK.size + length])))
        off += BLOCK.size + length
    return bytes(data[:FILE_HEADER]), out


def zstd(data, decompress=False):
    args = ['zstd', '-q', '-c'] + (['-d'] if decompress else ['-3'])
    return subprocess.run(args, input=data, stdout=subprocess.PIPE, check=True).stdout


def unpack(flags, payload):
    return zstd(payload[4:], True) if flags & ZSTD else payload


def pack(raw, compress=True):
    return (ZSTD, struct.pack('<I', len(raw)) + zstd(raw)) if compress else (0, raw)


def first(blocks, btype):
    return next(i for i, b in enumerate(blocks) if b[0] == btype)


def largest_events(blocks):
    """The largest zstd EVENTS block: the one whose frame decodes to the most."""
    return max((i for i, b in enumerate(blocks) if b[0] == EVENTS and EVH.unpack_from(b[2])[9] & 1),
               key=lambda i: len(blocks[i][2]))


# ---- the attacks: each takes the blocks and returns them changed ----------------------

def events_overflow(blocks, _arg):
    """After a thread's first EVENTS block, one that claims 4 GiB - 8 raw
    bytes (raw_len = col_len[0] = 0xfffffff8, nfuncs 0, zstd) over a frame of
    8 MiB: raw_len + 8 wrapped to 0 in 32 bits, and zstd wrote the 8 MiB into
    the decoder's buffer, sized for the thread's first block."""
    i = next(i for i, b in enumerate(blocks) if b[0] == EVENTS)
    h = list(EVH.unpack_from(blocks[i][2]))
    h[8], h[9], h[10] = 0, 1, 0xfffffff8  # nfuncs, codec, raw_len
    h[11:15] = [0xfffffff8, 0, 0, 0]
    body = zstd(bytes(range(256)) * (8 << 12))
    blocks.insert(i + 1, (EVENTS, 0, EVH.pack(*h) + body))
    return blocks


def events_raw_huge(blocks, _arg):
    """An EVENTS block that claims 1 GiB - 1 raw bytes over a small frame."""
    i = largest_events(blocks)
    h = list(EVH.unpack_from(blocks[i][2]))
    h[8], h[10] = 0, 0x3fffffff
    h[11:15] = [0x3fffffff, 0, 0, 0]
    blocks[i] = (EVENTS, 0, EVH.pack(*h) + blocks[i][2][EVH.size:])
    return blocks


def events_nfuncs(blocks, _arg):
    """nfuncs so large that the function table alone claims 2 GiB."""
    i = largest_events(blocks)
    h = list(EVH.unpack_from(blocks[i][2]))
    h[8] = 0x0fffffff
    h[10] = (h[8] * 8 + sum(h[11:15])) & 0xffffffff
    blocks[i] = (EVENTS, 0, EVH.pack(*h) + blocks[i][2][EVH.size:])
    return blocks


def events_nrecords(blocks, _arg):
    """nrecords far above what the columns hold."""
    i = largest_events(blocks)
    h = list(EVH.unpack_from(blocks[i][2]))
    h[7] = 0xffffffff
    blocks[i] = (EVENTS, 0, EVH.pack(*h) + blocks[i][2][EVH.size:])
    return blocks


def _symtab(blocks, edit, compress=False):
    i = first(blocks, SYMTAB)
    raw = bytearray(unpack(blocks[i][1], blocks[i][2]))
    edit(raw)
    flags, payload = pack(bytes(raw), compress)
    blocks[i] = (SYMTAB, flags, payload)
    return blocks


def symtab_no_nul(blocks, _arg):
    """A SYMTAB block whose path runs to the block's end, with no NUL."""
    def edit(raw):
        nsyms, _, bl, res, bid = SYMH.unpack_from(raw)
        del raw[SYMH.size:]
        raw += b'A' * 64
        raw[:SYMH.size] = SYMH.pack(0, 64, bl, res, bid)
    return _symtab(blocks, edit)


def symtab_nsyms(blocks, _arg):
    """nsyms = 2^32 - 1: 32 GiB of symbol arrays, if believed."""
    def edit(raw):
        h = list(SYMH.unpack_from(raw))
        h[0] = 0xffffffff
        raw[:SYMH.size] = SYMH.pack(*h)
    return _symtab(blocks, edit, True)


def symtab_build_id(blocks, _arg):
    """build_id_len 255 for a 32-byte field."""
    def edit(raw):
        h = list(SYMH.unpack_from(raw))
        h[2] = 255
        raw[:SYMH.size] = SYMH.pack(*h)
    return _symtab(blocks, edit)


def unpack_raw_huge(blocks, _arg):
    """A compressed SYMTAB whose u32 raw length says 4 GiB - 1: raw + 1 was 0."""
    i = first(blocks, SYMTAB)
    flags, payload = blocks[i][1], blocks[i][2]
    blocks[i] = (SYMTAB, flags | ZSTD, struct.pack('<I', 0xffffffff) + payload[4:])
    return blocks


def process_lengths(blocks, _arg):
    """A PROCESS record whose exe and args lengths add up past 4 GiB."""
    i = first(blocks, PROCESS)
    p = bytearray(blocks[i][2])
    struct.pack_into('<II', p, 24, 0xffffff00, 0x200)
    blocks[i] = (PROCESS, 0, bytes(p))
    return blocks


def module_path(blocks, path):
    """Every MODULE and SYMTAB of the first module named PATH instead (a FIFO,
    a device, a directory: a reader must not open and block on it)."""
    i = first(blocks, MODULE)
    old = blocks[i][2][MODH.size:].split(b'\0')[0]
    new = path.encode()
    for k, (btype, flags, payload) in enumerate(blocks):
        if btype == MODULE and payload[MODH.size:].split(b'\0')[0] == old:
            blocks[k] = (MODULE, 0, payload[:MODH.size] + new + b'\0')
        elif btype == SYMTAB:
            raw = unpack(flags, payload)
            h = list(SYMH.unpack_from(raw))
            if raw[SYMH.size:SYMH.size + h[1]].rstrip(b'\0') == old:
                rest = raw[SYMH.size + h[1]:]
                h[1] = len(new) + 1
                blocks[k] = (SYMTAB,) + pack(SYMH.pack(*h) + new + b'\0' + rest)
    return blocks


ATTACKS = {
    'events-overflow': events_overflow,
    'events-raw-huge': events_raw_huge,
    'events-nfuncs': events_nfuncs,
    'events-nrecords': events_nrecords,
    'symtab-no-nul': symtab_no_nul,
    'symtab-nsyms': symtab_nsyms,
    'symtab-build-id': symtab_build_id,
    'unpack-raw-huge': unpack_raw_huge,
    'process-lengths': process_lengths,
    'module-path': module_path,
}


def main(argv):
    if len(argv) == 2 and argv[1] == 'list':
        print('\n'.join(k for k in ATTACKS if k != 'module-path'))
        return 0
    if len(argv) < 4 or argv[1] not in ATTACKS:
        print(__doc__, file=sys.stderr)
        return 2
    with open(argv[2], 'rb') as f:
        head, blocks = parse(f.read())
    blocks = ATTACKS[argv[1]](blocks, argv[4] if len(argv) > 4 else None)
    with open(argv[3], 'wb') as f:
        f.write(head + b''.join(block(*b) for b in blocks))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
