#!/usr/bin/python3
"""System test: gen serve + gen send over loopback for ~1 s; logs and summaries must agree, no retransmissions."""
import json
import os
import random
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pair import serve_and_send  # noqa: E402


def summary(text):
    for line in text.splitlines():
        if line.startswith("summary "):
            return {k: v for k, v in (kv.split("=", 1) for kv in line.split()[1:])}
    raise AssertionError("no summary line in:\n" + text)


def events(path):
    out = []
    with open(path) as f:
        for line in f:
            ev = json.loads(line)
            assert re.fullmatch(r"\d+\.\d{9}", ev["ts"]), ev
            out.append(ev)
    return out


def main():
    rocetrace = sys.argv[1]
    # private loopback addresses so parallel tests using 127.0.0.1 never collide
    net = f"127.{random.randint(64, 250)}.{random.randint(1, 250)}"
    server, client = net + ".1", net + ".2"
    ctl = str(random.randint(20000, 60000))
    errors = []
    with tempfile.TemporaryDirectory() as tmp:
        slog, clog = os.path.join(tmp, "serve.jsonl"), os.path.join(tmp, "send.jsonl")
        snd, sout, srv_rc = serve_and_send(
            [rocetrace, "gen", "serve", "-B", server, "--control-port", ctl, "-D", "20", "--log",
             slog],
            [rocetrace, "gen", "send", server, "-B", client, "--control-port", ctl, "-D", "1", "-q",
             "3", "-s", "3000", "--rate", "300M", "--interval", "0.25", "--timeout", "500ms",
             "--log", clog])
        if snd.returncode or srv_rc:
            print(f"FAIL: send exit {snd.returncode}, serve exit {srv_rc}")
            return 1
        cs, ss = summary(snd.stdout), summary(sout)
        for key in ("packets", "bytes", "messages"):
            if cs[key] != ss[key]:
                errors.append(f"summary {key}: send {cs[key]} serve {ss[key]}")
        for key, side in (("retransmitted", cs), ("nak", cs), ("timeouts", cs),
                          ("duplicates", ss), ("out_of_order", ss), ("nak_sent", ss)):
            if side[key] != "0":
                errors.append(f"{key} = {side[key]} on loopback")
        if int(cs["packets"]) < 1000:
            errors.append(f"only {cs['packets']} packets in 1 s")
        # 3000-byte messages at MTU 1024 are 3 packets each
        if int(cs["packets"]) != 3 * int(cs["messages"]):
            errors.append("packets != 3 * messages")
        # 300 Mb/s per QP, 3 QPs, for 1 s: at most ~0.9 Gb/s of frames (+ one burst)
        if float(cs["gbps"]) > 0.95:
            errors.append(f"rate cap not honoured: {cs['gbps']} Gb/s")
        ce, se = events(clog), events(slog)
        cend = {e["dest_qp"]: e for e in ce if e["event"] == "end"}
        send_ = {e["dest_qp"]: e for e in se if e["event"] == "end"}
        if len(cend) != 3 or set(cend) != set(send_):
            errors.append(f"end events: send {sorted(cend)} serve {sorted(send_)}")
        for qp, e in cend.items():
            s = send_.get(qp, {})
            for k in ("packets", "bytes", "messages"):
                if e[k] != s.get(k):
                    errors.append(f"qp {qp} {k}: send {e[k]} serve {s.get(k)}")
            ivs = [i for i in ce if i["event"] == "interval" and i["dest_qp"] == qp]
            if sum(i["packets"] for i in ivs) != e["packets"]:
                errors.append(f"qp {qp}: intervals sum to {sum(i['packets'] for i in ivs)}, end says {e['packets']}")
            if e["src"] != client or e["dst"] != server:
                errors.append(f"qp {qp} flow {e['src']} -> {e['dst']}")
        if sum(e["packets"] for e in cend.values()) != int(cs["packets"]):
            errors.append("log end packets != summary packets")
        starts = [e for e in ce if e["event"] == "start"]
        if len(starts) != 1 or starts[0]["role"] != "send" or starts[0]["qps"] != 3:
            errors.append(f"start events {starts}")
        qps = [e for e in ce if e["event"] == "qp"]
        if len(qps) != 3 or len({e["udp_sport"] for e in qps}) != 3:
            errors.append("each QP needs its own qp event and UDP source port")
        rates = [e for e in ce if e["event"] == "rate" and e["reason"] == "start"]
        if len(rates) != 3 or any(abs(e["rate_mbps"] - 300) > 1e-6 for e in rates):
            errors.append(f"start rates {rates}")
    for e in errors:
        print("FAIL:", e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
