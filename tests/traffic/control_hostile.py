#!/usr/bin/python3
"""System test: hostile peers on gen serve's setup port neither end the server nor keep a real sender out."""
import json
import os
import random
import select
import socket
import subprocess
import sys
import tempfile
import time

HELLO_TIMEOUT = 2  # seconds, --hello-timeout
IDLE_TIMEOUT = 4  # seconds, --idle-timeout
MARGIN = 15  # seconds on top of a timeout before a test calls it missed (ASan, loaded machine)


def connect(addr):
    """A connection to the setup port, retrying while the server starts."""
    for _ in range(200):
        try:
            return socket.create_connection(addr, timeout=10)
        except ConnectionRefusedError:
            time.sleep(0.05)
    raise RuntimeError("setup port never opened")


def read_line(s):
    """One reply line (without its newline), or what came before the server closed."""
    reply = b""
    while not reply.endswith(b"\n"):
        try:
            chunk = s.recv(65536)
        except ConnectionResetError:
            break
        if not chunk:
            break
        reply += chunk
    return reply.decode(errors="replace").rstrip("\n")


def closed_within(s, seconds):
    """True once the server closes s (EOF or reset) within `seconds`, reading away anything it sends."""
    end = time.monotonic() + seconds
    s.setblocking(False)
    while time.monotonic() < end:
        r, _, _ = select.select([s], [], [], 0.2)
        if not r:
            continue
        try:
            if not s.recv(65536):
                return True
        except BlockingIOError:
            continue
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def exchange(addr, data):
    """Send raw bytes, return the reply line (or "" if the server just closed)."""
    s = connect(addr)
    try:
        s.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = read_line(s)
    s.close()
    return reply


class Run:
    def __init__(self, rocetrace, server, client, port, tmp, sends):
        self.rt, self.server, self.client, self.port = rocetrace, server, client, port
        self.addr = (server, port)
        self.errors = []
        self.out_path = os.path.join(tmp, "serve.out")
        self.log_path = os.path.join(tmp, "serve.jsonl")
        self.out = open(self.out_path, "wb")
        self.srv = subprocess.Popen([rocetrace, "gen", "serve", "-B", server, "--control-port",
                                     str(port), "-c", str(sends), "-D", "300",
                                     "--hello-timeout", str(HELLO_TIMEOUT),
                                     "--idle-timeout", str(IDLE_TIMEOUT), "--log", self.log_path],
                                    stdout=self.out, stderr=subprocess.STDOUT)
        self.sends = 0

    def fail(self, msg):
        self.errors.append(msg)

    def output(self):
        with open(self.out_path, "rb") as f:
            return f.read()

    def real_send(self, after):
        """A real sender must complete against the same, still running server."""
        if self.srv.poll() is not None:
            self.fail(f"after {after}: the server already exited ({self.srv.returncode})")
            return
        r = subprocess.run([self.rt, "gen", "send", self.server, "-B", self.client,
                            "--control-port", str(self.port), "-D", "0.3", "-s", "4K",
                            "--rate", "200M", "--timeout", "200ms"],
                           capture_output=True, text=True, timeout=120)
        self.sends += 1
        if r.returncode != 0 or "\nsummary " not in "\n" + r.stdout:
            self.fail(f"after {after}: gen send exit {r.returncode}: {r.stderr.strip()}")

    def still_running(self, after):
        time.sleep(0.3)
        if self.srv.poll() is not None:
            self.fail(f"after {after}: the server exited early ({self.srv.returncode})")

    def finish(self):
        try:
            self.srv.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.srv.kill()
            self.srv.wait()
            self.fail("the server did not exit after its last real sender")
        self.out.close()


def hostile(run):
    addr = run.addr

    # 1. connect and close, a few times, and DONE without a HELLO: no client, no end
    for _ in range(3):
        connect(addr).close()
    reply = exchange(addr, b"DONE\n")
    if reply.startswith("BYE"):
        run.fail(f"DONE without HELLO got {reply!r}")
    run.still_running("connect-and-close")
    run.real_send("connect-and-close")
    run.still_running("the first real sender")

    # 2. an idle connection (no byte sent) stays open while a sender runs, then times out
    idle = connect(addr)
    run.real_send("an idle connection")
    if not closed_within(idle, HELLO_TIMEOUT + MARGIN):
        run.fail(f"an idle connection was not closed within {HELLO_TIMEOUT} s + {MARGIN} s")
    idle.close()
    run.still_running("an idle connection")

    # 3. half-open: a HELLO accepted, then silence; a real sender still gets in, the
    # silent one is dropped and does not count as a finished client
    half = connect(addr)
    half.sendall(b"HELLO 1 write 1024 1024 1 65536:0:40000\n")
    ready = read_line(half)
    if not ready.startswith("READY "):
        run.fail(f"a valid HELLO got {ready!r}")
    run.real_send("a half-open client")
    if not closed_within(half, IDLE_TIMEOUT + MARGIN):
        run.fail(f"a silent client was not dropped within {IDLE_TIMEOUT} s + {MARGIN} s")
    half.close()
    # a HELLO and then a close: left without DONE, not a finished client either
    gone = connect(addr)
    gone.sendall(b"HELLO 1 send 4096 1024 2 7:1:40001 8:2:40002\n")
    read_line(gone)
    gone.close()
    run.still_running("a half-open client")

    # 4. QP count overflow: 2^32 - 1 QPs with one QP taken would wrap a "taken + asked" check
    holder = connect(addr)
    holder.sendall(b"HELLO 1 write 1024 1024 1 65536:0:40000\n")
    read_line(holder)
    reply = exchange(addr, b"HELLO 1 write 1024 1024 4294967295" + b" 7:7:7" * 1300 + b"\n")
    if not reply.startswith("ERROR too many QPs"):
        run.fail(f"an overflowing QP count got {reply[:60]!r}")
    holder.close()
    run.real_send("an overflowing QP count")

    # 5. many connections at once, all kept open and silent
    many = []
    for _ in range(200):
        s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        s.setblocking(False)
        s.connect_ex(addr)
        many.append(s)
    time.sleep(0.5)
    run.real_send("200 silent connections")
    for s in many:
        s.close()
    run.still_running("200 silent connections")
    time.sleep(1.2)  # the flood's notices were cut at 10 a second: start a fresh second

    # 6. a huge line without a newline
    s = connect(addr)
    try:
        s.sendall(b"H" * (1 << 20))
    except (BrokenPipeError, ConnectionResetError):
        pass
    reply = read_line(s)
    s.close()
    if reply and not reply.startswith("ERROR line too long"):
        run.fail(f"a 1 MiB line got {reply[:60]!r}")
    run.real_send("a huge line")

    # 7. escape sequences, C1 controls, invalid UTF-8 and a NUL in the text
    evil = (b"\x1b[2J\x1b]0;owned\x07\x9b31m\xff\xfe\x00HELLO 1 \x1b[5m 1 1 1 1:1:1\r\n"
            b"HELLO 1 wr\x1bite 1024 1024 1 1:1:1\n")
    reply = exchange(addr, evil)
    if not reply.startswith("ERROR"):
        run.fail(f"a HELLO with escape sequences got {reply!r}")
    reply = exchange(addr, b"HELLO 1 \x1b[31mwrite 1024 1024 1 1:1:1\n")
    if not reply.startswith("ERROR bad HELLO"):
        run.fail(f"an op with an escape sequence got {reply!r}")
    run.real_send("escape sequences")


def check_output(run):
    out = run.output()
    print(out.decode(errors="backslashreplace"))
    bad = sorted({b for b in out if (b < 0x20 and b != 0x0a) or b >= 0x7f})
    if bad:
        run.fail(f"raw bytes {[hex(b) for b in bad]} reached the operator's output")
    longest = max((len(line) for line in out.split(b"\n") if not line.startswith(b"summary ")),
                  default=0)
    if longest > 160:
        run.fail(f"an output line of {longest} bytes")
    text = out.decode(errors="replace")
    for what in ("closed before its HELLO", "no HELLO within", "no data and no DONE",
                 "left without DONE", "without a line end", "more setup notices not shown",
                 "\\x1b[2J"):
        if what not in text:
            run.fail(f"no notice with {what!r} in the server's output")
    summary = [l for l in text.splitlines() if l.startswith("summary ")]
    if len(summary) != 1:
        run.fail("no summary line")
    else:
        kv = dict(w.split("=", 1) for w in summary[0].split()[1:])
        if kv.get("clients") != str(run.sends):
            run.fail(f"summary clients={kv.get('clients')}, {run.sends} real senders finished")
        if int(kv.get("clients_dropped", 0)) < 3:
            run.fail(f"summary clients_dropped={kv.get('clients_dropped')}, expected >= 3")
    if run.srv.returncode != 0:
        run.fail(f"serve exit {run.srv.returncode}")
    with open(run.log_path, "rb") as f:
        for line in f:
            if any(b < 0x20 for b in line.rstrip(b"\n")):
                run.fail("raw control bytes in the event log")
                break
            json.loads(line)


def check_bind(rocetrace, other):
    """Without -B the setup port listens on 127.0.0.1 only, never on every address."""
    port = random.randint(20000, 60000)
    srv = subprocess.Popen([rocetrace, "gen", "serve", "--control-port", str(port),
                            "-p", str(random.randint(20000, 60000)), "-D", "30"],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    errors = []
    try:
        connect(("127.0.0.1", port)).close()
        try:
            socket.create_connection((other, port), timeout=5).close()
            errors.append(f"the default bind took a connection to {other}")
        except ConnectionRefusedError:
            pass
    finally:
        srv.terminate()
        out, _ = srv.communicate(timeout=30)
    first = out.splitlines()[0] if out else ""
    if not first.startswith("listening on 127.0.0.1,") or "loopback only" not in first:
        errors.append(f"the default bind says {first!r}")
    return errors


def main():
    rocetrace = sys.argv[1]
    net = f"127.{random.randint(64, 250)}.{random.randint(1, 250)}"
    server, client = net + ".1", net + ".2"
    port = random.randint(20000, 60000)
    with tempfile.TemporaryDirectory() as tmp:
        run = Run(rocetrace, server, client, port, tmp, sends=7)
        try:
            hostile(run)
        except (OSError, RuntimeError) as e:
            run.fail(f"the server stopped answering: {e}")
        finally:
            run.finish()
        if run.sends != 7:
            run.fail(f"{run.sends} real senders ran, the test needs 7")
        check_output(run)
    errors = run.errors + check_bind(rocetrace, net + ".9")
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("ok: hostile peers neither ended the server nor kept a sender out")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
