#!/usr/bin/python3
"""Each planted fault is found, naming who is at fault, and nothing else is: `analyze --json`'s findings
against make_findings.py's truth (what its generator planted, never rocetrace's own output).

usage: check_findings.py ROCETRACE [SCENARIO...]

For every scenario (analyzed with its truth's `args`, its files as vantage points when several):
each planted finding is there with its severity, its subjects hold the planted hosts, MACs, flows
and priorities, its evidence the planted figures (a figure planted null must be null) and its
confidence where one is planted; every other finding, info included, is a false one unless the
truth lists its code as following from the fault (`also`). `healthy` plants nothing: no finding at all. The text report opens
with the same findings and says what the truth's `text` holds (unwrapped), and `--fail-on` exits 3 exactly when one of that severity or worse is there.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
RANK = {"info": 0, "warning": 1, "error": 2}


def args_of(d, truth):
    """The scenario's files (one, or a vantage point each) and the options it is analyzed with."""
    if len(truth["files"]) == 1:
        return truth.get("args", []) + [os.path.join(d, truth["files"][0][1])]
    out = list(truth.get("args", []))
    for point, name in truth["files"]:
        out += ["--vantage", "%s=%s" % (point, os.path.join(d, name))]
    return out


def same(got, want):
    if isinstance(want, float):
        return isinstance(got, (int, float)) and abs(got - want) <= 0.01 * abs(want)
    return got == want


def mismatches(name, want, f):
    """How finding f differs from the planted `want`: its severity, subjects and evidence."""
    bad = []
    if f["severity"] != want["severity"]:
        bad.append("%s: %s is %s, planted as %s" % (name, want["code"], f["severity"],
                                                     want["severity"]))
    if "confidence" in want and f["confidence"] != want["confidence"]:
        bad.append("%s: %s has confidence %s, not %s" % (name, want["code"], f["confidence"],
                                                          want["confidence"]))
    subj = f["subjects"]
    for key in ("hosts", "macs", "flows", "priorities"):
        missing = [x for x in want.get(key, []) if x not in subj.get(key, [])]
        if missing:
            bad.append("%s: %s names %s %s, not %s" % (name, want["code"], key, subj.get(key),
                                                       missing))
    for k, v in want.get("evidence", {}).items():
        if k not in f["evidence"] or not same(f["evidence"][k], v):
            bad.append("%s: %s evidence %s = %r, planted %r" % (name, want["code"], k,
                                                              f["evidence"].get(k, "(none)"), v))
    return bad


def check_one(exe, d, errors):
    with open(os.path.join(d, "truth.json")) as f:
        truth = json.load(f)
    name = truth["name"]
    args = args_of(d, truth)
    p = subprocess.run([exe, "analyze", "--json"] + args, capture_output=True, text=True, timeout=120)
    if p.returncode:
        errors.append("%s: analyze exited %d: %s" % (name, p.returncode, p.stderr.strip()))
        return
    found = json.loads(p.stdout)["findings"]
    codes = [f["code"] for f in found]
    for want in truth["expect"]:
        mine = [f for f in found if f["code"] == want["code"]]
        if not mine:
            errors.append("%s: %s not found (found %s)" % (name, want["code"], codes))
            continue
        # of the findings of that code, the one that differs least from the planted fault
        f, bad = min(((f, mismatches(name, want, f)) for f in mine), key=lambda x: len(x[1]))
        errors += bad
    allowed = {w["code"] for w in truth["expect"]} | set(truth["also"])
    for f in found:
        if f["code"] not in allowed:
            errors.append("%s: false finding %s (%s): %s" % (name, f["code"], f["severity"],
                                                             f["summary"]))
    # the text report opens with the same findings, most severe first
    text = subprocess.run([exe, "analyze"] + args, capture_output=True, text=True,
                          timeout=120).stdout.splitlines()
    shown = [line.split(":", 1)[0].split() for line in text if line.startswith("  ")
             and line.split(":", 1)[0].split()[:1] in (["info"], ["warning"], ["error"])]
    if [tuple(s) for s in shown] != [(f["severity"], f["code"]) for f in found]:
        errors.append("%s: the text report shows %s, the JSON %s" % (name, shown, codes))
    words = " ".join(" ".join(text).split())  # the report unwrapped
    for want in truth.get("text", []):
        if want not in words:
            errors.append("%s: the text report does not say %r" % (name, want))
    if found and not text[0].startswith("Findings (%d, most severe first):" % len(found)):
        errors.append("%s: the text report does not open with the findings: %r" % (name, text[0]))
    # --fail-on: 3 when a finding of that severity or worse is there
    worst = max([RANK[f["severity"]] for f in found], default=-1)
    for level in ("warning", "error"):
        rc = subprocess.run([exe, "analyze", "--fail-on", level] + args, capture_output=True,
                            timeout=120).returncode
        if rc != (3 if worst >= RANK[level] else 0):
            errors.append("%s: --fail-on %s exited %d with findings %s" % (name, level, rc, codes))
    print("%s: %s" % (name, ", ".join("%s %s" % (f["severity"], f["code"]) for f in found) or
                      "no finding"))


def main():
    exe = sys.argv[1]
    only = sys.argv[2:]
    errors = []
    with tempfile.TemporaryDirectory(prefix="rt-findings-") as tmp:
        subprocess.run([sys.executable, os.path.join(HERE, "make_findings.py"), tmp], check=True,
                       timeout=300)
        if not os.listdir(tmp):
            errors.append("make_findings.py wrote no scenario")
        for name in sorted(os.listdir(tmp)):
            if not only or name in only:
                check_one(exe, os.path.join(tmp, name), errors)
    for e in errors:
        print("FAIL " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
