#!/usr/bin/python3
"""Captures with one planted fault each, and the truth of what was planted, for rocetrace's findings.

Each scenario builds its traffic with findings_traffic.py (scenario_frames.py's frames: scapy plus
struct, nothing from rocetrace) and records what it planted: the finding's code, its severity, the
hosts, MACs, flows and priority at fault, figures it must report, and its confidence where that
is the point. `also` lists the codes that follow from the fault (the losses a lossy priority
causes); any other finding is a false one. `healthy` plants nothing; the "cannot tell" scenarios
plant what the capture cannot decide (an info finding that says so, or none at all). The
capture's own faults are in findings_capture_cases.py. A truth's `args` are options to analyze
with; `snaplen`, `pcapng_drops` and `in_order` say how its files are written; `text`, what the
text report must say.

usage: make_findings.py OUTDIR   (OUTDIR/NAME/*.pcap[ng] and OUTDIR/NAME/truth.json)
"""
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from findings_traffic import (T0, US, MS, mac, host, expect, Net, Stream,  # noqa: E402
                              pause_for, pause_link_for, pulse, two_taps, SEND_ONLY, NAK_SEQ, RNR)
from findings_capture_cases import CASES, write_pcapng  # noqa: E402
from scenario_frames import write_pcap  # noqa: E402

SW = mac(0xFE)  # a switch's MAC (its ports' router MAC)
# one vantage point holds a storm: whether it is a deadlock, that point cannot tell
ONE_POINT = expect("pfc_deadlock_suspect", "info", evidence=dict(vantage_points=1, storms=1))


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
                                                  stalled_into_origin=3)), ONE_POINT],
                     also=[])


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
                                                  stalled_into_origin=2, ongoing=False)), ONE_POINT],
                     also=[])


def pause_storm():
    """802.3x, not PFC: R's NIC sends PAUSE frames (the whole link) without a break for 20 ms from
    2 ms; its senders' flows into it stall until then."""
    net = Net()
    r = host(24)
    streams = [Stream(net, host(8 + i), r, 0x320 + i, 0x420 + i, sport=50200 + i,
                      macs=((mac(8 + i), SW), (r.mac, SW))) for i in range(2)]
    for st in streams:
        st.steady(T0, 200, 10 * US)
        st.steady(T0 + 22 * MS + 10 * US, 200, 10 * US)
    pause_link_for(net, r.mac, T0 + 2 * MS, T0 + 22 * MS)
    return net, dict(expect=[expect("pfc_storm", "error", hosts=[r.ip], macs=[r.mac],
                                    priorities=["pause"],
                                    evidence=dict(priority="pause", origin_ip=r.ip, victim_flows=0,
                                                  stalled_into_origin=2, spread_macs=0)),
                             ONE_POINT],
                     also=[])


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


def marked_stream(net, rnd, st, share, answer, n=2000, cnp_dscp=48):
    """n packets 3 us apart, each CE-marked with probability `share`; each mark answered by a
    CNP (DSCP cnp_dscp) 2 us later when `answer`."""
    t = T0
    for _ in range(n):
        ce = rnd.random() < share
        st.packet(t, ce=ce)
        if ce and answer:
            st.cnp(t + 2 * US, dscp=cnp_dscp)
        t += 3 * US


def limited_cnps(rnd, st, cnp_dscp):
    """2000 packets 2 us apart, a tenth CE-marked; the NP answers at most one mark per 20 us, with
    CNPs of DSCP cnp_dscp."""
    t, last = T0, None
    for _ in range(2000):
        ce = rnd.random() < 0.1
        st.packet(t, ce=ce)
        if ce and (last is None or t - last >= 20 * US):
            last = t
            st.cnp(t + 2 * US, dscp=cnp_dscp)
        t += 2 * US


def cnp_priority():
    """R's NP sends its CNPs with DSCP 26, the DSCP (and so the priority) of the data they slow."""
    net = Net()
    s, r = host(51), host(52)
    limited_cnps(random.Random(2), Stream(net, s, r, 0x710, 0x711, sport=52100), 26)
    return net, dict(expect=[expect("cnp_priority", "warning", hosts=[r.ip],
                                    evidence=dict(cnp_dscp=26, data_priority=3))], also=[])


def cnp_other_dscp():
    """Two receivers answer their marks: R1's CNPs carry DSCP 48 (the network's CNP class), R2's
    DSCP 46, its NIC set apart."""
    net, rnd = Net(), random.Random(5)
    r1, r2 = host(53), host(54)
    marked_stream(net, rnd, Stream(net, host(55), r1, 0x712, 0x713, sport=52101), 0.2, True)
    marked_stream(net, rnd, Stream(net, host(56), r2, 0x714, 0x715, sport=52102), 0.05, True,
                  cnp_dscp=46)
    return net, dict(expect=[expect("cnp_priority", "warning", hosts=[r2.ip],
                                    evidence=dict(common_cnp_dscp=48, other_cnp_dscps="46"))],
                     also=[])


def cnp_below():
    """R's NP sends its CNPs with DSCP 8 (priority 1), below the data's DSCP 26 (priority 3)."""
    net = Net()
    s, r = host(57), host(58)
    limited_cnps(random.Random(6), Stream(net, s, r, 0x716, 0x717, sport=52103), 8)
    return net, dict(expect=[expect("cnp_priority", "warning", hosts=[r.ip],
                                    evidence=dict(cnp_priority=1, cnp_dscp=8, data_priority=3,
                                                  priority_paused_by_pfc=False))], also=[])


# ---------------------------------------------------------------- ECN and DCQCN

def np_silent():
    """Two receivers get CE-marked data; R1's NP answers each mark, R2's never does (its NP is
    off), though R2 ACKs its data."""
    net, rnd = Net(), random.Random(3)
    r1, r2 = host(61), host(62)
    marked_stream(net, rnd, Stream(net, host(63), r1, 0x720, 0x721, sport=52200), 0.2, True)
    b = Stream(net, host(64), r2, 0x722, 0x723, sport=52201)
    marked_stream(net, rnd, b, 0.2, False)
    return net, dict(expect=[expect("np_silent", "error", hosts=[r2.ip], flows=[b.name])], also=[])


def np_silent_unseen():
    """As np_silent, but the capture (a mirror of the switch ports toward the receivers, and of
    R1's port) holds no packet from R2: R2 sends no CNP, and no ACK is seen either."""
    net, rnd = Net(), random.Random(7)
    r1, r2 = host(65), host(66)
    marked_stream(net, rnd, Stream(net, host(67), r1, 0x724, 0x725, sport=52202), 0.2, True)
    b = Stream(net, host(68), r2, 0x726, 0x727, sport=52203, ack_every=0)
    marked_stream(net, rnd, b, 0.2, False)
    return net, dict(expect=[expect("np_silent", "warning", hosts=[r2.ip], flows=[b.name],
                                    evidence=dict(packets_from_host=0,
                                                  other_receivers_answer=True))], also=[])


def np_cannot_tell():
    """One stream into R, CE-marked, captured one way only (no packet from R at all) and no CNP
    anywhere in the capture: whether R's NP answers cannot be told."""
    net, rnd = Net(), random.Random(8)
    s, r = host(69), host(70)
    st = Stream(net, s, r, 0x728, 0x729, sport=52204, ack_every=0)
    marked_stream(net, rnd, st, 0.2, False)
    return net, dict(expect=[expect("np_silent", "info", hosts=[r.ip],
                                    evidence=dict(packets_from_host=0, cnps_sent=0,
                                                  other_receivers_answer=False))], also=[])


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
    """As rp_deaf, but captured behind the queue that marks both senders' packets, theirs
    arriving together (back to back on the link to R, never idle between them): S1's rate,
    unlike S2's, does not fall after its CNPs, but a full link after the bottleneck hides a
    sender's own pacing (S2 fills what S1 would give up), so the capture cannot tell: an info
    rp_deaf that says so, naming S1."""
    net = Net()
    s1, s2, r = host(76), host(77), host(78)
    deaf = Stream(net, s1, r, 0x736, 0x737, sport=52303, ack_every=16)
    fine = Stream(net, s2, r, 0x738, 0x739, sport=52304, ack_every=16)
    paced(net, deaf, 60 * US, False, marked=10)
    paced(net, fine, 60 * US, True, marked=10)
    return net, dict(expect=[expect("rp_deaf", "info", hosts=[s1.ip], flows=[deaf.name],
                                    evidence=dict(reason="capture point after the bottleneck"))],
                     also=[])


def rp_cannot_tell():
    """As rp_deaf_behind with S1 alone: behind the marking queue a sender's cut is diluted, and no
    other sender shows what a cut looks like there, so whether S1's RP is off cannot be told:
    no finding."""
    net = Net()
    s1, r = host(79), host(80)
    st = Stream(net, s1, r, 0x73A, 0x73B, sport=52305, ack_every=16)
    paced(net, st, 60 * US, False, marked=10)
    return net, dict(expect=[], also=[])


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

def timed_out(net, s, r, qp, sport, point="capture"):
    """Messages of 8 packets each ms; the last packet of three of them is lost (no later packet:
    no NAK), so the sender resends it after its local ACK timeout, t = 14 (4.096 us x 2^14 =
    67.1 ms). Returns the stream and the indexes of the lost originals in `point`'s frames."""
    st = Stream(net, s, r, qp, qp + 1, sport=sport, ack_every=0, point=point)
    t, lost = T0, set()
    for m in range(12):
        for k in range(8):
            at = len(net.frames(point)) if point in net.files else 0
            psn = st.packet(t)
            t += 2 * US
        t -= 2 * US
        if m in (2, 6, 9):
            lost.add(at)
            t += 67108864 + 3 * US
            st.packet(t, psn=psn)
        st.reply(t + 2 * US, 0x1F, psn)
        t += MS
    return st, lost


def ack_timeout():
    """Three packets lost after the capture point, each resent after the QP's local ACK timeout
    (timed_out())."""
    net = Net()
    s, r = host(101), host(102)
    st, _ = timed_out(net, s, r, 0x770, 52600)
    return net, dict(expect=[expect("ack_timeout", "error", hosts=[s.ip], flows=[st.name],
                                    evidence=dict(timeout_t=14, timeouts=3, lost_where=None))],
                     also=[])


def ack_timeout_between():
    """As ack_timeout, seen by two taps: "tor" on the sender's uplink and "rx" on the receiver's
    port, 500 ns apart; the three packets are lost between them (tor sees them, rx does not): a
    loss the paths place there, though the flow, followed at tor, shows no PSN gap."""
    net = Net()
    s, r = host(103), host(104)
    st, lost = timed_out(net, s, r, 0x772, 52601, point="tor")
    two_taps(net, "tor", "rx", {s.ip}, 500, lost)
    return net, dict(expect=[expect("ack_timeout", "error", hosts=[s.ip], flows=[st.name],
                                    evidence=dict(timeout_t=14, timeouts=3,
                                                  lost_where="between tor and rx (3 lost)")),
                             expect("loss", "warning", hosts=[s.ip], flows=[st.name],
                                    confidence=None,
                                    evidence=dict(lost_packets=3, lost_from="paths",
                                                  lost_between_points=3))],
                     also=[])


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


SCENARIOS = [healthy, pfc_storm, pfc_storm_to_end, pause_storm, pfc_deadlock, lossy_priority,
             cnp_priority, cnp_other_dscp, cnp_below, np_silent, np_silent_unseen, np_cannot_tell,
             rp_deaf, rp_deaf_behind, rp_cannot_tell, slow_rp, slow_np, ecn_off, ack_timeout,
             ack_timeout_between, rnr, nak_storm, loss, ecmp_collapse, mtu_mismatch,
             mtu_host_below] + CASES


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
                write_pcap(os.path.join(d, name), frames, truth.get("snaplen", 65535),
                           truth.get("in_order", True))
            files.append([point, name])
        truth.update(name=fn.__name__, planted=" ".join(fn.__doc__.split()), files=files)
        with open(os.path.join(d, "truth.json"), "w") as f:
            json.dump(truth, f, indent=1, sort_keys=True)


if __name__ == "__main__":
    main()
