#!/usr/bin/python3
"""System test: capture as tcpdump is used, on 'lo' of a network namespace the test creates (root).

capture -i lo -w F -c 3 udp port 4791 writes three frames; capture -i lo -c 3 (no -w) prints
three decoded lines; -i N takes the number 'capture -D' gives lo; -r F copies a file with a
trailing filter; options after the expression are refused. Traffic: at most 400 datagrams,
20 ms apart, to 127.0.0.1:4791 inside the namespace.
"""
import json
import os
import random
import subprocess
import sys
import tempfile
import time

SENDER = r"""
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 4791))  # a listener: no ICMP port unreachable in the capture
# a RoCEv2 RC SEND only: BTH (opcode 4, P_Key 0xffff, QP 0x11, AckReq, PSN 1), 16 bytes, an ICRC
pkt = bytes([4, 0, 0xff, 0xff, 0, 0, 0, 0x11, 0x80, 0, 0, 1]) + b"x" * 16 + b"\0" * 4
for _ in range(400):
    s.sendto(pkt, ("127.0.0.1", 4791))
    time.sleep(0.02)
"""


def skip(why):
    print("SKIP:", why)
    sys.exit(77)


def main():
    rt = sys.argv[1]
    if os.geteuid() != 0:
        skip("needs root to create a network namespace")
    ns = f"rtcaplive{os.getpid()}{random.randint(0, 9999)}"
    if subprocess.run(["ip", "netns", "add", ns], capture_output=True).returncode:
        skip("cannot create a network namespace (ip netns add failed)")
    errors = []

    def check(cond, what):
        print(("ok: " if cond else "FAIL: ") + what)
        if not cond:
            errors.append(what)

    inns = ["ip", "netns", "exec", ns]
    sender = None
    try:
        subprocess.run(inns + ["ip", "link", "set", "lo", "up"], check=True)
        sender = subprocess.Popen(inns + [sys.executable, "-c", SENDER])
        time.sleep(0.2)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "three.pcapng")
            res = subprocess.run(inns + [rt, "capture", "-i", "lo", "-w", out, "-c", "3", "udp",
                                         "port", "4791"], capture_output=True, text=True,
                                 timeout=60)
            tot = subprocess.run([rt, "dissect", out, "--count", "--json"], capture_output=True,
                                 text=True)
            frames = json.loads(tot.stdout).get("frames") if tot.returncode == 0 else None
            check(res.returncode == 0 and frames == 3,
                  f"capture -i lo -w F -c 3 udp port 4791: {frames} frames ({res.stderr.strip()})")

            res = subprocess.run(inns + [rt, "capture", "-i", "lo", "-c", "3"], capture_output=True,
                                 text=True, timeout=60)
            lines = res.stdout.splitlines()
            check(res.returncode == 0 and len(lines) == 3 and
                  all("127.0.0.1 > 127.0.0.1" in l and "RC_SEND_ONLY qp=0x000011" in l
                      for l in lines) and "3 printed" in res.stderr,
                  f"capture -i lo -c 3 prints three decoded lines: {lines}")

            listing = subprocess.run(inns + [rt, "capture", "-D"], capture_output=True, text=True)
            n = [l.split(".")[0].strip() for l in listing.stdout.splitlines()
                 if l.split()[1:2] == ["lo"]]
            check(len(n) == 1, "capture -D numbers lo")
            if n:
                res = subprocess.run(inns + [rt, "capture", "-i", n[0], "-c", "2", "-#", "-t",
                                             "udp", "dst", "port", "4791"], capture_output=True,
                                     text=True, timeout=60)
                lines = res.stdout.splitlines()
                check(res.returncode == 0 and [l.split()[:2] for l in lines] ==
                      [["1", "127.0.0.1"], ["2", "127.0.0.1"]],
                      f"capture -i {n[0]} (lo's number) -# -t: {lines}")

            copy = os.path.join(tmp, "copy.pcap")
            res = subprocess.run([rt, "capture", "-r", out, "-w", copy, "--format", "pcap",
                                  "udp", "port", "4791"], capture_output=True, text=True)
            same = subprocess.run([rt, "dissect", copy], capture_output=True, text=True).stdout
            check(res.returncode == 0 and same ==
                  subprocess.run([rt, "dissect", out], capture_output=True, text=True).stdout,
                  "capture -r F -w G EXPRESSION copies the frames")
            before = open(copy, "rb").read()
            res = subprocess.run([rt, "capture", "-r", copy, "-w", copy], capture_output=True,
                                 text=True)
            check(res.returncode == 2 and "would replace the input" in res.stderr and
                  open(copy, "rb").read() == before,
                  "capture -r F -w F is refused and leaves F as it was")
            res = subprocess.run(inns + [rt, "capture", "-i", "lo", "udp", "port", "4791", "-c",
                                         "3"], capture_output=True, text=True, timeout=60)
            check(res.returncode == 2 and "options come first" in res.stderr,
                  "an option after the expression is refused")
    finally:
        if sender:
            sender.kill()
            sender.wait()
        subprocess.run(["ip", "netns", "del", ns])
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
