# Benchmark (sourced by tools/bench): rocetrace dissect against tshark and tcpdump on the tiled capture.
big=$(bench_big_capture)
frames=$(bench_frames "$big")
bench_time "rocetrace dissect --count" "$frames" "$ROCETRACE" dissect --count "$big"
bench_time "rocetrace dissect --count --no-icrc" "$frames" "$ROCETRACE" dissect --count --no-icrc "$big"
bench_time "rocetrace dissect --json >/dev/null" "$frames" "$ROCETRACE" dissect --json "$big"
bench_time "rocetrace dissect (text) >/dev/null" "$frames" "$ROCETRACE" dissect "$big"
bench_time "tcpdump -r FILE -w /dev/null" "$frames" tcpdump -Z "$bench_me" -r "$big" -w /dev/null
if command -v tshark >/dev/null; then
	tshark_frames=200000
	prefix=$(bench_prefix "$tshark_frames")
	bench_time "tshark -T fields (9 RoCE fields, 200k prefix)" "$tshark_frames" \
		tshark -n -r "$prefix" -T fields -e frame.number -e ip.dsfield.ecn \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.aeth.syndrome -e infiniband.aeth.msn -e infiniband.reth.va \
		-e infiniband.reth.dmalen
	bench_note "tshark is timed on the first $tshark_frames frames only (it is much slower); its frames/s is comparable."
	# side by side, from this run's rows: how many times tshark's frames/s each mode reaches
	bench_note "frames/s over tshark -T fields's, this run: $(awk -F'\t' '
		$1 ~ /^tshark -T fields/ { t = $4 }
		$1 ~ /^rocetrace dissect/ { n[++k] = $1; f[k] = $4 }
		END { for (i = 1; i <= k; i++) printf "%s%s %.1fx", (i > 1 ? "; " : ""), n[i], (t > 0 ? f[i] / t : 0) }
	' "$BENCH_RESULTS")"
fi
