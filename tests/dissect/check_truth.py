#!/usr/bin/python3
"""Checks `rocetrace dissect --json` against every fixture's truth file (what the generator put in each frame).

Usage: check_truth.py ROCETRACE FIXTURES_DIR
Every key of a truth line must have the same value in the JSON line of the
same frame (nested objects key by key); "events" names events the frame must
report, others may be reported too, except truncation events (NAME_truncated):
a frame reports exactly the truncation events its truth names, so a frame the
snap length cut inside its BTH must say bth_truncated and nothing else, and an
uncut frame none. The truth of every frame the snap length cut must say
whether it is "truncated" (the generator knows where each layer it built ends).
"""

import json
import os
import subprocess
import sys


def compare(want, got, path, errors):
    if isinstance(want, dict):
        if not isinstance(got, dict):
            errors.append("%s: want object %s, got %r" % (path, json.dumps(want), got))
            return
        for k, v in want.items():
            if k not in got:
                errors.append("%s.%s: missing (want %s)" % (path, k, json.dumps(v)))
            else:
                compare(v, got[k], path + "." + k, errors)
    elif want != got or type(want) is not type(got):
        errors.append("%s: want %s, got %s" % (path, json.dumps(want), json.dumps(got)))


def truncations(events):
    return sorted(e for e in events if e.endswith("_truncated"))


def check_file(exe, capture, truth_path, stats):
    with open(truth_path) as f:
        truth = [json.loads(line) for line in f]
    res = subprocess.run([exe, "dissect", "--json", capture], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False)
    if res.returncode != 0:
        return ["%s: exit %d: %s" % (capture, res.returncode, res.stderr.decode().strip())]
    got = [json.loads(line) for line in res.stdout.decode().splitlines()]
    errors = []
    if len(got) != len(truth):
        errors.append("%s: %d frames decoded, truth has %d" % (capture, len(got), len(truth)))
    for t, g in zip(truth, got):
        t = dict(t)
        events = t.pop("events", [])
        where = "%s frame %d" % (os.path.basename(capture), t["frame"])
        compare(t, g, where, errors)
        missing = [e for e in events if e not in g.get("events", [])]
        if missing:
            errors.append("%s: events %s missing (got %s)" % (where, missing, g.get("events", [])))
        if truncations(events) != truncations(g.get("events", [])):
            errors.append("%s: truncation events %s, the truth says %s" %
                          (where, truncations(g.get("events", [])), truncations(events)))
        if t["caplen"] < t["len"]:
            stats["cut"] += 1
            if "truncated" not in t:
                errors.append("%s: cut by the snap length, but the truth does not say what was cut"
                              % where)
            elif truncations(events):
                stats["cut_layer"] += 1
    return errors


def main():
    exe, fixtures = sys.argv[1], sys.argv[2]
    truths = sorted(f for f in os.listdir(fixtures) if f.endswith(".truth.jsonl"))
    errors, frames, stats = [], 0, {"cut": 0, "cut_layer": 0}
    for t in truths:
        base = t[:-len(".truth.jsonl")]
        capture = os.path.join(fixtures, base if os.path.splitext(base)[1] else base + ".pcap")
        errors += check_file(exe, capture, os.path.join(fixtures, t), stats)
        with open(os.path.join(fixtures, t)) as f:
            frames += sum(1 for _ in f)
    for e in errors:
        print(e)
    if not stats["cut_layer"]:
        errors.append("no frame cut by the snap length names its cut layer: the snap fixtures are gone")
    if not truths or errors:
        sys.exit("check_truth: %d mismatches over %d truth files" % (len(errors), len(truths)))
    print("ok: %d frames of %d fixtures match their truth; %d frames cut by the snap length, "
          "%d of them inside a layer the truth names" %
          (frames, len(truths), stats["cut"], stats["cut_layer"]))


if __name__ == "__main__":
    main()
