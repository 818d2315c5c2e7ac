#!/usr/bin/python3
"""System test: what a command-line user expects of every subcommand. A filter libpcap cannot
compile is a usage error (exit 2, one line naming it) before any file is read; a shortened long
option is unknown (exit 2, the options meant); capture -w OUT.pcap / OUT.pcapng writes the format
the name says (capinfos reads it back as such), a --format that contradicts it is refused;
'rocetrace help CMD' is CMD --help, an unknown command is one line with the commands; a help cut
short by a closed pipe says nothing; SIGINT/SIGTERM end analyze and dissect within 2 s while a
FIFO's writer holds back the header or the frames after a few, with the report of what was read.

Usage: cli_habits.py ROCETRACE SOURCE_ROOT
"""
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

FAILS = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        FAILS.append(what)


def run(exe, *args, **kw):
    return subprocess.run([exe] + list(args), capture_output=True, text=True, timeout=60, **kw)


def filters(exe, cap, tmp):
    for cmd in (["analyze", "-f", "bogus syntax(", cap], ["dissect", cap, "udp", "port", "("],
                ["timeline", cap, "-f", "tcp port 99999"],
                ["report", cap, "-o", os.path.join(tmp, "r.html"), "-f", "nope"],
                ["capture", "-r", cap, "-w", os.path.join(tmp, "f.pcapng"), "udp", "("],
                ["analyze", "-f", "udp", "/nonexistent.pcap"]):
        r = run(exe, *cmd)
        lines = r.stderr.splitlines()
        bad = "nonexistent" not in cmd[-1]
        want = 2 if bad else 1
        check(r.returncode == want and len(lines) == 1 and ("bad filter '" in r.stderr) == bad,
              f"{' '.join(cmd[:1])} {cmd[-1] if not bad else 'bad filter'}: exit {r.returncode}, "
              f"{r.stderr.strip()!r}")
    check(not os.path.exists(os.path.join(tmp, "r.html")), "a bad filter writes no page")
    # inbound/outbound: a Linux cooked capture records the direction (tcpdump reads it there);
    # an Ethernet file does not, and the filter would match nothing (tcpdump refuses it)
    root = os.path.dirname(os.path.dirname(cap))
    r = run(exe, "dissect", "--count", os.path.join(root, "fixtures", "mixed.pcap"), "inbound")
    check(r.returncode == 1 and "would match nothing" in r.stderr and not r.stdout,
          f"inbound on an Ethernet file: exit {r.returncode}, {r.stderr.strip()!r}")
    r = run(exe, "dissect", "--count", os.path.join(root, "fixtures", "linux_sll.pcap"), "inbound")
    check(r.returncode == 0 and "frames: 2" in r.stdout, f"inbound on a cooked file: {r.stdout[:40]!r}")


def prefixes(exe, cap):
    for args, meant in ((["analyze", cap, "--count", "x"], "'--counters'"),
                        (["analyze", cap, "--thr", "2"], "'--threads'"),
                        (["dissect", cap, "--js"], "'--json'"), (["capture", "--interf", "lo"], "'--interface'"),
                        (["gen", "send", "h", "--siz", "8"], "'--size'"), (["doctor", "--jso"], "'--json'")):
        r = run(exe, *args)
        check(r.returncode == 2 and "unknown option '" in r.stderr and meant in r.stderr,
              f"{args[0]} {next(a for a in args if a.startswith('--'))}: {r.stderr.strip()!r}")
    r = run(exe, "analyze", cap, "--threads", "2", "--top", "1")
    check(r.returncode == 0, "names in full still work")


def formats(exe, cap, tmp):
    for name, fmt, want in (("a.pcap", None, "pcap"), ("b.pcapng", None, "pcapng"),
                            ("c.out", None, "pcapng"), ("d.pcap", "pcap", "pcap"),
                            ("e.cap", "pcap", "pcap")):
        out = os.path.join(tmp, name)
        r = run(exe, "capture", "-r", cap, "-w", out, *(["--format", fmt] if fmt else []))
        info = subprocess.run(["capinfos", "-t", out], capture_output=True, text=True).stdout
        is_ng = "pcapng" in info
        check(r.returncode == 0 and "pcap" in info and is_ng == (want == "pcapng"),
              f"capture -w {name}{' --format ' + fmt if fmt else ''}: {want} "
              f"(capinfos: {info.strip().splitlines()[-1] if info.strip() else 'nothing'})")
    for name, fmt in (("x.pcap", "pcapng"), ("y.pcapng", "pcap")):
        out = os.path.join(tmp, name)
        r = run(exe, "capture", "-r", cap, "-w", out, "--format", fmt)
        check(r.returncode == 2 and not os.path.exists(out) and len(r.stderr.splitlines()) == 1,
              f"capture -w {name} --format {fmt} refused: {r.stderr.strip()!r}")


def commands(exe):
    for cmd in ("dissect", "analyze", "capture", "gen", "doctor"):
        h, d = run(exe, "help", cmd), run(exe, cmd, "--help")
        check(h.returncode == 0 and h.stdout == d.stdout and h.stdout.startswith("NAME"),
              f"help {cmd} is {cmd} --help")
    for args in (["help"], ["help", "--help"], ["help", "-h"]):
        r = run(exe, *args)
        check(r.returncode == 0 and r.stdout.startswith("usage:"), f"{' '.join(args)}: the usage")
    r, g = run(exe, "help", "gen", "send"), run(exe, "gen", "send", "--help")
    check(r.returncode == 0 and r.stdout == g.stdout, "help gen send is gen send --help")
    # no word beyond the command's name reaches it (help capture -i read --help as a device)
    for args in (["help", "capture", "-i"], ["help", "dissect", "-r"], ["help", "analyze", "x"]):
        r = run(exe, *args)
        check(r.returncode == 2 and "help takes a command's name" in r.stderr and not r.stdout,
              f"{' '.join(args)}: exit {r.returncode}, {r.stderr.strip()!r}")
    for args in (["bogus"], ["help", "bogus"]):
        r = run(exe, *args)
        check(r.returncode == 2 and len(r.stderr.splitlines()) == 1 and "unknown command 'bogus'" in r.stderr
              and "analyze" in r.stderr and not r.stdout, f"{' '.join(args)}: {r.stderr.strip()!r}")
    r = run(exe, "analyse")
    check(r.returncode == 2 and "did you mean 'analyze'" in r.stderr, f"analyse: {r.stderr.strip()!r}")
    for cmd in ("dissect", "analyze", "capture", "gen"):
        # a closed pipe: the default SIGPIPE (quiet) or an exit 0, never a message
        p = subprocess.Popen(f"'{exe}' {cmd} --help | head -1 >/dev/null; echo ${{PIPESTATUS[0]}}",
                             shell=True, executable="/bin/bash", stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True, restore_signals=True)
        out, err = p.communicate(timeout=30)
        check(out.strip() in ("0", "141") and not err, f"{cmd} --help | head -1: {out.strip()} {err!r}")


def fifo_stop(exe, cap, tmp, cmd, sig, head):
    """The command reads a FIFO whose writer sends `head` bytes of cap and waits; sig ends it."""
    fifo = os.path.join(tmp, f"p-{cmd}-{head}-{int(sig)}")
    os.mkfifo(fifo)
    with open(cap, "rb") as f:
        data = f.read(head)
    argv = [exe, cmd, fifo]
    if cmd == "capture":  # -r FIFO into a file: a signal before its first frame ends it
        argv = [exe, cmd, "-r", fifo, "-w", os.path.join(tmp, f"o-{head}-{int(sig)}.pcap")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    writer = open(fifo, "wb")  # opens once the reader has it open
    try:
        writer.write(data)
        writer.flush()
        time.sleep(0.5)
        t0 = time.monotonic()
        proc.send_signal(sig)
        try:
            out, err = proc.communicate(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        took = time.monotonic() - t0
    finally:
        writer.close()
    want = 128 + sig
    said = "interrupted" in err
    report = "frames" in out if cmd == "analyze" else True
    check(proc.returncode == want and took < 2 and said and report,
          f"{cmd} on a FIFO ({head} bytes then nothing), {signal.Signals(sig).name}: exit "
          f"{proc.returncode}, {took:.2f} s, {err.strip().splitlines()[-1] if err.strip() else ''!r}")


def main():
    exe, root = sys.argv[1], sys.argv[2]
    cap = os.path.join(root, "tests", "captures", "rxe_pingpong_rc.pcap")
    tmp = tempfile.mkdtemp(prefix="rt_cli_habits_")
    try:
        filters(exe, cap, tmp)
        prefixes(exe, cap)
        if shutil.which("capinfos"):
            formats(exe, cap, tmp)
        else:
            print("skip: capture -w formats (no capinfos)")
        commands(exe)
        for cmd, sig, head in (("analyze", signal.SIGINT, 10), ("analyze", signal.SIGINT, 3000),
                               ("analyze", signal.SIGTERM, 30), ("dissect", signal.SIGINT, 10),
                               ("dissect", signal.SIGINT, 3000), ("capture", signal.SIGTERM, 10),
                               ("capture", signal.SIGINT, 10)):
            fifo_stop(exe, cap, tmp, cmd, sig, head)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
