#!/usr/bin/python3
"""System test of capture --ring in network namespaces: a quiet link congests, the recorder keeps what came before.

Usage: ring_netns.py ROCETRACE
1. Congestion. The topology of metrics_prometheus.py (two senders, a switch
   namespace whose egress to the receiver is shaped by tbf and CE-marked by
   an nftables phantom queue, here above 4 Mb/s). In the switch namespace
   `rocetrace capture -i swrx --ring 2s --post 1s --trigger cnp --hold-off
   1h -w DIR --json-events FILE` runs from the start. One sender sends
   1 Mb/s from the start (quiet: nothing is marked); 3 s later the second
   sends up to 50 Mb/s for 3 s: CE marks, and the receiver's CNPs. Checked with
   tshark reading the one event file back: its first CNP is the trigger
   (the time the JSON line and the file's comment give), no CNP comes
   before it, its frames span the 2 s before it (the quiet sender's frames
   from within 100 ms of that start) and the 1 s after; the capture is
   still running after the file is complete, and ends normally on SIGINT.
2. PFC storm. Two namespaces joined by a veth; in one, `capture -i eth0
   --ring 1s --post 500ms --trigger pfc_storm --storm-threshold 100ms
   --hold-off 1h` while `gen send --pfc` sends to `gen serve --pfc --stall
   1.5s:1s` in the other: the receiver stops draining for 1 s, and its XOFFs
   for priority 3 (65535 quanta, sent again every quarter pause) hold the
   sender paused (a late wake-up on a loaded machine may break a pause; the
   storm is the first unbroken 100 ms). The event names pfc_storm, its time
   is the XOFF 100 ms into a run of XOFFs each within the one before's
   pause, no XON between (tshark's times of the PFC frames in the file).
3. --hosts. Two namespaces as hosts through 'ip netns exec {host}': A
   captures the veth where the storm comes, B its loopback, where only its
   own datagrams go; the storm fires on A, and B writes the same window
   (the same event time and trigger in its file's name, its comment naming
   host A, its datagrams from that window only, both files brought home).
Needs root, ip, tc, nft, tshark (else skipped); traffic is bounded in time;
namespaces are removed on every exit.
"""
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_prometheus as mp  # noqa: E402

SEC = 1_000_000_000
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def skip(why):
    print("SKIP:", why)
    sys.exit(77)


def frames(path, fields, filt=None):
    """Rows of tshark fields (the first one frame.time_epoch, as ns)."""
    cmd = ["tshark", "-r", path, "-T", "fields", "-e", "frame.time_epoch"]
    for f in fields:
        cmd += ["-e", f]
    if filt:
        cmd += ["-Y", filt]
    r = subprocess.run(cmd, capture_output=True, text=True, check=True)
    rows = []
    for line in r.stdout.split("\n"):
        if line:
            parts = line.split("\t")
            s, frac = parts[0].split(".")
            rows.append([int(s) * SEC + int(frac.ljust(9, "0")[:9])] + parts[1:])
    return rows


def comment(path):
    r = subprocess.run(["capinfos", "-k", path], capture_output=True, text=True)
    return "".join(l.split(":", 1)[1] for l in r.stdout.split("\n") if l.startswith("Capture comment:"))


def start_capture(ns, rt, args, log):
    cap = subprocess.Popen(["ip", "netns", "exec", ns, rt, "capture"] + args + ["--notify-ready"],
                           stdout=subprocess.DEVNULL, stderr=log)
    end = time.monotonic() + 30
    while time.monotonic() < end and cap.poll() is None:
        with open(log.name) as f:
            if "ready: pid" in f.read():
                return cap
        time.sleep(0.05)
    return cap


def wait_events(js, n, timeout):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if os.path.exists(js):
            with open(js) as f:
                lines = [l for l in f if l.strip()]
            if len(lines) >= n:
                return [json.loads(l) for l in lines]
        time.sleep(0.1)
    return []


def stop(p):
    if p and p.poll() is None:
        p.send_signal(signal.SIGINT)
        try:
            return p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            return p.wait()
    return p.returncode if p else None


def congestion(rt, tmp, prefix):
    sw, rx, made = mp.topology(prefix)
    procs = []
    try:
        # CE above 4 Mb/s rather than 20: the loud sender passes it even on a loaded machine,
        # the quiet one (1 Mb/s) never does
        rules = ("table ip rtmetrics {\n chain ecnmark {\n"
                 "  type filter hook forward priority filter; policy accept;\n"
                 "  oifname \"swrx\" udp dport 4791 ip ecn ect0 limit rate over 500000 bytes/second burst "
                 "16384 bytes ip ecn set ce counter\n }\n}\n")
        subprocess.run(["ip", "netns", "exec", sw, "nft", "delete", "table", "ip", "rtmetrics"], check=True,
                       capture_output=True)
        subprocess.run(["ip", "netns", "exec", sw, "nft", "-f", "-"], input=rules, text=True, check=True,
                       capture_output=True)
        out, js = os.path.join(tmp, "events"), os.path.join(tmp, "events.jsonl")
        log = open(os.path.join(tmp, "capture.log"), "w")
        cap = start_capture(sw, rt, ["-i", "swrx", "--ring", "2s", "--post", "1s", "--trigger", "cnp",
                                     "--hold-off", "1h", "--ring-size", "16M", "-w", out,
                                     "--json-events", js], log)
        procs.append(cap)
        check(cap.poll() is None, "the capture runs")
        serve = subprocess.Popen(["ip", "netns", "exec", rx, rt, "gen", "serve", "-B", "10.78.250.2",
                                  "--clients", "2", "-D", "30"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(serve)
        time.sleep(0.3)
        send = ["gen", "send", "10.78.250.2", "-q", "1", "-s", "1K", "--timeout", "20ms"]
        quiet = subprocess.Popen(["ip", "netns", "exec", prefix + "-s1", rt] + send +
                                 ["-D", "7", "--rate", "1M", "--line-rate", "1M"],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(quiet)
        time.sleep(3)
        loud = subprocess.Popen(["ip", "netns", "exec", prefix + "-s2", rt] + send +
                                ["-D", "3", "-b", "64M", "--line-rate", "50M"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(loud)
        events = wait_events(js, 1, 30)
        check(len(events) == 1, "one event written (%d)" % len(events))
        for p in (quiet, loud, serve):
            p.wait(timeout=60)
        time.sleep(0.5)
        check(cap.poll() is None, "the capture still runs after the event")
        rc = stop(cap)
        log.close()
        with open(log.name) as f:
            said = f.read()
        print(said)
        check(rc == 0, "the capture ends normally on SIGINT (exit %s)" % rc)
        events = wait_events(js, 1, 1)
        files = os.listdir(out) if os.path.isdir(out) else []
        check(len(events) == 1 and len(files) == 1, "one event, one file (%s)" % files)
        check(said.count(": event ") == 1 and "flight recorder:" in said and "16.0 MiB" in said,
              "one event line; the ring's memory said at the start")
        if not events or not files:
            return
        ev, path = events[0], os.path.join(out, files[0])
        check(ev["trigger"] == "cnp" and ev["file"] == path, "the event names cnp and its file")
        t = ev["time_ns"]
        cnps = frames(path, [], "infiniband.bth.opcode == 129")
        check(bool(cnps) and cnps[0][0] == t, "the file's first CNP is the trigger (tshark)")
        allf = frames(path, [])
        check(bool(allf) and t - 2 * SEC <= allf[0][0] <= t - 2 * SEC + SEC // 10,
              "the file starts 2 s before the trigger (%.3f s)" % ((t - allf[0][0]) / 1e9 if allf else 0))
        check(bool(allf) and t + 9 * SEC // 10 <= allf[-1][0] <= t + SEC,
              "the file ends 1 s after the trigger (%.3f s)" % ((allf[-1][0] - t) / 1e9 if allf else 0))
        before = [f for f in allf if f[0] < t]
        check(len(before) > 100, "the quiet link's frames before the trigger are in it (%d)" % len(before))
        check(ev["frames_before"] + ev["frames_after"] == len(allf), "the JSON line counts the file's frames")
        c = comment(path)
        check("trigger cnp fired at " + ev["time"] in c, "the comment names the trigger and its time")
    finally:
        for p in procs:
            stop(p)
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


INJECT = r'''
import socket, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("eth0", 0))
# 01:80:C2:00:00:01, MAC control, PFC, priority 3 enabled, 65535 quanta
f = bytes.fromhex("0180c2000001020000000002880801010008") + b"\0" * 6 + b"\xff\xff" + b"\0" * 8
f = f.ljust(60, b"\0")
time.sleep(1.5)
end = time.monotonic() + 0.4
nxt = time.monotonic()
while time.monotonic() < end:
    s.send(f)
    nxt += 0.00015
    while time.monotonic() < nxt:
        pass
'''


def veth_pair(a, b, made):
    """Namespaces a and b (appended to made as they are), joined by a veth named eth0 on both sides, up."""
    for ns in (a, b):
        mp.run("ip", "netns", "add", ns)
        made.append(ns)
    mp.run("ip", "-n", a, "link", "add", "eth0", "type", "veth", "peer", "name", "eth0", "netns", b)
    for ns in (a, b):
        mp.run("ip", "-n", ns, "link", "set", "eth0", "up")
        mp.run("ip", "-n", ns, "link", "set", "lo", "up")


def storm(rt, tmp, prefix):
    a, b = prefix + "-pa", prefix + "-pb"
    made = []
    procs = []
    try:
        veth_pair(a, b, made)
        for ns, addr in ((a, "10.77.1.1/24"), (b, "10.77.1.2/24")):
            mp.run("ip", "-n", ns, "addr", "add", addr, "dev", "eth0")
        out, js = os.path.join(tmp, "storm"), os.path.join(tmp, "storm.jsonl")
        log = open(os.path.join(tmp, "storm.log"), "w")
        cap = start_capture(a, rt, ["-i", "eth0", "--ring", "1s", "--post", "500ms", "--trigger",
                                    "pfc_storm", "--storm-threshold", "100ms", "--hold-off", "1h", "--ring-size", "8M",
                                    "-w", out, "--json-events", js], log)
        procs.append(cap)
        # as a real-time task: a wake-up later than the pause between two XOFFs breaks the storm
        rt_prio = ["chrt", "-f", "10"] if shutil.which("chrt") else []
        serve = subprocess.Popen(["ip", "netns", "exec", b] + rt_prio + [
            rt, "gen", "serve", "-B", "10.77.1.2", "-D", "20", "--pfc", "--pfc-xoff", "64K", "--stall",
            "1.5s:1s"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        procs.append(serve)
        time.sleep(0.3)
        send = subprocess.Popen(["ip", "netns", "exec", a, rt, "gen", "send", "10.77.1.2", "-s", "64K",
                                 "-D", "3", "--rate", "10M", "--pfc", "--timeout", "200ms"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        procs.append(send)
        said, _ = serve.communicate(timeout=30)
        print(said)
        check(serve.returncode == 0 and "stall: reading data again" in said,
              "gen serve stalled and drained again (exit %s)" % serve.returncode)
        events = wait_events(js, 1, 10)
        send.wait(timeout=30)
        check(cap.poll() is None, "the capture still runs after the storm's event")
        rc = stop(cap)
        check(rc == 0, "the capture ends normally (exit %s)" % rc)
        check(len(events) == 1, "one event (%d)" % len(events))
        if not events:
            return
        ev = events[0]
        check(ev["trigger"] == "pfc_storm" and ev["code"] == "pfc_storm", "the event names pfc_storm")
        check("priority 3 paused without a break" in ev["figures"], "its figures: " + ev["figures"])
        pfc = frames(ev["file"], ["macc.cbfc.pause_time.c3"], "macc.cbfc.enbv.c3 == 1")
        xoffs = [p for p in pfc if int(p[1]) > 0]
        check(len(xoffs) > 100, "the storm's XOFF frames are in the file (%d)" % len(xoffs))
        # the truth from tshark's times: the first XOFF 100 ms into a run of XOFFs each within
        # the last one's pause (65535 quanta at the analysis's 100 Gb/s: 335.54 us); an XON ends a run
        start, last, want = None, None, None
        for t, quanta in pfc:
            if int(quanta) == 0:
                start = None
                continue
            if start is None or t - last > 335_544:
                start = t
            last = t
            if t - start >= 100_000_000:
                want = t
                break
        check(want is not None and ev["time_ns"] == want,
              "it fired at the XOFF 100 ms into the storm (%s, tshark says %s)" % (ev["time_ns"], want))
    finally:
        for p in procs:
            stop(p)
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


WORKLOAD = r'''
import subprocess, sys, time
b, inject = sys.argv[1], sys.argv[2]
# host B's own traffic: a datagram on its loopback every 50 ms for 3.5 s
ping = subprocess.Popen(["ip", "netns", "exec", b, sys.executable, "-c",
                         "import socket, time\ns = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
                         "for i in range(70):\n    s.sendto(b'x', ('127.0.0.1', 9))\n    time.sleep(0.05)\n"])
rt = ["chrt", "-f", "10"] if subprocess.run(["which", "chrt"], capture_output=True).returncode == 0 else []
subprocess.run(["ip", "netns", "exec", b] + rt + [sys.executable, "-c", inject], check=True)
ping.wait()
'''


def hosts(rt, tmp, prefix):
    """--hosts: a storm only host A sees; host B (its loopback) writes the same window."""
    a, b = prefix + "-ha", prefix + "-hb"
    made = []
    try:
        veth_pair(a, b, made)
        out = os.path.join(tmp, "hosts") + "/"
        r = subprocess.run([rt, "capture", "--hosts", "%s=eth0,%s=lo" % (a, b), "--launcher",
                            "ip netns exec {host}", "--remote", rt, "--ring", "1s", "--post", "500ms",
                            "--ring-size", "4M", "--trigger", "pfc_storm", "--trigger", "ce_share>50%",
                            "-w", out, "--", sys.executable, "-c", WORKLOAD, b, INJECT],
                           capture_output=True, text=True, timeout=90)
        print(r.stderr)
        check(r.returncode == 0, "capture --hosts --ring exits 0 (%d)" % r.returncode)
        files = sorted(os.listdir(out)) if os.path.isdir(out) else []
        fa = [f for f in files if f.startswith(a + "-event")]
        fb = [f for f in files if f.startswith(b + "-event")]
        check(len(fa) == 1 and len(fb) == 1, "one event file from each host (%s)" % files)
        if len(fa) != 1 or len(fb) != 1:
            return
        check(fa[0][len(a):] == fb[0][len(b):] and fa[0].endswith("-pfc_storm.pcapng"),
              "both name the same event, time and trigger (%s, %s)" % (fa[0], fb[0]))
        check("trigger pfc_storm fired at" in comment(out + fb[0]) and ("on host " + a) in comment(out + fb[0]),
              "host B's file says the trigger fired on host A")
        when = fa[0].split("-")[-2]
        stamp = fa[0][len(a) + 1:].split("-")[1]
        day, frac = stamp.rstrip("Z").split(".")
        t = int(time.mktime(time.strptime(day, "%Y%m%dT%H%M%S")) - time.timezone) * SEC + int(frac)
        xoffs = frames(out + fa[0], [], "macc.cbfc.pause_time.c3 > 0")
        check(len(xoffs) > 100, "host A's file holds the storm (%d XOFF)" % len(xoffs))
        pings = frames(out + fb[0], [], "udp.dstport == 9")
        check(bool(pings) and all(t - SEC <= p[0] <= t + SEC // 2 for p in pings),
              "host B's file holds its own frames of the same window only")
        check(bool(pings) and pings[0][0] <= t - SEC + SEC // 5 and pings[-1][0] >= t + SEC // 5,
              "host B's frames span the window: from %.2f s before to %.2f s after (%s)" % (
                  (t - pings[0][0]) / 1e9 if pings else 0, (pings[-1][0] - t) / 1e9 if pings else 0, when))
        check("(the same window as the event on host %s)" % a in r.stderr, "host B says why it wrote its file")
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns], capture_output=True)


def main():
    rt = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0:
        skip("needs root to create network namespaces")
    for tool in ("ip", "tc", "nft", "tshark", "capinfos"):
        if not shutil.which(tool):
            skip("%s is not installed (tools/setup-debian installs it)" % tool)
    prefix = "rtr%d" % os.getpid()
    with tempfile.TemporaryDirectory() as tmp:
        try:
            congestion(rt, tmp, prefix)
            storm(rt, tmp, prefix)
            hosts(rt, tmp, prefix)
        except subprocess.CalledProcessError as e:
            err = e.stderr.decode() if isinstance(e.stderr, bytes) else e.stderr or ""
            skip("cannot build the namespaces (%s): %s" % (" ".join(e.cmd[:6]), err.strip()))
    if failures:
        print("%d failures" % len(failures))
        sys.exit(1)


if __name__ == "__main__":
    main()
