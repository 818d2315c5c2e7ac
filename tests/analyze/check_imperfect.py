#!/usr/bin/python3
"""Imperfect captures give the scenarios' true answers, and say what is imperfect about them.

usage: check_imperfect.py ROCETRACE SCENARIO_DIR

Each case rewrites a scenario capture here (struct and zlib only; the ICRC is
computed here) and compares `rocetrace analyze --json` with the scenario's
truth file, which the generator wrote (never the analyzer's own output):
  - pcapng whose statistics blocks record drops: the capture key and a warning
    name them (summed over interfaces and sections);
  - every frame doubled 3 us later: the same CE, CNP, NAK and retransmission
    totals and per-flow packets as the truth, and a duplicates count; the NP
    and RP reaction figures of every flow as on the capture without copies
    (a copy feeds neither estimate);
  - a forwarding host captured with "-i any" (SLL2: each packet in on one
    interface and out on another, TTL - 1, CE-marked only on the way out, up
    to 3 ms in the queue), and the same as a two-interface pcapng; in the
    timeline, each CE mark in its copy's bucket, on its flow's row and the
    'all' row;
  - RoCEv2 on UDP port 4792: a hint naming --udp-port 4792; with it, the truth;
  - gzip'd (file and standard input): the same report byte for byte;
  - classic pcap with seconds past 2^31 (after 2038): the right times;
  - a header-only capture (-s 128): ICRC unchecked as a capture fact, no
    warning, no truncated frame for dissect --count;
  - records whose wire length (0) is below their captured bytes: the bytes count, a warning,
    a finding and dissect's notice say so;
  - Not-ECT traffic, frames cut by the snap length, timestamps going
    backwards, an empty capture, a timeline --flow matching nothing, an empty
    counters file, and drops recorded only by the counters file's capture line.
"""
import csv
import gzip
import json
import os
import struct
import subprocess
import sys
import tempfile
import zlib

errors = []
US = 1000
# per-flow figures copies must not change: CE marks, the NP and the RP reaction
REACTION_KEYS = ("ecn", "cnp_received", "np_reaction_ns", "cnp_without_ce", "cnp_interval_ns",
                 "ce_rate_limited", "ce_unanswered", "rp_reaction")


def fail(msg):
    errors.append(msg)


def read_pcap(path):
    """(linktype, [(ts_ns, wirelen, bytes)]) of a little-endian nanosecond pcap."""
    data = open(path, "rb").read()
    assert data[:4] == b"\x4d\x3c\xb2\xa1"
    linktype = struct.unpack_from("<I", data, 20)[0]
    off, frames = 24, []
    while off + 16 <= len(data):
        sec, ns, caplen, wirelen = struct.unpack_from("<IIII", data, off)
        frames.append((sec * 10**9 + ns, wirelen, data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return linktype, frames


def write_pcap(path, frames, linktype=1):
    """frames: (ts_ns, bytes) or (ts_ns, wirelen, bytes); written in the order given."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, linktype))
        for fr in frames:
            ts, b = fr[0], fr[-1]
            wirelen = fr[1] if len(fr) == 3 else len(b)
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(b), wirelen) + b)


def block(btype, body):
    body += b"\0" * (-len(body) % 4)
    return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))


def opt(code, value):
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def pcapng_section(ifaces, packets, isbs):
    """ifaces: linktypes; packets: (iface, ts_ns, bytes); isbs: (iface, ifdrop, osdrop)."""
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    for lt in ifaces:
        out += block(1, struct.pack("<HHI", lt, 0, 262144) + opt(9, b"\x09") + opt(0, b""))
    for i, ts, b in packets:
        out += block(6, struct.pack("<IIIII", i, ts >> 32, ts & 0xFFFFFFFF, len(b), len(b)) + b)
    for i, ifdrop, osdrop in isbs:
        out += block(5, struct.pack("<IQ", i, 0) + opt(4, struct.pack("<Q", 10**6)) +
                     opt(5, struct.pack("<Q", ifdrop)) + opt(7, struct.pack("<Q", osdrop)) + opt(0, b""))
    return out


def icrc(ip):
    """RoCEv2 ICRC of an IPv4 packet (without its ICRC field), little-endian."""
    b = bytearray(ip)
    ihl = (b[0] & 15) * 4
    b[1] = b[8] = b[10] = b[11] = 0xFF
    b[ihl + 6] = b[ihl + 7] = 0xFF
    b[ihl + 12] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF)


def is_roce(b):
    """RoCEv2 (UDP 4791 over IPv4 or IPv6, no VLAN tag: as the scenarios write them)."""
    if b[12:14] == b"\x08\x00":
        return b[23] == 17 and b[36:38] == b"\x12\xb7"
    return b[12:14] == b"\x86\xdd" and b[20] == 17 and b[56:58] == b"\x12\xb7"


def opcode(b):
    return b[14 + 20 + 8] if b[12:14] == b"\x08\x00" else b[14 + 40 + 8]


def with_tos_ecn(b, ecn):
    """The frame with its IPv4 ECN bits set (the ICRC does not cover them)."""
    return b[:15] + bytes([(b[15] & 0xFC) | ecn]) + b[16:]


def analyze(exe, path, *args, code=0, stdin=None, text=False):
    p = subprocess.run([exe, "analyze", path] + ([] if text else ["--json"]) + list(args),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=stdin, timeout=120)
    if p.returncode != code:
        fail("analyze %s %s: exit %d (%s)" % (os.path.basename(path), " ".join(args), p.returncode,
                                              p.stderr.decode().strip()))
        return {} if not text else ""
    return p.stdout.decode() if text else json.loads(p.stdout)


def capture_drops(rep):
    """The report's capture drops (its other keys, the snap length's, aside)."""
    return {k: v for k, v in (rep.get("capture") or {}).items()
            if k in ("dropped", "if_dropped", "os_dropped", "source")}


def nonzero(counts):
    return {k: v for k, v in counts.items() if v}


def warning(rep, code):
    return next((w for w in rep.get("warnings", []) if w["code"] == code), None)


def same_as_truth(what, rep, truth):
    """The totals and per-flow packet counts of the report against the generator's truth."""
    for k, v in truth["totals"].items():
        if rep.get("totals", {}).get(k) != v:
            fail("%s: totals.%s %r, truth %r" % (what, k, rep.get("totals", {}).get(k), v))
    got = {(f["src"], f["dst"], f["dest_qp"]): f["packets"] for f in rep.get("flows", [])}
    for f in truth["flows"]:
        k = (f["src"], f["dst"], f["dest_qp"])
        if got.get(k) != f["packets"]:
            fail("%s: flow %s packets %r, truth %r" % (what, k, got.get(k), f["packets"]))


def main():
    exe, scen = sys.argv[1:3]
    tmpdir = tempfile.TemporaryDirectory(prefix="rt-imperfect-")
    tmp = tmpdir.name
    truth = {s: json.load(open(os.path.join(scen, s + ".truth.json")))
             for s in ("incast", "nak_gbn", "psn_wrap", "rnr", "read_atomic", "cm", "incast_one_host",
                       "dcqcn", "np_limited")}
    caps = {s: read_pcap(os.path.join(scen, s + ".pcap"))[1] for s in truth}
    incast = caps["incast"]

    # 1. drops recorded by pcapng statistics blocks: two sections, two interfaces, the last ISB counts
    p = os.path.join(tmp, "drops.pcapng")
    half = len(incast) // 2
    with open(p, "wb") as f:
        f.write(pcapng_section([1, 1], [(0, t, b) for t, _, b in incast[:half]],
                               [(0, 1, 1), (0, 5, 40000), (1, 2, 200)]))
        f.write(pcapng_section([1], [(0, t, b) for t, _, b in incast[half:]], [(0, 0, 5067)]))
    rep = analyze(exe, p)
    want = {"dropped": 45274, "if_dropped": 7, "os_dropped": 45267, "source": "pcapng"}
    if capture_drops(rep) != want:
        fail("ISB drops: capture %r, want %r" % (rep.get("capture"), want))
    w = warning(rep, "capture_drops")
    if not w or w.get("dropped") != 45274 or "45274" not in w["message"]:
        fail("ISB drops: warning %r" % w)
    same_as_truth("ISB drops", rep, truth["incast"])
    txt = analyze(exe, p, text=True)
    if not any(line.startswith("  - ") and "dropped 45274 frames" in line for line in txt.splitlines()):
        fail("ISB drops: no warning line naming 45274 in the text report")
    rep = analyze(exe, os.path.join(scen, "incast.pcap"))
    if capture_drops(rep) != {"dropped": None, "if_dropped": None, "os_dropped": None, "source": None}:
        fail("classic pcap: drops should be unknown, got %r" % rep.get("capture"))
    if rep.get("warnings") != [] or rep.get("duplicates", {}).get("packets") != 0:
        fail("a clean capture has no warnings: %r" % rep.get("warnings"))

    # 2. every frame doubled 3 us later
    for s, frames in caps.items():
        p = os.path.join(tmp, s + ".doubled.pcap")
        doubled = sorted([(t, 2 * i, wl, b) for i, (t, wl, b) in enumerate(frames)] +
                         [(t + 3 * US, 2 * i + 1, wl, b) for i, (t, wl, b) in enumerate(frames)])
        write_pcap(p, [(t, wl, b) for t, _, wl, b in doubled])
        rep = analyze(exe, p)
        same_as_truth("doubled " + s, rep, truth[s])
        roce = sum(1 for _, _, b in frames if is_roce(b))
        d = rep.get("duplicates") or {}
        if d.get("packets") != roce or d.get("same_capture_point") != roce or rep.get("packets") != 2 * len(frames):
            fail("doubled %s: duplicates %r, want %d copies of %d frames" % (s, d, roce, len(frames)))
        if not warning(rep, "duplicates"):
            fail("doubled %s: no duplicates warning" % s)
        clean = {f["id"]: f for f in analyze(exe, os.path.join(scen, s + ".pcap")).get("flows", [])}
        for f in rep.get("flows", []):
            for k in REACTION_KEYS:
                if f.get(k) != clean.get(f["id"], {}).get(k):
                    fail("doubled %s: flow %d %s %r, without copies %r" % (s, f["id"], k, f.get(k),
                                                                             clean.get(f["id"], {}).get(k)))

    # 3. a forwarding host: "-i any" (SLL2) sees each packet in on ifindex 2, out on ifindex 3
    #    (TTL - 1, other MACs), CE marks made on the way out, up to 3 ms later
    def sll2(ifindex, b, out):
        eth_src = b[6:12] if not out else b"\x02\x00\x00\x00\x00\xfe"
        hdr = b[12:14] + b"\0\0" + struct.pack(">IHBB", ifindex, 1, 4 if out else 0, 6) + eth_src + b"\0\0"
        ip = bytearray(b[14:])
        if out:
            ip[8] -= 1
        return hdr + bytes(ip)

    fwd, ng = [], []
    ce_truth = 0
    for i, (t, wl, b) in enumerate(incast):
        ecn = b[15] & 3
        delay = (2 + (i * 7919) % 3000) * US if i % 3 else 2 * US
        inb = with_tos_ecn(b, 2 if ecn == 3 else ecn)
        fwd.append((t, 2 * i, sll2(2, inb, False)))
        fwd.append((t + delay, 2 * i + 1, sll2(3, b, True)))
        ng.append((t, 2 * i, 0, inb))
        ng.append((t + delay, 2 * i + 1, 1, b[:6] + b"\x02\x00\x00\x00\x00\xfe" + b[12:22] + bytes([b[22] - 1]) + b[23:]))
        ce_truth += ecn == 3
    fwd.sort()
    ng.sort()
    p = os.path.join(tmp, "any.pcap")
    write_pcap(p, [(t, b) for t, _, b in fwd], linktype=276)
    p2 = os.path.join(tmp, "two_ifaces.pcapng")
    with open(p2, "wb") as f:
        f.write(pcapng_section([1, 1], [(i, t, b) for t, _, i, b in ng], []))
    for path in (p, p2):
        rep = analyze(exe, path)
        same_as_truth(os.path.basename(path), rep, truth["incast"])
        d = rep.get("duplicates") or {}
        if d.get("other_capture_point") != len(incast) or rep.get("totals", {}).get("ce") != ce_truth:
            fail("%s: duplicates %r, ce %r (want %d copies, %d CE)" %
                 (os.path.basename(path), d, rep.get("totals", {}).get("ce"), len(incast), ce_truth))
        # the CE marks the copies carry fall in the copy's bucket, on its flow's row and the 'all' row
        res = subprocess.run([exe, "timeline", path, "--bucket", "10us"], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, timeout=120)
        rows = list(csv.DictReader(res.stdout.decode().splitlines()))
        all_ce, flow_ce = {}, {}
        for r in rows:
            into = all_ce if r["flow"] == "all" else flow_ce
            into[r["t_ns"]] = into.get(r["t_ns"], 0) + int(r["ce"])
        if res.returncode != 0 or sum(all_ce.values()) != ce_truth or nonzero(flow_ce) != nonzero(all_ce):
            fail("%s: timeline CE per bucket, flows %d, 'all' rows %d (want %d, in the same buckets)" %
                 (os.path.basename(path), sum(flow_ce.values()), sum(all_ce.values()), ce_truth))

    # 4. RoCEv2 on UDP port 4792 (ICRC recomputed: it covers the port)
    moved = []
    for t, wl, b in caps["nak_gbn"]:
        ip = bytearray(b[14:-4])
        ihl = (ip[0] & 15) * 4
        ip[ihl + 2:ihl + 4] = struct.pack(">H", 4792)
        moved.append((t, b[:14] + bytes(ip) + icrc(bytes(ip))))
    p = os.path.join(tmp, "port4792.pcap")
    write_pcap(p, moved)
    rep = analyze(exe, p)
    w = warning(rep, "roce_other_port")
    if rep.get("roce_packets") != 0 or not w or w.get("port") != 4792 or "--udp-port 4792" not in w["message"]:
        fail("RoCE on 4792: roce_packets %r, hint %r" % (rep.get("roce_packets"), w))
    if "--udp-port 4792" not in analyze(exe, p, text=True):
        fail("RoCE on 4792: the text report does not name --udp-port 4792")
    same_as_truth("RoCE on 4792 with --udp-port 4792", analyze(exe, p, "--udp-port", "4792"), truth["nak_gbn"])

    # 5. gzip'd, as a file and on standard input: the same report
    plain = os.path.join(scen, "incast.pcap")
    gz = os.path.join(tmp, "incast.pcap.gz")
    with open(plain, "rb") as f, open(gz, "wb") as g:
        g.write(gzip.compress(f.read()))
    def without_files(out):
        """The report but for the name and file of its vantage point."""
        doc = json.loads(out or b"{}")
        for p in doc.get("vantage_points", []):
            p.pop("files")
            p.pop("name")  # "stdin" when read from standard input
        return doc

    want_out = without_files(subprocess.run([exe, "analyze", plain, "--json"], stdout=subprocess.PIPE).stdout)
    for args, stdin in (([gz], None), (["-"], gz)):
        with open(stdin, "rb") if stdin else open(os.devnull, "rb") as fin:
            got = without_files(subprocess.run([exe, "analyze"] + args + ["--json"], stdout=subprocess.PIPE,
                                               stdin=fin).stdout)
        if got != want_out or not got:
            fail("gzip'd incast (%s): the report differs from the plain file's" % args[0])

    # 6. classic pcap after 2038: seconds past 2^31 are unsigned
    shift = 2**31 * 10**9
    p = os.path.join(tmp, "y2038.pcap")
    frames = [(t + shift, wl, b) for t, wl, b in caps["nak_gbn"]]
    write_pcap(p, frames)
    rep = analyze(exe, p)
    first, last = frames[0][0], frames[-1][0]
    want = ("%d.%09d" % (first // 10**9, first % 10**9), "%d.%09d" % (last // 10**9, last % 10**9))
    if (rep.get("start"), rep.get("end")) != want or first // 10**9 < 2**31:
        fail("after 2038: start/end %r, want %r" % ((rep.get("start"), rep.get("end")), want))
    same_as_truth("after 2038", rep, truth["nak_gbn"])

    # 7. Not-ECT traffic; frames cut by the snap length; time going backwards; an empty capture
    p = os.path.join(tmp, "not_ect.pcap")
    write_pcap(p, [(t, with_tos_ecn(b, 0)) for t, _, b in caps["nak_gbn"]])
    w = warning(analyze(exe, p), "not_ecn_capable")
    if not w or w.get("not_ect") != len(caps["nak_gbn"]):
        fail("Not-ECT: warning %r" % w)
    p = os.path.join(tmp, "snap60.pcap")
    write_pcap(p, [(t, wl, b[:60]) for t, wl, b in incast])
    w = warning(analyze(exe, p), "snaplen_cut")
    cnps = sum(1 for _, _, b in incast if opcode(b) == 0x81)  # 60 bytes cut a CNP's 16 reserved bytes
    if not w or w.get("frames") != len(incast) or w.get("headers_cut") != cnps:
        fail("snap length 60: warning %r, want %d frames, %d with a header cut" % (w, len(incast), cnps))
    # a header-only capture (-s 128): every data packet cut after its headers is a fact of the
    # capture (ICRC unchecked), no warning, and no "truncated" frame for dissect --count
    p = os.path.join(tmp, "snap128.pcap")
    write_pcap(p, [(t, wl, b[:128]) for t, wl, b in incast])
    rep = analyze(exe, p)
    cut = sum(1 for _, wl, _ in incast if wl > 128)  # the scenario's headers all fit in 128 bytes
    if warning(rep, "snaplen_cut") or (rep.get("capture") or {}).get("icrc_unchecked") != cut or \
            rep.get("totals", {}).get("truncated") != 0:
        fail("snap length 128: warnings %r, capture %r, truncated %r (want no warning, %d ICRC unchecked)"
             % (rep.get("warnings"), rep.get("capture"), rep.get("totals", {}).get("truncated"), cut))
    if "ICRC unchecked: %d" % cut not in analyze(exe, p, text=True):
        fail("snap length 128: the text report does not say 'ICRC unchecked: %d'" % cut)
    c = subprocess.run([exe, "dissect", "--count", "--json", p], stdout=subprocess.PIPE, timeout=60)
    cnt = json.loads(c.stdout or b"{}")
    if (cnt.get("truncated"), cnt.get("icrc_unchecked")) != (0, cut):
        fail("snap length 128: dissect --count truncated %r, icrc_unchecked %r (want 0, %d)" %
             (cnt.get("truncated"), cnt.get("icrc_unchecked"), cut))
    p = os.path.join(tmp, "backwards.pcap")
    back = [(t, b) for t, _, b in incast]
    back[100], back[101] = back[101], back[100]
    back[500] = (back[500][0] - 7 * US, back[500][1])
    write_pcap(p, back)
    w = warning(analyze(exe, p), "time_backwards")
    step = max(incast[101][0] - incast[100][0], incast[499][0] - (incast[500][0] - 7 * US))
    if not w or w.get("count") != 2 or w.get("max_step_ns") != step:
        fail("time going backwards: warning %r, want 2 steps, the biggest %d ns" % (w, step))
    # the timeline's warning on stderr says it whole: its text (frames in a later bucket, last
    # here) is longer than analyze's
    res = subprocess.run([exe, "timeline", p, "--bucket", "1us"], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, timeout=60)
    said = " ".join(res.stderr.decode().split())
    if res.returncode != 0 or not said.endswith("in a later timeline bucket than their own"):
        fail("time going backwards: timeline's warning %r, cut short" % said)
    p = os.path.join(tmp, "empty.pcap")
    write_pcap(p, [])
    rep = analyze(exe, p)
    if rep.get("packets") != 0 or not warning(rep, "empty_capture"):
        fail("empty capture: %r" % rep.get("warnings"))

    # 8. timeline --flow matching nothing: a warning on stderr; an empty counters file; drops
    #    recorded only by the counters file's capture line
    res = subprocess.run([exe, "timeline", plain, "--flow", "qp:0x999999"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, timeout=60)
    if res.returncode != 0 or b"warning: --flow 'qp:0x999999' matches none of the 8 flows" not in res.stderr:
        fail("timeline --flow matching nothing: exit %d, stderr %r" % (res.returncode, res.stderr))
    empty = os.path.join(tmp, "empty.counters.jsonl")
    open(empty, "w").close()
    w = warning(analyze(exe, plain, "--counters", empty), "counters_file_unusable")
    if not w or "is empty" not in w["message"]:
        fail("empty counters file: warning %r" % w)
    side = os.path.join(tmp, "side.counters.jsonl")
    with open(side, "w") as f:
        f.write('{"ts":"1700000000.000000000","dev":"mlx5_0","port":1,"counters":{"np_cnp_sent":1}}\n')
        f.write('{"ts":"1700000001.000000000","dev":"mlx5_0","port":1,"counters":{"np_cnp_sent":9}}\n')
        f.write('{"ts":"1700000001.000000001","capture":{"device":"eth0","received":1732,'
                '"os_dropped":12,"if_dropped":3}}\n')
    rep = analyze(exe, plain, "--counters", side)
    if capture_drops(rep) != {"dropped": 15, "if_dropped": 3, "os_dropped": 12, "source": "counters_file"}:
        fail("counters file capture line: capture %r" % rep.get("capture"))
    if warning(rep, "counters_file_unusable"):
        fail("a usable counters file was called unusable")

    # 9. a file cut in the middle of a frame (the capturing process was killed): the report, text and
    #    JSON, says reading stopped there and covers the frames before it; timeline -o - is stdout
    cut = os.path.join(tmp, "cut.pcap")
    with open(plain, "rb") as f, open(cut, "wb") as g:
        data = f.read()
        g.write(data[:len(data) * 2 // 3])
    rep = analyze(exe, cut, code=1)
    why = (rep.get("capture") or {}).get("input_error") or ""
    if "ends in the middle of frame" not in why:
        fail("a cut file: capture.input_error %r" % why)
    whole = analyze(exe, plain)
    if not 0 < rep.get("packets", 0) < whole.get("packets", 0):
        fail("a cut file: %r packets, want some of the whole capture's %r" % (
            rep.get("packets"), whole.get("packets")))
    txt = analyze(exe, cut, code=1, text=True)
    if "Reading stopped early: " not in txt:
        fail("a cut file: the text report does not say reading stopped:\n" + txt[:400])
    if whole.get("capture", {}).get("input_error", "absent") is not None:
        fail("a whole file: capture.input_error is not null")
    res = subprocess.run([os.path.abspath(exe), "timeline", os.path.abspath(plain), "-o", "-"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         cwd=tmp, timeout=60)
    if res.returncode != 0 or not res.stdout.startswith(b"t_ns,") or os.path.exists(os.path.join(tmp, "-")):
        fail("timeline -o -: exit %d, stdout %r, a file named '-' %s" % (
            res.returncode, res.stdout[:40], os.path.exists(os.path.join(tmp, "-"))))

    # records whose wire length (0) is below the bytes they hold: their bytes count (the scenario's
    # frames are whole: caplen is the true wire length), a warning and a finding say so, and dissect
    # marks each such frame
    linktype, frames = read_pcap(plain)
    short = [i for i, (_, wl, b) in enumerate(frames) if is_roce(b) and wl == len(b)][:3]
    wire0 = os.path.join(tmp, "wire0.pcap")
    write_pcap(wire0, [(ts, 0 if i in short else wl, b) for i, (ts, wl, b) in enumerate(frames)],
               linktype)
    rep = analyze(exe, wire0)
    w = warning(rep, "wire_length_short")
    if len(short) != 3 or rep.get("bytes") != whole.get("bytes") or not w or \
            w.get("frames") != 3:
        fail("wire length 0: bytes %r (whole file %r), warning %r" % (
            rep.get("bytes"), whole.get("bytes"), w))
    if "capture_wire_length" not in [f["code"] for f in rep.get("findings", [])]:
        fail("wire length 0: no capture_wire_length finding")
    res = subprocess.run([exe, "dissect", "--json", wire0], stdout=subprocess.PIPE, timeout=60)
    marked = [(d["frame"] - 1, d["len"]) for d in map(json.loads, res.stdout.splitlines())
              if "link_wire_length_short" in d.get("events", [])]
    if marked != [(i, len(frames[i][2])) for i in short]:
        fail("wire length 0: dissect marks %r, want frames %r at their captured length" % (
            marked, short))

    for e in errors:
        print("FAIL " + e)
    if errors:
        sys.exit(1)
    print("ok: imperfect captures give the truth and say why")


if __name__ == "__main__":
    main()
