#!/bin/sh
# System test of `rocetrace capture` on a veth pair between two network namespaces (needs root and ip netns).
# Usage: system_capture.sh ROCETRACE CAPTURES_DIR PYTHON3 CHECK_PY
set -u
RT=$1
CAPS=$2
PY=$3
CHECK=$4
FIXTURE=$CAPS/rxe_rdma_write_bw.pcap

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root to create network namespaces"
command -v ip >/dev/null 2>&1 || skip "ip (iproute2) not installed"
command -v tcpreplay >/dev/null 2>&1 || skip "tcpreplay not installed"
command -v tshark >/dev/null 2>&1 || skip "tshark not installed"
[ -r "$FIXTURE" ] || skip "fixture $FIXTURE not readable"

id=$$$(od -An -N2 -tu2 /dev/urandom | tr -d ' ')
NSA=rtcapA$id
NSB=rtcapB$id
VA=rtcA$id
VB=rtcB$id
T=$(mktemp -d "${TMPDIR:-/tmp}/rt-capture-XXXXXX")
cleanup() {
	ip netns del "$NSA" 2>/dev/null
	ip netns del "$NSB" 2>/dev/null
	rm -rf "$T"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

ip netns add "$NSA" 2>/dev/null || skip "cannot create a network namespace (ip netns add failed)"
ip netns add "$NSB" || exit 1
ip link add "$VA" netns "$NSA" type veth peer name "$VB" netns "$NSB" || exit 1
for ns in "$NSA" "$NSB"; do
	# No IPv6 neighbour discovery or MLD: only the replayed frames cross the link.
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.all.disable_ipv6=1
	ip netns exec "$ns" sysctl -qw net.ipv6.conf.default.disable_ipv6=1
done
ip -n "$NSA" link set "$VA" mtu 9000 up || exit 1
ip -n "$NSB" link set "$VB" mtu 9000 up || exit 1

fails=0
check() { # description, command...
	desc=$1
	shift
	if "$@"; then
		echo "ok: $desc"
	else
		echo "FAIL: $desc"
		fails=$((fails + 1))
	fi
}
replay="ip netns exec $NSB tcpreplay -q --topspeed -i $VB $FIXTURE"
capA() { ip netns exec "$NSA" "$RT" capture -i "$VA" "$@"; }
# No check depends on how fast this machine is: waits poll for what they wait for, at most 30 s.
wait_for_file() { # path
	i=0
	while [ ! -s "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
wait_for_frames() { # capture file, number of frames it must hold (the capture flushes when idle)
	i=0
	while [ "$("$PY" "$CHECK" count "$1" 2>/dev/null || echo 0)" -lt "$2" ] && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
nframes=$("$PY" "$CHECK" count "$FIXTURE")

# 1. capture around a command: exactly the replayed frames, same bytes, same dissection.
capA -w "$T/run.pcapng" --duration 30 -- sh -c "$replay >/dev/null" >"$T/run.out" 2>"$T/run.err"
check "-- CMD exits 0 with the command" test $? -eq 0
check "capture holds the replayed frames" "$PY" "$CHECK" same "$FIXTURE" "$T/run.pcapng" "$RT"
check "final stats line on stderr" grep -q "^rocetrace capture: $nframes received, 0 dropped, $nframes written" "$T/run.err"
check "pcapng interface block and statistics block" "$PY" "$CHECK" pcapng "$T/run.pcapng" "$nframes"

# 2. classic nanosecond pcap.
capA -w "$T/run.pcap" --format pcap --duration 30 -- sh -c "$replay >/dev/null" 2>/dev/null
check "--format pcap holds the replayed frames" "$PY" "$CHECK" same "$FIXTURE" "$T/run.pcap" "$RT"

# 3. exit status of the command.
capA -w "$T/st.pcapng" -- sh -c 'exit 3' 2>/dev/null
check "-- sh -c 'exit 3' exits 3" test $? -eq 3
capA -w "$T/st.pcapng" -- sh -c 'kill -TERM $$' 2>/dev/null
check "a command killed by SIGTERM gives 143" test $? -eq 143
capA -w "$T/st.pcapng" -- /nonexistent/command 2>"$T/st.err"
check "a command that cannot run gives 127" test $? -eq 127

# 4. -c N stops at N frames.
capA -w "$T/c10.pcapng" -c 10 --duration 30 -- sh -c "$replay >/dev/null" 2>"$T/c10.err"
check "-c 10 writes 10 frames" test "$("$PY" "$CHECK" count "$T/c10.pcapng")" -eq 10
check "-c 10 stats line says 10 written" grep -q " 10 written" "$T/c10.err"

# 5. a BPF filter, --duration, and SIGTERM passed on to the command.
nudp=$(tcpdump -r "$FIXTURE" 'udp port 4791' 2>/dev/null | wc -l)
capA -w "$T/bpf.pcapng" -f 'udp port 4791' -- sh -c "$replay >/dev/null" 2>"$T/bpf.err"
check "-f 'udp port 4791' keeps the $nudp RoCEv2 frames" grep -q " $nudp written" "$T/bpf.err"
check "... out of $nframes" test "$nudp" -gt 0 -a "$nudp" -lt "$nframes"
# a capture that does not stop by itself is killed (status 124) long after its 0.3 s
start=$(date +%s%N)
timeout 60 ip netns exec "$NSA" "$RT" capture -i "$VA" -w "$T/dur.pcapng" --duration 0.3 2>/dev/null
rc=$?
ms=$((($(date +%s%N) - start) / 1000000))
check "--duration 0.3 stops by itself, not before 0.3 s ($ms ms)" test $rc -eq 0 -a $ms -ge 300
check "... with a complete file" "$PY" "$CHECK" pcapng "$T/dur.pcapng" 0
# the signal is sent once the command runs (so rocetrace has its handlers); a rocetrace that
# died of it would also give 143, but would leave no statistics block at the end of the file
ip netns exec "$NSA" "$RT" capture -i "$VA" -w "$T/term.pcapng" -- \
	sh -c "echo started >'$T/term.started'; exec sleep 30" 2>/dev/null &
pid=$!
wait_for_file "$T/term.started"
kill -TERM $pid
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $pid 2>/dev/null
wait $pid
check "SIGTERM reaches the command, whose status (143) is returned" test $? -eq 143
check "... and the capture file is complete" "$PY" "$CHECK" pcapng "$T/term.pcapng" 0

# 6. SIGINT during a capture with counters from a fake sysfs tree (an RDMA port on top of the veth).
S=$T/sys/class/infiniband/rxe_fake/ports/1
mkdir -p "$S/hw_counters" "$S/counters" "$S/gid_attrs/ndevs"
echo 5 >"$S/hw_counters/np_cnp_sent"
echo 7 >"$S/hw_counters/rp_cnp_handled"
echo 123456 >"$S/counters/port_xmit_data"
echo Ethernet >"$S/link_layer"
echo "4: ACTIVE" >"$S/state"
echo "$VA" >"$S/gid_attrs/ndevs/0"
# Not through capA: $! must be rocetrace itself (ip netns exec execs it).
ip netns exec "$NSA" "$RT" capture -i "$VA" -w "$T/int.pcapng" --counters 0.2 --sysfs-root "$T/sys" 2>"$T/int.err" &
pid=$!
wait_for_file "$T/int.pcapng.counters.jsonl"
$replay >/dev/null
wait_for_frames "$T/int.pcapng" "$nframes"
kill -INT $pid
# A capture that ignored SIGINT would hang the test: kill it after 20 s.
i=0
while kill -0 $pid 2>/dev/null && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
kill -KILL $pid 2>/dev/null
wait $pid
rc=$?
check "SIGINT ends the capture with status 0" test $rc -eq 0
check "after SIGINT the file is complete, with its statistics block" "$PY" "$CHECK" pcapng "$T/int.pcapng" "$nframes"
check "counter samples follow docs/FORMATS.md" "$PY" "$CHECK" counters "$T/int.pcapng.counters.jsonl" rxe_fake 1 "$VA" "$VA"
check "analyze reads the drops the statistics block recorded" sh -c \
	"'$RT' analyze --json '$T/int.pcapng' | '$PY' -c 'import json, sys; c = json.load(sys.stdin)[\"capture\"]; sys.exit(c[\"source\"] != \"pcapng\" or c[\"dropped\"] != 0)'"

# 7. the fake RDMA device is listed, and claimed by the verbs sniffer (which finds no such NIC here).
ip netns exec "$NSA" "$RT" capture -D --sysfs-root "$T/sys" >"$T/list.out"
check "-D lists the RDMA port with its netdev" grep -q "rxe_fake:1 .*Ethernet.*ACTIVE.*netdev $VA" "$T/list.out"
check "-D lists the veth" grep -q "^  [0-9]*\. $VA " "$T/list.out"
ip netns exec "$NSA" "$RT" capture -i rxe_fake:1 --sysfs-root "$T/sys" -w "$T/v.pcapng" 2>"$T/v.err"
rc=$?
check "an unusable RDMA device fails with status 1" test $rc -eq 1
check "... and one error line naming it" sh -c "[ \$(wc -l <'$T/v.err') -eq 1 ] && grep -q 'rxe_fake' '$T/v.err'"

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all capture system checks passed"
