#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""KERNEL blocks (record --kernel) that lie, appended to a good trace, for
tests/kernel: each must be refused in one line (exit 2) or read.

    kcraft.py NAME GOOD OUT     NAME: count, recsize, recsize-huge, lying-records,
                                zstd-huge, short, kargs-past-end (a KARGS entry
                                longer than its block), kargs-lying (entries
                                for no call, of unknown kinds, a 4-byte timespec
                                and a path of control bytes and bad UTF-8 for
                                the trace's first clock_nanosleep and openat,
                                ahead of the true ones)

    kcraft.py aarch64 GOOD OUT  GOOD as if recorded on aarch64: META arch says so
                                and the system call numbers are the generic
                                table's (those of X86_TO_GENERIC; the others
                                are left, named wrong: only these are checked)
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))
import craft  # noqa: E402

KERNEL = 13
HDR = struct.Struct('<IIQ')  # rec_size count lost
REC = struct.Struct('<QQiiHHIq4Q')  # start end pid tid kind cause nr ret args[4]


def rec(start, end, tid, kind=1, cause=0, nr=39):
    return REC.pack(start, end, tid, tid, kind, cause, nr, 0, 0, 0, 0, 0)


KARGS = 14
KARG = struct.Struct('<QiBBH')  # start tid what flags len


def first_call(blocks, nr):
    """(start, tid) of the first system call numbered nr (x86_64) in the KERNEL blocks"""
    for btype, flags, payload in blocks:
        if btype != KERNEL:
            continue
        raw = craft.unpack(flags, payload)
        size, count, _ = HDR.unpack_from(raw)
        for k in range(count):
            start, _, _, tid, kind, _, n = struct.unpack_from('<QQiiHHI', raw, HDR.size + k * size)
            if kind == 1 and n == nr:
                return start, tid
    return 1, 1


def kargs(name, blocks):
    if name == 'kargs-past-end':
        return KARG.pack(1, 1, 1, 0, 200) + b'abc'
    # read: unknown kinds ignored, a path for no call, a timespec too short, bytes to escape
    sleep, opened = first_call(blocks, 230), first_call(blocks, 257)
    return (KARG.pack(1, 1, 99, 0, 3) + b'xyz' + KARG.pack(2**64 - 1, -1, 1, 1, 0) +
            KARG.pack(sleep[0], sleep[1], 2, 0, 4) + b'\0\0\0\0' +
            KARG.pack(opened[0], opened[1], 1, 1, 6) + b'\xff\n"\\\xc3(')


def payload(name):
    if name == 'count':  # more records than the block holds
        return HDR.pack(REC.size, 0xffffffff, 0) + rec(1, 2, 1)
    if name == 'recsize':  # records smaller than the reader knows
        return HDR.pack(8, 1, 0) + b'\0' * 8
    if name == 'recsize-huge':  # count x size wraps 32 bits
        return HDR.pack(0x80000000, 2, 0)
    if name == 'short':
        return b'\1\2\3'
    if name == 'lying-records':  # read: what lies is dropped or harmless
        recs = [rec(10, 5, 1), rec(1, 2, 0), rec(1, 2, 1, kind=99),
                rec(0, 2**64 - 1, 1), rec(2**64 - 2, 2**64 - 1, 2**31 - 1, nr=0xffffffff),
                rec(5, 6, 1, kind=2, cause=77, nr=2**32 - 1)]
        return HDR.pack(REC.size, len(recs), 2**64 - 1) + b''.join(recs)
    sys.exit('kcraft.py: unknown attack ' + name)


META = 1
# x86_64 -> asm-generic numbers of the calls kprog makes
X86_TO_GENERIC = {0: 63, 1: 64, 3: 57, 9: 222, 12: 214, 110: 173, 202: 98, 230: 115,
                  231: 94, 257: 56}


def as_aarch64(good, out):
    head, blocks = craft.parse(open(good, 'rb').read())
    for i, (btype, flags, payload) in enumerate(blocks):
        if btype == META:
            raw = craft.unpack(flags, payload)
            if b'arch\0' in raw:
                raw = raw.replace(b'arch\0x86_64\0', b'arch\0aarch64\0')
            else:
                raw += b'arch\0aarch64\0'
            blocks[i] = (META,) + craft.pack(raw, flags != 0)
        elif btype == KERNEL:
            raw = bytearray(craft.unpack(flags, payload))
            size, count, _ = HDR.unpack_from(raw)
            for k in range(count):
                at = HDR.size + k * size + 28  # nr
                nr = struct.unpack_from('<I', raw, at)[0]
                struct.pack_into('<I', raw, at, X86_TO_GENERIC.get(nr, nr))
            blocks[i] = (KERNEL,) + craft.pack(bytes(raw), flags != 0)
    open(out, 'wb').write(head + b''.join(craft.block(*b) for b in blocks))


def main(argv):
    name, good, out = argv[1], argv[2], argv[3]
    if name == 'aarch64':
        return as_aarch64(good, out)
    data = open(good, 'rb').read()
    if name.startswith('kargs-'):
        head, blocks = craft.parse(data)
        blocks.insert(1, (KARGS, 0, kargs(name, blocks)))  # ahead of the recorder's
        open(out, 'wb').write(head + b''.join(craft.block(*b) for b in blocks))
        return None
    if name == 'zstd-huge':  # says it inflates to 1 GiB
        raw = HDR.pack(REC.size, 1, 0) + rec(1, 2, 1)
        blk = craft.block(KERNEL, craft.ZSTD,
                          struct.pack('<I', 1 << 30) + craft.zstd(raw))
    else:
        blk = craft.block(KERNEL, 0, payload(name))
    open(out, 'wb').write(data + blk)


if __name__ == '__main__':
    main(sys.argv)
