#!/usr/bin/python3
"""tshark cross-check of the frame builder (dissect/build.c): opcode, dest QP, PSN, AckReq, RETH, AETH, ICRC.

Usage: build_tshark.py BUILD_PCAP
The builder writes a pcap and a TSV of the fields it was asked to put in
each frame; tshark must read those fields back. The ICRC expected is
computed here, bit by bit from the RoCEv2 definition (tests/lib/wire_ref.py),
over each frame's masked headers and payload: the ICRC bytes stored in every
frame and the ICRC tshark shows must both equal it.
"""
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import wire_ref  # noqa: E402

FIELDS = ["infiniband.bth.opcode", "infiniband.bth.destqp", "infiniband.bth.psn",
          "infiniband.bth.a", "infiniband.reth.va", "infiniband.reth.r_key",
          "infiniband.reth.dmalen", "infiniband.aeth.syndrome", "infiniband.aeth.msn",
          "infiniband.invariant.crc"]
ICRC = FIELDS.index("infiniband.invariant.crc")


def num(s):
    s = s.strip()
    if s in ("", "False"):
        return None if s == "" else 0
    if s == "True":
        return 1
    return int(s, 0)


def expected_icrcs(pcap):
    """The reference ICRC of each frame, as tshark shows the field: its 4 bytes read big-endian."""
    linktype, frames = wire_ref.read_capture(pcap)
    out = []
    for _, _, _, data in frames:
        ip = wire_ref.rocev2_ip_packet(linktype, data)
        if ip is None:
            out.append((None, None))
            continue
        crc = wire_ref.rocev2_icrc(ip)
        out.append((struct.unpack(">I", struct.pack("<I", crc))[0], ip[-4:] == struct.pack("<I", crc)))
    return out


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
        icrcs = expected_icrcs(pcap)
    if not len(got) == len(want) == len(icrcs):
        print(f"FAIL: tshark shows {len(got)} packets, built {len(want)}, read {len(icrcs)}")
        return 1
    errors = 0
    crcs = 0
    for i, (g, w, (icrc, stored_ok)) in enumerate(zip(got, want, icrcs)):
        g += [""] * (len(FIELDS) - len(g))
        if icrc is None:
            print(f"FAIL packet {i + 1}: not a RoCEv2 packet")
            errors += 1
            continue
        if not stored_ok:
            print(f"FAIL packet {i + 1}: its stored ICRC is not the one computed from its bytes")
            errors += 1
        w = w + [str(icrc)]
        for j, name in enumerate(FIELDS):
            gv, wv = num(g[j]), num(w[j]) if w[j] else None
            if j == ICRC:
                # tshark 4.0 shows the ICRC field of known opcodes only (not CNP)
                if gv is None:
                    continue
                crcs += 1
            if name == "infiniband.bth.opcode" or wv is not None or gv is not None:
                if gv != wv:
                    print(f"FAIL packet {i + 1}: {name} tshark={g[j]!r} expected={wv!r}")
                    errors += 1
    if crcs < 6:
        print(f"FAIL: tshark showed only {crcs} ICRC fields")
        errors += 1
    print(f"{len(got)} packets compared, {crcs} ICRCs shown by tshark, every stored ICRC "
          f"checked against the bitwise reference, {errors} mismatches")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
