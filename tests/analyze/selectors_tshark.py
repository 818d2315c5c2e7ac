#!/usr/bin/python3
"""Selectors against tshark: --kind, --conversation and a repeated --flow pick what tshark's own
dissection of the same captures says they should.

Usage: selectors_tshark.py ROCETRACE SCENARIO_DIR CAPTURES_DIR FIXTURES_DIR

- --kind K: the frames `dissect --kind K` prints are those a classifier here puts in K from
  tshark's fields (BTH opcode, AETH syndrome, MAD class, MAC control opcode), for every kind over
  every capture; `--kind a,b` is the union; `analyze --kind K` lists the flows (source,
  destination, destination QP) of tshark's frames of kind K.
- --conversation SRC>DST:QP: over the scenarios, whose generator recorded each flow's peer QP
  (SCENARIO.truth.json), dissect prints the frames tshark finds of the flow and of its peer
  (DST>SRC:PEER), analyze lists those two flows and timeline writes rows of those two only, whose
  packets add up to the truth's.
- --flow A --flow B: dissect prints exactly the frames of tshark's display filter "A || B",
  analyze lists the flows that filter's frames belong to.
- findings under a selector: over the scenarios whose findings name flows, for each flow of the
  truth, `analyze --flow F` (and --conversation F) keeps exactly the findings of the whole capture
  that name a selected flow or name none, each naming only selected flows, and --fail-on warning
  exits 3 exactly when one kept is a warning or an error.
Exits 77 when tshark is missing.
"""
import csv
import io
import json
import os
import shutil
import subprocess
import sys

KINDS = ["data", "ack", "nak", "rnr", "cnp", "read", "atomic", "cm", "pfc", "pause", "other"]
FLOW_KINDS = KINDS[:8]
FIELDS = ["frame.number", "ip.src", "ip.dst", "ipv6.src", "ipv6.dst", "infiniband.bth.opcode",
          "infiniband.bth.destqp", "infiniband.aeth.syndrome", "infiniband.mad.mgmtclass",
          "macc.opcode"]
# BTH opcodes by what they do (IBTA vol. 1 table 38: RC 0x00, RD 0x40, XRC 0xA0 bases)
READ_LOW = {0x0C, 0x0D, 0x0E, 0x0F, 0x10}  # READ request, READ response first..only
ATOMIC_LOW = {0x12, 0x13, 0x14, 0x1D}  # atomic ACK, compare-swap, fetch-add, ATOMIC WRITE
ACK_LOW = {0x11}
# the fixtures of every kind; not rd_opcodes (tshark 4.0 reads the RD opcodes as Mellanox DC), nor
# those whose RoCE frames are broken on purpose (tshark reads a BTH in a fragment or past a bad
# length; the dissector calls such frames "other") or RoCEv1 (no IP addresses for a flow's key)
FIXTURES = ["pfc_pause", "cm_messages", "aeth_flags", "rc_opcodes", "xrc_opcodes", "ecn_cnp",
            "ipv6", "protocols"]


def last(v):
    return v.split(",")[-1] if v else ""


def tshark(path, display=None):
    cmd = ["tshark", "-r", path, "-T", "fields", "-E", "separator=\t", "-E", "occurrence=a"]
    if display:
        cmd += ["-Y", display]
    for f in FIELDS:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    frames = []
    for line in out.splitlines():
        v = dict(zip(FIELDS, line.split("\t")))
        frames.append({k: last(x) for k, x in v.items()})
    return frames


def kind(f):
    """The kind of one frame, from tshark's fields alone."""
    if f["infiniband.bth.opcode"]:
        op = int(f["infiniband.bth.opcode"], 0)
        if f["infiniband.mad.mgmtclass"] and int(f["infiniband.mad.mgmtclass"], 0) == 7:
            return "cm"
        if op == 0x81:
            return "cnp"
        if f["infiniband.aeth.syndrome"]:
            cls = int(f["infiniband.aeth.syndrome"], 0) >> 5
            if cls == 1:
                return "rnr"
            if cls == 3:
                return "nak"
        base = op & 0xE0
        low = op & 0x1F
        if base in (0x00, 0x40, 0xA0):
            if low in READ_LOW:
                return "read"
            if low in ATOMIC_LOW:
                return "atomic"
            if low in ACK_LOW:
                return "ack"
        return "data"
    if f["macc.opcode"]:
        op = int(f["macc.opcode"], 0)
        return {0x0101: "pfc", 0x0001: "pause"}.get(op, "other")
    return "other"


def key(f):
    src = f["ip.src"] or f["ipv6.src"]
    dst = f["ip.dst"] or f["ipv6.dst"]
    return (src, dst, int(f["infiniband.bth.destqp"], 0))


def selector(k):
    """SRC>DST:QP as --flow takes it (IPv6 in brackets)."""
    src, dst, qp = k
    return f"[{src}]>[{dst}]:{qp:#x}" if ":" in src else f"{src}>{dst}:{qp:#x}"


def run(args):
    res = subprocess.run(args, capture_output=True, text=True)
    if res.returncode != 0:
        raise RuntimeError(f"{' '.join(args)}: exit {res.returncode}: {res.stderr.strip()}")
    return res.stdout


def dissect_frames(exe, path, *opts):
    out = run([exe, "dissect", path, "--json", *opts])
    return sorted(json.loads(l)["frame"] for l in out.splitlines())


def analyze_flows(exe, path, *opts):
    doc = json.loads(run([exe, "analyze", path, "--json", *opts]))
    return sorted((f["src"], f["dst"], f["dest_qp"]) for f in doc["flows"])


def check_kinds(exe, path, frames, errors, counts):
    name = os.path.basename(path)
    by_kind = {k: sorted(int(f["frame.number"]) for f in frames if kind(f) == k) for k in KINDS}
    for k in KINDS:
        got = dissect_frames(exe, path, "--kind", k)
        counts[k] += len(by_kind[k])
        if got != by_kind[k]:
            errors.append(f"{name}: dissect --kind {k}: {len(got)} frames, tshark "
                          f"{len(by_kind[k])} (first differing: "
                          f"{sorted(set(got) ^ set(by_kind[k]))[:5]})")
    both = dissect_frames(exe, path, "--kind", "ack,nak", "--kind", "cnp")
    want = sorted(by_kind["ack"] + by_kind["nak"] + by_kind["cnp"])
    if both != want:
        errors.append(f"{name}: --kind ack,nak --kind cnp is not the union of the three")
    for k in FLOW_KINDS:
        if not by_kind[k]:
            continue
        want = sorted({key(f) for f in frames if kind(f) == k})
        got = analyze_flows(exe, path, "--kind", k)
        if got != want:
            errors.append(f"{name}: analyze --kind {k} lists {got}, tshark's frames {want}")


def check_conversations(exe, scenario_dir, errors):
    checked = 0
    for name in sorted(os.listdir(scenario_dir)):
        if not name.endswith(".truth.json"):
            continue
        path = os.path.join(scenario_dir, name.replace(".truth.json", ".pcap"))
        truth = json.load(open(os.path.join(scenario_dir, name)))
        frames = [f for f in tshark(path) if f["infiniband.bth.opcode"]]
        for t in truth["flows"]:
            if t.get("peer_qp") is None:
                continue
            mine = (t["src"], t["dst"], t["dest_qp"])
            peer = (t["dst"], t["src"], t["peer_qp"])
            sel = selector(mine)
            want = sorted(int(f["frame.number"]) for f in frames if key(f) in (mine, peer))
            got = dissect_frames(exe, path, "--conversation", sel)
            if got != want:
                errors.append(f"{name}: dissect --conversation {sel}: {len(got)} frames, "
                              f"tshark {len(want)}")
            flows = analyze_flows(exe, path, "--conversation", sel)
            if flows != sorted([mine, peer]):
                errors.append(f"{name}: analyze --conversation {sel} lists {flows}")
            rows = run([exe, "timeline", path, "--conversation", sel, "--bucket", "1ms"])
            packets = {}
            for r in csv.DictReader(io.StringIO(rows)):
                if r["flow"] != "all":
                    k = (r["src"], r["dst"], int(r["dest_qp"]))
                    packets[k] = packets.get(k, 0) + int(r["packets"])
            truth_packets = {(u["src"], u["dst"], u["dest_qp"]): u["packets"]
                             for u in truth["flows"]}
            want_rows = {k: truth_packets[k] for k in (mine, peer) if k in truth_packets}
            if packets != want_rows:
                errors.append(f"{name}: timeline --conversation {sel}: packets {packets}, "
                              f"truth {want_rows}")
            checked += 1
    if checked < 10:
        errors.append(f"only {checked} conversations checked")


def check_flow_union(exe, path, errors):
    frames = [f for f in tshark(path) if f["infiniband.bth.opcode"]]
    keys = sorted({key(f) for f in frames})
    a, b = keys[0], keys[-1]
    host = b[0]
    display = (f"infiniband.bth.opcode && ((ip.src == {a[0]} && ip.dst == {a[1]} && "
               f"infiniband.bth.destqp == {a[2]}) || ip.addr == {host})")
    want_frames = tshark(path, display)
    want = sorted(int(f["frame.number"]) for f in want_frames)
    sel_a, sel_b = selector(a), host
    got = dissect_frames(exe, path, "--flow", sel_a, "--flow", sel_b)
    if not want or got != want:
        errors.append(f"{path}: dissect --flow {sel_a} --flow {sel_b}: {len(got)} frames, "
                      f"tshark -Y: {len(want)}")
    if dissect_frames(exe, path, "--flow", f"{sel_a},{sel_b}") != got:
        errors.append(f"{path}: --flow A,B differs from --flow A --flow B")
    flows = analyze_flows(exe, path, "--flow", sel_a, "--flow", sel_b)
    if flows != sorted({key(f) for f in want_frames}):
        errors.append(f"{path}: analyze --flow {sel_a} --flow {sel_b} lists {flows}")


def named(k):
    """A flow as findings name it: the QP in six hex digits."""
    src, dst, qp = k
    return f"[{src}]>[{dst}]:0x{qp:06x}" if ":" in src else f"{src}>{dst}:0x{qp:06x}"


def findings(exe, path, *opts):
    doc = json.loads(run([exe, "analyze", path, "--json", *opts]))
    return [(f["code"], f["severity"], f["subjects"].get("flows", [])) for f in doc["findings"]]


def check_findings_selection(exe, scenario_dir, errors):
    naming = 0
    for name in ("nak_gbn", "rnr", "psn_wrap"):
        path = os.path.join(scenario_dir, name + ".pcap")
        truth = json.load(open(os.path.join(scenario_dir, name + ".truth.json")))
        whole = findings(exe, path)
        naming += sum(1 for f in whole if f[2])
        for t in truth["flows"]:
            k = (t["src"], t["dst"], t["dest_qp"])
            mine = selector(k)
            both = {named(k)}
            if t.get("peer_qp") is not None:
                both.add(named((t["dst"], t["src"], t["peer_qp"])))
            for opt, sel in (("--flow", {named(k)}), ("--conversation", both)):
                want = [(c, s, [x for x in fl if x in sel]) for c, s, fl in whole
                        if not fl or set(fl) & sel]
                got = findings(exe, path, opt, mine)
                if got != want:
                    errors.append(f"{path}: {opt} {mine}: findings {got}, want {want}")
                bad = any(s != "info" for _, s, _ in want)
                rc = subprocess.run([exe, "analyze", path, opt, mine, "--fail-on", "warning"],
                                    capture_output=True).returncode
                if rc != (3 if bad else 0):
                    errors.append(f"{path}: {opt} {mine} --fail-on warning: exit {rc}")
    if not naming:
        errors.append("no finding names a flow in the scenarios: the check proves nothing")


def main():
    exe, scenario_dir, captures_dir, fixtures_dir = sys.argv[1:5]
    if not shutil.which("tshark"):
        print("tshark not installed")
        return 77
    errors = []
    counts = {k: 0 for k in KINDS}
    paths = [os.path.join(scenario_dir, n) for n in sorted(os.listdir(scenario_dir))
             if n.endswith(".pcap")]
    paths += [os.path.join(captures_dir, n) for n in sorted(os.listdir(captures_dir))
              if n.endswith(".pcap")]
    paths += [os.path.join(fixtures_dir, n + ".pcap") for n in FIXTURES]
    for path in paths:
        check_kinds(exe, path, tshark(path), errors, counts)
    for k, n in counts.items():
        if n == 0:
            errors.append(f"no frame of kind {k} in the captures: the check of it proves nothing")
    check_conversations(exe, scenario_dir, errors)
    check_flow_union(exe, os.path.join(scenario_dir, "incast.pcap"), errors)
    check_flow_union(exe, os.path.join(captures_dir, "rxe_nccl_node0.pcap"), errors)
    check_findings_selection(exe, scenario_dir, errors)
    for e in errors:
        print(e)
    print(f"{len(paths)} captures; frames per kind: {counts}; {len(errors)} problems")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
