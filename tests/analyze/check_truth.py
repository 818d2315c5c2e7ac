#!/usr/bin/python3
"""Compare `rocetrace analyze --json` (and timeline sums) with a scenario's truth file.

usage: check_truth.py ROCETRACE CAPTURE... TRUTH.json
(several CAPTUREs are analyzed together: a rotated set, or vantage points of one run)
Exits 0 when everything the truth states matches, 1 with one line per mismatch otherwise.
"""
import csv
import io
import json
import subprocess
import sys

errors = []


def check(what, got, want):
    if got != want:
        errors.append("%s: got %r, want %r" % (what, got, want))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode != 0:
        sys.exit("%s: exit %d: %s" % (" ".join(cmd), p.returncode, p.stderr.decode().strip()))
    return p.stdout.decode()


def approx(what, got, want, rel):
    if abs(got - want) > rel * want:
        errors.append("%s: got %r, want %r (±%.0f%%)" % (what, got, want, rel * 100))


def within(what, got, want, tol):
    if got is None or abs(got - want) > tol:
        errors.append("%s: got %r, want %r (±%r)" % (what, got, want, tol))


def check_np(name, f, t):
    """The NP's reaction against the delay the model's NP had for each CNP it sent."""
    tr, got = t["np_delay_ns"], f["np_reaction_ns"]
    if tr is None:
        check(name + " np_reaction_ns", got, None)
        return
    if got is None:
        errors.append("%s np_reaction_ns: null, want %r" % (name, tr))
        return
    check(name + " np_reaction samples", got["samples"], tr["samples"])
    # exact values up to 32 samples; beyond, the median comes from log buckets (within ~3%)
    tol = 0 if tr["samples"] <= 32 else max(100, tr["median"] // 20)
    within(name + " np_reaction median", got["median"], tr["median"], tol)
    check(name + " np_reaction min", got["min"], tr["min"])
    check(name + " np_reaction max", got["max"], tr["max"])
    # every CE mark was answered, held back by the NP's limiter or left unanswered; the marks
    # the capture cannot tell (after the last answered one, the limiter's interval not learned)
    # are either, never counted as one of them
    unsure = f.get("ce_held_or_unanswered", 0)
    held, unans = f.get("ce_rate_limited"), f.get("ce_unanswered")
    want_unans = t["ce"] - t["cnp_received"] - t["ce_rate_limited"]
    if held is None or unans is None or not held <= t["ce_rate_limited"] <= held + unsure or \
            not unans <= want_unans <= unans + unsure or \
            held + unsure + unans != t["ce_rate_limited"] + want_unans:
        errors.append("%s CE marks: %r held back, %r unanswered, %d cannot tell; want %d held "
                      "back, %d unanswered" % (name, held, unans, unsure, t["ce_rate_limited"],
                                               want_unans))
    iv, want = f.get("cnp_interval_ns"), t["cnp_interval_ns"]
    # learned from the CNP spacing: the limiter's interval or a little above; it must be learned
    # when the limiter held back more marks than it let through
    if iv is None:
        if t["ce_rate_limited"] > t["cnp_received"]:
            errors.append("%s cnp_interval_ns: null, want %r" % (name, want))
    elif not want <= iv <= want * 1.1:
        errors.append("%s cnp_interval_ns: got %r, want %r .. +10%%" % (name, iv, want))


# the CNPs an RP reaction leaves unmeasured, by why: with `measured` they add up to `cnps`
RP_APART = ("too_few_packets", "cnp_in_window", "psn_gap_in_window", "resend_in_window",
            "pause_in_window", "idle_before", "idle_after", "full_link")


def check_rp(name, f, t, on_wire):
    """The senders' rate drop on the wire against the cuts the model's senders made."""
    rp, cuts = f["rp_reaction"], t["rp_cut_pct"]
    if rp is not None and "measured" not in rp:
        errors.append("%s rp_reaction has no measured count: %r" % (name, rp))
        return
    if rp is None:
        if cuts and on_wire:
            errors.append("%s rp_reaction: null, want drops near %r" % (name, cuts))
        return
    if rp["cnps"] > f["cnp_received"] or rp["measured"] + sum(rp[k] for k in RP_APART) != rp["cnps"]:
        errors.append("%s rp_reaction counts do not add up: %r" % (name, rp))
    if (rp["mean_drop_pct"] is None) != (rp["measured"] == 0) or \
            (rp["drop_null_reason"] is None) != (rp["measured"] > 0):
        errors.append("%s rp_reaction: a drop with no measurement or a null without reason: %r"
                      % (name, rp))
    if on_wire and cuts:
        # the capture sees the senders' own pacing: the drop is their cut
        within(name + " rp_reaction mean_drop_pct", rp["mean_drop_pct"], cuts["mean"], 5)
        within(name + " rp_reaction max_drop_pct", rp["max_drop_pct"], cuts["max"], 5)


COUNTS = ("packets", "bytes", "ce", "cnp", "nak", "retransmitted", "pfc_xoff", "pfc_paused_ns")


def check_idle_rows(fmt, rows, bucket, no_idle):
    """Each series (a flow's rows, the 'all' rows) has zero rows exactly at the edges of its idle
    stretches: the bucket after a row with counts (unless the timeline ends there) and the bucket
    before the next one (for a flow, also before its first, unless the timeline starts there);
    --no-idle writes none."""
    series = {}
    for r in rows:
        series.setdefault(str(r["flow"]), []).append((int(r["t_ns"]) // bucket,
                                                      any(int(r[k]) for k in COUNTS)))
    first = min(b for rs in series.values() for b, _ in rs) if series else 0
    last = max(b for rs in series.values() for b, c in rs if c) if series else 0
    for flow, rs in series.items():
        busy = [b for b, c in rs if c]
        zeros = sorted(b for b, c in rs if not c)
        if no_idle:
            check("timeline %s zero rows of flow %s" % (fmt, flow), zeros, [])
            continue
        want = set()
        for a, b in zip(busy, busy[1:]):
            if b - a > 1:
                want |= {a + 1, b - 1}
        if flow != "all" and busy and busy[0] > first:
            want.add(busy[0] - 1)
        if busy and busy[-1] < last:
            want.add(busy[-1] + 1)
        check("timeline %s zero rows of flow %s" % (fmt, flow), zeros, sorted(want))


def main():
    exe, caps, truth_path = sys.argv[1], sys.argv[2:-1], sys.argv[-1]
    truth = json.load(open(truth_path))
    args = truth.get("args", [])
    rep = json.loads(run([exe, "analyze"] + caps + ["--json"] + args))

    check("packets", rep["packets"], truth["packets"])
    for k, v in truth.get("totals", {}).items():
        check("totals." + k, rep["totals"][k], v)

    flows = {(f["src"], f["dst"], f["dest_qp"]): f for f in rep["flows"]}
    check("flow count", len(rep["flows"]), len(truth["flows"]))
    for t in truth["flows"]:
        key = (t["src"], t["dst"], t["dest_qp"])
        name = "flow %s>%s:%#x" % key
        f = flows.get(key)
        if f is None:
            errors.append("%s: missing" % name)
            continue
        check(name + " peer_qp", f["peer_qp"], t["peer_qp"])
        for k in ("packets", "bytes", "cnp_received", "naks_received", "rnr_naks_received",
                  "retransmitted", "gaps", "gap_psns", "go_back_n", "timeouts"):
            check("%s %s" % (name, k), f[k], t[k])
        check(name + " ce", f["ecn"]["ce"], t["ce"])
        check_np(name, f, t)
        check_rp(name, f, t, truth.get("rp_on_wire", False))

    if "go_back_n_delay_ns" in truth:
        d = [f["go_back_n_delay_ns"] for f in rep["flows"] if f["go_back_n_delay_ns"]]
        check("go-back-N delay", d and d[0]["min"], truth["go_back_n_delay_ns"])

    if "pfc" in truth:
        check("pfc.frames", rep["pfc"]["frames"], truth["pfc"]["frames"])
        for p, v in truth["pfc"]["priorities"].items():
            got = rep["pfc"]["priorities"].get(p)
            if got is None:
                errors.append("pfc priority %s missing" % p)
                continue
            for k in ("xoff", "xon", "paused_ns"):
                check("pfc.%s.%s" % (p, k), got[k], v[k])
        check("pfc priorities", sorted(rep["pfc"]["priorities"]), sorted(truth["pfc"]["priorities"]))
    if "pause" in truth:
        for k, v in truth["pause"].items():
            check("pause." + k, rep["pause"][k], v)
    if "storms" in truth:
        got = [(s["priority"], s["duration_ns"]) for s in rep["storms"]]
        want = [(s["priority"], s["duration_ns"]) for s in truth["storms"]]
        check("storms", got, want)
    if "episodes" in truth:
        got = [(e["start_ns"], e["end_ns"]) for e in rep["episodes"]]
        want = [(e["start_ns"], e["end_ns"]) for e in truth["episodes"]]
        check("episodes", got, want)

    # timeline: per-flow column sums equal analyze's totals, in CSV and JSON Lines, by the flow
    # column and by the numeric flow_id (-1 on 'all' rows); idle stretches have zero rows at their
    # edges only, and none with --no-idle
    for fmt, bucket in (("csv", "10us"), ("json", "1ms"), ("csv", "10us --no-idle")):
        bucket, *more = bucket.split()
        out = run([exe, "timeline"] + caps + ["--bucket", bucket, "--format", fmt] + more + args)
        rows = list(csv.DictReader(io.StringIO(out))) if fmt == "csv" else \
            [json.loads(x) for x in out.splitlines()]
        fmt = " ".join([fmt] + more)
        sums, by_id = {}, {}
        for r in rows:
            s = sums.setdefault(str(r["flow"]), dict(packets=0, bytes=0, ce=0, cnp=0, nak=0,
                                                     retransmitted=0, pfc_paused_ns=0))
            for k in s:
                s[k] += int(r[k])
            fid = int(r["flow_id"])
            check("timeline %s flow_id of flow %s" % (fmt, r["flow"]), fid,
                  -1 if str(r["flow"]) == "all" else int(r["flow"]))
            t = by_id.setdefault(fid, dict(packets=0, bytes=0, ce=0, cnp=0, nak=0, retransmitted=0))
            for k in t:
                t[k] += int(r[k])
        for f in rep["flows"]:
            for col, val in by_id.get(f["id"], {}).items():
                check("timeline %s flow_id %d %s" % (fmt, f["id"], col), val, sums[str(f["id"])][col])
        check_idle_rows(fmt, rows, int(bucket[:-2]) * 1000 if bucket.endswith("us") else
                        int(bucket[:-2]) * 1000000, bool(more))
        for f in rep["flows"]:
            s = sums.get(str(f["id"]), {})
            for col, val in (("packets", f["packets"]), ("bytes", f["bytes"]),
                             ("ce", f["ecn"]["ce"]), ("cnp", f["cnp_received"]),
                             ("nak", f["naks_received"]), ("retransmitted", f["retransmitted"])):
                check("timeline %s flow %d %s" % (fmt, f["id"], col), s.get(col, 0), val)
        a = sums.get("all", {})
        check("timeline %s all packets" % fmt, a.get("packets", 0), rep["packets"])
        check("timeline %s all bytes" % fmt, a.get("bytes", 0), rep["bytes"])
        check("timeline %s all ce" % fmt, a.get("ce", 0), rep["totals"]["ce"])
        check("timeline %s all cnp" % fmt, a.get("cnp", 0), rep["totals"]["cnp"])
        paused = sum(p["paused_ns"] for p in rep["pfc"]["priorities"].values()) + \
            rep["pause"]["paused_ns"]
        check("timeline %s all pfc_paused_ns" % fmt, a.get("pfc_paused_ns", 0), paused)
        ts = [int(r["t_ns"]) for r in rows]
        check("timeline %s rows in time order" % fmt, ts, sorted(ts))

    if errors:
        for e in errors:
            print("MISMATCH " + e)
        sys.exit(1)
    print("ok: %s matches %s" % (" ".join(caps), truth_path))


if __name__ == "__main__":
    main()
