#!/usr/bin/python3
"""timeline and report without --bucket: a bucket from the capture's length, and they say which.

Usage: default_bucket.py ROCETRACE CAPTURE...
The capture's length is read here from the pcap records (not from rocetrace); the bucket must be
the shortest of 1, 2 or 5 times a power of ten ns that cuts it into at most 1000 (at least 100 ns;
the report's at most 100 us), timeline must write the rows --bucket of that value writes and say
so on stderr, the report page must show it, and standard input gets 100 us, said so too.
"""
import base64
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wire_ref  # noqa: E402

errors = []


def check(cond, what):
    print(("ok: " if cond else "FAIL: ") + what)
    if not cond:
        errors.append(what)


def span_ns(path):
    ts = [f[0] for f in wire_ref.read_capture(path)[1]]
    return max(ts) - min(ts)


def bucket_for(span):
    decade = 1
    while True:
        for step in (1, 2, 5):
            b = step * decade
            if b * 1000 >= span and b >= 100:
                return b
        decade *= 10


def text(ns):
    for unit, mul in (("s", 10**9), ("ms", 10**6), ("us", 10**3)):
        if ns % mul == 0:
            return "%d%s" % (ns // mul, unit)
    return "%dns" % ns


def run(args, **kw):
    return subprocess.run(args, capture_output=True, timeout=120, **kw)


def main():
    exe, captures = sys.argv[1], sys.argv[2:]
    for cap in captures:
        name = os.path.basename(cap)
        span = span_ns(cap)
        want = bucket_for(span)
        res = run([exe, "timeline", cap])
        line = "rocetrace timeline: no --bucket: %s buckets, %d over the capture's " % (
            text(want), span // want + 1)
        said = [l for l in res.stderr.decode().splitlines() if "--bucket" in l]
        check(res.returncode == 0 and len(said) == 1 and said[0].startswith(line),
              "%s: timeline picks %s for %.6f s and says so (%s)" % (name, text(want), span / 1e9, said))
        given = run([exe, "timeline", cap, "--bucket", text(want)])
        check(res.stdout == given.stdout and res.stdout.count(b"\n") > 1,
              "%s: the rows of --bucket %s" % (name, text(want)))
        check(b"no --bucket" not in given.stderr, "%s: --bucket given: nothing said" % name)
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "r.html")
            res = run([exe, "report", cap, "-o", out])
            with open(out, encoding="utf-8") as f:
                page = f.read()
            m = re.search(r'<script type="application/json" id="rt-meta">([^<]*)</script>', page)
            meta = json.loads(m.group(1))
            s = re.search(r'<script type="application/gzip\+base64" id="rt-series">([^<]*)</script>', page)
            series = json.loads(gzip.decompress(base64.b64decode("".join(s.group(1).split()))))
            rwant = min(want, 100000)
            note = ("no --bucket: 100us buckets, the longest report chooses, for a capture over "
                    "100 ms" if want > rwant else
                    "no --bucket: %s buckets, %d over" % (text(rwant), span // rwant + 1))
            check(series["bucket_ns"] == rwant and (meta["bucket_note"] or "").startswith(note),
                "%s: the report's buckets are %s, and its page says why (%s)" % (name, text(rwant),
                                                                                meta["bucket_note"]))
        with open(cap, "rb") as fin:
            res = run([exe, "timeline", "-"], stdin=fin)
        given = run([exe, "timeline", cap, "--bucket", "100us"])
        check(res.stdout == given.stdout and b"rocetrace timeline: no --bucket, and standard input "
              b"cannot be measured before it is read: 100us buckets\n" in res.stderr,
              "%s: standard input gets 100us buckets, said so" % name)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
