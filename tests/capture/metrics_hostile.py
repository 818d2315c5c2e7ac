#!/usr/bin/python3
"""System test: hostile and slow HTTP clients cannot stall `capture --metrics` or grow its memory without bound.

Usage: metrics_hostile.py ROCETRACE
In a network namespace the test creates (root, else skipped; removed on
every exit), `rocetrace capture -i lo --stats --metrics 127.0.0.1:0 -- SENDER`
captures RoCE datagrams a bounded sender puts on the namespace's loopback
(at most 20000, 2 ms apart). Against its metrics port, all on that loopback:
a flood of 200 connections from 127.0.0.1 (while it holds, scrapes from
127.0.0.2 succeed and the capture's frame count advances); a client that
connects and sends nothing and one that stops in the middle of its request
line (both closed by the server's idle timeout, with generous margins);
a 1 MiB header (answered 431 or the connection closed); 300 scrapes in a
row. Through all of it the frame count keeps advancing and the capture's
resident memory grows by less than 64 MiB; the capture ends normally.
"""
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import metrics_lib as ml  # noqa: E402

SENDER = r"""
import socket, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", 4791))
# a RoCEv2 RC SEND only: BTH (opcode 4, P_Key 0xffff, QP 0x11, AckReq), 16 bytes, an ICRC
for psn in range(20000):
    s.sendto(bytes([4, 0, 0xff, 0xff, 0, 0, 0, 0x11, 0x80, 0, psn >> 8 & 0xff, psn & 0xff]) + b"x" * 16 + b"\0" * 4,
             ("127.0.0.1", 4791))
    time.sleep(0.002)
"""
RSS_GROWTH_MAX = 64 << 20


def rss(pid):
    with open("/proc/%d/status" % pid) as f:
        return int(re.search(r"^VmRSS:\s+(\d+) kB", f.read(), re.M).group(1)) * 1024


def frames(port, source="127.0.0.2"):
    """rocetrace_frames_total, scraped from `source`."""
    s = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=(source, 0))
    with s:
        s.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.1 200"):
        raise RuntimeError("scrape answered %r" % head[:40])
    return int(re.search(rb"^rocetrace_frames_total (\d+)$", body, re.M).group(1))


def advancing(port, what, check):
    a = frames(port)
    time.sleep(0.5)
    b = frames(port)
    deadline = time.monotonic() + 20
    while b == a and time.monotonic() < deadline:  # a scrape's figures are up to 250 ms old
        time.sleep(0.25)
        b = frames(port)
    check(b > a, "%s: the capture's frame count advances (%d -> %d)" % (what, a, b))


def closed_by_server(sock, timeout):
    """Wait until the server closes sock (EOF or reset); False when it is still open after timeout."""
    sock.settimeout(timeout)
    try:
        while sock.recv(4096):
            pass
        return True
    except (ConnectionResetError, BrokenPipeError):
        return True
    except socket.timeout:
        return False


def inner(rt):
    errors = []

    def check(cond, what):
        print(("ok: " if cond else "FAIL: ") + what, flush=True)
        if not cond:
            errors.append(what)

    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    with tempfile.TemporaryDirectory() as tmp:
        # under AddressSanitizer, freed memory waits in a quarantine (256 MiB by default) that would
        # count as growth: a small one leaves what the server really keeps
        env = dict(os.environ)
        if env.get("ASAN_OPTIONS") is not None:
            env["ASAN_OPTIONS"] += ":quarantine_size_mb=8"
        # a made-up RDMA port on top of lo, for --counters (capture -D's --sysfs-root)
        port_dir = os.path.join(tmp, "sys", "class", "infiniband", "mlx5_0", "ports", "1")
        for rel, text in (("hw_counters/np_cnp_sent", "12\n"), ("counters/port_xmit_data", "123456\n"),
                          ("gid_attrs/ndevs/0", "lo\n")):
            os.makedirs(os.path.dirname(os.path.join(port_dir, rel)), exist_ok=True)
            with open(os.path.join(port_dir, rel), "w") as f:
                f.write(text)
        cap, port = ml.start([rt, "capture", "-i", "lo", "-w", os.path.join(tmp, "lo.pcapng"), "--stats",
                              "--counters", "0.2", "--sysfs-root", os.path.join(tmp, "sys"),
                              "--metrics", "127.0.0.1:0", "--", sys.executable, "-c", SENDER], env=env)
        # keep reading its --stats lines so it never blocks on a full pipe
        threading.Thread(target=lambda: [None for _ in cap.stderr], daemon=True).start()
        try:
            time.sleep(0.5)
            base = rss(cap.pid)
            advancing(port, "before any client", check)
            _, _, body = ml.scrape(port)
            check('rocetrace_nic_counter{dev="mlx5_0",port="1",name="np_cnp_sent"} 12\n' in body and
                  'rocetrace_nic_counter{dev="mlx5_0",port="1",name="port_xmit_data"} 123456\n' in body,
                  "--counters: the RDMA port's counters are exported")

            flood = []
            for _ in range(200):
                s = socket.socket()
                s.setblocking(False)
                s.connect_ex(("127.0.0.1", port))
                flood.append(s)
            time.sleep(0.5)
            advancing(port, "200 connections from 127.0.0.1 held open, scraped from 127.0.0.2", check)
            for s in flood:
                s.close()

            silent = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.3", 0))
            partial = socket.create_connection(("127.0.0.1", port), timeout=10, source_address=("127.0.0.4", 0))
            partial.sendall(b"GET /metr")
            start = time.monotonic()

            big = socket.create_connection(("127.0.0.1", port), timeout=20, source_address=("127.0.0.5", 0))
            answer = b""
            try:
                big.sendall(b"GET /metrics HTTP/1.1\r\nHost: t\r\nX-Big: " + b"a" * (1 << 20) + b"\r\n\r\n")
                while True:
                    chunk = big.recv(4096)
                    if not chunk:
                        break
                    answer += chunk
            except (ConnectionResetError, BrokenPipeError):
                pass
            big.close()
            check(answer == b"" or re.match(rb"HTTP/1\.[01] (431|413|414|400) ", answer) is not None,
                  "a 1 MiB header: %s" % (answer[:30] or b"connection closed"))

            ok = 0
            for _ in range(300):
                status, _, body = ml.scrape(port, host="127.0.0.1")
                ok += status == 200 and "rocetrace_frames_total" in body
            check(ok == 300, "300 scrapes in a row answered (%d)" % ok)
            advancing(port, "after the scrapes, the silent and the half-sent client connected", check)

            # the idle timeout is 10 s: allow four times that on a loaded machine
            check(closed_by_server(silent, 40 - (time.monotonic() - start)),
                  "a client that sends nothing is closed by the server")
            check(closed_by_server(partial, max(1.0, 40 - (time.monotonic() - start))),
                  "a client that stops inside its request line is closed by the server")
            silent.close()
            partial.close()
            advancing(port, "after the slow clients", check)
            grown = rss(cap.pid) - base
            check(grown < RSS_GROWTH_MAX, "resident memory grew by %d KiB (less than %d MiB)"
                  % (grown >> 10, RSS_GROWTH_MAX >> 20))
        finally:
            cap.terminate()  # SIGTERM: the capture stops and passes it to the sender
            try:
                rc = cap.wait(timeout=30)
            except subprocess.TimeoutExpired:
                cap.kill()
                rc = cap.wait()
        check(rc in (0, 143), "the capture ends on SIGTERM (exit %d: the sender's status)" % rc)
    print("%d problems" % len(errors))
    return 1 if errors else 0


def main():
    rt = os.path.abspath(sys.argv[1])
    if len(sys.argv) > 2 and sys.argv[2] == "--inner":
        return inner(rt)
    return ml.in_netns("rthm", __file__, rt, 150)


if __name__ == "__main__":
    sys.exit(main())
