#!/usr/bin/python3
"""The committed scenario captures and truth files (and samples/incast.pcap) are what
make_scenarios.py builds: regenerate them in a temporary directory and compare bytes.

usage: check_scenarios.py SCENARIO_DIR SAMPLES_DIR
"""
import filecmp
import os
import subprocess
import sys
import tempfile


def main():
    scen, samples = sys.argv[1:3]
    tmp = tempfile.mkdtemp(prefix="rt-scen-")
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "make_scenarios.py")
    subprocess.run([sys.executable, gen, tmp], check=True, stdout=subprocess.DEVNULL, timeout=120)
    bad = []
    made = sorted(os.listdir(tmp))
    for name in made:
        if not filecmp.cmp(os.path.join(tmp, name), os.path.join(scen, name), shallow=False):
            bad.append(name)
    if not filecmp.cmp(os.path.join(tmp, "incast.pcap"), os.path.join(samples, "incast.pcap"),
                       shallow=False):
        bad.append("samples/incast.pcap")
    for b in bad:
        print("FAIL %s differs from what make_scenarios.py builds" % b)
    if bad:
        sys.exit(1)
    print("ok: %d scenario files reproduced" % len(made))


if __name__ == "__main__":
    main()
