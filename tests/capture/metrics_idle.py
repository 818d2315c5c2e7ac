#!/usr/bin/python3
"""System test: `capture --metrics` counts a PFC pause while the link sends nothing after it.

Usage: metrics_idle.py ROCETRACE
In a network namespace the test creates (root, else skipped; removed on
every exit), `rocetrace capture -i lo -w OUT --metrics 127.0.0.1:0 ether
proto 0x8808` captures the MAC Control frames of the namespace's loopback
(the scrapes on it are other frames: left out), where the test puts one PFC
frame (priority 3 XOFF, 0xFFFF quanta) and then nothing. While the capture still
runs and no other frame comes, a scrape must show
rocetrace_pfc_paused_seconds_total{priority="3"} at the pause's end by
quanta (polled for at most 20 s: the figures are up to 250 ms old plus the
source's hold), and no more on a later scrape; after the capture ends,
`rocetrace analyze --json` of the written file gives the same paused time.
"""
import json
import os
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_lib as ml  # noqa: E402

PAUSED = ("rocetrace_pfc_paused_seconds_total", (("priority", "3"),))


def pfc_xoff():
    """An 802.1Qbb frame: MAC Control to 01:80:c2:00:00:01, opcode 0x0101, priority 3 enabled, 0xFFFF quanta."""
    quanta = [0] * 8
    quanta[3] = 0xFFFF
    frame = bytes.fromhex("0180c2000001" "02000000fe01") + struct.pack("!HHH8H", 0x8808, 0x0101, 1 << 3, *quanta)
    return frame + b"\0" * (60 - len(frame))


def paused(port):
    smp = ml.samples(ml.scrape(port)[2])
    return smp[PAUSED], smp[("rocetrace_capture_running", ())]


def inner(rt):
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "lo.pcapng")
        cap, port = ml.start([rt, "capture", "-i", "lo", "-w", out, "--metrics", "127.0.0.1:0", "ether", "proto",
                              "0x8808"])
        bad = []
        try:
            time.sleep(0.5)  # the capture is open before it said where it serves; a margin anyway
            before = paused(port)[0]
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
            s.bind(("lo", 0))
            s.send(pfc_xoff())
            s.close()
            live, running = 0.0, 1.0
            deadline = time.monotonic() + 20
            while live == 0 and time.monotonic() < deadline:
                time.sleep(0.1)
                live, running = paused(port)
            time.sleep(0.6)  # two publications later: stopped at the pause's end
            later = paused(port)[0]
        finally:
            cap.terminate()
            try:
                rc = cap.wait(timeout=30)
            except subprocess.TimeoutExpired:
                cap.kill()
                rc = cap.wait()
            cap.stderr.close()
        a = json.loads(subprocess.run([rt, "analyze", "--json", out], check=True, capture_output=True,
                                      text=True).stdout)
    want = a["pfc"]["priorities"].get("3", {}).get("paused_ns", 0) / 1e9
    for ok, what in ((before == 0, "no pause before the frame (%r)" % before),
                     (want > 0, "analyze of the file counts the pause (%r s)" % want),
                     (live == want and running == 1,
                      "while idle and still capturing, a scrape shows %r s paused (the file: %r s)" % (live, want)),
                     (later == live, "a later scrape shows no more (%r s)" % later),
                     (rc == 0, "the capture ends on SIGTERM (exit %d)" % rc)):
        print(("ok: " if ok else "FAIL: ") + what)
        if not ok:
            bad.append(what)
    return 1 if bad else 0


def main():
    rt = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2] == "--inner":
        return inner(rt)
    ml.need_parser()
    return ml.in_netns("rtmi", __file__, rt, 90)


if __name__ == "__main__":
    sys.exit(main())
