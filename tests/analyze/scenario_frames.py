"""Frame builders and truth bookkeeping of make_scenarios.py: RoCEv2/PFC frames, pcap, per-flow truth."""
import struct
import zlib

from scapy.all import IP, UDP, Dot1Q, Ether, IPv6, Raw

T0 = 1_700_000_000_000_000_000  # ns since the epoch
US = 1000
MS = 1000 * US

MAC_A = "02:00:00:00:00:01"
MAC_B = "02:00:00:00:00:02"
MAC_SW = "02:00:00:00:00:fe"


# ---------------------------------------------------------------- frames

def icrc(ip_bytes, v6):
    b = bytearray(ip_bytes)
    if v6:
        b[0] |= 0x0F
        b[1] = b[2] = b[3] = 0xFF
        b[7] = 0xFF
        u = 40
    else:
        ihl = (b[0] & 15) * 4
        b[1] = 0xFF
        b[8] = 0xFF
        b[10] = b[11] = 0xFF
        u = ihl
    b[u + 6] = b[u + 7] = 0xFF
    b[u + 8 + 4] = 0xFF
    return struct.pack("<I", zlib.crc32(b"\xff" * 8 + bytes(b)) & 0xFFFFFFFF)


def bth(opcode, qp, psn, ackreq=False, pad=0, becn=False, se=False):
    return bytes([opcode, (se << 7) | (pad << 4), 0xFF, 0xFF, becn << 6,
                  (qp >> 16) & 255, (qp >> 8) & 255, qp & 255,
                  ackreq << 7, (psn >> 16) & 255, (psn >> 8) & 255, psn & 255])


def roce(src, dst, opcode, qp, psn, ext=b"", payload=b"", ackreq=False, ecn=2, dscp=26,
         sport=49152, vlan_prio=None, becn=False, smac=MAC_A, dmac=MAC_B):
    pad = (4 - len(payload) % 4) % 4
    tr = bth(opcode, qp, psn & 0xFFFFFF, ackreq, pad, becn) + ext + payload + b"\0" * pad
    v6 = ":" in src
    if v6:
        ip = IPv6(src=src, dst=dst, tc=(dscp << 2) | ecn, hlim=64)
    else:
        ip = IP(src=src, dst=dst, tos=(dscp << 2) | ecn, ttl=64, id=0, flags="DF")
    ipb = bytes(ip / UDP(sport=sport, dport=4791, chksum=0) / Raw(tr + b"\0" * 4))
    ipb = ipb[:-4] + icrc(ipb[:-4], v6)
    eth = Ether(src=smac, dst=dmac, type=0x86DD if v6 else 0x0800)
    if vlan_prio is not None:
        eth = Ether(src=smac, dst=dmac, type=0x8100) / Dot1Q(prio=vlan_prio, vlan=100,
                                                               type=0x86DD if v6 else 0x0800)
    return bytes(eth) + ipb


def aeth(syndrome, msn):
    return struct.pack(">I", (syndrome << 24) | (msn & 0xFFFFFF))


def reth(va, rkey, length):
    return struct.pack(">QII", va, rkey, length)


def deth(qkey, src_qp):
    return struct.pack(">II", qkey, src_qp & 0xFFFFFF)


def pfc(smac, enable, quanta):
    body = struct.pack(">HH8H", 0x0101, enable, *quanta)
    f = bytes(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808)) + body
    return f + b"\0" * (60 - len(f))


def pause(smac, quanta):
    f = bytes(Ether(src=smac, dst="01:80:c2:00:00:01", type=0x8808)) + struct.pack(">HH", 1, quanta)
    return f + b"\0" * (60 - len(f))


def write_pcap(path, frames, snaplen=65535, in_order=True):
    """A pcap (ns timestamps) of (ts, bytes) frames, in time order unless `in_order` is false."""
    if in_order:
        frames = sorted(frames, key=lambda x: x[0])  # stable: equal times keep their order
    with open(path, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, snaplen, 1))
        for ts, b in frames:
            cut = b[:snaplen]
            f.write(struct.pack("<IIII", ts // 10**9, ts % 10**9, len(cut), len(b)))
            f.write(cut)
    return frames


# ---------------------------------------------------------------- truth helpers

class Flows:
    """Per-flow truth, keyed like the analyzer: (src, dst, dest_qp)."""

    def __init__(self):
        self.f = {}

    def get(self, src, dst, qp):
        k = (src, dst, qp)
        if k not in self.f:
            self.f[k] = dict(src=src, dst=dst, dest_qp=qp, peer_qp=None, packets=0, bytes=0, ce=0,
                             cnp_received=0, naks_received=0, rnr_naks_received=0, retransmitted=0,
                             gaps=0, gap_psns=0, go_back_n=0, timeouts=0, np_delay=[], rp_cut=[],
                             ce_rate_limited=0, cnp_interval_ns=None)
        return self.f[k]

    def packet(self, src, dst, qp, frame, ce=False):
        fl = self.get(src, dst, qp)
        fl["packets"] += 1
        fl["bytes"] += len(frame)
        fl["ce"] += int(ce)
        return fl

    def pair(self, a, b):
        fa, fb = self.get(*a), self.get(*b)
        fa["peer_qp"] = b[2]
        fb["peer_qp"] = a[2]


def nearest_rank(vals, q):
    s = sorted(vals)
    r = max(1, min(len(s), -(-int(q * len(s) * 1000000) // 1000000)))
    return s[r - 1]


def episodes(intervals, gap=1 * MS):
    """Merge [start, end] event intervals closer than `gap` (the analyzer's episode rule)."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1] + gap:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def truth_doc(flows, frames, extra):
    """Per flow, besides counts: np_delay_ns, the NP's own delay from the CE mark it answered
    to each CNP it sent (null: it sent none); rp_cut_pct, the sender's rate cut for each CNP it
    reacted to, in percent of its rate before (null: none)."""
    fl = []
    for f in flows.f.values():
        d = {k: v for k, v in f.items() if k not in ("np_delay", "rp_cut")}
        r = f["np_delay"]
        d["np_delay_ns"] = None if not r else dict(min=min(r), median=nearest_rank(r, 0.5),
                                                    max=max(r), samples=len(r))
        c = f["rp_cut"]
        d["rp_cut_pct"] = None if not c else dict(mean=round(sum(c) / len(c), 3),
                                                   max=round(max(c), 3), cuts=len(c))
        fl.append(d)
    doc = dict(packets=len(frames), flows=fl)
    doc.update(extra)
    return doc


def quanta_ns(q, bps):
    # one quantum = 512 bit times, each pause rounded to the nearest ns
    ps = int(512 * 10**12 / bps + 0.5)
    return (q * ps + 500) // 1000


def send_ack(flows, frames, t, recv, sender, sqp, psn, sport, ecn=2):
    """The receiver ACKs `psn` to the sender's QP at t."""
    a = roce(recv, sender, 0x11, sqp, psn, ext=aeth(0x1F, psn), ecn=ecn, sport=sport, smac=MAC_B,
             dmac=MAC_A)
    frames.append((t, a))
    flows.packet(recv, sender, sqp, a)


def send_cnp(flows, frames, t, recv, sender, sqp, rqp, sport, answered):
    """The receiver's NP sends a CNP to the sender's QP at t for the CE mark it saw at `answered`
    (the truth: its delay)."""
    c = roce(recv, sender, 0x81, sqp, 0, ext=bytes(16), ecn=2, dscp=48, becn=True, sport=sport,
             smac=MAC_B, dmac=MAC_A)
    frames.append((t, c))
    flows.packet(recv, sender, sqp, c)
    fl = flows.get(sender, recv, rqp)
    fl["cnp_received"] += 1
    fl["np_delay"].append(t - answered)


def dcqcn_cut(s, floor, g, fl):
    """A DCQCN reaction point's cut on a CNP: Rt = Rc, Rc = Rc(1 - alpha/2) (not below floor),
    alpha = (1 - g) alpha + g (the truth: the cut in percent)."""
    s["rt"] = s["rc"]
    s["rc"] = max(floor, s["rc"] * (1 - s["alpha"] / 2))
    s["alpha"] = (1 - g) * s["alpha"] + g
    fl["rp_cut"].append(100 * (1 - s["rc"] / s["rt"]))
