#!/usr/bin/python3
"""The analyzer's estimates against the truth of make_estimates.py's models (what each sender
did, what the switch dropped, each tap's clock): a printed figure must be right, or null with a
reason.

usage: check_estimates.py ROCETRACE [NAME...]

Sender reaction (RP), each case captured at the senders' side and after the bottleneck:
  - rp_incast4, rp_incast8: DCQCN incasts. At the senders' side every flow's median drop is
    within 5 points of the median of its true cuts, its capture side "sender"; after the
    bottleneck (a full link) each is within 5 points or null with "capture point after the
    bottleneck", its capture side "receiver";
  - rp_never_slows: a sender that never slows, a PSN gap after every third CNP: the windows
    with a gap are counted apart, the median drop within 2 points of 0, no drop above 5%;
  - rp_idle_once: halves at 9 of 10 CNPs, idle before one: the median within 5 points of 50,
    every figure within what the windows show (-100% to 100%);
  - rp_sparse: packets 700 us apart: the --rate-window the report names measures them (the
    median within 5 points of the true cut);
  - rp_bursty_deaf, rp_bursty_reacts, rp_bursty_late: a sender sending in bursts with 495 us
    idle between them, which never slows or halves for 200 us per CNP, with --rate-window
    100us and 1ms (a window that spans its idle time): where 4 packet gaps follow a CNP in its
    burst, the median within 5 points of the true cut; where its idle time follows each CNP
    within 4 gaps (the model's "hidden"), nothing measured and the reason is that idle time;
NP: np_few_cnps: marks after the last CNP are never "unanswered" when the limiter held them.
Vantage points: vantage_a_ahead (tap A's clock 250 us ahead, 7 lost in the switch),
vantage_b_ahead (the receiver's tap 100 us ahead, 1 lost), vantage_a_behind (A 250 us behind,
3 lost, tap B stopping early): the path's matched, lost, judged and not judged as the model's,
the offset within 5 us, and merged or alone the resends the senders made, no implied timeout.
Copies: copies_eth, copies_sll2, copies_sll2_two: a mirror of both directions, every frame of it
twice 3 us apart (the same bytes; -i any on one interface index; on two): every copy is
recognized (the resends the senders made, no implied timeout, the copies counted).
Time order: disorder_kernel (frames of two flows swapped 1.5 us apart, each flow's own order
kept): no warning, the steps counted; disorder_flow (two packets of one flow swapped): a warning
naming that flow's rate windows; two points in one file written in blocks (disorder_points), and
two points merged (the vantage cases): no warning.
Verdicts: incast_quiet (two senders at 32 kb/s, no sign of congestion) names no incast, the
incasts do (by their CE marks); not_ect (ECN off, pauses, a loss) says ECN is off and what
the capture shows, a congestion all the same; not_ect_quiet (ECN off, nothing else) is never
"no congestion": the verdict's state is ecn_off. The text's "Verdict:" block says the JSON's
verdict sentences.
Exits 0 when all holds, 1 with one line per mismatch.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_estimates  # noqa: E402

errors = []
RP_APART = ("too_few_packets", "cnp_in_window", "psn_gap_in_window", "resend_in_window",
            "pause_in_window", "idle_before", "idle_after", "full_link")


def fail(msg):
    errors.append(msg)


def analyze(exe, *args, text=False):
    p = subprocess.run([exe, "analyze", *args] + ([] if text else ["--json"]),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    if p.returncode:
        fail("analyze %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr.decode()))
        return "" if text else {}
    return unwrap(p.stdout.decode()) if text else json.loads(p.stdout)


def unwrap(text):
    """The text report's lines as written before wrapping: a line indented 4 or more columns
    past the line it goes on from is the rest of that line."""
    out, base = [], 0
    for line in text.split("\n"):
        indent = len(line) - len(line.lstrip(" "))
        if out and line.strip() and out[-1].strip() and indent >= base + 4:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
            base = indent
    return "\n".join(out)


def flow_of(rep, t):
    for f in rep.get("flows", []):
        if (f["src"], f["dst"], f["dest_qp"]) == (t["src"], t["dst"], t["dest_qp"]):
            return f
    return None


def check_rp_flow(what, rp, t, tol):
    """One flow's rp_reaction against the model's cuts; True when a median was measured."""
    if rp is None:
        fail("%s: no rp_reaction" % what)
        return False
    if rp["measured"] + sum(rp.get(k, 0) for k in RP_APART) != rp["cnps"]:
        fail("%s: CNPs measured and set apart do not add up: %r" % (what, rp))
    med = rp.get("median_drop_pct", rp["mean_drop_pct"])
    if med is None:
        if not rp["drop_null_reason"] or rp["mean_drop_pct"] is not None:
            fail("%s: no median drop, and no reason (or a mean): %r" % (what, rp))
        return False
    want = make_estimates.median(t["cuts"])
    if abs(med - want) > tol:
        fail("%s: median drop %.1f%%, the sender's cuts have median %.1f%%" % (what, med, want))
    lo, hi = rp.get("min_drop_pct", med), rp["max_drop_pct"]
    if not (-100 <= lo <= rp.get("drop_p25_pct", lo) <= med <= rp.get("drop_p75_pct", hi) <= hi <= 100):
        fail("%s: figures outside what the windows show: %r" % (what, rp))
    return True


def check_rp(exe, name, paths, truth):
    rp_truth = truth["rp"]
    for path in paths:
        side = os.path.basename(path)[len(name) + 1:]
        rep = analyze(exe, path)
        text = analyze(exe, path, text=True)
        for t in rp_truth["flows"]:
            f = flow_of(rep, t)
            what = "%s %s flow %s" % (name, side, t["src"])
            if f is None:
                fail("%s: missing" % what)
                continue
            rp = f["rp_reaction"]
            measured = check_rp_flow(what, rp, t, 5 if name != "rp_never_slows" else 2)
            if not rp:
                continue
            if name.startswith("rp_incast"):
                want_side = "sender" if side == "sender_side.pcap" else "receiver"
                if rp.get("capture_side") != want_side or not rp.get("capture_side_how"):
                    fail("%s: capture side %r (%r), want %r" % (what, rp.get("capture_side"),
                                                                rp.get("capture_side_how"), want_side))
                if side == "sender_side.pcap" and not measured:
                    fail("%s: the senders' side does not measure: %r" % (what, rp))
                if not measured and "after the bottleneck" not in rp["drop_null_reason"]:
                    fail("%s: null for %r, not the capture point" % (what, rp["drop_null_reason"]))
                if "capture point: %s" % rp.get("capture_side_how") not in text:
                    fail("%s: the text does not say the capture point's side" % what)
            if name == "rp_never_slows":
                if rp.get("psn_gap_in_window", 0) < 1 or (rp["max_drop_pct"] or 0) > 5:
                    fail("%s: a PSN gap read as a cut: %r" % (what, rp))
            if name == "rp_idle_once" and not measured:
                fail("%s: nothing measured: %r" % (what, rp))
            if name == "rp_sparse":
                check_sparse(exe, what, path, rp, t, text)
            if name.startswith("rp_bursty"):
                check_bursty(exe, what, path, t, rp_truth["hidden"][side])


def check_bursty(exe, what, path, t, hidden):
    """A bursty sender: its own idle time is no reaction, with a window short or long."""
    for window in ("100us", "1ms"):
        f = flow_of(analyze(exe, path, "--rate-window", window), t)
        rp = f and f["rp_reaction"]
        w = "%s with --rate-window %s" % (what, window)
        measured = check_rp_flow(w, rp, t, 5)
        if hidden and (measured or "went idle after the CNP" not in rp["drop_null_reason"]):
            fail("%s: its idle time after each CNP not set apart: %r" % (w, rp))
        if not hidden and not measured:
            fail("%s: nothing measured: %r" % (w, rp))


def check_sparse(exe, what, path, rp, t, text):
    """Too few packets in the default window: the report names a --rate-window that measures."""
    need = rp.get("rate_window_needed_ns")
    if rp["measured"] or need is None or not rp["rate_window_would_measure"]:
        fail("%s: no --rate-window named for CNPs with too few packets: %r" % (what, rp))
        return
    opt = "%dus" % (need // 1000) if need % 1000000 else "%dms" % (need // 1000000)
    if "--rate-window " + opt not in text:
        fail("%s: the text does not name --rate-window %s" % (what, opt))
    again = flow_of(analyze(exe, path, "--rate-window", opt), t)
    rp2 = again["rp_reaction"] if again else None
    if not rp2 or rp2["measured"] < rp["rate_window_would_measure"]:
        fail("%s: --rate-window %s measures %r, said %d" % (what, opt, rp2 and rp2["measured"],
                                                            rp["rate_window_would_measure"]))
    else:
        check_rp_flow(what + " with --rate-window " + opt, rp2, t, 5)


def check_np(exe, name, paths, truth):
    t = truth["np"]
    f = flow_of(analyze(exe, paths[0]), t["flow"])
    if f is None:
        fail("%s: flow missing" % name)
        return
    held, unsure, unans = f["ce_rate_limited"], f.get("ce_held_or_unanswered", 0), f["ce_unanswered"]
    if f["ecn"]["ce"] != t["ce"] or f["cnp_received"] != t["cnps"]:
        fail("%s: %d CE, %d CNPs; the model %d, %d" % (name, f["ecn"]["ce"], f["cnp_received"],
                                                      t["ce"], t["cnps"]))
    if not held <= t["held_back"] <= held + unsure or unans > t["unanswered"] or \
            held + unsure + unans != t["held_back"] + t["unanswered"]:
        fail("%s: %d held back, %d cannot tell, %d unanswered; the NP held back %d, left %d" %
             (name, held, unsure, unans, t["held_back"], t["unanswered"]))


def verdict(name, rep, text):
    """The verdict's sentences, the JSON's and the text's "Verdict:" block alike (else a failure)."""
    v = rep.get("verdict") or {}
    said = [s for k, s in v.items() if k != "state" and s]
    block = text.split("\nVerdict:\n", 1)[-1].split("\n\n", 1)[0]
    if [line.strip() for line in block.splitlines()] != said:
        fail("%s: the text's verdict %r is not the JSON's %r" % (name, block, said))
    return v.get("state"), " ".join(said)


def check_incast(exe, name, paths, truth):
    """Item 10: two senders and no sign of congestion are no incast; the incasts are named."""
    rep, text = analyze(exe, paths[0]), analyze(exe, paths[0], text=True)
    if rep.get("incast") is not None or "no CE mark" not in (rep.get("incast_null_reason") or ""):
        fail("%s: incast %r (%r), want none" % (name, rep.get("incast"),
                                                rep.get("incast_null_reason")))
    if "Incast:" in text or "not an incast" not in text:
        fail("%s: the text names an incast, or does not say why not" % name)
    state, said = verdict(name, rep, text)
    if state != "calm" or "hot receiver" in said:
        fail("%s: the verdict (%s) says %r" % (name, state, said))


def check_congested_incast(exe, name, paths):
    """The incast models' receiver, after the bottleneck: a hot receiver, shown by its CE marks."""
    ic = analyze(exe, paths[1]).get("incast") or {}
    if ic.get("receiver") != "10.20.0.100" or "ce" not in ic.get("evidence", []):
        fail("%s: incast %r, want 10.20.0.100 shown by CE marks" % (name, ic))


def check_ecn_off(exe, name, paths, truth):
    """Item 11: Not-ECT traffic: ECN is said to be off, with what the capture does show."""
    t = truth["ecn_off"]
    rep, text = analyze(exe, paths[0]), analyze(exe, paths[0], text=True)
    if rep.get("ecn_off") is not True or not any(w["code"] == "not_ecn_capable"
                                                 for w in rep.get("warnings", [])):
        fail("%s: ecn_off %r, warnings %r" % (name, rep.get("ecn_off"), rep.get("warnings")))
    got = (rep.get("pfc", {}).get("xoff"), rep.get("totals", {}).get("retransmitted"),
           rep.get("totals", {}).get("gaps"))
    want = (t["pauses"], t["retransmitted"], t["gaps"])
    if got != want:
        fail("%s: %r pauses, resends, gaps; the model %r" % (name, got, want))
    if "ECN is off" not in text:
        fail("%s: the text does not say ECN is off" % name)
    # the verdict: ECN off is never "no congestion"; with pauses or losses, congestion
    state, said = verdict(name, rep, text)
    want = "congested" if t["pauses"] else "ecn_off"
    if state != want or "ECN is off" not in said or "No congestion" in said:
        fail("%s: the verdict (%s, want %s) says %r" % (name, state, want, said))


def check_vantage(exe, name, paths, truth):
    """Items 6, 7: two taps with skewed clocks: the losses between them judged with the offset,
    packets nobody could judge said so, and no resend made up by merging them."""
    t = truth["vantage"]
    rep = analyze(exe, *paths)
    pts = [os.path.basename(p)[:-len(".pcap")] for p in paths]
    paths_by = {(p["from"], p["to"]): p for p in rep.get("paths", [])}
    fwd, rev = paths_by.get((pts[0], pts[1])), paths_by.get((pts[1], pts[0]))
    if not fwd or not rev:
        fail("%s: paths %r" % (name, list(paths_by)))
        return
    if any(w["code"] == "time_backwards" for w in rep.get("warnings", [])):
        fail("%s: two points merged, a time_backwards warning" % name)
    got = (fwd["matched"], fwd["lost"], fwd.get("judged"), fwd.get("not_judged"))
    want = (t["matched_fwd"], t["lost"], t["matched_fwd"] + t["lost"], t["not_judged"])
    if got != want:
        fail("%s: before -> after matched, lost, judged, not judged %r; the model %r" %
             (name, got, want))
    if t["not_judged"] and not fwd.get("not_judged_reason"):
        fail("%s: packets not judged, and no reason" % name)
    if (rev["matched"], rev["lost"]) != (t["matched_rev"], 0):
        fail("%s: after -> before matched, lost %r" % (name, (rev["matched"], rev["lost"])))
    off = fwd["offset_ns"]
    if off is None or abs(off - t["offset_b_minus_a"]) > 5000:
        fail("%s: offset %r, the clocks are %d apart" % (name, off, t["offset_b_minus_a"]))
    text = analyze(exe, *paths, text=True)
    if "%d lost between them (of %d judged)" % (t["lost"], t["matched_fwd"] + t["lost"]) not in text:
        fail("%s: the text does not say %d lost of %d judged" % (name, t["lost"],
                                                                t["matched_fwd"] + t["lost"]))
    for what, r in [("merged", rep)] + [(pts[k] + " alone", analyze(exe, paths[k]))
                                        for k in range(2)]:
        got = (r["totals"]["retransmitted"], r["totals"]["timeouts"])
        if got != (t["resends"], 0):
            fail("%s %s: %d retransmitted, %d implied timeouts; the senders resent %d after NAKs"
                 % (name, what, got[0], got[1], t["resends"]))


def check_copies(exe, name, paths, truth):
    """Item 8: every copy within one capture recognized: the resends the senders made, no more."""
    t = truth["copies"]
    rep = analyze(exe, paths[0])
    got = (rep["totals"]["retransmitted"], rep["totals"]["timeouts"],
           (rep.get("duplicates") or {}).get("packets"))
    if got != (t["retransmitted"], 0, t["copies"]):
        fail("%s: %r retransmitted, implied timeouts, copies; the model %r" %
             (name, got, (t["retransmitted"], 0, t["copies"])))


def check_disorder(exe, name, paths, truth):
    """Item 9: time going backwards is warned about only when it hurts a figure, and says which."""
    t = truth["disorder"]
    rep = analyze(exe, paths[0])
    w = next((w for w in rep.get("warnings", []) if w["code"] == "time_backwards"), None)
    if (rep.get("capture") or {}).get("time_backwards") != t["steps"]:
        fail("%s: capture.time_backwards %r, the file steps back %d times" %
             (name, (rep.get("capture") or {}).get("time_backwards"), t["steps"]))
    if "across" in t and (rep.get("capture") or {}).get("time_backwards_across_points", 0) < 1:
        fail("%s: no step back across points counted (%r)" % (name, rep.get("capture")))
    if not t["flow_out_of_order"] and w:
        fail("%s: a warning though no figure suffers: %r" % (name, w["message"]))
    if t["flow_out_of_order"] and (not w or w.get("flows") != 1 or "rate windows" not in w["message"]):
        fail("%s: a flow's own packets out of order, warning %r" % (name, w))


def main():
    exe = sys.argv[1]
    names = sys.argv[2:] or list(make_estimates.SCENARIOS)
    with tempfile.TemporaryDirectory(prefix="rt-estimates-") as tmp:
        for name in names:
            paths, truth = make_estimates.build(tmp, name)
            if "rp" in truth:
                check_rp(exe, name, paths, truth)
            if "np" in truth:
                check_np(exe, name, paths, truth)
            if "incast" in truth:
                check_incast(exe, name, paths, truth)
            if name.startswith("rp_incast"):
                check_congested_incast(exe, name, paths)
            if "ecn_off" in truth:
                check_ecn_off(exe, name, paths, truth)
            if "vantage" in truth:
                check_vantage(exe, name, paths, truth)
            if "copies" in truth:
                check_copies(exe, name, paths, truth)
            if "disorder" in truth:
                check_disorder(exe, name, paths, truth)
    for e in errors:
        print("FAIL " + e)
    if errors:
        return 1
    print("ok: %d scenarios' estimates agree with their models" % len(names))
    return 0


if __name__ == "__main__":
    sys.exit(main())
