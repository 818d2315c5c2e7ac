#!/usr/bin/python3
"""System test of the `rocetrace dissect` command line: help, usage errors, unreadable input, broken pipes, signals.

Usage: cli.py ROCETRACE FIXTURES_DIR
"""

import json
import os
import signal
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wire_ref  # noqa: E402

failures = []


def run(exe, *args, stdin=None):
    return subprocess.run([exe, "dissect"] + list(args), stdin=stdin, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, check=False)


def expect(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        failures.append(what)


def one_line(res):
    err = res.stderr.decode()
    return err.count("\n") == 1 and err.startswith("rocetrace dissect: ")


def main():
    exe, fixtures = sys.argv[1], sys.argv[2]
    mixed = os.path.join(fixtures, "mixed.pcap")
    hdr, recs = wire_ref.pcap_records(mixed)

    res = run(exe, "--help")
    out = res.stdout.decode()
    expect(res.returncode == 0 and not res.stderr and "SYNOPSIS" in out and "--udp-port" in out
           and "EXAMPLES" in out, "--help prints the manual to stdout and exits 0")

    for args, what in (((), "no file"), (("--bogus", mixed), "unknown option"),
                       (("-c", "0", mixed), "-c 0"), (("-c", "x", mixed), "-c x"),
                       (("--udp-port", "70000", mixed), "--udp-port 70000"),
                       (("-r", mixed, "-r", mixed), "-r twice"),
                       ((mixed, "-f", "udp", "tcp"), "-f and an expression"),
                       ((mixed, "-f"), "-f without value")):
        res = run(exe, *args)
        expect(res.returncode == 2 and not res.stdout and one_line(res),
               "usage error (%s) exits 2 with one line" % what)

    res = run(exe, "/nonexistent/x.pcap")
    expect(res.returncode == 1 and one_line(res) and not res.stdout,
           "a missing file exits 1 with one line")

    res = run(exe, mixed, "-f", "this is not bpf")
    expect(res.returncode == 2 and one_line(res) and b"bad filter 'this is not bpf'" in res.stderr,
           "a bad filter is a usage error: exit 2 with one line naming it")

    with tempfile.TemporaryDirectory(prefix="rt-cli-") as tmp:
        p = os.path.join(tmp, "user0.pcap")
        with open(p, "wb") as f:
            f.write(hdr[:20] + struct.pack("<I", 147) + recs[0])
        res = run(exe, p)
        expect(res.returncode == 1 and one_line(res) and b"link type 147" in res.stderr,
               "an unsupported link type exits 1 naming it")

        p = os.path.join(tmp, "cut.pcap")
        with open(p, "wb") as f:
            f.write(hdr + b"".join(recs[:3]) + recs[3][:30])
        res = run(exe, p)
        lines = res.stdout.decode().splitlines()
        expect(res.returncode == 1 and one_line(res) and len(lines) == 3,
               "a file cut inside frame 4 prints frames 1-3, then one error line, exit 1")
        res = run(exe, "--json", p)
        expect(res.returncode == 1 and len(res.stdout.decode().splitlines()) == 3,
               "the same in --json mode")
        res = run(exe, "--count", "--json", p)
        tot = json.loads(res.stdout) if res.stdout else {}
        expect(res.returncode == 1 and one_line(res) and b"totals cover" in res.stderr
               and tot.get("frames") == 3,
               "--count on a file cut inside frame 4 prints the totals of frames 1-3, then "
               "one error line, exit 1")

        p = os.path.join(tmp, "garbage.pcap")
        with open(p, "wb") as f:
            f.write(b"this is not a capture file at all\n" * 4)
        res = run(exe, p)
        expect(res.returncode == 1 and one_line(res), "a file that is not a capture exits 1")

        # ~30,000 frames: far more text than a pipe buffer holds
        p = os.path.join(tmp, "big.pcap")
        with open(p, "wb") as f:
            f.write(hdr + b"".join(recs) * 3000)
        proc = subprocess.Popen([exe, "dissect", p], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE)
        first = proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read()
        rc = proc.wait(timeout=60)
        expect(first.startswith(b"17") and rc == 0 and not err,
               "a reader that goes away (| head -1) ends it quietly with exit 0 (rc=%d)" % rc)

        res = run(exe, "--count", "--json", p)
        tot = json.loads(res.stdout) if res.returncode == 0 else {}
        expect(tot.get("frames") == len(recs) * 3000 and
               sum(tot.get("kinds", {}).values()) == tot.get("frames"),
               "--count --json totals every frame once")

        # Ctrl-C (SIGTERM) while reading a pipe that stays open: every frame read so far is
        # printed (the output buffer holds far more than these lines), exit 130 (143)
        fifo = os.path.join(tmp, "fifo")
        os.mkfifo(fifo)
        want = 40
        for sig, args, status in ((signal.SIGINT, (), 130), (signal.SIGTERM, ("--json",), 143),
                                  (signal.SIGINT, ("--count", "--json"), 130)):
            proc = subprocess.Popen([exe, "dissect", fifo] + list(args), stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
            with open(fifo, "wb") as w:
                w.write(hdr + b"".join((recs * 4)[:want]))
                w.flush()
                time.sleep(1.0)
                proc.send_signal(sig)
                out, err = proc.communicate(timeout=30)
            lines = out.decode().splitlines()
            got = json.loads(out)["frames"] if "--count" in args and out else len(lines)
            expect(proc.returncode == status and got == want and
                   err.decode().count("\n") == 1 and
                   err.decode() == "rocetrace dissect: interrupted after %d frames\n" % want,
                   "%s during %s: the %d frames read are printed, exit %d (got %d frames, exit %d)"
                   % (signal.Signals(sig).name, " ".join(("dissect",) + args), want, status, got,
                      proc.returncode))

    with open(mixed, "rb") as fin:
        res = run(exe, "--json", "-", stdin=fin)
    expect(res.returncode == 0 and len(res.stdout.decode().splitlines()) == len(recs),
           "'-' reads the capture from standard input")

    if failures:
        sys.exit("%d checks failed" % len(failures))


if __name__ == "__main__":
    main()
