#!/usr/bin/python3
"""`rocetrace capture -i FILE`: a saved capture copied to pcap/pcapng, with -s cutting frames to the snap length;
a pcapng mixing link types over its interfaces copied with each frame's interface and link type."""
import os
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_capture import read_pcap  # noqa: E402


def capture(rt, src, out, *args):
    r = subprocess.run([rt, "capture", "-i", src, "-w", out, *args], capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("capture %s failed (%d): %s" % (" ".join(args), r.returncode, r.stderr))


def reader_gone(rt, src):
    """-w - into a pipe whose reader has gone: a normal stop (status 0); no frame reached it."""
    r, w = os.pipe()
    os.close(r)
    try:
        p = subprocess.run([rt, "capture", "-i", src, "-w", "-"], stdout=w, stderr=subprocess.PIPE,
                           text=True, timeout=60)
    finally:
        os.close(w)
    last = p.stderr.splitlines()[-1] if p.stderr else ""
    if p.returncode != 0 or not last.startswith("rocetrace capture: 11 received, 0 dropped, 0 written"):
        print("-w - with no reader: status %d, stderr %r" % (p.returncode, p.stderr))
        return 1
    print("ok: -w - with no reader: %s" % last)
    return 0


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))


def opt(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def pcapng_frames(path):
    """[(link type, if_name, time, frame bytes)] of a little-endian pcapng of one section, ns times."""
    with open(path, "rb") as f:
        data = f.read()
    ifaces, frames, off = [], [], 0
    while off < len(data):
        btype, total = struct.unpack_from("<II", data, off)
        body = data[off + 8:off + total - 4]
        if btype == 1:
            name, o = "", 8
            while o + 4 <= len(body):
                code, olen = struct.unpack_from("<HH", body, o)
                if code == 0:
                    break
                if code == 2:
                    name = body[o + 4:o + 4 + olen].decode()
                o += 4 + olen + (-olen % 4)
            ifaces.append((struct.unpack_from("<H", body)[0], name))
        elif btype == 6:
            iface, hi, lo, caplen = struct.unpack_from("<IIII", body)
            frames.append(ifaces[iface] + ((hi << 32) | lo, body[20:20 + caplen]))
        off += total
    return frames


def mixed_link_types(rt, tmp):
    """Ethernet, Linux cooked and raw IP interfaces, frames taking turns: each keeps its own."""
    src = os.path.join(tmp, "mixed_links.pcapng")
    ns = opt(9, b"\x09")
    data = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    data += block(1, struct.pack("<HHI", 1, 0, 0) + opt(2, b"eth0") + ns + opt(0, b""))
    data += block(1, struct.pack("<HHI", 113, 0, 0) + opt(2, b"any") + ns + opt(0, b""))
    data += block(1, struct.pack("<HHI", 101, 0, 0) + ns + opt(0, b""))
    eth = bytes.fromhex("020000000002020000000001") + b"\x08\x00" + bytes(46)
    sll = struct.pack(">HHH8sH", 0, 1, 6, bytes(8), 0x0800) + bytes(46)
    raw = bytes.fromhex("45000014000040004011") + bytes(10)
    for i in range(9):
        fr = (eth, sll, raw)[i % 3]
        ts = 1700000000000000000 + i * 1000
        data += block(6, struct.pack("<IIIII", i % 3, ts >> 32, ts & 0xFFFFFFFF, len(fr), len(fr)) + fr)
    with open(src, "wb") as f:
        f.write(data)
    out = os.path.join(tmp, "mixed_links_out.pcapng")
    r = subprocess.run([rt, "capture", "-r", src, "-w", out], capture_output=True, text=True)
    want = pcapng_frames(src)
    # interfaces without if_name are named after the file (and their number past the first)
    want = [(lt, name or src + " if %d" % (i % 3), ts, fr) for i, (lt, name, ts, fr) in enumerate(want)]
    if r.returncode != 0 or pcapng_frames(out) != want:
        print("capture -r of mixed link types: status %d, %s: %r, not %r"
              % (r.returncode, r.stderr, pcapng_frames(out)[:3], want[:3]))
        return 1
    # classic pcap holds one link type: refused at the first frame of another
    r = subprocess.run([rt, "capture", "-r", src, "-w", out + ".pcap", "--format", "pcap"],
                       capture_output=True, text=True)
    if r.returncode != 1 or "frame 2 is on interface 1 (link type 113) of the file" not in r.stderr:
        print("capture -r of mixed link types into pcap: status %d, %s" % (r.returncode, r.stderr))
        return 1
    print("ok: capture -r of mixed link types keeps each frame's interface and link type")
    return 0


def main():
    rt, fixtures = sys.argv[1], sys.argv[2]
    src = os.path.join(fixtures, "mixed.pcap")
    want = read_pcap(src)
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for fmt in ("pcapng", "pcap"):
            for snap in (None, 64):
                out = os.path.join(tmp, "out." + fmt)
                capture(rt, src, out, "--format", fmt, *(["-s", str(snap)] if snap else []))
                got = read_pcap(out)
                exp = [(data[:snap] if snap else data, wire) for data, wire in want]
                if got != exp:
                    print("%s -s %s: %d frames differ from the source cut to the snap length"
                          % (fmt, snap, sum(1 for g, e in zip(got, exp) if g != e) + abs(len(got) - len(exp))))
                    bad += 1
                else:
                    print("ok: %s -s %s (%d frames)" % (fmt, snap, len(got)))
        bad += reader_gone(rt, src)
        bad += mixed_link_types(rt, tmp)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
