#!/usr/bin/python3
"""Cross-checks `rocetrace dissect --json` against tshark's own dissection of the same captures.

Usage: tshark_crosscheck.py ROCETRACE FIXTURES_DIR CAPTURES_DIR

Every field tshark 4.0 decodes that we print is compared, frame by frame:
the timestamp, MAC addresses (frames without IP), IPv4/IPv6 addresses, DSCP
and ECN, the RoCEv1 GRH (GIDs, traffic class), UDP ports and the length of
UDP that is not RoCE, TCP (ports, raw sequence and acknowledgment numbers,
flags, window, segment length), ICMP and ICMPv6 type and code, ARP
(operation, sender and target addresses), the Ethertype and LLC SAPs of
frames without IP, 802.1Q and
802.1ad tags, the BTH (opcode, SE, MigReq, PadCnt, P_Key, dest QP, AckReq,
PSN), RETH, AETH, DETH, AtomicETH, AtomicAckETH, ImmDt, IETH, PFC and PAUSE
(opcode, class-enable vector, quanta) and ERSPAN version and session id.
A field tshark shows must be ours too, with the same value; on a frame cut
by the snap length, only the fields both of us decode are compared.

Frames mirrored inside GRE/ERSPAN are compared on their inner layers
(tshark repeats eth.*, ip.*, ipv6.* per layer: the last occurrence is the
inner one). tshark 4.0 takes the RD opcodes for Mellanox DC with a
different header layout, so only their BTH is compared. noise.pcap is also
compared with RoCEv2 on UDP port 4792 (our --udp-port, tshark's decode-as).

tshark never verifies the ICRC: every complete RoCEv2 frame's ICRC is
computed here bit by bit (tests/lib/wire_ref.py) and our ok/bad verdict must
agree with it. Each compared field has a minimum count, so the check fails
when a field stops being compared. Exits 77 when tshark is missing.
"""

import ipaddress
import json
import os
import shutil
import struct
import subprocess
import sys
from decimal import Decimal

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wire_ref  # noqa: E402

SKIP = object()  # the field is not comparable on this record


def _get(*path):
    def f(rec):
        for p in path:
            if not isinstance(rec, dict) or p not in rec:
                return None
            rec = rec[p]
        return int(rec) if isinstance(rec, bool) else rec
    return f


def _tunnelled(rec):
    return "erspan" in rec or "gre" in rec


def _ip_version(rec):
    if "src" not in rec:
        return None
    return 6 if ":" in rec["src"] else 4


def _of_version(version, get):
    """A getter for an IPv4- or IPv6-only tshark field: a tunnelled frame whose inner header
    is of the other version shows only the outer header under this name."""
    def f(rec):
        if rec.get("rocev1"):
            return None
        if _tunnelled(rec) and _ip_version(rec) != version:
            return SKIP
        return get(rec)
    return f


def _grh(get):
    return lambda rec: get(rec) if rec.get("rocev1") else None


def _either(*names):
    """The first of several headers the record has: tshark shows AtomicETH's VA and R_Key as RETH fields."""
    def f(rec):
        for n, k in names:
            if n in rec:
                return rec[n][k]
        return None
    return f


def _pfc_quanta(i):
    return lambda rec: rec["pfc"]["quanta"][i] if "pfc" in rec else None


def _macc_opcode(rec):
    if rec["kind"] == "pfc":
        return 0x0101
    if rec["kind"] == "pause":
        return 0x0001
    return rec.get("macc_opcode")


def _mac(key):
    # we print MAC addresses only on frames without an IP layer
    return lambda rec: rec.get(key, SKIP)


# value parsers for tshark's text
def _num(v):
    if v in ("True", "true"):
        return 1
    if v in ("False", "false"):
        return 0
    return int(v, 0)


def _hexbytes(v):
    return int(v.replace(":", ""), 16)


def _addr(v):
    return str(ipaddress.ip_address(v))


def _ts(v):
    return Decimal(v)


def _transport(get):
    """A TCP/UDP field: an ICMP error quotes the header of the packet it answers, which tshark
    decodes and we do not."""
    return lambda rec: SKIP if "icmp" in rec else get(rec)


def _udp_length(rec):
    # the payload of UDP that is not RoCE (a RoCE frame's payload is the BTH's)
    return rec["payload"] + 8 if rec["kind"] == "other" and "udp_sport" in rec else SKIP


_TCP_FLAGS = {"F": 0x01, "S": 0x02, "R": 0x04, "P": 0x08, ".": 0x10, "U": 0x20, "E": 0x40,
              "W": 0x80}


def _tcp_flags(rec):
    if "tcp" not in rec:
        return None
    f = rec["tcp"]["flags"]
    return 0 if f == "none" else sum(_TCP_FLAGS[c] for c in f)


def _tcp_payload(rec):
    return rec["payload"] if "tcp" in rec else None


def _icmp(version, key):
    return lambda rec: rec["icmp"][key] if "icmp" in rec and rec["proto"] == version else None


def _ethertype(rec):
    # ours is the innermost Ethertype of a frame without IP; tshark's eth.type the one before tags
    if "ethertype" not in rec or "vlan" in rec:
        return SKIP
    return rec["ethertype"]


def _tclass(rec):
    return rec["dscp"] << 2 | rec["ecn"] if "dscp" in rec else None


# (tshark field, getter of our value (None: we lack it; SKIP: not comparable), parser of
#  tshark's text, which occurrence to read: "first", or "inner" (the last one on a tunnelled
#  frame), minimum number of comparisons over all captures)
FIELDS = [
    ("frame.time_epoch", lambda rec: Decimal(rec["ts"]), _ts, "first", 1700),
    ("eth.src", _mac("src_mac"), str, "inner", 70),
    ("eth.dst", _mac("dst_mac"), str, "inner", 70),
    ("ip.src", _of_version(4, _get("src")), _addr, "inner", 1550),
    ("ip.dst", _of_version(4, _get("dst")), _addr, "inner", 1550),
    ("ip.dsfield.dscp", _of_version(4, _get("dscp")), _num, "inner", 1550),
    ("ip.dsfield.ecn", _of_version(4, _get("ecn")), _num, "inner", 1550),
    ("ipv6.src", _of_version(6, _get("src")), _addr, "inner", 20),
    ("ipv6.dst", _of_version(6, _get("dst")), _addr, "inner", 20),
    ("ipv6.tclass.dscp", _of_version(6, _get("dscp")), _num, "inner", 20),
    ("ipv6.tclass.ecn", _of_version(6, _get("ecn")), _num, "inner", 20),
    ("infiniband.grh.sgid", _grh(_get("src")), _addr, "first", 10),
    ("infiniband.grh.dgid", _grh(_get("dst")), _addr, "first", 10),
    ("infiniband.grh.tclass", _grh(_tclass), _num, "first", 10),
    ("udp.srcport", _transport(_get("udp_sport")), _num, "first", 600),
    ("udp.dstport", _transport(_get("udp_dport")), _num, "first", 600),
    ("udp.length", _transport(_udp_length), _num, "first", 6),
    ("tcp.srcport", _get("tcp", "sport"), _num, "first", 700),
    ("tcp.dstport", _get("tcp", "dport"), _num, "first", 700),
    ("tcp.seq_raw", _get("tcp", "seq"), _num, "first", 700),
    ("tcp.ack_raw", _get("tcp", "ack"), _num, "first", 700),
    ("tcp.flags", _tcp_flags, lambda v: int(v, 16) & 0xFF, "first", 700),
    ("tcp.window_size_value", _get("tcp", "window"), _num, "first", 700),
    ("tcp.len", _tcp_payload, _num, "first", 700),
    ("icmp.type", _icmp("icmp", "type"), _num, "first", 3),
    ("icmp.code", _icmp("icmp", "code"), _num, "first", 3),
    ("icmpv6.type", _icmp("icmp6", "type"), _num, "first", 3),
    ("icmpv6.code", _icmp("icmp6", "code"), _num, "first", 3),
    ("arp.opcode", _get("arp", "op"), _num, "first", 4),
    ("arp.src.hw_mac", _get("arp", "sender_mac"), str, "first", 4),
    ("arp.src.proto_ipv4", _get("arp", "sender_ip"), _addr, "first", 4),
    ("arp.dst.hw_mac", _get("arp", "target_mac"), str, "first", 4),
    ("arp.dst.proto_ipv4", _get("arp", "target_ip"), _addr, "first", 4),
    ("eth.type", _ethertype, _num, "inner", 8),
    ("llc.dsap", _get("llc", "dsap"), _num, "first", 1),
    ("llc.ssap", _get("llc", "ssap"), _num, "first", 1),
    # tshark's first vlan.* is the innermost 802.1Q tag; an 802.1ad outer tag is ieee8021ad.*
    ("vlan.id", lambda rec: rec.get("inner_vlan", rec.get("vlan")), _num, "first", 18),
    ("vlan.priority", lambda rec: rec.get("inner_pcp", rec.get("pcp")), _num, "first", 18),
    ("ieee8021ad.id", lambda rec: rec.get("vlan") if "inner_vlan" in rec else None, _num,
     "first", 1),
    ("ieee8021ad.priority", lambda rec: rec.get("pcp") if "inner_pcp" in rec else None, _num,
     "first", 1),
    ("infiniband.bth.opcode", _get("opcode"), _num, "first", 600),
    ("infiniband.bth.se", _get("se"), _num, "first", 600),
    ("infiniband.bth.m", _get("migreq"), _num, "first", 600),
    ("infiniband.bth.padcnt", _get("pad"), _num, "first", 600),
    ("infiniband.bth.p_key", _get("pkey"), _num, "first", 600),
    ("infiniband.bth.destqp", _get("dest_qp"), _num, "first", 600),
    ("infiniband.bth.a", _get("ackreq"), _num, "first", 600),
    ("infiniband.bth.psn", _get("psn"), _num, "first", 600),
    ("infiniband.aeth.syndrome", _get("aeth", "syndrome"), _num, "first", 170),
    ("infiniband.aeth.msn", _get("aeth", "msn"), _num, "first", 170),
    ("infiniband.reth.va", _either(("reth", "va"), ("atomic", "va")), _num, "first", 120),
    ("infiniband.reth.r_key", _either(("reth", "rkey"), ("atomic", "rkey")), _num, "first", 120),
    ("infiniband.reth.dmalen", _get("reth", "len"), _num, "first", 110),
    ("infiniband.deth.q_key", _get("deth", "qkey"), _num, "first", 30),
    ("infiniband.deth.srcqp", _get("deth", "src_qp"), _num, "first", 30),
    ("infiniband.atomiceth.swapdt", _get("atomic", "swap_add"), _num, "first", 10),
    ("infiniband.atomiceth.cmpdt", _get("atomic", "compare"), _num, "first", 10),
    ("infiniband.atomicacketh.origremdt", _get("atomic_ack", "orig"), _num, "first", 9),
    ("infiniband.immdt", _get("immediate"), _hexbytes, "first", 40),
    ("infiniband.ieth", _get("ieth"), _hexbytes, "first", 2),
    ("macc.opcode", _macc_opcode, _num, "inner", 35),
    ("macc.cbfc.enbv", _get("pfc", "enable"), _num, "inner", 22),
    ("macc.pause_time", _get("pause", "quanta"), _num, "inner", 10),
    ("erspan.version", _get("erspan", "version"), _num, "first", 60),
    ("erspan.spanid", _get("erspan", "session"), _num, "first", 60),
] + [("macc.cbfc.pause_time.c%d" % i, _pfc_quanta(i), _num, "inner", 22) for i in range(8)]

ICRC_MIN = 545  # complete RoCEv2 frames whose ICRC verdict is compared with ours

# (capture, our extra arguments, tshark's extra arguments, UDP port of RoCEv2)
UDP4792 = (["--udp-port", "4792"], ["-d", "udp.port==4792,infiniband"], 4792)


def tshark_rows(path, extra):
    # no IP reassembly: we decode no fragment's transport either
    cmd = ["tshark", "-n", "-o", "ip.defragment:FALSE", "-r", path] + extra + [
        "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a", "-E", "aggregator=\x1f",
        "-e", "frame.number", "-e", "frame.cap_len", "-e", "frame.len"]
    for f in FIELDS:
        cmd += ["-e", f[0]]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if res.returncode != 0:
        raise RuntimeError("tshark failed on %s: %s" % (path, res.stderr.decode().strip()))
    rows = []
    for line in res.stdout.decode().splitlines():
        cols = line.split("\t")
        cols += [""] * (3 + len(FIELDS) - len(cols))
        rows.append((cols[:3], [c.split("\x1f") if c else [] for c in cols[3:]]))
    return rows


def ours(exe, path, extra):
    res = subprocess.run([exe, "dissect", "--json", path] + extra, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False)
    if res.returncode != 0:
        raise RuntimeError("rocetrace failed on %s: %s" % (path, res.stderr.decode().strip()))
    return [json.loads(line) for line in res.stdout.decode().splitlines()]


def check_icrc(path, port, recs, stats, errors):
    """Our ICRC verdict of every complete RoCEv2 frame against the bitwise reference."""
    linktype, frames = wire_ref.read_capture(path)
    for rec, (_, caplen, wirelen, data) in zip(recs, frames):
        if (caplen < wirelen or rec.get("opcode") is None or _tunnelled(rec) or
                rec["kind"] == "malformed"):
            continue
        ip = wire_ref.rocev2_ip_packet(linktype, data, port)
        if ip is None:
            continue
        want = "ok" if wire_ref.rocev2_icrc(ip) == struct.unpack("<I", ip[-4:])[0] else "bad"
        stats["icrc (bitwise reference)"] = stats.get("icrc (bitwise reference)", 0) + 1
        if rec.get("icrc") != want:
            errors.append("%s frame %d: ICRC %s here, the reference computes %s" %
                          (os.path.basename(path), rec["frame"], rec.get("icrc"), want))


def check(exe, path, extra, stats, errors):
    mine_args, tshark_args, port = extra
    name = os.path.basename(path) + (" " + " ".join(mine_args) if mine_args else "")
    recs = ours(exe, path, mine_args)
    rows = tshark_rows(path, tshark_args)
    if len(recs) != len(rows):
        errors.append("%s: %d frames here, %d in tshark" % (name, len(recs), len(rows)))
        return
    for rec, (head, values) in zip(recs, rows):
        where = "%s frame %d" % (name, rec["frame"])
        if int(head[1]) != rec["caplen"] or int(head[2]) != rec["len"]:
            errors.append("%s: lengths differ from tshark" % where)
        cut = rec["caplen"] < rec["len"]
        if "ip_fragment" in rec.get("events", []):
            continue  # tshark decodes a first fragment's partial transport, we do not
        tshark_bth = bool(values[[f[0] for f in FIELDS].index("infiniband.bth.opcode")])
        if not cut and rec["kind"] != "malformed":
            if tshark_bth and "opcode" not in rec:
                errors.append("%s: tshark decodes a BTH, we say kind %s" % (where, rec["kind"]))
                continue
            if not tshark_bth and "opcode" in rec:
                errors.append("%s: we decode a BTH, tshark does not" % where)
        if rec["kind"] == "malformed":
            continue
        # tshark 4.0 reads the RD opcodes (0x40-0x5F) as Mellanox DC with other headers
        rd = (rec.get("opcode", 0) >> 5) == 2
        for (field, get, parse, occurrence, _), vals in zip(FIELDS, values):
            if not vals or vals == [""]:
                continue
            if rd and field.startswith("infiniband.") and not field.startswith("infiniband.bth."):
                continue
            mine = get(rec)
            if mine is SKIP or (cut and mine is None):
                continue
            val = vals[-1] if occurrence == "inner" and _tunnelled(rec) else vals[0]
            want = parse(val.strip())
            stats[field] = stats.get(field, 0) + 1
            if mine != want:
                stats["mismatch " + field] = stats.get("mismatch " + field, 0) + 1
                errors.append("%s: %s is %s in tshark, %s here" % (where, field, want, mine))
    check_icrc(path, port, recs, stats, errors)


def main():
    if not shutil.which("tshark"):
        print("skip: tshark is not installed")
        sys.exit(77)
    exe, fixtures, captures = sys.argv[1], sys.argv[2], sys.argv[3]
    plain = ([], [], wire_ref.ROCEV2_PORT)
    runs = [(os.path.join(fixtures, f), plain) for f in sorted(os.listdir(fixtures))
            if f.endswith((".pcap", ".pcapng"))]
    rxe = [(os.path.join(captures, f), plain) for f in sorted(os.listdir(captures))
           if f.endswith(".pcap")]
    if not rxe:
        print("FAIL: no captures in %s" % captures)
        sys.exit(1)
    runs += rxe + [(os.path.join(fixtures, "noise.pcap"), UDP4792)]
    stats, errors = {}, []
    for path, extra in runs:
        try:
            check(exe, path, extra, stats, errors)
        except RuntimeError as e:
            errors.append(str(e))
    for e in errors[:100]:
        print(e)
    for k in sorted(k for k in stats if k.startswith("mismatch ")):
        print("%d mismatches of %s" % (stats[k], k[len("mismatch "):]))
    print("compared over %d runs (count, minimum):" % len(runs))
    minimum = {f[0]: f[4] for f in FIELDS}
    minimum["icrc (bitwise reference)"] = ICRC_MIN
    for k in sorted(minimum):
        n = stats.get(k, 0)
        print("  %-36s %6d %6d%s" % (k, n, minimum[k], "  TOO FEW" if n < minimum[k] else ""))
        if n < minimum[k]:
            errors.append("%s compared %d times, fewer than %d" % (k, n, minimum[k]))
    if errors:
        sys.exit("tshark_crosscheck: %d mismatches or missing comparisons" % len(errors))
    print("ok")


if __name__ == "__main__":
    main()
