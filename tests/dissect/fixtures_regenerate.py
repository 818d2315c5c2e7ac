#!/usr/bin/python3
"""Reruns tests/fixtures/make_fixtures.py (and its frames.py) into a temporary folder and checks every file it writes is byte-identical to the committed one."""

import filecmp
import os
import subprocess
import sys
import tempfile


def main():
    fixtures = sys.argv[1]
    try:
        import scapy.contrib.roce  # noqa: F401  (the generator needs it)
    except ImportError:
        print("skip: scapy (python3-scapy) is not installed")
        sys.exit(77)
    with tempfile.TemporaryDirectory(prefix="rt-fixtures-") as tmp:
        subprocess.run([sys.executable, os.path.join(fixtures, "make_fixtures.py"), tmp], check=True)
        made = sorted(os.listdir(tmp))
        have = sorted(f for f in os.listdir(fixtures) if not f.endswith(".py") and
                      f != "__pycache__" and not f.startswith("."))
        bad = []
        if made != have:
            bad.append("file sets differ: only generated %s, only committed %s" %
                       (sorted(set(made) - set(have)), sorted(set(have) - set(made))))
        for name in made:
            if name in have and not filecmp.cmp(os.path.join(tmp, name),
                                                os.path.join(fixtures, name), shallow=False):
                bad.append("%s differs from the regenerated one" % name)
        if bad:
            print("\n".join(bad))
            sys.exit(1)
        print("ok: %d fixture files regenerate identically" % len(made))


if __name__ == "__main__":
    main()
