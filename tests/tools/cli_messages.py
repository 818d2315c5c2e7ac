#!/usr/bin/python3
"""System test: the command lines of every subcommand, good and bad, answer as recorded: exit
status, the standard error text and a digest of standard output (every --help byte for byte, every
usage error's line). The invocations only parse: none captures, sends or needs privileges (doctor
--prolog reads a fixture tree). An invocation is its arguments, or (environment, arguments): what it
adds to the environment, from which every SLURM_ variable is removed.

Usage: cli_messages.py ROCETRACE SOURCE_ROOT [--record]
  --record  rewrite tests/tools/cli_messages.golden from ROCETRACE (after a deliberate change)
"""
import hashlib
import json
import os
import subprocess
import sys
import tempfile

F = "tests/fixtures/mixed.pcap"
G = "tests/fixtures/ecn_cnp.pcap"
S = {"SLURM_JOB_NODELIST": "n[1-2]"}  # inside an allocation of n1 and n2
TREE = "tests/doctor/sysfs/"

INVOCATIONS = [
    # every help, and help spelled every way
    ["--help"], ["dissect", "--help"], ["dissect", "-h"], ["dissect", "--he"], ["analyze", "--help"],
    ["timeline", "--help"], ["report", "--help"], ["capture", "--help"], ["capture", "-h"],
    ["gen", "--help"], ["gen", "-h"], ["gen", "send", "--help"], ["gen", "serve", "-h"],
    ["gen", "lat", "--help"], ["doctor", "--help"], ["doctor", "-h"],
    # dissect
    ["dissect", F, "--count"], ["dissect", F, "--count", "--json"], ["dissect", "-r", F, "-c", "3"],
    ["dissect", F, "-c", "2", "-#", "-ttt", "-v", "-e", "-X"], ["dissect", F, "-c", "1", "-x", "-X", "-x"],
    ["dissect", F, "-c", "2", "--number", "-tt"], ["dissect", F, "-c", "2", "-nn", "-vv"],
    ["dissect", F, "-tttttt"], ["dissect", F, "-c", "0"], ["dissect", F, "-c", "x"], ["dissect", F, "-c"],
    ["dissect", F, "--udp-port", "0"], ["dissect", F, "--udp-port", "70000"], ["dissect", F, "--udp-port=4792", "--count"],
    ["dissect", F, "--no-icrc", "--count"], ["dissect", F, "--no-icrc=1"], ["dissect", F, "--flow", "bogus>"],
    ["dissect", F, "--flow", "qp:17", "--count"], ["dissect", F, "--flow", "0", "--count"], ["dissect", F, "--vantage", "x"],
    ["dissect", "--vantage", "a=" + F, "--vantage", "b=" + G, "--count"], ["dissect", "-r", F, "-r", F],
    ["dissect", "-r", ""], ["dissect"], ["dissect", F, "-z"], ["dissect", F, "-zq"], ["dissect", F, "--zzz"],
    ["dissect", F, "--zzz=1"], ["dissect", F, "--js"], ["dissect", F, "--c"], ["dissect", F, "--co", "--json"],
    ["dissect", F, "-f", "udp", "udp"], ["dissect", F, "-f", "udp port 4791", "--count"],
    ["dissect", F, "udp", "port", "4791", "--count"], ["dissect", "missing.pcap"],
    # selectors: --flow repeated is the union, --conversation, --kind and their refusals
    ["dissect", F, "--flow", "qp:17", "--flow", "qp:51", "--count"], ["dissect", F, "--flow", "qp:17,,qp:51"],
    ["dissect", F, "--kind", "cnp,nak", "--count"], ["dissect", F, "--kind", "acks"], ["dissect", F, "--kind", ""],
    ["dissect", F, "--conversation", "0", "--count"], ["dissect", "-", "--conversation", "0"],
    ["dissect", F, "--conversation", "1.2.3.4>"], ["dissect", F] + ["--flow=1"] * 65,
    ["analyze", F, "--kind", "pfc"], ["analyze", F, "--kind", "nope"], ["analyze", F, "--conversation", "0", "--kind", "ack"],
    ["timeline", "-", "--kind", "data"], ["timeline", F, "--conversation", "0", "--bucket", "1ms"],
    ["report", F, "--kind", "other"],
    # analyze, timeline, report
    ["analyze", F], ["analyze", F, "--json"], ["analyze", F, "--top", "0"], ["analyze", F, "--top", "x"],
    ["analyze", F, "--top", "1000001"], ["analyze", F, "--link-speed", "2"], ["analyze", F, "--link-speed", "1k"],
    ["analyze", F, "--link-speed", "400G", "--storm-ms", "20"], ["analyze", F, "--storm-ms", "0"],
    ["analyze", F, "--storm-threshold", "20ms"], ["analyze", F, "--storm-threshold", "0.5"],
    ["analyze", F, "--storm-threshold", "100ns"], ["analyze", F, "--storm-threshold", "2d"],
    ["analyze", F, "--fail-on", "warning"], ["analyze", F, "--fail-on", "error"], ["analyze", F, "--fail-on", "info"],
    ["analyze", F, "--fail-on"], ["timeline", F, "--fail-on", "error"], ["report", F, "--fail-on", "error"],
    ["timeline", F, "--storm-threshold", "1ms"],
    ["analyze", F, "--episode-gap", "500"], ["analyze", F, "--episode-gap", "5ms"], ["analyze", F, "--rate-window", "5s"],
    ["analyze", F, "--dup-window", "1s"], ["analyze", F, "--dup-window", "0"], ["analyze", F, "--vantage-window", "1ns"], ["analyze", F, "--vantage-sample", "1/16"],
    ["analyze", F, "--vantage-sample", "16"], ["analyze", F, "--vantage-sample", "5/4"],
    ["analyze", F, "--vantage-sample", "0/4"], ["analyze", F, "--vantage-sample", "1/0"],
    ["analyze", F, "--vantage-sample", "1/x"], ["timeline", F, "--vantage-sample", "1/4"],
    ["analyze", F, "--max-flows", "0"], ["analyze", F, "--max-flows", "1"], ["analyze", F, "--bucket", "1ms"],
    ["analyze", F, "--threads", "0"], ["analyze", F, "--threads", "257"], ["timeline", F, "--threads", "x"],
    ["dissect", F, "--threads", "0"], ["dissect", F, "--threads", "2", "-c", "3"],
    ["analyze", F, "--format", "json"], ["analyze", F, "--no-idle"], ["analyze", F, "--by-vantage"], ["analyze", F, "-o", "x"],
    ["analyze", F, "--title", "t"], ["analyze", F, "--title"], ["analyze", F, "--b"], ["analyze", F, "--ti=x"], ["analyze", F, "--title=x"],
    ["analyze", F, "--flow", "1.2.3.4>"], ["analyze", F, "--udp-port", "0x12b7", "--top", "1"], ["analyze"],
    ["analyze", F, "--counters"], ["analyze", F, "--source-log", "missing.jsonl"], ["analyze", F, "--ver"],
    ["timeline", F], ["timeline", F, "--json"], ["timeline", F, "--top", "3"], ["timeline", F, "--top"],
    ["timeline", F, "--storm-ms", "1"], ["timeline", F, "--vantage-window", "1ms"], ["timeline", F, "--title", "x"],
    ["timeline", F, "--format", "xml"], ["timeline", F, "--format", "json", "--no-idle"], ["timeline", F, "--bucket", "10"],
    ["timeline", F, "--bucket", "10ns"], ["timeline", F, "--bucket", "1ms", "--by-vantage"], ["timeline", F, "-o"],
    ["timeline", F, "--rate-window", "1ms"], ["timeline", F, "--episode-gap", "x"],
    ["report", F, "--json"], ["report", F, "--top", "1"], ["report", F, "--format", "csv"], ["report", F, "--no-idle"],
    ["report", F, "--by-vantage"], ["report", F, "--storm-ms", "x"], ["report", F, "--bucket", "1"], ["report", "-o"],
    # capture
    ["capture"], ["capture", "-i"], ["capture", "-s", "0", "-i", "x"], ["doctor", "--sysfs-root", "/nonexistent/sysfs"],
    ["doctor", "--sysfs-root", F],
    ["capture", "-s", "262145", "-i", "x"], ["capture", "-c", "0", "-i", "x"], ["capture", "-i", "x", "--duration", "0"],
    ["capture", "-i", "x", "--duration", "367d"], ["capture", "-i", "x", "--duration", "400days"], ["capture", "-i", "x", "-B", "0"],
    ["capture", "-i", "x", "--format", "pcapx"], ["capture", "-i", "x", "-G", "0"], ["capture", "-i", "x", "-C", "x"],
    ["capture", "-i", "x", "--counters", "5ms", "-w", "o"], ["capture", "-i", "x", "--counters"],
    ["capture", "-i", "x", "--counters", "udp"], ["capture", "-i", "x", "--counters=1s"], ["capture", "-i", "x", "--counters=x"],
    ["capture", "-i", "x", "-w", "-", "--counters"], ["capture", "-i", "x", "-w", ""], ["capture", "-i", "x", "-r", F],
    ["capture", "-r", F], ["capture", "-r", F, "-w", F], ["capture", "-i", "x", "--metrics-top-flows", "3"],
    ["capture", "-i", "x", "--metrics", "1", "--metrics-top-flows", "1001"], ["capture", "-i", "x", "--metrics-linger", "2h"],
    ["capture", "-i", "x", "--launcher", "ssh"], ["capture", "-i", "x", "--remote-dir", "a b"], ["capture", "-i", "x", "--timeout", "1"],
    ["capture", "-i", "x", "--no-analyze"], ["capture", "-i", "x", "--stop-at-eof", "--", "true"], ["capture", "-i", "x", "--"],
    ["capture", "-i", "x", "udp", "--"], ["capture", "-i", "x", "udp", "-c", "1"], ["capture", "-i", "x", "-f", "udp", "tcp"],
    ["capture", "-i", "x", "-tttttt"], ["capture", "-i", "x", "-q"], ["capture", "-i", "x", "--q"], ["capture", "-i", "x", "--st"],
    ["capture", "-i", "x", "--stats=1"], ["capture", "--hosts", "a,b", "-r", F], ["capture", "--hosts", "a"],
    ["capture", "--hosts", "a", "-w", "-"], ["capture", "--hosts", "a", "-w", "d/", "-G", "1"],
    # capture --ring
    ["capture", "-i", "x", "--trigger", "cnp"], ["capture", "-i", "x", "--ring", "1s", "-w", "d/"],
    ["capture", "-i", "x", "--ring", "1s", "--trigger", "cnp"], ["capture", "-i", "x", "--ring", "1s", "--trigger", "cnp", "-w", "-"],
    ["capture", "-i", "x", "--ring", "1s", "--trigger", "cnp_rate>5", "-w", "d/"],
    ["capture", "-i", "x", "--ring", "1s", "--trigger", "pfc_paused:9>5%", "-w", "d/"],
    ["capture", "-i", "x", "--ring", "0", "--trigger", "cnp", "-w", "d/"],
    ["capture", "-i", "x", "--ring", "1s", "--trigger", "cnp", "-w", "d/", "-C", "1"],
    ["capture", "-i", "x", "--ring", "1s", "--trigger", "cnp", "-w", "d/", "--ring-size", "1K"],
    ["capture", "-i", "x", "--ring", "1s", "--trigger", "cnp", "-w", "d/", "-s", "65535", "--ring-size", "1M"],
    ["capture", "-i", "x", "--ring", "1s", "--trigger", "cnp", "-w", "d/", "--max-events", "0"],
    ["capture", "--hosts", "a", "-w", "d/", "--ring", "1s", "--trigger", "cnp", "--json-events", "e.jsonl"],
    ["capture", "--hosts", "a", "-w", "d/", "--notify-ready"], ["capture", "--hosts", "a", "-w", "d/", "--metrics", "1"],
    ["capture", "--hosts", "a", "-w", "d/", "-i", "a b"], ["capture", "--hosts", "a", "-w", "d/", "--sysfs-root", "a;b"],
    ["capture", "--hosts", "a", "-w", "d/", "udp", "&&", "tcp"], ["capture", "--hosts", "a", "-w", "d/", "--timeout", "0.5"],
    ["capture", "--hosts", "a", "-w", "d/", "--timeout", "x"], ["capture", "--hosts"],
    ["capture", "-i", "x", "--analyze-there"], ["capture", "-i", "x", "-w", "o.pcapng", "--fetch"],
    ["capture", "--hosts", "a", "-i", "x", "-w", "d/", "--analyze-there", "--no-analyze"],
    ["capture", "-i", "x", "-w", "o.pcapng", "--bucket", "10ms"],
    ["capture", "--hosts", "a", "-i", "x", "-w", "d/", "--bucket", "10ms"],
    ["capture", "--hosts", "a", "-i", "x", "-w", "d/", "--analyze-there", "--bucket", "50ns"],
    ["capture", "--hosts", "a", "-i", "x", "-w", "d/", "--analyze-there", "--ring", "1s", "--trigger", "cnp"],
    ["capture", "--hosts", "a", "-w", "d/", "-Z", "u", "-s", "9", "-c", "5", "-B", "64", "--format", "pcap", "--counters",
     "--sysfs-root", "/x", "--stats", "--counters=2s", "--remote-dir", "a;b"],
    ["capture", "-i", "x", "--metrics", "nope:port"], ["capture", "-i", "x", "--metrics-linger", "1"],
    # gen
    ["gen"], ["gen", "foo"], ["gen", "send"], ["gen", "send", "h", "extra"], ["gen", "send", "h", "-d", "16"],
    ["gen", "send", "h", "--backend", "x"], ["gen", "send", "h", "-i", "0"], ["gen", "send", "h", "-x", "70000"],
    ["gen", "send", "h", "-x", "1"], ["gen", "send", "h", "-p", "0"], ["gen", "send", "h", "--control-port", "65536"],
    ["gen", "send", "h", "--dscp", "64"], ["gen", "send", "h", "--cnp-dscp", "x"], ["gen", "send", "h", "--interval", "1ms"],
    ["gen", "send", "h", "-D", "2d"], ["gen", "send", "h", "-D", "0"], ["gen", "send", "h", "-o", "fetch"], ["gen", "send", "h", "-s", "2G"],
    ["gen", "send", "h", "-s", "0"], ["gen", "send", "h", "-a", "-s", "1K"], ["gen", "send", "h", "-n", "0"], ["gen", "send", "h", "-m", "128"],
    ["gen", "send", "h", "-q", "0"], ["gen", "send", "h", "-t", "0"], ["gen", "send", "h", "--qdepth", "0"], ["gen", "send", "h", "--tx", "x"], ["gen", "send", "h", "--tx-depth", "x"],
    ["gen", "send", "h", "-b", "0"], ["gen", "send", "h", "-r", "2"], ["gen", "send", "h", "--line-rate", "2"], ["gen", "send", "h", "--timeout", "1ns"],
    ["gen", "send", "h", "--dcqcn-g", "2"], ["gen", "send", "h", "--dcqcn-g", "x"], ["gen", "send", "h", "--dcqcn-alpha-period", "2s"],
    ["gen", "send", "h", "--dcqcn-timer", "1ns"], ["gen", "send", "h", "--dcqcn-bytes", "0"], ["gen", "send", "h", "--dcqcn-f", "1001"],
    ["gen", "send", "h", "--dcqcn-rai", "1"], ["gen", "send", "h", "--dcqcn-rhai", "x"], ["gen", "send", "h", "--dcqcn-min-rate", "200T"],
    ["gen", "serve", "-c", "65"], ["gen", "serve", "--cnp-interval", "2s"], ["gen", "serve", "--pfc-priority", "8"],
    ["gen", "serve", "--pfc-xoff", "0"], ["gen", "serve", "--hello-timeout", "1ms"], ["gen", "serve", "--idle-timeout", "1ms"],
    ["gen", "lat", "h", "-q", "2"], ["gen", "lat", "h", "-t", "2"], ["gen", "serve", "--report", "-c", "0"], ["gen", "serve", "--report_gbits=1"],
    ["gen", "serve", "--zz"], ["gen", "serve", "-Q"], ["gen", "serve", "--no-dcqcn", "-x", "0"], ["gen", "serve", "--d"],
    ["gen", "serve", "-B"], ["gen", "serve", "--sysfs-root"],
    ["gen", "serve", "--stall", "2s"], ["gen", "serve", "--stall", ":1s"], ["gen", "serve", "--stall", "1s:"],
    ["gen", "serve", "--stall", "x:1s"], ["gen", "serve", "--stall", "1s:1us"], ["gen", "serve", "--stall", "1s:10s"],
    ["gen", "send", "h", "--stall", "1s:1s"], ["gen", "serve", "--backend", "verbs", "--stall", "1s:1s"],
    # doctor
    ["doctor", "--priority", "8"], ["doctor", "--dscp", "64"], ["doctor", "--mtu", "1000"], ["doctor", "--mtu", "100"],
    ["doctor", "--mtu", "x"], ["doctor", "--speed", "1"], ["doctor", "--interval", "2h"], ["doctor", "--traffic", "1us"],
    ["doctor", "--capture-from", "x"], ["doctor", "--launcher", "ssh"], ["doctor", "--remote", "r"], ["doctor", "--timeout", "1s"],
    ["doctor", "--parallel", "2"], ["doctor", "--parallel", "0", "--hosts", "a"], ["doctor", "--timeout", "0", "--hosts", "a"],
    ["doctor", "--hosts", "a", "--sysfs-root", "a b"], ["doctor", "--sysfs-root", "a b", "--priority", "9"],
    ["doctor", "--hosts", ","], ["doctor", "--zz"], ["doctor", "-x"], ["doctor", "--json=1"], ["doctor", "--p", "1"],
    ["doctor", "--no-netlink=x"], ["doctor", "--hosts"], ["doctor", "--t", "1"], ["doctor", "--ti", "x"], ["doctor", "--timeout", "x"],
    ["doctor", "--hosts", "a", "--tools-dir", "d", "--no-netlink", "--sysfs-root", "s", "-v", "--mtu", "0x400",
     "--json", "--parallel", "65", "--priority", "8"],
    ["doctor"] + ["--hosts=a"] * 65, ["doctor"] + ["--dscp=1"] * 65 + ["--hosts=a"],
    # abbreviations: ambiguous, or naming one option
    ["gen", "serve", "--d", "1"], ["gen", "serve", "--report-", "--tx", "0"], ["gen", "serve", "--report-gbits", "--tx-depth", "0"], ["gen", "send", "h", "--qdepth=0"],
    ["gen", "send", "h", "--report-gbits", "-t", "x"], ["capture", "-i", "x", "--me", "1"], ["capture", "-i", "x", "--rem", "x"],
    ["capture", "-i", "x", "--remote", "x"], ["capture", "-i", "x", "--metrics-l", "1h1"], ["capture", "-i", "x", "--metrics-linger", "1h1"], ["analyze", F, "--vantage-w", "0"], ["analyze", F, "--vantage-window", "0"],
    ["analyze", F, "--v", "x"], ["timeline", F, "--by"], ["timeline", F, "--by-v=1"], ["timeline", F, "--by-vantage=1"], ["dissect", F, "--n"],
    # repeated options: the last one holds, lists grow to their limit
    ["timeline", F, "--format", "json", "--format", "csv"], ["dissect", F, "-c", "1", "-c", "2", "--flow", "x", "--flow", "qp:1"],
    ["capture"] + ["--hosts=a"] * 65, ["capture", "--hosts", "a", "-w", "d/"] + ["-s", "9"] * 33,
    ["capture", "--hosts", "a", "-w", "d/", "--stats", "--counters", "1s", "--format", "pcap", "-B", "64", "--counters=x"],
    # Slurm hostlists in --hosts, --slurm (the allocation's nodes), doctor --prolog
    ["capture", "--hosts", "n[1-2]", "-w", "d/"], ["capture", "--hosts", "n[1-2]=eth0,n2=eth1", "-w", "d/"],
    ["capture", "--hosts", "n[1-2]=a;b", "-w", "d/"], ["capture", "--hosts", "n[3-1]", "-i", "x", "-w", "d/"],
    ["capture", "--hosts", "n[1-2", "-i", "x", "-w", "d/"], ["capture", "--hosts", "n[1-2]x", "-i", "x", "-w", "d/"],
    ["capture", "--hosts", "=eth0", "-w", "d/"], ["capture", "--hosts", "n[1-4097]", "-i", "x", "-w", "d/"],
    # --analyze-there: at most 1024 hosts (their partials merge), refused before anything runs; more
    # than 8 hosts without it: the analysis here follows 8 points, said before the captures
    ["capture", "--hosts", "n[1-1025]", "-i", "x", "-w", "d/", "--analyze-there", "--launcher", "false {host}"],
    ({"SLURM_JOB_NODELIST": "n[1-1025]"}, ["capture", "--slurm", "-i", "x", "-w", "d/", "--analyze-there"]),
    ["capture", "--hosts", "n[1-9]", "-i", "x", "-w", "d/", "--analyze-there", "--launcher", "false {host}", "--timeout", "1"],
    ["capture", "--hosts", "n[1-9]", "-i", "x", "-w", "d/", "--launcher", "false {host}", "--timeout", "1"],
    ["capture", "--hosts", "n[1-8]", "-i", "x", "-w", "d/", "--analyze-there", "--launcher", "false {host}", "--timeout", "1"],
    ["capture", "--slurm", "-i", "x", "-w", "d/"], ({"SLURM_JOB_NODELIST": ""}, ["capture", "--slurm", "-w", "d/"]),
    (S, ["capture", "--slurm", "--hosts", "a", "-w", "d/"]), (S, ["capture", "--slurm", "-w", "d/"]),
    (S, ["capture", "--slurm", "-w", "d/", "-G", "1"]), (S, ["capture", "--slurm", "-r", F]),
    (S, ["capture", "--sl", "-i", "x", "-w", "-"]), (S, ["capture", "--slurm", "-i", "x", "-w", "-"]), (S, ["capture", "--slurm", "-i", "x"]), ["capture", "--slurm=1"],
    (S, ["capture", "-i", "x", "--slurm", "-w", "d/", "--launcher", "l", "--remote", "r", "--no-analyze", "--timeout", "5", "-G", "1"]),
    ["doctor", "--hosts", "a[1-2],a2"], ["doctor", "--hosts", "a[2-1]"], ["doctor", "--hosts", "a[1-3]x"],
    ["doctor", "--hosts", "a[1-4097]"], ["doctor", "--hosts", "a[1-2]=x,a1=x"], ["doctor", "--slurm"],
    (S, ["doctor", "--slurm", "--hosts", "a"]), ["doctor", "--slurm=1"], (S, ["doctor", "--slurm", "--prolog"]),
    ({"SLURM_JOB_NODELIST": "n[1-2],n1"}, ["doctor", "--slurm"]),
    ({"SLURM_JOB_NODELIST": "n[1-2],n1"}, ["doctor", "--slu", "--parallel", "2", "--timeout", "1s", "--launcher", "l"]), ({"SLURM_JOB_NODELIST": "n[1-2],n1"}, ["doctor", "--slurm", "--parallel", "2", "--timeout", "1s", "--launcher", "l"]),
    (S, ["doctor", "--slurm", "--parallel", "0"]), ["doctor", "--slurm", "--launcher", "l"],
    ["doctor", "--prolog", "--json"], ["doctor", "--prolog", "-v"], ["doctor", "--prolog", "--traffic", "1"],
    ["doctor", "--prolog", "--hosts", "a"], ["doctor", "--prolog", "--launcher", "l"], ["doctor", "--prolog=1"],
    ["doctor", "--pro", "--json"], ["doctor", "--prolog", "--json"], ["doctor", "--pr", "3"], ["doctor", "--prolog", "--interval", "x"],
    ["doctor", "--prolog", "--no-netlink", "--sysfs-root", TREE + "good", "--tools-dir", "tests/doctor/recordings"],
    ["doctor", "--prolog", "--no-netlink", "--sysfs-root", TREE + "mtu1500", "--tools-dir", "tests/doctor/recordings"],
    ["doctor", "--no-netlink", "--prolog", "--interval", "0.01", "--sysfs-root", TREE + "mtu1500", "--tools-dir",
     "tests/doctor/recordings", "mlx5_0:1"],
]


def run(exe, invocation, tmp):
    env, args = invocation if isinstance(invocation, tuple) else ({}, invocation)
    base = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    res = subprocess.run([exe] + args, capture_output=True, cwd=tmp, timeout=60,
                         env=dict(base, COLUMNS="80", NO_COLOR="1", **env))
    got = {"args": args, "rc": res.returncode,
           "stdout": hashlib.sha256(res.stdout).hexdigest()[:16],
           "stderr": res.stderr.decode("utf-8", "replace")}
    if env:
        got["env"] = env
    return got


def key(record):
    return json.dumps([record.get("env", {}), record["args"]])


def main():
    exe, root = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    golden = os.path.join(root, "tests", "tools", "cli_messages.golden")
    with tempfile.TemporaryDirectory() as tmp:
        # the fixtures by the names the invocations use, in a folder of their own (outputs land there)
        os.makedirs(os.path.join(tmp, "tests"))
        for d in ("fixtures", "doctor"):
            os.symlink(os.path.join(root, "tests", d), os.path.join(tmp, "tests", d))
        got = [run(exe, args, tmp) for args in INVOCATIONS]
    if "--record" in sys.argv:
        with open(golden, "w") as f:
            for g in got:
                f.write(json.dumps(g) + "\n")
        print(f"recorded {len(got)} invocations")
        return 0
    with open(golden) as f:
        want = {key(w): w for w in map(json.loads, f)}
    bad = 0
    for g in got:
        w = want.get(key(g))
        if w != g:
            bad += 1
            env = "".join(f"{k}={v} " for k, v in g.get("env", {}).items())
            print("FAIL: " + env + "rocetrace " + " ".join(g["args"]))
            print("  want: " + json.dumps(w))
            print("  got:  " + json.dumps(g))
    print(f"{len(got) - bad} of {len(got)} invocations answer as recorded")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
