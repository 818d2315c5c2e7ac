#!/usr/bin/python3
"""The --stats ticker of `rocetrace capture` and the totals of `rocetrace analyze --json` both count what the fixtures' truth files say each frame is.

Usage: stats_ticker.py ROCETRACE FIXTURES_DIR
Per fixture (read as a file source): frames, CE-marked frames, CNPs, NAKs
(AETH NAK class, not RNR) and PFC XOFFs per priority (enabled with quanta
above 0), counted from NAME.truth.jsonl, which the fixture generator wrote.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^(\d+) pkts  [\d.]+ [kMGT]?b/s  CE (\d+)  CNP (\d+)  NAK (\d+)  PFC((?: p\d:\d+)+| 0)  drops (\d+)$")


def from_truth(path, mirrored=False):
    """The counts, from the generator's truth of each frame. `mirrored`: the fixture shows the
    same RoCE packets through several mirror sessions; each packet counts once (frames still
    count every copy)."""
    with open(path) as f:
        truth = [json.loads(line) for line in f]
    pfc = [sum(1 for t in truth if "pfc" in t and t["pfc"]["enable"] >> p & 1 and
               t["pfc"]["quanta"][p] > 0) for p in range(8)]
    frames = len(truth)
    if mirrored:
        seen, once = set(), []
        for t in truth:
            key = (t.get("src"), t.get("dst"), t.get("dest_qp"), t.get("psn"), t.get("opcode"))
            if t.get("kind") in ("roce", "cnp") and key in seen:
                continue
            seen.add(key)
            once.append(t)
        truth = once
    return [frames, sum(t.get("ecn") == 3 for t in truth),
            sum(t.get("kind") == "cnp" for t in truth),
            sum(t.get("aeth", {}).get("type") == "nak" for t in truth), pfc]


def analyzed(rt, path):
    """What `rocetrace analyze --json` counts over the whole file."""
    out = subprocess.run([rt, "analyze", "--json", path], check=True, capture_output=True, text=True).stdout
    a = json.loads(out)
    t = a["totals"]
    pfc = [a["pfc"]["priorities"].get(str(p), {}).get("xoff", 0) for p in range(8)]
    return [a["packets"], t["ce"], t["cnp"], t["nak"], pfc]


def ticked(rt, path, tmp):
    r = subprocess.run([rt, "capture", "-i", path, "-w", os.path.join(tmp, "out.pcapng"), "--stats"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit("capture failed: %s" % r.stderr)
    total = [0, 0, 0, 0, [0] * 8]
    lines = [l for l in r.stderr.splitlines() if not l.startswith("rocetrace capture:")]
    if not lines:
        sys.exit("no ticker line in: %r" % r.stderr)
    for line in lines:
        m = LINE.match(line)
        if not m:
            sys.exit("bad ticker line: %r" % line)
        for i in range(4):
            total[i] += int(m.group(i + 1))
        for p, c in re.findall(r"p(\d):(\d+)", m.group(5)):
            total[4][int(p)] += int(c)
        if int(m.group(6)) != 0:
            sys.exit("drops reported for a file: %r" % line)
    return total


def main():
    rt, fixtures = sys.argv[1], sys.argv[2]
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("mixed", "ecn_cnp", "pfc_pause", "aeth_flags", "erspan"):
            path = os.path.join(fixtures, name + ".pcap")
            want = from_truth(os.path.join(fixtures, name + ".truth.jsonl"), name == "erspan")
            got, total = ticked(rt, path, tmp), analyzed(rt, path)
            if not want[1] + want[2] + want[3] + sum(want[4]):
                sys.exit("%s: the truth counts nothing the ticker shows" % name)
            if want != got or want != total:
                print("%s: ticker %s, analyze %s, truth %s" % (name, got, total, want))
                bad += 1
            else:
                print("ok: %s %s" % (name, got))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
