#!/usr/bin/python3
"""Captures of any size read as the plain single file.

usage: check_big_inputs.py ROCETRACE

Builds here (struct, gzip and zlib only: writers independent of rocetrace):
 - a capture of several MB with incompressible payloads, gzip'd at levels
   1, 6 and 9 in 1, 3 and 100 members (as gzip, pigz -i and bgzip write),
   with trailing garbage, read from standard input and, through a process
   substitution, as the 17th file (past the files kept open): each reads as
   the plain file (`dissect --count --json`, `analyze --json`);
 - the same gzip'd in 4 members with the second corrupt from its first
   deflate byte: an error naming that member's offset after the frames of the
   first (gzip -t fails on it too), and trailing garbage after the last
   member: ignored, as gzip -d ignores it;
 - a pcapng of frames of 9000 B, 1 MiB and 16 MiB less 32 (the largest
   block), plain and gzip'd: `dissect --json` gives each frame's time and
   lengths as tests/lib/wire_ref.py's own reader reads them;
 - a burst capture (thousands of packets within the duplicate window, so
   duplicate detection forgets packets early) cut into a rotated set of 300
   files, some gzip'd, given in random order: `analyze --json` (its vantage
   points aside), `timeline` and `dissect --count` as the single file's.
Temporary files live in a folder of /tmp removed at the end.
"""
import gzip
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wire_ref  # noqa: E402

errors = []


def run(cmd, status=0, stdin=None, shell=False):
    p = subprocess.run(cmd, stdin=stdin, capture_output=True, timeout=300, shell=shell,
                       executable="/bin/bash" if shell else None)
    if p.returncode != status:
        errors.append("%s: exit %d, not %d: %s" % (cmd if shell else " ".join(cmd[:3]) + " ...",
                                                     p.returncode, status,
                                                     p.stderr.decode().strip()[-300:]))
    return p.stdout.decode(), p.stderr.decode()


def roce_frame(rng, qp, psn, payload, snap=None):
    """Ethernet, IPv4, UDP to 4791, a BTH (RC SEND only) and `payload` bytes; (caplen bytes, wire length)."""
    body = struct.pack(">BBHBBHBBH", 0x04, 0, 0xFFFF, 0, qp >> 16, qp & 0xFFFF, 0, psn >> 16,
                       psn & 0xFFFF) + (rng.randbytes(payload) if rng else bytes(payload)) + bytes(4)
    udp = struct.pack(">HHHH", 49152 + qp % 1000, 4791, 8 + len(body), 0) + body
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 26 << 2 | 2, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     bytes([10, 0, qp >> 8 & 0xFF, qp & 0xFF]), bytes([10, 1, 0, 1])) + udp
    frame = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00" + ip
    return frame[:snap] if snap else frame, len(frame)


def pcap(path, frames):
    """A nanosecond pcap of (ts_ns, bytes, wire length)."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
        for ts, data, wire in frames:
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), wire) + data)


def gzip_members(data, members, level):
    """`data` as `members` gzip members cut at even offsets; the offset of each member."""
    out, at = b"", []
    for m in range(members):
        at.append(len(out))
        out += gzip.compress(data[len(data) * m // members:len(data) * (m + 1) // members],
                             compresslevel=level, mtime=0)
    return out, at


def analyze(rt, files, *extra):
    out, _ = run([rt, "analyze", "--json", *extra] + files)
    doc = json.loads(out or "{}")
    doc.pop("vantage_points", None)  # they name the files read
    return doc


def count(rt, files, stdin=None):
    out, _ = run([rt, "dissect", "--count", "--json"] + files, stdin=stdin)
    doc = json.loads(out or "{}")
    doc.pop("vantage_points", None)
    return doc


def same(what, got, want):
    if got != want:
        errors.append("%s: differs from the plain single file's" % what)


def gzip_forms(rt, d):
    """Several MB gzip'd every way, from a file, standard input and a process substitution."""
    rng = random.Random(21)
    frames = [(1700000000 * 10**9 + i * 700, *roce_frame(rng, 0x100 + i % 64, i, 1024))
              for i in range(6000)]
    plain = os.path.join(d, "big.pcap")
    pcap(plain, frames)
    with open(plain, "rb") as f:
        data = f.read()
    want_count, want_an = count(rt, [plain]), analyze(rt, [plain])
    if want_count.get("frames") != len(frames):
        errors.append("the plain file: %r frames, not %d" % (want_count.get("frames"), len(frames)))
    for level in (1, 6, 9):
        for members in (1, 3, 100):
            z, _ = gzip_members(data, members, level)
            path = os.path.join(d, "big-%d-%d.pcap.gz" % (level, members))
            with open(path, "wb") as f:
                f.write(z + (b"\0" * 512 if members == 3 else b""))  # tape padding after it
            what = "gzip -%d, %d members (%d bytes)" % (level, members, len(z))
            same(what + ": dissect --count", count(rt, [path]), want_count)
            if members != 3:
                continue
            same(what + ": analyze --json", analyze(rt, [path]), want_an)
            with open(path, "rb") as f:
                same(what + ": from standard input", count(rt, ["-"], stdin=f), want_count)
    # the 17th file a pipe (bash's process substitution): it stays open after its first frames
    small = []
    for k in range(16):
        p = os.path.join(d, "early%02d.pcap" % k)
        pcap(p, [(1600000000 * 10**9 + k * 10**6 + i, *roce_frame(None, 7, i, 16)) for i in range(5)])
        small.append(p)
    out, _ = run("'%s' dissect --count --json %s <(cat '%s')" % (rt, " ".join(small), path), shell=True)
    got = json.loads(out or "{}").get("frames")
    if got != len(frames) + 16 * 5:
        errors.append("the 17th file a pipe: %r frames, not %d" % (got, len(frames) + 80))
    return data, len(frames)


def gzip_damage(rt, d, data, nframes):
    """A corrupt second member is an error naming it, after the first's frames; garbage after the last is ignored."""
    z, at = gzip_members(data, 4, 6)
    bad = bytearray(z)
    bad[at[1] + 10:at[1] + 26] = b"\xff" * 16  # its first deflate bytes: an invalid block type
    path = os.path.join(d, "corrupt.pcap.gz")
    with open(path, "wb") as f:
        f.write(bad)
    if subprocess.run(["gzip", "-t", path], capture_output=True).returncode == 0:
        errors.append("gzip -t takes the corrupt file: the test built no corrupt member")
    out, err = run([rt, "dissect", "--count", "--json", path], status=1)
    want = "bad gzip data in the member at byte %d" % at[1]
    if want not in err:
        errors.append("a corrupt second member: %r, not naming %r" % (err.strip(), want))
    # the frames whole in the first member were handed out before the error
    with_first = wire_ref._read_pcap(data[:len(data) // 4])[1]
    whole = sum(1 for fr in with_first if len(fr[3]) == fr[1])
    out, _ = run([rt, "dissect", "--json", path], status=1)
    if len(out.splitlines()) != whole:
        errors.append("a corrupt second member: %d frames before the error, not %d"
                      % (len(out.splitlines()), whole))
    for garbage in (b"\0" * 7, b"not gzip\n", b"\x1f"):
        path = os.path.join(d, "garbage.pcap.gz")
        with open(path, "wb") as f:
            f.write(z + garbage)
        g = subprocess.run(["gzip", "-dc", path], capture_output=True)
        if g.stdout != data:
            errors.append("gzip -d does not read the members before the garbage %r" % garbage)
        if count(rt, [path]).get("frames") != nframes:
            errors.append("trailing garbage %r: not every frame read" % garbage)


def big_records(rt, d):
    """Frames of 9000 B, 1 MiB and the largest pcapng block's, as wire_ref reads them."""
    sizes = [9000, 1 << 20, (16 << 20) - 32, 60]

    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))
    data = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    data += block(1, struct.pack("<HHI", 1, 0, 0) + struct.pack("<HHB3x", 9, 1, 9) + bytes(4))
    for i, n in enumerate(sizes):
        frame = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x88\xb5" + bytes([i]) * (n - 14)
        ts = 1700000000 * 10**9 + i
        data += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, n, n) + frame)
    path = os.path.join(d, "records.pcapng")
    with open(path, "wb") as f:
        f.write(data)
    with open(path + ".gz", "wb") as f:
        f.write(gzip.compress(data, compresslevel=1, mtime=0))
    want = [(ts, caplen, wire) for ts, caplen, wire, _ in wire_ref.read_capture(path)[1]]
    if [w[1] for w in want] != sizes:
        errors.append("wire_ref reads other sizes: %r" % [w[1] for w in want])
    for p in (path, path + ".gz"):
        out, _ = run([rt, "dissect", "--json", p])
        got = [(x["ts_ns"], x["caplen"], x["len"]) for x in map(json.loads, out.splitlines())]
        if got != want:
            errors.append("%s: frames %r, not %r" % (os.path.basename(p), got, want))


def rotated_set(rt, d):
    """A burst capture and the same cut into 300 files, some gzip'd, in random order."""
    rng = random.Random(300)
    frames, ts = [], 1700000000 * 10**9
    for i in range(60000):
        frames.append((ts, *roce_frame(None, 0x1000 + i % 2000, i // 2000, 1024, snap=62)))
        ts += 1 if (i // 4000) % 2 else 20000  # bursts of 4000 packets 1 ns apart
    single = os.path.join(d, "burst.pcap")
    pcap(single, frames)
    want = analyze(rt, [single])
    # bursts of 4000 packets 1 ns apart: duplicate detection's table grows within the first burst and
    # holds every packet of the window (forgotten_early 0; with two ways a set it forgot some)
    if want.get("duplicates", {}).get("forgotten_early") != 0:
        errors.append("the burst capture forgets packets early: %r" % want.get("duplicates"))
    want_tl, _ = run([rt, "timeline", "--bucket", "10us", single])
    want_count = count(rt, [single])
    os.makedirs(os.path.join(d, "set"))
    paths = []
    for k in range(300):
        p = os.path.join(d, "set", "run.pcap" + (".%d" % k if k else ""))
        part = frames[len(frames) * k // 300:len(frames) * (k + 1) // 300]
        pcap(p, part)
        if k % 7 == 3:
            with open(p, "rb") as f, gzip.open(p + ".gz", "wb") as g:
                shutil.copyfileobj(f, g)
            os.unlink(p)
            p += ".gz"
        paths.append(p)
    rng.shuffle(paths)
    same("300 files: analyze --json", analyze(rt, paths), want)
    same("300 files: timeline", run([rt, "timeline", "--bucket", "10us"] + paths)[0], want_tl)
    same("300 files: dissect --count", count(rt, paths), want_count)


def main():
    rt = sys.argv[1]
    d = tempfile.mkdtemp(prefix="rt-big-")
    try:
        data, nframes = gzip_forms(rt, d)
        gzip_damage(rt, d, data, nframes)
        big_records(rt, d)
        rotated_set(rt, d)
    finally:
        shutil.rmtree(d)
    for e in errors:
        print("FAIL: " + e)
    if errors:
        sys.exit(1)
    print("ok: gzip'd at every level and member count, piped, damaged, big records and 300 files "
          "read as the plain single file")


if __name__ == "__main__":
    main()
