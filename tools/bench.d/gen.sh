# Benchmark (sourced by tools/bench): gen udp backend throughput of 1 KiB messages over a veth pair, and its costs.
gen_bench() (
	# a subshell, so its EXIT trap removes the namespaces however it ends
	local ns_a="rt-bench-$$-a" ns_b="rt-bench-$$-b" out="$BENCH_OUT/gen" q line secs pk gbps tf
	if [ "$(id -u)" -ne 0 ] || ! ip netns add "$ns_a" 2>/dev/null; then
		bench_note "gen: skipped (needs root and network namespaces)"
		return 0
	fi
	# shellcheck disable=SC2064
	trap "ip netns del $ns_a 2>/dev/null || true; ip netns del $ns_b 2>/dev/null || true" EXIT
	ip netns add "$ns_b"
	mkdir -p "$out"
	ip -n "$ns_a" link add eth0 type veth peer name eth0 netns "$ns_b"
	ip -n "$ns_a" addr add 10.78.0.1/24 dev eth0
	ip -n "$ns_b" addr add 10.78.0.2/24 dev eth0
	for ns in "$ns_a" "$ns_b"; do
		ip -n "$ns" link set lo up
		ip -n "$ns" link set eth0 up
	done
	for q in 1 4; do
		local stf
		stf=$(mktemp)
		/usr/bin/time -o "$stf" -f "%U %S" ip netns exec "$ns_b" "$ROCETRACE" gen serve -B 10.78.0.2 -D 30 \
			>"$out/serve-$q.txt" 2>&1 &
		local srv=$!
		sleep 0.3
		tf=$(mktemp)
		/usr/bin/time -o "$tf" -f "%e %U %S %M" ip netns exec "$ns_a" "$ROCETRACE" gen send 10.78.0.2 \
			-s 1K -q "$q" -t 256 -D 3 --timeout 50ms >"$out/send-$q.txt" 2>&1 || true
		wait "$srv" || true
		line=$(grep '^summary' "$out/send-$q.txt" || true)
		if [ -z "$line" ]; then
			echo "bench: gen send with $q QP(s) failed: $(tail -n 1 "$out/send-$q.txt")" >&2
			rm -f "$tf" "$stf"
			continue
		fi
		local e u s rss su ss
		read -r e u s rss <"$tf"
		read -r su ss <"$stf"
		rm -f "$tf" "$stf"
		secs=$(sed -n 's/.* seconds=\([0-9.]*\).*/\1/p' <<<"$line")
		pk=$(sed -n 's/.* packets=\([0-9]*\).*/\1/p' <<<"$line")
		gbps=$(sed -n 's/.* gbps=\([0-9.]*\).*/\1/p' <<<"$line")
		awk -v l="gen send udp 1KiB, $q QP, veth ($gbps Gb/s)" -v n="$pk" -v s="$secs" \
			-v r="$rss" -v out="$BENCH_RESULTS" 'BEGIN {
			printf "%-48s %9d pkts   %8.2f s %12.0f pkts/s %8.1f MB\n", l, n, s, n / s, r / 1024
			printf "%s\t%d\t%.2f\t%.0f\t%.1f\n", l, n, s, n / s, r / 1024 >> out
		}'
		# CPU seconds per packet on each side give the rate one core could carry if CPU-bound
		# (the user/sys split is sampled per tick and leans to sys; their sum is what counts)
		bench_note "gen $q QP: $gbps Gb/s of 1098-byte frames; $(awk -v u="$u" -v s="$s" -v su="$su" -v ss="$ss" -v n="$pk" 'BEGIN {
			printf "sender %.2f us user + %.2f us sys per packet (CPU-bound ceiling %.2f Gb/s per core), ", u * 1e6 / n, s * 1e6 / n, n * 1098 * 8 / (u + s) / 1e9
			printf "server %.2f us user + %.2f us sys per packet (ceiling %.2f Gb/s per core)", su * 1e6 / n, ss * 1e6 / n, n * 1098 * 8 / (su + ss) / 1e9 }')"
		bench_note "gen $q QP: one sendmmsg per <=32 packets per QP, one recvmmsg per <=64 replies; the server $(grep '^summary' "$out/serve-$q.txt" | sed -n 's/.* packets=\([0-9]*\).*out_of_order=\([0-9]*\).*acks_sent=\([0-9]*\).*/received \1, out of order \2, sent \3 coalesced ACKs/p'); load average $(cut -d' ' -f1 /proc/loadavg) on $(nproc) CPUs"
	done
	# ICRC cost: zlib crc32 over the masked headers and a 1 KiB payload, as the builder does it
	local cdir="$BENCH_OUT/gen-icrc"
	mkdir -p "$cdir"
	cat >"$cdir/icrc_loop.c" <<'CEOF'
#include <stdio.h>
#include <time.h>
#include "dissect/build.h"
int main(void)
{
	static uint8_t payload[1024], buf[2048];
	struct rt_build_net ip = {.ip_version = 4, .src_ip = {10, 0, 0, 1}, .dst_ip = {10, 0, 0, 2}, .udp_sport = 50000, .udp_dport = 4791, .df = true};
	struct rt_record p = {.opcode = 0x0A, .reth_len = 1024, .payload_len = 1024};
	int n = rt_build_udp_payload(&ip, &p, payload, buf, sizeof(buf));
	unsigned sink = 0;
	uint32_t crc;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 1000000; i++) {
		buf[11] = (uint8_t)i;
		rt_build_udp_icrc(&ip, buf, (uint32_t)n, &crc);
		sink += crc;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double icrc = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e6;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (int i = 0; i < 1000000; i++) {
		p.psn = (uint32_t)i;
		sink += (unsigned)rt_build_udp_payload(&ip, &p, payload, buf, sizeof(buf));
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double build = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / 1e6;
	printf("%.0f %.0f %u\n", icrc, build, sink & 1);
	return 0;
}
CEOF
	if cc -O2 -I"$root" -o "$cdir/icrc_loop" "$cdir/icrc_loop.c" "$root/dissect/build.c" \
		"$root/dissect/icrc.c" "$root/dissect/opcodes.c" -lz 2>"$cdir/cc.err"; then
		local icrc build
		read -r icrc build _ < <("$cdir/icrc_loop")
		bench_note "gen ICRC of a 1 KiB WRITE_ONLY packet: $icrc ns; whole packet build (BTH, RETH, copy, ICRC): $build ns (1e6-iteration loop, -O2)"
	else
		bench_note "gen ICRC loop did not compile: $(tail -n 1 "$cdir/cc.err")"
	fi
)
gen_bench
