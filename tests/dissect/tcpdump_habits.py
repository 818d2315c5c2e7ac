#!/usr/bin/python3
"""System test: dissect takes tcpdump's habits (-r, a trailing filter, -n, -#, the -t letters, -e, -v, -x/-X, --flow).

Each option is checked against something the command did not write: its own
plain and --json output for the same frames (timestamps, numbers, flows),
the frame bytes read here from the pcap file (-x/-X, -e, -v), and Python's
datetime (-tttt).
"""
import datetime
import json
import os
import re
import struct
import subprocess
import sys


def run(exe, *args, env=None):
    res = subprocess.run([exe, "dissect"] + list(args), capture_output=True, text=True, env=env)
    if res.returncode != 0:
        raise AssertionError(f"dissect {' '.join(args)}: exit {res.returncode}: {res.stderr}")
    return res.stdout


def frames(path):
    """(ts_ns, bytes) of each record of a classic pcap (micro- or nanosecond)."""
    with open(path, "rb") as f:
        data = f.read()
    magic = struct.unpack_from("<I", data)[0]
    nano = magic == 0xA1B23C4D
    out, off = [], 24
    while off < len(data):
        sec, frac, caplen, _ = struct.unpack_from("<IIII", data, off)
        out.append((sec * 10**9 + frac * (1 if nano else 1000), data[off + 16:off + 16 + caplen]))
        off += 16 + caplen
    return out


def ts_ns(text):
    s, f = text.split(".")
    return int(s) * 10**9 + int(f)


def span(ns):
    sign = "-" if ns < 0 else ""
    ns = abs(ns)
    s = ns // 10**9
    return "%s%02d:%02d:%02d.%09d" % (sign, s // 3600, s // 60 % 60, s % 60, ns % 10**9)


def main():
    exe, fixtures = sys.argv[1], sys.argv[2]
    errors = []

    def check(cond, what):
        print(("ok: " if cond else "FAIL: ") + what)
        if not cond:
            errors.append(what)

    mixed = os.path.join(fixtures, "mixed.pcap")
    plain = run(exe, mixed)
    js = [json.loads(l) for l in run(exe, mixed, "--json").splitlines()]
    lines = plain.splitlines()

    check(run(exe, "-r", mixed) == plain, "-r FILE equals FILE")
    check(run(exe, "-r", mixed, "--json") == run(exe, mixed, "--json"), "-r FILE equals FILE (--json)")
    check(run(exe, "-n", mixed) == plain and run(exe, "-nn", "-r", mixed) == plain,
          "-n and -nn change nothing")

    # a filter after the options, in words, is -f's expression
    f_opt = run(exe, mixed, "-f", "udp port 4791 and not ip6")
    check(f_opt and run(exe, mixed, "udp", "port", "4791", "and", "not", "ip6") == f_opt,
          "FILE EXPRESSION equals -f EXPRESSION")
    check(run(exe, "-r", mixed, "-c", "2", "udp", "port", "4791") ==
          "".join(f_opt.splitlines(True)[:2]), "-r FILE -c 2 EXPRESSION")

    # -#: the frame's number in the file, also when a filter skipped frames
    numbered = run(exe, "-#", mixed, "udp port 4791 and not ip6")
    want = [j["frame"] for j in map(json.loads, run(exe, "--json", mixed, "udp port 4791 and not ip6")
                                    .splitlines())]
    got = [int(l.split()[0]) for l in numbered.splitlines()]
    check(got == want and got != list(range(1, len(got) + 1)),
          "-# numbers frames by their place in the file")
    check([l.split(None, 1)[1] for l in numbered.splitlines()] == f_opt.splitlines(),
          "-# adds the number and nothing else")

    # the -t letters, from the --json timestamps
    ts = [ts_ns(j["ts"]) for j in js]
    rest = [l.split(" ", 1)[1] for l in lines]
    check(run(exe, "-t", mixed).splitlines() == rest, "-t: no timestamp")
    check(run(exe, "-tt", mixed) == plain, "-tt: seconds since the epoch, the default")
    delta = [span(t - p) for t, p in zip(ts, [ts[0]] + ts[:-1])]
    check(run(exe, "-ttt", mixed).splitlines() == [d + " " + r for d, r in zip(delta, rest)],
          "-ttt: time since the line before")
    first = [span(t - ts[0]) for t in ts]
    check(run(exe, "-ttttt", mixed).splitlines() == [d + " " + r for d, r in zip(first, rest)],
          "-ttttt: time since the first line")
    env = dict(os.environ, TZ="UTC")
    dated = []
    for t in ts:
        d = datetime.datetime.fromtimestamp(t // 10**9, datetime.timezone.utc)
        dated.append(d.strftime("%Y-%m-%d %H:%M:%S") + ".%09d" % (t % 10**9))
    check(run(exe, "-tttt", mixed, env=env).splitlines() == [d + " " + r for d, r in zip(dated, rest)],
          "-tttt: date and time of day (TZ=UTC)")
    res = subprocess.run([exe, "dissect", "-tttttt", mixed], capture_output=True, text=True)
    check(res.returncode == 2, "six t's are refused")

    raw = frames(mixed)
    # -x / -X: the hex lines are the frame's bytes, the ASCII column its printable ones
    for opt, ascii in (("-x", False), ("-X", True)):
        out = run(exe, opt, mixed).splitlines()
        dumps, cur = [], None
        for l in out:
            if l.startswith("\t0x"):
                m = re.match(r"\t0x([0-9a-f]{4}):  (.{39})(?:  (.*))?$" if ascii else
                             r"\t0x([0-9a-f]{4}):  (.*)$", l)
                assert m, l
                cur[0] += bytes.fromhex(m.group(2).replace(" ", ""))
                if ascii:
                    cur[1] += m.group(3)
            else:
                cur = [b"", ""]
                dumps.append(cur)
        check([d[0] for d in dumps] == [b for _, b in raw], f"{opt}: the bytes of every frame")
        if ascii:
            check([d[1] for d in dumps] ==
                  ["".join(chr(c) if 32 <= c < 127 else "." for c in b) for _, b in raw],
                  "-X: the printable bytes as ASCII")

    # -e: the MACs and Ethertype of the Ethernet header
    elines = run(exe, "-e", mixed).splitlines()
    ok = True
    for l, (_, b) in zip(elines, raw):
        mac = lambda m: ":".join("%02x" % c for c in m)
        et = struct.unpack_from(">H", b, 12)[0]
        if et in (0x8100, 0x88A8):
            et = struct.unpack_from(">H", b, 16)[0]
            if et == 0x8100:
                et = struct.unpack_from(">H", b, 20)[0]
        ok &= l.split()[1:5] == [mac(b[6:12]), ">", mac(b[0:6]), "ethertype=0x%04x" % et]
    check(ok and len(elines) == len(raw), "-e: source > destination MAC and Ethertype")

    # -v: TTL, IPv4 id and UDP ports of the IPv4 RoCE frames
    vlines = run(exe, "-v", mixed).splitlines()
    ok, n = True, 0
    for l, j, (_, b) in zip(vlines, js, raw):
        if j.get("kind") != "roce" or ":" in j.get("src", ":") or "vlan" in j:
            continue
        ip = 14
        ttl, ident = b[ip + 8], struct.unpack_from(">H", b, ip + 4)[0]
        ihl = (b[ip] & 15) * 4
        sport, dport = struct.unpack_from(">HH", b, ip + ihl)
        ok &= f" ttl={ttl} id=0x{ident:04x} udp={sport}>{dport} " in l
        ok &= f" opcode=0x{j['opcode']:02x} " in l
        n += 1
    check(ok and n > 3, f"-v: TTL, IPv4 id, UDP ports and opcode of {n} frames")

    # --flow: the frames whose source, destination and destination QP a selector names
    def key(j):
        return (j.get("src"), j.get("dst"), j.get("dest_qp"))
    roce = [j for j in js if "dest_qp" in j and "src" in j]
    k = key(roce[0])
    sel = "%s>%s:0x%x" % k
    got = [json.loads(l)["frame"] for l in run(exe, mixed, "--json", "--flow", sel).splitlines()]
    check(got == [j["frame"] for j in roce if key(j) == k] and got,
          f"--flow '{sel}': the frames of that flow")
    spaced = "%s > %s qp 0x%06x" % k
    check(run(exe, mixed, "--flow", spaced) == run(exe, mixed, "--flow", sel),
          "--flow takes the spelling dissect prints ('A > B qp 0x..')")
    # an id is the one analyze gives: the same frames as its selector
    rep = json.loads(subprocess.run([exe, "analyze", mixed, "--json"], capture_output=True,
                                    text=True).stdout)
    fl = rep["flows"][1]
    check(run(exe, mixed, "--flow", str(fl["id"])) == run(exe, mixed, "--flow", fl["selector"]),
          f"--flow {fl['id']} equals --flow '{fl['selector']}' (analyze's id and selector)")
    check(run(exe, mixed, "--flow", fl["selector"], "-c", "1").count("\n") == 1,
          "--flow with -c counts the selected frames")
    res = subprocess.run([exe, "dissect", mixed, "--flow", "10.0.0.1>"], capture_output=True,
                         text=True)
    check(res.returncode == 2 and res.stderr.count("\n") == 1, "a bad --flow is a usage error")

    if errors:
        print(f"{len(errors)} failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
