#!/usr/bin/python3
"""On every real capture (tests/captures, samples/incast.pcap), only what is really there is found.

usage: check_findings_captures.py ROCETRACE CAPTURE_DIR SAMPLE_PCAP

What each capture holds was decided by looking at it (tshark, and the facts this script reads from
the pcap itself, independently of rocetrace): the table below says which findings that makes and
why. Every finding `analyze --json` gives must be in the table and every one in the table must be
given, with the hosts named there; the facts each reason rests on are checked here too, so the
table cannot drift from the captures.
"""
import json
import os
import struct
import subprocess
import sys

RXE_ECN = ("every RoCEv2 packet is Not-ECT (Soft-RoCE sets no ECN codepoint): ecn_off; no PFC "
           "frame, CNP, CE mark, NAK or resend, one RoCE MTU, one QP per UDP source port")
EXPECT = {
    "rxe_nccl_node0.pcap": ([("warning", "ecn_off", {"172.30.0.11", "172.30.0.12", "172.30.0.25"})],
                            RXE_ECN + "; four timestamps go backwards (tcpdump on several "
                            "interfaces merged), but never within one flow (QP): no figure "
                            "suffers, so no capture_time_order"),
    "rxe_pingpong_rc.pcap": ([("warning", "ecn_off", {"10.1.16.61", "10.1.16.62"})], RXE_ECN),
    "rxe_pingpong_uc.pcap": ([("warning", "ecn_off", {"10.1.16.61", "10.1.16.62"})], RXE_ECN),
    "rxe_pingpong_ud.pcap": ([("warning", "ecn_off", {"10.1.16.61", "10.1.16.62"})], RXE_ECN),
    "rxe_rdma_atomic_bw.pcap": ([("warning", "ecn_off", {"10.1.16.62"})],
                                RXE_ECN + " (only 10.1.16.62 sends requests)"),
    "rxe_rdma_cm.pcap": ([("warning", "ecn_off", {"10.1.16.61", "10.1.16.62"})], RXE_ECN),
    "rxe_rdma_read_bw.pcap": ([("warning", "ecn_off", {"10.1.16.62"})],
                              RXE_ECN + " (10.1.16.62 sends the READ requests)"),
    "rxe_rdma_send_bw.pcap": ([("warning", "ecn_off", {"10.1.16.62"})], RXE_ECN),
    "rxe_rdma_write_bw.pcap": ([("warning", "ecn_off", {"10.1.16.62"})], RXE_ECN),
    "incast.pcap": ([], "a healthy DCQCN incast: ECN-capable data, CE marks each answered by the "
                        "NP (2 us, one CNP per 50 us per QP) on DSCP 48, the data on DSCP 26; no "
                        "PFC, loss or resend; the capture is behind the marking queue, so the "
                        "senders' cuts are not judged"),
}


def frames(path):
    """(ts_ns, bytes) of a classic pcap, micro- or nanosecond."""
    data = open(path, "rb").read()
    magic = struct.unpack("<I", data[:4])[0]
    scale = 1 if magic == 0xA1B23C4D else 1000
    off, out = 24, []
    while off + 16 <= len(data):
        sec, frac, caplen, _ = struct.unpack_from("<IIII", data, off)
        out.append((sec * 10**9 + frac * scale, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return out


def facts(path):
    """What the reasons above rest on, read here: RoCEv2 ECN codepoints, CNPs, NAKs, PFC frames,
    timestamps going backwards, and within one flow (source, destination, QP)."""
    f = dict(ecn=[0, 0, 0, 0], cnp=0, nak=0, pfc=0, backwards=0, flow_backwards=0)
    prev, flow_prev = None, {}
    for ts, b in frames(path):
        if prev is not None and ts < prev:
            f["backwards"] += 1
        prev = ts
        etype = b[12:14]
        if etype == b"\x88\x08":
            f["pfc"] += 1
        if etype != b"\x08\x00" or b[23] != 17 or b[36:38] != b"\x12\xb7":
            continue
        ihl = (b[14] & 15) * 4
        bth = 14 + ihl + 8
        f["ecn"][b[15] & 3] += 1
        key = (b[26:34], b[bth + 5:bth + 8])
        if key in flow_prev and ts < flow_prev[key]:
            f["flow_backwards"] += 1
        flow_prev[key] = ts
        op = b[bth]
        f["cnp"] += op == 0x81
        if op in (0x0D, 0x10, 0x11, 0x12) and len(b) > bth + 12 and b[bth + 12] >> 5 in (1, 3):
            f["nak"] += 1
    return f


def main():
    exe, capdir, sample = sys.argv[1:4]
    paths = [os.path.join(capdir, n) for n in sorted(os.listdir(capdir)) if n.endswith(".pcap")]
    paths.append(sample)
    errors = []
    for path in paths:
        name = os.path.basename(path)
        if name not in EXPECT:
            errors.append("%s: not looked at yet: add it to the table with what it holds" % name)
            continue
        want, why = EXPECT[name]
        fx = facts(path)
        rx = name.startswith("rxe_")
        if rx and (sum(fx["ecn"][1:]) or fx["cnp"] or fx["nak"] or fx["pfc"]):
            errors.append("%s: the reason no longer holds: %s" % (name, fx))
        if fx["backwards"] != (4 if name == "rxe_nccl_node0.pcap" else 0):
            errors.append("%s: %d timestamps go backwards" % (name, fx["backwards"]))
        if fx["flow_backwards"]:
            errors.append("%s: %d timestamps go backwards within a flow"
                          % (name, fx["flow_backwards"]))
        if name == "incast.pcap" and (not fx["ecn"][3] or not fx["cnp"] or fx["ecn"][0] or fx["pfc"]):
            errors.append("%s: the reason no longer holds: %s" % (name, fx))
        doc = json.loads(subprocess.run([exe, "analyze", "--json", path], capture_output=True,
                                        check=True, timeout=60).stdout)
        got = [(f["severity"], f["code"], set(f["subjects"].get("hosts", [])))
               for f in doc["findings"]]
        if got != want:
            errors.append("%s: found %s, really there: %s (%s)" % (name, got, want, why))
        else:
            print("ok %s: %s" % (name, ", ".join("%s %s" % g[:2] for g in got) or "nothing"))
    for e in errors:
        print("FAIL " + e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
