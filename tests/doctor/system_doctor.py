#!/usr/bin/python3
"""System test of `rocetrace doctor`: the real binary on the mlx5 sysfs fixtures, with stub dcb/mlnx_qos/lldptool
printing recorded output, checked for verdicts, texts, JSON and exit codes; --traffic against saved captures,
checked against their scapy-built truth.

Usage: system_doctor.py ROCETRACE SYSFS_FIXTURES RECORDINGS CAPTURE_FIXTURES

As root the runs happen inside a network namespace holding a dummy netdev named
like the fixture's (ens1f0np0, with 192.0.2.10/24 and 2001:db8::10/64), so the
GID check sees real addresses; without root the GID check has no addresses and
must say it could not check.
"""
import json
import re
import os
import shutil
import subprocess
import sys
import tempfile
import time

RT, SYSFS, REC, CAPS = sys.argv[1:5]
NETDEV = "ens1f0np0"
failures = []
temp_dirs = []


def temp_dir(prefix):
    d = tempfile.mkdtemp(prefix=prefix)
    temp_dirs.append(d)
    return d


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def make_tools(spec):
    """A tools folder of stub scripts: {tool: {key: (recording, exit)}}; each logs how it was called."""
    d = temp_dir("rt-doctor-tools-")
    log = os.path.join(d, "calls.log")
    for tool, answers in spec.items():
        lines = ["#!/bin/sh", f'echo "{tool} $*" >> {log}', 'case "$*" in']
        for key, (rec, code) in answers.items():
            pattern = {"pfc": "pfc\\ show\\ dev\\ *", "app": "-N\\ app\\ show\\ dev\\ *",
                       "qos": "-i\\ *", "local": "-t\\ -i\\ *", "peer": "-t\\ -n\\ -i\\ *"}[key]
            stream = ">&2" if rec.endswith(".err") else ""
            lines.append(f"  {pattern}) cat {os.path.join(REC, rec)} {stream}; exit {code} ;;")
        lines += ["esac", 'echo "stub: unexpected arguments: $*" >&2', "exit 64"]
        path = os.path.join(d, tool)
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        os.chmod(path, 0o755)
    return d


DCB_GOOD = {"dcb": {"pfc": ("dcb_pfc_on3.txt", 0), "app": ("dcb_app_default.txt", 0)},
            "lldptool": {"peer": ("lldptool_pfc_on3.txt", 0)}}

def make_namespace():
    """A namespace with a veth named like the fixture's netdev, holding the fixture's addresses; None without root."""
    if os.geteuid() != 0 or not shutil.which("ip"):
        return None
    name = f"rtdoc{os.getpid()}"
    if subprocess.run(["ip", "netns", "add", name], capture_output=True).returncode != 0:
        return None
    try:
        for cmd in (["link", "add", NETDEV, "type", "veth", "peer", "name", "rtdocpeer"],
                    ["addr", "add", "192.0.2.10/24", "dev", NETDEV],
                    ["addr", "add", "2001:db8::10/64", "dev", NETDEV, "nodad"],
                    ["link", "set", NETDEV, "up"]):
            subprocess.run(["ip", "-n", name] + cmd, check=True)
    except subprocess.CalledProcessError:
        subprocess.run(["ip", "netns", "del", name])
        raise
    return name


ns = make_namespace()
print("addresses from:", f"network namespace {ns}" if ns else "none (not root): GID checks cannot see addresses")


def run(args, tools=None, tree="good", json_out=False, prefix=True):
    cmd = [RT, "doctor", "--interval", "0.05"]
    if tree:
        cmd += ["--sysfs-root", os.path.join(SYSFS, tree)]
    if tools is not None:
        cmd += ["--tools-dir", tools]
    cmd += (["--json"] if json_out else []) + args
    if ns and prefix:
        cmd = ["ip", "netns", "exec", ns] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def doctor(args, tools, tree, expect_exit, statuses, texts=(), absent=()):
    """Run text and JSON mode; check the exit codes, statuses by check, texts and absent checks."""
    label = f"{tree} {' '.join(args)}".strip()
    t = run(args, tools, tree)
    j = run(args, tools, tree, json_out=True)
    check(t.returncode == expect_exit, f"{label}: text exit {t.returncode} == {expect_exit} {t.stderr.strip()}")
    check(j.returncode == expect_exit, f"{label}: json exit {j.returncode} == {expect_exit}")
    try:
        doc = json.loads(j.stdout)
    except ValueError as e:
        check(False, f"{label}: JSON parses ({e}): {j.stdout[:200]!r}")
        return None, t.stdout
    check(j.stdout.count("\n") == 1, f"{label}: JSON is one line")
    checks = doc["targets"][0]["checks"] if doc["targets"] else {}
    for name, want in statuses.items():
        got = checks.get(name, {}).get("status")
        check(got == want, f"{label}: {name} is {got}, expected {want} ({checks.get(name, {}).get('value')})")
        word = {"pass": "pass", "warn": "warn", "fail": "FAIL", "unchecked": "----"}[want]
        check(any(line.split()[:2] == [word, name] for line in t.stdout.splitlines() if line.strip()),
              f"{label}: text line '{word}  {name}'")
    # lines wrapped at 100 columns read as one: a command's " \\" breaks, then the others
    whole = re.sub(r"\n +", " ", re.sub(r" \\\n +", " ", t.stdout))
    check(all(len(line) <= 100 for line in t.stdout.splitlines()), f"{label}: lines of 100 columns")
    for s in texts:
        check(s in whole, f"{label}: text holds {s!r}")
    for name in absent:
        check(name not in checks, f"{label}: no {name} check")
    counts = {s: 0 for s in ("pass", "warn", "fail", "unchecked")}
    for tg in doc["targets"]:
        for c in tg["checks"].values():
            counts[c["status"]] += 1
            check(set(c) == {"status", "value", "expected", "fix", "note"}, f"{label}: check keys")
    check(doc["summary"] == counts, f"{label}: summary {doc['summary']} counts the checks")
    check(doc["verdict"] == ("fail" if counts["fail"] else "warn" if counts["warn"] else "pass"),
          f"{label}: verdict {doc['verdict']}")
    return doc, t.stdout


def all_pass_but(doc, allowed):
    if not doc:
        return
    bad = {n: c["status"] for n, c in doc["targets"][0]["checks"].items()
           if c["status"] != "pass" and n not in allowed}
    check(not bad, f"everything else passes: {bad}")


try:
    tools = make_tools(DCB_GOOD)
    gid = "pass" if ns else "unchecked"

    # the correct host
    doc, text = doctor([], tools, "good", 0,
                       {"link.state": "pass", "mtu": "pass", "gid.roce_v2": gid, "gid.index": "pass",
                        "ecn.np": "pass", "ecn.rp": "pass", "ecn.cnp": "pass", "pfc.enabled": "pass",
                        "pfc.trust": "pass", "pfc.dscp_map": "pass", "pfc.peer": "pass",
                        "rdma_cm.tos": "pass", "rdma_cm.mode": "pass", "counters.cnp_sent": "pass"},
                       ["mlx5_0 port 1 (netdev ens1f0np0)", "pass it to perftest as -x 3 and to NCCL as NCCL_IB_GID_INDEX=3",
                        "ready for lossless RoCE"])
    all_pass_but(doc, {"gid.roce_v2", "counters.pfc_pause"})
    if doc:
        tg = doc["targets"][0]
        check((tg["device"], tg["port"], tg["netdev"], tg["gid_index"]) == ("mlx5_0", 1, NETDEV, 3),
              f"good: target {tg['device']}:{tg['port']} {tg['netdev']} gid_index {tg['gid_index']}")
        check(doc["priority"] == 3 and doc["dscp"] == 26, "good: priority 3, DSCP 26")
    calls = open(os.path.join(tools, "calls.log")).read().splitlines()
    check(f"dcb pfc show dev {NETDEV}" in calls and f"dcb -N app show dev {NETDEV} dscp-prio" in calls
          and f"lldptool -t -n -i {NETDEV} -V PFC" in calls, f"tools called as documented: {calls[:4]}")

    # one thing broken at a time
    doctor([], tools, "mtu1500", 1, {"mtu": "fail"},
           ["FAIL  mtu", "netdev MTU 1500 -> RoCE MTU 1024",
            "expected: RoCE MTU 4096: netdev MTU >= 4192", "fix: ip link set dev ens1f0np0 mtu 4200",
            "NOT READY"])
    doctor([], tools, "np_off", 1, {"ecn.np": "fail", "ecn.rp": "pass"},
           ["disabled on priority 3 (enabled on: 0,1,2,4,5,6,7)",
            "fix: echo 1 > /sys/class/net/ens1f0np0/ecn/roce_np/enable/3"])
    doctor([], tools, "rp_off", 1, {"ecn.rp": "fail", "ecn.np": "pass"},
           ["fix: echo 1 > /sys/class/net/ens1f0np0/ecn/roce_rp/enable/3"])
    doctor([], tools, "no_v2_gid", 1 if ns else 0,
           {"gid.roce_v2": "fail" if ns else "unchecked", "gid.index": "pass"},
           ["no RoCE v2 GID for 192.0.2.10 (RoCE v1 only)", "ip address add 192.0.2.10/24 dev ens1f0np0"]
           if ns else ["could not check: no netdev ens1f0np0 in this network namespace"])
    doctor([], tools, "port_down", 1, {"link.state": "fail", "link.netdev": "fail"},
           ["DOWN (phys_state Disabled)", "fix: ip link set dev ens1f0np0 up", "ens1f0np0 down"])
    pfc_off = make_tools({"dcb": {"pfc": ("dcb_pfc_off.txt", 0), "app": ("dcb_app_default.txt", 0)},
                          "lldptool": {"peer": ("lldptool_pfc_none.txt", 0)}})
    doctor([], pfc_off, "good", 1, {"pfc.enabled": "fail", "pfc.peer": "fail"},
           ["PFC off for priority 3 (enabled on: none; dcb pfc show)",
            "fix: dcb pfc set dev ens1f0np0 prio-pfc 3:on (or: mlnx_qos -i ens1f0np0 --pfc 0,0,0,1,0,0,0,0)",
            "the link partner has PFC on: none"])
    doctor([], tools, "trust_pcp", 0, {"pfc.trust": "warn"},
           ["pcp (sysfs qos/trust), RoCE runs untagged", "fix: mlnx_qos -i ens1f0np0 --trust dscp"],
           absent=["pfc.dscp_map"])
    doctor([], tools, "tos_default", 0, {"rdma_cm.tos": "warn"},
           ["ToS 0 (DSCP 0 -> priority 0), the default",
            "mkdir -p /sys/kernel/config/rdma_cm/mlx5_0 && echo 106 > /sys/kernel/config/rdma_cm/mlx5_0/ports/1/default_roce_tos"],
           absent=["rdma_cm.mode"])
    # another RoCE priority and DSCP: the same host is now wrong
    doctor(["--priority", "5", "--dscp", "40"], tools, "good", 1,
           {"pfc.enabled": "fail", "pfc.dscp_map": "pass", "rdma_cm.tos": "fail", "ecn.np": "pass"},
           ["PFC off for priority 5", "DSCP 40 -> priority 5"])

    # the tools: absent is "could not check", never a failure; each one alone is enough
    empty = temp_dir("rt-doctor-notools-")
    doc, _ = doctor(["--no-netlink"], empty, "good", 0,
                    {"pfc.enabled": "unchecked", "pfc.trust": "unchecked", "pfc.peer": "unchecked"},
                    ["could not check: dcb: not installed; mlnx_qos: not installed; lldptool: not installed",
                     "could not check: lldptool: not installed"])
    mq = make_tools({"mlnx_qos": {"qos": ("mlnx_qos_dscp_pfc3.txt", 0)}})
    doctor([], mq, "good", 0, {"pfc.enabled": "pass", "pfc.trust": "pass", "pfc.dscp_map": "pass"},
           ["(enabled on: 3; mlnx_qos)", "dscp (mlnx_qos)"])
    mq_old = make_tools({"mlnx_qos": {"qos": ("mlnx_qos_pcp_old.txt", 0)}})
    doctor([], mq_old, "good", 1, {"pfc.enabled": "fail", "pfc.trust": "warn"},
           ["PFC off for priority 3 (enabled on: 0,2,6,7; mlnx_qos)"])
    unsupported = make_tools({"dcb": {"pfc": ("dcb_unsupported.err", 1), "app": ("dcb_unsupported.err", 1)},
                              "lldptool": {"local": ("lldptool_pfc_on3.txt", 0), "peer": ("lldptool_pfc_137.txt", 0)}})
    doctor([], unsupported, "good", 0, {"pfc.enabled": "pass", "pfc.peer": "pass", "pfc.trust": "unchecked"},
           ["(enabled on: 3; lldptool)", "dcb: Attribute read: Operation not supported (exit 1)",
            "the link partner has PFC on: 1,3,7"])

    # naming what to check
    for name in ("mlx5_0", "mlx5_0:1", NETDEV):
        r = run([name, "--json"], tools)
        d = json.loads(r.stdout) if r.stdout else {"targets": []}
        check(r.returncode == 0 and len(d["targets"]) == 1 and d["targets"][0]["device"] == "mlx5_0",
              f"target {name}: one port, mlx5_0")
    r = run(["mlx5_0:2"], tools)
    check(r.returncode == 1 and "mlx5_0 has no port 2" in r.stderr, f"mlx5_0:2: exit 1, {r.stderr.strip()}")
    r = run(["nosuch0"], tools)
    check(r.returncode == 1 and r.stderr.startswith("rocetrace doctor: 'nosuch0' is neither an RDMA device")
          and r.stderr.count("\n") == 1, f"unknown name: one line, exit 1: {r.stderr.strip()}")
    for bad in (["--priority", "8"], ["--dscp", "64"], ["--mtu", "1500"], ["--bogus"], ["--interval"],
                ["--capture-from", "x.pcap"], ["--launcher", "ssh"], ["--speed", "fast"]):
        r = run(bad, tools)
        check(r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("rocetrace doctor: "),
              f"usage error {bad}: exit {r.returncode}, {r.stderr.strip()}")
    r = subprocess.run([RT, "doctor", "--help"], capture_output=True, text=True)
    check(r.returncode == 0 and "EXAMPLES" in r.stdout and "%%" not in r.stdout, "--help")

    # no RDMA device: said plainly, the Ethernet netdevs that are up still checked
    bare = temp_dir("rt-doctor-bare-")
    for nd, files in {"eth9": {"type": "1", "flags": "0x1003", "mtu": "9000", "operstate": "up",
                               "speed": "25000"},
                      "down0": {"type": "1", "flags": "0x1002", "mtu": "1500", "operstate": "down"},
                      "ib9": {"type": "32", "flags": "0x1003", "mtu": "4092", "operstate": "up"}}.items():
        os.makedirs(os.path.join(bare, "class/net", nd))
        for k, v in files.items():
            with open(os.path.join(bare, "class/net", nd, k), "w") as f:
                f.write(v + "\n")
    r = subprocess.run([RT, "doctor", "--sysfs-root", bare, "--tools-dir", empty, "--interval", "0", "--json"],
                       capture_output=True, text=True)
    d = json.loads(r.stdout)
    check(any("no RDMA device on this host" in n for n in d["notes"]), f"no RDMA: note {d['notes']}")
    check(any("administratively down: down0" in n for n in d["notes"]), "no RDMA: down netdevs named")
    check([t["netdev"] for t in d["targets"]] == ["eth9"] and d["targets"][0]["device"] is None,
          f"no RDMA: checks eth9 only ({[t['netdev'] for t in d['targets']]})")
    c = d["targets"][0]["checks"]
    check(c["mtu"]["status"] == "pass" and c["link.speed"]["value"] == "25 Gb/s"
          and "gid.index" not in c and r.returncode == 0, f"no RDMA: eth9 judged, exit {r.returncode}")
    r = subprocess.run([RT, "doctor", "--sysfs-root", bare, "--tools-dir", empty, "--interval", "0"],
                       capture_output=True, text=True)
    check("note: no RDMA device on this host" in r.stdout and "netdev eth9 (no RDMA port)" in r.stdout,
          "no RDMA: said plainly in text")

    # --prolog: nothing and exit 0 when ready, one line naming the failed checks and exit 1 when not,
    # in under 2 s; a tool that hangs gets what is left of the budget
    def prolog(tree, tool_dir, *extra):
        cmd = [RT, "doctor", "--prolog", "--sysfs-root", tree if os.path.isabs(tree) else
               os.path.join(SYSFS, tree), "--tools-dir", tool_dir, *extra]
        start = time.monotonic()
        r = subprocess.run((["ip", "netns", "exec", ns] if ns else []) + cmd, capture_output=True,
                           text=True, timeout=60)
        return r, time.monotonic() - start

    hang = temp_dir("rt-doctor-hang-")
    for tool in ("dcb", "mlnx_qos", "lldptool"):
        with open(os.path.join(hang, tool), "w") as f:
            f.write("#!/bin/sh\nexec sleep 30\n")
        os.chmod(os.path.join(hang, tool), 0o755)
    for tree, tool_dir, status, out in (
            ("good", tools, 0, ""),
            ("good", hang, 0, ""),
            ("mtu1500", tools, 1, "rocetrace doctor: not ready: mlx5_0:1 mtu\n"),
            ("port_down", hang, 1, "rocetrace doctor: not ready: mlx5_0:1 link.state, link.netdev\n"),
            (bare, tools, 1, "rocetrace doctor: not ready: no RDMA port\n")):
        r, took = prolog(tree, tool_dir)
        label = f"--prolog {os.path.basename(tree)}{' (tools hang)' if tool_dir == hang else ''}"
        check(r.returncode == status and r.stdout == out and r.stderr == "",
              f"{label}: exit {r.returncode}, {r.stdout!r} {r.stderr.strip()!r}")
        check(took < 2.0, f"{label}: {took:.2f} s, under 2 s")
    r, _ = prolog("good", tools, "nosuch0")
    check(r.returncode == 1 and r.stdout == "" and r.stderr.startswith("rocetrace doctor: 'nosuch0' is neither"),
          f"--prolog naming a device that is not there: {r.stderr.strip()}")
    r, _ = prolog("good", tools, "--json")
    check(r.returncode == 2 and "--prolog checks this host and prints one line" in r.stderr,
          f"--prolog --json: {r.stderr.strip()}")

    # --traffic over saved captures, against their scapy-built truth
    for cap in ("ecn_cnp", "pfc_pause", "vlan_qinq"):
        truth = [json.loads(line) for line in open(os.path.join(CAPS, cap + ".truth.jsonl"))]
        # RoCEv2 data: transport packets with an IP header, ACKNOWLEDGEs (operation 0x11) aside
        data = [p for p in truth if p.get("kind") == "roce" and "ecn" in p and not p.get("rocev1")
                and (p.get("opcode", 0) & 0x1f) != 0x11]
        ecn = [sum(1 for p in data if p["ecn"] == v) for v in range(4)]
        cnps = [p for p in truth if p.get("kind") == "cnp"]
        xoff = [sum(1 for p in truth if p.get("kind") == "pfc" and p["pfc"]["enable"] >> q & 1
                    and p["pfc"]["quanta"][q]) for q in range(8)]
        r = run(["--traffic", "5", "--capture-from", os.path.join(CAPS, cap + ".pcap"), "--json"], tools,
                prefix=False)
        d = json.loads(r.stdout)
        c = d["targets"][0]["checks"]
        if data:
            want = (f"{len(data)} RoCEv2 data packets: Not-ECT {ecn[0]}, ECT(0) {ecn[2]}, "
                    f"ECT(1) {ecn[1]}, CE {ecn[3]}")
            check(c["traffic.ecn"]["value"] == want and c["traffic.ecn"]["status"] == ("fail" if ecn[0] else "pass"),
                  f"traffic {cap}: {c['traffic.ecn']['value']!r} == {want!r}")
            off = sum(1 for p in data if p["dscp"] != 26 or ("vlan" in p and p["pcp"] != 3))
            check(c["traffic.dscp"]["status"] == ("fail" if off else "pass"), f"traffic {cap}: DSCP verdict")
        else:
            check(c["traffic.ecn"]["status"] == "unchecked", f"traffic {cap}: no RoCE data: unchecked")
        npfc = sum(1 for p in truth if p.get("kind") == "pfc")
        want_pfc = f"{npfc} PFC frames: {xoff[3]} pausing priority 3" if npfc else "no PFC frame"
        check(c["traffic.pfc"]["value"].startswith(want_pfc), f"traffic {cap}: {c['traffic.pfc']['value']!r} ~ {want_pfc!r}")
        others = [q for q in range(8) if q != 3 and xoff[q]]
        check(c["traffic.pfc"]["status"] == ("warn" if others else "pass"), f"traffic {cap}: PFC verdict")
        check(c["traffic.cnp"]["value"].startswith(f"{len(cnps)} CNPs") if cnps else
              c["traffic.cnp"]["value"].startswith("no CNP"), f"traffic {cap}: {c['traffic.cnp']['value']}")
    # --traffic live: gen over loopback with DSCP 10, captured by libpcap on lo (CAP_NET_RAW)
    if os.geteuid() == 0:
        serve = subprocess.Popen([RT, "gen", "serve", "-B", "127.0.0.1", "-D", "20"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        send = None
        try:
            # the server listens on its control port before the sender connects
            for _ in range(100):
                ss = subprocess.run(["ss", "-ltnH", "sport = :18515"], capture_output=True, text=True)
                if ss.stdout.strip():
                    break
                time.sleep(0.1)
            send = subprocess.Popen([RT, "gen", "send", "127.0.0.1", "--bind", "127.0.0.2", "--dscp", "10",
                                     "-r", "50M", "-D", "15"],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            r = run(["--traffic", "3", "--capture-from", "lo", "--json"], tools, prefix=False)
            c = json.loads(r.stdout)["targets"][0]["checks"]
            check(c["traffic.dscp"]["status"] == "fail" and "DSCP 10: " in c["traffic.dscp"]["value"]
                  and "(127.0.0.2)" in c["traffic.dscp"]["fix"],
                  f"traffic live on lo: {c['traffic.dscp']['value']}")
            check(c["traffic.ecn"]["status"] == "pass" and "Not-ECT 0" in c["traffic.ecn"]["value"],
                  f"traffic live on lo: {c['traffic.ecn']['value']}")
        finally:
            for p in (send, serve):
                if p:
                    p.terminate()
                    p.wait(timeout=30)
    else:
        print("skipped the live --traffic capture on lo: it needs root (CAP_NET_RAW)")
    r = run(["--traffic", "1", "--capture-from", "/nonexistent.pcap", "--json"], tools, prefix=False)
    c = json.loads(r.stdout)["targets"][0]["checks"]
    check(c["traffic.ecn"]["status"] == "unchecked" and "cannot capture from /nonexistent.pcap" in c["traffic.ecn"]["value"],
          f"traffic from a missing file: {c['traffic.ecn']['value']}")
finally:
    if ns:
        subprocess.run(["ip", "netns", "del", ns])
    for d in temp_dirs:
        shutil.rmtree(d, ignore_errors=True)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
