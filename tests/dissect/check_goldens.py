#!/usr/bin/python3
"""Checks the dissect golden files against each other and that each one has an independent oracle.

Usage: check_goldens.py GOLDEN_DIR FIXTURES_DIR CAPTURES_DIR

The golden files are what `rocetrace dissect` wrote; golden.py only checks
that the command still writes them. This script ties each to something the
command did not write:
  - NAME.txt: every line must show what the JSON record of the same frame
    in NAME.jsonl holds (its ts_ns must be its ts; timestamp, tunnel, addresses, ECN, DSCP, VLAN tags,
    UDP ports, opcode name, QP, PSN, BTH flags, every extended header, AETH
    class with its credits, RNR timer in milliseconds or NAK code, ICRC
    status, PFC quanta, PAUSE, length, fragment, "(invalid: ...)" and the
    "[|layer]" of the truncation event), built here from the JSON alone;
  - NAME.jsonl of a fixture: its truth file (golden.truth) and tshark
    (golden.tshark_crosscheck); of a bundled capture: tshark and a bitwise
    ICRC (golden.tshark_crosscheck);
  - goldens of options: derived here from the plain golden of the same
    capture (-c 5 is its first five frames, -f 'vlan 100' its frames whose
    outer tag is 100, --no-icrc the same frames with every ICRC unchecked,
    --udp-port 4792 the same frames but the one to UDP 4792, which tshark
    checks); --count totals are summed here from the plain golden's records.
A golden file none of these covers fails the check.
"""

import json
import os
import re
import sys

ECN = {0: "not-ECT", 1: "ECT(1)", 2: "ECT(0)", 3: "CE"}
NAK = {0: "psn_seq_error", 1: "invalid_request", 2: "remote_access_error",
       3: "remote_op_error", 4: "invalid_rd_request"}
KINDS = ("roce", "cnp", "pfc", "pause", "other", "malformed")
ICRCS = ("ok", "bad", "unchecked")


def rnr_timer_ms(code):
    """IBA RNR NAK timer encoding: 0.01 ms times 1, 2, 3, 4, 6, 8, 12, ... (code 0: 655.36 ms)."""
    if code == 0:
        units = 65536
    elif code == 1:
        units = 1
    elif code % 2 == 0:
        units = 2 ** (code // 2)
    else:
        units = 3 * 2 ** ((code - 3) // 2)
    return "%d.%02d" % divmod(units, 100)


def hexw(v, width):
    return "0x%0*x" % (width, v)


def aeth_text(a):
    syn, low = a["syndrome"], a["syndrome"] & 0x1F
    cls = syn >> 5
    if cls == 0:
        return ["ack", "msn=%d" % a["msn"], "credits=" + ("invalid" if low == 0x1F else str(low))]
    if cls == 1:
        return ["rnr", "timer=%d(%sms)" % (low, rnr_timer_ms(low)), "msn=%d" % a["msn"]]
    if cls == 3:
        return ["nak", NAK.get(low, "reserved"), "msn=%d" % a["msn"]]
    return ["aeth", "syndrome=" + hexw(syn, 2), "msn=%d" % a["msn"]]


def bth_text(r):
    """Words of the BTH and extended headers, in the order the line shows them."""
    w = [r["opcode_name"] if "opcode_name" in r else "opcode=" + hexw(r["opcode"], 2),
         "qp=" + hexw(r["dest_qp"], 6), "psn=%d" % r["psn"]]
    w += [flag for flag in ("se", "migreq") if r[flag]]
    if r["pad"]:
        w.append("pad=%d" % r["pad"])
    if r["pkey"] != 0xFFFF:
        w.append("pkey=" + hexw(r["pkey"], 4))
    w += [flag for flag in ("fecn", "becn", "ackreq") if r[flag]]
    if "ee_context" in r:
        w.append("ee=" + hexw(r["ee_context"], 6))
    if "xrc_srq" in r:
        w.append("xrc_srq=" + hexw(r["xrc_srq"], 6))
    if "deth" in r:
        w += ["deth", "qkey=" + hexw(r["deth"]["qkey"], 8), "src_qp=" + hexw(r["deth"]["src_qp"], 6)]
    if "feth" in r:
        w.append("feth=" + hexw(r["feth"], 8))
    if "reth" in r:
        w += ["reth", "va=" + hex(r["reth"]["va"]), "rkey=" + hexw(r["reth"]["rkey"], 8),
              "len=%d" % r["reth"]["len"]]
    if "atomic" in r:
        a = r["atomic"]
        w += ["atomic", "va=" + hex(a["va"]), "rkey=" + hexw(a["rkey"], 8),
              "swap_add=" + hex(a["swap_add"]), "compare=" + hex(a["compare"])]
    if "aeth" in r:
        w += aeth_text(r["aeth"])
    if "atomic_ack" in r:
        w.append("orig=" + hex(r["atomic_ack"]["orig"]))
    if "immediate" in r:
        w.append("imm=" + hexw(r["immediate"], 8))
    if "ieth" in r:
        w.append("inv_rkey=" + hexw(r["ieth"], 8))
    if "cm" in r:
        w += cm_text(r["cm"])
    return w


def cm_text(c):
    """Words of an RDMA CM message."""
    w = ["cm", c["message"]]
    if c["method"] != 3:
        w.append("method=" + hexw(c["method"], 2))
    if "request_id" in c:
        w.append("request_id=" + hexw(c["request_id"], 8))
    elif "local_comm_id" in c:
        w.append("comm_id=" + hexw(c["local_comm_id"], 8))
    for key, text, width in (("remote_comm_id", "remote_comm_id", 8), ("status", "status", 0),
                             ("local_qpn", "local_qpn", 6), ("remote_qpn", "remote_qpn", 6),
                             ("start_psn", "start_psn", 0)):
        if key in c:
            w.append("%s=%s" % (text, hexw(c[key], width) if width else c[key]))
    if "rejected" in c or "delayed" in c:
        w.append("of=" + c.get("rejected", c.get("delayed")))
    if "reason" in c:
        w.append("reason=%d" % c["reason"] + ("(%s)" % c["reason_name"] if "reason_name" in c else ""))
    if "service_timeout" in c:
        w.append("timeout=%d" % c["service_timeout"])
    if "service_id" in c:
        w.append("service_id=" + hexw(c["service_id"], 16) +
                 ("(%s:%d)" % (c["port_space"], c["port"]) if "port_space" in c else ""))
    return w


def other_text(r):
    """Words of what a frame that is not RoCE carries."""
    if "tcp" in r:
        t = r["tcp"]
        w = ["tcp %d > %d" % (t["sport"], t["dport"]), "[%s]" % t["flags"], "seq=%d" % t["seq"]]
        if "." in t["flags"]:
            w.append("ack=%d" % t["ack"])
        w.append("win=%d" % t["window"])
    elif "udp_sport" in r:
        w = ["udp %d > %d" % (r["udp_sport"], r["udp_dport"])]
    elif "icmp" in r:
        i = r["icmp"]
        w = [r["proto"]]
        if "name" in i:
            w.append(i["name"])
            if i["code"]:
                w.append("code=%d" % i["code"])
        else:
            w += ["type=%d" % i["type"], "code=%d" % i["code"]]
        if "id" in i:
            w += ["id=%d" % i["id"], "seq=%d" % i["seq"]]
    elif "ip_proto" in r:
        w = [r["proto"] if "proto" in r else "proto=%d" % r["ip_proto"]]
    elif "arp" in r:
        a = r["arp"]
        w = (["arp who-has", a["target_ip"], "tell", a["sender_ip"]] if a["op"] == 1 else
             ["arp reply", a["sender_ip"], "is-at", a["sender_mac"]] if a["op"] == 2 else
             ["arp op=%d" % a["op"]])
    elif "llc" in r:
        w = ["stp"] if r["llc"]["dsap"] == 0x42 else \
            ["llc dsap=%s ssap=%s" % (hexw(r["llc"]["dsap"], 2), hexw(r["llc"]["ssap"], 2))]
    elif "ethertype" in r:
        w = [r["proto"] if "proto" in r else "ethertype=" + hexw(r["ethertype"], 4)]
    else:
        w = []
    if r.get("payload"):
        w.append("payload=%d" % r["payload"])
    return [re.escape(x) for x in w]


# the notices (legal, but worth a word) and how the text line says them, after len=
NOTICES = {"ip_fragment": "fragment", "icrc_ipv6_ext_headers": "ipv6_ext_headers",
           "link_extra_vlan_tags": "extra_vlan_tags", "link_wire_length_short": "wire_length_short"}


def line_pattern(r):
    """A regular expression the text line of JSON record `r` must match in full."""
    events = r.get("events", [])
    cut = [e for e in events if e.endswith("_truncated")]
    p = [re.escape(r["ts"])]
    if "erspan" in r:
        p.append(re.escape("erspan(s=%d)" % r["erspan"]["session"]))
    elif "gre" in r:
        p.append("gre")
    if "src" in r:
        p.append(re.escape("%s > %s" % (r["src"], r["dst"])))
        if r.get("rocev1"):
            p.append("grh")
        # frames that are not RoCE show them when they are set
        if r["kind"] != "other" or r["ecn"] or r["dscp"]:
            p += [re.escape("ecn=" + ECN[r["ecn"]]), "dscp=%d" % r["dscp"]]
    elif "src_mac" in r:
        p.append(r["src_mac"] + (" > " + r["dst_mac"] if "dst_mac" in r else ""))
    for outer, pcp in (("vlan", "pcp"), ("inner_vlan", "inner_pcp")):
        if outer in r:
            p.append("vlan=%d pcp=%d" % (r[outer], r[pcp]))
    if "opcode" in r:
        p += [re.escape(w) for w in bth_text(r)]
        if r["kind"] in ("roce", "cnp"):
            p.append(("payload=%d " % r["payload"] if r["payload"] else "") + "icrc=" + r["icrc"])
    else:
        if "pfc" in r:
            pfc = r["pfc"]
            on = [i for i in range(8) if pfc["enable"] >> i & 1]
            p.append("pfc " + (" ".join("prio%d=%d%s" % (i, pfc["quanta"][i],
                                                          "" if pfc["quanta"][i] else r"\(xon\)")
                                        for i in on) or "none"))
        elif "pause" in r:
            p.append("pause quanta=%d" % r["pause"]["quanta"])
        elif "macc_opcode" in r:
            p.append("mac-control opcode=" + hexw(r["macc_opcode"], 4))
        elif not r.get("rocev1") and (r["kind"] not in ("pfc", "pause")
                                      or "macc_truncated" in events):
            p += other_text(r)  # a MAC control frame cut shows its Ethertype
    p.append("len=%d" % r["len"])
    p += [NOTICES[e] for e in events if e in NOTICES]
    invalid = [e for e in events if e not in cut and e not in NOTICES]
    if invalid:
        p.append(re.escape("(invalid: %s)" % ",".join(invalid)))
    if cut:
        layer = cut[0][:-len("_truncated")]
        p.append(re.escape("[|%s]" % ("grh" if layer == "ip" and r.get("rocev1") else layer)))
    return " ".join(p)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def check_text(txt, jsonl, errors):
    with open(txt) as f:
        lines = f.read().splitlines()
    recs = read_jsonl(jsonl)
    name = os.path.basename(txt)
    if len(lines) != len(recs):
        errors.append("%s: %d lines, %s has %d records" %
                      (name, len(lines), os.path.basename(jsonl), len(recs)))
    for line, r in zip(lines, recs):
        sec, frac = r["ts"].split(".")
        if r.get("ts_ns") != int(sec) * 10**9 + int(frac):
            errors.append("%s frame %d: ts_ns %r is not ts %s" % (name, r["frame"], r.get("ts_ns"), r["ts"]))
        if len([e for e in r.get("events", []) if e.endswith("_truncated")]) > 1:
            errors.append("%s frame %d: more than one truncation event" % (name, r["frame"]))
        pat = line_pattern(r)
        if not re.fullmatch(pat, line):
            errors.append("%s frame %d:\n  line:     %s\n  expected: %s" % (name, r["frame"], line, pat))
    return len(lines)


def totals(recs):
    """What --count prints, summed from the per-frame records."""
    t = {"schema": 1, "frames": len(recs), "bytes": sum(r["len"] for r in recs),
         "captured_bytes": sum(r["caplen"] for r in recs),
         "kinds": {k: sum(r["kind"] == k for r in recs) for k in KINDS},
         "icrc": {s: sum(r.get("icrc") == s for r in recs) for s in ICRCS},
         # a header cut; frames cut only after their headers (the ICRC) count apart
         "truncated": sum(any(e.endswith("_truncated") and e != "icrc_truncated"
                              for e in r.get("events", [])) for r in recs),
         "icrc_unchecked": sum(r.get("events", []).count("icrc_truncated") for r in recs),
         "ce": sum(r.get("ecn") == 3 for r in recs), "events": {}}
    for r in recs:
        for e in r.get("events", []):
            t["events"][e] = t["events"].get(e, 0) + 1
    return t


def check_count(base_jsonl, count_jsonl, count_txt, errors):
    want = totals(read_jsonl(base_jsonl))
    got = read_jsonl(count_jsonl)
    name = os.path.basename(count_jsonl)
    if got != [want]:
        errors.append("%s: %s, summed from %s: %s" %
                      (name, got, os.path.basename(base_jsonl), want))
    text = ["frames: %d" % want["frames"],
            "bytes: %d (captured %d)" % (want["bytes"], want["captured_bytes"]),
            "kinds: " + " ".join("%s=%d" % (k, want["kinds"][k]) for k in KINDS),
            "icrc: " + " ".join("%s=%d" % (s, want["icrc"][s]) for s in ICRCS),
            "truncated: %d" % want["truncated"], "icrc_unchecked: %d" % want["icrc_unchecked"],
            "ce: %d" % want["ce"]]
    with open(count_txt) as f:
        lines = f.read().splitlines()
    events = lines[-1] if lines else ""
    if lines[:-1] != text:
        errors.append("%s: %s, expected %s" % (os.path.basename(count_txt), lines[:-1], text))
    want_events = sorted("%s=%d" % kv for kv in want["events"].items())
    got_events = events.split()[1:] if events.startswith("events:") else None
    if got_events is None or (got_events != ["none"] if not want_events else
                              sorted(got_events) != want_events):
        errors.append("%s: %r, expected events %s" % (os.path.basename(count_txt), events,
                                                      want_events or "none"))


def no_icrc(r):
    r = dict(r)
    if "icrc" in r:
        r["icrc"] = "unchecked"
    ev = [e for e in r.get("events", []) if e != "icrc_bad"]
    r.pop("events", None)
    if ev:
        r["events"] = ev
    return r


def other_port(base, got):
    """--udp-port 4792: every frame as before, except UDP frames that were "other" may be RoCE
    (then what named the UDP payload, kind, proto and its length, names the RoCE packet)."""
    if base == got:
        return True
    own = ("kind", "ip_proto", "proto", "payload")
    return (base["kind"] == "other" and "udp_sport" in base and got["kind"] in ("roce", "cnp") and
            {k: v for k, v in got.items() if k in base and k not in own} ==
            {k: v for k, v in base.items() if k not in own})


# golden name -> (plain golden, how the option changes its records)
DERIVED = {
    "rc_opcodes_c5": ("rc_opcodes", lambda recs: recs[:5]),
    "vlan_qinq_bpf": ("vlan_qinq", lambda recs: [r for r in recs if r.get("vlan") == 100]),
    # udp port 4791 either way: RoCEv2 frames (to 4791), or UDP from 4791
    "rxe_rdma_read_bw_bpf": ("rxe_rdma_read_bw", lambda recs: [
        r for r in recs if ("udp_sport" in r and r["kind"] in ("roce", "cnp")) or
        r.get("udp_sport") == 4791][:5]),
    "icrc_bad_noicrc": ("icrc_bad", lambda recs: [no_icrc(r) for r in recs]),
}


def main():
    golden, fixtures, captures = sys.argv[1:4]
    names = sorted(set(os.path.splitext(f)[0] for f in os.listdir(golden)
                       if f.endswith((".txt", ".jsonl"))))
    errors, covered, lines = [], {}, 0

    def cover(name, ext, how):
        covered.setdefault(name + ext, []).append(how)

    for n in names:
        g = os.path.join(golden, n)
        if n.endswith("_count"):
            base = n[:-len("_count")]
            check_count(g[:-len(n)] + base + ".jsonl", g + ".jsonl", g + ".txt", errors)
            cover(n, ".jsonl", "summed from %s.jsonl" % base)
            cover(n, ".txt", "summed from %s.jsonl" % base)
            continue
        if os.path.exists(g + ".txt") and os.path.exists(g + ".jsonl"):
            lines += check_text(g + ".txt", g + ".jsonl", errors)
            cover(n, ".txt", "each line agrees with %s.jsonl" % n)
        if os.path.exists(os.path.join(fixtures, n + ".truth.jsonl")):
            cover(n, ".jsonl", "truth + tshark")
        if n == "mixed_pcapng":
            cover(n, ".jsonl", "truth (mixed.pcapng.truth.jsonl) + tshark")
        if os.path.exists(os.path.join(captures, n + ".pcap")):
            cover(n, ".jsonl", "tshark + bitwise ICRC")
        if n in DERIVED:
            base, derive = DERIVED[n]
            want = derive(read_jsonl(os.path.join(golden, base + ".jsonl")))
            if not want or read_jsonl(g + ".jsonl") != want:
                errors.append("%s.jsonl is not %s.jsonl under its option" % (n, base))
            cover(n, ".jsonl", "derived from %s.jsonl" % base)
        if n == "noise_udp4792":
            got = read_jsonl(g + ".jsonl")
            base = read_jsonl(os.path.join(golden, "noise.jsonl"))
            changed = sum(a != b for a, b in zip(base, got))
            if len(got) != len(base) or changed != 1 or \
                    not all(other_port(a, b) for a, b in zip(base, got)):
                errors.append("noise_udp4792.jsonl differs from noise.jsonl beyond the UDP 4792 frame")
            cover(n, ".jsonl", "derived from noise.jsonl + tshark decode-as")
    for n in names:
        for ext in (".txt", ".jsonl"):
            if os.path.exists(os.path.join(golden, n + ext)) and n + ext not in covered:
                errors.append("%s%s: no independent oracle checks this golden file" % (n, ext))
    for e in errors:
        print(e)
    if errors:
        sys.exit("check_goldens: %d problems" % len(errors))
    print("ok: %d golden files each tied to an oracle; %d text lines agree with their JSON records"
          % (len(covered), lines))


if __name__ == "__main__":
    main()
