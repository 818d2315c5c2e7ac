#!/usr/bin/python3
"""Seeds the capture file reader's fuzz corpus: heads of real captures and hand-built pcapng files.

usage: make_pcapfile_corpus.py OUT_DIR CAPTURE...

Each corpus file is one fuzz input: a read-size byte (0 = whole reads,
else at most that many bytes per read) followed by a capture file. Seeds:
the first 3 KiB of each capture given (plain, and gzip'd for the first
two), and pcapng files built here covering what the reader knows: two
sections in both byte orders, interfaces with decimal, binary and coarse
timestamp resolutions and an offset, enhanced, simple and obsolete packet
blocks, an unknown block, and interface statistics with drop counts. Files
are named by the SHA-1 of their content, so reruns are idempotent.
"""
import gzip
import hashlib
import os
import struct
import sys

HEAD = 3072


def block(end, btype, body):
    body += b"\0" * (-len(body) % 4)
    total = 12 + len(body)
    return struct.pack(end + "II", btype, total) + body + struct.pack(end + "I", total)


def opt(end, code, value):
    return struct.pack(end + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def shb(end):
    return block(end, 0x0A0D0D0A, struct.pack(end + "IHHq", 0x1A2B3C4D, 1, 0, -1))


def idb(end, linktype, snaplen, opts=b""):
    return block(end, 1, struct.pack(end + "HHI", linktype, 0, snaplen) + opts + opt(end, 0, b""))


def epb(end, iface, ts, data, wirelen=None):
    return block(end, 6, struct.pack(end + "IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(data),
                                      wirelen or len(data)) + data)


def isb(end, iface, ifdrop, osdrop):
    return block(end, 5, struct.pack(end + "IQ", iface, 0) + opt(end, 5, struct.pack(end + "Q", ifdrop))
                 + opt(end, 7, struct.pack(end + "Q", osdrop)) + opt(end, 0, b""))


def frame(i):
    return bytes((i * 31 + k * 7) & 0xFF for k in range(60 + i))


def built():
    le, be = "<", ">"
    a = shb(le) + idb(le, 1, 0, opt(le, 9, b"\x09")) + \
        idb(le, 101, 128, opt(le, 9, b"\x94") + opt(le, 14, struct.pack("<q", -7)))
    a += block(le, 0x0BAD, b"custom block")
    a += epb(le, 0, 1700000000123456789, frame(0)) + epb(le, 1, 1700000000 << 20, frame(1), 1500)
    a += block(le, 3, struct.pack("<I", 80) + frame(2))
    a += block(le, 2, struct.pack("<HHIIII", 1, 0, 0, 5, 64, 64) + frame(3)[:64])
    a += isb(le, 0, 3, 4) + isb(le, 1, 5, 6)
    b = shb(be) + idb(be, 276, 0, opt(be, 9, b"\x03")) + epb(be, 0, 1700000000123, frame(4))
    b += isb(be, 0, 7, 8)
    return [a, a + b, b]


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = []
    for i, path in enumerate(sys.argv[2:]):
        with open(path, "rb") as f:
            head = f.read(HEAD)
        seeds.append(b"\0" + head)
        if i < 2:
            seeds.append(b"\0" + gzip.compress(head, mtime=0))
    for k, s in enumerate(built()):
        seeds.append(b"\0" + s)
        seeds.append(bytes([7 + k]) + s)
        seeds.append(b"\0" + gzip.compress(s, mtime=0))
    for s in seeds:
        name = hashlib.sha1(s).hexdigest()
        with open(os.path.join(out, name), "wb") as f:
            f.write(s)
    print("%d seeds in %s" % (len(seeds), out))


if __name__ == "__main__":
    main()
