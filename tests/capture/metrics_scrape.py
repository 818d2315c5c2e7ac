#!/usr/bin/python3
"""capture --metrics on saved captures: what a scrape reads equals `rocetrace analyze --json` of the same file.

Usage: metrics_scrape.py ROCETRACE REPO [--promtool]
Each capture is copied with `capture -r FILE -w OUT --metrics 127.0.0.1:0
--metrics-linger 60 --metrics-top-flows 3`; once it serves its final figures
(rocetrace_capture_running 0) both expositions are scraped and read with
prometheus_client's parsers: frames, RoCE packets and bytes, CE, CNP, NAK,
resends, PFC XOFF/XON and paused time per priority, flows, the three
busiest flows and the findings (rocetrace_finding, by code and severity)
equal the analyzer's report of the file; every family is
documented in docs/METRICS.md; SIGTERM ends the linger. With --promtool,
`promtool check metrics` (Debian's prometheus package) must accept each text
exposition instead (skipped without promtool).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_lib as ml  # noqa: E402

FIXTURES = ["mixed", "ecn_cnp", "pfc_pause", "aeth_flags", "erspan"]
SCENARIOS = ["incast", "pfc", "pause", "nak_gbn", "dcqcn"]
TOP = 3


def serve(rt, path, tmp):
    """The final text and OpenMetrics expositions of a capture copying `path`; the process ended."""
    p, port = ml.start([rt, "capture", "-r", path, "-w", os.path.join(tmp, "out.pcapng"), "--metrics",
                        "127.0.0.1:0", "--metrics-linger", "60", "--metrics-top-flows", str(TOP)])
    try:
        text = ml.wait_final(port)
        status, ctype, om = ml.scrape(port, ml.OPENMETRICS)
        if status != 200 or not ctype.startswith("application/openmetrics-text"):
            sys.exit("%s: OpenMetrics asked, got %s %s" % (path, status, ctype))
        _, ctype, text = ml.scrape(port, "text/plain;version=0.0.4")
        if not ctype.startswith("text/plain; version=0.0.4"):
            sys.exit("%s: text format asked, got %s" % (path, ctype))
    finally:
        p.send_signal(signal.SIGTERM)  # ends the linger
        try:
            rc = p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            sys.exit("%s: SIGTERM did not end --metrics-linger" % path)
        p.stderr.close()
    if rc != 0:
        sys.exit("%s: capture exited %d" % (path, rc))
    return text, om


def expected(rt, path):
    a = json.loads(subprocess.run([rt, "analyze", "--json", path], check=True, capture_output=True,
                                  text=True).stdout)
    t = a["totals"]
    want = {("rocetrace_frames_total", ()): a["packets"],
            ("rocetrace_roce_packets_total", ()): a["roce_packets"],
            ("rocetrace_roce_bytes_total", ()): a["roce_bytes"],
            ("rocetrace_ce_marked_packets_total", ()): t["ce"],
            ("rocetrace_cnp_total", ()): t["cnp"],
            ("rocetrace_nak_total", ()): t["nak"],
            ("rocetrace_retransmitted_packets_total", ()): t["retransmitted"],
            ("rocetrace_capture_dropped_total", ()): 0,
            ("rocetrace_flows", ()): a["flow_count"],
            ("rocetrace_capture_running", ()): 0}
    classes = {str(p): a["pfc"]["priorities"].get(str(p), {}) for p in range(8)}
    classes["pause"] = a["pause"]
    for prio, c in classes.items():
        for kind in ("xoff", "xon"):
            want[("rocetrace_pfc_frames_total", (("kind", kind), ("priority", prio)))] = c.get(kind, 0)
        want[("rocetrace_pfc_paused_seconds_total", (("priority", prio),))] = c.get("paused_ns", 0) / 1e9
    # the busiest flows: most bytes, the first seen among equals
    flows = sorted(enumerate(a["flows"]), key=lambda f: (-f[1]["bytes"], f[0]))[:TOP]
    for _, f in flows:
        lab = (("dest_qp", "0x%06x" % f["dest_qp"]), ("dst", f["dst"]), ("src", f["src"]))
        for name, v in (("packets", f["packets"]), ("bytes", f["bytes"]), ("ce_marked_packets", f["ecn"]["ce"]),
                        ("cnp_received", f["cnp_received"]), ("nak_received", f["naks_received"]),
                        ("retransmitted_packets", f["retransmitted"])):
            want[("rocetrace_flow_%s_total" % name, lab)] = v
    for f in a["findings"]:
        key = ("rocetrace_finding", (("code", f["code"]), ("severity", f["severity"])))
        want[key] = want.get(key, 0) + 1
    return want


def check_values(rt, path, text, om):
    got_text, got_om = ml.samples(text), ml.samples(om, openmetrics=True)
    if got_text != got_om:
        diff = set(got_text.items()) ^ set(got_om.items())
        sys.exit("%s: the two formats differ: %s" % (path, sorted(diff)[:6]))
    want = expected(rt, path)
    bad = 0
    for key, v in want.items():
        if key not in got_text:
            print("%s: missing %s" % (path, key))
            bad += 1
        elif abs(got_text[key] - v) > 1e-12:
            print("%s: %s = %r, analyze says %r" % (path, key, got_text[key], v))
            bad += 1
    found = sorted(k for k in got_text if k[0] == "rocetrace_finding")
    if found != sorted(k for k in want if k[0] == "rocetrace_finding"):
        print("%s: findings %s, analyze has %s" % (path, found, sorted(k for k in want if k[0] == "rocetrace_finding")))
        bad += 1
    per_flow = [k for k in got_text if k[0].startswith("rocetrace_flow_")]
    if len(per_flow) != len([k for k in want if k[0].startswith("rocetrace_flow_")]):
        print("%s: %d per-flow samples, more than the %d busiest flows'" % (path, len(per_flow), TOP))
        bad += 1
    return bad


def check_documented(repo, text):
    with open(os.path.join(repo, "docs", "METRICS.md")) as f:
        doc = f.read()
    missing = [n for n in ml.families(text) if "`%s`" % n not in doc]
    if missing:
        print("not in docs/METRICS.md: %s" % ", ".join(sorted(missing)))
    return len(missing)


def check_usage(rt):
    bad = 0
    for args in (["--metrics-top-flows", "3"], ["--metrics", "nohost:80"], ["--metrics", "1.2.3.4:99999"],
                 ["--metrics", "::1:80"], ["--metrics", "9464", "--metrics-top-flows", "1001"],
                 ["--hosts", "h1,h2", "--metrics", "9464"]):
        r = subprocess.run([rt, "capture", "-i", "lo", "-w", "/dev/null"] + args, capture_output=True, text=True)
        if r.returncode != 2 or r.stderr.count("\n") != 1:
            print("capture %s: exit %d (want 2 and one line): %r" % (" ".join(args), r.returncode, r.stderr))
            bad += 1
    return bad


def check_ipv6(rt, repo, tmp):
    """--metrics [::1]:0 serves on the IPv6 loopback (skipped where lo has no ::1)."""
    import socket
    try:
        socket.socket(socket.AF_INET6).bind(("::1", 0))
    except OSError:
        print("no ::1 on this host: the IPv6 address form is not checked")
        return 0
    path = os.path.join(repo, "tests", "fixtures", "mixed.pcap")
    p = subprocess.Popen([rt, "capture", "-r", path, "-w", os.path.join(tmp, "v6.pcapng"), "--metrics", "[::1]:0",
                          "--metrics-linger", "60"], stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r"metrics at http://\[::1\]:(\d+)/metrics", line)
    bad = 0
    try:
        if not m:
            print("--metrics [::1]:0 says: %r" % line)
            return 1
        status, _, body = ml.scrape(int(m.group(1)), host="[::1]")
        if status != 200 or "rocetrace_frames_total" not in body:
            print("--metrics [::1]: answered %s" % status)
            bad = 1
        # the signal ends the linger only once it began: one during the capture stops the capture
        # (Ctrl-C ends a live one), and the linger's 60 s would follow
        ml.wait_final(int(m.group(1)), host="[::1]")
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=20)
        p.stderr.close()
    return bad


def main():
    rt, repo = sys.argv[1], sys.argv[2]
    promtool = "--promtool" in sys.argv[3:]
    if promtool and not shutil.which("promtool"):
        print("promtool is not installed (Debian's prometheus package; tools/setup-debian): skipped")
        sys.exit(77)
    if not promtool:
        ml.need_parser()
    paths = [os.path.join(repo, "tests", "fixtures", n + ".pcap") for n in FIXTURES]
    paths += [os.path.join(repo, "tests", "analyze", "scenarios", n + ".pcap") for n in SCENARIOS]
    bad = 0 if promtool else check_usage(rt)
    with tempfile.TemporaryDirectory() as tmp:
        if not promtool:
            bad += check_ipv6(rt, repo, tmp)
        for path in paths:
            text, om = serve(rt, path, tmp)
            if promtool:
                r = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
                if r.returncode != 0 or r.stdout.strip() or r.stderr.strip():
                    print("%s: promtool check metrics: %s%s" % (path, r.stdout, r.stderr))
                    bad += 1
                continue
            bad += check_values(rt, path, text, om)
            bad += check_documented(repo, text)
            if not re.search(r"\n# EOF\n$", om):
                print("%s: the OpenMetrics exposition does not end with # EOF" % path)
                bad += 1
    print("%s: %d captures, %d problems" % ("promtool" if promtool else "values", len(paths), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
