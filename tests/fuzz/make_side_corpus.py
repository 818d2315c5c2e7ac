#!/usr/bin/python3
"""Seed corpora for tests/fuzz/fuzz_side.c: counters files and traffic source logs (docs/FORMATS.md).

usage: make_side_corpus.py COUNTERS_DIR SOURCE_LOG_DIR
Input format: options byte (bit 0 with a timeline, bit 1 the timeline as JSON), then the file.
The flows are the ones the target feeds: 10.0.0.1 > 10.0.0.100 QP 0x200, 10.0.0.100 > 10.0.0.1
QP 0x100, 10.0.0.2 > 10.0.0.100 QP 0x201.
"""
import hashlib
import json
import os
import sys

T0 = 1700000000


def ts(ns):
    return "%d.%09d" % (T0 + ns // 10**9, ns % 10**9)


def lines(objs):
    return "".join((o if isinstance(o, str) else json.dumps(o)) + "\n" for o in objs).encode()


def counters_files():
    dev = lambda k, **c: {"ts": ts(k * 1000), "dev": "mlx5_0", "port": 1, "netdev": "eth0", "counters": c}
    yield lines([dev(0, np_cnp_sent=1, rp_cnp_handled=0, rx_prio3_pause=2),
                 dev(3, np_cnp_sent=5, rp_cnp_handled=4, rx_prio3_pause=9, tx_prio3_pause_duration=7)])
    # a reset (a counter going back), a plain netdev, a second device, the capture's own line
    yield lines([dev(0, np_cnp_sent=50, rx_prio5_pause=1),
                 {"ts": ts(1000), "netdev": "eth1", "counters": {"rx_prio0_pause": 3}},
                 dev(2, np_cnp_sent=3, rx_prio5_pause=4),
                 {"ts": ts(2000), "dev": "mlx5_1", "port": 2, "counters": {"np_cnp_sent": 0}},
                 {"ts": ts(9000), "capture": {"device": "eth0", "received": 9, "os_dropped": 4,
                                              "if_dropped": 1}}])
    # bad lines: not JSON, no ts, a string for a counter, huge and negative values, nesting
    yield lines(["{not json", '{"dev":"x","counters":{}}', dev(1, np_cnp_sent="many"),
                 dev(2, np_cnp_sent=1e300, rx_prio9_pause=-1), '{"ts":"1.2","counters":{"a":{"b":1}}}',
                 {"ts": ts(1), "capture": {"os_dropped": "x"}}, ""])
    yield lines([dev(k, **{"tx_prio%d_pause" % (k % 8): k * k, "np_cnp_sent": k}) for k in range(40)])


def source_logs():
    flow = lambda ev, k, **kv: dict({"ts": ts(k * 1000), "event": ev, "src": "10.0.0.1",
                                      "dst": "10.0.0.100", "dest_qp": 512}, **kv)
    yield lines([{"ts": ts(0), "event": "start", "role": "send", "backend": "udp", "op": "write"},
                 flow("qp", 0, local_qp=256, udp_sport=49152),
                 flow("rate", 1, rate_mbps=1000, reason="start"), flow("cnp", 2),
                 flow("rate", 2, rate_mbps=500, reason="cnp"), flow("nak", 3, psn=7, code=0),
                 flow("retransmit", 3, psn=7, count=3), flow("timeout", 4, psn=9),
                 flow("end", 5, packets=5, bytes=500, retransmitted=3, cnp_handled=1, naks=1)])
    # the server's side (sent), a flow the capture lacks, PFC, IPv6, bad and odd lines
    yield lines([flow("cnp", 1, sent=True), dict(flow("rate", 1, rate_mbps=9), src="10.9.9.9"),
                 {"ts": ts(2), "event": "pfc", "priority": 3, "quanta": 65535, "sent": True},
                 {"ts": ts(3), "event": "rate", "src": "fe80::1", "dst": "fe80::2", "dest_qp": 5,
                  "rate_mbps": 7, "reason": "timer"},
                 "{", '{"event":"rate"}', flow("rate", 4, rate_mbps=-5, reason="cnp"),
                 flow("end", 6, packets=1e30, bytes=1e999, naks="x"), flow("rate", 7, dest_qp=1 << 40)])
    yield lines([dict(flow("rate", k, rate_mbps=1000 - 10 * k, reason="cnp" if k % 3 else "timer"),
                      dest_qp=512 + k % 2) for k in range(60)])


def main():
    for out, files in ((sys.argv[1], counters_files()), (sys.argv[2], source_logs())):
        os.makedirs(out, exist_ok=True)
        for body in files:
            for opt in (0, 1, 3):
                blob = bytes([opt]) + body
                with open(os.path.join(out, hashlib.sha1(blob).hexdigest()), "wb") as f:
                    f.write(blob)


if __name__ == "__main__":
    main()
