#!/usr/bin/python3
"""System test of `rocetrace capture --hosts`: the lab's namespaces as hosts, each file home, each packet counted once.

Usage: hosts_lab.py ROCETRACE LAB TRAFFIC_TESTS_DIR

tools/lab --capture-hosts builds a sender, a switch and a receiver namespace,
captures in all three at once through 'ip netns exec {host}', stops them with
SIGINT after the traffic (rocetrace gen, one second, a byte cap) and analyses
the three files as vantage points (the packets matched between each two, CE
marked between the sender and the switch egress). Then the command is run directly: around a
workload (-- CMD) on loopback with a launcher that runs it here, and with a
host that does not exist (it fails with its reason; nothing hangs). Needs root
and ip netns; skipped (77) without them.
"""
import json
import os
import re
import subprocess
import sys
import tempfile

RT, LAB, TRAFFIC = sys.argv[1:4]
sys.path.insert(0, TRAFFIC)
from lab_check import can_netns, lab_leftovers  # noqa: E402

failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def analyze(*args):
    p = subprocess.run([RT, "analyze", "--json", *args], capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout) if p.returncode == 0 else {}


def lab_run(out):
    env = dict(os.environ, ROCETRACE=RT)
    # one sender at 20 Mb/s for a second (at most 1 MB), CE marked above 5 Mb/s at the switch
    proc = subprocess.Popen([LAB, "-n", "1", "-D", "1", "--line-rate", "20M", "-m", "5M", "-b", "1M",
                             "--capture-hosts", "-o", out],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        text, _ = proc.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        proc.terminate()
        text, _ = proc.communicate()
        check(False, "tools/lab --capture-hosts ended within 150 s")
    print(text)
    check(proc.returncode == 0, f"tools/lab --capture-hosts exits 0 (got {proc.returncode})")
    check(not lab_leftovers(proc.pid), "the lab's namespaces are gone")
    with open(os.path.join(out, "capture.txt")) as f:
        report = f.read()
    print(report)
    names = [f"rt-lab-{proc.pid}-{n}" for n in ("s1", "sw", "rx")]
    home = os.path.join(out, "hosts")
    files = sorted(os.listdir(home)) if os.path.isdir(home) else []
    check(files == sorted(n + ".pcapng" for n in names), f"one file per host, named after it: {files}")
    singles, drops = {}, 0
    for n in names:
        path = os.path.join(home, n + ".pcapng")
        m = re.search(rf"^    {re.escape(n)}: (\d+) frames, (\d+) dropped: {re.escape(path)}$", report, re.M)
        check(m is not None and int(m.group(1)) > 0, f"{n}: reported with its frames")
        drops += int(m.group(2)) if m else 0
        singles[n] = analyze(path) if os.path.exists(path) else {}
        check(singles[n].get("roce_packets", 0) > 0, f"{n}: its file holds RoCE packets")
    # in the order tools/lab names the hosts (switch, receiver, senders): the points' and paths' order
    vantage = [a for n in (names[1], names[2], names[0])
               for a in ("--vantage", f"{n}={os.path.join(home, n + '.pcapng')}")]
    both = analyze(*vantage)
    with open(os.path.join(out, "vantage.json")) as f:
        check(json.load(f) == both, "the lab's vantage.json is analyze --vantage over the files")
    # capture --hosts's own analysis is analyze's over the same points, paths included
    text = subprocess.run([RT, "analyze", *vantage], capture_output=True, text=True, timeout=120).stdout
    with open(os.path.join(out, "hosts.txt")) as f:
        check(f.read() == text and "Vantage points: " in text,
              "capture --hosts's analysis is analyze --vantage's, with the vantage points")
    points = [p.get("name") for p in both.get("vantage_points", [])]
    check(points == [names[1], names[2], names[0]], f"three vantage points, one per host: {points}")
    paths = {(p["from"], p["to"]): p for p in both.get("paths", [])}
    for a, b in ((names[0], names[1]), (names[1], names[2]), (names[0], names[2])):
        for x, y in ((a, b), (b, a)):
            m = paths.get((x, y), {}).get("matched", 0)
            check(m > 0, f"path {x} -> {y}: packets matched at both ends ({m})")
    # the switch marks CE at its egress: between the sender and the switch, not after it
    up, down = paths.get((names[0], names[1]), {}), paths.get((names[1], names[2]), {})
    check(up.get("ce_marked", 0) > 0 and down.get("ce_marked", -1) == 0,
          f"CE marked between the sender and the switch egress ({up.get('ce_marked')}), "
          f"none after it ({down.get('ce_marked')})")
    one = [s.get("roce_packets", 0) for s in singles.values()]
    total = both.get("roce_packets", -1)
    if drops == 0:
        # no frame lost anywhere: every point saw every packet, and the three count as one
        check(total == one[0] == one[1] == one[2], f"each packet counted once: {total} RoCE packets, "
              f"{one} at the three points")
    else:
        check(max(one) <= total < sum(one), f"each packet counted once ({drops} frames dropped): {total} "
              f"RoCE packets, {one} at the three points")
    check(both.get("duplicates", {}).get("other_capture_point") == sum(one) - total,
          "the copies seen at another capture point are the rest")
    sw = singles[names[1]]
    # the switch marks CE above 5 Mb/s: marks and the receiver's CNPs are there, counted once
    check(sw.get("totals", {}).get("ce", 0) > 0 and sw.get("totals", {}).get("cnp", 0) > 0,
          "the switch marked CE and the receiver sent CNPs")
    for k in ("ce", "cnp", "nak", "retransmitted"):
        check(both.get("totals", {}).get(k) == sw.get("totals", {}).get(k, -1),
              f"totals.{k} as at the switch alone ({sw.get('totals', {}).get(k)})")


def direct_runs(tmp):
    # a workload (-- CMD) on loopback; the "hosts" run here through env: the captures stop when it ends.
    # Others may use loopback too: a port of this run's own
    port = 20000 + os.getpid() % 20000
    send = ("import socket, time\n"
            "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
            "for i in range(20):\n"
            f"    s.sendto(bytes(60), ('127.0.0.1', {port}))\n"
            "    time.sleep(0.01)\n"
            "raise SystemExit(3)\n")
    p = subprocess.run([RT, "capture", "--hosts", "one,two", "--launcher", "env RT_TEST_HOST={host}",
                        "--remote", RT, "--remote-dir", tmp, "-i", "lo", "-w", os.path.join(tmp, "lo"),
                        "udp", "port", str(port), "--", sys.executable, "-c", send],
                       capture_output=True, text=True, timeout=120)
    print(p.stderr)
    check(p.returncode == 3, f"-- CMD: its exit status (3, got {p.returncode})")
    for h in ("one", "two"):
        m = re.search(rf"^    {h}: (\d+) frames, 0 dropped: {re.escape(tmp)}/lo-{h}.pcapng$", p.stderr, re.M)
        check(m is not None and int(m.group(1)) == 20, f"-- CMD: {h} brought home every datagram as lo-{h}")
    check(f"rocetrace analyze --vantage one={tmp}/lo-one.pcapng --vantage two={tmp}/lo-two.pcapng"
          in p.stderr, "-- CMD: the analysis command printed")
    check(re.search(r"^40 frames, 0 RoCE packets", p.stdout, re.M) is not None,
          "-- CMD: the analysis ran over both files (20 frames each, at two points)")
    check(not [f for f in os.listdir(tmp) if f.startswith("rocetrace-")], "-- CMD: the hosts' files removed")

    # hosts that do not exist fail with their reason, at once; exit 1
    ns = f"rt-nosuch-{os.getpid()}"
    p = subprocess.run([RT, "capture", "--hosts", f"{ns}-a,{ns}-b", "--launcher", "ip netns exec {host}",
                        "--remote", RT, "-i", "lo", "-w", tmp + "/", "--duration", "0.5", "--no-analyze"],
                       capture_output=True, text=True, timeout=120)
    print(p.stderr)
    check(p.returncode == 1, f"missing hosts: exit 1 (got {p.returncode})")
    for h in (ns + "-a", ns + "-b"):
        check(re.search(rf"^rocetrace capture: {h}: could not start the capture: .+", p.stderr, re.M)
              is not None, f"missing host {h}: its reason reported")


def main():
    why = can_netns()
    if why:
        print("SKIP:", why)
        return 77
    with tempfile.TemporaryDirectory(prefix="rt-hosts-lab-") as tmp:
        lab_run(os.path.join(tmp, "lab"))
        os.mkdir(os.path.join(tmp, "direct"))
        direct_runs(os.path.join(tmp, "direct"))
    if failures:
        print(f"{len(failures)} failed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
