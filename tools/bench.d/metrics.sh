# Benchmark (sourced by tools/bench): capture's CPU without --metrics, with it, and with it under a scrape load; the top-flows search.
#
# On the loopback of a namespace of its own (root), the same gen load each time (udp, 2 QPs at
# 200 Mb/s, 3 s), `capture -i lo -s 128 -w FILE` runs: without --metrics; with --stats (the
# analyzer --metrics feeds, no server); with --metrics and no scraper; with --metrics while a
# client scrapes /metrics back to back (the OpenMetrics format Prometheus asks for). CPU is read
# per thread from /proc just before the stop: the capture thread (the main one) and the rest (the
# metrics server). Best of two runs each.
metrics_bench() (
	local out="$BENCH_OUT/metrics" ns="rt-bmet-$$"
	mkdir -p "$out"
	# the search for the busiest flows (the one publication step that reads every flow), alone,
	# linked with the libraries of a release build
	local bdir=$root/build-bench targets="analyze/librt_analyze.a dissect/librt_dissect.a common/librt_common.a"
	if [ ! -f "$bdir/build.ninja" ]; then
		meson setup "$bdir" "$root" -Dbuildtype=release -Dtests=disabled >/dev/null
	fi
	# shellcheck disable=SC2086
	if (cd "$bdir" && ninja $targets >/dev/null && cc -O2 -std=c11 -D_GNU_SOURCE -I"$root" -I. \
		-o "$out/topflows" "$here/bench.d/topflows.c" $targets -lz -lm -lpthread) 2>"$out/cc.err"; then
		bench_note "metrics: the search for the 20 busiest flows (CPU, best of 5): $("$out/topflows" 10000 20) ms over 10,000 flows, $("$out/topflows" 1000000 20) ms over 1,000,000 (repeated after 50 times its duration: at most 2% of the capture thread)"
		bench_note "metrics: the live findings (a view of every flow, judged; CPU, best of 5, and the peak memory added): $("$out/topflows" 10000 20 findings) over 10,000 flows, $("$out/topflows" 100000 20 findings) over 100,000 (at most once a second, and after 50 times their duration)"
	else
		bench_note "metrics: the top-flows search did not build: $(tail -n 1 "$out/cc.err" 2>/dev/null)"
	fi
	if [ "$(id -u)" -ne 0 ] || ! ip netns add "$ns" 2>/dev/null; then
		bench_note "metrics: skipped (needs root and a network namespace)"
		return 0
	fi
	# shellcheck disable=SC2064
	trap "ip netns del $ns 2>/dev/null || true" EXIT
	ip -n "$ns" link set lo up
	cat >"$out/metrics_run.py" <<'EOF'
import os, re, signal, subprocess, sys, threading, time, urllib.request
rt, pcap, mode = sys.argv[1:4]
cmd = [rt, "capture", "-i", "lo", "-s", "128", "-w", pcap, "udp", "port", "4791"]
if mode == "stats":
    cmd[2:2] = ["--stats"]
elif mode != "off":
    cmd[2:2] = ["--metrics", "127.0.0.1:19464"]
cap = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
if mode in ("idle", "scraped"):
    cap.stderr.readline()  # "metrics at ..."
time.sleep(1)
stop, scrapes = threading.Event(), [0]
def scraper():
    req = urllib.request.Request("http://127.0.0.1:19464/metrics",
                                 headers={"Accept": "application/openmetrics-text;version=1.0.0"})
    while not stop.is_set():
        urllib.request.urlopen(req, timeout=10).read()
        scrapes[0] += 1
if mode == "scraped":
    t = threading.Thread(target=scraper)
    t.start()
srv = subprocess.Popen([rt, "gen", "serve", "-B", "127.0.0.1", "-D", "30"], stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
time.sleep(0.3)
t0 = time.monotonic()
subprocess.run([rt, "gen", "send", "127.0.0.1", "--bind", "127.0.0.2", "-q", "2", "-r", "200M", "-D", "3"],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
srv.wait()
time.sleep(0.5)
secs = time.monotonic() - t0
stop.set()
if mode == "scraped":
    t.join()
tick = os.sysconf("SC_CLK_TCK")
main = other = 0
for tid in os.listdir("/proc/%d/task" % cap.pid):
    with open("/proc/%d/task/%s/stat" % (cap.pid, tid)) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / tick
    if int(tid) == cap.pid:
        main += cpu
    else:
        other += cpu
cap.send_signal(signal.SIGINT)
err = cap.communicate()[1]  # (the --stats lines too: the last line is the final one)
m = re.search(r"(\d+) received, (\d+) dropped, (\d+) written", err)
print("%.2f %.2f %s %s %d %.1f" % (main, other, m.group(3) if m else "?", m.group(2) if m else "?", scrapes[0], secs))
EOF
	local mode run best line summary=""
	for mode in off stats idle scraped; do
		best=""
		for run in 1 2; do
			line=$(ip netns exec "$ns" /usr/bin/python3 "$out/metrics_run.py" "$ROCETRACE" "$out/m.pcapng" "$mode") ||
				continue
			rm -f "$out/m.pcapng"
			echo "  $mode run $run: capture thread, server thread(s) CPU s, written, dropped, scrapes, seconds: $line"
			if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN { exit !(a < b) }'; then
				best=$line
			fi
		done
		[ -n "$best" ] || continue
		local c s w d n t
		read -r c s w d n t <<<"$best"
		case $mode in
		off) summary="$summary without --metrics: capture thread $c s CPU, $w frames written, $d dropped;" ;;
		stats) summary="$summary --stats (the same analyzer, no server): $c s, $w written, $d dropped;" ;;
		idle) summary="$summary with --metrics, no scraper: $c s, server $s s, $w written, $d dropped;" ;;
		scraped) summary="$summary with --metrics and $n back-to-back scrapes in $t s: capture thread $c s, server $s s, $w written, $d dropped" ;;
		esac
	done
	bench_note "metrics (gen udp 2 QPs x 200 Mb/s for 3 s on a namespace's lo, capture -s 128 -w, best of 2):$summary"
)
metrics_bench
