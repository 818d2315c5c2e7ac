#!/usr/bin/python3
"""`rocetrace capture -i FILE`: a saved capture copied to pcap/pcapng, with -s cutting frames to the snap length."""
import os
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
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
