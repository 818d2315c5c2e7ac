#!/usr/bin/python3
"""System test of rocetrace under a real Slurm: capture --hosts through srun, capture --slurm and
doctor --slurm inside an allocation, capture --analyze-there (the analysis on the nodes, partials
merged at home), doctor --prolog, and tools/slurm-prolog draining a node.

Usage: system_slurm.py ROCETRACE SYSFS_FIXTURES RECORDINGS SLURM_PROLOG

A Slurm cluster of three nodes h1, h2, h3 runs on this machine (slurm_cluster.py), with
tools/slurm-prolog as its Prolog. Each node's jobs reach a network namespace of their own
(rtslPID-h1...: eth0 10.78.0.N/24, bridged in a switch namespace rtslPID-sw), through the launcher
(srun ... ip netns exec rtslPID-{host}) or a --remote wrapper that enters the node's namespace. The
workload is a Slurm job step on the three nodes: h3 runs 'rocetrace gen serve', h1 and h2 'gen
send' to it for a second. The captures must come home, one per node, their packets matched between
the nodes as vantage points, and their RoCE packets be what gen says it sent (its summaries).
With --analyze-there --fetch each node's partial comes home too, and their merge must answer as one
analysis of the fetched captures (flows, totals, findings; the paths with the partials' sample),
and their timeline comes in the buckets --bucket gave the nodes (10 ms); with --analyze-there alone only the partials come home, the captures stay on the nodes, named, and
a node whose analysis fails is named and left out of the merge.
doctor --prolog sees the fixture trees of tests/doctor (--sysfs-root), its wrapper's settings file
beside slurm.conf; pointing h3's tree at a broken one makes its next job's Prolog drain it with
doctor's line as the reason. Needs root, slurm-wlm, munge and ip netns; skipped (77) without them.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from slurm_cluster import SlurmCluster, why_not  # noqa: E402

RT, SYSFS, REC, PROLOG = (os.path.abspath(a) for a in sys.argv[1:5])
NODES = ["h1", "h2", "h3"]
PREFIX = f"rtsl{os.getpid()}"
failures = []


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


def script(path, text):
    with open(path, "w") as f:
        f.write("#!/bin/sh\n" + text)
    os.chmod(path, 0o755)
    return path


def make_network(made):
    """A namespace per node, each eth0 bridged in the switch namespace; names appended to made."""
    sw = f"{PREFIX}-sw"
    for ns in [sw] + [f"{PREFIX}-{n}" for n in NODES]:
        subprocess.run(["ip", "netns", "add", ns], check=True)
        made.append(ns)
        subprocess.run(["ip", "-n", ns, "link", "set", "lo", "up"], check=True)
    subprocess.run(["ip", "-n", sw, "link", "add", "br0", "type", "bridge"], check=True)
    subprocess.run(["ip", "-n", sw, "link", "set", "br0", "up"], check=True)
    for i, n in enumerate(NODES, 1):
        ns = f"{PREFIX}-{n}"
        for cmd in (["ip", "-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", n, "netns", sw],
                    ["ip", "-n", ns, "addr", "add", f"10.78.0.{i}/24", "dev", "eth0"],
                    ["ip", "-n", ns, "link", "set", "eth0", "up"],
                    ["ip", "-n", sw, "link", "set", n, "master", "br0", "up"]):
            subprocess.run(cmd, check=True)


def analyze(*args):
    p = subprocess.run([RT, "analyze", "--json", *args], capture_output=True, text=True, timeout=120)
    return json.loads(p.stdout) if p.returncode == 0 else {}


def summary(path):
    """gen's closing 'summary key=value ...' line as a dict."""
    try:
        with open(path) as f:
            for line in f:
                if line.startswith("summary "):
                    return dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
    except OSError:
        pass
    return {}


def capture_checks(label, p, out, gen):
    """The files of a capture run came home, one per node, and hold what gen sent, each packet once."""
    print(p.stderr)
    check(p.returncode == 0, f"{label}: exit {p.returncode} (the workload's)")
    if p.returncode:
        for n, path in gen.items():
            print(f"--- gen on {n} ({path}):")
            print(open(path).read()[-1500:] if os.path.exists(path) else "(none)")
    check("rocetrace capture: capturing on 3 of 3 hosts: h1 (eth0), h2 (eth0), h3 (eth0)" in p.stderr,
          f"{label}: every node capturing")
    files = {n: os.path.join(out, n + ".pcapng") for n in NODES}
    drops = 0
    for n, path in files.items():
        m = re.search(rf"^    {n}: (\d+) frames, (\d+) dropped: {re.escape(path)}(; partial .*)?$", p.stderr, re.M)
        check(m is not None and int(m.group(1)) > 0 and os.path.exists(path), f"{label}: {n}'s file came home")
        drops += int(m.group(2)) if m else 0
    check("Vantage points: " in p.stdout, f"{label}: the analysis over the nodes as vantage points ran")
    both = analyze(*[a for n in NODES for a in ("--vantage", f"{n}={files[n]}")])
    points = [v.get("name") for v in both.get("vantage_points", [])]
    check(points == NODES, f"{label}: one vantage point per node: {points}")
    paths = {(x["from"], x["to"]): x.get("matched", 0) for x in both.get("paths", [])}
    for a, b in (("h1", "h3"), ("h2", "h3")):
        check(paths.get((a, b), 0) > 0, f"{label}: packets of {a} matched at {b} ({paths.get((a, b))})")
    check(paths.get(("h1", "h2"), 0) == 0, f"{label}: none between the two senders")
    # what gen says it sent: data from each sender, and the server's ACKs, NAKs and CNPs
    send = [summary(gen[n]) for n in ("h1", "h2")]
    serve = summary(gen["h3"])
    sent = sum(int(s.get("packets", -1)) for s in send)
    answers = sum(int(serve.get(k, -1)) for k in ("acks_sent", "nak_sent", "cnp_sent"))
    single = analyze(files["h3"]).get("roce_packets", -1)
    total = both.get("roce_packets", -1)
    if drops == 0:
        check(total == sent + answers == single,
              f"{label}: each packet counted once: {total} RoCE packets at the three points, "
              f"{single} at h3, gen sent {sent} and answered {answers}")
    else:
        check(single <= total <= sent + answers, f"{label}: {drops} frames dropped: {total} RoCE packets")


def flows_by_key(d):
    """Each flow by its key: its packets, bytes and CE-marked packets."""
    return {(f["src"], f["dst"], f["dest_qp"]): (f["packets"], f["bytes"], f["ecn"]["ce"])
            for f in d.get("flows", [])}


def paths_of(d):
    """Each path between two points: what was matched, lost and CE-marked between them, and the sample."""
    return {(x["from"], x["to"]): (x.get("matched"), x.get("lost"), x.get("ce_marked"),
                                   (x.get("sample") or {}).get("k"), (x.get("sample") or {}).get("m"))
            for x in d.get("paths", [])}


def there_line(p, n, where, partial):
    """A node's closing line with --analyze-there: its capture (where) and its partial's size, or None."""
    m = re.search(rf"^    {n}: (\d+|unknown) frames, (\d+|unknown) dropped: {re.escape(where)}"
                  rf"; partial {re.escape(partial)} \((\d+) bytes\)$", p.stderr, re.M)
    return int(m.group(3)) if m else None


def partial_checks(label, p, out):
    """--analyze-there --fetch: the partials and the captures came home; the partials merged here answer
    as one analysis of the captures with each node a vantage point, where analyze/README.md says exact."""
    files = {n: os.path.join(out, n + ".pcapng") for n in NODES}
    partials = {n: os.path.join(out, n + ".rtpart") for n in NODES}
    for n in NODES:
        size = there_line(p, n, files[n], partials[n])
        capture = os.path.getsize(files[n]) if os.path.exists(files[n]) else 0
        print(f"{label}: {n}: partial {size} bytes, capture {capture} bytes")
        check(size is not None and size == os.path.getsize(partials[n]) and size < capture / 4,
              f"{label}: {n}'s partial came home, smaller than a quarter of its capture")
    check("rocetrace capture: the analysis: rocetrace analyze " + " ".join(partials[n] for n in NODES)
          in p.stderr, f"{label}: the partials merged here")
    merged = analyze(*[partials[n] for n in NODES])
    one = analyze(*[a for n in NODES for a in ("--vantage", f"{n}={files[n]}")])
    check([v.get("name") for v in merged.get("vantage_points", [])] == NODES,
          f"{label}: the merged partials: one vantage point per node")
    for key in ("packets", "bytes", "roce_packets", "roce_bytes", "flow_count", "totals"):
        check(merged.get(key) == one.get(key) is not None,
              f"{label}: {key} as one analysis of the captures: {merged.get(key)} vs {one.get(key)}")
    check(flows_by_key(merged) == flows_by_key(one) != {},
          f"{label}: the flows (key, packets, bytes, CE) as one analysis: {len(flows_by_key(merged))} flows")
    codes = sorted(f.get("code") for f in merged.get("findings", []))
    check(codes == sorted(f.get("code") for f in one.get("findings", [])), f"{label}: the findings: {codes}")
    # the paths rest on the partials' trajectory sample: one analysis with the same sample matches the same
    sample = {(k, m) for *_, k, m in paths_of(merged).values()}
    check(len(sample) == 1, f"{label}: the paths say their sample: {sample}")
    if len(sample) == 1:
        k, m = sample.pop()
        same = analyze("--vantage-sample", f"{k}/{m}", *[a for n in NODES for a in ("--vantage", f"{n}={files[n]}")])
        check(paths_of(merged) == paths_of(same) != {},
              f"{label}: the paths (matched, lost, CE between) as one analysis sampling {k}/{m}: {paths_of(merged)}")


def main():
    why = why_not() or (None if shutil.which("ip") else "ip (iproute2) is not installed")
    if why:
        print("SKIP:", why)
        return 77
    # a test timeout (SIGTERM) still stops the cluster and removes the namespaces
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    made = []
    tmp = tempfile.mkdtemp(prefix="rt-slurm-test-")
    os.chmod(tmp, 0o755)
    try:
        make_network(made)
        # the nodes' sysfs trees as their Prolog sees them, and as doctor --slurm sees them
        for d in ("sysfs", "doctor"):
            os.mkdir(os.path.join(tmp, d))
        for n, fixture in (("h1", "good"), ("h2", "good"), ("h3", "good")):
            os.symlink(os.path.join(SYSFS, fixture), os.path.join(tmp, "sysfs", n))
        for n, fixture in (("h1", "good"), ("h2", "mtu1500"), ("h3", "good")):
            os.symlink(os.path.join(SYSFS, fixture), os.path.join(tmp, "doctor", n))
        tools = os.path.join(tmp, "tools")
        os.mkdir(tools)
        script(os.path.join(tools, "dcb"), f'case "$1" in pfc) cat {REC}/dcb_pfc_on3.txt ;; '
                                           f'-N) cat {REC}/dcb_app_default.txt ;; esac\n')
        script(os.path.join(tools, "lldptool"), f"cat {REC}/lldptool_pfc_on3.txt\n")
        # the workload, a step on every node: h3 serves, h1 and h2 send to it
        task = script(os.path.join(tmp, "task.sh"), f"""ns={PREFIX}-$SLURMD_NODENAME
out={tmp}/gen-$SLURM_JOB_ID-$SLURMD_NODENAME.txt
case $SLURMD_NODENAME in
h3) exec ip netns exec $ns {RT} gen serve -B 10.78.0.3 --clients 2 -D 15 >$out 2>&1 ;;
esac
# the senders start once the server listens on its setup port (18515) in h3's namespace
for i in $(seq 200); do
	ip netns exec {PREFIX}-h3 ss -ltnH 'sport = :18515' | grep -q . && break
	sleep 0.05
done
# 4 KiB messages and a 200 ms retransmission timeout: a loaded machine's late ACKs cause no resends
exec ip netns exec $ns {RT} gen send 10.78.0.3 -D 1 --line-rate 20M -b 1M -s 4K --timeout 200ms >$out 2>&1
""")
        # what runs on a node for --slurm's own launcher: rocetrace inside the node's namespace
        remote = script(os.path.join(tmp, "node-rocetrace"), f'exec ip netns exec {PREFIX}-$SLURMD_NODENAME {RT} "$@"\n')
        doctor_remote = script(os.path.join(tmp, "node-doctor"),
                               f'exec {RT} "$@" --sysfs-root={tmp}/doctor/$SLURMD_NODENAME\n')
        started = time.monotonic()
        with SlurmCluster(NODES, prolog=PROLOG) as cluster:
            print(f"cluster up in {time.monotonic() - started:.1f} s: {cluster.dir}")
            with open(os.path.join(cluster.dir, "rocetrace-prolog.conf"), "w") as f:
                f.write(f'ROCETRACE={RT}\nDOCTOR_ARGS="--sysfs-root {tmp}/sysfs/$SLURMD_NODENAME '
                        f'--tools-dir {tools}"\n')
            runs(cluster, tmp, task, remote, doctor_remote, tools)
    finally:
        for ns in made:
            subprocess.run(["ip", "netns", "del", ns])
        shutil.rmtree(tmp, ignore_errors=True)
    leftover = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True).stdout
    check(PREFIX + "-" not in leftover, "the namespaces are gone")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


def gen_files(tmp, before):
    """The gen outputs of the one job whose files appeared since `before` (a set of names), by node."""
    new = sorted(set(os.listdir(tmp)) - before)
    return {n: os.path.join(tmp, next((f for f in new if f.startswith("gen-") and f.endswith(f"-{n}.txt")), "none"))
            for n in NODES}


def bucket_checks(label, out):
    """--bucket 10ms: the partials keep 10 ms buckets; their timeline takes them when not told, and refuses a
    bucket that is not a multiple of them."""
    partials = [os.path.join(out, n + ".rtpart") for n in NODES]
    p = subprocess.run([RT, "timeline", *partials], capture_output=True, text=True, timeout=120)
    check(p.returncode == 0 and "no --bucket: 10.000 ms buckets" in p.stderr,
          f"{label}: the partials' timeline in their 10 ms buckets: exit {p.returncode}, {p.stderr.strip()}")
    times = sorted({int(line.split(",", 1)[0]) for line in p.stdout.splitlines()[1:] if line})
    check(len(times) > 1 and all((b - a) % 10000000 == 0 for a, b in zip(times, times[1:])),
          f"{label}: the timeline's rows 10 ms apart: {len(times)} buckets")
    p = subprocess.run([RT, "timeline", "--bucket", "5ms", *partials], capture_output=True, text=True, timeout=120)
    check(p.returncode == 2 and "not a multiple of the partials' buckets" in p.stderr,
          f"{label}: --bucket 5ms refused over 10 ms buckets: exit {p.returncode}")


def runs(cluster, tmp, task, remote, doctor_remote, tools):
    # 1. --hosts as a hostlist, the launcher entering each node's namespace: every srun a job of its own
    out = os.path.join(tmp, "hosts")
    before = set(os.listdir(tmp))
    t = time.monotonic()
    p = cluster.run([RT, "capture", "--hosts", "h[1-3]", "--launcher",
                     f"srun --overlap -N1 -n1 -w {{host}} ip netns exec {PREFIX}-{{host}}", "--remote", RT,
                     "--remote-dir", tmp, "-i", "eth0", "-w", out + "/", "--", "srun", "-N3", "-n3", task],
                    timeout=120)
    print(f"capture --hosts: {time.monotonic() - t:.1f} s")
    capture_checks("--hosts 'h[1-3]'", p, out, gen_files(tmp, before))
    check(not [f for f in os.listdir(tmp) if f.startswith("rocetrace-")], "--hosts: the nodes' files removed")

    # 2. --slurm inside an allocation: its nodes, srun --overlap, the remote command entering the namespace;
    # each node analyzes its capture there, and the partials and the captures come home
    out = os.path.join(tmp, "slurm")
    before = set(os.listdir(tmp))
    t = time.monotonic()
    p = cluster.run(["salloc", "-N3", RT, "capture", "--slurm", "--remote", remote, "--remote-dir", tmp,
                     "--analyze-there", "--bucket", "10ms", "--fetch", "-i", "eth0", "-w", out + "/", "--",
                     "srun", "-N3", "-n3", task],
                    timeout=120)
    print(f"capture --slurm --analyze-there --fetch: {time.monotonic() - t:.1f} s")
    capture_checks("--slurm", p, out, gen_files(tmp, before))
    check(re.search(r"salloc: Granted job allocation \d+", p.stderr) is not None, "--slurm: inside salloc")
    partial_checks("--slurm --analyze-there --fetch", p, out)
    bucket_checks("--slurm --analyze-there --bucket 10ms", out)
    check(not [f for f in os.listdir(tmp) if f.startswith("rocetrace-")], "--slurm: the nodes' files removed")

    # 3. --analyze-there alone: only the partials come home, the captures stay on the nodes; h2's analysis
    # fails (its remote command refuses it), h3's partial comes home cut (its remote command truncates it
    # after the analysis: the check at home refuses it), and h1's is analyzed without them
    out = os.path.join(tmp, "there")
    flaky = script(os.path.join(tmp, "node-rocetrace-flaky"),
                   f'[ "$1" = analyze ] && [ "$SLURMD_NODENAME" = h2 ] && '
                   f'{{ echo "rocetrace analyze: refused on h2 by the test" >&2; exit 1; }}\n'
                   f'[ "$1" = analyze ] && [ "$SLURMD_NODENAME" = h3 ] && '
                   f'{{ {RT} "$@" || exit; exec truncate -s 200 "$3"; }}\nexec {RT} "$@"\n')
    t = time.monotonic()
    p = cluster.run([RT, "capture", "--hosts", "h[1-3]", "--launcher",
                     f"srun --overlap -N1 -n1 -w {{host}} ip netns exec {PREFIX}-{{host}}", "--remote", flaky,
                     "--remote-dir", tmp, "--analyze-there", "-i", "eth0", "-w", out + "/",
                     "--", "srun", "-N3", "-n3", task], timeout=120)
    print(f"capture --hosts --analyze-there: {time.monotonic() - t:.1f} s")
    print(p.stderr)
    check(p.returncode == 1, f"--analyze-there: exit {p.returncode} (h2 failed)")
    left = {n: re.search(rf"^    {n}: \S+ frames, \S+ dropped: {n}:(\S+?)[;\n]", p.stderr + "\n", re.M) for n in NODES}
    for n in NODES:
        where = left[n].group(1) if left[n] else "(not named)"
        check(os.path.exists(where) and os.path.getsize(where) > 0, f"--analyze-there: {n}'s capture stays on it: {where}")
    home = sorted(os.listdir(out)) if os.path.isdir(out) else []
    check(home == ["h1.rtpart", "h3.rtpart.part"],
          f"--analyze-there: only the partials came home, h3's cut one as .part: {home}")
    for n in ("h1",):
        size = there_line(p, n, f"{n}:{left[n].group(1) if left[n] else ''}", os.path.join(out, n + ".rtpart"))
        print(f"--analyze-there: {n}'s partial: {size} bytes")
        check(size is not None, f"--analyze-there: {n}'s closing line names its capture there and its partial")
    check(re.search(r"^    h2: .*; failed: its analysis there failed: rocetrace analyze: refused on h2 by the test "
                    r"\(exit 1\)$", p.stderr, re.M) is not None, "--analyze-there: h2's failure said")
    check(re.search(r"^    h3: .*; failed: its partial came home unreadable: \S*h3\.rtpart\.part: truncated "
                    r".*\(kept as \S*h3\.rtpart\.part, and on the host\)$", p.stderr, re.M) is not None,
          "--analyze-there: h3's cut partial refused at home, said")
    check(re.search(rf"^    h3: .*; partial ", p.stderr, re.M) is None, "--analyze-there: h3's partial not home")
    check("rocetrace capture: missing from the analysis (no partial): h2, h3\n" in p.stderr,
          "--analyze-there: the missing points named")
    check(re.search(r"^rocetrace capture: the analysis: rocetrace analyze \S*h1\.rtpart$", p.stderr, re.M)
          is not None, "--analyze-there: h1's partial alone analyzed")
    check("Flows" in p.stdout or "flows" in p.stdout, "--analyze-there: h1's report printed")

    # 4. doctor --slurm: a table over the job's nodes; h2's tree has MTU 1500
    p = cluster.run(["salloc", "-N3", RT, "doctor", "--slurm", "--remote", doctor_remote, "--interval", "0.05",
                     "--tools-dir", tools], timeout=120)
    print(p.stdout, p.stderr)
    check(p.returncode == 1 and "rocetrace doctor on 3 hosts (launcher: srun --overlap -N1 -n1 -w {host})"
          in p.stdout, f"doctor --slurm: exit {p.returncode}, the allocation's nodes through srun")
    check("  mtu          4200 on 2 of 3 hosts\n             * h2: 1500\n" in p.stdout,
          "doctor --slurm: h2's MTU differs from the other nodes'")

    # 5. doctor --prolog as a job step: silent and 0 on a good node, one line and 1 on a bad one
    for node, tree, status, line in (("h1", "good", 0, ""),
                                     ("h2", "mtu1500", 1, "rocetrace doctor: not ready: mlx5_0:1 mtu\n")):
        t = time.monotonic()
        p = cluster.run(["srun", "-N1", "-n1", "-w", node, RT, "doctor", "--prolog", "--sysfs-root",
                         os.path.join(SYSFS, tree), "--tools-dir", tools])
        check(p.returncode == status and p.stdout == line,
              f"doctor --prolog on {node} ({tree}): exit {p.returncode}, {p.stdout!r} {p.stderr.strip()!r} "
              f"in {time.monotonic() - t:.1f} s with the job's start")

    # 6. Prolog=tools/slurm-prolog: h3 goes bad, its next job fails and h3 is drained with the reason
    link = os.path.join(tmp, "sysfs", "h3")
    os.unlink(link)
    os.symlink(os.path.join(SYSFS, "mtu1500"), link)
    p = cluster.run(["srun", "-N1", "-n1", "-w", "h3", "true"])
    check(p.returncode != 0 and "prolog" in p.stderr.lower(), f"a job on h3 fails its Prolog: {p.stderr.strip()}")
    deadline = time.monotonic() + 15
    node = cluster.node("h3")
    while "DRAIN" not in node.get("State", "") and time.monotonic() < deadline:
        time.sleep(0.2)
        node = cluster.node("h3")
    check("DRAIN" in node.get("State", "") and
          node.get("Reason", "").startswith("rocetrace doctor: not ready: mlx5_0:1 mtu"),
          f"h3 drained by the Prolog: State={node.get('State')} Reason={node.get('Reason')}")
    check("DRAIN" not in cluster.node("h1").get("State", "DRAIN"), "h1 is not drained")


if __name__ == "__main__":
    sys.exit(main())
