"""Shared by the capture --metrics tests: start a capture that serves metrics, scrape it, parse the exposition.

Parsing goes through prometheus_client (Debian's python3-prometheus-client), the
Prometheus project's own parsers for the text format and OpenMetrics, so the
tests read the output as a scraper reads it.
"""
import os
import random
import re
import subprocess
import sys
import time
import urllib.request

OPENMETRICS = "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"


def need_parser():
    """prometheus_client's parsers, or exit 77 (skipped) saying what is missing."""
    try:
        from prometheus_client.parser import text_string_to_metric_families  # noqa: F401
        from prometheus_client.openmetrics import parser  # noqa: F401
    except ImportError:
        print("python3-prometheus-client is not installed (tools/setup-debian installs it): skipped")
        sys.exit(77)


def start(cmd, timeout=30, **kw):
    """Run cmd (a rocetrace capture with --metrics ...:0); returns (process, port) once it serves."""
    p = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, **kw)
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        line = p.stderr.readline()
        if not line:
            break
        m = re.search(r"metrics at http://\S+:(\d+)/metrics", line)
        if m:
            return p, int(m.group(1))
    p.kill()
    rest = p.communicate()[1]
    sys.exit("capture did not say where it serves: %r %r" % (line, rest))


def scrape(port, accept=None, host="127.0.0.1", timeout=10):
    """(status, content type, body) of GET /metrics."""
    req = urllib.request.Request("http://%s:%d/metrics" % (host, port))
    if accept:
        req.add_header("Accept", accept)
    with urllib.request.urlopen(req, timeout=timeout) as r:
        return r.status, r.headers.get("Content-Type"), r.read().decode()


def samples(text, openmetrics=False):
    """{(sample name, ((label, value), ...)): value} of an exposition, parsed by prometheus_client."""
    if openmetrics:
        from prometheus_client.openmetrics.parser import text_string_to_metric_families
    else:
        from prometheus_client.parser import text_string_to_metric_families
    out = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def value(smp, name, **labels):
    return smp[(name, tuple(sorted(labels.items())))]


def families(text):
    """Family names as the TYPE lines give them (text format: counters with _total)."""
    return set(re.findall(r"^# TYPE (\S+) ", text, re.M))


def wait_final(port, timeout=60, host="127.0.0.1"):
    """Scrape until the capture says it ended (rocetrace_capture_running 0); the text exposition."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        _, _, body = scrape(port, host=host)
        if re.search(r"^rocetrace_capture_running 0$", body, re.M):
            return body
        time.sleep(0.05)
    sys.exit("the capture never served its final figures")


def in_netns(prefix, script, rt, timeout):
    """Run `script ROCETRACE --inner` in a network namespace made for it (root, else exit 77 saying why),
    removed on every exit; its exit status."""
    if os.geteuid() != 0:
        print("SKIP: needs root to create a network namespace")
        sys.exit(77)
    ns = "%s%d%d" % (prefix, os.getpid(), random.randint(0, 9999))
    if subprocess.run(["ip", "netns", "add", ns], capture_output=True).returncode:
        print("SKIP: cannot create a network namespace (ip netns add failed)")
        sys.exit(77)
    try:
        return subprocess.run(["ip", "netns", "exec", ns, sys.executable, os.path.abspath(script), rt, "--inner"],
                              timeout=timeout).returncode
    finally:
        subprocess.run(["ip", "netns", "del", ns], capture_output=True)
