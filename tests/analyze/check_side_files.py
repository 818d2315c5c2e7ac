#!/usr/bin/python3
"""Side files joined by `rocetrace analyze`: NIC counter samples (auto-picked FILE.counters.jsonl and
--counters) and the traffic source log (--source-log); bad lines are skipped and counted; a side file that cannot be read fails before the
first frame (analyze, timeline and report).

usage: check_side_files.py ROCETRACE SCENARIO_DIR
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

errors = []


def check(what, got, want):
    if got != want:
        errors.append("%s: got %r, want %r" % (what, got, want))


def analyze(exe, *args):
    p = subprocess.run([exe, "analyze", "--json"] + list(args), stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    if p.returncode != 0:
        sys.exit("analyze %s: exit %d: %s" % (args, p.returncode, p.stderr.decode()))
    return json.loads(p.stdout)


def main():
    exe, scen = sys.argv[1:3]
    tmp = tempfile.mkdtemp(prefix="rt-side-")
    cap = os.path.join(tmp, "incast.pcap")
    shutil.copy(os.path.join(scen, "incast.pcap"), cap)
    truth = json.load(open(os.path.join(scen, "incast.truth.json")))

    with open(cap + ".counters.jsonl", "w") as f:
        for k, (sent, handled, rx3) in enumerate([(10, 0, 5), (25, 0, 9), (42, 0, 12)]):
            f.write(json.dumps({"ts": "1700000000.%09d" % (k * 1000000), "dev": "mlx5_0", "port": 1,
                                "netdev": "eth0", "counters": {"np_cnp_sent": sent,
                                                               "rx_prio3_pause": rx3}}) + "\n")
            f.write(json.dumps({"ts": "1700000000.%09d" % (k * 1000000), "dev": "mlx5_1", "port": 1,
                                "counters": {"rp_cnp_handled": 3 * k, "np_cnp_sent": 0}}) + "\n")
        # a counter that went back (reset between samples): its delta is unknown
        for k, v in enumerate((50, 3)):
            f.write(json.dumps({"ts": "1700000000.%09d" % (k * 1000000), "dev": "mlx5_2", "port": 1,
                                "counters": {"np_ecn_marked_roce_packets": v}}) + "\n")
        f.write("{not json\n")
        f.write('{"dev":"mlx5_0","counters":{}}\n')  # no ts
    rep = analyze(exe, cap)
    c = rep.get("counters")
    if c is None:
        errors.append("FILE.counters.jsonl was not picked up")
    else:
        check("counters.lines", c["lines"], 10)
        check("counters.bad_lines", c["bad_lines"], 2)
        check("counters.cnp.np_cnp_sent", c["cnp"]["np_cnp_sent"], 32)
        check("counters.cnp.rp_cnp_handled", c["cnp"]["rp_cnp_handled"], 6)
        check("counters.cnp.seen_on_wire", c["cnp"]["seen_on_wire"], truth["totals"]["cnp"])
        check("counters.pfc.3.rx_pause", c["pfc"]["3"]["rx_pause"], 7)
        check("counters devices", sorted(d["name"] for d in c["devices"]),
              ["mlx5_0/1 eth0", "mlx5_1/1", "mlx5_2/1"])
        reset = [d for d in c["devices"] if d["name"] == "mlx5_2/1"]
        check("a counter reset has no delta", reset and reset[0]["deltas"],
              {"np_ecn_marked_roce_packets": None})
        check("counters.pfc.3 without tx counters", c["pfc"]["3"]["tx_pause"], None)

    other = os.path.join(tmp, "other.jsonl")
    with open(other, "w") as f:
        f.write(json.dumps({"ts": "1700000000.000000000", "dev": "x", "counters": {"np_cnp_sent": 1}}) + "\n")
    rep = analyze(exe, cap, "--counters", other)
    check("--counters overrides", rep["counters"]["lines"], 1)

    # the traffic source's log for flow 10.0.0.1 > 10.0.0.100 qp 0x200
    log = os.path.join(tmp, "gen.jsonl")
    key = {"src": "10.0.0.1", "dst": "10.0.0.100", "dest_qp": 0x200}
    lines = [dict(event="start", role="send", backend="udp", op="send", msg_size=256, qps=4),
             dict(event="rate", rate_mbps=2500, reason="start", **key),
             dict(event="cnp", **key), dict(event="rate", rate_mbps=1250, reason="cnp", **key),
             dict(event="cnp", **key), dict(event="rate", rate_mbps=900, reason="cnp", **key),
             dict(event="rate", rate_mbps=1400, reason="timer", **key),
             dict(event="cnp", sent=True, **key),
             dict(event="end", packets=400, bytes=125000, retransmitted=0, cnp_handled=8, naks=0,
                  **key),
             dict(event="cnp", src="10.9.9.9", dst="10.0.0.100", dest_qp=5)]
    with open(log, "w") as f:
        for i, d in enumerate(lines):
            d["ts"] = "1700000000.%09d" % (i * 1000)
            f.write(json.dumps(d) + "\n")
        f.write("garbage\n")
    rep = analyze(exe, cap, "--source-log", log)
    check("source_log.lines", rep["source_log"]["lines"], len(lines) + 1)
    check("source_log.bad_lines", rep["source_log"]["bad_lines"], 1)
    check("source_log.unmatched_events", rep["source_log"]["unmatched_events"], 1)
    flows = {(f["src"], f["dst"], f["dest_qp"]): f for f in rep["flows"]}
    s = flows[("10.0.0.1", "10.0.0.100", 0x200)]["source"]
    if s is None:
        errors.append("source log not joined to its flow")
    else:
        check("source.rate_mbps_first", s["rate_mbps_first"], 2500)
        check("source.rate_mbps_min", s["rate_mbps_min"], 900)
        check("source.rate_mbps_last", s["rate_mbps_last"], 1400)
        # cuts for CNPs: 2500 -> 1250 (50%), 1250 -> 900 (28%); the timer's rise is no cut
        check("source.cuts", s["cuts"], 2)
        check("source.cut_mean_pct", s["cut_mean_pct"], 39)
        check("source.cut_max_pct", s["cut_max_pct"], 50)
        check("source.cnp_handled", s["cnp_handled"], 8)
        check("source.cnp_seen", s["cnp_seen"], flows[("10.0.0.1", "10.0.0.100", 0x200)]["cnp_received"])
        check("source.packets_reported", s["packets_reported"], 400)
    check("other flows without a source entry", flows[("10.0.0.2", "10.0.0.100", 0x201)]["source"], None)

    # the timeline joins both bucket by bucket (counters auto-picked as FILE.counters.jsonl)
    p = subprocess.run([exe, "timeline", cap, "--bucket", "100us", "--format", "json",
                        "--source-log", log], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=60)
    check("timeline exit", p.returncode, 0)
    rows = [json.loads(x) for x in p.stdout.decode().splitlines()]
    f0 = flows[("10.0.0.1", "10.0.0.100", 0x200)]["id"]
    allrows = [r for r in rows if r["flow"] == "all"]
    check("timeline nic_cnp_sent sum", sum(r["nic_cnp_sent"] for r in allrows), 32)
    check("timeline nic_cnp_handled sum", sum(r["nic_cnp_handled"] for r in allrows), 6)
    check("timeline nic_pause_frames sum", sum(r["nic_pause_frames"] for r in allrows), 7)
    # log events 2 and 4 (cnp at +2us and +4us) are CNPs the source handled; rates change at 1..6 us
    check("timeline source_cnp of the flow", sum(r["source_cnp"] for r in rows if r["flow"] == f0), 2)
    # 'all' also counts the CNP of 10.9.9.9's flow, which the capture does not hold
    check("timeline source_cnp of all", sum(r["source_cnp"] for r in allrows), 3)
    rates = [r["source_rate_mbps"] for r in rows if r["flow"] == f0]
    check("timeline source rate at the end of the first bucket", rates[0], 1400)
    check("timeline source rate on other flows",
          {r["source_rate_mbps"] for r in rows if r["flow"] not in (f0, "all")}, {None})

    p = subprocess.run([exe, "analyze", cap, "--source-log", os.path.join(tmp, "none.jsonl")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
    check("missing source log exit", p.returncode, 1)

    # a side file that cannot be read fails before the first frame, in every command: the capture
    # comes on a pipe that never ends, so a command that reads it first would hang
    for cmd in ("analyze", "timeline", "report"):
        for opt in ("--counters", "--source-log"):
            rd, wr = os.pipe()
            args = [exe, cmd, "-", opt, os.path.join(tmp, "missing.jsonl")]
            if cmd == "report":
                args += ["-o", os.path.join(tmp, "page.html")]
            try:
                p = subprocess.run(args, stdin=rd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   timeout=10)
                check("%s %s missing: exit" % (cmd, opt), p.returncode, 1)
                if b"missing.jsonl" not in p.stderr:
                    errors.append("%s %s missing: stderr %r" % (cmd, opt, p.stderr))
            except subprocess.TimeoutExpired:
                errors.append("%s %s missing: still reading the capture after 10 s" % (cmd, opt))
            finally:
                os.close(rd)
                os.close(wr)

    # standard input
    with open(cap, "rb") as f:
        p = subprocess.run([exe, "analyze", "-", "--json"], stdin=f, stdout=subprocess.PIPE, timeout=60)
    check("stdin packets", json.loads(p.stdout)["packets"], truth["packets"])

    for e in errors:
        print("FAIL " + e)
    if errors:
        sys.exit(1)
    print("ok: side files joined")


if __name__ == "__main__":
    main()
