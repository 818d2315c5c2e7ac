# Benchmark (sourced by tools/bench): capture beside tcpdump under the same load, the writer's and the verbs sniffer's CPU per frame, and frames/s from a file and from a veth.
capture_bench() (
	local big n prefix out="$BENCH_OUT/capture" bdir
	mkdir -p "$out"
	big=$(bench_big_capture)
	n=$(bench_frames "$big")
	# writer path alone: the file source feeds frames as fast as libpcap reads them
	bench_time "capture file -> pcapng (writer path)" "$n" "$ROCETRACE" capture -i "$big" -w "$out/w.pcapng"
	bench_time "capture file -> pcapng -s 128" "$n" "$ROCETRACE" capture -i "$big" -w "$out/w128.pcapng" -s 128
	bench_time "capture file -> pcap (ns)" "$n" "$ROCETRACE" capture -i "$big" -w "$out/w.pcap" --format pcap
	rm -f "$out/w.pcapng" "$out/w128.pcapng" "$out/w.pcap"

	# The hot paths alone (tools/bench.d/capture_loop.c), linked with the libraries of a release
	# build: the writer, and the verbs sniffer with libibverbs replaced by a NIC that completes
	# every posted buffer at once (its exported calls wrapped at link time, the inline ones
	# through common/verbs_ops.h, as tests/capture/test_verbs.c does).
	bdir=$root/build-bench
	if [ ! -f "$bdir/build.ninja" ]; then
		meson setup "$bdir" "$root" -Dbuildtype=release -Dtests=disabled >/dev/null
	fi
	local wraps="" f
	for f in get_device_list free_device_list get_device_name open_device close_device alloc_pd \
		dealloc_pd reg_mr dereg_mr create_qp modify_qp destroy_qp destroy_cq; do
		wraps="$wraps -Wl,--wrap=ibv_$f"
	done
	local targets="capture/librt_capture.a dissect/librt_dissect.a common/librt_common.a"
	local extra="-lpcap -lz -lpthread -lm" verbs=false
	if grep -q 'RT_HAVE_IBVERBS 1' "$bdir/rt_config.h" 2>/dev/null; then
		verbs=true
		targets="$targets common/librt_verbs.a"
		extra="$wraps $extra -libverbs"
	fi
	# shellcheck disable=SC2086
	if (cd "$bdir" && ninja $targets >/dev/null && cc -O2 -std=c11 -D_GNU_SOURCE -I"$root" -I. \
		-o "$out/capture_loop" "$here/bench.d/capture_loop.c" $targets $extra) 2>"$out/cc.err"; then
		local ns nsfile
		ns=$("$out/capture_loop" writer /dev/null 10000000)
		nsfile=$("$out/capture_loop" writer "$out/wloop.pcapng" 10000000)
		rm -f "$out/wloop.pcapng"
		bench_note "capture writer alone: $ns ns of CPU per header-only (-s 128) frame into pcapng, /dev/null; $nsfile ns into a file in $out (the write(2) of each full 1 MiB buffer included); no system call or allocation per frame"
		if $verbs; then
			local poll polls total totalf
			read -r poll polls < <("$out/capture_loop" verbs - 10000000 4096)
			read -r total _ < <("$out/capture_loop" verbs /dev/null 10000000 4096)
			read -r totalf _ < <("$out/capture_loop" verbs "$out/vloop.pcapng" 10000000 4096)
			rm -f "$out/vloop.pcapng"
			bench_note "verbs sniffer (-B 4096, -s 128, 4178-byte frames, libibverbs wrapped): poll + re-post $poll ns of CPU per frame ($polls poll sessions per frame); with the writer $total ns into /dev/null, $totalf ns into a file. The 100 Gb/s design point of docs/CAPTURE.md is 334 ns per frame (4 KiB messages), 88 ns (1 KiB)"
		fi
	else
		bench_note "capture hot-path loop did not build: $(tail -n 1 "$out/cc.err" 2>/dev/null)"
	fi

	if [ "$(id -u)" -ne 0 ]; then
		bench_note "capture: the tcpdump and veth runs skipped (need root and network namespaces)"
		return 0
	fi
	local ns_lo="rt-bcap-$$-lo" ns_a="rt-bcap-$$-a" ns_b="rt-bcap-$$-b"
	# shellcheck disable=SC2064
	trap "ip netns del $ns_lo 2>/dev/null || true; ip netns del $ns_a 2>/dev/null || true; ip netns del $ns_b 2>/dev/null || true" EXIT
	capture_beside_tcpdump "$ns_lo" "$out"
	capture_veth "$ns_a" "$ns_b" "$out"
)

# rocetrace capture and tcpdump side by side, capturing the same load at the same time: gen
# udp, 2 QPs at 200 Mb/s, on the loopback of a namespace of their own (no other traffic) for
# 3 s, snap length 128, filter 'udp port 4791', each writing a file. CPU is each process's user
# + system time from wait4(2). Best of two runs: the least CPU of each; the written ratio of
# the worse run, the drops of both.
capture_beside_tcpdump() {
	local ns=$1 out=$2 run
	if ! command -v tcpdump >/dev/null; then
		bench_note "capture beside tcpdump: skipped (tcpdump not installed)"
		return 0
	fi
	if ! ip netns add "$ns" 2>/dev/null; then
		bench_note "capture beside tcpdump: skipped (cannot create a network namespace)"
		return 0
	fi
	ip -n "$ns" link set lo up
	# Runs CMD, stops it with SIGINT once the file STOP exists, prints "cpu_seconds status".
	cat >"$out/cpu_run.py" <<'EOF'
import os, signal, subprocess, sys, time
stop, cmd = sys.argv[1], sys.argv[2:]
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
while not os.path.exists(stop) and p.poll() is None:
    time.sleep(0.05)
if p.poll() is None:
    p.send_signal(signal.SIGINT)
_, status, ru = os.wait4(p.pid, 0)
print("%.6f %d" % (ru.ru_utime + ru.ru_stime, os.waitstatus_to_exitcode(status)))
EOF
	local cpu_rt="" cpu_td="" ratio_w="" drops=0 w_rt_best="" w_td_best="" sent
	for run in 1 2; do
		local stop="$out/side.stop"
		rm -f "$stop"
		ip netns exec "$ns" /usr/bin/python3 "$out/cpu_run.py" "$stop" \
			tcpdump -i lo -s 128 -Z root -w "$out/side.pcap" 'udp port 4791' \
			>"$out/td.res" 2>"$out/td.err" &
		local td=$!
		ip netns exec "$ns" /usr/bin/python3 "$out/cpu_run.py" "$stop" \
			"$ROCETRACE" capture -i lo -s 128 -f 'udp port 4791' -w "$out/side.pcapng" \
			>"$out/rt.res" 2>"$out/rt.err" &
		local rt=$!
		sleep 1 # both are listening
		ip netns exec "$ns" "$ROCETRACE" gen serve -B 127.0.0.1 -D 30 >"$out/serve.txt" 2>&1 &
		local srv=$!
		sleep 0.3
		ip netns exec "$ns" "$ROCETRACE" gen send 127.0.0.1 --bind 127.0.0.2 -q 2 -r 200M -D 3 \
			>"$out/send.txt" 2>&1 || true
		wait "$srv" || true
		sleep 0.5 # the last frames reach the captures
		touch "$stop"
		wait "$td" || true
		wait "$rt" || true
		local c_td="" c_rt="" rc_td="" rc_rt="" w_td w_rt d_rt
		read -r c_td rc_td <"$out/td.res" || true
		read -r c_rt rc_rt <"$out/rt.res" || true
		w_td=$(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' "$out/td.err")
		w_rt=$(sed -n 's/^rocetrace capture: .* \([0-9]*\) written.*/\1/p' "$out/rt.err")
		d_rt=$(sed -n 's/^rocetrace capture: [0-9]* received, \([0-9]*\) dropped.*/\1/p' "$out/rt.err")
		sent=$(sed -n 's/^summary.* packets=\([0-9]*\).*/\1/p' "$out/send.txt")
		rm -f "$out/side.pcap" "$out/side.pcapng" "$stop"
		if [ "$rc_td" != 0 ] || [ "$rc_rt" != 0 ] || [ -z "$w_td" ] || [ -z "$w_rt" ] ||
			[ "$w_td" -eq 0 ]; then
			echo "bench: capture beside tcpdump, run $run failed: tcpdump: $(tail -n 1 "$out/td.err");" \
				"rocetrace: $(tail -n 1 "$out/rt.err")" >&2
			continue
		fi
		echo "  run $run (gen sent ${sent:-?} data packets): rocetrace $c_rt s CPU, $w_rt written," \
			"$d_rt dropped; tcpdump $c_td s CPU, $(sed -n 's/^\([0-9]*\) packets captured.*/\1/p' \
			"$out/td.err") written, $(sed -n 's/^\([0-9]*\) packets dropped by kernel.*/\1/p' \
			"$out/td.err") dropped"
		if [ -z "$cpu_rt" ] || awk -v a="$c_rt" -v b="$cpu_rt" 'BEGIN { exit !(a < b) }'; then
			cpu_rt=$c_rt
			w_rt_best=$w_rt
		fi
		if [ -z "$cpu_td" ] || awk -v a="$c_td" -v b="$cpu_td" 'BEGIN { exit !(a < b) }'; then
			cpu_td=$c_td
			w_td_best=$w_td
		fi
		ratio_w=$(awk -v a="$w_rt" -v b="$w_td" -v r="$ratio_w" \
			'BEGIN { x = a / b; print ((r == "" || x < r) ? x : r) }')
		drops=$((drops + d_rt))
	done
	ip netns del "$ns"
	if [ -z "$cpu_rt" ]; then
		bench_note "capture beside tcpdump: no complete run"
		return 0
	fi
	bench_note "capture beside tcpdump (both at once on one gen load: 2 QPs x 200 Mb/s, a namespace's lo, 3 s, -s 128, 'udp port 4791', each writing a file; best of 2): CPU rocetrace $cpu_rt s, tcpdump $cpu_td s: ratio $(awk -v a="$cpu_rt" -v b="$cpu_td" 'BEGIN { printf "%.2f", a / b }'); per million frames written $(awk -v a="$cpu_rt" -v b="$w_rt_best" 'BEGIN { printf "%.3f", a * 1e6 / b }') s and $(awk -v a="$cpu_td" -v b="$w_td_best" 'BEGIN { printf "%.3f", a * 1e6 / b }') s; rocetrace dropped $drops in all and wrote at least $(awk -v r="$ratio_w" 'BEGIN { printf "%.1f", r * 100 }')% of what tcpdump wrote in each run"
}

# libpcap on a veth pair at tcpreplay's top speed: frames written and kernel drops.
capture_veth() {
	local ns_a=$1 ns_b=$2 out=$3 prefix label args
	if ! command -v tcpreplay >/dev/null; then
		bench_note "capture: veth runs skipped (tcpreplay not installed)"
		return 0
	fi
	if ! ip netns add "$ns_a" 2>/dev/null; then
		bench_note "capture: veth runs skipped (cannot create a network namespace)"
		return 0
	fi
	ip netns add "$ns_b"
	ip -n "$ns_a" link add veth0 type veth peer name veth0 netns "$ns_b"
	for ns in "$ns_a" "$ns_b"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip -n "$ns" link set veth0 mtu 9000 up
	done
	prefix=$(bench_prefix 200000)
	for label in "full frames" "-s 128" "full frames -B 262144"; do
		case $label in
		"full frames") args="" ;;
		"-s 128") args="-s 128" ;;
		*) args="-B 262144" ;;
		esac
		local tf stats replay sent secs pps recv drop written
		tf=$(mktemp)
		# shellcheck disable=SC2086
		/usr/bin/time -o "$tf.time" -f "%M" ip netns exec "$ns_a" "$ROCETRACE" capture -i veth0 \
			-w "$out/veth.pcapng" $args --duration 60 -- \
			ip netns exec "$ns_b" tcpreplay --topspeed -i veth0 "$prefix" >"$tf" 2>&1 || true
		stats=$(grep '^rocetrace capture:' "$tf" || true)
		replay=$(grep 'Actual:' "$tf" || true)
		if [ -z "$stats" ] || [ -z "$replay" ]; then
			echo "bench: capture on veth ($label) failed: $(tail -n 1 "$tf")" >&2
			rm -f "$tf" "$tf.time"
			continue
		fi
		sent=$(sed -n 's/.*Actual: \([0-9]*\) packets.*/\1/p' <<<"$replay")
		secs=$(sed -n 's/.* sent in \([0-9.]*\) seconds.*/\1/p' <<<"$replay")
		pps=$(sed -n 's/.*Rated: .* \([0-9.]*\) pps.*/\1/p' "$tf")
		recv=$(sed -n 's/^rocetrace capture: \([0-9]*\) received.*/\1/p' <<<"$stats")
		drop=$(sed -n 's/.* \([0-9]*\) dropped.*/\1/p' <<<"$stats")
		written=$(sed -n 's/.* \([0-9]*\) written.*/\1/p' <<<"$stats")
		awk -v l="capture veth libpcap $label" -v n="$written" -v s="$secs" -v r="$(cat "$tf.time")" \
			-v out="$BENCH_RESULTS" 'BEGIN {
			printf "%-48s %9d frames %8.2f s %12.0f frames/s %8.1f MB\n", l, n, s, n / s, r / 1024
			printf "%s\t%d\t%.2f\t%.0f\t%.1f\n", l, n, s, n / s, r / 1024 >> out
		}'
		bench_note "capture veth ($label): tcpreplay sent $sent frames at $pps pps; rocetrace received $recv, dropped $drop (kernel), wrote $written"
		rm -f "$tf" "$tf.time" "$out/veth.pcapng"
	done
}
capture_bench
