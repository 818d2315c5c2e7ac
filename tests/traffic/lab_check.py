#!/usr/bin/python3
"""Lab system test: 4 senders into one ECN-marking bottleneck; checks marks, CNPs, rate cuts, totals, cleanup.

The lab runs with --metrics 127.0.0.1:0: once it says where its bottleneck
capture serves, one scrape (urllib, inside the switch namespace it names)
during the run must hold the rocetrace_frames_total family.
"""
import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

SENDERS = 4
LINE_RATE = 50e6  # each sender's --line-rate, b/s


def skip(reason):
    print("SKIP:", reason)
    return 77


def can_netns():
    if os.geteuid() != 0:
        return "needs root"
    for tool in ("ip", "tc", "nft"):
        if not shutil.which(tool):
            return f"{tool} not installed"
    name = f"rt-gen-probe-{os.getpid()}"
    r = subprocess.run(["ip", "netns", "add", name], capture_output=True, text=True)
    if r.returncode:
        return "cannot create network namespaces: " + r.stderr.strip()
    subprocess.run(["ip", "netns", "del", name])
    return None


def ts_ns(s):
    sec, frac = s.split(".")
    return int(sec) * 1000000000 + int(frac)


def lab_leftovers(pid):
    out = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    return [l.split()[0] for l in out.splitlines() if l.startswith(f"rt-lab-{pid}-")]


SCRAPE = """
import sys, urllib.request
with urllib.request.urlopen(sys.argv[1], timeout=20) as r:
    sys.stdout.write(r.read().decode())
"""


def read_lab(proc, lines, scraped):
    """The lab's output into lines; on its metrics line, one scrape inside the namespace it names into scraped."""
    for line in proc.stdout:
        lines.append(line)
        m = re.match(r"lab: metrics at (http://\S+) inside namespace (\S+) ", line)
        if m and not scraped:
            r = subprocess.run(["ip", "netns", "exec", m.group(2), sys.executable, "-c", SCRAPE, m.group(1)],
                               capture_output=True, text=True, timeout=30)
            scraped.append(r.stdout if r.returncode == 0 else "scrape failed: " + r.stderr.strip())


def main():
    rocetrace, lab = sys.argv[1], sys.argv[2]
    why = can_netns()
    if why:
        return skip(why)
    errors = []
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, ROCETRACE=rocetrace)
        # senders below what one loaded core sends, so their pacing (not the CPU) sets the rate;
        # mlx5-like recovery (300 us timer, 5 Mb/s additive steps) makes the cuts last
        proc = subprocess.Popen([lab, "-n", str(SENDERS), "-D", "3", "--line-rate", "%d" % LINE_RATE, "-m", "60M",
                                 "--metrics", "127.0.0.1:0", "-o", out,
                                 "--", "--dcqcn-timer", "300us", "--dcqcn-rai", "5M"],
                                env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        lines, scraped = [], []
        reader = threading.Thread(target=read_lab, args=(proc, lines, scraped))
        reader.start()
        try:
            proc.wait(timeout=90)
        except subprocess.TimeoutExpired:
            proc.terminate()
            proc.wait()
            reader.join()
            print("".join(lines))
            print("FAIL: lab took over 90 s")
            return 1
        reader.join()
        print("".join(lines))
        if not scraped:
            errors.append("the lab never said where its capture serves metrics (--metrics)")
        elif "# TYPE rocetrace_frames_total counter" not in scraped[0]:
            errors.append("a scrape during the lab run holds no rocetrace_frames_total: %r" % scraped[0][:200])
        else:
            print("a scrape during the run: %d bytes, rocetrace_frames_total present" % len(scraped[0]))
        left = lab_leftovers(proc.pid)
        if left:
            errors.append(f"namespaces left behind: {left}")
        if proc.returncode:
            print("FAIL: tools/lab exit", proc.returncode)
            return 1

        # the senders' flows, from their event logs
        flows = {}  # (src, dest_qp) -> dict
        for k in range(1, SENDERS + 1):
            with open(os.path.join(out, f"send-{k}.jsonl")) as f:
                evs = [json.loads(l) for l in f]
            for e in evs:
                if e["event"] == "qp":
                    flows[(e["src"], e["dest_qp"])] = {"local_qp": e["local_qp"], "log": evs,
                                                       "dst": e["dst"]}
        if len(flows) != SENDERS:
            errors.append(f"{len(flows)} sender flows in the logs, expected {SENDERS}")
        by_sender_qp = {(f["dst"], src, f["local_qp"]): key for (src, _), f in flows.items()
                        for key in [(src, _)]}

        # the wire, decoded by the project's dissector
        pcap = os.path.join(out, "bottleneck.pcapng")
        dis = subprocess.run([rocetrace, "dissect", pcap, "--json"], capture_output=True,
                             text=True, timeout=120)
        if dis.returncode:
            print("FAIL: dissect:", dis.stderr.strip())
            return 1
        wire = {key: [] for key in flows}  # data packets: (ts, len)
        first_cnp = {}
        ce = cnps = unattributed = 0
        for line in dis.stdout.splitlines():
            r = json.loads(line)
            if r["kind"] == "cnp":
                cnps += 1
                key = by_sender_qp.get((r.get("src"), r.get("dst"), r.get("dest_qp")))
                if key is None:
                    unattributed += 1
                else:
                    first_cnp.setdefault(key, ts_ns(r["ts"]))
            elif r["kind"] == "roce" and r.get("opcode") in (0x06, 0x07, 0x08, 0x0A):
                key = (r.get("src"), r.get("dest_qp"))
                if key in wire:
                    wire[key].append((ts_ns(r["ts"]), r["len"]))
                if r.get("ecn") == 3:
                    ce += 1
        print(f"wire: {ce} CE-marked data packets, {cnps} CNPs, {unattributed} unattributed")
        if ce == 0:
            errors.append("no CE-marked packets in the capture")
        if cnps == 0:
            errors.append("no CNPs in the capture")
        if unattributed:
            errors.append(f"{unattributed} CNPs name no sender's QP")

        cap_line = open(os.path.join(out, "capture.txt")).read().strip().splitlines()[-1]
        # "rocetrace capture: N received, D dropped, W written"
        words = cap_line.replace(",", "").split()
        drops = int(words[words.index("dropped") - 1])

        for key, f in flows.items():
            pk = wire[key]
            end = [e for e in f["log"] if e["event"] == "end" and e["dest_qp"] == key[1]][0]
            if abs(end["packets"] - len(pk)) > drops:
                errors.append(f"flow {key}: source log {end['packets']} packets, capture "
                              f"{len(pk)}, capture drops {drops}")
            if key not in first_cnp or len(pk) < 20:
                errors.append(f"flow {key}: no CNP on the wire or too few packets")
                continue
            t_cnp = first_cnp[key]
            before = [p for p in pk if p[0] < t_cnp]
            after = [p for p in pk if p[0] >= t_cnp]
            # before: the flow's packets before its first CNP (at least 8 of them); the lab marks from
            # the start of a run, so a CNP may come within a sender's first packets, and the sender
            # cuts at once: then the line rate it was given (LINE_RATE) is the rate before
            if len(before) >= 8:
                span_b = before[-1][0] - before[0][0]
                rate_b = sum(p[1] for p in before[:-1]) * 8e9 / span_b if span_b else float("inf")
            else:
                rate_b = LINE_RATE
            span_a = after[-1][0] - after[0][0] if len(after) > 1 else 0
            rate_a = sum(p[1] for p in after[:-1]) * 8e9 / span_a if span_a else 0
            # the source log: time-weighted rate after the first CNP vs the start rate
            evs = [e for e in f["log"] if e.get("dest_qp") == key[1]]
            rates = [(ts_ns(e["ts"]), e["rate_mbps"], e["reason"]) for e in evs
                     if e["event"] == "rate"]
            start = rates[0][1]
            cuts = [i for i, r in enumerate(rates) if r[2] == "cnp"]
            t_end = ts_ns(end["ts"])
            if not cuts:
                errors.append(f"flow {key}: no rate cut in the source log")
                continue
            seg = rates[cuts[0]:]
            area = sum(r[1] * ((seg[i + 1][0] if i + 1 < len(seg) else t_end) - r[0])
                       for i, r in enumerate(seg))
            log_after = area / max(1, t_end - seg[0][0])
            print(f"flow {key}: wire {rate_b / 1e6:.1f} -> {rate_a / 1e6:.1f} Mb/s, "
                  f"log {start:.1f} -> {log_after:.1f} Mb/s, packets log {end['packets']} "
                  f"wire {len(pk)}")
            if not rate_a < rate_b:
                errors.append(f"flow {key}: wire rate did not drop after the first CNP")
            if not log_after < start:
                errors.append(f"flow {key}: logged rate did not drop after the first CNP")
        # the page next to the capture: the same analysis as analyze.json (the report's own test checks the rest)
        report = os.path.join(out, "report.html")
        if not os.path.exists(report) or os.path.getsize(report) < 50000:
            errors.append("no report.html next to the capture")
        else:
            with open(report, encoding="utf-8") as f:
                page = f.read()
            m = re.search(r'id="rt-analysis">([^<]*)<', page)
            with open(os.path.join(out, "analyze.json")) as f:
                want = json.load(f)
            got = json.loads(gzip.decompress(base64.b64decode("".join(m.group(1).split())))) if m else None
            if not got or got["totals"] != want["totals"] or got["packets"] != want["packets"]:
                errors.append("report.html does not hold analyze.json's totals")
        with open(os.path.join(out, "lab.txt")) as f:
            print(f.read())
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
