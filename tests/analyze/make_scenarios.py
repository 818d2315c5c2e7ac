#!/usr/bin/python3
"""Build synthetic RoCEv2 captures with known truth for `rocetrace analyze`.

Each scenario is a small model (senders, a switch queue, a receiver's NIC)
that writes a nanosecond pcap and a NAME.truth.json with what the capture
holds: per-flow counts, peers, PFC paused time and episode boundaries, and
what the models did: the NP's delay for each CNP it sent, its CNP interval
and the CE marks its limiter left unanswered, the senders' rate cuts.
Frames are built with scapy plus struct (BTH and the extended headers by
hand, ICRC computed here: scenario_frames.py); nothing from rocetrace is used.

usage: make_scenarios.py OUTDIR     (writes OUTDIR/NAME.pcap + NAME.truth.json)
"""
import heapq
import json
import os
import random
import struct
import sys

from scenario_frames import (T0, US, MS, MAC_A, MAC_B, MAC_SW, roce, aeth, reth, deth, pfc, pause,
                            write_pcap, Flows, episodes, truth_doc, quanta_ns, send_ack, send_cnp,
                            dcqcn_cut)


# ---------------------------------------------------------------- scenarios

def incast(one_host=False, ack_every=16):
    """4 senders -> 1 receiver through one switch port; CE above a queue threshold; NP CNPs
    rate-limited to one per QP per 50 us; DCQCN-like senders slow down on CNPs.
    one_host: the 4 QPs share one sending host; ack_every: AckReq on every Nth packet."""
    n, pkts, payload = 4, 400, 256
    line = 2.5e9  # a slow link keeps the capture small while the queue needs ms to drain
    recv = "10.0.0.100"
    senders = ["10.0.0.1"] * n if one_host else ["10.0.0.%d" % (i + 1) for i in range(n)]
    sqp = [0x100 + i for i in range(n)]  # sender QPs
    rqp = [0x200 + i for i in range(n)]  # receiver QPs
    flows, frames = Flows(), []
    K = 8 * 1024  # ECN threshold (bytes queued)
    g = 1 / 16.0
    st = [dict(rc=line, rt=line, alpha=1.0, sent=0, psn=1000 * (i + 1), last_up=T0 + i * 20 * US)
          for i in range(n)]
    ev = []  # (time, seq, kind, i, data)
    seq = [0]

    def push(t, kind, i, data=None):
        seq[0] += 1
        heapq.heappush(ev, (t, seq[0], kind, i, data))

    for i in range(n):
        push(T0 + i * 20 * US, "send", i)
    sw_free = T0  # switch egress busy until
    queue = []  # departure times and sizes of queued packets
    np_interval, np_delay = 50 * US, 2 * US
    np_last_cnp = [None] * n  # the NP's limiter: time of the CE mark it last answered, per QP
    cnp_events = []
    ce_times = []
    while ev:
        t, _, kind, i, data = heapq.heappop(ev)
        s = st[i]
        if kind == "send":
            # recovery timer: every 55 us without a CNP, fast recovery and alpha decay
            while t - s["last_up"] >= 55 * US:
                s["last_up"] += 55 * US
                s["alpha"] *= (1 - g)
                s["rc"] = min(line, (s["rt"] + s["rc"]) / 2)
            ack = s["sent"] % ack_every == ack_every - 1
            f = roce(senders[i], recv, 0x04, rqp[i], s["psn"], payload=bytes(payload), ackreq=ack,
                     ecn=2, sport=50000 + i)
            arrive = t + 1 * US
            while queue and queue[0][0] <= arrive:
                queue.pop(0)
            depth = sum(b for _, b in queue)
            ce = depth > K
            tx = int(len(f) * 8 / line * 1e9)
            sw_free = max(sw_free, arrive) + tx
            queue.append((sw_free, len(f)))
            push(sw_free + 500, "recv", i, (s["psn"], ack, ce))
            s["psn"] += 1
            s["sent"] += 1
            if s["sent"] < pkts:
                push(t + int(len(f) * 8 / s["rc"] * 1e9), "send", i)
        elif kind == "recv":
            psn, ack, ce = data
            f = roce(senders[i], recv, 0x04, rqp[i], psn, payload=bytes(payload), ackreq=ack,
                     ecn=3 if ce else 2, sport=50000 + i)
            frames.append((t, f))
            flows.packet(senders[i], recv, rqp[i], f, ce)
            if ce:
                ce_times.append(t)
                fl = flows.get(senders[i], recv, rqp[i])
                if np_last_cnp[i] is None or t - np_last_cnp[i] >= np_interval:
                    np_last_cnp[i] = t
                    push(t + np_delay, "cnp", i, t)
                else:
                    fl["ce_rate_limited"] += 1
            if ack:
                send_ack(flows, frames, t + 1 * US, recv, senders[i], sqp[i], psn, 51000 + i)
        elif kind == "cnp":
            send_cnp(flows, frames, t, recv, senders[i], sqp[i], rqp[i], 52000 + i, data)
            cnp_events.append(t)
            push(t + 1500, "react", i)
        elif kind == "react":
            dcqcn_cut(s, line / 20, g, flows.get(senders[i], recv, rqp[i]))
            s["last_up"] = t
    for i in range(n):
        flows.pair((senders[i], recv, rqp[i]), (recv, senders[i], sqp[i]))
        flows.get(senders[i], recv, rqp[i])["cnp_interval_ns"] = np_interval
    eps = episodes([(x, x) for x in ce_times + cnp_events])
    # the capture is behind the switch queue: a sender's cut reaches it diluted and late
    return flows, frames, dict(totals=dict(ce=len(ce_times), cnp=len(cnp_events), nak=0, rnr_nak=0,
                                           retransmitted=0),
                               episodes=[dict(start_ns=a, end_ns=b) for a, b in eps],
                               rp_on_wire=False)


def dcqcn_model(pkts, mark_bps, recover_ns, floor_bps):
    """2 senders -> 1 receiver on a 25 Gb/s link that never queues; the switch marks CE on the
    packets above mark_bps of the aggregate (a phantom queue: a token bucket, as nftables
    'limit rate over' does). The receiver's NP answers a CE mark after 1 us (+-100 ns) and sends
    at most one CNP per QP per 50 us. The senders (5 Gb/s, paced per packet, `pkts` packets each)
    cut their rate to Rc(1 - alpha/2), not below floor_bps, 1.5 us after a CNP reaches them;
    alpha decays every 55 us without a CNP and the rate recovers half way to the rate before the
    cut every recover_ns. The capture is at the receiver's port (headers only), so each
    sender's pacing shows on the wire."""
    n, payload = 2, 1024
    line, link, bucket = 5e9, 25e9, 32 * 1024
    recv = "10.0.6.100"
    senders = ["10.0.6.%d" % (i + 1) for i in range(n)]
    sqp = [0x600 + i for i in range(n)]
    rqp = [0x700 + i for i in range(n)]
    np_interval, np_delay, np_jitter = 50 * US, 1 * US, 100
    rng = random.Random(7)
    g = 1 / 256.0
    flows, frames = Flows(), []
    st = [dict(rc=line, rt=line, alpha=1.0, sent=0, psn=5000 * (i + 1), last_up=T0 + i * 3 * US,
               last_alpha=T0 + i * 3 * US) for i in range(n)]
    ev, seq = [], [0]

    def push(t, kind, i, data=None):
        seq[0] += 1
        heapq.heappush(ev, (t, seq[0], kind, i, data))

    for i in range(n):
        push(T0 + i * 3 * US, "send", i)
    tokens, tok_t = float(bucket), T0
    link_free = T0
    np_last = [None] * n
    ce_times, cnp_times = [], []
    while ev:
        t, _, kind, i, data = heapq.heappop(ev)
        s = st[i]
        if kind == "send":
            while t - s["last_alpha"] >= 55 * US:  # alpha decays while no CNP comes
                s["last_alpha"] += 55 * US
                s["alpha"] *= (1 - g)
            while t - s["last_up"] >= recover_ns:  # fast recovery toward the rate before the cut
                s["last_up"] += recover_ns
                s["rc"] = min(line, (s["rt"] + s["rc"]) / 2)
            ack = s["sent"] % 64 == 63
            size = len(roce(senders[i], recv, 0x04, rqp[i], 0, payload=bytes(payload)))
            arrive = t + 1 * US  # at the switch
            tokens = min(bucket, tokens + (arrive - tok_t) * mark_bps / 8e9)
            tok_t = arrive
            ce = tokens < size
            if not ce:
                tokens -= size
            link_free = max(link_free, arrive) + int(size * 8 / link * 1e9)
            push(link_free + 500, "recv", i, (s["psn"], ack, ce))
            s["psn"] += 1
            s["sent"] += 1
            if s["sent"] < pkts:
                push(t + int(size * 8 / s["rc"] * 1e9), "send", i)
        elif kind == "recv":
            psn, ack, ce = data
            f = roce(senders[i], recv, 0x04, rqp[i], psn, payload=bytes(payload), ackreq=ack,
                     ecn=3 if ce else 2, sport=53000 + i)
            frames.append((t, f))
            fl = flows.packet(senders[i], recv, rqp[i], f, ce)
            if ce:
                ce_times.append(t)
                if np_last[i] is None or t - np_last[i] >= np_interval:
                    np_last[i] = t
                    push(t + np_delay + rng.randint(-np_jitter, np_jitter), "cnp", i, t)
                else:
                    fl["ce_rate_limited"] += 1
            if ack:
                send_ack(flows, frames, t + 1 * US, recv, senders[i], sqp[i], psn, 54000 + i)
        elif kind == "cnp":
            send_cnp(flows, frames, t, recv, senders[i], sqp[i], rqp[i], 55000 + i, data)
            cnp_times.append(t)
            push(t + 1500, "react", i)
        elif kind == "react":
            dcqcn_cut(s, floor_bps, g, flows.get(senders[i], recv, rqp[i]))
            s["last_up"] = s["last_alpha"] = t
    for i in range(n):
        flows.pair((senders[i], recv, rqp[i]), (recv, senders[i], sqp[i]))
        flows.get(senders[i], recv, rqp[i])["cnp_interval_ns"] = np_interval
    eps = episodes([(x, x) for x in ce_times + cnp_times])
    return flows, frames, dict(totals=dict(ce=len(ce_times), cnp=len(cnp_times), nak=0, rnr_nak=0,
                                           retransmitted=0),
                               episodes=[dict(start_ns=a, end_ns=b) for a, b in eps],
                               rp_on_wire=True, snaplen=128)


def dcqcn():
    """Marking only above 6 Gb/s: each CNP finds its sender near line rate, every cut is near
    50% (alpha stays near 1) and lasts a 55 us recovery period: dense traffic whose cuts the
    wire shows."""
    return dcqcn_model(pkts=1500, mark_bps=6e9, recover_ns=55 * US, floor_bps=5e9 / 50)


def np_limited():
    """Marking above 2 Gb/s while the senders never go below 2.5 Gb/s: every packet is marked,
    the NP's limiter sets the pace (one CNP per QP per 50 us, 1 us after the mark it answers)
    and most marks go unanswered. The cuts are small: the senders sit at their floor."""
    return dcqcn_model(pkts=800, mark_bps=2e9, recover_ns=20 * US, floor_bps=5e9 / 2)


def nak_gbn():
    """A drop before the capture point, a NAK (PSN sequence error), go-back-N; later a resend
    with no NAK before it (an implied timeout)."""
    a, b, qa, qb = "10.0.1.1", "10.0.1.2", 0x11, 0x12
    flows, frames = Flows(), []
    t = T0
    sent = []  # (time, psn)
    psn = 100
    lost = 110
    nak_t = None
    resend_at = None

    def data(t, p, ack=False):
        f = roce(a, b, 0x04, qb, p, payload=bytes(256), ackreq=ack)
        frames.append((t, f))
        return flows.packet(a, b, qb, f)

    def resp(t, syn, p):
        f = roce(b, a, 0x11, qa, p, ext=aeth(syn, p), smac=MAC_B, dmac=MAC_A)
        frames.append((t, f))
        flows.packet(b, a, qa, f)

    fl = flows.get(a, b, qb)
    # first pass: 100..114, 110 dropped before the capture; the NAK comes back after 111
    for p in range(100, 115):
        t = T0 + (p - 100) * US
        if p == lost:
            continue
        ack = p % 8 == 7 and p < lost
        data(t, p, ack)
        if ack:
            resp(t + 2 * US, 0x1F, p)
        if p == lost + 1:
            nak_t = t + 1 * US
            resp(nak_t, 0x60, lost)  # NAK, PSN sequence error
    fl["gaps"] = 1
    fl["gap_psns"] = 1
    fl["naks_received"] = 1
    fl["go_back_n"] = 1
    # the sender learns of the NAK at nak_t + 2us and goes back to 110
    resend_at = nak_t + 3 * US
    t = resend_at
    for p in range(110, 140):
        if p <= 114:
            fl["retransmitted"] += 1
        ack = p % 8 == 7
        data(t, p, ack)
        if ack:
            resp(t + 2 * US, 0x1F, p)
        t += US
    # 140 with AckReq; its ACK never reaches the sender: resent 500 us later, no NAK
    data(t, 140, True)
    resp(t + 2 * US, 0x1F, 140)
    t += 500 * US
    data(t, 140, True)
    resp(t + 2 * US, 0x1F, 140)
    fl["retransmitted"] += 1
    fl["timeouts"] = 1
    flows.pair((a, b, qb), (b, a, qa))
    return flows, frames, dict(totals=dict(ce=0, cnp=0, nak=1, rnr_nak=0, retransmitted=6),
                               go_back_n_delay_ns=resend_at - nak_t, episodes=[])


def rnr():
    """The responder has no receive posted: RNR NAK, the requester retries after the RNR timer."""
    a, b, qa, qb = "10.0.4.1", "10.0.4.2", 0x21, 0x22
    flows, frames = Flows(), []
    fl = flows.get(a, b, qb)
    t = T0
    for p in range(500, 508):
        f = roce(a, b, 0x04, qb, p, payload=bytes(128), ackreq=(p == 503))
        frames.append((t, f))
        flows.packet(a, b, qb, f)
        if p == 503:
            r = roce(b, a, 0x11, qa, 503, ext=aeth(0x1F, 1), smac=MAC_B, dmac=MAC_A)
            frames.append((t + 2 * US, r))
            flows.packet(b, a, qa, r)
        if p == 505:
            r = roce(b, a, 0x11, qa, 505, ext=aeth(0x20 | 0x0E, 1), smac=MAC_B, dmac=MAC_A)
            frames.append((t + 1 * US, r))
            flows.packet(b, a, qa, r)
        t += 1 * US
    fl["rnr_naks_received"] = 1
    t += 200 * US
    for p in range(505, 512):
        f = roce(a, b, 0x04, qb, p, payload=bytes(128), ackreq=(p == 511))
        frames.append((t, f))
        flows.packet(a, b, qb, f)
        if p <= 507:
            fl["retransmitted"] += 1
        t += 1 * US
    r = roce(b, a, 0x11, qa, 511, ext=aeth(0x1F, 2), smac=MAC_B, dmac=MAC_A)
    frames.append((t + 2 * US, r))
    flows.packet(b, a, qa, r)
    flows.pair((a, b, qb), (b, a, qa))
    return flows, frames, dict(totals=dict(ce=0, cnp=0, nak=0, rnr_nak=1, retransmitted=3),
                               episodes=[])


class PauseModel:
    """Paused time per (MAC, class): a new XOFF sets the end to now + quanta, XON ends it."""

    def __init__(self, bps):
        self.bps = bps
        self.st = {}
        self.total = {}
        self.xoff = {}
        self.xon = {}
        self.intervals = []
        self.runs = []

    def frame(self, t, mac, cls, q):
        k = (mac, cls)
        if k in self.st and self.st[k][1] <= t:  # expired before this frame
            self._end(k, self.st[k][1])
        if q:
            self.xoff[cls] = self.xoff.get(cls, 0) + 1
            start = self.st[k][0] if k in self.st else t
            self.st[k] = (start, t + quanta_ns(q, self.bps))
        else:
            self.xon[cls] = self.xon.get(cls, 0) + 1
            if k in self.st:
                self._end(k, t)

    def _end(self, k, t):
        start, _ = self.st.pop(k)
        self.total[k[1]] = self.total.get(k[1], 0) + (t - start)
        self.intervals.append((start, t))
        self.runs.append((k[1], start, t))

    def finish(self):
        for k in list(self.st):
            self._end(k, self.st[k][1])


def pfc_scenario():
    """PFC on priority 3 (XOFF, refresh, XON; an expiring pause), 3+5 in one frame, and a storm
    on priority 4 (refreshed every 150 us for 120 ms)."""
    frames = []
    m = PauseModel(100e9)
    flows = Flows()

    def send(t, enable, quanta):
        frames.append((t, pfc(MAC_SW, enable, quanta)))
        for c in range(8):
            if enable & (1 << c):
                m.frame(t, MAC_SW, c, quanta[c])

    q = [0] * 8
    send(T0, 1 << 3, [0, 0, 0, 0xFFFF, 0, 0, 0, 0])
    send(T0 + 100 * US, 1 << 3, [0, 0, 0, 0xFFFF, 0, 0, 0, 0])
    send(T0 + 250 * US, 1 << 3, q)
    send(T0 + 2 * MS, 1 << 3, [0, 0, 0, 1000, 0, 0, 0, 0])
    send(T0 + 3500 * US, (1 << 3) | (1 << 5), [0, 0, 0, 500, 0, 2000, 0, 0])
    t = T0 + 10 * MS
    while t < T0 + 130 * MS:
        send(t, 1 << 4, [0, 0, 0, 0, 0xFFFF, 0, 0, 0])
        t += 150 * US
    # some priority-3 data between the pauses
    a, b = "10.0.5.1", "10.0.5.2"
    for k in range(20):
        tt = T0 + 500 * US + k * 50 * US
        f = roce(a, b, 0x0A, 0x61, 7000 + k, ext=reth(0x1000, 7, 64), payload=bytes(64),
                 vlan_prio=3)
        frames.append((tt, f))
        flows.packet(a, b, 0x61, f)
    m.finish()
    prios = {str(c): dict(xoff=m.xoff.get(c, 0), xon=m.xon.get(c, 0), paused_ns=m.total.get(c, 0))
             for c in sorted(set(m.xoff) | set(m.xon))}
    storms = [r for r in m.runs if r[2] - r[1] >= 100 * MS]
    eps = episodes(m.intervals)
    return flows, frames, dict(
        totals=dict(ce=0, cnp=0, nak=0, rnr_nak=0, retransmitted=0),
        pfc=dict(frames=sum(1 for _, f in frames if f[12:14] == b"\x88\x08"), priorities=prios),
        storms=[dict(priority=str(c), duration_ns=e - s) for c, s, e in storms],
        episodes=[dict(start_ns=s, end_ns=e) for s, e in eps])


def pause_scenario():
    """802.3x PAUSE at 25 Gb/s: an XOFF ended early by XON, one that expires, one refreshed."""
    frames = []
    m = PauseModel(25e9)

    def send(t, q):
        frames.append((t, pause(MAC_SW, q)))
        m.frame(t, MAC_SW, "pause", q)

    send(T0, 0xFFFF)
    send(T0 + 1 * MS, 0)
    send(T0 + 5 * MS, 0x1000)
    send(T0 + 9 * MS, 0x2000)
    send(T0 + 9 * MS + 100 * US, 0x2000)
    m.finish()
    eps = episodes(m.intervals)
    return Flows(), frames, dict(
        args=["--link-speed", "25G"],
        totals=dict(ce=0, cnp=0, nak=0, rnr_nak=0, retransmitted=0),
        pause=dict(frames=len(frames), xoff=m.xoff.get("pause", 0), xon=m.xon.get("pause", 0),
                   paused_ns=m.total.get("pause", 0)),
        episodes=[dict(start_ns=s, end_ns=e) for s, e in eps])


def psn_wrap():
    """IPv6 RC WRITEs whose PSNs wrap past 2^24 - 1, one packet lost right after the wrap, NAK,
    go-back-N; ACKs and the NAK carry PSNs on both sides of the wrap."""
    a, b, qa, qb = "fd00::1", "fd00::2", 0x71, 0x72
    flows, frames = Flows(), []
    fl = flows.get(a, b, qb)
    start = 0xFFFFF0
    psns = [(start + k) & 0xFFFFFF for k in range(40)]
    lost = 0x000003
    t = T0
    nak_done = False
    resend_from = None
    for idx, p in enumerate(psns):
        op = 0x06 if idx % 4 == 0 else (0x08 if idx % 4 == 3 else 0x07)
        ext = reth(0x2000 + idx * 4096, 9, 4096) if op == 0x06 else b""
        if p != lost:
            f = roce(a, b, op, qb, p, ext=ext, payload=bytes(1024), ackreq=(op == 0x08))
            frames.append((t, f))
            flows.packet(a, b, qb, f)
            if op == 0x08 and not (nak_done and resend_from is None):
                r = roce(b, a, 0x11, qa, p, ext=aeth(0x1F, idx // 4), smac=MAC_B, dmac=MAC_A)
                frames.append((t + 2 * US, r))
                flows.packet(b, a, qa, r)
        if p == (lost + 1) & 0xFFFFFF and not nak_done:
            r = roce(b, a, 0x11, qa, lost, ext=aeth(0x60, 3), smac=MAC_B, dmac=MAC_A)
            frames.append((t + 1 * US, r))
            flows.packet(b, a, qa, r)
            nak_done = True
            resend_from = idx - 1
            resend_to = idx + 2  # two more went out before the NAK arrived
        if resend_from is not None and idx == resend_to:
            t += 4 * US
            for j in range(resend_from, resend_to + 1):
                q = psns[j]
                op2 = 0x06 if j % 4 == 0 else (0x08 if j % 4 == 3 else 0x07)
                ext2 = reth(0x2000 + j * 4096, 9, 4096) if op2 == 0x06 else b""
                f = roce(a, b, op2, qb, q, ext=ext2, payload=bytes(1024), ackreq=(op2 == 0x08))
                frames.append((t, f))
                flows.packet(a, b, qb, f)
                fl["retransmitted"] += 1
                if op2 == 0x08:
                    r = roce(b, a, 0x11, qa, q, ext=aeth(0x1F, j // 4), smac=MAC_B, dmac=MAC_A)
                    frames.append((t + 2 * US, r))
                    flows.packet(b, a, qa, r)
                t += US
            resend_from = None
        t += 1 * US
    fl.update(gaps=1, gap_psns=1, naks_received=1, go_back_n=1)
    flows.pair((a, b, qb), (b, a, qa))
    return flows, frames, dict(totals=dict(ce=0, cnp=0, nak=1, rnr_nak=0,
                                           retransmitted=fl["retransmitted"]), episodes=[])


def mad(attr, tid, payload):
    hdr = struct.pack(">BBBBHHQHHI", 1, 0x07, 2, 3, 0, 0, tid, attr, 0, 0)
    body = payload + bytes(232 - len(payload))
    return hdr + body


def cm():
    """RDMA CM: REQ/REP/RTU on QP 1 (UD SEND with DETH) for two connections between the same
    two hosts, then UC traffic both ways that only the CM exchange can pair."""
    a, b = "10.0.2.1", "10.0.2.2"
    conns = [(0x31, 0x41, 0x1111), (0x32, 0x42, 0x2222)]  # (A's QP, B's QP, A's comm id)
    flows, frames = Flows(), []
    t = T0
    psn_a, psn_b = 10, 20
    for k, (qa, qb, cid) in enumerate(conns):
        bcid = 0x9000 + k
        req = struct.pack(">II", cid, 0) + struct.pack(">Q", 0x106) + bytes(8) + bytes(4) + \
            struct.pack(">I", 0) + struct.pack(">I", (qa << 8) | 0x10)
        f = roce(a, b, 0x64, 1, psn_a, ext=deth(0x80010000, 1), payload=mad(0x10, 100 + k, req))
        frames.append((t, f))
        flows.packet(a, b, 1, f)
        psn_a += 1
        rep = struct.pack(">III", bcid, cid, 0) + struct.pack(">I", qb << 8)
        f = roce(b, a, 0x64, 1, psn_b, ext=deth(0x80010000, 1), payload=mad(0x13, 100 + k, rep),
                 smac=MAC_B, dmac=MAC_A)
        frames.append((t + 50 * US, f))
        flows.packet(b, a, 1, f)
        psn_b += 1
        rtu = struct.pack(">II", cid, bcid)
        f = roce(a, b, 0x64, 1, psn_a, ext=deth(0x80010000, 1), payload=mad(0x14, 100 + k, rtu))
        frames.append((t + 80 * US, f))
        flows.packet(a, b, 1, f)
        psn_a += 1
        t += 200 * US
    flows.pair((a, b, 1), (b, a, 1))
    for k in range(10):
        for (qa, qb, _) in conns:
            f = roce(a, b, 0x24, qb, 300 + k, payload=bytes(200))  # UC SEND only
            frames.append((t, f))
            flows.packet(a, b, qb, f)
            f = roce(b, a, 0x24, qa, 700 + k, payload=bytes(200), smac=MAC_B, dmac=MAC_A)
            frames.append((t + 3 * US, f))
            flows.packet(b, a, qa, f)
            t += 10 * US
    for (qa, qb, _) in conns:
        flows.pair((a, b, qb), (b, a, qa))
    return flows, frames, dict(totals=dict(ce=0, cnp=0, nak=0, rnr_nak=0, retransmitted=0),
                               episodes=[])


def read_atomic():
    """RDMA READs (4 KiB, 1 KiB path MTU: first/middle/middle/last responses), FETCH&ADD and
    COMPARE&SWAP with atomic ACKs, then WRITEs with ACKs."""
    a, b, qa, qb = "10.0.3.1", "10.0.3.2", 0x51, 0x52
    flows, frames = Flows(), []
    t = T0
    p = 4000

    def req(op, p, ext=b"", payload=b"", ack=True):
        f = roce(a, b, op, qb, p, ext=ext, payload=payload, ackreq=ack)
        frames.append((t, f))
        flows.packet(a, b, qb, f)

    def rsp(tt, op, p, ext=b"", payload=b""):
        f = roce(b, a, op, qa, p, ext=ext, payload=payload, smac=MAC_B, dmac=MAC_A)
        frames.append((tt, f))
        flows.packet(b, a, qa, f)

    for k in range(5):
        req(0x0C, p, reth(0x10000 + k * 4096, 5, 4096))
        rsp(t + 3 * US, 0x0D, p, aeth(0x1F, k), bytes(1024))
        rsp(t + 4 * US, 0x0E, p + 1, b"", bytes(1024))
        rsp(t + 5 * US, 0x0E, p + 2, b"", bytes(1024))
        rsp(t + 6 * US, 0x0F, p + 3, aeth(0x1F, k), bytes(1024))
        p += 4
        t += 10 * US
    for k in range(3):
        op = 0x14 if k < 2 else 0x13
        req(op, p, struct.pack(">QIQQ", 0x20000, 6, 1, 0))
        rsp(t + 3 * US, 0x12, p, aeth(0x1F, 5 + k) + struct.pack(">Q", k))
        p += 1
        t += 10 * US
    for k in range(2):
        req(0x0A, p, reth(0x30000, 7, 512), bytes(512))
        rsp(t + 3 * US, 0x11, p, aeth(0x1F, 8 + k))
        p += 1
        t += 10 * US
    flows.pair((a, b, qb), (b, a, qa))
    return flows, frames, dict(totals=dict(ce=0, cnp=0, nak=0, rnr_nak=0, retransmitted=0),
                               episodes=[])


def incast_one_host():
    """The incast's 4 QPs from one host, ACKed every 128 packets: CNPs come before any ACK
    names the QP pairs, so they can only be attributed once the ACKs arrive."""
    return incast(one_host=True, ack_every=128)


SCENARIOS = dict(incast=incast, incast_one_host=incast_one_host, dcqcn=dcqcn,
                 np_limited=np_limited, nak_gbn=nak_gbn, rnr=rnr,
                 pfc=pfc_scenario, pause=pause_scenario, psn_wrap=psn_wrap, cm=cm,
                 read_atomic=read_atomic)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
    names = sys.argv[2:] or list(SCENARIOS)
    os.makedirs(out, exist_ok=True)
    for name in names:
        flows, frames, extra = SCENARIOS[name]()
        frames = write_pcap(os.path.join(out, name + ".pcap"), frames, extra.pop("snaplen", 65535))
        doc = truth_doc(flows, frames, extra)
        with open(os.path.join(out, name + ".truth.json"), "w") as f:
            json.dump(doc, f, indent=1, sort_keys=True)
            f.write("\n")
        print("%s: %d frames, %d flows" % (name, len(frames), len(flows.f)))


if __name__ == "__main__":
    main()
