"""Traffic for make_findings.py: hosts, RC streams with their ACKs, CNPs, NAKs, PFC, written as frames.

Frames are packed here with the header builders of tests/fixtures/frames.py (struct; the ICRC by
zlib's CRC-32), nothing from rocetrace. Times are ns since the epoch.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
from frames import bth_bytes, eth_bytes, icrc_rocev2, ipv4_bytes, pad60, udp_bytes  # noqa: E402
from scenario_frames import T0, US, MS, aeth  # noqa: E402

SEND_ONLY, SEND_FIRST, SEND_MIDDLE, SEND_LAST, ACK, CNP = 0x04, 0x00, 0x01, 0x02, 0x11, 0x81
NAK_SEQ = 0x60                # AETH syndrome: NAK, PSN sequence error
RNR = 0x20                    # AETH syndrome: RNR NAK, timer in the low 5 bits
PAUSE_MAX = 0xFFFF            # PFC quanta: 65535 x 512 bit times = 335.5 us at 100 Gb/s


MAC_PFC = "01:80:c2:00:00:01"


def roce(src, dst, opcode, qp, psn, ext=b"", payload=b"", ackreq=False, ecn=2, dscp=26,
         sport=49152, vlan_prio=None, becn=False, smac=None, dmac=None, dport=4791):
    """A RoCEv2 frame over IPv4 (VLAN 100 with PCP vlan_prio when given) to UDP port dport, its
    ICRC computed."""
    pad = -len(payload) % 4
    l4 = bth_bytes(opcode, qp, psn & 0xFFFFFF, pad=pad, becn=int(becn), ackreq=int(bool(ackreq)))
    l4 += ext + payload + bytes(pad) + bytes(4)
    ip = ipv4_bytes(src, dst, 17, udp_bytes(sport, dport, l4), tos=dscp << 2 | ecn, ident=0)
    ip = ip[:-4] + icrc_rocev2(ip)
    tags = ((0x8100, vlan_prio, 100),) if vlan_prio is not None else ()
    return eth_bytes(0x0800, ip, dst=dmac, src=smac, tags=tags)


def pfc(smac, enable, quanta):
    """An 802.1Qbb PFC frame from smac: the classes of `enable`, their quanta."""
    return pad60(eth_bytes(0x8808, struct.pack(">HH8H", 0x0101, enable, *quanta), dst=MAC_PFC,
                           src=smac))


def pause(smac, quanta):
    """An 802.3x PAUSE frame from smac (opcode 0x0001): the whole link, for `quanta`."""
    return pad60(eth_bytes(0x8808, struct.pack(">HH", 0x0001, quanta), dst=MAC_PFC, src=smac))


class Host:
    """A host: its IP and its NIC's MAC (a switch port's MAC when `mac` is a switch's)."""

    def __init__(self, ip, mac):
        self.ip, self.mac = ip, mac


def mac(n):
    return "02:00:00:00:%02x:%02x" % (n >> 8, n & 255)


def host(n):
    """Host n: 10.1.0.n, MAC 02:00:00:00:00:n."""
    return Host("10.1.0.%d" % n, mac(n))


def expect(code, severity, **what):
    """A finding the truth expects: its code, severity, and the subjects and evidence it must hold."""
    d = dict(code=code, severity=severity)
    d.update(what)
    return d


class Net:
    """Frames of one capture (or of several vantage points: `point` names the file)."""

    def __init__(self):
        self.files = {"capture": []}

    def add(self, t, frame, point="capture"):
        self.files.setdefault(point, []).append((int(t), frame))

    def frames(self, point="capture"):
        return self.files[point]


def selector(src, dst, qp):
    return "%s>%s:0x%06x" % (src, dst, qp)


class Stream:
    """An RC flow: SEND packets from `s` to `d` (QP dqp), ACKed by `d` to `s`'s QP sqp.

    `macs` gives the MACs a frame from s to d, and one back, carry at the capture point. Its
    first PSN is its own (as NICs pick them at random): ACKs pair each QP with its own peer."""

    def __init__(self, net, s, d, sqp, dqp, sport=49152, dscp=26, ecn=2, prio=None, psn=None,
                 payload=1024, ack_every=8, macs=None, point="capture", dport=4791):
        self.net, self.s, self.d, self.sqp, self.dqp = net, s, d, sqp, dqp
        self.sport, self.dscp, self.ecn, self.prio, self.dport = sport, dscp, ecn, prio, dport
        self.psn = (dqp * 2654435761 >> 8) & 0xFFFFFF if psn is None else psn
        self.payload, self.ack_every, self.point = payload, ack_every, point
        self.macs = macs or ((s.mac, d.mac), (d.mac, s.mac))
        self.sent = 0
        self.times = []

    @property
    def name(self):
        return selector(self.s.ip, self.d.ip, self.dqp)

    def packet(self, t, opcode=SEND_ONLY, payload=None, ce=False, psn=None, ack=True):
        """One request at t (the next PSN unless given); its ACK 2 us later when AckReq is set."""
        p = self.psn if psn is None else psn
        n = self.payload if payload is None else payload
        ackreq = ack and self.ack_every and self.sent % self.ack_every == self.ack_every - 1
        f = roce(self.s.ip, self.d.ip, opcode, self.dqp, p, payload=bytes(n), ackreq=ackreq,
                 ecn=3 if ce else self.ecn, dscp=self.dscp, sport=self.sport,
                 vlan_prio=self.prio, smac=self.macs[0][0], dmac=self.macs[0][1], dport=self.dport)
        self.net.add(t, f, self.point)
        self.times.append(t)
        if psn is None:
            self.psn = (self.psn + 1) & 0xFFFFFF
        self.sent += 1
        if ackreq:
            self.reply(t + 2 * US, 0x1F, p)
        return p

    def reply(self, t, syndrome, psn, point=None):
        """An ACK (syndrome 0x1F), NAK or RNR NAK from the receiver, to the sender's QP."""
        f = roce(self.d.ip, self.s.ip, ACK, self.sqp, psn, ext=aeth(syndrome, psn), ecn=self.ecn,
                 dscp=self.dscp, sport=self.sport + 1, vlan_prio=self.prio,
                 smac=self.macs[1][0], dmac=self.macs[1][1], dport=self.dport)
        self.net.add(t, f, point or self.point)

    def cnp(self, t, dscp=48, prio=None):
        """A CNP from the receiver's NP to the sender's QP."""
        f = roce(self.d.ip, self.s.ip, CNP, self.sqp, 0, ext=bytes(16), ecn=2, dscp=dscp,
                 becn=True, sport=self.sport + 2, vlan_prio=prio, smac=self.macs[1][0],
                 dmac=self.macs[1][1], dport=self.dport)
        self.net.add(t, f, self.point)

    def steady(self, t0, n, gap, ce_every=0):
        """n packets `gap` apart from t0 (every ce_every-th CE-marked); returns the next free time."""
        t = t0
        for k in range(n):
            self.packet(t, ce=bool(ce_every) and k % ce_every == ce_every - 1)
            t += gap
        return t

    def message(self, t, size, mtu, gap):
        """One message of `size` bytes cut at the RoCE MTU (SEND FIRST/MIDDLE/LAST, or ONLY)."""
        if size <= mtu:
            self.packet(t, SEND_ONLY, size)
            return t + gap
        k = 0
        while size > 0:
            last = size <= mtu
            op = SEND_FIRST if k == 0 else SEND_LAST if last else SEND_MIDDLE
            self.packet(t, op, min(size, mtu))
            size -= mtu
            t += gap
            k += 1
        return t


def pause_for(net, smac, t0, t1, prio=3, every=200 * US, point="capture"):
    """XOFF on `prio` from smac refreshed every `every` from t0, then XON at t1."""
    q = [0] * 8
    q[prio] = PAUSE_MAX
    t = t0
    while t < t1:
        net.add(t, pfc(smac, 1 << prio, q), point)
        t += every
    net.add(t1, pfc(smac, 1 << prio, [0] * 8), point)


def pause_link_for(net, smac, t0, t1, every=200 * US, point="capture"):
    """802.3x PAUSE from smac (the most quanta) refreshed every `every` from t0, then a zero
    PAUSE (the link resumes) at t1."""
    t = t0
    while t < t1:
        net.add(t, pause(smac, PAUSE_MAX), point)
        t += every
    net.add(t1, pause(smac, 0), point)


def two_taps(net, upstream, downstream, senders, delay, lost=()):
    """The frames of `upstream` seen at `downstream` too: those from `senders` (IPs) `delay` later,
    the others (the receivers' ACKs, NAKs, CNPs) `delay` earlier; frames at the indexes `lost` (in
    upstream's list) are lost between the two taps."""
    down = []
    for k, (t, f) in enumerate(net.frames(upstream)):
        if k in lost:
            continue
        ip = f[14:] if f[12:14] == b"\x08\x00" else f[18:]
        src = ".".join(str(b) for b in ip[12:16])
        down.append((t + delay if src in senders else t - delay, f))
    net.files[downstream] = down


def pulse(net, smac, t, length, prio=3, point="capture"):
    """A short pause: XOFF at t, XON `length` later."""
    q = [0] * 8
    q[prio] = PAUSE_MAX
    net.add(t, pfc(smac, 1 << prio, q), point)
    net.add(t + length, pfc(smac, 1 << prio, [0] * 8), point)


__all__ = ["T0", "US", "MS", "Host", "mac", "host", "expect", "Net", "Stream", "selector",
           "pause_for", "pulse", "pause_link_for", "two_taps", "SEND_ONLY", "SEND_FIRST",
           "SEND_MIDDLE", "SEND_LAST", "NAK_SEQ", "RNR"]
