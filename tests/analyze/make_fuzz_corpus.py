#!/usr/bin/python3
"""Seed corpus for tests/fuzz/fuzz_analyze.c from pcaps: slices of their frames in the target's format.

usage: make_fuzz_corpus.py OUTDIR PCAP...
Input format: options byte, then per frame: flags, time step (LE16, x64 ns), length (LE16), bytes.
Besides plain windows of each capture: the same windows with every frame seen again at a second
capture point (duplicates across points) and again at the same one (within --dup-window), and
longer windows of the captures with CNPs (the NP reaction's votes need many CE marks and CNPs).
"""
import hashlib
import os
import struct
import sys


def frames(path):
    data = open(path, "rb").read()
    nano = data[:4] == b"\x4d\x3c\xb2\xa1"
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack_from("<IIII", data, off)
        out.append((sec * 10**9 + (frac if nano else frac * 1000), data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return out


def encode(opt, fr, again=None):
    """again: None, "point" (each frame again at the second capture point) or "same" (again at
    its own point, 64 ns later)."""
    b = bytearray([opt | (0x20 if again == "point" else 0)])
    last = fr[0][0] if fr else 0
    for ts, f in fr:
        step = min(0xFFFF, max(0, ts - last) // 64)
        last = ts
        b += bytes([0]) + struct.pack("<HH", step, len(f)) + f
        if again:
            b += bytes([0x40 if again == "point" else 0]) + struct.pack("<HH", 1, len(f)) + f
    return bytes(b)


def has_cnp(fr):
    return any(len(f) > 42 and f[12:14] == b"\x08\x00" and f[42] == 0x81 for _, f in fr)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for i, p in enumerate(sys.argv[2:]):
        fr = frames(p)
        blobs = []
        # a few windows of up to 40 frames each, so seeds stay small; each also with its copies
        for k, start in enumerate(range(0, len(fr), max(1, len(fr) // 4))):
            for again in (None, "point", "same"):
                blobs.append(encode((i + k) & 0x1F, fr[start:start + 40], again))
        if has_cnp(fr):
            for start in range(0, len(fr), max(1, len(fr) // 3)):
                blobs.append(encode(i & 0x1F, fr[start:start + 300]))
        for blob in blobs:
            name = hashlib.sha1(blob).hexdigest()
            with open(os.path.join(out, name), "wb") as f:
                f.write(blob)


if __name__ == "__main__":
    main()
