#!/usr/bin/python3
"""The RP reaction in a live congestion loop (root): 4 senders at 12 Mb/s into tools/lab's
ECN-marking bottleneck, DCQCN on, packets ~700 us apart. On the wire a sender's cut is over
long before its next packet, so every flow's rp_reaction.median_drop_pct must be null (with a
reason) or within 20 points of the cuts the sender logged for CNPs.

usage: check_lab_rp.py ROCETRACE LAB
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SENDERS = 4


def why_not():
    """Why this machine cannot run the lab, or None."""
    if os.geteuid() != 0:
        return "needs root for network namespaces"
    missing = [t for t in ("ip", "tc", "nft") if not shutil.which(t)]
    if missing:
        return "%s not installed" % ", ".join(missing)
    probe = "rt-rp-probe-%d" % os.getpid()
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True)
    if r.returncode:
        return "cannot create a network namespace: " + r.stderr.strip()
    subprocess.run(["ip", "netns", "del", probe])
    return None


def logged_cuts(path):
    """{(src, dst, dest_qp): [cut percent for each rate change the source made for a CNP]}"""
    last, cuts = {}, {}
    with open(path) as f:
        for line in f:
            e = json.loads(line)
            if e.get("event") != "rate":
                continue
            key = (e["src"], e["dst"], e["dest_qp"])
            if e.get("reason") == "cnp" and last.get(key):
                cuts.setdefault(key, []).append(100 * (1 - e["rate_mbps"] / last[key]))
            last[key] = e["rate_mbps"]
    return cuts


def main():
    exe, lab = sys.argv[1:3]
    reason = why_not()
    if reason:
        print("SKIP:", reason)
        return 77
    errors = []
    with tempfile.TemporaryDirectory() as out:
        p = subprocess.run([lab, "-n", str(SENDERS), "--line-rate", "12M", "-m", "20M", "-D", "2",
                            "-o", out],
                           env=dict(os.environ, ROCETRACE=exe), capture_output=True, text=True,
                           timeout=90)
        if p.returncode:
            print("FAIL: tools/lab exit %d: %s" % (p.returncode, (p.stderr or p.stdout).strip()))
            return 1
        # what the lab prints and writes for people (its own lines, the analysis) fits 100 columns
        with open(os.path.join(out, "analyze.txt")) as f:
            text = p.stdout + p.stderr + f.read()
        with open(os.path.join(out, "lab.txt")) as f:
            text += "".join(f.readlines()[:6])  # the lab's own lines, before nft's and tc's
        for line in text.splitlines():
            if len(line) > 100:
                errors.append("tools/lab prints a line of %d columns: %s" % (len(line), line))
        cuts = {}
        for k in range(1, SENDERS + 1):
            cuts.update(logged_cuts(os.path.join(out, "send-%d.jsonl" % k)))
        with open(os.path.join(out, "analyze.json")) as f:
            rep = json.load(f)
    if len(cuts) != SENDERS:
        errors.append("%d senders logged cuts for CNPs, expected %d" % (len(cuts), SENDERS))
    flows = {(f["src"], f["dst"], f["dest_qp"]): f for f in rep["flows"]}
    for key, c in sorted(cuts.items()):
        f = flows.get(key)
        if f is None:
            errors.append("flow %s: not in the capture" % (key,))
            continue
        rp = f["rp_reaction"]
        logged = sum(c) / len(c)
        print("flow %s: %d CNPs on the wire, sender logged %d cuts of %.1f%% on average; wire: %s"
              % (key, f["cnp_received"], len(c), logged, json.dumps(rp)))
        if rp is None:
            errors.append("flow %s: CNPs on the wire but no rp_reaction" % (key,))
            continue
        apart = ("too_few_packets", "cnp_in_window", "psn_gap_in_window", "resend_in_window",
                 "pause_in_window", "idle_before", "idle_after", "full_link")
        if rp["measured"] + sum(rp[k] for k in apart) != rp["cnps"]:
            errors.append("flow %s: rp_reaction counts do not add up" % (key,))
        if rp["median_drop_pct"] is None:
            if not rp["drop_null_reason"]:
                errors.append("flow %s: median_drop_pct is null with no reason" % (key,))
        elif abs(rp["median_drop_pct"] - logged) > 20:
            errors.append("flow %s: the wire says the rate fell %.1f%%, the sender logged %.1f%%"
                          % (key, rp["median_drop_pct"], logged))
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
