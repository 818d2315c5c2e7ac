# Benchmark (sourced by tools/bench): rocetrace analyze/timeline/report on 10M header-only frames over 10,000 flows,
# beside tshark field extraction and tcpdump; peak RSS shows memory grows with flows, not frames. Then the
# flows' worst cases: 100,000 QPs between one host pair (pairing), 1,000,000 CE-marked flows (memory).
ANALYZE_FRAMES=${ANALYZE_FRAMES:-10000000}

# A capture of RC WRITE middles (AckReq every 8th, answered by an ACK) over 5,000 QP pairs
# (10,000 flows), 1% CE-marked, a CNP per 64 CE marks; snap length 62: headers only.
analyze_capture() {
	local frames=$1 flows=$2 out
	out=$BENCH_OUT/analyze-$frames-$flows.pcap
	if [ ! -s "$out" ] || [ ! -s "$out.frames" ]; then
		/usr/bin/python3 - "$out" "$frames" "$flows" <<'EOF'
import struct, sys, zlib
out, want, nflows = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) // 2
SNAP = 62

def frame(src, dst, ecn, opcode, qp, psn, ackreq, ext=b"", payload=0):
    """(captured bytes, wire length): data is cut to SNAP; whole ACKs carry a valid ICRC."""
    wire = 14 + 20 + 8 + 12 + len(ext) + payload + 4
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, (26 << 2) | ecn, wire - 14, 0, 0x4000, 64, 17, 0,
                     bytes(src), bytes(dst))
    udp = struct.pack(">HHHH", 49152, 4791, wire - 34, 0)
    bth = struct.pack(">BBHBBHBBH", opcode, 0, 0xFFFF, 0, qp >> 16, qp & 0xFFFF, ackreq << 7,
                      psn >> 16, psn & 0xFFFF)
    body = ip + udp + bth + ext + bytes(payload)
    icrc = b"\0" * 4
    if wire <= SNAP:
        m = bytearray(body)
        m[1] = m[8] = m[10] = m[11] = 0xFF
        m[26] = m[27] = 0xFF
        m[32] = 0xFF
        icrc = struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(m)) & 0xFFFFFFFF)
    eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00"
    return (eth + body + icrc)[:SNAP], wire

recv = (10, 1, 0, 1)
hosts = [(10, 0, f // 250, f % 250 + 1) for f in range(nflows)]
psn = [0] * nflows
ce_count = 0
ts = 1700000000 * 10**9
n = 0
with open(out + ".tmp", "wb", 1 << 22) as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, SNAP, 1))
    while n < want:
        chunk = []
        for i in range(nflows):
            p = psn[i]
            psn[i] = (p + 1) & 0xFFFFFF
            ackreq = p % 8 == 7
            ce = (n + i) % 100 == 0
            fr, wire = frame(hosts[i], recv, 3 if ce else 2, 0x07, 0x1000 + i, p, ackreq,
                             payload=1024)
            chunk.append(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(fr), wire) + fr)
            ts += 100
            n += 1
            if ackreq:
                fr, wire = frame(recv, hosts[i], 2, 0x11, 0x2000 + i, p, 0,
                                 struct.pack(">I", 0x1F << 24))
                chunk.append(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(fr), wire) + fr)
                ts += 100
                n += 1
            if ce:
                ce_count += 1
                if ce_count % 64 == 0:
                    fr, wire = frame(recv, hosts[i], 2, 0x81, 0x2000 + i, 0, 0, bytes(16))
                    chunk.append(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(fr), wire) + fr)
                    ts += 100
                    n += 1
            if n >= want:
                break
        f.write(b"".join(chunk))
import os
os.replace(out + ".tmp", out)
with open(out + ".frames", "w") as f:
    f.write("%d\n" % n)
EOF
	fi
	echo "$out"
}

# 100,000 RC QP pairs between two hosts, round-robin: each QP sends 8 WRITEs (random first PSN, as NICs
# choose them; AckReq on the 8th), then every QP's ACK comes back; 1 in 100 WRITEs CE-marked, and the
# receiver's CNP for one QP in 10 after its ACK. The ACKs find their requester among 100,000 unpaired flows.
many_qps_capture() {
	local qps=$1 out
	out=$BENCH_OUT/analyze-qps-$qps.pcap
	if [ ! -s "$out" ] || [ ! -s "$out.frames" ]; then
		/usr/bin/python3 - "$out" "$qps" <<'EOF2'
import random, struct, sys
out, qps = sys.argv[1], int(sys.argv[2])
SNAP = 62
rnd = random.Random(7)
a, b = bytes((10, 0, 0, 1)), bytes((10, 0, 0, 2))

def frame(src, dst, ecn, opcode, qp, psn, ackreq, ext=b"", payload=0):
    wire = 14 + 20 + 8 + 12 + len(ext) + payload + 4
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, (26 << 2) | ecn, wire - 14, 0, 0x4000, 64, 17, 0, src, dst)
    udp = struct.pack(">HHHH", 49152, 4791, wire - 34, 0)
    bth = struct.pack(">BBHBBHBBH", opcode, 0, 0xFFFF, 0, qp >> 16, qp & 0xFFFF, ackreq << 7,
                      psn >> 16, psn & 0xFFFF)
    eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00"
    return (eth + ip + udp + bth + ext + bytes(payload) + b"\0" * 4)[:SNAP], wire

first = [rnd.randrange(1 << 24) for _ in range(qps)]
ts, n = 1700000000 * 10**9, 0
with open(out + ".tmp", "wb", 1 << 22) as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, SNAP, 1))
    def put(fr):
        global ts, n
        data, wire = fr
        f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), wire) + data)
        ts += 100
        n += 1
    for k in range(8):
        for i in range(qps):
            put(frame(a, b, 3 if (i + k) % 100 == 0 else 2, 0x0A, 0x200000 + i, (first[i] + k) & 0xFFFFFF,
                      k == 7, struct.pack(">QII", 0, 0, 1024), 1024))
    for i in range(qps):
        put(frame(b, a, 2, 0x11, 0x100000 + i, (first[i] + 7) & 0xFFFFFF, 0, struct.pack(">I", 0x1F << 24)))
        if i % 10 == 0:
            put(frame(b, a, 2, 0x81, 0x100000 + i, 0, 0, bytes(16)))
import os
os.replace(out + ".tmp", out)
with open(out + ".frames", "w") as f:
    f.write("%d\n" % n)
EOF2
	fi
	echo "$out"
}

# 1,000,000 flows (1,000 senders x 1,000 QPs into one receiver), one CE-marked RC SEND each: the memory a
# CE-marked flow costs.
ce_flows_capture() {
	local flows=$1 out
	out=$BENCH_OUT/analyze-ce-flows-$flows.pcap
	if [ ! -s "$out" ] || [ ! -s "$out.frames" ]; then
		/usr/bin/python3 - "$out" "$flows" <<'EOF2'
import struct, sys
out, flows = sys.argv[1], int(sys.argv[2])
recv = bytes((10, 1, 0, 1))
eth = b"\x02\0\0\0\0\x02\x02\0\0\0\0\x01\x08\x00"
ts = 1700000000 * 10**9
with open(out + ".tmp", "wb", 1 << 22) as f:
    f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
    for i in range(flows):
        src = bytes((10, 0, (i // 1000) // 250, (i // 1000) % 250 + 1))
        qp = 0x1000 + i % 1000
        wire = 14 + 20 + 8 + 12 + 16 + 4
        ip = struct.pack(">BBHHHBBH4s4s", 0x45, (26 << 2) | 3, wire - 14, 0, 0x4000, 64, 17, 0, src, recv)
        udp = struct.pack(">HHHH", 49152, 4791, wire - 34, 0)
        bth = struct.pack(">BBHBBHBBH", 0x04, 0, 0xFFFF, 0, qp >> 16, qp & 0xFFFF, 0, 0, i & 0xFFFF)
        data = eth + ip + udp + bth + bytes(16) + b"\0" * 4
        f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(data), wire) + data)
        ts += 100
import os
os.replace(out + ".tmp", out)
with open(out + ".frames", "w") as f:
    f.write("%d\n" % flows)
EOF2
	fi
	echo "$out"
}

acap=$(analyze_capture "$ANALYZE_FRAMES" 10000)
aframes=$(cat "$acap.frames")
small=$(analyze_capture 1000000 10000)
sframes=$(cat "$small.frames")
bench_time "rocetrace analyze --json (10k flows)" "$aframes" "$ROCETRACE" analyze --json "$acap"
bench_time "rocetrace analyze --json (1M frames, 10k flows)" "$sframes" "$ROCETRACE" analyze --json "$small"
bench_time "rocetrace timeline --bucket 1ms (10k flows)" "$aframes" \
	"$ROCETRACE" timeline --bucket 1ms -o /dev/null "$acap"
bench_time "rocetrace timeline --bucket 10ms (10k flows)" "$aframes" \
	"$ROCETRACE" timeline --bucket 10ms -o /dev/null "$acap"
bench_time "rocetrace report (10k flows, the HTML page)" "$aframes" \
	"$ROCETRACE" report "$acap" -o "$BENCH_OUT/report-10k.html"
bench_note "analyze: rocetrace report's page of the 10k-flow capture is $(stat -c %s "$BENCH_OUT/report-10k.html") bytes (analyze --json: $("$ROCETRACE" analyze --json "$acap" | wc -c) bytes)."
bench_time "rocetrace dissect --count (same capture)" "$aframes" "$ROCETRACE" dissect --count "$acap"
bench_time "tcpdump -r FILE -w /dev/null (same capture)" "$aframes" tcpdump -Z "$bench_me" -r "$acap" -w /dev/null
if command -v tshark >/dev/null; then
	tprefix=$BENCH_OUT/analyze-prefix-200000.pcap
	if [ ! -s "$tprefix" ]; then
		tcpdump -Z "$bench_me" -r "$acap" -c 200000 -w "$tprefix.tmp" 2>/dev/null
		mv "$tprefix.tmp" "$tprefix"
	fi
	bench_time "tshark -T fields (RoCE fields, 200k prefix)" 200000 \
		tshark -n -r "$tprefix" -T fields -e frame.number -e ip.src -e ip.dst -e ip.dsfield.ecn \
		-e infiniband.bth.opcode -e infiniband.bth.destqp -e infiniband.bth.psn \
		-e infiniband.aeth.syndrome
	bench_note "analyze: tshark is timed on the first 200000 frames of the 10k-flow capture; compare frames/s."
fi
qcap=$(many_qps_capture 100000)
bench_time "rocetrace analyze --json (100k QPs, one host pair)" "$(cat "$qcap.frames")" \
	"$ROCETRACE" analyze --json "$qcap"
ccap=$(ce_flows_capture 1000000)
bench_time "rocetrace analyze --json (1M CE-marked flows)" "$(cat "$ccap.frames")" \
	"$ROCETRACE" analyze --json "$ccap"
bench_note "analyze: peak RSS of the 1M- and ${aframes}-frame runs over the same 10,000 flows shows memory follows flows, not frames."
bench_note "analyze: 100k QPs between one host pair: pairing costs O(1) per packet; 1M CE-marked flows: peak RSS is what a flow costs (under 1 GiB)."
