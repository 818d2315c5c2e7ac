#!/usr/bin/python3
"""Captures with one planted fault each, and the truth of what was planted, for rocetrace's findings.

Each scenario builds its traffic with findings_traffic.py (scenario_frames.py's frames: scapy plus
struct, nothing from rocetrace) and records what it planted: the finding's code, its severity, the
hosts, MACs, flows and priority at fault, and figures it must report. `also` lists the codes
that follow from the fault (a storm's info that one point cannot tell a deadlock; the losses a
lossy priority causes); any other warning or error is a false finding. `healthy` plants nothing.

usage: make_findings.py OUTDIR   (OUTDIR/NAME/*.pcap[ng] and OUTDIR/NAME/truth.json)
"""
import json
import os
import random
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from findings_traffic import (T0, US, MS, Host, mac, Net, Stream, pause_for, pulse,  # noqa: E402
                              SEND_ONLY, NAK_SEQ, RNR)
from scenario_frames import write_pcap  # noqa: E402

SW = mac(0xFE)  # a switch's MAC (its ports' router MAC)


def host(n):
    return Host("10.1.0.%d" % n, mac(n))


def expect(code, severity, **what):
    d = dict(code=code, severity=severity)
    d.update(what)
    return d


# ---------------------------------------------------------------- healthy

def healthy():
    """Four senders into two receivers over VLAN priority 3 at RoCE MTU 4096, each QP on its own UDP
    source port; incast marks at R1, whose NP answers in 2 us (one CNP per 50 us per QP) on DSCP 48 /
    priority 6, and its senders slow down; the switch pauses priority 3 for 50 us now and then.
    Nothing is wrong."""
    net, rnd = Net(), random.Random(1)
    r1, r2 = host(11), host(12)
    streams = []
    for i in range(4):
        for k in range(2):
            s = Stream(net, host(i + 1), r1 if i < 2 else r2, 0x100 + 2 * i + k, 0x200 + 2 * i + k,
                       sport=49152 + 37 * (2 * i + k), prio=3)
            streams.append(s)
    for s in streams:
        t, last_cnp, gap = T0 + rnd.randrange(5 * US), None, 4 * US
        while t < T0 + 8 * MS:
            marked = s.d is r1 and rnd.random() < 0.15 and t > T0 + MS
            s.packet(t, SEND_ONLY, 1024, ce=marked)
            if marked and (last_cnp is None or t - last_cnp >= 50 * US):
                last_cnp = t
                s.cnp(t + 2 * US, dscp=48, prio=6)
                gap = 8 * US  # the sender halves its rate...
            elif gap > 4 * US and rnd.random() < 0.1:
                gap -= US  # ... and recovers
            t += gap
        s.message(t + 10 * US, 16384, 4096, 3 * US)
    for k in range(4):
        pulse(net, SW, T0 + (2 + 1.5 * k) * MS, 50 * US)
    return net, dict(expect=[], also=[])


# ---------------------------------------------------------------- PFC

def pfc_storm():
    """A routed fabric behind one switch, seen by a mirror of every port. R's NIC stops draining at
    5 ms and pauses priority 3 without a break for 30 ms; the switch, its buffer full, pauses the
    senders in bursts (the storm spreads); S4's flow to V, whose receiver is fine, stalls with
    them (head-of-line blocking)."""
    net = Net()
    r, v = host(20), host(21)
    senders = [host(i) for i in (1, 2, 3, 4)]
    streams = []
    for i, s in enumerate(senders):
        d = v if i == 3 else r
        streams.append(Stream(net, s, d, 0x300 + i, 0x400 + i, sport=50000 + i, prio=3,
                              macs=((s.mac, SW), (d.mac, SW))))
    for st in streams:
        st.steady(T0, 530, 10 * US)          # until 5.3 ms, when the switch pauses the senders
        st.steady(T0 + 35 * MS + 10 * US, 400, 10 * US)
    pause_for(net, r.mac, T0 + 5 * MS, T0 + 35 * MS)
    t = T0 + 5300 * US
    while t < T0 + 35 * MS:
        pulse(net, SW, t, 400 * US)
        t += 500 * US
    return net, dict(expect=[expect("pfc_storm", "error", hosts=[r.ip], macs=[r.mac, SW],
                                    flows=[streams[3].name], priorities=[3],
                                    evidence=dict(origin_mac=r.mac, origin_ip=r.ip, victim_flows=1,
                                                  stalled_into_origin=3))],
                     also=["pfc_deadlock_suspect"])


def pfc_storm_to_end():
    """As pfc_storm, but the capture ends 20 ms into the storm: the stalled flows never send
    again here, and S3's flow to W stalls with the others."""
    net = Net()
    r, w = host(22), host(23)
    senders = [host(i) for i in (5, 6, 7)]
    streams = []
    for i, s in enumerate(senders):
        d = w if i == 2 else r
        streams.append(Stream(net, s, d, 0x310 + i, 0x410 + i, sport=50100 + i, prio=3,
                              macs=((s.mac, SW), (d.mac, SW))))
    for st in streams:
        st.steady(T0, 230, 10 * US)  # until 2.3 ms
    pause_for(net, r.mac, T0 + 2 * MS, T0 + 22 * MS)
    t = T0 + 2300 * US
    while t < T0 + 22 * MS:
        pulse(net, SW, t, 400 * US)
        t += 500 * US
    net.files["capture"] = [f for f in net.files["capture"] if f[0] < T0 + 22 * MS]
    return net, dict(expect=[expect("pfc_storm", "error", hosts=[r.ip], macs=[r.mac, SW],
                                    flows=[streams[2].name], priorities=[3],
                                    evidence=dict(origin_ip=r.ip, victim_flows=1,
                                                  stalled_into_origin=2))],
                     also=["pfc_deadlock_suspect"])


def pfc_deadlock():
    """Three switches A, B, C in a ring, each link tapped (three vantage points). Traffic from the
    hosts behind them goes around the ring; at 3 ms A pauses B, B pauses C and C pauses A on
    priority 3, each held by the next, until a watchdog lets go at 23 ms."""
    net = Net()
    a, b, c = mac(0xA0), mac(0xB0), mac(0xC0)
    hosts = [host(31), host(32), host(33)]
    ring = [("ab", a, b), ("bc", b, c), ("ca", c, a)]
    streams = []
    for i, (point, m1, m2) in enumerate(ring):
        s, d = hosts[i], hosts[(i + 1) % 3]
        streams.append(Stream(net, s, d, 0x500 + i, 0x600 + i, sport=51000 + i, prio=3,
                              macs=((m1, m2), (m2, m1)), point=point))
    for st in streams:
        st.steady(T0, 300, 10 * US)
        st.steady(T0 + 23 * MS + 10 * US, 100, 10 * US)
    for point, m1, _ in ring:
        pause_for(net, m1, T0 + 3 * MS, T0 + 23 * MS, point=point)
    return net, dict(expect=[expect("pfc_deadlock_suspect", "error", macs=[a, b, c],
                                    priorities=[3], evidence=dict(macs=3))],
                     also=["pfc_storm"])


def lossy_priority():
    """PFC pauses priority 3 (the switch, 100 us now and then); S1's data rides priority 3, but S2's
    rides priority 0, which nothing pauses: three of S2's packets are lost after the capture
    point, R2 NAKs each and S2 resends it."""
    net = Net()
    s1, s2, r1, r2 = host(41), host(42), host(43), host(44)
    good = Stream(net, s1, r1, 0x700, 0x701, sport=52000, prio=3)
    bad = Stream(net, s2, r2, 0x702, 0x703, sport=52001, prio=0)
    good.steady(T0, 1000, 5 * US)
    t = T0
    for k in range(1000):
        psn = bad.packet(t, ack=False)
        t += 5 * US
        if k in (200, 500, 800):  # psn lost after the capture point: NAK, resent
            bad.reply(t + 3 * US, NAK_SEQ, psn)
            t += 6 * US
            for p in range(psn, psn + 1):
                bad.packet(t, psn=p, ack=False)
                t += 5 * US
    for k in range(5):
        pulse(net, SW, T0 + k * MS + 300 * US, 100 * US)
    return net, dict(expect=[expect("lossy_priority", "error", hosts=[s2.ip], flows=[bad.name],
                                    priorities=[0], evidence=dict(priority=0, priority_from="pcp"))],
                     also=["loss", "nak_storm"])


def cnp_priority():
    """R's NP sends its CNPs with DSCP 26, the DSCP (and so the priority) of the data they slow."""
    net, rnd = Net(), random.Random(2)
    s, r = host(51), host(52)
    st = Stream(net, s, r, 0x710, 0x711, sport=52100)
    t, last = T0, None
    for _ in range(2000):
        ce = rnd.random() < 0.1
        st.packet(t, ce=ce)
        if ce and (last is None or t - last >= 20 * US):
            last = t
            st.cnp(t + 2 * US, dscp=26)
        t += 2 * US
    return net, dict(expect=[expect("cnp_priority", "warning", hosts=[r.ip],
                                    evidence=dict(cnp_dscp=26, data_priority=3))], also=[])


# ---------------------------------------------------------------- ECN and DCQCN

def np_silent():
    """Two receivers get CE-marked data; R1's NP answers each mark, R2's never does (its NP is
    off), though R2 ACKs its data."""
    net, rnd = Net(), random.Random(3)
    r1, r2 = host(61), host(62)
    a = Stream(net, host(63), r1, 0x720, 0x721, sport=52200)
    b = Stream(net, host(64), r2, 0x722, 0x723, sport=52201)
    for st, answers in ((a, True), (b, False)):
        t = T0
        for _ in range(2000):
            ce = rnd.random() < 0.2
            st.packet(t, ce=ce)
            if ce and answers:
                st.cnp(t + 2 * US)
            t += 3 * US
    return net, dict(expect=[expect("np_silent", "error", hosts=[r2.ip], flows=[b.name])], also=[])


def paced(net, st, cnps, react, cut_after=1500, cut_for=40 * US, n=6000, marked=0):
    """A sender 1 us apart that gets a CNP every `cnps` ns; with `react` its gap doubles from
    cut_after ns after each CNP for cut_for (a DCQCN cut and its recovery); every `marked`-th
    packet CE-marked (a capture behind the marking queue)."""
    t, next_cnp, slow_from, slow_to = T0, T0 + 100 * US, None, None
    for k in range(n):
        if t >= next_cnp:
            st.cnp(next_cnp)
            if react:
                slow_from, slow_to = next_cnp + cut_after, next_cnp + cut_after + cut_for
            next_cnp += cnps
        st.packet(t, payload=256, ce=bool(marked) and k % marked == marked - 1)
        t += 2 * US if slow_from is not None and slow_from <= t < slow_to else US


def rp_deaf():
    """A capture on the senders' side (marks happen further on): both senders get a CNP every
    60 us; S2 halves its rate 1.5 us after each, S1 keeps sending as before (its RP is off)."""
    net = Net()
    s1, s2, r = host(71), host(72), host(73)
    deaf = Stream(net, s1, r, 0x730, 0x731, sport=52300, ack_every=16)
    fine = Stream(net, s2, r, 0x732, 0x733, sport=52301, ack_every=16)
    paced(net, deaf, 60 * US, False)
    paced(net, fine, 60 * US, True)
    return net, dict(expect=[expect("rp_deaf", "error", hosts=[s1.ip], flows=[deaf.name])], also=[])


def rp_deaf_behind():
    """As rp_deaf, but captured behind the queue that marks both senders' packets: S1's rate,
    unlike S2's, does not fall after its CNPs."""
    net = Net()
    s1, s2, r = host(76), host(77), host(78)
    deaf = Stream(net, s1, r, 0x736, 0x737, sport=52303, ack_every=16)
    fine = Stream(net, s2, r, 0x738, 0x739, sport=52304, ack_every=16)
    paced(net, deaf, 60 * US, False, marked=10)
    paced(net, fine, 60 * US, True, marked=10)
    return net, dict(expect=[expect("rp_deaf", "error", hosts=[s1.ip], flows=[deaf.name],
                                    evidence=dict(other_senders_slow_down=True))], also=[])


def slow_rp():
    """As rp_deaf's reacting sender, but the cut comes 70 us after each CNP (every 150 us)."""
    net = Net()
    s, r = host(74), host(75)
    st = Stream(net, s, r, 0x734, 0x735, sport=52302, ack_every=16)
    paced(net, st, 150 * US, True, cut_after=70 * US, cut_for=40 * US)
    return net, dict(expect=[expect("slow_rp", "warning", hosts=[s.ip], flows=[st.name])], also=[])


def slow_np():
    """R's NP answers each CE mark (marked at random) 200 us later."""
    net, rnd = Net(), random.Random(4)
    s, r = host(81), host(82)
    st = Stream(net, s, r, 0x740, 0x741, sport=52400)
    t = T0
    for _ in range(3000):
        ce = rnd.random() < 0.03
        st.packet(t, ce=ce)
        if ce:
            st.cnp(t + 200 * US + rnd.randrange(-500, 500))
        t += US
    return net, dict(expect=[expect("slow_np", "warning", hosts=[r.ip], flows=[st.name])], also=[])


def ecn_off():
    """Two senders' data is Not-ECT; the switch pauses priority 3 now and then."""
    net = Net()
    r = host(91)
    sts = [Stream(net, host(92 + i), r, 0x750 + i, 0x760 + i, sport=52500 + i, ecn=0, prio=3)
           for i in range(2)]
    for st in sts:
        st.steady(T0, 500, 4 * US)
    for k in range(3):
        pulse(net, SW, T0 + (k + 0.5) * 600 * US, 30 * US)
    return net, dict(expect=[expect("ecn_off", "warning", hosts=[s.s.ip for s in sts])], also=[])


# ---------------------------------------------------------------- transport

def ack_timeout():
    """Messages of 8 packets each ms; the last packet of three of them is lost after the capture
    point (no later packet: no NAK), so the sender resends it after its local ACK timeout, t = 14
    (4.096 us x 2^14 = 67.1 ms)."""
    net = Net()
    s, r = host(101), host(102)
    st = Stream(net, s, r, 0x770, 0x771, sport=52600, ack_every=0)
    t = T0
    for m in range(12):
        for k in range(8):
            psn = st.packet(t)
            t += 2 * US
        t -= 2 * US
        if m in (2, 6, 9):
            t += 67108864 + 3 * US
            st.packet(t, psn=psn)
        st.reply(t + 2 * US, 0x1F, psn)
        t += MS
    return net, dict(expect=[expect("ack_timeout", "error", hosts=[s.ip], flows=[st.name],
                                    evidence=dict(timeout_t=14, timeouts=3))], also=[])


def rnr():
    """R's application runs out of posted receives: it answers five SENDs with an RNR NAK (timer 14,
    1.28 ms) and the sender tries each again 1.3 ms later."""
    net = Net()
    s, r = host(111), host(112)
    st = Stream(net, s, r, 0x780, 0x781, sport=52700, ack_every=1)
    t = T0
    for k in range(40):
        if k % 8 == 3:
            psn = st.packet(t, ack=False)
            st.reply(t + 2 * US, RNR | 14, psn)
            t += 1300 * US
            st.packet(t, psn=psn)
        else:
            st.packet(t)
        t += 20 * US
    return net, dict(expect=[expect("rnr", "warning", hosts=[r.ip], flows=[st.name],
                                    evidence=dict(rnr_naks=5, rnr_timer=14))], also=[])


def go_back(lost, name, code, severity):
    """A capture at the receiver (after the loss): packets 1 us apart; each lost one's successor
    draws a NAK, and the sender, 15 packets ahead, goes back and resends all 16."""
    net = Net()
    s, r = host(121), host(122)
    st = Stream(net, s, r, 0x790, 0x791, sport=52800, ack_every=64)
    t, k, n = T0, 0, 3000
    while k < n:
        if k in lost:
            p = st.psn
            st.psn = (st.psn + 1) & 0xFFFFFF  # lost: never seen here
            t += US
            st.packet(t)
            st.reply(t + 2 * US, NAK_SEQ, p)
            for j in range(14):
                t += US
                st.packet(t, ack=False)
            t += 3 * US
            for j in range(16):
                st.packet(t, psn=(p + j) & 0xFFFFFF, ack=False)
                t += US
            k += 16
            continue
        st.packet(t)
        t += US
        k += 1
    return net, dict(expect=[expect(code, severity, hosts=[s.ip], flows=[st.name],
                                    evidence=dict(lost_packets=len(lost), lost_from="gaps",
                                                  amplification=16.0))], also=[])


def nak_storm():
    """Twenty losses, each resent with the fifteen packets after it (go-back-N)."""
    return go_back(set(range(100, 2900, 140)), "nak_storm", "nak_storm", "error")


def loss():
    """Two losses, each resent with the fifteen packets after it."""
    return go_back({500, 1500}, "loss", "loss", "warning")


# ---------------------------------------------------------------- paths

def ecmp_collapse():
    """Sixteen QPs from A to B, all from UDP source port 49152 (a library that fixes the port)."""
    net = Net()
    a, b = host(131), host(132)
    sts = [Stream(net, a, b, 0x800 + i, 0x900 + i, sport=49152) for i in range(16)]
    for i, st in enumerate(sts):
        st.steady(T0 + i * 300, 100, 5 * US)
    return net, dict(expect=[expect("ecmp_collapse", "warning", hosts=[a.ip, b.ip],
                                    evidence=dict(worst_pair_qps=16, worst_pair_ports=1))], also=[])


def mtu_mismatch():
    """Two QPs between A and B: one at RoCE MTU 4096, one at 1024."""
    net = Net()
    a, b = host(141), host(142)
    big = Stream(net, a, b, 0xA00, 0xA01, sport=53000)
    small = Stream(net, a, b, 0xA02, 0xA03, sport=53001)
    t = T0
    for _ in range(20):
        t = big.message(t, 16384, 4096, 4 * US)
        t = small.message(t, 16384, 1024, US)
    return net, dict(expect=[expect("mtu_mismatch", "warning", hosts=[a.ip],
                                    evidence=dict(mtus="1024 (1 QP), 4096 (1 QP)"))], also=[])


def mtu_host_below():
    """Four hosts; the QPs among A, B and C run at RoCE MTU 4096, D's (with A and B) at 1024:
    D's netdev MTU is set lower."""
    net = Net()
    a, b, c, d = host(143), host(144), host(145), host(146)
    big = [Stream(net, x, y, 0xA10 + i, 0xA20 + i, sport=53010 + i)
           for i, (x, y) in enumerate(((a, b), (b, c), (c, a)))]
    small = [Stream(net, x, y, 0xA30 + i, 0xA40 + i, sport=53020 + i)
             for i, (x, y) in enumerate(((a, d), (d, b)))]
    t = T0
    for _ in range(10):
        for st in big:
            t = st.message(t, 16384, 4096, 4 * US)
        for st in small:
            t = st.message(t, 16384, 1024, US)
    return net, dict(expect=[expect("mtu_mismatch", "warning", hosts=[d.ip],
                                    evidence=dict(host_mtu=1024, common_mtu=4096))], also=[])


# ---------------------------------------------------------------- the capture itself

def capture_snaplen():
    """A stream captured with a snap length of 50 bytes: the BTH is cut."""
    net = Net()
    st = Stream(net, host(151), host(152), 0xB00, 0xB01, sport=53100)
    st.steady(T0, 200, 2 * US)
    return net, dict(expect=[expect("capture_snaplen", "warning")], also=[], snaplen=50)


def capture_drops():
    """A pcapng whose interface statistics say 1,000 frames were dropped by the capture."""
    net = Net()
    st = Stream(net, host(161), host(162), 0xB10, 0xB11, sport=53200)
    st.steady(T0, 200, 2 * US)
    return net, dict(expect=[expect("capture_drops", "warning", evidence=dict(dropped=1000))],
                     also=[], pcapng_drops=1000)


SCENARIOS = [healthy, pfc_storm, pfc_storm_to_end, pfc_deadlock, lossy_priority, cnp_priority,
             np_silent, rp_deaf, rp_deaf_behind, slow_rp, slow_np, ecn_off, ack_timeout, rnr,
             nak_storm, loss, ecmp_collapse, mtu_mismatch, mtu_host_below, capture_snaplen,
             capture_drops]


def write_pcapng(path, frames, ifdrop):
    """One interface (Ethernet, ns timestamps), its packets, an interface statistics block."""
    def block(btype, body):
        body += b"\0" * (-len(body) % 4)
        return struct.pack("<II", btype, 12 + len(body)) + body + struct.pack("<I", 12 + len(body))

    def opt(code, value):
        return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)
    out = block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    out += block(1, struct.pack("<HHI", 1, 0, 262144) + opt(9, b"\x09") + opt(0, b""))
    for ts, b in sorted(frames, key=lambda x: x[0]):
        out += block(6, struct.pack("<IIIII", 0, ts >> 32, ts & 0xFFFFFFFF, len(b), len(b)) + b)
    out += block(5, struct.pack("<IQ", 0, 0) + opt(5, struct.pack("<Q", ifdrop)) + opt(0, b""))
    with open(path, "wb") as f:
        f.write(out)


def main():
    out = sys.argv[1]
    for fn in SCENARIOS:
        net, truth = fn()
        d = os.path.join(out, fn.__name__)
        os.makedirs(d, exist_ok=True)
        files = []
        for point, frames in net.files.items():
            if not frames:
                continue
            name = point + (".pcapng" if "pcapng_drops" in truth else ".pcap")
            if "pcapng_drops" in truth:
                write_pcapng(os.path.join(d, name), frames, truth["pcapng_drops"])
            else:
                write_pcap(os.path.join(d, name), frames, truth.get("snaplen", 65535))
            files.append([point, name])
        truth.update(name=fn.__name__, planted=" ".join(fn.__doc__.split()), files=files)
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
