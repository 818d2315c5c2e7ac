#!/usr/bin/python3
"""Captures with known truth for the analyzer's estimates (the sender's reaction to CNPs, the NP's
accounting, losses and resends between vantage points, copies, time order, incast, ECN off).

Each scenario is a small model (senders, a switch, a receiver's NIC, taps with their own clocks)
that records what each sender did (its rate cut for each CNP, its losses and resends), what the
switch dropped, and each tap's clock offset, and writes what each capture point saw. Frames are
built with scapy (scenario_frames.py); nothing from rocetrace is used.

SCENARIOS maps a name to a function returning (captures, truth): captures is a list of
(file name, [(ts_ns, frame bytes)]) written as nanosecond pcaps, truth a dict
(check_estimates.py says what each key means).

usage: make_estimates.py OUTDIR [NAME...]   (writes OUTDIR/NAME*.pcap and NAME.truth.json)
"""
import heapq
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import socket  # noqa: E402
import struct  # noqa: E402

from scenario_frames import T0, US, MS, MAC_A, MAC_B, aeth, bth, icrc, reth  # noqa: E402

ECT0, CE, NOT_ECT = 2, 3, 0


def mac(m):
    return bytes(int(x, 16) for x in m.split(":"))


def roce(src, dst, opcode, qp, psn, ext=b"", payload=b"", ackreq=False, ecn=ECT0, dscp=26,
         sport=49152, becn=False, smac=MAC_A, dmac=MAC_B, ttl=64, ip_id=0):
    """An Ethernet + IPv4 RoCEv2 frame with its ICRC, as scenario_frames.roce builds it (struct
    here: thousands of frames per scenario)."""
    pad = (4 - len(payload) % 4) % 4
    tr = bth(opcode, qp, psn & 0xFFFFFF, ackreq, pad, becn) + ext + payload + b"\0" * pad
    udp = struct.pack(">HHHH", sport, 4791, 8 + len(tr) + 4, 0)
    hdr = struct.pack(">BBHHHBBH4s4s", 0x45, (dscp << 2) | ecn, 20 + len(udp) + len(tr) + 4, ip_id,
                      0x4000, ttl, 17, 0, socket.inet_aton(src), socket.inet_aton(dst))
    csum = sum(struct.unpack(">10H", hdr))
    while csum >> 16:
        csum = (csum & 0xFFFF) + (csum >> 16)
    hdr = hdr[:10] + struct.pack(">H", ~csum & 0xFFFF) + hdr[12:]
    ip = hdr + udp + tr
    return mac(dmac) + mac(smac) + b"\x08\x00" + ip + icrc(ip, False)


def write_pcap(path, frames, linktype=1, as_given=False):
    """A nanosecond pcap of (ts_ns, bytes) frames in time order (equal times keep their order),
    or in the order given."""
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, linktype))
        for ts, b in frames if as_given else sorted(frames, key=lambda x: x[0]):
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(b), len(b)) + b)


def median(v):
    s = sorted(v)
    return s[(len(s) + 1) // 2 - 1] if s else None


class Events:
    """A time-ordered event queue."""

    def __init__(self):
        self.q, self.seq = [], 0

    def push(self, t, kind, *data):
        self.seq += 1
        heapq.heappush(self.q, (t, self.seq, kind, data))

    def pop(self):
        t, _, kind, data = heapq.heappop(self.q)
        return t, kind, data

    def __bool__(self):
        return bool(self.q)


def cnp_frame(recv, sender, sqp, sport):
    return roce(recv, sender, 0x81, sqp, 0, ext=bytes(16), ecn=ECT0, dscp=48, becn=True,
                sport=sport, smac=MAC_B, dmac=MAC_A)


def ack_frame(recv, sender, sqp, psn, sport, syndrome=0x1F):
    return roce(recv, sender, 0x11, sqp, psn, ext=aeth(syndrome, psn), sport=sport, smac=MAC_B,
                dmac=MAC_A)


# ------------------------------------------------------------ 1. DCQCN incast at both sides

def dcqcn_incast(n, line, link, pkts, payload, K, g=1 / 16.0, np_interval=50 * US):
    """n DCQCN senders at `line` b/s into one switch port of `link` b/s that marks CE above K
    bytes queued; the receiver's NP answers a mark after 2 us, at most once per QP per
    np_interval; a sender cuts Rc(1 - alpha/2) 1.5 us after its CNP, and every 55 us without one
    alpha decays and Rc recovers half way. Two captures: at the senders' side (a tap on each
    sender's link, 300 ns out: the sender's own pacing, nothing marked yet; CNPs and ACKs 1 us
    before the sender acts on them) and at the receiver's side (after the switch queue)."""
    recv = "10.20.0.100"
    senders = ["10.20.0.%d" % (i + 1) for i in range(n)]
    sqp, rqp = [0x300 + i for i in range(n)], [0x400 + i for i in range(n)]
    st = [dict(rc=line, rt=line, alpha=1.0, sent=0, psn=100 * (i + 1), last_up=T0 + i * 7 * US)
          for i in range(n)]
    cuts = [[] for _ in range(n)]
    ev = Events()
    for i in range(n):
        ev.push(T0 + i * 7 * US, "send", i)
    sw_free, queue = T0, []
    np_last = [None] * n
    tx_side, rx_side = [], []
    while ev:
        t, kind, (i, *data) = ev.pop()
        s = st[i]
        if kind == "send":
            while t - s["last_up"] >= 55 * US:
                s["last_up"] += 55 * US
                s["alpha"] *= 1 - g
                s["rc"] = min(line, (s["rt"] + s["rc"]) / 2)
            ack = s["sent"] % 32 == 31
            f = roce(senders[i], recv, 0x04, rqp[i], s["psn"], payload=bytes(payload), ackreq=ack,
                     ecn=ECT0, sport=50000 + i)
            tx_side.append((t + 300, f))
            arrive = t + 1 * US
            queue = [(d, b) for d, b in queue if d > arrive]
            ce = sum(b for _, b in queue) > K
            sw_free = max(sw_free, arrive) + int(len(f) * 8 / link * 1e9)
            queue.append((sw_free, len(f)))
            ev.push(sw_free + 500, "recv", i, s["psn"], ack, ce)
            s["psn"] += 1
            s["sent"] += 1
            if s["sent"] < pkts:
                ev.push(t + int(len(f) * 8 / s["rc"] * 1e9), "send", i)
        elif kind == "recv":
            psn, ack, ce = data
            f = roce(senders[i], recv, 0x04, rqp[i], psn, payload=bytes(payload), ackreq=ack,
                     ecn=CE if ce else ECT0, sport=50000 + i)
            rx_side.append((t, f))
            if ce and (np_last[i] is None or t - np_last[i] >= np_interval):
                np_last[i] = t
                ev.push(t + 2 * US, "cnp", i)
            if ack:
                a = ack_frame(recv, senders[i], sqp[i], psn, 51000 + i)
                rx_side.append((t + 1 * US, a))
                tx_side.append((t + 2 * US, a))
        elif kind == "cnp":
            c = cnp_frame(recv, senders[i], sqp[i], 52000 + i)
            rx_side.append((t, c))
            tx_side.append((t + 1 * US, c))
            ev.push(t + 2 * US, "react", i)
        elif kind == "react":
            s["rt"] = s["rc"]
            s["rc"] = max(line / 50, s["rc"] * (1 - s["alpha"] / 2))
            s["alpha"] = (1 - g) * s["alpha"] + g
            s["last_up"] = t
            cuts[i].append(100 * (1 - s["rc"] / s["rt"]))
    flows = [dict(src=senders[i], dst=recv, dest_qp=rqp[i], cuts=cuts[i]) for i in range(n)]
    return tx_side, rx_side, flows


def rp_incast(variant):
    def make():
        n, line, link, pkts, payload, K = variant
        tx, rx, flows = dcqcn_incast(n, line, link, pkts, payload, K)
        return [("sender_side.pcap", tx), ("receiver_side.pcap", rx)], dict(
            rp=dict(flows=flows), sides={"sender_side.pcap": "sender",
                                         "receiver_side.pcap": "receiver"},
            # the receiver's link is saturated: a queue stands between the senders and it
            saturated={"receiver_side.pcap": True, "sender_side.pcap": False})
    return make


# ------------------------------------------------------------ 2, 3. one sender, two sides

def paced_sender(rate, cnps, payload=1024, idle=(), lose_after=(), tail=300 * US):
    """One sender paced at rate(t, k) b/s, k the CNPs it acted on so far (1.5 us after its tap saw
    each); the receiver's NP sends the CNPs at the times `cnps` less 1 us, each for the packet
    the switch CE-marked 3 us before it. `idle`: (start, end) spans the application sent
    nothing; `lose_after`: times after each of which the next packet is lost before both
    captures (a PSN gap). The link never queues: the receiver's side sees the pacing 2 us later.
    Returns the sender side's frames, the receiver side's, and the flow."""
    a, b, qa, qb = "10.30.0.1", "10.30.0.2", 0x31, 0x32
    tx, rx = [], []
    t, psn, k = T0, 1000, 0
    losses = sorted(lose_after)
    end = cnps[-1] + tail
    while t < end:
        while k < len(cnps) and cnps[k] + 1500 <= t:
            k += 1
        gap = next((e for s, e in idle if s <= t < e), None)
        if gap:
            t = gap
            continue
        first = psn % 16 == 0
        ack = psn % 16 == 15

        def data(ecn):
            return roce(a, b, 0x06 if first else 0x07, qb, psn, payload=bytes(payload),
                        ext=reth(0x1000, 5, payload) if first else b"", ackreq=ack, ecn=ecn,
                        sport=49500)
        f = data(ECT0)
        if losses and t >= losses[0]:
            losses.pop(0)
        else:
            tx.append((t, f))
            marked = any(c - 5 * US <= t + 2 * US <= c - 3 * US for c in cnps)
            rx.append((t + 2 * US, data(CE if marked else ECT0)))
            if ack:
                ak = ack_frame(b, a, qa, psn, 49501)
                rx.append((t + 3 * US, ak))
                tx.append((t + 5 * US, ak))
        psn += 1
        t += int(len(f) * 8 / rate(t, k) * 1e9)
    for c in cnps:
        cf = cnp_frame(b, a, qa, 49502)
        rx.append((c - 1 * US, cf))
        tx.append((c, cf))
    return tx, rx, dict(src=a, dst=b, dest_qp=qb)


def rp_never_slows():
    """Item 2: a sender that never slows; CNPs every 150 us; 4 us after every third CNP a packet
    is lost before both captures (a PSN gap in that CNP's window)."""
    cnps = [T0 + 50 * US + k * 150 * US for k in range(12)]
    tx, rx, flow = paced_sender(lambda t, k: 10e9, cnps,
                                lose_after=[c + 4 * US for k, c in enumerate(cnps) if k % 3 == 0])
    flow["cuts"] = [0.0] * len(cnps)
    return [("sender_side.pcap", tx), ("receiver_side.pcap", rx)], dict(
        rp=dict(flows=[flow], loss_windows=4))


def rp_idle_once():
    """Item 3: a sender halves its rate at 9 of 10 CNPs and is back at its line rate 40 us later;
    its application paused for 60 us just before the 6th CNP (it sent nothing), and it did not
    cut for that one."""
    line = 10e9
    cnps = [T0 + 80 * US + k * 120 * US for k in range(10)]

    def rate(t, k):
        return line / 2 if k and k - 1 != 5 and t < cnps[k - 1] + 40 * US else line
    tx, rx, flow = paced_sender(rate, cnps, idle=[(cnps[5] - 62 * US, cnps[5] - 3 * US)])
    flow["cuts"] = [0.0 if k == 5 else 50.0 for k in range(10)]
    return [("sender_side.pcap", tx), ("receiver_side.pcap", rx)], dict(rp=dict(flows=[flow]))


def rp_sparse():
    """Item 4: a sender at 12 Mb/s (1 KiB packets, about 730 us apart), as the lab's senders; a
    CNP every 40 ms, each a 30% cut held for 20 ms. With --rate-window 100us no window holds 4
    gaps."""
    line = 12e6
    cnps = [T0 + 10 * MS + k * 40 * MS for k in range(5)]
    tx, _, flow = paced_sender(lambda t, k: line * 0.7 if k and t < cnps[k - 1] + 20 * MS
                               else line, cnps)
    flow["cuts"] = [30.0] * len(cnps)
    return [("sender_side.pcap", tx)], dict(rp=dict(flows=[flow]))


def rp_bursty(cut, ce_at):
    """A bursty sender: its application sends for 45 us at 10 Gb/s, then nothing for 495 us
    (about 51 packets a burst). From the 6th burst on the switch marks the packet it sends
    `ce_at` us into each burst; the sender gives up `cut` % of its rate for 200 us after each
    CNP (0: never), and by the next burst it is back. ce_at 10: the CNP comes 30 us before the
    burst ends (its reaction shows); ce_at 36: 4 packets before (cong.py's bursty case: the
    sender's own idle time follows every CNP, whatever it does: truth "hidden")."""
    line, period, busy, payload_min = 10e9, 540 * US, 45 * US, 1024
    starts = [T0 + k * period for k in range(18)]
    # the marked packet reaches the receiver's tap 3 to 5 us before the CNP comes back
    cnps = [s + ce_at * US + 5 * US for s in starts[5:]]

    def rate(t, k):
        return line * (1 - cut / 100.0) if k and t < cnps[k - 1] + 200 * US else line
    tx, rx, flow = paced_sender(rate, cnps, idle=[(s + busy, s + period) for s in starts],
                                tail=period)
    flow["cuts"] = [float(cut)] * len(cnps)
    # hidden, per capture: no CNP has the 5 packets of a 4-gap window after it (as that capture
    # saw them) before its burst ends; the receiver's side sees the packets 2 us later and each
    # CNP 1 us earlier than the sender's side
    hidden = {}
    for side, frames, late, early in (("sender_side.pcap", tx, 0, 0),
                                      ("receiver_side.pcap", rx, 2 * US, 1 * US)):
        data = [t for t, f in frames if len(f) > payload_min]
        hidden[side] = all(sum(1 for t in data if c - early < t < s + busy + late) < 5
                           for c, s in zip(cnps, starts[5:]))
    return [("sender_side.pcap", tx), ("receiver_side.pcap", rx)], dict(
        rp=dict(flows=[flow], hidden=hidden))


# ------------------------------------------------------------ 5. an NP whose limiter answered 3 windows

def np_few_cnps():
    """Item 5: data marked CE every 5 us for 130 us; the NP answers a mark 1 us later, at most
    once per 50 us: 3 CNPs, every other mark held back by its limiter (none left unanswered)."""
    a, b, qa, qb = "10.40.0.1", "10.40.0.2", 0x41, 0x42
    frames, last, held, cnps, ce = [], None, 0, 0, 0
    for k in range(27):
        t = T0 + k * 5 * US
        frames.append((t, roce(a, b, 0x04, qb, 700 + k, payload=bytes(512), ackreq=k == 0,
                               ecn=CE, sport=41000)))
        ce += 1
        if k == 0:
            frames.append((t + 2 * US, ack_frame(b, a, qa, 700, 41001)))
        if last is None or t - last >= 50 * US:
            last = t
            cnps += 1
            frames.append((t + 1 * US, cnp_frame(b, a, qa, 41002)))
        else:
            held += 1
    return [("receiver_side.pcap", frames)], dict(np=dict(
        flow=dict(src=a, dst=b, dest_qp=qb), ce=ce, cnps=cnps, held_back=held, unanswered=0))


# ------------------------------------------------------------ 10, 11. fan-in without congestion; ECN off

def rc_writes(src, dst, qp, sqp, t0, gap, n, psn=1, ecn=ECT0, sport=43000, lose=None):
    """n RC WRITE ONLY packets of 1 KiB from src every `gap` ns, each acknowledged 5 us later
    (ACKs with the same ECN codepoint). PSN `lose` is lost before the capture: the receiver NAKs
    it at the next packet, and 10 us after the NAK the sender goes back: it and the next one
    again (2 resends in one go-back-N)."""
    frames, t = [], t0

    def write(t, p):
        frames.append((t, roce(src, dst, 0x0A, qp, p, ext=reth(0x1000, 7, 1024),
                               payload=bytes(1024), ackreq=True, ecn=ecn, sport=sport)))

    def ack(t, p, syndrome=0x1F):
        frames.append((t, roce(dst, src, 0x11, sqp, p, ext=aeth(syndrome, p), ecn=ecn,
                               sport=sport + 1, smac=MAC_B, dmac=MAC_A)))
    for p in range(psn, psn + n):
        if p == lose:
            t += gap
            continue
        write(t, p)
        if p == lose + 1 if lose is not None else False:
            ack(t + 5 * US, lose, 0x60)  # NAK: PSN sequence error
            t += 15 * US
            write(t, lose)
            ack(t + 5 * US, lose)
            t += 1 * US
            write(t, p)
        ack(t + 5 * US, p)
        t += gap
    return frames


def incast_quiet():
    """Item 10: two senders at 32 kb/s (a 1 KiB write every 250 ms) to one NCCL rank for 2 s,
    ECN-capable, no CE mark, no pause, no loss: two senders, no incast."""
    rank = "172.30.0.11"
    frames = []
    for i, src in enumerate(("172.30.0.12", "172.30.0.13")):
        frames += rc_writes(src, rank, 0x500 + i, 0x600 + i, T0 + i * 3 * MS, 250 * MS, 8,
                            sport=43000 + 10 * i)
    return [("rank.pcap", frames)], dict(incast=dict(receiver=None))


def not_ect(quiet=False):
    """Item 11: RoCE traffic with ECN off (Not-ECT), two senders to one receiver; the switch
    pauses priority 3 twice (XOFF, then XON 200 us later) and loses one packet (the receiver's
    NAK, a go-back-N resend). The capture cannot tell congestion from CE marks: it shows the
    pauses and the loss. quiet: the same traffic without pause or loss; the capture shows
    nothing, which is no "no congestion" either."""
    from scenario_frames import pfc
    frames = []
    for i, src in enumerate(("10.60.0.1", "10.60.0.2")):
        frames += rc_writes(src, "10.60.0.100", 0x700 + i, 0x800 + i, T0 + i * US, 20 * US, 100,
                            ecn=NOT_ECT, sport=44000 + 10 * i,
                            lose=40 if i == 0 and not quiet else None)
    if quiet:
        return [("capture.pcap", frames)], dict(ecn_off=dict(pauses=0, retransmitted=0, gaps=0))
    for k in range(2):
        t = T0 + 300 * US + k * 700 * US
        frames.append((t, pfc("02:00:00:00:00:fe", 1 << 3, [0, 0, 0, 0xFFFF, 0, 0, 0, 0])))
        frames.append((t + 200 * US, pfc("02:00:00:00:00:fe", 1 << 3, [0] * 8)))
    return [("capture.pcap", frames)], dict(ecn_off=dict(pauses=2, retransmitted=2, gaps=1))


# ------------------------------------------------------------ 6, 7. two taps, skewed clocks, losses between

def two_taps(skew_a, skew_b, drops, b_ends_early=False):
    """2 senders write to one receiver through a switch; tap A sees each packet 300 ns out of
    the sender (before the switch), tap B 1 us after the switch (no queue: 2 us on). The switch
    drops the packets in `drops` ((sender, index) pairs); the receiver NAKs a lost PSN at the
    next packet of its flow, and the sender resends that one packet 5 us after the NAK came back
    (B, then A, see the ACKs and NAKs on their way back). Each tap's clock is off by skew_a,
    skew_b ns. b_ends_early: tap B stops 150 us into a 200 us pause of the traffic; A captures
    the last 20 packets alone (the receiver is not judged to have missed them)."""
    recv = "10.70.0.100"
    senders = ["10.70.0.1", "10.70.0.2"]
    sqp, rqp = [0x900, 0x901], [0xA00, 0xA01]
    tap_a, tap_b = [], []
    truth = dict(lost=0, matched_fwd=0, matched_rev=0, resends=0, not_judged=0)
    ev = Events()
    n = 120
    for i in range(2):
        for k in range(n):
            t = T0 + i * 700 + k * 2 * US + (200 * US if k >= n - 10 else 0)
            ev.push(t, "send", i, 1000 * (i + 1) + k, k, False)
    stop_b = T0 + (n - 10) * 2 * US + 150 * US if b_ends_early else None
    pending = [None, None]  # per sender: the PSN the receiver waits for after a loss
    while ev:
        t, kind, (i, *d) = ev.pop()
        if kind == "send":
            psn, k, resend = d
            f = roce(senders[i], recv, 0x0A, rqp[i], psn, ext=reth(0x2000, 9, 512),
                     payload=bytes(512), ackreq=k % 8 == 7, sport=45000 + i)
            tap_a.append((t + 300 + skew_a, f))
            truth["resends"] += resend
            if (i, k) in drops and not resend:
                truth["lost"] += 1
                pending[i] = psn
                continue
            at_b = t + 2 * US
            if stop_b and at_b > stop_b:
                truth["not_judged"] += 1
            else:
                tap_b.append((at_b + skew_b, f))
                truth["matched_fwd"] += 1
            if pending[i] is not None and not resend:
                ev.push(at_b + 1 * US, "back", i, ack_frame(recv, senders[i], sqp[i], pending[i],
                                                          46000 + i, syndrome=0x60))
                ev.push(at_b + 1 * US + 3 * US + 5 * US, "send", i, pending[i], -1, True)
                pending[i] = None
            elif k % 8 == 7 or resend:
                ev.push(at_b + 1 * US, "back", i, ack_frame(recv, senders[i], sqp[i], psn,
                                                          46000 + i))
        else:  # a frame from the receiver: at B 1 us later, at A 2 us after that
            f = d[0]
            if not stop_b or t + 1 * US <= stop_b:
                tap_b.append((t + 1 * US + skew_b, f))
                truth["matched_rev"] += 1
            tap_a.append((t + 3 * US + skew_a, f))
    truth["offset_b_minus_a"] = skew_b - skew_a
    return [("before.pcap", tap_a), ("after.pcap", tap_b)], dict(vantage=truth)


# ------------------------------------------------------------ 8. copies within one capture

def sll2(ifindex, frame, outgoing):
    """The Ethernet frame as `-i any` (Linux cooked v2) writes it on interface `ifindex`."""
    return frame[12:14] + b"\0\0" + struct.pack(">IHBB", ifindex, 1, 4 if outgoing else 0, 6) + \
        frame[6:12] + b"\0\0" + frame[14:]


def copies(form):
    """Item 8: a mirror of both directions (the two_taps model's taps A and B, one clock, in one
    capture: each packet before and 2 us after the switch, the 3 it lost once, then resent),
    and every frame of it twice, 3 us apart, as `-i any` captures a mirror port and the bridge
    it hangs off. form: "eth" (the same bytes twice), "sll2" (one interface index), "sll2_two"
    (each copy on an interface index of its own: two vantage points in one file). Truth: the 3
    resends the senders made, no implied timeout, and how many frames are copies."""
    caps, truth = two_taps(0, 0, {(0, 10), (0, 30), (1, 20)})
    mirror = sorted(caps[0][1] + caps[1][1], key=lambda x: x[0])
    if form == "eth":
        frames = mirror + [(t + 3 * US, f) for t, f in mirror]
    else:
        frames = [(t, sll2(2, f, False)) for t, f in mirror] + \
            [(t + 3 * US, sll2(3 if form == "sll2_two" else 2, f, True)) for t, f in mirror]
    return [("mirror.pcap", frames, 1 if form == "eth" else 276)], dict(copies=dict(
        retransmitted=truth["vantage"]["resends"], copies=len(frames) - len(caps[0][1])))


# ------------------------------------------------------------ 9. time order within one capture

def disorder(kind):
    """Item 9: two flows of writes into one interface, no CNP, written out of time order.
    "kernel": a frame of the second flow now and then 1.5 us before the frame of the first flow
    written ahead of it (a kernel's reordering across CPUs): each flow's own packets in order;
    "flow": two packets of one flow written the wrong way round. Truth: the steps back, and
    whether a flow's own packets are out of order (what a figure suffers from)."""
    frames = []
    for i, src in enumerate(("10.80.0.1", "10.80.0.2")):
        frames += rc_writes(src, "10.80.0.100", 0xB00 + i, 0xC00 + i, T0 + i * 1500, 10 * US, 60,
                            sport=47000 + 10 * i)
    frames.sort(key=lambda x: x[0])
    if kind == "kernel":  # swap neighbours of different flows every 8th frame, 1.5 us apart
        for k in range(0, len(frames) - 1, 8):
            a, b = frames[k], frames[k + 1]
            if a[1][26:30] != b[1][26:30] and b[0] - a[0] <= 2 * US:
                frames[k], frames[k + 1] = b, a
    else:
        data = [k for k, (t, f) in enumerate(frames) if f[26:30] == bytes([10, 80, 0, 1])]
        k, j = data[20], data[21]
        frames[k], frames[j] = frames[j], frames[k]
    back = sum(1 for a, b in zip(frames, frames[1:]) if b[0] < a[0])
    return [("capture.pcap", frames, 1, True)], dict(disorder=dict(
        steps=back, flow_out_of_order=kind == "flow"))


def disorder_points():
    """Item 9: the two taps of two_taps (one clock) as two interface indexes of one `-i any`
    file, written 16 frames of one interface, then 16 of the other (as per-interface buffers
    are flushed): time goes back between the points, never within one. Truth: no step within
    a point, some across."""
    caps, _ = two_taps(0, 0, {(0, 10)})
    a = [(t, sll2(2, f, False)) for t, f in sorted(caps[0][1], key=lambda x: x[0])]
    b = [(t, sll2(3, f, True)) for t, f in sorted(caps[1][1], key=lambda x: x[0])]
    frames = []
    for k in range(0, max(len(a), len(b)), 16):
        frames += a[k:k + 16] + b[k:k + 16]
    return [("any.pcap", frames, 276, True)], dict(disorder=dict(
        steps=0, flow_out_of_order=False,
        across=sum(1 for x, y in zip(frames, frames[1:]) if y[0] < x[0])))


SCENARIOS = dict(
    rp_incast4=rp_incast((4, 2.5e9, 2.5e9, 400, 256, 8 * 1024)),
    rp_incast8=rp_incast((8, 5e9, 10e9, 300, 1024, 32 * 1024)),
    rp_never_slows=rp_never_slows, rp_idle_once=rp_idle_once, rp_sparse=rp_sparse,
    rp_bursty_deaf=lambda: rp_bursty(0, 10), rp_bursty_reacts=lambda: rp_bursty(50, 10),
    rp_bursty_late=lambda: rp_bursty(0, 36),
    np_few_cnps=np_few_cnps, incast_quiet=incast_quiet, not_ect=not_ect,
    not_ect_quiet=lambda: not_ect(quiet=True),
    # the cases: tap A's clock 250 us ahead, 7 lost; the receiver's 100 us ahead, 1 lost
    vantage_a_ahead=lambda: two_taps(250 * US, 0, {(0, 10), (0, 30), (0, 50), (1, 20), (1, 40),
                                                   (1, 60), (1, 80)}),
    vantage_b_ahead=lambda: two_taps(0, 100 * US, {(1, 33)}),
    # clocks off the other way, and tap B stopping before A: packets nobody could judge
    vantage_a_behind=lambda: two_taps(-250 * US, 0, {(0, 15), (1, 45), (1, 90)},
                                      b_ends_early=True),
    copies_eth=lambda: copies("eth"), copies_sll2=lambda: copies("sll2"),
    copies_sll2_two=lambda: copies("sll2_two"),
    disorder_kernel=lambda: disorder("kernel"), disorder_flow=lambda: disorder("flow"),
    disorder_points=disorder_points)


def build(out, name):
    """Write scenario `name` into out: its captures (NAME_FILE) and NAME.truth.json; returns the
    capture paths and the truth."""
    caps, truth = SCENARIOS[name]()
    paths = []
    for fname, frames, *how in caps:
        p = os.path.join(out, "%s_%s" % (name, fname))
        write_pcap(p, frames, *how)
        paths.append(p)
    truth["captures"] = [os.path.basename(p) for p in paths]
    with open(os.path.join(out, name + ".truth.json"), "w") as f:
        json.dump(truth, f, indent=1, sort_keys=True)
    return paths, truth


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or list(SCENARIOS):
        paths, _ = build(out, name)
        print("%s: %s" % (name, " ".join(os.path.basename(p) for p in paths)))


if __name__ == "__main__":
    main()
