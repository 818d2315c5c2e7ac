#!/usr/bin/python3
"""Link types 228 and 229 (LINKTYPE_IPV4, LINKTYPE_IPV6: raw IP) read as 101 (LINKTYPE_RAW) does.

usage: check_raw_ip_types.py ROCETRACE FIXTURES_DIR

The raw-IP fixture (IPv4 and IPv6 RoCE frames, checked against its
generator's truth by golden.dissect) is rewritten here with its header's
link type set to 228 and to 229, and as a pcapng whose IPv4 frames are on a
228 interface and its IPv6 frames on a 229 one. `dissect --json` and
`analyze --json` must give what they give on the 101 file, and so must a BPF
filter (compiled for each link type) on the pcapng.
"""
import json
import os
import struct
import subprocess
import sys
import tempfile


def records(data):
    """(header, [(ts_sec, ts_frac, frame bytes, original length)]) of a little-endian classic pcap."""
    out, off = [], 24
    while off < len(data):
        sec, frac, caplen, wirelen = struct.unpack_from("<IIII", data, off)
        out.append((sec, frac, data[off + 16:off + 16 + caplen], wirelen))
        off += 16 + caplen
    return data[:24], out


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))


def pcapng_by_version(recs, nano):
    """A pcapng with interface 0 of link type 228 (IPv4 frames) and 1 of 229 (IPv6 frames)."""
    tsresol = struct.pack("<HHB3x", 9, 1, 9 if nano else 6)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 228, 0, 0) + tsresol + b"\0" * 4)
    out += block(1, struct.pack("<HHI", 229, 0, 0) + tsresol + b"\0" * 4)
    for sec, frac, frame, wirelen in recs:
        ts = sec * (10**9 if nano else 10**6) + frac
        iface = 0 if frame[0] >> 4 == 4 else 1
        out += block(6, struct.pack("<IIIII", iface, ts >> 32, ts & 0xFFFFFFFF, len(frame), wirelen)
                     + frame)
    return out


def run(rt, *args):
    p = subprocess.run([rt] + list(args), capture_output=True, text=True, timeout=60)
    if p.returncode:
        sys.exit("FAIL: rocetrace %s: exit %d: %s" % (" ".join(args), p.returncode, p.stderr))
    return p.stdout


def main():
    rt, fixtures = sys.argv[1], sys.argv[2]
    raw = os.path.join(fixtures, "raw_ip.pcap")
    with open(raw, "rb") as f:
        data = f.read()
    header, recs = records(data)
    magic, linktype = struct.unpack_from("<I", header)[0], struct.unpack_from("<I", header, 20)[0]
    assert linktype == 101 and {r[2][0] >> 4 for r in recs} == {4, 6}, "the fixture changed"
    failures = []
    with tempfile.TemporaryDirectory() as d:
        files = {}
        for lt in (228, 229):
            files[lt] = os.path.join(d, "raw_%d.pcap" % lt)
            with open(files[lt], "wb") as f:
                f.write(header[:20] + struct.pack("<I", lt) + data[24:])
        files["pcapng"] = os.path.join(d, "raw_by_version.pcapng")
        with open(files["pcapng"], "wb") as f:
            f.write(pcapng_by_version(recs, magic == 0xA1B23C4D))
        want = {
            "dissect": run(rt, "dissect", "--json", raw),
            "filter": run(rt, "dissect", "--json", "-f", "udp and dst port 4791", raw),
            "analyze": json.loads(run(rt, "analyze", "--json", raw)),
        }
        if not want["filter"].strip() or len(want["dissect"].splitlines()) != len(recs):
            sys.exit("FAIL: the 101 file reads no frame")
        for name, path in files.items():
            got = {
                "dissect": run(rt, "dissect", "--json", path),
                "filter": run(rt, "dissect", "--json", "-f", "udp and dst port 4791", path),
                "analyze": json.loads(run(rt, "analyze", "--json", path)),
            }
            # the files' names and interfaces (capture points, paths, the point each flow is followed at) differ, not
            # their frames; a filter compiled for
            # 228 (229) takes every frame for IPv4 (IPv6), as libpcap does: only the pcapng,
            # whose frames are on the link type of their version, filters as the 101 file
            for a in (want["analyze"], got["analyze"]):
                a.pop("vantage_points", None)
                a.pop("paths", None)
                for f in a["flows"]:
                    f.pop("followed_at", None)
            for what in want:
                if what == "filter" and name != "pcapng":
                    continue
                if got[what] != want[what]:
                    failures.append("%s: %s differs from the link type 101 file's" % (name, what))
    for f in failures:
        print("FAIL:", f)
    if failures:
        sys.exit(1)
    print("ok: link types 228 and 229 read as 101 (dissect, -f, analyze)")


if __name__ == "__main__":
    main()
