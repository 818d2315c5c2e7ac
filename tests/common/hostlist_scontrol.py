#!/usr/bin/python3
"""Cross-check of common/hostlist.c against Slurm's own `scontrol show hostnames EXPR`.

Usage: hostlist_scontrol.py HOSTLIST_EXPAND

Several hundred expressions, fixed ones and ones drawn at random (fixed seed: the
same run each time), are expanded by both. Where scontrol expands, the names must be
the same, in the same order; where it refuses ("Invalid hostlist"), or drops an item
of a list with an error line, ours must refuse the expression. scontrol needs no controller for this, only a slurm.conf naming one: the test
writes a two-line one in a temporary folder. Skipped (77) without scontrol.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile

EXPAND = sys.argv[1]

FIXED = [
    "node[01-16,20]", "h[1-3]", "a[1-2]b[3-4]", "a[1-2]-b[3-4]", "a[1-2]b[1-2]c[1-2]d[1-2]",
    "n[001-3]", "n[1-0010]", "n[098-101]", "n[3-1]", "n[]", "n[1-3]x", "n[a-b]", "n[1-2,]",
    "n[,1]", "n[1--2]", "n[-1]", "n[1-3;5]", "n[1-2]]", "n[[1-2]]", "[1-2]", "n[1-2][3]",
    "a,,b", ",a", "n[1-2],m[1-2]x", "n[1-2]=x", "rack[1-2]-node[01-02]", "n[0-65535]",
]


def drawn(rng):
    """An expression of 1-3 items, each a name or a pattern of 1-3 brackets, sometimes broken."""
    items = []
    for _ in range(rng.randint(1, 3)):
        text = lambda: "".join(rng.choice("abcxyz-._") for _ in range(rng.randint(0, 3)))
        if rng.random() < 0.2:
            items.append(rng.choice("abcn") + text())
            continue
        parts = [rng.choice("abcn") + text()]
        for b in range(rng.randint(1, 3)):
            ranges = []
            for _ in range(rng.randint(1, 3)):
                lo = rng.randint(0, 120)
                los = "0" * rng.choice([0, 0, 1, 2]) + str(lo)
                if rng.random() < 0.5:
                    ranges.append(los)
                else:
                    hi = lo + rng.randint(-2 if rng.random() < 0.1 else 0, 12)
                    ranges.append(los + "-" + "0" * rng.choice([0, 0, 1]) + str(hi))
            parts.append("[" + ",".join(ranges) + "]")
            if b < 2:
                parts.append(text())
        expr = "".join(parts)
        if not expr.endswith("]") and rng.random() < 0.7:
            expr = expr.rstrip("abcxyz-._")  # mostly well formed: text after the last ']' is refused
        items.append(expr)
    return ",".join(items)


def main():
    scontrol = shutil.which("scontrol")
    if not scontrol:
        print("SKIP: scontrol (slurm-wlm or slurm-client) is not installed")
        return 77
    rng = random.Random(26)
    exprs = FIXED + [drawn(rng) for _ in range(400)]
    failures = 0
    with tempfile.TemporaryDirectory(prefix="rt-hostlist-") as tmp:
        conf = os.path.join(tmp, "slurm.conf")
        with open(conf, "w") as f:
            f.write("ClusterName=hostlist\nSlurmctldHost=localhost\n")
        env = dict(os.environ, SLURM_CONF=conf)
        ours = subprocess.run([EXPAND] + exprs, capture_output=True, text=True, check=True,
                              timeout=60).stdout.split("\n")
        expanded = refused = 0
        for expr, mine in zip(exprs, ours):
            p = subprocess.run([scontrol, "show", "hostnames", expr], capture_output=True, text=True,
                               env=env, timeout=30)
            if "Could not establish a configuration source" in p.stderr:
                print("SKIP: scontrol does not read", conf, p.stderr.strip())
                return 77
            # scontrol refuses an expression ("Invalid hostlist"), or drops a bad item of a
            # list after an error line ("Invalid range"): ours refuses both
            if "Invalid hostlist" in p.stderr or "error: " in p.stderr:
                refused += 1
                ok = mine.startswith("error: ")
            else:
                expanded += 1
                ok = mine == " ".join(p.stdout.split())
            if not ok:
                failures += 1
                print(f"FAIL: {expr!r}: scontrol {p.stdout.split() or p.stderr.strip()!r}, ours {mine!r}")
        print(f"{len(exprs)} expressions: {expanded} expanded, {refused} refused by both scontrol and us, "
              f"{failures} differ")
        if expanded < 100 or refused < 20:
            print("FAIL: the drawn expressions should hold both kinds")
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
