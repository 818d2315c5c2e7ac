#!/usr/bin/python3
"""tools/lab marks as documented (root): ECT(0) RoCEv2 packets beyond --mark bits/s are CE-marked
from the start of the run, and the lab says when its capture holds no CE mark.

Two runs: 2 senders at 50 Mb/s (100 Mb/s offered) against the default --mark 60M for 1 s: the
first CE mark must come within 100 ms of the first data packet (nftables' byte limit held a whole
second of the threshold and marked nothing in such a run); 1 sender (50 Mb/s, under the
threshold) for 0.5 s: no CE mark, and the lab says so on standard error.

usage: check_lab_marking.py ROCETRACE LAB
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_lab_rp import why_not  # noqa: E402


def lab(exe, labsh, out, *args):
    p = subprocess.run([labsh, *args, "-o", out], env=dict(os.environ, ROCETRACE=exe),
                       capture_output=True, text=True, timeout=90)
    if p.returncode:
        sys.exit("FAIL: tools/lab %s: exit %d: %s" % (" ".join(args), p.returncode,
                                                     (p.stderr or p.stdout).strip()))
    return p


def data_packets(exe, pcap):
    """(time, ecn) of each RoCE data packet toward the receiver, from rocetrace dissect."""
    out = subprocess.run([exe, "dissect", "--json", pcap], stdout=subprocess.PIPE, text=True,
                         timeout=120).stdout
    pkts = []
    for line in out.splitlines():
        r = json.loads(line)
        if r.get("kind") == "roce" and r.get("dst") == "10.77.250.2":
            pkts.append((r["ts_ns"], r.get("ecn")))
    return pkts


def main():
    exe, labsh = sys.argv[1:3]
    reason = why_not()
    if reason:
        print("SKIP:", reason)
        return 77
    errors = []
    with tempfile.TemporaryDirectory() as out:
        lab(exe, labsh, out, "-n", "2", "-D", "1")
        pkts = data_packets(exe, os.path.join(out, "bottleneck.pcapng"))
        ce = [t for t, e in pkts if e == 3]
        if not pkts or not ce:
            errors.append("2 senders over the threshold: %d data packets, no CE mark" % len(pkts))
        elif ce[0] - pkts[0][0] > 100_000_000:
            errors.append("2 senders over the threshold: the first CE mark came %.3f s after the "
                          "first data packet" % ((ce[0] - pkts[0][0]) / 1e9))
        else:
            print("2 senders: first CE mark %.1f ms after the first data packet, %d of %d marked" %
                  ((ce[0] - pkts[0][0]) / 1e6, len(ce), len(pkts)))
    with tempfile.TemporaryDirectory() as out:
        p = lab(exe, labsh, out, "-n", "1", "-D", "0.5")
        with open(os.path.join(out, "analyze.json")) as f:
            got = json.load(f)["totals"]["ce"]
        if got != 0:
            errors.append("1 sender under the threshold: %d CE marks" % got)
        if "no CE mark" not in p.stderr:
            errors.append("1 sender under the threshold: the lab did not say it saw no CE mark: %r"
                          % p.stderr)
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
