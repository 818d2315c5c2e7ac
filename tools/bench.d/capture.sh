# Benchmark (sourced by tools/bench): frames/s the capture command writes, from a file and from libpcap on a veth at replay top speed.
capture_bench() (
	local big n prefix out="$BENCH_OUT/capture"
	mkdir -p "$out"
	big=$(bench_big_capture)
	n=$(bench_frames "$big")
	# writer path alone: the file source feeds frames as fast as libpcap reads them
	bench_time "capture file -> pcapng (writer path)" "$n" "$ROCETRACE" capture -i "$big" -w "$out/w.pcapng"
	bench_time "capture file -> pcapng -s 128" "$n" "$ROCETRACE" capture -i "$big" -w "$out/w128.pcapng" -s 128
	bench_time "capture file -> pcap (ns)" "$n" "$ROCETRACE" capture -i "$big" -w "$out/w.pcap" --format pcap
	rm -f "$out/w.pcapng" "$out/w128.pcapng" "$out/w.pcap"
	# the writer alone: 10 M header-only (128-byte) frames into a pcapng file, one core
	cat >"$out/wloop.c" <<'CEOF'
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "capture/writer.h"
int rt_errorf(char *errbuf, int err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(errbuf, RT_ERRBUF_SIZE, fmt, ap);
	va_end(ap);
	return err ? -err : -1;
}
int main(int argc, char **argv)
{
	static unsigned char frame[128];
	char errbuf[RT_ERRBUF_SIZE];
	struct rt_writer_config cfg = {.path = argv[1], .format = argc > 2 ? RT_FORMAT_PCAP_NS : RT_FORMAT_PCAPNG};
	struct rt_writer *w;
	const long n = 10000000;
	if (rt_writer_open(&w, &cfg, errbuf) < 0 || rt_writer_add_interface(w, "x", 1, 128, RT_TS_HW_WALLCLOCK, errbuf) < 0)
		return puts(errbuf), 1;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		struct rt_frame f = {frame, 128, 4178, 1700000000000000000ull + (unsigned long long)i * 333};
		frame[20] = (unsigned char)i;
		if (rt_writer_write(w, 0, &f, errbuf) < 0)
			return puts(errbuf), 1;
	}
	if (rt_writer_close(w, errbuf) < 0)
		return puts(errbuf), 1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	double s = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9;
	printf("%.0f %.0f\n", n / s, n * 160.0 / s / 1e6);
	return 0;
}
CEOF
	if cc -O2 -D_GNU_SOURCE -I"$root" -o "$out/wloop" "$out/wloop.c" "$root/capture/writer.c" 2>"$out/cc.err"; then
		local fps mbps
		read -r fps mbps < <("$out/wloop" "$out/wloop.pcapng")
		bench_note "capture writer alone: $fps header-only (-s 128) frames/s into pcapng on one core ($mbps MB/s, write(2) of 1 MiB buffers to $out)"
		rm -f "$out/wloop.pcapng"
	else
		bench_note "capture writer loop did not compile: $(tail -n 1 "$out/cc.err")"
	fi

	local ns_a="rt-bcap-$$-a" ns_b="rt-bcap-$$-b"
	if [ "$(id -u)" -ne 0 ] || ! ip netns add "$ns_a" 2>/dev/null; then
		bench_note "capture: veth runs skipped (needs root and network namespaces)"
		return 0
	fi
	if ! command -v tcpreplay >/dev/null; then
		ip netns del "$ns_a"
		bench_note "capture: veth runs skipped (tcpreplay not installed)"
		return 0
	fi
	# shellcheck disable=SC2064
	trap "ip netns del $ns_a 2>/dev/null || true; ip netns del $ns_b 2>/dev/null || true" EXIT
	ip netns add "$ns_b"
	ip -n "$ns_a" link add veth0 type veth peer name veth0 netns "$ns_b"
	for ns in "$ns_a" "$ns_b"; do
		ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
		ip -n "$ns" link set veth0 mtu 9000 up
	done
	prefix=$(bench_prefix 200000)
	local label args
	for label in "full frames" "-s 128" "-s 128 -B 262144"; do
		case $label in
		"full frames") args="" ;;
		"-s 128") args="-s 128" ;;
		*) args="-s 128 -B 262144" ;;
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
)
capture_bench
