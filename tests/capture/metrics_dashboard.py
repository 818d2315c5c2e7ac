#!/usr/bin/python3
"""The Grafana dashboard (docs/grafana/rocetrace.json) names only metrics capture --metrics exports.

Usage: metrics_dashboard.py ROCETRACE REPO
The exported names come from a real exposition: `capture -r` of the incast
scenario with --metrics, scraped once it served its final figures: its
samples' names and its families' (a family without a sample at that moment,
such as rocetrace_finding on a capture with no finding, is exported too). Every
PromQL expression of the dashboard (panel targets and query variables) is
read for the metric names it selects (strings, label matchers, ranges,
grouping labels, functions, keywords, numbers and Grafana variables set
aside); each must be one of those. The dashboard must also show throughput,
CE and CNP rates, PFC pause per priority, capture drops, the top flows and
the findings.
The name reader is checked first on expressions with known answers.
"""
import json
import os
import re
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_lib as ml  # noqa: E402

KEYWORDS = {"by", "without", "on", "ignoring", "group_left", "group_right", "bool", "and", "or", "unless",
            "offset", "atan2", "inf", "nan"}


def metric_names(expr):
    """The metric names a PromQL expression selects."""
    e = re.sub(r"\$\{[^}]*\}|\$\w+", "1", expr)  # Grafana variables
    e = re.sub(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`[^`]*`', '""', e)  # strings
    e = re.sub(r"\{[^}]*\}", " ", e)  # label matchers
    e = re.sub(r"\[[^\]]*\]", " ", e)  # ranges and subqueries
    e = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", e)  # grouping labels
    e = re.sub(r"\blabel_values\s*\(\s*([^,)]*)(,[^)]*)?\)", r" \1 ", e)  # Grafana: the metric, not the label
    e = re.sub(r"(?<![\w:])\d+(\.\d+)?([eE][+-]?\d+)?(ms|s|m|h|d|w|y)?\b", " ", e)  # numbers, durations
    names = set()
    for m in re.finditer(r"[A-Za-z_:][A-Za-z0-9_:]*", e):
        if m.group(0).lower() in KEYWORDS or re.match(r"\s*\(", e[m.end():]):
            continue  # a keyword or a function
        names.add(m.group(0))
    return names


def self_check():
    cases = {
        'sum by (priority) (rate(rocetrace_pfc_paused_seconds_total{instance=~"$instance"}[$__rate_interval]))':
            {"rocetrace_pfc_paused_seconds_total"},
        "topk($top, rate(a_total[5m]) * 8) / on(src) group_left b": {"a_total", "b"},
        'label_values(rocetrace_frames_total{job="x"}, instance)': {"rocetrace_frames_total"},
        "histogram_quantile(0.9, x_bucket) > 1e9 offset 1h": {"x_bucket"},
        "c and d unless e": {"c", "d", "e"},
    }
    bad = 0
    for expr, want in cases.items():
        got = metric_names(expr)
        if got != want:
            print("name reader: %r gave %s, want %s" % (expr, sorted(got), sorted(want)))
            bad += 1
    return bad


def expressions(dash):
    """(where, PromQL) of every panel target and query variable."""
    out = []

    def panels(ps):
        for p in ps:
            for t in p.get("targets", []):
                if "expr" in t:
                    out.append(("panel '%s'" % p.get("title"), t["expr"]))
            panels(p.get("panels", []))

    panels(dash.get("panels", []))
    for v in dash.get("templating", {}).get("list", []):
        if v.get("type") == "query":
            q = v.get("query")
            out.append(("variable '%s'" % v.get("name"), q.get("query") if isinstance(q, dict) else q))
    return out


def exported(rt, repo):
    """Sample names of a real exposition (with per-flow series)."""
    path = os.path.join(repo, "tests", "analyze", "scenarios", "incast.pcap")
    with tempfile.TemporaryDirectory() as tmp:
        p, port = ml.start([rt, "capture", "-r", path, "-w", os.path.join(tmp, "o.pcapng"), "--metrics",
                            "127.0.0.1:0", "--metrics-linger", "60"])
        try:
            text = ml.wait_final(port)
        finally:
            p.send_signal(signal.SIGTERM)
            p.wait(timeout=20)
            p.stderr.close()
    return {m.group(1) for m in re.finditer(r"^([A-Za-z_:][A-Za-z0-9_:]*)[{ ]", text, re.M)} | \
        {m.group(1) for m in re.finditer(r"^# TYPE ([A-Za-z_:][A-Za-z0-9_:]*) ", text, re.M)}


def main():
    rt, repo = sys.argv[1], sys.argv[2]
    bad = self_check()
    with open(os.path.join(repo, "docs", "grafana", "rocetrace.json")) as f:
        dash = json.load(f)
    names = exported(rt, repo)
    used = set()
    exprs = expressions(dash)
    for where, expr in exprs:
        n = metric_names(expr)
        if not n:
            print("%s: no metric in %r" % (where, expr))
            bad += 1
        for m in sorted(n - names):
            print("%s: %s is not exported (%r)" % (where, m, expr))
            bad += 1
        used |= n
    for m in ("rocetrace_roce_bytes_total", "rocetrace_ce_marked_packets_total", "rocetrace_cnp_total",
              "rocetrace_pfc_paused_seconds_total", "rocetrace_capture_dropped_total", "rocetrace_flow_bytes_total",
              "rocetrace_finding"):
        if m not in used:
            print("the dashboard does not show %s" % m)
            bad += 1
    print("%d expressions over %d metrics, %d problems" % (len(exprs), len(used), bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
