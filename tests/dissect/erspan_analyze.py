#!/usr/bin/python3
"""Checks `rocetrace analyze` sees the same flows, ECN, CNPs, NAKs and PFC in ERSPAN/GRE-mirrored frames as in the same frames unencapsulated.

Usage: erspan_analyze.py ROCETRACE FIXTURES_DIR
Takes the frames of erspan.pcap whose truth says they are tunnelled, strips
the outer Ethernet/IP/GRE/ERSPAN headers here (independently of the
dissector), writes both sets with the same timestamps and compares the two
`analyze --json` reports, leaving out byte counts and rates (the outer
headers make every frame longer).
"""

import json
import os
import struct
import subprocess
import sys
import tempfile


def read_pcap(path):
    with open(path, "rb") as f:
        data = f.read()
    hdr, off, frames = data[:24], 24, []
    while off < len(data):
        sec, frac, caplen, wirelen = struct.unpack("<IIII", data[off:off + 16])
        frames.append((sec, frac, wirelen, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return hdr, frames


def write_pcap(path, hdr, frames):
    with open(path, "wb") as f:
        f.write(hdr)
        for sec, frac, wirelen, d in frames:
            f.write(struct.pack("<IIII", sec, frac, len(d), wirelen) + d)


def decap(d):
    """The inner Ethernet frame of a complete tunnelled frame (IP-in-GRE gets a made-up Ethernet header)."""
    etype, = struct.unpack(">H", d[12:14])
    if etype == 0x0800:
        ihl = (d[14] & 0x0F) * 4
        proto, off = d[23], 14 + ihl
    elif etype == 0x86DD:
        proto, off = d[20], 54
    else:
        raise ValueError("not IP")
    if proto != 47:
        raise ValueError("not GRE")
    flags, gproto = struct.unpack(">HH", d[off:off + 4])
    hl = 4 + 4 * sum(1 for bit in (0x8000, 0x2000, 0x1000) if flags & bit)
    if gproto == 0x88BE and flags & 0x1000:
        hl += 8
    elif gproto == 0x22EB:
        hl += 12 + (8 if d[off + hl + 11] & 1 else 0)
    inner = d[off + hl:]
    if gproto in (0x0800, 0x86DD):
        inner = d[:12] + struct.pack(">H", gproto) + inner
    return inner


def strip(o):
    if isinstance(o, dict):
        return {k: strip(v) for k, v in o.items() if "bytes" not in k and "gbps" not in k
                and "rate" not in k and k != "vantage_points"}  # it names the file read
    if isinstance(o, list):
        return [strip(v) for v in o]
    return o


def analyze(exe, path):
    # the fixture repeats its packets under several mirror sessions, which analyze would count
    # once as copies: compare every frame as it is (--dup-window 0)
    res = subprocess.run([exe, "analyze", path, "--json", "--dup-window", "0"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False)
    if res.returncode != 0:
        sys.exit("erspan_analyze: analyze %s exited %d: %s" %
                 (path, res.returncode, res.stderr.decode().strip()))
    return json.loads(res.stdout)


def main():
    exe, fixtures = sys.argv[1], sys.argv[2]
    hdr, frames = read_pcap(os.path.join(fixtures, "erspan.pcap"))
    with open(os.path.join(fixtures, "erspan.truth.jsonl")) as f:
        truth = [json.loads(line) for line in f]
    tunnelled = [fr for fr, t in zip(frames, truth) if "erspan" in t or "gre" in t]
    plain = [(s, fr, len(decap(d)), decap(d)) for s, fr, _, d in tunnelled]
    with tempfile.TemporaryDirectory(prefix="rt-erspan-") as tmp:
        a, b = os.path.join(tmp, "tunnelled.pcap"), os.path.join(tmp, "plain.pcap")
        write_pcap(a, hdr, tunnelled)
        write_pcap(b, hdr, plain)
        ra, rb = analyze(exe, a), analyze(exe, b)
    if ra["roce_packets"] != rb["roce_packets"] or ra["roce_packets"] == 0:
        sys.exit("erspan_analyze: RoCE packets %d tunnelled, %d plain" %
                 (ra["roce_packets"], rb["roce_packets"]))
    sa, sb = strip(ra), strip(rb)
    if sa != sb:
        for k in sorted(set(sa) | set(sb)):
            if sa.get(k) != sb.get(k):
                print("%s:\n  tunnelled %s\n  plain     %s" % (k, json.dumps(sa.get(k)),
                                                           json.dumps(sb.get(k))))
        sys.exit("erspan_analyze: the reports differ")
    print("ok: %d tunnelled frames: %d flows, ce %d, cnp %d, nak %d, pfc %d as unencapsulated" %
          (len(tunnelled), ra["flow_count"], ra["totals"]["ce"], ra["totals"]["cnp"],
           ra["totals"]["nak"], ra["pfc"]["frames"]))


if __name__ == "__main__":
    main()
