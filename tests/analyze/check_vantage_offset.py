#!/usr/bin/python3
"""Two taps whose clocks disagree, either sign: the figures must not depend on the sign.

usage: check_vantage_offset.py ROCETRACE

make_vantage_offset.py's model (one flow through a switch that drops 20
packets between the taps) is written with tap2's clock 0, +3 ms, -3 ms
(within --vantage-window), +20 ms and -20 ms off (beyond it), and each pair
is analyzed with --threads 1 and 2. Against the model's truth, at every
offset: the data flow's packets and its rate within 1 % (one clock: the
point it is followed at), no resend, timeout, go-back-N or ack_timeout /
nak_storm finding on any flow (copies at the other point are no resends);
where the points match: a `loss` finding of the 20 packets lost between t1
and t2 from the paths whichever point is home, and the path t1 -> t2 losing
20; beyond the window: no path matched, the reason naming the window, each
flow followed at one point. --threads 2 gives the document --threads 1 gives.
Exits 0 when all holds, 1 with one line per mismatch.
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import make_vantage_offset as model  # noqa: E402

MS = 1_000_000
OFFSETS = [0, 3 * MS, -3 * MS, 20 * MS, -20 * MS]
WINDOW = 10 * MS  # --vantage-window's default


def analyze(rt, d, threads):
    out = subprocess.run([rt, "analyze", "--json", "--threads", str(threads),
                          "--vantage", "t1=" + os.path.join(d, "tap1.pcap"),
                          "--vantage", "t2=" + os.path.join(d, "tap2.pcap")],
                         capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise SystemExit(f"rocetrace analyze exited {out.returncode}: {out.stderr.strip()}")
    return out.stdout


def check(doc, truth, bad):
    off = truth["offset_ns"]
    say = lambda msg: bad.append(f"offset {off / MS:+g} ms: {msg}")  # noqa: E731
    flows = {f["selector"]: f for f in doc["flows"]}
    data = flows.get(truth["data_flow"])
    if not data:
        say(f"no flow {truth['data_flow']}")
        return
    if data["packets"] != truth["data_packets"]:
        say(f"data flow packets {data['packets']}, model {truth['data_packets']}")
    if data["gbps"] is None or abs(data["gbps"] / truth["data_gbps"] - 1) > 0.01:
        say(f"data flow gbps {data['gbps']}, model {truth['data_gbps']:.4f} (1%)")
    for f in doc["flows"]:
        for key in ("retransmitted", "timeouts", "go_back_n"):
            if f[key]:
                say(f"flow {f['selector']}: {key} {f[key]}, the model resent nothing")
        if not f["followed_at"]:
            say(f"flow {f['selector']}: followed_at null with two points")
    codes = {f["code"]: f for f in doc["findings"]}
    for code in ("ack_timeout", "nak_storm"):
        if code in codes:
            say(f"finding {code}: {codes[code]['summary']}")
    paths = {(p["from"], p["to"]): p for p in doc["paths"]}
    if abs(off) < WINDOW:
        fwd = paths.get(("t1", "t2"))
        if not fwd or fwd["lost"] != truth["dropped_between"]:
            say(f"path t1 -> t2 lost {fwd and fwd['lost']}, model {truth['dropped_between']}")
        loss = codes.get("loss")
        if not loss:
            say("no loss finding")
            return
        ev = loss["evidence"]
        if ev["lost_packets"] != truth["dropped_between"] or \
                ev.get("lost_between_points") != truth["dropped_between"]:
            say(f"loss finding lost {ev['lost_packets']} ({ev.get('lost_between_points')} between "
                f"points), model {truth['dropped_between']}")
        if ev["lost_from"] != "paths":
            say(f"loss finding lost_from {ev['lost_from']!r}, not 'paths'")
        if ev["lost_where"] != f"between t1 and t2 ({truth['dropped_between']} lost)":
            say(f"loss finding lost_where {ev['lost_where']!r}")
    else:
        if any(p["matched"] for p in doc["paths"]):
            say("a path matched packets with clocks further apart than the window")
        why = doc["paths"][0]["offset_null_reason"] or "" if doc["paths"] else ""
        if "--vantage-window" not in why or "followed at one point" not in why:
            say(f"the paths do not say the clocks are further apart than the window and each "
                f"flow is followed at one point: {why!r}")


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check_vantage_offset.py ROCETRACE")
    rt = sys.argv[1]
    built = model.model()
    bad = []
    with tempfile.TemporaryDirectory() as d:
        for off in OFFSETS:
            truth = model.write(d, off, built)
            one = analyze(rt, d, 1)
            check(json.loads(one), truth, bad)
            if analyze(rt, d, 2) != one:
                bad.append(f"offset {off / MS:+g} ms: --threads 2 differs from --threads 1")
    for b in bad:
        print(b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
