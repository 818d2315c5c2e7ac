#!/usr/bin/python3
"""`rocetrace report`: the page holds exactly `analyze --json`'s document, loads nothing, stays small,
escapes what comes from outside, and bad input still gives a page with analyze's exit status.

usage: check_report.py ROCETRACE SAMPLE_PCAP SCENARIO_DIR RXE_CAPTURE_DIR
Exits 77 when rocetrace was built without the report's charting library (libjs-dygraphs).
"""
import base64
import glob
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wire_ref  # noqa: E402

errors = []
MAX_PAGE = 10 * 1000 * 1000


def run(args, cwd=None):
    return subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120, cwd=cwd)


def embedded(page, ident):
    """The gzip+base64 document of script element `ident`, parsed."""
    m = re.search(r'<script type="application/gzip\+base64" id="%s">([^<]*)</script>' % ident, page)
    if not m:
        return None
    return json.loads(gzip.decompress(base64.b64decode("".join(m.group(1).split()))))


def meta(page):
    m = re.search(r'<script type="application/json" id="rt-meta">([^<]*)</script>', page)
    return json.loads(m.group(1)) if m else None


def report(exe, cap, out, *extra, cwd=None):
    p = run([exe, "report", cap, "-o", out] + list(extra), cwd=cwd)
    page = None
    if os.path.exists(out):
        with open(out, encoding="utf-8") as f:
            page = f.read()
    return p, page


def check_page(name, page):
    """What every page holds: no address to load, a bounded size, the three data elements."""
    if page is None:
        errors.append("%s: no page written" % name)
        return False
    for ref in re.findall(r"https?://\S{0,40}", page):
        errors.append("%s: the page refers to %s" % (name, ref))
    if len(page.encode()) > MAX_PAGE:
        errors.append("%s: the page is %d bytes (over 10 MB)" % (name, len(page.encode())))
    for ident in ("rt-meta", "rt-analysis", "rt-series"):
        if 'id="%s"' % ident not in page:
            errors.append("%s: no %s element" % (name, ident))
            return False
    return True


def same_as_analyze(exe, name, cap, page, *extra):
    """The page's analysis is analyze --json's document, key for key."""
    p = run([exe, "analyze", "--json", cap] + list(extra))
    want = json.loads(p.stdout)
    got = embedded(page, "rt-analysis")
    if got != want:
        keys = sorted(k for k in set(want) | set(got or {}) if (got or {}).get(k) != want.get(k))
        errors.append("%s: the page's analysis differs from analyze --json in %s" % (name, keys))
    return p.returncode, want


def multi_file(exe, sample, scen, tmp):
    """Several files as one stream, as analyze reads them: a rotated set (one part gzip'd, named out of
    order), -r repeated, two vantage points named with --vantage. Each page holds analyze --json's
    document of the same files (its totals, flows, warnings, vantage points and paths), names every file,
    and takes its default name and title from the first FILE."""
    header, recs = wire_ref.pcap_records(sample)
    third = len(recs) // 3
    parts = [recs[:third], recs[third:2 * third], recs[2 * third:]]
    names = [os.path.join(tmp, n) for n in ("rot.pcap", "rot.pcap.1", "rot.pcap.2.gz")]
    for path, part in zip(names, parts):
        blob = header + b"".join(part)
        with (gzip.open(path, "wb") if path.endswith(".gz") else open(path, "wb")) as f:
            f.write(blob)
    whole = run([exe, "analyze", "--json", sample])
    cases = (("rotated set", [names[0], names[2], names[1]], []),
             ("-r repeated", ["-r", names[0], "-r", names[1], "-r", names[2]], []),
             ("two vantage points", [], ["--vantage", "left=" + sample,
                                         "--vantage", "right=" + os.path.join(scen, "incast.pcap")]))
    for name, files, extra in cases:
        out_dir = tempfile.mkdtemp(dir=tmp)
        p = run([exe, "report"] + files + extra, cwd=out_dir)
        listed = [f for f in files if f != "-r"] + [v.split("=", 1)[1] for v in extra[1::2]]
        stem = os.path.basename(listed[0]).split(".pcap")[0]
        out = os.path.join(out_dir, stem + ".html")
        if p.returncode != 0 or p.stdout.decode().strip() != os.path.basename(out) or not os.path.exists(out):
            errors.append("%s: exit %d, printed %r, want the page %s (%s)" % (
                name, p.returncode, p.stdout.decode().strip(), os.path.basename(out), p.stderr.decode().strip()))
            continue
        with open(out, encoding="utf-8") as f:
            page = f.read()
        if not check_page(name, page):
            continue
        args = files + extra
        same_as_analyze(exe, name, args[0], page, *args[1:])
        got = embedded(page, "rt-analysis")
        m = meta(page)
        if m["files"] != listed:
            errors.append("%s: the page names the files %r, want %r" % (name, m["files"], listed))
        if m["title"] != "rocetrace report: %s and %d more file%s" % (
                listed[0], len(listed) - 1, "s" if len(listed) > 2 else ""):
            errors.append("%s: the title is %r" % (name, m["title"]))
        # the two points hold the same packets: the page's analysis follows them from one to the other
        points = [v["name"] for v in got.get("vantage_points", [])]
        want_points = ["left", "right"] if name == "two vantage points" else ["rot"]
        matched = [p["matched"] for p in got.get("paths", [])]
        if points != want_points or (len(matched) != 1 or not matched[0]) != (len(want_points) == 1):
            errors.append("%s: vantage points %r (want %r), paths matching %r packets" % (
                name, points, want_points, matched))
        # a rotated set is the sample, split: its totals are the sample's
        if name != "two vantage points" and whole.returncode == 0:
            one = json.loads(whole.stdout)
            for key in ("packets", "roce_packets", "bytes", "flow_count", "totals"):
                if got.get(key) != one.get(key):
                    errors.append("%s: %s is %r, the whole sample's %r" % (name, key, got.get(key), one.get(key)))


def main():
    exe, sample, scen, rxe = [os.path.abspath(a) for a in sys.argv[1:5]]
    tmp = tempfile.mkdtemp(prefix="rt-report-")
    try:
        p, page = report(exe, sample, os.path.join(tmp, "probe.html"))
        if p.returncode == 1 and b"libjs-dygraphs" in p.stderr:
            print("skip: rocetrace was built without libjs-dygraphs (tools/setup-debian installs it, "
                  "then meson setup again): %s" % p.stderr.decode().strip())
            return 77

        # good captures: exit 0, the whole analyze --json inside, series for the charts
        caps = [sample] + sorted(glob.glob(os.path.join(scen, "*.pcap"))) + \
            sorted(glob.glob(os.path.join(rxe, "*.pcap")))
        for cap in caps:
            name = os.path.basename(cap)
            out = os.path.join(tmp, name + ".html")
            p, page = report(exe, cap, out)
            if p.returncode != 0:
                errors.append("%s: exit %d (%s)" % (name, p.returncode, p.stderr.decode().strip()))
                continue
            if p.stdout.decode().strip() != out:
                errors.append("%s: printed %r, not the page's path" % (name, p.stdout.decode()))
            if not check_page(name, page):
                continue
            same_as_analyze(exe, name, cap, page)
            s = embedded(page, "rt-series")
            charts = {c["id"]: c for c in s["charts"]}
            if "gbps" not in charts or "ecn" not in charts:
                errors.append("%s: charts %s lack throughput or ECN" % (name, sorted(charts)))
                continue
            if len(s["x_ms"]) != s["slots"] or not 0 < s["slots"] <= 1024:
                errors.append("%s: %d slots, %d times" % (name, s["slots"], len(s["x_ms"])))
            for c in s["charts"]:
                for ser in c["series"]:
                    if len(ser["y"]) != s["slots"]:
                        errors.append("%s: %s/%s has %d points" % (name, c["id"], ser["label"], len(ser["y"])))
            # the throughput the chart shows adds up to the capture's bytes (within a bucket's rounding)
            allser = [x for x in charts["gbps"]["series"] if x["label"] == "all"][0]
            span = [s["slot_ns"]] * (s["slots"] - 1) + [s["last_slot_ns"]]
            bits = sum(y * ns for y, ns in zip(allser["y"], span) if y is not None)
            want = embedded(page, "rt-analysis")["bytes"] * 8
            if want and abs(bits - want) > 0.01 * want:
                errors.append("%s: the throughput chart holds %.0f bits, the capture %d" % (name, bits, want))
            if name == "pfc.pcap" and "pfc" not in charts:
                errors.append("pfc.pcap: no PFC chart")

        # side files: the NIC counters and the source log become charts; the flows carry the log's figures
        cap = os.path.join(tmp, "side.pcap")
        shutil.copy(os.path.join(scen, "incast.pcap"), cap)
        with open(cap + ".counters.jsonl", "w") as f:
            for k in range(4):
                f.write(json.dumps({"ts": "1700000000.%09d" % (k * 2000000), "dev": "mlx5_0", "port": 1,
                                    "counters": {"np_cnp_sent": 8 * k, "rp_cnp_handled": 3 * k}}) + "\n")
        log = os.path.join(tmp, "gen.jsonl")
        key = {"src": "10.0.0.1", "dst": "10.0.0.100", "dest_qp": 0x200}
        with open(log, "w") as f:
            for i, d in enumerate([dict(event="rate", rate_mbps=2500, reason="start", **key),
                                   dict(event="cnp", **key),
                                   dict(event="rate", rate_mbps=1250, reason="cnp", **key),
                                   # a flow the capture never holds: counted unmatched, as analyze does
                                   dict(event="cnp", src="10.9.9.9", dst="10.0.0.100", dest_qp=5)]):
                d["ts"] = "1700000000.%09d" % (i * 1000)
                f.write(json.dumps(d) + "\n")
        out = os.path.join(tmp, "side.html")
        p, page = report(exe, cap, out, "--source-log", log)
        if p.returncode != 0 or not check_page("side files", page):
            errors.append("side files: exit %d (%s)" % (p.returncode, p.stderr.decode().strip()))
        else:
            same_as_analyze(exe, "side files", cap, page, "--source-log", log)
            ids = [c["id"] for c in embedded(page, "rt-series")["charts"]]
            for want in ("nic", "source"):
                if want not in ids:
                    errors.append("side files: no %s chart (%s)" % (want, ids))
            m = meta(page)
            if m["source_log"] != log or m["counters"] != cap + ".counters.jsonl":
                errors.append("side files: the page names %r and %r" % (m["source_log"], m["counters"]))

        multi_file(exe, sample, scen, tmp)

        # a hostile title and file name: text on the page, never markup; the default page name
        evil = '\'"><img src=x onerror=alert(1)><script>alert(2)<!--.pcap'
        shutil.copy(sample, os.path.join(tmp, evil))
        title = "</title><script>alert(3)</script>&amp;"
        p = run([exe, "report", evil, "--title", title], cwd=tmp)
        out = os.path.join(tmp, evil[:-len(".pcap")] + ".html")
        if p.returncode != 0 or not os.path.exists(out):
            errors.append("hostile names: exit %d, page %s (%s)" % (p.returncode, os.path.exists(out),
                                                                   p.stderr.decode().strip()))
        else:
            with open(out, encoding="utf-8") as f:
                page = f.read()
            check_page("hostile names", page)
            for raw in ("<script>alert", "<img src=x", "</title><script>"):
                if raw in page:
                    errors.append("hostile names: %r is in the page as markup" % raw)
            if "<title>&lt;/title&gt;&lt;script&gt;alert(3)&lt;/script&gt;&amp;amp;</title>" not in page:
                errors.append("hostile names: the title is not escaped as text")
            if "&#39;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;&lt;script&gt;alert(2)&lt;!--.pcap" not in page:
                errors.append("hostile names: the file name is not escaped as text")
            m = meta(page)
            if not m or m["title"] != title or m["files"] != [evil]:
                errors.append("hostile names: the page's data says %r" % m)

        # bad input: still a page, saying so, with analyze's exit status
        with open(sample, "rb") as f:
            data = f.read()
        empty = os.path.join(tmp, "empty.pcap")
        with open(empty, "wb") as f:
            f.write(data[:24])
        noroce = os.path.join(tmp, "noroce.pcap")
        udp = struct.pack(">6s6sH", b"\2" * 6, b"\4" * 6, 0x0800)
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, 20 + 8 + 4, 0, 0, 64, 17, 0, bytes([10, 0, 0, 1]),
                         bytes([10, 0, 0, 2]))
        frame = udp + ip + struct.pack(">HHHH", 5353, 53, 12, 0) + b"abcd"
        with open(noroce, "wb") as f:
            f.write(data[:24])
            for k in range(3):
                f.write(struct.pack("<IIII", 1700000000, k * 1000, len(frame), len(frame)) + frame)
        cut = os.path.join(tmp, "cut.pcap")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2 + 7])
        header = os.path.join(tmp, "header.pcap")
        with open(header, "wb") as f:
            f.write(data[:10])
        for name, cap, warning, input_error in (("empty", empty, "empty_capture", False),
                                                ("no RoCE", noroce, "no_roce", False),
                                                ("truncated", cut, None, True),
                                                ("cut header", header, None, True)):
            out = os.path.join(tmp, os.path.basename(cap) + ".html")
            p, page = report(exe, cap, out)
            a = run([exe, "analyze", "--json", cap])
            if p.returncode != a.returncode:
                errors.append("%s: exit %d, analyze's %d" % (name, p.returncode, a.returncode))
            if not check_page(name, page):
                continue
            doc = embedded(page, "rt-analysis")
            if a.stdout:
                if doc != json.loads(a.stdout):
                    errors.append("%s: the page's analysis differs from analyze --json" % name)
            m = meta(page)
            if input_error and (not m["input_error"] or m["exit_status"] != 1):
                errors.append("%s: the page does not say the reading failed (%r)" % (name, m))
            if not input_error and m["input_error"] is not None:
                errors.append("%s: the page reports an error %r" % (name, m["input_error"]))
            if warning and warning not in [w["code"] for w in doc["warnings"]]:
                errors.append("%s: no %s warning on the page" % (name, warning))
        # nothing could be read (a zero-byte file, a directory): the page and the error line say why,
        # and claim to cover no frames
        zero = os.path.join(tmp, "zero.pcap")
        open(zero, "wb").close()
        folder = os.path.join(tmp, "folder")
        os.mkdir(folder)
        for name, cap, why in (("zero bytes", zero, "the file is empty"),
                               ("a directory", folder, "a directory, not a capture file")):
            p, page = report(exe, cap, os.path.join(tmp, "nothing.html"))
            err = p.stderr.decode()
            m = meta(page) if page else None
            if p.returncode != 1 or err != ("rocetrace report: %s: %s (no frame read: the page says "
                                            "only this)\n" % (cap, why)):
                errors.append("%s: exit %d, stderr %r" % (name, p.returncode, err))
            if not m or m["input_error"] != "%s: %s" % (cap, why):
                errors.append("%s: the page says %r" % (name, m and m["input_error"]))
        p = run([exe, "report", os.path.join(tmp, "missing.pcap"), "-o", os.path.join(tmp, "missing.html")])
        if p.returncode != 1 or os.path.exists(os.path.join(tmp, "missing.html")):
            errors.append("a missing file: exit %d, page written %s" % (
                p.returncode, os.path.exists(os.path.join(tmp, "missing.html"))))

        # analyze's options that make no sense here are refused as usage errors
        for bad in (["--json"], ["--top", "3"], ["--format", "json"]):
            p = run([exe, "report", sample, "-o", os.path.join(tmp, "x.html")] + bad)
            if p.returncode != 2:
                errors.append("report %s: exit %d, want 2" % (" ".join(bad), p.returncode))
        p = run([exe, "analyze", sample, "--title", "x"])
        if p.returncode != 2:
            errors.append("analyze --title: exit %d, want 2" % p.returncode)
        p = run([exe, "report", "--help"])
        if p.returncode != 0 or b"\nEXAMPLES\n" not in p.stdout:
            errors.append("report --help: exit %d" % p.returncode)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
