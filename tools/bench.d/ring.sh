# Benchmark (sourced by tools/bench): capture CPU with and without --ring on one load, beside tcpdump.
# All four capture the same gen load at the same time (udp, 2 QPs at 200 Mb/s, 3 s, the loopback
# of a namespace of their own, -s 128, 'udp port 4791'): tcpdump -w FILE, rocetrace capture -w FILE,
# the same with --stats (the live analysis --ring runs too) and rocetrace capture --ring 2s --trigger nak --trigger drop -w DIR (the ring keeps every frame and
# the analysis runs; no trigger fires on this clean load). CPU is each process's user + system
# time from wait4(2); one run.
ring_bench() (
	local out="$BENCH_OUT/ring" ns="rt-bring-$$"
	if [ "$(id -u)" -ne 0 ] || ! command -v tcpdump >/dev/null; then
		bench_note "ring: skipped (needs root, network namespaces and tcpdump)"
		return 0
	fi
	mkdir -p "$out"
	rm -rf "$out/events"
	if ! ip netns add "$ns" 2>/dev/null; then
		bench_note "ring: skipped (cannot create a network namespace)"
		return 0
	fi
	# shellcheck disable=SC2064
	trap "ip netns del $ns 2>/dev/null || true" EXIT
	ip -n "$ns" link set lo up
	local line
	line=$(ip netns exec "$ns" /usr/bin/python3 - "$ROCETRACE" "$out" <<'EOF'
import os, re, signal, subprocess, sys, time
rt, out = sys.argv[1], sys.argv[2]
caps = {
    "tcpdump": ["tcpdump", "-i", "lo", "-s", "128", "-Z", "root", "-w", out + "/td.pcap", "udp port 4791"],
    "capture": [rt, "capture", "-i", "lo", "-s", "128", "-w", out + "/rt.pcapng", "udp", "port", "4791"],
    # the live analysis alone, which --ring runs too
    "capture --stats": [rt, "capture", "-i", "lo", "-s", "128", "--stats", "-w", out + "/rts.pcapng", "udp", "port",
                        "4791"],
    "capture --ring": [rt, "capture", "-i", "lo", "-s", "128", "--ring", "2s", "--ring-size", "64M",
                       "--trigger", "nak", "--trigger", "drop", "-w", out + "/events", "udp", "port", "4791"],
}
procs = {k: subprocess.Popen(v, stdout=subprocess.DEVNULL, stderr=open(out + "/" + k.replace(" ", "_") + ".err", "w"))
         for k, v in caps.items()}
time.sleep(1.5)
srv = subprocess.Popen([rt, "gen", "serve", "-B", "127.0.0.1", "-D", "30"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
time.sleep(0.3)
snd = subprocess.run([rt, "gen", "send", "127.0.0.1", "--bind", "127.0.0.2", "-q", "2", "-r", "200M", "-D", "3"],
                     capture_output=True, text=True)
srv.wait(timeout=60)
time.sleep(0.5)
res = {}
for k, p in procs.items():
    p.send_signal(signal.SIGINT)
    _, status, ru = os.wait4(p.pid, 0)
    err = open(out + "/" + k.replace(" ", "_") + ".err").read()
    if k == "tcpdump":
        m = re.search(r"(\d+) packets captured", err)
        d = re.search(r"(\d+) packets dropped by kernel", err)
        got, drop = (m.group(1) if m else "?"), (d.group(1) if d else "?")
    else:
        m = re.search(r"(\d+) received, (\d+) dropped", err)
        got, drop = (m.group(1), m.group(2)) if m else ("?", "?")
    res[k] = (ru.ru_utime + ru.ru_stime, got, drop)
m = re.search(r"packets=(\d+)", snd.stdout)
print("load: gen sent %s data packets; " % (m.group(1) if m else "?") + "; ".join(
    "%s %.3f s CPU, %s frames, %s dropped" % (k, c, g, d) for k, (c, g, d) in res.items()) +
    "; --ring costs %.2f times the plain capture's CPU" % (res["capture --ring"][0] / max(res["capture"][0], 1e-9)))
EOF
)
	echo "  $line"
	bench_note "capture with and without --ring beside tcpdump (all four on one gen load at once: 2 QPs x 200 Mb/s, a namespace's lo, 3 s, -s 128, 'udp port 4791'; --ring 2s --ring-size 64M --trigger nak --trigger drop; one run): $line"
	rm -rf "$out/td.pcap" "$out/rt.pcapng" "$out/rts.pcapng" "$out/events"
	ip netns del "$ns"
)
ring_bench
