#!/usr/bin/python3
"""Checks of capture output for the capture tests: frame equality, pcapng block structure, counter side files."""
import json
import re
import struct
import subprocess
import sys


def read_pcap(path):
    """Frames of a classic pcap (micro or nano) or pcapng file as (caplen bytes, wire length)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data, 0)[0]
    frames = []
    if magic in (0xA1B2C3D4, 0xA1B23C4D):
        off = 24
        while off + 16 <= len(data):
            _, _, caplen, wirelen = struct.unpack_from("<IIII", data, off)
            frames.append((data[off + 16:off + 16 + caplen], wirelen))
            off += 16 + caplen
        return frames
    for btype, body in pcapng_blocks(data):
        if btype == 6:
            _, _, _, caplen, wirelen = struct.unpack_from("<IIIII", body, 0)
            frames.append((body[20:20 + caplen], wirelen))
    return frames


def pcapng_blocks(data):
    off = 0
    while off + 12 <= len(data):
        btype, total = struct.unpack_from("<II", data, off)
        if total < 12 or total % 4 or off + total > len(data):
            raise ValueError("bad block length %d at %d" % (total, off))
        trailer = struct.unpack_from("<I", data, off + total - 4)[0]
        if trailer != total:
            raise ValueError("block at %d: lengths %d and %d differ" % (off, total, trailer))
        yield btype, data[off + 8:off + total - 4]
        off += total
    if off != len(data):
        raise ValueError("%d trailing bytes" % (len(data) - off))


def options(body):
    opts = {}
    off = 0
    while off + 4 <= len(body):
        code, length = struct.unpack_from("<HH", body, off)
        if code == 0:
            break
        opts.setdefault(code, []).append(body[off + 4:off + 4 + length])
        off += 4 + ((length + 3) & ~3)
    return opts


def dissect(rt, path):
    out = subprocess.run([rt, "dissect", "--json", path], check=True, capture_output=True, text=True).stdout
    rows = []
    for line in out.splitlines():
        obj = json.loads(line)
        obj.pop("ts", None)
        obj.pop("ts_ns", None)
        rows.append(obj)
    return rows


def check_same(fixture, captured, rt):
    want, got = read_pcap(fixture), read_pcap(captured)
    if want != got:
        print("frames differ: %d expected, %d captured" % (len(want), len(got)))
        for i, (a, b) in enumerate(zip(want, got)):
            if a != b:
                print("first difference at frame %d" % (i + 1))
                break
        return False
    tshark = subprocess.run(["tshark", "-r", captured], capture_output=True, text=True)
    if tshark.returncode != 0 or len(tshark.stdout.splitlines()) != len(want):
        print("tshark reads %d frames (status %d): %s" % (len(tshark.stdout.splitlines()),
                                                         tshark.returncode, tshark.stderr))
        return False
    if dissect(rt, fixture) != dissect(rt, captured):
        print("rocetrace dissect output differs")
        return False
    return True


def check_pcapng(path, nframes):
    with open(path, "rb") as f:
        blocks = list(pcapng_blocks(f.read()))
    types = [b[0] for b in blocks]
    if types[0] != 0x0A0D0D0A or types[1] != 1:
        print("expected SHB then IDB, got %s" % types[:2])
        return False
    idb = options(blocks[1][1][8:])
    if idb.get(9) != [b"\x09"] or 2 not in idb or 3 not in idb or 1 not in idb:
        print("IDB options incomplete: %s" % sorted(idb))
        return False
    if types.count(6) != nframes:
        print("%d EPBs, expected %d" % (types.count(6), nframes))
        return False
    if types[-1] != 5:
        print("last block is %#x, not an ISB" % types[-1])
        return False
    isb = options(blocks[-1][1][12:])
    start = struct.unpack("<II", isb[2][0])
    end = struct.unpack("<II", isb[3][0])
    recv = struct.unpack("<Q", isb[4][0])[0]
    drop = struct.unpack("<Q", isb[5][0])[0]
    if (start[0] << 32 | start[1]) > (end[0] << 32 | end[1]) or recv < nframes or drop != 0:
        print("ISB: start %s end %s ifrecv %d ifdrop %d" % (start, end, recv, drop))
        return False
    ts = [struct.unpack_from("<II", b[1], 4) for b in blocks if b[0] == 6]
    if ts and not all((h << 32 | l) > 10**18 for h, l in ts):
        print("EPB timestamps are not nanoseconds since the epoch")
        return False
    return True


def check_counters(path, dev, port, netdev, capture_dev):
    with open(path) as f:
        lines = f.read().splitlines()
    if len(lines) < 4:
        print("%d lines: expected start, periodic and stop samples, then the capture line" % len(lines))
        return False
    cap = json.loads(lines[-1]).get("capture", {})
    if cap.get("device") != capture_dev or not all(
            isinstance(cap.get(k), int) for k in ("received", "os_dropped", "if_dropped")):
        print("bad capture line: %s" % lines[-1][:200])
        return False
    last = 0
    for line in lines[:-1]:
        s = json.loads(line)
        if not re.fullmatch(r"\d+\.\d{9}", s.get("ts", "")):
            print("bad ts in %s" % line[:80])
            return False
        t = int(s["ts"].replace(".", ""))
        if t < last or s.get("dev") != dev or s.get("port") != int(port) or s.get("netdev") != netdev:
            print("bad sample header: %s" % line[:120])
            return False
        last = t
        c = s["counters"]
        if c.get("np_cnp_sent") != 5 or c.get("rp_cnp_handled") != 7 or c.get("port_xmit_data") != 123456:
            print("sysfs counters missing: %s" % line[:200])
            return False
        if "peer_ifindex" not in c:
            print("no veth ethtool statistics: %s" % line[:200])
            return False
    return True


def main():
    mode = sys.argv[1]
    if mode == "same":
        ok = check_same(*sys.argv[2:5])
    elif mode == "count":
        print(len(read_pcap(sys.argv[2])))
        ok = True
    elif mode == "pcapng":
        ok = check_pcapng(sys.argv[2], int(sys.argv[3]))
    elif mode == "counters":
        ok = check_counters(*sys.argv[2:7])
    else:
        print("unknown mode %s" % mode)
        ok = False
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
