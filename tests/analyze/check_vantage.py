#!/usr/bin/python3
"""Vantage points against a model's truth: two captures of one incast, before and after the switch.

usage: check_vantage.py ROCETRACE

A model (4 senders, one switch port with an ECN threshold that drops the
packets it is told to, a receiver that ACKs and whose NP sends CNPs) writes
what a tap before the switch saw (its clock 437.3 us behind; every data
packet still ECT(0)) and what a tap after it saw (the CE marks the switch set,
without the packets it dropped; the senders resend those after a timeout).
ACKs and CNPs go the other way through both taps. Frames are built with scapy
(tests/analyze/make_scenarios.py's builders); nothing from rocetrace is used.
The analysis must give the clock offset within 5 us, `lost` and `ce_marked`
exactly, the delay minimum near the model's, CE/CNP/retransmission totals as
the model's (not doubled); the same files gzip'd, rotated and given out of
order, or named with --vantage, the same paths; one direction alone an
unknown offset with its reason; --vantage-sample K/M the same packets at both
taps (none falsely lost), nested samples, about K/M of the matches; `timeline --by-vantage` rows of each point
adding up, per flow and column, to that point's file read alone.
Exits 0 when all holds, 1 with one line per mismatch.
"""
import csv
import gzip
import io
import heapq
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_scenarios import MAC_A, MAC_B, T0, US, aeth, roce, write_pcap  # noqa: E402

SKEW = 437_300  # the before tap's clock is this far behind: the after tap's is ahead by it
LINE = 2.5e9
K = 16 * 1024  # bytes queued above which the switch marks CE
TAP_IN, TO_SWITCH, TAP_OUT, TO_RECV = 800, 1000, 300, 200  # ns: sender->tap, sender->switch, ...
BACK = 1500  # ns from the after tap back through the switch to the before tap (no queue that way)
DROPS = {(0, 40), (1, 75), (2, 110)}  # (sender, packet index): the switch drops their first copy
RTO = 300 * US

errors = []


def model():
    n, pkts, gap, payload = 4, 240, 7 * US, 512
    recv = "10.0.0.100"
    senders = ["10.0.0.%d" % (i + 1) for i in range(n)]
    sqp = [0x100 + i for i in range(n)]
    rqp = [0x200 + i for i in range(n)]
    before, after = [], []
    truth = dict(lost=0, ce=0, cnp=0, retransmitted=0, fwd_matched=0, rev_matched=0, fwd_delays=[])
    ev, seq = [], [0]

    def push(t, kind, data):
        seq[0] += 1
        heapq.heappush(ev, (t, seq[0], kind, data))

    # the incast, then a tail of one packet a millisecond per sender (the windows close inside both captures)
    for i in range(n):
        for k in range(pkts + 20):
            t = T0 + i * 3 * US + (k * gap if k < pkts else pkts * gap + (k - pkts + 1) * 1000 * US)
            push(t, "send", (i, k, 1000 * (i + 1) + k, False))
    sw_free, queue = T0, []
    np_last = [None] * n

    def back(t, frame):
        """A frame from the receiver: at the after tap, then the before tap."""
        after.append((t + TO_RECV, frame))
        before.append((t + TO_RECV + BACK - SKEW, frame))
        truth["rev_matched"] += 1

    while ev:
        t, _, kind, data = heapq.heappop(ev)
        if kind == "send":
            i, k, psn, resend = data
            ack = k % 16 == 15 or k >= pkts
            f = roce(senders[i], recv, 0x04, rqp[i], psn, payload=bytes(payload), ackreq=ack, ecn=2,
                     sport=50000 + i)
            before.append((t + TAP_IN - SKEW, f))
            truth["retransmitted"] += resend
            if (i, k) in DROPS and not resend:
                truth["lost"] += 1
                push(t + RTO, "send", (i, k, psn, True))
                continue
            arrive = t + TO_SWITCH
            queue = [(d, b) for d, b in queue if d > arrive]
            ce = sum(b for _, b in queue) > K
            sw_free = max(sw_free, arrive) + int(len(f) * 8 / LINE * 1e9)
            queue.append((sw_free, len(f)))
            out = sw_free + TAP_OUT
            fo = roce(senders[i], recv, 0x04, rqp[i], psn, payload=bytes(payload), ackreq=ack,
                      ecn=3 if ce else 2, sport=50000 + i)
            after.append((out, fo))
            truth["fwd_matched"] += 1
            truth["fwd_delays"].append(out - (t + TAP_IN))
            truth.setdefault("fwd_delays_%d" % i, []).append(out - (t + TAP_IN))
            truth["ce"] += ce
            r = out + TO_RECV
            if ce and (np_last[i] is None or r - np_last[i] >= 50 * US):
                np_last[i] = r
                push(r + 2 * US, "cnp", i)
            if ack:
                push(r + 1 * US, "ack", (i, psn))
        elif kind == "ack":
            i, psn = data
            back(t - TO_RECV, roce(recv, senders[i], 0x11, sqp[i], psn, ext=aeth(0x1F, psn), sport=51000 + i,
                                   smac=MAC_B, dmac=MAC_A))
        else:
            truth["cnp"] += 1
            back(t - TO_RECV, roce(recv, senders[data], 0x81, sqp[data], 0, ext=bytes(16), dscp=48, becn=True,
                                   sport=52000 + data, smac=MAC_B, dmac=MAC_A))
    return before, after, truth


def run(rt, *args):
    p = subprocess.run([rt, "analyze", "--json", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300)
    if p.returncode != 0:
        sys.exit("analyze %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode().strip()))
    return json.loads(p.stdout)


def check(what, got, want):
    if got != want:
        errors.append("%s: got %r, want %r" % (what, got, want))


def path(doc, a, b):
    for p in doc["paths"]:
        if p["from"] == a and p["to"] == b:
            return p
    errors.append("no path %s -> %s in %r" % (a, b, doc["paths"]))
    return None


def paths_only(doc):
    return sorted(json.dumps(p, sort_keys=True) for p in doc["paths"])


COLS = ("packets", "bytes", "ce", "cnp", "nak", "retransmitted", "pfc_xoff", "pfc_paused_ns")


def timeline_sums(rt, *args):
    """{vantage ('' without the column): {flow (src dst qp, or 'all'): {column: sum}}} of a CSV timeline."""
    out = subprocess.run([rt, "timeline", "--bucket", "1ms", *args], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, timeout=300).stdout.decode()
    rows = list(csv.DictReader(io.StringIO(out)))
    sums = {}
    for r in rows:
        flow = "all" if r["flow"] == "all" else "%s %s %s" % (r["src"], r["dst"], r["dest_qp"])
        acc = sums.setdefault(r.get("vantage", ""), {}).setdefault(flow, dict.fromkeys(COLS, 0))
        for k in COLS:
            acc[k] += int(r[k])
    return sums


def write_rotated(frames, names):
    """The after tap's frames split in len(names) files, as a rotating capture writes them."""
    n = len(frames)
    for k, name in enumerate(names):
        write_pcap(name, frames[k * n // len(names):(k + 1) * n // len(names)])


def check_sampling(rt, b, a, doc, truth):
    """--vantage-sample K/M: every point keeps the same packets, so the sampled packets match as the whole do.

    Sampling at one point but not the other (a hash of something a hop changes) would call most
    sampled packets lost; the samples of one M nest (K/M holds (K-1)/M's); about K/M of the
    packets match; the clock offset still comes out; the flows and totals count every packet.
    """
    full = {(p["from"], p["to"]): p for p in doc["paths"]}
    for k in (1, 4):
        got = run(rt, "--vantage-sample", "%d/%d" % (k, k), b, a)
        check("--vantage-sample %d/%d: paths" % (k, k), paths_only(got), paths_only(doc))
    check("no sampling: sample", [p["sample"] for p in doc["paths"]], [{"k": 1, "m": 1}] * len(doc["paths"]))
    prev = {}
    for k in (1, 2, 3):
        opt = "%d/4" % k
        s = run(rt, "--vantage-sample", opt, b, a)
        check(opt + ": flows", s["flows"], doc["flows"])
        check(opt + ": totals", s["totals"], doc["totals"])
        check(opt + ": path names", sorted(full), sorted((p["from"], p["to"]) for p in s["paths"]))
        for p in s["paths"]:
            key = (p["from"], p["to"])
            whole = full.get(key)
            if not whole:
                continue
            check(opt + " %s->%s sample" % key, p["sample"], {"k": k, "m": 4})
            n = whole["matched"]
            want, sd = n * k / 4, (n * k / 4 * (1 - k / 4)) ** 0.5
            if abs(p["matched"] - want) > 5 * sd + 1:
                errors.append("%s %s->%s matched %d, want about %.0f (of %d)" % (opt, *key, p["matched"], want, n))
            for f in ("lost", "ce_marked"):
                if p[f] > whole[f]:
                    errors.append("%s %s->%s %s %d, more than the %d of every packet" % (opt, *key, f, p[f], whole[f]))
            if key in prev and any(p[f] < prev[key][f] for f in ("matched", "judged", "ce_marked")):
                errors.append("%s %s->%s: fewer than %d/4 kept: %r < %r" % (opt, *key, k - 1, p, prev[key]))
            sign = 1 if key == ("before", "after") else -1
            if p["offset_ns"] is None or abs(p["offset_ns"] - sign * SKEW) > 5000:
                errors.append("%s %s->%s offset_ns %r, want %d +- 5000" % (opt, *key, p["offset_ns"], sign * SKEW))
            prev[key] = p
    ce = path(run(rt, "--vantage-sample", "1/2", b, a), "before", "after")
    if ce and not truth["ce"] // 4 <= ce["ce_marked"] <= truth["ce"]:
        errors.append("--vantage-sample 1/2: ce_marked %d of the %d CE marks" % (ce["ce_marked"], truth["ce"]))
    t = subprocess.run([rt, "analyze", "--vantage-sample", "1/4", b, a], stdout=subprocess.PIPE,
                       timeout=300).stdout.decode()
    if "before -> after (of the packets sampled, 1 in 4): " not in re.sub(r"\n +", " ", t):
        errors.append("--vantage-sample 1/4: the text report does not say the sample:\n" + t)


def main():
    rt = sys.argv[1]
    before, after, truth = model()
    d = tempfile.mkdtemp(prefix="rt_vantage_")
    try:
        b, a = os.path.join(d, "before.pcap"), os.path.join(d, "after.pcap")
        write_pcap(b, before)
        after = write_pcap(a, after)
        doc = run(rt, b, a)
        names = sorted(v["name"] for v in doc["vantage_points"])
        check("vantage point names", names, ["after", "before"])
        for v in doc["vantage_points"]:
            check(v["name"] + " frames", v["frames"], len(before) if v["name"] == "before" else len(after))
        fwd, rev = path(doc, "before", "after"), path(doc, "after", "before")
        if fwd and rev:
            for p, sign in ((fwd, 1), (rev, -1)):
                o = p["offset_ns"]
                if o is None or abs(o - sign * SKEW) > 5000:
                    errors.append("%s->%s offset_ns %r, want %d +- 5000" % (p["from"], p["to"], o, sign * SKEW))
            check("before->after matched", fwd["matched"], truth["fwd_matched"])
            check("before->after lost", fwd["lost"], truth["lost"])
            check("before->after ce_marked", fwd["ce_marked"], truth["ce"])
            check("after->before matched", rev["matched"], truth["rev_matched"])
            check("after->before lost", rev["lost"], 0)
            check("after->before ce_marked", rev["ce_marked"], 0)
            wire = min(truth["fwd_delays"])
            dmin = fwd["delay_ns"]["min"] if fwd["delay_ns"] else None
            if dmin is None or abs(dmin - wire) > 2000:
                errors.append("before->after delay min %r, want %d +- 2000 (the model's smallest)" % (dmin, wire))
            med = sorted(truth["fwd_delays"])[len(truth["fwd_delays"]) // 2]
            if fwd["delay_ns"] and abs(fwd["delay_ns"]["median"] - med) > max(3000, med // 8):
                errors.append("before->after delay median %r, want %d" % (fwd["delay_ns"]["median"], med))
            check("delay_includes_offset", fwd["delay_includes_offset"], False)
        # which tap is upstream for each flow: the data's is the before tap, the ACKs' and CNPs' the after tap
        for f in doc["flows"]:
            want = [{"from": "before", "to": "after"}] if f["dst"] == "10.0.0.100" else \
                [{"from": "after", "to": "before"}]
            check("flow %s vantage_paths" % f["selector"], f["vantage_paths"], want)
        # every packet once: the totals are the model's, as the after tap alone gives them
        single = run(rt, a)
        for k in ("ce", "cnp", "retransmitted"):
            check("totals." + k, doc["totals"][k], truth[k])
            check("totals." + k + " (after tap alone)", single["totals"][k], truth[k])
        check("one vantage point: paths", single["paths"], [])
        # the timeline counts every packet once too: its `all` rows add up to the model's totals
        tl = subprocess.run([rt, "timeline", "--bucket", "1ms", b, a], stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, timeout=300).stdout.decode().splitlines()
        cols = tl[0].split(",")
        sums = dict(ce=0, cnp=0, retransmitted=0)
        for row in tl[1:]:
            r = dict(zip(cols, row.split(",")))
            if r["flow"] == "all":
                for k in sums:
                    sums[k] += int(r[k])
        for k in sums:
            check("timeline all rows: " + k, sums[k], truth[k])
        check("one vantage point", [v["name"] for v in single["vantage_points"]], ["after"])
        # --by-vantage: each point's rows add up to that point's own timeline and analysis (its file alone)
        by_point = timeline_sums(rt, "--by-vantage", b, a)
        check("--by-vantage points", sorted(by_point), ["after", "before"])
        # one bucket for the whole capture: its rows are written once the files are read, still named
        one = timeline_sums(rt, "--by-vantage", "--bucket", "1000s", b, a)
        check("--by-vantage points in one bucket", sorted(one), ["after", "before"])
        for name, f in (("before", b), ("after", a)):
            alone = timeline_sums(rt, f)
            check("--by-vantage %s rows" % name, by_point.get(name), alone.get(""))
            doc1 = run(rt, f)
            got = by_point.get(name, {}).get("all", {})
            for k in ("ce", "cnp", "retransmitted"):
                check("--by-vantage %s all %s" % (name, k), got.get(k), doc1["totals"][k])

        # gzip'd
        for f in (b, a):
            with open(f, "rb") as src, gzip.open(f + ".gz", "wb") as dst:
                shutil.copyfileobj(src, dst)
        gz = run(rt, b + ".gz", a + ".gz")
        check("gzip'd: paths", paths_only(gz), paths_only(doc))
        check("gzip'd: totals", gz["totals"], doc["totals"])
        # the after tap rotated in three files (tcpdump -C names), given out of order, one of them gzip'd
        rot = [os.path.join(d, n) for n in ("after_r.pcap", "after_r.pcap1", "after_r.pcap2")]
        write_rotated(after, rot)
        with open(rot[1], "rb") as src, gzip.open(rot[1] + ".gz", "wb") as dst:
            shutil.copyfileobj(src, dst)
        r = run(rt, rot[2], b, rot[0], rot[1] + ".gz")
        got = {v["name"]: len(v["files"]) for v in r["vantage_points"]}
        check("rotated: vantage points", got, {"before": 1, "after_r": 3})
        check("rotated: paths", paths_only(r).__str__().replace("after_r", "after"), paths_only(doc).__str__())
        check("rotated: totals", r["totals"], doc["totals"])
        # a shorter window that still covers the offset and the delays: the same; one shorter than the offset:
        # no data packet finds its other frame (only CNPs, all alike, pair with another CNP)
        check("--vantage-window 2ms: paths", paths_only(run(rt, "--vantage-window", "2ms", b, a)), paths_only(doc))
        short = run(rt, "--vantage-window", "100us", b, a)
        if sum(p["matched"] for p in short["paths"]) > truth["cnp"]:
            errors.append("--vantage-window 100us: %r matched, want at most the %d CNPs" %
                          ([p["matched"] for p in short["paths"]], truth["cnp"]))
        check_sampling(rt, b, a, doc, truth)
        # a window shorter than the clocks' offset and every delay: nothing matched, and the reason says
        # that copies came from the other point all the same (the window is too short)
        tiny = run(rt, "--vantage-window", "1us", b, a)
        for p in tiny["paths"]:
            if p["matched"] or "--vantage-window" not in (p["offset_null_reason"] or ""):
                errors.append("--vantage-window 1us: path %s->%s matched %d, reason %r" %
                              (p["from"], p["to"], p["matched"], p["offset_null_reason"]))
        for p in doc["paths"]:
            if "--vantage-window" in (p["offset_null_reason"] or ""):
                errors.append("the window hint on a path that matched: %r" % p)
        # named with --vantage
        nm = run(rt, "--vantage", "sender_side=" + b, "--vantage", "receiver_side=" + a)
        got = paths_only(nm).__str__().replace("sender_side", "before").replace("receiver_side", "after")
        check("--vantage: paths", got, paths_only(doc).__str__())
        # one direction alone (the data, not the ACKs and CNPs back): the offset cannot be measured
        one = run(rt, b, a, "src", "host", "10.0.0.1")
        ps = one["paths"]
        check("one way: paths", len(ps), 1)
        if ps:
            p = ps[0]
            check("one way: offset_ns", p["offset_ns"], None)
            if not p["offset_null_reason"]:
                errors.append("one way: no offset_null_reason")
            check("one way: delay_includes_offset", p["delay_includes_offset"], True)
            check("one way: from", (p["from"], p["to"]), ("before", "after"))
            check("one way: lost", p["lost"], sum(1 for s, _ in DROPS if s == 0))
            s0 = truth["fwd_delays_0"]
            if p["delay_ns"] is None or abs(p["delay_ns"]["min"] - (min(s0) + SKEW)) > 2000:
                errors.append("one way: delay min %r, want about %d (offset included)" %
                              (p["delay_ns"], min(s0) + SKEW))
        # the text report says it in words
        t = subprocess.run([rt, "analyze", b, a], stdout=subprocess.PIPE, timeout=300).stdout.decode()
        t = re.sub(r"\n +", " ", t)  # a long line goes on below, indented: read it as one
        want = "%d packets became CE between before and after; %d lost between them (of %d judged); " \
            "after's clock" % (truth["ce"], truth["lost"], truth["fwd_matched"] + truth["lost"])
        if want not in t or "ahead of before's" not in t:
            errors.append("text report lacks %r:\n%s" % (want, t))
    finally:
        shutil.rmtree(d)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
