# Benchmark (sourced by tools/bench): --threads 1, 2, 4, ... up to the CPUs for analyze, timeline, report and
# dissect --json on one capture, beside `cat FILE` and `tcpdump -r FILE -w /dev/null`, the whole decode on one
# thread (dissect --count --threads 1) and analyze's reading and staging threads alone (their CPU time: the frames
# they hand out a second); then a table of frames/s, peak RSS and speed-up over --threads 1 per thread count (the
# fastest of BENCH_REPEAT rounds; in each round a command runs at every thread count in turn; the speed-up is the
# median over the rounds, each round's printed too, with the CPU time each thread count spends), and the
# machine's own ceiling: as many analyze --threads 1 side by side as there are CPUs, over one alone, and at each
# round how far apart two of its CPUs are (a cache line's round trip between them).
#   BENCH_FILE  the capture (default: the 10 M-frame capture of tools/bench analyze when cached, else the tiled one)
# One command on another machine, from a release build: ROCETRACE=BUILD/tools/rocetrace BENCH_FILE=F tools/bench scaling
if [ -n "${BENCH_FILE:-}" ]; then
	scaling_file=$BENCH_FILE
elif [ -s "$BENCH_OUT/analyze-10000000-10000.pcap" ]; then
	scaling_file=$BENCH_OUT/analyze-10000000-10000.pcap
else
	scaling_file=$(bench_big_capture)
fi
if [ -s "$scaling_file.frames" ]; then
	scaling_frames=$(cat "$scaling_file.frames")
else
	scaling_frames=$("$ROCETRACE" dissect --count --json --no-icrc --threads 1 "$scaling_file" |
		sed -n 's/.*"frames": *\([0-9]*\).*/\1/p' | head -n 1)
fi
scaling_cpus=$(nproc)
scaling_threads="1"
for n in 2 4 8 16 32 64; do
	[ "$n" -lt "$scaling_cpus" ] && scaling_threads="$scaling_threads $n"
done
[ "$scaling_cpus" -gt 1 ] && scaling_threads="$scaling_threads $scaling_cpus"
scaling_tmp=$(mktemp -d)
bench_time "cat FILE >/dev/null" "$scaling_frames" cat "$scaling_file"
if command -v tcpdump >/dev/null; then
	bench_time "tcpdump -r FILE -w /dev/null" "$scaling_frames" tcpdump -Z "$bench_me" -r "$scaling_file" -w /dev/null
fi
bench_time "reader: read and decode (dissect --count)" "$scaling_frames" \
	"$ROCETRACE" dissect --count --threads 1 "$scaling_file"
# the reading side alone, from its own CPU time (ROCETRACE_THREAD_TIMES; the parts' batches it goes through
# when it would wait apart): the frames it can hand out a second when it never waits for a part. With 2 or 3
# threads the reading thread also stages each batch and makes it global; from 4 (analyze/README.md,
# "Threads") it only reads and copies, a staging thread doing the rest.
scaling_reader_row() { # LABEL THREADS FIELD: FIELD "reading" or "staging"
	scaling_s=$(ROCETRACE_THREAD_TIMES=1 "$ROCETRACE" analyze --json --threads "$2" "$scaling_file" 2>&1 >/dev/null |
		sed -n "s/^rocetrace: thread times: .*$3 \([0-9.]*\) s.*/\1/p")
	if [ -n "$scaling_s" ]; then # (not split, or no staging thread: no row)
		awk -v l="$1" -v n="$scaling_frames" -v s="$scaling_s" -v out="$BENCH_RESULTS" 'BEGIN {
			printf "%s\t%d\t%.2f\t%.0f\t%.1f\n", l, n, s, (s > 0 ? n / s : 0), 0 >> out
		}'
	fi
}
scaling_reader_row "reader alone, 2 threads (reads, stages, merges)" 2 reading
scaling_reader_row "reader alone, 4+ threads (reads; frames in place)" 4 reading
scaling_reader_row "stager alone, 4+ threads (stages, merges)" 4 staging
# each command at every thread count in turn, BENCH_REPEAT rounds: the machine's speed drifts over minutes, and
# runs side by side keep that drift out of the speed-ups (each round's speed-up is of its own runs)
scaling_rounds=$BENCH_REPEAT
BENCH_REPEAT=1
# the machine's own ceiling, in each round beside the runs it bounds: as many analyze --threads 1 at once as there
# are CPUs (a shared machine's CPUs may not all be there: its speed-up over one of them is what threads can reach)
# (a script for /usr/bin/time: ROCETRACE FILE COUNT; it fails when one of them fails)
scaling_at_once='rc=0 pids=""
for _ in $(seq "$3"); do "$1" analyze --json --threads 1 "$2" >/dev/null & pids="$pids $!"; done
for p in $pids; do wait "$p" || rc=1; done
exit $rc'
# how far apart two CPUs are at each round (tools/bench.d/line_trip.c: a cache line's round trip between CPUs 0
# and 1): the threads pay about that for each line of frames or results that crosses, and a shared VM's CPUs can be
# near at one minute and far the next (docs/PERFORMANCE.md)
scaling_trip=""
if [ "$scaling_cpus" -gt 1 ] && cc -O2 -std=c11 -D_GNU_SOURCE -pthread -o "$scaling_tmp/line_trip" \
	"$here/bench.d/line_trip.c" 2>"$scaling_tmp/cc.err"; then
	scaling_trip=$scaling_tmp/line_trip
fi
for round in $(seq "$scaling_rounds"); do
	if [ -n "$scaling_trip" ] && scaling_ns=$("$scaling_trip" 0 1); then
		printf 'cache line round trip, CPUs 0 and 1 (ns, not s)\t-\t%s\t-\t-\t-\n' "$scaling_ns" >>"$BENCH_RESULTS"
	fi
	for t in $scaling_threads; do
		bench_time "analyze --json --threads $t" "$scaling_frames" \
			"$ROCETRACE" analyze --json --threads "$t" "$scaling_file"
	done
	[ "$scaling_cpus" -gt 1 ] && bench_time "analyze --json --threads 1, $scaling_cpus at once" \
		"$((scaling_frames * scaling_cpus))" sh -c "$scaling_at_once" sh "$ROCETRACE" "$scaling_file" "$scaling_cpus"
	for t in $scaling_threads; do
		bench_time "timeline --bucket 1ms --threads $t" "$scaling_frames" \
			"$ROCETRACE" timeline --bucket 1ms --threads "$t" "$scaling_file"
	done
	for t in $scaling_threads; do
		bench_time "report --threads $t" "$scaling_frames" \
			"$ROCETRACE" report --threads "$t" -o "$scaling_tmp/page.html" "$scaling_file"
	done
	for t in $scaling_threads; do
		bench_time "dissect --json --threads $t" "$scaling_frames" \
			"$ROCETRACE" dissect --json --threads "$t" "$scaling_file"
	done
done
BENCH_REPEAT=$scaling_rounds
rm -rf "$scaling_tmp"
# the scaling table: a row per command, frames/s (millions) and peak MB per thread count (the fastest round), and
# the speed-up: the median over the rounds of the round's --threads 1 seconds over its --threads N seconds (runs
# side by side); then each round's speed-ups and the CPU time (user + system) at N over that at 1 thread
echo
echo "scaling on $(basename "$scaling_file") ($scaling_frames frames), $scaling_cpus CPU(s), load $(cut -d' ' -f1-3 /proc/loadavg):"
awk -F'\t' -v threads="$scaling_threads" '
	function median(a, n,   i, j, x) { # sorts a[1..n]
		for (i = 2; i <= n; i++) {
			x = a[i]
			for (j = i - 1; j > 0 && a[j] > x; j--) a[j + 1] = a[j]
			a[j + 1] = x
		}
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	BEGIN { nt = split(threads, th, " ") }
	$1 ~ /--threads [0-9]+$/ {
		cmd = $1; sub(/ --threads [0-9]+$/, "", cmd); t = $1; sub(/.* --threads /, "", t)
		if (!(cmd in seen)) { seen[cmd] = 1; order[++nc] = cmd }
		k = ++runs[cmd, t]
		if ($3 == "failed") { cell[cmd, t] = "failed"; best[cmd, t] = -1; next }
		secs[cmd, t, k] = $3; cpu[cmd, t, k] = $6
		if (best[cmd, t] >= 0 && $4 > best[cmd, t]) {
			best[cmd, t] = $4
			cell[cmd, t] = sprintf("%.2f M/s %.0f MB", $4 / 1e6, $5)
		}
		next
	}
	$1 ~ /^cache line round trip/ { trip = trip sprintf("%s%s", (trip != "" ? " " : ""), $3); next }
	$1 ~ /--threads 1, [0-9]+ at once$/ { # the ceiling: one round each
		ncpu = $1; sub(/.*--threads 1, /, "", ncpu); sub(/ at once$/, "", ncpu)
		once[++nonce] = $3; oncecpu = ncpu + 0
		next
	}
	{ other[++no] = sprintf("%-42s | %.2f M/s %.0f MB (%s s)", $1, $4 / 1e6, $5, $3) }
	# the rounds where both ran: speed-ups into up[], CPU ratios into cr[]; returns how many
	function rounds(c, t,   k, n, m) {
		n = m = 0
		for (k = 1; k <= runs[c, t] && k <= runs[c, 1]; k++) {
			if (!((c, 1, k) in secs) || !((c, t, k) in secs) || secs[c, t, k] <= 0) continue
			up[++n] = secs[c, 1, k] / secs[c, t, k]
			if (cpu[c, 1, k] > 0 && cpu[c, t, k] != "-") cr[++m] = cpu[c, t, k] / cpu[c, 1, k]
		}
		ncr = m
		return n
	}
	END {
		printf "%-42s", "command \\ --threads"
		for (i = 1; i <= nt; i++) printf " | %-23s", th[i]
		printf "\n"
		for (c = 1; c <= nc; c++) {
			printf "%-42s", order[c]
			for (i = 1; i <= nt; i++) {
				x = cell[order[c], th[i]]
				if (th[i] != 1 && (n = rounds(order[c], th[i])) > 0)
					x = x sprintf(" %.2fx", median(up, n))
				printf " | %-23s", x
			}
			printf "\n"
		}
		for (i = 1; i <= no; i++) print other[i]
		if (nonce) { # its round'"'"'s analyze --threads 1 seconds, times the copies, over their seconds side by side
			c = "analyze --json"; n = 0; x = ""
			for (k = 1; k <= nonce && k <= runs[c, 1]; k++)
				if (once[k] > 0 && (c, 1, k) in secs) {
					up[++n] = oncecpu * secs[c, 1, k] / once[k]
					x = x sprintf("%s%.2f", (n > 1 ? " " : ""), up[n])
				}
			if (n)
				printf "%-42s | %.2fx (rounds: %s)\n", "ceiling: " oncecpu " analyze --threads 1 at once", median(up, n), x
		}
		if (trip != "")
			printf "%-42s | %s\n", "cache line round trip, CPUs 0-1 (ns)", trip
		printf "\nspeed-up in each round (its --threads 1 seconds over its --threads N), CPU time over --threads 1 (median):\n"
		for (c = 1; c <= nc; c++) {
			printf "%-42s", order[c]
			for (i = 2; i <= nt; i++) {
				x = ""
				n = rounds(order[c], th[i])
				for (k = 1; k <= n; k++) x = x sprintf("%s%.2f", (k > 1 ? " " : ""), up[k])
				if (ncr) x = x sprintf(", cpu %.2fx", median(cr, ncr))
				printf " | %-23s", x
			}
			printf "\n"
		}
	}' "$BENCH_RESULTS"
