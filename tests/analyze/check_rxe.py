#!/usr/bin/python3
"""The bundled rxe captures (tests/captures): every flow paired (peer_qp set, and the peer flow agrees), no false
retransmissions, gaps, NAKs or PSN jumps, every ICRC good; known pairs checked by QP number.

usage: check_rxe.py ROCETRACE CAPTURE_DIR
"""
import json
import os
import subprocess
import sys

# peers known from the captures themselves (RDMA CM REQ/REP, tshark -V)
KNOWN = {
    "rxe_rdma_cm.pcap": {("10.1.16.62", "10.1.16.61", 0x3B): 0x3D,
                         ("10.1.16.61", "10.1.16.62", 0x3D): 0x3B,
                         ("10.1.16.62", "10.1.16.61", 0x3C): 0x3E,
                         ("10.1.16.61", "10.1.16.62", 0x3E): 0x3C},
    "rxe_pingpong_ud.pcap": {("10.1.16.62", "10.1.16.61", 0x22): 0x23},
    "rxe_nccl_node0.pcap": {("172.30.0.11", "172.30.0.25", 0x1C): 0x1D,
                            ("172.30.0.12", "172.30.0.25", 0x1D): 0x1F},
}


def main():
    exe, capdir = sys.argv[1:3]
    errors = []
    names = sorted(n for n in os.listdir(capdir) if n.endswith(".pcap"))
    if not names:
        print("FAIL: no rxe captures in %s" % capdir)
        sys.exit(1)
    for name in names:
        out = subprocess.run([exe, "analyze", os.path.join(capdir, name), "--json"],
                             stdout=subprocess.PIPE, check=True, timeout=60).stdout
        rep = json.loads(out)
        if not rep["flows"]:
            errors.append("%s: no flows" % name)
        t = rep["totals"]
        for k in ("retransmitted", "nak", "rnr_nak", "icrc_bad", "gaps", "psn_jumps", "timeouts",
                  "malformed"):
            if t[k]:
                errors.append("%s: totals.%s = %d, want 0" % (name, k, t[k]))
        flows = {(f["src"], f["dst"], f["dest_qp"]): f for f in rep["flows"]}
        for key, f in flows.items():
            tag = "%s: flow %s>%s:%#x" % ((name,) + key)
            if f["peer_qp"] is None:
                errors.append(tag + " not paired")
                continue
            back = flows.get((key[1], key[0], f["peer_qp"]))
            if back is not None and back["peer_qp"] != key[2]:
                errors.append(tag + " peer flow disagrees (%r)" % back["peer_qp"])
            if f["retransmitted"] or f["gaps"] or f["duplicates"]:
                errors.append(tag + " has retransmissions/gaps")
        for key, peer in KNOWN.get(name, {}).items():
            got = flows.get(key, {}).get("peer_qp")
            if got != peer:
                errors.append("%s: flow %s>%s:%#x peer %r, want %#x" % ((name,) + key + (got, peer)))
    for e in errors:
        print("FAIL " + e)
    if errors:
        sys.exit(1)
    print("ok: %d captures, every flow paired" % len(names))


if __name__ == "__main__":
    main()
