# Benchmark (sourced by tools/bench): analyze on PFC_FRAMES PFC frames from 1, 512 and 4096 sending MACs
# (a switch mirror of a big fabric): the cost of a PFC frame must not grow with the senders.
PFC_FRAMES=${PFC_FRAMES:-200000}

# PFC frames 1 us apart, frame i from sender i % $2 on priority (i / $2) % 8, an XOFF of 0xffff
# quanta (335 us at 100G) three times in four, else an XON: pauses start, refresh and end.
pfc_capture() {
	local frames=$1 senders=$2 out
	out=$BENCH_OUT/pfc-$frames-$senders.pcap
	if [ ! -s "$out" ] || [ ! -s "$out.frames" ]; then
		/usr/bin/python3 - "$out" "$frames" "$senders" <<'EOF'
import os, struct, sys
out, want, senders = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
ts = 1700000000 * 10**9
with open(out + ".tmp", "wb", 1 << 22) as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 262144, 1))
    chunk = []
    for i in range(want):
        s, prio = i % senders, (i // senders) % 8
        quanta = [0] * 8
        quanta[prio] = 0xFFFF if (i // senders // 8) % 4 != 3 else 0
        src = struct.pack(">HI", 0x0200, s + 1)
        fr = b"\x01\x80\xc2\x00\x00\x01" + src + struct.pack(">HHH8H", 0x8808, 0x0101, 1 << prio,
                                                             *quanta)
        fr += bytes(60 - len(fr))
        chunk.append(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(fr), len(fr)) + fr)
        ts += 1000
        if len(chunk) == 65536:
            f.write(b"".join(chunk))
            chunk = []
    f.write(b"".join(chunk))
os.replace(out + ".tmp", out)
with open(out + ".frames", "w") as f:
    f.write("%d\n" % want)
EOF
	fi
	echo "$out"
}

for senders in 1 512 4096; do
	cap=$(pfc_capture "$PFC_FRAMES" "$senders")
	bench_time "analyze --json: PFC from $senders senders" "$PFC_FRAMES" \
		"$ROCETRACE" analyze --json --link-speed 100G "$cap"
done
bench_note "pfc: the same PFC frame count from 1, 512 and 4096 sending MACs should take about the same time"
