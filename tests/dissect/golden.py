#!/usr/bin/python3
"""Golden test: runs `rocetrace dissect INPUT ARGS...` and compares its stdout byte for byte with a golden file.

Usage: golden.py [--update] [--stdin] ROCETRACE GOLDEN INPUT [ARGS...]
  --update (or RT_UPDATE_GOLDEN=1 in the environment) rewrites GOLDEN
  instead of comparing; --stdin feeds INPUT on standard input ("-").
"""

import difflib
import os
import subprocess
import sys


def main():
    args = sys.argv[1:]
    update = os.environ.get("RT_UPDATE_GOLDEN") == "1"
    stdin = False
    while args and args[0].startswith("--"):
        flag = args.pop(0)
        if flag == "--update":
            update = True
        elif flag == "--stdin":
            stdin = True
        else:
            sys.exit("golden.py: unknown flag " + flag)
    if len(args) < 3:
        sys.exit(__doc__)
    exe, golden, inp, extra = args[0], args[1], args[2], args[3:]
    cmd = [exe, "dissect", "-" if stdin else inp] + extra
    with open(inp if stdin else os.devnull, "rb") as fin:
        res = subprocess.run(cmd, stdin=fin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             check=False)
    if res.returncode != 0:
        sys.stderr.write(res.stderr.decode(errors="replace"))
        sys.exit("golden.py: %s exited %d" % (" ".join(cmd), res.returncode))
    if res.stderr:
        sys.stderr.write(res.stderr.decode(errors="replace"))
        sys.exit("golden.py: %s wrote to stderr" % " ".join(cmd))
    if update:
        with open(golden, "wb") as f:
            f.write(res.stdout)
        print("updated", golden)
        return
    try:
        with open(golden, "rb") as f:
            want = f.read()
    except FileNotFoundError:
        sys.exit("golden.py: %s is missing (RT_UPDATE_GOLDEN=1 creates it)" % golden)
    if want == res.stdout:
        print("ok: %s matches %s" % (" ".join(cmd), golden))
        return
    diff = difflib.unified_diff(want.decode(errors="replace").splitlines(True),
                                res.stdout.decode(errors="replace").splitlines(True),
                                golden, "output of " + " ".join(cmd))
    sys.stdout.writelines(list(diff)[:200])
    sys.exit("golden.py: output differs from %s" % golden)


if __name__ == "__main__":
    main()
