"""A real Slurm cluster on this machine for tests: munged, slurmctld and one slurmd per node, all in a
temporary folder, stopped by pid.

    with SlurmCluster(["h1", "h2", "h3"], prolog="/path/to/prolog") as cluster:
        cluster.run(["srun", "-N1", "-w", "h2", "hostname"])

munged runs with a key and socket of its own; slurmctld and `slurmd -N NODE` each listen on a port
found free at the start; every node is this host (NodeHostname) under its own name, with its spool,
pid and log files in the folder (ProctrackType=proctrack/linuxproc, TaskPlugin=task/none, SlurmUser
root, select/cons_tres by CPU, so steps of several jobs share a node). The start waits until every node
is idle. The stop cancels the jobs, ends the daemons it started (SIGTERM, then SIGKILL) and then every
process still carrying this cluster's SLURM_CONF in its environment (job steps, their tasks), by pid,
and removes the folder; it runs also when the start fails. Needs root, slurm-wlm and munge
(why_not() says what is missing).
"""
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

DAEMONS = ("munged", "slurmctld", "slurmd", "srun", "salloc", "sbatch", "scontrol", "sinfo", "squeue", "scancel")


def why_not():
    """None when a cluster can start here, else the reason."""
    if os.geteuid() != 0:
        return "needs root (slurmd runs jobs as their users)"
    missing = [d for d in DAEMONS if not shutil.which(d) and not os.path.exists(os.path.join("/usr/sbin", d))]
    if missing:
        return "not installed: " + ", ".join(missing) + " (tools/setup-debian installs slurm-wlm and munge)"
    return None


def which(name):
    return shutil.which(name) or os.path.join("/usr/sbin", name)


def free_ports(n):
    """n TCP ports no one listens on now (held open together, so they differ)."""
    socks, ports = [], []
    try:
        for _ in range(n):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("", 0))
            socks.append(s)
            ports.append(s.getsockname()[1])
    finally:
        for s in socks:
            s.close()
    return ports


class SlurmCluster:
    def __init__(self, nodes, prolog=None, cpus=4, start_timeout=30):
        self.nodes = list(nodes)
        self.prolog = prolog
        self.cpus = cpus
        self.start_timeout = start_timeout
        self.dir = None
        self.procs = {}  # name -> Popen, in start order
        self.conf = None

    # --- start -----------------------------------------------------------------------------------
    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def start(self):
        self.dir = tempfile.mkdtemp(prefix="rt-slurm-")
        for sub in ("munge", "state", "log", "spool"):
            os.mkdir(os.path.join(self.dir, sub))
        os.chmod(self.dir, 0o755)
        self._start_munge()
        self._write_conf()
        self._spawn("slurmctld", [which("slurmctld"), "-D", "-i", "-f", self.conf])
        for node in self.nodes:
            os.mkdir(os.path.join(self.dir, "spool", node))
            self._spawn("slurmd-" + node, [which("slurmd"), "-D", "-N", node, "-f", self.conf])
        self._wait_idle()

    def _spawn(self, name, argv):
        log = open(os.path.join(self.dir, "log", name + ".out"), "w")
        self.procs[name] = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=self.env(),
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()

    def _start_munge(self):
        m = os.path.join(self.dir, "munge")
        os.chmod(m, 0o711)  # the socket's folder: reachable by everyone, listable by none
        key = os.path.join(m, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = os.path.join(m, "munge.socket")
        self._spawn("munged", [which("munged"), "-F", "--force", "--key-file=" + key,
                               "--socket=" + self.munge_socket, "--pid-file=" + os.path.join(m, "munged.pid"),
                               "--seed-file=" + os.path.join(m, "munged.seed"),
                               "--log-file=" + os.path.join(self.dir, "log", "munged.log")])
        deadline = time.monotonic() + 10
        while not os.path.exists(self.munge_socket):
            if self.procs["munged"].poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("munged did not start: " + self.log("munged.out"))
            time.sleep(0.05)

    def _write_conf(self):
        host = socket.gethostname()
        ports = free_ports(1 + len(self.nodes))
        d = self.dir
        lines = [
            f"ClusterName=rt{os.getpid()}",
            f"SlurmctldHost={host}(127.0.0.1)",
            f"SlurmctldPort={ports[0]}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            f"AuthInfo=socket={self.munge_socket}",
            "CredType=cred/munge",
            f"StateSaveLocation={d}/state",
            f"SlurmdSpoolDir={d}/spool/%n",
            f"SlurmctldPidFile={d}/slurmctld.pid",
            f"SlurmdPidFile={d}/slurmd-%n.pid",
            f"SlurmctldLogFile={d}/log/slurmctld.log",
            f"SlurmdLogFile={d}/log/slurmd-%n.log",
            f"PlugStackConfig={d}/plugstack.conf",
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SchedulerType=sched/builtin",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU",
            "SlurmdParameters=config_overrides",
            "MpiDefault=none",
            "ReturnToService=2",
            "JobCompType=jobcomp/none",
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none",
            "InactiveLimit=0",
            "KillWait=2",
            "SlurmdTimeout=60",
        ]
        if self.prolog:
            lines.append(f"Prolog={self.prolog}")
        for node, port in zip(self.nodes, ports[1:]):
            lines.append(f"NodeName={node} NodeHostname={host} NodeAddr=127.0.0.1 Port={port} "
                         f"CPUs={self.cpus} State=UNKNOWN")
        lines.append(f"PartitionName=rt Nodes={','.join(self.nodes)} Default=YES MaxTime=INFINITE State=UP")
        self.conf = os.path.join(d, "slurm.conf")
        with open(self.conf, "w") as f:
            f.write("\n".join(lines) + "\n")
        open(os.path.join(d, "plugstack.conf"), "w").close()

    def _wait_idle(self):
        deadline = time.monotonic() + self.start_timeout
        states = {}
        while time.monotonic() < deadline:
            for name, p in self.procs.items():
                if p.poll() is not None:
                    raise RuntimeError(f"{name} ended with status {p.returncode}: {self.log(name + '.out')}")
            r = self.run(["sinfo", "-h", "-N", "-o", "%N %T"], timeout=10)
            states = dict(line.split() for line in r.stdout.splitlines() if len(line.split()) == 2)
            if r.returncode == 0 and all(states.get(n) == "idle" for n in self.nodes):
                return
            time.sleep(0.2)
        raise RuntimeError(f"the nodes are not idle after {self.start_timeout} s: {states}; "
                           + self.log("slurmctld.log"))

    # --- use -------------------------------------------------------------------------------------
    def env(self, **more):
        env = dict(os.environ, SLURM_CONF=self.conf or "")
        for k in ("SLURM_JOB_ID", "SLURM_JOBID", "SLURM_JOB_NODELIST", "SLURM_NODELIST"):
            env.pop(k, None)
        env.update(more)
        return env

    def run(self, argv, timeout=60, **kw):
        """argv with this cluster's SLURM_CONF; a CompletedProcess (text)."""
        return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, env=self.env(), **kw)

    def node(self, name):
        """`scontrol show node NAME` as a dict of its KEY=VALUE words (Reason keeps its spaces)."""
        out = self.run(["scontrol", "-o", "show", "node", name]).stdout.strip()
        fields, key = {}, None
        for word in out.split(" "):
            if "=" in word and (key != "Reason" or word.split("=")[0] in ("Comment", "Extra")):
                key, value = word.split("=", 1)
                fields[key] = value
            elif key:
                fields[key] += " " + word
        return fields

    def log(self, name):
        try:
            with open(os.path.join(self.dir, "log", name)) as f:
                return f.read()[-2000:]
        except OSError as e:
            return str(e)

    # --- stop ------------------------------------------------------------------------------------
    def _ours(self):
        """Processes whose environment holds this cluster's SLURM_CONF: its job steps and their tasks."""
        mark = ("SLURM_CONF=" + self.conf).encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    if mark in f.read().split(b"\0"):
                        found.append(int(entry))
            except OSError:
                continue
        return found

    def stop(self):
        if self.dir is None:
            return
        daemons = [p for p in self.procs.values()]
        if self.conf and "slurmctld" in self.procs and self.procs["slurmctld"].poll() is None:
            # the jobs first, while the daemons can still end them
            deadline = time.monotonic() + 10
            jobs = self.run(["squeue", "-h", "-o", "%i"], timeout=10).stdout.split()
            if jobs:
                self.run(["scancel"] + jobs, timeout=10)
            while jobs and time.monotonic() < deadline:
                time.sleep(0.2)
                jobs = self.run(["squeue", "-h", "-o", "%i"], timeout=10).stdout.split()
        # not the daemons, nor their helpers (slurmctld's slurmscriptd)
        ours = {p.pid for p in daemons}
        self._kill_ours(exclude=ours | {pid for pid in self._ours() if parent(pid) in ours})
        for p in reversed(daemons):
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
        self._kill_ours(exclude=set())
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    def _kill_ours(self, exclude):
        """SIGTERM, then SIGKILL, to what carries this cluster's SLURM_CONF: job steps, their tasks,
        sruns (they outlive their slurmd)."""
        if not self.conf:
            return
        for sig in (signal.SIGTERM, signal.SIGKILL):
            left = [pid for pid in self._ours() if pid not in exclude]
            for pid in left:
                try:
                    os.kill(pid, sig)
                except ProcessLookupError:
                    pass
            deadline = time.monotonic() + 3
            while left and time.monotonic() < deadline:
                left = [pid for pid in left if os.path.exists(f"/proc/{pid}") and not zombie(pid)]
                time.sleep(0.05)


def parent(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return int(f.read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        return 0


def zombie(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True
