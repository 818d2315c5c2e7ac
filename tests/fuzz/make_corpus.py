#!/usr/bin/python3
"""Seeds the dissector fuzz corpus: distinct frames of pcap files plus hand-made edge cases.

usage: make_corpus.py OUT_DIR CAPTURE.pcap...

Each corpus file is one fuzz input: a selector byte (bits 0-1: link type
Ethernet/SLL/SLL2/raw IP; bit 2: the frame was snapped, wire length +100)
followed by the frame. Frames are kept when their shape (link type, tags,
Ethertype, IP protocol, UDP port, BTH opcode) is new, up to 50 from the
captures. Files are named by the SHA-1 of their content, so reruns are
idempotent.
"""
import hashlib
import os
import struct
import sys
import zlib

LINKS = {1: 0, 113: 1, 276: 2, 101: 3}
MAX_CAPTURED = 50


def read_pcap(path):
    """Yield (linktype, frame bytes) of a classic pcap file (any byte order/precision)."""
    with open(path, 'rb') as f:
        data = f.read()
    magic = data[:4]
    if magic in (b'\xd4\xc3\xb2\xa1', b'\x4d\x3c\xb2\xa1'):
        end = '<'
    elif magic in (b'\xa1\xb2\xc3\xd4', b'\xa1\xb2\x3c\x4d'):
        end = '>'
    else:
        return
    linktype = struct.unpack(end + 'I', data[20:24])[0] & 0x0FFFFFFF
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack(end + 'I', data[off + 8:off + 12])[0]
        yield linktype, data[off + 16:off + 16 + incl]
        off += 16 + incl


def shape(link, frame):
    """A coarse signature of a frame's layering."""
    off, etype = {0: (12, None), 1: (14, None), 2: (0, None), 3: (None, None)}[link]
    tags = 0
    if off is not None:
        if len(frame) < off + 2:
            return (link, 'short')
        etype = struct.unpack('>H', frame[off:off + 2])[0]
        off = {0: 14, 1: 16, 2: 20}[link]
        while etype in (0x8100, 0x88A8, 0x9100) and len(frame) >= off + 4:
            etype = struct.unpack('>H', frame[off + 2:off + 4])[0]
            off += 4
            tags += 1
    else:
        off = 0
        etype = 0x0800 if frame[:1] and frame[0] >> 4 == 4 else 0x86DD
    proto = dport = opcode = None
    if etype == 0x0800 and len(frame) >= off + 20:
        proto = frame[off + 9]
        off += (frame[off] & 15) * 4
    elif etype == 0x86DD and len(frame) >= off + 40:
        proto = frame[off + 6]
        off += 40
    elif etype == 0x8915 and len(frame) >= off + 41:
        opcode = frame[off + 40]
    if proto == 17 and len(frame) >= off + 8:
        dport = struct.unpack('>H', frame[off + 2:off + 4])[0]
        if dport == 4791 and len(frame) > off + 8:
            opcode = frame[off + 8]
    return (link, tags, etype, proto, dport, opcode)


def ip4(payload, tos=0x6A, proto=17, frag=0x4000):
    hdr = struct.pack('>BBHHHBBH4s4s', 0x45, tos, 20 + len(payload), 1, frag, 64, proto, 0,
                      bytes([10, 0, 0, 1]), bytes([10, 0, 0, 2]))
    return hdr + payload


def ip6(payload, nh=17):
    return (struct.pack('>IHBB', 6 << 28 | 0x6A << 20 | 0x12345, len(payload), nh, 64) +
            bytes(15) + b'\x01' + bytes(15) + b'\x02' + payload)


def roce_v4(opcode, ext, payload=b'', becn=0, pad=0):
    """An IPv4 RoCEv2 packet with a valid ICRC."""
    bth = struct.pack('>BBHBBHBBH', opcode, 0x40 | pad << 4, 0xFFFF, becn << 6, 0, 0x11,
                      0x80, 0, 42)
    body = bth + ext + payload + bytes(pad)
    udp = struct.pack('>HHHH', 49152, 4791, 8 + len(body) + 4, 0)
    pkt = ip4(udp + body + bytes(4))
    pkt = pkt[:-4]
    masked = bytearray(b'\xff' * 8 + pkt)
    for i in (1, 8, 10, 11, 26, 27, 32):
        masked[8 + i] = 0xFF
    return pkt + struct.pack('<I', zlib.crc32(bytes(masked)))


def eth(etype, payload, tags=()):
    hdr = bytes([2, 0, 0, 0, 0, 2, 2, 0, 0, 0, 0, 1])
    for tpid, tci in tags:
        hdr += struct.pack('>HH', tpid, tci)
    return hdr + struct.pack('>H', etype) + payload


def edge_cases():
    """(selector, frame) pairs for layouts the captures lack."""
    reth = struct.pack('>QII', 0x1000, 0x22, 64)
    ack = struct.pack('>I', 0x60000001)
    cnp = roce_v4(0x81, bytes(16), becn=1)
    cases = [
        (0, eth(0x0800, cnp)),
        (0, eth(0x0800, roce_v4(0x06, reth, bytes(64)), [(0x8100, 0x6064)])),
        (0, eth(0x0800, roce_v4(0x11, ack), [(0x88A8, 0xA0C8), (0x8100, 0x6064)])),
        (0, eth(0x0800, roce_v4(0x13, struct.pack('>QIQQ', 8, 1, 2, 3)), [(0x9100, 5)])),
        (0, eth(0x0800, roce_v4(0x12, ack + bytes(8)))),
        (0, eth(0x0800, roce_v4(0x65, struct.pack('>II', 0x11111111, 7) + b'immd', b'x' * 5, pad=3))),
        (0, eth(0x0800, roce_v4(0x44, struct.pack('>III', 1, 2, 3)))),
        (0, eth(0x0800, roce_v4(0xA4, struct.pack('>I', 9), b'abc', pad=1))),
        (0, eth(0x0800, roce_v4(0x1C, struct.pack('>I', 1) + reth))),
        (0, eth(0x0800, roce_v4(0x17, struct.pack('>I', 0x77), b'inv!'))),
        (0, eth(0x0800, roce_v4(0x1E, b'', b'unknown'))),
        (0, eth(0x86DD, ip6(struct.pack('>HHHH', 1, 4791, 8 + 16, 0) + bytes(16)))),
        (0, eth(0x8915, struct.pack('>IHBB', 6 << 28, 20, 0x1B, 64) + bytes(32) +
                struct.pack('>BBHBBHBBH', 0x11, 0x40, 0xFFFF, 0, 0, 5, 0, 0, 9) + ack + bytes(4))),
        (0, eth(0x8808, struct.pack('>HH8H', 0x0101, 0x08, 0, 0, 0, 0xFFFF, 0, 0, 0, 0) + bytes(26))),
        (0, eth(0x8808, struct.pack('>HH', 0x0001, 0xFFFF) + bytes(42))),
        (0, eth(0x8808, struct.pack('>HH', 0x0002, 0) + bytes(42))),
        (0, eth(0x0800, ip4(bytes(28), frag=0x2000))),
        (0, eth(0x0800, b'\x44' + bytes(40))),
        (1, struct.pack('>HHH8sH', 0, 1, 6, bytes(8), 0x0800) + roce_v4(0x04, b'', b'sll')),
        (1, struct.pack('>HHH8sH', 0, 1, 6, bytes(8), 0x8100) + struct.pack('>HH', 3, 0x0800) +
         roce_v4(0x04, b'')),
        (2, struct.pack('>HHIHBB8s', 0x0800, 0, 2, 1, 0, 6, bytes(8)) + roce_v4(0x0A, reth, b'q')),
        (3, roce_v4(0x0B, reth + b'IMMD', b'raw')),
        (3, ip6(struct.pack('>HHHH', 1, 4791, 8 + 20, 0) + bytes(20))),
        (4, eth(0x0800, roce_v4(0x06, reth, bytes(200)))[:-100]),
    ]
    return cases


def main():
    if len(sys.argv) < 2:
        sys.exit('usage: make_corpus.py OUT_DIR CAPTURE.pcap...')
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    inputs, seen = [], set()
    for path in sys.argv[2:]:
        for linktype, frame in read_pcap(path):
            if linktype not in LINKS or len(inputs) >= MAX_CAPTURED:
                continue
            sig = shape(LINKS[linktype], frame)
            if sig in seen:
                continue
            seen.add(sig)
            inputs.append(bytes([LINKS[linktype]]) + frame)
    inputs += [bytes([sel]) + frame for sel, frame in edge_cases()]
    for data in inputs:
        name = hashlib.sha1(data).hexdigest()
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)
    print('%d inputs in %s' % (len(inputs), out))


if __name__ == '__main__':
    main()
