#!/usr/bin/python3
"""Runs tshark with the built rocetrace Wireshark plugin and checks its rocetrace.* fields.

Usage: tshark_plugin.py ROCETRACE PLUGIN.so|none FIXTURES_DIR SHARED_CAPTURES SCENARIOS_DIR
                        [ASAN_RUNTIME]

Over every fixture and bundled rxe capture, the fields must agree with
`rocetrace dissect --json` (kind, opcode name, CNP, FECN/BECN, ICRC status,
truncation) and the per-QP analysis with `rocetrace analyze --json` (flows
and their packets, retransmissions, PSN gaps, NAKs, CNPs per flow, PFC paused
time); CE->CNP links must follow the rule "a CNP answers the first CE-marked
frame of its flow since the flow's previous CNP". The delays the plugin adds (CE->CNP, ACK
round trips, resends), its Info column, its warnings and the CNP opcode's name are checked
against tshark's own decode and the scenario generator's truth (plugin_delays.py). Exits 77
(skip) when tshark
or the plugin is missing or tshark cannot be made to load a personal plugin.

Wireshark ignores personal plugins when run as root, so as root tshark runs
as nobody (setpriv) with a temporary HOME holding the plugin in
~/.local/lib/wireshark/plugins/4.0/epan/ and private copies of the captures.
"""

import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import plugin_delays  # noqa: E402
import wire_ref  # noqa: E402

NOBODY = 65534
PFC_FIELDS = ["rocetrace.pfc.paused_ns.p%d" % p for p in range(8)]
FIELDS = ["frame.number", "rocetrace.kind", "rocetrace.opcode_name", "rocetrace.cnp",
          "rocetrace.cnp.dest_qp", "rocetrace.fecn", "rocetrace.becn", "rocetrace.icrc.status",
          "rocetrace.truncated", "rocetrace.flow", "rocetrace.flow_id", "rocetrace.peer_flow_id",
          "rocetrace.ce", "rocetrace.psn_gap", "rocetrace.psn_jump", "rocetrace.retransmission",
          "rocetrace.retransmission.nak_frame", "rocetrace.duplicate", "rocetrace.copy_of", "rocetrace.nak",
          "rocetrace.rnr_nak", "rocetrace.cnp_for_frame", "rocetrace.cnp_frame",
          "rocetrace.pause.paused_ns"] + PFC_FIELDS + ["_ws.expert.message"] + [
          # the delays (checked against tshark's own timestamps, PSNs and flags)
          "frame.time_epoch", "infiniband.bth.psn", "infiniband.bth.a", "infiniband.bth.destqp",
          "infiniband.bth.opcode", "rocetrace.cnp.delay_ns", "rocetrace.ack_rtt_ns",
          "rocetrace.ack_rtt.request_frame", "rocetrace.retransmission.resend_of",
          "rocetrace.retransmission.after_ns", "rocetrace.retransmission.wait_ns", "_ws.col.Info",
          "_ws.expert.severity"]
PI_WARN = "6291456"  # the severity of a warning in Wireshark's Expert Info

failures = []


def fail(capture, msg):
    failures.append("%s: %s" % (os.path.basename(capture), msg))


def skip(msg):
    print("SKIP: " + msg)
    sys.exit(77)


class Tshark:
    """tshark with the plugin installed as a personal plugin of a temporary HOME."""

    def __init__(self, plugin, preload):
        self.tmp = tempfile.mkdtemp(prefix="rt-plugin-")
        os.chmod(self.tmp, 0o755)
        self.home = os.path.join(self.tmp, "home")
        pdir = os.path.join(self.home, ".local/lib/wireshark/plugins/4.0/epan")
        os.makedirs(pdir)
        self.plugin = os.path.join(pdir, "rocetrace.so")
        shutil.copy(plugin, self.plugin)
        for root, dirs, files in os.walk(self.tmp):
            for d in dirs:
                os.chmod(os.path.join(root, d), 0o755)
            for f in files:
                os.chmod(os.path.join(root, f), 0o644)
        self.prefix = []
        if os.geteuid() == 0:
            setpriv = shutil.which("setpriv")
            if not setpriv:
                self.close()
                skip("running as root, Wireshark ignores personal plugins, and setpriv is missing")
            self.prefix = [setpriv, "--reuid=%d" % NOBODY, "--regid=%d" % NOBODY, "--clear-groups"]
        noext = os.path.join(self.tmp, "extcap")
        os.mkdir(noext, 0o755)
        # an empty extcap folder: tshark then starts no extcap helpers (which hang under ASan)
        self.env = dict(os.environ, HOME=self.home, XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
                        WIRESHARK_EXTCAP_DIR=noext)
        if preload:
            # an ASan build: the runtime must come first; tshark's own leaks are not ours
            self.env["LD_PRELOAD"] = preload
            self.env["ASAN_OPTIONS"] = "detect_leaks=0"
            self.env["UBSAN_OPTIONS"] = "halt_on_error=1:print_stacktrace=1"
        self.copies = {}

    def close(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def loads_plugin(self):
        out = subprocess.run(self.prefix + ["tshark", "-G", "plugins"], env=self.env,
                             capture_output=True, text=True, timeout=60)
        return self.plugin in out.stdout, out.stdout + out.stderr

    def _copy(self, capture):
        if capture not in self.copies:
            dst = os.path.join(self.tmp, "%d-%s" % (len(self.copies), os.path.basename(capture)))
            shutil.copy(capture, dst)
            os.chmod(dst, 0o644)
            self.copies[capture] = dst
        return self.copies[capture]

    def text(self, capture, *args):
        """tshark's plain output of the capture with these arguments."""
        out = subprocess.run(self.prefix + ["tshark", "-n", "-r", self._copy(capture)] + list(args),
                             env=self.env, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError("tshark failed on %s: %s" % (capture, out.stderr.strip()))
        return out.stdout

    def fields(self, capture, extra=(), two_pass=True):
        """One dict per frame: field name -> text ('' when absent)."""
        cmd = self.prefix + ["tshark", "-n", "-r", self._copy(capture)] + (["-2"] if two_pass else [])
        cmd += list(extra) + ["-T", "fields", "-E", "header=n", "-E", "occurrence=a",
                              "-E", "aggregator=|", "-E", "quote=n"]
        for f in FIELDS:
            cmd += ["-e", f]
        out = subprocess.run(cmd, env=self.env, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise RuntimeError("tshark failed on %s: %s" % (capture, out.stderr.strip()))
        rows = []
        for line in out.stdout.splitlines():
            vals = line.split("\t")
            rows.append(dict(zip(FIELDS, vals + [""] * (len(FIELDS) - len(vals)))))
        return rows


def rocetrace_json(exe, sub, capture, *args):
    out = subprocess.run([exe, sub, "--json", *args, capture], capture_output=True, text=True,
                         timeout=120)
    if out.returncode != 0:
        raise RuntimeError("rocetrace %s failed on %s: %s" % (sub, capture, out.stderr.strip()))
    if sub == "dissect":
        return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    return json.loads(out.stdout)


def flag(v):
    return "1" if v else "0"


def check_dissect(capture, rows, frames):
    """Per-frame decode fields against `rocetrace dissect --json`."""
    if len(rows) != len(frames):
        fail(capture, "tshark gave %d frames, rocetrace %d" % (len(rows), len(frames)))
        return
    for t, j in zip(rows, frames):
        n = j["frame"]
        if t["frame.number"] != str(n):
            fail(capture, "frame order differs at %d" % n)
            return
        if j["kind"] == "other":
            if t["rocetrace.kind"]:
                fail(capture, "frame %d: kind %s where rocetrace says other" % (n, t["rocetrace.kind"]))
            continue
        want = {"rocetrace.kind": j["kind"], "rocetrace.truncated": flag(j["truncated"])}
        if "opcode" in j:
            want["rocetrace.opcode_name"] = j.get("opcode_name", "")
            want["rocetrace.fecn"] = flag(j["fecn"])
            want["rocetrace.becn"] = flag(j["becn"])
        if j["kind"] in ("roce", "cnp"):
            want["rocetrace.icrc.status"] = j.get("icrc", "")
        if j["kind"] == "cnp" and "dest_qp" in j:
            want["rocetrace.cnp"] = "1"
            want["rocetrace.cnp.dest_qp"] = str(j["dest_qp"])
        for k, v in want.items():
            if t[k] != v:
                fail(capture, "frame %d: %s is %r, rocetrace dissect says %r" % (n, k, t[k], v))
        bad_msg = "Bad ICRC" in t["_ws.expert.message"]
        if bad_msg != (j.get("icrc") == "bad"):
            fail(capture, "frame %d: bad-ICRC expert info %s, icrc %s" % (n, bad_msg, j.get("icrc")))


def num(s):
    return int(s) if s else 0


def flow_text(f):
    return "%s > %s QP 0x%06x" % (f["src"], f["dst"], f["dest_qp"])


def check_analysis(capture, rows, frames, an):
    """Per-QP annotations against `rocetrace analyze --json`; returns the CE->CNP links seen."""
    flows = {}
    tot = {"retransmitted": 0, "gaps": 0, "gap_psns": 0, "psn_jumps": 0, "nak": 0, "rnr_nak": 0, "cnp": 0}
    for t, j in zip(rows, frames):
        if not t["rocetrace.flow_id"]:
            if "opcode" in j and j["kind"] in ("roce", "cnp"):
                fail(capture, "frame %d: RoCE frame without a flow id" % j["frame"])
            continue
        f = flows.setdefault(int(t["rocetrace.flow_id"]), {
            "flow": t["rocetrace.flow"], "packets": 0, "retransmitted": 0,
            "cnp_received": 0, "naks_received": 0})
        if t["rocetrace.copy_of"]:
            # a copy of a packet already counted (analyze's "duplicates"): it counts nowhere
            if int(t["rocetrace.copy_of"]) >= j["frame"] or \
                    rows[int(t["rocetrace.copy_of"]) - 1]["rocetrace.flow_id"] != t["rocetrace.flow_id"]:
                fail(capture, "frame %d: copy of frame %s of another flow" % (j["frame"], t["rocetrace.copy_of"]))
            tot["copies"] = tot.get("copies", 0) + 1
            continue
        f["packets"] += 1
        if f["flow"] != t["rocetrace.flow"]:
            fail(capture, "frame %d: flow %s named %s and %s" % (j["frame"], t["rocetrace.flow_id"],
                                                               f["flow"], t["rocetrace.flow"]))
        peer = t["rocetrace.peer_flow_id"]
        if t["rocetrace.retransmission"] == "1":
            f["retransmitted"] += 1
            tot["retransmitted"] += 1
            nak = t["rocetrace.retransmission.nak_frame"]
            if nak and not (rows[int(nak) - 1]["rocetrace.nak"] or rows[int(nak) - 1]["rocetrace.rnr_nak"]):
                fail(capture, "frame %d: resent after frame %s, which is no NAK" % (j["frame"], nak))
        if t["rocetrace.psn_gap"]:
            tot["gaps"] += 1
            tot["gap_psns"] += int(t["rocetrace.psn_gap"])
        if t["rocetrace.psn_jump"] == "1":
            tot["psn_jumps"] += 1
        if t["rocetrace.nak"]:
            tot["nak"] += 1
            if peer:
                flows.setdefault(int(peer), {"flow": None, "packets": 0, "retransmitted": 0,
                                             "cnp_received": 0, "naks_received": 0})["naks_received"] += 1
        if t["rocetrace.rnr_nak"]:
            tot["rnr_nak"] += 1
        if t["rocetrace.kind"] == "cnp":
            tot["cnp"] += 1
            if peer:
                flows.setdefault(int(peer), {"flow": None, "packets": 0, "retransmitted": 0,
                                             "cnp_received": 0, "naks_received": 0})["cnp_received"] += 1
    for k, v in tot.items():
        if k in an["totals"] and an["totals"][k] != v:
            fail(capture, "total %s: plugin %d, rocetrace analyze %d" % (k, v, an["totals"][k]))
    if tot.get("copies", 0) != (an.get("duplicates") or {}).get("packets", 0):
        fail(capture, "copies: plugin %d, rocetrace analyze %r" % (tot.get("copies", 0), an.get("duplicates")))
    listed = {f["id"]: f for f in an["flows"] if f.get("packets")}
    if set(listed) != {i for i, f in flows.items() if f["packets"]}:
        fail(capture, "flow ids: plugin %s, rocetrace analyze %s" % (sorted(flows), sorted(listed)))
        return
    for i, f in listed.items():
        mine = flows[i]
        if mine["flow"] != flow_text(f):
            fail(capture, "flow %d is %s, rocetrace analyze says %s" % (i, mine["flow"], flow_text(f)))
        for k in ("packets", "retransmitted", "cnp_received", "naks_received"):
            if mine[k] != f[k]:
                fail(capture, "flow %d %s: plugin %d, rocetrace analyze %d" % (i, k, mine[k], f[k]))


def check_ce_cnp(capture, rows, frames, an):
    """A CNP names a CE-marked frame (not a CNP; a copy only when its mark was counted there) of
    the flow it throttles, sent before it, and that frame names the CNP (the last one, when an NP reaction estimate let two CNPs answer
    one mark); per flow, no more CNPs name a frame than the analyzer has NP reaction samples."""
    ce_flow = {}  # CE-marked frame -> its flow id
    named_by = {}  # CE-marked frame -> the last CNP naming it
    links = {}  # flow id -> CNPs naming a frame
    for t, j in zip(rows, frames):
        n = j["frame"]
        fid = t["rocetrace.flow_id"]
        if not fid:
            continue
        if j["kind"] == "cnp":
            got = t["rocetrace.cnp_for_frame"]
            if not got:
                continue
            peer = t["rocetrace.peer_flow_id"]
            if int(got) >= n or ce_flow.get(int(got)) != peer:
                fail(capture, "frame %d: CNP for frame %s, not an earlier CE-marked frame of flow %s"
                     % (n, got, peer))
            named_by[int(got)] = n
            links[peer] = links.get(peer, 0) + 1
        elif t["rocetrace.copy_of"]:
            # a copy counts only a CE mark its packet picked up on the way
            if t["rocetrace.ce"] == "1":
                ce_flow[n] = fid
        elif j.get("ecn") == 3 and not j.get("rocev1"):
            if t["rocetrace.ce"] != "1":
                fail(capture, "frame %d: CE-marked, rocetrace.ce is %r" % (n, t["rocetrace.ce"]))
            ce_flow[n] = fid
    for i, t in enumerate(rows):
        named = str(named_by[i + 1]) if i + 1 in named_by else ""
        if t["rocetrace.cnp_frame"] != named:
            fail(capture, "frame %d names CNP %r, the CNP naming it is %r"
                 % (i + 1, t["rocetrace.cnp_frame"], named))
    for f in an["flows"]:
        samples = (f["np_reaction_ns"] or {}).get("samples", 0)
        if links.get(str(f["id"]), 0) > samples:
            fail(capture, "flow %d: %d CNPs name a CE-marked frame, rocetrace analyze has %d NP samples"
                 % (f["id"], links.get(str(f["id"]), 0), samples))
    return sum(links.values())


def check_pfc(capture, rows, an):
    """Paused time per priority summed over frames equals the analyzer's."""
    pr = an.get("pfc", {}).get("priorities", {})
    for p in range(8):
        mine = sum(num(t[PFC_FIELDS[p]]) for t in rows)
        theirs = pr.get(str(p), {}).get("paused_ns", 0)
        if mine != theirs:
            fail(capture, "priority %d paused %d ns, rocetrace analyze %d" % (p, mine, theirs))
    mine = sum(num(t["rocetrace.pause.paused_ns"]) for t in rows)
    theirs = sum(s["paused_ns"] for s in an.get("pfc", {}).get("sources", []) if s.get("priority") == "pause")
    if mine != theirs:
        fail(capture, "PAUSE paused %d ns, rocetrace analyze %d" % (mine, theirs))
    return sum(1 for t in rows if any(t[f] for f in PFC_FIELDS))


def uc_duplicate(path):
    """Three UC SEND only packets, the last one the second's PSN again (1 ms later: no copy)."""
    with open(path, "wb") as out:
        out.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for k, psn in enumerate((5, 6, 6)):
            bth = struct.pack(">BBHII", 0x24, 0x40, 0xFFFF, 0x11, psn)
            udp = struct.pack(">HHHH", 49152, 4791, 8 + len(bth) + 32 + 4, 0) + bth + bytes(32)
            ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0x02, 20 + len(udp) + 4, k, 0x4000, 64, 17, 0,
                             bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2])) + udp + bytes(4)
            ip = ip[:-4] + struct.pack("<I", wire_ref.rocev2_icrc(ip))
            frame = b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip
            out.write(struct.pack("<IIII", 1700000000, k * 10**6, len(frame), len(frame)) + frame)


def check_extras(ts, exe, fixtures, scenarios):
    """The delays against each scenario's truth; a UC duplicate's warning; the CNP opcode's name."""
    counts = {}
    for name in ("incast", "np_limited", "dcqcn", "nak_gbn", "rnr", "read_atomic"):
        cap = os.path.join(scenarios, name + ".pcap")
        with open(os.path.join(scenarios, name + ".truth.json")) as f:
            truth = json.load(f)
        an = rocetrace_json(exe, "analyze", cap)
        rows = ts.fields(cap)
        for k, v in plugin_delays.check(rows, lambda m, c=cap: fail(c, m), truth, an["flows"]).items():
            counts[k] = counts.get(k, 0) + v
    with tempfile.TemporaryDirectory() as tmp:
        cap = os.path.join(tmp, "uc_duplicate.pcap")
        uc_duplicate(cap)
        rows = ts.fields(cap)
        dup = [t for t in rows if t["rocetrace.duplicate"] == "1"]
        if [t["frame.number"] for t in dup] != ["3"] or \
                not plugin_delays.check(rows, lambda m: fail(cap, m))["warnings"] or \
                "[duplicate PSN]" not in dup[0]["_ws.col.Info"]:
            fail(cap, "the repeated UC PSN is not a duplicate with a warning (%r)" % dup)
    # Wireshark 4.0 names the CNP opcode "Unknown (129)": the plugin names it
    cap = os.path.join(fixtures, "ecn_cnp.pcap")
    cnps = ts.text(cap, "-Y", "infiniband.bth.opcode == 0x81", "-T", "fields", "-e", "frame.number")
    named = ts.text(cap, "-Y", "infiniband.bth.opcode == 0x81", "-O", "infiniband")
    if not cnps.split() or named.count("Opcode: CNP, RoCEv2 congestion notification (129)") != \
            len(cnps.split()) or "Unknown (129)" in named:
        fail(cap, "the CNP opcode is not named on its %d frames" % len(cnps.split()))
    return counts


def main():
    if len(sys.argv) not in (6, 7):
        print(__doc__, file=sys.stderr)
        return 2
    exe, plugin, fixtures, rxe, scenarios = sys.argv[1:6]
    preload = sys.argv[6] if len(sys.argv) == 7 else ""
    if plugin == "none" or not os.path.exists(plugin):
        skip("the Wireshark plugin was not built (libwireshark-dev missing or -Dwireshark=disabled)")
    if not shutil.which("tshark"):
        skip("tshark is not installed")
    ver = subprocess.run(["tshark", "--version"], capture_output=True, text=True).stdout.split()
    if len(ver) < 3 or not ver[2].startswith("4.0."):
        skip("tshark %s is not 4.0, the version the plugin is built for" % (ver[2] if len(ver) > 2 else "?"))
    ts = Tshark(plugin, preload)
    try:
        ok, text = ts.loads_plugin()
        if not ok:
            print("FAIL: tshark does not load %s:\n%s" % (plugin, text))
            return 1
        captures = sorted(glob.glob(os.path.join(fixtures, "*.pcap")) + glob.glob(os.path.join(fixtures, "*.pcapng")))
        rxe_caps = sorted(glob.glob(os.path.join(rxe, "*.pcap")))
        if not rxe_caps:
            print("FAIL: no rxe captures in %s" % rxe)
            return 1
        ce_links = {}
        pfc_frames = 0
        delays = {}
        for cap in captures + rxe_caps:
            frames = rocetrace_json(exe, "dissect", cap)
            rows = ts.fields(cap)
            check_dissect(cap, rows, frames)
            an = rocetrace_json(exe, "analyze", cap)
            check_analysis(cap, rows, frames, an)
            ce_links[os.path.basename(cap)] = check_ce_cnp(cap, rows, frames, an)
            for k, v in plugin_delays.check(rows, lambda m, c=cap: fail(c, m)).items():
                delays[k] = delays.get(k, 0) + v
            pfc_frames += check_pfc(cap, rows, an)
            if cap in rxe_caps:
                roce = [j for j in frames if j["kind"] == "roce"]
                if not roce or any(j.get("icrc") != "ok" for j in roce):
                    fail(cap, "expected RoCE frames with ICRC ok only")
        # CE->CNP links and PFC time must actually be exercised
        if not ce_links.get("ecn_cnp.pcap"):
            fail("ecn_cnp.pcap", "no CE->CNP link found")
        if not pfc_frames:
            fail("pfc_pause.pcap", "no PFC paused time found")
        # single pass: a CNP still names its CE-marked frame (the reverse link needs -2)
        cap = os.path.join(fixtures, "ecn_cnp.pcap")
        one = ts.fields(cap, two_pass=False)
        two = ts.fields(cap)
        if [t["rocetrace.cnp_for_frame"] for t in one] != [t["rocetrace.cnp_for_frame"] for t in two]:
            fail(cap, "single-pass cnp_for_frame differs from two-pass")
        # preferences: link speed, UDP port and ICRC verification
        cap = os.path.join(fixtures, "pfc_pause.pcap")
        check_pfc(cap + " @25G", ts.fields(cap, ["-o", "rocetrace.link_speed_gbps:25"]),
                  rocetrace_json(exe, "analyze", cap, "--link-speed", "25G"))
        cap = os.path.join(fixtures, "noise.pcap")
        check_dissect(cap + " (port 4792)", ts.fields(cap, ["-o", "rocetrace.udp_port:4792"]),
                      rocetrace_json(exe, "dissect", cap, "--udp-port", "4792"))
        cap = os.path.join(fixtures, "icrc_bad.pcap")
        check_dissect(cap + " (no ICRC)", ts.fields(cap, ["-o", "rocetrace.verify_icrc:FALSE"]),
                      rocetrace_json(exe, "dissect", cap, "--no-icrc"))
        bad = [j["frame"] for j in rocetrace_json(exe, "dissect", cap) if j.get("icrc") == "bad"]
        if not bad:
            fail(cap, "the bad-ICRC fixture has no bad ICRC")
        for k, v in check_extras(ts, exe, fixtures, scenarios).items():
            delays[k] = delays.get(k, 0) + v
        # every delay must actually be checked
        for k, v in delays.items():
            if not v:
                fail("the captures", "no %s delay or warning was checked" % k)
    finally:
        ts.close()
    for f in failures:
        print("FAIL: " + f)
    if failures:
        return 1
    print("ok: %d captures, CE->CNP links %s, PFC frames %d, bad ICRC frames %s, checked %s" % (
        len(captures) + len(rxe_caps), {k: v for k, v in ce_links.items() if v}, pfc_frames, bad,
        delays))
    return 0


if __name__ == "__main__":
    sys.exit(main())
