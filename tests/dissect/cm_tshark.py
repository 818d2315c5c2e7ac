#!/usr/bin/python3
"""tshark cross-check of the RDMA CM messages `rocetrace dissect --json` decodes (dissect/cm.c).

Usage: cm_tshark.py ROCETRACE CAPTURE...
Every communication management MAD tshark finds (class 7 on QP 1) must be a "cm" object of the
same frame with the same attribute, method and transaction ID, and every field tshark 4.0 decodes
of REQ, REP, RTU, REJ, DREQ and DREP (communication IDs, local and remote QPN, starting PSN,
Q_Key, service ID, the message a REJ rejects and its reason) must have tshark's value; no other
frame may have one. Each of those fields must be compared at least once over the captures.
"""
import json
import shutil
import subprocess
import sys

REJECTED = {"REQ": 0, "REP": 1, "other": 2}
# tshark field -> (messages it is read in, our key in "cm", how our value compares)
FIELDS = {
    "infiniband.cm.req": (("REQ",), "local_comm_id", None),
    "infiniband.cm.req.serviceid": (("REQ",), "service_id", None),
    "infiniband.cm.req.localqkey": (("REQ",), "qkey", None),
    "infiniband.cm.req.localqpn": (("REQ",), "local_qpn", None),
    "infiniband.cm.req.startpsn": (("REQ",), "start_psn", None),
    "infiniband.cm.rep": (("REP",), "local_comm_id", None),
    "infiniband.cm.rep.remotecommid": (("REP",), "remote_comm_id", None),
    "infiniband.cm.rep.localqkey": (("REP",), "qkey", None),
    "infiniband.cm.rep.localqpn": (("REP",), "local_qpn", None),
    "infiniband.cm.rep.startpsn": (("REP",), "start_psn", None),
    "infiniband.cm.rtu.localcommid": (("RTU",), "local_comm_id", None),
    "infiniband.cm.rtu.remotecommid": (("RTU",), "remote_comm_id", None),
    "infiniband.cm.rej.localcommid": (("REJ",), "local_comm_id", None),
    "infiniband.cm.rej.remotecommid": (("REJ",), "remote_comm_id", None),
    "infiniband.cm.rej.msgrej": (("REJ",), "rejected", REJECTED.get),
    "infiniband.cm.rej.reason": (("REJ",), "reason", None),
    "infiniband.cm.dreq.localcommid": (("DREQ",), "local_comm_id", None),
    "infiniband.cm.dreq.remotecommid": (("DREQ",), "remote_comm_id", None),
    "infiniband.cm.req.remoteqpneecn": (("DREQ",), "remote_qpn", None),
    "infiniband.cm.drsp.localcommid": (("DREP",), "local_comm_id", None),
    "infiniband.cm.drsp.remotecommid": (("DREP",), "remote_comm_id", None),
}
HEAD = ["frame.number", "infiniband.mad.mgmtclass", "infiniband.mad.attributeid",
        "infiniband.mad.method", "infiniband.mad.transactionid"]


def tshark_rows(capture):
    cmd = ["tshark", "-n", "-r", capture, "-T", "fields", "-E", "occurrence=f"]
    for f in HEAD + list(FIELDS):
        cmd += ["-e", f]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    return [dict(zip(HEAD + list(FIELDS), line.split("\t"))) for line in out.splitlines()]


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    if not shutil.which("tshark"):
        print("SKIP: tshark is not installed, so there is no second decoder to compare with")
        return 77
    errors, compared = [], {f: 0 for f in FIELDS}
    messages = 0
    for capture in sys.argv[2:]:
        out = subprocess.run([sys.argv[1], "dissect", "--json", capture], check=True,
                             capture_output=True, text=True).stdout
        recs = [json.loads(line) for line in out.splitlines()]
        rows = tshark_rows(capture)
        if len(rows) != len(recs):
            errors.append("%s: %d frames, tshark %d" % (capture, len(recs), len(rows)))
            continue
        for rec, row in zip(recs, rows):
            where = "%s frame %d" % (capture, rec["frame"])
            cm = rec.get("cm")
            if row["infiniband.mad.mgmtclass"] != "0x07":
                if cm:
                    errors.append("%s: a CM %s where tshark finds no CM MAD" % (where, cm["message"]))
                continue
            if not cm:
                errors.append("%s: tshark finds CM attribute %s, rocetrace none" %
                              (where, row["infiniband.mad.attributeid"]))
                continue
            messages += 1
            for key, field in (("attribute", "infiniband.mad.attributeid"),
                               ("method", "infiniband.mad.method"),
                               ("transaction_id", "infiniband.mad.transactionid")):
                if cm[key] != int(row[field], 16):
                    errors.append("%s: %s %s, tshark %s" % (where, key, cm[key], row[field]))
            for field, (msgs, key, conv) in FIELDS.items():
                if cm["message"] not in msgs or not row[field]:
                    continue
                mine = conv(cm.get(key)) if conv else cm.get(key)
                compared[field] += 1
                if mine != int(row[field], 16):
                    errors.append("%s: %s %s is %r, tshark %s" % (where, cm["message"], key, mine,
                                                                  row[field]))
    for field, n in compared.items():
        if not n:
            errors.append("%s: never compared" % field)
    for e in errors:
        print("FAIL " + e)
    if not errors:
        print("ok: %d CM messages; fields compared: %s" % (messages, compared))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
