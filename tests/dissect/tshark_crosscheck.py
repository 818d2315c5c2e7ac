#!/usr/bin/python3
"""Cross-checks `rocetrace dissect --json` against tshark's own dissection of the same captures.

Usage: tshark_crosscheck.py ROCETRACE FIXTURES_DIR SHARED_CAPTURES_DIR
For every complete (not snap-truncated) frame, the fields tshark decodes
(BTH opcode/destqp/psn/SE/PadCnt/AckReq/P_Key, AETH, RETH, DETH, atomic
headers, IP ECN, VLAN, PFC and PAUSE) must equal ours, and every frame
tshark sees as InfiniBand must be RoCE to us too. tshark 4.0 takes the RD
opcodes for Mellanox DC with a different header layout, so only their BTH
is compared. Frames mirrored inside GRE/ERSPAN are compared on their inner
layers (tshark repeats ip.* per layer: the last occurrence is the inner one)
plus the ERSPAN version and session id. tshark never verifies the
ICRC, so every RoCEv2 frame of the rxe captures must report "ok" here
(the fixtures' CNPs and ICRCs are checked against their truth files by
check_truth.py). Exits 77 when tshark is missing.
"""

import json
import os
import shutil
import subprocess
import sys

# (tshark field, function of our JSON record giving the value to compare, or None when absent)
def _get(*path):
    def f(rec):
        for p in path:
            if not isinstance(rec, dict) or p not in rec:
                return None
            rec = rec[p]
        return int(rec) if isinstance(rec, bool) else rec
    return f


def _pfc_quanta(i):
    return lambda rec: rec["pfc"]["quanta"][i] if "pfc" in rec else None


FIELDS = [
    ("infiniband.bth.opcode", _get("opcode")),
    ("infiniband.bth.destqp", _get("dest_qp")),
    ("infiniband.bth.psn", _get("psn")),
    ("infiniband.bth.se", _get("se")),
    ("infiniband.bth.padcnt", _get("pad")),
    ("infiniband.bth.a", _get("ackreq")),
    ("infiniband.bth.p_key", _get("pkey")),
    ("infiniband.aeth.syndrome", _get("aeth", "syndrome")),
    ("infiniband.aeth.msn", _get("aeth", "msn")),
    # tshark shows AtomicETH's VA and R_Key in the RETH fields
    ("infiniband.reth.va", lambda rec: _get("reth", "va")(rec) if "reth" in rec
     else _get("atomic", "va")(rec)),
    ("infiniband.reth.r_key", lambda rec: _get("reth", "rkey")(rec) if "reth" in rec
     else _get("atomic", "rkey")(rec)),
    ("infiniband.reth.dmalen", _get("reth", "len")),
    ("infiniband.deth.q_key", _get("deth", "qkey")),
    ("infiniband.deth.srcqp", _get("deth", "src_qp")),
    ("infiniband.atomiceth.swapdt", _get("atomic", "swap_add")),
    ("infiniband.atomiceth.cmpdt", _get("atomic", "compare")),
    ("infiniband.atomicacketh.origremdt", _get("atomic_ack", "orig")),
    ("ip.dsfield.ecn", _get("ecn")),
    ("ipv6.tclass.ecn", _get("ecn")),
    # tshark's first vlan.* is the innermost 802.1Q tag (it shows 802.1ad apart)
    ("vlan.id", lambda rec: rec.get("inner_vlan", rec.get("vlan"))),
    ("vlan.priority", lambda rec: rec.get("inner_pcp", rec.get("pcp"))),
    ("macc.cbfc.enbv", _get("pfc", "enable")),
    ("macc.pause_time", _get("pause", "quanta")),
    ("erspan.version", _get("erspan", "version")),
    ("erspan.spanid", _get("erspan", "session")),
] + [("macc.cbfc.pause_time.c%d" % i, _pfc_quanta(i)) for i in range(8)]


# fields whose LAST occurrence is compared (the inner IP header of a tunnelled frame)
LAST_OCCURRENCE = {"ip.dsfield.ecn", "ipv6.tclass.ecn"}


def inner_ip_version(rec):
    if "src" not in rec:
        return None
    return 6 if ":" in rec["src"] else 4


def parse(v):
    v = v.strip()
    if v in ("True", "true"):
        return 1
    if v in ("False", "false"):
        return 0
    return int(v, 0)


def tshark_rows(path):
    # no IP reassembly: we decode no fragment's transport either
    cmd = ["tshark", "-n", "-o", "ip.defragment:FALSE", "-r", path, "-T", "fields", "-E", "separator=\t",
           "-E", "occurrence=a", "-E", "aggregator=/s", "-e", "frame.number", "-e", "frame.cap_len", "-e", "frame.len"]
    for name, _ in FIELDS:
        cmd += ["-e", name]
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
    if res.returncode != 0:
        raise RuntimeError("tshark failed on %s: %s" % (path, res.stderr.decode().strip()))
    rows = []
    for line in res.stdout.decode().splitlines():
        cols = line.split("\t")
        cols += [""] * (3 + len(FIELDS) - len(cols))
        for i, (name, _) in enumerate(FIELDS):
            vals = cols[3 + i].split(" ") if cols[3 + i] else [""]
            cols[3 + i] = vals[-1] if name in LAST_OCCURRENCE else vals[0]
        rows.append(cols)
    return rows


def ours(exe, path):
    res = subprocess.run([exe, "dissect", "--json", path], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, check=False)
    if res.returncode != 0:
        raise RuntimeError("rocetrace failed on %s: %s" % (path, res.stderr.decode().strip()))
    return [json.loads(line) for line in res.stdout.decode().splitlines()]


def check(exe, path, rxe, stats, errors):
    name = os.path.basename(path)
    recs = ours(exe, path)
    rows = tshark_rows(path)
    if len(recs) != len(rows):
        errors.append("%s: %d frames here, %d in tshark" % (name, len(recs), len(rows)))
        return
    for rec, cols in zip(recs, rows):
        where = "%s frame %d" % (name, rec["frame"])
        if int(cols[1]) != rec["caplen"] or int(cols[2]) != rec["len"]:
            errors.append("%s: lengths differ from tshark" % where)
        if rec["caplen"] < rec["len"]:
            continue  # snap-truncated: tshark and we stop at different places
        if "ip_fragment" in rec.get("events", []):
            continue  # tshark decodes a first fragment's partial transport, we do not
        has_bth = "opcode" in rec
        tshark_bth = cols[3] != ""
        if tshark_bth and not has_bth and rec["kind"] != "malformed":
            errors.append("%s: tshark decodes a BTH, we say kind %s" % (where, rec["kind"]))
            continue
        if not tshark_bth and has_bth and not rec.get("rocev1") and rec["kind"] != "malformed":
            errors.append("%s: we decode a BTH, tshark does not" % where)
        if rec["kind"] == "malformed":
            continue
        # tshark 4.0 reads the RD opcodes (0x40-0x5F) as Mellanox DC with other headers
        rd = (rec.get("opcode", 0) >> 5) == 2
        for (field, get), val in zip(FIELDS, cols[3:]):
            if val == "" or (rd and field.startswith("infiniband.") and
                             not field.startswith("infiniband.bth.")):
                continue
            if (("erspan" in rec or "gre" in rec) and field in LAST_OCCURRENCE and
                    inner_ip_version(rec) != (6 if field == "ipv6.tclass.ecn" else 4)):
                continue  # the outer header's ECN: no inner header of this IP version
            mine = get(rec)
            want = parse(val)
            stats[field] = stats.get(field, 0) + 1
            if mine != want:
                errors.append("%s: %s is %s in tshark, %s here" % (where, field, want, mine))
        if rxe and rec["kind"] in ("roce", "cnp") and not rec.get("rocev1"):
            stats["icrc ok (rxe)"] = stats.get("icrc ok (rxe)", 0) + 1
            if rec.get("icrc") != "ok":
                errors.append("%s: ICRC %s, every bundled rxe capture frame is valid" %
                              (where, rec.get("icrc")))


def main():
    if not shutil.which("tshark"):
        print("skip: tshark is not installed")
        sys.exit(77)
    exe, fixtures, rxe_dir = sys.argv[1], sys.argv[2], sys.argv[3]
    files = [(os.path.join(fixtures, f), False) for f in sorted(os.listdir(fixtures))
             if f.endswith((".pcap", ".pcapng"))]
    rxe = [(os.path.join(rxe_dir, f), True) for f in sorted(os.listdir(rxe_dir)) if f.endswith(".pcap")]
    if not rxe:
        print("FAIL: no rxe captures in %s" % rxe_dir)
        sys.exit(1)
    files += rxe
    stats, errors = {}, []
    for path, is_rxe in files:
        try:
            check(exe, path, is_rxe, stats, errors)
        except RuntimeError as e:
            errors.append(str(e))
    for e in errors[:100]:
        print(e)
    print("compared over %d files:" % len(files))
    for k in sorted(stats):
        print("  %-36s %d" % (k, stats[k]))
    for needed in ("infiniband.bth.opcode", "infiniband.aeth.syndrome", "infiniband.reth.va",
                   "infiniband.deth.srcqp", "ip.dsfield.ecn", "macc.cbfc.enbv",
                   "macc.pause_time", "icrc ok (rxe)", "erspan.spanid"):
        if not stats.get(needed):
            errors.append("nothing compared for %s" % needed)
            print("nothing compared for", needed)
    if errors:
        sys.exit("tshark_crosscheck: %d mismatches" % len(errors))
    print("ok")


if __name__ == "__main__":
    main()
