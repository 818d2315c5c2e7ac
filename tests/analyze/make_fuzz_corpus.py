#!/usr/bin/python3
"""Seed corpus for tests/fuzz/fuzz_analyze.c from pcaps: slices of their frames in the target's format.

usage: make_fuzz_corpus.py OUTDIR PCAP...
Input format: options byte, then per frame: flags, time step (LE16, x64 ns), length (LE16), bytes.
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


def encode(opt, fr):
    b = bytearray([opt])
    last = fr[0][0] if fr else 0
    for ts, f in fr:
        step = min(0xFFFF, max(0, ts - last) // 64)
        last = ts
        b += bytes([0]) + struct.pack("<HH", step, len(f)) + f
    return bytes(b)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for i, p in enumerate(sys.argv[2:]):
        fr = frames(p)
        # a few windows of up to 40 frames each, so seeds stay small
        for k, start in enumerate(range(0, len(fr), max(1, len(fr) // 4))):
            blob = encode((i + k) & 0x1F, fr[start:start + 40])
            name = hashlib.sha1(blob).hexdigest()
            with open(os.path.join(out, name), "wb") as f:
                f.write(blob)


if __name__ == "__main__":
    main()
