"""Reference readers for the tests: classic pcap and pcapng files, and a bitwise RoCEv2 ICRC, written from the specs alone.

Nothing here uses rocetrace's code or zlib: the ICRC is a CRC-32 computed
bit by bit from its definition (reflected polynomial 0xEDB88320, initial
value and final XOR all ones), over the fields the RoCEv2 annex masks, so a
test that compares it with the dissector's verdict or a builder's stored
bytes checks them against an implementation they do not share.
"""

import struct

ROCEV2_PORT = 4791
LINK_ETHERNET, LINK_RAW, LINK_SLL, LINK_SLL2 = 1, 101, 113, 276
_VLAN_TPIDS = (0x8100, 0x88A8, 0x9100)


def crc32_bitwise(data, crc=0):
    """CRC-32 as Ethernet and zlib define it, one bit at a time."""
    crc ^= 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0xEDB88320 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def rocev2_icrc(ip_packet):
    """The ICRC of a RoCEv2 packet given from its IP header through its ICRC field.

    Covers 8 bytes of 0xFF (the masked LRH), then the IP header with IPv4
    TOS, TTL and checksum (IPv6: traffic class, flow label, hop limit) set to
    ones, the UDP header with its checksum set to ones, the BTH with its byte
    4 (FECN, BECN, reserved) set to ones, and everything up to the ICRC.
    Returns the CRC as an integer; the wire stores it little-endian.
    """
    b = bytearray(ip_packet[:-4])
    if b[0] >> 4 == 4:
        ihl = (b[0] & 0x0F) * 4
        b[1] = 0xFF
        b[8] = 0xFF
        b[10] = b[11] = 0xFF
    else:
        ihl = 40
        b[0] |= 0x0F
        b[1] = b[2] = b[3] = 0xFF
        b[7] = 0xFF
    b[ihl + 6] = b[ihl + 7] = 0xFF
    b[ihl + 8 + 4] = 0xFF
    return crc32_bitwise(b"\xff" * 8 + bytes(b))


def pcap_records(path):
    """A classic pcap file's 24-byte global header and its records (each its 16-byte header and data)."""
    with open(path, "rb") as f:
        data = f.read()
    endian = "<" if data[:4] in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1") else ">"
    recs, off = [], 24
    while off + 16 <= len(data):
        incl = struct.unpack(endian + "I", data[off + 8:off + 12])[0]
        recs.append(data[off:off + 16 + incl])
        off += 16 + incl
    return data[:24], recs


def read_capture(path):
    """(link type, [(ts_ns, caplen, wirelen, bytes), ...]) of a pcap or pcapng file (one interface)."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        return _read_pcapng(data)
    return _read_pcap(data)


def _read_pcap(data):
    magic = data[:4]
    for order in "<>":
        m = struct.unpack(order + "I", magic)[0]
        if m in (0xA1B2C3D4, 0xA1B23C4D):
            break
    else:
        raise ValueError("not a pcap file")
    nano = m == 0xA1B23C4D
    linktype = struct.unpack(order + "I", data[20:24])[0] & 0x0FFFFFFF
    frames, off = [], 24
    while off + 16 <= len(data):
        sec, frac, caplen, wirelen = struct.unpack(order + "IIII", data[off:off + 16])
        off += 16
        ts = sec * 10**9 + (frac if nano else frac * 1000)
        frames.append((ts, caplen, wirelen, data[off:off + caplen]))
        off += caplen
    return linktype, frames


def _read_pcapng(data):
    order = "<" if data[8:12] == b"\x4d\x3c\x2b\x1a" else ">"
    linktype, tsres, frames, off = None, 10**3, [], 0
    while off + 12 <= len(data):
        btype, blen = struct.unpack(order + "II", data[off:off + 8])
        body = data[off + 8:off + blen - 4]
        if btype == 1:  # interface description
            linktype = struct.unpack(order + "H", body[:2])[0]
            tsres = _if_tsresol(body[8:], order)
        elif btype == 6:  # enhanced packet
            _, hi, lo, caplen, wirelen = struct.unpack(order + "IIIII", body[:20])
            ticks = hi << 32 | lo
            frames.append((ticks * 10**9 // tsres, caplen, wirelen, body[20:20 + caplen]))
        off += blen
    return linktype, frames


def _if_tsresol(opts, order):
    off = 0
    while off + 4 <= len(opts):
        code, olen = struct.unpack(order + "HH", opts[off:off + 4])
        if code == 0:
            break
        if code == 9:
            v = opts[off + 4]
            return 2 ** (v & 0x7F) if v & 0x80 else 10 ** v
        off += 4 + (olen + 3) // 4 * 4
    return 10**6


def rocev2_ip_packet(linktype, frame, port=ROCEV2_PORT):
    """The IP packet (IP header through ICRC) of a RoCEv2 frame, or None when the frame is not one.

    Follows Ethernet with 802.1Q/802.1ad tags, Linux SLL/SLL2 and raw IP, then
    IPv4 or IPv6 to UDP destination `port`; no tunnels, no fragments. The
    packet ends where the UDP length says.
    """
    if linktype == LINK_ETHERNET:
        off, etype = 14, _be16(frame, 12)
    elif linktype == LINK_SLL:
        off, etype = 16, _be16(frame, 14)
    elif linktype == LINK_SLL2:
        off, etype = 20, _be16(frame, 0)
    elif linktype == LINK_RAW:
        off, etype = 0, {4: 0x0800, 6: 0x86DD}.get(frame[0] >> 4 if frame else 0)
    else:
        return None
    while etype in _VLAN_TPIDS:
        etype = _be16(frame, off + 2)
        off += 4
    if etype == 0x0800 and len(frame) >= off + 20:
        ihl = (frame[off] & 0x0F) * 4
        if _be16(frame, off + 6) & 0x3FFF or frame[off + 9] != 17:
            return None
        udp = off + ihl
    elif etype == 0x86DD and len(frame) >= off + 40:
        if frame[off + 6] != 17:
            return None
        udp = off + 40
    else:
        return None
    if len(frame) < udp + 8 or _be16(frame, udp + 2) != port:
        return None
    end = udp + _be16(frame, udp + 4)
    if end > len(frame) or end - udp < 8 + 12 + 4:
        return None
    return frame[off:end]


def _be16(b, off):
    return b[off] << 8 | b[off + 1] if off + 2 <= len(b) else None
