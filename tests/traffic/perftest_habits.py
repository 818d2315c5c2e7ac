#!/usr/bin/python3
"""System test: gen takes perftest's options (-d -i -x -t -n -a --report_gbits, gen lat) over loopback."""
import os
import random
import re
import subprocess
import sys
import tempfile


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=kw.pop("timeout", 60), **kw)


def main():
    rt = sys.argv[1]
    errors = []

    def check(cond, what):
        if not cond:
            errors.append(what)

    # the help names perftest's letters, and ends with examples
    h = run([rt, "gen", "--help"]).stdout
    check(re.search(r"^    -d, --ib-dev DEV$", h, re.M), "help: -d is not the device")
    check(re.search(r"^    -t, --tx-depth N$", h, re.M), "help: -t is not the depth")
    for opt in ("-i, --ib-port", "-x, --gid-index", "-n, --iters", "-a, --all", "--report_gbits",
                "-D, --duration", "-q, --qps", "-s, --size", "gen lat SERVER"):
        check(opt in h, f"help: no {opt}")
    tail = [l for l in h.splitlines() if l.strip()][-1]
    check(tail.startswith("    rocetrace gen "), f"help does not end with an example: {tail!r}")

    # rocetrace 0.1 spellings that changed meaning are refused with what to write
    r = run([rt, "gen", "send", "127.0.0.1", "-d", "16"])
    check(r.returncode == 2 and "write -t 16" in r.stderr, f"-d 16: {r.returncode} {r.stderr!r}")
    r = run([rt, "gen", "send", "127.0.0.1", "--rate", "2"])
    check(r.returncode == 2 and "for 2 Gb/s write 2G" in r.stderr, f"--rate 2: {r.stderr!r}")
    r = run([rt, "gen", "send", "127.0.0.1", "-x", "3"])
    check(r.returncode == 2 and "-d DEV" in r.stderr, f"-x without -d: {r.stderr!r}")
    r = run([rt, "gen", "lat", "127.0.0.1", "-q", "2"])
    check(r.returncode == 2, f"lat -q 2: {r.returncode}")

    net = f"127.{random.randint(64, 250)}.{random.randint(1, 250)}"
    server, client = net + ".1", net + ".2"
    ctl = str(random.randint(20000, 60000))
    with tempfile.TemporaryDirectory() as sysfs:
        # an RDMA port whose GID 3 is the client's address (IPv4-mapped), GID 0 a link-local one
        gids = os.path.join(sysfs, "class", "infiniband", "fake0", "ports", "1", "gids")
        os.makedirs(gids)
        a, b = (int(x) for x in net.split(".")[1:3])
        with open(os.path.join(gids, "3"), "w") as f:
            f.write(f"0000:0000:0000:0000:0000:ffff:7f{a:02x}:{b:02x}02\n")
        with open(os.path.join(gids, "0"), "w") as f:
            f.write("fe80:0000:0000:0000:0e42:a1ff:fe2b:3c4d\n")
        r = run([rt, "gen", "send", server, "-d", "fake0", "-x", "0", "--sysfs-root", sysfs])
        check(r.returncode == 1 and "holds no IPv4 address" in r.stderr, f"-x 0: {r.stderr!r}")

        srv = subprocess.Popen([rt, "gen", "serve", "-B", server, "--control-port", ctl, "-c", "3",
                                "-D", "100"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        try:
            # -d/-x: the sender's address comes from the GID; -n: a count instead of a time
            snd = run([rt, "gen", "send", server, "-d", "fake0", "-i", "1", "-x", "3",
                       "--sysfs-root", sysfs, "--control-port", ctl, "-n", "50", "-s", "4K",
                       "-t", "4", "-D", "20"])
            print(snd.stdout, snd.stderr)
            check(snd.returncode == 0, f"send -x: exit {snd.returncode}: {snd.stderr}")
            check(" messages=50 " in snd.stdout, "send -n 50: not 50 messages")
            check("BW peak[MB/sec]" in snd.stdout, "send: no perftest table")
            # lat: perftest's latency table, one row of 300 iterations
            lat = run([rt, "gen", "lat", server, "-B", client, "--control-port", ctl, "-n", "300",
                       "-D", "20"])
            print(lat.stdout, lat.stderr)
            check(lat.returncode == 0, f"lat: exit {lat.returncode}: {lat.stderr}")
            check(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    "
                  "t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]"
                  in lat.stdout, "lat: not ib_write_lat's header")
            rows = [l.split() for l in lat.stdout.splitlines() if re.match(r"^ 2 +300 ", l)]
            check(len(rows) == 1, "lat: no row for 2 bytes x 300")
            if rows:
                tmin, tmax, typ, avg, sd, p99, p999 = (float(x) for x in rows[0][2:9])
                check(0 < tmin <= typ <= p99 <= p999 <= tmax and tmin <= avg <= tmax and sd >= 0,
                      f"lat: statistics out of order: {rows[0]}")
            # -a: every size 2 .. 2^23, n of each, in Gb/sec
            sw = run([rt, "gen", "send", server, "-B", client, "--control-port", ctl, "-a", "-n", "3",
                      "--line-rate", "5G", "--report_gbits", "-D", "20", "--timeout", "50ms"],
                     timeout=300)
            print(sw.stdout, sw.stderr)
            check(sw.returncode == 0, f"-a: exit {sw.returncode}: {sw.stderr}")
            check("BW peak[Gb/sec]" in sw.stdout, "-a --report_gbits: not Gb/sec")
            sizes = [int(l.split()[0]) for l in sw.stdout.splitlines()
                     if re.match(r"^ \d+ +3 ", l)]
            check(sizes == [1 << k for k in range(1, 24)], f"-a sizes: {sizes}")
            sout, serr = srv.communicate(timeout=60)
            print(sout, serr)
            check(f"client {client}" in sout, "server: no client from -B")
            check(srv.returncode == 0, f"serve: exit {srv.returncode}")
        finally:
            if srv.poll() is None:
                srv.kill()
                srv.wait()
    for e in errors:
        print("FAIL:", e)
    if not errors:
        print("ok: gen takes perftest's options and prints its tables")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
