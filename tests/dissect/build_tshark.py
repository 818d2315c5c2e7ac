#!/usr/bin/python3
"""tshark cross-check of the frame builder (dissect/build.c): opcode, dest QP, PSN, AckReq, RETH, AETH, ICRC."""
import os
import shutil
import subprocess
import sys
import tempfile

FIELDS = ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
          "infiniband.bth.a", "infiniband.reth.va", "infiniband.reth.r_key",
          "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
          "infiniband.invariant.crc"]


def num(s):
    s = s.strip()
    if s in ("", "False"):
        return None if s == "" else 0
    if s == "True":
        return 1
    return int(s, 0)


def main():
    writer = sys.argv[1]
    if not shutil.which("tshark"):
        print("SKIP: tshark not installed")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        pcap, tsv = os.path.join(tmp, "built.pcap"), os.path.join(tmp, "built.tsv")
        subprocess.run([writer, pcap, tsv], check=True)
        cmd = ["tshark", "-n", "-r", pcap, "-d", "udp.port==4791,infiniband", "-T", "fields",
               "-E", "occurrence=f"]
        for f in FIELDS:
            cmd += ["-e", f]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        got = [line.split("\t") for line in out.splitlines()]
        want = [line.rstrip("\n").split("\t") for line in open(tsv)]
    if len(got) != len(want):
        print(f"FAIL: tshark shows {len(got)} packets, built {len(want)}")
        return 1
    errors = 0
    crcs = 0
    for i, (g, w) in enumerate(zip(got, want)):
        g += [""] * (len(FIELDS) - len(g))
        for j, name in enumerate(FIELDS):
            gv, wv = num(g[j]), num(w[j]) if w[j] else None
            if name == "infiniband.invariant.crc":
                # tshark 4.0 shows the ICRC field of known opcodes only (not CNP)
                if gv is None:
                    continue
                crcs += 1
            if name == "infiniband.bth.opcode" or wv is not None or gv is not None:
                if gv != wv:
                    print(f"FAIL packet {i + 1}: {name} tshark={g[j]!r} built={w[j]!r}")
                    errors += 1
    if crcs < 6:
        print(f"FAIL: tshark showed only {crcs} ICRC fields")
        errors += 1
    print(f"{len(got)} packets compared, {crcs} ICRCs, {errors} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
