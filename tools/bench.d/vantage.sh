# Benchmark (sourced by tools/bench): analyze on two vantage points of the same traffic (the first
# VANTAGE_FRAMES frames of the tiled capture, and the same frames as a tap after a router saw them: other
# MACs, TTL one less, 300 us later by its clock) against each file alone: reading N files costs their sum.
VANTAGE_FRAMES=${VANTAGE_FRAMES:-2000000}

# The second tap's file: every frame of $1 with its MACs swapped, the IPv4 TTL one less (its checksum left
# as it is: analyze does not check it) and its time 300 us + 2 us later.
vantage_after() {
	local in=$1 out
	out=${in%.pcap}-after.pcap
	if [ ! -s "$out" ]; then
		/usr/bin/python3 - "$in" "$out" <<'PY'
import struct, sys
src, dst = sys.argv[1], sys.argv[2]
with open(src, "rb") as f, open(dst + ".tmp", "wb", 1 << 22) as g:
    hdr = f.read(24)
    nano = hdr[:4] == b"\x4d\x3c\xb2\xa1"
    g.write(hdr)
    shift = 302000 if nano else 302
    unit = 10**9 if nano else 10**6
    while True:
        rh = f.read(16)
        if len(rh) < 16:
            break
        sec, frac, caplen, wire = struct.unpack("<IIII", rh)
        data = bytearray(f.read(caplen))
        frac += shift
        sec, frac = sec + frac // unit, frac % unit
        if len(data) >= 14:
            data[0:6], data[6:12] = data[6:12], data[0:6]
        if len(data) >= 23 and data[12:14] == b"\x08\x00" and data[22] > 1:
            data[22] -= 1
        g.write(struct.pack("<IIII", sec, frac, caplen, wire) + bytes(data))
import os
os.replace(dst + ".tmp", dst)
PY
	fi
	echo "$out"
}

vin=$(bench_prefix "$VANTAGE_FRAMES")
vout=$(vantage_after "$vin")
bench_time "rocetrace analyze --json (tap 1 alone)" "$VANTAGE_FRAMES" "$ROCETRACE" analyze --json "$vin"
bench_time "rocetrace analyze --json (tap 2 alone)" "$VANTAGE_FRAMES" "$ROCETRACE" analyze --json "$vout"
bench_time "rocetrace analyze --json (both taps: 2 vantage points)" "$((2 * VANTAGE_FRAMES))" \
	"$ROCETRACE" analyze --json "$vin" "$vout"
bench_time "rocetrace analyze --json --vantage-sample 1/64 (both taps)" "$((2 * VANTAGE_FRAMES))" \
	"$ROCETRACE" analyze --json --vantage-sample 1/64 "$vin" "$vout"
bench_note "vantage: both taps together against the sum of each alone is what following packets between vantage points costs; peak RSS grows with the match window (10 ms of packets), not the files' frames; --vantage-sample 1/64 matches one packet in 64 (trajectory sampling)."
