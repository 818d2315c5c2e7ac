#!/usr/bin/python3
"""`rocetrace report` pages in a real browser (headless Chromium): no script error, the charts exist
and hold points, the totals, the verdict with its findings and the paths between vantage points shown equal
`analyze --json`, and a screenshot is taken.

usage: check_report_browser.py ROCETRACE SAMPLE_PCAP SCENARIO_DIR RXE_CAPTURE_DIR OUT_DIR
The page writes what it found about itself into a hidden element (#rt-selfcheck): the errors it
caught (window.onerror, failed loads, unhandled promise rejections), its charts and their points,
and the totals as shown on the page. The screenshot of the sample's page goes to
OUT_DIR/report-incast.png. Exits 77 when Chromium (Debian's chromium package) or the report's
charting library (libjs-dygraphs) is missing.
"""
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_estimates  # noqa: E402

errors = []
MAX_FLOWS = 20000  # RT_AN_HTML_MAX_FLOWS: the flows a page lists at most


def many_flows(path, n):
    """A capture of n RoCE flows (RC SEND only, 64 bytes and up), the later ones larger."""
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for f in range(n):
            bth = struct.pack(">BBHII", 0x04, 0x40, 0xffff, 0x100 + f, 0)
            payload = bth + bytes(64 + f % 7 + (32 if f >= n - MAX_FLOWS else 0)) + bytes(4)
            udp = struct.pack(">HHHH", 49152, 4791, 8 + len(payload), 0) + payload
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0x02, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                             struct.pack(">I", 0x0a000001 + f), bytes([10, 1, 0, 1])) + udp
            frame = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip
            out.write(struct.pack("<IIII", 1700000000, f * 10 % 1000000, len(frame), len(frame)) + frame)


def rc_packet(out, t_us, src, dst, opcode, qp, ecn, extra):
    """One RoCEv2 frame: BTH (AckReq on a SEND only, PSN 0), `extra` after it, an ICRC of zeros."""
    payload = struct.pack(">BBHII", opcode, 0x40, 0xffff, qp, 0x80000000 if opcode == 0x04 else 0) + extra + bytes(4)
    udp = struct.pack(">HHHH", 49152, 4791, 8 + len(payload), 0) + payload
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, ecn, 20 + len(udp), 0, 0x4000, 64, 17, 0,
                     struct.pack(">I", src), struct.pack(">I", dst)) + udp
    frame = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip
    out.write(struct.pack("<IIII", 1700000000, t_us, len(frame), len(frame)) + frame)


VICTIMS = 5


def victims_late(path):
    """One episode of 20 + VICTIMS flows: 20 CE-marked, then CNPs for all (an ACK names each sender's QP),
    so the VICTIMS flows without a mark join the episode after its first 16."""
    a, b = 0x0a000001, 0x0a000002
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        t = 0
        for k in range(20 + VICTIMS):
            rc_packet(out, t + 10, a, b, 0x04, 0x100 + k, 3 if k < 20 else 2, bytes(64))
            rc_packet(out, t + 15, b, a, 0x11, 0x200 + k, 2, struct.pack(">I", 0x1f000000))
            t += 15
        for k in range(20 + VICTIMS):
            t += 10
            rc_packet(out, t, b, a, 0x81, 0x200 + k, 2, bytes(16))


def victim_count(doc):
    """How many victims the verdict of an analyze --json document names ("Victims: 1,234 flows ...")."""
    m = re.match(r"Victims: ([0-9,]+) flows? ", doc["verdict"]["victims"] or "Victims: 0 flows ")
    return int(m.group(1).replace(",", "")) if m else -1


def chromium(profile, *args):
    return subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--user-data-dir=" + profile, "--virtual-time-budget=30000"] + list(args),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=180)


def shown(exe, profile, name, cap, out):
    """Report `cap` (a file, or a list of arguments), open the page, and compare what it shows with
    analyze --json."""
    args = cap if isinstance(cap, list) else [cap]
    p = subprocess.run([exe, "report", *args, "-o", out], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    a = subprocess.run([exe, "analyze", "--json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    if p.returncode != a.returncode or not os.path.exists(out):
        errors.append("%s: report exit %d (analyze %d), page %s" % (name, p.returncode, a.returncode,
                                                                     os.path.exists(out)))
        return None
    c = chromium(profile, "--dump-dom", "file://" + out)
    m = re.search(r'<pre id="rt-selfcheck"[^>]*>([^<]*)</pre>', c.stdout.decode("utf-8", "replace"))
    if c.returncode != 0 or not m:
        errors.append("%s: chromium exit %d, no self-check in the page (%s)" % (
            name, c.returncode, c.stderr.decode("utf-8", "replace")[-400:]))
        return None
    dom = c.stdout.decode("utf-8", "replace")
    for line in c.stderr.decode("utf-8", "replace").splitlines():
        if "Uncaught" in line or ("CONSOLE" in line and "error" in line.lower()):
            errors.append("%s: console: %s" % (name, line.strip()))
    check = json.loads(html.unescape(m.group(1)))
    want = json.loads(a.stdout)
    if not check["done"]:
        errors.append("%s: the page's script did not finish" % name)
    for e in check["errors"]:
        errors.append("%s: page error: %s" % (name, e))
    totals = {"packets": want["packets"], "roce_packets": want["roce_packets"], "bytes": want["bytes"],
              "flow_count": want["flow_count"], "totals.ce": want["totals"]["ce"],
              "totals.cnp": want["totals"]["cnp"], "totals.nak": want["totals"]["nak"],
              "totals.retransmitted": want["totals"]["retransmitted"], "pfc.xoff": want["pfc"]["xoff"],
              "episodes": len(want["episodes"])}
    if check["totals"] != totals:
        errors.append("%s: the page shows %s, analyze --json says %s" % (name, check["totals"], totals))
    # at most MAX_FLOWS flows listed, and the page says how many more there are
    listed = min(MAX_FLOWS, len(want["flows"]))
    if check["flows_total"] != listed or check["episodes_total"] != len(want["episodes"]):
        errors.append("%s: the page lists %d flows and %d episodes, analyze %d and %d" % (
            name, check["flows_total"], check["episodes_total"], len(want["flows"]), len(want["episodes"])))
    if check["flows_not_listed"] != len(want["flows"]) - listed:
        errors.append("%s: the page says %d flows are not listed, of %d" % (
            name, check["flows_not_listed"], len(want["flows"])))
    said = re.search(r'id="rt-flows-not-listed"[^>]*>([^<]*)<', dom)
    if listed < len(want["flows"]) and not (said and "{:,} more flows are not listed".format(
            len(want["flows"]) - listed) in said.group(1)):
        errors.append("%s: the flow table does not say how many flows it leaves out (%r)" % (
            name, said and said.group(1)))
    # the verdict shown is analyze's, sentence by sentence, in its order, and so are its findings
    said = [v for k, v in want["verdict"].items() if k != "state" and v is not None]
    if check["verdict"] != said:
        errors.append("%s: the page's verdict %r is not analyze's %r" % (name, check["verdict"], said))
    found = [[f["severity"], f["code"], f["summary"]] for f in want["findings"]]
    if check["findings"] != found:
        errors.append("%s: the page's findings %r are not analyze's %r" % (name, check["findings"], found))
    # its victims: every flow an episode counted (in_episodes), with no CE mark, sending requests
    victims = [f for f in want["flows"] if f["in_episodes"] and f["ecn"]["ce"] == 0 and f["requests"] > 0]
    if victim_count(want) != len(victims):
        errors.append("%s: the verdict names %d victims, analyze --json has %d" % (
            name, victim_count(want), len(victims)))
    if check["flows_rows"] != min(100, len(want["flows"])):
        errors.append("%s: the flow table shows %d rows" % (name, check["flows_rows"]))
    # the paths between vantage points: a table when there are several points, a row a path
    paths = want.get("paths", [])
    table = re.search(r'<table id="rt-path-table".*?</table>', dom, re.S)
    if check["paths_total"] != len(paths) or check["paths_rows"] != min(50, len(paths)) or \
            bool(table) != bool(paths):
        errors.append("%s: the page shows %d of %d paths (table: %s), analyze --json has %d" % (
            name, check["paths_rows"], check["paths_total"], bool(table), len(paths)))
    else:
        unknown = [p["offset_null_reason"] for p in paths if p["offset_ns"] is None]
        if table and unknown and unknown[0] not in table.group(0):
            errors.append("%s: an unknown offset is not shown with its reason" % name)
    return check


def main():
    exe, sample, scen, rxe, outdir = [os.path.abspath(a) for a in sys.argv[1:6]]
    if not shutil.which("chromium"):
        print("skip: no chromium to open the page in (Debian's chromium package; tools/setup-debian "
              "installs it)")
        return 77
    tmp = tempfile.mkdtemp(prefix="rt-report-browser-")
    try:
        probe = subprocess.run([exe, "report", sample, "-o", os.path.join(tmp, "probe.html")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
        if probe.returncode == 1 and b"libjs-dygraphs" in probe.stderr:
            print("skip: rocetrace was built without libjs-dygraphs: %s" % probe.stderr.decode().strip())
            return 77
        profile = os.path.join(tmp, "profile")
        with open(sample, "rb") as f:
            data = f.read()
        cut = os.path.join(tmp, "cut.pcap")
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2 + 7])
        empty = os.path.join(tmp, "empty.pcap")
        with open(empty, "wb") as f:
            f.write(data[:24])
        many = os.path.join(tmp, "many.pcap")
        many_flows(many, MAX_FLOWS + 10)
        late = os.path.join(tmp, "victims.pcap")
        victims_late(late)
        # the verdict's words against the models' truth: no hot receiver without congestion, and
        # no "no congestion" when ECN is off
        quiet = make_estimates.build(tmp, "incast_quiet")[0][0]
        ecn_off = make_estimates.build(tmp, "not_ect")[0][0]
        cases = [("incast", sample, ["gbps", "ecn", "rtt"]),
                 ("many flows", many, ["gbps"]),
                 ("victims after an episode's first 16 flows", late, ["gbps", "ecn"]),
                 ("pfc", os.path.join(scen, "pfc.pcap"), ["gbps", "ecn", "pfc"]),
                 ("nak_gbn", os.path.join(scen, "nak_gbn.pcap"), ["gbps", "ecn"]),
                 ("dcqcn", os.path.join(scen, "dcqcn.pcap"), ["gbps", "ecn"]),
                 ("rxe_nccl", os.path.join(rxe, "rxe_nccl_node0.pcap"), ["gbps", "rtt"]),
                 ("two vantage points", ["--vantage", "a=" + sample, "--vantage",
                                         "b=" + os.path.join(scen, "incast.pcap")], ["gbps", "ecn"]),
                 ("every flow alike", os.path.join(scen, "np_limited.pcap"), ["gbps", "ecn", "np", "rttdist"]),
                 ("fan-in without congestion", quiet, ["gbps"]),
                 ("ECN off", ecn_off, ["gbps", "pfc"]),
                 ("truncated", cut, ["gbps"]),
                 ("empty", empty, [])]
        for name, cap, charts in cases:
            check = shown(exe, profile, name, cap, os.path.join(tmp, name + ".html"))
            if not check:
                continue
            said = check["verdict"]
            text = " ".join(said)
            if cap == quiet and ("hot receiver" in text or "No congestion seen" not in text):
                errors.append("%s: the verdict says %r" % (name, said))
            if cap == ecn_off and ("No congestion seen" in text or "ECN is off" not in text):
                errors.append("%s: the verdict says %r" % (name, said))
            victims = [v for v in said if v.startswith("Victims: ")]
            if cap == late and not (victims and victims[0].startswith("Victims: %d flows " % VICTIMS)):
                errors.append("%s: the verdict names %r as victims, the capture has %d" % (name, victims, VICTIMS))
            points = {c["id"]: c["points"] for c in check["charts"]}
            for want in charts:
                if not points.get(want):
                    errors.append("%s: chart %s missing or without points (%s)" % (name, want, points))
            if charts and not ("np" in points and "rttdist" in points):
                errors.append("%s: the distributions are missing (%s)" % (name, points))
            # a distribution reaches 100 % inside its chart, not on its right edge (where one value
            # shared by every flow drew nothing to see)
            for c in check["charts"]:
                if c.get("points") and "largest" in c and not c["x"][1] > c["largest"]:
                    errors.append("%s: chart %s ends at its largest value %s" % (name, c["id"], c["largest"]))
        # a directory: the page says what it is and claims to cover no frames
        folder = os.path.join(tmp, "folder")
        os.mkdir(folder)
        subprocess.run([exe, "report", folder, "-o", os.path.join(tmp, "folder.html")], capture_output=True,
                       timeout=120)
        dom = chromium(profile, "--dump-dom", "file://" + os.path.join(tmp, "folder.html")).stdout.decode()
        said = "Nothing to report: %s: a directory, not a capture file.</p>" % folder
        error = re.search(r'<p class="rt-error">([^<]*)</p>', dom)
        if said not in dom or not error or "no frame was read" not in error.group(1):
            errors.append("a directory: the page does not say %r (%r)" % (said, error and error.group(1)))
        os.makedirs(outdir, exist_ok=True)
        shot = os.path.join(outdir, "report-incast.png")
        if os.path.exists(shot):
            os.unlink(shot)
        c = chromium(profile, "--hide-scrollbars", "--window-size=1300,2400", "--screenshot=" + shot,
                     "file://" + os.path.join(tmp, "incast.html"))
        if c.returncode != 0 or not os.path.exists(shot) or os.path.getsize(shot) < 20000:
            errors.append("no screenshot of the page (chromium exit %d)" % c.returncode)
        else:
            print("screenshot:", shot)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
