#!/usr/bin/python3
"""System test: every flow analyze prints is a --flow selector (analyze, timeline, dissect), and the one rule for units.

Usage: flows_units.py ROCETRACE SAMPLE_PCAP SCENARIO_DIR
"""
import csv
import io
import json
import os
import re
import subprocess
import sys


def rt(exe, *args):
    return subprocess.run([exe] + list(args), capture_output=True, text=True)


def main():
    exe, sample, scenarios = sys.argv[1], sys.argv[2], sys.argv[3]
    errors = []

    def check(cond, what):
        print(("ok: " if cond else "FAIL: ") + what)
        if not cond:
            errors.append(what)

    # the flows of the text report's table, each as printed
    text = rt(exe, "analyze", sample).stdout
    table = re.findall(r"^  (\d+) +(\S+) +\d+ ", text.split("Top flows")[1], re.M)
    check(len(table) == 8, f"the report lists 8 flows ({len(table)})")
    for fid, sel in table:
        rep = json.loads(rt(exe, "analyze", sample, "--json", "--flow", sel).stdout)
        check([f["id"] for f in rep["flows"]] == [int(fid)] and rep["flows"][0]["selector"] == sel,
              f"analyze --flow '{sel}' lists flow {fid} alone")
        rows = [json.loads(l) for l in
                rt(exe, "timeline", sample, "--flow", sel, "--format", "json").stdout.splitlines()]
        ids = {r["flow"] for r in rows}
        check(ids == {int(fid), "all"}, f"timeline --flow '{sel}': rows of flow {fid} and 'all'")
        d = [json.loads(l) for l in rt(exe, "dissect", sample, "--json", "--flow", sel).stdout
             .splitlines()]
        want = [j["frame"] for j in map(json.loads, rt(exe, "dissect", sample, "--json").stdout
                                        .splitlines())
                if "%s>%s:0x%06x" % (j.get("src"), j.get("dst"), j.get("dest_qp", -1)) == sel]
        check([j["frame"] for j in d] == want and want, f"dissect --flow '{sel}': its frames")
    # the spelling the report used before, and the Wireshark plugin's
    for old in ("10.0.0.1 > 10.0.0.100 qp 0x200", "10.0.0.1 > 10.0.0.100 QP 0x000200"):
        rep = json.loads(rt(exe, "analyze", sample, "--json", "--flow", old).stdout)
        check([f["id"] for f in rep["flows"]] == [0], f"--flow '{old}' selects flow 0")
    # the anomalies name flows the same way
    text = rt(exe, "analyze", os.path.join(scenarios, "nak_gbn.pcap")).stdout
    named = re.findall(r"^  flow (\d+) (\S+)", text.split("Anomalies:")[1], re.M)
    check(named, "nak_gbn: an anomaly names a flow")
    for fid, sel in named:
        rep = json.loads(rt(exe, "analyze", os.path.join(scenarios, "nak_gbn.pcap"), "--json",
                            "--flow", sel).stdout)
        check([f["id"] for f in rep["flows"]] == [int(fid)], f"anomaly flow '{sel}' selects {fid}")
    # --flow that matches nothing: analyze says so
    res = rt(exe, "analyze", sample, "--flow", "qp:0x999")
    check("--flow 'qp:0x999' matches none of the 8 flows" in res.stdout, "an empty --flow is a warning")

    # units: a bare duration is seconds
    one = list(csv.DictReader(io.StringIO(rt(exe, "timeline", sample, "--bucket", "1").stdout)))
    check(one and all(int(r["t_ns"]) % 10**9 == 0 for r in one) and
          len({r["t_ns"] for r in one}) == 1, "timeline --bucket 1: one-second buckets")
    a, b = rt(exe, "timeline", sample, "--bucket", "0.001"), rt(exe, "timeline", sample, "--bucket", "1ms")
    check(a.returncode == 0 and a.stdout == b.stdout and a.stdout.count("\n") > 8,
          "timeline --bucket 0.001 equals --bucket 1ms")
    for args, hint in ((("timeline", sample, "--bucket", "100000"), "write 100us for nanoseconds"),
                       (("timeline", sample, "--bucket", "50ns"), "out of range (100ns"),
                       (("analyze", sample, "--dup-window", "10000"), "write 10us for nanoseconds"),
                       (("analyze", sample, "--episode-gap", "500"), "write 500ns for nanoseconds"),
                       (("analyze", sample, "--link-speed", "100"), "for 100 Gb/s write 100G"),
                       (("doctor", "--speed", "25"), "for 25 Gb/s write 25G"),
                       (("capture", "-i", "lo", "--duration", "0.0000000001"), "out of range"),
                       (("gen", "send", "127.0.0.1", "--dcqcn-rai", "40"), "for 40 Gb/s write 40G")):
        res = rt(exe, *args)
        check(res.returncode == 2 and hint in res.stderr and res.stderr.count("\n") == 1,
              f"{' '.join(args[:1] + args[2:])}: refused with '{hint}'")
    # minutes and hours: the same buckets as their seconds
    a, b = rt(exe, "timeline", sample, "--bucket", "1min"), rt(exe, "timeline", sample, "--bucket", "60")
    check(a.returncode == 0 and a.stdout == b.stdout and a.stdout.count("\n") > 1,
          "timeline --bucket 1min equals --bucket 60")
    a, b = rt(exe, "timeline", sample, "--bucket", "0.5h"), rt(exe, "timeline", sample, "--bucket", "1800s")
    check(a.returncode == 0 and a.stdout == b.stdout, "timeline --bucket 0.5h equals --bucket 1800s")
    res = rt(exe, "timeline", sample, "--bucket", "1m")
    check(res.returncode == 2 and "write 1min for minutes or 1ms for milliseconds" in res.stderr,
          "timeline --bucket 1m: refused, offering 1min and 1ms")
    res = rt(exe, "analyze", sample, "--episode-gap", "0.002", "--json")
    check(res.returncode == 0, "analyze --episode-gap 0.002 (2 ms)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
