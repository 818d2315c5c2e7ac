#!/usr/bin/python3
"""A capture split into a rotated set (given out of order, plain, gzip'd or mixed) reads as the single file.

usage: check_multifile.py ROCETRACE CHECK_TRUTH.py SCENARIO_DIR NAME...

For each scenario NAME (SCENARIO_DIR/NAME.pcap with its generator truth
NAME.truth.json), the capture is cut here into three files of whole records
(this script writes the pcap format itself: an oracle independent of
rocetrace), named as capture -C names them (run.pcap, run.pcap.1,
run.pcap.2), as tcpdump -C does (trace.pcap, trace.pcap1, trace.pcap2) and
with unrelated names (the grouping by identical headers). Oracles:
 - the single file's `analyze --json`, `timeline` CSV and `dissect --json`
   (frame numbers are positions in the merged stream: the single file's);
 - the generator's truth (check_truth.py over the set);
 - captures of the same traffic at two places (two copies with a MAC
   changed) count each packet once: the totals of the single file.
Exits 0 when everything matches, 1 with one line per mismatch.
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wire_ref  # noqa: E402

errors = []


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        errors.append("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode().strip()))
    return p.stdout.decode()


def analyze_json(text):
    """analyze --json without its vantage points (they name the files read), and those points."""
    doc = json.loads(text or "{}")
    points = doc.pop("vantage_points", None)
    return json.dumps(doc, sort_keys=True), points


def write(path, header, recs, gz=False):
    opener = gzip.open if gz else open
    with opener(path, "wb") as f:
        f.write(header + b"".join(recs))


def split(header, recs, paths, gz=()):
    """Three files of consecutive records; the ones whose index is in gz compressed."""
    n = len(recs)
    cuts = [0, n // 3, 2 * n // 3, n]
    for i, p in enumerate(paths):
        write(p, header, recs[cuts[i]:cuts[i + 1]], i in gz)


def same(what, got, want):
    if got != want:
        errors.append("%s: differs from the single file's" % what)


def check_set(exe, single, files, what):
    """Every view of the set against the single file's."""
    doc, points = analyze_json(run([exe, "analyze", "--json"] + files))
    same(what + ": analyze --json", doc, single["analyze"])
    if not points or len(points) != 1 or points[0]["frames"] != single["count"]["frames"] or \
            sorted(points[0]["files"]) != sorted(files):
        errors.append("%s: analyze: not one vantage point holding every file and frame: %r" % (what, points))
    same(what + ": timeline", run([exe, "timeline", "--bucket", "10us"] + files), single["timeline"])
    same(what + ": dissect --json",
         [json.dumps({k: v for k, v in json.loads(x).items() if k != "file"})
          for x in run([exe, "dissect", "--json"] + files).splitlines()], single["dissect"])
    count = json.loads(run([exe, "dissect", "--count", "--json"] + files) or "{}")
    points = count.pop("vantage_points", None)
    same(what + ": dissect --count", count, single["count"])
    if not points or len(points) != 1 or points[0]["frames"] != single["count"]["frames"] or \
            sorted(points[0]["files"]) != sorted(files):
        errors.append("%s: not one vantage point holding every file and frame: %r" % (what, points))


def main():
    exe, check_truth, scen_dir = sys.argv[1:4]
    tmp = tempfile.mkdtemp(prefix="rt-multifile-")
    try:
        for name in sys.argv[4:]:
            cap = os.path.join(scen_dir, name + ".pcap")
            truth = os.path.join(scen_dir, name + ".truth.json")
            d = os.path.join(tmp, name)
            os.makedirs(d)
            single = {
                "analyze": analyze_json(run([exe, "analyze", "--json", cap]))[0],
                "timeline": run([exe, "timeline", "--bucket", "10us", cap]),
                "dissect": [json.dumps(json.loads(x))
                            for x in run([exe, "dissect", "--json", cap]).splitlines()],
                "count": json.loads(run([exe, "dissect", "--count", "--json", cap]) or "{}"),
            }
            header, recs = wire_ref.pcap_records(cap)
            assert header[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"), cap

            # capture -C names, given out of order; plain, then all gzip'd, then mixed
            for kind, gz in (("plain", ()), ("gzip", (0, 1, 2)), ("mixed", (1,))):
                base = os.path.join(d, kind, "run.pcap")
                os.makedirs(os.path.dirname(base))
                paths = [base, base + ".1", base + ".2"]
                split(header, recs, paths, gz)
                for i in gz:
                    os.rename(paths[i], paths[i] + ".gz")
                    paths[i] += ".gz"
                order = [paths[2], paths[0], paths[1]]
                check_set(exe, single, order, "%s %s set" % (name, kind))
                if kind == "mixed":
                    # the generator's truth, from the set
                    p = subprocess.run([sys.executable, check_truth, exe] + order + [truth],
                                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
                    if p.returncode:
                        errors.append("%s set vs truth: %s" % (name, p.stdout.decode().strip()))

            # tcpdump -C names, and unrelated names (grouped by their identical headers)
            base = os.path.join(d, "trace.pcap")
            paths = [base, base + "1", base + "2"]
            split(header, recs, paths)
            check_set(exe, single, paths[::-1], name + " tcpdump -C set")
            paths = [os.path.join(d, n) for n in ("morning.pcap", "noon.pcap", "evening.pcap")]
            split(header, recs, paths)
            check_set(exe, single, [paths[1], paths[2], paths[0]], name + " set by header")

            # the whole capture gzip'd
            with open(cap, "rb") as f, gzip.open(os.path.join(d, "whole.pcap.gz"), "wb") as g:
                shutil.copyfileobj(f, g)
            same(name + " gzip'd: analyze --json",
                 analyze_json(run([exe, "analyze", "--json", os.path.join(d, "whole.pcap.gz")]))[0],
                 single["analyze"])

            # the same traffic seen at two places (the second copy's source MACs changed, as
            # after a hop): two vantage points, each packet counted once
            hop = [r[:16 + 6] + b"\x02\x00\x00\x00\x00\x99" + r[16 + 12:] for r in recs]
            a, b = os.path.join(d, "tx.pcap"), os.path.join(d, "rx.pcap")
            write(a, header, recs)
            write(b, header, hop)
            rep = json.loads(run([exe, "analyze", "--json", a, b]) or "{}")
            want = json.loads(single["analyze"])
            for k in ("ce", "cnp", "nak", "retransmitted"):
                if rep.get("totals", {}).get(k) != want["totals"][k]:
                    errors.append("%s two vantage points: totals.%s %r, want %r" %
                                  (name, k, rep.get("totals", {}).get(k), want["totals"][k]))
            count = json.loads(run([exe, "dissect", "--count", "--json", a, b]) or "{}")
            got = [(p["name"], p["frames"]) for p in count.get("vantage_points", [])]
            if got != [("tx", len(recs)), ("rx", len(recs))]:
                errors.append("%s two vantage points: %r" % (name, got))
            got = [(p["name"], p["frames"]) for p in rep.get("vantage_points", [])]
            if got != [("tx", len(recs)), ("rx", len(recs))]:
                errors.append("%s two vantage points: analyze: %r" % (name, got))
            # every RoCE packet seen at both, none lost or marked between them
            paths = rep.get("paths", [])
            if sum(p["matched"] for p in paths) != want["roce_packets"] or \
                    any(p["lost"] or p["ce_marked"] for p in paths):
                errors.append("%s two vantage points: paths %r, want %d packets matched" %
                              (name, paths, want["roce_packets"]))
    finally:
        shutil.rmtree(tmp)
    if errors:
        for e in errors:
            print("MISMATCH " + e)
        sys.exit(1)
    print("ok: rotated sets, gzip'd files and two vantage points read as the single files")


main()
