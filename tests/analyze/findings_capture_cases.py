"""make_findings.py's scenarios of the capture's own faults (capture_*), and the pcapng they need.

Each builds a healthy stream with findings_traffic.py and plants one fault of the capture itself
(a snap length that cuts headers, drops, copies, time going backwards, a flow limit, RoCE on
another UDP port, more vantage points than are followed), recording it as make_findings.py does.
"""
import struct

from findings_traffic import T0, US, Net, Stream, expect, host, two_taps, SEND_ONLY


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


def capture_drops_between():
    """Two taps 500 ns apart whose pcapng statistics each say 5 frames were dropped by the
    capture; 5 packets the upstream tap saw never reached the downstream one: the loss the paths
    place between them may be those drops (confidence low)."""
    net = Net()
    s, r = host(163), host(164)
    st = Stream(net, s, r, 0xB12, 0xB13, sport=53250, point="up")
    st.steady(T0, 200, 2 * US)
    gone = {k for k, (t, f) in enumerate(net.frames("up")) if is_request(f)}
    two_taps(net, "up", "down", {s.ip}, 500, set(sorted(gone)[50:200:30]))
    return net, dict(expect=[expect("capture_drops", "warning", evidence=dict(dropped=10)),
                             expect("loss", "warning", flows=[st.name], confidence="low",
                                    evidence=dict(lost_packets=5, lost_from="paths"))],
                     also=[], pcapng_drops=5,
                     text=["5 lost between them (of 200 judged; the captures dropped 10 frames: "
                           "some may be those, missing at down, not lost in the network)"])


def capture_duplicates():
    """A port mirror that sends every frame twice, the copy 1 us after the original."""
    net = Net()
    st = Stream(net, host(171), host(172), 0xB20, 0xB21, sport=53300)
    st.steady(T0, 200, 5 * US)
    frames = net.frames()
    net.files["capture"] = frames + [(t + US, f) for t, f in frames]
    return net, dict(expect=[expect("capture_duplicates", "warning",
                                    evidence=dict(packets=len(frames)))], also=[])


def is_request(frame):
    """A SEND ONLY (the BTH opcode of an untagged IPv4 frame)."""
    return frame[42] == SEND_ONLY


def capture_time_order():
    """Three pairs of frames written out of time order (files merged by appending them): each is
    followed by an older one. Where both are requests, the later PSN comes first: the older
    frame fills the gap its successor left (its time is before the flow's previous request's),
    so the capture's disorder is no loss, no resend and no timeout."""
    net = Net()
    st = Stream(net, host(173), host(174), 0xB30, 0xB31, sport=53400)
    st.steady(T0, 300, 5 * US)
    frames = sorted(net.frames(), key=lambda x: x[0])
    swapped = 0
    for k in (50, 150, 250):
        swapped += is_request(frames[k][1]) and is_request(frames[k + 1][1])
        frames[k], frames[k + 1] = frames[k + 1], frames[k]
    assert swapped, "no pair of requests swapped: the case tests nothing"
    net.files["capture"] = frames
    want = [expect("capture_time_order", "info", evidence=dict(count=3))]
    return net, dict(expect=want, also=[], in_order=False)


def capture_flow_limit():
    """Six QPs between six host pairs, analyzed with --max-flows 4: two flows are refused."""
    net = Net()
    for i in range(6):
        Stream(net, host(175 + i), host(185 + i), 0xB40 + i, 0xB50 + i,
               sport=53500 + i, ack_every=0).steady(T0 + i * US, 50, 10 * US)
    return net, dict(expect=[expect("capture_flow_limit", "warning",
                                    evidence=dict(max_flows=4, packets=100))],
                     also=[], args=["--max-flows", "4"])


def capture_other_port():
    """RoCEv2 (whole packets, valid ICRCs) sent to UDP port 4792, not 4791."""
    net = Net()
    st = Stream(net, host(191), host(192), 0xB60, 0xB61, sport=53600, dport=4792)
    st.steady(T0, 200, 5 * US)
    return net, dict(expect=[expect("capture_other_port", "warning", evidence=dict(port=4792))],
                     also=[])


def capture_vantage_incomplete():
    """Nine taps along one path (100 ns apart), analyzed as nine vantage points: only 8 are
    followed, so the ninth's frames are left out of the paths."""
    net = Net()
    s, r = host(193), host(194)
    st = Stream(net, s, r, 0xB70, 0xB71, sport=53700, point="p1")
    st.steady(T0, 200, 5 * US)
    for k in range(2, 10):
        two_taps(net, "p1", "p%d" % k, {s.ip}, (k - 1) * 100)
    return net, dict(expect=[expect("capture_vantage_incomplete", "warning",
                                    evidence=dict(frames_beyond=len(net.frames("p9"))))], also=[])


CASES = [capture_snaplen, capture_drops, capture_drops_between, capture_duplicates, capture_time_order,
         capture_flow_limit, capture_other_port, capture_vantage_incomplete]


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
