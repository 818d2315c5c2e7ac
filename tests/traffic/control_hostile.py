#!/usr/bin/python3
"""System test: gen serve's setup exchange refuses a HELLO whose QP count would overflow its QP table."""
import random
import socket
import subprocess
import sys
import time


def hello(addr, line):
    """Connect to the control port (retrying while the server starts), send one line, read the reply."""
    for _ in range(100):
        try:
            s = socket.create_connection(addr, timeout=5)
            break
        except ConnectionRefusedError:
            time.sleep(0.05)
    else:
        raise RuntimeError("control port never opened")
    s.sendall(line.encode() + b"\n")
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = s.recv(65536)
        if not chunk:
            break
        reply += chunk
    return s, reply.decode()


def main():
    rocetrace = sys.argv[1]
    server = f"127.{random.randint(64, 250)}.{random.randint(1, 250)}.1"
    port = random.randint(20000, 60000)
    srv = subprocess.Popen([rocetrace, "gen", "serve", "-B", server, "--control-port", str(port),
                            "-c", "2", "-D", "10"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    errors = []
    try:
        a, ra = hello((server, port), "HELLO 1 write 1024 1024 1 65536:0:40000")
        if not ra.startswith("READY "):
            errors.append(f"a valid HELLO got {ra!r}")
        # 2^32 - 1 QPs: with one QP taken, a wrapping "taken + asked" check would let it in
        b, rb = hello((server, port), "HELLO 1 write 1024 1024 4294967295" + " 7:7:7" * 1300)
        if not rb.startswith("ERROR too many QPs"):
            errors.append(f"an overflowing QP count got {rb[:60]!r}")
        a.close()
        b.close()
        out, err = srv.communicate(timeout=30)
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()
    if srv.returncode != 0:
        errors.append(f"serve exit {srv.returncode}: {err.strip()}")
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("ok: hostile HELLO refused")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
