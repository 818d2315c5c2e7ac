#!/usr/bin/python3
"""tshark cross-check of the RDMA CM REQ/REP fields the dissector decodes (dissect/cm.c).

Usage: cm_tshark.py CM_FIELDS CAPTURE...
Every REQ and REP tshark finds must come out of CM_FIELDS (the dissector) with the
same attribute, local and remote communication IDs and local QPN, and nothing else.
"""
import shutil
import subprocess
import sys

FIELDS = ["frame.number", "infiniband.mad.attributeid", "infiniband.cm.req",
          "infiniband.cm.req.localqpn", "infiniband.cm.rep", "infiniband.cm.rep.remotecommid",
          "infiniband.cm.rep.localqpn"]


def tshark_rows(capture):
    cmd = ["tshark", "-n", "-r", capture, "-Y",
           "infiniband.mad.mgmtclass == 7 && (infiniband.mad.attributeid == 0x10 || "
           "infiniband.mad.attributeid == 0x13)", "-T", "fields", "-E", "occurrence=f"]
    for f in FIELDS:
        cmd += ["-e", f]
    rows = []
    for line in subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.splitlines():
        num, attr, req_local, req_qpn, rep_local, rep_remote, rep_qpn = line.split("\t")
        if int(attr, 16) == 0x10:
            rows.append((int(num), 0x10, int(req_local, 16), 0, int(req_qpn, 16)))
        else:
            rows.append((int(num), 0x13, int(rep_local, 16), int(rep_remote, 16),
                         int(rep_qpn, 16)))
    return rows


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if not shutil.which("tshark"):
        print("SKIP: tshark is not installed, so there is no second decoder to compare with")
        return 77
    fails = 0
    for capture in sys.argv[2:]:
        want = tshark_rows(capture)
        out = subprocess.run([sys.argv[1], capture], check=True, capture_output=True,
                             text=True).stdout
        got = [tuple(int(x, 0) for x in line.split("\t")) for line in out.splitlines()]
        if not want:
            print("FAIL %s: tshark finds no REQ or REP to compare" % capture)
            fails += 1
        elif got != want:
            print("FAIL %s:\n  tshark:    %s\n  rocetrace: %s" % (capture, want, got))
            fails += 1
        else:
            print("ok %s: %d REQ/REP, fields as tshark decodes them" % (capture, len(got)))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
