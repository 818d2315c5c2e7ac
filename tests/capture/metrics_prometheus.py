#!/usr/bin/python3
"""System test: Debian's Prometheus scrapes `capture --metrics` during a congestion run in network namespaces.

Usage: metrics_prometheus.py ROCETRACE
Two senders (`rocetrace gen send`, udp backend, DCQCN) reach one receiver
through a switch namespace whose egress is shaped by tbf and CE-marked by an
nftables phantom queue (as tools/lab builds it, addresses in 10.78.0.0/16
inside the namespaces only). In the switch namespace, `rocetrace capture -i
swrx --metrics 127.0.0.1:19464 --metrics-linger 5` records the bottleneck
and a Prometheus server of its own (temporary config and data, scrape
interval 200 ms, on 127.0.0.1:19090 of that namespace: every port is free
there) scrapes it. After the run Prometheus's HTTP API (/api/v1/query) is
asked for the last stored CE, CNP, RoCE byte and frame totals, and whether
that last scrape saw the capture ended (rocetrace_capture_running 0): the
final figures, served during the linger, so the comparison with `rocetrace
analyze --json` of the written file is exact. The receiver sends its CNPs
on the data's DSCP (26): Prometheus must have stored the cnp_priority
warning (rocetrace_finding) from a scrape while the capture still ran, and
the findings of the last scrape must be those of `analyze --json` of the
file, by code and severity. Needs root, ip, tc, nft and
prometheus (else skipped); traffic is bounded (2 s, 64 MiB per QP);
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
import urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_lib as ml  # noqa: E402

SENDERS = 2
METRICS_PORT = 19464
PROM_PORT = 19090
SCRAPE = "200ms"


def skip(why):
    print("SKIP:", why)
    sys.exit(77)


def run(*cmd):
    subprocess.run(cmd, check=True, capture_output=True)


def topology(prefix):
    """The namespaces (switch, receiver, senders), created; returns their names."""
    sw, rx = prefix + "-sw", prefix + "-rx"
    made = []
    for ns in [sw, rx] + ["%s-s%d" % (prefix, k) for k in range(1, SENDERS + 1)]:
        run("ip", "netns", "add", ns)
        made.append(ns)
        run("ip", "-n", ns, "link", "set", "lo", "up")
    run("ip", "netns", "exec", sw, "sysctl", "-qw", "net.ipv4.ip_forward=1")
    run("ip", "-n", rx, "link", "add", "eth0", "type", "veth", "peer", "name", "swrx", "netns", sw)
    run("ip", "-n", rx, "addr", "add", "10.78.250.2/24", "dev", "eth0")
    run("ip", "-n", sw, "addr", "add", "10.78.250.1/24", "dev", "swrx")
    run("ip", "-n", rx, "link", "set", "eth0", "up")
    run("ip", "-n", sw, "link", "set", "swrx", "up")
    run("ip", "-n", rx, "route", "add", "default", "via", "10.78.250.1")
    for k in range(1, SENDERS + 1):
        ns = "%s-s%d" % (prefix, k)
        run("ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", "sw%d" % k, "netns", sw)
        run("ip", "-n", ns, "addr", "add", "10.78.%d.2/24" % k, "dev", "eth0")
        run("ip", "-n", sw, "addr", "add", "10.78.%d.1/24" % k, "dev", "sw%d" % k)
        run("ip", "-n", ns, "link", "set", "eth0", "up")
        run("ip", "-n", sw, "link", "set", "sw%d" % k, "up")
        run("ip", "-n", ns, "route", "add", "default", "via", "10.78.%d.1" % k)
    # the bottleneck: 60 Mb/s, and CE on ECT(0) RoCEv2 above 20 Mb/s
    run("ip", "netns", "exec", sw, "tc", "qdisc", "add", "dev", "swrx", "root", "tbf", "rate", "60mbit",
        "burst", "64kb", "latency", "50ms")
    rules = ("table ip rtmetrics {\n chain ecnmark {\n"
             "  type filter hook forward priority filter; policy accept;\n"
             "  oifname \"swrx\" udp dport 4791 ip ecn ect0 limit rate over 2500000 bytes/second burst 16384 bytes "
             "ip ecn set ce counter\n }\n}\n")
    subprocess.run(["ip", "netns", "exec", sw, "nft", "-f", "-"], input=rules, text=True, check=True,
                   capture_output=True)
    return sw, rx, made


def prom_api(sw, expr, at=None):
    """The answer of /api/v1/query (at time `at`, else now) in the switch namespace's Prometheus, or None."""
    args = {"query": expr}
    if at is not None:
        args["time"] = "%.3f" % at
    url = "http://127.0.0.1:%d/api/v1/query?%s" % (PROM_PORT, urllib.parse.urlencode(args))
    code = ("import sys, urllib.request, urllib.error\n"
            "try:\n    r = urllib.request.urlopen(sys.argv[1], timeout=10)\n"
            "except urllib.error.HTTPError as e:\n    r = e\n"
            "sys.stdout.write(r.read().decode())")
    r = subprocess.run(["ip", "netns", "exec", sw, sys.executable, "-c", code, url], capture_output=True,
                       text=True, timeout=30)
    try:
        return json.loads(r.stdout) if r.returncode == 0 else None
    except ValueError:
        return None


def prom_query(sw, expr):
    """The value of an instant query (one series), or None."""
    res = prom_api(sw, expr)
    if not res or res.get("status") != "success" or len(res["data"]["result"]) != 1:
        return None
    return float(res["data"]["result"][0]["value"][1])


def prom_findings(sw, at):
    """rocetrace_finding as Prometheus stored it at time `at`: {(code, severity): count}, or None."""
    res = prom_api(sw, "rocetrace_finding", at) if at is not None else None
    if not res or res.get("status") != "success":
        return None
    return {(r["metric"]["code"], r["metric"]["severity"]): float(r["value"][1])
            for r in res["data"]["result"]}


def check_dashboard(sw, at, check):
    """Each expression of the Grafana dashboard is valid PromQL for this Prometheus; the main panels show data."""
    import metrics_dashboard
    repo = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    with open(os.path.join(repo, "docs", "grafana", "rocetrace.json")) as f:
        exprs = metrics_dashboard.expressions(json.load(f))
    for where, expr in exprs:
        if expr.startswith("label_values("):  # a Grafana function, not PromQL
            continue
        q = expr.replace("$instance", ".*").replace("$__rate_interval", "1s").replace("$top", "10")
        res = prom_api(sw, q, at)
        ok = bool(res) and res.get("status") == "success"
        check(ok, "dashboard %s: Prometheus evaluates %s%s" % (where, q, "" if ok else ": %s" % res))
        if ok and any(m in q for m in ("rocetrace_roce_bytes_total", "rocetrace_cnp_total",
                                       "rocetrace_flow_bytes_total")):
            check(len(res["data"]["result"]) > 0, "dashboard %s shows data during the run" % where)


def wait_ready(sw, proc, timeout=60):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if prom_query(sw, "vector(1)") == 1:
            return True
        time.sleep(0.2)
    return False


def stop(p, sig=signal.SIGTERM, timeout=20):
    if p and p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


def main():
    rt = os.path.abspath(sys.argv[1])
    if os.geteuid() != 0:
        skip("needs root to create network namespaces")
    for tool in ("ip", "tc", "nft", "prometheus"):
        if not shutil.which(tool):
            skip("%s is not installed (tools/setup-debian installs it)" % tool)
    prefix = "rtm%d" % os.getpid()
    errors = []
    made, procs = [], []

    def check(cond, what):
        print(("ok: " if cond else "FAIL: ") + what)
        if not cond:
            errors.append(what)

    with tempfile.TemporaryDirectory() as tmp:
        try:
            try:
                sw, rx, made = topology(prefix)
            except subprocess.CalledProcessError as e:
                made = [l.split()[0] for l in subprocess.run(["ip", "netns", "list"], capture_output=True,
                                                             text=True).stdout.splitlines()
                        if l.startswith(prefix + "-")]
                err = e.stderr.decode() if isinstance(e.stderr, bytes) else e.stderr or ""
                skip("cannot build the namespaces (%s): %s" % (" ".join(e.cmd[:6]), err.strip()))
            cfg = os.path.join(tmp, "prometheus.yml")
            with open(cfg, "w") as f:
                f.write("global:\n  scrape_interval: %s\n  scrape_timeout: %s\n"
                        "scrape_configs:\n  - job_name: rocetrace\n    static_configs:\n"
                        "      - targets: ['127.0.0.1:%d']\n" % (SCRAPE, SCRAPE, METRICS_PORT))
            prom_log = open(os.path.join(tmp, "prometheus.log"), "w")
            prom = subprocess.Popen(["ip", "netns", "exec", sw, "prometheus", "--config.file=" + cfg,
                                     "--storage.tsdb.path=" + os.path.join(tmp, "data"),
                                     "--web.listen-address=127.0.0.1:%d" % PROM_PORT, "--log.level=warn"],
                                    stdout=prom_log, stderr=prom_log)
            procs.append(prom)
            if not wait_ready(sw, prom):
                prom_log.flush()
                with open(os.path.join(tmp, "prometheus.log")) as f:
                    tail = f.read()[-400:]
                check(False, "Prometheus starts in the namespace: %s" % tail)
                return 1
            pcap = os.path.join(tmp, "bottleneck.pcapng")
            cap, port = ml.start(["ip", "netns", "exec", sw, rt, "capture", "-i", "swrx", "-s", "128", "-w", pcap,
                                  "--metrics", "127.0.0.1:%d" % METRICS_PORT, "--metrics-linger", "5"])
            procs.append(cap)
            check(port == METRICS_PORT, "capture serves on 127.0.0.1:%d" % METRICS_PORT)
            # Prometheus hands new targets to its scrapers a few seconds after it starts
            end = time.monotonic() + 60
            while prom_query(sw, 'up{job="rocetrace"}') != 1 and time.monotonic() < end:
                time.sleep(0.2)
            check(prom_query(sw, 'up{job="rocetrace"}') == 1, "Prometheus scrapes the capture")
            serve = subprocess.Popen(["ip", "netns", "exec", rx, rt, "gen", "serve", "-B", "10.78.250.2",
                                      "--clients", str(SENDERS), "-D", "40", "--cnp-dscp", "26"],
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            procs.append(serve)
            time.sleep(0.3)
            senders = [subprocess.Popen(["ip", "netns", "exec", "%s-s%d" % (prefix, k), rt, "gen", "send",
                                         "10.78.250.2", "-D", "2", "-q", "1", "-s", "1K", "-b", "64M",
                                         "--line-rate", "50M", "--timeout", "20ms"],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                       for k in range(1, SENDERS + 1)]
            procs.extend(senders)
            for s in senders:
                check(s.wait(timeout=60) == 0, "sender finished")
            check(serve.wait(timeout=60) == 0, "receiver finished")
            during = time.time() - 0.5  # within the run's last second
            # scrapes while the capture ran
            check(prom_query(sw, "max_over_time(rocetrace_capture_running[1m])") == 1,
                  "Prometheus stored figures of the running capture")
            time.sleep(0.2)
            cap.send_signal(signal.SIGINT)  # the capture ends, then serves its final figures for 5 s
            rc = cap.wait(timeout=60)
            tail = cap.stderr.read()
            cap.stderr.close()
            check(rc == 0, "capture exits 0 after --metrics-linger (%s)" % tail.strip())
            # the last sample Prometheus stored (range selections skip the staleness marks written
            # once the target went away)
            got = {m: prom_query(sw, "last_over_time(%s[5m])" % m) for m in
                   ("rocetrace_capture_running", "rocetrace_ce_marked_packets_total", "rocetrace_cnp_total",
                    "rocetrace_roce_bytes_total", "rocetrace_frames_total")}
            scrapes = prom_query(sw, "count_over_time(rocetrace_frames_total[5m])")
            live_finding = prom_query(sw, 'max_over_time((rocetrace_finding{code="cnp_priority",'
                                      'severity="warning"} and on() rocetrace_capture_running == 1)'
                                      '[5m:200ms])')
            # the time of the last scrape (timestamp() of a selector is its sample's own time)
            last_at = prom_query(sw, "max_over_time(timestamp(rocetrace_capture_running)[5m:100ms])")
            findings = prom_findings(sw, last_at)
            print("Prometheus: %s over %s scrapes" % (got, scrapes))
            check(got["rocetrace_capture_running"] == 0,
                  "the last scrape saw the capture ended: its final figures")
            check((scrapes or 0) >= 5, "Prometheus scraped the capture many times (%s)" % scrapes)
            check(live_finding == 1, "Prometheus stored rocetrace_finding{code=\"cnp_priority\","
                  "severity=\"warning\"} 1 while the capture ran (%s)" % live_finding)
            check_dashboard(sw, during, check)
        finally:
            for p in reversed(procs):
                stop(p)
            for ns in made:
                subprocess.run(["ip", "netns", "del", ns], capture_output=True)
        left = [l for l in subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout.splitlines()
                if l.startswith(prefix + "-")]
        check(not left, "namespaces removed")
        a = json.loads(subprocess.run([rt, "analyze", "--json", pcap], check=True, capture_output=True,
                                      text=True).stdout)
        want = {"rocetrace_ce_marked_packets_total": a["totals"]["ce"], "rocetrace_cnp_total": a["totals"]["cnp"],
                "rocetrace_roce_bytes_total": a["roce_bytes"], "rocetrace_frames_total": a["packets"]}
        check(want["rocetrace_ce_marked_packets_total"] > 0 and want["rocetrace_cnp_total"] > 0,
              "the run was congested: %d CE marks, %d CNPs" % (want["rocetrace_ce_marked_packets_total"],
                                                              want["rocetrace_cnp_total"]))
        for m, v in want.items():
            check(got[m] == v, "%s: Prometheus stored %s, analyze of the file says %d" % (m, got[m], v))
        counted = {}
        for f in a["findings"]:
            counted[(f["code"], f["severity"])] = counted.get((f["code"], f["severity"]), 0) + 1
        check(counted.get(("cnp_priority", "warning")) == 1,
              "analyze of the file finds the CNPs on the data's DSCP: %s" % counted)
        check(findings == counted, "the last scrape's findings %s are analyze's of the file %s" %
              (findings, counted))
    print("%d problems" % len(errors))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
