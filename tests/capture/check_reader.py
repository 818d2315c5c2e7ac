#!/usr/bin/python3
"""The capture file reader against tshark, on files libpcap cannot read whole.

usage: check_reader.py ROCETRACE FIXTURES_DIR

Builds pcapng files here (struct only) that mix what libpcap refuses or
hides: interfaces with different link types (Ethernet, raw IP, Linux cooked
v2), several sections in both byte orders, timestamp resolutions of 10^-3,
10^-6, 10^-9, 2^-20 and 10^-12 s, if_tsoffset, simple and obsolete packet
blocks and unknown blocks; and gzip'd copies. For each frame `rocetrace
dissect --json` must give what tshark gives: frame number, time to the
nanosecond, length, captured length. Then -f with a filter compiled per link
type keeps the frames tshark's read filter keeps, numbered as in the file,
and '-' reads the gzip'd file from standard input. Exits 77 when tshark is
missing (the libpcap cross-check of unit.capture_pcapfile covers the rest).
"""
import gzip
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

failures = []


def fail(msg):
    failures.append(msg)


def block(end, btype, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack(end + "II", btype, 12 + len(body)) + body + struct.pack(end + "I", 12 + len(body))


def opt(end, code, value):
    return struct.pack(end + "HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def shb(end):
    return block(end, 0x0A0D0D0A, struct.pack(end + "IHHq", 0x1A2B3C4D, 1, 0, -1))


def idb(end, linktype, tsresol=None, tsoffset=None, snaplen=0):
    opts = b""
    if tsresol is not None:
        opts += opt(end, 9, bytes([tsresol]))
    if tsoffset is not None:
        opts += opt(end, 14, struct.pack(end + "q", tsoffset))
    return block(end, 1, struct.pack(end + "HHI", linktype, 0, snaplen) + opts + opt(end, 0, b""))


def epb(end, iface, ts, data, wirelen=None):
    return block(end, 6, struct.pack(end + "IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(data),
                                      wirelen or len(data)) + data)


def read_pcap(path):
    data = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        out.append(data[off + 16:off + 16 + caplen])
        off += 16 + caplen
    return out


def raw_ip(frame):
    return frame[14:]


def sll2(frame, ifindex=3):
    return frame[12:14] + b"\0\0" + struct.pack(">IHBB", ifindex, 1, 0, 6) + frame[6:12] + b"\0\0" + frame[14:]


def build(fixtures):
    """Two pcapng files: (name, bytes)."""
    eth = [f for f in read_pcap(os.path.join(fixtures, "rc_opcodes.pcap")) if len(f) > 54][:12]
    noise = read_pcap(os.path.join(fixtures, "noise.pcap"))[:4]
    le, be = "<", ">"
    t0 = 1700000000
    # section 1, little-endian: Ethernet in ns, raw IP in us with an offset, SLL2 at 2^-20 s
    a = shb(le) + idb(le, 1, 9) + idb(le, 101, None, 3600) + idb(le, 276, 0x94)
    a += block(le, 0x0BAD, b"a custom block to skip")
    ts = t0 * 10**9 + 123456789
    for k, f in enumerate(eth[:6]):
        a += epb(le, 0, ts + k * 1001, f)
        a += epb(le, 1, (ts // 1000) + k, raw_ip(f))
        a += epb(le, 2, (t0 << 20) + (k << 10), sll2(f))
    a += block(le, 3, struct.pack("<I", len(noise[0])) + noise[0])  # simple packet block: interface 0
    a += block(le, 2, struct.pack("<HHIIII", 1, 0, 0, 5, len(raw_ip(eth[0])), len(raw_ip(eth[0]))) +
               raw_ip(eth[0]))  # obsolete packet block on interface 1
    a += block(le, 5, struct.pack("<IQ", 0, 0) + opt(le, 5, struct.pack("<Q", 3)) + opt(le, 0, b""))
    # section 2, big-endian: Ethernet in ms, and in ps from an offset (64 bits of ps hold 213
    # days), cut by the snap length
    b = shb(be) + idb(be, 1, 3) + idb(be, 1, 12, tsoffset=t0, snaplen=64)
    for k, f in enumerate(eth[6:]):
        ts = t0 * 1000 + k if k % 2 == 0 else 1234567 + k * 999999999
        b += epb(be, k % 2, ts, f[:64] if k % 2 else f, len(f))
    for f in noise[1:]:
        b += epb(be, 0, t0 * 1000 + 50, f)
    return [("mixed_links.pcapng", a + b), ("one_section.pcapng", a)]


def dissect(exe, path, *args, stdin=None):
    res = subprocess.run([exe, "dissect", "--json", path] + list(args), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, stdin=stdin, timeout=60)
    if res.returncode:
        fail("dissect %s %s: exit %d: %s" % (path, args, res.returncode, res.stderr.decode().strip()))
        return []
    return [json.loads(line) for line in res.stdout.splitlines()]


def tshark(path, rfilter=None):
    cmd = ["tshark", "-n", "-r", path, "-T", "fields", "-e", "frame.number", "-e", "frame.time_epoch",
           "-e", "frame.len", "-e", "frame.cap_len", "-e", "frame.interface_id"]
    if rfilter:
        cmd += ["-Y", rfilter]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if res.returncode:
        fail("tshark %s: %s" % (path, res.stderr.decode().strip()))
    out = []
    for line in res.stdout.decode().splitlines():
        n, t, ln, cl, iface = line.split("\t")
        if not iface:
            continue  # a block Wireshark numbers that holds no frame (a custom block)
        sec, frac = t.split(".") if t else ("0", "")  # a simple packet block has no time: ours is 0
        out.append((int(n), "%s.%s" % (sec, (frac + "000000000")[:9]), int(ln), int(cl)))
    return out


def ours(recs):
    return [(r["frame"], r["ts"], r["len"], r["caplen"]) for r in recs]


def main():
    exe, fixtures = sys.argv[1:3]
    if not shutil.which("tshark"):
        print("tshark is not installed: the reader's tshark cross-check is skipped")
        sys.exit(77)
    tmpdir = tempfile.TemporaryDirectory(prefix="rt-reader-")
    tmp = tmpdir.name
    for name, data in build(fixtures):
        path = os.path.join(tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        gz = path + ".gz"
        with open(gz, "wb") as f:
            f.write(gzip.compress(data))
        want = tshark(path)
        if not want:
            fail("%s: tshark reads no frame" % name)
        for p in (path, gz):
            got = ours(dissect(exe, p))
            if got != want:
                bad = next((i for i, (g, w) in enumerate(zip(got, want)) if g != w), min(len(got), len(want)))
                fail("%s: frame %d: ours %r, tshark %r (%d vs %d frames)" %
                     (os.path.basename(p), bad + 1, got[bad] if bad < len(got) else None,
                      want[bad] if bad < len(want) else None, len(got), len(want)))
        with open(gz, "rb") as fin:
            if ours(dissect(exe, "-", stdin=fin)) != want:
                fail("%s: '-' reading the gzip'd file gives other frames" % name)
        # -f: compiled for each link type, frames keep their numbers
        got = [r["frame"] for r in dissect(exe, path, "-f", "udp dst port 4791 and ip")]
        keep = [n for n, _, _, _ in tshark(path, "udp.dstport == 4791 && ip")]
        if got != keep or not keep:
            fail("%s: -f kept frames %r, tshark %r" % (name, got, keep))
    if failures:
        for f in failures:
            print("FAIL " + f)
        sys.exit(1)
    print("ok: the reader agrees with tshark on mixed link types, sections, resolutions and gzip")


if __name__ == "__main__":
    main()
