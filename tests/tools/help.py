#!/usr/bin/python3
"""System test: every help text (each subcommand and role, tools/lab) ends with examples, prints no
'%%' and names no file the repository lacks; every subcommand's is laid out as a man page (the
sections NAME, SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS, EXAMPLES in that order); lines
before the examples fit 80 columns.

Usage: help.py ROCETRACE SOURCE_ROOT
"""
import os
import re
import subprocess
import sys

HELPS = [
    [], ["dissect"], ["analyze"], ["timeline"], ["report"], ["capture"], ["gen"], ["gen", "serve"],
    ["gen", "send"], ["gen", "lat"], ["doctor"],
]
# a path into the repository: a top folder, then more ("docs/FORMATS.md", "samples/incast.pcap")
TOP = ("docs", "analyze", "capture", "common", "dissect", "doctor", "plugins", "samples", "tests",
       "tools", "traffic")
PATH = re.compile(r"(?<![\w./-])((?:%s)/[\w./-]*[\w])" % "|".join(TOP))
# a document named alone ("FORMATS.md"): must exist at the top or under docs/
DOC = re.compile(r"(?<![\w/.-])([A-Z][A-Z_]*\.md)\b")
# a subcommand's help: these section headings, unindented, in this order (others may come between)
SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "EXAMPLES"]
WIDTH = 80
EXAMPLE = re.compile(r"^\s+(sudo |tcpdump |rocetrace |tools/lab )")


def main():
    exe, root = sys.argv[1], sys.argv[2]
    errors = []
    runs = [(" ".join(["rocetrace"] + h), [exe] + h + ["--help"], bool(h)) for h in HELPS]
    runs.append(("tools/lab", [os.path.join(root, "tools", "lab"), "--help"], False))
    for name, cmd, manual in runs:
        res = subprocess.run(cmd, capture_output=True, text=True)
        text = res.stdout
        problems = []
        if res.returncode != 0 or res.stderr or not text:
            problems.append(f"exit {res.returncode}, stderr {res.stderr!r}")
        if "%%" in text:
            problems.append("prints '%%'")
        lines = [l for l in text.splitlines() if l.strip()]
        heads = [i for i, l in enumerate(lines) if l.strip().lower().rstrip(":") in ("examples", "example")]
        if not heads:
            problems.append("no examples")
        elif not all(EXAMPLE.match(l) for l in lines[heads[-1] + 1:]) or heads[-1] == len(lines) - 1:
            problems.append("does not end with examples: " + repr(lines[-1]))
        if manual:
            titles = [l for l in text.splitlines() if l and not l[0].isspace()]
            order = [t for t in titles if t in SECTIONS]
            if order != SECTIONS:
                problems.append(f"sections {order}, want {SECTIONS} in that order")
        if name != "tools/lab":
            # an example is one line to copy, however long; the rest fits a terminal
            body = lines[:heads[-1]] if heads else lines
            problems += [f"line wider than {WIDTH} columns: {l!r}" for l in body if len(l) > WIDTH]
        for p in PATH.findall(text):
            if not os.path.exists(os.path.join(root, p)):
                problems.append(f"names {p}, which the repository lacks")
        for d in DOC.findall(text):
            if not (os.path.exists(os.path.join(root, d)) or os.path.exists(os.path.join(root, "docs", d))):
                problems.append(f"names {d}, which the repository lacks")
        print(("FAIL: " if problems else "ok: ") + name + " --help" +
              (": " + "; ".join(problems) if problems else ""))
        errors += problems
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
