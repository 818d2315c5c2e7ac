# Benchmark (sourced by tools/bench): analyze built with AddressSanitizer and UndefinedBehaviorSanitizer
# (build-bench-asan/, made here) reads the tiled capture gzip'd (several hundred MB at the default
# BENCH_FRAMES) once, whatever BENCH_REPEAT; its JSON must be the plain file's as the timed build gives
# it. Sizes the unit tests cannot reach (every gzip input buffer refilled thousands of times) pass
# through the sanitizers here.
ASAN_BUILD=${ASAN_BUILD:-$root/build-bench-asan}

gzip_asan_rocetrace() {
	if [ ! -f "$ASAN_BUILD/build.ninja" ]; then
		meson setup "$ASAN_BUILD" "$root" -Dbuildtype=debugoptimized -Dtests=disabled \
			-Db_sanitize=address,undefined -Db_lundef=false \
			-Dc_args=-fno-sanitize-recover=all >/dev/null
	fi
	ninja -C "$ASAN_BUILD" tools/rocetrace >/dev/null
	echo "$ASAN_BUILD/tools/rocetrace"
}

# analyze --json without its vantage points (they name the file read)
gzip_asan_json() {
	/usr/bin/python3 -c 'import json, sys
doc = json.load(sys.stdin)
doc.pop("vantage_points", None)
json.dump(doc, sys.stdout, sort_keys=True)'
}

gzip_asan_cap=$(bench_big_capture)
gzip_asan_frames=$(bench_frames "$gzip_asan_cap")
if [ ! -s "$gzip_asan_cap.gz" ]; then
	gzip -1 -c "$gzip_asan_cap" >"$gzip_asan_cap.gz.tmp"
	mv "$gzip_asan_cap.gz.tmp" "$gzip_asan_cap.gz"
fi
gzip_asan_exe=$(gzip_asan_rocetrace)
"$ROCETRACE" analyze --json "$gzip_asan_cap" | gzip_asan_json >"$BENCH_OUT/gzip_asan.plain.json"
# (its JSON kept: bench_time throws standard output away)
gzip_asan_mb="$(($(stat -c %s "$gzip_asan_cap") >> 20)) MB as $(($(stat -c %s "$gzip_asan_cap.gz") >> 20)) MB .gz"
BENCH_REPEAT=1 bench_time "analyze, ASan+UBSan, $gzip_asan_mb" \
	"$gzip_asan_frames" env ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	sh -c 'exec "$0" analyze --json "$1" >"$2"' "$gzip_asan_exe" "$gzip_asan_cap.gz" \
	"$BENCH_OUT/gzip_asan.raw.json"
if [ -s "$BENCH_OUT/gzip_asan.raw.json" ] &&
	gzip_asan_json <"$BENCH_OUT/gzip_asan.raw.json" | cmp -s - "$BENCH_OUT/gzip_asan.plain.json"; then
	bench_note "gzip_asan: the sanitized analyze of the gzip'd capture gives the plain file's JSON"
else
	echo "bench: gzip_asan: the sanitized analyze of the gzip'd capture failed or differs" >&2
	bench_note "gzip_asan: FAILED: the sanitized analyze of the gzip'd capture failed or differs from the plain file's JSON"
fi
