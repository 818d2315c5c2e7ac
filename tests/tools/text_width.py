#!/usr/bin/python3
"""System test: every text output fits 100 columns, over every capture in the repository.

Usage: text_width.py ROCETRACE SOURCE_ROOT

Runs, for each capture the repository holds (git ls-files *.pcap, *.pcapng, gzip'd or not), the
text of `analyze` (and with --top 1000: every flow's row), what `timeline` and `report` say on
standard error and standard output (their rows and page aside), the summary lines of `dissect
--count`, and with --conversation, --kind and repeated --flow; then `doctor` (-v, every check's
note) over every sysfs fixture tree. A line longer than 100 columns (escape sequences aside) fails,
named with its command and its length. tools/lab's own output is checked where the lab runs
(tests/analyze/check_lab_rp.py).
"""
import os
import re
import subprocess
import sys
import tempfile

WIDTH = 100
ANSI = re.compile(r"\033\[[0-9;]*m")


def captures(root):
    out = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True,
                         check=True).stdout.split()
    found = [os.path.join(root, p) for p in out
             if re.search(r"\.(pcap|pcapng|cap)(\.gz)?$", p)]
    if not found:  # a copy without git: the folders that hold them
        for d in ("samples", "tests"):
            for top, _, names in os.walk(os.path.join(root, d)):
                found += [os.path.join(top, n) for n in names
                          if re.search(r"\.(pcap|pcapng|cap)(\.gz)?$", n)]
    return sorted(found)


def check(cmd, errors, counts, stdout=True):
    res = subprocess.run(cmd, capture_output=True, text=True, errors="replace", timeout=300)
    text = (res.stdout if stdout else "") + res.stderr
    counts[0] += 1
    if res.returncode == 2 or res.returncode < 0:  # refused or killed: its text is not the one checked
        errors.append(f"{' '.join(os.path.basename(c) for c in cmd)}: exit {res.returncode}")
    for line in text.splitlines():
        counts[1] += 1
        n = len(ANSI.sub("", line))
        if n > WIDTH:
            errors.append(f"{' '.join(os.path.basename(c) for c in cmd)}: {n} columns: {line}")


def main():
    exe, root = sys.argv[1], sys.argv[2]
    errors, counts = [], [0, 0]
    files = captures(root)
    with tempfile.TemporaryDirectory() as tmp:
        page = os.path.join(tmp, "page.html")
        for f in files:
            check([exe, "analyze", f], errors, counts)
            check([exe, "analyze", f, "--top", "1000"], errors, counts)
            check([exe, "timeline", f, "-o", os.path.join(tmp, "rows.csv")], errors, counts)
            check([exe, "report", f, "-o", page], errors, counts)
            check([exe, "dissect", f, "--count"], errors, counts)
            check([exe, "dissect", f, "--count", "--kind", "data,cnp", "--flow", "0",
                   "--flow", "qp:0x11"], errors, counts)
        several = [f for f in files if "scenarios" in f][:3]
        check([exe, "analyze"] + several, errors, counts)
        check([exe, "dissect", "--count"] + several, errors, counts)
        check([exe, "analyze", os.path.join(root, "samples", "incast.pcap"), "--conversation", "0",
               "--kind", "data,ack,cnp", "--flow", "10.0.0.2"], errors, counts)
    sysfs = os.path.join(root, "tests", "doctor", "sysfs")
    for tree in sorted(os.listdir(sysfs)):
        for extra in ([], ["-v"]):
            check([exe, "doctor", "--sysfs-root", os.path.join(sysfs, tree), "--no-netlink",
                   "--interval", "0"] + extra, errors, counts)
    for e in errors[:40]:
        print(e)
    print(f"{len(files)} captures, {counts[0]} runs, {counts[1]} lines; "
          f"{len(errors)} longer than {WIDTH} columns")
    if len(files) < 40:
        print("too few captures found")
        return 1
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
