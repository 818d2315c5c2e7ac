#!/usr/bin/python3
"""System test: every subcommand's --help lists each option its option table takes (long names,
aliases and letters), and names no option the command does not take. The options a help lists are
the words starting with '-' on the heading lines of its OPTIONS section (indented 4 columns; their
descriptions are indented 8); "-tt" and "-xx" count as -t and -x.

Usage: help_options.py LIST_OPTIONS ROCETRACE
  LIST_OPTIONS prints "COMMAND --name" / "COMMAND -x" for each option each table takes.
"""
import re
import subprocess
import sys

COMMANDS = ["dissect", "analyze", "timeline", "report", "capture", "gen", "doctor"]
LONG = re.compile(r"(?<![\w-])(--[a-z][a-z0-9_-]*[a-z0-9])")
SHORT = re.compile(r"(?<![\w-])-([A-Za-z#])\1*(?![\w-])")


def listed(text):
    """The options the OPTIONS section of a help names on its heading lines."""
    names, inside = set(), False
    for line in text.splitlines():
        if line and not line[0].isspace():
            inside = line.strip() == "OPTIONS"
            continue
        if not inside or not line.startswith("    ") or line.startswith("     "):
            continue
        head = line.strip()
        if not (head.startswith("-") or head.startswith("EXPRESSION")):
            continue  # prose between the options
        names.update(LONG.findall(head))
        names.update("-" + c for c in SHORT.findall(head))
    return names


def main():
    lister, exe = sys.argv[1], sys.argv[2]
    taken = {c: set() for c in COMMANDS}
    for line in subprocess.run([lister], capture_output=True, text=True, check=True).stdout.splitlines():
        cmd, opt = line.split()
        taken[cmd].add(opt)
    failed = False
    for cmd in COMMANDS:
        res = subprocess.run([exe, cmd, "--help"], capture_output=True, text=True)
        helped = listed(res.stdout)
        missing, unknown = sorted(taken[cmd] - helped), sorted(helped - taken[cmd])
        problems = []
        if res.returncode or not taken[cmd]:
            problems.append(f"exit {res.returncode}, {len(taken[cmd])} options in its table")
        if missing:
            problems.append("takes but does not list " + " ".join(missing))
        if unknown:
            problems.append("lists but does not take " + " ".join(unknown))
        print(("FAIL: " if problems else "ok: ") + f"{cmd} --help ({len(helped)} options)" +
              (": " + "; ".join(problems) if problems else ""))
        failed |= bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
