#!/usr/bin/python3
"""The --stats ticker of `rocetrace capture` counts what `rocetrace analyze --json` totals (fixtures read as a file source)."""
import json
import os
import re
import subprocess
import sys
import tempfile

LINE = re.compile(r"^(\d+) pkts  [\d.]+ Gb/s  CE (\d+)  CNP (\d+)  NAK (\d+)  PFC((?: p\d:\d+)+| 0)  drops (\d+)$")


def expected(rt, path):
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
        for name in ("mixed.pcap", "ecn_cnp.pcap", "pfc_pause.pcap", "aeth_flags.pcap"):
            path = os.path.join(fixtures, name)
            want, got = expected(rt, path), ticked(rt, path, tmp)
            if want != got:
                print("%s: ticker %s, analyze %s" % (name, got, want))
                bad += 1
            else:
                print("ok: %s %s" % (name, got))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
