#!/usr/bin/python3
"""Partial results of two vantage points merged, against one pass over both captures and the model's truth.

usage: check_partial.py ROCETRACE

The model of check_vantage.py (an incast through a switch that marks CE and
drops three packets, taps before and after it, the before tap's clock
437.3 us behind; frames built with scapy, nothing from rocetrace) writes two
captures. Each is made a partial (`analyze --partial OUT --point NAME`), the
two merged (`analyze A.rtpart B.rtpart --json`), and compared with
`analyze --vantage before=B --vantage after=A --json` on the same files:
the flows (ids, keys, packets, bytes, ECN counts, CNPs, transport figures,
home point), the totals, the episodes and the findings' codes equal, but
the fields the documented rules make differ (DIFFER, NP and SAMPLE_MISSES
below, each with its reason; the NP reaction against the model); the
totals also against the model's truth (the independent oracle: CE marks,
CNPs, resends counted once). The refusals: partials and captures mixed,
`timeline` of a partial, two partials of one point (exit 2).
Exits 0 when all holds, 1 with one line per mismatch.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_vantage import SKEW, model  # noqa: E402
from make_scenarios import write_pcap  # noqa: E402

# flow fields that differ by rule (analyze/README.md, "Across vantage points: partial results")
DIFFER = {
    "vantage_paths": "the partials' paths rest on their sample (1/64 by default), one pass's on "
                     "every packet",
}
# The NP reaction: one pass meets a CNP first at the before tap, whose clock is 437 us behind,
# so before the CE mark it answers (seen at the after tap): its reaction figures compare two
# clocks. The merge judges the NP at the point that saw the marks: checked against the model.
NP = ("np_reaction_ns", "cnp_without_ce", "cnp_interval_ns", "ce_rate_limited", "ce_unanswered",
      "ce_held_or_unanswered", "ce_answered")
NP_REACTION_NS = 2200  # the model: a CNP 2 us after the mark reaches the receiver, 200 ns from the tap
# What the default sample leaves out: the three packets lost between the taps are not in 1/64
# of the fingerprints, so no path loss says them and the merged view has no `loss` finding
# (the flows' resends and timeouts are there); at --vantage-sample 1/1 it has.
SAMPLE_MISSES = {"loss"}
TOTALS = ("ce", "cnp", "nak", "retransmitted", "go_back_n", "timeouts", "gaps", "gap_psns", "ecn",
          "cnp_unattributed", "nak_unattributed")

errors = []


def check(what, got, want):
    if got != want:
        errors.append("%s: %r, want %r" % (what, got, want))


def run(rt, *args, status=0):
    p = subprocess.run([rt, "analyze", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300)
    if p.returncode != status:
        errors.append("analyze %s: exit %d, want %d: %s" % (" ".join(args), p.returncode, status,
                                                           p.stderr.decode().strip()))
    return p


def main():
    rt = sys.argv[1]
    before, after, truth = model()
    d = tempfile.mkdtemp(prefix="rt_partial_")
    try:
        b, a = os.path.join(d, "before.pcap"), os.path.join(d, "after.pcap")
        pb, pa = os.path.join(d, "before.rtpart"), os.path.join(d, "after.rtpart")
        write_pcap(b, before)
        write_pcap(a, after)
        pb1, pa1 = os.path.join(d, "before1.rtpart"), os.path.join(d, "after1.rtpart")
        for part, cap, name, sample in ((pb, b, "before", ()), (pa, a, "after", ()),
                                        (pb1, b, "before", ("--vantage-sample", "1/1")),
                                        (pa1, a, "after", ("--vantage-sample", "1/1"))):
            p = run(rt, "--partial", part, "--point", name, *sample, cap)
            line = p.stderr.decode()
            if "frames" not in line or "bytes written" not in line:
                errors.append("analyze --partial %s: its line on stderr: %r" % (name, line))
        one = json.loads(run(rt, "--json", "--vantage", "before=" + b, "--vantage", "after=" + a).stdout)
        p, p1 = run(rt, pb, pa, "--json"), run(rt, pb1, pa1, "--json")
        if p.returncode or p1.returncode:
            return report()
        merged, merged1 = json.loads(p.stdout), json.loads(p1.stdout)
        check("flow count", merged["flow_count"], one["flow_count"])
        for f1, f2, f3 in zip(one["flows"], merged["flows"], merged1["flows"]):
            for key in f1:
                if key not in DIFFER and key not in NP:
                    check("flow %s %s" % (f1["selector"], key), f2.get(key), f1.get(key))
            check("flow %s vantage_paths at 1/1" % f1["selector"], f3.get("vantage_paths"),
                  f1.get("vantage_paths"))
            if f2["ecn"]["ce"]:  # a data flow the switch marked: its NP answered every 50 us
                np = f2.get("np_reaction_ns") or {}
                check("flow %s np_reaction_ns median" % f1["selector"], np.get("median"),
                      NP_REACTION_NS)
                check("flow %s cnp_without_ce" % f1["selector"], f2.get("cnp_without_ce"), 0)
        for key in TOTALS:
            check("totals " + key, merged["totals"][key], one["totals"][key])
        for key in ("packets", "bytes", "roce_packets", "roce_bytes", "start_ns", "end_ns"):
            check(key, merged[key], one[key])
        codes = sorted(f["code"] for f in one["findings"])
        check("findings", sorted(f["code"] for f in merged["findings"]),
              [c for c in codes if c not in SAMPLE_MISSES])
        check("findings at 1/1", sorted(f["code"] for f in merged1["findings"]), codes)
        check("verdict", merged["verdict"]["state"], one["verdict"]["state"])
        # the merge's window, as one pass's: the same paths at 1/1
        w1 = json.loads(run(rt, pb1, pa1, "--json", "--vantage-window", "2ms").stdout or b"{}")
        w0 = json.loads(run(rt, "--json", "--vantage-window", "2ms", "--vantage", "before=" + b,
                            "--vantage", "after=" + a).stdout)
        check("paths at --vantage-window 2ms", w1.get("paths"), w0["paths"])
        run(rt, "--partial", os.path.join(d, "w.rtpart"), "--vantage-window", "2ms", b, status=2)
        # the episodes: each CNP seen at both taps counts once (the partials keep every CNP)
        ep = [(e["start_ns"], e["end_ns"], e["ce"], e["cnp"], e["flow_count"]) for e in merged["episodes"]]
        check("episodes", ep, [(e["start_ns"], e["end_ns"], e["ce"], e["cnp"], e["flow_count"])
                               for e in one["episodes"]])
        # the model's truth: each packet once
        check("truth ce", merged["totals"]["ce"], truth["ce"])
        check("truth cnp", merged["totals"]["cnp"], truth["cnp"])
        check("truth retransmitted", merged["totals"]["retransmitted"], truth["retransmitted"])
        # one partial (one host, or the only one that came home): its own view, as analyzing its capture
        alone = json.loads(run(rt, pb, "--json").stdout or b"{}")
        solo = json.loads(run(rt, b, "--json").stdout)
        for key in ("flow_count", "packets", "totals"):
            check("one partial: " + key, alone.get(key), solo[key])
        check("one partial: findings", sorted(f["code"] for f in alone.get("findings", [])),
              sorted(f["code"] for f in solo["findings"]))
        # where the partial goes: checked before the analysis, never through a symbolic link,
        # written whole or not at all
        p = run(rt, "--partial", os.path.join(d, "no", "such", "x.rtpart"), b, status=1)
        if b"frames" in p.stderr:
            errors.append("a partial into a missing folder: analyzed first: %r" % p.stderr.decode())
        link = os.path.join(d, "link.rtpart")
        os.symlink("/dev/full", link)
        run(rt, "--partial", link, b, status=1)
        check("the symbolic link stays", os.path.islink(link), True)
        # a capture cut short: the partial of the frames before the cut, exit 1
        cut, pc = os.path.join(d, "cut.pcap"), os.path.join(d, "cut.rtpart")
        with open(b, "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2 + 7])
        p = run(rt, "--partial", pc, "--point", "cut", cut, status=1)
        if b"the partial covers the frames before it" not in p.stderr:
            errors.append("a partial of a cut capture: %r" % p.stderr.decode())
        cut_view = json.loads(run(rt, pc, "--json").stdout or b"{}")
        if not cut_view.get("capture", {}).get("input_error") or not 0 < cut_view.get("packets", 0) < len(before):
            errors.append("the partial of a cut capture: input_error %r, packets %r of %d" %
                          (cut_view.get("capture", {}).get("input_error"), cut_view.get("packets"), len(before)))
        # refusals
        size = os.path.getsize(b)
        run(rt, "--partial", b, b, status=2)  # OUT one of the captures: refused, the capture kept
        check("--partial over its capture: the capture", os.path.getsize(b), size)
        run(rt, "--partial", os.path.join(d, "e.rtpart"), "--point", "", b, status=2)
        p = run(rt, os.path.join(d, "absent.rtpart"), pb, status=1)
        if b"No such file" not in p.stderr:
            errors.append("a partial that is not there: %r" % p.stderr.decode())
        p = run(rt, b, pb, status=2)
        if b"is not a partial result" not in p.stderr:
            errors.append("a capture among partials: %r" % p.stderr.decode())
        run(rt, "--vantage", "x=" + pb, "--vantage", "y=" + pa, status=2)
        run(rt, "--partial", os.path.join(d, "j.rtpart"), "--json", b, status=2)
        run(rt, pb, a, status=2)
        for fixed in (("--link-speed", "100G"), ("--udp-port", "4791"), ("--dup-window", "1ms")):
            run(rt, pb, pa, *fixed, status=2)  # refused even at its default: the partials fixed it
        run(rt, pb, pb, status=2)  # one file given twice
        cutp = os.path.join(d, "cutp.rtpart")  # a partial cut short, alone or among others
        with open(pb, "rb") as f:
            head = f.read(200)
        with open(cutp, "wb") as f:
            f.write(head)
        for given in ((cutp,), (pa, cutp)):
            p = run(rt, *given, status=1)
            if b"cutp.rtpart: truncated" not in p.stderr:
                errors.append("a partial cut short %r: %r" % (given, p.stderr.decode()))
        same = os.path.join(d, "same.rtpart")  # another capture named as the same point
        run(rt, "--partial", same, "--point", "before", a)
        p = run(rt, pb, same, status=2)
        if b"one vantage point, before" not in p.stderr:
            errors.append("two partials of one point: %r" % p.stderr.decode())
        timeline(rt, d, b, a, pb, pa, before, after, merged)
        home_cut_short(rt, d, before, after, truth)
    finally:
        shutil.rmtree(d)
    return report()


def tool(rt, cmd, *args, status=0):
    p = subprocess.run([rt, cmd, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != status:
        errors.append("%s %s: exit %d, want %d: %s" % (cmd, " ".join(args), p.returncode, status,
                                                      p.stderr.decode().strip()))
    return p


def rows_of(out):
    """A JSON Lines timeline by (t_ns, flow): flow ids, or "all"."""
    rows = [json.loads(line) for line in out.decode().splitlines() if line.strip()]
    return {(r["t_ns"], r["flow"]): r for r in rows}


def flow_key(frame):
    """A RoCE frame's flow (src, dst, dest QP), from its bytes (IPv4, UDP, BTH)."""
    ip = frame[14:]
    udp = ip[(ip[0] & 15) * 4:]
    return ("%d.%d.%d.%d" % tuple(ip[12:16]), "%d.%d.%d.%d" % tuple(ip[16:20]),
            int.from_bytes(udp[8 + 5:8 + 8], "big"))


def per_bucket(frames, bucket, keyed):
    out = {}
    for t, f in frames:
        k = (t - t % bucket, flow_key(f) if keyed else "all")
        out[k] = out.get(k, 0) + 1
    return out


def timeline(rt, d, b, a, pb, pa, before, after, merged):
    """timeline and report of the merged partials: one pass's timeline with the same --bucket, the model."""
    bucket = 100000  # 100 us: a multiple of the partials' own (their default: 50 us)
    m = tool(rt, "timeline", pb, pa, "--bucket", "100us", "--format", "json")
    one = tool(rt, "timeline", "--bucket", "100us", "--format", "json",
               "--vantage", "before=" + b, "--vantage", "after=" + a)
    mr, orows = rows_of(m.stdout), rows_of(one.stdout)
    # flow rows with counts: equal, field for field (the flows' home is the before tap, which sees
    # every packet first; a CE mark made after it counts where its marked copy came, as one pass
    # counts it). Zero rows mark idle stretches: they follow the buckets each timeline has.
    counted = lambda rows: {k: r for k, r in rows.items() if k[1] != "all" and r["packets"] + r["ce"] + r["cnp"]}
    check("timeline: flow rows", counted(mr), counted(orows))
    # the all rows: every frame counted at its point (the merge cannot tell copies apart), so
    # packets and bytes are both taps' frames where one pass counts each packet once; the RoCE
    # counts and PFC equal
    for k, r in mr.items():
        if k[1] == "all":
            o = orows.get(k, {})
            for f in ("ce", "cnp", "nak", "retransmitted", "pfc_xoff", "pfc_paused_ns"):
                check("timeline: all %s at %d" % (f, k[0]), r[f], o.get(f, 0))
    # the model's truth: the all rows, both taps' frames; each flow's packets, those at its home
    truth_all = per_bucket(before + after, bucket, False)
    check("timeline: all packets (model)",
          {k: r["packets"] for k, r in mr.items() if k[1] == "all" and r["packets"]}, truth_all)
    keys = {r["flow"]: (r["src"], r["dst"], r["dest_qp"]) for k, r in mr.items() if k[1] != "all"}
    got = {(k[0], keys[k[1]]): r["packets"] for k, r in mr.items() if k[1] != "all" and r["packets"]}
    check("timeline: flows' packets (model, home: the before tap)", got, per_bucket(before, bucket, True))
    # the buckets add up to the merged totals
    for f in ("ce", "cnp", "nak", "retransmitted"):
        check("timeline: the buckets' %s" % f, sum(r[f] for k, r in mr.items() if k[1] == "all"),
              merged["totals"][f])
    # refused: a bucket that is no multiple of theirs, options that need the captures
    p = tool(rt, "timeline", pb, pa, "--bucket", "30us", status=2)
    if b"not a multiple" not in p.stderr:
        errors.append("timeline of partials at 30us: %r" % p.stderr.decode())
    tool(rt, "timeline", pb, pa, "--by-vantage", status=2)
    tool(rt, "timeline", pb, pa, "--kind", "cnp", status=2)
    # one partial: its own timeline, as its capture's
    check("timeline of one partial", rows_of(tool(rt, "timeline", pb, "--bucket", "100us", "--format", "json").stdout),
          rows_of(tool(rt, "timeline", b, "--bucket", "100us", "--format", "json").stdout))
    # report: a page whose analysis is the merged view
    page = os.path.join(d, "page.html")
    tool(rt, "report", pb, pa, "-o", page)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    from check_report import embedded  # noqa: E402
    with open(page, encoding="utf-8") as f:
        text = f.read()
    check("report of partials: the page's analysis", embedded(text, "rt-analysis"), merged)


def home_cut_short(rt, d, before, after, truth):
    """A tap's capture ended early (a fifth of its frames, whole), both taps in turn, with the before
    tap's clock behind (the model's) and ahead: the CE marks and CNPs the home of their flows
    missed count from the other tap, once each, in the totals, the flows and the timeline, as one
    pass counts them."""
    b, a = os.path.join(d, "hb.pcap"), os.path.join(d, "ha.pcap")
    pb, pa = os.path.join(d, "hb.rtpart"), os.path.join(d, "ha.rtpart")
    for sign in (1, -1):
        frames = {"before": sorted((t + (2 * SKEW if sign < 0 else 0), f) for t, f in before),
                  "after": sorted(after)}
        for cut in ("before", "after"):
            what = "%s tap cut short, its clock %s" % (cut, "behind" if sign > 0 else "ahead")
            taps = dict(frames)
            taps[cut] = taps[cut][:len(taps[cut]) // 5]
            write_pcap(b, taps["before"])
            write_pcap(a, taps["after"])
            run(rt, "--partial", pb, "--point", "before", b)
            run(rt, "--partial", pa, "--point", "after", a)
            merged = json.loads(run(rt, pb, pa, "--json").stdout or b"{}")
            one = json.loads(run(rt, "--json", "--vantage", "before=" + b, "--vantage", "after=" + a).stdout)
            if not merged:
                continue
            check("%s: totals cnp (model: each CNP passes both taps)" % what, merged["totals"]["cnp"],
                  truth["cnp"])
            for key in ("ce", "cnp"):
                check("%s: totals %s" % (what, key), merged["totals"][key], one["totals"][key])
            cnps = lambda view: [(f["selector"], f["cnp_sent"], f["cnp_received"]) for f in view["flows"]]
            check("%s: flows' CNPs" % what, cnps(merged), cnps(one))
            check("%s: episodes' CNPs" % what, [e["cnp"] for e in merged["episodes"]],
                  [e["cnp"] for e in one["episodes"]])
            ecn = lambda view: [(f["ecn"], f["ce_fraction"], f["ect_fraction"]) for f in view["flows"]]
            check("%s: flows' ECN codepoints and shares" % what, ecn(merged), ecn(one))
            rows = rows_of(tool(rt, "timeline", pb, pa, "--bucket", "100us", "--format", "json").stdout)
            for kind in ("all", "flow"):
                for key in ("ce", "cnp"):
                    check("%s: timeline %s rows' %s" % (what, kind, key),
                          sum(r[key] for k, r in rows.items() if (k[1] == "all") == (kind == "all")),
                          merged["totals"][key])


def report():
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
