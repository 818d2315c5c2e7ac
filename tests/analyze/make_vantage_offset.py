#!/usr/bin/python3
"""Two taps of one RoCE flow whose clocks disagree by a given offset, with the model's truth.

usage: make_vantage_offset.py OUTDIR OFFSET_NS
       (writes OUTDIR/tap1.pcap, OUTDIR/tap2.pcap and OUTDIR/truth.json)

Host A (10.0.0.1) sends N RC SEND-only packets of 1024 bytes, one a
microsecond, to host B's QP 0x11 (every 4th asks for an ACK); they pass tap1,
then a switch (5 us plus up to 3 us of queueing, first in first out) that
drops every 97th packet from PSN 100 on and marks some CE, then tap2. B
acknowledges each packet that asked, 1.5 us after it passed tap2, to A's QP
0x22; the ACK passes tap2, then tap1 5 us later. tap2's frames carry the
switch's MACs and the time of tap2's clock: the true time plus OFFSET_NS
(either sign). Frames are built with scapy (scenario_frames.py);
nothing from rocetrace is used. The truth holds what the model did: the
packets sent and dropped, the CE marks, the ACKs, the data flow's rate
(its bytes over its first to last packet, as the sender sent them).
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from scenario_frames import T0, US, MAC_A, MAC_B, MAC_SW, aeth, roce, write_pcap  # noqa: E402

A, B = "10.0.0.1", "10.0.0.2"
QP_B, QP_A = 0x11, 0x22
N = 2000
GAP = 1 * US
DELAY = 5 * US      # tap1 -> tap2 through the switch, before queueing
QUEUE = 3 * US      # queueing: up to this much more
ACK_EVERY = 4
ACK_TURN = 1500     # ns: B answers this long after the packet passed tap2
DROPPED = set(range(100, N, 97))
MARKED = set(range(50, N, 41)) - DROPPED
OP_SEND_ONLY, OP_ACK = 0x04, 0x11
PAYLOAD = b"x" * 1024


def model():
    """The frames each tap saw, in true time: (tap1, tap2, truth)."""
    rnd = random.Random(31)
    tap1, tap2 = [], []
    left_switch = 0
    data_bytes = 0
    acks = 0
    for psn in range(N):
        t = T0 + psn * GAP
        ackreq = psn % ACK_EVERY == ACK_EVERY - 1
        sent = roce(A, B, OP_SEND_ONLY, QP_B, psn, payload=PAYLOAD, ackreq=ackreq, smac=MAC_A,
                    dmac=MAC_SW)
        tap1.append((t, sent))
        data_bytes += len(sent)
        out = max(t + DELAY + rnd.randint(0, QUEUE), left_switch + 100)
        left_switch = out
        if psn in DROPPED:
            continue
        ecn = 3 if psn in MARKED else 2
        tap2.append((out, roce(A, B, OP_SEND_ONLY, QP_B, psn, payload=PAYLOAD, ackreq=ackreq,
                               ecn=ecn, smac=MAC_SW, dmac=MAC_B)))
        if ackreq:
            ta = out + ACK_TURN
            ext = aeth(0x1F, psn // ACK_EVERY)
            tap2.append((ta, roce(B, A, OP_ACK, QP_A, psn, ext=ext, smac=MAC_B, dmac=MAC_SW)))
            tap1.append((ta + DELAY, roce(B, A, OP_ACK, QP_A, psn, ext=ext, smac=MAC_SW,
                                          dmac=MAC_A)))
            acks += 1
    first, last = T0, T0 + (N - 1) * GAP
    truth = {"data_packets": N, "dropped_between": len(DROPPED), "ce_marked": len(MARKED),
             "acks": acks, "data_bytes": data_bytes,
             "data_gbps": data_bytes * 8 / (last - first),
             "data_flow": f"{A}>{B}:0x{QP_B:06x}", "ack_flow": f"{B}>{A}:0x{QP_A:06x}"}
    return tap1, tap2, truth


def write(outdir, offset_ns, built=None):
    """Write the two taps with tap2's clock offset_ns off, and the truth; returns the truth."""
    tap1, tap2, truth = built or model()
    write_pcap(os.path.join(outdir, "tap1.pcap"), tap1)
    write_pcap(os.path.join(outdir, "tap2.pcap"), [(t + offset_ns, b) for t, b in tap2])
    truth = dict(truth, offset_ns=offset_ns)
    with open(os.path.join(outdir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    return truth


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__.strip().splitlines()[2].strip())
    os.makedirs(sys.argv[1], exist_ok=True)
    write(sys.argv[1], int(sys.argv[2]))
