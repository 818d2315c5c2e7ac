#!/usr/bin/python3
"""Seeds the structure-aware reader fuzz target's corpus (fuzz_capgen.c): descriptions of captures.

usage: make_capgen_corpus.py OUT_DIR

Each seed is a description as fuzz_capgen.c reads it (flags, [read size],
gzip level, members, comment, interfaces, snap length, frame count, time
step, sizes, garbage, drops), not a capture: a few bytes stand for files of
up to 40 MiB. The seeds put frames near every limit of
capture/read_limits.h, plain and gzip'd in one or many members, with
trailing garbage, small and large reads, and ISB drop counts that wrap.
Files are named by the SHA-1 of their content, so reruns are idempotent.
"""
import hashlib
import os
import sys

PCAPNG, BE, NS, GZIP, PATTERN, ISB = 1, 2, 4, 8, 16, 32
CHUNK_BYTE, CHUNK_4093, CHUNK_64K = 1 << 6, 2 << 6, 3 << 6
# size classes of fuzz_capgen.c's table
ZERO, ETH, MTU, JUMBO, K64, GZIN16, GZIN32, PCAPMAX, BUF16, BUF32, BUF2, BLOCKMAX = range(12)


def desc(flags, level=0, members=0, comment=0, ifaces=0, snap=0, frames=1, step=1, sizes=((ETH, 0),),
         garbage=0, drops=(), chunk=None):
    out = bytes([flags])
    if chunk is not None:
        out += bytes([chunk])
    out += bytes([level, members, comment, ifaces, snap]) + frames.to_bytes(2, "little")
    out += bytes([step, len(sizes) - 1])
    for cls, off in sizes:
        out += bytes([cls, off + 128])
    return out + bytes([garbage]) + bytes(drops)


SEEDS = [
    desc(0, frames=100),
    desc(BE | NS | GZIP, level=6, members=2, frames=3, sizes=((GZIN16, 16), (GZIN32, -1))),
    desc(PCAPNG | NS | GZIP, level=1, comment=63, ifaces=1 | 1 << 2 | 2 << 4, frames=40,
         sizes=((JUMBO, 0), (K64, 0))),
    desc(PCAPNG, frames=3, sizes=((BLOCKMAX, 0), (JUMBO, 0))),
    desc(PCAPNG | BE, frames=3, sizes=((BUF32, -1), (BUF32, 0), (BUF32, 1))),
    desc(PCAPNG | GZIP | PATTERN, level=9, frames=5, sizes=((BUF16, 0), (BUF2, 0))),
    desc(PCAPNG | ISB, ifaces=3, frames=10, drops=(0x44, 0x44, 0x66, 0x06)),
    desc(GZIP | CHUNK_BYTE, chunk=7, level=5, members=63, frames=2000, garbage=20,
         sizes=((MTU, 0), (ETH, -60), (ZERO, 0))),
    desc(NS, snap=1, frames=50, sizes=((MTU, 0), (ETH, 0))),
    desc(PCAPNG | GZIP | PATTERN | CHUNK_64K, level=3, members=5, frames=8, sizes=((BUF2, 0),)),
    desc(PCAPNG | NS | GZIP | CHUNK_4093, level=9, frames=12,
         sizes=((ZERO, 0), (ETH, 0), (MTU, 0), (JUMBO, 0), (K64, 0), (GZIN16, 0), (PCAPMAX, 0),
                (BUF16, 0))),
    desc(0, frames=4, sizes=((PCAPMAX, 0), (PCAPMAX, -1))),
]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for s in SEEDS:
        with open(os.path.join(out, hashlib.sha1(s).hexdigest()), "wb") as f:
            f.write(s)
    print("%d seeds in %s" % (len(SEEDS), out))


if __name__ == "__main__":
    main()
