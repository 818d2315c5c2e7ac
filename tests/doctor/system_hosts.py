#!/usr/bin/python3
"""System test of `rocetrace doctor --hosts`: doctor run on several "hosts" through a launcher, one table back.

Usage: system_hosts.py ROCETRACE SYSFS_FIXTURES RECORDINGS

Without root the hosts are fixture trees: a launcher script of the test runs the
command locally with --sysfs-root set to the host's fixture (and plays an
unreachable and a slow host). As root the hosts are also network namespaces the
test creates (launcher 'ip netns exec {host}'), each with a veth named like the
fixture's netdev: one holding the address the fixture's GIDs were made for,
one another address, so their GID checks differ; the namespaces are removed
at the end.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

RT, SYSFS, REC = sys.argv[1:4]
NETDEV = "ens1f0np0"
failures = []
tmp = tempfile.mkdtemp(prefix="rt-doctor-hosts-")


def check(ok, what):
    print(("ok: " if ok else "FAIL: ") + what)
    if not ok:
        failures.append(what)


# stub tools: PFC on 3, the default DSCP map, the switch with PFC on 3
tools = os.path.join(tmp, "tools")
os.mkdir(tools)
for name, body in {
    "dcb": f'case "$1" in pfc) cat {REC}/dcb_pfc_on3.txt ;; -N) cat {REC}/dcb_app_default.txt ;; esac',
    "lldptool": f"cat {REC}/lldptool_pfc_on3.txt",
}.items():
    with open(os.path.join(tools, name), "w") as f:
        f.write("#!/bin/sh\n" + body + "\n")
    os.chmod(os.path.join(tools, name), 0o755)

# the hosts' trees: every fixture by its name, and n1, n2, n3 (good, mtu1500, np_off) for hostlists
trees = os.path.join(tmp, "trees")
os.mkdir(trees)
for name in os.listdir(SYSFS):
    os.symlink(os.path.join(SYSFS, name), os.path.join(trees, name))
for n, fixture in (("n1", "good"), ("n2", "mtu1500"), ("n3", "np_off")):
    os.symlink(os.path.join(SYSFS, fixture), os.path.join(trees, n))

# a launcher: the "host" is a fixture tree; "unreachable" fails as ssh does; "slow" never answers
launcher = os.path.join(tmp, "launch")
calls = os.path.join(tmp, "calls.log")
with open(launcher, "w") as f:
    f.write(f"""#!/bin/sh
host=$1
shift
echo "$host $*" >> {calls}
case $host in
unreachable) echo "ssh: connect to host unreachable port 22: Connection refused" >&2; exit 255 ;;
slow) exec sleep 60 ;;
esac
exec "$@" --sysfs-root={trees}/$host
""")
os.chmod(launcher, 0o755)


def hosts(names, *extra, env=None):
    cmd = [RT, "doctor", "--hosts", ",".join(names), "--launcher", launcher + " {host}", "--remote", RT,
           "--interval", "0.05", "--tools-dir", tools] + list(extra)
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)


def row(text, name):
    for line in text.splitlines():
        if line.split()[:1] == [name]:
            return line.split()[1:]
    return None


try:
    r = hosts(["good", "mtu1500", "np_off", "unreachable"])
    out = r.stdout
    check(r.returncode == 1, f"a failing host and an unreachable one: exit {r.returncode} {r.stderr.strip()}")
    check(out.startswith(f"rocetrace doctor on 4 hosts (launcher: {launcher} {{host}})"), "title")
    check(row(out, "check") == ["good", "mtu1500", "np_off", "unreachable"], f"header {row(out, 'check')}")
    check(row(out, "link.state") == ["pass", "pass", "pass", "none"], f"link.state row {row(out, 'link.state')}")
    check(row(out, "mtu") == ["pass", "FAIL", "pass"], f"mtu row {row(out, 'mtu')}")
    check(row(out, "ecn.np") == ["pass", "pass", "FAIL"], f"ecn.np row {row(out, 'ecn.np')}")
    check(row(out, "pfc.enabled") == ["pass", "pass", "pass"], f"pfc.enabled row {row(out, 'pfc.enabled')}")
    check(row(out, "verdict") == ["pass", "FAIL", "FAIL"], f"verdict row {row(out, 'verdict')}")
    check("  mtu1500 mlx5_0:1 FAIL mtu: netdev MTU 1500 -> RoCE MTU 1024\n"
          "      fix: ip link set dev ens1f0np0 mtu 4200" in out, "problem and fix of mtu1500")
    check("  np_off mlx5_0:1 FAIL ecn.np: disabled on priority 3" in out, "problem of np_off")
    check("  unreachable: no report (exit 255): ssh: connect to host unreachable port 22: Connection refused"
          in out, "unreachable host explained")
    check("summary: 1 ready, 0 ready with warnings, 2 not ready, 1 without a report" in out, "summary")
    # the settings that must agree: the value most hosts have, the hosts that differ marked
    check("\nconsistency: settings that must agree on every host (* a host that differs)\n"
          "  mtu          4200 on 2 of 3 hosts\n"
          "             * mtu1500: 1500\n"
          "  trust        dscp on 3 of 3 hosts\n"
          "  dscp2prio    0-7:0 8-15:1 16-23:2 24-31:3 32-39:4 40-47:5 48-55:6 56-63:7 on 3 of 3 hosts\n"
          "  pfc          3 on 3 of 3 hosts\n"
          "  cnp_dscp     48 on 3 of 3 hosts\n"
          "  cnp_prio     6 on 3 of 3 hosts\n"
          "  ecn_np       0,1,2,3,4,5,6,7 on 2 of 3 hosts\n"
          "             * np_off: 0,1,2,4,5,6,7\n"
          "  ecn_rp       0,1,2,3,4,5,6,7 on 3 of 3 hosts\n"
          "  gid_index    3 on 3 of 3 hosts\n\nproblems:\n" in out, "consistency table")
    log = open(calls).read().splitlines()
    check(any(line.startswith(f"good {RT} doctor --json --interval=0.05 --tools-dir={tools}") for line in log),
          f"options forwarded to the hosts: {log[:1]}")

    # JSON: every host's own report, as doctor --json prints it there
    r = hosts(["good", "mtu1500", "unreachable"], "--json")
    doc = json.loads(r.stdout)
    check(r.returncode == 1 and [h["host"] for h in doc["hosts"]] == ["good", "mtu1500", "unreachable"],
          "JSON: hosts in order")
    direct = json.loads(subprocess.run([RT, "doctor", "--json", "--interval", "0.05", "--tools-dir", tools,
                                        "--sysfs-root", os.path.join(SYSFS, "mtu1500")],
                                       capture_output=True, text=True).stdout)
    got = {n: c["status"] for n, c in doc["hosts"][1]["report"]["targets"][0]["checks"].items()}
    want = {n: c["status"] for n, c in direct["targets"][0]["checks"].items()}
    check(got == want and doc["hosts"][1]["exit_status"] == 1, "JSON: a host's report is its own doctor --json")
    check(doc["hosts"][2]["report"] is None and doc["hosts"][2]["exit_status"] == 255
          and "Connection refused" in doc["hosts"][2]["problem"], "JSON: the unreachable host")
    rows = {r["setting"]: r for r in doc["consistency"]}
    check(list(rows) == ["mtu", "trust", "dscp2prio", "pfc", "cnp_dscp", "cnp_prio", "ecn_np", "ecn_rp",
                         "gid_index"], f"JSON: the consistency rows {list(rows)}")
    # two hosts, two MTUs: no value most hosts have, both differ
    check(rows["mtu"] == {"setting": "mtu", "value": None, "hosts": {"good": "4200", "mtu1500": "1500"},
                          "differ": ["good", "mtu1500"]}, f"JSON: the mtu row {rows['mtu']}")
    check(rows["pfc"]["value"] == "3" and rows["pfc"]["differ"] == [], "JSON: the pfc row")
    check(doc["hosts"][0]["report"]["targets"][0]["settings"]["mtu"] == 4200, "JSON: a host's settings")

    # Slurm hostlists name the hosts; --slurm takes them from the allocation
    r = hosts(["n[1-3]"])
    check(row(r.stdout, "check") == ["n1", "n2", "n3"] and row(r.stdout, "mtu") == ["pass", "FAIL", "pass"],
          f"--hosts 'n[1-3]': {row(r.stdout, 'check')} {row(r.stdout, 'mtu')}")
    r = subprocess.run([RT, "doctor", "--slurm", "--launcher", launcher + " {host}", "--interval", "0.05",
                        "--tools-dir", tools], capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, SLURM_JOB_NODELIST="n[1-2],good"))
    check(row(r.stdout, "check") == ["n1", "n2", "good"] and r.returncode == 1,
          f"--slurm: the hosts of SLURM_JOB_NODELIST, this rocetrace on them: {row(r.stdout, 'check')} "
          f"{r.stderr.strip()}")
    env = {k: v for k, v in os.environ.items() if k != "SLURM_JOB_NODELIST"}
    r = subprocess.run([RT, "doctor", "--slurm"], capture_output=True, text=True, env=env)
    check(r.returncode == 2 and "--slurm: not inside a Slurm allocation" in r.stderr, f"--slurm outside: {r.stderr}")
    for bad, why in ((["--hosts", "n[1-3]x"], "text after the last ']'"), (["--hosts", "n[2-1]"], "goes down"),
                     (["--hosts", "n[1-2],n2"], "n2 given twice")):
        r = subprocess.run([RT, "doctor", *bad], capture_output=True, text=True)
        check(r.returncode == 2 and why in r.stderr and r.stderr.count("\n") == 1, f"{bad}: {r.stderr.strip()}")

    # only warnings: exit 0
    r = hosts(["good", "trust_pcp", "tos_default"])
    check(r.returncode == 0 and row(r.stdout, "verdict") == ["pass", "warn", "warn"],
          f"warnings only: exit {r.returncode}, verdicts {row(r.stdout, 'verdict')}")

    # a host that never answers is given up after --timeout
    r = hosts(["good", "slow"], "--timeout", "2")
    check(r.returncode == 1 and "  slow: no answer before the timeout" in r.stdout, "slow host timed out")

    # more hosts than fit the width: the table continues below
    many = ["good", "mtu1500", "np_off", "rp_off", "port_down", "trust_pcp"]
    r = hosts(many, "--parallel", "2", env=dict(os.environ, COLUMNS="60"))
    headers = [line for line in r.stdout.splitlines() if line.startswith("check ")]
    check(len(headers) >= 2 and all(len(line) <= 60 for line in headers), f"{len(headers)} tables of <= 60 columns")
    check(sum(len(h.split()) - 1 for h in headers) == len(many), "every host once")

    # usage: a word a remote shell would split cannot be forwarded
    r = subprocess.run([RT, "doctor", "--hosts", "a", "--sysfs-root", "/x y"], capture_output=True, text=True)
    check(r.returncode == 2 and "cannot be passed to the hosts safely" in r.stderr, f"unsafe word: {r.stderr.strip()}")
    r = subprocess.run([RT, "doctor", "--hosts", ",", "--launcher", "x"], capture_output=True, text=True)
    check(r.returncode == 2 and "no host given" in r.stderr, f"empty --hosts: {r.stderr.strip()}")

    # network namespaces as hosts
    if os.geteuid() != 0 or not shutil.which("ip"):
        print("skipped the network-namespace hosts: they need root")
    else:
        base = f"rtdh{os.getpid()}"
        spaces = {base + "a": "192.0.2.10/24", base + "b": "192.0.2.99/24"}
        made = []
        try:
            for n, addr in spaces.items():
                subprocess.run(["ip", "netns", "add", n], check=True)
                made.append(n)
                for cmd in (["link", "add", NETDEV, "type", "veth", "peer", "name", "rtdhpeer"],
                            ["addr", "add", addr, "dev", NETDEV], ["link", "set", NETDEV, "up"]):
                    subprocess.run(["ip", "-n", n] + cmd, check=True)
            missing = base + "x"
            names = list(spaces) + [missing]
            r = subprocess.run([RT, "doctor", "--hosts", ",".join(names), "--launcher", "ip netns exec {host}",
                                "--remote", RT, "--sysfs-root", os.path.join(SYSFS, "good"), "--tools-dir", tools,
                                "--interval", "0.05"], capture_output=True, text=True, timeout=120)
            out = r.stdout
            check(r.returncode == 1, f"netns hosts: exit {r.returncode}")
            check(row(out, "gid.roce_v2") == ["pass", "FAIL"], f"netns hosts: gid.roce_v2 row {row(out, 'gid.roce_v2')}")
            check(f"  {base}b mlx5_0:1 FAIL gid.roce_v2: no RoCE v2 GID for 192.0.2.99" in out,
                  "netns hosts: the missing GID named")
            check(f"  {missing}: no report (exit 255): Cannot open network namespace" in out,
                  "netns hosts: a namespace that does not exist")
        finally:
            for n in made:
                subprocess.run(["ip", "netns", "del", n])
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
