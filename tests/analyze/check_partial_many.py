#!/usr/bin/python3
"""Partial results of 12 hosts merged (beyond the one-pass matcher's 8 points), against the model's truth.

usage: check_partial_many.py ROCETRACE

The model: 12 hosts h01..h12 (10.0.1.K, MAC 02:00:00:00:01:K), each capturing
its own port, so a host sees the frames it sends (when it sends them) and
those it receives (when they arrive), in its own clock (host K's is K * 100 ns
ahead). Six pairs send data (h01>h02, h03>h04, ..., h11>h12) and two incasts
too (h02, h04, h06 > h12; h08, h10 > h01), each flow RC SEND-only packets
every 2 us through one switch (3 us, plus up to 1 us of queueing): the switch
marks CE on some (every 7th packet of the pairs h05>h06 and h09>h10, every 3rd
of the incasts) and drops a few (PSNs 40 and 90 of h03>h04, 25 of h04>h12).
A receiver answers a CE mark with a CNP to the sender's QP unless it sent one
to that QP in the last 20 us; the CNP reaches the sender 3 us later. Frames
are built with scapy (scenario_frames.py); nothing from rocetrace is used.

Each host's capture is made a partial (`analyze --partial --point hK
--vantage-sample 1/1`), the 12 merged (`analyze h*.rtpart --json`): every
data flow once, from its sender (its home: its first frame), with the packets
sent, the CE marks the switch set, the CNPs its receiver sent; the totals
their sums; a path from each sender to its receiver with the packets
matched, lost and CE-marked between them, and paths only between hosts that
share flows, their clock offsets the model's. The same partials given in another order merge to the same
flows and paths (by names). Exits 0 when all holds, 1 with one line per
mismatch.
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenario_frames import T0, US, roce, write_pcap  # noqa: E402

HOSTS = 12
OP_SEND_ONLY, OP_CNP = 0x04, 0x81
GAP = 2 * US
DELAY, QUEUE = 3 * US, 1 * US
CNP_HOLD = 20 * US
PAYLOAD = b"x" * 512


def ip(k):
    return "10.0.1.%d" % k


def mac(k):
    return "02:00:00:00:01:%02x" % k


def name(k):
    return "h%02d" % k


# (sender, receiver, packets, start, every how many packets CE-marked (0: none), PSNs dropped)
FLOWS = [(1, 2, 200, 0, 0, ()), (3, 4, 200, 1, 0, (40, 90)), (5, 6, 200, 2, 7, ()),
         (7, 8, 200, 3, 0, ()), (9, 10, 200, 4, 7, ()), (11, 12, 200, 5, 0, ()),
         (2, 12, 120, 6, 3, ()), (4, 12, 120, 7, 3, (25,)), (6, 12, 120, 8, 3, ()),
         (8, 1, 150, 9, 3, ()), (10, 1, 150, 10, 3, ())]


def model():
    """The frames each host captured (its clock), and the truth of each flow."""
    rnd = random.Random(26)
    caps = {k: [] for k in range(1, HOSTS + 1)}
    truth = []
    for f, (s, r, n, start, every, dropped) in enumerate(FLOWS):
        qp_s, qp_r = 0x100 + f, 0x200 + f
        ce = cnp = 0
        last_cnp = None
        for psn in range(n):
            t = T0 + start * 300 + psn * GAP
            caps[s].append((t + s * 100, roce(ip(s), ip(r), OP_SEND_ONLY, qp_r, psn, payload=PAYLOAD,
                                              smac=mac(s), dmac=mac(r))))
            if psn in dropped:
                continue
            marked = every and psn % every == every - 1
            arrive = t + DELAY + rnd.randint(0, QUEUE)
            caps[r].append((arrive + r * 100, roce(ip(s), ip(r), OP_SEND_ONLY, qp_r, psn,
                                                   payload=PAYLOAD, ecn=3 if marked else 2,
                                                   smac=mac(s), dmac=mac(r))))
            ce += bool(marked)
            if marked and (last_cnp is None or arrive - last_cnp >= CNP_HOLD):
                last_cnp = arrive
                c = roce(ip(r), ip(s), OP_CNP, qp_s, 0, ext=bytes(16), dscp=48, becn=True,
                         smac=mac(r), dmac=mac(s))
                caps[r].append((arrive + 500 + r * 100, c))
                caps[s].append((arrive + 500 + DELAY + s * 100, c))
                cnp += 1
        truth.append({"flow": "%s>%s:0x%06x" % (ip(s), ip(r), qp_r), "from": name(s),
                      "to": name(r), "packets": n, "ce": ce, "cnp": cnp, "lost": len(dropped)})
    return caps, truth


errors = []


def check(what, got, want):
    if got != want:
        errors.append("%s: %r, want %r" % (what, got, want))


def run(rt, *args):
    p = subprocess.run([rt, "analyze", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=300)
    if p.returncode:
        errors.append("analyze %s: exit %d: %s" % (" ".join(args[:3]), p.returncode,
                                                   p.stderr.decode().strip()))
    return p


def paths_by_name(view):
    return {(p["from"], p["to"]): p for p in view.get("paths", [])}


def check_view(what, view, truth):
    flows = {f["selector"]: f for f in view.get("flows", [])}
    paths = paths_by_name(view)
    check(what + ": vantage points", sorted(v["name"] for v in view.get("vantage_points", [])),
          [name(k) for k in range(1, HOSTS + 1)])
    shared = set()
    for t in truth:
        f = flows.get(t["flow"])
        if not f:
            errors.append("%s: flow %s missing" % (what, t["flow"]))
            continue
        w = what + ": flow " + t["flow"]
        check(w + " packets", f["packets"], t["packets"])
        check(w + " ce", f["ecn"]["ce"], t["ce"])
        check(w + " cnp_received", f["cnp_received"], t["cnp"])
        shared.add(tuple(sorted((t["from"], t["to"]))))
        p = paths.get((t["from"], t["to"]))
        if not p:
            errors.append("%s: no path %s > %s" % (w, t["from"], t["to"]))
            continue
        check(w + " path matched", p["matched"], t["packets"] - t["lost"])
        check(w + " path lost", p["lost"], t["lost"])
        check(w + " path ce_marked", p["ce_marked"], t["ce"])
        if t["cnp"]:  # the CNPs, back from the receiver: the pair's other way
            back = paths.get((t["to"], t["from"])) or {}
            check(w + " its CNPs' path matched", back.get("matched"), t["cnp"])
        check(w + " vantage_paths", f.get("vantage_paths"), [{"from": t["from"], "to": t["to"]}])
        check(w + " followed_at", f.get("followed_at"), t["from"])
    # paths only between the hosts that share flows (a CNP goes back on the pair's other way)
    check(what + ": pairs with paths", sorted({tuple(sorted(k)) for k in paths}), sorted(shared))
    for (a, b), p in paths.items():  # host K's clock is K * 100 ns ahead: within the queueing's skew
        want = (int(b[1:]) - int(a[1:])) * 100
        if p["offset_ns"] is not None and abs(p["offset_ns"] - want) > 50:
            errors.append("%s: path %s > %s offset %d ns, want %d" % (what, a, b, p["offset_ns"], want))
    totals = view.get("totals", {})
    check(what + ": totals ce", totals.get("ce"), sum(t["ce"] for t in truth))
    check(what + ": totals cnp", totals.get("cnp"), sum(t["cnp"] for t in truth))
    check(what + ": roce_packets", view.get("roce_packets"),
          sum(t["packets"] + t["cnp"] for t in truth))


def main():
    rt = sys.argv[1]
    caps, truth = model()
    d = tempfile.mkdtemp(prefix="rt_partial_many_")
    try:
        parts = []
        for k in range(1, HOSTS + 1):
            cap, part = os.path.join(d, name(k) + ".pcap"), os.path.join(d, name(k) + ".rtpart")
            write_pcap(cap, caps[k])
            run(rt, "--partial", part, "--point", name(k), "--vantage-sample", "1/1", cap)
            parts.append(part)
        p = run(rt, *parts, "--json")
        if p.returncode:
            return report()
        view = json.loads(p.stdout)
        check_view("merged", view, truth)
        other = json.loads(run(rt, *(parts[5:] + parts[:5][::-1]), "--json").stdout or b"{}")
        check("another order: flows", sorted(f["selector"] for f in other.get("flows", [])),
              sorted(f["selector"] for f in view["flows"]))
        keep = ("matched", "lost", "ce_marked", "judged")
        check("another order: paths",
              {k: [v[x] for x in keep] for k, v in paths_by_name(other).items()},
              {k: [v[x] for x in keep] for k, v in paths_by_name(view).items()})
    finally:
        shutil.rmtree(d)
    return report()


def report():
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
