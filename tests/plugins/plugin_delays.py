"""Checks of the Wireshark plugin's delay fields, Info column and warnings (tshark_plugin.py runs them).

Each figure is recomputed from what tshark itself decodes (frame numbers, frame.time_epoch,
the BTH's PSN, AckReq and destination QP), and the CE->CNP delays per flow from the scenario
generator's truth (np_delay_ns):
  - rocetrace.cnp.delay_ns on a CNP is its time after rocetrace.cnp_for_frame, and the Info
    column reads "CNP for qp 0x.. (CE at frame N, +DELAY)";
  - rocetrace.ack_rtt_ns on an ACK is its time after rocetrace.ack_rtt.request_frame, a request
    of the flow it acknowledges with AckReq, PSN at or before the ACK's, and the newest such;
  - rocetrace.retransmission.resend_of names the frame of the flow that last sent the PSN,
    rocetrace.retransmission.after_ns the time since it; wait_ns the time since the NAK (or
    the flow's previous request, for a timeout);
  - PSN gaps and duplicate PSNs are warnings.
"""

from decimal import Decimal


def ns(t):
    return int(Decimal(t) * 10**9)


def psn_diff(a, b):
    d = (a - b) & 0xFFFFFF
    return d - (1 << 24) if d >= 1 << 23 else d


def nearest_rank(vals, q):
    s = sorted(vals)
    return s[max(1, min(len(s), -(-int(q * len(s) * 10**6) // 10**6))) - 1]


def _cnp(fail, rows, i, t, seen):
    ce = t["rocetrace.cnp_for_frame"]
    qp = int(t["infiniband.bth.destqp"], 16)
    info = t["_ws.col.Info"].split(" [")[0]  # tags (a copy's) may follow
    if not ce:
        if info != "CNP for qp 0x%06x" % qp:
            fail("frame %d: CNP Info %r" % (i + 1, info))
        return
    delay = int(t["rocetrace.cnp.delay_ns"] or -1)
    want = ns(t["frame.time_epoch"]) - ns(rows[int(ce) - 1]["frame.time_epoch"])
    if delay != want:
        fail("frame %d: CE->CNP delay %d ns, tshark's timestamps say %d" % (i + 1, delay, want))
    if not info.startswith("CNP for qp 0x%06x (CE at frame %s, +" % (qp, ce)):
        fail("frame %d: CNP Info %r" % (i + 1, info))
    seen.setdefault(t["rocetrace.peer_flow_id"], []).append(delay)


def _rtt(fail, rows, i, t):
    req = int(t["rocetrace.ack_rtt.request_frame"])
    r = rows[req - 1]
    ack_psn = int(t["infiniband.bth.psn"])
    if req >= i + 1 or r["rocetrace.flow_id"] != t["rocetrace.peer_flow_id"] or \
            r["infiniband.bth.a"] != "1" or not 0 <= psn_diff(ack_psn, int(r["infiniband.bth.psn"])) < 1 << 22:
        fail("frame %d: round trip of frame %d, not an earlier AckReq request it acknowledges" %
             (i + 1, req))
        return
    for k in range(req, i):  # no newer request of that flow with AckReq that this ACK covers
        o = rows[k]
        if o["rocetrace.flow_id"] == r["rocetrace.flow_id"] and o["infiniband.bth.a"] == "1" and \
                not o["rocetrace.copy_of"] and psn_diff(ack_psn, int(o["infiniband.bth.psn"])) >= 0:
            fail("frame %d: round trip of frame %d, but frame %d is newer" % (i + 1, req, k + 1))
            return
    want = ns(t["frame.time_epoch"]) - ns(r["frame.time_epoch"])
    if int(t["rocetrace.ack_rtt_ns"]) != want or "[RTT " not in t["_ws.col.Info"]:
        fail("frame %d: RTT %s ns, tshark's timestamps say %d (Info %r)" %
             (i + 1, t["rocetrace.ack_rtt_ns"], want, t["_ws.col.Info"]))


def _resend(fail, rows, i, t):
    flow, psn = t["rocetrace.flow_id"], t["infiniband.bth.psn"]
    sent = [k for k in range(i) if rows[k]["rocetrace.flow_id"] == flow and
            rows[k]["infiniband.bth.psn"] == psn and not rows[k]["rocetrace.copy_of"]]
    prev = t["rocetrace.retransmission.resend_of"]
    if not prev:
        if sent:
            fail("frame %d: a resend without resend_of, frame %d sent PSN %s" % (i + 1, sent[-1] + 1, psn))
        return
    if not sent or int(prev) != sent[-1] + 1:
        fail("frame %d: resend of frame %s, the flow last sent PSN %s in %s" %
             (i + 1, prev, psn, sent[-1] + 1 if sent else None))
        return
    want = ns(t["frame.time_epoch"]) - ns(rows[int(prev) - 1]["frame.time_epoch"])
    if int(t["rocetrace.retransmission.after_ns"]) != want or \
            "[resend of %s, +" % prev not in t["_ws.col.Info"]:
        fail("frame %d: resend delay %s ns, tshark's timestamps say %d (Info %r)" %
             (i + 1, t["rocetrace.retransmission.after_ns"], want, t["_ws.col.Info"]))


def is_request(opcode):
    """An RC, UC or XRC request (IBA opcode table: responses are 0x0D-0x12 of RC and XRC)."""
    op = int(opcode, 0)
    return op >> 5 in (0, 1, 5) and not (op >> 5 != 1 and 0x0D <= op & 0x1F <= 0x12)


def _wait(fail, rows, i, t):
    nak = t["rocetrace.retransmission.nak_frame"]
    if nak:
        since = int(nak) - 1
    else:
        reqs = [k for k in range(i) if rows[k]["rocetrace.flow_id"] == t["rocetrace.flow_id"]
                and not rows[k]["rocetrace.copy_of"] and is_request(rows[k]["infiniband.bth.opcode"])]
        since = reqs[-1] if reqs else i
    want = ns(t["frame.time_epoch"]) - ns(rows[since]["frame.time_epoch"])
    got = int(t["rocetrace.retransmission.wait_ns"])
    if got != want:
        fail("frame %d: resend run's wait %d ns, tshark's timestamps say %d" % (i + 1, got, want))
    return got


def check(rows, fail, truth=None, flows=None):
    """The delays of one capture's rows; returns how many of each were checked."""
    n = {"cnp": 0, "rtt": 0, "resend": 0, "wait": 0, "warnings": 0}
    delays = {}
    waits_after_nak = []
    for i, t in enumerate(rows):
        if t["rocetrace.kind"] == "cnp":
            _cnp(fail, rows, i, t, delays)
            n["cnp"] += 1
        if t["rocetrace.ack_rtt_ns"]:
            _rtt(fail, rows, i, t)
            n["rtt"] += 1
        if t["rocetrace.retransmission"] == "1":
            _resend(fail, rows, i, t)
            n["resend"] += bool(t["rocetrace.retransmission.resend_of"])
        if t["rocetrace.retransmission.wait_ns"]:
            w = _wait(fail, rows, i, t)
            n["wait"] += 1
            if t["rocetrace.retransmission.nak_frame"]:
                waits_after_nak.append(w)
        msgs = t["_ws.expert.message"].split("|") if t["_ws.expert.message"] else []
        for m, sev in zip(msgs, t["_ws.expert.severity"].split("|")):
            if m.startswith(("PSN gap", "Duplicate PSN")):
                n["warnings"] += 1
                if sev != "6291456":  # PI_WARN
                    fail("frame %d: %r is not a warning (severity %s)" % (i + 1, m, sev))
    if truth is not None:
        _against_truth(fail, truth, flows, delays, waits_after_nak)
    return n


def _against_truth(fail, truth, flows, delays, waits):
    """Per throttled flow, the CNPs' delays are the generator's NP delays; go-back-N waits too."""
    for f in truth["flows"]:
        want = f.get("np_delay_ns")
        fid = [str(x["id"]) for x in flows if (x["src"], x["dst"], x["dest_qp"]) ==
               (f["src"], f["dst"], f["dest_qp"])]
        got = delays.get(fid[0] if fid else None, [])
        if not want and not got:
            continue
        have = got and {"min": min(got), "median": nearest_rank(got, 0.5), "max": max(got),
                        "samples": len(got)}
        if have != want:
            fail("flow %s>%s:%d: CE->CNP delays %s, the generator's truth %s" %
                 (f["src"], f["dst"], f["dest_qp"], have, want))
    if "go_back_n_delay_ns" in truth and waits != [truth["go_back_n_delay_ns"]]:
        fail("go-back-N waits %s, the generator's truth %s" % (waits, truth["go_back_n_delay_ns"]))
