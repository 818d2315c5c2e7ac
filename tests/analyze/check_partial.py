#!/usr/bin/python3
"""Partial results of two vantage points merged, against one pass over both captures and the model's truth.

usage: check_partial.py ROCETRACE

The model of check_vantage.py (an incast through a switch that marks CE and
drops three packets, taps before and after it, the before tap's clock
437.3 us behind; frames built with scapy, nothing from rocetrace) writes two
captures. Each is made a partial (`analyze --partial OUT --point NAME`), the
two merged (`analyze A.rtpart B.rtpart --json`), and compared with
`analyze --vantage before=B --vantage after=A --json` on the same files:
the flows (ids, keys, packets, bytes, ECN counts, CNPs, transport figures,
home point), the totals and the findings' codes equal, but the fields the
documented rules make differ (DIFFER below, each with its reason); the
totals also against the model's truth (the independent oracle: CE marks,
CNPs, resends counted once). The refusals: partials and captures mixed,
`timeline` of a partial, two partials of one point (exit 2).
Exits 0 when all holds, 1 with one line per mismatch.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_vantage import model  # noqa: E402
from make_scenarios import write_pcap  # noqa: E402

# flow fields that differ by rule (analyze/README.md, "Across vantage points: partial results")
DIFFER = {
    "vantage_paths": "the partials' paths rest on their sample (1/64 by default), one pass's on "
                     "every packet",
}
TOTALS = ("ce", "cnp", "nak", "retransmitted", "go_back_n", "timeouts", "gaps", "gap_psns", "ecn",
          "cnp_unattributed", "nak_unattributed")

errors = []


def check(what, got, want):
    if got != want:
        errors.append("%s: %r, want %r" % (what, got, want))


def run(rt, *args, status=0):
    p = subprocess.run([rt, "analyze", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300)
    if p.returncode != status:
        errors.append("analyze %s: exit %d, want %d: %s" % (" ".join(args), p.returncode, status,
                                                           p.stderr.decode().strip()))
    return p


def main():
    rt = sys.argv[1]
    before, after, truth = model()
    d = tempfile.mkdtemp(prefix="rt_partial_")
    try:
        b, a = os.path.join(d, "before.pcap"), os.path.join(d, "after.pcap")
        pb, pa = os.path.join(d, "before.rtpart"), os.path.join(d, "after.rtpart")
        write_pcap(b, before)
        write_pcap(a, after)
        for part, cap, name in ((pb, b, "before"), (pa, a, "after")):
            p = run(rt, "--partial", part, "--point", name, cap)
            line = p.stderr.decode()
            if "frames" not in line or "bytes written" not in line:
                errors.append("analyze --partial %s: its line on stderr: %r" % (name, line))
        one = json.loads(run(rt, "--json", "--vantage", "before=" + b, "--vantage", "after=" + a).stdout)
        p = run(rt, pb, pa, "--json")
        if p.returncode:
            return report()
        merged = json.loads(p.stdout)
        check("flow count", merged["flow_count"], one["flow_count"])
        for f1, f2 in zip(one["flows"], merged["flows"]):
            for key in f1:
                if key not in DIFFER:
                    check("flow %s %s" % (f1["selector"], key), f2.get(key), f1.get(key))
        for key in TOTALS:
            check("totals " + key, merged["totals"][key], one["totals"][key])
        for key in ("packets", "bytes", "roce_packets", "roce_bytes", "start_ns", "end_ns"):
            check(key, merged[key], one[key])
        check("findings", sorted(f["code"] for f in merged["findings"]),
              sorted(f["code"] for f in one["findings"]))
        check("verdict", merged["verdict"]["state"], one["verdict"]["state"])
        # the model's truth: each packet once
        check("truth ce", merged["totals"]["ce"], truth["ce"])
        check("truth cnp", merged["totals"]["cnp"], truth["cnp"])
        check("truth retransmitted", merged["totals"]["retransmitted"], truth["retransmitted"])
        # refusals
        run(rt, pb, a, status=2)
        run(rt, pb, pb, status=2)
        p = subprocess.run([rt, "timeline", pb, pa], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=60)
        check("timeline of partials: exit", p.returncode, 2)
        if b"needs the captures" not in p.stderr:
            errors.append("timeline of partials: %r" % p.stderr.decode())
    finally:
        shutil.rmtree(d)
    return report()


def report():
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
