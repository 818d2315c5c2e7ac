#!/usr/bin/python3
"""System test: the progress line of a long read. dissect --json (into a file), capture -r IN -w OUT
and analyze, their stderr a terminal (a pty), read a capture that arrives slowly (a FIFO: 60,001
frames, 1.3 s of nothing, 9,999 more): each shows "CMD: N frames..., T s" on stderr and clears it
before it ends, and what it writes (the JSON lines, the capture) is whole and holds no trace of it.
With stderr not a terminal (a pipe), no progress line.

Usage: progress_line.py ROCETRACE
"""
import json
import os
import pty
import select
import struct
import subprocess
import sys
import tempfile
import threading

FRAMES = 70000  # the pump looks at the clock each 65,536 frames
PAUSE_S = 1.3   # past the line's second
T0 = 1_700_000_000 * 10**9
CLEAR = b"\r\x1b[K"

errors = []


def fail(msg):
    errors.append(msg)


def capture_bytes():
    """A pcap (ns) of RoCEv2 SEND ONLY packets 1 us apart, split where the feeder pauses."""
    head = struct.pack("<IHHiIII", 0xa1b23c4d, 2, 4, 0, 0, 65535, 1)
    eth = bytes.fromhex("020000000002" "020000000001" "0800")
    recs = []
    for i in range(FRAMES):
        bth = struct.pack(">BBHII", 0x04, 0x40, 0xFFFF, 0x11, i & 0xFFFFFF) + bytes(4)
        udp = struct.pack(">HHHH", 49152, 4791, 8 + len(bth), 0)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 2, 20 + len(udp) + len(bth), i & 0xFFFF, 0x4000,
                         64, 17, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
        f = eth + ip + udp + bth
        t = T0 + i * 1000
        recs.append(struct.pack("<IIII", t // 10**9, t % 10**9, len(f), len(f)) + f)
    return head + b"".join(recs[:60001]), b"".join(recs[60001:])


def run(exe, args, tty=True):
    """Run rocetrace ARGS (IN: a FIFO fed slowly, DIR: a fresh folder) with stderr on a pty (or a
    pipe); returns (exit status, stderr bytes, stdout path, DIR)."""
    first, rest = PARTS
    d = tempfile.mkdtemp(prefix="rt-progress-")
    fifo = os.path.join(d, "in.pcap")
    os.mkfifo(fifo)
    args = [a.replace("IN", fifo).replace("DIR", d) for a in args]
    out_path = os.path.join(d, "stdout")
    if tty:
        master, slave = pty.openpty()
    else:
        master, slave = os.pipe()
    with open(out_path, "wb") as out:
        p = subprocess.Popen([exe] + args, stdin=subprocess.DEVNULL, stdout=out, stderr=slave)
    os.close(slave)

    def feed():
        with open(fifo, "wb") as w:
            w.write(first)
            w.flush()
            threading.Event().wait(PAUSE_S)
            w.write(rest)
    feeder = threading.Thread(target=feed)
    feeder.start()
    err = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            fail("%s: stderr silent for 60 s" % " ".join(args))
            p.kill()
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the pty's other end closed
            break
        if not chunk:
            break
        err += chunk
    os.close(master)
    try:
        rc = p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        rc = p.wait()
    feeder.join(timeout=60)
    return rc, err, out_path, d


def check_line(what, cmd, err):
    """One progress line (or its rewrites), cleared before anything else is said."""
    head = b"\r" + cmd.encode() + b": "
    at = err.find(head)
    if at < 0 or b" frames" not in err[at:] or not err[at:].split(CLEAR)[0].endswith(b" s"):
        fail("%s: no progress line on the terminal: %r" % (what, err[:300]))
        return
    if CLEAR not in err[at:]:
        fail("%s: the progress line is not cleared: %r" % (what, err[:300]))


def count_frames(exe, path):
    p = subprocess.run([exe, "dissect", "--count", "--json", path], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=120)
    return json.loads(p.stdout)["frames"] if p.returncode == 0 else -1


def main():
    exe = sys.argv[1]
    rc, err, out, _ = run(exe, ["dissect", "--json", "IN"])
    check_line("dissect --json", "dissect", err)
    with open(out, "rb") as f:
        data = f.read()
    lines = data.splitlines()
    if rc or len(lines) != FRAMES or b"\r" in data or b"frames," in data:
        fail("dissect --json: exit %d, %d lines of %d, or the progress line in them"
             % (rc, len(lines), FRAMES))
    elif any(json.loads(line)["kind"] != "roce" for line in (lines[0], lines[-1])):
        fail("dissect --json: lines that are not the frames: %r" % lines[0][:200])

    rc, err, out, d = run(exe, ["capture", "-r", "IN", "-w", "DIR/out.pcap"])
    check_line("capture -r -w", "capture", err)
    if rc or count_frames(exe, os.path.join(d, "out.pcap")) != FRAMES or os.path.getsize(out):
        fail("capture -r -w: exit %d, the output does not hold the %d frames (or stdout got %d "
             "bytes)" % (rc, FRAMES, os.path.getsize(out)))
    if b"70000 written" not in err.split(CLEAR)[-1]:
        fail("capture -r -w: its summary not after the cleared line: %r" % err[-300:])

    rc, err, _, _ = run(exe, ["analyze", "IN"])
    check_line("analyze", "analyze", err)

    rc, err, out, _ = run(exe, ["dissect", "--json", "IN"], tty=False)
    if rc or b"frames" in err or CLEAR in err:
        fail("dissect --json, stderr a pipe: exit %d, a progress line: %r" % (rc, err[:300]))

    for e in errors:
        print("FAIL " + e)
    if errors:
        return 1
    print("ok: dissect, capture -r and analyze show their progress on a terminal only")
    return 0


PARTS = capture_bytes()

if __name__ == "__main__":
    sys.exit(main())
