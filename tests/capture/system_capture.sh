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
# Send signal SIG to PID, give it 10 s (or the tenths of a second given) to end, then kill it; its status.
signal_and_wait() { # SIG PID [tenths of a second]
	kill -"$1" "$2"
	i=0
	while kill -0 "$2" 2>/dev/null && [ $i -lt "${3:-100}" ]; do sleep 0.1; i=$((i + 1)); done
	kill -KILL "$2" 2>/dev/null
	wait "$2"
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
signal_and_wait TERM $pid
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
# A capture that ignored SIGINT would hang the test: kill it after 20 s.
signal_and_wait INT $pid 200
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

# 8. what the command inherits: no capture socket, nothing rocetrace opened; what the caller gave it.
capA -w "$T/fd.pcapng" -- sh -c 'ls -l /proc/$$/fd' >"$T/fd.out" 2>/dev/null 3>"$T/fd3"
check "the command sees no socket" sh -c "! grep -q socket '$T/fd.out'"
check "... nor the capture file" sh -c "! grep -q fd.pcapng '$T/fd.out'"
check "... but descriptor 3 its caller gave" grep -q " 3 -> $T/fd3" "$T/fd.out"

# 9. exit statuses and refusals.
printf '#!/bin/sh\n' >"$T/noexec"
capA -w "$T/st.pcapng" -- "$T/noexec" 2>"$T/st.err"
check "a command that is not executable gives 126" test $? -eq 126
check "... with one line saying why" grep -q "cannot run '$T/noexec': Permission denied" "$T/st.err"
capA -w '' 2>/dev/null
check "-w '' is a usage error (2)" test $? -eq 2
capA -Z no-such-user-rt -w "$T/st.pcapng" 2>/dev/null
check "-Z with an unknown user is a usage error (2)" test $? -eq 2
echo precious >"$T/victim"
ln -s "$T/victim" "$T/planted.pcapng"
capA -w "$T/planted.pcapng" --duration 0.1 2>"$T/planted.err"
check "a symbolic link as -w is refused (1)" test $? -eq 1
check "... and its target left alone" sh -c "[ \"\$(cat '$T/victim')\" = precious ] && grep -q 'symbolic link' '$T/planted.err'"

# 10. -Z nobody: the file, the counters file and the command belong to nobody.
if id nobody >/dev/null 2>&1; then
	chmod 755 "$T"
	mkdir "$T/z"
	chown nobody "$T/z"
	# the command (nobody) waits while root replays the frames
	capA -Z nobody -w "$T/z/F.pcapng" --counters 0.2 --sysfs-root "$T/sys" -- \
		sh -c "id -u >'$T/z/uid'; while [ ! -e '$T/z/go' ]; do sleep 0.05; done" 2>"$T/z.err" &
	pid=$!
	wait_for_file "$T/z/uid"
	$replay >/dev/null
	wait_for_frames "$T/z/F.pcapng" "$nframes"
	touch "$T/z/go"
	wait $pid
	check "-Z nobody: the capture runs (0)" test $? -eq 0
	check "... F belongs to nobody" test "$(stat -c %U "$T/z/F.pcapng")" = nobody
	check "... so does the counters file" test "$(stat -c %U "$T/z/F.pcapng.counters.jsonl")" = nobody
	check "... the command ran as nobody" test "$(cat "$T/z/uid")" = "$(id -u nobody)"
	check "... and the frames were captured" "$PY" "$CHECK" same "$FIXTURE" "$T/z/F.pcapng" "$RT"
	mkdir -m 700 "$T/rootonly"
	capA -Z nobody -w "$T/rootonly/F.pcapng" --duration 0.1 2>/dev/null
	check "-Z nobody cannot create a file in root's folder (1)" test $? -eq 1
fi

# 11. SIGHUP (a closed ssh session) stops like SIGTERM: complete file, the command stopped.
ip netns exec "$NSA" "$RT" capture -i "$VA" -w "$T/hup.pcapng" -- \
	sh -c "echo started >'$T/hup.started'; exec sleep 30" 2>/dev/null &
pid=$!
wait_for_file "$T/hup.started"
signal_and_wait HUP $pid
check "SIGHUP stops the command with SIGTERM (143)" test $? -eq 143
check "... and the capture file is complete" "$PY" "$CHECK" pcapng "$T/hup.pcapng" 0
ip netns exec "$NSA" "$RT" capture -i "$VA" -w "$T/hup2.pcapng" 2>/dev/null &
pid=$!
wait_for_file "$T/hup2.pcapng"
signal_and_wait HUP $pid
check "SIGHUP without a command: status 0" test $? -eq 0
check "... and a complete file" "$PY" "$CHECK" pcapng "$T/hup2.pcapng" 0

# 12. after the capture stops, what keeps arriving is neither captured nor dropped: SIGINT to
# rocetrace alone, and SIGTERM to a command that ignores it, while the command sends on into a
# one-block ring nobody reads (-B 1) until it ends.
for how in INT TERM; do
	rm -f "$T/late.go" "$T/late.started"
	ip netns exec "$NSA" "$RT" capture -i "$VA" -B 1 -w "$T/late.pcapng" -- \
		sh -c "trap '' TERM; echo started >'$T/late.started'
			while [ ! -e '$T/late.go' ]; do sleep 0.05; done
			ip netns exec $NSB tcpreplay -q --topspeed --loop=40 -i $VB $FIXTURE >/dev/null" \
		2>"$T/late.err" &
	pid=$!
	wait_for_file "$T/late.started"
	kill -$how $pid
	sleep 1 # the capture stops at once; the margin covers a slow machine
	touch "$T/late.go"
	wait $pid
	check "SIG$how, then frames: the command's status (0)" test $? -eq 0
	check "... none of them counted as dropped" grep -q "^rocetrace capture: 0 received, 0 dropped, 0 written" "$T/late.err"
	check "... and the file is complete" "$PY" "$CHECK" pcapng "$T/late.pcapng" 0
done

# 13. block delivery still counts drops: 40 replays into a one-block ring while the capture is
# stopped (SIGSTOP); each frame is then either written or counted as dropped.
ip netns exec "$NSA" "$RT" capture -i "$VA" -B 1 -w "$T/drop.pcapng" 2>"$T/drop.err" &
pid=$!
wait_for_file "$T/drop.pcapng"
kill -STOP $pid
ip netns exec "$NSB" tcpreplay -q --topspeed --loop=40 -i "$VB" "$FIXTURE" >/dev/null 2>&1
kill -CONT $pid
sleep 0.5 # it reads what the ring kept
signal_and_wait INT $pid
got=$(sed -n 's/^rocetrace capture: \([0-9]*\) received, \([0-9]*\) dropped, \([0-9]*\) written.*/\1 \2 \3/p' "$T/drop.err")
# shellcheck disable=SC2086 # the three counts, split
set -- $got
check "frames the ring could not hold are counted as dropped ($got)" \
	test "${2:-0}" -gt 0 -a "$((${1:-0} + ${2:-0}))" -eq $((40 * nframes)) -a "${1:-0}" = "${3:-}"

[ $fails -eq 0 ] || { echo "$fails check(s) failed"; exit 1; }
echo "all capture system checks passed"
