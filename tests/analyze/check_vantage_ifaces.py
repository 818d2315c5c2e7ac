#!/usr/bin/python3
"""Vantage points inside one capture: the interfaces of a pcapng, the SLL2 interface indexes of `-i any`.

usage: check_vantage_ifaces.py ROCETRACE

The incast model of check_vantage.py (4 senders, a switch that marks CE
above its threshold and drops three packets, a receiver whose ACKs and CNPs
come back) with one clock for both taps, written two ways, each one file:
  - a pcapng with two interfaces, "sender_port" (what the tap before the
    switch saw) and "receiver_port" (after it), as a capture on two ports of
    one host or a switch mirror of two ports writes it;
  - a Linux cooked v2 (SLL2) capture, as `tcpdump -i any` writes it: the
    frames before the switch on interface index 5 (a veth), after it on 7
    (a bridge).
Each must give two vantage points named after the interfaces, the paths
with `matched`, `lost` and `ce_marked` exactly as the model, an offset near
0, and CE/CNP/retransmission totals as the model's (each packet once).
With --vantage the file's point takes the name and the interfaces follow it.
The pcapng and SLL2 bytes are written here with struct; nothing from
rocetrace is used.
Exits 0 when all holds, 1 with one line per mismatch.
"""
import os
import shutil
import struct
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_vantage  # noqa: E402

check_vantage.SKEW = 0  # one capture, one clock
run, check, errors = check_vantage.run, check_vantage.check, check_vantage.errors


def block(btype, body):
    body += b"\0" * ((4 - len(body) % 4) % 4)
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def write_pcapng(path, ifnames, frames):
    """frames: (time ns, interface, bytes); Ethernet interfaces named ifnames, nanosecond timestamps."""
    out = [block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))]
    for name in ifnames:
        nb = name.encode()
        opts = struct.pack("<HH", 2, len(nb)) + nb + b"\0" * ((4 - len(nb) % 4) % 4)
        opts += struct.pack("<HHB3x", 9, 1, 9) + struct.pack("<HH", 0, 0)
        out.append(block(1, struct.pack("<HHI", 1, 0, 65535) + opts))
    for ts, ifc, b in sorted(frames, key=lambda x: x[0]):
        out.append(block(6, struct.pack("<IIIII", ifc, ts >> 32, ts & 0xFFFFFFFF, len(b), len(b)) + b))
    with open(path, "wb") as f:
        f.write(b"".join(out))


def sll2(ifindex, eth):
    """An Ethernet frame as an SLL2 capture holds it: protocol, interface index, ARPHRD_ETHER, address."""
    return struct.pack(">HHIHBB", 0x0800, 0, ifindex, 1, 0, 6) + eth[6:12] + b"\0\0" + eth[14:]


def write_sll2(path, frames):
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 276))
        for ts, b in sorted(frames, key=lambda x: x[0]):
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(b), len(b)) + b)


def check_paths(what, doc, up, down, truth, nbefore, nafter):
    points = {v["name"]: v["frames"] for v in doc["vantage_points"]}
    check(what + ": vantage points", points, {up: nbefore, down: nafter})
    by = {(p["from"], p["to"]): p for p in doc["paths"]}
    check(what + ": paths", sorted(by), sorted([(up, down), (down, up)]))
    fwd, rev = by.get((up, down)), by.get((down, up))
    if fwd:
        check(what + ": forward matched", fwd["matched"], truth["fwd_matched"])
        check(what + ": forward lost", fwd["lost"], truth["lost"])
        check(what + ": forward ce_marked", fwd["ce_marked"], truth["ce"])
        if fwd["offset_ns"] is None or abs(fwd["offset_ns"]) > 5000:
            errors.append("%s: offset_ns %r, want 0 +- 5000 (one clock)" % (what, fwd["offset_ns"]))
        wire = min(truth["fwd_delays"])
        if not fwd["delay_ns"] or abs(fwd["delay_ns"]["min"] - wire) > 2000:
            errors.append("%s: delay min %r, want %d +- 2000" % (what, fwd["delay_ns"], wire))
    if rev:
        check(what + ": back matched", rev["matched"], truth["rev_matched"])
        check(what + ": back lost", rev["lost"], 0)
        check(what + ": back ce_marked", rev["ce_marked"], 0)
    for k in ("ce", "cnp", "retransmitted"):
        check(what + ": totals." + k, doc["totals"][k], truth[k])


def main():
    rt = sys.argv[1]
    before, after, truth = check_vantage.model()
    d = tempfile.mkdtemp(prefix="rt_vpif_")
    try:
        ng = os.path.join(d, "ports.pcapng")
        write_pcapng(ng, ["sender_port", "receiver_port"],
                     [(t, 0, b) for t, b in before] + [(t, 1, b) for t, b in after])
        doc = run(rt, ng)
        check_paths("pcapng", doc, "sender_port", "receiver_port", truth, len(before), len(after))
        named = run(rt, "--vantage", "tor=" + ng)
        check("--vantage tor: names", sorted(v["name"] for v in named["vantage_points"]),
              ["tor/receiver_port", "tor/sender_port"])

        sl = os.path.join(d, "any.pcap")
        write_sll2(sl, [(t, sll2(5, b)) for t, b in before] + [(t, sll2(7, b)) for t, b in after])
        doc = run(rt, sl)
        check_paths("sll2", doc, "ifindex 5", "ifindex 7", truth, len(before), len(after))

        # one interface, one index: one point named after the file, no paths
        one = os.path.join(d, "veth.pcap")
        write_sll2(one, [(t, sll2(5, b)) for t, b in before])
        doc = run(rt, one)
        check("one index: vantage points", [v["name"] for v in doc["vantage_points"]], ["veth"])
        check("one index: paths", doc["paths"], [])
    finally:
        shutil.rmtree(d)
    for e in errors:
        print(e)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
