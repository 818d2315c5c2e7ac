#!/usr/bin/python3
"""Bad input gives sane output: a capture cut in the middle of a frame (alone, and beside another
capture that is then read to its end), snap-length-cut frames,
absurd PSN jumps, CNPs and NAKs for QPs nobody uses, and a capture that is not one.

usage: check_bad_input.py ROCETRACE SCENARIO_DIR
"""
import fcntl
import json
import os
import shutil
import platform
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

errors = []


def run(args, code):
    p = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    if p.returncode != code:
        errors.append("%s: exit %d, want %d (%s)" % (" ".join(args[1:]), p.returncode, code,
                                                      p.stderr.decode().strip()))
    return p


def frames(path):
    data = open(path, "rb").read()
    off, out = 24, []
    while off + 16 <= len(data):
        hdr = data[off:off + 16]
        caplen = struct.unpack_from("<I", hdr, 8)[0]
        out.append((hdr, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return data[:24], out


READ_SYSCALL = {"x86_64": "0", "aarch64": "63", "riscv64": "63"}.get(platform.machine())


def wait_drained(pid, pipe_w, limit=30.0):
    """Until the process has taken everything written to the pipe and sits in read() for more
    (at most `limit` seconds): from then on it has handled every frame, however slow the
    machine, so a signal cannot cut the frames short."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        unread = struct.unpack("i", fcntl.ioctl(pipe_w, termios.FIONREAD, b"\0" * 4))[0]
        try:
            with open("/proc/%d/syscall" % pid) as f:
                reading = f.read().split()[0] == READ_SYSCALL
        except (OSError, IndexError):
            with open("/proc/%d/stat" % pid) as f:  # no syscall file: asleep will do
                reading = f.read().rsplit(")", 1)[1].split()[0] == "S"
        if unread == 0 and reading:
            return
        time.sleep(0.02)


def write(path, head, fr):
    with open(path, "wb") as f:
        f.write(head)
        for h, b in fr:
            f.write(h[:8] + struct.pack("<II", len(b), struct.unpack_from("<I", h, 12)[0]) + b)


def with_psn(frame, psn, qp=None):
    b = bytearray(frame)
    bth = 14 + 20 + 8
    if qp is not None:
        b[bth + 5:bth + 8] = qp.to_bytes(3, "big")
    b[bth + 9:bth + 12] = psn.to_bytes(3, "big")
    return bytes(b)


def main():
    exe, scen = sys.argv[1:3]
    tmp = tempfile.mkdtemp(prefix="rt-bad-")
    head, fr = frames(os.path.join(scen, "incast.pcap"))

    # 1. cut in the middle of a frame: the report of what was read, one error line, exit 1
    cut = os.path.join(tmp, "cut.pcap")
    raw = open(os.path.join(scen, "incast.pcap"), "rb").read()
    open(cut, "wb").write(raw[:len(raw) // 2 + 7])
    p = run([exe, "analyze", cut, "--json"], 1)
    rep = json.loads(p.stdout or b"{}")
    if not 0 < rep.get("packets", 0) < len(fr):
        errors.append("cut capture: packets %r" % rep.get("packets"))
    if len(p.stderr.decode().strip().splitlines()) != 1:
        errors.append("cut capture: want one error line, got %r" % p.stderr.decode())
    run([exe, "timeline", cut], 1)
    # ... beside another capture: the cut file ends at its cut, the other is read to its end (the
    # sum of the two read alone), and the error line names the cut file at the end
    other = os.path.join(scen, "dcqcn.pcap")
    alone = json.loads(run([exe, "analyze", other, "--json"], 0).stdout)["packets"]
    for order in ([cut, other], [other, cut]):
        p = run([exe, "analyze", "--json"] + order, 1)
        both = json.loads(p.stdout or b"{}").get("packets")
        err = p.stderr.decode()
        if both != rep.get("packets", 0) + alone:
            errors.append("a cut file beside another: packets %r, want %d + %d"
                          % (both, rep.get("packets", 0), alone))
        if "cut.pcap" not in err or "the other files were read to their end" not in err:
            errors.append("a cut file beside another: %r" % err)

    # 2. every frame cut by the snap length at 20..70 bytes: flows still counted, nothing invented
    short = os.path.join(tmp, "short.pcap")
    write(short, head, [(h, b[:20 + i % 51]) for i, (h, b) in enumerate(fr)])
    rep = json.loads(run([exe, "analyze", short, "--json"], 0).stdout)
    if rep["packets"] != len(fr) or rep["totals"]["retransmitted"] or rep["totals"]["icrc_bad"]:
        errors.append("short frames: %r" % rep["totals"])

    # 3. absurd PSN jumps on one flow: resynchronised, no gaps or resends invented
    jumps = os.path.join(tmp, "jumps.pcap")
    data = [(h, b) for h, b in fr if b[14 + 20 + 8] == 0x04][:200]
    write(jumps, head, [(h, with_psn(b, (i * 0x345678) & 0xFFFFFF, 0x99)) for i, (h, b) in enumerate(data)])
    rep = json.loads(run([exe, "analyze", jumps, "--json"], 0).stdout)
    t = rep["totals"]
    if t["gap_psns"] > 0x10000 * 2 or t["psn_jumps"] == 0:
        errors.append("PSN jumps: %r" % t)

    # 4. CNPs and NAKs to QPs nobody uses: counted, attributed to no flow
    cnps = os.path.join(tmp, "cnps.pcap")
    cn = [(h, b) for h, b in fr if b[14 + 20 + 8] == 0x81]
    write(cnps, head, [(h, with_psn(b, 0, 0x500000 + i)) for i, (h, b) in enumerate(cn)])
    rep = json.loads(run([exe, "analyze", cnps, "--json"], 0).stdout)
    if rep["totals"]["cnp"] != len(cn) or any(f["cnp_received"] for f in rep["flows"]):
        errors.append("stray CNPs: %r" % rep["totals"])

    # 5. not a capture, a missing file, and usage errors
    junk = os.path.join(tmp, "junk.pcap")
    open(junk, "wb").write(b"this is not a capture\n" * 10)
    p = run([exe, "analyze", junk], 1)
    if len(p.stderr.decode().strip().splitlines()) != 1 or p.stdout:
        errors.append("junk: %r %r" % (p.stdout, p.stderr))
    run([exe, "analyze", os.path.join(tmp, "missing.pcap")], 1)
    run([exe, "analyze"], 2)
    run([exe, "analyze", cut, "--link-speed", "fast"], 2)
    run([exe, "timeline", cut, "--bucket", "3hr"], 2)
    run([exe, "timeline", cut, "--flow", "1.2.3>"], 2)
    keep = os.path.join(tmp, "keep.csv")
    open(keep, "w").write("rows of an earlier run\n")
    run([exe, "timeline", cut, "--flow", "qp:", "-o", keep], 2)
    if open(keep).read() != "rows of an earlier run\n":
        errors.append("a usage error emptied the existing -o file")
    # an input that does not open or is not a capture leaves yesterday's -o file as it was
    run([exe, "timeline", os.path.join(tmp, "typo.pcap"), "-o", keep], 1)
    run([exe, "timeline", junk, "-o", keep], 1)
    if open(keep).read() != "rows of an earlier run\n":
        errors.append("a bad input changed the existing -o file")
    # one cut mid-frame: -o OUT holds the rows of the frames before the cut, as standard output
    # does, and stderr says the reading stopped early
    rows = run([exe, "timeline", cut, "--bucket", "1ms"], 1).stdout
    p = run([exe, "timeline", cut, "--bucket", "1ms", "-o", keep], 1)
    if len(p.stderr.splitlines()) != 1 or b"reading stopped early" not in p.stderr:
        errors.append("timeline of a cut file with -o: %r" % p.stderr)
    if not rows.startswith(b"t_ns,") or open(keep, "rb").read() != rows:
        errors.append("timeline -o of a cut file: not the rows standard output gets: %r"
                      % open(keep, "rb").read()[:80])
    leftovers = [n for n in os.listdir(tmp) if n.startswith(".keep.csv.")]
    if leftovers:
        errors.append("temporary files left next to -o: %r" % leftovers)
    # a good run replaces it whole; a symbolic link -o is refused, its target untouched
    good = os.path.join(scen, "incast.pcap")
    run([exe, "timeline", good, "-o", keep], 0)
    if not open(keep).read().startswith("t_ns,"):
        errors.append("timeline -o did not replace the file: %r" % open(keep).read()[:40])
    link = os.path.join(tmp, "link.csv")
    target = os.path.join(tmp, "target.txt")
    open(target, "w").write("not yours\n")
    os.symlink(target, link)
    p = run([exe, "timeline", good, "-o", link], 1)
    if open(target).read() != "not yours\n" or b"symbolic link" not in p.stderr:
        errors.append("timeline -o wrote through a symbolic link: %r" % p.stderr)
    # -o naming an input file (or a link to it) is refused: the capture is not replaced by rows or a page
    victim = os.path.join(tmp, "victim.pcap")
    shutil.copy(good, victim)
    os.link(victim, os.path.join(tmp, "victim2.pcap"))
    for cmd, out in (("timeline", victim), ("report", victim), ("report", os.path.join(tmp, "victim2.pcap"))):
        p = run([exe, cmd, victim, "-o", out], 2)
        if open(victim, "rb").read() != open(good, "rb").read() or b"input" not in p.stderr:
            errors.append("%s -o an input file replaced it: %r" % (cmd, p.stderr))
    run([exe, "analyze", cut, "--bogus"], 2)
    for cmd in ("analyze", "timeline"):
        p = run([exe, cmd, "--help"], 0)
        if b"\nEXAMPLES\n" not in p.stdout:
            errors.append("%s --help lacks examples" % cmd)

    # 6. timeline --flow selectors keep the 'all' rows and only the flows they name
    rep = json.loads(run([exe, "analyze", os.path.join(scen, "incast.pcap"), "--json"], 0).stdout)
    ids = {(f["src"], f["dst"], f["dest_qp"]): f["id"] for f in rep["flows"]}
    for sel, want in (("10.0.0.1>10.0.0.100:0x200", {ids[("10.0.0.1", "10.0.0.100", 0x200)]}),
                      ("10.0.0.1>10.0.0.100:512", {ids[("10.0.0.1", "10.0.0.100", 0x200)]}),
                      ("qp:0x101", {ids[("10.0.0.100", "10.0.0.2", 0x101)]}),
                      ("10.0.0.3", {ids[("10.0.0.3", "10.0.0.100", 0x202)],
                                    ids[("10.0.0.100", "10.0.0.3", 0x102)]}),
                      ("10.0.0.100>10.0.0.4", {ids[("10.0.0.100", "10.0.0.4", 0x103)]}),
                      ("5", {5})):
        out = run([exe, "timeline", os.path.join(scen, "incast.pcap"), "--flow", sel], 0).stdout
        got = {int(r.split(b",")[1]) for r in out.splitlines()[1:] if not r.split(b",")[1] == b"all"}
        alls = sum(1 for r in out.splitlines()[1:] if r.split(b",")[1] == b"all")
        if got != want or not alls:
            errors.append("--flow %s: flows %r, want %r (%d all rows)" % (sel, got, want, alls))

    # 7. Ctrl-C while reading a pipe that stays open: the report of what was read, exit 130
    fifo = os.path.join(tmp, "fifo")
    os.mkfifo(fifo)
    proc = subprocess.Popen([exe, "analyze", fifo, "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    with open(fifo, "wb") as w:
        w.write(head)
        for h, b in fr[:100]:
            w.write(h + b)
        w.flush()
        wait_drained(proc.pid, w.fileno())
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    if proc.returncode != 130:
        errors.append("Ctrl-C: exit %d, want 130 (%s)" % (proc.returncode, err.decode().strip()))
    elif json.loads(out)["packets"] != 100:
        errors.append("Ctrl-C: partial report has %r packets, want 100" % json.loads(out)["packets"])

    # 8. a bucket far shorter than the pauses: refused with a hint, before the rows of pause run away
    #    (at 1 Mb/s a pause of 65535 quanta lasts 33.5 s: 1 us buckets would be 33 million rows)
    p = run([exe, "timeline", os.path.join(scen, "pause.pcap"), "--link-speed", "1M", "--bucket", "1us"], 1)
    if b"too short for the pauses" not in p.stderr or b"use --bucket" not in p.stderr or \
            len(p.stdout) > 1 << 20:
        errors.append("a bucket too short for the pauses: %d bytes written, %r" % (len(p.stdout), p.stderr))
    p = run([exe, "timeline", os.path.join(scen, "pause.pcap"), "--link-speed", "1M", "--bucket", "1s"], 0)
    paused = sum(int(r.split(b",")[10]) for r in p.stdout.splitlines()[1:] if r.split(b",")[1] == b"all")
    rep = json.loads(run([exe, "analyze", os.path.join(scen, "pause.pcap"), "--link-speed", "1M", "--json"],
                         0).stdout)
    if paused != rep["pause"]["paused_ns"]:
        errors.append("pause at 1 Mb/s, 1 s buckets: %d ns paused in the rows, %d in the report"
                      % (paused, rep["pause"]["paused_ns"]))

    for e in errors:
        print("FAIL " + e)
    if errors:
        sys.exit(1)
    print("ok: bad input handled")


if __name__ == "__main__":
    main()
