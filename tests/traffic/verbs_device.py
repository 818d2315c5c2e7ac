#!/usr/bin/python3
"""System test of the verbs backend on a real RDMA device: serve + send over its address; skipped without one."""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gen_pair import serve_and_send  # noqa: E402


def device_ipv4():
    """(device, IPv4 address) of the first RDMA device whose netdev has one, else None."""
    for dev in sorted(glob.glob("/sys/class/infiniband/*")):
        for net in sorted(glob.glob(os.path.join(dev, "device", "net", "*"))):
            name = os.path.basename(net)
            out = subprocess.run(["ip", "-4", "-o", "addr", "show", "dev", name],
                                 capture_output=True, text=True).stdout.split()
            if "inet" in out:
                return os.path.basename(dev), out[out.index("inet") + 1].split("/")[0]
    return None


def main():
    rocetrace = sys.argv[1]
    found = device_ipv4()
    if not found:
        print("SKIP: no RDMA device with an IPv4 address (/sys/class/infiniband)")
        return 77
    dev, addr = found
    snd, sout, srv_rc = serve_and_send(
        [rocetrace, "gen", "serve", "--backend", "verbs", "-B", addr, "--control-port", "18999",
         "-D", "20"],
        [rocetrace, "gen", "send", addr, "--backend", "verbs", "--op", "send", "--control-port",
         "18999", "-D", "1", "-s", "64K", "-q", "2", "--ib-dev", dev])
    if snd.returncode or srv_rc:
        print(f"FAIL: send exit {snd.returncode}, serve exit {srv_rc}")
        return 1
    sent = [l for l in snd.stdout.splitlines() if l.startswith("summary ")][0]
    got = [l for l in sout.splitlines() if l.startswith("summary ")][0]
    msgs = int(sent.split(" messages=")[1].split()[0])
    recv = int(got.split(" messages_received=")[1].split()[0])
    if msgs == 0 or msgs != recv:
        print(f"FAIL: sent {msgs} messages, server received {recv}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
