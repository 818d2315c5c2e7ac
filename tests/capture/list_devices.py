#!/usr/bin/python3
"""System test of `rocetrace capture -D`: RDMA ports from a made-up sysfs tree, network interfaces from libpcap.

Usage: list_devices.py ROCETRACE
"""
import os
import re
import subprocess
import sys
import tempfile


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def main():
    exe = sys.argv[1]
    failures = []
    with tempfile.TemporaryDirectory(prefix="rt-list-") as root:
        res = subprocess.run([exe, "capture", "-D", "--sysfs-root", root], capture_output=True,
                             text=True, check=False)
        lines = res.stdout.splitlines()
        if res.returncode != 0 or "  (none in %s/class/infiniband)" % root not in lines:
            failures.append("no RDMA device: %r" % res.stdout)
        ib = os.path.join(root, "class", "infiniband")
        # mlx5_1 port 1 names its netdev in gid_attrs; port 2 has none, the device's net/ has one
        write(os.path.join(ib, "mlx5_1/ports/1/link_layer"), "Ethernet\n")
        write(os.path.join(ib, "mlx5_1/ports/1/state"), "4: ACTIVE\n")
        write(os.path.join(ib, "mlx5_1/ports/1/gid_attrs/ndevs/0"), "ens1f1\n")
        write(os.path.join(ib, "mlx5_1/ports/2/link_layer"), "InfiniBand\n")
        write(os.path.join(ib, "mlx5_1/ports/2/state"), "1: DOWN\n")
        os.makedirs(os.path.join(ib, "mlx5_1/device/net/ens1f0"))
        # mlx5_0 sorts first; its port says nothing
        os.makedirs(os.path.join(ib, "mlx5_0/ports/1"))
        # a device without ports lists nothing
        os.makedirs(os.path.join(ib, "rxe9"))
        res = subprocess.run([exe, "capture", "-D", "--sysfs-root", root], capture_output=True,
                             text=True, check=False)
        lines = res.stdout.splitlines()
        want = ["RDMA devices (verbs sniffer):",
                "  1. mlx5_0:1         link_layer ?          state ?        netdev -",
                "  2. mlx5_1:1         link_layer Ethernet   state ACTIVE   netdev ens1f1",
                "  3. mlx5_1:2         link_layer InfiniBand state DOWN     netdev ens1f0",
                "Network interfaces (libpcap):"]
        built = "not built in" not in res.stdout
        if built and lines[:5] != want:
            failures.append("RDMA ports: got %r, want %r" % (lines[:5], want))
        if not built and [l for l in lines if "mlx5" in l] != want[1:4]:
            failures.append("RDMA ports (no libibverbs): got %r" % lines)
        if res.returncode != 0 or not any(l.split()[1] == "lo" for l in lines[5:] if l.strip()):
            failures.append("network interfaces: no 'lo' in %r" % lines[5:])
        # numbered 1, 2, ... across both lists, for -i N as tcpdump takes it
        numbers = [int(l.split(".")[0]) for l in lines if re.match(r"^  \d+\. ", l)]
        if numbers != list(range(1, len(numbers) + 1)):
            failures.append("-D numbers: %r" % numbers)
        res = subprocess.run([exe, "capture", "-i", str(len(numbers) + 1), "-c", "1",
                              "--sysfs-root", root], capture_output=True, text=True, check=False)
        if res.returncode != 2 or "lists %d devices" % len(numbers) not in res.stderr:
            failures.append("-i past the list: %d %r" % (res.returncode, res.stderr))
    for f in failures:
        print("FAIL " + f)
    if failures:
        return 1
    print("ok: capture -D lists RDMA ports in name order and the network interfaces")
    return 0


if __name__ == "__main__":
    sys.exit(main())
