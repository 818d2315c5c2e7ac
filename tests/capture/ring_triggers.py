#!/usr/bin/python3
"""Golden test of capture --ring: each trigger fires where the scenario's own truth says, the window is right.

Usage: ring_triggers.py ROCETRACE FIXTURES_DIR
Each scenario is a capture built here with scapy (tests/fixtures/frames.py):
five seconds of RoCEv2 writes every 10 ms, with CNPs, CE marks, NAKs, RNR
NAKs, a resend or a PFC storm placed at known times. The generator computes
when each trigger must fire (the truth); `rocetrace capture -r SCENARIO
--ring 1s --post 300ms --trigger EXPR -w DIR --json-events FILE` must write
one event per truth, at that time, and tshark reading the event file back
must find exactly the scenario's frames from 1 s before that time to 300 ms
after it; capinfos must read the trigger and its time in the file's
comment. Also: --hold-off and --max-events, the counts --metrics serves,
and bad expressions refused (exit 2) with where they went wrong, before
anything is written.
"""
import json
import os
import re
import signal
import shutil
import struct
import subprocess
import sys
import tempfile

SEC, MS = 1_000_000_000, 1_000_000
T0 = 1_700_000_000 * SEC
SPAN, POST = 1 * SEC, 300 * MS

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def write_pcap(path, frames):
    """frames: (ts_ns, bytes), written as nanosecond pcap in time order."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for ts, data in sorted(frames, key=lambda x: x[0]):
            f.write(struct.pack("<IIII", ts // SEC, ts % SEC, len(data), len(data)))
            f.write(data)


def cached(build):
    """Each frame built once: scapy takes a millisecond a frame."""
    memo = {}

    def get(*args, **kw):
        key = (args, tuple(sorted(kw.items())))
        if key not in memo:
            memo[key] = build(*args, **kw).data
        return memo[key]
    return get


def scenario(fr, kind):
    """The frames of one scenario and the times its trigger must fire at (ns)."""
    data, truth = [], []
    v4 = fr.cached_v4
    ce_from = 3 * SEC if kind == "ce" else None
    for k in range(500):
        ts = k * 10 * MS
        ecn = fr.CE if ce_from is not None and ts >= ce_from else fr.ECT0
        psn = 100 + k
        if kind == "timeout" and ts >= 3 * SEC:
            psn -= 20  # the requests from 3 s on go back: a resend no NAK asked for
        data.append((T0 + ts, v4(10, 0x11, psn, payload=b"x" * 64, ecn=ecn)))
    if kind == "timeout":
        truth.append(T0 + 3 * SEC)
    if kind in ("cnp", "hold"):
        times = [3005 * MS] if kind == "cnp" else [3005 * MS, 3500 * MS, 4805 * MS]
        for ts in times:
            data.append((T0 + ts, v4(0x81, 0x22, 0, dst=fr.IP_A, src=fr.IP_B, cnp=True,
                                     becn=1, dscp=fr.DSCP_CNP, ecn=0)))
        truth.extend(T0 + t for t in times)
    if kind == "cnp_rate":
        cnps = [3 * SEC + i * 10 * MS + 5 * MS for i in range(40)]
        for ts in cnps:
            data.append((T0 + ts, v4(0x81, 0x22, 0, dst=fr.IP_A, src=fr.IP_B, cnp=True,
                                     becn=1, dscp=fr.DSCP_CNP, ecn=0)))
        truth.append(T0 + cnps[20])  # the 21st CNP of the second: more than 20/s
    if kind == "ce":
        # evaluated as each 100 ms of capture time ends, over the second before
        for b in range(1, 50):
            end = b * 100 * MS
            window = [t for t, _ in data if end - SEC <= t - T0 < end]
            marked = [t for t in window if t - T0 >= ce_from]
            if window and len(marked) * 2 > len(window):
                truth.append(T0 + end)
                break
    if kind in ("nak", "rnr"):
        at = 2500 * MS if kind == "nak" else 2700 * MS
        syndrome = 0x60 | 1 if kind == "nak" else 0x20 | 5
        data.append((T0 + at, v4(17, 0x33, 120, dst=fr.IP_A, src=fr.IP_B, aeth=(syndrome, 7))))
        truth.append(T0 + at)
    if kind in ("storm", "paused"):
        # XOFF of priority 3 (65535 quanta: 335 us at 100 Gb/s) every 200 us from 2 s for 300 ms
        xoff = fr.pfc(1 << 3, [0, 0, 0, 0xFFFF, 0, 0, 0, 0]).data
        pfcs = [2 * SEC + i * 200_000 for i in range(1500)]
        data.extend((T0 + t, xoff) for t in pfcs)
        if kind == "storm":  # paused without a break for 10 ms (the default threshold): the XOFF at 2.01 s
            truth.append(T0 + next(t for t in pfcs if t - pfcs[0] >= 10 * MS))
        else:  # more than 25% of a second paused: 300 ms by the end of 2.3 s
            truth.append(T0 + 2300 * MS)
    return data, truth


def tshark_frames(path, lo=None, hi=None):
    """(epoch ns, length) of each frame tshark reads, those in [lo, hi] when given."""
    r = subprocess.run(["tshark", "-r", path, "-T", "fields", "-e", "frame.time_epoch",
                        "-e", "frame.len"], capture_output=True, text=True, check=True)
    out = []
    for line in r.stdout.split("\n"):
        if not line:
            continue
        t, n = line.split("\t")
        s, frac = t.split(".")
        ns = int(s) * SEC + int(frac.ljust(9, "0")[:9])
        if (lo is None or ns >= lo) and (hi is None or ns <= hi):
            out.append((ns, int(n)))
    return out


def capinfos_comment(path):
    r = subprocess.run(["capinfos", "-k", path], capture_output=True, text=True)
    for line in r.stdout.split("\n"):
        if line.startswith("Capture comment:"):
            return line.split(":", 1)[1].strip()
    return ""


def run_case(rt, tmp, name, fr, kind, expr, extra=()):
    data, truth = scenario(fr, kind)
    src = os.path.join(tmp, name + ".pcap")
    write_pcap(src, data)
    out, js = os.path.join(tmp, name), os.path.join(tmp, name + ".jsonl")
    cmd = [rt, "capture", "-r", src, "--ring", "1s", "--post", "300ms", "--ring-size", "8M",
           "--trigger", expr, "-w", out, "--json-events", js] + list(extra)
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    check(r.returncode == 0, "%s: exit 0 (%s)" % (name, r.stderr.strip()[-300:]))
    return truth, out, js, r, src


def check_events(name, truth, out, js, r, src, expr):
    events = [json.loads(x) for x in open(js)] if os.path.exists(js) else []
    check(len(events) == len(truth), "%s: %d events, the truth has %d" % (name, len(events), len(truth)))
    lines = [x for x in r.stderr.split("\n") if ": event " in x]
    check(len(lines) == len(truth), "%s: one line per event (%d)" % (name, len(lines)))
    files = sorted(os.listdir(out)) if os.path.isdir(out) else []
    check(len(files) == len(truth), "%s: %d event files" % (name, len(files)))
    for ev, t in zip(events, truth):
        check(ev["time_ns"] == t, "%s: event %d at %d ns, the truth says %d" % (name, ev["event"], ev["time_ns"], t))
        check(ev["trigger"] == expr.replace(" ", ""), "%s: the trigger named (%s)" % (name, ev["trigger"]))
        path = ev["file"]
        check(os.path.basename(path).startswith("event%d-" % ev["event"]) and path.endswith(
            "-%s.pcapng" % ev["code"]), "%s: file name %s" % (name, path))
        got = tshark_frames(path)
        want = tshark_frames(src, t - SPAN, t + POST)
        check(got == want, "%s: the file holds the source's %d frames from 1 s before to 300 ms after "
              "(got %d)" % (name, len(want), len(got)))
        before = len([x for x in want if x[0] <= t])
        check(ev["frames_before"] == before and ev["frames_after"] == len(want) - before,
              "%s: frames before/after %d/%d" % (name, ev["frames_before"], ev["frames_after"]))
        comment = capinfos_comment(path)
        check(("trigger %s fired at" % ev["trigger"]) in comment and ev["time"] in comment,
              "%s: the comment names the trigger and its time (%s)" % (name, comment[:120]))


def metrics(rt, tmp, fr):
    """--metrics counts the events and the triggers held (the hold_off scenario: 2 and 1)."""
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import metrics_lib as ml
    data, _ = scenario(fr, "hold")
    src = os.path.join(tmp, "metrics.pcap")
    write_pcap(src, data)
    p, port = ml.start([rt, "capture", "-r", src, "--ring", "1s", "--post", "300ms", "--ring-size", "8M",
                        "--hold-off", "1s", "--trigger", "cnp", "-w", os.path.join(tmp, "metrics"),
                        "--metrics", "127.0.0.1:0", "--metrics-linger", "30"])
    try:
        body = ml.wait_final(port)
    finally:
        p.send_signal(signal.SIGINT)
        p.communicate(timeout=30)
    got = dict(re.findall(r"^(rocetrace_recorder_\w+) (\d+)$", body, re.M))
    check(got == {"rocetrace_recorder_events_total": "2", "rocetrace_recorder_triggers_held_total": "1"},
          "--metrics: 2 events, 1 trigger held (%s)" % got)


def refusals(rt, tmp):
    out = os.path.join(tmp, "refused")
    for expr, where in (("cnp_rate>5", "at character 11"), ("ce_share>150%", "at character 10 ('150%')"),
                        ("pfc_storm:9", "at character 11 ('9')"), ("cpn", "at character 1 ('cpn')"),
                        ("finding:np_slient", "no finding has the code 'np_slient'")):
        r = subprocess.run([rt, "capture", "-i", "lo", "--ring", "1s", "--trigger", expr, "-w", out],
                           capture_output=True, text=True, timeout=30)
        lines = r.stderr.strip().split("\n")
        check(r.returncode == 2 and len(lines) == 1 and where in lines[0],
              "--trigger '%s' refused with exit 2 in one line saying %s (%s)" % (expr, where, r.stderr.strip()))
    check(not os.path.exists(out), "nothing written for a refused expression")


def main():
    rt, fixtures = sys.argv[1], sys.argv[2]
    if not shutil.which("tshark") or not shutil.which("capinfos"):
        print("SKIP: tshark and capinfos needed")
        sys.exit(77)
    sys.path.insert(0, fixtures)
    try:
        import frames as fr
    except ImportError as e:
        print("SKIP: scapy needed (%s)" % e)
        sys.exit(77)
    fr.cached_v4 = cached(fr.v4)
    tmp = tempfile.mkdtemp(prefix="rt-ring-")
    try:
        cases = [("cnp", "cnp", "cnp"), ("cnp_rate", "cnp_rate", "cnp_rate > 20/s"),
                 ("ce_share", "ce", "ce_share>50%"), ("nak", "nak", "nak"), ("rnr", "rnr", "rnr"),
                 ("timeout", "timeout", "timeout"), ("pfc_storm", "storm", "pfc_storm:3"),
                 ("pfc_paused", "paused", "pfc_paused:3>25%")]
        for name, kind, expr in cases:
            truth, out, js, r, src = run_case(rt, tmp, name, fr, kind, expr)
            check_events(name, truth, out, js, r, src, expr)
        # finding:CODE: the analysis is judged at the first frame of each second of capture time (one
        # every 10 ms here); the storm (from 2 s, 300 ms) is a finding at the first judgement after it
        # began that sees it last the storm threshold (10 ms): the frame at 3 s
        truth, out, js, r, src = run_case(rt, tmp, "finding", fr, "storm", "finding:pfc_storm")
        check_events("finding", [T0 + 3 * SEC], out, js, r, src, "finding:pfc_storm")
        # three CNPs: 3.005 s starts one, 3.5 s is within --hold-off 1 s, 4.805 s starts another
        truth, out, js, r, src = run_case(rt, tmp, "hold_off", fr, "hold", "cnp", ["--hold-off", "1s"])
        check_events("hold_off", [truth[0], truth[2]], out, js, r, src, "cnp")
        truth, out, js, r, src = run_case(rt, tmp, "max_events", fr, "hold", "cnp",
                                          ["--hold-off", "0", "--max-events", "1"])
        check_events("max_events", truth[:1], out, js, r, src, "cnp")
        # a trigger that never fires: no event, no file
        truth, out, js, r, src = run_case(rt, tmp, "quiet", fr, "nak", "rnr")
        check_events("quiet", [], out, js, r, src, "rnr")
        refusals(rt, tmp)
        if "metrics at" in subprocess.run([rt, "capture", "-r", os.path.join(fixtures, "mixed.pcap"), "-w",
                                           os.path.join(tmp, "probe.pcapng"), "--metrics", "127.0.0.1:0"],
                                          capture_output=True, text=True).stderr:
            metrics(rt, tmp, fr)
        else:
            print("(--metrics not built in: its counts not checked)")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
